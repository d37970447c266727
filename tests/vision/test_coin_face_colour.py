"""A blank coin face must be the set's coins' colour (vision.coin_face_colour): a motion-blurred fingertip's skin
read as a blank null is not a sure coin, and real blank nulls, paler or deeper in colour with the light, stay
sure."""

from __future__ import annotations

import numpy as np
from detect_scenes import GAME_CAMERA, easy_slider_frame, rendered, score, taught_profile
from tablescene import CoinPiece, Hand, Lighting, Scene, easy_slider_board, easy_slider_layout

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import SUITS, Kind
from vision import Detector
from vision.coin_face_colour import FACE_CHROMA_MOST, off_coin_colour

#: the default edition's taught coin face (tests/make_default_profile.py's teach photos)
_TAUGHT = default_profile().taught["coin_face_chroma"]


def test_teach_records_the_coins_face_colour():
    """Teach records the value side's face colour relative to its photo's white (the tiles' faces): the default
    edition's light wood is redder than white, as the built-in profile (taught from the same photos) says."""
    green, blue = taught_profile("default").taught["coin_face_chroma"]
    assert blue < green < 0
    assert np.allclose((green, blue), _TAUGHT, atol=0.01)


def test_skin_is_off_the_coins_colour_and_real_nulls_are_not():
    """Face and white colours (BGR medians) measured in rendered frames: the fingertip of held-out
    bench_conditions "hand moving" 1962 against its tiles' white; real blank nulls on and beside face-up tiles
    in warm dim light (deeper than taught), in bright light (paler: the camera's white clips the wood's colour
    away) and a coin grid's null against the frame's 95th percentile."""
    assert off_coin_colour(np.array([109, 121, 139]), np.array([169, 161, 151]), _TAUGHT) > FACE_CHROMA_MOST
    for face, white in (((150, 184, 212), (194, 214, 223)), ((238, 236, 236), (243, 241, 239)),
                        ((235, 241, 244), (216, 233, 238)), ((168, 203, 221), (225, 232, 234))):
        assert off_coin_colour(np.array(face), np.array(white), _TAUGHT) < FACE_CHROMA_MOST - 0.05, (face, white)


def test_a_blurred_fingertip_over_a_tile_is_no_sure_null():
    """bench_conditions' default "hand moving (motion blur)" seed 1962 (held out: --seed-offset 1000): the
    pointing hand's fingertip, moving 8 px, lay over the gap between the crowns 4 and the suns 5. Its rounded end
    fitted a coin's rim and its plain skin read as a blank null's face: a sure null of no suit at (241, 166),
    confidence 1.0, where no coin lies. Its colour (0.26 off the coins' face, relative to the tiles' white) is
    not the coins': the coin is uncertain, naming nothing."""
    hand = Hand(x_mm=142.29878307905653, y_mm=167.1459091830456, angle_deg=-40.11429101245373,
                h_mm=28.86924830735478, pose="point", skin=(150, 180, 225),
                motion_px=(-5.668152330066681, -5.930013640555925))
    frame = easy_slider_frame(1962, hands=(hand,))
    profile = default_profile()
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.covered_wrong == 0, result.notes
    there = [p for p in detection.pieces + detection.uncertain
             if p.kind is Kind.COIN and abs(p.x_mm - 241) < 8 and abs(p.y_mm - 166) < 8]
    assert all(p.uncertain and not p.could_be for p in there)


def _null_board(seed: int):
    """An Easy Slider board whose five coins are blank nulls, three more nulls lying on face-up tiles."""
    rng = np.random.default_rng([seed, 3])
    pieces = easy_slider_layout(easy_slider_board(rng=seed), rng=seed, gap_mm=6.0, edition=None)
    tiles = [p for p in pieces if p.kind == "tile"]
    nulls = [CoinPiece(SUITS[int(rng.integers(4))], 0, "value", p.x_mm, p.y_mm, p.angle_deg, p.edition, p.h_mm)
             if p.kind == "coin" else p for p in pieces]
    for k in rng.choice(len(tiles), 3, replace=False):
        tile = tiles[k]
        nulls.append(CoinPiece(SUITS[int(rng.integers(4))], 0, "value", tile.x_mm + rng.uniform(-5, 5),
                               tile.y_mm + rng.uniform(-5, 5), float(rng.uniform(0, 360)), None, 3.0))
    scene = Scene(pieces=nulls, table="wood", sheet="a3", edition="default",
                  lighting=Lighting.random(np.random.default_rng(seed)))
    return rendered(scene, GAME_CAMERA, seed)


def test_real_blank_nulls_among_face_up_tiles_stay_sure():
    """Seed 1's warm dim light deepens the nulls' wood (0.07-0.085 off the taught colour, the farthest of the 68
    such nulls read on 20 boards): every null still read surely, none doubted for its colour."""
    frame = _null_board(1)
    profile = default_profile()
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    assert not [p for p in detection.uncertain if p.kind is Kind.COIN and "colour" in (p.reason or "")]
    nulls = [p for p in detection.pieces if p.kind is Kind.COIN and p.side == "value" and p.rank == 0]
    assert len(nulls) >= 4  # (the four read surely before the rule)
