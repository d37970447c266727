"""Pieces seen in a frame -> the game's state as its rules engine sees it, Done checks and scores.

The only module that imports both :mod:`vision` (the pieces and their grids) and the games' rules. Every
function takes what the vision reported (a :class:`vision.pieces.Detection`, or a plain list of
:class:`vision.pieces.DetectedPiece` with ``uncertain`` set on those that could not be read) and returns a
rules object, or raises :class:`NotReadable` with one sentence saying what keeps it from being read: no board,
the wrong game, two boards where one was expected, a hidden or unreadable piece, a piece between cells.
Nothing is guessed: a piece the vision is unsure of never decides anything.

Easy Slider's Done check (:func:`check_easy_slider`) is judged cell by cell with what is known:

* a readable tile is *wrong for sure* when no reading of the unknown pawns and coins can make it right (a null
  above the bottom row, a suit that no pawn still unaccounted for could ask for ...), *right for sure* when its
  pawn and coin are read and match, else unknown;
* an empty cell is the hole only when every other cell's tile is accounted for (24 tiles seen); otherwise a
  tile may be hidden there (a hand), and the cell is unknown;
* a tile that lies between cells, two tiles on one cell, the same tile read twice, an unreadable tile or an
  orientation that cannot be fixed make the cells concerned unknown;
* a cell next to (8-neighbourhood) such an unknown cell never decides a fumble: a hand over the board hides a
  patch, and the tiles at its edge, partly covered, are the ones a detector misreads;
* a pawn (coin) not read is known by elimination when the other three pawns (four coins) are: there is one of
  each suit (rank);
* a pawn whose row holds two or more read tiles, fewer than half of them of its suit (a coin whose column holds
  fewer than half of its rank) is taken as misread and decides nothing: a misread pawn is likelier than a row
  of misplaced tiles.

The verdict is ``fumble`` when some cell is wrong for sure (whatever the unknowns hold), ``correct`` when every
cell is right for sure, and ``unsure`` otherwise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from calibration.profile import PieceSetProfile
from rules.base import LayoutError, RulesError
from rules.pieces import SUITS, Kind, PyramidPose, PyramidSize, Suit, Tile, rank_name
from tableside.elimination import still_possible
from vision.errors import VisionError
from vision.grid_games import (
    BlockLayout,
    CoinGridLayout,
    EasySliderLayout,
    find_catwalk,
    find_coin_grid,
    find_easy_slider_boards,
    find_mirror_grids,
    find_tile_block,
    find_tile_grid,
    find_triangle,
)
from vision.pieces import DetectedPiece, Detection

__all__ = [
    "NotReadable",
    "GAME_NAMES",
    "all_pieces",
    "scene_summary",
    "guess_game",
    "refuse_another_game",
    "CellVerdict",
    "BoardVerdict",
    "check_easy_slider",
    "Reading",
    "read_state",
    "RoomScore",
    "score_room",
    "ShuffleboardPiece",
    "ShuffleboardPair",
    "ShuffleboardScore",
    "score_shuffleboard",
    "ppn_position",
]

GAME_NAMES = {
    "easy-slider": "Easy Slider", "slides-of-action": "Slides of Action", "plans-of-action": "Plans of Action",
    "martian-shuffleboard": "Martian Shuffleboard", "epic-funhouse": "Epic Funhouse",
    "slide-jam": "Slide Jam", "magic-mirror": "Magic Mirror", "catwalk": "Catwalk",
    "roll-out-the-barrels": "Roll Out the Barrels", "whack-a-dummy": "Whack-a-Dummy", "trampo-land": "Trampo-Land",
}
ROOMS = ("slide-jam", "magic-mirror", "catwalk", "roll-out-the-barrels", "whack-a-dummy", "trampo-land")


class NotReadable(VisionError):
    """The frame does not show the game's state in a way that can be read surely; the message says why.
    ``no_board``: nothing of the game was found at all (rather than found but unreadable)."""

    def __init__(self, message: str, no_board: bool = False) -> None:
        super().__init__(message)
        self.no_board = no_board


# ----------------------------------------------------------------------------------------------------- input
def all_pieces(seen: Detection | Iterable[DetectedPiece]) -> list[DetectedPiece]:
    """Reliable and uncertain pieces in one list (uncertain ones keep ``uncertain=True``)."""
    if isinstance(seen, Detection):
        return list(seen.pieces) + [p if p.uncertain else _as_uncertain(p) for p in seen.uncertain]
    return list(seen)


def _as_uncertain(p: DetectedPiece) -> DetectedPiece:
    from dataclasses import replace

    return replace(p, uncertain=True, reason=p.reason or "not read surely")


def _kind(p: Any) -> Kind:
    return Kind(getattr(p, "kind", "tile"))


def scene_summary(pieces: Sequence[DetectedPiece]) -> str:
    """What a frame shows, in words: ``24 tiles (face up), 4 pawns, 5 coins``."""
    parts = []
    tiles = [p for p in pieces if _kind(p) is Kind.TILE]
    if tiles:
        backs = sum(1 for t in tiles if t.side == "back")
        side = "backs" if backs > len(tiles) / 2 else "face up"
        parts.append(f"{len(tiles)} tile{'s' if len(tiles) != 1 else ''} ({side})")
    for kind, word in ((Kind.COIN, "coin"), (Kind.PAWN, "pawn"), (Kind.DIE, "die"), (Kind.PYRAMID, "pyramid")):
        n = sum(1 for p in pieces if _kind(p) is kind)
        if n:
            plural = "dice" if kind is Kind.DIE else word + "s"
            parts.append(f"{n} {word if n == 1 else plural}")
    return ", ".join(parts) if parts else "no pieces"


def guess_game(pieces: Sequence[DetectedPiece]) -> str | None:
    """The game (or room) a frame most looks like, from what kinds of pieces it shows; None when unclear.
    Only used to word errors ("this looks like Martian Shuffleboard"), never to read a state."""
    n = {k: sum(1 for p in pieces if _kind(p) is k) for k in Kind}
    tiles = [p for p in pieces if _kind(p) is Kind.TILE]
    backs = sum(1 for t in tiles if t.side == "back")
    if n[Kind.PYRAMID] >= 2 and n[Kind.PYRAMID] > n[Kind.TILE]:
        return "martian-shuffleboard"
    if tiles and backs > len(tiles) / 2:
        return "plans-of-action" if len(tiles) > 6 else "slides-of-action"
    if len(tiles) >= 12:
        if n[Kind.PAWN] >= 2 and n[Kind.COIN] >= 3:
            return "easy-slider"
        return "epic-funhouse"
    if not tiles and n[Kind.COIN] >= 10:
        if n[Kind.PAWN] >= 1:
            return "trampo-land"
        coins = [p for p in pieces if _kind(p) is Kind.COIN]
        return "whack-a-dummy" if sum(1 for c in coins if c.side == "suit") > 2 else "roll-out-the-barrels"
    return None


def _other_game(pieces: Sequence[DetectedPiece], wanted: str) -> str | None:
    """The game the pieces look like when it is not ``wanted`` (a room counts as Epic Funhouse), else None."""
    guess = guess_game(pieces)
    if guess is None or guess == wanted or (wanted in ROOMS and guess == "epic-funhouse"):
        return None
    return guess


def _wrong_game(pieces: Sequence[DetectedPiece], wanted: str, what: str) -> NotReadable:
    guess = _other_game(pieces, wanted)
    seen = scene_summary(pieces)
    if guess is not None:
        return NotReadable(f"no {what} here: the frame shows {seen}, which looks like {GAME_NAMES[guess]}", True)
    return NotReadable(f"no {what} in the frame (it shows {seen})", True)


def refuse_another_game(pieces: Sequence[DetectedPiece], wanted: str, what: str) -> None:
    """Raise :class:`NotReadable` when ``pieces`` (everything seen in the frame) look like a game other than
    ``wanted``. For a game whose own pieces were found but mostly not read: the "pieces" may be another game's
    (a tile's printed numeral fitted as a flat pyramid), and scoring them would judge a scene that is not there."""
    if _other_game(pieces, wanted) is not None:
        raise _wrong_game(pieces, wanted, what)


def _tile(p: DetectedPiece | None) -> Tile | None:
    """The tile a piece surely is (face up, read, not uncertain), else None."""
    if p is None or p.uncertain or _kind(p) is not Kind.TILE or p.side != "face" or p.suit is None or p.rank is None:
        return None
    return Tile(p.suit, p.rank)


def _why(p: DetectedPiece) -> str:
    if p.uncertain:
        return p.reason or "it cannot be read surely"
    if p.side == "back":
        return "it lies face down"
    return "its suit or rank was not read"


# ------------------------------------------------------------------------------ what the game's rules settle
#: One reading of a piece: (suit, rank, side), as :attr:`vision.pieces.DetectedPiece.could_be` lists them.
PieceReading = tuple[Suit | None, int | None, str | None]


@dataclass(frozen=True)
class Settled:
    """A piece the picture left open between a few readings (``DetectedPiece.could_be``: e.g. a classic coin's
    value-side ace and its suit side, whose symbols differ only in size) and the game's rules settled: only one
    of those readings can lie at that place. ``where`` names the place, ``reading`` what it was taken to be,
    ``rule`` why the others cannot be there."""

    where: str
    reading: str
    rule: str

    def to_json(self) -> dict[str, str]:
        return {"where": self.where, "reading": self.reading, "rule": self.rule}

    def __str__(self) -> str:
        return f"{self.where}: {self.reading} ({self.rule})"


def _settle(p: DetectedPiece | None, allowed: Any, value: Any, where: str, rule: str, describe: Any,
            log: list[Settled] | None) -> Any:
    """What an uncertain piece must be by the rules: ``value(r)`` of the readings ``r`` of ``p.could_be`` for
    which ``allowed(r)`` holds, when they all give the same value (not None); None otherwise (a sure piece, no
    readings, none allowed, or two or more still possible: the picture and the rules leave it open). A settled
    piece is logged in ``log`` with ``describe(value)`` and ``rule``, for the player to see."""
    if p is None or not p.uncertain:
        return None
    values = {value(r) for r in (getattr(p, "could_be", None) or ()) if allowed(r)}
    if len(values) != 1 or None in values:
        return None
    found = values.pop()
    if log is not None:
        log.append(Settled(where, describe(found), rule))
    return found


def _face_tile(p: DetectedPiece | None, where: str, rule: str, log: list[Settled] | None) -> Tile | None:
    """The tile a piece is: read surely, or settled by a rule that the game's tiles lie face up (only one face
    among the readings the picture fits)."""
    tile = _tile(p)
    if tile is not None or p is None or _kind(p) is not Kind.TILE:
        return tile
    return _settle(p, lambda r: r[2] == "face", lambda r: Tile(r[0], r[1]) if None not in r[:2] else None,
                   where, rule, lambda t: f"the {t}", log)


def _settled_note(log: Sequence[Settled]) -> list[str]:
    """The reading's note for the pieces settled by the rules (empty when none)."""
    notes = []
    rules: dict[str, list[Settled]] = {}
    for s in log:
        rules.setdefault(s.rule, []).append(s)
    for rule, items in rules.items():
        listed = "; ".join(f"{s.where}: {s.reading}" for s in items[:6]) + ("; ..." if len(items) > 6 else "")
        notes.append(f"{len(items)} piece{'s' if len(items) != 1 else ''} the photo left open between a few readings, "
                     f"settled by the rules ({rule}): {listed}")
    return notes


# --------------------------------------------------------------------------------------- Easy Slider: Done
@dataclass(frozen=True)
class CellVerdict:
    """One cell of a Done check: ``status`` ``right``, ``wrong`` or ``unknown`` (rows and columns 1-based, as
    the rules count them); ``found`` the tile read there (None: the hole, or nothing readable), ``wanted`` what
    belongs there (None: unknown, or the bottom row's "a null tile or the hole")."""

    row: int
    col: int
    status: str
    found: Tile | None = None
    hole: bool = False
    wanted: Tile | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return f"{'abcde'[self.col - 1]}{6 - self.row}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cell": self.name, "row": self.row, "col": self.col}
        if self.status != "unknown":
            out["found"] = "hole" if self.hole else (str(self.found) if self.found else None)
        if self.status == "wrong":
            out["wanted"] = (str(self.wanted) if self.wanted else
                             "a null tile or the hole" if self.row == 5 else None)
        if self.reason:
            out["reason"] = self.reason
        return out

    def spoken(self) -> str:
        """A wrong cell as the announcer says it."""
        from tableside import phrases

        if self.wanted is not None:
            return phrases.fumble(self.row, self.col, self.wanted)
        if self.row == 5:
            return phrases.fumble(self.row, self.col, "a Null tile")
        what = "a null tile" if self.found is not None and self.found.rank == 0 else "that tile"
        if self.hole:
            return f"Fumble: the hole in row {self.row}, column {self.col} belongs in the bottom row"
        return f"Fumble: {what} in row {self.row}, column {self.col} cannot be right"


@dataclass
class BoardVerdict:
    """The Done check of one board: ``verdict`` ``correct`` | ``fumble`` | ``unsure``, the cells, the pawns and
    coins read, and ``reason`` (one sentence)."""

    verdict: str
    cells: list[CellVerdict]
    reason: str
    pawns: list[Suit | None]
    coins: list[int | None]
    layout: EasySliderLayout | None = field(default=None, repr=False)
    settled: list[Settled] = field(default_factory=list)

    @property
    def wrong_cells(self) -> list[CellVerdict]:
        return [c for c in self.cells if c.status == "wrong"]

    @property
    def unsure_cells(self) -> list[CellVerdict]:
        return [c for c in self.cells if c.status == "unknown"]

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "wrong_cells": [c.to_json() for c in self.wrong_cells],
            "unsure_cells": [c.to_json() for c in self.unsure_cells],
            "reason": self.reason,
            "pawns": [p.value if p else None for p in self.pawns],
            "coins": list(self.coins),
            "settled_by_rules": [s.to_json() for s in self.settled],
        }


