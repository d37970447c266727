"""Martian Shuffleboard (David Artman, 2007): flick Icehouse pyramids into scoring positions.

Each player has a Small, a Medium and a Large pyramid (worth 1, 2, 3) of one colour. The first player places one
upright piece of any size at the centre of the table; then, in turn order, each player flicks one upright piece
from the edge of the table. The outcome is physical, so a :class:`Move` is the *observed* outcome of one flick:
where the slid piece ended (upright at a position, knocked flat, or off the table) and what happened to the
pieces it hit (pushed to a new position, knocked flat, knocked off).

Crashing: a piece knocked flat goes back to its owner (to re-slide later). A piece that falls off the table is out
of the game if it belongs to the player whose turn it is, otherwise it goes back to its owner. The game ends when
nobody has a piece left to slide.

Scoring (default): a piece scores for its player the value of each LARGER piece (of any colour) whose footprint
lies within one Small height (25.4 mm, a parameter) of its own footprint, edge to edge on the table plane. The six
play variants of the designer's "Remaining Design Issues" are :class:`Variant` values: piece choice ``any`` /
``smallest`` / ``largest`` times scoring ``smaller-on-larger`` (default) / ``larger-on-smaller``.

Positions are table-plane millimetres (``x_mm`` right, ``y_mm`` down, ``angle_deg`` clockwise as seen from above),
rounded to 0.1 mm and 0.1 degree so that states are hashable and text forms round-trip. A pyramid seen from
above is a square, so angles are kept modulo 90 degrees.

Move text form (``Move.parse(str(move)) == move``): whitespace-separated ``piece>outcome`` tokens, the slid piece
first, then the pieces it crashed into::

    red-large>(412.5,300.0,15.0)                       slid red Large ends upright there
    blue-small>(405.0,322.1,0.0) red-large>(430.2,301.7,20.0)   blue Small pushed the red Large
    blue-medium>flat                                    slid piece tipped over (back to its owner)
    blue-medium>off red-small>off                       slid piece and the red Small it hit fell off the table

The first move (the opening placement) uses the same form with an upright outcome and no crashes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.base import Explanation, IllegalMove, LayoutError, RulesError
from rules.pieces import PYRAMID_COLORS, PyramidPose, PyramidSize

__all__ = [
    "NAME",
    "SMALL_HEIGHT_MM",
    "Choice",
    "Scoring",
    "Variant",
    "VARIANTS",
    "Piece",
    "Placement",
    "Crash",
    "PlacedPiece",
    "Move",
    "Flick",
    "PairScore",
    "ScoreReport",
    "State",
    "footprint",
    "footprint_gap_mm",
    "polygon_distance",
    "score_positions",
    "explain",
]

NAME = "martian-shuffleboard"
#: Height of a Small pyramid laid flat: the game's unit of proximity (mm).
SMALL_HEIGHT_MM = PyramidSize.SMALL.height_mm
SIZES: tuple[PyramidSize, ...] = (PyramidSize.SMALL, PyramidSize.MEDIUM, PyramidSize.LARGE)
_SIZE_ORDER = {s: i for i, s in enumerate(SIZES)}


# ----------------------------------------------------------------------------------------------------- variants
class Choice(StrEnum):
    """Which piece a player may slide on a turn."""

    ANY = "any"
    SMALLEST = "smallest"  # forced to use the smallest piece in hand every turn
    LARGEST = "largest"  # forced to use the largest piece in hand every turn


class Scoring(StrEnum):
    """Who scores on whom when two pieces lie within a Small height of each other."""

    SMALLER_ON_LARGER = "smaller-on-larger"  # the published rule: the smaller piece scores the larger's value
    LARGER_ON_SMALLER = "larger-on-smaller"  # the alternative: the larger piece scores the smaller's value


@dataclass(frozen=True)
class Variant:
    """One of the six play variants. Text form ``choice/scoring``, e.g. ``any/smaller-on-larger`` (the default)."""

    choice: Choice = Choice.ANY
    scoring: Scoring = Scoring.SMALLER_ON_LARGER

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "choice", Choice(self.choice))
            object.__setattr__(self, "scoring", Scoring(self.scoring))
        except ValueError:
            raise RulesError(
                f"unknown variant {self.choice}/{self.scoring}: choice is any, smallest or largest; "
                "scoring is smaller-on-larger or larger-on-smaller"
            ) from None

    def __str__(self) -> str:
        return f"{self.choice}/{self.scoring}"

    @classmethod
    def parse(cls, text: str | Variant | None) -> Variant:
        if text is None:
            return cls()
        if isinstance(text, Variant):
            return text
        parts = str(text).strip().lower().split("/")
        if len(parts) == 1 and parts[0] in {c.value for c in Choice}:
            return cls(Choice(parts[0]))
        if len(parts) == 1 and parts[0] in {s.value for s in Scoring}:
            return cls(scoring=Scoring(parts[0]))
        if len(parts) != 2:
            raise RulesError(f"unknown variant {text!r}: write choice/scoring, e.g. any/smaller-on-larger")
        return cls(parts[0], parts[1])  # type: ignore[arg-type]


#: The six variants of "Remaining Design Issues", the published rules first.
VARIANTS: tuple[Variant, ...] = tuple(Variant(c, s) for c in Choice for s in Scoring)


# ----------------------------------------------------------------------------------------------------- pieces
def _color(text: str) -> str:
    key = str(text).strip().lower()
    if key not in PYRAMID_COLORS:
        raise RulesError(f"unknown pyramid colour {text!r}: use one of {', '.join(PYRAMID_COLORS)}")
    return key


@dataclass(frozen=True)
class Piece:
    """One pyramid: its colour (= its owner) and size. Text form ``red-large``."""

    color: str
    size: PyramidSize

    def __post_init__(self) -> None:
        object.__setattr__(self, "color", _color(self.color))
        try:
            object.__setattr__(self, "size", PyramidSize(str(self.size).strip().lower()))
        except ValueError:
            raise RulesError(f"unknown pyramid size {self.size!r}: use small, medium or large") from None

    def __str__(self) -> str:
        return f"{self.color}-{self.size.value}"

    def __lt__(self, other: Piece) -> bool:
        return (self.color, _SIZE_ORDER[self.size]) < (other.color, _SIZE_ORDER[other.size])

    @property
    def points(self) -> int:
        return self.size.points

    @property
    def spoken(self) -> str:
        return f"{self.color} {self.size.value}"

    @classmethod
    def parse(cls, text: str) -> Piece:
        color, sep, size = str(text).strip().lower().partition("-")
        if not sep:
            raise RulesError(f"cannot read pyramid {text!r}: write colour-size, e.g. red-large")
        return cls(color, size)  # type: ignore[arg-type]


def _r1(value: float) -> float:
    """Round to 0.1 (mm or degrees); ``+ 0.0`` turns -0.0 into 0.0 so text forms are stable."""
    return round(float(value), 1) + 0.0


@dataclass(frozen=True)
class Placement:
    """Where an upright piece stands: centre (mm) and rotation (degrees clockwise, modulo 90 for a square)."""

    x_mm: float
    y_mm: float
    angle_deg: float = 0.0

    def __post_init__(self) -> None:
        for name in ("x_mm", "y_mm", "angle_deg"):
            value = float(getattr(self, name))
            if not math.isfinite(value):
                raise RulesError(f"{name} must be a finite number, not {value!r}")
        object.__setattr__(self, "x_mm", _r1(self.x_mm))
        object.__setattr__(self, "y_mm", _r1(self.y_mm))
        angle = _r1(float(self.angle_deg) % 90.0)
        object.__setattr__(self, "angle_deg", 0.0 if angle >= 90.0 else angle)

    def __str__(self) -> str:
        return f"({self.x_mm:.1f},{self.y_mm:.1f},{self.angle_deg:.1f})"

    def distance_mm(self, other: Placement) -> float:
        return math.hypot(self.x_mm - other.x_mm, self.y_mm - other.y_mm)


class Crash(StrEnum):
    """A piece that did not end upright on the table."""

    FLAT = "flat"  # knocked flat: back to its owner
    OFF = "off"  # fell off the table: out of the game if it is the mover's, else back to its owner


Outcome = Placement | Crash


def _parse_outcome(text: str) -> Outcome:
    text = text.strip().lower()
    if text in (Crash.FLAT.value, Crash.OFF.value):
        return Crash(text)
    m = re.fullmatch(r"\(\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*(?:,\s*([-+0-9.eE]+)\s*)?\)", text)
    if not m:
        raise RulesError(f"cannot read outcome {text!r}: write (x_mm,y_mm,angle_deg), flat or off")
    try:
        return Placement(float(m[1]), float(m[2]), float(m[3] or 0.0))
    except ValueError:
        raise RulesError(f"cannot read outcome {text!r}: numbers expected") from None


@dataclass(frozen=True)
class PlacedPiece:
    """An upright piece on the table."""

    piece: Piece
    at: Placement

    @property
    def color(self) -> str:
        return self.piece.color

    @property
    def size(self) -> PyramidSize:
        return self.piece.size

    def __str__(self) -> str:
        return f"{self.piece}@{self.at}"

    def __lt__(self, other: PlacedPiece) -> bool:
        return self.piece < other.piece

    def to_json(self) -> dict[str, Any]:
        return {
            "color": self.piece.color,
            "size": self.piece.size.value,
            "x_mm": self.at.x_mm,
            "y_mm": self.at.y_mm,
            "angle_deg": self.at.angle_deg,
        }


# ----------------------------------------------------------------------------------------------------- geometry
# Hand-written rather than shapely: rules/ stays dependency-free, and the distance between two convex
# quadrilaterals (separating-axis test + vertex/edge distances) is a few lines of exact arithmetic.
Point = tuple[float, float]


def footprint(x_mm: float, y_mm: float, angle_deg: float, side_mm: float) -> tuple[Point, ...]:
    """Corners (mm, in order around the square) of a square of ``side_mm`` centred at (x, y), rotated clockwise
    by ``angle_deg`` as seen in the y-down table frame."""
    h = side_mm / 2.0
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return tuple((x_mm + dx * c - dy * s, y_mm + dx * s + dy * c) for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h)))


def _point_segment_distance(p: Point, a: Point, b: Point) -> float:
    abx, aby = b[0] - a[0], b[1] - a[1]
    apx, apy = p[0] - a[0], p[1] - a[1]
    length2 = abx * abx + aby * aby
    t = 0.0 if length2 == 0.0 else max(0.0, min(1.0, (apx * abx + apy * aby) / length2))
    return math.hypot(apx - t * abx, apy - t * aby)


def _separated(p: Sequence[Point], q: Sequence[Point]) -> bool:
    """Separating-axis test for convex polygons: True if some edge normal of either separates them strictly."""
    for poly in (p, q):
        n = len(poly)
        for i in range(n):
            ex, ey = poly[(i + 1) % n][0] - poly[i][0], poly[(i + 1) % n][1] - poly[i][1]
            nx, ny = -ey, ex
            p_proj = [nx * v[0] + ny * v[1] for v in p]
            q_proj = [nx * v[0] + ny * v[1] for v in q]
            if max(p_proj) < min(q_proj) or max(q_proj) < min(p_proj):
                return True
    return False


def polygon_distance(p: Sequence[Point], q: Sequence[Point]) -> float:
    """Edge-to-edge distance between two convex polygons; 0 when they touch or overlap."""
    if not _separated(p, q):
        return 0.0
    best = math.inf
    for poly_a, poly_b in ((p, q), (q, p)):
        n = len(poly_b)
        for v in poly_a:
            for i in range(n):
                best = min(best, _point_segment_distance(v, poly_b[i], poly_b[(i + 1) % n]))
    return best


def footprint_gap_mm(a: PlacedPiece, b: PlacedPiece) -> float:
    """Edge-to-edge gap on the table plane between the square footprints of two upright pyramids."""
    return polygon_distance(
        footprint(a.at.x_mm, a.at.y_mm, a.at.angle_deg, a.size.base_mm),
        footprint(b.at.x_mm, b.at.y_mm, b.at.angle_deg, b.size.base_mm),
    )


# ----------------------------------------------------------------------------------------------------- scoring
@dataclass(frozen=True)
class PairScore:
    """The gap between two upright pieces and who, if anyone, scores from it."""

    a: PlacedPiece
    b: PlacedPiece
    gap_mm: float
    within: bool  # gap <= one Small height
    scorer: Piece | None  # the piece whose owner scores (None: too far apart, or same size)
    points: int

    def to_json(self) -> dict[str, Any]:
        return {
            "a": str(self.a.piece),
            "b": str(self.b.piece),
            "gap_mm": round(self.gap_mm, 1),
            "within": self.within,
            "scorer": None if self.scorer is None else str(self.scorer),
            "points": self.points,
        }


@dataclass(frozen=True)
class ScoreReport:
    """Result of :func:`score_positions`: every pair of pieces, and the points per colour."""

    pairs: tuple[PairScore, ...]
    points: dict[str, int] = field(hash=False)
    small_height_mm: float = SMALL_HEIGHT_MM
    variant: Variant = Variant()

    def to_json(self) -> dict[str, Any]:
        return {
            "small_height_mm": self.small_height_mm,
            "variant": str(self.variant),
            "points": dict(self.points),
            "pairs": [p.to_json() for p in self.pairs],
        }


def _as_placed(obj: Any) -> PlacedPiece | None:
    """Accept a PlacedPiece, a mapping or any object with color/size/x_mm/y_mm(/angle_deg/pose), such as the
    vision's detections; None for a flat pyramid or a piece that is not a pyramid (``kind`` other than pyramid)."""
    if isinstance(obj, PlacedPiece):
        return obj
    get = obj.get if isinstance(obj, Mapping) else (lambda k, d=None: getattr(obj, k, d))
    kind = get("kind", "pyramid")
    if str(getattr(kind, "value", kind)).lower() != "pyramid":
        return None
    pose = get("pose", PyramidPose.UPRIGHT)
    if str(getattr(pose, "value", pose)).lower() == PyramidPose.FLAT.value:
        return None
    try:
        return PlacedPiece(Piece(get("color"), get("size")), Placement(get("x_mm"), get("y_mm"), get("angle_deg", 0.0)))
    except (TypeError, ValueError) as err:
        raise LayoutError(f"cannot read pyramid {obj!r}: {err}") from None


