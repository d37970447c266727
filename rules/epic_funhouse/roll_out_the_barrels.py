"""Epic Funhouse, room 4: Roll Out the Barrels — tumble the die through a 4 x 6 maze of coins.

The maze is a grid of 24 coin values, 4 wide and 6 tall, kept in reading order (index 0 is the northwest
coin, 23 the southeast one). Cells are named like PPN algebraic squares: columns ``a``-``d`` from west to east,
rows ``1``-``6`` from south to north, so the start barrel is ``a6`` and the exit barrel ``d1``.

Decisions where the seed leaves room (each one is the reading of the seed's text and examples):

* **Scoreboard -> maze.** The Catwalk scoreboard's coins are placed as they lie: its pairs, in the order
  they were made, fill the maze in reading order, each pair taking two cells side by side (dropped coin
  first, then the draw-pool coin matching the tile). Two pairs fill a row, so six pairs fill the top half.
  This is the only reading under which the seed's Figure 6 example (5/null, 4/null, null/3) puts "a null
  (wild) coin to the south and the east of the starting space in the northwest", as its Strategy section
  says. The rest of the maze is drawn at random from the draw pool, in reading order. A value substituted
  on the scoreboard by two coins (a 2 stacked on a 3 for a 5) leaves its bottom coin in the maze, showing
  its own value (the 3), and the spare coin goes back to the pool, as the seed says ("simply remove the
  extra coin ... and add them to the draw pool"); ``catwalk.CatwalkHandover.for_barrels`` gives exactly that.
* **Swap procedure**, exactly as worded: scan in reading order; a coin with an orthogonal neighbour of the
  same value is swapped with the next coin after it (in reading order) for which both coins' new places
  are legal, else with the first such coin scanning backwards; the scan continues to the end, then the board
  is scanned again until a scan finds nothing. A scan that finds an illegal coin it cannot swap, a board that
  comes back to an earlier pass's arrangement, or too many passes, ends the procedure; :func:`build_maze`
  then reports the problem (``MazeSetup.problem``) instead of looping.
* **Which face must match (Figure 7).** A tip is legal onto an orthogonally adjacent coin whose value is the
  number on the die's top face *before* the tip ("you may only tip the die onto a coin that shows the number
  that is currently on the top face"). A null on top lets the die tip anywhere; a null coin takes any die.
* **The start.** The die starts on the northwest coin with any face up and any facing; placing it is the
  first move (``start top=... north=... east=...``), so the start orientation is part of the game record. The
  start coin itself need not match.
* **Backtracking** is allowed and is just tipping: a tip back to where the die came from is legal only by
  the same rule as any tip. The seed's "infinite retries" are new attempts (``State.retry()``), not moves.
* **The die's faces** follow :mod:`rules.epic_funhouse.die` (piecepackr's default piecepack die unless a
  different arrangement is given).
* **Game end.** The game is over at the exit barrel or when no tip is legal (forced to stop). A player may
  also give up at any time; ``score()`` is always the score for stopping where the die is now (the start
  barrel before the die is placed).
* **Score.** 0 at the exit. Otherwise the cheapest of the shortest orthogonal paths from the die's coin to the
  exit (ignoring the die rules): the sum of the coin values on the path, leaving out the coin the die is on
  and counting the exit (null 0, ace 1). The seed's example — one barrel worth 4 between the die and a
  3 exit — scores 7.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.epic_funhouse.die import COUNTER, Die, DieArrangement, Direction, arrangement_named
from rules.pieces import Coin, parse_rank, rank_name

__all__ = [
    "WIDTH",
    "HEIGHT",
    "CELLS",
    "START",
    "EXIT",
    "cell_name",
    "parse_cell",
    "neighbour",
    "check_grid",
    "conflicts",
    "MazeSetup",
    "build_maze",
    "settle_maze",
    "Move",
    "State",
    "exit_path",
    "BarrelSolution",
    "solve",
    "explain",
]

WIDTH = 4
HEIGHT = 6
CELLS = WIDTH * HEIGHT
START = 0  # the northwest coin
EXIT = CELLS - 1  # the southeast coin
#: A standard piecepack has four coins of each value (one per suit).
COINS_PER_VALUE = 4
#: The Catwalk scoreboard is a 4 x 3 grid of coins: at most six pairs (one suit of six coins is flicked).
MAX_SCOREBOARD_PAIRS = 6


# ----------------------------------------------------------------------------------------------- the grid


def cell_name(index: int) -> str:
    """PPN-style name of a cell: ``a6`` is the northwest corner (index 0), ``d1`` the southeast (index 23)."""
    if not 0 <= index < CELLS:
        raise ValueError(f"cell index must be 0..{CELLS - 1}, not {index!r}")
    row, col = divmod(index, WIDTH)
    return f"{'abcd'[col]}{HEIGHT - row}"


def parse_cell(text: str | int) -> int:
    """The index (reading order) of a cell given as ``b3``-style name or as an index 0..23."""
    if isinstance(text, int) and not isinstance(text, bool):
        if 0 <= text < CELLS:
            return text
        raise LayoutError(f"cell {text} is off the 4 x 6 grid: cells are numbered 0..{CELLS - 1} in reading order")
    key = str(text).strip().lower()
    if len(key) == 2 and key[0] in "abcd" and key[1] in "123456":
        return (HEIGHT - int(key[1])) * WIDTH + "abcd".index(key[0])
    raise LayoutError(f"unknown cell {text!r}: name cells a1..d6 (columns a-d west to east, rows 1-6 south to north)")


def neighbour(index: int, direction: Direction) -> int | None:
    """The cell next to ``index`` towards ``direction``, or None at the edge (the maze does not wrap)."""
    row, col = divmod(index, WIDTH)
    dr, dc = direction.step
    r, c = row + dr, col + dc
    if 0 <= r < HEIGHT and 0 <= c < WIDTH:
        return r * WIDTH + c
    return None


_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for d in Direction if (n := neighbour(i, d)) is not None) for i in range(CELLS))


def _coin_value(value: Any) -> int:
    if isinstance(value, Coin):
        return value.rank
    try:
        return parse_rank(value)
    except ValueError as err:
        raise LayoutError(f"{err}") from None


def check_grid(grid: Iterable[Any], coins_per_value: int = COINS_PER_VALUE) -> tuple[int, ...]:
    """The 24 coin values of a maze as a tuple, from a flat list in reading order or six rows of four.

    Values may be ints 0..5, rank words (``null``, ``ace``) or :class:`~rules.pieces.Coin` objects. A grid
    that cannot be laid with one piecepack (wrong size, more than ``coins_per_value`` coins of one value:
    four in a standard piecepack, more with extra suits) is a :class:`~rules.base.LayoutError`.
    """
    items = list(grid)
    if len(items) == HEIGHT and all(isinstance(r, (list, tuple)) for r in items):
        if any(len(r) != WIDTH for r in items):
            raise LayoutError(f"each of the {HEIGHT} rows of the barrel maze must hold {WIDTH} coins")
        items = [v for r in items for v in r]
    if len(items) != CELLS:
        raise LayoutError(f"the barrel maze is {WIDTH} coins wide and {HEIGHT} tall: it needs {CELLS} coins, "
                          f"not {len(items)}")
    values = tuple(_coin_value(v) for v in items)
    for value, count in sorted(Counter(values).items()):
        if count > coins_per_value:
            raise LayoutError(f"a piecepack has only {coins_per_value} coins of value {rank_name(value).lower()}, "
                              f"but the maze shows {count}")
    return values


def _legal_at(grid: Sequence[int], index: int) -> bool:
    return all(grid[n] != grid[index] for n in _NEIGHBOURS[index])


def conflicts(grid: Sequence[int]) -> list[tuple[int, int]]:
    """Orthogonally adjacent cells holding coins of the same value, as (index, index) pairs in reading order."""
    return [(i, n) for i in range(CELLS) for n in _NEIGHBOURS[i] if n > i and grid[i] == grid[n]]


# ------------------------------------------------------------------------------------------------ set-up


@dataclass(frozen=True)
class MazeSetup:
    """The result of building the maze: the final grid and how it came about.

    ``laid``: the maze as first laid out (scoreboard then draws, before any swap); ``drawn``: the coins drawn
    from the pool (in the order placed); ``swaps``: the swaps of the clean-up procedure as (index, index)
    pairs in the order made; ``passes``: scans made; ``problem``: None when the maze ended legal, else a
    sentence saying why the procedure had to stop (``grid`` is then the last arrangement reached).
    """

    grid: tuple[int, ...]
    laid: tuple[int, ...] = ()
    drawn: tuple[int, ...] = ()
    swaps: tuple[tuple[int, int], ...] = ()
    passes: int = 0
    problem: str | None = None

    @property
    def clean(self) -> bool:
        return self.problem is None


def _find_swap(grid: list[int], index: int) -> int | None:
    # "Swap it with the next coin in the grid with which it can be swapped legally ... If there are no coins
    # after a coin that can be swapped with it legally, scan backwards for the first legal swap."
    for other in [*range(index + 1, CELLS), *range(index - 1, -1, -1)]:
        if grid[other] == grid[index]:
            continue
        grid[index], grid[other] = grid[other], grid[index]
        ok = _legal_at(grid, index) and _legal_at(grid, other)
        grid[index], grid[other] = grid[other], grid[index]
        if ok:
            return other
    return None


def settle_maze(grid: Iterable[Any], max_passes: int = 50, coins_per_value: int = COINS_PER_VALUE) -> MazeSetup:
    """Run the seed's swap procedure on a laid-out maze until no two neighbours match (or it cannot).

    It stops, with ``problem`` set, when a scan finds an illegal coin it cannot swap anywhere and swaps
    nothing else, when a scan brings back an earlier arrangement (the procedure would loop for ever), or
    after ``max_passes`` scans. (With the 24 coins of one standard piecepack none of this was seen in 20,000
    random and adversarial layouts; the guards are for sets with extra suits and for safety.)
    """
    cells = list(check_grid(grid, coins_per_value))
    laid = tuple(cells)
    swaps: list[tuple[int, int]] = []
    seen: set[tuple[int, ...]] = set()
    for passes in range(1, max_passes + 1):
        key = tuple(cells)
        if key in seen:
            return MazeSetup(key, laid, (), tuple(swaps), passes - 1,
                             "the swap procedure went round in a circle (a scan brought back an earlier maze), "
                             f"so it stops with {len(conflicts(cells))} matching neighbour pair(s) left")
        seen.add(key)
        found = swapped = False
        stuck: int | None = None
        for index in range(CELLS):
            if _legal_at(cells, index):
                continue
            found = True
            other = _find_swap(cells, index)
            if other is None:
                stuck = index if stuck is None else stuck
                continue
            cells[index], cells[other] = cells[other], cells[index]
            swaps.append((index, other))
            swapped = True
        if not found:
            return MazeSetup(tuple(cells), laid, (), tuple(swaps), passes)
        if not swapped:
            assert stuck is not None
            return MazeSetup(tuple(cells), laid, (), tuple(swaps), passes,
                             f"the {rank_name(cells[stuck]).lower()} coin at {cell_name(stuck)} has a neighbour "
                             "of the same value and no coin in the maze can be swapped with it legally")
    return MazeSetup(tuple(cells), laid, (), tuple(swaps), max_passes,
                     f"the swap procedure did not settle within {max_passes} scans")


def build_maze(scoreboard: Iterable[Sequence[Any]], pool: Iterable[Any],
               seed: int | random.Random | None = None) -> MazeSetup:
    """Set up Roll Out the Barrels from what Catwalk left behind.

    ``scoreboard``: the Catwalk scoreboard's coin pairs in the order they were made, each
    ``(dropped coin, draw-pool coin matching the tile)`` as values 0..5 (or rank words / Coins); at most six.
    ``pool``: the coins of the draw pool (values, rank words or Coins). The scoreboard coins are placed as
    they lie (pairs side by side in reading order, starting at the northwest), the rest of the maze is drawn
    from the pool with ``seed`` (a ``random.Random``, used as it is, or a seed for one), then
    :func:`settle_maze` runs the swap procedure. ``catwalk.transition(state).for_barrels()`` gives both
    arguments.
    """
    pairs = [tuple(p) for p in scoreboard]
    if len(pairs) > MAX_SCOREBOARD_PAIRS:
        raise LayoutError(f"a Catwalk scoreboard holds at most {MAX_SCOREBOARD_PAIRS} coin pairs (one per coin "
                          f"flicked), not {len(pairs)}")
    if any(len(p) != 2 for p in pairs):
        raise LayoutError("each Catwalk scoreboard entry is a pair: the dropped coin and the coin for its tile")
    placed = [_coin_value(v) for p in pairs for v in p]
    pool_values = [_coin_value(v) for v in pool]
    needed = CELLS - len(placed)
    if len(pool_values) < needed:
        raise LayoutError(f"the draw pool has {len(pool_values)} coins but the maze needs {needed} more")
    for value, count in sorted(Counter(placed + pool_values).items()):
        if count > COINS_PER_VALUE:
            raise LayoutError(f"a piecepack has only {COINS_PER_VALUE} coins of value {rank_name(value).lower()}, "
                              f"but the scoreboard and draw pool hold {count}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    drawn = rng.sample(pool_values, needed)
    settled = settle_maze(placed + drawn)
    return MazeSetup(settled.grid, settled.laid, tuple(drawn), settled.swaps, settled.passes, settled.problem)


# ------------------------------------------------------------------------------------------------ moves


@dataclass(frozen=True)
class Move:
    """``start top=.. north=.. east=..`` places the die on the start barrel; ``tip <direction>`` tips it."""

    kind: str  # "start" or "tip"
    die: Die | None = None
    direction: Direction | None = None

    def __post_init__(self) -> None:
        if self.kind == "start":
            if self.die is None or self.direction is not None:
                raise ValueError("a start move names the die's pose and nothing else")
        elif self.kind == "tip":
            if self.direction is None or self.die is not None:
                raise ValueError("a tip move names a direction and nothing else")
            if not isinstance(self.direction, Direction):
                object.__setattr__(self, "direction", Direction.parse(self.direction))
        else:
            raise ValueError(f"unknown kind of move {self.kind!r}: start or tip")

    @classmethod
    def start(cls, die: Die) -> Move:
        return cls("start", die=die)

    @classmethod
    def tip(cls, direction: Direction | str) -> Move:
        d = direction if isinstance(direction, Direction) else Direction.parse(direction)
        return cls("tip", direction=d)

    def __str__(self) -> str:
        if self.kind == "start":
            return f"start {self.die}"
        assert self.direction is not None
        return f"tip {self.direction.value}"

    @classmethod
    def parse(cls, text: str, arrangement: DieArrangement | str = COUNTER) -> Move:
        """Read ``tip north`` (or ``tip N``, ``N``) and ``start top=null north=2 east=ace``."""
        words = str(text).strip().split(None, 1)
        if not words:
            raise RulesError("an empty move: write 'tip north' or 'start top=null north=2 east=ace'")
        head = words[0].lower()
        if head == "start":
            if len(words) < 2:
                raise RulesError("a start move needs the die's pose, like 'start top=null north=2 east=ace'")
            return cls.start(Die.parse(words[1], arrangement_named(arrangement)))
        rest = (words[1] if len(words) == 2 else "") if head == "tip" else str(text)
        try:
            return cls.tip(Direction.parse(rest))
        except ValueError:
            raise RulesError(f"cannot read move {text!r}: write 'tip north' (east, south, west) or "
                             "'start top=null north=2 east=ace'") from None


# ------------------------------------------------------------------------------------------------ state


@dataclass(frozen=True)
class State:
    """A position: the maze, where the die stands (None before it is placed) and how it lies.

    ``arrangement`` names the die's face arrangement (see :mod:`rules.epic_funhouse.die`).
    """

    grid: tuple[int, ...]
    cell: int | None = None
    die: Die | None = None
    arrangement: str = COUNTER.name

    # -- construction

    @classmethod
    def new(cls, grid: Iterable[Any], arrangement: DieArrangement | str = COUNTER) -> State:
        """The maze before the die is placed."""
        return cls.from_layout(grid, arrangement=arrangement)

    @classmethod
    def from_layout(cls, grid: Iterable[Any], cell: str | int | None = None, die: Die | str | None = None,
                    arrangement: DieArrangement | str = COUNTER) -> State:
        """Any position: ``grid`` (24 values in reading order, or 6 rows of 4), the die's cell (``b4`` or an
        index; None before it is placed) and pose (a :class:`Die` or ``top=3 north=2``).

        Impossible positions raise :class:`~rules.base.LayoutError`: a maze that needs more than four coins of
        one value, a cell off the grid, a die pose that no die of the arrangement can take, or a die
        without a place (or a place without a die).
        """
        arr = arrangement_named(arrangement)
        values = check_grid(grid)
        if (cell is None) != (die is None):
            raise LayoutError("give both the die's cell and its pose, or neither (before the die is placed)")
        if cell is None:
            return cls(values, None, None, arr.name)
        index = parse_cell(cell)
        pose = Die.parse(die, arr) if isinstance(die, str) else die
        if not isinstance(pose, Die):
            raise LayoutError(f"the die's pose must be a Die or text like 'top=3 north=2', not {die!r}")
        return cls(values, index, arr.check(pose), arr.name)

    def to_layout(self) -> dict:
        """Plain JSON-ready data with ``State.from_layout(**state.to_layout()) == state``."""
        return {"grid": list(self.grid), "cell": None if self.cell is None else cell_name(self.cell),
                "die": None if self.die is None else str(self.die), "arrangement": self.arrangement}

    def retry(self) -> State:
        """A new attempt on the same maze (the seed allows infinite retries)."""
        return State(self.grid, None, None, self.arrangement)

    @property
    def die_arrangement(self) -> DieArrangement:
        return arrangement_named(self.arrangement)

    # -- rules

    def _tip_problem(self, direction: Direction) -> str | None:
        """Why the die cannot tip ``direction`` now, or None when it can."""
        if self.cell is None or self.die is None:
            return "place the die on the start barrel (a6, the northwest coin) first"
        if self.cell == EXIT:
            return "the die has rolled out at the exit barrel: the room is done"
        target = neighbour(self.cell, direction)
        if target is None:
            return (f"the die cannot tip {direction.value}: there is no barrel {direction.value} of "
                    f"{cell_name(self.cell)}")
        top, coin = self.die.top, self.grid[target]
        if top == 0 or coin == 0 or top == coin:
            return None
        return (f"the die cannot tip {direction.value} onto the {rank_name(coin).lower()} barrel at "
                f"{cell_name(target)}: it shows {rank_name(top).lower()} on top, so it may only tip onto a "
                f"{rank_name(top).lower()} or a null barrel")

    def legal_moves(self) -> list[Move]:
        if self.cell is None:
            return [Move.start(d) for d in self.die_arrangement.orientations()]
        return [Move.tip(d) for d in Direction if self._tip_problem(d) is None]

    def apply(self, move: Move | str) -> State:
        m = Move.parse(move, self.arrangement) if isinstance(move, str) else move
        if m.kind == "start":
            if self.cell is not None:
                raise IllegalMove("the die is already in the maze: once it rolls you may only tip it "
                                  "(start a new attempt to place it again)", m)
            assert m.die is not None
            if m.die not in self.die_arrangement.orientations():
                raise IllegalMove(f"no {self.arrangement} die can lie {m.die}", m)
            return State(self.grid, START, m.die, self.arrangement)
        assert m.direction is not None
        problem = self._tip_problem(m.direction)
        if problem is not None:
            raise IllegalMove(problem, m)
        assert self.cell is not None and self.die is not None
        target = neighbour(self.cell, m.direction)
        assert target is not None
        return State(self.grid, target, self.die.tipped(m.direction), self.arrangement)

    def successors(self) -> list[tuple[Move, State]]:
        return [(m, self.apply(m)) for m in self.legal_moves()]

    def is_over(self) -> bool:
        """At the exit barrel, or forced to stop (no tip is legal)."""
        if self.cell is None:
            return False
        return self.cell == EXIT or not self.legal_moves()

    def won(self) -> bool:
        return self.cell == EXIT

    def score(self) -> int:
        """The room's score if the player stops here (0 at the exit)."""
        return exit_path(self.grid, START if self.cell is None else self.cell)[1]

    # -- display

    def render(self) -> str:
        """A text board: coin values, the die's coin in brackets, then the die's pose."""
        lines = ["    a   b   c   d"]
        for row in range(HEIGHT):
            parts = []
            for col in range(WIDTH):
                i = row * WIDTH + col
                v = str(self.grid[i]) if self.grid[i] else "n"
                parts.append(f"[{v}]" if i == self.cell else f" {v} ")
            lines.append(f"{HEIGHT - row}  " + " ".join(parts))
        if self.cell is None:
            lines.append("die: not placed yet (start on a6, exit at d1)")
        else:
            lines.append(f"die on {cell_name(self.cell)}: {self.die}"
                         + (" — out at the exit!" if self.cell == EXIT else ""))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def exit_path(grid: Sequence[int], cell: int) -> tuple[tuple[int, ...], int]:
    """The scoring path from ``cell`` to the exit and its score.

    Among the shortest orthogonal paths (the die rules ignored) the one with the lowest sum of coin values,
    counting the exit but not ``cell`` itself. Returns (cells after ``cell`` up to the exit, score);
    ``((), 0)`` at the exit.
    """
    # Every shortest path to the south-east corner only steps south or east, so a dynamic programme over the
    # rectangle between the cell and the exit finds the cheapest one.
    row0, col0 = divmod(cell, WIDTH)
    best: dict[int, tuple[int, tuple[int, ...]]] = {EXIT: (grid[EXIT], (EXIT,))}
    for row in range(HEIGHT - 1, row0 - 1, -1):
        for col in range(WIDTH - 1, col0 - 1, -1):
            i = row * WIDTH + col
            if i == EXIT:
                continue
            options = [best[n] for n in (i + WIDTH if row + 1 < HEIGHT else None, i + 1 if col + 1 < WIDTH else None)
                       if n is not None]
            cost, path = min(options)
            best[i] = (cost + grid[i], (i, *path))
    if cell == EXIT:
        return (), 0
    cost, path = best[cell]
    return path[1:], cost - grid[cell]


