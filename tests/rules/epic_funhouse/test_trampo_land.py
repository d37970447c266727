"""Trampo-Land (Epic Funhouse room 6): the seed's set-up example, bouncing rules, solver, properties."""

import json
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse.trampo_land import (
    Move,
    State,
    adjacent,
    cast_coins,
    cast_total,
    empty_trampoline,
    explain,
    jumps_from,
    place_adults,
    random_setup,
    setup,
    solve,
    wrap_trampoline,
    you_trampoline,
)


def board(text: str, last_walker=None) -> State:
    """A position from 15 letters in trampoline order (k kid, a adult, y you, . empty); spaces ignored."""
    return State.from_layout(text, last_walker=last_walker)


# ------------------------------------------------------------------------------------------------ geometry


def test_triangle_adjacency_and_jump_lines():
    assert adjacent(1) == (2, 3)
    assert set(adjacent(5)) == {2, 3, 4, 6, 8, 9}
    assert set(adjacent(11)) == {7, 12}
    assert set(jumps_from(1)) == {(2, 4), (3, 6)}
    assert set(jumps_from(13)) == {(8, 4), (9, 6), (12, 11), (14, 15)}
    assert sum(len(jumps_from(n)) for n in range(1, 16)) == 36  # 18 straight lines of three, both ways
    assert sum(len(adjacent(n)) for n in range(1, 16)) == 60  # 30 edges, both ways
    for n in range(1, 16):
        assert all(n in adjacent(m) for m in adjacent(n))
        assert all(o in adjacent(n) and o in adjacent(t) for o, t in jumps_from(n))


def test_the_solver_symmetries_map_the_board_onto_itself():
    from rules.epic_funhouse.trampo_search import SYMMETRIES

    assert len({tuple(p) for p in SYMMETRIES}) == 6
    for perm in SYMMETRIES:
        assert sorted(perm[1:]) == list(range(1, 16))
        for n in range(1, 16):
            assert {int(perm[m]) for m in adjacent(n)} == set(adjacent(int(perm[n])))


# ------------------------------------------------------------------------------------------------ set-up


def test_die_roll_picks_the_empty_trampoline():
    assert [empty_trampoline(r) for r in range(6)] == [1, 1, 2, 2, 4, 4]
    assert empty_trampoline("null") == 1 and empty_trampoline("ace") == 1
    with pytest.raises(LayoutError, match="null, ace, 2, 3, 4 or 5"):
        empty_trampoline(6)


def test_the_seed_example_puts_you_on_trampoline_10():
    # "The only face-up coins you cast are a 6, a 3, and an ace. 6+3+1 = 10, so put the die ... on Trampoline 10."
    for die_roll in range(6):
        assert you_trampoline(6 + 3 + 1, empty_trampoline(die_roll)) == 10
    state = setup(die_roll=2, cast=6 + 3 + 1, adult_numbers=(1, 2, 3, 4))
    assert state.piece(10) == "you"
    # the same total from real piecepack coins of one suit
    assert cast_total([5, 4, "ace"]) == 10
    assert setup(die_roll=2, cast=[5, 4, 1], adult_numbers=(1, 2, 3, 4)) == state
    # a 6 is no piecepack coin value
    with pytest.raises(LayoutError, match="not 6"):
        cast_total([6, 3, 1])


def test_cast_rules_recast_zero_and_step_past_the_empty_trampoline():
    with pytest.raises(LayoutError, match="cast again"):
        you_trampoline(0, 1)
    assert you_trampoline(2, empty=2) == 3 and you_trampoline(4, empty=4) == 5 and you_trampoline(1, empty=1) == 2
    assert you_trampoline(15, empty=4) == 15
    with pytest.raises(LayoutError, match="no value can come up twice"):
        cast_total([3, 3])
    import random

    rng = random.Random(5)
    for _ in range(50):
        up = cast_coins(rng)
        assert 1 <= cast_total(up) <= 15 and len(set(up)) == len(up)


def test_adults_step_past_taken_trampolines_and_wrap_past_15():
    assert place_adults([8, 0, 0, 4], taken=(2, 10)) == (8, 15, 1, 4)  # 0 reads as 15; taken -> 16 -> 1
    assert place_adults([10, 10, 10], taken=(10, 11)) == (12, 13, 14)
    assert place_adults([15, 30, 17], taken=(1, 2)) == (15, 3, 4)  # 30 -> 15 taken -> 16 -> 1, 2 taken -> 3
    assert wrap_trampoline(31) == 1 and wrap_trampoline(15) == 15 and wrap_trampoline(0) == 15
    with pytest.raises(LayoutError, match="column sums"):
        wrap_trampoline(-1)


def test_full_set_up_from_whack_a_dummy_numbers():
    state = setup(die_roll=3, cast=10, adult_numbers=(8, 0, 0, 4))
    assert state.layout() == {
        1: "adult", 2: "empty", 3: "kid", 4: "adult", 5: "kid", 6: "kid", 7: "kid", 8: "adult", 9: "kid",
        10: "you", 11: "kid", 12: "kid", 13: "kid", 14: "kid", 15: "adult"}
    assert state.count("kid") == 9 and state.score() == 40
    assert random_setup((8, 0, 0, 4), seed=1) == random_setup((8, 0, 0, 4), seed=1)
    rs = random_setup((1, 2, 3, 4), seed=9)
    assert (rs.count("kid"), rs.count("adult"), rs.count("you"), rs.count("empty")) == (9, 4, 1, 1)


