"""Easy Slider (Ron and Marty Hale-Evans, version 0.3.0): the rules engine, the Caller's set-up, Done checks,
match scoring, the "Slide!" variant and a solver for hints.

The board
---------
A 5x5 grid holds the 24 tiles of one piecepack and one hole. Four pawns stand left of rows 1-4 (their suits
are the rows' target suits, top to bottom) and five coins above columns 1-5 (their values are the columns'
target ranks, ace to 5, left to right). The tile at row r, column c (r = 1..4) must be the pawn's suit with the
coin's rank; the four nulls go anywhere in the bottom row and so does the hole (the "parity sponge").

Cells have two names (:class:`Cell`):

* **algebraic, as in PPN** (used in move text): files ``a``-``e`` from left to right (x = 1..5), ranks
  ``1``-``5`` from bottom to top (y = 1..5); ``a1`` is the bottom-left cell, ``e5`` the top-right. The
  Cartesian form ``(x,y)`` is accepted too: ``(1,1)`` = ``a1``.
* **(row, col) from the top-left** (used by the vision and in the rules' wording): rows 1..5 top to bottom,
  columns 1..5 left to right. ``Cell(1, 1)`` is ``a5``; the bottom row (row 5) is rank ``1``.

Compact text (accepted by :meth:`State.from_layout`, printed by :meth:`State.board_text`)
-----------------------------------------------------------------------------------------
A tile is two characters, rank then suit letter: rank ``n`` (null), ``a`` (ace), ``2``-``5``; suit ``S`` suns,
``M`` moons, ``C`` crowns, ``A`` arms (the PPN letters). ``..`` is the hole. Suit-first tokens as in
piecepackr's records (``M2``) are read too: the two orders never clash (``aA`` and ``Aa`` are both the ace of
arms). A board is five rows of five tokens, top row first, rows separated by newlines or ``/``::

    2M 4M 5M aM 3M
    2S 4S 5S aS 3S
    2A 4A 5A aA 3A
    2C 4C 5C aC 3C
    nS nM nC nA ..

Pawns are four suit letters top to bottom (``MSAC``) and coins five ranks left to right (``245a3``).

Moves
-----
A :class:`Move` slides the tile on one cell into the orthogonally adjacent hole; its text is ``from-to`` in
algebraic cells, e.g. ``b2-b1``. :meth:`Move.parse` also reads ``b2-D`` (direction U/D/L/R or N/S/E/W, one
cell), ``(2,2)-D`` and ``(2,2)-(2,1)``.

Example::

    >>> s = State.from_layout(["2M 4M 5M aM 3M", "2S 4S 5S aS 3S", "2A 4A 5A aA 3A", "2C 4C 5C aC 3C",
    ...                        "nS nM nC .. nA"], "MSAC", "245a3")
    >>> s.is_over(), [str(m) for m in s.legal_moves()]
    (True, ['d2-d1', 'c1-d1', 'e1-d1'])
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from rules import sliding
from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.pieces import SUITS, Suit, Tile, parse_rank, rank_name, spoken_name

__all__ = [
    "SIZE",
    "Cell",
    "CELLS",
    "Move",
    "State",
    "WrongCell",
    "DoneCheck",
    "explain",
    "Call",
    "Setup",
    "round_points",
    "RoundResult",
    "Match",
    "SlideVerdict",
    "check_slide_call",
    "tile_token",
    "parse_tile",
]

SIZE = 5
_FILES = "abcde"
_ALL_TILES: tuple[Tile, ...] = tuple(Tile(s, r) for s in SUITS for r in range(6))
_RANK_CHARS = {0: "n", 1: "a", 2: "2", 3: "3", 4: "4", 5: "5"}
_HOLE_TOKENS = {".", "..", "-", "--", "_", "__", "hole", "none", ""}


# ---------------------------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Cell:
    """A cell of the 5x5 board by ``row`` (1 = top) and ``col`` (1 = left); orders in reading order.

    ``name`` is the algebraic (PPN) name: ``Cell(1, 1).name == "a5"``, ``Cell(5, 1).name == "a1"``.
    """

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (isinstance(self.row, int) and isinstance(self.col, int) and 1 <= self.row <= 5 and 1 <= self.col <= 5):
            raise RulesError(f"there is no cell at row {self.row!r}, column {self.col!r}: rows and columns are 1 to 5")

    @property
    def x(self) -> int:
        """PPN x: 1..5 from the left."""
        return self.col

    @property
    def y(self) -> int:
        """PPN y: 1..5 from the bottom."""
        return SIZE + 1 - self.row

    @property
    def index(self) -> int:
        """0..24 in reading order (row-major from the top-left), as used by :mod:`rules.sliding`."""
        return (self.row - 1) * SIZE + self.col - 1

    @property
    def name(self) -> str:
        return f"{_FILES[self.col - 1]}{self.y}"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_xy(cls, x: int, y: int) -> Cell:
        """The cell at PPN coordinates (x to the right, y up, (1,1) bottom-left)."""
        if not (isinstance(x, int) and isinstance(y, int) and 1 <= x <= 5 and 1 <= y <= 5):
            raise RulesError(f"there is no cell ({x},{y}): x and y are 1 to 5, (1,1) is the bottom-left")
        return cls(SIZE + 1 - y, x)

    @classmethod
    def from_index(cls, index: int) -> Cell:
        if not (isinstance(index, int) and 0 <= index < SIZE * SIZE):
            raise RulesError(f"a cell index is 0 to 24, not {index!r}")
        return _CELLS_BY_INDEX[index]

    @classmethod
    def parse(cls, text: str | Cell) -> Cell:
        """Read ``a1``..``e5`` (any case) or ``(x,y)``."""
        if isinstance(text, Cell):
            return text
        key = str(text).strip().lower().replace(" ", "")
        m = re.fullmatch(r"([a-e])([1-5])", key)
        if m:
            return cls.from_xy(_FILES.index(m.group(1)) + 1, int(m.group(2)))
        m = re.fullmatch(r"\((\d+),(\d+)\)", key)
        if m:
            return cls.from_xy(int(m.group(1)), int(m.group(2)))
        raise RulesError(f"cannot read the cell {text!r}: use a1 to e5 (a1 is bottom-left) or (x,y)")

    def step(self, direction: str) -> Cell | None:
        """The neighbouring cell in a direction (U/D/L/R or N/S/E/W, as seen from above), None off the board."""
        dr, dc = _DIRECTIONS[direction.strip().upper()]
        r, c = self.row + dr, self.col + dc
        return Cell(r, c) if 1 <= r <= SIZE and 1 <= c <= SIZE else None

    def neighbours(self) -> list[Cell]:
        """Orthogonal neighbours in reading order."""
        out = []
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            r, c = self.row + dr, self.col + dc
            if 1 <= r <= SIZE and 1 <= c <= SIZE:
                out.append(Cell(r, c))
        return out


_DIRECTIONS = {"U": (-1, 0), "N": (-1, 0), "D": (1, 0), "S": (1, 0), "L": (0, -1), "W": (0, -1), "R": (0, 1),
               "E": (0, 1)}
_DIRECTION_WORDS = {(-1, 0): "up", (1, 0): "down", (0, -1): "left", (0, 1): "right"}
_CELLS_BY_INDEX: tuple[Cell, ...] = tuple(Cell(r, c) for r in range(1, 6) for c in range(1, 6))
#: All 25 cells in reading order (top row first, left to right).
CELLS: tuple[Cell, ...] = _CELLS_BY_INDEX
_BOTTOM_ROW = frozenset(c for c in CELLS if c.row == SIZE)


# ---------------------------------------------------------------------------------------------------------------
# Tiles in text
# ---------------------------------------------------------------------------------------------------------------


def tile_token(tile: Tile | None) -> str:
    """Two-character text of a tile, rank then suit letter (``2M``, ``aS``, ``nC``), or ``..`` for the hole."""
    if tile is None:
        return ".."
    return f"{_RANK_CHARS[tile.rank]}{tile.suit.letter}"


def parse_tile(value: object) -> Tile | None:
    """A tile from a :class:`Tile`, a ``(suit, rank)`` pair, a token like ``2M``/``aS``/``nC`` (or suit first:
    ``M2``), or words like ``"2 of moons"``/``"Blue 5"``; None for the hole (``..``, ``.``, ``-``, None)."""
    if value is None or isinstance(value, Tile):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        try:
            return Tile(value[0], value[1])
        except ValueError as err:
            raise LayoutError(f"cannot read the tile {value!r}: {err}") from None
    if not isinstance(value, str):
        raise LayoutError(f"cannot read the tile {value!r}: write a tile as rank then suit letter, e.g. 2M, aS, nC")
    text = value.strip()
    if text.lower() in _HOLE_TOKENS:
        return None
    words = re.fullmatch(r"(\w+)\s+of\s+(\w+)", text, flags=re.IGNORECASE)
    try:
        if words:
            return Tile(words.group(2), words.group(1))
        spoken = re.fullmatch(r"([A-Za-z]+)\s+(\w+)", text)
        if spoken:
            return Tile(spoken.group(1), spoken.group(2))
        if len(text) == 2:
            first, second = text[0].upper(), text[1].lower()
            if first in "SMCA" and second in "na2345":
                return Tile(Suit.parse(first), parse_rank(second))
            if text[0].lower() in "na2345" and text[1].upper() in "SMCA":
                return Tile(Suit.parse(text[1]), parse_rank(text[0]))
    except ValueError:
        pass
    raise LayoutError(
        f"cannot read the tile {value!r}: write a tile as rank then suit letter (n, a, 2-5 then S, M, C, A), "
        "e.g. 2M, aS, nC, or .. for the hole"
    )


def _the(tile: Tile | None) -> str:
    return "the hole" if tile is None else f"the {tile}"


# ---------------------------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """Slide the tile on ``from_cell`` into the hole on ``to_cell``. Text: ``b2-b1``."""

    from_cell: Cell
    to_cell: Cell

    def __post_init__(self) -> None:
        # Accept cell names too: Move("b2", "b1").
        object.__setattr__(self, "from_cell", Cell.parse(self.from_cell))
        object.__setattr__(self, "to_cell", Cell.parse(self.to_cell))

    def __str__(self) -> str:
        return f"{self.from_cell}-{self.to_cell}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @property
    def direction(self) -> str | None:
        """``up``/``down``/``left``/``right`` for a one-cell orthogonal slide, else None."""
        return _DIRECTION_WORDS.get((self.to_cell.row - self.from_cell.row, self.to_cell.col - self.from_cell.col))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``b2-b1``, ``b2-D`` (U/D/L/R or N/S/E/W), ``(2,2)-D`` or ``(2,2)-(2,1)``."""
        key = str(text).strip().replace(" ", "")
        m = re.fullmatch(r"([a-eA-E][1-5]|\(\d+,\d+\))-(.+)", key)
        if not m:
            raise RulesError(f"cannot read the move {text!r}: write from-to, e.g. b2-b1 or (2,2)-D")
        start = Cell.parse(m.group(1))
        rest = m.group(2)
        relative = re.fullmatch(r"(\d*)([UDLRNSEWudlrnsew])", rest)
        if relative:
            if relative.group(1) not in ("", "1"):
                raise RulesError(f"cannot read the move {text!r}: a slide moves a tile one cell")
            end = start.step(relative.group(2))
            if end is None:
                raise RulesError(f"the move {text!r} would slide the tile off the board")
            return cls(start, end)
        return cls(start, Cell.parse(rest))


