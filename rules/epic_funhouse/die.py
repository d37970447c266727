"""The piecepack die as a physical cube: which face is on top and which face looks each way.

Roll Out the Barrels tips the die from coin to coin, so the rules must know, after every tip, which face
comes up. That needs the die's *arrangement*: which faces are opposite each other and in which turning
sense the faces run around a corner (a die and its mirror image tip differently).

Decision (the seed does not say; it only warns that "some handmade piecepacks are erratic"): the default
arrangement is piecepackr's default piecepack die, ``die_arrangement = "counter_down"`` (piecepackr
``R/utils-d6.R``: ranks null, ace, 2, 3, 4, 5 on die positions 1..6, where position 1 is the top, 2 the
+x (east) side, 3 the +y (north) side, 4 the bottom, 5 west and 6 south). With null on top it shows ace to the
east and 2 to the north; null/3, ace/4 and 2/5 are opposite; null, ace and 2 run counter-clockwise round
their shared corner seen from outside. piecepackr's other arrangement, ``"opposites_sum_to_5"`` (null/5,
ace/4, 2/3 opposite, same turning sense), is available as :data:`OPPOSITES_SUM_TO_5`; every function that
tips a die takes the arrangement as a parameter.

Directions are compass words on the table: north is the top of a top-down picture (``y_mm`` decreasing),
east is to the right.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.base import LayoutError, RulesError
from rules.pieces import parse_rank, rank_name

__all__ = [
    "Direction",
    "DieArrangement",
    "COUNTER",
    "OPPOSITES_SUM_TO_5",
    "ARRANGEMENTS",
    "Die",
    "arrangement_named",
]


class Direction(StrEnum):
    """A compass direction on the table (north = top of the picture)."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"

    @property
    def letter(self) -> str:
        return self.value[0].upper()

    @property
    def step(self) -> tuple[int, int]:
        """(row change, column change) of one step; rows grow southwards like image rows."""
        return _STEPS[self]

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE_DIRECTION[self]

    @classmethod
    def parse(cls, text: str) -> Direction:
        """Accept ``north``/``n``/``N`` (and likewise for the others), also ``up``/``down``/``left``/``right``."""
        key = str(text).strip().lower()
        try:
            return _DIRECTION_WORDS[key]
        except KeyError:
            raise ValueError(f"unknown direction {text!r}: use north, east, south or west") from None


_STEPS = {
    Direction.NORTH: (-1, 0),
    Direction.EAST: (0, 1),
    Direction.SOUTH: (1, 0),
    Direction.WEST: (0, -1),
}
_OPPOSITE_DIRECTION = {
    Direction.NORTH: Direction.SOUTH,
    Direction.SOUTH: Direction.NORTH,
    Direction.EAST: Direction.WEST,
    Direction.WEST: Direction.EAST,
}
_DIRECTION_WORDS: dict[str, Direction] = {}
for _d in Direction:
    _DIRECTION_WORDS[_d.value] = _d
    _DIRECTION_WORDS[_d.value[0]] = _d
_DIRECTION_WORDS.update({"up": Direction.NORTH, "down": Direction.SOUTH, "left": Direction.WEST,
                         "right": Direction.EAST, "u": Direction.NORTH, "d": Direction.SOUTH,
                         "l": Direction.WEST, "r": Direction.EAST})


@dataclass(frozen=True)
class DieArrangement:
    """How the six ranks sit on a die: the faces seen with the die in its reference pose.

    Only the relative placement matters (which faces are opposite, and the turning sense); the reference
    pose is just a convenient way to write it down.
    """

    name: str
    top: int
    bottom: int
    north: int
    south: int
    east: int
    west: int

    def __post_init__(self) -> None:
        faces = (self.top, self.bottom, self.north, self.south, self.east, self.west)
        if sorted(faces) != [0, 1, 2, 3, 4, 5]:
            raise ValueError(f"die arrangement {self.name!r} must use each rank null..5 exactly once")

    def opposite(self, rank: int) -> int:
        """The rank on the face opposite ``rank``."""
        pairs = {self.top: self.bottom, self.bottom: self.top, self.north: self.south, self.south: self.north,
                 self.east: self.west, self.west: self.east}
        return pairs[rank]

    @property
    def reference(self) -> Die:
        return Die(self.top, self.bottom, self.north, self.south, self.east, self.west)

    def orientations(self) -> tuple[Die, ...]:
        """The 24 ways the die can rest (6 faces on top x 4 turns), sorted, so the order is stable."""
        return _orientations(self)

    def orient(self, top: int, north: int) -> Die:
        """The die resting with ``top`` up and ``north`` facing north (this fixes the other four faces)."""
        top, north = parse_rank(top), parse_rank(north)
        for die in self.orientations():
            if die.top == top and die.north == north:
                return die
        raise LayoutError(
            f"a die cannot show {rank_name(top).lower()} on top and {rank_name(north).lower()} to the north: "
            f"on this die ({self.name}) they are opposite faces or the same face")

    def check(self, die: Die) -> Die:
        """``die`` if it is a pose of this arrangement, else a :class:`LayoutError` saying why."""
        if die not in self.orientations():
            raise LayoutError(
                f"the die {die} cannot exist: on a {self.name} piecepack die the faces are arranged differently "
                f"(with null on top, {rank_name(self.reference.east).lower()} faces east when "
                f"{rank_name(self.reference.north).lower()} faces north)")
        return die


