"""Whack-a-Dummy (Epic Funhouse room 5): the seed's rules and example, decisions, solver, properties."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse.roll_out_the_barrels import parse_cell, settle_maze
from rules.epic_funhouse.whack_a_dummy import (
    CENTRAL_CELLS,
    CORNERS,
    Move,
    State,
    column_sums,
    explain,
    setup,
    solve,
)

ALL_VALUES = [v for v in range(6) for _ in range(4)]
MAZE = [
    [2, 5, 1, 5],
    [3, 4, 0, 1],
    [0, 2, 3, 4],
    [1, 0, 5, 2],
    [4, 3, 1, 0],
    [2, 5, 4, 3],
]
C = parse_cell


def test_set_up_hides_every_dummy_and_the_die_starts_in_the_middle():
    state = setup(MAZE)
    assert state.face_up == 0 and state.cell is None and state.score() == 15
    assert {m.cell for m in state.legal_moves()} == set(CENTRAL_CELLS) == {C("b4"), C("c4"), C("b3"), C("c3")}
    assert [c for c in CORNERS] == [C("a6"), C("d6"), C("d1"), C("a1")]  # NW, NE, SE, SW
    with pytest.raises(IllegalMove, match="four central coins"):
        state.apply(Move.start("a6"))
    with pytest.raises(IllegalMove, match="place the die"):
        state.apply("go north")


def test_first_move_walks_without_flipping_the_start_coin_then_flips_the_landing_coin():
    state = setup(MAZE).apply("start c3")
    assert not state.is_up("c3") and state.step_length() == 1
    walked = state.apply("go north")
    assert walked.cell == C("c4") and walked.is_up("c4") and not walked.is_up("c3")
    # c4 shows 3 face up: jump three spaces, wrapping round the board
    assert walked.step_length() == 3
    assert walked.apply("go east").cell == C("b4")  # c -> d -> a -> b
    assert walked.apply("go south").cell == C("c1")
    assert walked.apply("go north").cell == C("c1")  # rows 4 -> 5 -> 6 -> wrap to 1


def test_face_down_landing_means_a_walk_and_null_or_ace_jump_one():
    assert State.from_layout(MAZE, face_up=["c5"], cell="c5").step_length() == 1  # a face-up null jumps 1
    assert State.from_layout(MAZE, face_up=["d5"], cell="d5").step_length() == 1  # a face-up ace jumps 1
    assert State.from_layout(MAZE, face_up=["b6"], cell="b6").step_length() == 5
    # landing on a face-up coin flips it face down: the next move is a walk
    back = State.from_layout(MAZE, face_up=["c4"], cell="c3").apply("go north")
    assert back.cell == C("c4") and not back.is_up("c4") and back.step_length() == 1


def test_a_jump_round_onto_the_same_coin_is_not_a_move():
    grid = [row[:] for row in MAZE]  # b6 is a 5; give b4 a 4 by swapping it with d2
    grid[2][1], grid[1][1] = grid[1][1], grid[2][1]  # b4 = 4, b5 = 2
    state = State.from_layout(grid, face_up=["b4"], cell="b4")
    assert state.step_length() == 4
    assert {m.direction.value for m in state.legal_moves()} == {"north", "south"}
    with pytest.raises(IllegalMove, match="back to b4"):
        state.apply("go east")


def test_the_seed_example_out_of_sequence_corner_costs_10_and_must_be_whacked_back():
    # The northwest dummy is up (in sequence); walking from a2 onto the southwest corner activates it early.
    state = State.from_layout(MAZE, face_up=["a6"], cell="a2", progress=1)
    oops = state.apply("go south")
    assert oops.cell == C("a1") and oops.is_up("a1")
    assert oops.penalties == 10 and oops.progress == 1 and oops.wrong_corners() == (C("a1"),)
    assert oops.score() == 25
    # while the southwest dummy is up, activating the northeast one is out of sequence too: another 10
    near_ne = State.from_layout(MAZE, face_up=["a6", "a1"], cell="c6", progress=1, penalties=10)
    early = near_ne.apply("go east")
    assert early.cell == C("d6") and early.penalties == 20 and early.progress == 1
    assert set(early.wrong_corners()) == {C("d6"), C("a1")}
    # whacking the southwest dummy back sets things right without a penalty ...
    fix = State.from_layout(MAZE, face_up=["a6", "a1"], cell="a2", progress=1, penalties=10).apply("go south")
    assert not fix.is_up("a1") and fix.penalties == 10 and fix.wrong_corners() == ()
    # ... and then the northeast dummy counts
    good = State.from_layout(MAZE, face_up=["a6"], cell="c6", progress=1, penalties=10).apply("go east")
    assert good.progress == 2 and good.penalties == 10


def test_whacking_an_activated_corner_is_out_of_sequence_and_reactivating_it_sets_it_right():
    state = State.from_layout(MAZE, face_up=["a6"], cell="a5", progress=1)
    whacked = state.apply("go north")
    assert not whacked.is_up("a6") and whacked.penalties == 10 and whacked.wrong_corners() == (C("a6"),)
    again = State.from_layout(MAZE, face_up=[], cell="a5", progress=1, penalties=10).apply("go north")
    assert again.is_up("a6") and again.penalties == 10 and again.wrong_corners() == () and again.progress == 1


def test_completing_the_tour_ends_the_game_and_scores_the_penalties():
    state = State.from_layout(MAZE, face_up=["a6", "d6", "d1"], cell="a2", progress=3, penalties=20)
    done = state.apply("go south")
    assert done.progress == 4 and done.is_over() and done.score() == 20 and done.legal_moves() == []
    with pytest.raises(IllegalMove, match="tour is complete"):
        done.apply("go north")
    assert State.from_layout(MAZE, face_up=["a6"], cell="b2", progress=1, penalties=10).score() == 25


def test_column_sums_for_trampo_land():
    state = State.from_layout(MAZE, face_up=["a6", "a5", "b6", "c5", "d1", "d2"], cell="d2", progress=1)
    # a: 2 + 3; b: 5; c: null; d: 3 + null
    assert column_sums(state) == (5, 5, 0, 3) == state.column_sums()
    assert column_sums(setup(MAZE)) == (0, 0, 0, 0)


def test_progress_is_read_from_the_board_when_not_given():
    assert State.from_layout(MAZE, face_up=["a6", "d6"], cell="b3").progress == 2
    assert State.from_layout(MAZE, face_up=["d6"], cell="b3").progress == 0
    assert State.from_layout(MAZE, face_up=["d6"], cell="b3").wrong_corners() == (C("d6"),)
    bools = [i in (C("a6"), C("b3")) for i in range(24)]
    assert State.from_layout(MAZE, face_up=bools, cell="b3").face_up == (1 << C("a6")) | (1 << C("b3"))


def test_impossible_layouts_are_refused_with_a_reason():
    with pytest.raises(LayoutError, match="steps of 10"):
        State.from_layout(MAZE, cell="b3", penalties=5)
    with pytest.raises(LayoutError, match="0..4"):
        State.from_layout(MAZE, cell="b3", progress=5)
    with pytest.raises(LayoutError, match="southwest dummy is hidden"):
        State.from_layout(MAZE, face_up=["a6", "d6", "d1"], cell="b3", progress=4)
    with pytest.raises(LayoutError, match="before the die is placed"):
        State.from_layout(MAZE, face_up=["a6"])
    with pytest.raises(LayoutError, match="unknown cell"):
        State.from_layout(MAZE, face_up=["z9"], cell="b3")
    with pytest.raises(LayoutError, match="needs 24 coins"):
        setup([1, 2, 3])


def test_text_forms_and_layout_round_trip():
    for text in ("start c3", "go north", "go west"):
        assert str(Move.parse(text)) == text
    assert Move.parse("N") == Move.go("north")
    with pytest.raises(RulesError, match="cannot read move"):
        Move.parse("jump 3")
    with pytest.raises(RulesError, match="cannot read move"):
        Move.parse("start e9")
    state = State.from_layout(MAZE, face_up=["a6", "a1"], cell="a2", progress=1, penalties=10)
    assert State.from_layout(**json.loads(json.dumps(state.to_layout()))) == state


def test_render_marks_face_down_coins_and_the_die():
    text = State.from_layout(MAZE, face_up=["a6", "a1"], cell="a1", progress=1, penalties=10).render()
    lines = text.splitlines()
    assert lines[1].split()[:3] == ["6", "2", "."] and lines[6].split()[:2] == ["1", "[2]"]
    assert "penalties 10" in text and "set right first: southwest" in text


def test_solver_completes_a_tour_from_the_start():
    state = setup(settle_maze(sum(MAZE, [])).grid)
    solution = solve(state)
    assert solution.completable and not solution.gave_up
    end = state
    for move in solution.moves:
        end = end.apply(move)
    assert end.is_over() and solution.score == end.score() == end.penalties


def test_solver_says_when_it_gives_up():
    state = State.from_layout(MAZE, face_up=["d1", "a1"], cell="b3")  # two corners wrong already
    solution = solve(state, max_states=3)
    assert solution.gave_up and solution.completable is None and solution.moves == ()
    assert solution.score == state.score() == 15


def test_explain_finds_moves_and_refuses_impossible_changes():
    state = setup(MAZE).apply("start b3")
    after = state.apply("go west").apply("go north")
    found = explain(state, after)
    assert found.legal and len(found.moves) == 2
    end = state
    for m in found.moves:
        end = end.apply(m)
    assert end == after
    many = State.from_layout(MAZE, face_up=["a6", "b6", "c6", "d6", "a5"], cell="a5")
    assert "5 coins changed sides" in explain(state, many).reason
    # the camera cannot see progress and penalties: observed=True compares what it sees
    seen = State.from_layout(MAZE, face_up=["a3", "a4"], cell=after.cell, penalties=10)
    assert not explain(state, seen).legal
    assert explain(state, seen, observed=True).moves == found.moves


# ------------------------------------------------------------------------------------------------ properties

mazes = st.permutations(ALL_VALUES).map(lambda vals: settle_maze(vals).grid)


@settings(max_examples=40, deadline=None)
@given(grid=mazes, start=st.sampled_from(CENTRAL_CELLS), choices=st.lists(st.integers(0, 3), max_size=40))
def test_random_legal_play_keeps_invariants(grid, start, choices):
    state = setup(grid).apply(Move.start(start))
    for choice in choices:
        moves = state.legal_moves()
        if not moves:
            assert state.is_over()
            break
        move = moves[choice % len(moves)]
        assert Move.parse(str(move)) == move
        after = state.apply(move)
        flipped = state.face_up ^ after.face_up
        assert flipped == 1 << after.cell  # exactly the coin landed on was flipped
        assert after.progress - state.progress in (0, 1)
        assert after.penalties - state.penalties in (0, 10)
        if after.penalties > state.penalties or after.progress > state.progress:
            assert after.cell in CORNERS
        if after.progress > state.progress:
            assert state.wrong_corners() == () and after.is_up(CORNERS[state.progress])
        assert after.score() == after.penalties + (0 if after.is_over() else 15)
        explained = explain(state, after, max_moves=1)
        assert explained.legal and state.apply(explained.moves[0]) == after
        assert move in [m for m in moves if state.apply(m) == after]
        assert State.from_layout(**after.to_layout()) == after
        state = after
