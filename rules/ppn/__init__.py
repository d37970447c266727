"""Portable Piecepack Notation (PPN): read and write game records.

PPN is the plain-text record format of the piecepack world (specification by Trevor L. Davis, version 0.14,
published with the piecepackr tools; its reference parser is the R package ``ppn``). This module reads the
syntax into plain data and writes it back; :mod:`rules.ppn.board` plays the moves on a table of pieces the way
the reference parser does, and one adapter module per game (:mod:`rules.ppn.easy_slider` ...) turns a record
into that game's :class:`Move` objects and back. :func:`rules.ppn.games.replay` replays a record through the rules.

File layout (what :func:`parse` understands)
    One or more games; a line starting with ``---`` starts a game (optional for the first). A game is a YAML
    metadata mapping ended by a line starting with ``...`` (or, without ``...``, by the first empty line), then
    the movetext.

Movetext
    Comments ``{...}`` (whitespace before ``{`` and after ``}``); move numbers (``1.``, ``1...``, ``setup.``:
    letters, digits, ``_`` and ``.``, ending in ``.``); a lone ``.`` or a ``;`` starts a new *step* of the same
    move. A step is one or more submoves separated by spaces, played in order (``^`` before a piece id refers
    to the position at the start of the step). Unix-shell brace expansion: ``({2..7},3)-2D`` is six submoves.
    Macros ```name'`` from the metadata ``Macros`` mapping and the built-in chess and card-suit macros.

Submoves (operator, see :class:`Submove`)
    ``id-loc`` move (``_`` puts it underneath), ``spec@loc`` drop (``\\`` underneath), ``*id`` remove, ``id#id``
    swap, ``id:id`` capture, ``id@>90`` / ``id$>90`` rotate clockwise (``|loc`` or ``$id`` sets the centre; ``$>``
    turns about the piece's own location), ``+id`` flip, ``!id`` bring to the top of the drawing order (changes
    nothing in the game), ``id~spec`` update, ``id=spec`` replace; ``%id`` after a location sets the drawing order.

Locations
    Cartesian ``(x,y)`` (x right, y up, cell centres integers, tiles at half-integers), algebraic ``b3``,
    ``&id`` (where a piece is), relative ``<dx,dy>`` or ``N`` + direction (``4U``, ``2SE``; U/D/L/R or N/S/E/W),
    optionally anchored ``|loc`` or ``$id``; empty means the piece(s) moved last.

Piece ids
    a location (top piece there), ``N`` + location (the N pieces nearest it, e.g. ``5(5.5,5.5)`` a tile and
    its four coins), ``loc[1,3:4]`` (pieces from the top), ``?spec`` (one piece by description), ``/spec``
    (all pieces matching), empty (the piece(s) moved last).

Malformed input raises :class:`~rules.base.RecordError` whose message starts with ``line L, column C:``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rules.base import RecordError

__all__ = [
    "GAME_TYPES",
    "PieceSpec",
    "Point",
    "Offset",
    "PieceLocation",
    "ActiveLocation",
    "Location",
    "AtLocation",
    "BySpec",
    "Active",
    "PieceId",
    "Submove",
    "Step",
    "MoveEntry",
    "Game",
    "parse",
    "read",
    "dumps",
    "write",
    "normalize_game_name",
    "expand_braces",
    "parse_location",
    "parse_piece_id",
    "parse_submove",
    "fmt_number",
]

#: tableside game name -> the ``GameType`` name written in records.
GAME_TYPES: dict[str, str] = {
    "easy-slider": "Easy Slider",
    "slides-of-action": "Slides of Action",
    "plans-of-action": "Plans of Action",
    "martian-shuffleboard": "Martian Shuffleboard",
    "epic-funhouse": "Epic Funhouse",
}


def normalize_game_name(name: str) -> str:
    """``GameType`` name -> tableside name: lower case, apostrophes dropped, spaces/underscores/hyphens -> ``-``
    (the reference parser's normalisation, with hyphens instead of underscores)."""
    key = re.sub(r"['\u2019]", "", str(name).strip().lower())
    return re.sub(r"[\s_\-]+", "-", key).strip("-")


def fmt_number(value: float) -> str:
    """A coordinate as short as it reads: ``3``, ``5.5``, ``-0.25`` (at most 4 decimals)."""
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class _Syntax(ValueError):
    """Internal: a syntax problem inside one token; re-raised as RecordError with the position."""


# ------------------------------------------------------------------------------------------------- piece specs
_PIECES = {"t": "tile", "c": "coin", "d": "die", "p": "pawn", "m": "matchstick", "s": "saucer",
           "\u25b2": "pyramid", "\u25cf": "bit", "\U0001f0a0": "card", "\u25a0": "board"}
_PIECE_LETTER = {"tile": "t", "coin": "c", "die": "d", "pawn": "p", "matchstick": "m", "saucer": "s",
                 "pyramid": "\u25b2", "bit": "\u25cf", "card": "\U0001f0a0", "board": "\u25a0"}
_MULTI = {"/\\": "\u25b2", "()": "\u25cf", "[]": "\U0001f0a0", "[X]": "\u25a0"}
_SIDES = {"f": "face", "b": "back", "l": "left", "r": "right", "x": "top"}
_SIDE_LETTER = {v: k for k, v in _SIDES.items()}
_SUITS = "SMCA\u2665\u2660\u2663\u2666\u2661\u2664\u2667\u2662RKGBYW"
_ANGLES = {"^": 0.0, "<": 90.0, "v": 180.0, ">": 270.0}
_ANGLE_MARK = {v: k for k, v in _ANGLES.items()}
_DICE = "\u2680\u2681\u2682\u2683\u2684\u2685"
_CHESS = "\u2654\u2655\u2656\u2657\u2658\u2659\u265a\u265b\u265c\u265d\u265e\u265f"
_COLOURED = set("RKGBYW")


@dataclass(frozen=True)
class PieceSpec:
    """A PPN piece description: only what is written (None elsewhere).

    ``piece`` tile/coin/die/pawn/matchstick/saucer/pyramid/bit/card/board; ``side`` face/back/left/right/top;
    ``suit`` the suit or colour letter as written (``S M C A``, ``R K G B Y W``, card suits); ``rank`` the written
    rank (``n`` = 0, ``a`` = 1; Icehouse pyramids 1..3); ``angle`` degrees counter-clockwise (PPN's convention:
    ``<`` is 90); ``suit_index``/``rank_index`` from ``,sN``/``,rN``; ``cfg`` from ``name'``; ``mini`` for the
    subpack marker ``u``; ``glyph`` a die or chess symbol.
    """

    piece: str | None = None
    side: str | None = None
    suit: str | None = None
    rank: int | None = None
    angle: float | None = None
    suit_index: int | None = None
    rank_index: int | None = None
    cfg: str | None = None
    mini: bool = False
    hexpack: bool = False
    glyph: str | None = None

    @classmethod
    def parse(cls, text: str) -> PieceSpec:
        simple, *extras = text.split(",")
        for multi, char in _MULTI.items():
            simple = simple.replace(multi, char)
        fields: dict[str, Any] = {}

        def put(key: str, value: Any, char: str) -> None:
            if key in fields and fields[key] != value:
                raise _Syntax(f"piece {text!r} gives its {key} twice ({char!r})")
            fields[key] = value

        for char in simple:
            if char in _PIECES:
                put("piece", _PIECES[char], char)
            elif char in _SIDES:
                put("side", _SIDES[char], char)
            elif char in _SUITS:
                put("suit", char, char)
            elif char.isdigit():
                put("rank", int(char), char)
            elif char in "na":
                put("rank", 0 if char == "n" else 1, char)
            elif char in _ANGLES:
                put("angle", _ANGLES[char], char)
            elif char in "u\u03bc\u00b5":
                fields["mini"] = True
            elif char == "\u2b22":
                fields["hexpack"] = True
            elif char in _DICE or char in _CHESS:
                put("glyph", char, char)
            else:
                raise _Syntax(f"unknown character {char!r} in piece {text!r}")
        for extra in extras:
            if re.fullmatch(r"a-?\d+(\.\d+)?", extra):
                fields["angle"] = float(extra[1:]) % 360.0
            elif re.fullmatch(r"r\d+", extra):
                fields["rank_index"] = int(extra[1:])
            elif re.fullmatch(r"s\d+", extra):
                fields["suit_index"] = int(extra[1:])
            elif extra.endswith("'") and len(extra) > 1:
                fields["cfg"] = extra[:-1]
            else:
                raise _Syntax(f"cannot read {extra!r} in piece {text!r} (expected ,aN ,rN ,sN or ,name')")
        return cls(**fields)

    def __str__(self) -> str:
        out = ""
        implied_pyramid = self.piece == "pyramid" and self.side in ("left", "right", "top")
        if self.piece and not implied_pyramid:
            out += _PIECE_LETTER[self.piece]
        if self.side:
            out += _SIDE_LETTER[self.side]
        if self.mini:
            out += "u"
        if self.hexpack:
            out += "\u2b22"
        if self.suit:
            out += self.suit
        if self.glyph:
            out += self.glyph
        if self.rank is not None:
            out += str(self.rank)
        extras = []
        if self.angle is not None:
            # "<" is written ",a90": a spec ending in "<" before a move's "-" would read as an offset "<-".
            if self.angle in _ANGLE_MARK and self.angle != 90.0:
                out += _ANGLE_MARK[self.angle]
            else:
                extras.append(f"a{fmt_number(self.angle)}")
        if self.rank_index is not None:
            extras.append(f"r{self.rank_index}")
        if self.suit_index is not None:
            extras.append(f"s{self.suit_index}")
        if self.cfg is not None:
            extras.append(f"{self.cfg}'")
        return ",".join([out, *extras]) if extras else out

    def completed(self) -> PieceSpec:
        """The spec with the specification's assumptions filled in (piece type, side, suit, rank, angle)."""
        coloured = self.suit in _COLOURED
        piece = self.piece
        if piece is None:
            if self.side in ("left", "right", "top"):
                piece = "pyramid"
            elif self.glyph and self.glyph in _DICE:
                piece = "die"
            elif self.glyph:
                piece = "bit"
            elif coloured:
                piece = "bit"
            elif (self.suit is None) == (self.rank is None):
                piece = "tile"
            else:
                piece = "coin"
        elif piece in ("coin", "matchstick", "saucer") and coloured:
            piece = "bit"
        side = self.side
        if side is None:
            side = {
                "tile": "back" if self.suit is None or self.rank is None else "face",
                "card": "back" if self.suit is None or self.rank is None else "face",
                "coin": "face" if self.suit is None else "back",
                "saucer": "face" if self.suit is None else "back",
                "pyramid": "top",
                "bit": "back",
            }.get(piece, "face")
        suit = self.suit
        if suit is None and self.suit_index is None:
            suit = "R" if piece == "pyramid" else "W" if self.glyph in tuple(_DICE) else "S"
        rank = self.rank
        if rank is None and self.rank_index is None:
            rank = 1 if piece == "pyramid" or piece == "die" else 0
        return PieceSpec(piece, side, suit, rank, self.angle if self.angle is not None else 0.0,
                         self.suit_index, self.rank_index, self.cfg, self.mini, self.hexpack, self.glyph)


# ------------------------------------------------------------------------------------------------- locations
@dataclass(frozen=True)
class Point:
    """An absolute location in PPN units (x right, y up). ``algebraic`` only remembers how it was written."""

    x: float
    y: float
    algebraic: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        if self.algebraic and self.x == int(self.x) and self.y == int(self.y) and self.x >= 1 and self.y >= 0:
            return _algebraic_x(int(self.x)) + str(int(self.y))
        return f"({fmt_number(self.x)},{fmt_number(self.y)})"


@dataclass(frozen=True)
class Offset:
    """A relative location: ``dx, dy`` from the moving piece(s), or from ``anchor`` (a location, ``|loc``) or
    ``anchor_piece`` (``$id``). ``compact`` remembers a written ``4U`` form."""

    dx: float
    dy: float
    anchor: Location | None = None
    anchor_piece: PieceId | None = None
    compact: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        base = self.compact or f"<{fmt_number(self.dx)},{fmt_number(self.dy)}>"
        if self.anchor is not None:
            return f"{base}|{self.anchor}"
        if self.anchor_piece is not None:
            return f"{base}${self.anchor_piece}"
        return base


@dataclass(frozen=True)
class PieceLocation:
    """``&id``: where a piece is (for ``N loc`` ids, that location itself)."""

    piece: PieceId

    def __str__(self) -> str:
        return f"&{self.piece}"


@dataclass(frozen=True)
class ActiveLocation:
    """The empty location: where the piece(s) moved last are."""

    def __str__(self) -> str:
        return ""


Location = Point | Offset | PieceLocation | ActiveLocation

_DIRECTIONS: dict[str, tuple[float, float]] = {
    "U": (0, 1), "D": (0, -1), "L": (-1, 0), "R": (1, 0), "N": (0, 1), "S": (0, -1), "W": (-1, 0), "E": (1, 0),
    "NE": (1, 1), "SE": (1, -1), "SW": (-1, -1), "NW": (-1, 1), "UR": (1, 1), "DR": (1, -1), "DL": (-1, -1),
    "UL": (-1, 1),
}


def _hex(angle_deg: float) -> tuple[float, float]:
    import math

    a = math.radians(angle_deg)
    return (round(math.cos(a), 12), round(math.sin(a), 12))


for _name, _deg in (("NNE", 60), ("ENE", 30), ("ESE", 330), ("SSE", 300), ("SSW", 240), ("WSW", 210),
                    ("WNW", 150), ("NNW", 120), ("UUR", 60), ("RUR", 30), ("RDR", 330), ("DDR", 300),
                    ("DDL", 240), ("LDL", 210), ("LUL", 150), ("UUL", 120)):
    _DIRECTIONS[_name] = _hex(_deg)


def _algebraic_x(n: int) -> str:
    letters = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        letters = chr(ord("a") + r) + letters
    return letters


def _split_anchor(text: str) -> tuple[str, str | None, str | None]:
    """``4U|b2`` -> ('4U', 'b2', None); ``<1,2>$?S`` -> ('<1,2>', None, '?S')."""
    for i, ch in enumerate(text):
        if ch == "|":
            return text[:i], text[i + 1 :], None
        if ch == "$":
            return text[:i], None, text[i + 1 :]
    return text, None, None


_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)"