@dataclass(frozen=True, order=True)
class Die:
    """A die at rest: the rank on each of its six faces (0 = null, 1 = ace)."""

    top: int
    bottom: int
    north: int
    south: int
    east: int
    west: int

    def face(self, direction: Direction) -> int:
        """The rank on the side facing ``direction``."""
        return {Direction.NORTH: self.north, Direction.SOUTH: self.south,
                Direction.EAST: self.east, Direction.WEST: self.west}[direction]

    def tipped(self, direction: Direction | str) -> Die:
        """The die after tipping it over its bottom edge towards ``direction``.

        Tipping north turns the top face to face north and brings the south face up.
        """
        d = direction if isinstance(direction, Direction) else Direction.parse(direction)
        t, b, n, s, e, w = self.top, self.bottom, self.north, self.south, self.east, self.west
        if d is Direction.NORTH:
            return Die(top=s, bottom=n, north=t, south=b, east=e, west=w)
        if d is Direction.SOUTH:
            return Die(top=n, bottom=s, north=b, south=t, east=e, west=w)
        if d is Direction.EAST:
            return Die(top=w, bottom=e, north=n, south=s, east=t, west=b)
        return Die(top=e, bottom=w, north=n, south=s, east=b, west=t)

    def __str__(self) -> str:
        return (f"top={rank_name(self.top).lower()} north={rank_name(self.north).lower()} "
                f"east={rank_name(self.east).lower()}")

    @classmethod
    def parse(cls, text: str, arrangement: DieArrangement | None = None) -> Die:
        """Read ``top=null north=2 east=ace`` (any order; ``t=0 n=2 e=1`` also works).

        ``east`` may be left out: with the top and north faces it follows from the arrangement. When given,
        it must agree.
        """
        arrangement = arrangement or COUNTER
        fields: dict[str, int] = {}
        for part in str(text).replace(",", " ").split():
            key, sep, value = part.partition("=")
            if not sep:
                raise RulesError(f"cannot read die pose {text!r}: write it like 'top=null north=2 east=ace'")
            name = {"t": "top", "n": "north", "e": "east"}.get(key.strip().lower(), key.strip().lower())
            if name not in ("top", "north", "east") or name in fields:
                raise RulesError(f"cannot read die pose {text!r}: give top, north and east once each")
            try:
                fields[name] = parse_rank(value)
            except ValueError as err:
                raise RulesError(f"cannot read die pose {text!r}: {err}") from None
        if "top" not in fields or "north" not in fields:
            raise RulesError(f"cannot read die pose {text!r}: it needs at least top=... and north=...")
        die = arrangement.orient(fields["top"], fields["north"])
        if "east" in fields and fields["east"] != die.east:
            raise LayoutError(
                f"a {arrangement.name} die with {rank_name(die.top).lower()} on top and "
                f"{rank_name(die.north).lower()} to the north shows {rank_name(die.east).lower()} to the east, "
                f"not {rank_name(fields['east']).lower()}")
        return die


_ORIENTATION_CACHE: dict[DieArrangement, tuple[Die, ...]] = {}


def _orientations(arrangement: DieArrangement) -> tuple[Die, ...]:
    # Tipping north and tipping east generate every rotation of a cube, so a flood fill from the reference
    # pose finds all 24 rest poses (and only rotations: no mirror images).
    cached = _ORIENTATION_CACHE.get(arrangement)
    if cached is None:
        seen = {arrangement.reference}
        todo = [arrangement.reference]
        while todo:
            die = todo.pop()
            for d in Direction:
                nxt = die.tipped(d)
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        cached = tuple(sorted(seen))
        assert len(cached) == 24
        _ORIENTATION_CACHE[arrangement] = cached
    return cached


#: piecepackr's default piecepack die ("counter_down"): null/3, ace/4, 2/5 opposite.
COUNTER = DieArrangement("counter", top=0, bottom=3, north=2, south=5, east=1, west=4)
#: piecepackr's "opposites_sum_to_5" die: null/5, ace/4, 2/3 opposite.
OPPOSITES_SUM_TO_5 = DieArrangement("opposites_sum_to_5", top=0, bottom=5, north=2, south=3, east=1, west=4)

ARRANGEMENTS: dict[str, DieArrangement] = {a.name: a for a in (COUNTER, OPPOSITES_SUM_TO_5)}


def arrangement_named(name: str | DieArrangement) -> DieArrangement:
    """The arrangement called ``name`` (``counter`` or ``opposites_sum_to_5``), with a clear error otherwise."""
    if isinstance(name, DieArrangement):
        return name
    key = str(name).strip().lower().replace("-", "_")
    if key == "counter_down":
        key = "counter"
    try:
        return ARRANGEMENTS[key]
    except KeyError:
        raise RulesError(f"unknown die arrangement {name!r}: use {' or '.join(ARRANGEMENTS)}") from None