def score_positions(
    pieces: Iterable[Any],
    small_height_mm: float = SMALL_HEIGHT_MM,
    variant: Variant | str | None = None,
) -> ScoreReport:
    """Score upright pyramids on the table.

    ``pieces``: :class:`PlacedPiece` objects, or mappings/objects with ``color``, ``size``, ``x_mm``, ``y_mm``,
    optional ``angle_deg``, ``pose`` and ``kind`` (e.g. the vision's detections; flat pyramids are skipped, they
    go back to their owner, and so is anything that is not a pyramid).
    ``small_height_mm``: the proximity unit (a Small's height; players may agree on a die's diagonal instead).
    Returns every pair's edge-to-edge gap (mm) and whether it scores, and the points per colour (every colour
    present appears, with 0 if it scores nothing).
    """
    if not small_height_mm > 0:
        raise RulesError(f"the Small height must be positive, not {small_height_mm!r}")
    variant = Variant.parse(variant)
    placed = [p for p in (_as_placed(o) for o in pieces) if p is not None]
    placed.sort()
    points: dict[str, int] = {p.color: 0 for p in placed}
    pairs = []
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            gap = footprint_gap_mm(a, b)
            within = gap <= small_height_mm + 1e-9
            scorer: Piece | None = None
            value = 0
            if within and a.size != b.size:
                small, large = (a, b) if _SIZE_ORDER[a.size] < _SIZE_ORDER[b.size] else (b, a)
                if variant.scoring is Scoring.SMALLER_ON_LARGER:
                    scorer, value = small.piece, large.size.points
                else:
                    scorer, value = large.piece, small.size.points
                points[scorer.color] += value
            pairs.append(PairScore(a, b, gap, within, scorer, value))
    return ScoreReport(tuple(pairs), points, float(small_height_mm), variant)