def parse_location(text: str) -> Location:
    """Read a PPN location (see the module docstring)."""
    text = re.sub(r"^&+", "&", text)
    if text in ("", "&"):
        return ActiveLocation()  # "&" is the location of the active pieces too
    if text.startswith("&"):
        return PieceLocation(parse_piece_id(text[1:]))
    if text.startswith("<") or re.match(r"\d", text):
        base, anchor, anchor_piece = _split_anchor(text)
        m = re.fullmatch(rf"<\s*({_NUM})\s*,\s*({_NUM})\s*>", base)
        compact = None
        if m:
            dx, dy = float(m[1]), float(m[2])
        else:
            m = re.fullmatch(r"(\d+\.?\d*)([A-Z]{1,3})", base)
            if not m or m[2] not in _DIRECTIONS:
                raise _Syntax(f"cannot read the location {text!r}")
            ux, uy = _DIRECTIONS[m[2]]
            dx, dy = float(m[1]) * ux, float(m[1]) * uy
            compact = base
        return Offset(
            dx,
            dy,
            parse_location(anchor) if anchor is not None else None,
            parse_piece_id(anchor_piece) if anchor_piece is not None else None,
            compact,
        )
    m = re.fullmatch(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)", text)
    if m:
        return Point(float(m[1]), float(m[2]))
    m = re.fullmatch(r"([a-z]+)(\d+)", text)
    if m:
        x = 0
        for ch in m[1]:
            x = x * 26 + (ord(ch) - ord("a") + 1)
        return Point(float(x), float(m[2]), algebraic=True)
    raise _Syntax(f"cannot read the location {text!r}")


