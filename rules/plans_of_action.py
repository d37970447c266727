"""Plans of Action (L. Edward Pulley, 2003/2004): a solitaire of jumping coins and moving tiles.

The board
    The 16 tiles lie grid side up in a 4x4 block: 8x8 cells. Cells use PPN coordinates ``(x, y)``, x to the
    right, y up, ``(1, 1)`` the bottom-left cell of the block (algebraic ``a1``). A tile covers 2x2 cells and is
    named by its centre, a half-integer point: the block's tiles are centred at x, y in {1.5, 3.5, 5.5, 7.5}.

Tile-spaces beyond the block (decision)
    Tiles only ever sit on the *tile-space lattice* of the starting block: centres at ``1.5 + 2k`` on each axis
    for any integer k, so the block continues with ``9.5, 11.5, ...`` to the right/top and ``-0.5, -2.5, ...``
    to the left/bottom (cells x = 9, 10 or x = -1, 0 and so on; cell coordinates may be zero or negative). The
    seed's example shifts tiles "to the next available tile-space at the end of its row" (step 11): with no empty
    tile-space inside the full block, a shifted tile goes just past the block's edge, the tile grid grows and the
    tile leaves a hole that later shifts can fill (steps 14, 16, 19). Tiles need not stay in one block.

Set-up
    The 24 coins lie suit side up in the centre 6x4 cells (x = 2..7, y = 3..6). The PPN ``GameType`` parameter
    ``Coins: SASASS/MMACSS/CACCAA/MCMCMM`` gives them row by row, rows y = 6, 5, 4, 3 (top first), each read
    left to right over x = 2..7, letters S M C A (:meth:`State.from_ppn_coins`). The seed's colours are a
    different set's (red, black, blue, yellow); its example's set-up picture is lost and the PPN set-up above
    does not fit the example's narrative under any matching of colours to suits (checked by search), so the
    tests rebuild the example's situations (steps 2-5, 10-14, 16, 19, 21) in positions of their own.
    :func:`random_coins` draws a random set-up string, as the seed asks ("randomly place the 24 coins").

A jump (decision: the seed's "jump N spaces" means jump *over* N spaces)
    A coin jumps along its row or column. Let N be the number of coins of its suit in that row (for a jump left
    or right) or column (up or down), counting itself. The coin jumps over exactly N cells, whatever is on them
    (coins, empty cells, empty tile-spaces, nothing at all), and lands on the next cell: N + 1 cells away. The
    landing cell must be an empty cell of a tile: not a coin, not an empty tile-space, not off the board. This
    follows the seed's wording ("a Red coin Jumps over a space. Since it was the only coin in its column, it
    could only Jump one space"; "it Jumped over two other spaces, because there are two Red coins in the row";
    "it jumped over three spaces") and the Plans of Action example game published with the PPN specification
    (ppgames documentation, ludism wiki), whose jumps (``(5,3)-4U`` for a crowns coin with three crowns in its
    column, ``(3,3)-2L`` for a lone crowns coin) move N + 1 cells. That whole record (set-up
    ``SASASS/MMACSS/CACCAA/MCMCMM``, the all-four-suits variant) replays legally here, 59 moves, once its
    brace-expanded steps such as ``({2..7},3)-2D`` are read as one jump per coin (each of those coins is alone
    of its suit in its column, so each jumps 2 cells). Reading "jump N spaces" as "move N cells" makes that
    record illegal from its first move.

Rotating and shifting a tile
    A fully loaded tile (a coin on each of its four cells) may instead be rotated 90, 180 or 270 degrees
    clockwise (its coins turn with it) or shifted orthogonally, with its coins, to the next empty tile-space in
    that direction: the nearest tile-space on that line holding no tile, passing over any tiles between. After a
    rotation or a shift, the next move must be a jump of a coin on that tile (``State.pending``); later moves are
    free. Decision: a rotation or shift is legal only when a coin of that tile can then jump, so play never
    reaches a position where the obligation cannot be met. A 180-degree turn that leaves the coins' suits where
    they were is still a move (it counts, and it sets the obligation).

Goal and score
    The puzzle is solved when all six coins of one suit form one orthogonally connected group (``goal="one"``,
    the default) or when all four suits do (``goal="all"``, the seed's variant and the author's preferred game).
    The seed says "lined up orthogonally with other coins of the same color ... linked up by row or column, but
    not diagonally": any orthogonally connected shape counts (a later wiki rewrite says "line up in one row or
    column"; we follow the seed).
    The score is the number of moves made (:attr:`State.moves`), lower is better; every jump, rotation and shift
    counts as one move. Decision: the puzzle is solved the moment the coins are so arranged, even if a rotation or
    shift did it and its coin has not jumped yet. Once solved, no further moves are legal.

Text forms of moves (``str(move)``, parsed back by :meth:`Move.parse`; all valid PPN)
    * jump ``(5,3)-4U``: the coin on (5, 3) moves 4 cells up (directions U D L R; parse also takes N S E W,
      a destination ``(5,3)-(5,7)`` and algebraic ``e3-e7``);
    * rotation ``5(5.5,5.5)$>90``: the five pieces at (5.5, 5.5), the tile and its four coins, turn 90 degrees
      clockwise about the tile's centre (parse also takes it without the ``5`` and with a trailing ``!``);
    * shift ``5(7.5,5.5)-2R``: the tile centred at (7.5, 5.5) and its coins move 2 cells right, to (9.5, 5.5).
      The destination is written relative because in PPN ``5(7.5,5.5)-(9.5,5.5)`` would move all five pieces to
      that one point; parse still takes the absolute form.

explain(before, after) and bookkeeping
    The camera sees where the tiles and coins are, not the pending obligation nor the move count.
    :func:`explain` compares tiles and coins only, ignores ``after``'s ``pending`` and ``moves``, and searches
    from ``before`` with ``before``'s obligation, so a quick rotate-and-jump seen as one change is found as those
    two moves. Tiles carry no identity here (grid side up they look alike), so a change is described by where
    tiles and coins lie. A 180-degree rotation that leaves every suit in place looks like no change: the camera
    loop cannot see it, and its obligation is not tracked until the next change.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.pieces import SUITS, Suit

__all__ = [
    "NAME",
    "COINS_PER_SUIT",
    "TILE_COUNT",
    "EXAMPLE_COINS",
    "DIRECTIONS",
    "Move",
    "Jump",
    "Rotate",
    "Shift",
    "State",
    "explain",
    "random_coins",
    "tile_centre",
    "format_point",
]

NAME = "plans-of-action"
COINS_PER_SUIT = 6
TILE_COUNT = 16
#: The set-up of the seed's sample game as given in the PPN summary (rows y = 6..3, x = 2..7).
EXAMPLE_COINS = "SASASS/MMACSS/CACCAA/MCMCMM"
DIRECTIONS: dict[str, tuple[int, int]] = {"U": (0, 1), "D": (0, -1), "L": (-1, 0), "R": (1, 0)}
_COMPASS = {"N": "U", "S": "D", "W": "L", "E": "R"}
_WORDS = {"U": "up", "D": "down", "L": "left", "R": "right"}
ANGLES = (90, 180, 270)
GOALS = ("one", "all")

Cell = tuple[int, int]
#: A tile is named inside this module by its bottom-left cell (odd coordinates); its centre is that + 0.5.
Corner = tuple[int, int]


# --------------------------------------------------------------------------- coordinates
def format_point(value: float) -> str:
    """``5`` -> ``"5"``, ``5.5`` -> ``"5.5"``, ``-0.5`` -> ``"-0.5"``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def tile_centre(corner: Corner) -> tuple[float, float]:
    """The PPN centre of the tile whose bottom-left cell is ``corner``."""
    return (corner[0] + 0.5, corner[1] + 0.5)