# ---------------------------------------------------------------------------------------------------------------
# Done checks
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrongCell:
    """A cell whose content breaks the target: ``found`` (None = the hole) and ``wanted`` (None = a null tile or
    the hole, for the bottom row)."""

    cell: Cell
    found: Tile | None
    wanted: Tile | None

    def __str__(self) -> str:
        should = "a null tile or the hole" if self.wanted is None else _the(self.wanted)
        return f"{self.cell} has {_the(self.found)}, should have {should}"

    def spoken(self) -> str:
        found = "the hole" if self.found is None else spoken_name(self.found.suit, self.found.rank)
        should = "a null" if self.wanted is None else spoken_name(self.wanted.suit, self.wanted.rank)
        return f"{self.cell.name.upper()} has {found}, should be {should}"


@dataclass(frozen=True)
class DoneCheck:
    """The verdict on a board whose player called "Done!": ``correct`` or the wrong cells in reading order."""

    correct: bool
    wrong_cells: tuple[WrongCell, ...] = ()

    def __str__(self) -> str:
        if self.correct:
            return "correct: every tile is where the pawns and coins say"
        n = len(self.wrong_cells)
        return f"fumble: {n} cell{'s are' if n != 1 else ' is'} wrong: " + "; ".join(str(w) for w in self.wrong_cells)

    def spoken(self, limit: int = 3) -> str:
        """What the announcer says: the verdict and the first ``limit`` wrong cells."""
        if self.correct:
            return "Correct!"
        said = [w.spoken() for w in self.wrong_cells[:limit]]
        more = len(self.wrong_cells) - len(said)
        if more:
            said.append(f"and {more} more cell{'s' if more > 1 else ''}")
        return "Fumble! " + ". ".join(said) + "."