# ------------------------------------------------------------------------------------------------- piece ids
@dataclass(frozen=True)
class AtLocation:
    """The piece(s) at a location: the top one, the ``count`` nearest, or a ``slice`` counted from the top."""

    location: Location
    count: int | None = None
    slice: tuple[int, ...] | None = None
    from_start: bool = False

    def __str__(self) -> str:
        text = ("^" if self.from_start else "") + (str(self.count) if self.count is not None else "")
        text += str(self.location) if not isinstance(self.location, ActiveLocation) else "&"
        if self.slice is not None:
            text += "[" + ",".join(str(i) for i in self.slice) + "]"
        return text


@dataclass(frozen=True)
class BySpec:
    """``?spec`` (one matching piece) or ``/spec`` (``greedy``: every matching piece)."""

    spec: PieceSpec
    greedy: bool = False
    from_start: bool = False

    def __str__(self) -> str:
        return ("^" if self.from_start else "") + ("/" if self.greedy else "?") + str(self.spec)


@dataclass(frozen=True)
class Active:
    """The empty piece id: the piece(s) moved last."""

    from_start: bool = False

    def __str__(self) -> str:
        return "^" if self.from_start else ""


PieceId = AtLocation | BySpec | Active


def _parse_slice(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?::(\d+))?", part.strip())
        if not m:
            raise _Syntax(f"cannot read the slice [{text}]")
        lo = int(m[1])
        hi = int(m[2]) if m[2] else lo
        out.extend(range(lo, hi + 1) if lo <= hi else range(lo, hi - 1, -1))
    return tuple(out)


