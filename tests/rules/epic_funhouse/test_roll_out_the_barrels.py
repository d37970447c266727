"""Roll Out the Barrels (Epic Funhouse room 4) and the die model: the seed's examples, decisions, properties."""

import json
import random
from collections import Counter, deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.epic_funhouse.die import COUNTER, OPPOSITES_SUM_TO_5, Die, Direction, arrangement_named
from rules.epic_funhouse.roll_out_the_barrels import (
    EXIT,
    START,
    Move,
    State,
    build_maze,
    cell_name,
    conflicts,
    exit_path,
    explain,
    parse_cell,
    settle_maze,
    solve,
)

ALL_VALUES = [v for v in range(6) for _ in range(4)]
#: A clean maze (no equal neighbours), rows top first.
MAZE = [
    [2, 5, 1, 5],
    [3, 4, 0, 1],
    [0, 2, 3, 4],
    [1, 0, 5, 2],
    [4, 3, 1, 0],
    [2, 5, 4, 3],
]


def flat(rows):
    return [v for r in rows for v in r]


def pool_without(*placed):
    left = Counter(ALL_VALUES)
    left.subtract(Counter(placed))
    return list(left.elements())


# ------------------------------------------------------------------------------------------------ the die


@pytest.mark.parametrize("arrangement", [COUNTER, OPPOSITES_SUM_TO_5])
def test_a_die_rests_24_ways_and_tips_like_a_cube(arrangement):
    poses = arrangement.orientations()
    assert len(poses) == 24 and len(set(poses)) == 24
    for die in poses:
        # opposite faces stay opposite whatever the pose
        assert arrangement.opposite(die.top) == die.bottom
        assert arrangement.opposite(die.north) == die.south
        assert arrangement.opposite(die.east) == die.west
        for d in Direction:
            assert die.tipped(d).tipped(d.opposite) == die
            four = die
            for _ in range(4):
                four = four.tipped(d)
            assert four == die
        # tipping north puts the top face to the north and brings the south face up
        assert die.tipped("north").north == die.top and die.tipped("north").top == die.south
        assert die.tipped("east").east == die.top and die.tipped("east").top == die.west


def test_piecepackr_default_die_arrangement():
    # piecepackr's default ("counter_down"): null on top shows ace east and 2 north; null/3, ace/4, 2/5 opposite
    ref = COUNTER.reference
    assert (ref.top, ref.east, ref.north, ref.bottom, ref.west, ref.south) == (0, 1, 2, 3, 4, 5)
    assert {frozenset((r, COUNTER.opposite(r))) for r in range(6)} == {frozenset(p) for p in ((0, 3), (1, 4), (2, 5))}
    assert all(r + OPPOSITES_SUM_TO_5.opposite(r) == 5 for r in range(6))
    # the two arrangements are different dice: same top and north, different east for some pose
    assert COUNTER.orient(3, 1).east != OPPOSITES_SUM_TO_5.orient(3, 1).east
    assert arrangement_named("counter_down") is COUNTER
    with pytest.raises(RulesError, match="unknown die arrangement"):
        arrangement_named("d20")


def test_die_pose_text_and_impossible_poses():
    die = COUNTER.orient(5, 4)
    assert Die.parse(str(die)) == die
    assert Die.parse("t=5 n=4") == die
    with pytest.raises(LayoutError, match="opposite faces"):
        COUNTER.orient(0, 3)  # null and 3 are opposite on this die
    wrong_east = f"top=5 north=4 east={'null' if die.east != 0 else 'ace'}"
    with pytest.raises(LayoutError, match="shows"):
        Die.parse(wrong_east)
    with pytest.raises(RulesError, match="cannot read die pose"):
        Die.parse("five up")
    mirror = Die(top=0, bottom=3, north=2, south=5, east=4, west=1)  # the mirror image of the reference die
    with pytest.raises(LayoutError, match="cannot exist"):
        COUNTER.check(mirror)


# ------------------------------------------------------------------------------------------------ set-up


def test_figure_6_scoreboard_lies_as_placed_with_nulls_south_and_east_of_the_start():
    # Figure 6: a 5 off a null tile, a 4 off a null tile, a null off a 3 tile
    board = [(5, 0), (4, 0), (0, 3)]
    built = build_maze(board, pool_without(5, 0, 4, 0, 0, 3), seed=7)
    assert built.laid[:6] == (5, 0, 4, 0, 0, 3)
    assert built.laid[6:] == built.drawn and len(built.drawn) == 18
    assert Counter(built.grid) == Counter(ALL_VALUES)
    laid = State.new(built.laid)
    # the Strategy section: a wild coin east (b6) and south (a5) of the start, so every start pose can move
    assert laid.grid[parse_cell("b6")] == 0 and laid.grid[parse_cell("a5")] == 0
    for move in laid.legal_moves():
        started = laid.apply(move)
        assert {m.direction for m in started.legal_moves()} >= {Direction.EAST, Direction.SOUTH}


