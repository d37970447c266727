"""Coins with the built-in profile on rendered frames: a coin grid with the die on a coin (Roll Out the
Barrels), coins suit side up on tile backs (Slides and Plans of Action), value and suit sides at any rotation."""

from __future__ import annotations

import numpy as np
import pytest
from detect_scenes import board_frame, rendered, score
from make_live_fixtures import easy_camera, steady_lighting
from tablescene import CoinPiece, DiePiece, Hand, Scene, coin_grid, easy_slider_layout, tile_block

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from rules import easy_slider as es
from rules.pieces import SUITS, Kind
from vision import coin_twins
from vision.detect import Detector


def _read(frame, kinds=("tile", "coin")):
    profile = default_profile()
    calibration = calibrate_from_sheet(frame.image)
    detection = Detector(calibration, profile).detect(frame.image, kinds=kinds)
    return detection, score(detection, frame, profile)


def test_a_coin_grid_with_the_die_on_a_coin():
    rng = np.random.default_rng(5)
    coins = [(SUITS[i % 4], int(r)) for i, r in enumerate(rng.permutation(list(range(6)) * 4))]
    pieces = coin_grid(coins, (110.0, 140.0), 4, rng=5)
    under = pieces[9]
    pieces.append(DiePiece(SUITS[1], 3, under.x_mm, under.y_mm, 12.0))
    frame = board_frame(pieces, 51)
    detection, result = _read(frame, kinds=("coin",))
    assert result.wrong == 0 and result.covered_wrong == 0 and result.extra <= 1, result.notes
    # of the 23 coins not under the die: the 4's of this set may be uncertain (a blurred 4 and an ace are alike),
    # and a blank null on the white sheet, whose only mark is a thin rim, is often not found (measured: 15 right,
    # 4 uncertain, 4 nulls missed; see the handoff): missed, never misread
    assert result.correct + result.partial >= 15, result.notes
    # the coin under the die is not read as if it were in plain view
    sure = [p for p in detection.pieces if np.hypot(p.x_mm - under.x_mm, p.y_mm - under.y_mm) < 8]
    assert not sure or (sure[0].suit, sure[0].rank) == (under.suit, under.rank)


def test_coins_on_tile_backs_lie_on_the_tiles():
    coins = {(0, 0): (SUITS[0], 1), (1, 1): (SUITS[2], 3), (2, 2): (SUITS[1], 2), (3, 0): (SUITS[3], 5),
             (0, 3): (SUITS[2], 0), (2, 1): (SUITS[0], 4, "value"), (3, 3): (SUITS[3], 2, "value")}
    frame = board_frame(tile_block(2, (95.0, 160.0), coins, rng=6), 52)
    detection, result = _read(frame)
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert result.correct >= 5, result.notes
    tiles = [p for p in detection.pieces if p.kind is Kind.TILE]
    # backs under coins: read when the back's grid shows around the coins; so far not all of them are
    assert tiles and all(t.side == "back" and t.suit is None and t.rank is None for t in tiles)
    coins_seen = [p for p in detection.pieces if p.kind is Kind.COIN]
    assert coins_seen and all(c.height_mm > 1.0 for c in coins_seen)  # they rest on the tiles