# ---------------------------------------------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------------------------------------------


def _validate(board: tuple, pawns: tuple, coins: tuple) -> None:
    _validate_board(board)
    _validate_pawns_coins(pawns, coins)


def _validate_board(board: tuple) -> None:
    if len(board) != SIZE * SIZE:
        raise LayoutError(f"the board must have 25 cells (5 rows of 5), not {len(board)}")
    for i, t in enumerate(board):
        if t is not None and not isinstance(t, Tile):
            raise LayoutError(f"{CELLS[i]} holds {t!r}, which is not a tile")
    holes = [CELLS[i] for i, t in enumerate(board) if t is None]
    if not holes:
        raise LayoutError("the board has 25 tiles and no hole: Easy Slider uses 24 tiles and one hole")
    if len(holes) > 1:
        where = ", ".join(str(c) for c in holes)
        raise LayoutError(f"the board has {len(holes)} holes ({where}): it needs 24 tiles and exactly one hole")
    seen: dict[Tile, Cell] = {}
    for i, t in enumerate(board):
        if t is None:
            continue
        if t in seen:
            raise LayoutError(f"the {t} is on the board twice ({seen[t]} and {CELLS[i]}): each tile exists once")
        seen[t] = CELLS[i]


def _validate_pawns_coins(pawns: tuple, coins: tuple) -> None:
    if len(pawns) != 4:
        raise LayoutError(f"there must be 4 pawns, one beside each of rows 1 to 4, not {len(pawns)}")
    for p in pawns:
        if not isinstance(p, Suit):
            raise LayoutError(f"{p!r} is not a pawn suit")
    for a, b in itertools.combinations(range(4), 2):
        if pawns[a] == pawns[b]:
            raise LayoutError(f"the {pawns[a].colour} pawn stands beside two rows ({a + 1} and {b + 1}): "
                              "there is one pawn of each suit")
    if len(coins) != 5:
        raise LayoutError(f"there must be 5 coins, one above each column, not {len(coins)}")
    for c in coins:
        if c == 0:
            raise LayoutError("the null coin is not used: the coins above the columns are ace to 5")
        if not isinstance(c, int) or isinstance(c, bool) or not 1 <= c <= 5:
            raise LayoutError(f"{c!r} is not a coin value: the coins are ace (1) to 5")
    for a, b in itertools.combinations(range(5), 2):
        if coins[a] == coins[b]:
            raise LayoutError(f"the {rank_name(coins[a]).lower()} coin is above two columns ({a + 1} and {b + 1}): "
                              "there is one coin of each value")


def _parse_board(board: object) -> tuple[Tile | None, ...]:
    if isinstance(board, str):
        rows = [r.replace(",", " ").split() for r in re.split(r"[\n/]", board) if r.strip()]
        if len(rows) == 1:
            return tuple(parse_tile(t) for t in rows[0])
    elif isinstance(board, Iterable):
        items = list(board)
        if items and all(isinstance(r, str) and len(r.split()) > 1 for r in items):
            rows = [r.replace(",", " ").split() for r in items]  # row strings
        elif items and all(isinstance(r, (list, tuple)) and not _is_pair(r) for r in items):
            rows = [list(r) for r in items]  # rows of entries
        else:
            return tuple(parse_tile(t) for t in items)  # 25 entries in reading order
    else:
        raise LayoutError(f"cannot read a board from {type(board).__name__}: give 5 rows of 5 tiles or a text")
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        lengths = ", ".join(str(len(r)) for r in rows)
        raise LayoutError(f"the board must be 5 rows of 5 cells, not {len(rows)} rows of {lengths}")
    return tuple(parse_tile(t) for r in rows for t in r)