# ----------------------------------------------------------------------------------------------------- moves
@dataclass(frozen=True)
class Move:
    """The observed outcome of one flick: the slid piece's fate and the crashes it caused."""

    piece: Piece
    outcome: Outcome
    crashes: tuple[tuple[Piece, Outcome], ...] = ()

    def __post_init__(self) -> None:
        pairs = ((p if isinstance(p, Piece) else Piece.parse(p), o) for p, o in self.crashes)
        crashes = tuple(sorted(((p, o if isinstance(o, Placement | Crash) else _parse_outcome(o)) for p, o in pairs),
                               key=lambda po: po[0]))
        object.__setattr__(self, "crashes", crashes)

    def __str__(self) -> str:
        return " ".join(f"{p}>{o}" for p, o in ((self.piece, self.outcome), *self.crashes))

    @classmethod
    def parse(cls, text: str) -> Move:
        tokens = str(text).split()
        if not tokens:
            raise RulesError("empty move: write piece>outcome, e.g. red-large>(412.5,300.0,15.0)")
        pairs = []
        for token in tokens:
            piece, sep, outcome = token.partition(">")
            if not sep:
                raise RulesError(f"cannot read {token!r}: write piece>outcome, e.g. blue-small>off")
            pairs.append((Piece.parse(piece), _parse_outcome(outcome)))
        return cls(pairs[0][0], pairs[0][1], tuple(pairs[1:]))

    @property
    def player(self) -> str:
        return self.piece.color

    def describe(self) -> str:
        """The flick in words: "red slides the medium to x 450.0, y 300.0 mm; it knocks blue small flat"."""
        mover = self.player

        def fate(piece: Piece, outcome: Outcome, slid: bool) -> str:
            if isinstance(outcome, Placement):
                where = f"x {outcome.x_mm:.1f}, y {outcome.y_mm:.1f} mm"
                return f"to {where}" if slid else f"pushes {piece.spoken} to {where}"
            if outcome is Crash.FLAT:
                text = "and it tips over" if slid else f"knocks {piece.spoken} flat"
                return f"{text} (back to {piece.color})"
            gone = "out of the game" if piece.color == mover else f"back to {piece.color}"
            return f"and it falls off the table ({gone})" if slid else f"knocks {piece.spoken} off the table ({gone})"

        text = f"{mover} slides the {self.piece.size.value} {fate(self.piece, self.outcome, True)}"
        if self.crashes:
            text += "; it " + ", ".join(fate(p, o, False) for p, o in self.crashes)
        return text

    def to_json(self) -> dict[str, Any]:
        return {"move": str(self), "player": self.player}