def test_draws_are_seeded_and_reproducible():
    pool = pool_without(1, 2)
    a = build_maze([(1, 2)], pool, seed=3)
    assert a == build_maze([(1, 2)], pool, seed=3)
    assert any(build_maze([(1, 2)], pool, seed=s).drawn != a.drawn for s in range(4, 10))
    # a generator is used as it is: the draw continues its sequence
    rng = random.Random(3)
    assert build_maze([(1, 2)], pool, seed=rng) == a and rng.getstate() != random.Random(3).getstate()
    assert build_maze([(1, 2)], pool, seed=rng).drawn != a.drawn


def test_swap_procedure_takes_the_next_legal_coin():
    laid = flat([
        [5, 5, 1, 2],
        [3, 4, 0, 1],
        [0, 2, 3, 4],
        [1, 0, 5, 2],
        [4, 3, 1, 0],
        [2, 5, 4, 3],
    ])
    # a6 (5) clashes with b6 (5). b6 has the same value; c6 (1) would leave a 5 next to b6's 5; d6 (2) works.
    settled = settle_maze(laid)
    assert settled.swaps == ((0, 3),) and settled.passes == 2 and settled.clean
    assert settled.grid[:4] == (2, 5, 1, 5) and not conflicts(settled.grid)


def test_swap_procedure_scans_backwards_when_nothing_after_works():
    laid = flat([
        [3, 0, 4, 1],
        [1, 3, 1, 0],
        [2, 5, 0, 5],
        [5, 4, 1, 2],
        [4, 5, 3, 4],
        [3, 0, 2, 2],
    ])
    # c1 (2) clashes with d1 (2), the only coin after it, which has the same value: scan back, b1 (null) works
    settled = settle_maze(laid)
    assert settled.swaps == ((22, 21),) and settled.clean
    assert settled.grid[20:] == (3, 2, 0, 2)


def test_swap_procedure_reports_instead_of_looping():
    # a set with more coins per value than a piecepack: no swap can ever fix it
    stuck = settle_maze([3] * 24, coins_per_value=24)
    assert not stuck.clean and "no coin in the maze can be swapped" in stuck.problem
    # and a pass limit is honoured
    laid = flat([[5, 5, 1, 2], [3, 4, 0, 1], [0, 2, 3, 4], [1, 0, 5, 2], [4, 3, 1, 0], [2, 5, 4, 3]])
    limited = settle_maze(laid, max_passes=1)
    assert not limited.clean and "did not settle" in limited.problem


def test_swap_procedure_always_settles_a_real_piecepack():
    import random

    for seed in range(200):
        values = ALL_VALUES[:]
        random.Random(seed).shuffle(values)
        settled = settle_maze(values)
        assert settled.clean and not conflicts(settled.grid) and Counter(settled.grid) == Counter(values)


def test_set_up_errors_are_clear():
    with pytest.raises(LayoutError, match="at most 6 coin pairs"):
        build_maze([(1, 1)] * 7, [], seed=0)
    with pytest.raises(LayoutError, match="needs 22 more"):
        build_maze([(1, 2)], [0] * 4, seed=0)
    with pytest.raises(LayoutError, match="only 4 coins of value 5"):
        build_maze([(5, 5)], pool_without(1, 2), seed=0)
    with pytest.raises(LayoutError, match="each Catwalk scoreboard entry is a pair"):
        build_maze([(1, 2, 3)], pool_without(1, 2, 3), seed=0)


# ------------------------------------------------------------------------------------------------ rules


def test_figure_7_tip_onto_coins_showing_the_top_number():
    # Figure 7: the die can be tipped to the north or east (coins showing its top number), not south or west
    grid = flat([
        [1, 2, 4, 5],
        [2, 3, 5, 4],  # b5 = 3, north of the die
        [5, 3, 3, 1],  # the die on b4; a4 = 5 west, c4 = 3 east
        [0, 2, 0, 3],  # b3 = 2 south
        [4, 0, 1, 0],
        [1, 5, 4, 2],
    ])
    die = COUNTER.orient(3, 1)
    state = State.from_layout(grid, "b4", die)
    assert {m.direction for m in state.legal_moves()} == {Direction.NORTH, Direction.EAST}
    with pytest.raises(IllegalMove, match="shows 3 on top"):
        state.apply("tip south")
    assert state.apply("tip north").cell == parse_cell("b5")
    # null on top is wild
    wild = State.from_layout(grid, "b4", COUNTER.orient(0, 2))
    assert {m.direction for m in wild.legal_moves()} == set(Direction)
    # a null coin takes any die: put the null of c3 west of the die instead of the 5
    grid[parse_cell("a4")], grid[parse_cell("c3")] = 0, 5
    assert {m.direction for m in State.from_layout(grid, "b4", die).legal_moves()} == {
        Direction.NORTH, Direction.EAST, Direction.WEST}


