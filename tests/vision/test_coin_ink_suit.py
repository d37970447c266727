"""A value numeral's suit told by its ink's colour where the suits' templates of that numeral come close
(vision.coin_ink_suit, vision.classify.CoinReader._by_ink_suit): the bold edition prints each suit's numerals in
the suit's colour, in one font."""

from __future__ import annotations

import numpy as np
import pytest
from detect_scenes import coin_grid_frame, easy_slider_frame, score, taught_profile

from calibration.profile import COIN_CROP_MM, COIN_CROP_PX
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Suit
from vision import classify
from vision.coin_ink import suit_hues
from vision.coin_ink_suit import ink_suit
from vision.crops import sample_crops
from vision.detect import Detector


def _truth_crops(frame):
    """(truth, crop) of every uncovered coin of a rendered frame, cropped at its true middle."""
    truths = [t for t in frame.of_kind("coin") if not t["hidden"] and t["occluded_fraction"] <= 0.1]
    centres = np.array([[t["x_mm"], t["y_mm"]] for t in truths])
    crops = sample_crops(frame.image, frame.exact_calibration(), centres, np.zeros(len(truths)),
                         np.array([t["top_mm"] for t in truths]), COIN_CROP_MM, COIN_CROP_PX)
    return list(zip(truths, crops, strict=True))


@pytest.mark.parametrize("seed", [1000, 1004])
def test_the_ink_names_a_coloured_suit_and_never_another(seed):
    """Every coin of a bold coin grid at its middle: a coloured suit's print (value numeral, ace or suit side) is
    named its own suit or nothing, never another; the black suit's is never named."""
    profile = taught_profile("bold")
    hues = suit_hues(profile.suit_colors, frozenset({Suit.MOONS}))
    assert set(hues) == {Suit.SUNS, Suit.CROWNS, Suit.ARMS}
    named = 0
    for truth, crop in _truth_crops(coin_grid_frame(seed, edition="bold")):
        if truth["side"] == "value" and truth["rank"] == 0:
            continue  # a null's dot: too little ink to judge by (the rule reads numerals 2-5 only)
        suit = ink_suit(crop, hues)
        assert suit is None or suit.value == truth["suit"], (truth, suit)
        if truth["suit"] == "moons":
            assert suit is None, truth
        named += suit is not None
    assert named >= 10


def _read(monkeypatch, frame, on: bool):
    monkeypatch.setattr(classify, "READ_BY_INK_SUIT", on)
    profile = taught_profile("bold")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.covered_wrong == 0, result.notes
    return result


@pytest.mark.parametrize("make, seed, unclear", [
    # a green crowns 3 whose blue arms 3 fits 0.10 behind at its own window (the margin at its score: 0.14)
    (coin_grid_frame, 1004, "('coin', 'value', 'crowns', 3): face unclear"),
])
def test_a_numeral_whose_other_suits_come_close_is_read_by_its_ink(monkeypatch, make, seed, unclear):
    frame = make(seed, edition="bold")
    before = _read(monkeypatch, frame, False)
    assert any(unclear in note for note in before.notes), before.notes
    after = _read(monkeypatch, frame, True)
    assert not any(unclear in note for note in after.notes), after.notes
    assert after.correct == before.correct + 1


def test_a_numeral_in_a_jpeg_frame_is_read_by_its_ink(monkeypatch):
    """bench_conditions' bold JPEG q50 frame 841 (Easy Slider, compressed at quality 50): the arms 3's black moons 3
    fits 0.078 behind it at its own window (the margin at its score 0.09)."""
    from tablescene import Lighting

    frame = easy_slider_frame(841, edition="bold", lighting=Lighting(jpeg_quality=50))
    before = _read(monkeypatch, frame, False)
    assert any("('coin', 'value', 'arms', 3): face unclear" in n for n in before.notes), before.notes
    after = _read(monkeypatch, frame, True)
    assert not any("('coin', 'value', 'arms', 3)" in n for n in after.notes), after.notes
    assert after.correct == before.correct + 1
