"""Epic Funhouse, room 1 (Game Ace): Slide Jam.

All 24 tiles lie face up in a grid 4 wide by 6 high. The player removes "families": three touching tiles
(orthogonally or diagonally) whose ranks run in sequence null, ace, 2, 3, 4, 5, wrapping from 5 to null.
After each removal every remaining tile slides in one chosen direction (up, down, left or right) as far as
it can inside the original 4x6 rectangle. Each family goes whole onto one of two stacks. The game ends when
no family can be removed; the score is the sum of the tiles left (null 0, ace 1; perfect is 0).

Board coordinates follow PPN: columns ``a``-``d`` from the left, rows ``1``-``6`` from the BOTTOM, so the top-left
cell is ``a6`` and reading order (left to right, top to bottom) is a6 b6 c6 d6 a5 ... d1.

Move text: ``a1b2c3>1 U`` = remove the tiles on a1, b2 and c3, put them on stack 1, then slide up
(``U``/``D``/``L``/``R``; parsing also accepts ``N``/``S``/``W``/``E`` and the words). ``str(move)`` parses back to
the same move.

Decisions where the seed's wording leaves room (tested in tests/rules/epic_funhouse/test_slide_jam.py):

* **A family** is a set of three tiles with three consecutive ranks (wrapping: 4-5-null and 5-null-ace are
  families) where the MIDDLE rank touches both others (a Boggle path; "sequences can run in any direction",
  so the path may be read upwards or downwards, and the two end tiles need not touch each other).
* **Sliding** is cell by cell: every tile moves as far as it can in the chosen direction, stopping at the edge
  of the 4x6 rectangle or against another tile. In grid terms each column (up/down) or row (left/right) is
  packed against that edge, keeping its order. This is the seed's "be sure you've moved all the tiles as far
  as they can go", and it slides a board that broke into pieces piecewise without a special case: the pieces
  are simply packed too. A direction that moves nothing is legal.
* **Stacks** are tuples listed TOP FIRST. The three tiles of a family go onto the chosen stack in the order
  the move names them: the first named goes on first (lowest), the last named ends on top. That order
  matters to the next room (Magic Mirror lays the stacks out from the top), so moves that name the same
  family in a different order are different moves, and :meth:`State.legal_moves` lists all six orders.
* **"The two stacks must contain an equal number of tiles"** is NOT a constraint on moves: the player cannot
  know in advance when the board jams, and the seed's Transition evens the stacks anyway. Either stack is
  always legal; :func:`transition` evens them; the stacks never change the score.
* **Impossible layouts** (``LayoutError``): a grid that is not 4x6, a tile twice, a stack
  whose height is not a multiple of three, or a stack whose tiles, taken three at a time from the bottom,
  are not three ranks in sequence (families are stacked whole). Any arrangement of tiles on the board is
  accepted, including boards with holes, so a half-played table can be taken up.

Hand-over (:func:`transition`): :class:`SlideJamStacks` ``(first, second)``, two tuples of tiles, TOP FIRST,
12 each after a full game. The Transition puts the tiles left on the board, picked up in reading order, one
by one on top of the shorter stack (stack 1 when they are equal), then lifts the excess off the top of the
taller stack as one block and sets it on the shorter one, keeping its order, so the heights are equal (when
the total is odd, which only a partial layout allows, the taller stack keeps one more). Magic Mirror's
``State.from_stacks(first, second)`` takes these directly.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.epic_funhouse.common import (
    ALL_TILES,
    EMPTY,
    cell_name,
    check_distinct,
    parse_cells,
    parse_tile,
    read_tile_grid,
    tile_code,
)
from rules.pieces import Tile

__all__ = [
    "WIDTH",
    "HEIGHT",
    "Slide",
    "Move",
    "State",
    "SlideJamStacks",
    "family_problem",
    "transition",
    "explain",
    "best_line",
]

WIDTH = 4
HEIGHT = 6

Cell = tuple[int, int]  # (column from the left, row from the top), both 0-based
Board = tuple[tuple[Tile | None, ...], ...]


class Slide(StrEnum):
    """The direction every tile slides after a family is removed."""

    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"

    @property
    def letter(self) -> str:
        return self.value[0].upper()

    @classmethod
    def parse(cls, text: str) -> Slide:
        """``U``/``D``/``L``/``R``, ``N``/``S``/``W``/``E``, or the words (any case)."""
        try:
            return _SLIDE_WORDS[str(text).strip().lower()]
        except KeyError:
            raise RulesError(f"unknown slide direction {text!r}: use U, D, L or R (up, down, left, right)") from None


_SLIDE_WORDS = {
    "u": Slide.UP, "up": Slide.UP, "n": Slide.UP, "north": Slide.UP,
    "d": Slide.DOWN, "down": Slide.DOWN, "s": Slide.DOWN, "south": Slide.DOWN,
    "l": Slide.LEFT, "left": Slide.LEFT, "w": Slide.LEFT, "west": Slide.LEFT,
    "r": Slide.RIGHT, "right": Slide.RIGHT, "e": Slide.RIGHT, "east": Slide.RIGHT,
}


def _name(cell: Cell) -> str:
    return cell_name(cell[0], cell[1], HEIGHT)


@dataclass(frozen=True)
class Move:
    """Remove the family on ``cells`` (in stacking order), put it on stack ``stack`` (1 or 2), then slide.

    ``str(Move(((0, 5), (1, 4), (2, 3)), 1, Slide.UP)) == "a1b2c3>1 U"``.
    """

    cells: tuple[Cell, Cell, Cell]
    stack: int
    slide: Slide

    def __post_init__(self) -> None:
        cells = tuple(tuple(c) for c in self.cells)
        if len(cells) != 3:
            raise RulesError(f"a family is three tiles, but the move names {len(cells)} cells")
        object.__setattr__(self, "cells", cells)
        if self.stack not in (1, 2):
            raise RulesError(f"there are two stacks, 1 and 2; there is no stack {self.stack!r}")
        if not isinstance(self.slide, Slide):
            object.__setattr__(self, "slide", Slide.parse(self.slide))

    def __str__(self) -> str:
        return f"{''.join(_name(c) for c in self.cells)}>{self.stack} {self.slide.letter}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``a1b2c3>1 U`` (spaces optional: ``a1 b2 c3 > 2 left`` also works)."""
        cells_part, sep, rest = str(text).partition(">")
        parts = rest.split()
        if not sep or not parts:
            raise RulesError(f"cannot read move {text!r}: write it like a1b2c3>1 U (cells, stack 1 or 2, slide)")
        if len(parts) == 1 and len(parts[0]) >= 2 and parts[0][0] in "12":
            parts = [parts[0][0], parts[0][1:]]
        if len(parts) != 2 or parts[0] not in ("1", "2"):
            raise RulesError(f"cannot read move {text!r}: after '>' give the stack (1 or 2) and a slide (U, D, L, R)")
        return cls(parse_cells(cells_part, WIDTH, HEIGHT), int(parts[0]), Slide.parse(parts[1]))


