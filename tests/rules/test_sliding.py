"""The general sliding-puzzle solver: optimality on small boards against plain searches written here, quality on
published 24-puzzle instances, interchangeable tiles, and clear errors."""

from __future__ import annotations

import heapq
import random
from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import sliding
from rules.base import LayoutError, RulesError
from rules.sliding import (
    Unsolvable,
    apply_moves,
    is_solvable,
    manhattan,
    slide_cells,
    solve,
    solve_to_targets,
)

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "korf_felner_24puzzle.txt"


def goal_board(width: int) -> tuple[int, ...]:
    return tuple(range(1, width * width)) + (0,)


def neighbours(board: tuple[int, ...], width: int):
    """(tile moved, next board) for each slide: the plain reference the solver is checked against."""
    hole = board.index(0)
    r, c = divmod(hole, width)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < width and 0 <= cc < width:
            q = rr * width + cc
            nxt = list(board)
            nxt[hole], nxt[q] = nxt[q], 0
            yield board[q], tuple(nxt)


def random_walk(width: int, steps: int, seed: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    board = goal_board(width)
    previous = None
    for _ in range(steps):
        options = [b for _, b in neighbours(board, width) if b != previous]
        previous, board = board, rng.choice(options)
    return board


@pytest.fixture(scope="module")
def eight_puzzle_distances() -> dict[tuple[int, ...], int]:
    """Breadth-first search over all 181,440 reachable 3x3 boards."""
    goal = goal_board(3)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        board = queue.popleft()
        for _, nxt in neighbours(board, 3):
            if nxt not in dist:
                dist[nxt] = dist[board] + 1
                queue.append(nxt)
    return dist


def astar_length(start: tuple[int, ...], goal: tuple[int, ...], width: int) -> int:
    """Plain A* with Manhattan distance (an independent optimal reference for 4x4)."""
    h0 = manhattan(start, goal, width)
    frontier = [(h0, 0, start)]
    best = {start: 0}
    while frontier:
        f, g, board = heapq.heappop(frontier)
        if board == goal:
            return g
        if g > best.get(board, 1 << 30):
            continue
        for _, nxt in neighbours(board, width):
            if g + 1 < best.get(nxt, 1 << 30):
                best[nxt] = g + 1
                heapq.heappush(frontier, (g + 1 + manhattan(nxt, goal, width), g + 1, nxt))
    raise AssertionError("unreachable")


def test_tiny_example_from_the_docstring():
    assert solve([1, 2, 3, 4, 0, 5, 7, 8, 6], [1, 2, 3, 4, 5, 6, 7, 8, 0], 3) == [5, 6]
    assert solve(goal_board(3), goal_board(3), 3) == []


def test_eight_puzzle_solutions_are_optimal(eight_puzzle_distances):
    rng = random.Random(7)
    boards = rng.sample(sorted(eight_puzzle_distances), 40)
    boards.append(max(eight_puzzle_distances, key=eight_puzzle_distances.get))  # a hardest board: 31 moves
    for board in boards:
        for optimal in (True, False):
            moves = solve(board, goal_board(3), 3, optimal=optimal)
            assert tuple(apply_moves(board, moves, 3)) == goal_board(3)
            assert len(moves) == eight_puzzle_distances[board]
    assert eight_puzzle_distances[boards[-1]] == 31


def test_fifteen_puzzle_optimal_against_plain_astar():
    for seed in range(3):
        board = random_walk(4, 36, seed)
        moves = solve(board, goal_board(4), 4, optimal=True)
        assert tuple(apply_moves(board, moves, 4)) == goal_board(4)
        assert len(moves) == astar_length(board, goal_board(4), 4)


def load_instances() -> list[tuple[int, int, list[int]]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            number, optimum, *cells = (int(x) for x in line.split())
            rows.append((number, optimum, cells))
    return rows


def test_published_instances_file_is_consistent():
    rows = load_instances()
    assert [n for n, _, _ in rows] == list(range(1, 51))
    goal = list(range(25))
    for _, optimum, cells in rows:
        assert sorted(cells) == goal
        assert is_solvable(cells, goal, 5)
        # The optimum is at least the Manhattan distance and has its parity.
        md = manhattan(cells, goal, 5)
        assert md <= optimum and (optimum - md) % 2 == 0


@pytest.mark.parametrize("number", [25, 40])
def test_twenty_four_puzzle_near_optimal(number):
    _, optimum, cells = load_instances()[number - 1]
    goal = list(range(25))
    moves = solve(cells, goal, 5)
    assert apply_moves(cells, moves, 5) == goal
    assert len(moves) >= optimum and (len(moves) - optimum) % 2 == 0
    assert len(moves) <= 1.25 * optimum


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 40), width=st.sampled_from([3, 4, 5]))
def test_random_walks_are_undone(seed, steps, width):
    board = random_walk(width, steps, seed)
    goal = goal_board(width)
    moves = solve(board, goal, width)
    assert tuple(apply_moves(board, moves, width)) == goal
    assert len(moves) % 2 == steps % 2
    if width <= 4:
        assert len(moves) <= steps  # optimal on small boards