def _is_pair(r: object) -> bool:
    """A (suit, rank) pair rather than a row of tiles."""
    return isinstance(r, tuple) and len(r) == 2 and not isinstance(r[0], (list, tuple, Tile))


#: Colour initials as in the rules' diagram ("K = black pawn"), accepted for pawns.
_PAWN_INITIALS = {"R": Suit.SUNS, "K": Suit.MOONS, "G": Suit.CROWNS, "B": Suit.ARMS}


def _split_letters(text: str, is_word) -> list[str]:
    """``"MSAC"`` -> letters; ``"moons, suns ..."`` -> words; a single known word (``"arms"``) stays a word."""
    words = text.replace(",", " ").split()
    if len(words) == 1 and len(words[0]) > 1:
        try:
            is_word(words[0])
        except ValueError:
            return list(words[0])
    return words


def _parse_pawns(pawns: object) -> tuple[Suit, ...]:
    items = _split_letters(pawns, Suit.parse) if isinstance(pawns, str) else list(pawns)  # type: ignore[call-overload]
    out = []
    for p in items:
        if isinstance(p, Suit):
            out.append(p)
        elif isinstance(p, str) and p.strip().upper() in _PAWN_INITIALS:
            out.append(_PAWN_INITIALS[p.strip().upper()])
        else:
            try:
                out.append(Suit.parse(str(p)))
            except ValueError:
                raise LayoutError(f"cannot read the pawn {p!r}: use a suit (suns, moons, crowns, arms), its colour, "
                                  "its letter S, M, C, A or a colour initial R, K, G, B") from None
    return tuple(out)


def _parse_coins(coins: object) -> tuple[int, ...]:
    items = _split_letters(coins, parse_rank) if isinstance(coins, str) else list(coins)  # type: ignore[call-overload]
    out = []
    for c in items:
        try:
            out.append(parse_rank(c if isinstance(c, int) else str(c)))
        except ValueError:
            raise LayoutError(f"cannot read the coin {c!r}: the coins are ace (a or 1), 2, 3, 4 and 5") from None
    return tuple(out)


