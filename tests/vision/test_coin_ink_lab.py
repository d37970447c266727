"""A blank null's suit read from its printed ring in Lab against the rings of its frame's value sides
(vision.coin_ink.rim_lab, frame_rim_suits with ``lab_nulls`` and ``lab_references``: _LabFrame).

The default edition's null prints only a thin ring in its suit's colour, 8.2 mm out. Measured against the face just
inside it, the ring's a* and b* over its darkness place the frame's black rings together and each coloured suit's
its own way from them (blue arms -b*, red suns +a*, green crowns -a*): a null is read in the coloured suit whose way
it clearly points, where every coloured suit's value sides show their way."""

from __future__ import annotations

import numpy as np
from sure_grid_coins import sure_grid_coins
from test_coin_ink_frame import _default_grid_nulls

from calibration.profile import COIN_CROP_MM, COIN_CROP_PX
from rules.pieces import Suit
from vision.coin_ink import frame_rim_suits, rim_face_colour, rim_lab

SUITS = frozenset({"suns", "moons", "crowns", "arms"})
BLACK = frozenset({"moons"})
FACE = np.array([180.0, 210.0, 225.0])  # a cream face (BGR), short of the highlight shoulder
RIM = [np.zeros(2)]  # rim_colour: the frame rules before this one see nothing (no references)


def _ring(a: float, b: float, dark: float = 10.0) -> np.ndarray:
    """A rim_lab reading: ``dark`` L* below the face, (a, b) its a* and b* over that darkness."""
    return np.array([-dark, a, b])


def _pair(a: float, b: float, step: float = 0.02) -> list[np.ndarray]:
    return [_ring(a + step, b), _ring(a - step, b)]


# a frame's value sides as measured in a plain frame (coin grid 1045): black rings at (0, -0.06), the arms 0.4 the
# -b* way, the suns 0.6 the +a* way, the crowns 0.4 the -a* way
RINGS = [(r, "moons") for r in _pair(0.0, -0.06)] + [(r, "arms") for r in _pair(0.0, -0.45)] + [
    (r, "suns") for r in _pair(0.6, -0.06)] + [(r, "crowns") for r in _pair(-0.4, -0.1)]


def _read(ring: np.ndarray, face: np.ndarray = FACE, held: frozenset = frozenset(), rings=RINGS) -> str | None:
    return frame_rim_suits(RIM, [], SUITS, held, None, [face], BLACK, [ring], rings)[0]


def test_rim_lab_reads_a_blue_ring_as_minus_b_and_a_black_one_as_colourless():
    """A rendered coin crop: a cream face with a ring 8.0-8.4 mm out, blurred as a camera's lens would. A blue ring
    points -b* over its darkness, a black one hardly anywhere, and the ring is measured dark."""
    size = COIN_CROP_PX
    centre = (size - 1) / 2.0
    yy, xx = np.mgrid[0:size, 0:size]
    r = np.hypot(xx - centre, yy - centre) * COIN_CROP_MM / size
    crops = {}
    for name, ink in (("blue", (170.0, 90.0, 20.0)), ("black", (35.0, 30.0, 30.0))):
        crop = np.tile(np.array([196.0, 218.0, 235.0]), (size, size, 1))
        crop[(r >= 7.9) & (r < 8.5)] = ink
        crops[name] = np.clip(crop, 0, 255).astype(np.uint8)
    blue, black = rim_lab(crops["blue"]), rim_lab(crops["black"])
    assert blue[0] < -4.0 and black[0] < -4.0
    assert blue[2] < -0.3 and abs(blue[1]) < 0.2
    assert np.hypot(black[1], black[2]) < 0.25