def test_interchangeable_tiles_and_free_hole():
    # Easy Slider's bottom row in miniature: three 9s may end anywhere in the bottom row, the hole too.
    start = [9, 1, 2, 3, 9, 4, 5, 0, 9]
    targets = {1: {0}, 2: {1}, 3: {2}, 4: {3}, 5: {4}, 9: {4, 6, 7, 8}}
    with pytest.raises(LayoutError, match="same target cell"):
        solve_to_targets(start, targets, 3)
    targets = {1: {0}, 2: {1}, 3: {2}, 4: {3}, 5: {4}, 9: {5, 6, 7, 8}}
    moves = solve_to_targets(start, targets, 3)
    end = slide_cells(start, moves, 3)
    assert end[:5] == [1, 2, 3, 4, 5]
    assert sorted(end[5:]) == [0, 9, 9, 9]
    # Equal numbers in a goal are interchangeable: a board one swap of two equal tiles away is already solved.
    assert solve([1, 1, 2, 3, 4, 5, 6, 7, 0], [1, 1, 2, 3, 4, 5, 6, 7, 0], 3) == []
    # A swap of two equal tiles fixes the parity, so this is solvable although it would not be with distinct tiles.
    assert not is_solvable([2, 1, 3, 4, 5, 6, 7, 8, 0], [1, 2, 3, 4, 5, 6, 7, 8, 0], 3)
    assert is_solvable([1, 1, 3, 4, 5, 6, 7, 8, 0], [1, 1, 3, 4, 5, 6, 7, 8, 0], 3)


def test_unsolvable_and_malformed_input_have_clear_errors():
    goal = list(goal_board(4))
    swapped = goal[:]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    with pytest.raises(Unsolvable, match="parity"):
        solve(swapped, goal, 4)
    assert issubclass(Unsolvable, RulesError)
    cases = [
        (goal[:-1], goal, 4, "15 cells"),
        ([0] + goal[1:], goal, 4, "exactly one hole"),
        (goal[:-1] + [16], goal, 4, "exactly one hole"),
        (goal, goal, 9, "width"),
        (goal, goal, 1, "width"),
        ([99] + goal[1:-1] + [0], goal, 4, "same tiles"),
        (["a"] * 16, goal, 4, "tile numbers"),
    ]
    for start, target, width, message in cases:
        with pytest.raises(LayoutError, match=message):
            solve(start, target, width)
    with pytest.raises(LayoutError, match="not next to the hole"):
        apply_moves(goal, [1], 4)
    with pytest.raises(LayoutError, match="cell 0 is not next to the hole"):
        slide_cells(goal, [0], 4)


def test_optimal_search_reports_its_budget():
    board = random_walk(4, 80, 3)
    with pytest.raises(sliding.SearchLimit, match="budget"):
        solve(board, goal_board(4), 4, optimal=True, max_nodes=10)
