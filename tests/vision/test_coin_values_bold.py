"""Bold value numerals (the serif 3 above all) told from a close rival by where each fits on the coin
(vision.coin_values): at the fitted rim's centre, or only a millimetre or more off it."""

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