def _cell_text(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _tile_text(corner: Corner) -> str:
    cx, cy = tile_centre(corner)
    return f"({format_point(cx)},{format_point(cy)})"


def _corner_of_centre(cx: float, cy: float) -> Corner:
    """Bottom-left cell of the tile centred at (cx, cy); LayoutError off the tile-space lattice."""
    corner = (cx - 0.5, cy - 0.5)
    if not all(float(v).is_integer() and int(v) % 2 == 1 for v in corner):
        raise LayoutError(f"a tile centred at ({format_point(cx)},{format_point(cy)}) is off the tile grid: "
                          f"tile centres lie every two cells, at ..., -0.5, 1.5, 3.5, 5.5, 7.5, 9.5, ...")
    return (int(corner[0]), int(corner[1]))


def _corner_of_cell(cell: Cell) -> Corner:
    """The lattice corner of the tile-space containing ``cell``."""
    return (cell[0] - (cell[0] - 1) % 2, cell[1] - (cell[1] - 1) % 2)


def _tile_cells(corner: Corner) -> tuple[Cell, Cell, Cell, Cell]:
    x, y = corner
    return ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1))


_NUM = r"-?\d+(?:\.\d+)?"
_POINT_RE = re.compile(rf"^\(\s*({_NUM})\s*,\s*({_NUM})\s*\)$")
_ALG_RE = re.compile(r"^([a-z])(\d+)$", re.IGNORECASE)


