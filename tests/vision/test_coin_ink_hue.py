"""A blank null's suit read from its rim's hue among the frame's references (vision.coin_ink.frame_rim_suits with
the nulls' face colours: _HueFrame).

A blank null's rim is read through more of the coin's shadow and the table beyond its edge than its suit's
references are, so its colour lies short of its suit's centre, often out of that suit's spreads: it still points the
suit's way from the black suit's centre. A colourless darkening against the cream face points blue, so no null is
read by its hue that way (a black null's rim drifts there as far as the faintest blue ones)."""

from __future__ import annotations

import numpy as np
import pytest
from test_coin_ink_frame import _default_grid_nulls

from vision.coin_ink import frame_rim_suits, grey_hue

SUITS = frozenset({"suns", "moons", "crowns", "arms"})
BLACK = frozenset({"moons"})
CREAM = np.array([180.0, 210.0, 225.0])  # a cream face (BGR): a colourless darkening against it points 46 degrees


def _towards(degrees: float, length: float) -> np.ndarray:
    return length * np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])


def _square(centre, step=0.02):
    """Four rim colours around ``centre``: their median is the centre and their spread ``step``."""
    x, y = centre
    return [np.array(p) for p in ((x + step, y), (x - step, y), (x, y + step), (x, y - step))]


# a frame's references: black at the origin, the coloured suits 0.3 out (hues as measured: suns -80, arms 55,
# crowns 120 degrees), each suit's spread 0.02 (taken as 0.03)
HUES = {"suns": -80.0, "arms": 55.0, "crowns": 120.0}
REFS = [(c, "moons") for c in _square((0.0, 0.0))] + [
    (c, suit) for suit, hue in HUES.items() for c in _square(tuple(_towards(hue, 0.3)))]


def test_grey_hue_is_the_face_tint_inverted():
    assert grey_hue(CREAM) == pytest.approx(46.0, abs=1.0)
    assert abs(((grey_hue(np.array([225.0, 210.0, 180.0])) - 46.0 + 180.0) % 360.0) - 180.0) > 150.0  # a blue face


def test_a_null_short_of_its_suits_rims_is_read_by_their_hue():
    """A null 0.1 out the crowns' way (the crowns' centre 0.3 out, spread 0.03): out of the crowns' spreads, so not
    named by nearness; by its hue it is the crowns'. Not without the nulls' faces, nor where the face is in the
    highlight shoulder, the crowns' null is known, or the hue lies between two suits'."""
    faint_crowns = _towards(118.0, 0.1)
    assert frame_rim_suits([faint_crowns], REFS, SUITS, face_colours=[CREAM], achromatic=BLACK) == ["crowns"]
    assert frame_rim_suits([faint_crowns], REFS, SUITS) == [None]
    assert frame_rim_suits([faint_crowns], REFS, SUITS, face_colours=[np.array([210.0, 235.0, 240.0])],
                           achromatic=BLACK) == [None]
    assert frame_rim_suits([faint_crowns], REFS, SUITS, frozenset({"crowns"}), face_colours=[CREAM],
                           achromatic=BLACK) == [None]
    assert frame_rim_suits([_towards(88.0, 0.1)], REFS, SUITS, face_colours=[CREAM], achromatic=BLACK) == [None]
    # within the black suit's spreads' reach: no colour to read
    assert frame_rim_suits([_towards(118.0, 0.05)], REFS, SUITS, face_colours=[CREAM], achromatic=BLACK) == [None]
    # the suns' way, then the arms are the last suit left (the faces' levels not given: no order is compared)
    faint_suns, faint_arms = _towards(-75.0, 0.12), _towards(55.0, 0.1)
    assert frame_rim_suits([faint_suns, faint_arms], REFS, SUITS, frozenset({"moons", "crowns"}), None,
                           [CREAM, CREAM], BLACK) == ["suns", "arms"]
    assert frame_rim_suits([faint_suns, faint_arms], REFS, SUITS, frozenset({"moons", "crowns"})) == [None, None]