#: The one doubt about a pawn beside an Easy Slider row that leaves its colour read: the figure reader found the
#: pawn's outline weakly (a hand-made pawn is a plain block), its colour vote was clear (a doubtful colour adds
#: "colour unclear"), nothing else stands there.
_OUTLINE_ONLY = "outline unclear (partly hidden?)"
#: The other: the figure search saw something it could not explain beside the pawn (a hand, or on rendered
#: frames a blob of felt and sheet edge), its outline and colour read clearly. Measured on the 160 Done-check
#: frames (boards 1000-1019 and 3000-3019, four editions, hand frames among them): 56 pawns doubted for this
#: alone, every one real and of the colour read; phantoms (14 on prints and hands) always carry another doubt.
_BESIDE_OBSTRUCTION = "partly hidden by a hand or another object"
_PAWN_RULES = {
    _OUTLINE_ONLY: "its colour reads clearly and only pawns stand beside Easy Slider's rows; only its outline was "
                   "doubted",
    _BESIDE_OBSTRUCTION: "its outline and colour read clearly and only pawns stand beside Easy Slider's rows; it "
                         "was doubted only for something unexplained beside it (a hand?)",
}


def _pawn_suit(p: DetectedPiece | None, row: int = 0, log: list[Settled] | None = None) -> Suit | None:
    """The suit of the pawn beside a row (0-based): read surely; with ``log`` given (reading a position, not a
    Done check), also a pawn whose only doubt is its outline or something unexplained beside it (its colour read
    clearly), logged there."""
    if p is None or p.suit is None:
        return None
    if p.uncertain:
        rule = _PAWN_RULES.get((p.reason or "").strip())
        if log is None or rule is None:
            return None
        log.append(Settled(f"the pawn beside row {row + 1}", f"the {p.suit.value} pawn", rule))
    return p.suit


def _coin_rank(p: DetectedPiece | None, column: int = 0, log: list[Settled] | None = None) -> int | None:
    """The value of the coin above a column (0-based): read surely, or settled by the rules (the Caller lays
    the ace through 5 value side up: a reading that is a suit side or a null cannot be there)."""
    if p is None:
        return None
    if p.uncertain:
        return _settle(p, lambda r: r[2] == "value" and r[1] is not None and 1 <= r[1] <= 5, lambda r: r[1],
                       f"the coin above column {column + 1}", "Easy Slider's coins above the columns show their "
                       "values, ace to 5", lambda v: f"the {rank_name(v).lower()} (value side up)", log)
    if p.side != "value" or p.rank is None or not 1 <= p.rank <= 5:
        return None
    return p.rank


def _possible(known: list[Any], universe: Sequence[Any], narrowed: Sequence[frozenset[Any] | None] = ()
              ) -> tuple[list[Any], list[set[Any]]]:
    """Known values with duplicates dropped to unknown, and for each slot the values it may hold: one of each
    value of ``universe``, an unknown slot holding one of ``narrowed[k]`` (the readings the picture left open;
    None or missing: any); a slot that only one value can fill is known by elimination."""
    counts: dict[Any, int] = {}
    for k in known:
        if k is not None:
            counts[k] = counts.get(k, 0) + 1
    clean = [k if k is not None and counts[k] == 1 else None for k in known]
    options = []
    for i, k in enumerate(clean):
        n = narrowed[i] if i < len(narrowed) else None
        options.append(frozenset((k,)) if k is not None else frozenset(n if n else universe))
    sets = still_possible(options, {v: 1 for v in universe})
    if sets is None:  # the readings contradict one of each (a mark misread): only the sure ones stand
        used = {k for k in clean if k is not None}
        return clean, [{k} if k is not None else set(universe) - used for k in clean]
    return [next(iter(v)) if len(v) == 1 else None for v in sets], sets


def _column_coin_values(p: DetectedPiece | None) -> frozenset[int] | None:
    """The values an Easy Slider coin the picture left open may show (its value-side readings, ace to 5), None
    when it named none."""
    if p is None or not p.uncertain:
        return None
    values = {r[1] for r in (getattr(p, "could_be", None) or ()) if r[2] == "value" and r[1] in (1, 2, 3, 4, 5)}
    return frozenset(values) or None


def _unless_contradicted(marks: list[Any], found: dict[tuple[int, int], Tile], axis: int) -> list[Any]:
    """Pawn suits (``axis`` 0, rows 1-4) or coin ranks (``axis`` 1, columns) with the ones their line of tiles
    contradicts dropped to unknown: when at least two tiles of a row are read and fewer than half of them have
    the pawn's suit (of a column: the coin's rank), a misread pawn (coin) is likelier than a row of misplaced
    tiles, so that pawn (coin) decides nothing. The price: a player who laid rows or columns mostly wrong gets
    "unsure" where a fumble could have been called."""
    out = list(marks)
    for k, mark in enumerate(marks):
        if mark is None:
            continue
        cells = [(c, k) for c in range(5)] if axis == 0 else [(k, r) for r in range(4)]
        tiles = [t for t in (found.get(cell) for cell in cells) if t is not None and t.rank != 0]
        agree = sum(1 for t in tiles if (t.suit if axis == 0 else t.rank) == mark)
        if len(tiles) >= 2 and 2 * agree < len(tiles):
            out[k] = None
    return out


def judge_easy_slider_board(layout: EasySliderLayout, guard_marks: bool = True, outline_doubted_pawns: bool = False
                            ) -> BoardVerdict:
    """The Done check of one board found by :func:`vision.grid_games.find_easy_slider_boards`.

    ``guard_marks``: drop pawns and coins that their line of tiles contradicts (:func:`_unless_contradicted`);
    a Done check wants that, reading a dealt (random) board must not. ``outline_doubted_pawns``: take the colour
    of a pawn whose only doubt is its outline (reading a position; a Done check keeps such a pawn "partly hidden
    ?" and unsure)."""
    board_issue = layout.ambiguous
    if board_issue is None:
        misfit = [p for p in layout.problems if p.kind == "misfit"]
        if misfit:
            board_issue = misfit[0].message
    # what each cell holds
    unknown: dict[tuple[int, int], str] = {}
    found: dict[tuple[int, int], Tile] = {}
    settled: list[Settled] = []
    for (c, r), fits in layout.cells.items():
        if len(fits) > 1:
            unknown[(c, r)] = "two tiles are on this cell"
            continue
        tile = _face_tile(fits[0].piece, f"the tile on {'abcde'[c]}{5 - r}", "Easy Slider's tiles lie face up",
                          settled)
        if tile is None:
            unknown[(c, r)] = f"the tile here cannot be read: {_why(fits[0].piece)}"
        else:
            found[(c, r)] = tile
    for _fit, touched in layout.between:
        for cell in touched:
            unknown.setdefault(cell, "a tile lies between cells here (still sliding?)")
            found.pop(cell, None)
    seen_at: dict[Tile, list[tuple[int, int]]] = {}
    for cell, tile in found.items():
        seen_at.setdefault(tile, []).append(cell)
    for tile, cells in seen_at.items():
        if len(cells) > 1:
            for cell in cells:
                found.pop(cell, None)
                unknown[cell] = f"the {tile} is read on {len(cells)} cells: one reading is wrong"
    by_set = _easy_slider_tiles_by_set(layout, found, unknown, settled)
    if outline_doubted_pawns:
        pawn_marks = [_pawn_suit(p, k, settled) for k, p in enumerate(layout.pawns)]
    else:
        pawn_marks = [_pawn_suit(p) if p is None or not _board_in_full_view(layout, found, unknown, by_set)
                      else _done_check_pawn_suit(p, k, settled) for k, p in enumerate(layout.pawns)]
    coin_marks = [_coin_rank(coin, k, settled) for k, coin in enumerate(layout.coins)]
    if guard_marks:
        pawn_marks = _unless_contradicted(pawn_marks, found, 0)
        coin_marks = _unless_contradicted(coin_marks, found, 1)
    pawns, pawn_sets = _possible(pawn_marks, SUITS)
    coins, coin_sets = _possible(coin_marks, (1, 2, 3, 4, 5), [_column_coin_values(c) for c in layout.coins])
    for k, coin in enumerate(coins):
        if coin is not None and coin_marks[k] is None:
            settled.append(Settled(f"the coin above column {k + 1}", f"the {rank_name(coin).lower()} (value side up)",
                                   "Easy Slider's coins above the columns are the ace to 5 of one suit, one of "
                                   "each: the other coins read leave only this value"))
    accounted = sum(1 for fits in layout.cells.values() for _ in fits) + len(layout.between)
    empty = [(c, r) for r in range(5) for c in range(5) if (c, r) not in layout.cells and (c, r) not in unknown]
    sure_hole = accounted == 24 and len(empty) == 1 and not layout.outside
    null_or_hole = set() if sure_hole else _null_or_hole(layout, found, unknown, empty, accounted)
    for cell in empty:
        if not sure_hole and cell not in null_or_hole:
            unknown[cell] = "no tile is seen here, and not all 24 tiles are accounted for (one may be hidden)"
    cells: list[CellVerdict] = []
    for r in range(5):
        for c in range(5):
            key = (c, r)
            row, col = r + 1, c + 1
            wanted = Tile(pawns[r], coins[c]) if r < 4 and pawns[r] is not None and coins[c] is not None else None
            if board_issue is not None:
                cells.append(CellVerdict(row, col, "unknown", reason=board_issue))
            elif key in unknown:
                cells.append(CellVerdict(row, col, "unknown", reason=unknown[key]))
            elif key in found:
                tile = found[key]
                if r == 4:
                    status = "right" if tile.rank == 0 else "wrong"
                    cells.append(CellVerdict(row, col, status, tile))
                elif tile.rank == 0 or tile.suit not in pawn_sets[r] or tile.rank not in coin_sets[c]:
                    cells.append(CellVerdict(row, col, "wrong", tile, wanted=wanted))
                elif wanted is not None:
                    cells.append(CellVerdict(row, col, "right", tile, wanted=wanted))
                else:
                    what = "pawn beside this row" if pawns[r] is None else "coin above this column"
                    cells.append(CellVerdict(row, col, "unknown", tile,
                                             reason=f"the {what} is not read surely"))
            elif key in null_or_hole:
                cells.append(CellVerdict(row, col, "right", None, reason=_NULL_OR_HOLE))
            else:  # the sure hole
                status = "right" if r == 4 else "wrong"
                cells.append(CellVerdict(row, col, status, None, hole=True, wanted=wanted))
    # A piece next to cells that cannot be seen is likely partly hidden itself (a hand over the board covers a
    # patch, and the tiles at its edge are the ones misread): it does not decide a fumble. A tile known only by
    # the set counts as not seen here (what made its face unclear may hide its neighbours' too).
    trouble = set(unknown) | by_set | null_or_hole
    for k, cell in enumerate(cells):
        if cell.status != "wrong" or not trouble:
            continue
        c, r = cell.col - 1, cell.row - 1
        if any((c + dc, r + dr) in trouble for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)):
            cells[k] = CellVerdict(cell.row, cell.col, "unknown", cell.found, cell.hole, cell.wanted,
                                   "next to cells that cannot be read (a hand over the board?), so it may be "
                                   "partly hidden: not judged")
    wrong = [c for c in cells if c.status == "wrong"]
    unsure = [c for c in cells if c.status == "unknown"]
    if wrong:
        verdict = "fumble"
        reason = f"{len(wrong)} cell{'s are' if len(wrong) != 1 else ' is'} wrong: " + ", ".join(c.name for c in wrong)
        if unsure:
            reason += f" ({len(unsure)} more cannot be read)"
    elif unsure:
        verdict = "unsure"
        first = unsure[0]
        reason = (f"{len(unsure)} cell{'s' if len(unsure) != 1 else ''} cannot be judged surely "
                  f"({', '.join(c.name for c in unsure[:6])}{'...' if len(unsure) > 6 else ''}): {first.reason}")
        missing = [f"row {r + 1}" for r in range(4) if pawns[r] is None] + \
                  [f"column {c + 1}" for c in range(5) if coins[c] is None]
        if missing and board_issue is None and len(missing) <= 9:
            reason += f"; no pawn or coin read for {', '.join(missing)}"
    else:
        verdict = "correct"
        reason = "every tile is where the pawns and coins say, the nulls and the hole are in the bottom row"
    return BoardVerdict(verdict, cells, reason, pawns, coins, layout, settled)


def _board_in_full_view(layout: EasySliderLayout, found: Mapping[tuple[int, int], Tile],
                        unknown: Mapping[tuple[int, int], str], by_set: set[tuple[int, int]]) -> bool:
    """Whether nothing can be over an Easy Slider board: its 24 tiles are all seen, each read surely on a cell of
    its own (none open, settled by the set, between cells, outside, two on a cell), and no coin above a column is
    doubted for being hidden. A hand over the board hides or blurs tiles (every rendered hand frame has tiles not
    seen or not read), so then the Done check stays unsure."""
    return (len(found) == 24 and not unknown and not by_set and not layout.between and not layout.outside
            and layout.ambiguous is None and not any(c is not None and _hidden(c) for c in layout.coins))


#: Why a pawn doubted only for its outline gives its colour to a Done check on a board in full view.
_DONE_OUTLINE_RULE = ("its colour reads clearly, only pawns stand beside Easy Slider's rows and pawns never move; "
                      "only its outline was doubted, and all 24 tiles are seen and read (no hand over the board)")