def _parse_point(text: str) -> tuple[float, float]:
    text = text.strip()
    m = _POINT_RE.match(text)
    if m:
        return (float(m.group(1)), float(m.group(2)))
    m = _ALG_RE.match(text)
    if m:
        return (float(ord(m.group(1).lower()) - ord("a") + 1), float(m.group(2)))
    raise RulesError(f"cannot read the location {text!r}: write it like (5,3), e3 or (5.5,5.5)")


def _parse_cell(text: str | Cell) -> Cell:
    if not isinstance(text, str):
        return (int(text[0]), int(text[1]))
    x, y = _parse_point(text)
    if not (x.is_integer() and y.is_integer()):
        raise RulesError(f"{text!r} is not a cell: cells have whole coordinates like (5,3)")
    return (int(x), int(y))


def _parse_tile(value: str | tuple[float, float]) -> Corner:
    x, y = _parse_point(value) if isinstance(value, str) else (float(value[0]), float(value[1]))
    return _corner_of_centre(x, y)


def _parse_suit(value: object) -> Suit:
    if isinstance(value, Suit):
        return value
    try:
        return Suit.parse(str(value))
    except ValueError as err:
        raise LayoutError(str(err)) from None


def _direction_of(delta: tuple[int, int]) -> tuple[str, int] | None:
    dx, dy = delta
    if dx == 0 and dy != 0:
        return ("U" if dy > 0 else "D", abs(dy))
    if dy == 0 and dx != 0:
        return ("R" if dx > 0 else "L", abs(dx))
    return None


# --------------------------------------------------------------------------- moves
class Move:
    """A Plans of Action move: a :class:`Jump`, :class:`Rotate` or :class:`Shift`."""

    @staticmethod
    def parse(text: str) -> Move:
        """Read a move's text form (see the module docstring); RulesError when it cannot be read."""
        t = text.strip().rstrip("!").strip()
        if not t:
            raise RulesError("cannot read an empty move: write a jump like (5,3)-4U")
        m = re.match(rf"^(?:5\s*)?(\(\s*{_NUM}\s*,\s*{_NUM}\s*\))\s*\$>\s*(\d+)$", t)
        if m:
            return Rotate(_parse_tile(m.group(1)), int(m.group(2)))
        m = re.match(rf"^(5\s*)?(\(\s*{_NUM}\s*,\s*{_NUM}\s*\)|[a-z]\d+)\s*-\s*(.+)$", t, re.IGNORECASE)
        if not m:
            raise RulesError(f"cannot read the move {text!r}: write a jump like (5,3)-4U, a rotation like "
                             f"5(5.5,5.5)$>90 or a shift like 5(7.5,5.5)-2R")
        origin = _parse_point(m.group(2))
        rest = m.group(3).strip()
        rel = re.match(r"^(\d+)\s*([UDLRNSEW])$", rest, re.IGNORECASE)
        if rel:
            n, d = int(rel.group(1)), rel.group(2).upper()
            d = _COMPASS.get(d, d)
            dx, dy = DIRECTIONS[d]
            dest = (origin[0] + n * dx, origin[1] + n * dy)
        else:
            dest = _parse_point(rest)
        is_tile = not (origin[0].is_integer() and origin[1].is_integer())
        if is_tile:
            return Shift(_corner_of_centre(*origin), _corner_of_centre(*dest))
        if m.group(1):
            raise RulesError(f"{text!r}: the 5 before a location means a tile and its four coins; "
                             f"tiles are named by their centres like (5.5,5.5)")
        src = (int(origin[0]), int(origin[1]))
        if not (dest[0].is_integer() and dest[1].is_integer()):
            raise RulesError(f"{text!r}: a coin lands on a cell, with whole coordinates")
        found = _direction_of((int(dest[0]) - src[0], int(dest[1]) - src[1]))
        if found is None:
            raise RulesError(f"{text!r}: a coin jumps along its row or column, not diagonally")
        return Jump(src, found[0], found[1])