@dataclass(frozen=True)
class State:
    """An Easy Slider position: immutable and hashable.

    ``board`` holds 25 cells in reading order (``board[cell.index]``), each a :class:`Tile` or None for the
    hole; ``pawns`` the suits beside rows 1-4 top to bottom; ``coins`` the ranks (1 = ace) above columns 1-5.
    Build one with :meth:`from_layout`; any position is allowed as long as it can exist on a table.
    """

    board: tuple[Tile | None, ...]
    pawns: tuple[Suit, ...]
    coins: tuple[int, ...]
    _hole: int = field(default=-1, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _validate(self.board, self.pawns, self.coins)
        object.__setattr__(self, "_hole", self.board.index(None))

    # --- building ------------------------------------------------------------------------------------------------

    @classmethod
    def from_layout(cls, board: object, pawns: object, coins: object) -> State:
        """Build any position, checking that it can exist.

        ``board``: the compact text (five rows of tokens, see the module help), a list of five row strings,
        five rows of five entries, or 25 entries in reading order; entries are :class:`Tile`, ``(suit, rank)``,
        tokens (``2M``, ``..``), words (``2 of moons``, ``Black 2``) or None for the hole. ``pawns``: four
        suits top to bottom (``"MSAC"``, the diagram's colour initials ``"KRBG"``, ``["moons", "red", ...]``
        or :class:`Suit`). ``coins``: five ranks left to right (``"245a3"``, ``[2, 4, 5, 1, 3]``,
        ``["2", "ace", ...]``). Raises
        :class:`rules.base.LayoutError` with a sentence saying what is impossible.
        """
        return cls(_parse_board(board), _parse_pawns(pawns), _parse_coins(coins))

    @classmethod
    def solved(cls, pawns: object, coins: object, hole: Cell | str = "e1") -> State:
        """The solved board for these pawns and coins: nulls in the bottom row in suit order, the hole on ``hole``
        (a bottom-row cell)."""
        p, c = _parse_pawns(pawns), _parse_coins(coins)
        _validate_pawns_coins(p, c)
        hole_cell = Cell.parse(hole)
        if hole_cell.row != SIZE:
            raise LayoutError(f"the hole of a solved board is in the bottom row, not on {hole_cell}")
        board: list[Tile | None] = [Tile(p[r], c[col]) for r in range(4) for col in range(5)]
        nulls = iter(Tile(s, 0) for s in SUITS)
        for col in range(1, 6):
            board.append(None if col == hole_cell.col else next(nulls))
        return cls(tuple(board), p, c)

    @classmethod
    def _trusted(cls, board: tuple[Tile | None, ...], pawns: tuple[Suit, ...], coins: tuple[int, ...], hole: int
                 ) -> State:
        """A state known to be valid (the result of a legal slide): skips the checks."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "board", board)
        object.__setattr__(obj, "pawns", pawns)
        object.__setattr__(obj, "coins", coins)
        object.__setattr__(obj, "_hole", hole)
        return obj

    # --- reading -------------------------------------------------------------------------------------------------

    @property
    def hole(self) -> Cell:
        return CELLS[self._hole]

    def tile_at(self, cell: Cell | str) -> Tile | None:
        return self.board[Cell.parse(cell).index]

    def find(self, tile: Tile | str) -> Cell:
        """Where a tile lies."""
        t = parse_tile(tile)
        if t is None:
            return self.hole
        return CELLS[self.board.index(t)]

    def rows(self) -> list[list[Tile | None]]:
        return [list(self.board[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]

    def board_text(self) -> str:
        """Five lines of tokens, top row first (accepted by :meth:`from_layout`)."""
        return "\n".join(" ".join(tile_token(t) for t in row) for row in self.rows())

    def pawn_text(self) -> str:
        """The pawns' suit letters top to bottom, e.g. ``MSAC``."""
        return "".join(p.letter for p in self.pawns)

    def coin_text(self) -> str:
        """The coins left to right, e.g. ``245a3``."""
        return "".join(_RANK_CHARS[c] for c in self.coins)

    def diagram(self) -> str:
        """The board as in the rules' diagram: coins above the columns, pawns left of the rows."""
        lines = ["     " + "   ".join(f"{_RANK_CHARS[c]:>1}" for c in self.coins)]
        for r, row in enumerate(self.rows()):
            pawn = self.pawns[r].letter if r < 4 else " "
            lines.append(f"{pawn}   " + "  ".join(tile_token(t) for t in row))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.diagram()

    def __repr__(self) -> str:
        board = self.board_text().replace("\n", " / ")
        return f"State.from_layout({board!r}, {self.pawn_text()!r}, {self.coin_text()!r})"

    def to_dict(self) -> dict:
        """JSON-ready form: ``{"board": [5 row strings], "pawns": [suits], "coins": [ranks]}``."""
        return {"board": self.board_text().split("\n"), "pawns": [p.value for p in self.pawns],
                "coins": list(self.coins)}

    @classmethod
    def from_dict(cls, data: Mapping) -> State:
        try:
            return cls.from_layout(data["board"], data["pawns"], data["coins"])
        except KeyError as err:
            raise LayoutError(f"an Easy Slider state needs board, pawns and coins; {err.args[0]} is missing") from None

    # --- targets and the Done check ------------------------------------------------------------------------------

    def target(self, cell: Cell | str) -> Tile | None:
        """The tile a cell of rows 1-4 must hold; None for the bottom row (a null tile or the hole)."""
        c = Cell.parse(cell)
        if c.row == SIZE:
            return None
        return Tile(self.pawns[c.row - 1], self.coins[c.col - 1])

    def target_cell(self, tile: Tile | str) -> Cell | None:
        """Where a tile belongs; None for a null tile (anywhere in the bottom row)."""
        t = parse_tile(tile)
        if t is None or t.rank == 0:
            return None
        return Cell(self.pawns.index(t.suit) + 1, self.coins.index(t.rank) + 1)

    def done_check(self) -> DoneCheck:
        """Judge the board as the other players do when someone calls "Done!"."""
        wrong = []
        for cell in CELLS:
            found = self.board[cell.index]
            if cell.row == SIZE:
                if found is not None and found.rank != 0:
                    wrong.append(WrongCell(cell, found, None))
            else:
                wanted = self.target(cell)
                if found != wanted:
                    wrong.append(WrongCell(cell, found, wanted))
        return DoneCheck(not wrong, tuple(wrong))

    def is_over(self) -> bool:
        """Solved: every tile on its target, the nulls and the hole in the bottom row."""
        return self.done_check().correct

    # --- moves -----------------------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The slides into the hole, in reading order of the tile moved."""
        hole = self.hole
        return [Move(c, hole) for c in hole.neighbours()]

    def is_legal(self, move: Move) -> bool:
        return move.to_cell == self.hole and move.from_cell in self.hole.neighbours()

    def apply(self, move: Move | str) -> State:
        """The position after a slide; :class:`rules.base.IllegalMove` with the reason otherwise."""
        m = Move.parse(move) if isinstance(move, str) else move
        frm, to = m.from_cell, m.to_cell
        tile = self.board[frm.index]
        if tile is None:
            raise IllegalMove(f"there is no tile on {frm}: that is the hole", m)
        if to != self.hole:
            there = self.board[to.index]
            raise IllegalMove(f"that tile cannot slide to {to}: {_the(there)} is there (a tile slides only into the "
                              f"hole, on {self.hole})", m)
        if frm not in to.neighbours():
            if abs(frm.row - to.row) == 1 and abs(frm.col - to.col) == 1:
                raise IllegalMove(f"that tile cannot slide there: {frm} is diagonal to the hole; tiles slide up, "
                                  "down, left or right", m)
            raise IllegalMove(f"that tile cannot slide there: {frm} is not next to the hole", m)
        board = list(self.board)
        board[to.index], board[frm.index] = tile, None
        return State._trusted(tuple(board), self.pawns, self.coins, frm.index)

    push = apply

    def successors(self) -> Iterator[tuple[Move, State]]:
        for m in self.legal_moves():
            yield m, self.apply(m)

    # --- solver hooks ----------------------------------------------------------------------------------------

    def solution(self) -> tuple[Move, ...]:
        """A short sequence of slides that solves the board (empty when solved); see :func:`_solve`."""
        return _solve(self)

    def hint(self) -> Move | None:
        """The first slide of :meth:`solution`, None when the board is solved."""
        moves = self.solution()
        return moves[0] if moves else None

    def par(self) -> int:
        """The number of slides in the solver's solution: a yardstick for the board's difficulty (near-optimal,
        not proven optimal)."""
        return len(self.solution())


# ---------------------------------------------------------------------------------------------------------------
# The solver hook
# ---------------------------------------------------------------------------------------------------------------

_NULL_LABEL = 21
_BOTTOM_CELLS = frozenset(range(20, 25))


@functools.lru_cache(maxsize=256)
def _solve(state: State) -> tuple[Move, ...]:
    """Solve with :func:`rules.sliding.solve_to_targets`.

    Easy Slider's goal is not one arrangement: the four nulls may end in any order anywhere in the bottom row,
    and so may the hole. Rather than picking one of those 120 arrangements (and checking its parity), the
    solver gets the whole set as its goal: each of the 20 ranked tiles is numbered by its target cell, the four
    nulls share one number whose targets are the five bottom cells, and the hole takes the cell left over. Two
    interchangeable nulls make every board solvable (swapping them flips the parity, which is why the rules
    call the row a "parity sponge"), and the pattern database of the bottom row measures the distance to the
    nearest allowed arrangement, so the search settles the best order of the nulls and place of the hole as it
    goes instead of committing to one up front.
    """
    if state.is_over():
        return ()
    labels = []
    for tile in state.board:
        if tile is None:
            labels.append(0)
        elif tile.rank == 0:
            labels.append(_NULL_LABEL)
        else:
            target = state.target_cell(tile)
            assert target is not None
            labels.append(target.index + 1)
    targets: dict[int, Iterable[int]] = {i + 1: (i,) for i in range(20)}
    targets[_NULL_LABEL] = _BOTTOM_CELLS
    cells = sliding.solve_to_targets(labels, targets, SIZE)
    moves = []
    hole = state.hole
    for index in cells:
        frm = CELLS[index]
        moves.append(Move(frm, hole))
        hole = frm
    return tuple(moves)


# ---------------------------------------------------------------------------------------------------------------
# explain
# ---------------------------------------------------------------------------------------------------------------


def explain(before: State, after: State, max_moves: int = 4) -> Explanation:
    """The slides (at most ``max_moves``) that turn ``before`` into ``after``, or the reason no slides do.

    The camera loop calls this on every change it sees. Reasons are diagnosed directly when they are clear
    (pawns or coins moved, two tiles swapped, a tile lifted or moved diagonally); the search only finds the
    legal sequences.
    """
    if before.pawns != after.pawns:
        rows = [str(i + 1) for i in range(4) if before.pawns[i] != after.pawns[i]]
        return Explanation(reason=f"the pawns changed (beside row{'s' if len(rows) > 1 else ''} {', '.join(rows)}): "
                           "they stay where the Caller put them")
    if before.coins != after.coins:
        cols = [str(i + 1) for i in range(5) if before.coins[i] != after.coins[i]]
        return Explanation(reason=f"the coins changed (above column{'s' if len(cols) > 1 else ''} {', '.join(cols)}):"
                           " they stay where the Caller put them")
    if before == after:
        return Explanation()
    moved = [(t, before.find(t), after.find(t)) for t in before.board if t is not None and before.find(t) !=
             after.find(t)]
    distance = sum(abs(a.row - b.row) + abs(a.col - b.col) for _, a, b in moved)
    if distance <= max_moves:
        found = search_moves(before, after, lambda s: s.successors(), max_moves)
        if found is not None:
            return Explanation(moves=tuple(found))
    return Explanation(reason=_diagnose(before, after, moved, distance, max_moves))


def _diagnose(before: State, after: State, moved: list[tuple[Tile, Cell, Cell]], distance: int, max_moves: int
              ) -> str:
    if len(moved) == 2 and before.hole == after.hole:
        (t1, a1, b1), (t2, a2, b2) = moved
        if a1 == b2 and a2 == b1:
            return (f"two tiles changed places ({_the(t1)} on {a1} and {_the(t2)} on {a2}): tiles cannot jump, "
                    "they slide into the hole one at a time")
    if len(moved) == 1:
        tile, frm, to = moved[0]
        if abs(frm.row - to.row) == 1 and abs(frm.col - to.col) == 1:
            return f"{_the(tile)} moved diagonally from {frm} to {to}: tiles slide up, down, left or right"
        return (f"a tile was picked up: {_the(tile)} went from {frm} to {to}, which is not next to it; tiles must "
                "slide one cell at a time")
    if distance > max_moves:
        return (f"too much changed at once ({len(moved)} tiles moved, at least {distance} slides): slide one tile at "
                "a time and let the camera see each slide")
    listing = ", ".join(f"{_the(t)} {a}->{b}" for t, a, b in moved)
    return f"no slides into the hole make this change ({listing}): tiles cannot be lifted or jump"


# ---------------------------------------------------------------------------------------------------------------
# The Caller's set-up
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One announcement of the Caller: ``kind`` (pawn, coin or tile), the words said, the piece, and where it
    goes (``place``: "row 2", "column 5" or a cell name)."""

    kind: str
    words: str
    piece: Suit | int | Tile
    place: str


@dataclass(frozen=True)
class Setup:
    """The Caller's random set-up (rules, Setup 1-5), reproducible from a seed.

    ``tiles`` are the 24 tiles in the order they are flipped (reading order; the hole is bottom-right),
    ``pawns`` the suits in the order drawn (= rows 1-4), ``coins`` the ranks in the order drawn (= columns 1-5),
    ``coin_suit`` the suit of the Caller's coins (it does not matter for the targets).
    """

    seed: int | str | None
    tiles: tuple[Tile, ...]
    pawns: tuple[Suit, ...]
    coins: tuple[int, ...]
    coin_suit: Suit

    @classmethod
    def from_seed(cls, seed: int | str | None = None) -> Setup:
        """Deal with ``random.Random(seed)`` in the rules' order: shuffle the 24 tiles face down into the board
        (hole bottom-right), choose the suit of coins for the bag, draw the four pawns, draw the five coins."""
        rng = random.Random(seed)
        tiles = list(_ALL_TILES)
        rng.shuffle(tiles)
        coin_suit = rng.choice(SUITS)
        pawns = rng.sample(SUITS, 4)
        coins = rng.sample(range(1, 6), 5)
        return cls(seed, tuple(tiles), tuple(pawns), tuple(coins), coin_suit)

    def state(self) -> State:
        return State(self.tiles + (None,), self.pawns, self.coins)

    def calls(self) -> tuple[Call, ...]:
        """Everything the Caller announces, in order: pawns as drawn, coins as drawn, then the tiles as flipped."""
        out = [Call("pawn", p.colour.capitalize(), p, f"row {i + 1}") for i, p in enumerate(self.pawns)]
        out += [Call("coin", rank_name(c), c, f"column {i + 1}") for i, c in enumerate(self.coins)]
        out += [Call("tile", t.spoken, t, CELLS[i].name) for i, t in enumerate(self.tiles)]
        return tuple(out)

    def script(self) -> list[str]:
        """The words alone: ``["Red", "Blue", ..., "Ace", "3", ..., "Blue 5", "Green Null", ...]``."""
        return [c.words for c in self.calls()]

    def __iter__(self) -> Iterator[Call]:
        return iter(self.calls())


# ---------------------------------------------------------------------------------------------------------------
# Scoring (Game Play 4-11)
# ---------------------------------------------------------------------------------------------------------------


def round_points(players: Sequence[str], finishes: Sequence[tuple[str, bool]]) -> dict[str, int]:
    """Points of one round from the order in which players called "Done!" and whether each was correct.

    ``finishes`` lists ``(player, correct)`` in calling order; the round ends when one player is left still
    solving (rule 8), so it names every player but one (in solitaire: none, or the lone player's own call).

    Decision: rules 5-9 exactly as written. A correct finisher scores the number of other players he beat,
    i.e. the players still solving when he called "Done!" (rule 5: "four points in a five-player game"; rule 7:
    the second to finish "would normally receive three points"). A fumble scores 0 (rule 6); the last player
    still solving scores 0 (rule 8). At the end of the round every player who did not fumble, the last player
    included, receives one bonus point per fumbler (rule 9). A fumbler who called Done after a correct finisher
    was still solving at that finisher's Done, so the finisher counts him both then and in the bonus: that is
    what rule 9 says ("every player who did not fumble ... receives one bonus point for every player who did
    fumble"), and the issue asks for the scoring exactly as written, so no pair is "settled once" here.

    Worked example, five players: Ann correct, Bob fumble, Cy correct, Di correct, Ed still solving.
    Ann 4 + 1 = 5, Bob 0, Cy 2 + 1 = 3, Di 1 + 1 = 2, Ed 0 + 1 = 1. Without the fumble the round would score
    4, 3, 2, 1, 0.
    """
    names = _check_players(players)
    order = [p for p, _ in finishes]
    for p in order:
        if p not in names:
            raise RulesError(f"there is no player called {p!r} in this round")
    for p, count in ((p, order.count(p)) for p in set(order)):
        if count > 1:
            raise RulesError(f"{p} called Done twice in one round")
    if len(names) == 1:
        if len(order) > 1:
            raise RulesError("a solitaire round has one Done call at most")
        return {names[0]: 0}
    if len(order) != len(names) - 1:
        raise RulesError(f"a round of {len(names)} players ends when {len(names) - 1} have called Done "
                         f"(one is left solving), not {len(order)}")
    fumblers = {p for p, ok in finishes if not ok}
    points = dict.fromkeys(names, 0)
    for i, (p, correct) in enumerate(finishes):
        if correct:
            points[p] = len(names) - 1 - i  # the players still solving when p called Done (rules 5, 7)
    for p in names:
        if p not in fumblers:
            points[p] += len(fumblers)  # rule 9's bonus, the last player included
    return points


def _check_players(players: Sequence[str]) -> list[str]:
    names = [str(p) for p in players]
    if not names:
        raise RulesError("a round needs at least one player")
    if any(not n.strip() for n in names):
        raise RulesError("every player needs a name")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise RulesError(f"two players are called {dupes[0]!r}: give every player a different name")
    return names


@dataclass(frozen=True)
class RoundResult:
    """A finished round: who played, the Done calls in order, who was left solving, and the points."""

    players: tuple[str, ...]
    finishes: tuple[tuple[str, bool], ...]
    last: str | None
    points: Mapping[str, int]
    playoff: bool = False


class Match:
    """Several rounds of Easy Slider and their scores (rules 10-11).

    >>> m = Match(["Ann", "Bob"], rounds=1)
    >>> m.done("Ann", correct=True)   # points for the players still playing
    1
    >>> m.round_over, m.totals()
    (True, {'Ann': 1, 'Bob': 0})

    ``done(player, correct)`` records a "Done!" call and its check; when only one player is left solving
    the round ends by itself (rule 8) and the bonus for fumbles is added (rule 9, see :func:`round_points`).
    After the agreed rounds, tied leaders play a playoff round (``start_playoff``); its points are added to
    the tied players' totals, so the best playoff result wins.
    """

    def __init__(self, players: Sequence[str], rounds: int = 3) -> None:
        self.players: tuple[str, ...] = tuple(_check_players(players))
        if not isinstance(rounds, int) or rounds < 1:
            raise RulesError(f"a match has at least one round, not {rounds!r}")
        self.rounds_agreed = rounds
        self.results: list[RoundResult] = []
        self._current: list[tuple[str, bool]] | None = None
        self._current_players: tuple[str, ...] = ()
        self._current_playoff = False
        self.start_round()

    # --- rounds --------------------------------------------------------------------------------------------------

    @property
    def rounds_played(self) -> int:
        return len(self.results)

    @property
    def round_over(self) -> bool:
        return self._current is None

    def start_round(self) -> None:
        """Begin the next agreed round."""
        if self._current is not None:
            raise RulesError("the current round is still being played")
        regular = sum(1 for r in self.results if not r.playoff)
        if regular >= self.rounds_agreed:
            if len(self.tied_leaders()) > 1:
                raise RulesError(f"all {self.rounds_agreed} rounds have been played and the leaders are tied: "
                                 "start the playoff round")
            raise RulesError(f"all {self.rounds_agreed} rounds have been played: the match is over")
        self._open(self.players, playoff=False)

    def start_playoff(self) -> None:
        """Begin a playoff round among the tied leaders (rule 11)."""
        if self._current is not None:
            raise RulesError("the current round is still being played")
        if sum(1 for r in self.results if not r.playoff) < self.rounds_agreed:
            raise RulesError("a playoff comes only after all the agreed rounds")
        tied = self.tied_leaders()
        if len(tied) < 2:
            raise RulesError("there is no tie to play off")
        self._open(tuple(tied), playoff=True)

    def _open(self, players: tuple[str, ...], playoff: bool) -> None:
        self._current = []
        self._current_players = players
        self._current_playoff = playoff

    def still_playing(self) -> list[str]:
        """Players of the current round who have not called Done."""
        if self._current is None:
            return []
        called = {p for p, _ in self._current}
        return [p for p in self._current_players if p not in called]

    def done(self, player: str, correct: bool) -> int:
        """Record a "Done!" call and whether the board was correct; returns the points announced now (the other
        players still playing, or 0 for a fumble). The fumble bonus comes when the round ends."""
        if player not in self.players:
            raise RulesError(f"there is no player called {player!r} in this match")
        if self._current is None:
            raise RulesError("the round is over: start the next round before calling Done")
        if player not in self._current_players:
            raise RulesError(f"{player} is not playing in this playoff round")
        if any(p == player for p, _ in self._current):
            raise RulesError(f"{player} has already called Done this round")
        others_playing = len(self.still_playing()) - 1
        self._current.append((player, bool(correct)))
        remaining = self.still_playing()
        if len(remaining) <= 1:
            self._close()
        return others_playing if correct else 0

    def _close(self) -> None:
        assert self._current is not None
        finishes = tuple(self._current)
        players = self._current_players
        points = round_points(players, finishes)
        called = {p for p, _ in finishes}
        last = next((p for p in players if p not in called), None)
        self.results.append(RoundResult(players, finishes, last, points, self._current_playoff))
        self._current = None

    # --- scores --------------------------------------------------------------------------------------------------

    def round_scores(self) -> list[dict[str, int]]:
        """Points of each finished round (players who sat out a playoff get 0)."""
        return [{p: r.points.get(p, 0) for p in self.players} for r in self.results]

    def totals(self) -> dict[str, int]:
        totals = dict.fromkeys(self.players, 0)
        for r in self.results:
            for p, pts in r.points.items():
                totals[p] += pts
        return totals

    def standings(self) -> list[tuple[str, int]]:
        """``(player, total)`` best first; ties keep the seating order."""
        totals = self.totals()
        return sorted(totals.items(), key=lambda kv: -kv[1])

    def tied_leaders(self) -> list[str]:
        """The players sharing the highest total (one name when there is a clear leader)."""
        totals = self.totals()
        best = max(totals.values())
        return [p for p in self.players if totals[p] == best]

    def is_over(self) -> bool:
        regular = sum(1 for r in self.results if not r.playoff)
        return self._current is None and regular >= self.rounds_agreed and len(self.tied_leaders()) == 1

    def winner(self) -> str | None:
        """The winner once the match is over, else None."""
        return self.tied_leaders()[0] if self.is_over() else None


# ---------------------------------------------------------------------------------------------------------------
# The "Slide!" variant
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlideVerdict:
    """Whether a player made exactly one legal slide at a "Slide!" call."""

    player: str
    ok: bool
    move: Move | None = None
    reason: str | None = None

    def __str__(self) -> str:
        return f"{self.player}: {self.move}" if self.ok else f"{self.player}: {self.reason}"


def check_slide_call(before: Mapping[str, State], after: Mapping[str, State]) -> dict[str, SlideVerdict]:
    """At a "Slide!" call every player must slide exactly one tile. Given each player's board before and after
    the call, say who did (with the move) and who did not (with the reason)."""
    if set(before) != set(after):
        missing = sorted(set(before) ^ set(after))
        raise RulesError(f"every player needs a board before and after the call; check {', '.join(missing)}")
    verdicts = {}
    for player in before:
        e = explain(before[player], after[player], max_moves=4)
        if e.reason is not None:
            verdicts[player] = SlideVerdict(player, False, None, e.reason)
        elif not e.moves:
            verdicts[player] = SlideVerdict(player, False, None, "no tile was slid: at each call every player slides "
                                            "one tile")
        elif len(e.moves) > 1:
            verdicts[player] = SlideVerdict(player, False, None, f"{len(e.moves)} tiles were slid "
                                            f"({'; '.join(str(m) for m in e.moves)}): only one slide per call")
        else:
            verdicts[player] = SlideVerdict(player, True, e.moves[0], None)
    return verdicts