def _done_check_pawn_suit(p: DetectedPiece, row: int, log: list[Settled]) -> Suit | None:
    """The suit of a pawn beside a row for the Done check of a board in full view (:func:`_board_in_full_view`):
    read surely, or doubted only for its outline (a hand-made pawn is a plain block whose outline the figure
    reader finds weakly), its colour read clearly; logged in ``log``. Measured on the 160 Done-check frames
    (boards 1000-1019 and 3000-3019, four editions): 32 pawns doubted for their outline alone (all hand-made),
    every one of the colour read, 0.9-4.0 mm from the real pawn. A pawn doubted for anything else (something
    unexplained beside it, its kind, its colour) stays unread."""
    if not p.uncertain:
        return p.suit
    if p.suit is None or (p.reason or "").strip() != _OUTLINE_ONLY:
        return None
    log.append(Settled(f"the pawn beside row {row + 1}", f"the {p.suit.value} pawn", _DONE_OUTLINE_RULE))
    return p.suit


def _hidden(p: DetectedPiece) -> bool:
    """Whether the vision says the piece is (partly) hidden, by a hand or anything: the Done check is "unsure"
    whenever a piece that matters is hidden (a hand over the board: the player may still be moving), even where
    the set would tell which piece it is."""
    return bool(p.uncertain and "hidden" in (p.reason or ""))


_NULL_OR_HOLE = "no tile is seen here: the hole, or a null tile not seen (every tile not seen is a null)"


def _null_or_hole(layout: EasySliderLayout, found: Mapping[tuple[int, int], Tile],
                  unknown: Mapping[tuple[int, int], str], empty: list[tuple[int, int]], accounted: int
                  ) -> set[tuple[int, int]]:
    """Empty cells of the bottom row that hold the hole or a null tile not seen: when every tile seen is read, the
    tiles the set still lacks are all nulls, one fewer than those empty cells (the 24 tiles never leave the board,
    so each tile not seen lies on an empty cell), and every empty cell is in the bottom row. A Done check needs
    no more there (a null tile or the hole); the state does (which one), so :func:`_read_easy_slider` does not
    take them."""
    from rules.epic_funhouse.common import ALL_TILES

    if not empty or layout.outside or layout.between or any(r != 4 for _, r in empty):
        return set()
    if any(p is not None and _hidden(p) for p in list(layout.pawns) + list(layout.coins)):
        return set()  # a hand (or something) over the board: a tile it hides is "a piece that matters, hidden"
    if any(cell in unknown for cell in layout.cells) or len(found) != accounted:
        return set()  # a tile seen but not read may be any
    unseen = [t for t in ALL_TILES if t not in set(found.values())]
    if len(unseen) != len(empty) - 1 or any(t.rank != 0 for t in unseen):
        return set()
    return set(empty)


def _easy_slider_tiles_by_set(layout: EasySliderLayout, found: dict[tuple[int, int], Tile],
                              unknown: dict[tuple[int, int], str], settled: list[Settled]) -> set[tuple[int, int]]:
    """Tiles on the board the picture left open (uncertain, on one cell), settled by the set: the 24 tiles are
    all on the board, each once, so when the tiles read leave one tile for a cell, it is that one. Every other
    tile seen (two on a cell, between cells, outside, a back, read twice) takes a tile of the set too, any one.
    ``found`` and ``unknown`` are updated; the cells settled are returned."""
    from rules.epic_funhouse.common import ALL_TILES

    open_cells = {cell: fits[0].piece for cell, fits in layout.cells.items()
                  if cell in unknown and len(fits) == 1 and fits[0].piece.uncertain and not _hidden(fits[0].piece)}
    if not open_cells:
        return set()
    others = sum(len(fits) for cell, fits in layout.cells.items() if cell not in found and cell not in open_cells)
    others += len(layout.between) + len(layout.outside)
    options = ([frozenset((t,)) for t in found.values()] + [_tile_options(p) for p in open_cells.values()]
               + [frozenset(ALL_TILES)] * others)
    possible = still_possible(options, {t: 1 for t in ALL_TILES})
    if possible is None:
        return set()
    done = set()
    for cell, can in zip(open_cells, possible[len(found):], strict=False):
        if len(can) == 1:
            found[cell] = next(iter(can))
            unknown.pop(cell)
            done.add(cell)
            settled.append(Settled(f"the tile on {'abcde'[cell[0]]}{5 - cell[1]}", f"the {found[cell]}",
                                   "Easy Slider's 24 tiles are all on the board, each once: the other tiles read "
                                   "leave only this one"))
    return done


def _easy_slider_boards(pieces: list[DetectedPiece]) -> list[EasySliderLayout]:
    """The Easy Slider boards in the frame: clusters of tiles mostly face up (a block of tile backs is another
    game's board)."""
    boards = find_easy_slider_boards(pieces)
    return [b for b in boards if sum(1 for t in b.tiles if t.side == "back") <= len(b.tiles) / 2]


def check_easy_slider(seen: Detection | Iterable[DetectedPiece]) -> list[BoardVerdict]:
    """The Done check of every Easy Slider board in the frame, in reading order; :class:`NotReadable` when
    there is none."""
    pieces = all_pieces(seen)
    boards = _easy_slider_boards(pieces)
    if not boards:
        raise _wrong_game(pieces, "easy-slider", "Easy Slider board")
    return [judge_easy_slider_board(b) for b in boards]


# ----------------------------------------------------------------------------------------------------- states
@dataclass
class Reading:
    """A game state read from a frame: ``state`` is the rules object (its ``diagram()``/``render()`` is the
    text board), ``notes`` what the photo could not show and how it was taken, ``layout`` the fitted grid."""

    game: str
    room: str | None
    state: Any
    text: str
    notes: list[str] = field(default_factory=list)
    layout: Any = field(default=None, repr=False)
    settled: list[Settled] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.room or self.game


def _one(items: list[Any], what: str, count_word: str = "boards") -> Any:
    if len(items) > 1:
        raise NotReadable(f"the frame shows {len(items)} {count_word} where one {what} was expected: "
                          "frame one board, or use `tableside check` for several Easy Slider boards")
    return items[0]


def _layout_error(game: str, err: Exception) -> NotReadable:
    return NotReadable(f"the pieces seen are not a possible {GAME_NAMES.get(game, game)} position: {err}")


def read_state(seen: Detection | Iterable[DetectedPiece], game: str, room: str | None = None,
               **options: Any) -> Reading:
    """The state of ``game`` (an Epic Funhouse ``room`` for ``epic-funhouse``) in the frame.

    ``options``: ``players`` (Slides of Action: 2, 3 or suits), ``goal`` (Plans of Action: one/all),
    ``arrangement`` (the die's, for the Funhouse rooms), ``grid`` (Whack-a-Dummy: the maze's 24 values,
    reading order, since face-down coins hide theirs), ``die_coin`` (Whack-a-Dummy: ``up``/``down``, the side of
    the coin under the die, which a photo cannot show), ``small_height_mm``/``variant`` (Martian Shuffleboard).
    """
    pieces = all_pieces(seen)
    key = game.strip().lower()
    if key == "epic-funhouse":
        if room is None:
            raise NotReadable("say which Epic Funhouse room the frame shows: --room " + ", ".join(ROOMS))
        key = room
    readers = {
        "easy-slider": _read_easy_slider, "slides-of-action": _read_slides, "plans-of-action": _read_plans,
        "martian-shuffleboard": _read_shuffleboard, "slide-jam": _read_slide_jam, "magic-mirror": _read_mirror,
        "catwalk": _read_catwalk, "roll-out-the-barrels": _read_barrels, "whack-a-dummy": _read_whack,
        "trampo-land": _read_trampo,
    }
    if key not in readers:
        raise NotReadable(f"unknown game or room {game!r}: use " + ", ".join(GAME_NAMES))
    reading = readers[key](pieces, **options)
    reading.notes.extend(_settled_note(reading.settled))
    reading.game = game
    reading.room = room if game == "epic-funhouse" else None
    return reading


# -- Easy Slider
def _read_easy_slider(pieces: list[DetectedPiece], **_: Any) -> Reading:
    from rules import easy_slider as es

    boards = _easy_slider_boards(pieces)
    if not boards:
        raise _wrong_game(pieces, "easy-slider", "Easy Slider board")
    layout = _one(boards, "Easy Slider board")
    verdict = judge_easy_slider_board(layout, guard_marks=False, outline_doubted_pawns=True)
    unknown = [c for c in verdict.cells if c.status == "unknown" or c.reason == _NULL_OR_HOLE]
    # name first a cell that is itself unreadable, not one only doubted for its unreadable neighbour
    unknown.sort(key=lambda c: (c.reason or "").startswith("next to cells"))
    if unknown:
        raise NotReadable(f"cell {unknown[0].name} cannot be read: {unknown[0].reason}"
                          + (f" ({len(unknown) - 1} more cells too)" if len(unknown) > 1 else ""))
    missing = [f"the pawn beside row {r + 1}" for r, p in enumerate(verdict.pawns) if p is None]
    missing += [f"the coin above column {c + 1}" for c, k in enumerate(verdict.coins) if k is None]
    if missing:
        raise NotReadable(f"{missing[0]} cannot be read" + (f" ({len(missing) - 1} more)" if len(missing) > 1 else ""))
    board = [None if c.hole else c.found for c in verdict.cells]
    try:
        state = es.State.from_layout(board, verdict.pawns, verdict.coins)
    except LayoutError as err:
        raise _layout_error("easy-slider", err) from None
    return Reading("easy-slider", None, state, state.diagram(), layout=layout, settled=verdict.settled)


# -- Slides of Action and Plans of Action
#: The suit side up on the tiles (Slides of Action: "five coins each from arms, crowns and suns face down";
#: Plans of Action: "the 24 coins ... color side up"): which coins may lie there and why.
_BLOCK_COINS = {
    "slides-of-action": ((Suit.ARMS, Suit.CROWNS, Suit.SUNS),
                         "Slides of Action's coins (arms, crowns and suns) lie face down, suit side up"),
    "plans-of-action": (SUITS, "Plans of Action's coins lie colour (suit) side up"),
}


def _coin_suit(p: DetectedPiece, game: str = "", where: str = "", log: list[Settled] | None = None) -> Suit | None:
    """The suit a coin on the block shows: read surely, or settled by the game's rules (its coins lie suit side
    up, so a value-side reading cannot be there)."""
    if p.uncertain:
        if game not in _BLOCK_COINS:
            return None
        suits, rule = _BLOCK_COINS[game]
        return _settle(p, lambda r: r[2] == "suit" and r[0] in suits, lambda r: r[0], where, rule,
                       lambda suit: f"{suit.value} (suit side up)", log)
    return p.suit


def _block_cell(cell: tuple[int, int]) -> str:
    return f"the coin on cell {cell[0] + 1},{cell[1] + 1} (from the top left)"


#: Tiles and coins in play: Slides of Action 4 tiles and 15 coins, Plans of Action 16 tiles and all 24 coins.
_BLOCK_PIECES = {"slides-of-action": (4, 15), "plans-of-action": (16, 24)}


def _lone_coins_on_unseen_tiles(pieces: list[DetectedPiece], game: str, layout: BlockLayout) -> BlockLayout:
    """A block where a single coin lies on a tile-space with no tile seen: coins lie only on tiles (in both
    games a coin may not land on an empty tile-space), so when a tile under each such coin brings the tiles to
    exactly the game's number and every one of its coins is on a cell, those tiles are there (unseen under
    their coin). Otherwise (a coin off the board, a tile too many): NotReadable."""
    n_tiles, n_coins = _BLOCK_PIECES.get(game, (0, 0))
    alt = find_tile_block(pieces, infer_tiles_from=1)
    if (alt is not None and not alt.off_tiles and not alt.between and len(alt.tiles) == n_tiles
            and sum(len(cs) for cs in alt.coins.values()) == n_coins and len(alt.inferred) > len(layout.inferred)):
        return alt
    raise NotReadable("a coin lies where no tile is seen (a tile hidden, or the coin off the board)")


def _block(pieces: list[DetectedPiece], game: str, what: str
           ) -> tuple[BlockLayout, dict[tuple[int, int], Suit], list[Settled]]:
    """The block of tiles, the suit of the coin on each of its cells, and the coins the rules settled."""
    layout = find_tile_block(pieces)
    if layout is None or not layout.tiles:
        raise _wrong_game(pieces, game, what)
    if layout.between or layout.off_tiles or layout.problems:
        # another game's pieces fit no block: say which game they look like, not what misfits (an Easy Slider
        # board read as Plans of Action has "a coin between cells")
        refuse_another_game(pieces, game, what)
    if layout.between:
        raise NotReadable("a coin lies between cells (still moving?): " + layout.problems[0].message)
    if layout.off_tiles:
        layout = _lone_coins_on_unseen_tiles(pieces, game, layout)
    shared = [p for p in layout.problems if p.kind in ("shared-cell", "misfit", "off-grid")]
    if shared:
        raise NotReadable(shared[0].message)
    suits: dict[tuple[int, int], Suit] = {}
    settled: list[Settled] = []
    open_cells: dict[tuple[int, int], frozenset[Suit]] = {}
    for cell, coins in layout.coins.items():
        suit = _coin_suit(coins[0], game, _block_cell(cell), settled)
        if suit is None:
            open_cells[cell] = _block_coin_suits(coins[0], game)
        else:
            suits[cell] = suit
    if open_cells:
        suits.update(_suits_by_count(layout, game, suits, open_cells, settled))
    return layout, suits, settled


def _block_coin_suits(p: DetectedPiece, game: str) -> frozenset[Suit]:
    """The suits a coin on the block may show: its suit-side readings among the game's suits (``could_be``), or
    any of the game's suits when the picture narrowed it to none."""
    allowed, _rule = _BLOCK_COINS.get(game, (SUITS, ""))
    if not p.uncertain and p.suit is not None:
        return frozenset((p.suit,))
    named = {r[0] for r in (getattr(p, "could_be", None) or ()) if r[2] == "suit" and r[0] in allowed}
    return frozenset(named or allowed)