def _rank_chain(ranks: Sequence[int]) -> int | None:
    """The middle rank when ``ranks`` are three consecutive ranks (wrapping 5 -> null), else None."""
    rs = set(ranks)
    if len(rs) != 3:
        return None
    for r in rs:
        if {r, (r + 1) % 6, (r + 2) % 6} == rs:
            return (r + 1) % 6
    return None


def _touch(a: Cell, b: Cell) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def family_problem(placed: Sequence[tuple[Cell, Tile]]) -> str | None:
    """None when the three (cell, tile) pairs form a family, else a sentence saying why not."""
    tiles = [t for _, t in placed]
    middle_rank = _rank_chain([t.rank for t in tiles])
    if middle_rank is None:
        listed = ", ".join(str(t) for t in tiles)
        return (f"{listed} are not three ranks in a row: a family runs null, ace, 2, 3, 4, 5 "
                "(wrapping from 5 to null)")
    middle_cell, middle = next((c, t) for c, t in placed if t.rank == middle_rank)
    for cell, tile in placed:
        if tile is not middle and not _touch(cell, middle_cell):
            return (f"the {tile} on {_name(cell)} does not touch the {middle} on {_name(middle_cell)}: "
                    "the middle tile of a family must touch the other two (sideways or diagonally)")
    return None


