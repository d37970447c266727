"""Pieces along the calibration sheet's edge (held-out seeds of bench_detect, ``--seed-offset 40``): white tiles
a few millimetres inside the sheet's edge, whose outline fit took the edge (the sheet against the wood: a far
stronger line than a white tile's edge on the white sheet) for a side; and the bare sheet between two of its
markers, read as a blank coin."""

from __future__ import annotations

import math

import numpy as np
from detect_scenes import easy_slider_frame, score, taught_profile, tile_block_frame

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import COIN_MM, Kind, Suit
from vision import Detector
from vision.detect import _Pose


def _near(pieces, kind, x, y, within=8.0):
    return [p for p in pieces if p.kind is kind and math.hypot(p.x_mm - x, p.y_mm - y) < within]


def test_tiles_beside_the_sheets_edge_are_found():
    """Default Easy Slider seed 550: the board's left column lies 8-10 mm inside the sheet's left edge. Each
    tile's outline was fitted onto that edge (its right side on nothing) and read as nothing: the column was
    missed. Fitted again from past the edge, three of its tiles read (the fourth, suns null at (36, 333), has no
    candidate of its own and stays missed); nothing is read wrong or where no piece lies."""
    profile = taught_profile("default")
    frame = easy_slider_frame(550, edition="default")
    detector = Detector(calibrate_from_sheet(frame.image), profile)
    detection = detector.detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    for suit, rank, x, y in ((Suit.CROWNS, 2, 34, 106), (Suit.SUNS, 5, 36, 164), (Suit.ARMS, 2, 36, 277)):
        found = _near(detection.pieces, Kind.TILE, x, y)
        assert [(p.side, p.suit, p.rank) for p in found] == [("face", suit, rank)], (x, y, result.notes)

    # the rule itself: a strong side on the sheet's edge (the left one, x = 0) with its opposite on nothing is
    # that edge; the same outline a tile farther in, or with both sides shown, is not
    assert detector._pulled_to_sheet_edge(_Pose(np.array([26.0, 164.5]), -1.1), (1.0, 0.0, 0.86, 0.86))
    assert not detector._pulled_to_sheet_edge(_Pose(np.array([36.0, 164.5]), -1.1), (1.0, 0.0, 0.86, 0.86))
    assert not detector._pulled_to_sheet_edge(_Pose(np.array([26.0, 164.5]), -1.1), (1.0, 0.86, 0.86, 0.86))
    assert not detector._pulled_to_sheet_edge(_Pose(np.array([26.0, 164.5]), 20.0), (1.0, 0.0, 0.86, 0.86))


def test_bare_sheet_between_markers_is_no_sure_coin():
    """Default tile-backs seed 1143: the white sheet between two of its left markers (2 mm from each), framed by
    their black edges, read as a sure blank (null) coin where no coin lies. A blank coin whose rim comes that
    close to two markers is reported uncertain."""
    profile = taught_profile("default")
    frame = tile_block_frame(1143, edition="default")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert not _near(detection.pieces, Kind.COIN, 35, 122, within=COIN_MM / 2)
    doubted = _near(detection.uncertain, Kind.COIN, 35, 122, within=COIN_MM / 2)
    assert [p.reason for p in doubted] == ["blank face between sheet markers"]
    # the real blank (arms null) on a back, far from the markers, is still reported sure
    assert [(p.side, p.rank) for p in _near(detection.pieces, Kind.COIN, 83, 280)] == [("value", 0)]
