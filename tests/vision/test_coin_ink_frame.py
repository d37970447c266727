"""A blank null's suit read from the rims of the other coins in its frame (vision.coin_ink.frame_rim_suits).

The default edition prints nothing on the null's value side but a thin rim in the suit's ink. In a bright frame the
camera's highlight shoulder turns that ink's colour, so rim_suit reads none there; the coins read surely in the same
frame have rims printed alike under the same light and tone curve, and are the references."""

from __future__ import annotations

import numpy as np
import pytest
from detect_scenes import coin_grid_frame, score
from sure_grid_coins import sure_grid_coins

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Suit
from vision.coin_ink import frame_rim_suits, rim_colour
from vision.detect import Detector

SUITS = frozenset({"suns", "moons", "crowns", "arms"})


@pytest.mark.parametrize("seed", [1043, 1061])
def test_blank_nulls_suits_are_read_from_the_frames_other_rims(seed):
    """bench_detect's default coin grids 1043 (four nulls) and 1061 (three): bright frames (faces 215-240) where
    every null was read as a null of no suit. Their frames' sure coins show each suit's rim apart: the nulls'
    suits are read, and nothing in a wrong suit."""
    nulls_read = _default_grid_nulls(seed)
    assert len(nulls_read) >= 3
    for truth_suit, read_suit in nulls_read:
        assert read_suit == truth_suit, nulls_read


def _default_grid_nulls(seed: int) -> list[tuple[str, str | None]]:
    """The default coin grid ``seed``'s value-side nulls, detected (coins only): (true suit, suit read) for each,
    after checking that nothing is read wrongly or found where there is no coin, and that every null is found."""
    frame = coin_grid_frame(seed, edition="default")
    profile = default_profile()
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("coin",))
    result = score(detection, frame, profile, kinds=("coin",))
    assert result.wrong == 0 and result.extra == 0, result.notes
    nulls = [p for p in detection.pieces if p.side == "value" and p.rank == 0]
    truths = [t for t in frame.of_kind("coin") if t["side"] == "value" and t["rank"] == 0]
    assert len(nulls) == len(truths)
    out = []
    for truth in truths:
        near = min(nulls, key=lambda p: np.hypot(p.x_mm - truth["x_mm"], p.y_mm - truth["y_mm"]))
        out.append((truth["suit"], None if near.suit is None else near.suit.value))
    return out


def _left_out_in_turn(seed):
    """Default coin grid ``seed`` detected; each coin read surely in a suit read again as a blank null would be, from
    the rims of the frame's other sure suited coins (cropped as the detector crops them); (read, truth) pairs."""
    sure = sure_grid_coins(seed)
    refs = [(rim_colour(crop), c.suit) for crop, c in zip(sure.crops, sure.coins, strict=True)]
    pairs = []
    for k, coin in enumerate(sure.coins):
        truth = sure.truth_of(coin)
        pairs.append((frame_rim_suits([refs[k][0]], refs[:k] + refs[k + 1 :], frozenset(Suit))[0], Suit(truth["suit"])))
    return pairs


def test_no_coin_is_read_in_a_wrong_suit_from_its_frames_rims():
    """Every coin read surely in a suit in default coin grids 1020, 1021 and 1062, read again from its frame's other
    coins' rims as a null would be: never in a wrong suit. 1062 is one of the brightest frames (faces up to 244),
    where the faintest rims of every suit look colourless alike and the suits' rims lie 0.1 apart (nothing is read
    there). A looser rule (nearest within 2.5 spreads of its suit's centre) read a crowns 3 of 1020 as moons."""
    pairs = [pair for seed in (1020, 1021, 1062) for pair in _left_out_in_turn(seed)]
    assert [(r, t) for r, t in pairs if r is not None and r != t] == []
    assert sum(r == t for r, t in pairs) >= 15  # the rule reads: measured 20 here


def _cluster(centre, n, rng, spread=0.02):
    return [np.asarray(centre, float) + rng.normal(0, spread, 2) for _ in range(n)]


def test_a_frame_whose_rims_do_not_tell_the_suits_apart_reads_no_null():
    """The rule abstains: a suit with fewer than three references, a null between two suits, two nulls given one
    suit, and a frame whose own references would be read in a wrong suit."""
    rng = np.random.default_rng(5)
    centres = {"suns": (0.0, -0.5), "moons": (0.0, 0.0), "crowns": (-0.4, 0.2), "arms": (0.4, 0.2)}
    refs = [(c, s) for s, at in centres.items() for c in _cluster(at, 4, rng)]
    assert frame_rim_suits([np.array([0.01, -0.49]), np.array([-0.39, 0.21])], refs, SUITS) == ["suns", "crowns"]
    assert frame_rim_suits([np.array([0.0, -0.25])], refs, SUITS) == [None]  # halfway between suns and moons
    assert frame_rim_suits([np.array([0.01, -0.49]), np.array([-0.01, -0.5])], refs, SUITS) == [None, None]
    too_few = [r for r in refs if r[1] != "arms"] + refs[-2:]
    assert frame_rim_suits([np.array([0.01, -0.49])], too_few, SUITS) == [None]
    # an arms reference among the suns' rims: the frame does not tell its suits apart, nothing is read
    mixed = refs + [(np.array([0.0, -0.5]), "arms")]
    assert frame_rim_suits([np.array([-0.39, 0.21])], mixed, SUITS) == [None]