def parse_piece_id(text: str) -> PieceId:
    """Read a PPN piece id (see the module docstring)."""
    from_start = text.startswith("^")
    if from_start:
        text = text[1:]
    if text == "":
        return Active(from_start)
    m = re.fullmatch(r"(.+)\[([\d,:\s]+)\]", text)
    if m:
        base = m[1]
        location = PieceLocation(parse_piece_id(base)) if base.startswith(("?", "/")) else parse_location(base)
        return AtLocation(location, None, _parse_slice(m[2]), from_start)
    if text.startswith("&"):
        text = text.lstrip("&")
        if text.startswith(("?", "/")):
            return BySpec(PieceSpec.parse(text[1:]), text[0] == "/", from_start)
    if text.startswith("?"):
        return BySpec(PieceSpec.parse(text[1:]), False, from_start)
    if text.startswith("/"):
        return BySpec(PieceSpec.parse(text[1:]), True, from_start)
    m = re.fullmatch(r"(\d+)([a-z(&<].*)", text)
    if m:
        return AtLocation(parse_location(m[2]), int(m[1]), None, from_start)
    if re.fullmatch(r"[\d.]+", text):
        raise _Syntax(f"piece ids by internal number ({text!r}) are not supported")
    return AtLocation(parse_location(text), None, None, from_start)


