"""Slide Jam (Epic Funhouse room 1): examples from the seed's text and figures, decisions, and properties."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse.common import ALL_TILES, parse_tile
from rules.epic_funhouse.slide_jam import (
    HEIGHT,
    WIDTH,
    Move,
    Slide,
    State,
    best_line,
    explain,
    transition,
)

T = parse_tile
EMPTY_ROW = ". . . ."


def board(*rows: str) -> State:
    """A position from up to six rows written top first; missing rows at the bottom are empty."""
    rows = list(rows) + [EMPTY_ROW] * (HEIGHT - len(rows))
    return State.from_layout(rows)


def cells_of(state: State) -> list[str]:
    return [" ".join(t and f"{t.suit.letter}{'na2345'[t.rank]}" or "." for t in row) for row in state.board]


# --------------------------------------------------------------------------------------------- families

def test_families_null_ace_two_of_any_suits_in_a_row():
    state = board("Sn Ma C2 .")
    assert state.families() == [((0, 0), (1, 0), (2, 0))]
    after = state.apply("a6b6c6>1 L")
    assert after.tiles_left() == 0 and after.stacks[0] == (T("C2"), T("Ma"), T("Sn"))


@pytest.mark.parametrize("row", ["A4 S5 Mn .", "C5 Mn Sa .", "S2 M3 A4 ."])
def test_sequence_wraps_from_five_to_null(row):
    # "it is also acceptable to remove 4, 5, and null, or 5, null, and ace"
    assert len(board(row).families()) == 1


def test_sequences_run_in_any_direction_like_boggle():
    # A bent diagonal path, read downwards (2, ace, null): the middle touches both ends, the ends do not touch.
    state = board("C2 . . .", ". Ma . .", "Sn . . .")
    assert state.families() == [((0, 2), (1, 1), (0, 0))]
    after = state.apply("a6b5a4>2 U")  # named from the 2 down to the null
    assert after.stacks == ((), (T("Sn"), T("Ma"), T("C2")))


def test_not_a_family():
    with pytest.raises(IllegalMove, match="not three ranks in a row"):
        board("Sn M2 C3 .").apply("a6b6c6>1 U")
    # ranks in sequence but the middle (ace) does not touch the 2: the ends touching does not help.
    state = board("Sn C2 . .", ". . Ma .")
    assert state.families() == []
    with pytest.raises(IllegalMove, match="does not touch"):
        state.apply("a6c5b6>1 U")
    with pytest.raises(IllegalMove, match="no tile on d6"):
        board("Sn Ma C2 .").apply("a6b6d6>1 U")
    with pytest.raises(IllegalMove, match="named twice"):
        board("Sn Ma C2 .").apply("a6a6b6>1 U")


# --------------------------------------------------------------------------------------------- sliding

FIG2_BEFORE = ["S3 A4 C5 Mn",
               "Ma S2 M4 Cn",
               "C3 A2 Sn M5",
               "A3 Aa C4 S4",
               "M3 S5 Ca An",
               "A5 C2 M2 Sa"]


def test_slide_after_a_pop_moves_every_tile_as_far_as_it_can():
    # A Figure 2 style sequence (the seed's text carries only the caption: "2A: Before pop, 2B: After pop,
    # before slide, 2C: After slide"): a family pops out of a full board and the tiles slide down.
    before = State.from_layout(FIG2_BEFORE)
    move = Move.parse("b5a5a4>1 D")  # 2 of suns, ace of moons, 3 of crowns
    after = before.apply(move)
    assert cells_of(after) == [". . C5 Mn",
                               ". A4 M4 Cn",
                               "S3 A2 Sn M5",
                               "A3 Aa C4 S4",
                               "M3 S5 Ca An",
                               "A5 C2 M2 Sa"]
    # Column a held S3 Ma C3 A3 M3 A5; Ma and C3 left, so S3 A3 M3 A5 pack down to the bottom.
    assert [row[0] for row in after.board] == [None, None, T("S3"), T("A3"), T("M3"), T("A5")]
    # Column b lost only S2: A4 drops onto A2.
    assert [row[1] for row in after.board] == [None, T("A4"), T("A2"), T("Aa"), T("S5"), T("C2")]
    # Columns c and d were full and do not move.
    assert [row[2:] for row in after.board] == [row[2:] for row in before.board]


@pytest.mark.parametrize("slide, edge", [(Slide.LEFT, 0), (Slide.RIGHT, WIDTH - 1)])
def test_rows_end_flush_with_the_edge_slid_towards(slide, edge):
    before = State.from_layout(FIG2_BEFORE)
    after = before.apply(Move(((1, 1), (0, 1), (0, 2)), 2, slide))
    for row in after.board:
        assert row[edge] is not None
        tiles = [t for t in row if t is not None]
        packed = tiles + [None] * (WIDTH - len(tiles)) if slide is Slide.LEFT else [None] * (WIDTH - len(tiles)) + tiles
        assert list(row) == packed


def test_a_slide_that_moves_nothing_is_legal():
    state = board("Sn Ma C2 S3", ". . . M4")
    for slide in "RU":  # the tiles left are already against the right and top edges
        after = state.apply(f"a6b6c6>1 {slide}")
        assert cells_of(after)[:2] == [". . . S3", ". . . M4"]


def test_each_tile_slides_not_the_piece_as_one_block():
    # "the tiles on that edge of the board should all be flush": an L-shaped piece does not slide as a rigid
    # block stopped by its first tile to reach the edge; every tile goes as far as it can.
    state = board("Sn Ma C2 .", "S3 M4 . .", ". C5 . .")
    after = state.apply("a6b6c6>1 L")
    assert cells_of(after)[:3] == [EMPTY_ROW, "S3 M4 . .", "C5 . . ."]


def test_a_board_in_pieces_slides_piecewise():
    # Two pieces (left and right) with an empty column between them: sliding up packs each column.
    state = board(". . . .", "Sn . . C4", "Ma . . .", "C2 . . .", ". . . A3", ". . . M5")
    after = state.apply("a5a4a3>1 U")
    assert cells_of(after) == [". . . C4", ". . . A3", ". . . M5", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW]


# --------------------------------------------------------------------------------------------- stacks, score, end

def test_either_stack_is_legal_even_when_it_leaves_the_stacks_unequal():
    state = board("Sn Ma C2 .", "S3 M4 C5 .")
    after = state.apply("a6b6c6>1 U").apply("a6b6c6>1 U")
    assert len(after.stacks[0]) == 6 and after.stacks[1] == ()
    assert after.is_over() and after.score() == 0


def test_score_is_the_sum_of_tiles_left_null_zero_ace_one():
    state = board("Sn Ma . .", ". . S5 .", "C2 . . .")
    assert state.is_over() and state.legal_moves() == []
    assert state.score() == 0 + 1 + 5 + 2


# --------------------------------------------------------------------------------------------- transition

def test_transition_stacks_leftovers_on_the_shorter_then_evens_by_lifting_the_excess():
    fams = ["Sn Sa S2", "S3 S4 S5", "Mn Ma M2", "M3 M4 M5", "Cn Ca C2", "C3 C4 C5", "An Aa A2"]
    stack1 = tuple(T(c) for f in fams[:5] for c in f.split())  # 15 tiles, top first
    stack2 = tuple(T(c) for f in fams[5:] for c in f.split())  # 6 tiles
    state = State.from_layout(["A3 . . .", ". A4 . .", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, ". . . A5"],
                              [stack1, stack2])
    first, second = transition(state)
    assert len(first) == len(second) == 12
    # reading order A3, A4, A5 onto the shorter stack: A5 ends on top; then the top 3 of the first stack
    # (Sn Sa S2) are lifted as one block onto the second stack.
    assert second[:6] == (T("Sn"), T("Sa"), T("S2"), T("A5"), T("A4"), T("A3"))
    assert second[6:] == stack2
    assert first == stack1[3:]
    assert sorted(first + second) == sorted(ALL_TILES)


def test_transition_when_even_keeps_stacks():
    state = board("Sn Ma C2 .", "S3 M4 C5 .").apply("a6b6c6>1 U").apply("a6b6c6>2 U")
    assert transition(state) == (state.stacks[0], state.stacks[1])


# --------------------------------------------------------------------------------------------- layouts and text

def test_impossible_layouts_are_refused_with_a_sentence():
    with pytest.raises(LayoutError, match="6 rows"):
        State.from_layout(["Sn Ma C2 ."])
    with pytest.raises(LayoutError, match="has 3 cells"):
        State.from_layout(["Sn Ma C2"] + [EMPTY_ROW] * 5)
    with pytest.raises(LayoutError, match="appears twice"):
        State.from_layout(["Sn Sn . ."] + [EMPTY_ROW] * 5)
    with pytest.raises(LayoutError, match="appears twice"):
        State.from_layout(["Sn . . ."] + [EMPTY_ROW] * 5, [("Sn", "Sa", "S2"), ()])
    with pytest.raises(LayoutError, match="multiple of three"):
        State.from_layout([EMPTY_ROW] * 6, [("Sn", "Sa"), ()])
    with pytest.raises(LayoutError, match="not a family"):
        State.from_layout([EMPTY_ROW] * 6, [(), ("Sn", "Sa", "S3")])
    with pytest.raises(LayoutError, match="cannot read tile"):
        State.from_layout(["Sn X9 . ."] + [EMPTY_ROW] * 5)
    with pytest.raises(LayoutError, match="24 tiles"):
        State.from_tiles(ALL_TILES[:23])


def test_move_text():
    move = Move(((0, 5), (1, 4), (2, 3)), 1, Slide.UP)
    assert str(move) == "a1b2c3>1 U"
    assert Move.parse("a1 b2 c3 > 1 up") == move == Move.parse("A1B2C3>1U")
    assert Move.parse("d6c5b4>2 W") == Move(((3, 0), (2, 1), (1, 2)), 2, Slide.LEFT)
    for bad in ("a1b2c3", "a1b2c3>3 U", "a1b2c3>1 X", "a1b2e3>1 U", "a1b2>1 U", "a7b2c3>1 U"):
        with pytest.raises(RulesError):
            Move.parse(bad)


def test_render_shows_board_stacks_and_score():
    text = board("Sn Ma C2 .").render()
    assert "6   Sn  Ma  C2  ." in text and "stack 1 (0, top first): (empty)" in text and "score 3" in text


# --------------------------------------------------------------------------------------------- explain

def test_explain_finds_the_move_or_says_why_not():
    before = State.from_layout(FIG2_BEFORE)
    move = Move.parse("a4a5b5>2 D")
    assert explain(before, before.apply(move)).moves == (move,)
    assert explain(before, before).unchanged
    two = before.apply(move)
    two_moves = two.apply(two.legal_moves()[0])
    found = explain(before, two_moves)
    assert found.legal and len(found.moves) == 2
    replay = before
    for m in found.moves:
        replay = replay.apply(m)
    assert replay == two_moves
    # A family was removed but the tiles were not slid (a family whose every slide moves something).
    for family in before.families():
        grid = [list(r) for r in before.board]
        for col, row in family:
            grid[row][col] = None
        unslid = State(tuple(tuple(r) for r in grid), ((), tuple(before.tile_at(c) for c in reversed(family))))
        if all(before.apply(Move(family, 2, s)) != unslid for s in Slide):
            break
    assert "did not slide" in explain(before, unslid).reason
    onto_both = State(before.apply(Move(family, 2, Slide.UP)).board, ((before.tile_at(family[0]),), ()))
    assert "whole on top of one" in explain(before, onto_both).reason
    assert "appeared" in explain(two, before).reason
    not_family = State(before.board[:1] + (tuple([None] + list(before.board[1][1:])),) + before.board[2:])
    assert "three at a time" in explain(before, not_family).reason


def test_best_line_replays_to_its_score():
    assert best_line(board("S3 M4 C5 .", "Sn Ma C2 .")) == (0, (Move.parse("a6b6c6>1 U"), Move.parse("a6b6c6>2 U")))
    start = State.deal(random.Random(3))
    score, line = best_line(start, max_nodes=300)
    state = start
    for move in line:
        state = state.apply(move)
    assert state.score() == score < start.score()


# --------------------------------------------------------------------------------------------- properties

def _packed(state: State, slide: Slide) -> bool:
    lines = (state.board if slide in (Slide.LEFT, Slide.RIGHT)
             else [tuple(row[c] for row in state.board) for c in range(WIDTH)])
    for line in lines:
        tiles = [t for t in line if t is not None]
        gap = [None] * (len(line) - len(tiles))
        if list(line) != (tiles + gap if slide in (Slide.LEFT, Slide.UP) else gap + tiles):
            return False
    return True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(ALL_TILES), st.data())
def test_random_legal_play_keeps_the_invariants(tiles, data):
    state = State.from_tiles(tiles)
    while True:
        moves = state.legal_moves()
        assert state.is_over() == (not moves)
        if not moves:
            break
        move = data.draw(st.sampled_from(moves))
        assert Move.parse(str(move)) == move
        after = state.apply(move)
        assert after.tiles_left() == state.tiles_left() - 3
        assert after.tiles_left() + sum(len(p) for p in after.stacks) == 24
        assert _packed(after, move.slide)
        assert after.score() == state.score() - sum(state.tile_at(c).rank for c in move.cells)
        found = explain(state, after)
        assert found.legal and len(found.moves) == 1 and state.apply(found.moves[0]) == after
        assert State.from_layout(after.board, after.stacks) == after
        assert State.from_layout(**json.loads(json.dumps(after.to_layout()))) == after
        state = after
    first, second = transition(state)
    assert len(first) == len(second) == 12 and sorted(first + second) == sorted(ALL_TILES)
