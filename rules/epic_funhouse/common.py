"""Small helpers the Epic Funhouse rooms share: short piece codes, cell names and layout checks.

* A tile or coin is written as its suit letter and a rank character: ``Sn`` (null of suns), ``Ma`` (ace of
  moons), ``C3``, ``A5``. :func:`parse_tile` / :func:`parse_coin` also accept ``S0``/``S1`` and any case.
* A cell is named like PPN algebraic notation: column letter ``a``.. from the left, row number ``1``.. from
  the BOTTOM (so on a board six rows high the top-left cell is ``a6``; "reading order" starts there).
  :func:`cell_name` and :func:`parse_cells` convert between ``(column, row_from_top)`` indexes (0-based,
  rows counted from the top like the rows of a rendered board) and those names.
* :func:`read_tile_grid` turns what a caller gives ``from_layout`` (rows of ``Tile``/codes/``None``, or one
  string per row such as ``"S3 Mn . C5"``) into a tuple of rows, top row first, or a :class:`LayoutError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rules.base import LayoutError, RulesError
from rules.pieces import SUITS, Coin, Suit, Tile

__all__ = [
    "RANK_CHARS",
    "ALL_TILES",
    "ALL_COINS",
    "tile_code",
    "coin_code",
    "parse_tile",
    "parse_coin",
    "cell_name",
    "parse_cells",
    "check_distinct",
    "read_tile_grid",
    "EMPTY",
]

#: Rank characters used in piece codes: index = rank (0 = null, 1 = ace).
RANK_CHARS = "na2345"
#: How an empty cell is shown in a rendered board and accepted in a layout string.
EMPTY = "."
#: One standard piecepack: every tile / coin, suits in canonical order, ranks null..5.
ALL_TILES: tuple[Tile, ...] = tuple(Tile(s, r) for s in SUITS for r in range(6))
ALL_COINS: tuple[Coin, ...] = tuple(Coin(s, r) for s in SUITS for r in range(6))

_PIECE_RE = re.compile(r"^\s*([smca])\s*([na0-5])\s*$", re.IGNORECASE)
_RANK_OF_CHAR = {"n": 0, "a": 1, "0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}
_CELL_RE = re.compile(r"([a-z])(\d+)")


def tile_code(tile: Tile) -> str:
    """``Sn``, ``Ma``, ``C3`` ...: suit letter and rank character."""
    return f"{tile.suit.letter}{RANK_CHARS[tile.rank]}"


def coin_code(coin: Coin) -> str:
    """Same short code as :func:`tile_code`, for a coin."""
    return f"{coin.suit.letter}{RANK_CHARS[coin.rank]}"


def _parse_piece(text: str, what: str) -> tuple[Suit, int]:
    match = _PIECE_RE.match(str(text))
    if not match:
        raise RulesError(
            f"cannot read {what} {text!r}: write the suit letter (S, M, C, A) and the rank (n, a, 2-5), e.g. Sn or C3")
    return Suit.parse(match.group(1)), _RANK_OF_CHAR[match.group(2).lower()]


def parse_tile(text: str | Tile) -> Tile:
    """A tile from its code (``S3``, ``mn``, ``Ca``, ``A0``); a ``Tile`` is returned unchanged."""
    if isinstance(text, Tile):
        return text
    return Tile(*_parse_piece(text, "tile"))


def parse_coin(text: str | Coin) -> Coin:
    """A coin from its code (``S3``, ``mn``); a ``Coin`` is returned unchanged."""
    if isinstance(text, Coin):
        return text
    return Coin(*_parse_piece(text, "coin"))


def cell_name(col: int, row_from_top: int, height: int) -> str:
    """PPN-style name of a cell: ``cell_name(0, 0, 6) == "a6"`` (top-left of a six-row board)."""
    return f"{chr(ord('a') + col)}{height - row_from_top}"


def parse_cells(text: str, width: int, height: int) -> tuple[tuple[int, int], ...]:
    """Cells named in ``text`` (``"a1b2c3"`` or ``"a1 b2 c3"``) as ``(col, row_from_top)`` pairs, in order.

    Raises :class:`RulesError` for text that is not cell names or names a cell off the board.
    """
    compact = re.sub(r"[\s,]+", "", str(text).lower())
    cells = _CELL_RE.findall(compact)
    if not cells or "".join(c + r for c, r in cells) != compact:
        raise RulesError(f"cannot read cells {text!r}: name cells like a1b2c3 (column letter, row number)")
    out = []
    for letter, number in cells:
        col, row = ord(letter) - ord("a"), int(number)
        if not (0 <= col < width and 1 <= row <= height):
            last = chr(ord("a") + width - 1)
            raise RulesError(f"there is no cell {letter}{number}: the board runs from a1 to {last}{height}")
        out.append((col, height - row))
    return tuple(out)


def check_distinct(pieces: Iterable[Tile | Coin], where: str = "this position") -> None:
    """LayoutError when a piece appears twice: a piecepack has exactly one of each tile and coin."""
    seen: set[Tile | Coin] = set()
    for piece in pieces:
        if piece in seen:
            raise LayoutError(f"the {piece} appears twice in {where}: a piecepack has only one of each")
        seen.add(piece)


def read_tile_grid(rows: Sequence[str | Sequence[Tile | str | None]], width: int, height: int,
                   what: str = "the board") -> tuple[tuple[Tile | None, ...], ...]:
    """Rows (top first) of tiles or ``None`` from what a caller gives ``from_layout``.

    Each row is either a string of whitespace-separated codes with ``.`` for an empty cell
    (``"S3 Mn . C5"``) or a sequence of ``Tile``, codes or ``None``. Wrong sizes and unreadable codes raise a
    :class:`LayoutError` naming the row.
    """
    if isinstance(rows, str):
        rows = [line for line in rows.splitlines() if line.strip()]
    if len(rows) != height:
        raise LayoutError(f"{what} must have {height} rows of {width} cells, not {len(rows)} rows")
    grid = []
    for i, row in enumerate(rows):
        cells = row.split() if isinstance(row, str) else list(row)
        if len(cells) != width:
            raise LayoutError(f"row {i + 1} from the top of {what} has {len(cells)} cells, not {width}")
        out_row: list[Tile | None] = []
        for cell in cells:
            if cell is None or (isinstance(cell, str) and cell.strip() in (EMPTY, "")):
                out_row.append(None)
                continue
            try:
                out_row.append(parse_tile(cell))
            except (RulesError, ValueError) as err:
                raise LayoutError(f"row {i + 1} from the top of {what}: {err}") from None
        grid.append(tuple(out_row))
    return tuple(grid)