# ------------------------------------------------------------------------------------------------- submoves
@dataclass(frozen=True)
class Submove:
    """One PPN operation.

    ``op`` is the operator: ``-`` move (``_`` underneath), ``@`` drop (``\\`` underneath), ``*`` remove, ``#``
    swap, ``:`` capture, ``@>``/``$>`` rotate clockwise by ``angle`` degrees (about ``about`` if given), ``+``
    flip, ``!`` to the top of the drawing order, ``~`` update, ``=`` replace. ``piece`` is the piece id acted on
    (``#``/``:``: the first), ``other`` the second piece id of ``#``/``:``; ``spec`` the piece dropped/updated/
    replaced; ``to`` the destination of ``-``/``_``/``@``/``\\``; ``order`` the ``%id`` setting the drawing order.
    ``line``/``column`` locate the token in the file (not compared).
    """

    op: str
    piece: PieceId | None = None
    other: PieceId | None = None
    spec: PieceSpec | None = None
    to: Location | None = None
    order: PieceId | None = None
    angle: float | None = None
    about: Location | None = None
    about_piece: PieceId | None = None
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)

    def __str__(self) -> str:
        op = self.op
        if op in ("-", "_"):
            if self.order is not None and isinstance(self.to, PieceLocation) and self.to.piece == self.order:
                return f"{self.piece}{op}%{self.order}"
            return f"{self.piece}{op}{self._to_text()}" + (f"%{self.order}" if self.order is not None else "")
        if op in ("@", "\\"):
            if self.order is not None and isinstance(self.to, PieceLocation) and self.to.piece == self.order:
                return f"{self.spec}{op}%{self.order}"
            return f"{self.spec}{op}{self._to_text()}" + (f"%{self.order}" if self.order is not None else "")
        if op in ("*", "+", "!"):
            return f"{op}{self.piece}"
        if op in ("#", ":"):
            return f"{self.piece}{op}{self.other}"
        if op == "$>":
            return f"{self.piece}$>{fmt_number(self.angle or 0.0)}"
        if op == "@>":
            text = f"{self.piece}@>{fmt_number(self.angle or 0.0)}"
            if self.about is not None:
                text += f"|{self.about}"
            elif self.about_piece is not None:
                text += f"${self.about_piece}"
            return text
        if op in ("~", "="):
            return f"{self.piece}{op}{self.spec}"
        raise ValueError(f"unknown operator {op!r}")  # pragma: no cover

    def _to_text(self) -> str:
        # the active location is written "&" where an order follows: "-%id" alone means "to where id is"
        if isinstance(self.to, ActiveLocation) and self.order is not None:
            return "&"
        return str(self.to)


_HYPHEN = re.compile(r"(?<![(<,])-")
_PLUS = re.compile(r"(?<![(<,])\+")
_COLON = re.compile(r":(?![^\[]*\])")


def _with_order(text: str) -> tuple[str, PieceId | None]:
    """Split ``loc%id`` into the location and the drawing-order piece id."""
    if "%" in text:
        loc, _, ref = text.partition("%")
        return loc, parse_piece_id(ref)
    return text, None


def parse_submove(text: str, line: int = 0, column: int = 0) -> Submove:
    """Read one submove, recognising operators in the reference parser's order of precedence."""
    pos = {"line": line, "column": column}
    if "$>" in text:
        piece, _, angle = text.partition("$>")
        return Submove("$>", parse_piece_id(piece), angle=_angle(angle), **pos)
    if "@>" in text:
        piece, _, rest = text.partition("@>")
        angle, anchor, anchor_piece = _split_anchor(rest)
        return Submove(
            "@>",
            parse_piece_id(piece),
            angle=_angle(angle),
            about=parse_location(anchor) if anchor is not None else None,
            about_piece=parse_piece_id(anchor_piece) if anchor_piece is not None else None,
            **pos,
        )
    if "@" in text:
        return _drop(text, "@", pos)
    m = _HYPHEN.search(text)
    if m:
        return _move(text[: m.start()], text[m.end() :], "-", pos)
    if text.startswith("*"):
        return Submove("*", parse_piece_id(text[1:]), **pos)
    m = _PLUS.search(text)
    if m:
        return Submove("+", parse_piece_id(text[: m.start()] + text[m.end() :]), **pos)
    if "~" in text:
        piece, _, spec = text.partition("~")
        return Submove("~", parse_piece_id(piece), spec=PieceSpec.parse(spec), **pos)
    if "=" in text:
        piece, _, spec = text.partition("=")
        return Submove("=", parse_piece_id(piece), spec=PieceSpec.parse(spec), **pos)
    m = _COLON.search(text)
    if m:
        return Submove(":", parse_piece_id(text[: m.start()]), parse_piece_id(text[m.end() :]), **pos)
    if "_" in text:
        piece, _, rest = text.partition("_")
        return _move(piece, rest, "_", pos)
    if "\\" in text:
        return _drop(text, "\\", pos)
    if "#" in text:
        a, _, b = text.partition("#")
        return Submove("#", parse_piece_id(a), parse_piece_id(b), **pos)
    if text.startswith("!"):
        return Submove("!", parse_piece_id(text[1:]), **pos)
    raise _Syntax(f"don't know how to read the move {text!r}")