# ------------------------------------------------------------------------------------------------ solver


@dataclass(frozen=True)
class BarrelSolution:
    """What :func:`solve` found.

    ``reachable``: the exit can be reached. ``moves``: the shortest way to the exit (from an unplaced die,
    starting with the best start pose), else the shortest way to the best place to give up. ``score`` the
    room score at the end of ``moves``. ``winning_starts``: from an unplaced die, every start pose that can
    reach the exit. ``states_searched``: (cell, pose) pairs visited.
    """

    reachable: bool
    moves: tuple[Move, ...]
    score: int
    states_searched: int
    winning_starts: tuple[Die, ...] = field(default=())


def solve(state: State) -> BarrelSolution:
    """Breadth-first search over (cell, die pose): can the die still reach the exit, and how.

    At most 24 cells x 24 poses, so the search is exhaustive. If the exit is out of reach it returns the
    cheapest place the die can reach and stop at (ties: fewest tips).
    """
    Node = tuple[int, Die]
    parent: dict[Node, tuple[Node | None, Move]] = {}
    frontier: deque[Node] = deque()
    if state.cell is None:
        for move in state.legal_moves():
            assert move.die is not None
            node = (START, move.die)
            parent[node] = (None, move)
            frontier.append(node)
    else:
        assert state.die is not None
        root = (state.cell, state.die)
        parent[root] = (None, Move.tip(Direction.NORTH))  # placeholder: the root has no move
        frontier.append(root)
    order: list[Node] = []
    while frontier:
        node = frontier.popleft()
        order.append(node)
        cell, die = node
        if cell == EXIT:
            continue
        for d in Direction:
            target = neighbour(cell, d)
            if target is None:
                continue
            coin = state.grid[target]
            if not (die.top == 0 or coin == 0 or die.top == coin):
                continue
            nxt = (target, die.tipped(d))
            if nxt not in parent:
                parent[nxt] = (node, Move.tip(d))
                frontier.append(nxt)

    def path_to(node: Node) -> tuple[Move, ...]:
        moves: list[Move] = []
        cur: Node | None = node
        while cur is not None:
            prev, move = parent[cur]
            if prev is not None or state.cell is None:
                moves.append(move)
            cur = prev
        return tuple(reversed(moves))

    scores = {cell: exit_path(state.grid, cell)[1] for cell in {n[0] for n in order}}
    # the exit first among equal scores (a null exit can make a stop next to it score 0 too), then fewest tips
    best = min(order, key=lambda n: (scores[n[0]], n[0] != EXIT))
    winning: tuple[Die, ...] = ()
    if state.cell is None:
        starts = set()
        for node in order:
            if node[0] == EXIT:
                first = path_to(node)[0]
                assert first.die is not None
                starts.add(first.die)
        winning = tuple(sorted(starts))
    return BarrelSolution(best[0] == EXIT, path_to(best), scores[best[0]], len(order), winning)