def test_a_frames_known_nulls_leave_their_suits_to_the_other_nulls():
    """bench_detect's default coin grid 1001 (a dim frame: faces about 150): the moons and arms nulls are read in a
    suit, the crowns and suns nulls' rims lie near more than one suit's. A set has one null of each suit, so the two
    left are read among the suits left, and each in its own."""
    nulls_read = _default_grid_nulls(1001)
    assert len(nulls_read) == 4
    assert dict(nulls_read) == {suit: suit for suit in SUITS}


def _square(centre, step=0.02):
    """Four rim colours around ``centre``: their median is the centre and their spread ``step``."""
    x, y = centre
    return [np.array(p) for p in ((x + step, y), (x - step, y), (x, y + step), (x, y - step))]


def test_a_suit_whose_null_is_known_is_not_given_again_and_frees_the_others():
    """Suns' and arms' rims 0.04 apart in a frame (their spreads 0.03): a null on the suns' centre is not clearly
    nearer suns than arms. With the arms null known it is the suns'; with the suns null known it is not given to a
    suit whose rims it is not within; and a known suit is never given again."""
    centres = {"suns": (0.0, -0.5), "arms": (0.04, -0.5), "moons": (0.0, 0.0), "crowns": (-0.4, 0.2)}
    refs = [(c, s) for s, at in centres.items() for c in _square(at)]
    on_suns = np.array([0.0, -0.5])
    assert frame_rim_suits([on_suns], refs, SUITS) == [None]
    assert frame_rim_suits([on_suns], refs, SUITS, frozenset({"arms"})) == ["suns"]
    assert frame_rim_suits([np.array([-0.05, -0.5])], refs, SUITS, frozenset({"suns"})) == [None]  # arms 0.09 off
    assert frame_rim_suits([np.array([-0.4, 0.2])], refs, SUITS, frozenset({"crowns"})) == [None]
    # rounds: with the arms' rims 0.06 off the suns', a null beyond the suns' centre is clearly the suns'; a null
    # halfway is then the arms' (alone it is neither's)
    centres["arms"] = (0.06, -0.5)
    refs = [(c, s) for s, at in centres.items() for c in _square(at)]
    halfway = np.array([0.03, -0.5])
    assert frame_rim_suits([halfway], refs, SUITS) == [None]
    assert frame_rim_suits([np.array([-0.01, -0.5]), halfway], refs, SUITS) == ["suns", "arms"]


def test_nulls_left_as_many_as_suits_left_are_those_suits():
    """A set has one null of each suit: where k nulls are unnamed and k suits are left, those nulls are those suits'.
    One left is the last suit's whatever its rim shows; two or more are told apart by comparing their rims through
    the references (every other assignment 5 spreads worse), not where a null's face is in the highlight shoulder."""
    centres = {"suns": (0.0, -0.5), "arms": (0.04, -0.5), "moons": (0.0, 0.0), "crowns": (-0.4, 0.2)}
    refs = [(c, s) for s, at in centres.items() for c in _square(at)]
    nowhere = np.array([1.0, 1.0])  # within no suit's spreads
    assert frame_rim_suits([nowhere], refs, SUITS, frozenset({"moons", "crowns"})) == [None]
    assert frame_rim_suits([nowhere], refs, SUITS, frozenset({"moons", "crowns", "arms"})) == ["suns"]
    # each alone too far from the suns' and arms' rims (0.15 and 0.19 off, spreads 0.03), but the pair's other
    # order is 30 squared spreads worse; 0.1 and 0.14 off, 21 worse: not clear enough
    beyond_suns, beyond_arms = np.array([-0.15, -0.5]), np.array([0.19, -0.5])
    two_held = frozenset({"moons", "crowns"})
    assert frame_rim_suits([beyond_suns, beyond_arms], refs, SUITS) == [None, None]
    assert frame_rim_suits([beyond_arms, beyond_suns], refs, SUITS, two_held, [200.0, 200.0]) == ["arms", "suns"]
    assert frame_rim_suits([beyond_arms, beyond_suns], refs, SUITS, two_held, [200.0, 240.0]) == [None, None]
    assert frame_rim_suits([beyond_arms, beyond_suns], refs, SUITS, two_held) == [None, None]  # faces not known
    nearer = [np.array([-0.1, -0.5]), np.array([0.14, -0.5])]
    assert frame_rim_suits(nearer, refs, SUITS, two_held, [200.0, 200.0]) == [None, None]


def test_the_last_nulls_of_a_frame_are_told_apart_by_their_rims():
    """bench_detect's default coin grid 1064 (faces about 225-230): the suns null is read, the arms, crowns and
    moons nulls' rims lie near their own suits' but not within or apart by the margins one null needs. Three nulls,
    three suits left: compared with each other through the references, each is its own suit's."""
    nulls_read = _default_grid_nulls(1064)
    assert len(nulls_read) == 4
    assert dict(nulls_read) == {suit: suit for suit in SUITS}