@dataclass(frozen=True, order=True)
class Jump(Move):
    """The coin on ``start`` moves ``distance`` cells in ``direction`` (``U D L R``)."""

    start: Cell
    direction: str
    distance: int

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise RulesError(f"unknown direction {self.direction!r}: use U, D, L or R")
        if self.distance < 1:
            raise RulesError("a jump moves the coin at least one cell")

    @property
    def target(self) -> Cell:
        dx, dy = DIRECTIONS[self.direction]
        return (self.start[0] + self.distance * dx, self.start[1] + self.distance * dy)

    def __str__(self) -> str:
        return f"{_cell_text(self.start)}-{self.distance}{self.direction}"

    def describe(self) -> str:
        return f"jump the coin on {_cell_text(self.start)} {_WORDS[self.direction]} to {_cell_text(self.target)}"


@dataclass(frozen=True, order=True)
class Rotate(Move):
    """The tile with bottom-left cell ``tile`` turns ``angle`` degrees clockwise with its coins."""

    tile: Corner
    angle: int

    def __str__(self) -> str:
        return f"5{_tile_text(self.tile)}$>{self.angle}"

    def describe(self) -> str:
        return f"rotate the tile at {_tile_text(self.tile)} {self.angle} degrees clockwise"


@dataclass(frozen=True, order=True)
class Shift(Move):
    """The tile with bottom-left cell ``tile`` moves with its coins to the tile-space with corner ``to``."""

    tile: Corner
    to: Corner

    def __str__(self) -> str:
        # Relative, in cells: under PPN's semantics an absolute destination ``5(7.5,5.5)-(9.5,5.5)`` would put
        # the tile and its four coins on one point; ``-2R`` moves all five by the same offset.
        found = _direction_of((self.to[0] - self.tile[0], self.to[1] - self.tile[1]))
        if found is None:  # not a shift the rules allow (apply says why); keep a form that parses back
            return f"5{_tile_text(self.tile)}-{_tile_text(self.to)}"
        return f"5{_tile_text(self.tile)}-{found[1]}{found[0]}"

    def describe(self) -> str:
        return f"shift the tile at {_tile_text(self.tile)} to {_tile_text(self.to)}"


def random_coins(seed: int | None = None) -> str:
    """A random set-up as a PPN ``Coins`` string (``seed`` makes it repeatable)."""
    letters = [s.letter for s in SUITS for _ in range(COINS_PER_SUIT)]
    random.Random(seed).shuffle(letters)
    return "/".join("".join(letters[i:i + 6]) for i in range(0, 24, 6))


# --------------------------------------------------------------------------- state
def _block_tiles() -> frozenset[Corner]:
    return frozenset((x, y) for x in (1, 3, 5, 7) for y in (1, 3, 5, 7))


def _connected(cells: list[Cell]) -> bool:
    """Whether the cells form one orthogonally connected group."""
    if not cells:
        return False
    remaining = set(cells)
    stack = [remaining.pop()]
    while stack:
        x, y = stack.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in remaining:
                remaining.discard(n)
                stack.append(n)
    return not remaining


