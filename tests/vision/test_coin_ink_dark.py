"""A blank null of the black suit read by its ring's darkness (vision.coin_ink.frame_rim_suits with ``lab_nulls``
and ``lab_references``: _DarkFrame).

Black ink darkens the default null's thin printed ring more than the coloured inks do, and the frame's tone curve
compresses every ring of one frame alike: a blank null whose ring is clearly darker than every coloured value side's
of its frame, and colourless like the black value sides', is the black suit's null, even in a frame so bright that
no ring's hue can be read."""

from __future__ import annotations

import numpy as np
from test_coin_ink_frame import _default_grid_nulls
from test_coin_ink_lab import _left_out_by_ring

from vision.coin_ink import frame_rim_suits

SUITS = frozenset({"suns", "moons", "crowns", "arms"})
BLACK = frozenset({"moons"})
BRIGHT = np.array([206.0, 227.0, 240.0])  # a face in the highlight shoulder (coin grid 1000's suns null)
RIM = [np.zeros(2)]  # rim_colour: the frame rules before this one see nothing (no references)


def _ring(dark: float, a: float = 0.0, b: float = 0.0) -> np.ndarray:
    """A rim_lab reading: ``dark`` L* below the face, (a, b) its a* and b* over that darkness."""
    return np.array([-dark, a, b])


# a bright frame's value sides (as coin grid 1000's): black rings 11-14 L*, coloured 6-11.7, the coloured suits'
# hues too weak to tell apart
RINGS = ([(_ring(d, 0.09, 0.18), "moons") for d in (10.8, 12.8, 14.2)] + [(_ring(d, 0.4, 0.05), "suns") for d in
         (11.0, 11.7)] + [(_ring(d, 0.15, 0.3), "crowns") for d in (5.5, 6.6)] + [(_ring(d, 0.05, 0.0), "arms") for d
                                                                                  in (6.0, 9.7)])


def _read(ring: np.ndarray, held: frozenset = frozenset(), rings=RINGS) -> str | None:
    return frame_rim_suits(RIM, [], SUITS, held, None, [BRIGHT], BLACK, [ring], rings)[0]


def test_a_null_whose_ring_is_darkest_and_colourless_is_the_black_suits():
    """14.6 L* dark (1.25 times the darkest coloured ring, 11.7), 0.1 from the black rings: the moons'. Not where it
    is under 1.2 times as dark, has a colour 0.2 from the black rings, the moons' null is known already, a coloured
    suit shows fewer than two value sides, or the Lab readings are not given."""
    assert _read(_ring(14.6, 0.05, 0.1)) == "moons"
    assert _read(_ring(13.5, 0.05, 0.1)) is None
    assert _read(_ring(14.6, 0.29, 0.18)) is None
    assert _read(_ring(14.6, 0.05, 0.1), held=frozenset({"moons"})) is None
    assert _read(_ring(14.6, 0.05, 0.1), rings=[(r, s) for r, s in RINGS if s != "crowns"] + RINGS[-4:-3]) is None
    assert frame_rim_suits(RIM, [], SUITS, frozenset(), None, [BRIGHT], BLACK) == [None]


def test_a_faint_frames_darkest_ring_is_not_read_under_four_l():
    """Every ring faint (a glaring frame: coloured rings under 2 L*): a null 3.5 L* dark is not read, though it is
    twice as dark as any coloured ring."""
    faint = [(np.array([0.2 * ring[0], ring[1], ring[2]]), suit) for ring, suit in RINGS]
    assert _read(_ring(3.5, 0.05, 0.1), rings=faint) is None


def test_a_bright_frames_black_null_is_read_by_its_darkness():
    """bench_detect's default coin grid 1000: faces at 238-240 (over the hue reading's bar), its moons and suns nulls
    blank. The moons null's ring, 14.6 L*, is 1.24 times the darkest coloured value side's and colourless: the moons';
    the frame's arms coins are all read surely (the arms null suit side up) and its crowns null by its ring, so the
    last null is the suns'. Nothing in a wrong suit."""
    nulls_read = dict(_default_grid_nulls(1000))
    assert nulls_read["moons"] == "moons"
    assert nulls_read["suns"] == "suns"
    assert all(read in (None, truth) for truth, read in nulls_read.items()), nulls_read


def test_no_coloured_value_side_is_read_as_black_by_its_darkness():
    """Every value side read surely in default coin grids 1000, 1005 and 1041 (bright frames, where suns rings lie as
    dark as the moons'), read again as a null from the frame's other value sides: never in a wrong suit."""
    read = [item for seed in (1000, 1005, 1041) for item in _left_out_by_ring(seed)]
    assert [item for item in read if item[0] is not None and item[0] != item[1]] == []
    assert sum(r == t == "moons" for r, t, _ in read) >= 2