def _drop(text: str, op: str, pos: dict[str, int]) -> Submove:
    spec, _, rest = text.partition(op)
    if rest.startswith("%"):
        ref = parse_piece_id(rest[1:])
        return Submove(op, spec=PieceSpec.parse(spec), to=PieceLocation(ref), order=ref, **pos)
    loc, ref = _with_order(rest)
    return Submove(op, spec=PieceSpec.parse(spec), to=parse_location(loc), order=ref, **pos)


def _move(piece: str, rest: str, op: str, pos: dict[str, int]) -> Submove:
    if rest.startswith("%"):
        ref = parse_piece_id(rest[1:])
        return Submove(op, parse_piece_id(piece), to=PieceLocation(ref), order=ref, **pos)
    loc, ref = _with_order(rest)
    return Submove(op, parse_piece_id(piece), to=parse_location(loc), order=ref, **pos)


def _angle(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise _Syntax(f"cannot read the angle {text!r}") from None


# ------------------------------------------------------------------------------------------------- braces
def _matching_brace(s: str, i: int) -> int | None:
    depth = 0
    j = i
    while j < len(s):
        ch = s[j]
        if ch == "\\" and j + 1 < len(s) and s[j + 1] in ",{}":
            j += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _split_commas(s: str) -> list[str]:
    parts, depth, start, j = [], 0, 0, 0
    while j < len(s):
        ch = s[j]
        if ch == "\\" and j + 1 < len(s) and s[j + 1] in ",{}":
            j += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(s[start:j])
            start = j + 1
        j += 1
    parts.append(s[start:])
    return parts


def _sequence(inner: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
    if m:
        a, b = int(m[1]), int(m[2])
        step = abs(int(m[3])) if m[3] else 1
        step = step or 1
        width = max(len(m[1]), len(m[2])) if (m[1].lstrip("-").startswith("0") and len(m[1]) > 1) else 0
        values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(v).zfill(width) if width else str(v) for v in values]
    m = re.fullmatch(r"([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?", inner)
    if m:
        a, b = ord(m[1]), ord(m[2])
        step = abs(int(m[3])) if m[3] else 1
        step = step or 1
        values = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(v) for v in values]
    return None


def expand_braces(s: str) -> list[str]:
    """Unix-shell brace expansion: ``t@{b,d}{2..8..2}`` -> ``t@b2 t@b4 t@b6 t@b8 t@d2 ...``.

    Comma lists (nested allowed), integer and letter sequences with optional step; ``\\,`` is a literal comma.
    Braces that are neither stay as they are (as in bash).
    """
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in ",{}":
            i += 2
            continue
        if s[i] == "{":
            j = _matching_brace(s, i)
            if j is None:
                break
            inner = s[i + 1 : j]
            options = _split_commas(inner)
            if len(options) == 1:
                seq = _sequence(inner)
                if seq is None:
                    i += 1
                    continue
                options = seq
            prefix, suffix = s[:i], s[j + 1 :]
            out: list[str] = []
            for option in options:
                out.extend(expand_braces(prefix + option + suffix))
            return out
        i += 1
    return [re.sub(r"\\([,{}])", r"\1", s)]


# ------------------------------------------------------------------------------------------------- macros
_BUILTIN_MACROS = {
    "H": "\u2665", "S": "\u2660", "C": "\u2663", "D": "\u2666", "WH": "\u2664", "WS": "\u2661", "WD": "\u2662",
    "WC": "\u2667", "p": "\u265f", "n": "\u265e", "b": "\u265d", "r": "\u265c", "q": "\u265b", "k": "\u265a",
    "P": "\u2659", "N": "\u2658", "B": "\u2657", "R": "\u2656", "Q": "\u2655", "K": "\u2654",
}


def _expand_macros(text: str, macros: Mapping[str, str]) -> str:
    for _ in range(100):
        m = re.search(r"`([^'`]+)'", text)
        if not m:
            return text
        if m[1] not in macros:
            raise _Syntax(f"macro `{m[1]}' is unknown (define it under Macros in the metadata)")
        text = text[: m.start()] + str(macros[m[1]]) + text[m.end() :]
    raise _Syntax("macros nest too deeply (a macro refers to itself?)")