@dataclass(frozen=True)
class State:
    """A Plans of Action position: tiles, coins, the pending obligation, the move count and the goal."""

    tiles: frozenset[Corner]
    coins: tuple[tuple[Cell, Suit], ...]
    pending: Corner | None = None
    moves: int = 0
    goal: str = "one"
    _at: dict[Cell, Suit] = field(init=False, compare=False, repr=False)
    _cells: frozenset[Cell] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Caches derived from the fields (so not compared): cell -> suit, and the cells covered by tiles.
        object.__setattr__(self, "_at", dict(self.coins))
        object.__setattr__(self, "_cells", frozenset(c for t in self.tiles for c in _tile_cells(t)))

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_layout(
        cls,
        coins: Mapping[Cell | str, Suit | str] | Iterable[tuple[Cell | str, Suit | str]],
        tiles: Iterable[tuple[float, float] | str] | None = None,
        pending: tuple[float, float] | str | None = None,
        moves: int = 0,
        goal: str = "one",
    ) -> State:
        """Any position. ``coins`` maps cells (``(x, y)``, ``"(x,y)"`` or ``"e3"``) to suits, or lists (cell, suit).

        ``tiles`` are the 16 tile centres (default: the 4x4 block); ``pending`` the centre of the tile whose coin
        must jump next; ``moves`` the moves made so far; ``goal`` ``"one"`` or ``"all"``. Raises
        :class:`LayoutError` for a position that cannot exist: a tile off the tile grid or two on one
        tile-space, not 16 tiles, a coin off the tiles, two coins on one cell, not six coins of each suit.
        """
        if goal not in GOALS:
            raise LayoutError(f"unknown goal {goal!r}: use 'one' (one suit connected) or 'all' (all four)")
        if tiles is None:
            corners = _block_tiles()
        else:
            seen: set[Corner] = set()
            for t in tiles:
                corner = _parse_tile(t)
                if corner in seen:
                    raise LayoutError(f"two tiles are on the tile-space at {_tile_text(corner)}")
                seen.add(corner)
            corners = frozenset(seen)
        if len(corners) != TILE_COUNT:
            raise LayoutError(f"Plans of Action uses all {TILE_COUNT} tiles, but the layout has {len(corners)}")
        covered = {c for t in corners for c in _tile_cells(t)}
        items = coins.items() if isinstance(coins, Mapping) else coins
        at: dict[Cell, Suit] = {}
        for raw_cell, raw_suit in items:
            try:
                cell = _parse_cell(raw_cell)
            except RulesError as err:
                raise LayoutError(str(err)) from None
            suit = _parse_suit(raw_suit)
            if cell not in covered:
                raise LayoutError(f"a coin at {_cell_text(cell)} is off the tiles: coins lie only on tiles")
            if cell in at:
                raise LayoutError(f"two coins are on {_cell_text(cell)}")
            at[cell] = suit
        for suit in SUITS:
            n = sum(1 for s in at.values() if s is suit)
            if n != COINS_PER_SUIT:
                raise LayoutError(f"Plans of Action uses all 24 coins, {COINS_PER_SUIT} of each suit, "
                                  f"but the layout has {n} {suit.value}")
        pend: Corner | None = None
        if pending is not None:
            pend = _parse_tile(pending)
            if pend not in corners:
                raise LayoutError(f"the tile whose coin must jump next, at {_tile_text(pend)}, is not there")
            if not all(c in at for c in _tile_cells(pend)):
                raise LayoutError(f"the tile at {_tile_text(pend)} was just rotated or shifted, "
                                  f"so it must hold four coins")
        if moves < 0:
            raise LayoutError("the number of moves made cannot be negative")
        return cls(corners, tuple(sorted(at.items())), pend, moves, goal)

    @classmethod
    def from_ppn_coins(cls, coins: str = EXAMPLE_COINS, goal: str = "one") -> State:
        """The set-up from a PPN ``Coins`` string: rows y = 6, 5, 4, 3 of letters S M C A over x = 2..7."""
        rows = [r.strip() for r in coins.strip().strip('"').split("/")]
        if len(rows) != 4 or any(len(r) != 6 for r in rows):
            raise LayoutError(f"a Plans of Action Coins string has 4 rows of 6 letters S, M, C, A separated by "
                              f"'/', like {EXAMPLE_COINS}; got {coins!r}")
        layout = {}
        for r, row in enumerate(rows):
            for i, letter in enumerate(row):
                layout[(2 + i, 6 - r)] = _parse_suit(letter)
        return cls.from_layout(layout, goal=goal)

    @classmethod
    def initial(cls, coins: str = EXAMPLE_COINS, goal: str = "one") -> State:
        """The set-up: the 4x4 block of tiles and the coins of a PPN ``Coins`` string (default the PPN example)."""
        return cls.from_ppn_coins(coins, goal=goal)

    @classmethod
    def from_diagram(cls, diagram: str, origin: Cell = (1, 1), **kwargs: object) -> State:
        """A position drawn as rows, top first (``/`` or newlines between rows; ``origin`` is the bottom-left).

        ``S M C A`` a coin, ``.`` an empty cell of a tile, ``-`` a cell without tile. Tiles are read from the
        cells: every 2x2 tile-space must be all tile cells or all ``-``. The layout :meth:`diagram` draws.
        """
        rows = [r.replace(" ", "") for r in re.split(r"[/\n]", diagram.strip()) if r.strip()]
        if not rows or len({len(r) for r in rows}) != 1:
            raise LayoutError("every row of a Plans of Action diagram has the same number of cells")
        ox, oy = origin
        tile_cells: set[Cell] = set()
        coins: list[tuple[Cell, Suit]] = []
        for r, row in enumerate(rows):
            y = oy + len(rows) - 1 - r
            for i, ch in enumerate(row):
                cell = (ox + i, y)
                if ch == "-":
                    continue
                tile_cells.add(cell)
                if ch != ".":
                    coins.append((cell, _parse_suit(ch)))
        corners = {_corner_of_cell(c) for c in tile_cells}
        for corner in corners:
            if not all(c in tile_cells for c in _tile_cells(corner)):
                raise LayoutError(f"the tile-space at {_tile_text(corner)} is only partly covered in the diagram: "
                                  f"tiles cover 2x2 cells on the grid of the starting block")
        return cls.from_layout(coins, tiles=[tile_centre(c) for c in corners], **kwargs)  # type: ignore[arg-type]

    # ----------------------------------------------------------------- queries
    def coin_at(self, cell: Cell | str) -> Suit | None:
        return self._at.get(_parse_cell(cell))

    def coin_map(self) -> dict[Cell, Suit]:
        return dict(self._at)

    def tile_centres(self) -> list[tuple[float, float]]:
        return [tile_centre(t) for t in sorted(self.tiles)]

    def has_tile_at(self, cell: Cell) -> bool:
        """Whether ``cell`` lies on a tile."""
        return cell in self._cells

    def bounds(self) -> tuple[int, int, int, int]:
        """``(x_min, y_min, x_max, y_max)`` of the cells covered by tiles."""
        xs = [c[0] for c in self._cells]
        ys = [c[1] for c in self._cells]
        return (min(xs), min(ys), max(xs), max(ys))

    def diagram(self) -> str:
        """Rows top first, ``/``-separated: coin letters, ``.`` an empty tile cell, ``-`` no tile.

        Covers the tiles' bounding box; its bottom-left cell is ``bounds()[:2]`` (pass it as ``origin`` to
        :meth:`from_diagram`).
        """
        x0, y0, x1, y1 = self.bounds()
        rows = []
        for y in range(y1, y0 - 1, -1):
            row = []
            for x in range(x0, x1 + 1):
                s = self._at.get((x, y))
                row.append(s.letter if s else ("." if (x, y) in self._cells else "-"))
            rows.append("".join(row))
        return "/".join(rows)

    def __str__(self) -> str:
        return self.diagram()

    def __repr__(self) -> str:
        x0, y0, _, _ = self.bounds()
        extra = f" pending={_tile_text(self.pending)}" if self.pending is not None else ""
        return f"<State {self.diagram()} origin=({x0},{y0}) moves={self.moves} goal={self.goal}{extra}>"

    def line_count(self, cell: Cell, direction: str) -> int:
        """Coins of the suit on ``cell`` in its row (direction L/R) or column (U/D), counting itself."""
        suit = self._at[cell]
        if direction in ("L", "R"):
            return sum(1 for (x, y), s in self.coins if y == cell[1] and s is suit)
        return sum(1 for (x, y), s in self.coins if x == cell[0] and s is suit)

    def jump_distance(self, cell: Cell, direction: str) -> int:
        """How far the coin on ``cell`` must jump that way: over N cells (N coins of its suit in line), N + 1."""
        return self.line_count(cell, direction) + 1

    def is_loaded(self, corner: Corner) -> bool:
        """Whether the tile holds a coin on each of its four cells."""
        return corner in self.tiles and all(c in self._at for c in _tile_cells(corner))

    def solved_suits(self) -> tuple[Suit, ...]:
        """Suits whose six coins form one orthogonally connected group."""
        return tuple(s for s in SUITS if _connected([c for c, x in self.coins if x is s]))

    def is_solved(self) -> bool:
        solved = self.solved_suits()
        return bool(solved) if self.goal == "one" else len(solved) == len(SUITS)

    def is_over(self) -> bool:
        """Solved, or stuck with no legal move."""
        return self.is_solved() or not self.legal_moves()

    @property
    def score(self) -> int:
        """Moves made so far (the score once solved: lower is better)."""
        return self.moves

    def result(self) -> str:
        if self.is_solved():
            names = " and ".join(s.value for s in self.solved_suits())
            return f"solved in {self.moves} moves ({names} connected)"
        if not self.legal_moves():
            return f"stuck after {self.moves} moves: no legal move is left"
        return f"not solved yet after {self.moves} moves"

    # ----------------------------------------------------------------- moves
    def _jump_ok(self, cell: Cell, direction: str) -> Jump | None:
        move = Jump(cell, direction, self.jump_distance(cell, direction))
        target = move.target
        if target in self._cells and target not in self._at:
            return move
        return None

    def _jumps_from(self, cells: Iterable[Cell]) -> list[Jump]:
        out = []
        for cell in cells:
            for direction in DIRECTIONS:
                move = self._jump_ok(cell, direction)
                if move is not None:
                    out.append(move)
        return out

    def shift_destination(self, corner: Corner, direction: str) -> Corner:
        """The next empty tile-space from the tile at ``corner`` in ``direction``."""
        dx, dy = DIRECTIONS[direction]
        x, y = corner
        while True:
            x, y = x + 2 * dx, y + 2 * dy
            if (x, y) not in self.tiles:
                return (x, y)

    def _after_tile_move(self, move: Rotate | Shift) -> State:
        corner = move.tile
        cx, cy = tile_centre(corner)
        moved = {c: self._at[c] for c in _tile_cells(corner)}
        rest = {c: s for c, s in self.coins if c not in moved}
        if isinstance(move, Rotate):
            new_corner = corner
            turns = move.angle // 90
            for (x, y), s in moved.items():
                dx, dy = x - cx, y - cy
                for _ in range(turns):  # clockwise seen from above, y up: (dx, dy) -> (dy, -dx)
                    dx, dy = dy, -dx
                rest[(int(cx + dx), int(cy + dy))] = s
            tiles = self.tiles
        else:
            new_corner = move.to
            ox, oy = move.to[0] - corner[0], move.to[1] - corner[1]
            for (x, y), s in moved.items():
                rest[(x + ox, y + oy)] = s
            tiles = (self.tiles - {corner}) | {move.to}
        return State(tiles, tuple(sorted(rest.items())), new_corner, self.moves + 1, self.goal)

    def _tile_moves(self) -> Iterator[tuple[Move, State]]:
        for corner in sorted(self.tiles):
            if not self.is_loaded(corner):
                continue
            candidates: list[Rotate | Shift] = [Rotate(corner, a) for a in ANGLES]
            candidates += [Shift(corner, self.shift_destination(corner, d)) for d in DIRECTIONS]
            for move in candidates:
                after = self._after_tile_move(move)
                if after._jumps_from(_tile_cells(after.pending)):  # type: ignore[arg-type]
                    yield move, after

    def legal_moves(self) -> list[Move]:
        """Every legal move (none once solved)."""
        return [m for m, _ in self.successors()]

    def successors(self) -> Iterator[tuple[Move, State]]:
        """``(move, state after it)`` for every legal move."""
        if self.is_solved():
            return
        if self.pending is not None:
            cells: Iterable[Cell] = [c for c in _tile_cells(self.pending) if c in self._at]
        else:
            cells = [c for c, _ in self.coins]
        for move in self._jumps_from(cells):
            yield move, self._after_jump(move)
        if self.pending is None:
            yield from self._tile_moves()

    def _after_jump(self, move: Jump) -> State:
        at = dict(self._at)
        at[move.target] = at.pop(move.start)
        return State(self.tiles, tuple(sorted(at.items())), None, self.moves + 1, self.goal)

    def _check(self, move: Move) -> None:
        if self.is_solved():
            raise IllegalMove(f"the puzzle is already {self.result()}", move)
        if isinstance(move, Jump):
            self._check_jump(move)
        elif isinstance(move, (Rotate, Shift)):
            self._check_tile_move(move)
        else:
            raise IllegalMove(f"{move!r} is not a Plans of Action move", move)

    def _check_jump(self, move: Jump) -> None:
        suit = self._at.get(move.start)
        if suit is None:
            raise IllegalMove(f"there is no coin on {_cell_text(move.start)} to jump", move)
        if self.pending is not None and _corner_of_cell(move.start) != self.pending:
            raise IllegalMove(f"the tile at {_tile_text(self.pending)} was just rotated or shifted, so a coin "
                              f"from that tile must jump now", move)
        n = self.line_count(move.start, move.direction)
        line = "row" if move.direction in ("L", "R") else "column"
        if move.distance != n + 1:
            mates = f"it is the only {suit.value} coin" if n == 1 else f"there are {n} {suit.value} coins"
            raise IllegalMove(f"that {suit.value} coin must jump over exactly {n} "
                              f"{'space' if n == 1 else 'spaces'} ({mates} in its {line}), landing {n + 1} "
                              f"cells away, not {move.distance}", move)
        target = move.target
        if target not in self._cells:
            raise IllegalMove(f"the coin would land on {_cell_text(target)}, where there is no tile: a coin may "
                              f"jump over an empty tile-space or the board's edge but must land on a tile", move)
        other = self._at.get(target)
        if other is not None:
            raise IllegalMove(f"a coin may not land on another coin: {_cell_text(target)} holds "
                              f"a {other.value} coin", move)

    def _check_tile_move(self, move: Rotate | Shift) -> None:
        verb = "rotate" if isinstance(move, Rotate) else "shift"
        if self.pending is not None:
            raise IllegalMove(f"a coin from the tile at {_tile_text(self.pending)} must jump before any tile may "
                              f"{verb}", move)
        if move.tile not in self.tiles:
            raise IllegalMove(f"there is no tile at {_tile_text(move.tile)}", move)
        if not self.is_loaded(move.tile):
            n = sum(1 for c in _tile_cells(move.tile) if c in self._at)
            raise IllegalMove(f"only a fully loaded tile (a coin on each of its four cells) may {verb}; the tile "
                              f"at {_tile_text(move.tile)} holds {n}", move)
        if isinstance(move, Rotate):
            if move.angle not in ANGLES:
                raise IllegalMove(f"a tile rotates 90, 180 or 270 degrees, not {move.angle}", move)
        else:
            found = _direction_of((move.to[0] - move.tile[0], move.to[1] - move.tile[1]))
            if found is None:
                raise IllegalMove("a tile shifts orthogonally, along its row or column of tiles", move)
            dest = self.shift_destination(move.tile, found[0])
            if dest != move.to:
                raise IllegalMove(f"a tile shifts to the next empty tile-space that way, which is "
                                  f"{_tile_text(dest)}, not {_tile_text(move.to)}", move)
        after = self._after_tile_move(move)
        if not after._jumps_from(_tile_cells(move.to if isinstance(move, Shift) else move.tile)):
            raise IllegalMove(f"after that {'rotation' if verb == 'rotate' else 'shift'} no coin on the tile could "
                              f"jump, and one must", move)

    def apply(self, move: Move | str) -> State:
        """The position after ``move``; raises :class:`IllegalMove` saying why when the rules forbid it."""
        m = Move.parse(move) if isinstance(move, str) else move
        self._check(m)
        if isinstance(m, Jump):
            return self._after_jump(m)
        return self._after_tile_move(m)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- explain