def test_no_null_is_read_by_its_hue_the_way_a_colourless_darkening_points():
    """A null 0.1 out the arms' way (55 degrees) on a cream face (a colourless darkening points 46 degrees): a black
    null's rim drifts that way as far. On a face whose grey points elsewhere it is the arms'."""
    faint_arms = _towards(55.0, 0.1)
    assert frame_rim_suits([faint_arms], REFS, SUITS, face_colours=[CREAM], achromatic=BLACK) == [None]
    blue_grey = np.array([225.0, 210.0, 180.0])  # its grey points the other way (-106 degrees)
    assert grey_hue(blue_grey) == pytest.approx(-106.0, abs=1.0)
    assert frame_rim_suits([faint_arms], REFS, SUITS, face_colours=[blue_grey], achromatic=BLACK) == ["arms"]


def test_a_frame_whose_references_show_no_clear_hue_reads_no_null_by_it():
    """The crowns' rims 0.08 from the black suit's centre (less than three of its spreads: as in the brightest
    frames, where a coloured rim looks grey) and pointing their own way, not grey_hue's: the frame's hues are not
    read. No black suit: nothing either."""
    greyish = [(c, s) for c, s in REFS if s != "crowns"] + [
        (c, "crowns") for c in _square(tuple(_towards(120.0, 0.08)))]
    beyond_crowns = _towards(118.0, 0.2)
    assert frame_rim_suits([beyond_crowns], greyish, SUITS) == [None]
    assert frame_rim_suits([beyond_crowns], greyish, SUITS, face_colours=[CREAM], achromatic=BLACK) == [None]
    faint_crowns = _towards(118.0, 0.1)
    assert frame_rim_suits([faint_crowns], REFS, SUITS, face_colours=[CREAM], achromatic=frozenset()) == [None]


def test_a_suit_whose_rims_look_grey_leaves_the_other_suits_nulls_read():
    """The arms' rims 0.05 from the black suit's centre (less than three of its spreads: they show no hue) but
    pointing 50 degrees, the way a colourless darkening points on the cream face: the arms' ink looks grey, and so
    will its null, where nothing is read. A crowns null is still read by its hue. Where the arms' faint rims point
    elsewhere (-150 degrees), the arms' null might too: nothing is read."""
    def with_faint_arms(degrees):
        return [(c, s) for c, s in REFS if s != "arms"] + [(c, "arms") for c in _square(tuple(_towards(degrees, 0.05)))]

    faint_crowns = _towards(118.0, 0.1)
    assert frame_rim_suits([faint_crowns], with_faint_arms(50.0), SUITS, face_colours=[CREAM],
                           achromatic=BLACK) == ["crowns"]
    assert frame_rim_suits([faint_crowns], with_faint_arms(-150.0), SUITS, face_colours=[CREAM],
                           achromatic=BLACK) == [None]


@pytest.mark.parametrize("seed", [1020, 1042])
def test_blank_nulls_short_of_their_suits_rims_are_read_by_hue(seed):
    """bench_detect's default coin grids 1020 (the arms and crowns nulls) and 1042 (the suns null): nulls read as
    nulls of no suit, their rims a third to a half of the way from the black suit's centre to their suit's. By their
    hue: 1020's crowns null, then its arms null as the last suit left; 1042's suns null. Nothing in a wrong suit."""
    nulls_read = _default_grid_nulls(seed)
    assert len(nulls_read) >= 3
    for truth_suit, read_suit in nulls_read:
        assert read_suit == truth_suit, nulls_read


def test_a_frame_whose_blue_rims_look_grey_reads_its_suns_null_by_hue():
    """bench_detect's default coin grid 1023: two of its five arms coins' rims show no colour (0.02 and 0.04 from the
    black suit's centre), the arms' centre pointing grey_hue's way. Its suns null (a third of the way out to the
    suns' centre) is read by its hue; nothing in a wrong suit."""
    nulls_read = dict(_default_grid_nulls(1023))
    assert nulls_read["suns"] == "suns"
    assert all(read in (None, truth) for truth, read in nulls_read.items()), nulls_read


def test_a_null_whose_face_is_just_short_of_the_highlight_shoulder_is_read_by_hue():
    """bench_detect's default coin grid 1000, a bright frame: its crowns null's face is 234 (its brightest channel),
    its rim pointing the crowns' way (within a degree of their centre, 3.7 of the black suit's spreads out). Up to a
    face of FRAME_HUE_FACE_MOST it is read by its hue; nothing in a wrong suit."""
    nulls_read = dict(_default_grid_nulls(1000))
    assert nulls_read["crowns"] == "crowns"
    assert all(read in (None, truth) for truth, read in nulls_read.items()), nulls_read