# ------------------------------------------------------------------------------------------------ explain


def explain(before: State, after: State, max_moves: int = 3, observed: bool = False) -> Explanation:
    """The legal tip(s) (or start) that turn ``before`` into ``after``, or why none does.

    With ``observed=True`` only what a camera looking down sees is compared: the die's coin and the face on
    top (its side faces may be hidden or unread).
    """
    if before.grid != after.grid:
        return Explanation(reason="the barrels changed: coins may not move during Roll Out the Barrels")
    if before.arrangement != after.arrangement:
        return Explanation(reason="the two positions use different dice")

    def seen(s: State) -> tuple[int | None, int | None]:
        return s.cell, None if s.die is None else s.die.top

    same = (lambda a, b: seen(a) == seen(b)) if observed else None
    moves = search_moves(before, after, State.successors, max_moves, same=same)
    if moves is not None:
        return Explanation(moves=tuple(moves))
    if after.cell == START and after.die is not None and before.cell is not None:
        return Explanation(reason="the die went back to the start barrel by hand: that is a retry (a new "
                                  "attempt), not a tip")
    if after.cell is None:
        return Explanation(reason="the die left the maze: a retry starts a new attempt")
    return Explanation(reason=f"no legal sequence of up to {max_moves} tips brings the die to "
                              f"{cell_name(after.cell)} ({after.die})")
