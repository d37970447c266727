"""Epic Funhouse, room 5: Whack-a-Dummy — flip the barrel maze's coins to activate the corner dummies in order.

The board is Roll Out the Barrels' final 4 x 6 grid of coin values (reading order; cells named ``a6`` (north-
west) to ``d1`` (southeast), see :mod:`rules.epic_funhouse.roll_out_the_barrels`), every coin turned face down.
The die stands on one coin. A face-up coin is an activated dummy, a face-down one a hidden dummy.

Decisions where the seed leaves room:

* **Placing the die** on one of the four central coins (``b4``, ``c4``, ``b3``, ``c3``) is the first move,
  ``start c3``. The start coin is not flipped.
* **A move** names only a direction (``go north``). Its length follows from the coin under the die: one space
  if that coin is face down (so the first move, from the unflipped start coin, is a walk), else the coin's
  value (null and ace = 1). The board wraps round on all four edges. The coin landed on is flipped as part
  of the move. A jump that wraps round onto the coin the die stands on (a 4 jumping east or west on the
  4-wide board) is not a move: the seed says to walk or jump *to another coin*.
* **Corner order**: northwest (``a6``), northeast (``d6``), southeast (``d1``), southwest (``a1``). The state
  keeps ``progress``: how many corners have been activated in the proper sequence. The corners are *right*
  when exactly the first ``progress`` corners of the order are face up.
* **Penalties and "cannot continue"**: flipping a corner is in sequence only when the corners are right and
  the flip activates the next corner of the order (``progress`` grows by one). Flipping a corner that is
  out of place back into place (whacking down a wrongly activated corner, or re-activating a corner that was
  in the sequence but got whacked) is *setting things right*: no penalty, no progress. Any other corner
  flip — including activating the next corner while another corner is still wrong — is out of sequence and
  costs 10 points; it never advances the tour. So while anything is wrong the tour cannot continue, and
  every further out-of-sequence flip is a further penalty.
* **End**: the tour is complete (and the game over) when the fourth corner is activated in sequence. A
  player may stop at any time; ``score()`` is 0 + penalties for a completed tour, else 15 + penalties (the
  score for stopping now). Moves never run out (a walk is always possible), so ``is_over()`` only means the
  tour is complete.
* **Transition**: :func:`column_sums` — the sums of the face-up coins' values per column, west to east (null
  0, ace 1), the four numbers Trampo-Land uses.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.epic_funhouse.die import Direction
from rules.epic_funhouse.roll_out_the_barrels import CELLS, HEIGHT, WIDTH, cell_name, check_grid, parse_cell

__all__ = [
    "CORNERS",
    "CENTRAL_CELLS",
    "PENALTY",
    "UNFINISHED",
    "Move",
    "State",
    "setup",
    "column_sums",
    "WhackSolution",
    "solve",
    "explain",
]

#: Corner cells in the order they must be activated: northwest, northeast, southeast, southwest.
CORNERS: tuple[int, ...] = (0, WIDTH - 1, CELLS - 1, CELLS - WIDTH)
CORNER_NAMES: tuple[str, ...] = ("northwest", "northeast", "southeast", "southwest")
#: The four central coins, where the die may start.
CENTRAL_CELLS: tuple[int, ...] = tuple(
    r * WIDTH + c for r in (HEIGHT // 2 - 1, HEIGHT // 2) for c in (WIDTH // 2 - 1, WIDTH // 2))
PENALTY = 10
UNFINISHED = 15
_ALL = (1 << CELLS) - 1


def _target(cell: int, direction: Direction, distance: int) -> int:
    row, col = divmod(cell, WIDTH)
    dr, dc = direction.step
    return ((row + dr * distance) % HEIGHT) * WIDTH + (col + dc * distance) % WIDTH


def _wrong(face_up: int, progress: int) -> tuple[int, ...]:
    """Corners (in order) whose side differs from the right one for ``progress``."""
    return tuple(c for k, c in enumerate(CORNERS) if bool(face_up >> c & 1) != (k < progress))


@dataclass(frozen=True)
class Move:
    """``start c3`` places the die on a central coin; ``go north`` walks or jumps as the coin under it says."""

    kind: str  # "start" or "go"
    cell: int | None = None
    direction: Direction | None = None

    def __post_init__(self) -> None:
        if self.kind == "start":
            if self.cell is None or self.direction is not None:
                raise ValueError("a start move names a cell and nothing else")
        elif self.kind == "go":
            if self.direction is None or self.cell is not None:
                raise ValueError("a go move names a direction and nothing else")
            if not isinstance(self.direction, Direction):
                object.__setattr__(self, "direction", Direction.parse(self.direction))
        else:
            raise ValueError(f"unknown kind of move {self.kind!r}: start or go")

    @classmethod
    def start(cls, cell: int | str) -> Move:
        return cls("start", cell=parse_cell(cell))

    @classmethod
    def go(cls, direction: Direction | str) -> Move:
        d = direction if isinstance(direction, Direction) else Direction.parse(direction)
        return cls("go", direction=d)

    def __str__(self) -> str:
        if self.kind == "start":
            assert self.cell is not None
            return f"start {cell_name(self.cell)}"
        assert self.direction is not None
        return f"go {self.direction.value}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``start c3`` and ``go north`` (also ``go N``, ``north``, ``N``)."""
        words = str(text).strip().lower().split()
        try:
            if len(words) == 2 and words[0] == "start":
                return cls.start(words[1])
            if len(words) == 2 and words[0] == "go":
                return cls.go(words[1])
            if len(words) == 1:
                return cls.go(words[0])
        except (ValueError, LayoutError):
            pass
        raise RulesError(f"cannot read move {text!r}: write 'start c3' or 'go north' (east, south, west)")


