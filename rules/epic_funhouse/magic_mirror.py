"""Epic Funhouse, room 2 (Game Two): Magic Mirror.

The two stacks left by Slide Jam are laid out as two 4x3 grids, one above the other, with a gap between
them: the mirror. The player removes pairs of tiles that total 5 (null + 5, ace + 4, 2 + 3), one tile from each
side, each from the row next to the mirror (its "front row"); the two need not be opposite each other. After a
removal the column it came from slides toward the mirror. Pairs are scored by suit when the room ends:
Identical Twins (same suit) 0, Identical Cousins (Suns/Moons or Arms/Crowns) 1 per pair, Identical Distant
Relatives (any other two suits) 2 per pair, and the Identical Strangers left on the board 3 per pair.

Board coordinates: one 4-wide, 6-high board, PPN style (columns ``a``-``d`` from the left, rows from the bottom).
Rows 6, 5, 4 are the top grid (row 4 is its front row, next to the mirror); rows 3, 2, 1 the bottom grid (row 3
is its front row). In ``State.board`` the rows are listed top first (index 0 = row 6 ... index 5 = row 1).

Move text: ``b4c3`` = pick up the tiles on b4 and c3. The order matters only for the stack the pair goes on:
the first named tile goes on first, the second ends on top (``c3b4`` is the same pair stacked the other way).
``str(move)`` parses back to the same move.

Decisions where the seed leaves room:

* **Set-up** (:meth:`State.from_stacks`): the FIRST stack of Slide Jam's hand-over makes the top grid and the
  second the bottom grid (the seed lets the player choose; swap the arguments to choose the other way). Each
  stack is emptied from the top, laying tiles in reading order: the top grid fills a6 b6 c6 d6 a5 .. d4, the
  bottom grid a3 .. d3 a2 .. d1.
* **Where pairs go**: the stack a pair goes on is not a choice, it follows from the suits (Twins, Cousins or
  Distant Relatives), as the seed's Hint sorts them.
* **Strangers and unequal sides**: every pair takes one tile from each side and both sides start with 12, so
  the sides always hold the same number of tiles, and "three points for each tile on one side" is three per
  pair of strangers. A layout with unequal sides cannot arise in play and is refused (LayoutError) rather
  than scored by a guessed rule.
* **Impossible layouts** (LayoutError): not 6 rows of 4, a tile twice, a column with a gap between its tiles
  and the mirror (it would have slid), unequal sides, a removed-pair stack of odd height, or a pair in a stack
  (taken two at a time from the bottom) that does not total 5 or is on the wrong kinship's stack.

Hand-over (:func:`transition`): :class:`MirrorStacks` ``(twins, cousins, distant_relatives, strangers)``, four
tuples of tiles, each listed TOP FIRST. The Strangers are the tiles left on the board picked up in reading
order (a6 .. d1), each on top of the last, so the last one picked is on top. Catwalk lays these stacks out in
the order its player chooses, each from its top tile.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.epic_funhouse.common import (
    EMPTY,
    cell_name,
    check_distinct,
    parse_cells,
    parse_tile,
    read_tile_grid,
    tile_code,
)
from rules.pieces import Suit, Tile

__all__ = [
    "WIDTH",
    "SIDE_ROWS",
    "HEIGHT",
    "Relation",
    "relation",
    "Move",
    "State",
    "MirrorStacks",
    "transition",
    "explain",
]

WIDTH = 4
SIDE_ROWS = 3
HEIGHT = 2 * SIDE_ROWS
TOP_FRONT = SIDE_ROWS - 1  # row index of the top grid's front row (row 4)
BOTTOM_FRONT = SIDE_ROWS  # row index of the bottom grid's front row (row 3)

Cell = tuple[int, int]  # (column from the left, row index from the top), 0-based
Board = tuple[tuple[Tile | None, ...], ...]


class Relation(StrEnum):
    """How the two tiles of a pair are related, by suit, and what a pair of them scores."""

    TWINS = "twins"
    COUSINS = "cousins"
    DISTANT_RELATIVES = "distant relatives"
    STRANGERS = "strangers"

    @property
    def points_per_pair(self) -> int:
        return _POINTS[self]


_POINTS = {Relation.TWINS: 0, Relation.COUSINS: 1, Relation.DISTANT_RELATIVES: 2, Relation.STRANGERS: 3}
_COUSIN_SUITS = ({Suit.SUNS, Suit.MOONS}, {Suit.ARMS, Suit.CROWNS})
#: The three stacks that removed pairs go on, in State field order.
PAIR_STACKS = (Relation.TWINS, Relation.COUSINS, Relation.DISTANT_RELATIVES)


def relation(a: Tile, b: Tile) -> Relation:
    """Twins (same suit), Cousins (Suns/Moons or Arms/Crowns) or Distant Relatives (anything else)."""
    if a.suit is b.suit:
        return Relation.TWINS
    if {a.suit, b.suit} in _COUSIN_SUITS:
        return Relation.COUSINS
    return Relation.DISTANT_RELATIVES


def _name(cell: Cell) -> str:
    return cell_name(cell[0], cell[1], HEIGHT)


def _side(cell: Cell) -> str:
    return "top" if cell[1] < SIDE_ROWS else "bottom"


@dataclass(frozen=True)
class Move:
    """Pick up the tiles on ``first`` and ``second`` (one on each side's front row); ``first`` is stacked first."""

    first: Cell
    second: Cell

    def __post_init__(self) -> None:
        object.__setattr__(self, "first", tuple(self.first))
        object.__setattr__(self, "second", tuple(self.second))

    def __str__(self) -> str:
        return f"{_name(self.first)}{_name(self.second)}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``b4c3`` (or ``b4 c3``)."""
        cells = parse_cells(text, WIDTH, HEIGHT)
        if len(cells) != 2:
            raise RulesError(f"cannot read move {text!r}: name the two tiles of a pair, like b4c3")
        return cls(cells[0], cells[1])


class MirrorStacks(NamedTuple):
    """Magic Mirror's hand-over to Catwalk: four stacks of tiles, each listed TOP FIRST."""

    twins: tuple[Tile, ...]
    cousins: tuple[Tile, ...]
    distant_relatives: tuple[Tile, ...]
    strangers: tuple[Tile, ...]


def _settle(board: list[list[Tile | None]]) -> None:
    # Each column of each side is packed against the mirror, keeping its order.
    for col in range(WIDTH):
        top = [board[r][col] for r in range(SIDE_ROWS) if board[r][col] is not None]
        top = [None] * (SIDE_ROWS - len(top)) + top
        bottom = [board[r][col] for r in range(SIDE_ROWS, HEIGHT) if board[r][col] is not None]
        bottom = bottom + [None] * (SIDE_ROWS - len(bottom))
        for r, tile in enumerate(top + bottom):
            board[r][col] = tile


@dataclass(frozen=True)
class State:
    """A Magic Mirror position: the board (6 rows top first: top grid, then bottom grid) and the three
    stacks of removed pairs, each TOP FIRST."""

    board: Board
    twins: tuple[Tile, ...] = ()
    cousins: tuple[Tile, ...] = ()
    distant_relatives: tuple[Tile, ...] = ()

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_layout(cls, board: Sequence[str | Sequence[Tile | str | None]] | str,
                    twins: Sequence[Tile | str] = (), cousins: Sequence[Tile | str] = (),
                    distant_relatives: Sequence[Tile | str] = ()) -> State:
        """Any possible position. ``board`` is 6 rows top first (rows 6, 5, 4 above the mirror, 3, 2, 1
        below) of tiles/codes/``None`` or strings like ``"S3 Mn . C5"``; the stacks are listed top first."""
        grid = read_tile_grid(board, WIDTH, HEIGHT, "the Magic Mirror board")
        stacks = []
        for rel, pile in zip(PAIR_STACKS, (twins, cousins, distant_relatives), strict=True):
            try:
                stacks.append(tuple(parse_tile(t) for t in pile))
            except (RulesError, ValueError) as err:
                raise LayoutError(f"the {rel} stack: {err}") from None
        on_board = [t for row in grid for t in row if t is not None]
        check_distinct(on_board + [t for p in stacks for t in p], "the Magic Mirror board and stacks")
        for col in range(WIDTH):
            for r in range(HEIGHT):
                if grid[r][col] is None:
                    continue
                between = range(r + 1, SIDE_ROWS) if r < SIDE_ROWS else range(SIDE_ROWS, r)
                for q in between:
                    if grid[q][col] is None:
                        raise LayoutError(
                            f"{_name((col, q))} is empty between the {grid[r][col]} on {_name((col, r))} and the "
                            "mirror: columns slide toward the mirror, so that tile would have slid")
        counts = [sum(1 for r in range(a, a + SIDE_ROWS) for t in grid[r] if t is not None) for a in (0, SIDE_ROWS)]
        if counts[0] != counts[1]:
            raise LayoutError(f"the sides of the mirror hold {counts[0]} and {counts[1]} tiles: every pair takes "
                              "one tile from each side, so they always hold the same number")
        for rel, pile in zip(PAIR_STACKS, stacks, strict=True):
            if len(pile) % 2:
                raise LayoutError(f"the {rel} stack holds {len(pile)} tiles: pairs go on whole, so it must be even")
            bottom_up = pile[::-1]
            for i in range(0, len(pile), 2):
                a, b = bottom_up[i], bottom_up[i + 1]
                if a.rank + b.rank != 5:
                    raise LayoutError(f"the {rel} stack pairs the {a} with the {b} (tiles {i + 1}-{i + 2} from the "
                                      "bottom), which do not total 5")
                if relation(a, b) is not rel:
                    raise LayoutError(f"the {a} and the {b} are {relation(a, b)}, but they are on the {rel} stack")
        return cls(grid, *stacks)

    @classmethod
    def from_stacks(cls, first: Sequence[Tile | str], second: Sequence[Tile | str]) -> State:
        """The seed's set-up from Slide Jam's two stacks (12 tiles each, top first): the first stack makes the
        top grid and the second the bottom grid, each laid from its top tile in reading order."""
        for number, pile in enumerate((first, second), start=1):
            if len(pile) != WIDTH * SIDE_ROWS:
                raise LayoutError(f"stack {number} holds {len(pile)} tiles: each grid needs {WIDTH * SIDE_ROWS}")
        tiles = list(first) + list(second)
        return cls.from_layout([tiles[r * WIDTH:(r + 1) * WIDTH] for r in range(HEIGHT)])

    def to_layout(self) -> dict:
        """Plain JSON-ready data (tile codes) with ``State.from_layout(**state.to_layout()) == state``."""
        return {"board": [" ".join(tile_code(t) if t else EMPTY for t in row) for row in self.board],
                "twins": [tile_code(t) for t in self.twins],
                "cousins": [tile_code(t) for t in self.cousins],
                "distant_relatives": [tile_code(t) for t in self.distant_relatives]}

    # ----------------------------------------------------------------- queries
    def tile_at(self, cell: Cell) -> Tile | None:
        return self.board[cell[1]][cell[0]]

    def placed(self) -> Iterator[tuple[Cell, Tile]]:
        """Every (cell, tile) on the board in reading order (a6 .. d1)."""
        for r, row in enumerate(self.board):
            for c, tile in enumerate(row):
                if tile is not None:
                    yield (c, r), tile

    def tiles_per_side(self) -> int:
        """How many tiles each side of the mirror holds (the sides are always equal)."""
        return sum(1 for row in self.board[:SIDE_ROWS] for t in row if t is not None)

    def stack(self, rel: Relation) -> tuple[Tile, ...]:
        """The removed pairs of one kind, top first (Strangers: the tiles still on the board, as handed over)."""
        if rel is Relation.STRANGERS:
            return transition(self).strangers
        return {Relation.TWINS: self.twins, Relation.COUSINS: self.cousins,
                Relation.DISTANT_RELATIVES: self.distant_relatives}[rel]

    def pairs(self) -> list[tuple[Cell, Cell]]:
        """Every removable pair once, as (top cell, bottom cell)."""
        out = []
        for c in range(WIDTH):
            top = self.board[TOP_FRONT][c]
            if top is None:
                continue
            for d in range(WIDTH):
                bottom = self.board[BOTTOM_FRONT][d]
                if bottom is not None and top.rank + bottom.rank == 5:
                    out.append(((c, TOP_FRONT), (d, BOTTOM_FRONT)))
        return out

    def legal_moves(self) -> list[Move]:
        """Every legal move: each removable pair, stacked either way round."""
        return [m for a, b in self.pairs() for m in (Move(a, b), Move(b, a))]

    def is_over(self) -> bool:
        """True when no pair on the front rows totals 5."""
        return not self.pairs()

    def score(self) -> int:
        """Cousins 1 and Distant Relatives 2 per pair removed, Strangers 3 per pair left (0 is perfect)."""
        return (len(self.cousins) // 2 * Relation.COUSINS.points_per_pair
                + len(self.distant_relatives) // 2 * Relation.DISTANT_RELATIVES.points_per_pair
                + self.tiles_per_side() * Relation.STRANGERS.points_per_pair)

    # ----------------------------------------------------------------- play
    def apply(self, move: Move | str) -> State:
        """The position after ``move``; :class:`IllegalMove` with the reason when the rules forbid it."""
        if isinstance(move, str):
            move = Move.parse(move)
        if not isinstance(move, Move):
            raise IllegalMove(f"{move!r} is not a Magic Mirror move", move)
        for cell in (move.first, move.second):
            if self.tile_at(cell) is None:
                raise IllegalMove(f"there is no tile on {_name(cell)}", move)
        if _side(move.first) == _side(move.second):
            raise IllegalMove(f"{_name(move.first)} and {_name(move.second)} are both on the {_side(move.first)} "
                              "side: a pair takes one tile from each side of the mirror", move)
        for cell in (move.first, move.second):
            if cell[1] not in (TOP_FRONT, BOTTOM_FRONT):
                front = cell_name(cell[0], TOP_FRONT if cell[1] < SIDE_ROWS else BOTTOM_FRONT, HEIGHT)
                raise IllegalMove(f"the {self.tile_at(cell)} on {_name(cell)} is not next to the mirror: only the "
                                  f"front row (like {front}) can be picked up", move)
        a, b = self.tile_at(move.first), self.tile_at(move.second)
        if a.rank + b.rank != 5:
            raise IllegalMove(f"the {a} and the {b} total {a.rank + b.rank}, not 5: pairs are null and 5, ace and 4, "
                              "or 2 and 3", move)
        grid = [list(row) for row in self.board]
        for col, row in (move.first, move.second):
            grid[row][col] = None
        _settle(grid)
        stacks = {Relation.TWINS: self.twins, Relation.COUSINS: self.cousins,
                  Relation.DISTANT_RELATIVES: self.distant_relatives}
        rel = relation(a, b)
        stacks[rel] = (b, a) + stacks[rel]
        return State(tuple(tuple(r) for r in grid), stacks[Relation.TWINS], stacks[Relation.COUSINS],
                     stacks[Relation.DISTANT_RELATIVES])

    def successors(self) -> Iterator[tuple[Move, State]]:
        for move in self.legal_moves():
            yield move, self.apply(move)

    # ----------------------------------------------------------------- display
    def render(self) -> str:
        """The board as text (row 6 on top, the mirror between rows 4 and 3), the stacks and the score."""
        lines = ["    " + "   ".join(chr(ord("a") + c) for c in range(WIDTH))]
        for r, row in enumerate(self.board):
            if r == SIDE_ROWS:
                lines.append("    " + "~" * (4 * WIDTH - 2) + "  mirror")
            cells = "  ".join(tile_code(t) if t else EMPTY + " " for t in row)
            lines.append(f"{HEIGHT - r}   {cells}".rstrip())
        for rel in PAIR_STACKS:
            pile = self.stack(rel)
            shown = " ".join(tile_code(t) for t in pile) or "(empty)"
            lines.append(f"{rel} ({len(pile) // 2} pairs, top first): {shown}")
        status = "no pair left" if self.is_over() else f"{len(self.pairs())} pairs removable"
        lines.append(f"score {self.score()} ({self.tiles_per_side()} strangers each side, {status})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def transition(state: State) -> MirrorStacks:
    """The seed's Transition: the Strangers left on the board are picked up in reading order onto their own
    stack (the last one picked ends on top); the other three stacks stay as they are. All four top first."""
    strangers = tuple(reversed([t for _, t in state.placed()]))
    return MirrorStacks(state.twins, state.cousins, state.distant_relatives, strangers)


def explain(before: State, after: State, max_moves: int = 3) -> Explanation:
    """The move(s) that turn ``before`` into ``after`` (shortest first), or the reason no legal play does."""
    if before == after:
        return Explanation()
    was = {t for _, t in before.placed()}
    now = {t for _, t in after.placed()}
    if now - was:
        listed = ", ".join(str(t) for t in sorted(now - was))
        return Explanation(reason=f"the {listed} appeared on the board: tiles only ever leave it")
    gone = was - now
    if not gone:
        return Explanation(reason="tiles moved on the board but none left it: columns slide only after a pair "
                                  "is removed")
    if len(gone) % 2:
        return Explanation(reason=f"{len(gone)} tiles left the board: they leave in pairs, one from each side")
    if len(gone) // 2 > max_moves:
        return Explanation(reason=f"{len(gone)} tiles left the board at once: too many pairs to tell apart")

    def successors(state: State) -> Iterator[tuple[Move, State]]:
        for move in state.legal_moves():
            if state.tile_at(move.first) in gone and state.tile_at(move.second) in gone:
                yield move, state.apply(move)

    moves = search_moves(before, after, successors, max_moves=len(gone) // 2)
    if moves is not None:
        return Explanation(tuple(moves))
    if len(gone) == 2:
        cells = [c for c, t in before.placed() if t in gone]
        try:
            candidate = before.apply(Move(cells[0], cells[1]))
        except IllegalMove as err:
            return Explanation(reason=err.reason)
        if candidate.board != after.board:
            return Explanation(reason="the columns must slide toward the mirror after a pair is removed")
        rel = relation(*(before.tile_at(c) for c in cells))
        return Explanation(reason=f"the pair must go on top of the {rel} stack, and the other stacks stay as they are")
    return Explanation(reason="no sequence of legal pairs turns the first position into the second")
