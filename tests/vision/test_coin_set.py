"""What a set's make-up tells about a photo's blank nulls (vision.coin_set.complete_suits): a suit whose six coins
the frame's sure readings already account for has no coin left to be a blank null without a suit."""

from __future__ import annotations

from test_coin_ink_frame import _default_grid_nulls

from vision.coin_set import complete_suits


def test_a_suit_is_complete_where_its_value_sides_and_suit_sides_number_six():
    """Ranks 1-5 on value sides and one suit side: the suit side is the null (complete). Four value sides and two suit
    sides: complete too (a suit side is one of the two coins left). A rank read twice counts once; a null read in its
    suit counts; readings without a suit count for nothing."""
    arms = [("arms", "value", rank) for rank in range(1, 6)]
    assert complete_suits(arms + [("arms", "suit", None)]) == {"arms"}
    assert complete_suits(arms) == frozenset()
    assert complete_suits(arms[:4] + [("arms", "suit", None)] * 2) == {"arms"}
    assert complete_suits(arms[:4] + [("arms", "value", 4), ("arms", "suit", None)]) == frozenset()
    assert complete_suits(arms + [("arms", "value", 0)]) == {"arms"}
    assert complete_suits(arms + [(None, "value", 0), (None, "suit", None)]) == frozenset()
    moons = [("moons", "suit", None)] * 3 + [("moons", "value", rank) for rank in (0, 2, 5)]
    assert complete_suits(arms + moons) == {"moons"}


def test_a_blank_null_is_named_once_a_complete_suit_is_set_aside():
    """bench_detect's default coin grid 1003: its arms, crowns and suns nulls are blank and the frame's rims do not
    tell them apart among four suits; its moons coins are all read surely (the moons null suit side up), so the moons
    are no null's to take, and among three suits the suns null is clearly the suns'. Nothing in a wrong suit."""
    nulls_read = dict(_default_grid_nulls(1003))
    assert nulls_read["suns"] == "suns"
    assert all(read in (None, truth) for truth, read in nulls_read.items()), nulls_read