# ------------------------------------------------------------------------------------------------- games
@dataclass
class Step:
    """One step of a move: submoves played in order, and the comments written with it."""

    submoves: list[Submove] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)

    def __str__(self) -> str:
        parts = [str(s) for s in self.submoves] + [f"{{{c}}}" for c in self.comments]
        return " ".join(parts)

    @property
    def where(self) -> str:
        return f"line {self.line}, column {self.column}"


@dataclass
class MoveEntry:
    """A numbered move (``number`` like ``1.`` or ``1...``; None before the first number) and its steps."""

    number: str | None = None
    steps: list[Step] = field(default_factory=list)


@dataclass
class Game:
    """One game of a PPN file: the metadata mapping, comments before the first move, and the moves."""

    metadata: dict[str, Any] = field(default_factory=dict)
    moves: list[MoveEntry] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    line: int = field(default=1, compare=False)

    def steps(self) -> Iterator[Step]:
        """Every step with at least one submove, in order."""
        for move in self.moves:
            for step in move.steps:
                if step.submoves:
                    yield step

    @property
    def game_type(self) -> str | None:
        """The tableside name of the game: ``GameType``'s name (else ``SetUp``'s unless it is ``None``), or None."""
        for key in ("GameType", "SetUp"):
            value = self.metadata.get(key)
            if isinstance(value, Mapping):
                value = value.get("Name")
            if isinstance(value, str) and value.strip() and value.strip().lower() != "none":
                return normalize_game_name(value)
        return None

    @property
    def setup(self) -> dict[str, Any]:
        """The set-up parameters: the ``GameType`` mapping without ``Name`` (empty when it is a plain name)."""
        value = self.metadata.get("GameType")
        if isinstance(value, Mapping):
            return {k: v for k, v in value.items() if k != "Name"}
        return {}

    def to_text(self, width: int = 100) -> str:
        lines = ["---"]
        if self.metadata:
            dumped = yaml.safe_dump(self.metadata, sort_keys=False, allow_unicode=True, default_flow_style=False)
            lines.extend(dumped.rstrip("\n").splitlines())
        lines.append("...")
        tokens = [f"{{{c}}}" for c in self.comments]
        for move in self.moves:
            body = ""
            for part in (str(s) for s in move.steps):
                if part:
                    # a comment must be followed by whitespace, so the step separator gets a space before it
                    body += (" ; " if body.endswith("}") else "; ") + part if body else part
            if not body and move.number is None:
                continue
            tokens.append(f"{move.number} {body}".strip() if move.number else body)
        current = ""
        for token in tokens:
            if current and len(current) + 1 + len(token) > width:
                lines.append(current)
                current = token
            else:
                current = f"{current} {token}" if current else token
        if current:
            lines.append(current)
        return "\n".join(lines) + "\n"


class _Positions:
    """Offset in the movetext -> (line, column), both 1-based."""

    def __init__(self, starts: list[int], first_line: int) -> None:
        self.starts = starts
        self.first_line = first_line

    def at(self, offset: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self.starts, offset) - 1
        return self.first_line + i, offset - self.starts[i] + 1


_MOVE_NUMBER = re.compile(r"[A-Za-z0-9_.]*\.")


def _tokens(text: str) -> Iterator[tuple[str, str, int]]:
    """Split movetext into (kind, text, offset): kinds ``comment``, ``number``, ``step`` and ``move``."""
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        if text[i] == "{":
            j = text.find("}", i)
            if j < 0:
                raise _Syntax(f"@{start}:a comment opened with {{ is never closed")
            if j + 1 >= n or text[j + 1].isspace():
                yield "comment", " ".join(text[i + 1 : j].split()), start
                i = j + 1
                continue
        while i < n and not text[i].isspace():
            i += 1
        word = text[start:i]
        if word == ".":
            yield "step", word, start
        elif _MOVE_NUMBER.fullmatch(word):
            yield "number", word, start
        else:
            # split at ';' outside braces
            depth, piece_start = 0, 0
            for k, ch in enumerate(word):
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and depth == 0:
                    if k > piece_start:
                        yield "move", word[piece_start:k], start + piece_start
                    yield "step", ";", start + k
                    piece_start = k + 1
            if piece_start < len(word):
                yield "move", word[piece_start:], start + piece_start


def _split_submoves(token: str) -> list[str]:
    """``a4-b5*c3*c4`` -> ``a4-b5 *c3 *c4``; ``a4-b5+`` -> ``a4-b5 +``; ``3?Sa$>90!`` -> ``3?Sa$>90 !``."""
    token = token.replace("\u035c", "_").replace("\u203f", "_")
    token = re.sub(r"\*", " *", token)
    token = re.sub(r"(?<![(<,])\+", " +", token)
    token = re.sub(r"!", " !", token)
    token = re.sub(r"(\d+)\?", r"\1&?", token)
    return token.split()


