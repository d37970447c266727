"""Catwalk (Epic Funhouse room 3): laying the track by the suit compass, flick events, the scoreboard."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse import magic_mirror, slide_jam
from rules.epic_funhouse.catwalk import (
    PENALTY_ALL_FELL,
    Compass,
    Event,
    ScoreboardPair,
    State,
    Track,
    explain,
    flick_value,
    lay_catwalk,
    stacks_in_order,
    transition,
)
from rules.epic_funhouse.common import ALL_COINS, ALL_TILES, parse_coin, parse_tile
from rules.pieces import Suit

T, C = parse_tile, parse_coin


def tiles(text: str) -> list:
    return [T(c) for c in text.split()]


# ------------------------------------------------------------------------------------------ laying

def test_each_suit_points_its_compass_direction():
    # "Clockwise from north, the suits are red (Suns), green (Crowns), blue (Arms), and black (Moons)."
    track = lay_catwalk([tiles("An Sn Ca Aa Sa")])
    assert track.cells[:4] == ((0, 0), (0, 1), (1, 1), (1, 0))
    # the ace of suns wants north, back onto the crown: blocked, so it continues south, the way it was going
    assert track.cells[4] == (1, -1)
    assert [Compass.parse(x) for x in "NESW"] == [Compass.NORTH, Compass.EAST, Compass.SOUTH, Compass.WEST]


def test_stacks_are_laid_one_after_another_each_from_its_top():
    track = lay_catwalk([tiles("Sn Sa"), (), tiles("S2 C3")])
    assert track.tiles == tuple(tiles("Sn Sa S2 C3"))
    assert track.cells == ((0, 0), (0, 1), (0, 2), (1, 2))


# A loop that ends at a dead end: after the ace of arms the catwalk heads south onto the first tile, and the
# 2 of suns wants north, back onto the ace of arms' neighbour; east and west are open.
LOOP = tiles("An Mn Ma Sn Sa Cn Ca Aa S2")
LOOP_CELLS = [(0, 0), (-1, 0), (-2, 0), (-2, 1), (-2, 2), (-1, 2), (0, 2), (0, 1)]


def test_dead_end_takes_a_die_roll_among_the_open_directions():
    assert lay_catwalk([LOOP[:8]]).cells == tuple(LOOP_CELLS)
    with pytest.raises(RulesError, match="dead end"):
        lay_catwalk([LOOP])
    before = lay_catwalk([LOOP[:8]])
    assert before.open_directions() == (Compass.EAST, Compass.WEST)
    # open directions clockwise from north: (east, west); face f picks open[f % 2]
    for face, cell in [(0, (1, 1)), (1, (-1, 1)), (2, (1, 1)), (5, (-1, 1))]:
        track = lay_catwalk([LOOP], roll=[face])
        assert track.cells[-1] == cell and track.rolls == (face,)
    asked = []
    track = lay_catwalk([LOOP], roll=lambda tile, options: asked.append((tile, options)) or 3)
    assert track.cells[-1] == (-1, 1)  # the function is shown the tile at the dead end and its open sides
    assert asked == [(LOOP[8], (Compass.EAST, Compass.WEST))]
    assert lay_catwalk([LOOP], roll=random.Random(1)).cells[-1] in ((1, 1), (-1, 1))


def test_boxed_in_catwalk_bridges_straight_on():
    # The 2 of suns went west into (-1, 1): every side is now taken, so the next tile bridges west over (-2, 1).
    boxed = lay_catwalk([LOOP], roll=[1])
    assert boxed.open_directions() == () and boxed.placement(T("A2")).rule == "bridge"
    track = boxed.add("A2")
    assert track == lay_catwalk([LOOP + tiles("A2")], roll=[1])
    assert track.cells[-1] == (-3, 1) and track.bridges == (10,)
    assert Track.from_layout(track.tiles, track.cells) == track


def test_a_catwalk_seen_on_the_table_is_checked_against_the_laying_rules():
    track = lay_catwalk([LOOP], roll=[1])
    shifted = [(x + 5, y - 2) for x, y in track.cells]
    seen = Track.from_layout(track.tiles, shifted)
    assert seen == track and seen.rolls == (1,)
    with pytest.raises(LayoutError, match="tile 3, the ace of moons, should lie west"):
        Track.from_layout(LOOP[:3], [(0, 0), (-1, 0), (-1, 1)])
    with pytest.raises(LayoutError, match="dead end and should lie east or west"):
        Track.from_layout(LOOP, LOOP_CELLS + [(0, 3)])
    with pytest.raises(LayoutError, match="2 tiles but 1 cells"):
        Track.from_layout(LOOP[:2], [(0, 0)])
    with pytest.raises(LayoutError, match="appears twice"):
        Track.from_layout(tiles("Sn Sn"), [(0, 0), (0, 1)])


def test_stacks_in_the_players_order():
    handed = magic_mirror.MirrorStacks(tuple(tiles("Sn Sa")), tuple(tiles("Mn")), (), tuple(tiles("A2")))
    assert stacks_in_order(handed, ["strangers", "Distant Relatives", "twins", "cousins"]) == (
        (T("A2"),), (), (T("Sn"), T("Sa")), (T("Mn"),))
    with pytest.raises(RulesError, match="each of the four stacks once"):
        stacks_in_order(handed, ["twins", "twins", "cousins", "strangers"])


# ------------------------------------------------------------------------------------------ flicking

COURSE = tiles("S5 S4 S3 S2 Mn Sa M5 M4 C3 M2 Ma Sn C5 C4 Cn C2 Ca A5 A4 A3 A2 Aa An M3")


def test_figure_6_scoreboard_scores_12():
    # "the player dropped a 5 coin off a null tile, then a 4 coin off a null tile, and finally a null coin off a
    # 3 tile ... it cost her 12 points to do it (5x1 + 4x1 + 1x3)"
    state = State.from_layout(COURSE, "suns")
    for event in ("5 off 5", "4 off 5", "null off 9", "a off end", "2 off end", "3 off end"):
        state = state.apply(event)
    assert state.is_over() and state.score() == 12
    grid = transition(state).grid()
    assert grid[0] == ((C("S5"),), (C("Mn"),), (C("S4"),), (C("Cn"),))
    assert grid[1] == ((C("Sn"),), (C("M3"),), None, None)
    assert grid[2] == (None,) * 4
    # "a null (wild) coin to the south and the east of the starting space in the northwest"
    assert grid[0][1][0].rank == 0 and grid[1][0][0].rank == 0


def test_coin_times_tile_with_null_and_ace_worth_one():
    assert [flick_value(r) for r in range(6)] == [1, 1, 2, 3, 4, 5]
    state = State.from_layout(COURSE, "moons")
    assert state.apply("5 off 4").score() == 10  # "a coin of value 5 falls off a tile of value 2 ... 10 points"
    assert state.apply("a off 5").score() == 1  # ace coin off a null tile
    assert state.apply("n off 6").score() == 1  # null coin off an ace tile
    assert state.apply("n off end").score() == 0


def test_next_coin_starts_where_the_last_fell_and_after_the_end_at_the_beginning():
    state = State.from_layout(COURSE, "suns").apply("2 off 9")
    assert state.start == 9
    assert all(e.tile is None or e.tile >= 9 for e in state.legal_moves())
    with pytest.raises(IllegalMove, match="starts on tile 9 and travels toward the end"):
        state.apply("3 off 8")
    assert state.apply("3 off 9").start == 9  # it may fall off the tile it started on
    restarted = state.apply("3 off end")
    assert restarted.start == 1 and C("S3") in restarted.pool
    with pytest.raises(IllegalMove, match="already been flicked"):
        restarted.apply("3 off 4")
    with pytest.raises(IllegalMove, match="only 24 tiles"):
        restarted.apply("4 off 25")


def test_all_six_falling_adds_ten():
    state = State.from_layout(COURSE, "arms")
    for coin in "na2345":
        state = state.apply(f"{coin} off 24")  # tile 24 is a 3
    assert state.is_over() and state.all_fell()
    assert state.score() == 3 * (1 + 1 + 2 + 3 + 4 + 5) + PENALTY_ALL_FELL
    with pytest.raises(IllegalMove, match="every coin has been flicked"):
        state.apply("5 off end")


def test_scoreboard_substitutes_null_for_ace_and_two_coins_for_a_missing_value():
    # The three 5s and three aces of the other suits are already on the scoreboard.
    board = [("S2", "S5", ["M5"]), ("S3", "C5", ["A5"]), ("S4", "A5", ["C5"]), ("Sn", "Sa", ["Ma"])]
    state = State.from_layout(COURSE, "suns", hand=["a", "5"], scoreboard=board)
    # the 5 coin falls off the 5 of moons: no 5 left in the pool, so a 3 with a 2 on top
    fell = state.apply("5 off 7")
    assert fell.scoreboard[-1] == ScoreboardPair(C("S5"), T("M5"), (C("M3"), C("M2")))
    assert fell.score() == 2 * 5 + 3 * 5 + 4 * 5 + 1 * 1 + 5 * 5
    pairs, pool = transition(fell).for_barrels()
    assert pairs[-1] == (C("S5"), C("M3")) and C("M2") in pool and len(pairs) * 2 + len(pool) == 24 - 1
    # aces: Ma is used, Ca and Aa remain; use them up, then an ace tile takes a null
    state = State.from_layout(COURSE, "suns", hand=["a", "5"],
                              scoreboard=[("S2", "Sa", ["Ma"]), ("S3", "Ca", ["Ca"]), ("S4", "Aa", ["Aa"]),
                                          ("Sn", "Ma", ["Mn"])])
    assert state.apply("a off 6").scoreboard[-1].marker == (C("Cn"),)  # the ace of suns tile, no ace coin left


def test_event_text_round_trips_and_reads_plain_words():
    assert str(Event(5, 17)) == "5 off 17" and str(Event(0, None)) == "n off end" and str(Event(1, 3)) == "a off 3"
    for text, event in [("5 fell off tile 17", Event(5, 17)), ("coin null off 3", Event(0, 3)),
                        ("ACE left the end", Event(1)), ("4 end", Event(4)), ("2 off end", Event(2))]:
        assert Event.parse(text) == event
    for bad in ("5 off", "7 off 3", "5 off -1", "5 fell", "off 3"):
        with pytest.raises(RulesError):
            Event.parse(bad)


def test_impossible_positions_are_refused_with_a_sentence():
    with pytest.raises(LayoutError, match="both in hand and on the scoreboard"):
        State.from_layout(COURSE, "suns", hand=range(6), scoreboard=[("S5", "S5", ["M5"])])
    with pytest.raises(LayoutError, match="but the suns were flicked"):
        State.from_layout(COURSE, "suns", hand=range(5), scoreboard=[("M5", "S5", ["C5"])])
    with pytest.raises(LayoutError, match="does not show the value"):
        State.from_layout(COURSE, "suns", hand=range(5), scoreboard=[("S5", "S5", ["M4"])])
    with pytest.raises(LayoutError, match="not in the catwalk"):
        State.from_layout(COURSE[:10], "suns", hand=range(5), scoreboard=[("S5", "A5", ["M5"])])
    with pytest.raises(LayoutError, match="start on a tile 1..24"):
        State.from_layout(COURSE, "suns", start=25)
    with pytest.raises(LayoutError, match="appears twice"):
        State.from_layout(COURSE, "suns", hand=range(4), scoreboard=[("S5", "S5", ["M5"]), ("S4", "M5", ["M5"])])
    with pytest.raises(LayoutError, match="appears twice"):
        State.from_layout(COURSE[:2] + COURSE[:1], "suns")
    with pytest.raises(LayoutError, match="no tiles"):
        State.from_layout([], "suns")


def test_starting_from_the_other_end_reverses_the_course():
    track = lay_catwalk([COURSE], roll=random.Random(0))
    state = State.new(track, Suit.CROWNS, from_end=True)
    assert state.course == tuple(reversed(COURSE)) and len(state.pool) == 18 and state.hand == (0, 1, 2, 3, 4, 5)
    assert state.apply("5 off 1").scoreboard[0].tile == COURSE[-1]
    assert State.from_layout(**state.to_layout()) == state
    no_map = State.from_layout(COURSE, "suns", from_end=True).apply("4 off 2")
    assert "cells" not in no_map.to_layout() and State.from_layout(**no_map.to_layout()) == no_map


def test_explain_finds_the_event_or_says_why():
    state = State.from_layout(COURSE, "suns")
    after = state.apply("4 off 9")
    assert explain(state, after).moves == (Event(4, 9),)
    two = after.apply("5 off end")
    assert explain(state, two).moves in ((Event(4, 9), Event(5)), (Event(5), Event(4, 9)))
    assert explain(state, state).unchanged
    assert "came back" in explain(after, state).reason
    moved_start = State(after.course, after.track, after.suit, after.hand, 3, after.scoreboard, after.pool)
    assert "started on tile 1" in explain(state, moved_start).reason
    other = State.from_layout(COURSE, "moons")
    assert "stay the same" in explain(state, other).reason
    # the player took the null of crowns instead of the rules' null of moons for the null tile: still legal
    own_choice = State.from_layout(COURSE, "suns", hand="a 2 3 4 5".split(), start=5,
                                   scoreboard=[("Sn", "Mn", ["Cn"])])
    assert explain(state, own_choice).moves == (Event(0, 5),)
    ace_for_null = State.from_layout(COURSE, "suns", hand="a 2 3 4 5".split(), start=5,
                                     scoreboard=[("Sn", "Mn", ["Ca"])])  # nulls were left in the pool
    assert "must show the tile's rank" in explain(state, ace_for_null).reason
    # substitutes: any two coins adding up to the value will do (the rules would stack a 3 under a 2)
    spent = [("S2", "S5", ["M5"]), ("S3", "C5", ["A5"]), ("S4", "A5", ["C5"])]
    before = State.from_layout(COURSE, "suns", hand=["n", "a", "5"], scoreboard=spent)
    other_split = State.from_layout(COURSE, "suns", hand=["n", "a"], start=7,
                                    scoreboard=spent + [("S5", "M5", ["C4", "Ca"])])
    assert before.apply("5 off 7").scoreboard[-1].marker == (C("M3"), C("M2"))
    assert explain(before, other_split).moves == (Event(5, 7),)


def test_render_shows_map_course_hand_scoreboard_and_score():
    state = State.new(lay_catwalk([COURSE], roll=random.Random(0)), "suns").apply("5 off 5")
    text = state.render()
    assert "1:S5" in text and "course (tile 1 = start): 1:S5  2:S4" in text
    assert "scoreboard  S5     Mn" in text and "score 5" in text and "next coin starts on tile 5" in text


# ------------------------------------------------------------------------------------------ properties

@st.composite
def catwalk_stacks(draw):
    order = draw(st.permutations(ALL_TILES))
    cuts = sorted(draw(st.lists(st.integers(0, 24), min_size=3, max_size=3)))
    bounds = [0, *cuts, 24]
    return [order[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=60, deadline=None)
@given(catwalk_stacks(), st.integers(0, 2**32), st.sampled_from(list(Suit)), st.booleans(), st.data())
def test_random_catwalks_and_flicks_keep_the_invariants(stacks, seed, suit, from_end, data):
    track = lay_catwalk(stacks, roll=random.Random(seed))
    assert len(track.tiles) == 24 and len(set(track.cells)) == 24
    for i, (a, b) in enumerate(zip(track.cells, track.cells[1:], strict=False)):
        if i + 2 not in track.bridges:
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
        else:  # a bridge goes straight over occupied cells
            assert a[0] == b[0] or a[1] == b[1]
    assert Track.from_layout(track.tiles, track.cells) == track
    state = State.new(track, suit, from_end)
    while not state.is_over():
        event = data.draw(st.sampled_from(state.legal_moves()))
        assert Event.parse(str(event)) == event
        after = state.apply(event)
        coins = [c for p in after.scoreboard for c in (p.coin, *p.marker)] + list(after.pool)
        coins += [C(f"{suit.letter}{r}") for r in after.hand]
        assert sorted(coins) == sorted(ALL_COINS)
        assert all(p.marker for p in after.scoreboard)  # from a full pool a marker can always be made
        assert after.score() == sum(p.points for p in after.scoreboard) + (10 if len(after.scoreboard) == 6 else 0)
        assert after.start == (event.tile or 1)
        found = explain(state, after)
        assert found.legal and found.moves == (event,)
        assert State.from_layout(track, suit, after.hand, after.start, after.scoreboard, from_end) == after
        assert State.from_layout(**json.loads(json.dumps(after.to_layout()))) == after
        state = after
    handed = transition(state)
    pairs, pool = handed.for_barrels()
    assert len(pairs) == len(state.scoreboard) and 2 * len(pairs) + len(pool) == 24


def test_the_first_three_rooms_chain():
    rng = random.Random(11)
    jam = slide_jam.State.deal(rng)
    while not jam.is_over():
        jam = jam.apply(rng.choice(jam.legal_moves()))
    mirror = magic_mirror.State.from_stacks(*slide_jam.transition(jam))
    while not mirror.is_over():
        mirror = mirror.apply(rng.choice(mirror.legal_moves()))
    stacks = stacks_in_order(magic_mirror.transition(mirror), ["twins", "cousins", "distant relatives", "strangers"])
    state = State.new(lay_catwalk(stacks, rng), "suns")
    assert sorted(state.course) == sorted(ALL_TILES)
    while not state.is_over():
        state = state.apply(rng.choice(state.legal_moves()))
    assert state.score() >= 0 and len(transition(state).draw_pool) == 24 - 2 * len(state.scoreboard) - sum(
        len(p.marker) - 1 for p in state.scoreboard)