#: The coins in play, all on the board from the set-up to the end (no rule takes one off): per suit.
_BLOCK_SUPPLY = {
    "slides-of-action": ({Suit.ARMS: 5, Suit.CROWNS: 5, Suit.SUNS: 5},
                         "Slides of Action plays five coins each of arms, crowns and suns, all on the board"),
    "plans-of-action": ({suit: 6 for suit in SUITS}, "Plans of Action plays all 24 coins, six of each suit, all on "
                        "the board"),
}


def _suits_by_count(layout: BlockLayout, game: str, suits: Mapping[tuple[int, int], Suit],
                    open_cells: Mapping[tuple[int, int], frozenset[Suit]], settled: list[Settled]
                    ) -> dict[tuple[int, int], Suit]:
    """The suits of the coins the picture left open (``open_cells``), from the game's coins per suit: when the
    coins read use up every suit but one a coin may show, it shows that one. NotReadable for the first coin
    that stays open (its reason and readings)."""
    supply, rule = _BLOCK_SUPPLY.get(game, ({}, ""))
    cells = list(suits) + list(open_cells)
    options = [frozenset((suits[c],)) for c in suits] + [open_cells[c] for c in open_cells]
    possible = still_possible(options, supply) if supply else None
    out: dict[tuple[int, int], Suit] = {}
    for cell, can in zip(cells, possible or [set()] * len(cells), strict=True):
        if cell not in open_cells:
            continue
        if len(can) != 1:
            p = layout.coins[cell][0]
            raise NotReadable(f"{_block_cell(cell)} cannot be read: {p.reason or 'its suit was not read'}"
                              + _open_readings(p))
        out[cell] = next(iter(can))
        settled.append(Settled(_block_cell(cell), f"{out[cell].value} (suit side up)",
                               f"{rule}: the other coins read leave only this suit"))
    return out


def _open_readings(p: DetectedPiece) -> str:
    """For an abstention's reason: the readings the picture fits that the rules could not choose between."""
    could = getattr(p, "could_be", None) or ()
    if len(could) < 2:
        return ""
    return " (it could be " + " or ".join(_reading_words(r) for r in could) + ")"


def _reading_words(r: PieceReading) -> str:
    suit, rank, side = r
    if side == "back":
        return "a back"
    if side == "face":
        return str(Tile(suit, rank)) if suit is not None and rank is not None else "a face"
    if side == "value":
        return f"the {rank_name(rank).lower() if rank is not None else '?'} (value side)"
    if side == "suit":
        return f"{suit.value if suit is not None else '?'} (suit side)"
    return suit.value if suit is not None else "?"


def _read_slides(pieces: list[DetectedPiece], players: Any = 2, one_diagonal: bool = False, **_: Any) -> Reading:
    from rules import slides_of_action as soa

    layout, suits, settled = _block(pieces, "slides-of-action", "Slides of Action board")
    spaces = layout.tile_spaces
    if spaces != (2, 2) or len(layout.tiles) != 4:
        if len(layout.tiles) > 4:
            raise _wrong_game(pieces, "slides-of-action", "Slides of Action board (2x2 tiles)")
        raise NotReadable(f"a Slides of Action board is 2x2 tiles; {len(layout.tiles)} tiles are seen in "
                          f"{spaces[0]}x{spaces[1]} (a tile hidden?)")
    coins = {(c + 1, 4 - r): suits[(c, r)] for (c, r) in layout.coins}
    try:
        state = soa.State.from_layout(coins, players=players, one_diagonal=one_diagonal)
    except LayoutError as err:
        raise _layout_error("slides-of-action", err) from None
    notes = [f"whose turn it is cannot be seen: shown with {state.turn.value} to move"] + _inferred_note(layout)
    return Reading("slides-of-action", None, state, state.diagram(), notes, layout, settled)


def _inferred_note(layout: BlockLayout) -> list[str]:
    if not layout.inferred:
        return []
    n = len(layout.inferred)
    return [f"{n} tile{'s' if n != 1 else ''} not seen under {'their' if n != 1 else 'its'} coins "
            "(coins lie only on tiles)"]


def _read_plans(pieces: list[DetectedPiece], goal: str = "one", **_: Any) -> Reading:
    from rules import plans_of_action as poa

    layout, suits, settled = _block(pieces, "plans-of-action", "Plans of Action board")
    if len(layout.tiles) < 6:
        raise _wrong_game(pieces, "plans-of-action", "Plans of Action board (16 tiles)")
    tc0 = min(c for c, _ in layout.tiles)
    tr1 = max(r for _, r in layout.tiles)
    tiles = [(2 * (tc - tc0) + 1.5, 2 * (tr1 - tr) + 1.5) for tc, tr in layout.tiles]
    coins = {(cc - 2 * tc0 + 1, 2 * (tr1 + 1) - cr): suits[(cc, cr)] for (cc, cr) in layout.coins}
    try:
        state = poa.State.from_layout(coins, tiles=tiles, goal=goal)
    except LayoutError as err:
        raise _layout_error("plans-of-action", err) from None
    notes = ["the moves made so far cannot be seen in a photo", "cells are numbered from the tiles' bottom-left"]
    return Reading("plans-of-action", None, state, state.diagram(), notes + _inferred_note(layout), layout, settled)


# -- Martian Shuffleboard
def _read_shuffleboard(pieces: list[DetectedPiece], small_height_mm: float | None = None, variant: Any = None,
                       **_: Any) -> Reading:
    result = score_shuffleboard(pieces, small_height_mm=small_height_mm, variant=variant)
    return Reading("martian-shuffleboard", None, result, result.text(), result.notes(), None)


# -- Epic Funhouse rooms
def _tile_rows(cells: Mapping[tuple[int, int], list[Any]], cols: int, rows: int, room: str,
               settled: list[Settled] | None = None) -> list[list[Tile | None]]:
    grid: list[list[Tile | None]] = [[None] * cols for _ in range(rows)]
    known: dict[tuple[int, int], Tile] = {}
    open_: dict[tuple[int, int], DetectedPiece] = {}
    for (c, r), fits in cells.items():
        if len(fits) > 1:
            raise NotReadable(f"two tiles are on one cell of the {GAME_NAMES[room]} board")
        piece = fits[0].piece
        tile = _face_tile(piece, f"the tile in row {r + 1}, column {c + 1}", f"{GAME_NAMES[room]}'s tiles lie face up",
                          settled)
        if tile is None:
            open_[(c, r)] = piece
        else:
            known[(c, r)] = tile
    if open_:
        check = _mirror_pairs_off_board if room == "magic-mirror" else None
        rule = (f"{GAME_NAMES[room]} deals each of the 24 tiles once"
                + (" and takes them off in pairs totalling 5" if check else ""))
        known.update(_tiles_by_set(known, open_, lambda cr: f"the tile in row {cr[1] + 1}, column {cr[0] + 1}",
                                   rule, settled, check, f"a tile of the {GAME_NAMES[room]} board"))
    for (c, r), tile in known.items():
        grid[r][c] = tile
    return grid


def _tile_options(p: DetectedPiece) -> frozenset[Tile]:
    """The tiles a piece the picture left open may be: its face readings (``could_be``), or any tile."""
    from rules.epic_funhouse.common import ALL_TILES

    named = {Tile(r[0], r[1]) for r in (getattr(p, "could_be", None) or ())
             if r[2] == "face" and r[0] is not None and r[1] is not None}
    return frozenset(named or ALL_TILES)


def _mirror_pairs_off_board(on_board: Iterable[Tile]) -> bool:
    """Whether the tiles not on a Magic Mirror board can be the pairs removed: every pair totals 5, so as many
    nulls as 5s, aces as 4s, 2s as 3s."""
    from rules.epic_funhouse.common import ALL_TILES

    board = set(on_board)
    off = [t.rank for t in ALL_TILES if t not in board]
    return all(off.count(a) == off.count(5 - a) for a in (0, 1, 2))


def _tiles_by_set(known: Mapping[Any, Tile], open_: Mapping[Any, DetectedPiece], where: Any, rule: str,
                  settled: list[Settled] | None, check: Any = None, what: str = "a tile", limit: int = 20_000
                  ) -> dict[Any, Tile]:
    """The tiles the picture left open (``open_``: place -> piece), from the set: each tile exists once, so one
    read elsewhere is not here; ``check(tiles on the board)`` says whether a whole board can be (Magic Mirror:
    the tiles off it pair up). NotReadable for the first place that more than one tile can still fill."""
    from rules.epic_funhouse.common import ALL_TILES

    places = list(known) + list(open_)
    options = [frozenset((known[k],)) for k in known] + [_tile_options(open_[k]) for k in open_]
    possible = still_possible(options, {t: 1 for t in ALL_TILES})
    if possible is None:
        first = next(iter(open_.values()))
        raise NotReadable(f"{what} cannot be read: {_why(first)}" + _open_readings(first))
    sets = dict(zip(places, possible, strict=True))
    keys = list(open_)
    if check is not None:
        combos = 1
        for k in keys:
            combos *= len(sets[k])
        if combos <= limit:  # every way of filling the open places that the whole board allows
            fits: dict[Any, set[Tile]] = {k: set() for k in keys}
            base = list(known.values())
            for pick in itertools.product(*(sorted(sets[k]) for k in keys)):
                if len(set(pick)) == len(pick) and check(base + list(pick)):
                    for k, t in zip(keys, pick, strict=True):
                        fits[k].add(t)
            sets.update(fits)
    out: dict[Any, Tile] = {}
    for k in keys:
        if len(sets[k]) != 1:
            p = open_[k]
            left = sorted(sets[k], key=lambda t: (t.rank, t.suit.value))
            leaves = (" (it could be " + " or ".join(f"the {t}" for t in left) + ": the others read leave these)"
                      if 2 <= len(left) <= 4 else "")
            raise NotReadable(f"{what} cannot be read: {_why(p)}" + (leaves or _open_readings(p)))
        out[k] = next(iter(sets[k]))
        if settled is not None:
            settled.append(Settled(where(k), f"the {out[k]}", f"{rule}: the other tiles read leave only this one"))
    return out


def _read_slide_jam(pieces: list[DetectedPiece], **_: Any) -> Reading:
    from rules.epic_funhouse import slide_jam

    layout = find_tile_grid(pieces, 4, 6)
    if layout is None or not layout.cells:
        raise _wrong_game(pieces, "slide-jam", "Slide Jam board")
    _grid_trouble(layout, "slide-jam")
    settled: list[Settled] = []
    grid = _tile_rows(layout.cells, 4, 6, "slide-jam", settled)
    _check_packed(grid)
    try:
        state = slide_jam.State.from_layout(grid)
    except LayoutError as err:
        raise _layout_error("slide-jam", err) from None
    notes = ["the two stacks of families are not read (only the board)"]
    if layout.ambiguous:
        notes.append(f"{layout.ambiguous}: the tiles are shown from the grid's top-left corner "
                     "(the score does not depend on it)")
    return Reading("slide-jam", None, state, state.render(), notes, layout, settled)


def _check_packed(grid: list[list[Tile | None]]) -> None:
    """Slide Jam boards are the full deal or packed against one edge (every removal ends with a slide that moves
    every tile as far as it goes): anything else means a tile was not seen."""
    count = sum(1 for row in grid for t in row if t is not None)
    if count in (0, 24):
        return
    if count % 3:  # families of three leave the board: 24, 21, 18... tiles
        raise NotReadable(f"{count} Slide Jam tiles are seen, but families of three leave 24, 21, 18... on the board: "
                          "a tile is probably hidden or was not seen")
    rows, cols = len(grid), len(grid[0])
    filled = [[t is not None for t in row] for row in grid]
    r0 = min(r for r in range(rows) if any(filled[r]))
    r1 = max(r for r in range(rows) if any(filled[r]))
    c0 = min(c for c in range(cols) if any(filled[r][c] for r in range(rows)))
    c1 = max(c for c in range(cols) if any(filled[r][c] for r in range(rows)))

    def columns_packed(top: bool) -> bool:
        for c in range(cols):
            cells = [filled[r][c] for r in range(rows)]
            if not any(cells):
                continue
            run = cells[r0:] if top else cells[:r1 + 1][::-1]
            n = sum(cells)
            if not all(run[:n]):
                return False
        return True

    def rows_packed(left: bool) -> bool:
        for r in range(rows):
            cells = filled[r]
            if not any(cells):
                continue
            run = cells[c0:] if left else cells[:c1 + 1][::-1]
            n = sum(cells)
            if not all(run[:n]):
                return False
        return True

    if not (columns_packed(True) or columns_packed(False) or rows_packed(True) or rows_packed(False)):
        raise NotReadable("the Slide Jam tiles are not packed against any edge, which play cannot leave: a tile is "
                          "probably hidden or was not seen")


def _grid_trouble(layout: Any, room: str) -> None:
    if getattr(layout, "between", None):
        raise NotReadable(f"a tile lies between cells of the {GAME_NAMES[room]} board (still moving?)")
    bad = [p for p in layout.problems if p.kind in ("shared-cell", "misfit")]
    if bad:
        raise NotReadable(bad[0].message)
    if getattr(layout, "outside", None):
        raise NotReadable(f"tiles lie outside the {GAME_NAMES[room]} grid")