def test_the_face_that_must_match_is_the_top_before_the_tip():
    grid = flat(MAZE)
    # on b6 with 2 on top: tipping east brings the west face up; let that face be c6's ace instead
    die = next(d for d in COUNTER.orientations() if d.top == 2 and d.west == grid[parse_cell("c6")])
    state = State.from_layout(grid, "b6", die)
    assert die.tipped("east").top == grid[parse_cell("c6")] == 1
    with pytest.raises(IllegalMove, match="shows 2 on top"):
        state.apply(Move.tip("east"))


def test_start_moves_and_game_flow():
    state = State.new(flat(MAZE))
    assert len(state.legal_moves()) == 24 and not state.is_over()
    with pytest.raises(IllegalMove, match="place the die on the start barrel"):
        state.apply("tip east")
    started = state.apply("start top=null north=2 east=ace")
    assert started.cell == START and started.die == COUNTER.reference
    with pytest.raises(IllegalMove, match="already in the maze"):
        started.apply(Move.start(COUNTER.reference))
    with pytest.raises(IllegalMove, match="no barrel north of a6"):
        started.apply("tip north")
    assert started.retry() == state


def test_backtracking_is_a_tip_by_the_same_rule():
    grid = flat(MAZE)
    grid_start = State.new(grid).apply(Move.start(COUNTER.orient(5, 3)))  # a6 (2) -> b6 is 5
    forward = grid_start.apply("tip east")
    assert forward.cell == parse_cell("b6")
    back_ok = forward.die.top == grid[START] or forward.die.top == 0
    if back_ok:
        assert forward.apply("tip west").cell == START
    else:
        with pytest.raises(IllegalMove):
            forward.apply("tip west")


def test_score_example_one_barrel_of_4_then_an_exit_of_3_scores_7():
    grid = flat(MAZE)
    grid[parse_cell("c1")], grid[parse_cell("d1")] = 4, 3
    state = State.from_layout(grid, "b1", COUNTER.reference)
    assert exit_path(grid, parse_cell("b1")) == ((parse_cell("c1"), EXIT), 7)
    assert state.score() == 7


def test_score_takes_the_cheapest_of_the_shortest_paths():
    grid = flat(MAZE)  # from c2: via d2 (null) then d1 (3) = 3, or via c1 (4) then d1 = 7
    assert exit_path(grid, parse_cell("c2")) == ((parse_cell("d2"), EXIT), 3)
    grid[parse_cell("d2")], grid[parse_cell("b2")] = grid[parse_cell("b2")], grid[parse_cell("d2")]
    assert exit_path(grid, parse_cell("c2")) == ((parse_cell("d2"), EXIT), 6)  # now 3 + 3 beats 4 + 3
    # the far corner: a longer path never counts, only shortest ones (9 steps)
    path, score = exit_path(grid, START)
    assert len(path) == 8 and score == sum(grid[i] for i in path)
    assert State.from_layout(grid, "d1", COUNTER.reference).score() == 0
    assert State.new(grid).score() == score  # before placing the die: scored from the start barrel


def test_layout_errors_are_clear():
    with pytest.raises(LayoutError, match="needs 24 coins"):
        State.new([1] * 23)
    with pytest.raises(LayoutError, match="only 4 coins of value 2"):
        State.new([2] * 5 + ALL_VALUES[5:])
    with pytest.raises(LayoutError, match="unknown cell"):
        State.from_layout(flat(MAZE), "e9", COUNTER.reference)
    with pytest.raises(LayoutError, match="both the die's cell and its pose"):
        State.from_layout(flat(MAZE), "a6")
    with pytest.raises(LayoutError, match="rows of the barrel maze"):
        State.new([[1, 2, 3]] * 6)
    with pytest.raises(LayoutError, match="rank must be"):
        State.new([7] + ALL_VALUES[1:])


def test_to_layout_round_trips_through_json():
    state = State.from_layout(MAZE, "c4", OPPOSITES_SUM_TO_5.orient(4, 5), arrangement="opposites_sum_to_5")
    data = json.loads(json.dumps(state.to_layout()))
    assert State.from_layout(**data) == state
    assert State.from_layout(**State.new(MAZE).to_layout()) == State.new(MAZE)


