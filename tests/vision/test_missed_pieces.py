"""Pieces the finder used to miss altogether (issues #5 and #6): each test names the frame, the piece and why it
was missed, and checks that it is found now with nothing read wrong or found where no piece lies."""

from __future__ import annotations

import pytest
from detect_scenes import coin_grid_frame, score, taught_profile

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Kind
from vision import Detector


def _detect(frame, profile, kinds=("tile", "coin")):
    return Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=kinds)


@pytest.mark.parametrize("seed, nulls", [
    # a null beside its vote peak whose rim shows only half round (support 0.53, 0.59) though its signature fits
    # well (0.63, 0.74): the blank-face bar asked for a rim showing 0.7 round
    (1005, [(109, 140), (136, 217)]),
    # light nulls on white paper with no clear vote peak of their own: grown from the coin grid, where blank
    # readings were never taken (empty paper is as blank), though their signatures fit 0.68 and 0.72
    (1004, [(162, 242), (135, 266)]),
])
def test_blank_nulls_whose_rim_signature_fits_clearly_are_found(seed, nulls):
    """The default edition's null coin is a plain disc with a thin suit-coloured rim. Where the coin's radial
    signature fits 0.6 or more (empty table between and beside coins fits 0.5 at most: 2733 places measured), the
    null is found by its rim, with its value (the suit only when the thin rim shows it clearly)."""
    profile = taught_profile("default")
    frame = coin_grid_frame(seed, edition="default")
    detection = _detect(frame, profile)
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.missed == 0, result.notes
    nulls_found = [p for p in detection.pieces if p.kind is Kind.COIN and p.rank == 0 and p.side == "value"]
    for x, y in nulls:
        assert any(abs(p.x_mm - x) < 3 and abs(p.y_mm - y) < 3 for p in nulls_found), (x, y)
