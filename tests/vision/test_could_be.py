"""An uncertain coin's ``could_be`` holds its truth: Slides and Plans of Action take a coin's suit from it, and Roll
Out the Barrels narrows a barrel's value with it (tableside/reading.py)."""

from __future__ import annotations

import numpy as np
from detect_scenes import easy_slider_frame, score, taught_profile
from tablescene import Lighting

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Suit
from vision.detect import Detector


def test_a_blurred_twin_reading_names_every_face_of_its_suit():
    """bench_conditions' bold Easy Slider 780 blurred 2 px: the arms 3, its numeral a blob, correlated best with the
    arms ace and suit side (twins) and its 4, and named those three only. The arms symbol fitted there does not
    explain the crop (residual 0.13, at the fit's most blur): the twins rule was measured on crops a sharp twin's
    symbol explains, so such a coin names every face of its suit (CoinReader._suit_faces_could_be)."""
    frame = easy_slider_frame(780, edition="bold", lighting=Lighting(blur_px=2.0))
    profile = taught_profile("bold")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("coin",))
    result = score(detection, frame, profile)
    assert result.wrong == 0, result.notes
    truths = frame.of_kind("coin")
    named = 0
    for piece in detection.uncertain:
        if not piece.could_be:
            continue
        truth = min(truths, key=lambda t: np.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
        want = (Suit(truth["suit"]), truth["rank"] if truth["side"] == "value" else None, truth["side"])
        assert want in piece.could_be, (piece.could_be, truth)
        named += 1
    assert named >= 2, result.notes  # measured: the arms 1 and the arms 3 name their readings


def test_a_black_numeral_whose_ink_shows_colour_names_its_own_suit_too():
    """Held-out bench_states default Roll Out the Barrels 128: a moons 2 and a moons 5 (black ink) whose ink
    measured coloured were doubted as blurred coloured numerals and named the 2 and 5 of suns, crowns and arms
    only (CoinReader._by_ink). The ink's colour is what is in doubt, so the same face is named in every suit,
    the black one too: no single other suit is named."""
    import state_scenes as ss

    from tableside.frame_input import GAME_KINDS

    case = ss.state_case("roll-out-the-barrels", "default", 128)
    frame = case.frame
    profile = taught_profile("default")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(
        frame.image, kinds=GAME_KINDS["roll-out-the-barrels"])
    truths = frame.of_kind("coin")
    by_ink = 0
    for piece in detection.uncertain:
        if piece.kind.value != "coin" or not piece.could_be:
            continue
        truth = min(truths, key=lambda t: np.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
        want = (Suit(truth["suit"]), truth["rank"] if truth["side"] == "value" else None, truth["side"])
        assert want in piece.could_be, (piece.could_be, truth)
        by_ink += int(len({suit for suit, _, _ in piece.could_be}) == len(Suit))
    assert by_ink >= 2  # measured: the moons 2 and the moons 5