def _read_mirror(pieces: list[DetectedPiece], **_: Any) -> Reading:
    from rules.epic_funhouse import magic_mirror

    layout = find_mirror_grids(pieces)
    if layout is None or not layout.cells:
        raise _wrong_game(pieces, "magic-mirror", "Magic Mirror board")
    _grid_trouble(layout, "magic-mirror")
    settled: list[Settled] = []
    grid = _tile_rows(layout.cells, 4, 6, "magic-mirror", settled)
    upper, lower = (sum(1 for row in rows for t in row if t is not None) for rows in (grid[:3], grid[3:]))
    if upper != lower:  # every pair taken off takes one tile from each side
        fewer = "upper" if upper < lower else "lower"
        raise NotReadable(f"the sides of the mirror hold {upper} and {lower} tiles, but every pair taken off takes one "
                          f"tile from each side: a tile on the {fewer} side is probably hidden or not seen")
    try:
        state = magic_mirror.State.from_layout(grid)
    except LayoutError as err:
        raise _layout_error("magic-mirror", err) from None
    notes = ["the stacks of removed pairs are not read (only the board)"]
    if layout.ambiguous:
        notes.append(f"{layout.ambiguous}: the tiles are shown from the left")
    return Reading("magic-mirror", None, state, state.render(), notes, layout, settled)


def _catwalk_order(cells: dict[tuple[int, int], Tile]) -> tuple[list[Tile], list[tuple[int, int]]]:
    """The laying order of a catwalk seen on the table (:func:`_catwalk_orders`). Where the rules allow two
    orders, the photo cannot tell which the player laid (the scenes lay every tile 5 mm from its neighbours, and
    the seed staggers tiles only in a switchback): NotReadable, never a guess, naming where the orders part
    (:func:`_catwalk_orders_differ`)."""
    found = _catwalk_orders(cells)
    if len(found) > 1:
        raise NotReadable(_catwalk_orders_differ(cells, found))
    if found:
        return [cells[c] for c in found[0]], found[0]
    raise NotReadable("the tiles do not form a catwalk that the laying rules could have made")


def _catwalk_orders(cells: dict[tuple[int, int], Tile]) -> list[list[tuple[int, int]]]:
    """The laying orders the rules allow for a catwalk seen on the table (cells in laying order; at most
    ``_CATWALK_ORDERS_LISTED``): paths through every tile that the laying rules produce, found by depth-first
    search from each end (dead ends' die rolls are free choices)."""
    from rules.epic_funhouse.catwalk import Track

    def neighbours(cell: tuple[int, int]) -> list[tuple[int, int]]:
        x, y = cell
        return [n for n in ((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)) if n in cells]

    found: list[list[tuple[int, int]]] = []
    starts = sorted(cells, key=lambda c: (len(neighbours(c)), c))
    for start in starts:
        track = Track().add(cells[start])
        stack = [(track, [start])]
        limit = 200_000
        while stack and limit and len(found) < _CATWALK_ORDERS_LISTED:
            limit -= 1
            track, path = stack.pop()
            if len(path) == len(cells):
                if path not in found:
                    found.append(path)
                continue
            placed = set(path)
            x0, y0 = path[0]
            for nxt in neighbours(path[-1]) + [c for c in cells if c not in placed and c not in neighbours(path[-1])]:
                if nxt in placed:
                    continue
                tile = cells[nxt]
                how = track.placement(tile)
                for roll in ((None,) if how.rule != "roll" else range(len(how.options))):
                    try:
                        new = track.add(tile, roll if roll is not None else 0)
                    except RulesError:
                        continue
                    if new.cells[-1] == (nxt[0] - x0, nxt[1] - y0):
                        stack.append((new, path + [nxt]))
                        break
    return found


#: Orders a catwalk's search collects before it says how they differ (a ring of 24 tiles allows up to 24).
_CATWALK_ORDERS_LISTED = 30


def _catwalk_orders_differ(cells: dict[tuple[int, int], Tile], orders: list[list[tuple[int, int]]]) -> str:
    """Why two laying orders the rules allow are two game states, for the abstention. The seed: "Pick one end of
    the catwalk as the start ... flick all of the coins in the same direction"; a coin "scores its value times the
    value of the tile from which it fell", and "when a coin falls off a tile, start the next coin on that tile".
    So the course (which tiles follow which, from either end) decides the legal flicks and the score: two orders
    are one state only if one is the other reversed, and the search finds none such (measured: 0 of 300 rule-laid
    catwalks, seeds 100-399; 30 had more than one order: 9 rings, 21 with a stretch that runs either way)."""
    def name(cell: tuple[int, int]) -> str:
        return str(cells[cell])

    first = orders[0]
    if all(len(o) == len(first) and o[0] in first and first[first.index(o[0]):] + first[:first.index(o[0])] == o
           for o in orders):
        begun = ", ".join(name(o[0]) for o in orders[:3]) + (" ..." if len(orders) > 3 else "")
        return (f"the catwalk closes into a ring (its two ends touch), so where it was begun cannot be seen: the "
                f"laying rules could have begun it at {len(orders)} of its tiles ({begun}), and which tiles the coins "
                f"are flicked from first and last depends on it: the photo cannot tell")
    same = 0
    while all(len(o) > same and o[same] == first[same] for o in orders):
        same += 1
    tail = 0
    while tail < len(first) - same and all(o[len(o) - 1 - tail] == first[len(first) - 1 - tail] for o in orders):
        tail += 1
    stretches = [o[same:len(o) - tail] for o in orders]
    if (same or tail) and all(len(t) == len(stretches[0]) and set(t) == set(stretches[0]) for t in stretches):
        where = f"after the {name(first[same - 1])}" if same else f"before the {name(first[len(first) - tail])}"
        ways = " or ".join(", ".join(name(c) for c in t[:3]) + "..." for t in stretches[:2])
        return (f"a stretch of {len(stretches[0])} catwalk tiles ({where}) could have been laid in {len(orders)} "
                f"orders by the laying rules ({ways}), and the course the coins are flicked along depends on which: "
                f"the photo cannot tell")
    a, b = (", ".join(name(c) for c in o[:3]) for o in orders[:2])
    return (f"the catwalk could have been laid in more than one order by the laying rules ({a}... or {b}...), and "
            f"the course the coins are flicked along depends on which: the photo cannot tell")


def _read_catwalk(pieces: list[DetectedPiece], **_: Any) -> Reading:
    from rules.epic_funhouse.catwalk import Track

    layout = find_catwalk(pieces)
    if layout is None or not layout.cells:
        raise _wrong_game(pieces, "catwalk", "catwalk")
    bad = [p for p in layout.problems if p.kind in ("shared-cell", "misfit", "off-grid")]
    if bad:
        raise NotReadable(bad[0].message)
    cells = {}
    settled: list[Settled] = []
    open_ = {}
    for cell, fits in layout.cells.items():
        tile = _face_tile(fits[0].piece, f"the catwalk tile at {cell[0]},{cell[1]} (east, north)",
                          "the catwalk's tiles lie face up", settled)
        if tile is None:
            open_[cell] = fits[0].piece
        else:
            cells[cell] = tile
    if open_:
        cells.update(_tiles_by_set(cells, open_, lambda xy: f"the catwalk tile at {xy[0]},{xy[1]} (east, north)",
                                   "the catwalk is laid from all 24 tiles", settled, what="a catwalk tile"))
    if len(cells) != 24:
        raise NotReadable(f"the catwalk has {len(cells)} tiles, not 24: a tile is hidden or was not seen")
    tiles, order = _catwalk_order(cells)
    try:
        track = Track.from_layout(tiles, order)
    except LayoutError as err:
        raise _layout_error("catwalk", err) from None
    notes = ["the catwalk as laid; flicks and the scoreboard are not read from a photo"]
    return Reading("catwalk", None, track, track.render(), notes, layout, settled)


def _coin_values(layout: CoinGridLayout, room: str, hidden_ok: bool, settled: list[Settled] | None = None
                 ) -> tuple[list[int | None], list[str]]:
    """The barrels' values (reading order; None where not read): read surely, or settled by the rules (the
    barrels lie face up: a suit-side reading cannot be there)."""
    from rules.epic_funhouse.roll_out_the_barrels import cell_name

    values: list[int | None] = [None] * 24
    notes: list[str] = []
    bad = [p for p in layout.problems if p.kind in ("shared-cell", "misfit", "off-grid")]
    if bad:
        raise NotReadable(bad[0].message)
    if layout.ambiguous:
        raise NotReadable(f"the {GAME_NAMES[room]} grid cannot be placed: {layout.ambiguous}")
    for (c, r), fits in layout.cells.items():
        p = fits[0].piece
        value = p.rank if not p.uncertain and p.side == "value" else _settle(
            p, lambda x: x[2] == "value", lambda x: x[1], f"the barrel on {cell_name(r * 4 + c)}",
            "the barrels lie face up, value side", lambda v: f"the {rank_name(v).lower()}", settled)
        if value is not None:
            values[r * 4 + c] = value
        elif not hidden_ok:
            raise NotReadable(f"the coin on {'abcd'[c]}{6 - r} cannot be read: {_why(p)}")
    return values, notes


def _one_die(pieces: list[DetectedPiece]) -> list[DetectedPiece]:
    """The pieces without doubtful dice when exactly one die is read surely: the rooms have one die (you), and a
    die reported twice (a doubtful copy beside the sure one, seen on rendered frames) is that die."""
    sure = [p for p in pieces if _kind(p) is Kind.DIE and not p.uncertain]
    if len(sure) != 1:
        return pieces
    return [p for p in pieces if _kind(p) is not Kind.DIE or not p.uncertain]


def _die_on(layout: CoinGridLayout) -> tuple[int | None, DetectedPiece | None]:
    if not layout.dice:
        return None, None
    if len(layout.dice) > 1:
        raise NotReadable(f"{len(layout.dice)} dice stand on the maze: one die is you")
    d = layout.dice[0]
    return d.row * 4 + d.col, d.piece