def _layout_key(state: State) -> tuple[frozenset[Corner], tuple[tuple[Cell, Suit], ...]]:
    return (state.tiles, state.coins)


def _single_move_guess(before: State, after: State) -> Move | None:
    """The one move (legal or not) whose shape matches the change, to say why it is illegal."""
    b, a = before.coin_map(), after.coin_map()
    gone = {c: s for c, s in b.items() if a.get(c) is not s}
    came = {c: s for c, s in a.items() if b.get(c) is not s}
    if before.tiles == after.tiles:
        if len(gone) == 1 and len(came) == 1:
            (src, s1), (dst, s2) = next(iter(gone.items())), next(iter(came.items()))
            found = _direction_of((dst[0] - src[0], dst[1] - src[1]))
            if s1 is s2 and found is not None:
                return Jump(src, found[0], found[1])
        corners = {_corner_of_cell(c) for c in (*gone, *came)}
        if len(corners) == 1:
            corner = next(iter(corners))
            for angle in ANGLES:
                move = Rotate(corner, angle)
                if before.is_loaded(corner) and _layout_key(before._after_tile_move(move)) == _layout_key(after):
                    return move
        return None
    removed, added = before.tiles - after.tiles, after.tiles - before.tiles
    if len(removed) == 1 and len(added) == 1:
        src, dst = next(iter(removed)), next(iter(added))
        if before.is_loaded(src):
            move = Shift(src, dst)
            if _layout_key(before._after_tile_move(move)) == _layout_key(after):
                return move
    return None