@dataclass(frozen=True)
class Flick:
    """A legal-move template: the piece the player may flick. The outcome is whatever happens on the table."""

    piece: Piece

    def __str__(self) -> str:
        return f"{self.piece}>?"

    def landing(
        self, x_mm: float, y_mm: float, angle_deg: float = 0.0, crashes: Iterable[tuple[Piece, Outcome]] = ()
    ) -> Move:
        return Move(self.piece, Placement(x_mm, y_mm, angle_deg), tuple(crashes))

    def crash(self, outcome: Crash | str, crashes: Iterable[tuple[Piece, Outcome]] = ()) -> Move:
        return Move(self.piece, Crash(outcome), tuple(crashes))


# ----------------------------------------------------------------------------------------------------- state
@dataclass(frozen=True)
class State:
    """A Martian Shuffleboard position: players in turn order, the upright pieces on the table, the pieces out
    of the game, whose turn it is, whether the opening piece has been placed, the variant and the Small height.

    Pieces neither on the table nor out are in their owner's hand. ``lying`` lists pieces the camera saw lying
    flat (about to be picked up by their owner); they count as in hand and only matter to :func:`explain`.
    """

    players: tuple[str, ...]
    table: tuple[PlacedPiece, ...] = ()
    out: frozenset[Piece] = frozenset()
    to_move: int = 0
    opened: bool = False
    variant: Variant = Variant()
    small_height_mm: float = SMALL_HEIGHT_MM
    lying: frozenset[Piece] = frozenset()

    # -- construction
    @classmethod
    def new(
        cls,
        players: Sequence[str],
        variant: Variant | str | None = None,
        small_height_mm: float = SMALL_HEIGHT_MM,
    ) -> State:
        """The start of a game: every piece in hand, the first player to place the opening piece."""
        return cls.from_layout(players, (), variant=variant, small_height_mm=small_height_mm)

    @classmethod
    def from_layout(
        cls,
        players: Sequence[str],
        pieces: Iterable[Any] = (),
        to_move: str | int | None = None,
        out: Iterable[Piece | str] = (),
        opened: bool | None = None,
        variant: Variant | str | None = None,
        small_height_mm: float = SMALL_HEIGHT_MM,
    ) -> State:
        """Any position. ``pieces``: :class:`PlacedPiece` or mappings/objects with color, size, x_mm, y_mm,
        angle_deg and optional pose (``flat`` pieces are recorded as lying, i.e. in hand). ``to_move``: colour or
        index (default the first player; advanced past players with nothing to slide). ``opened`` defaults to
        True when any piece is on the table or out."""
        colors = tuple(_color(c) for c in players)
        if not colors:
            raise LayoutError("Martian Shuffleboard needs at least one player")
        if len(set(colors)) != len(colors):
            raise LayoutError(f"each player needs a different colour, not {', '.join(colors)}")
        if not small_height_mm > 0:
            raise LayoutError(f"the Small height must be positive, not {small_height_mm!r}")
        table: dict[Piece, PlacedPiece] = {}
        lying: set[Piece] = set()
        for obj in pieces:
            placed = _as_placed(obj)
            if placed is None:
                get = obj.get if isinstance(obj, Mapping) else (lambda k, d=None, o=obj: getattr(o, k, d))
                piece = Piece(get("color"), get("size"))
                if piece in lying or piece in table:
                    raise LayoutError(f"{piece.spoken} is on the table twice")
                lying.add(piece)
                continue
            if placed.piece in table or placed.piece in lying:
                raise LayoutError(f"{placed.piece.spoken} is on the table twice")
            table[placed.piece] = placed
        out_set = frozenset(p if isinstance(p, Piece) else Piece.parse(p) for p in out)
        for piece in (*table, *lying, *out_set):
            if piece.color not in colors:
                raise LayoutError(f"{piece.spoken} belongs to no player ({', '.join(colors)} are playing)")
        clash = out_set & (set(table) | lying)
        if clash:
            raise LayoutError(f"{min(clash).spoken} cannot be both out of the game and on the table")
        if to_move is None:
            index = 0
        elif isinstance(to_move, int):
            if not 0 <= to_move < len(colors):
                raise LayoutError(f"player index {to_move} out of range")
            index = to_move
        else:
            color = _color(to_move)
            if color not in colors:
                raise LayoutError(f"{color} is not playing ({', '.join(colors)} are)")
            index = colors.index(color)
        if opened is None:
            opened = bool(table or out_set)
        state = cls(
            colors,
            tuple(sorted(table.values())),
            out_set,
            index,
            bool(opened),
            Variant.parse(variant),
            float(small_height_mm),
            frozenset(lying),
        )
        return state._advanced(index)

    def _advanced(self, start: int) -> State:
        """The same state with the turn at the first player from ``start`` on who has something to slide."""
        n = len(self.players)
        for k in range(n):
            i = (start + k) % n
            if self.hand(self.players[i]):
                return State(
                    self.players, self.table, self.out, i, self.opened, self.variant, self.small_height_mm, self.lying
                )
        return State(
            self.players, self.table, self.out, start % n, self.opened, self.variant, self.small_height_mm, self.lying
        )

    # -- queries
    @property
    def player_to_move(self) -> str:
        return self.players[self.to_move]

    def placed(self, piece: Piece) -> PlacedPiece | None:
        for p in self.table:
            if p.piece == piece:
                return p
        return None

    def hand(self, color: str) -> tuple[Piece, ...]:
        """The pieces ``color`` may still slide (neither upright on the table nor out), smallest first."""
        color = _color(color)
        on_table = {p.piece for p in self.table}
        return tuple(
            p for p in (Piece(color, s) for s in SIZES) if p not in on_table and p not in self.out
        )

    def slidable(self, color: str | None = None) -> tuple[Piece, ...]:
        """The pieces ``color`` (default: the player to move) may slide this turn under the variant."""
        hand = self.hand(color or self.player_to_move)
        if not hand or self.variant.choice is Choice.ANY:
            return hand
        return (hand[0],) if self.variant.choice is Choice.SMALLEST else (hand[-1],)

    def legal_moves(self) -> tuple[Flick, ...]:
        """Templates of the legal flicks (one per piece the player to move may slide); empty when over."""
        if self.is_over():
            return ()
        return tuple(Flick(p) for p in self.slidable())

    def is_over(self) -> bool:
        return not any(self.hand(c) for c in self.players)

    def score_report(self) -> ScoreReport:
        return score_positions(self.table, self.small_height_mm, self.variant)

    def scores(self) -> dict[str, int]:
        """Points per player for the pieces now on the table (every player listed)."""
        points = dict.fromkeys(self.players, 0)
        points.update(self.score_report().points)
        return points

    def winner(self) -> str | None:
        """The player with the most points once the game is over; None before that or on a tie."""
        if not self.is_over():
            return None
        points = self.scores()
        best = max(points.values())
        leaders = [c for c, v in points.items() if v == best]
        return leaders[0] if len(leaders) == 1 else None

    def result(self) -> str:
        """A sentence: who won with how many points, or whose turn it is."""
        points = self.scores()
        table = ", ".join(f"{c} {points[c]}" for c in self.players)
        if not self.is_over():
            return f"the game goes on: {self.player_to_move} to flick ({table})"
        winner = self.winner()
        if winner is None:
            return f"a tie ({table})"
        return f"{winner} wins ({table})"

    # -- moves
    def apply(self, move: Move | str) -> State:
        """The state after ``move``; :class:`IllegalMove` with the reason when the rules forbid it."""
        if isinstance(move, str):
            move = Move.parse(move)
        if self.is_over():
            raise IllegalMove("the game is over: nobody has a piece left to slide", move)
        mover = self.player_to_move
        piece = move.piece
        if piece.color != mover:
            raise IllegalMove(f"it is {mover}'s turn, not {piece.color}'s", move)
        if piece in self.out:
            raise IllegalMove(f"{piece.spoken} is out of the game: it fell off the table on {mover}'s turn", move)
        if self.placed(piece) is not None:
            raise IllegalMove(f"{piece.spoken} is already on the table: slide a piece from your hand", move)
        allowed = self.slidable()
        if piece not in allowed:
            which = "smallest" if self.variant.choice is Choice.SMALLEST else "largest"
            raise IllegalMove(
                f"{mover} must slide the {which} piece in hand ({allowed[0].size.value}), not the {piece.size.value}",
                move,
            )
        if not self.opened:
            if not isinstance(move.outcome, Placement):
                raise IllegalMove("the first piece is placed upright at the centre, it cannot be flat or off", move)
            if move.crashes:
                raise IllegalMove("the first piece is placed on an empty table: there is nothing to crash into", move)
        seen = {piece}
        for other, _ in move.crashes:
            if other in seen:
                raise IllegalMove(f"{other.spoken} is listed twice in one flick", move)
            seen.add(other)
            if self.placed(other) is None:
                raise IllegalMove(f"{other.spoken} is not on the table, so the flick cannot have moved it", move)

        table = {p.piece: p for p in self.table}
        out = set(self.out)

        def settle(p: Piece, outcome: Outcome) -> None:
            table.pop(p, None)
            if isinstance(outcome, Placement):
                table[p] = PlacedPiece(p, outcome)
            elif outcome is Crash.OFF and p.color == mover:
                out.add(p)  # the mover's own piece off the table is out of the game
            # Crash.FLAT, or another player's piece off the table: back to its owner's hand

        settle(piece, move.outcome)
        for other, outcome in move.crashes:
            settle(other, outcome)
        nxt = State(
            self.players,
            tuple(sorted(table.values())),
            frozenset(out),
            self.to_move,
            True,
            self.variant,
            self.small_height_mm,
        )
        return nxt._advanced(self.to_move + 1)

    def explain(self, after: State, tolerance_mm: float = 3.0) -> Explanation:
        return explain(self, after, tolerance_mm)

    # -- output
    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "to_move": None if self.is_over() else self.player_to_move,
            "opened": self.opened,
            "variant": str(self.variant),
            "small_height_mm": self.small_height_mm,
            "table": [p.to_json() for p in self.table],
            "hands": {c: [p.size.value for p in self.hand(c)] for c in self.players},
            "out": [str(p) for p in sorted(self.out)],
            "scores": self.scores(),
            "over": self.is_over(),
            "winner": self.winner(),
        }

    def __str__(self) -> str:
        lines = []
        for p in self.table:
            at = p.at
            lines.append(f"{p.piece.spoken:>14} at x {at.x_mm:.1f} mm, y {at.y_mm:.1f} mm, {at.angle_deg:.1f} deg")
        if not lines:
            lines.append("(table empty)")
        points = self.scores()
        for c in self.players:
            hand = ", ".join(p.size.value for p in self.hand(c)) or "nothing"
            gone = ", ".join(p.size.value for p in sorted(self.out) if p.color == c)
            extra = f"; out: {gone}" if gone else ""
            lines.append(f"{c}: {points[c]} points; in hand: {hand}{extra}")
        if self.is_over():
            w = self.winner()
            lines.append(f"game over: {w} wins" if w else "game over: a tie")
        else:
            lines.append(f"{self.player_to_move} to flick")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------- explain