# ------------------------------------------------------------------------------------------------ rules


def test_kids_jump_only_kids():
    state = board("k ak .k. .... .....")  # kids on 1, 3, 5; an adult on 2
    assert Move("jump", 3, 8) in state.legal_moves()  # kid over kid
    with pytest.raises(IllegalMove, match="kid can only bounce out other kids, not an adult"):
        state.apply("jump 1-4")
    with pytest.raises(IllegalMove, match="kids cannot walk"):
        state.apply("walk 5-4")


def test_adults_jump_kids_or_adults_but_never_you():
    with pytest.raises(IllegalMove, match="nobody may bounce you out"):
        board("a y. ... .... .....").apply("jump 1-4")
    state = board("a y. a.. k... .....")  # adults on 1 and 4, you on 2, a kid on 7
    assert Move("jump", 1, 4) not in state.legal_moves()
    after = state.apply("jump 4-11")  # the adult on 4 over the kid on 7
    assert after.piece(7) == "empty" and after.piece(11) == "adult"
    assert board("a a. ... .... .....").apply("jump 1-4").piece(4) == "adult"


def test_you_jump_anyone():
    assert board("y a. ... .... .....").apply("jump 1-4").piece(2) == "empty"
    assert board("y k. ... .... .....").apply("jump 1-4").piece(4) == "you"


def test_jump_needs_an_empty_landing_and_someone_to_jump():
    with pytest.raises(IllegalMove, match="trampoline 2 is empty"):
        board("a .. ... .... .....").apply("jump 1-4")
    with pytest.raises(IllegalMove, match="trampoline 4 is taken"):
        board("a k. k.. .... .....").apply("jump 1-4")
    with pytest.raises(IllegalMove, match="trampoline 3 is empty: there is nobody"):
        board("a .. ... .... .....").apply("walk 3-6")
    with pytest.raises(RulesError, match="not two apart in a straight line"):
        Move.parse("jump 1-9")
    with pytest.raises(RulesError, match="not next to each other"):
        Move.parse("walk 1-5")


def test_the_same_adult_may_not_walk_twice_in_a_row():
    state = board("a .. a.. .... .....")  # adults on 1 and 4
    walked = state.apply("walk 1-2")
    assert walked.last_walker == 2
    with pytest.raises(IllegalMove, match="walked last turn"):
        walked.apply("walk 2-3")
    other = walked.apply("walk 4-7")  # a different adult walks in between
    assert other.apply("walk 2-3").piece(3) == "adult"
    # a jump by that adult is fine, and clears the rule
    jumper = board("a k. ... .... .....", last_walker=1)
    assert Move("walk", 1, 3) not in jumper.legal_moves()
    assert jumper.apply("jump 1-4").last_walker is None
    # you count as an adult for walking
    me = board("y .. ... .... .....").apply("walk 1-2")
    assert me.legal_moves() == [] and me.is_over() and me.score() == 0


def test_score_four_per_kid_one_per_adult_none_for_you():
    assert board("k ka y.. .... .....").score() == 9
    assert board("y .. ... .... .....").score() == 0


def test_from_layout_takes_any_arrangement_and_refuses_impossible_ones():
    mixed = State.from_layout({1: "empty", 2: "kid", 3: "adult", 15: "adult", 7: "you"})
    assert mixed.piece(4) == "empty" and mixed.piece(15) == "adult" and mixed.piece(7) == "you"
    all_kids = State.from_layout({n: "kid" for n in range(1, 16)})
    assert all_kids.legal_moves() == [] and all_kids.score() == 60
    assert State.from_layout({}).score() == 0
    assert State.from_layout({n: "adult" for n in range(1, 16)}).count("adult") == 15
    with pytest.raises(LayoutError, match="only one of you"):
        State.from_layout({1: "you", 5: "you"})
    with pytest.raises(LayoutError, match="unknown piece"):
        State.from_layout({1: "dragon"})
    with pytest.raises(LayoutError, match="numbered 1..15"):
        State.from_layout({16: "kid"})
    with pytest.raises(LayoutError, match="cannot be the adult that walked"):
        State.from_layout({1: "kid"}, last_walker=1)
    with pytest.raises(LayoutError, match="15 letters"):
        State.from_layout("kkk")
    state = State.from_layout({2: "adult", 3: "kid"}, last_walker=2)
    assert State.from_layout(**json.loads(json.dumps(state.to_layout()))) == state


def test_text_forms():
    for text in ("jump 4-1", "walk 5-4"):
        assert str(Move.parse(text)) == text
    assert Move.parse("4-1") == Move("jump", 4, 1) and Move.parse("5-4") == Move("walk", 5, 4)
    assert Move.parse("jump 4-1").over == 2
    with pytest.raises(RulesError, match="cannot read move"):
        Move.parse("hop 4 to 1")
    with pytest.raises(RulesError, match="cannot read move"):
        Move.parse("jump 0-16")


