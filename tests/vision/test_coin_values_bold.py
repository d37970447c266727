"""Bold value numerals (the serif 3 above all) told from a close rival by where each fits on the coin
(vision.coin_values): at the fitted rim's centre, or only a millimetre or more off it."""

import numpy as np
import pytest

from vision import coin_values


def test_a_numeral_fitting_at_the_rim_beats_rivals_fitting_only_off_it():
    windows = [(0, 1), (2, 0), (1, 1), (2, 2), (0, 0)]  # each label's own best window, crop px from the rim centre
    assert coin_values.fits_at_rim(0, [1], windows)  # the rival 2 px off, the winner half a pixel
    assert coin_values.fits_at_rim(0, [1, 3], windows)
    assert coin_values.fits_at_rim(0, [], windows)
    assert not coin_values.fits_at_rim(0, [2], windows)  # a pixel apart: the same print read a hair apart
    assert not coin_values.fits_at_rim(0, [4], windows)  # the rival nearer the rim's centre
    assert not coin_values.fits_at_rim(3, [0], windows)  # the winner 1.4 mm off the rim: the rim may be its print's
    assert not coin_values.fits_at_rim(1, [4], windows)


def _read(monkeypatch, seed: int, on: bool):
    """Bold Easy Slider board ``seed`` read through the whole chain (taught profile, calibration from the sheet)
    with the rule on or off: nothing may be sure and wrong, nor extra, either way."""
    from detect_scenes import easy_slider_frame, score, taught_profile

    from calibration.table_calibration import calibrate_from_sheet
    from vision.detect import Detector

    monkeypatch.setattr(coin_values, "READ_BY_WINDOW", on)
    profile = taught_profile("bold")
    frame = easy_slider_frame(seed, edition="bold")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.covered_wrong == 0, result.notes
    return result


@pytest.mark.parametrize("seed", [500, 505])
def test_a_clear_bold_arms_3_is_read_surely(monkeypatch, seed):
    # without the rule the arms 3 is "face unclear": its 4 fits 1-1.5 mm off the rim's centre within 0.04-0.06
    before = _read(monkeypatch, seed, False)
    assert any("('coin', 'value', 'arms', 3): face unclear" in note for note in before.notes), before.notes
    after = _read(monkeypatch, seed, True)
    assert not any("('coin', 'value', 'arms', 3)" in note for note in after.notes), after.notes
    assert after.correct == before.correct + 1


def test_a_rival_a_pixel_outward_of_a_diagonal_winner_fits_farther():
    # bold Easy Slider 506's arms 3 at (1, 1), its 4 a pixel straight outward at (2, 1): 0.83 px farther
    windows = [(1, 1), (2, 1), (0, 2), (1, 0)]
    assert coin_values.fits_at_rim(0, [1], windows)
    assert not coin_values.fits_at_rim(0, [2], windows)  # as far from the centre as the winner (2.0 vs 1.41)
    assert not coin_values.fits_at_rim(0, [3], windows)  # nearer the centre
    assert not coin_values.fits_at_rim(3, [0], windows)  # (1, 0) -> (1, 1) is only 0.41 farther


def test_a_diagonal_neighbour_window_is_apart():
    # (1, 1) lies 1.41 px from (0, 0): two prints read a diagonal pixel apart (bold Easy Slider 510's 3 and 4)
    windows = [(0, 1), (1, 2), (1, 1)]
    assert coin_values.fits_at_rim(0, [1], windows)
    assert not coin_values.fits_at_rim(0, [2], windows)  # a pixel straight apart: the same print


def test_a_numeral_at_the_rim_a_hair_behind_a_rival_off_it_is_the_one_judged():
    best = np.array([0.805, 0.803, 0.771, 0.60])  # a 4, a 3, the suit side, a 5
    windows = [(2, 1), (0, 0), (3, 1), (1, 0)]
    threes = frozenset({1, 3})
    assert coin_values.at_rim_instead(0, best, windows, threes) == 1
    assert coin_values.at_rim_instead(0, best, [(2, 1), (1, 1), (3, 1), (1, 0)], threes) == 1  # 0.7 mm off
    assert coin_values.at_rim_instead(0, best, [(2, 1), (2, 0), (3, 1), (1, 0)], threes) == 0  # the 3 off too
    behind = np.array([0.83, 0.803, 0.771, 0.60])  # the 3 0.027 behind: the print may be the 4's
    assert coin_values.at_rim_instead(0, behind, windows, threes) == 0
    assert coin_values.at_rim_instead(1, best, windows, threes) == 1  # the best is a 3 already


@pytest.mark.parametrize("seed, old", [
    (509, dict(RUNNER_UP_BEHIND=-1.0)),  # the 4 fits 1.1 mm off, 0.002 ahead of the 3 at the rim's centre
    (510, dict(APART_PX=1.5)),  # the 4 fits a diagonal pixel from the 3, which is 0.5 mm off the rim's centre
    (521, dict(OTHER_SIDE_OFF_PX=99.0)),  # the arms symbol fits 1.5 mm off, 0.029 behind the 3
    (506, dict(FARTHER_PX=1.0)),  # the 3 a diagonal pixel off the rim's centre, its 4 a pixel outward, 0.013 behind
])
def test_a_bold_arms_3_beside_a_rival_off_the_rim_is_read_surely(monkeypatch, seed, old):
    for name, value in old.items():
        monkeypatch.setattr(coin_values, name, value)
    before = _read(monkeypatch, seed, True)
    assert any("('coin', 'value', 'arms', 3): face unclear" in note for note in before.notes), before.notes
    monkeypatch.undo()
    after = _read(monkeypatch, seed, True)
    assert not any("('coin', 'value', 'arms', 3)" in note for note in after.notes), after.notes
    assert after.correct == before.correct + 1


def test_a_bold_arms_3_with_its_4_a_pixel_farther_out_is_read_surely(monkeypatch):
    """Bold Easy Slider 502's arms 3 read at its true middle: the 3 fits at (1, 0), half a millimetre off, and its 4
    a pixel farther out at (2, 0), 0.01 behind. A pixel straight apart was "the same print read a hair apart"
    (APART_PX 1.4): the 3 was "face unclear". The 4 fitting a pixel farther from the rim's centre than the 3 is what
    tells them (FARTHER_PX); now it is read surely, as a 3."""
    from detect_scenes import easy_slider_frame, taught_profile
    from test_coin_fours import _value_coins

    frame, profile = easy_slider_frame(502, edition="bold"), taught_profile("bold")
    (_, reading), = _value_coins(frame, profile, 3, suit="arms")
    assert reading.status == "ok" and (reading.side, reading.suit.value, reading.rank) == ("value", "arms", 3)
    monkeypatch.setattr(coin_values, "APART_PX", 1.4)
    (_, reading), = _value_coins(frame, profile, 3, suit="arms")
    assert reading.status == "unclear" and reading.reason == "face unclear"