def _parse_movetext(text: str, positions: _Positions, macros: Mapping[str, str], game: Game) -> None:
    current_move: MoveEntry | None = None
    current_step: Step | None = None

    def fail(message: str, offset: int) -> RecordError:
        line, col = positions.at(offset)
        return RecordError(f"line {line}, column {col}: {message}")

    try:
        tokens = list(_tokens(text))
    except _Syntax as err:
        offset_text, _, message = str(err).partition(":")
        raise fail(message, int(offset_text[1:])) from None
    for kind, word, offset in tokens:
        if kind == "number":
            current_move = MoveEntry(word)
            game.moves.append(current_move)
            current_step = None
            continue
        if kind == "comment":
            if current_step is not None:
                current_step.comments.append(word)
            elif current_move is not None:
                line, col = positions.at(offset)
                current_step = Step([], [word], line, col)
                current_move.steps.append(current_step)
            else:
                game.comments.append(word)
            continue
        if kind == "step":
            if current_move is None:
                current_move = MoveEntry(None)
                game.moves.append(current_move)
            current_step = None
            continue
        # a move token
        if current_move is None:
            current_move = MoveEntry(None)
            game.moves.append(current_move)
        if current_step is None:
            line, col = positions.at(offset)
            current_step = Step([], [], line, col)
            current_move.steps.append(current_step)
        try:
            expanded = _expand_macros(word, macros)
            line, col = positions.at(offset)
            for token in expand_braces(expanded):
                for sub in _split_submoves(token):
                    current_step.submoves.append(parse_submove(sub, line, col))
        except _Syntax as err:
            raise fail(str(err), offset) from None
    for move in game.moves:
        move.steps = [s for s in move.steps if s.submoves or s.comments]
    game.moves = [m for m in game.moves if m.number is not None or m.steps]


def _split_games(lines: list[str]) -> list[tuple[int, list[str]]]:
    starts = [i for i, line in enumerate(lines) if line.startswith("---")]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    bounds = list(zip(starts, [*starts[1:], len(lines)], strict=True))
    return [(a, lines[a:b]) for a, b in bounds if any(line.strip() for line in lines[a:b])]


def _parse_game(first: int, lines: list[str], source: str) -> Game:
    """``first`` is the 0-based index of the game's first line in the file."""
    body_start = 1 if lines and lines[0].startswith("---") else 0
    end = next((i for i in range(body_start, len(lines)) if lines[i].startswith("...")), None)
    if end is not None:
        meta_lines, move_start = lines[body_start:end], end + 1
    else:
        blank = next((i for i in range(body_start, len(lines)) if not lines[i].strip()), None)
        if blank is None:
            meta_lines, move_start = [], body_start
        else:
            meta_lines, move_start = lines[body_start:blank], blank + 1
    metadata: Any = {}
    if any(line.strip() for line in meta_lines):
        try:
            metadata = yaml.safe_load("\n".join(meta_lines))
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line = first + body_start + (mark.line if mark else 0) + 1
            col = (mark.column + 1) if mark else 1
            problem = getattr(err, "problem", None) or str(err).splitlines()[0]
            raise RecordError(f"{source}: line {line}, column {col}: metadata is not valid YAML: {problem}") from None
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        line = first + body_start + 1
        raise RecordError(f"{source}: line {line}, column 1: the metadata must be a YAML mapping (Key: value)")
    game = Game(metadata=metadata, line=first + 1)
    movetext_lines = lines[move_start:]
    text = "\n".join(movetext_lines)
    starts, offset = [], 0
    for line in movetext_lines:
        starts.append(offset)
        offset += len(line) + 1
    if not starts:
        starts = [0]
    macros = dict(_BUILTIN_MACROS)
    user_macros = metadata.get("Macros")
    if isinstance(user_macros, Mapping):
        macros.update({str(k): str(v) for k, v in user_macros.items()})
    try:
        _parse_movetext(text, _Positions(starts, first + move_start + 1), macros, game)
    except RecordError as err:
        raise RecordError(f"{source}: {err}") from None
    return game


def parse(text: str, source: str = "<record>") -> list[Game]:
    """Read every game in PPN ``text``. ``source`` names the file in error messages."""
    if not isinstance(text, str):
        raise RecordError(f"{source}: a PPN record is text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return [_parse_game(first, chunk, source) for first, chunk in _split_games(lines)]


def read(path: str | Path) -> list[Game]:
    """Read a ``.ppn`` file (UTF-8). Missing files raise OSError; bad content RecordError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a UTF-8 text file") from None
    return parse(text, str(path))


def dumps(games: Game | Iterable[Game]) -> str:
    """PPN text for one game or several (each starting with ``---``)."""
    if isinstance(games, Game):
        games = [games]
    return "".join(g.to_text() for g in games)


def write(path: str | Path, games: Game | Iterable[Game]) -> None:
    Path(path).write_text(dumps(games), encoding="utf-8")