def _read_barrels(pieces: list[DetectedPiece], arrangement: str = "counter", **_: Any) -> Reading:
    from rules.epic_funhouse import roll_out_the_barrels as rob
    from rules.epic_funhouse.die import arrangement_named

    pieces = _one_die(pieces)
    layout = find_coin_grid(pieces, 4, 6)
    if layout is None or not layout.cells:
        raise _wrong_game(pieces, "roll-out-the-barrels", "barrel maze (a 4x6 grid of coins)")
    if layout.ambiguous or layout.problems:
        refuse_another_game(pieces, "roll-out-the-barrels", "barrel maze (a 4x6 grid of coins)")
    settled: list[Settled] = []
    values, notes = _coin_values(layout, "roll-out-the-barrels", hidden_ok=True, settled=settled)
    cell, die_piece = _die_on(layout)
    missing = [i for i, v in enumerate(values) if v is None]
    possible = None
    if missing:
        # The maze is all 24 coins, four of each value: the values read may leave a barrel only one
        options = [frozenset((v,)) if v is not None else _barrel_values(layout, i) for i, v in enumerate(values)]
        by_count = still_possible(options, {v: 4 for v in range(6)})
        # ... one coin of each suit and value: where the value sides show their suit, the suits read narrow more
        by_coin = _barrels_by_coin(layout, values)
        if by_coin is not None:
            options = [o & by_coin[i] for i, o in enumerate(options)]
        possible = _barrels_left(options, values)
        for i in missing:
            if possible is None or len(possible[i]) != 1:
                continue
            if cell is None and (i % 4, i // 4) not in layout.cells:
                continue  # nothing seen there and no die seen anywhere: the die may stand there, unseen
            values[i] = next(iter(possible[i]))
            name = rank_name(values[i]).lower()
            by_neighbours = by_count is None or len(by_count[i]) != 1
            why = (_NEIGHBOUR_RULE if by_neighbours else "the maze is all 24 coins, four of each value: the others "
                   "read leave only this value")
            if by_neighbours and by_coin is not None and len(by_coin[i]) == 1:
                why = _ONE_OF_EACH_RULE
            if i == cell:
                notes.append(f"the barrel under the die ({rob.cell_name(cell)}) is hidden: it must be the {name} ("
                             + ("the only value the coins read leave (four coins of each value)" if not by_neighbours
                                else why) + ")")
            else:
                settled.append(Settled(f"the barrel on {rob.cell_name(i)}", f"the {name}", why))
    missing = [i for i, v in enumerate(values) if v is None]
    if missing and missing != [cell]:
        i = next(i for i in missing if i != cell)
        where = rob.cell_name(i)
        fits = layout.cells.get((i % 4, i // 4))
        why = _why(fits[0].piece) if fits else "no coin is seen there"
        left = sorted(possible[i]) if possible is not None else []
        if 2 <= len(left) <= 4:  # what the four coins of each value leave it
            why += (" (it could be " + " or ".join(f"the {rank_name(v).lower()}" for v in left)
                    + ": the coins read leave these)")
        elif fits:
            why += _open_readings(fits[0].piece)
        raise NotReadable(f"the barrel on {where} cannot be read: {why}")
    if missing:
        raise NotReadable(f"the barrel under the die on {rob.cell_name(cell)} cannot be told from the others")
    arr = arrangement_named(arrangement)
    die = None
    if cell is not None:
        if die_piece.uncertain or die_piece.rank is None:
            raise NotReadable(f"the die's top face cannot be read: {_why(die_piece)}")
        die = next(d for d in arr.orientations() if d.top == die_piece.rank)
        notes.append(f"the die's sides cannot be seen from above: it is shown with {rank_name(die.north).lower()} "
                     "to the north")
    try:
        state = rob.State.from_layout(values, rob.cell_name(cell) if cell is not None else None, die, arr)
    except (LayoutError, RulesError) as err:
        raise _layout_error("roll-out-the-barrels", err) from None
    return Reading("roll-out-the-barrels", None, state, state.render(), notes, layout, settled)


_NEIGHBOUR_RULE = ("the maze is all 24 coins, four of each value, and no two neighbouring barrels show the same "
                   "value (the setup's rule): the others read leave only this value")


_ONE_OF_EACH_RULE = ("the maze is all 24 coins of one set, one of each suit and value: the coins read (their suits "
                     "too) leave only this value")


#: The reason of a coin read surely but far blurrier than the taught coins: its ``could_be`` (every face of the suit
#: read) holds its suit (``vision.classify.CoinReader._blurred_could_be``)
_TOO_BLURRED = "too blurred"


def _barrels_by_coin(layout: CoinGridLayout, values: list[int | None]) -> list[frozenset[int]] | None:
    """The values each barrel can have when the maze is one set's 24 coins, one of each (suit, value): a barrel
    read surely is its value in the suit it shows (any suit where the value side prints none: classic black
    numerals); a coin too blurred to read its numeral one of its suit's values (its colour holds where the
    numeral does not: measured in states-16's handoff); any other barrel its value (settled, or any value) in any
    suit: the suits a "face unclear" coin names are not trusted here (default barrels 128 b3, a glare-washed moons
    2, named the 2 of suns, crowns and arms). None when the readings contradict the set: only the count of values
    narrows then."""
    coins = [(suit, v) for suit in SUITS for v in range(6)]
    options = []
    for i, value in enumerate(values):
        fits = layout.cells.get((i % 4, i // 4))
        p = fits[0].piece if fits else None
        ranks = range(6) if value is None else (value,)
        suits: set[Suit | None] = set()
        if p is not None and not p.uncertain:
            suits = {p.suit}
        elif p is not None and p.reason == _TOO_BLURRED:
            suits = {r[0] for r in (getattr(p, "could_be", None) or ())}
        if not suits or None in suits:
            suits = set(SUITS)
        options.append(frozenset((suit, v) for suit in suits for v in ranks if suit is not None))
    possible = still_possible(options, {c: 1 for c in coins})
    if possible is None:
        return None
    return [frozenset(v for _, v in p) for p in possible]


def _barrels_left(options: list[frozenset[int]], values: list[int | None]) -> list[set[int]] | None:
    """The values each barrel can still have: four coins of each value (the set), and no two orthogonally
    neighbouring barrels of the same value (the seed's setup: "ensure that no orthogonally adjacent coins have the
    same value ... Scan the board again"), each narrowing the other until nothing changes. A maze whose barrels
    read surely already break the neighbour rule was not laid by it, so there the set alone narrows. None when
    the readings contradict the set."""
    from rules.epic_funhouse.die import Direction
    from rules.epic_funhouse.roll_out_the_barrels import conflicts, neighbour

    around = [[n for d in Direction if (n := neighbour(i, d)) is not None] for i in range(24)]
    supply = {v: 4 for v in range(6)}
    possible = still_possible(options, supply)
    if possible is None or conflicts([v if v is not None else -1 - i for i, v in enumerate(values)]):
        return possible
    while True:
        # a barrel cannot show the value its sure neighbours show (the guard above: the read maze keeps the rule)
        narrowed = [frozenset(p - {v for n in around[i] if len(possible[n]) == 1 for v in possible[n]})
                    if len(p) > 1 else frozenset(p) for i, p in enumerate(possible)]
        again = still_possible(narrowed, supply)
        if again is None or any(not p for p in again):
            return possible  # the neighbour rule contradicts what is read: it does not hold here
        if again == possible:
            return possible
        possible = again


def _barrel_values(layout: CoinGridLayout, i: int) -> frozenset[int]:
    """The values the barrel on cell ``i`` may have when not read: its value-side readings (``could_be``), any
    value when the picture named none, no coin was seen there or the die hides it."""
    fits = layout.cells.get((i % 4, i // 4))
    could = (getattr(fits[0].piece, "could_be", None) or ()) if fits else ()
    named = {r[1] for r in could if r[2] == "value" and r[1] is not None}
    return frozenset(named or range(6))


def _parse_grid(text: Any) -> list[int]:
    from rules.epic_funhouse.roll_out_the_barrels import check_grid

    if isinstance(text, str):
        chars = [ch for ch in text if not ch.isspace() and ch not in "/,"]
        text = [{"n": 0, "a": 1}.get(ch.lower(), ch) for ch in chars]
    try:
        return list(check_grid([int(v) for v in text]))
    except (ValueError, TypeError, LayoutError) as err:
        raise NotReadable(f"cannot read --grid: {err} (give the 24 coin values in reading order, e.g. "
                          "n23a/45n2/...)") from None


def _read_whack(pieces: list[DetectedPiece], grid: Any = None, die_coin: str | None = None, **_: Any) -> Reading:
    from rules.epic_funhouse import whack_a_dummy as wad
    from rules.epic_funhouse.roll_out_the_barrels import cell_name

    pieces = _one_die(pieces)
    layout = find_coin_grid(pieces, 4, 6)
    if layout is None or not layout.cells:
        raise _wrong_game(pieces, "whack-a-dummy", "Whack-a-Dummy board (a 4x6 grid of coins)")
    if layout.ambiguous or layout.problems:
        refuse_another_game(pieces, "whack-a-dummy", "Whack-a-Dummy board (a 4x6 grid of coins)")
    if layout.ambiguous:
        raise NotReadable(f"the Whack-a-Dummy grid cannot be placed: {layout.ambiguous}")
    bad = [p for p in layout.problems if p.kind in ("shared-cell", "misfit", "off-grid")]
    if bad:
        raise NotReadable(bad[0].message)
    cell, _die = _die_on(layout)
    up: list[int] = []
    seen_values: dict[int, int] = {}
    settled: list[Settled] = []
    if die_coin not in (None, "up", "down"):
        raise NotReadable(f"the coin under the die is up or down, not {die_coin!r}")
    given = _parse_grid(grid) if grid is not None else None
    for (c, r), fits in layout.cells.items():
        p = fits[0].piece
        i = r * 4 + c
        if i == cell:  # under the die: the player says which side it is (below)
            continue
        side = p.side if not p.uncertain else None
        if p.uncertain and given is not None:
            # --grid says which value this coin has: a value-side reading of another value cannot lie here
            value = given[i]
            side = _settle(p, lambda x, v=value: x[2] == "suit" or (x[2] == "value" and x[1] in (None, v)),
                           lambda x: x[2], f"the dummy on {cell_name(i)}",
                           f"--grid gives it the {rank_name(value).lower()}, which the picture does not show",
                           lambda sd: "face down (suit side up)" if sd == "suit" else "face up", settled)
            if side == "value":
                seen_values[i] = value
        if side is None:
            raise NotReadable(f"the dummy on {cell_name(i)} cannot be read: {_why(p)}" + _open_readings(p))
        if side == "value":
            up.append(i)
            if p.rank is not None and not p.uncertain:
                seen_values[i] = p.rank
    if grid is None:
        raise NotReadable("face-down coins hide their values: give the maze's 24 values with --grid "
                          "(reading order, from Roll Out the Barrels)")
    if cell is not None:
        # the die covers its coin's face (a rim at most shows): which side is up is never guessed from a photo
        if die_coin is None:
            raise NotReadable(f"the dummy under the die on {cell_name(cell)} cannot be seen: say which side is up "
                              "with --die-coin up|down")
        up = [i for i in up if i != cell] + ([cell] if die_coin == "up" else [])
    missing = [i for i in range(24) if (i % 4, i // 4) not in layout.cells and i != cell]
    if missing:
        raise NotReadable(f"the dummy on {cell_name(missing[0])} is not seen")
    values = given if given is not None else _parse_grid(grid)
    for i, v in seen_values.items():
        if values[i] != v:
            raise NotReadable(f"--grid says {rank_name(values[i]).lower()} on {cell_name(i)}, but the coin there "
                              f"shows {rank_name(v).lower()}")
    try:
        state = wad.State.from_layout(values, up, cell_name(cell) if cell is not None else None)
    except (LayoutError, RulesError) as err:
        raise _layout_error("whack-a-dummy", err) from None
    notes = ["penalties cannot be seen in a photo: shown as 0; progress is the longest run of corners in order"]
    return Reading("whack-a-dummy", None, state, state.render(), notes, layout, settled)


#: a coin's thickness as the detector reports a coin lying on another (``height_mm``: the piece-set profile's
#: ``coin_thickness_mm``, whose default taught profiles keep: teaching does not measure it)
_ONE_COIN_MM = PieceSetProfile.coin_thickness_mm


def _read_trampo(pieces: list[DetectedPiece], **_: Any) -> Reading:
    from rules.epic_funhouse import trampo_land

    layout = find_triangle(pieces)
    if layout is None or len(layout.spots) < 10:
        raise _wrong_game(pieces, "trampo-land", "Trampo-Land triangle")
    if layout.problems:
        first = layout.problems[0]
        doubt = [p for p in first.pieces if getattr(p, "uncertain", False)]
        raise NotReadable(first.message + (f" at ({doubt[0].x_mm:.0f}, {doubt[0].y_mm:.0f}) mm, not read surely: "
                                           f"{doubt[0].reason}" if doubt else ""))
    board: dict[int, str] = {}
    settled: list[Settled] = []
    adults_doubted = _adults_doubted_as_dice(layout)
    you_doubted = _you_doubted_as_a_pawn(layout)
    the_set = _TrampoSet.seen(layout)
    for n in range(1, 16):
        here = layout.spots.get(n, [])
        if not here:
            raise NotReadable(f"trampoline {n} is not seen")
        figures = [p for p in here if _kind(p) in (Kind.PAWN, Kind.DIE)]
        coins = [p for p in here if _kind(p) is Kind.COIN]
        if len(figures) > 1:
            raise NotReadable(f"two figures stand on trampoline {n}")
        if figures:
            f = figures[0]
            if f.uncertain and _kind(f) is Kind.PAWN and _only_colour_unclear(f) and not coins:
                # "the suits of the pieces don't matter": a pawn is an adult whatever its colour. Not where a coin
                # is seen on the same trampoline: a pawn standing on its coin hides it, a coin's print fitted as a
                # pawn lies on a coin seen whole. Measured on 88 Trampo-Land states frames (four editions, seeds
                # 100-247, every 7th): no real figure (351, sure or doubted) had a coin reported within 8.5 mm; all
                # 3 pawns doubted only for their colour were classic prints, their coins 2.4-3.7 mm away (seed 149:
                # the suns ace on trampoline 1 was read as an adult, wrongly)
                settled.append(Settled(f"the pawn on trampoline {n}", "an adult",
                                       "in Trampo-Land a pawn's colour does not matter"))
            elif f is you_doubted:
                board[n] = "you"
                settled.append(Settled(f"the figure on trampoline {n}", "you (the die)",
                                       "you are always on the board, and every other figure is read surely as a "
                                       "pawn"))
                continue
            elif f.uncertain and any(f is g for g in adults_doubted):
                board[n] = "adult"
                settled.append(Settled(f"the figure on trampoline {n}", "an adult (a pawn)",
                                       "Trampo-Land has one die (you), read surely on another trampoline, and the "
                                       "set's four pawns as adults"))
                continue
            elif f.uncertain:
                raise NotReadable(f"the piece on trampoline {n} cannot be read: {_why(f)}")
            board[n] = "you" if _kind(f) is Kind.DIE else "adult"
            continue
        top = max(coins, key=lambda c: c.height_mm)
        if abs(top.height_mm - _ONE_COIN_MM) <= 1.0:
            # the detector found this coin lying on another (its rim 1.5-3 mm off the one below): a coin on a
            # trampoline is a kid, lying face down, whatever its face reads (a classic ace and suit side differ
            # only in the size of their symbol). Trampo-Land has no tiles for a coin to lie on instead.
            if top.uncertain or top.side != "suit":
                settled.append(Settled(f"the coin on trampoline {n}", "a kid (suit side up)",
                                       "it lies on another coin, and a coin on a trampoline is a kid"))
            board[n] = "kid"
            continue
        side = top.side if not top.uncertain else _settle(
            top, lambda r: r[2] == "suit" or (r[2] == "value" and r[1] is not None and 1 <= r[1] <= 5),
            lambda r: r[2], f"the coin on trampoline {n}", "the trampolines are the ace to 5 face up and the kids "
            "lie face down: a null's value side cannot be on top", lambda sd: "a kid (suit side up)" if sd == "suit"
            else "a bare trampoline (value side up)", settled)
        if side is None and top.uncertain and the_set.consistent:
            side = _settle(top, the_set.allows, lambda r: r[2], f"the coin on trampoline {n}",
                           the_set.rule(), lambda sd: "a kid (suit side up)" if sd == "suit"
                           else "a bare trampoline (value side up)", settled)
        if side is None:
            raise NotReadable(f"the coin on trampoline {n} cannot be read: {_why(top)}" + _open_readings(top))
        board[n] = "kid" if side == "suit" else "empty"
    if "you" not in board.values():  # you leave last: the die is on the board while the room is played
        raise NotReadable("the die (you) is not seen on the triangle, and you are always on the board")
    try:
        state = trampo_land.State.from_layout(board)
    except LayoutError as err:
        raise _layout_error("trampo-land", err) from None
    notes = ["which adult walked last cannot be seen in a photo"]
    return Reading("trampo-land", None, state, state.render(), notes, layout, settled)


@dataclass(frozen=True)
class _TrampoSet:
    """What the coins read surely on a Trampo-Land triangle say of the set laid there. The rules lay one set:
    a suit is set aside; the trampolines are the ace to 5 of the three other suits (value side up, each (suit,
    value) once); the kids are the set-aside suit's six coins and the other suits' nulls, lying suit side up. So
    the suit set aside is the one no bare trampoline shows when three suits are seen on bare trampolines, or the
    suit two kids or more show (the other suits have one kid each, their null); ``aside`` is None unless every
    sure coin agrees on one suit. ``bare`` are the (suit, value) read surely on bare trampolines (a classic value
    side: suit None), ``kids`` the suits read surely on kids (one per coin); ``consistent`` False when the sure
    coins themselves break the set (a (suit, value) twice, a value four times, four trampoline suits, two suits
    with two kids each): nothing is settled by it then."""

    aside: Suit | None
    bare: tuple[tuple[Suit | None, int], ...]
    kids: tuple[Suit, ...]
    consistent: bool = True

    @classmethod
    def seen(cls, layout: Any) -> _TrampoSet:
        bare: list[tuple[Suit | None, int]] = []
        kids: list[Suit] = []
        showing: list[Suit] = []  # per coin on top that can only be its suit's ace or suit side (see below)
        for n in range(1, 16):
            here = layout.spots.get(n, [])
            coins = [p for p in here if _kind(p) is Kind.COIN]
            if not coins or any(_kind(p) in (Kind.PAWN, Kind.DIE) for p in here):
                continue
            top = max(coins, key=lambda c: c.height_mm)
            shown = _trampo_suit_shown(top)
            if shown is not None:
                showing.append(shown)
            if top.uncertain:
                continue
            if top.side == "suit" and top.suit is not None:
                kids.append(top.suit)
            elif top.side == "value" and top.rank is not None and 1 <= top.rank <= 5 and top.height_mm < 1.0:
                bare.append((top.suit, top.rank))
        trampoline_suits = {s for s, _ in bare if s is not None}
        # a suit not set aside shows its symbol on two coins at most: its ace (a trampoline) and its null (a kid);
        # three coins or more each read as that suit's ace or suit side (surely or not) are the set-aside suit's
        twice = {s for s in kids if kids.count(s) >= 2} | {s for s in showing if showing.count(s) >= 3}
        candidates = set(SUITS) - trampoline_suits
        if len(trampoline_suits) == 3:
            aside = candidates
        elif twice:
            aside = twice & candidates
        else:
            aside = set()
        suited = [b for b in bare if b[0] is not None]
        consistent = (len(suited) == len(set(suited)) and all(sum(v == rank for _, v in bare) <= 3 for _, rank in bare)
                      and len(trampoline_suits) <= 3 and len(twice) <= 1 and not twice & trampoline_suits)
        if not consistent:
            return cls(None, tuple(bare), tuple(kids), False)
        if len(aside) != 1 or len(twice - aside) > 0:
            return cls(None, tuple(bare), tuple(kids))
        return cls(next(iter(aside)), tuple(bare), tuple(kids))

    def allows(self, r: PieceReading) -> bool:
        """Whether a coin on top of a trampoline, not read surely, can show reading ``r`` in this set: a value
        side is a bare trampoline's (the ace to 5 of a suit not set aside, not read surely on another, and each
        value three times in all: a classic value side shows no suit); a suit side a kid's (the set-aside suit's,
        or another suit's null where no kid of that suit is read surely)."""
        suit, rank, side = r
        if side == "value":
            return (rank is not None and 1 <= rank <= 5 and (suit is None or suit != self.aside)
                    and (suit is None or (suit, rank) not in self.bare) and sum(v == rank for _, v in self.bare) < 3)
        if side == "suit":
            return suit is None or self.aside is None or suit == self.aside or suit not in self.kids
        return False

    def rule(self) -> str:
        if self.aside is None:
            return "one set: the trampolines are the ace to 5 of three suits, each value three times"
        return (f"one set: {self.aside.value} set aside, its six coins kids lying suit side up; the trampolines "
                "the ace to 5 of the other suits (each once), their nulls kids")


def _trampo_suit_shown(p: DetectedPiece) -> Suit | None:
    """The suit a coin on top of a trampoline shows when every reading of it (its own when sure, else those of
    ``could_be`` a coin on top can show: a suit side, or a value side 1-5) is that suit's suit side or its
    value-side ace (a classic suit side and ace differ only in the size of their symbol); else None."""
    readings = [(p.suit, p.rank, p.side)] if not p.uncertain else [
        r for r in (getattr(p, "could_be", None) or ()) if r[2] == "suit" or (
            r[2] == "value" and r[1] is not None and 1 <= r[1] <= 5)]
    suits = {r[0] for r in readings}
    if not readings or len(suits) != 1 or None in suits:
        return None
    if all(r[2] == "suit" or r[1] == 1 for r in readings):
        return suits.pop()
    return None


#: A figure's doubts that leave it surely a figure (a pawn or a die) standing there: its die face, its kind
#: between pawn and die, its colour. Not a face "darker than the face (a print?)": that doubts a figure at all.
_PAWN_OR_DIE_DOUBTS = ("die face unreadable", "die face unclear", "colour unclear", "kind unclear: a pawn or a die")


def _only_pawn_or_die_unclear(p: DetectedPiece) -> bool:
    """Whether everything a figure's reader doubted is whether it is a pawn or a die (and its colour): a die
    face unreadable or unclear (a hand-made pawn is a cube, fitted as a die whose face shows nothing), "a pawn or
    a die", a colour; its outline, place and standing there read as surely as any sure piece's."""
    reasons = [r.strip() for r in (p.reason or "").split(";") if r.strip()]
    return bool(reasons) and all(r.startswith(_PAWN_OR_DIE_DOUBTS) and "(a print?)" not in r for r in reasons)


def _adults_doubted_as_dice(layout: Any) -> list[DetectedPiece]:
    """The figures on a Trampo-Land triangle that must be adults though the reader doubted them as a pawn or a
    die (a hand-made pawn is a cube, fitted as a die whose face shows nothing): the room has one die (you), and
    it is read surely on another trampoline; the adults are the set's four pawns, so these figures and the pawns
    read surely are four at most (their colours are not compared: a cube fitted as a die is coloured from where
    a die's top would be); and no coin is seen under any of them (a figure fitted on a kid's coin is the coin's
    print). Measured on 48 Trampo-Land frames (four editions, seeds 100-177): the phantoms found (classic: dice
    'face unreadable' fitted on kids, one with its coin unseen, each beside four sure pawns; a pawn 'colour
    unclear' on a kid's coin) all fail these; 11 real adults pass. Empty when any of that fails: nothing is
    settled."""
    here = [layout.spots.get(n, []) for n in range(1, 16)]
    figures = [p for spot in here for p in spot if _kind(p) in (Kind.PAWN, Kind.DIE)]
    sure_dice = [p for p in figures if _kind(p) is Kind.DIE and not p.uncertain]
    sure_pawns = [p for p in figures if _kind(p) is Kind.PAWN and not p.uncertain]
    doubted = [p for p in figures if p.uncertain]
    if len(sure_dice) != 1 or not doubted or not all(_only_pawn_or_die_unclear(p) for p in doubted):
        return []
    if any(any(_kind(q) is Kind.COIN for q in spot) for spot in here
           if any(p is f for p in doubted for f in spot)):
        return []
    if len(sure_pawns) + len(doubted) > 4:
        return []
    return doubted


#: The figure reader's doubt between a pawn and a die that saw a die's face on the figure's top
_DIE_FACE_SEEN = "a die's face is seen on its top"


def _die_face_shows(p: DetectedPiece) -> bool:
    """Whether a figure doubted only as a pawn or a die (and its colour) shows a die's face: a pawn with a die's
    face seen on its top, or a die whose only doubt is which of two faces is up ("die face unclear: 4 or 1": both
    marks matched). Not a die whose face is unreadable: a hand-made pawn (a cube) fitted as a die shows that
    (10 of the 88 Trampo-Land frames' real pawns, seeds 100-247 every 7th); "die face unclear" there was 4 real
    dice, no pawn."""
    reason = p.reason or ""
    if not _only_pawn_or_die_unclear(p):
        return False
    if _kind(p) is Kind.PAWN:
        return _DIE_FACE_SEEN in reason
    reasons = [r.strip() for r in reason.split(";") if r.strip()]
    return any(r.startswith("die face unclear: ") for r in reasons) and not any(
        r.startswith("die face unreadable") for r in reasons)


def _you_doubted_as_a_pawn(layout: Any) -> DetectedPiece | None:
    """The figure on a Trampo-Land triangle that must be the die (you) though the reader doubted it: you are always
    on the board (you leave last), no die is read surely, it is the one figure doubted, only as a pawn or a die
    (and its colour) and showing a die's face (:func:`_die_face_shows`: the room needs where you stand, not your
    face), every other figure is a sure pawn (four at most, the set's adults), every trampoline shows a piece (a
    trampoline not seen is never read) and no coin is seen under it (a figure fitted on a coin's print is the
    print). Trampo-Land default seed 90: the arms die on trampoline 12 read "a pawn or a die (a die's face is seen on
    its top)" beside three sure pawns; bold 191: the die on trampoline 2 read "die face unclear: 4 or 1" beside two.
    None when any of that fails: nothing is settled."""
    here = [layout.spots.get(n, []) for n in range(1, 16)]
    if not all(here):
        return None
    figures = [p for spot in here for p in spot if _kind(p) in (Kind.PAWN, Kind.DIE)]
    doubted = [p for p in figures if p.uncertain]
    if len(doubted) != 1 or not _die_face_shows(doubted[0]):
        return None
    others = [p for p in figures if p is not doubted[0]]
    if any(_kind(p) is not Kind.PAWN for p in others) or len(others) > 4:
        return None
    spot = next(s for s in here if any(p is doubted[0] for p in s))
    if any(_kind(q) is Kind.COIN for q in spot):
        return None
    return doubted[0]


def _only_colour_unclear(p: DetectedPiece) -> bool:
    """Whether everything a figure's reader doubted is its colour ("colour unclear: crowns or moons"), its kind
    and place read as surely as any sure piece's."""
    reasons = [r.strip() for r in (p.reason or "").split(";") if r.strip()]
    return bool(reasons) and all(r.startswith("colour unclear") for r in reasons)


# ----------------------------------------------------------------------------------------------------- scores
@dataclass
class RoomScore:
    """A solitaire room's (or Plans of Action's) score read from a photo. ``score`` is exact when
    ``score_max`` is None, else the score lies in ``score``..``score_max`` (Magic Mirror's removed pairs are
    stacked off the board); ``details`` says how it was counted."""

    name: str
    score: int | None
    details: dict[str, Any]
    reading: Reading
    score_max: int | None = None
    goal_reached: bool | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.name, "score": self.score}
        if self.score_max is not None:
            out["score_max"] = self.score_max
        if self.goal_reached is not None:
            out["goal_reached"] = self.goal_reached
        out.update(self.details)
        out["notes"] = self.reading.notes
        return out


def _mirror_pair_points(removed: list[Tile]) -> tuple[int, int] | None:
    """Lowest and highest points the removed tiles can score as pairs totalling 5 (None: they cannot pair)."""
    from rules.epic_funhouse.magic_mirror import relation

    lo = hi = 0
    for a_rank, b_rank in ((0, 5), (1, 4), (2, 3)):
        a = [t for t in removed if t.rank == a_rank]
        b = [t for t in removed if t.rank == b_rank]
        if len(a) != len(b):
            return None
        costs = [sum(relation(x, y).points_per_pair for x, y in zip(a, perm, strict=True))
                 for perm in itertools.permutations(b)] or [0]
        lo += min(costs)
        hi += max(costs)
    return lo, hi


def score_room(seen: Detection | Iterable[DetectedPiece], game: str, room: str | None = None,
               **options: Any) -> RoomScore:
    """The score of a finished solitaire room (Slide Jam, Magic Mirror, Roll Out the Barrels) or whether
    Plans of Action's goal is reached; :class:`NotReadable` as :func:`read_state`."""
    key = room if game == "epic-funhouse" else game
    if key not in ("slide-jam", "magic-mirror", "roll-out-the-barrels", "plans-of-action", "trampo-land"):
        raise NotReadable(f"tableside scores Slide Jam, Magic Mirror, Roll Out the Barrels, Trampo-Land and Plans of "
                          f"Action from a photo, not {GAME_NAMES.get(key or game, key or game)}")
    reading = read_state(seen, game, room, **options)
    state = reading.state
    if key == "slide-jam":
        left = [t for row in state.board for t in row if t is not None]
        return RoomScore(key, state.score(), {"tiles_left": len(left), "jammed": state.is_over(),
                                              "board": state.to_layout()["board"]}, reading)
    if key == "magic-mirror":
        from rules.epic_funhouse.common import ALL_TILES
        from rules.epic_funhouse.magic_mirror import Relation

        on_board = {t for row in state.board for t in row if t is not None}
        strangers = state.tiles_per_side() * Relation.STRANGERS.points_per_pair
        removed = [t for t in ALL_TILES if t not in on_board]
        span = _mirror_pair_points(removed)
        if span is None:
            raise NotReadable("the tiles missing from the board do not pair up into totals of 5")
        cousins, distant = options.get("cousins"), options.get("distant_relatives")
        details: dict[str, Any] = {"strangers_per_side": state.tiles_per_side(), "strangers_points": strangers,
                                   "pairs_removed": len(removed) // 2, "board": state.to_layout()["board"]}
        if cousins is not None or distant is not None:
            c, d = int(cousins or 0), int(distant or 0)
            if c + d > len(removed) // 2 or c < 0 or d < 0:
                raise NotReadable(f"{c} cousin and {d} distant-relative pairs are more than the "
                                  f"{len(removed) // 2} pairs removed")
            points = c * Relation.COUSINS.points_per_pair + d * Relation.DISTANT_RELATIVES.points_per_pair
            if not span[0] <= points <= span[1]:
                raise NotReadable(f"the removed tiles cannot make pairs worth {points} points (possible: "
                                  f"{span[0]}..{span[1]})")
            details.update({"cousins": c, "distant_relatives": d})
            return RoomScore(key, strangers + points, details, reading)
        if span[0] == span[1]:
            return RoomScore(key, strangers + span[0], details, reading)
        reading.notes.append("the removed pairs' kinship is not on the board: give --cousins N --distant-relatives N "
                             "(pairs on those stacks) for the exact score")
        return RoomScore(key, strangers + span[0], details, reading, score_max=strangers + span[1])
    if key == "roll-out-the-barrels":
        from rules.epic_funhouse.roll_out_the_barrels import START, cell_name, exit_path

        cell = state.cell if state.cell is not None else START
        path, score = exit_path(state.grid, cell)
        return RoomScore(key, score, {"die_on": cell_name(cell), "at_exit": state.won(),
                                      "path": [cell_name(i) for i in path],
                                      "path_values": [state.grid[i] for i in path]}, reading)
    if key == "trampo-land":
        return RoomScore(key, state.score(), {"kids": state.count("kid"), "adults": state.count("adult"),
                                              "over": state.is_over()}, reading)
    # plans-of-action
    solved = [s.value for s in state.solved_suits()]
    return RoomScore(key, None, {"connected": solved, "goal": state.goal,
                                 "moves": "not seen in a photo (the score is the number of moves)"},
                     reading, goal_reached=state.is_solved())


# ------------------------------------------------------------------------------------- Martian Shuffleboard
@dataclass(frozen=True)
class ShuffleboardPiece:
    color: str | None
    size: str | None
    pose: str | None
    x_mm: float
    y_mm: float
    angle_deg: float
    uncertain: bool = False
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"color": self.color, "size": self.size, "pose": self.pose,
                               "x_mm": round(self.x_mm, 1), "y_mm": round(self.y_mm, 1),
                               "angle_deg": round(self.angle_deg % 90.0 if self.pose == "upright" else
                                                  self.angle_deg % 360.0, 1)}
        if self.uncertain:
            out["uncertain"] = True
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class ShuffleboardPair:
    a: int
    b: int
    gap_mm: float
    gap_small_heights: float
    scores: bool
    scorer: int | None
    points: int
    too_close_to_call: bool
    closest_mm: tuple[tuple[float, float], tuple[float, float]]
    at_stake: tuple[int | None, int] = (None, 0)  # who would score and how much were the pair within range

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "gap_mm": round(self.gap_mm, 1),
                "gap_small_heights": round(self.gap_small_heights, 3), "scores": self.scores,
                "scorer": self.scorer, "points": self.points, "too_close_to_call": self.too_close_to_call}


@dataclass
class ShuffleboardScore:
    """Every piece, every pair of upright pieces with its gap, and the points per colour.

    ``scores`` counts every pair measured within one Small height (the rules engine's reading of the
    measurements); ``close_calls`` lists the points that hinge on a pair within ``close_mm`` of the threshold
    (``counted``: whether they are in ``scores``); ``sure_scores`` the points no close call can change;
    ``unsure`` the pyramids seen but not read (their pairs are not scored)."""

    pieces: list[ShuffleboardPiece]
    pairs: list[ShuffleboardPair]
    scores: dict[str, int]
    small_height_mm: float
    variant: str
    close_mm: float

    @property
    def close_calls(self) -> list[dict[str, Any]]:
        out = []
        for k, p in enumerate(self.pairs):
            scorer, points = p.at_stake
            if p.too_close_to_call and points and scorer is not None:
                out.append({"pair": k, "color": self.pieces[scorer].color, "points": points, "counted": p.scores})
        return out

    @property
    def sure_scores(self) -> dict[str, int]:
        out = dict(self.scores)
        for call in self.close_calls:
            if call["counted"]:
                out[call["color"]] -= call["points"]
        return out

    @property
    def flat(self) -> list[int]:
        return [i for i, p in enumerate(self.pieces) if p.pose == "flat" and not p.uncertain]

    @property
    def unsure(self) -> list[int]:
        return [i for i, p in enumerate(self.pieces) if p.uncertain]

    def notes(self) -> list[str]:
        notes = []
        if self.flat:
            names = ", ".join(f"{self.pieces[i].color} {self.pieces[i].size}" for i in self.flat)
            notes.append(f"lying flat (back to their owners): {names}")
        if self.unsure:
            notes.append(f"{len(self.unsure)} pyramid(s) cannot be read and are not scored")
        for call in self.close_calls:
            notes.append(f"too close to call: {call['points']} point(s) for {call['color']} "
                         f"({'counted' if call['counted'] else 'not counted'})")
        return notes

    def text(self) -> str:
        lines = []
        for i, p in enumerate(self.pieces):
            state = "cannot be read" if p.uncertain else p.pose
            lines.append(f"[{i}] {p.color or '?'} {p.size or '?'} {state} at ({p.x_mm:.0f}, {p.y_mm:.0f}) mm")
        for p in self.pairs:
            if p.gap_small_heights > 2.0:
                continue
            a, b = self.pieces[p.a], self.pieces[p.b]
            mark = "scores" if p.scores else "no score"
            if p.too_close_to_call:
                mark += ", too close to call"
            if p.points:
                mark += f", {p.points} point(s)"
            lines.append(f"[{p.a}] {a.color} {a.size} - [{p.b}] {b.color} {b.size}: {p.gap_mm:.1f} mm = "
                         f"{p.gap_small_heights:.2f} Small heights ({mark})")
        lines.append("scores: " + (", ".join(f"{c} {n}" for c, n in sorted(self.scores.items(), key=lambda kv: -kv[1]))
                                   or "no upright pyramids"))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"pieces": [p.to_json() for p in self.pieces], "pairs": [p.to_json() for p in self.pairs],
                "scores": dict(self.scores), "sure_scores": self.sure_scores, "close_calls": self.close_calls,
                "flat": self.flat, "unsure": self.unsure, "small_height_mm": self.small_height_mm,
                "variant": self.variant}


def _closest_points(p: Sequence[tuple[float, float]], q: Sequence[tuple[float, float]]
                    ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The closest pair of points between two convex polygons' outlines (for drawing the gap as a ruler)."""
    best = (math.inf, p[0], q[0])
    for poly_a, poly_b, swap in ((p, q, False), (q, p, True)):
        n = len(poly_b)
        for v in poly_a:
            for i in range(n):
                a, b = poly_b[i], poly_b[(i + 1) % n]
                abx, aby = b[0] - a[0], b[1] - a[1]
                l2 = abx * abx + aby * aby
                t = 0.0 if l2 == 0 else max(0.0, min(1.0, ((v[0] - a[0]) * abx + (v[1] - a[1]) * aby) / l2))
                w = (a[0] + t * abx, a[1] + t * aby)
                d = math.hypot(v[0] - w[0], v[1] - w[1])
                if d < best[0]:
                    best = (d, w, v) if swap else (d, v, w)
    return (float(best[1][0]), float(best[1][1])), (float(best[2][0]), float(best[2][1]))


def score_shuffleboard(seen: Detection | Iterable[DetectedPiece], small_height_mm: float | None = None,
                       variant: Any = None, close_mm: float = 1.0) -> ShuffleboardScore:
    """Martian Shuffleboard from a photo: the rules engine's :func:`score_positions` over the upright pyramids
    seen, each pair's gap in mm and Small heights, and the pairs within ``close_mm`` of the threshold marked
    "too close to call". :class:`NotReadable` when the frame shows no pyramid."""
    from rules import martian_shuffleboard as ms

    pieces = all_pieces(seen)
    pyramids = [p for p in pieces if _kind(p) is Kind.PYRAMID]
    if not pyramids:
        raise _wrong_game(pieces, "martian-shuffleboard", "Icehouse pyramid")
    height = float(small_height_mm) if small_height_mm is not None else ms.SMALL_HEIGHT_MM
    try:
        var = ms.Variant.parse(variant)
    except RulesError as err:
        raise NotReadable(str(err)) from None
    out = []
    for p in pyramids:
        unreadable = p.uncertain or p.color is None or p.size is None or p.pose is None
        out.append(ShuffleboardPiece(p.color, p.size.value if p.size else None, p.pose.value if p.pose else None,
                                     float(p.x_mm), float(p.y_mm), float(p.angle_deg), unreadable,
                                     (p.reason or "its colour, size or pose was not read") if unreadable else None))
    upright = [i for i, p in enumerate(out) if not p.uncertain and p.pose == PyramidPose.UPRIGHT.value]
    report = ms.score_positions([{"color": out[i].color, "size": out[i].size, "x_mm": out[i].x_mm,
                                  "y_mm": out[i].y_mm, "angle_deg": out[i].angle_deg} for i in upright],
                                small_height_mm=height, variant=var)
    placed = {}  # the report's PlacedPiece -> index into out
    for i in upright:
        pp = ms.PlacedPiece(ms.Piece(out[i].color, out[i].size),
                            ms.Placement(out[i].x_mm, out[i].y_mm, out[i].angle_deg))
        placed.setdefault(pp, i)
    pairs = []
    for pr in report.pairs:
        a, b = placed[pr.a], placed[pr.b]
        scorer = None
        if pr.scorer is not None:
            scorer = a if pr.a.piece == pr.scorer else b
        fa = ms.footprint(pr.a.at.x_mm, pr.a.at.y_mm, pr.a.at.angle_deg, pr.a.size.base_mm)
        fb = ms.footprint(pr.b.at.x_mm, pr.b.at.y_mm, pr.b.at.angle_deg, pr.b.size.base_mm)
        pa, pb = _closest_points(fa, fb)
        stake: tuple[int | None, int] = (None, 0)
        if pr.a.size != pr.b.size:  # what the pair is worth if it counts (the rules' scoring, by size alone)
            order = [s.value for s in ms.SIZES]
            small, large = (a, b) if order.index(pr.a.size.value) < order.index(pr.b.size.value) else (b, a)
            if var.scoring is ms.Scoring.SMALLER_ON_LARGER:
                stake = (small, PyramidSize(out[large].size).points)
            else:
                stake = (large, PyramidSize(out[small].size).points)
        pairs.append(ShuffleboardPair(min(a, b), max(a, b), pr.gap_mm, pr.gap_mm / height, bool(pr.points),
                                      scorer, pr.points, abs(pr.gap_mm - height) <= close_mm,
                                      (pa, pb) if a < b else (pb, pa), stake))
    pairs.sort(key=lambda p: (p.a, p.b))
    return ShuffleboardScore(out, pairs, dict(report.points), height, str(var), close_mm)


# ----------------------------------------------------------------------------------------------------- PPN
def ppn_position(reading: Reading) -> str | None:
    """The position as a PPN record: the game's set-up metadata where its PPN adapter can write it, else a
    ``setup.`` move dropping every piece on its PPN location; None for positions PPN cannot describe here."""
    from rules import ppn
    from rules.ppn.games import ADAPTERS, adapter

    state = reading.state
    name = reading.room or reading.game
    game_type = ppn.GAME_TYPES.get(reading.game, GAME_NAMES.get(name, name))
    if reading.game in ADAPTERS and reading.game != "martian-shuffleboard":
        mod = adapter(reading.game)
        try:
            meta = mod.metadata(state)
            movetext = ""
        except RulesError:
            meta = {"GameType": game_type}
            board = mod.board(state)
            movetext = "setup. " + " ".join(f"{p.spec}@({ppn.fmt_number(p.x)},{ppn.fmt_number(p.y)})"
                                           for p in board)
        return _ppn_text(meta, movetext)
    drops = _room_drops(reading)
    if drops is None:
        return None
    meta = {"GameType": {"Name": GAME_NAMES["epic-funhouse"], "Room": GAME_NAMES[name]}}
    return _ppn_text(meta, "setup. " + " ".join(drops))


def _ppn_text(meta: Mapping[str, Any], movetext: str) -> str:
    import yaml

    head = yaml.safe_dump(dict(meta), sort_keys=False, allow_unicode=True).strip()
    return f"---\n{head}\n...\n{movetext}".rstrip() + "\n"


def _room_drops(reading: Reading) -> list[str] | None:
    from rules.epic_funhouse.common import RANK_CHARS

    state = reading.state
    name = reading.room or reading.game
    if name in ("slide-jam", "magic-mirror"):
        rows = state.board
        return [f"{t.suit.letter}{RANK_CHARS[t.rank]}@({c + 1},{len(rows) - r})"
                for r, row in enumerate(rows) for c, t in enumerate(row) if t is not None]
    if name == "catwalk":
        return [f"{t.suit.letter}{RANK_CHARS[t.rank]}@({x},{y})" for t, (x, y) in zip(state.tiles, state.cells,
                                                                                         strict=True)]
    if name == "roll-out-the-barrels":
        drops = [f"c{RANK_CHARS[v]}@({i % 4 + 1},{6 - i // 4})" for i, v in enumerate(state.grid)]
        if state.cell is not None:
            drops.append(f"d{RANK_CHARS[state.die.top]}@({state.cell % 4 + 1},{6 - state.cell // 4})")
        return drops
    if name == "whack-a-dummy":
        drops = [f"c{RANK_CHARS[v]}@({i % 4 + 1},{6 - i // 4})" if state.face_up >> i & 1
                 else f"cS@({i % 4 + 1},{6 - i // 4})" for i, v in enumerate(state.grid)]
        if state.cell is not None:
            drops.append(f"d@({state.cell % 4 + 1},{6 - state.cell // 4})")
        return drops
    if name == "trampo-land":
        # trampoline n at row r, place i: x = 2i - r + 5 (rows are offset half a place), y = 5 - r; the
        # trampoline coins themselves are left out (their values play no part), the FunSeekers are dropped
        spec = {"kid": "cb", "adult": "p", "you": "d"}
        drops = []
        n = 0
        for r in range(5):
            for i in range(r + 1):
                n += 1
                who = state.piece(n)
                if who in spec:
                    drops.append(f"{spec[who]}@({2 * i - r + 5},{5 - r})")
        return drops
    return None