@dataclass(frozen=True)
class State:
    """A position: coin values, which coins are face up (bit ``i`` of ``face_up`` for cell ``i``), the die's cell
    (None before it is placed), corners activated in sequence (``progress``, 0..4) and penalty points."""

    grid: tuple[int, ...]
    face_up: int = 0
    cell: int | None = None
    progress: int = 0
    penalties: int = 0

    # -- construction

    @classmethod
    def from_layout(cls, grid: Iterable[Any], face_up: Iterable[Any] = (), cell: str | int | None = None,
                    progress: int | None = None, penalties: int = 0) -> State:
        """Any position.

        ``grid``: the 24 coin values (reading order, or 6 rows of 4). ``face_up``: the face-up coins, either
        as cells (``a6`` or indices) or as 24 booleans in reading order. ``cell``: the die's coin (None before
        placing it). ``progress``: corners activated in sequence; when None it is read from the board as the
        longest run of face-up corners in the proper order (the kindest reading). ``penalties``: points so
        far (a multiple of 10).
        """
        values = check_grid(grid)
        items = list(face_up)
        mask = 0
        if len(items) == CELLS and all(isinstance(x, bool) for x in items):
            for i, up in enumerate(items):
                mask |= int(up) << i
        else:
            for x in items:
                mask |= 1 << parse_cell(x)
        die = None if cell is None else parse_cell(cell)
        if progress is None:
            progress = 0
            while progress < len(CORNERS) and mask >> CORNERS[progress] & 1:
                progress += 1
        if not isinstance(progress, int) or not 0 <= progress <= len(CORNERS):
            raise LayoutError(f"progress counts the corners activated in order: 0..4, not {progress!r}")
        if not isinstance(penalties, int) or penalties < 0 or penalties % PENALTY:
            raise LayoutError(f"penalties come in steps of {PENALTY} points, so {penalties!r} cannot be")
        if die is None and (mask or progress or penalties):
            raise LayoutError("before the die is placed every dummy is hidden and nothing is scored")
        if progress == len(CORNERS) and _wrong(mask, progress):
            missing = ", ".join(CORNER_NAMES[CORNERS.index(c)] for c in _wrong(mask, progress))
            raise LayoutError(f"the tour cannot be complete while the {missing} dummy is hidden")
        return cls(values, mask, die, progress, penalties)

    def to_layout(self) -> dict:
        """Plain JSON-ready data with ``State.from_layout(**state.to_layout()) == state``."""
        return {"grid": list(self.grid), "face_up": [cell_name(i) for i in range(CELLS) if self.face_up >> i & 1],
                "cell": None if self.cell is None else cell_name(self.cell), "progress": self.progress,
                "penalties": self.penalties}

    # -- queries

    def is_up(self, cell: int | str) -> bool:
        return bool(self.face_up >> parse_cell(cell) & 1)

    def wrong_corners(self) -> tuple[int, ...]:
        """Corners out of place for the tour so far (they must be set right before the tour continues)."""
        return _wrong(self.face_up, self.progress)

    def step_length(self) -> int:
        """How far the next move goes: 1 from a face-down coin, else the coin's value (null and ace 1)."""
        if self.cell is None or not self.face_up >> self.cell & 1:
            return 1
        return max(1, self.grid[self.cell])

    def target(self, direction: Direction) -> int:
        assert self.cell is not None
        return _target(self.cell, direction, self.step_length())

    # -- rules

    def legal_moves(self) -> list[Move]:
        if self.is_over():
            return []
        if self.cell is None:
            return [Move.start(c) for c in CENTRAL_CELLS]
        return [Move.go(d) for d in Direction if self.target(d) != self.cell]

    def apply(self, move: Move | str) -> State:
        m = Move.parse(move) if isinstance(move, str) else move
        if self.is_over():
            raise IllegalMove("the tour is complete: all four corner dummies are up", m)
        if m.kind == "start":
            if self.cell is not None:
                raise IllegalMove("the die is already on the board: move it by walking or jumping", m)
            assert m.cell is not None
            if m.cell not in CENTRAL_CELLS:
                raise IllegalMove(f"the die starts on one of the four central coins (b4, c4, b3, c3), "
                                  f"not on {cell_name(m.cell)}", m)
            return State(self.grid, self.face_up, m.cell, self.progress, self.penalties)
        if self.cell is None:
            raise IllegalMove("place the die on one of the four central coins first (for example 'start c3')", m)
        assert m.direction is not None
        length = self.step_length()
        target = self.target(m.direction)
        if target == self.cell:
            raise IllegalMove(f"a jump of {length} {m.direction.value} goes round the board back to "
                              f"{cell_name(self.cell)}: you must land on another coin", m)
        return self._land(target)

    def _land(self, target: int) -> State:
        face_up = self.face_up ^ (1 << target)
        progress, penalties = self.progress, self.penalties
        if target in CORNERS:
            wrong_before = _wrong(self.face_up, progress)
            if not wrong_before and target == CORNERS[progress] and face_up >> target & 1:
                progress += 1
            elif target not in wrong_before:
                penalties += PENALTY
        return State(self.grid, face_up, target, progress, penalties)

    def successors(self) -> list[tuple[Move, State]]:
        return [(m, self.apply(m)) for m in self.legal_moves()]

    def is_over(self) -> bool:
        """True when the tour is complete (the player may stop any time before; see :meth:`score`)."""
        return self.progress == len(CORNERS)

    def score(self) -> int:
        """0 + penalties for a completed tour, else 15 + penalties (the score for stopping now)."""
        return self.penalties + (0 if self.is_over() else UNFINISHED)

    def column_sums(self) -> tuple[int, int, int, int]:
        return column_sums(self)

    # -- display

    def render(self) -> str:
        """A text board: face-up coins show their value (``n`` null), face-down ones ``.``, the die in brackets."""
        lines = ["    a   b   c   d"]
        for row in range(HEIGHT):
            parts = []
            for col in range(WIDTH):
                i = row * WIDTH + col
                mark = (str(self.grid[i]) if self.grid[i] else "n") if self.face_up >> i & 1 else "."
                parts.append(f"[{mark}]" if i == self.cell else f" {mark} ")
            lines.append(f"{HEIGHT - row}  " + " ".join(parts))
        done = ", ".join(CORNER_NAMES[:self.progress]) or "none"
        line = f"corners done: {done}; penalties {self.penalties}"
        wrong = self.wrong_corners()
        if wrong:
            line += "; set right first: " + ", ".join(CORNER_NAMES[CORNERS.index(c)] for c in wrong)
        if self.is_over():
            line += " — tour complete!"
        elif self.cell is None:
            line += " — place the die on b4, c4, b3 or c3"
        else:
            line += f" — next corner: {CORNER_NAMES[self.progress]}; next move goes {self.step_length()}"
        lines.append(line)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def setup(grid: Iterable[Any]) -> State:
    """Whack-a-Dummy's start: Roll Out the Barrels' final grid (24 values, reading order) with every coin face down."""
    return State(check_grid(grid))


