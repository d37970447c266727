"""Magic Mirror (Epic Funhouse room 2): the seed's rules and examples, decisions, and properties."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse import slide_jam
from rules.epic_funhouse.common import ALL_TILES, parse_tile
from rules.epic_funhouse.magic_mirror import (
    SIDE_ROWS,
    WIDTH,
    MirrorStacks,
    Move,
    Relation,
    State,
    explain,
    relation,
    transition,
)

T = parse_tile
E = ". . . ."


def tiles(text: str) -> tuple:
    return tuple(T(c) for c in text.split())


def rows_of(state: State) -> list[str]:
    return [" ".join(t and f"{t.suit.letter}{'na2345'[t.rank]}" or "." for t in row) for row in state.board]


# A Figure 3 style layout: the first stack (top first) fills the top grid, the second the bottom grid.
FIRST = tiles("Sn Sa S2 S3 S4 S5 Mn Ma M2 M3 M4 M5")
SECOND = tiles("Cn Ca C2 C3 C4 C5 An Aa A2 A3 A4 A5")


def test_setup_lays_each_stack_from_the_top_in_reading_order():
    state = State.from_stacks(FIRST, SECOND)
    assert rows_of(state) == ["Sn Sa S2 S3",
                              "S4 S5 Mn Ma",
                              "M2 M3 M4 M5",  # row 4: the top grid's front row
                              "Cn Ca C2 C3",  # row 3: the bottom grid's front row
                              "C4 C5 An Aa",
                              "A2 A3 A4 A5"]
    with pytest.raises(LayoutError, match="holds 11 tiles"):
        State.from_stacks(FIRST[:11], SECOND)


def test_pairs_total_five_from_the_front_rows_not_necessarily_opposite():
    state = State.from_stacks(FIRST, SECOND)
    # front rows: M2 M3 M4 M5 over Cn Ca C2 C3
    assert sorted(str(m) for m in state.legal_moves() if m.first[1] < SIDE_ROWS) == sorted(
        ["a4d3", "b4c3", "c4b3", "d4a3"])
    after = state.apply("d4a3")  # 5 of moons and null of crowns: not opposite each other
    assert after.distant_relatives == (T("Cn"), T("M5"))
    # each column slides toward the mirror: d above, a below
    assert rows_of(after) == ["Sn Sa S2 .",
                              "S4 S5 Mn S3",
                              "M2 M3 M4 Ma",
                              "C4 Ca C2 C3",
                              "A2 C5 An Aa",
                              ". A3 A4 A5"]


def test_illegal_pairs_say_why():
    state = State.from_stacks(FIRST, SECOND)
    with pytest.raises(IllegalMove, match="not next to the mirror"):
        state.apply("d5a3")
    with pytest.raises(IllegalMove, match="both on the top side"):
        state.apply("a4d4")
    with pytest.raises(IllegalMove, match="total 2, not 5"):
        state.apply("a4a3")
    empty = state.apply("d4a3").apply("d4a3")  # Ma with C4: ace + 4
    assert empty.board[0][3] is None
    with pytest.raises(IllegalMove, match="no tile on d6"):
        empty.apply("d6b3")


def test_relations_by_suit():
    s, m, c, a = (T(x) for x in ("S2", "M3", "C3", "A3"))
    assert relation(s, T("Sn")) is Relation.TWINS
    assert relation(s, m) is relation(c, a) is Relation.COUSINS
    assert relation(s, c) is relation(s, a) is relation(m, c) is relation(m, a) is Relation.DISTANT_RELATIVES
    assert [r.points_per_pair for r in Relation] == [0, 1, 2, 3]


def test_score_twins_zero_cousins_one_distant_two_strangers_three_per_pair():
    state = State.from_layout([E, ". . Ca .", "Mn S5 A4 .", "Ma C2 C3 .", ". . An .", E],
                              twins=tiles("S3 S2"), cousins=tiles("M4 Sa"), distant_relatives=tiles("Cn M5"))
    # Hint: ignore Twins, count each Cousin and divide by 2, add the Distant Relatives (as pairs: 2 points each),
    # then three points for each tile on one side.
    assert state.tiles_per_side() == 4
    assert state.score() == 0 + 1 + 2 + 3 * 4
    state = State.from_layout([E, E, ". . Sa .", ". C4 . .", E, E])
    assert state.apply("c4b3").score() == 2 and state.apply("b3c4").twins == ()


def test_score_from_the_hint_on_a_played_out_board():
    state = State.from_stacks(FIRST, SECOND)
    while not state.is_over():
        state = state.apply(state.legal_moves()[0])
    cousins_tiles, distant_tiles = len(state.cousins), len(state.distant_relatives)
    one_side = sum(1 for row in state.board[:SIDE_ROWS] for t in row if t)
    assert state.score() == cousins_tiles // 2 + 2 * (distant_tiles // 2) + 3 * one_side


def test_transition_stacks_the_strangers_in_reading_order():
    state = State.from_layout([E, E, "Sn . Ma A2", "S2 C2 . .", ". Cn . .", E], twins=tiles("S4 Sa"))
    handed = transition(state)
    assert isinstance(handed, MirrorStacks)
    # reading order: Sn, Ma, A2 (row 4), S2, C2 (row 3), Cn (row 2); the last picked is on top
    assert handed.strangers == tiles("Cn C2 S2 A2 Ma Sn")
    assert handed.twins == tiles("S4 Sa") and handed.cousins == () and handed.distant_relatives == ()
    assert state.stack(Relation.STRANGERS) == handed.strangers


def test_impossible_layouts_are_refused_with_a_sentence():
    with pytest.raises(LayoutError, match="slid"):
        State.from_layout(["Sn . . .", E, ". . . .", "Sa . . .", E, E])
    with pytest.raises(LayoutError, match="slid"):
        State.from_layout([E, E, "Sn . . .", E, "Sa . . .", E])
    with pytest.raises(LayoutError, match="hold 2 and 1 tiles"):
        State.from_layout([E, E, "Sn Sa . .", "S4 . . .", E, E])
    with pytest.raises(LayoutError, match="must be even"):
        State.from_layout([E] * 6, twins=tiles("S4 Sa S5"))
    with pytest.raises(LayoutError, match="do not total 5"):
        State.from_layout([E] * 6, twins=tiles("S4 S2"))
    with pytest.raises(LayoutError, match="are cousins, but they are on the twins stack"):
        State.from_layout([E] * 6, twins=tiles("S4 Ma"))
    with pytest.raises(LayoutError, match="appears twice"):
        State.from_layout([E, E, "Sn . . .", "S5 . . .", E, E], twins=tiles("S5 Sn"))
    with pytest.raises(LayoutError, match="6 rows"):
        State.from_layout([E] * 5)


def test_move_text():
    move = Move((1, 2), (2, 3))
    assert str(move) == "b4c3" and Move.parse("b4 c3") == move and Move.parse("C3B4") == Move((2, 3), (1, 2))
    for bad in ("b4", "b4c3d3", "b4-c3", "e4c3"):
        with pytest.raises(RulesError):
            Move.parse(bad)


def test_render():
    text = State.from_stacks(FIRST, SECOND).render()
    assert "4   M2  M3  M4  M5\n    ~~~~~~~~~~~~~~  mirror\n3   Cn  Ca  C2  C3" in text
    assert "score 36 (12 strangers each side, 4 pairs removable)" in text


def test_explain_finds_the_move_or_says_why():
    state = State.from_stacks(FIRST, SECOND)
    move = Move.parse("a3d4")
    assert explain(state, state.apply(move)).moves == (move,)
    two = state.apply(move).apply("d4a3")
    assert explain(state, two).moves == (move, Move.parse("d4a3"))
    assert explain(state, state).unchanged
    assert "appeared" in explain(two, state).reason
    unslid = State(tuple(row[:3] + (None,) if r == 2 else (None,) + row[1:] if r == 3 else row
                         for r, row in enumerate(state.board)), distant_relatives=tiles("Cn M5"))
    assert "slide toward the mirror" in explain(state, unslid).reason
    wrong_stack = State(state.apply(move).board, twins=tiles("Cn M5"))
    assert "distant relatives stack" in explain(state, wrong_stack).reason
    bad_pair = State(tuple(row[:3] + (None,) if r == 2 else row[:2] + (None,) + row[3:] if r == 3 else row
                           for r, row in enumerate(state.board)))
    assert "total" in explain(state, bad_pair).reason


def test_slide_jam_hands_over_to_magic_mirror():
    jam = slide_jam.State.deal(random.Random(7))
    while not jam.is_over():
        jam = jam.apply(jam.legal_moves()[0])
    first, second = slide_jam.transition(jam)
    mirror = State.from_stacks(first, second)
    assert mirror.tiles_per_side() == 12 and mirror.board[0][0] == first[0] and mirror.board[3][0] == second[0]


@settings(max_examples=60, deadline=None)
@given(st.permutations(ALL_TILES), st.data())
def test_random_legal_play_keeps_the_invariants(order, data):
    state = State.from_stacks(order[:12], order[12:])
    while True:
        moves = state.legal_moves()
        assert state.is_over() == (not moves)
        if not moves:
            break
        move = data.draw(st.sampled_from(moves))
        assert Move.parse(str(move)) == move
        after = state.apply(move)
        assert after.tiles_per_side() == state.tiles_per_side() - 1
        removed = len(after.twins) + len(after.cousins) + len(after.distant_relatives)
        assert 2 * after.tiles_per_side() + removed == 24
        assert after.score() <= state.score()  # a removed pair never scores more than 3 (as strangers)
        for col in range(WIDTH):  # columns stay packed against the mirror
            top = [after.board[r][col] for r in range(SIDE_ROWS)]
            bottom = [after.board[r][col] for r in range(SIDE_ROWS, 2 * SIDE_ROWS)]
            assert top == sorted(top, key=lambda t: t is not None) and bottom == sorted(bottom, key=lambda t: t is None)
        found = explain(state, after)
        assert found.legal and found.moves == (move,)
        assert State.from_layout(after.board, after.twins, after.cousins, after.distant_relatives) == after
        assert State.from_layout(**json.loads(json.dumps(after.to_layout()))) == after
        state = after
    handed = transition(state)
    assert sorted(t for pile in handed for t in pile) == sorted(ALL_TILES)
    assert len(handed.strangers) == 2 * state.tiles_per_side()