def _names(pieces: Iterable[Piece]) -> str:
    return " and ".join(p.spoken for p in sorted(pieces))


def explain(before: State, after: State, tolerance_mm: float = 3.0) -> Explanation:
    """Which flick of the player to move turns ``before`` into the observed ``after``, or why none does.

    ``after`` is what the camera sees (e.g. ``State.from_layout(players, detections)``): its turn and
    bookkeeping are ignored. A piece counts as moved when its centre moved more than ``tolerance_mm``. A piece
    gone from the table counts as knocked off unless ``after`` saw it lying flat.
    """
    b = {p.piece: p for p in before.table}
    a = {p.piece: p for p in after.table}
    appeared = [p for p in a if p not in b]
    moved = [p for p in a if p in b and a[p].at.distance_mm(b[p].at) > tolerance_mm]
    gone = [p for p in b if p not in a]
    new_flat = [p for p in after.lying if p not in b and p not in before.lying]
    if not (appeared or moved or gone or new_flat):
        return Explanation(())
    if before.is_over():
        return Explanation(reason="the game is over: nobody has a piece left to slide, yet pieces moved")
    mover = before.player_to_move
    slid_candidates = appeared + new_flat
    if len(slid_candidates) > 1:
        colors = {p.color for p in slid_candidates}
        if len(colors) > 1:
            return Explanation(
                reason=f"pieces of different players were slid ({_names(slid_candidates)}): one flick per turn"
            )
        return Explanation(reason=f"{_names(slid_candidates)} were both slid: one piece per turn")
    crashes: list[tuple[Piece, Outcome]] = [(p, a[p].at) for p in moved]
    crashes += [(p, Crash.FLAT if p in after.lying else Crash.OFF) for p in gone]
    if slid_candidates:
        piece = slid_candidates[0]
        if piece.color != mover:
            return Explanation(reason=f"{piece.spoken} was slid, but it is {mover}'s turn")
        if piece in before.out:
            return Explanation(
                reason=f"{piece.spoken} was slid, but it is out of the game: it fell off the table on its owner's turn"
            )
        outcome: Outcome = a[piece].at if piece in a else Crash.FLAT
    else:
        # Nothing new on the table: the flicked piece left it (or was picked up after tipping over).
        candidates = before.slidable(mover)
        if not candidates:
            return Explanation(reason=f"pieces moved, but {mover} has nothing to slide")
        if len(candidates) > 1:
            return Explanation(
                reason=f"pieces moved but no new piece is on the table: {mover}'s flicked piece left the table "
                f"and cannot be told apart ({' or '.join(p.size.value for p in candidates)})"
            )
        piece, outcome = candidates[0], Crash.OFF
    move = Move(piece, outcome, tuple(crashes))
    try:
        before.apply(move)
    except IllegalMove as err:
        return Explanation(reason=err.reason)
    return Explanation((move,))