def explain(before: State, after: State, max_moves: int = 2) -> Explanation:
    """The legal moves (at most ``max_moves``) turning ``before``'s tiles and coins into ``after``'s, or why none.

    Only tiles and coins are compared (see the module docstring): ``after``'s ``pending`` and ``moves`` are
    ignored; the search starts from ``before`` with its obligation. Two moves by default so that a rotation or
    shift and its required jump, seen as one change, are found.
    """
    if _layout_key(before) == _layout_key(after):
        return Explanation(())
    if before.is_solved():
        return Explanation((), f"the puzzle was already {before.result()}, yet pieces moved")
    moves = search_moves(before, after, State.successors, max_moves,  # type: ignore[arg-type]
                         same=lambda x, y: _layout_key(x) == _layout_key(y))
    if moves is not None:
        return Explanation(tuple(moves))
    guess = _single_move_guess(before, after)
    if guess is not None:
        try:
            before.apply(guess)
        except IllegalMove as err:
            return Explanation((), f"{guess.describe()} is not allowed: {err.reason}")
    if before.tiles != after.tiles:
        return Explanation((), "the tiles moved in a way no legal move explains: only a fully loaded tile shifts, "
                               "with its coins, to the next empty tile-space")
    return Explanation((), f"no legal move (or sequence of up to {max_moves}) explains the change of the coins")
