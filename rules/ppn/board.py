"""Play PPN submoves on a table of pieces, as the reference parser (the R package ``ppn``) does.

A :class:`Board` is an ordered list of pieces (bottom of the drawing order first) with PPN coordinates (x right,
y up) and PPN angles (degrees counter-clockwise), plus the ids of the pieces moved last (the "active" pieces that
an empty piece id or location refers to). :meth:`Board.play` applies one step and returns a new board; the game
adapters compare the boards before and after a step to read the game's move. Boards are immutable.

Written here (not borrowed) because there is no Python implementation of PPN's default movetext semantics; the
rules follow the reference parser's ``process_submove`` and ``get_id_from_piece_id``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from rules.base import RecordError
from rules.ppn import (
    Active,
    ActiveLocation,
    AtLocation,
    BySpec,
    Location,
    Offset,
    PieceId,
    PieceLocation,
    PieceSpec,
    Point,
    Step,
    Submove,
    fmt_number,
)

__all__ = ["BoardPiece", "Board", "PlayError"]


class PlayError(RecordError):
    """A submove that cannot be played on the board (no piece where it says): ``reason`` says why."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class BoardPiece:
    """A piece on the PPN board: a unique ``id``, its completed :class:`PieceSpec` and where it is."""

    id: int
    spec: PieceSpec
    x: float
    y: float

    @property
    def kind(self) -> str:
        return self.spec.piece or ""

    @property
    def angle(self) -> float:
        return self.spec.angle or 0.0

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)


def _clean(v: float) -> float:
    """Round away floating-point dust from rotations so that positions compare exactly."""
    return round(v, 6) + 0.0


def _at_same_place(p: BoardPiece, x: float, y: float) -> bool:
    return round((p.x - x) ** 2 + (p.y - y) ** 2, 5) == 0.0


def _matches(spec: PieceSpec, query: PieceSpec) -> bool:
    """Match only what the query writes (the reference parser's first, "explicit" search)."""
    for name in ("piece", "side", "suit", "rank", "suit_index", "rank_index", "cfg", "glyph"):
        wanted = getattr(query, name)
        if wanted is not None and getattr(spec, name) != wanted:
            return False
    if query.angle is not None and not math.isclose((spec.angle or 0.0) % 360, query.angle % 360):
        return False
    return True


_FLIP = {"face": "back", "back": "face", "left": "right", "right": "left", "top": "base", "base": "top"}


class _Failure(Exception):
    pass