def test_a_null_whose_ring_points_a_suits_way_is_read_in_it():
    """A null 0.27 the -b* way from the black rings (coin grid 1045's arms null, 0.33 in b*): the arms'. Not where the
    Lab readings are not given, its ring is too faint to measure, its face is in the highlight shoulder, the arms'
    null is known already, or it lies between two suits' ways."""
    arms_null = _ring(0.0, -0.33, 11.7)
    assert _read(arms_null) == "arms"
    assert frame_rim_suits(RIM, [], SUITS, frozenset(), None, [FACE], BLACK) == [None]
    assert _read(_ring(0.0, -0.33, 3.0)) is None
    assert _read(arms_null, face=np.array([200.0, 225.0, 240.0])) is None
    assert _read(arms_null, held=frozenset({"arms"})) is None
    assert _read(_ring(0.3, -0.36)) is None  # halfway between the arms' way and the suns'
    assert _read(_ring(0.05, -0.12)) is None  # near the black rings: no colour to read


def test_a_frame_whose_suit_shows_no_way_of_its_own_reads_nothing():
    """The crowns' value sides pointing two ways (as in coin grid 1003's light, where green looked blue), or too few
    of a suit's value sides: no null is read by its ring."""
    split_crowns = [(r, s) for r, s in RINGS if s != "crowns"] + [(_ring(-0.4, -0.1), "crowns"),
                                                                  (_ring(0.0, -0.4), "crowns")]
    assert _read(_ring(0.0, -0.33, 11.7), rings=split_crowns) is None
    one_arms = [(r, s) for r, s in RINGS if s != "arms"] + [(_ring(0.0, -0.45), "arms")]
    assert _read(_ring(0.0, -0.33, 11.7), rings=one_arms) is None


def test_a_blank_arms_null_is_read_by_its_ring_in_lab():
    """bench_detect's default coin grid 1045: its arms null's rim lies in no suit's spreads and points the grey way
    (rim_colour), but its ring in Lab is 11.7 L* dark and points -b* as the frame's arms value sides do. Read as the
    arms'; nothing in a wrong suit."""
    nulls_read = dict(_default_grid_nulls(1045))
    assert nulls_read["arms"] == "arms"
    assert all(read in (None, truth) for truth, read in nulls_read.items()), nulls_read


def _left_out_by_ring(seed: int) -> list[tuple[object, object, str]]:
    """Default coin grid ``seed`` detected; each value side read surely in a suit read again as a blank null would
    be by its ring in Lab, from the frame's other sure value sides (cropped as the detector crops them); (read,
    truth, side) for each. Suit sides are not: their symbol (out to 6.3 mm) tints the face the ring is read against,
    as a blank null's face is not (a suit-side crowns of 1063 reads as arms)."""
    sure = sure_grid_coins(seed)
    rings = [rim_lab(crop) for crop in sure.crops]
    out = []
    for k, (coin, crop) in enumerate(zip(sure.coins, sure.crops, strict=True)):
        if coin.side != "value":
            continue
        refs = [(rings[j], c.suit) for j, c in enumerate(sure.coins) if j != k and c.side == "value"]
        read = frame_rim_suits(RIM, [], frozenset(Suit), frozenset(), None, [rim_face_colour(crop)],
                               frozenset({Suit("moons")}), [rings[k]], refs)[0]
        truth = sure.truth_of(coin)
        out.append((read, Suit(truth["suit"]), coin.side))
    return out


def test_no_coin_is_read_in_a_wrong_suit_by_its_ring_from_its_frames_value_sides():
    """Every value side read surely in a suit in default coin grids 1022, 1024 and 1063, read again by its ring as a
    null would be: never in a wrong suit. Within 0.1 of the black rings (LAB_HUE_LEAST at 0.1) a crowns 2 of 1024, its
    ring 0.15 out the arms' way, was read as arms."""
    read = [item for seed in (1022, 1024, 1063) for item in _left_out_by_ring(seed)]
    assert [item for item in read if item[0] is not None and item[0] != item[1]] == []
    assert sum(r == t for r, t, _ in read) >= 5  # the rule reads