def test_render_shows_the_triangle():
    text = setup(3, 10, (8, 0, 0, 4)).render()
    lines = text.splitlines()
    assert lines[0].split() == ["a", "1"]
    assert lines[3].split() == ["k", "a", "k", "Y", "7", "8", "9", "10"]
    assert "kids 9, adults 4, score 40" in lines[-1]


# ------------------------------------------------------------------------------------------------ solver


def reference_best(state: State) -> int:
    """Independent oracle: breadth-first over every reachable State (no symmetry, no bounds), lowest score."""
    seen = {state}
    todo = deque([state])
    best = state.score()
    while todo:
        s = todo.popleft()
        best = min(best, s.score())
        for _, nxt in s.successors():
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return best


def replay(state: State, moves) -> State:
    for move in moves:
        state = state.apply(move)
    return state


def test_solver_clears_the_seed_style_set_up():
    state = setup(3, 10, (8, 0, 0, 4))
    solution = solve(state)
    assert solution.score == 0 and solution.exact
    end = replay(state, solution.moves)
    assert end.score() == 0 and end.count("you") == 1


def test_solver_proves_a_stuck_corner_kid_stays():
    # two kids on corners: no kid can ever jump and nobody can jump over a corner
    state = board("k .. .y. .a.. k....")
    solution = solve(state)
    assert solution.score == 8 + 0 and solution.exact and solution.score == reference_best(state)


def test_solver_needs_walks_when_jumps_alone_do_not_do():
    # you on 1, a kid on 5: nothing to jump now; walk to 2, then bounce the kid (2 over 5 to 9)
    state = board("y .. .k. .... .....")
    assert not [m for m in state.legal_moves() if m.kind == "jump"]
    solution = solve(state)
    assert solution.score == 0 and any(m.kind == "walk" for m in solution.moves)
    assert replay(state, solution.moves).score() == 0


def test_solver_reports_when_the_budget_runs_out():
    state = board("k . k k k k y k a k k a a a k")
    solution = solve(state, max_states=10)
    assert not solution.exact and solution.states_searched == 10
    assert replay(state, solution.moves).score() == solution.score


@st.composite
def small_layouts(draw):
    """Up to five pieces (at most one you, two adults) on random trampolines: small enough for the oracle."""
    pieces = draw(st.lists(st.sampled_from("kkkaay"), min_size=1, max_size=5))
    if pieces.count("y") > 1:
        pieces = [p for p in pieces if p != "y"] + ["y"]
    while pieces.count("a") > 2:
        pieces.remove("a")
    places = draw(st.permutations(range(15)))
    cells = ["."] * 15
    for piece, place in zip(pieces, places[: len(pieces)], strict=True):
        cells[place] = piece
    return "".join(cells)


@settings(max_examples=50, deadline=None)
@given(text=small_layouts())
def test_solver_agrees_with_exhaustive_search(text):
    state = board(text)
    solution = solve(state)
    assert solution.exact and solution.score == reference_best(state)
    assert replay(state, solution.moves).score() == solution.score


# ------------------------------------------------------------------------------------------------ properties

layouts = st.lists(st.sampled_from("kkkkaay.."), min_size=15, max_size=15).map(
    lambda cells: "".join(c if c != "y" or cells.index("y") == i else "k" for i, c in enumerate(cells)))


@settings(max_examples=60, deadline=None)
@given(text=layouts, choices=st.lists(st.integers(0, 50), max_size=30))
def test_random_legal_play_keeps_invariants(text, choices):
    state = board(text)
    you = state.count("you")
    for choice in choices:
        moves = state.legal_moves()
        if not moves:
            assert state.is_over()
            break
        move = moves[choice % len(moves)]
        assert Move.parse(str(move)) == move
        after = state.apply(move)
        pieces_before = 15 - state.board.count(".")
        pieces_after = 15 - after.board.count(".")
        assert pieces_after == pieces_before - (1 if move.kind == "jump" else 0)
        assert after.count("you") == you  # you are never bounced
        assert after.count("kid") <= state.count("kid") and after.count("adult") <= state.count("adult")
        assert after.score() <= state.score()
        assert after.last_walker == (move.to if move.kind == "walk" else None)
        assert explain(state, after).moves == (move,)
        assert State.from_layout(**after.to_layout()) == after
        state = after


def test_explain_reasons():
    state = board("a k. ... .... .....")
    assert explain(state, state.apply("jump 1-4")).moves == (Move("jump", 1, 4),)
    assert "more kids" in explain(state, board("a kk ... .... .....")).reason
    assert not explain(state, board(". .. ... .... ....a")).legal
    assert explain(state, state).unchanged
    walked = state.apply("walk 1-3")
    assert not explain(state, State.from_layout(walked.board)).legal  # who walked last is part of the state
    assert explain(state, State.from_layout(walked.board), observed=True).moves == (Move("walk", 1, 3),)