def test_render_shows_the_die_and_nulls():
    text = State.from_layout(MAZE, "c4", COUNTER.reference).render()
    assert "[3]" in text and " n " in text and "die on c4: top=null north=2 east=ace" in text
    assert text.splitlines()[0].split() == ["a", "b", "c", "d"]


def test_move_text_forms():
    assert str(Move.tip("N")) == "tip north" and Move.parse("tip north") == Move.parse("n") == Move.tip("north")
    with pytest.raises(RulesError, match="cannot read move"):
        Move.parse("roll over")
    with pytest.raises(RulesError, match="needs the die's pose"):
        Move.parse("start")


# ------------------------------------------------------------------------------------------------ solver


def reachable_states(state):
    """Every position reachable by legal moves (an independent breadth-first walk over State objects)."""
    seen = {state}
    todo = deque([state])
    while todo:
        s = todo.popleft()
        for _, nxt in s.successors():
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_solver_on_the_figure_6_maze_finds_a_way_and_the_best_start():
    built = build_maze([(5, 0), (4, 0), (0, 3)], pool_without(5, 0, 4, 0, 0, 3), seed=1)
    state = State.new(built.grid)
    solution = solve(state)
    end = state
    for move in solution.moves:
        end = end.apply(move)
    assert solution.reachable == end.won() and solution.score == end.score()
    winners = {s.die for s in reachable_states(state) if s.won()}
    assert bool(winners) == solution.reachable
    # every winning start pose really wins, and every pose that wins is listed
    for die in COUNTER.orientations():
        wins = any(s.won() for s in reachable_states(state.apply(Move.start(die))))
        assert wins == (die in solution.winning_starts)


def test_solver_when_the_exit_is_out_of_reach_stops_at_the_cheapest_place():
    grid = flat(MAZE)
    state = State.from_layout(grid, "a6", COUNTER.orient(1, 2))  # ace on top, no ace or null next to a6
    assert not state.legal_moves() and state.is_over()
    solution = solve(state)
    assert not solution.reachable and solution.moves == () and solution.score == state.score()


# ------------------------------------------------------------------------------------------------ properties

mazes = st.permutations(ALL_VALUES).map(lambda vals: settle_maze(vals).grid)


@settings(max_examples=40, deadline=None)
@given(grid=mazes, choices=st.lists(st.integers(0, 23), min_size=1, max_size=25),
       arrangement=st.sampled_from(["counter", "opposites_sum_to_5"]))
def test_random_legal_play_keeps_invariants(grid, choices, arrangement):
    state = State.new(grid, arrangement)
    arr = arrangement_named(arrangement)
    for choice in choices:
        moves = state.legal_moves()
        if not moves:
            assert state.is_over()
            break
        move = moves[choice % len(moves)]
        assert Move.parse(str(move), arrangement) == move
        after = state.apply(move)
        assert after.die in arr.orientations() and 0 <= after.cell < 24
        assert explain(state, after).moves == (move,)
        assert after.score() >= 0 and (after.score() == 0 or not after.won())
        assert hash(after) == hash(State.from_layout(**after.to_layout()))
        for d in Direction:
            if Move.tip(d) not in moves and after.cell is not None and state.cell is not None:
                with pytest.raises(IllegalMove):
                    state.apply(Move.tip(d))
        state = after


@settings(max_examples=25, deadline=None)
@given(grid=mazes)
def test_solver_agrees_with_exhaustive_play(grid):
    state = State.new(grid)
    solution = solve(state)
    reached = reachable_states(state)
    assert solution.reachable == any(s.won() for s in reached)
    assert solution.score == min(s.score() for s in reached if s.cell is not None)
    end = state
    for move in solution.moves:
        end = end.apply(move)
    assert end.score() == solution.score


def test_explain_says_why_when_no_tip_fits():
    start = State.new(MAZE).apply(Move.start(COUNTER.reference))
    far = State.from_layout(MAZE, "d1", COUNTER.reference)
    assert not explain(start, far).legal
    moved = State.new([MAZE[5], *MAZE[:5]])
    assert "barrels changed" in explain(start, moved.apply(Move.start(COUNTER.reference))).reason
    assert explain(start, start).unchanged
    # the camera sees the die's coin and top face only
    tipped = start.apply("tip east")
    top_only = State.from_layout(MAZE, "b6", next(d for d in COUNTER.orientations()
                                                 if d.top == tipped.die.top and d != tipped.die))
    assert not explain(start, top_only).legal
    assert explain(start, top_only, observed=True).moves == (Move.tip("east"),)
    assert "retry" in explain(tipped, State.from_layout(MAZE, "a6", COUNTER.orient(4, 5))).reason
    assert cell_name(EXIT) == "d1" and cell_name(START) == "a6"