class Board:
    """An immutable PPN table: pieces bottom to top, and the active (last moved) piece ids."""

    __slots__ = ("pieces", "active", "next_id")

    def __init__(self, pieces: Iterable[BoardPiece] = (), active: Sequence[int] = (), next_id: int | None = None):
        self.pieces: tuple[BoardPiece, ...] = tuple(pieces)
        self.active: tuple[int, ...] = tuple(active)
        self.next_id = next_id if next_id is not None else max((p.id for p in self.pieces), default=0) + 1

    @classmethod
    def from_pieces(cls, items: Iterable[tuple[PieceSpec | str, float, float]]) -> Board:
        """A board from (spec, x, y) triples, bottom first; specs are completed with PPN's assumptions."""
        pieces = []
        for i, (spec, x, y) in enumerate(items, start=1):
            spec = PieceSpec.parse(spec) if isinstance(spec, str) else spec
            pieces.append(BoardPiece(i, spec.completed(), _clean(x), _clean(y)))
        return cls(pieces)

    def __iter__(self):
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def at(self, x: float, y: float) -> list[BoardPiece]:
        """Pieces exactly at (x, y), bottom first."""
        return [p for p in self.pieces if _at_same_place(p, x, y)]

    def by_id(self, ids: Iterable[int]) -> list[BoardPiece]:
        wanted = set(ids)
        return [p for p in self.pieces if p.id in wanted]

    # ------------------------------------------------------------------------------------------- playing
    def play(self, step: Step) -> Board:
        """The board after every submove of ``step`` (in order); RecordError naming the submove if one fails."""
        board = self
        for sub in step.submoves:
            board = board.apply(sub, self)
        return board

    def apply(self, sub: Submove, start: Board | None = None) -> Board:
        """The board after one submove; ``start`` is the board at the start of the step (for ``^`` ids)."""
        start = start or self
        try:
            return self._apply(sub, start)
        except _Failure as err:
            where = f"line {sub.line}, column {sub.column}: " if sub.line else ""
            raise PlayError(f"{where}cannot play {sub}: {err}", f"cannot play {sub}: {err}") from None

    def _apply(self, sub: Submove, start: Board) -> Board:
        op = sub.op
        if op in ("-", "_"):
            assert sub.piece is not None and sub.to is not None
            ids = self._ids(sub.piece, start)
            targets = self._targets(sub.to, start, ids)
            moved = [replace(p, x=targets[p.id][0], y=targets[p.id][1]) for p in self.by_id(ids)]
            return self._insert(moved, op == "_", sub.order, start, active=ids)
        if op in ("@", "\\"):
            assert sub.spec is not None and sub.to is not None
            x, y = self._xy(sub.to, start)
            piece = BoardPiece(self.next_id, sub.spec.completed(), _clean(x), _clean(y))
            board = Board(self.pieces, self.active, self.next_id + 1)
            return board._insert([piece], op == "\\", sub.order, start, active=[piece.id])
        if op == "*":
            assert sub.piece is not None
            ids = set(self._ids(sub.piece, start))
            return Board([p for p in self.pieces if p.id not in ids], [i for i in self.active if i not in ids],
                         self.next_id)
        if op == "#":
            assert sub.piece is not None and sub.other is not None
            xy1, xy2 = self._coords(sub.piece, start), self._coords(sub.other, start)
            ids1, ids2 = self._ids(sub.piece, start), self._ids(sub.other, start)
            first = [replace(p, x=xy2[0], y=xy2[1]) for p in self.by_id(ids1)]
            second = [replace(p, x=xy1[0], y=xy1[1]) for p in self.by_id(ids2)]
            rest = [p for p in self.pieces if p.id not in set(ids1) | set(ids2)]
            return Board(rest + first + second, ids1, self.next_id)
        if op == ":":
            assert sub.piece is not None and sub.other is not None
            x, y = self._coords(sub.other, start)
            victims = set(self._ids(sub.other, start))
            ids = self._ids(sub.piece, start)
            board = Board([p for p in self.pieces if p.id not in victims], self.active, self.next_id)
            moved = [replace(p, x=x, y=y) for p in board.by_id(ids)]
            return board._insert(moved, False, None, start, active=ids)
        if op in ("@>", "$>"):
            assert sub.piece is not None
            ids = self._ids(sub.piece, start)
            centre: tuple[float, float] | None = None
            if op == "$>":
                centre = self._coords(sub.piece, start)
            elif sub.about is not None:
                centre = self._xy(sub.about, start)
            elif sub.about_piece is not None:
                centre = self._coords(sub.about_piece, start)
            return self._rotate(ids, sub.angle or 0.0, centre)
        if op == "+":
            assert sub.piece is not None
            ids = set(self._ids(sub.piece, start))
            return Board([replace(p, spec=self._flipped(p.spec)) if p.id in ids else p for p in self.pieces],
                         self.active, self.next_id)
        if op == "!":
            assert sub.piece is not None
            ids = self._ids(sub.piece, start)
            moved = self.by_id(ids)
            return self._insert(moved, False, None, start, active=ids)
        if op in ("~", "="):
            assert sub.piece is not None and sub.spec is not None
            ids = set(self._ids(sub.piece, start))
            if op == "=":
                new = sub.spec.completed()
                pieces = [replace(p, spec=new) if p.id in ids else p for p in self.pieces]
            else:
                changes = {k: v for k, v in vars(sub.spec).items() if v is not None and v is not False}
                pieces = [replace(p, spec=replace(p.spec, **changes)) if p.id in ids else p for p in self.pieces]
            return Board(pieces, sorted(ids, key=[p.id for p in self.pieces].index), self.next_id)
        raise _Failure(f"unknown operator {op!r}")  # pragma: no cover

    # ------------------------------------------------------------------------------------------- helpers
    def _insert(self, moved: list[BoardPiece], bottom: bool, order: PieceId | None, start: Board,
                active: Sequence[int]) -> Board:
        moved_ids = {p.id for p in moved}
        rest = [p for p in self.pieces if p.id not in moved_ids]
        if order is not None:
            refs = set(self._ids(order, start))
            positions = [i for i, p in enumerate(rest) if p.id in refs]
            if not positions:
                raise _Failure(f"the piece {order} to place it next to is being moved")
            index = positions[0] if bottom else positions[-1] + 1
        else:
            index = 0 if bottom else len(rest)
        return Board(rest[:index] + moved + rest[index:], list(active), self.next_id)

    def _rotate(self, ids: Sequence[int], degrees: float, centre: tuple[float, float] | None) -> Board:
        theta = math.radians(degrees)
        c, s = math.cos(theta), math.sin(theta)
        wanted = set(ids)
        pieces = []
        for p in self.pieces:
            if p.id in wanted:
                x, y = p.x, p.y
                if centre is not None:  # clockwise about the centre, with y up
                    dx, dy = x - centre[0], y - centre[1]
                    x, y = centre[0] + dx * c + dy * s, centre[1] - dx * s + dy * c
                angle = ((p.spec.angle or 0.0) - degrees) % 360.0
                p = BoardPiece(p.id, replace(p.spec, angle=_clean(angle) % 360.0), _clean(x), _clean(y))
            pieces.append(p)
        return Board(pieces, list(ids), self.next_id)

    @staticmethod
    def _flipped(spec: PieceSpec) -> PieceSpec:
        if spec.piece == "pyramid":
            return replace(spec, side="face" if spec.side == "top" else "top")
        if spec.piece == "die":
            return replace(spec, rank=((spec.rank or 0) + 3) % 6)
        return replace(spec, side=_FLIP.get(spec.side or "face", spec.side))

    def _ids(self, pid: PieceId, start: Board) -> list[int]:
        """Ids of the piece(s) a piece id names, in drawing order."""
        if pid.from_start:
            ids = start._ids(replace(pid, from_start=False), start)
            present = {p.id for p in self.pieces}
            missing = [i for i in ids if i not in present]
            if missing:
                raise _Failure(f"the piece {pid} is no longer on the board")
            return ids
        if isinstance(pid, Active):
            ids = [i for i in self.active if any(p.id == i for p in self.pieces)]
            if not ids:
                raise _Failure("no piece has moved yet, so an empty piece id names nothing")
            return ids
        if isinstance(pid, BySpec):
            return self._by_spec(pid)
        x, y = self._xy(pid.location, start)
        here = self.at(x, y)
        if pid.slice is not None:
            chosen = []
            for i in pid.slice:
                if not 1 <= i <= len(here):
                    raise _Failure(f"there are {len(here)} pieces at ({fmt_number(x)},{fmt_number(y)}), no number {i}")
                chosen.append(here[-i].id)
            return [p.id for p in self.pieces if p.id in set(chosen)]
        if pid.count is None:
            if not here:
                raise _Failure(f"there is no piece at ({fmt_number(x)},{fmt_number(y)})")
            return [here[-1].id]
        # the N nearest pieces; among equally near ones, the upper ones
        ranked = sorted(enumerate(self.pieces), key=lambda ip: (round((ip[1].x - x) ** 2 + (ip[1].y - y) ** 2, 5),
                                                                -ip[0]))
        chosen_ids = {p.id for _, p in ranked[: pid.count]}
        if len(chosen_ids) < pid.count:
            raise _Failure(f"there are only {len(self.pieces)} pieces on the board, not {pid.count}")
        return [p.id for p in self.pieces if p.id in chosen_ids]

    def _by_spec(self, pid: BySpec) -> list[int]:
        explicit = [p for p in self.pieces if _matches(p.spec, pid.spec)]
        if pid.greedy:
            if not explicit:
                raise _Failure(f"no piece matches {pid.spec}")
            return [p.id for p in explicit]
        if len(explicit) == 1:
            return [explicit[0].id]
        full = pid.spec.completed()
        with_angle = [p for p in self.pieces if _matches(p.spec, full)]
        if with_angle:
            return [with_angle[-1].id]
        without_angle = [p for p in self.pieces if _matches(p.spec, replace(full, angle=None))]
        if without_angle:
            return [without_angle[-1].id]
        raise _Failure(f"no piece matches {pid.spec}")

    def _coords(self, pid: PieceId, start: Board) -> tuple[float, float]:
        """Where a piece id is: its location for ``N loc`` ids, else the last named piece's position."""
        if isinstance(pid, AtLocation) and pid.count is not None and not pid.from_start:
            return self._xy(pid.location, start)
        ids = self._ids(pid, start)
        p = self.by_id(ids[-1:])[0] if not pid.from_start else start.by_id(ids[-1:])[0]
        return (p.x, p.y)

    def _xy(self, loc: Location, start: Board) -> tuple[float, float]:
        if isinstance(loc, Point):
            return (loc.x, loc.y)
        if isinstance(loc, ActiveLocation):
            return self._coords(Active(), start)
        if isinstance(loc, PieceLocation):
            return self._coords(loc.piece, start)
        if isinstance(loc, Offset):
            if loc.anchor is not None:
                bx, by = self._xy(loc.anchor, start)
            elif loc.anchor_piece is not None:
                bx, by = self._coords(loc.anchor_piece, start)
            else:
                raise _Failure(f"the relative location {loc} needs a piece to be relative to")
            return (bx + loc.dx, by + loc.dy)
        raise _Failure(f"unknown location {loc!r}")  # pragma: no cover

    def _targets(self, loc: Location, start: Board, ids: Sequence[int]) -> dict[int, tuple[float, float]]:
        """Destination of each moving piece: an unanchored offset moves each piece by it, else all go to one place."""
        if isinstance(loc, Offset) and loc.anchor is None and loc.anchor_piece is None:
            return {p.id: (_clean(p.x + loc.dx), _clean(p.y + loc.dy)) for p in self.by_id(ids)}
        x, y = self._xy(loc, start)
        return {i: (_clean(x), _clean(y)) for i in ids}