def _slide(board: Board, slide: Slide) -> Board:
    # Packing each line against the chosen edge is exactly "every tile moves as far as it can".
    grid = [list(row) for row in board]
    if slide in (Slide.LEFT, Slide.RIGHT):
        for row in grid:
            tiles = [t for t in row if t is not None]
            gap = [None] * (WIDTH - len(tiles))
            row[:] = tiles + gap if slide is Slide.LEFT else gap + tiles
    else:
        for col in range(WIDTH):
            tiles = [grid[r][col] for r in range(HEIGHT) if grid[r][col] is not None]
            gap = [None] * (HEIGHT - len(tiles))
            column = tiles + gap if slide is Slide.UP else gap + tiles
            for r in range(HEIGHT):
                grid[r][col] = column[r]
    return tuple(tuple(row) for row in grid)


class SlideJamStacks(NamedTuple):
    """Slide Jam's hand-over to Magic Mirror: two stacks of tiles, each listed TOP FIRST (12 each)."""

    first: tuple[Tile, ...]
    second: tuple[Tile, ...]


@dataclass(frozen=True)
class State:
    """A Slide Jam position: the 4x6 board (rows top first, ``None`` = empty) and the two stacks (top first)."""

    board: Board
    stacks: tuple[tuple[Tile, ...], tuple[Tile, ...]] = ((), ())

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_layout(cls, board: Sequence[str | Sequence[Tile | str | None]] | str,
                    stacks: Sequence[Sequence[Tile | str]] = ((), ())) -> State:
        """Any position: ``board`` is 6 rows (top first) of 4 tiles/codes/``None``, or strings like
        ``"S3 Mn . C5"``; ``stacks`` two sequences of tiles, top first. Impossible positions raise
        :class:`LayoutError` with a sentence saying why."""
        grid = read_tile_grid(board, WIDTH, HEIGHT, "the Slide Jam board")
        if len(stacks) != 2:
            raise LayoutError(f"Slide Jam has two stacks, not {len(stacks)}")
        try:
            piles = tuple(tuple(parse_tile(t) for t in pile) for pile in stacks)
        except (RulesError, ValueError) as err:
            raise LayoutError(f"a stack: {err}") from None
        on_board = [t for row in grid for t in row if t is not None]
        check_distinct(on_board + [t for p in piles for t in p], "the Slide Jam board and stacks")
        for number, pile in enumerate(piles, start=1):
            if len(pile) % 3:
                raise LayoutError(f"stack {number} holds {len(pile)} tiles: families of three go on whole, "
                                  "so a stack's height is a multiple of three")
            bottom_up = pile[::-1]
            for i in range(0, len(bottom_up), 3):
                group = bottom_up[i:i + 3]
                if _rank_chain([t.rank for t in group]) is None:
                    listed = ", ".join(str(t) for t in group)
                    raise LayoutError(f"stack {number} holds {listed} together (tiles {i + 1}-{i + 3} from the "
                                      "bottom), which is not a family of three ranks in a row")
        return cls(grid, piles)  # type: ignore[arg-type]

    @classmethod
    def from_tiles(cls, tiles: Sequence[Tile | str]) -> State:
        """The opening position from 24 tiles listed in reading order (a6 b6 c6 d6 a5 ... d1)."""
        if len(tiles) != WIDTH * HEIGHT:
            raise LayoutError(f"Slide Jam starts with {WIDTH * HEIGHT} tiles, not {len(tiles)}")
        rows = [list(tiles[r * WIDTH:(r + 1) * WIDTH]) for r in range(HEIGHT)]
        return cls.from_layout(rows)

    @classmethod
    def deal(cls, rng: random.Random | None = None) -> State:
        """A random opening layout of the whole piecepack (the seed's face-down shuffle)."""
        tiles = list(ALL_TILES)
        (rng or random.Random()).shuffle(tiles)
        return cls.from_tiles(tiles)

    def to_layout(self) -> dict:
        """Plain JSON-ready data (tile codes) with ``State.from_layout(**state.to_layout()) == state``."""
        return {"board": [" ".join(tile_code(t) if t else EMPTY for t in row) for row in self.board],
                "stacks": [[tile_code(t) for t in pile] for pile in self.stacks]}

    # ----------------------------------------------------------------- queries
    def tile_at(self, cell: Cell) -> Tile | None:
        col, row = cell
        return self.board[row][col]

    def placed(self) -> Iterator[tuple[Cell, Tile]]:
        """Every (cell, tile) on the board in reading order."""
        for r, row in enumerate(self.board):
            for c, tile in enumerate(row):
                if tile is not None:
                    yield (c, r), tile

    def tiles_left(self) -> int:
        return sum(1 for _ in self.placed())

    def families(self) -> list[tuple[Cell, Cell, Cell]]:
        """Every removable family once, its cells in rising rank order (e.g. null, ace, 2; or 4, 5, null)."""
        found = []
        where = dict(self.placed())
        for middle, tile in where.items():
            lows, highs = [], []
            for dc, dr in itertools.product((-1, 0, 1), repeat=2):
                cell = (middle[0] + dc, middle[1] + dr)
                other = where.get(cell)
                if other is None or cell == middle:
                    continue
                if other.rank == (tile.rank - 1) % 6:
                    lows.append(cell)
                elif other.rank == (tile.rank + 1) % 6:
                    highs.append(cell)
            found.extend((low, middle, high) for low in lows for high in highs)
        return sorted(found, key=lambda f: tuple(reversed(f[1])) + tuple(reversed(f[0])) + tuple(reversed(f[2])))

    def legal_moves(self) -> list[Move]:
        """Every legal move: each family in each of its six stacking orders, onto either stack, any slide."""
        return [Move(order, stack, slide)
                for family in self.families()
                for order in itertools.permutations(family)
                for stack in (1, 2)
                for slide in Slide]

    def is_over(self) -> bool:
        """True when no family can be removed (the slide is jammed for good)."""
        return not self.families()

    def score(self) -> int:
        """Sum of the tiles left on the board (null 0, ace 1); 0 is perfect."""
        return sum(t.rank for _, t in self.placed())

    # ----------------------------------------------------------------- play
    def apply(self, move: Move | str) -> State:
        """The position after ``move``; :class:`IllegalMove` with the reason when the rules forbid it."""
        if isinstance(move, str):
            move = Move.parse(move)
        if not isinstance(move, Move):
            raise IllegalMove(f"{move!r} is not a Slide Jam move", move)
        if len(set(move.cells)) != 3:
            raise IllegalMove("a family is three different tiles: a cell is named twice", move)
        placed = []
        for cell in move.cells:
            tile = self.tile_at(cell)
            if tile is None:
                raise IllegalMove(f"there is no tile on {_name(cell)}", move)
            placed.append((cell, tile))
        problem = family_problem(placed)
        if problem is not None:
            raise IllegalMove(problem, move)
        grid = [list(row) for row in self.board]
        for col, row in move.cells:
            grid[row][col] = None
        board = _slide(tuple(tuple(r) for r in grid), move.slide)
        family_top_first = tuple(t for _, t in reversed(placed))
        stacks = list(self.stacks)
        stacks[move.stack - 1] = family_top_first + stacks[move.stack - 1]
        return State(board, (stacks[0], stacks[1]))

    def successors(self) -> Iterator[tuple[Move, State]]:
        for move in self.legal_moves():
            yield move, self.apply(move)

    # ----------------------------------------------------------------- display
    def render(self) -> str:
        """The board as text (columns a-d, row 6 on top), the stacks (top first) and the score so far."""
        lines = ["    " + "   ".join(chr(ord("a") + c) for c in range(WIDTH))]
        for r, row in enumerate(self.board):
            cells = "  ".join(tile_code(t) if t else EMPTY + " " for t in row)
            lines.append(f"{HEIGHT - r}   {cells}".rstrip())
        for number, pile in enumerate(self.stacks, start=1):
            shown = " ".join(tile_code(t) for t in pile) or "(empty)"
            lines.append(f"stack {number} ({len(pile)}, top first): {shown}")
        state = "jammed" if self.is_over() else f"{len(self.families())} families removable"
        lines.append(f"score {self.score()} ({self.tiles_left()} tiles left, {state})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def transition(state: State) -> SlideJamStacks:
    """The seed's Transition: two stacks of equal height (12 and 12 after a whole game), top first.

    Leftover tiles are picked up in reading order, each placed on top of the shorter stack (stack 1 when both
    are equal), so the last one picked ends on top; then the excess of the taller stack is lifted off its top
    as one block and set on the shorter stack in the same order.
    """
    first, second = list(state.stacks[0]), list(state.stacks[1])
    shorter = first if len(first) <= len(second) else second
    for _, tile in state.placed():
        shorter.insert(0, tile)
    taller, shorter = (first, second) if len(first) >= len(second) else (second, first)
    excess = (len(taller) - len(shorter)) // 2
    block, rest = taller[:excess], taller[excess:]
    taller[:] = rest
    shorter[:0] = block
    return SlideJamStacks(tuple(first), tuple(second))


def explain(before: State, after: State) -> Explanation:
    """The move(s) that turn ``before`` into ``after``, or the reason no legal play does.

    Tiles are unique, so the tiles that left the board say which families were taken; a short search over
    those families (in every stacking order, onto either stack, every slide) then finds the exact moves.
    """
    if before == after:
        return Explanation()
    was = {t for _, t in before.placed()}
    now = {t for _, t in after.placed()}
    appeared = now - was
    if appeared:
        listed = ", ".join(str(t) for t in sorted(appeared))
        return Explanation(reason=f"the {listed} appeared on the board: tiles only ever leave it")
    gone = was - now
    if not gone:
        return Explanation(reason="tiles moved but no family left the board: tiles slide only after a family "
                                  "is removed")
    if len(gone) % 3:
        listed = ", ".join(str(t) for t in sorted(gone))
        return Explanation(reason=f"{len(gone)} tiles left the board ({listed}): families leave three at a time")
    if len(gone) > 6:
        return Explanation(reason=f"{len(gone)} tiles left the board at once: too many moves to tell them apart")

    def successors(state: State) -> Iterator[tuple[Move, State]]:
        for family in state.families():
            if all(state.tile_at(c) in gone for c in family):
                for order in itertools.permutations(family):
                    for stack in (1, 2):
                        for slide in Slide:
                            move = Move(order, stack, slide)
                            yield move, state.apply(move)

    moves = search_moves(before, after, successors, max_moves=len(gone) // 3)
    if moves is not None:
        return Explanation(tuple(moves))
    if len(gone) == 3:
        placed = [(c, t) for c, t in before.placed() if t in gone]
        problem = family_problem(placed)
        if problem is not None:
            return Explanation(reason=problem)
        grew = [len(a) - len(b) for a, b in zip(after.stacks, before.stacks, strict=True)]
        if sorted(grew) != [0, 3] or not any(
                set(a[:3]) == gone and a[3:] == b for a, b in zip(after.stacks, before.stacks, strict=True)):
            return Explanation(reason="the family must go whole on top of one of the two stacks")
        return Explanation(reason="the tiles left on the board did not slide as far as they can in one direction")
    return Explanation(reason="no sequence of families, stacks and slides turns the first position into the second")


def best_line(state: State, max_nodes: int = 20_000) -> tuple[int, tuple[Move, ...]]:
    """A strong line of play found by a bounded depth-first search: (final score, moves).

    The score depends only on the board, so the search tries each family once (rising order) with every
    slide, alternating the stacks to keep them even, and remembers boards it has solved. With the node budget
    exhausted it returns the best line found so far, so the answer is a hint, not a proof of the optimum.
    """
    memo: dict[Board, tuple[int, tuple[tuple[Cell, Cell, Cell, Slide], ...]]] = {}
    nodes = 0

    def solve(board_state: State) -> tuple[int, tuple[tuple[Cell, Cell, Cell, Slide], ...]]:
        nonlocal nodes
        known = memo.get(board_state.board)
        if known is not None:
            return known
        best: tuple[int, tuple] = (board_state.score(), ())
        nodes += 1
        if nodes <= max_nodes:
            for family in board_state.families():
                for slide in Slide:
                    nxt = board_state.apply(Move(family, 1, slide))
                    score, line = solve(State(nxt.board))
                    if score < best[0]:
                        best = (score, ((*family, slide),) + line)
                        if score == 0:
                            break
                if best[0] == 0:
                    break
        memo[board_state.board] = best
        return best

    score, line = solve(State(state.board))
    moves, current = [], state
    for a, b, c, slide in line:
        stack = 1 if len(current.stacks[0]) <= len(current.stacks[1]) else 2
        move = Move((a, b, c), stack, slide)
        moves.append(move)
        current = current.apply(move)
    return score, tuple(moves)