def test_both_sides_of_coins_at_any_rotation():
    pieces = []
    for i in range(8):
        side = "value" if i % 2 == 0 else "suit"
        pieces.append(CoinPiece(SUITS[i % 4], (i * 2) % 6, side, 70.0 + 30.0 * (i % 4), 150.0 + 40.0 * (i // 4),
                                float(i * 47 % 360)))
    frame = board_frame(pieces, 53)
    detection, result = _read(frame, kinds=("coin",))
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert result.correct + result.partial >= 5, result.notes  # a blank null on white paper may be missed
    for piece in detection.pieces:
        truth = min(frame.of_kind("coin"), key=lambda t: np.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
        if truth["side"] == "value" and truth["rank"] != 0:  # a value's turn shows (to a few steps of 5.6 deg)
            error = (piece.angle_deg - truth["angle_deg"] + 180.0) % 360.0 - 180.0
            assert abs(error) < 25.0


def test_paper_beside_a_coin_is_not_a_sure_blank_null():
    """An Easy Slider deal at 820x616, camera 640 mm (1 px/mm): a vote peak on the paper 14 mm left of the "2"
    coin, between the sheet's markers, fitted a rim from the coin's edge and the markers' (half the rays) and its
    crop read as a sure blank null (its printed rim, one side of it, correlated 0.53 with a blank face's); that
    coin's window then hid the 2's own fainter peak. A blank face judged by its rim alone needs the rim all round:
    every coin reported surely lies on a coin and reads what it shows. The 2's own vote peak is faint and 5 mm off
    (the view's votes are blurred at 1 px/mm): fitted from more starts, with a match floor for coarse frames, it
    is found and read."""
    pieces = easy_slider_layout(es.Setup.from_seed(7).state(), rng=7, nudge_mm=0.8, turn_deg=1.0)
    tiles = [p for p in pieces if p.kind == "tile"]
    shown = tiles[:3] + [t.moved(side="back") for t in tiles[3:]] + [p for p in pieces if p.kind != "tile"]
    scene = Scene(pieces=tuple(shown), table="wood", table_variant=1, sheet="a3", lighting=steady_lighting(noise=0.7))
    frame = rendered(scene, easy_camera((820, 616)), seed=1)
    detection = Detector(calibrate_from_sheet(frame.image), default_profile()).detect(frame.image,
                                                                                      kinds=("tile", "coin", "pawn"))
    truths = frame.of_kind("coin")
    assert len(truths) == 5
    for coin in (p for p in detection.pieces if p.kind is Kind.COIN):
        truth = min(truths, key=lambda t: np.hypot(t["x_mm"] - coin.x_mm, t["y_mm"] - coin.y_mm))
        assert np.hypot(truth["x_mm"] - coin.x_mm, truth["y_mm"] - coin.y_mm) < 4.0, (coin, truth)
        assert (coin.side, coin.rank) == (truth["side"], truth["rank"]), (coin, truth)
    (truth,) = [t for t in truths if t["rank"] == 2]
    two = [c for c in detection.pieces if c.kind is Kind.COIN and c.rank == 2]
    assert len(two) == 1 and np.hypot(two[0].x_mm - truth["x_mm"], two[0].y_mm - truth["y_mm"]) < 2.0, two


def _uncertain_coins_naming_the_truth(edition: str):
    """Coin grid 1000 of an edition read with its taught profile: the score, and each uncertain coin that names
    readings (``could_be``) with its true suit, after checking that nothing is sure and wrong, that sure coins
    name no alternatives and that every named list holds the truth."""
    from detect_scenes import coin_grid_frame, taught_profile

    from rules.pieces import Suit

    profile = taught_profile(edition)
    frame = coin_grid_frame(1000, edition=edition)
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("coin",))
    result = score(detection, frame, profile)
    assert result.wrong == 0, result.notes
    assert all(not p.could_be for p in detection.pieces)  # sure pieces name no alternatives
    truths = frame.of_kind("coin")
    named = []
    for piece in detection.uncertain:
        if not piece.could_be:
            continue
        truth = min(truths, key=lambda t: np.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
        want = (Suit(truth["suit"]), truth["rank"] if truth["side"] == "value" else None, truth["side"])
        assert want in piece.could_be, (piece, truth)
        named.append((piece, Suit(truth["suit"])))
    return result, named


def test_classic_aces_and_suit_sides_name_both_readings(monkeypatch):
    """The classic set prints a value-side ace as the suit's symbol, 5 % smaller than the suit side's (0.6 px at
    1.7 px/mm): those coins are uncertain by their print, and each names the two readings it could be, the truth
    among them. The naming is asked for with the reading by size off (it settles most of these twins:
    tests/vision/test_coin_twins.py)."""
    monkeypatch.setattr(coin_twins, "READ_BY_SIZE", False)
    result, named = _uncertain_coins_naming_the_truth("classic")
    both = 0
    for piece, suit in named:
        if set(piece.could_be) == {(suit, 1, "value"), (suit, None, "suit")}:
            both += 1
            out = piece.to_json()["could_be"]
            assert {(c["suit"], c["rank"], c["side"]) for c in out} == {(suit.value, 1, "value"),
                                                                        (suit.value, None, "suit")}
    # measured: 9 uncertain coins, all aces or suit sides, each naming its ace and its suit side
    assert both >= 7, result.notes


def test_coins_of_a_washed_out_grid_are_not_judged_too_blurred():
    """A coin grid under bright light (default edition, the benchmark's coin grid 1004): the lower rows' suit
    sides (a sun's thin rays) lose edge contrast, so their sharpness falls under the taught one although they read
    clearly (0.96, every other face 0.5 behind). A reading that far ahead is not a blurred blob: read. Before,
    those coins and the grid growing past them were missed (7); now only blank nulls are (grown coins are never
    read blank: empty paper is as blank)."""
    from detect_scenes import coin_grid_frame

    frame = coin_grid_frame(1004)
    detection, result = _read(frame, kinds=("coin",))
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert result.missed <= 3, result.notes  # measured: 2 (blank nulls); 7 before
    assert result.correct + result.partial >= 19, result.notes  # measured: 20 of 23


def test_bold_aces_and_suit_sides_name_their_twin_readings(monkeypatch):
    """The bold set prints a value-side ace as the suit's symbol too (twins: their templates correlate 0.97-1.0),
    and its value sides' numerals come within 0.2 of a suit side's reading (other side), so the general rule left
    most of these coins' could_be empty. Twins on top: the two, and a third label within the side margin (a sun's
    rays blurred into its null's dot), every other label trailing by that margin. The truth is among them. Asked
    with the reading by size off, as above."""
    monkeypatch.setattr(coin_twins, "READ_BY_SIZE", False)
    result, named = _uncertain_coins_naming_the_truth("bold")
    twins = 0
    for piece, suit in named:
        if {(suit, 1, "value"), (suit, None, "suit")} <= set(piece.could_be) and len(piece.could_be) <= 3:
            twins += 1
    assert result.could_be == result.could_be_true
    assert twins >= 8, result.notes


def test_only_symbol_aces_have_twins():
    """Twins are a value-side ace printed as its suit's symbol and that suit's side (classic, bold): an "A" ace
    (default, hand-made) is no suit side's twin, so its unclear readings are narrowed by the general rule only."""
    from detect_scenes import taught_profile

    from vision.classify import CoinReader

    assert CoinReader(default_profile()).twin_of == {}
    assert CoinReader(taught_profile("hand-made")).twin_of == {}
    for edition in ("classic", "bold"):
        reader = CoinReader(taught_profile(edition))
        pairs = {(reader.labels[a], reader.labels[b]) for a, b in reader.twin_of.items()}
        assert len(pairs) == 8, pairs
        for (side, suit, rank), (other_side, other_suit, other_rank) in pairs:
            assert suit == other_suit and {side, other_side} == {"value", "suit"}
            assert (rank if side == "value" else other_rank) == 1


def _coin_windows(frame, calibration, centres_mm, height_mm: float):
    """Coin crops as the detector samples them (``_COIN_ALIGN_PX`` wider each side) around ``centres_mm``."""
    from calibration.profile import COIN_CROP_MM, COIN_CROP_PX
    from vision.crops import oversampling, piece_homographies, sample_with

    margin = 4  # vision.detect._COIN_ALIGN_PX
    size = COIN_CROP_MM * (COIN_CROP_PX + 2 * margin) / COIN_CROP_PX
    centres = np.asarray(centres_mm, float).reshape(-1, 2)
    homographies = piece_homographies(calibration, centres, np.zeros(len(centres)), np.full(len(centres), height_mm),
                                      size)
    return sample_with(frame.image, homographies, size, COIN_CROP_PX + 2 * margin,
                       oversampling(calibration, centres[0], size, COIN_CROP_PX + 2 * margin)), margin


def test_a_meeple_head_is_no_coin_face():
    """A hand-made meeple's orange head half over the wood (Easy Slider hand-made 504, the suns pawn), looked at
    around, read as a sure suns coin at confidence 1.0 for its orange middle: a coin's face is the colour of most
    of its disc around the print (taught coins: 0.64 of it or more), and there neither orange nor wood is."""
    from detect_scenes import easy_slider_frame, taught_profile

    from vision.classify import CoinReader, face_share

    frame = easy_slider_frame(504, edition="hand-made")
    profile = taught_profile("hand-made")
    calibration = calibrate_from_sheet(frame.image)
    reader = CoinReader(profile)
    big, margin = _coin_windows(frame, calibration, [(-11.4, 98.9)], profile.coin_thickness_mm)
    reading, _ = reader.read_aligned(big[0], margin)
    assert reading.status != "ok", reading
    # the five coins of the board keep their face
    coins = [t for t in frame.truth if t["kind"] == "coin"]
    big, margin = _coin_windows(frame, calibration, [(t["x_mm"], t["y_mm"]) for t in coins], profile.coin_thickness_mm)
    inner = big[:, margin:-margin, margin:-margin]
    assert all(face_share(crop) >= 0.64 for crop in inner), [face_share(crop) for crop in inner]


def test_coins_read_at_a_rim_off_their_centre_are_not_surely_wrong():
    """A coin's rim fitted 1-1.5 mm off its centre (a weak rim, a kid on its trampoline): off centre, the polar
    features of the right face fall apart faster than some other face's, and the coin grids of every edition read
    surely wrong (a default moons 4 as an ace at confidence 1.0). A sure reading well below its face's typical
    score is checked with each label at its own best window: in the editions with no twins (an "A" ace) none is
    wrong (measured, coin grids 1000-1001 of the 4 editions at 1, 1.5 and 2 mm: 38 wrong before, 13 after: classic
    and bold twins, whose symbols' size a window off centre changes, and 2 mm off, the search's reach)."""
    from detect_scenes import coin_grid_frame, taught_profile

    from rules.pieces import Suit
    from vision.classify import CoinReader

    offsets = [(r * np.cos(a), r * np.sin(a)) for r in (1.0, 1.5) for a in np.arange(8) * np.pi / 4]
    wrong, sure = [], 0
    for edition, profile in (("default", default_profile()), ("hand-made", taught_profile("hand-made"))):
        reader = CoinReader(profile)
        frame = coin_grid_frame(1000, edition=edition)
        calibration = calibrate_from_sheet(frame.image)
        for truth in frame.truth:
            if truth["kind"] != "coin" or truth["occluded_fraction"] > 0.1 or truth["hand_fraction"] > 0.01:
                continue
            centres = [(truth["x_mm"] + dx, truth["y_mm"] + dy) for dx, dy in offsets]
            big, margin = _coin_windows(frame, calibration, centres, truth["top_mm"])
            for reading, _ in reader.read_batch(big, margin):
                if reading.status != "ok":
                    continue
                sure += 1
                right = reading.side == truth["side"] and reading.suit in (None, Suit(truth["suit"])) and (
                    reading.side == "suit" or reading.rank == truth["rank"])
                if not right:
                    wrong.append((edition, truth["side"], truth["suit"], truth["rank"], reading))
    assert not wrong, wrong
    assert sure >= 300, sure  # most still read (measured: 527 of 736)


@pytest.mark.parametrize("hand", [
    # bench_conditions' hand-made "hand over the board" seeds 940 and 943 (its _hand(seed))
    Hand(146.795, 258.047, angle_deg=28.04, h_mm=21.042, pose="point", skin=(125, 155, 205)),
    Hand(242.632, 183.706, angle_deg=17.021, h_mm=10.942, pose="pinch", skin=(150, 180, 225)),
], ids=["940", "943"])
def test_a_hidden_tiles_corner_symbol_is_no_coin(hand):
    """A hand over the board hides a tile of the grid but for its corner: its suit symbol, at a faint vote peak,
    read as a sure coin suit side up (a sun; an arm). A faint peak on a place of the tiles' grid where no tile
    was found, between tiles found, must show a rim as plain as on a tile's face."""
    from detect_scenes import easy_slider_frame, taught_profile

    profile = taught_profile("hand-made")
    seed = 940 if hand.pose == "point" else 943
    frame = easy_slider_frame(seed, edition="hand-made", hands=(hand,))
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.covered_wrong == 0, result.notes
    # the coins in their row above the grid are still read (the ace's value face is unclear in this edition)
    assert sum(p.kind == Kind.COIN for p in detection.pieces) >= 4, result.notes


def test_a_hidden_tiles_corner_symbol_in_its_unread_outline_is_no_sure_coin():
    """Held-out bench_conditions hand-made "hand over the board" seed 1940 (``--seed-offset 1000``): a flat hand
    half covers the crowns 2, whose outline is found but not read; its corner crown, at a faint vote peak, was
    judged as on a back (an unread outline) and read as a sure crowns coin, suit side up (rim 0.59 of the way
    round). An unread outline on a place of the read faces' grid may be a face hidden: its rim must be as plain as
    on a face."""
    from detect_scenes import easy_slider_frame, taught_profile

    profile = taught_profile("hand-made")
    hand = Hand(141.129, 283.628, angle_deg=-36.189, h_mm=33.732, pose="flat", skin=(150, 180, 225))
    frame = easy_slider_frame(1940, edition="hand-made", hands=(hand,))
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.covered_wrong == 0, result.notes
    there = [p for p in detection.pieces + detection.uncertain
             if p.kind is Kind.COIN and abs(p.x_mm - 136) < 6 and abs(p.y_mm - 263) < 6]
    assert all(p.uncertain and not p.could_be for p in there), there
    # the coins in their row above the grid are still read
    assert sum(p.kind == Kind.COIN for p in detection.pieces) >= 5, result.notes


def test_the_sheets_small_print_at_a_faint_peak_of_a_coarse_frame_is_no_null_coin():
    """bench_conditions' hand-made 820x616 (1 px/mm, a live preview stream) seed 922: the calibration sheet's
    small print between two coins of the row, at a faint vote peak, read as a sure null coin (confidence 0.55):
    a null's mark is a few pixels there. A faint peak of a coarse frame read as a null is no coin reported."""
    from detect_scenes import easy_slider_frame, taught_profile
    from tablescene import CameraSpec

    profile = taught_profile("hand-made")
    camera = CameraSpec(resolution=(820, 616), focal_px=1359.0 / 2, distance_mm=640.0, tilt_deg=12.0, yaw_deg=3.0,
                        target_mm=(150.0, 215.0), k1=-0.05, k2=0.012)
    frame = easy_slider_frame(922, edition="hand-made", camera=camera)
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert sum(p.kind == Kind.COIN for p in detection.pieces) >= 3, result.notes  # the row's 2, 3, 4, 5 (of 5)


def _coin_grid_at_1_px_per_mm(seed: int, edition: str):
    """bench_conditions' coin grid ``seed`` (bench_detect's, a third of the coins suit side up) seen by the 820x616
    preview camera at 640 mm: about 1 px/mm."""
    from tablescene import CameraSpec

    rng = np.random.default_rng([seed, 11])
    coins = [(SUITS[i // 6], i % 6) for i in rng.permutation(24)]
    pieces = coin_grid(coins, (110.0, 140.0), 4, rng=rng, edition=None)
    flip = rng.random(len(pieces)) < 0.3
    pieces = [p.moved(side="suit") if f else p for p, f in zip(pieces, flip, strict=True)]
    camera = CameraSpec(resolution=(820, 616), focal_px=1359.0 / 2, distance_mm=640.0, tilt_deg=12.0, yaw_deg=3.0,
                        target_mm=(150.0, 215.0), k1=-0.05, k2=0.012)
    return board_frame(pieces, seed, edition=edition, camera=camera)


@pytest.mark.parametrize("edition, seed", [("default", 1005), ("bold", 1003), ("classic", 1003), ("classic", 1005)])
def test_coloured_coins_blurred_at_1_px_per_mm_are_not_read_surely_as_black(edition, seed):
    """bench_conditions' coin grids seen by the 820x616 preview camera (1 px/mm): blur mixes a few pixels of a
    coloured numeral or null dot with the light face, and the coin was read surely as moons, the black suit
    (default 1005: an arms 2 at confidence 1.0; bold 1003: a suns null and a crowns null). A black-suit reading
    must show black ink measured in linear ratios to the face (vision.coin_ink), and a null whose suit is its
    dot's colour is held to its face's taught sharpness: these coins are uncertain, the rest still read. Classic
    1003 and 1005: a crowns suit side's symbol fitted as small as the ace's at 1 px/mm and was read surely as the ace
    by its size; twins are read by size only in frames of 1.4 px/mm or finer (vision.coin_twins)."""
    from detect_scenes import taught_profile

    frame = _coin_grid_at_1_px_per_mm(seed, edition)
    profile = default_profile() if edition == "default" else taught_profile(edition)
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    # what was read rightly stays read
    assert result.correct >= {"default": 5, "bold": 1, "classic": 10}[edition], result.notes


def test_the_bold_null_dots_colour_is_not_read_in_a_coarse_frame():
    """bold coin grid 1001 at 820x616 (1 px/mm): a crowns null's green dot, a few pixels there, faded in the
    frame's half-resolution colour to the black of a moons null's dot (ink_chroma 0.07-0.10 against black dots'
    0.01-0.06) and was read surely as moons 0 (confidence 0.82). Given the frame's scale, the reader reads a
    black-suit null's mark there as a null of no suit: nothing is wrong, and the nulls stay read as nulls. The
    detector gives its coin reader the frame's scale (vision.coin_ink.frame_px_per_mm)."""
    from detect_scenes import taught_profile

    from rules.pieces import Suit
    from vision.coin_ink import frame_px_per_mm

    frame = _coin_grid_at_1_px_per_mm(1001, "bold")
    profile = taught_profile("bold")
    calibration = calibrate_from_sheet(frame.image)
    assert frame_px_per_mm(calibration) < 1.25
    detection = Detector(calibration, profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    nulls = [p for p in detection.pieces if p.kind == Kind.COIN and p.rank == 0]
    # a black dot and a faded coloured one alike: no null there in the black suit; a coloured dot still read
    assert len(nulls) >= 2 and not any(p.suit == Suit.MOONS for p in nulls), result.notes


@pytest.mark.parametrize("ink, coloured", [((185, 110, 30), True), ((50, 150, 50), True), ((45, 40, 40), False)])
def test_the_inks_colour_is_measured_alike_at_any_blur(ink, coloured):
    """vision.coin_ink.ink_chroma: a bold numeral-like bar of blue, green or black ink on the white coin face,
    sharp or blurred by up to 1.5 mm, its colour planes blurred 1 mm more (a 4:2:0 JPEG's 2 mm colour cells at
    1 px/mm): coloured inks measure over ACHROMATIC_MAX at every blur, black ink far under it."""
    import cv2

    from calibration.profile import COIN_CROP_PX
    from vision.coin_ink import ACHROMATIC_MAX, ink_chroma

    face = np.full((COIN_CROP_PX, COIN_CROP_PX, 3), 240.0, np.float32)
    middle = COIN_CROP_PX // 2
    face[middle - 8 : middle + 8, middle - 2 : middle + 2] = ink  # a stroke 2 mm wide, 8 mm long
    for blur_px in (0.0, 1.0, 2.0, 3.0):
        crop = cv2.GaussianBlur(face, (0, 0), blur_px) if blur_px else face.copy()
        ycc = cv2.cvtColor(crop, cv2.COLOR_BGR2YCrCb)
        ycc[..., 1:] = cv2.GaussianBlur(ycc[..., 1:], (0, 0), 2.0)
        crop = np.clip(cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR), 0, 255).astype(np.uint8)
        chroma = ink_chroma(crop)
        assert (chroma > ACHROMATIC_MAX) if coloured else (chroma < 0.2 * ACHROMATIC_MAX), (blur_px, chroma)


def test_a_blank_nulls_suit_is_read_from_its_rims_colour():
    """The default edition prints nothing for the null: its coins' only mark is a thin rim in the suit's colour
    (0.34 mm, 8.2 mm out). bench_detect's default coin grid 1002: the crowns, arms and suns nulls were read as
    nulls of no suit (the rim's features, mostly its darkness, are alike in every suit). Their rims' colour,
    measured in linear ratios to the face and alike all round, reads their suits."""
    from detect_scenes import coin_grid_frame

    frame = coin_grid_frame(1002, edition="default")
    profile = default_profile()
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("coin",))
    result = score(detection, frame, profile, kinds=("coin",))
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert result.partial == 0 and result.correct >= 22, result.notes  # the three nulls' suits read


def test_a_rims_colour_is_read_in_no_wrong_suit():
    """Every coin of the default coin grids 1000, 1001, 1003 and 1005 (their rims are printed alike on both
    sides), cropped at its true place, its rim's colour read as a blank null's would be: never in a wrong suit.
    Grids 1000 and 1005 are bright: their faces lie in the camera's highlight shoulder (a channel over 200), which
    shrinks the brightest channel's contrast (a black rim there looked red, a green one yellow) and is not read; 1001
    and 1003 have coins under the lens's lateral chromatic aberration and numerals whose ink would tint the face."""
    from detect_scenes import coin_grid_frame

    from calibration.profile import COIN_CROP_MM, COIN_CROP_PX
    from rules.pieces import Suit
    from vision.classify import CoinReader
    from vision.coin_ink import rim_suit, suit_hues
    from vision.crops import sample_crops

    reader = CoinReader(default_profile())
    hues = suit_hues(default_profile().suit_colors, reader.achromatic)
    right = wrong = 0
    for seed in (1000, 1001, 1003, 1005):
        frame = coin_grid_frame(seed, edition="default")
        calibration = frame.exact_calibration()
        truths = [t for t in frame.of_kind("coin") if not t["hidden"] and t["occluded_fraction"] == 0]
        centres = np.array([[t["x_mm"], t["y_mm"]] for t in truths])
        crops = sample_crops(frame.image, calibration, centres, np.zeros(len(truths)),
                             np.array([t["top_mm"] for t in truths]), COIN_CROP_MM, COIN_CROP_PX)
        for truth, crop in zip(truths, crops, strict=True):
            suit = rim_suit(crop, hues, reader.achromatic, frozenset(Suit))
            right += suit is not None and suit.value == truth["suit"]
            wrong += suit is not None and suit.value != truth["suit"]
    assert wrong == 0 and right >= 5, (wrong, right)


def test_the_hand_made_ace_is_read_where_it_is_clear():
    """The hand-made edition's "A" and "4" are script glyphs alike enough that teach's blurred copies of the 4
    passed for the A by up to 0.19, so the A needs a margin of 0.21, and in game frames the 4 fits 0.5-1 mm off the
    A's middle 0.03-0.2 below it: every A was "face unclear" (bench_detect hand-made coin grid 1000: three). At the
    A's own window every other face trails by 0.25 or more; a rival's fit elsewhere is held to the model's margin."""
    from detect_scenes import coin_grid_frame, taught_profile

    frame = coin_grid_frame(1000, edition="hand-made")
    profile = taught_profile("hand-made")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("coin",))
    result = score(detection, frame, profile, kinds=("coin",))
    assert result.wrong == 0 and result.extra == 0, result.notes
    aces = [p for p in detection.pieces if p.kind == Kind.COIN and not p.uncertain and p.rank == 1]
    assert len(aces) >= 2, result.notes


@pytest.mark.parametrize("edition", ["hand-made", "bold"])
def test_coins_blurred_or_off_centre_are_not_read_surely_wrong_with_rivals_held_to_the_models_margin(edition):
    """Every coin of the edition's coin grids 1000 and 1001 cropped 1 mm off its middle, sharp or blurred by 1 and 1.6
    crop pixels, read by the aligned search (each label at its own best window): none sure and wrong, with a rival
    read elsewhere held to the model's margin rather than the per-label one (the closest: a hand-made moons 4 moved
    1 mm, where the A led by 0.018, needing 0.08)."""
    import cv2
    from detect_scenes import coin_grid_frame, expected_label, taught_profile

    from calibration.profile import COIN_CROP_MM, COIN_CROP_PX
    from vision.classify import CoinReader
    from vision.crops import sample_crops

    profile = taught_profile(edition)
    reader = CoinReader(profile)
    margin = 6
    size = COIN_CROP_MM * (COIN_CROP_PX + 2 * margin) / COIN_CROP_PX
    sure = wrong = 0
    for seed in (1000, 1001):
        frame = coin_grid_frame(seed, edition=edition)
        truths = [t for t in frame.of_kind("coin") if not t["hidden"] and t["occluded_fraction"] == 0]
        centres = np.array([[t["x_mm"] + 1.0, t["y_mm"]] for t in truths])
        bigs = sample_crops(frame.image, frame.exact_calibration(), centres, np.zeros(len(truths)),
                            np.array([t["top_mm"] for t in truths]), size, COIN_CROP_PX + 2 * margin)
        for truth, big in zip(truths, bigs, strict=True):
            expected = expected_label(truth, profile)
            for blur in (0.0, 1.0, 1.6):
                reading, _ = reader.read_aligned(cv2.GaussianBlur(big, (0, 0), blur) if blur else big, margin)
                if reading.status == "ok":
                    sure += 1
                    wrong += ("coin", reading.side, reading.suit.value if reading.suit else None,
                              reading.rank) != expected
    assert wrong == 0 and sure >= {"hand-made": 60, "bold": 25}[edition], (wrong, sure)


def test_a_grown_coin_read_as_one_suits_faces_is_reported_though_its_rim_shows_under_half():
    """A coin found where no clear vote peak was (grown from a coin grid, or a faint peak) and read unclear is
    reported where its rim shows half round, or where the reader names a few faces of one suit: a light face-down
    coin's rim shows 13-16 of its 32 rays by where the fit starts (Whack-a-Dummy bold 83's suns coins, which the
    grid then lost by a ray: tests/test_rendered_states.py's face-down coins)."""
    from types import SimpleNamespace

    from rules.pieces import Suit
    from vision.classify import Reading

    no_blank = SimpleNamespace(coin_reader=SimpleNamespace(blank=np.zeros(0, int)))
    blank_set = SimpleNamespace(coin_reader=SimpleNamespace(blank=np.array([7])))
    under_half, half = SimpleNamespace(support=15 / 32), SimpleNamespace(support=0.5)
    twins = Reading("unclear", "value", score=0.98, reason="face unclear",
                    could_be=((Suit.SUNS, 1, "value"), (Suit.SUNS, None, "suit")))
    unnamed = Reading("unclear", "value", score=0.98, reason="face unclear")
    two_suits = Reading("unclear", "value", score=0.98, reason="face unclear",
                        could_be=((Suit.SUNS, 1, "value"), (Suit.ARMS, 1, "value")))
    assert Detector._grown_coin(no_blank, twins, under_half)
    assert Detector._grown_coin(no_blank, unnamed, half)
    assert not Detector._grown_coin(no_blank, unnamed, under_half)
    assert not Detector._grown_coin(no_blank, two_suits, under_half)
    assert not Detector._grown_coin(blank_set, twins, under_half)  # empty paper reads as blank as a blank face