def column_sums(state: State) -> tuple[int, int, int, int]:
    """The transition to Trampo-Land: per column, west to east, the sum of the face-up coins' values."""
    sums = [0] * WIDTH
    for i in range(CELLS):
        if state.face_up >> i & 1:
            sums[i % WIDTH] += state.grid[i]
    return (sums[0], sums[1], sums[2], sums[3])


# ------------------------------------------------------------------------------------------------ search


@dataclass(frozen=True)
class WhackSolution:
    """What :func:`solve` found.

    ``completable``: True when a completing move sequence was found, False when the search proved none exists
    within ``max_extra_penalties``, None when it gave up (``gave_up``) after ``states_searched`` states.
    ``moves``: the completing moves with the fewest penalties (then fewest moves among those found first).
    ``score``: the final score of that line, or of stopping now when no completion is known.
    """

    completable: bool | None
    moves: tuple[Move, ...]
    score: int
    states_searched: int
    gave_up: bool


def solve(state: State, max_states: int = 200_000, max_extra_penalties: int | None = None) -> WhackSolution:
    """Best-first search for a way to complete the tour with the fewest further penalties.

    The frontier is ordered by (penalties, corners still to do, moves), so the first completed tour popped
    has the fewest penalties possible. The search is bounded: after ``max_states`` distinct positions it
    gives up and says so. ``max_extra_penalties`` prunes lines that collect more penalty points than that
    (completing with 20 or more extra points scores worse than stopping now, which costs 15).
    """
    stop_score = state.score()
    if state.is_over():
        return WhackSolution(True, (), state.score(), 1, False)
    counter = 0
    start_key = (state.cell, state.face_up, state.progress)
    best_pen: dict[tuple[int | None, int, int], int] = {start_key: state.penalties}
    parents: dict[tuple[int | None, int, int], tuple[tuple[int | None, int, int] | None, Move | None]] = {
        start_key: (None, None)}
    heap: list[tuple[int, int, int, int, State]] = [(state.penalties, 0, 0, counter, state)]
    searched = 0
    limit = None if max_extra_penalties is None else state.penalties + max_extra_penalties
    while heap:
        pen, _remaining, depth, _, cur = heapq.heappop(heap)
        key = (cur.cell, cur.face_up, cur.progress)
        if best_pen.get(key, pen) < pen:
            continue
        searched += 1
        if cur.is_over():
            moves: list[Move] = []
            k: tuple[int | None, int, int] | None = key
            while k is not None:
                prev, mv = parents[k]
                if mv is not None:
                    moves.append(mv)
                k = prev
            return WhackSolution(True, tuple(reversed(moves)), cur.score(), searched, False)
        if searched >= max_states:
            return WhackSolution(None, (), stop_score, searched, True)
        for move, nxt in cur.successors():
            if limit is not None and nxt.penalties > limit:
                continue
            nkey = (nxt.cell, nxt.face_up, nxt.progress)
            if nkey in best_pen and best_pen[nkey] <= nxt.penalties:
                continue
            best_pen[nkey] = nxt.penalties
            parents[nkey] = (key, move)
            counter += 1
            heapq.heappush(heap, (nxt.penalties, len(CORNERS) - nxt.progress, depth + 1, counter, nxt))
    return WhackSolution(False, (), stop_score, searched, False)


# ------------------------------------------------------------------------------------------------ explain


def explain(before: State, after: State, max_moves: int = 3, observed: bool = False) -> Explanation:
    """The legal move(s) that turn ``before`` into ``after``, or why none does.

    With ``observed=True`` only what a camera sees is compared (coins' sides and the die's cell), not the
    bookkeeping (progress, penalties).
    """
    if before.grid != after.grid:
        return Explanation(reason="the coins' values changed: Whack-a-Dummy only flips coins in place")
    same = (lambda a, b: (a.face_up, a.cell) == (b.face_up, b.cell)) if observed else None
    moves = search_moves(before, after, State.successors, max_moves, same=same)
    if moves is not None:
        return Explanation(moves=tuple(moves))
    flipped = bin(before.face_up ^ after.face_up).count("1")
    if flipped > max_moves:
        return Explanation(reason=f"{flipped} coins changed sides, but each move flips only the coin landed on")
    return Explanation(reason=f"no legal sequence of up to {max_moves} moves leads to this position "
                              f"(from {cell_name(before.cell) if before.cell is not None else 'off the board'}, "
                              f"the die next goes {before.step_length()} space(s))")
