"""Epic Funhouse, room 3 (Game Three): Catwalk.

**Laying the catwalk.** The four stacks left by Magic Mirror (Twins, Cousins, Distant Relatives, Strangers) are
laid, in an order the player chooses and each from its top tile, into one winding track of 24 tiles. Each
tile goes against an edge of the previous one, in the direction of its suit on the Catwalk compass: Suns
north, Crowns east, Arms south, Moons west. When that side is taken the tile continues in the direction the
catwalk has been going; when that is taken too (a dead end) a die roll picks one of the open directions.

**Flicking.** The player picks one suit of six coins to flick from one end of the catwalk (the start) toward
the other; the other 18 coins are the face-up draw pool. Flicking is physical, so this module records what
happened as events and applies the rules to them: a coin that falls off scores its value times the value of
the tile it fell from (null and ace count 1 for both coin and tile here), goes on the scoreboard paired with a
draw-pool coin showing the tile's value, and the next coin starts on that tile; a coin that leaves the far
end scores nothing, goes to the draw pool, and the next coin starts at the beginning. Each coin is flicked
once, in any order. Letting all six coins fall adds a 10 point penalty. Perfect is 0.

Coordinates: catwalk cells are ``(x, y)`` with x growing east and y growing NORTH (PPN's convention); the first
tile laid is at ``(0, 0)``. The tiles are numbered 1..24 along the flicking direction ("course"), tile 1 at the
start end.

Event text (``str(event)`` parses back to the same event):

* ``5 off 17``: the 5 coin fell off tile 17 (also read: ``5 fell off tile 17``, ``null off 3``);
* ``5 off end``: the 5 coin left the far end (also read: ``5 end``, ``5 left the end``).

Coin ranks are written ``n``, ``a``, ``2``..``5``.

Decisions where the seed leaves room:

* **Grid model.** Tiles sit on a square grid; a cell is blocked when a tile is on it. The seed's switchback
  staggering ("separate the tracks by staggering the tiles to leave a small gap") only keeps two parallel runs
  from touching on the table; the grid treats neighbouring runs as separate cells and needs nothing more.
* **"Continue in the same direction"** is decided tile by tile: a tile whose suit side is taken goes in the
  direction of the last step; the next tile tries its own suit first again.
* **The die at a dead end.** The open directions are listed clockwise from north (N, E, S, W, the seed's
  compass order) and die face f (null = 0, ace = 1, .. 5) picks ``open[f % len(open)]``. A dead end has at
  most two open sides and 6 is divisible by 1 and 2 (and 3), so every open direction is equally likely. With
  one open side no roll is needed. The roll is an input: :func:`lay_catwalk` takes a ``random.Random``, an
  iterable of faces, or a function ``(tile, open_directions) -> face`` asked at each dead end.
* **Boxed in.** The seed does not foresee an end with no open side (measured: in about one catwalk in six or
  seven). The catwalk then bridges: the tile is laid straight on (in the direction the catwalk has been going)
  on the first free cell beyond the tiles in the way, as a raised or staggered tile would be on the table.
  Consecutive tiles then do not share an edge; :attr:`Track.bridges` lists where.
* **Which tile a coin fell from** is named by its number along the course. A coin starting on tile s can only
  fall off a tile s..24 (coins travel toward the end). Falling off the side of the last tile is a fall; only
  leaving over the far edge is "off the end".
* **The scoreboard coin** ("a coin from the draw pool with the value of the tile") is chosen by the rules, since
  only its value matters later: a coin showing the tile's rank, else for a value of 1 the other of null/ace,
  else two coins adding up to the value (null/ace counting 1), the most even split first (3 under 2 for a 5,
  as the seed's example stacks them), suits in the order Suns, Moons, Crowns, Arms. Starting from a full draw
  pool a marker can always be made; a hand-made layout that leaves none records an empty marker. A player at
  the table may take another suit, or another pair of substitutes adding up to the value: :func:`explain`
  accepts that (a single coin must show the rules' rank, since a null is wild in the next room and an ace
  is not; substitutes are compared by their total).
* **The penalty** applies when all six coins of the chosen suit fell (the scoreboard holds six pairs).
* **The Variant** (jotting scores on paper, no scoreboard) changes only the bookkeeping; it is not modelled.

Hand-over (:func:`transition`): :class:`CatwalkHandover` with ``pairs`` (the scoreboard, tuple of
:class:`ScoreboardPair` in the order made: ``coin`` = the fallen coin, ``tile`` = the tile it fell from,
``marker`` = the draw-pool coin(s) standing for the tile's value, bottom coin first), ``draw_pool`` (every other
coin, sorted Suns, Moons, Crowns, Arms then rank; to be turned face down and shuffled) and ``grid()`` (the 4x3
scoreboard as the next room lays it: pairs side by side in reading order, two pairs to a row, so the first
fallen coin is in the north-west corner).
``for_barrels()`` gives the scoreboard as ``(fallen coin, kept marker coin)`` pairs and the pool with any spare
substitute coins added back, which is the seed's "remove the extra coin ... and add them to the draw pool".
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.epic_funhouse.common import (
    ALL_COINS,
    RANK_CHARS,
    check_distinct,
    coin_code,
    parse_coin,
    parse_tile,
    tile_code,
)
from rules.pieces import SUITS, Coin, Suit, Tile, parse_rank, rank_name

__all__ = [
    "Compass",
    "SUIT_HEADING",
    "Track",
    "lay_catwalk",
    "stacks_in_order",
    "flick_value",
    "ScoreboardPair",
    "Event",
    "State",
    "CatwalkHandover",
    "transition",
    "explain",
    "PENALTY_ALL_FELL",
    "COINS_PER_SUIT",
]

Cell = tuple[int, int]  # (x east, y north)
COINS_PER_SUIT = 6
PENALTY_ALL_FELL = 10
SCOREBOARD_WIDTH = 4


class Compass(StrEnum):
    """A direction on the Catwalk compass (north = up the table, as in the seed's Figure 4)."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"

    @property
    def letter(self) -> str:
        return self.value[0].upper()

    @property
    def delta(self) -> Cell:
        """(dx, dy) of one step, y growing north."""
        return _DELTAS[self]

    @classmethod
    def parse(cls, text: str) -> Compass:
        key = str(text).strip().lower()
        for d in cls:
            if key in (d.value, d.value[0]):
                return d
        raise RulesError(f"unknown direction {text!r}: use north, east, south or west")


_DELTAS = {Compass.NORTH: (0, 1), Compass.EAST: (1, 0), Compass.SOUTH: (0, -1), Compass.WEST: (-1, 0)}
#: Clockwise from north, the order the seed lists the compass in; dead-end die faces index this order.
COMPASS_ORDER = (Compass.NORTH, Compass.EAST, Compass.SOUTH, Compass.WEST)
#: Where each suit sends its tile (Figure 4): Suns north, Crowns east, Arms south, Moons west.
SUIT_HEADING = {Suit.SUNS: Compass.NORTH, Suit.CROWNS: Compass.EAST, Suit.ARMS: Compass.SOUTH,
                Suit.MOONS: Compass.WEST}


def flick_value(rank: int) -> int:
    """A coin's or tile's value on the Catwalk: its rank, with null and ace both worth 1."""
    return max(1, rank)


def _step(cell: Cell, d: Compass) -> Cell:
    return cell[0] + d.delta[0], cell[1] + d.delta[1]


def _direction_between(a: Cell, b: Cell) -> Compass | None:
    dx, dy = b[0] - a[0], b[1] - a[1]
    if (dx == 0) == (dy == 0):
        return None
    sign = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    return next(d for d in Compass if d.delta == sign)


# ===================================================================================== laying the catwalk

@dataclass(frozen=True)
class Placement:
    """How the rules place the next tile: ``rule`` is ``first``, ``suit``, ``straight`` (on in the catwalk's
    direction), ``only`` (a dead end with one open side), ``roll`` or ``bridge``;
    ``options`` are the possible directions (several only for a roll)."""

    rule: str
    options: tuple[Compass, ...]


@dataclass(frozen=True)
class Track:
    """The catwalk as laid: tiles in laying order and their cells. ``rolls`` records the die faces used at
    dead ends (not part of equality: two faces can pick the same direction)."""

    tiles: tuple[Tile, ...] = ()
    cells: tuple[Cell, ...] = ()
    rolls: tuple[int, ...] = field(default=(), compare=False)

    def heading(self) -> Compass | None:
        """The direction the catwalk has been going (of its last step), None before the second tile."""
        if len(self.cells) < 2:
            return None
        a, b = self.cells[-2], self.cells[-1]
        return _direction_between(a, b)

    def open_directions(self) -> tuple[Compass, ...]:
        """The free sides of the last tile, clockwise from north."""
        taken = set(self.cells)
        return tuple(d for d in COMPASS_ORDER if _step(self.cells[-1], d) not in taken)

    def placement(self, tile: Tile) -> Placement:
        """Where the rules send ``tile`` next (see the module notes)."""
        if not self.cells:
            return Placement("first", ())
        wanted = SUIT_HEADING[tile.suit]
        open_ = self.open_directions()
        if wanted in open_:
            return Placement("suit", (wanted,))
        heading = self.heading()
        if heading in open_:
            return Placement("straight", (heading,))
        if open_:
            return Placement("roll" if len(open_) > 1 else "only", open_)
        return Placement("bridge", (heading,))

    def add(self, tile: Tile | str, roll: int | str | None = None) -> Track:
        """The track with ``tile`` laid by the rules; ``roll`` (a die face) is needed only at a dead end."""
        tile = parse_tile(tile)
        if tile in self.tiles:
            raise RulesError(f"the {tile} is already in the catwalk")
        how = self.placement(tile)
        rolls = self.rolls
        if how.rule == "first":
            cell = (0, 0)
        elif how.rule == "bridge":
            cell = _step(self.cells[-1], how.options[0])
            while cell in self.cells:
                cell = _step(cell, how.options[0])
        else:
            direction = how.options[0]
            if how.rule == "roll":
                if roll is None:
                    names = ", ".join(d.value for d in how.options)
                    raise RulesError(f"the catwalk is at a dead end before the {tile}: roll the die to choose "
                                     f"between {names}")
                face = parse_rank(roll)
                direction = how.options[face % len(how.options)]
                rolls = rolls + (face,)
            cell = _step(self.cells[-1], direction)
        return Track(self.tiles + (tile,), self.cells + (cell,), rolls)

    @property
    def bridges(self) -> tuple[int, ...]:
        """Laying-order numbers (1-based) of tiles that had to bridge over the track to reach their cell."""
        steps = zip(self.cells, self.cells[1:], strict=False)
        return tuple(i + 2 for i, (a, b) in enumerate(steps) if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1)

    @classmethod
    def from_layout(cls, tiles: Sequence[Tile | str], cells: Sequence[Cell]) -> Track:
        """A catwalk seen on the table (tiles in laying order with their cells), checked against the laying
        rules; the die faces at dead ends are inferred (the lowest face giving each direction). Cells may be
        shifted: the first is moved to (0, 0)."""
        try:
            tiles = [parse_tile(t) for t in tiles]
        except (RulesError, ValueError) as err:
            raise LayoutError(f"the catwalk: {err}") from None
        if len(tiles) != len(cells):
            raise LayoutError(f"the catwalk has {len(tiles)} tiles but {len(cells)} cells")
        check_distinct(tiles, "the catwalk")
        if not cells:
            return cls()
        ox, oy = cells[0]
        shifted = [(x - ox, y - oy) for x, y in cells]
        track = cls()
        for i, (tile, cell) in enumerate(zip(tiles, shifted, strict=True)):
            how = track.placement(tile)
            roll = None
            if how.rule == "roll":
                direction = _direction_between(track.cells[-1], cell)
                if direction in how.options:
                    roll = how.options.index(direction)
            nxt = track.add(tile, roll if roll is not None else 0)
            if nxt.cells[-1] != cell:
                raise LayoutError(_misplaced(track, tile, i + 1, how))
            track = nxt
        return track

    def render(self) -> str:
        """A map of the catwalk (north up), each cell showing its laying number and tile code."""
        if not self.cells:
            return "(no catwalk)"
        xs = [x for x, _ in self.cells]
        ys = [y for _, y in self.cells]
        where = {cell: i for i, cell in enumerate(self.cells)}
        lines = []
        for y in range(max(ys), min(ys) - 1, -1):
            row = []
            for x in range(min(xs), max(xs) + 1):
                i = where.get((x, y))
                row.append("  .   " if i is None else f"{i + 1:>2}:{tile_code(self.tiles[i])} ")
            lines.append("".join(row).rstrip())
        if self.bridges:
            lines.append("bridges at tiles " + ", ".join(map(str, self.bridges)))
        return "\n".join(lines)


def _misplaced(track: Track, tile: Tile, number: int, how: Placement) -> str:
    if how.rule == "suit":
        return (f"tile {number}, the {tile}, should lie {how.options[0].value} of the tile before it: its suit points "
                "that way and that side is free")
    if how.rule == "straight":
        return (f"tile {number}, the {tile}, should lie {how.options[0].value} of the tile before it: its suit's side "
                "is taken, so the catwalk goes straight on")
    if how.rule == "only":
        return (f"tile {number}, the {tile}, should lie {how.options[0].value} of the tile before it: that is the "
                "only open side")
    if how.rule == "roll":
        names = " or ".join(d.value for d in how.options)
        return f"tile {number}, the {tile}, is at a dead end and should lie {names} of the tile before it"
    return (f"tile {number}, the {tile}, is boxed in and should bridge {how.options[0].value} to the first free "
            "cell beyond")


#: What answers the die rolls at dead ends (see :func:`lay_catwalk`).
Roller = random.Random | Iterable[int | str] | Callable[[Tile, tuple[Compass, ...]], int | str] | None


def _roller(roll: Roller) -> Callable[[Tile, tuple[Compass, ...]], int | str]:
    if roll is None:
        def missing(tile: Tile, options: tuple[Compass, ...]) -> int:
            raise RulesError("the catwalk reached a dead end: give a die roll (a random.Random or die faces)")
        return missing
    if isinstance(roll, random.Random):
        return lambda tile, options: roll.randrange(6)
    if callable(roll):
        return roll
    faces = iter(roll)

    def next_face(tile: Tile, options: tuple[Compass, ...]) -> int | str:
        try:
            return next(faces)
        except StopIteration:
            raise RulesError("the catwalk needs more die rolls than were given") from None
    return next_face


def lay_catwalk(stacks: Sequence[Sequence[Tile | str]], roll: Roller = None) -> Track:
    """Lay the stacks, in the order given, each from its top tile (stacks are listed top first), by the rules.

    ``roll`` answers die rolls at dead ends: a ``random.Random``, an iterable of faces (0 = null .. 5), or a
    function ``roll(tile, open_directions) -> face`` asked at each dead end with the tile to be laid and the
    open sides it chooses among (clockwise from north; face f picks ``open_directions[f % len]``), so a player
    can be shown the dead end before rolling. Use :func:`stacks_in_order` to put Magic Mirror's stacks in the
    chosen order.
    """
    next_face = _roller(roll)
    track = Track()
    for pile in stacks:
        for tile in pile:
            tile = parse_tile(tile)
            how = track.placement(tile) if track.cells else None
            face = next_face(tile, how.options) if how is not None and how.rule == "roll" else None
            track = track.add(tile, face)
    return track


def stacks_in_order(handover: Sequence[Sequence[Tile]], order: Sequence[str]) -> tuple[tuple[Tile, ...], ...]:
    """Magic Mirror's four stacks (a ``MirrorStacks``) in the order the player chose, by name:
    ``twins``, ``cousins``, ``distant relatives`` (or ``distant_relatives``), ``strangers``."""
    names = ("twins", "cousins", "distant_relatives", "strangers")
    keys = [str(n).strip().lower().replace(" ", "_").replace("-", "_") for n in order]
    if sorted(keys) != sorted(names):
        raise RulesError(f"name each of the four stacks once ({', '.join(names)}), not {', '.join(order)}")
    by_name = dict(zip(names, handover, strict=True))
    return tuple(tuple(by_name[k]) for k in keys)


# ===================================================================================== flicking

@dataclass(frozen=True, order=True)
class ScoreboardPair:
    """One scoreboard entry: the ``coin`` that fell, the ``tile`` it fell from, and the draw-pool coin(s)
    standing for the tile's value (``marker``: one coin, or two that add up to it, bottom coin first)."""

    coin: Coin
    tile: Tile
    marker: tuple[Coin, ...]

    @property
    def points(self) -> int:
        """Coin value times tile value, null and ace counting 1."""
        return flick_value(self.coin.rank) * flick_value(self.tile.rank)

    def __str__(self) -> str:
        marker = "+".join(coin_code(c) for c in self.marker) or "?"
        return f"{coin_code(self.coin)}/{marker}"


_EVENT_RE = re.compile(
    r"^\s*(?:coin\s+)?(?P<coin>\w+)\s+(?:(?:fell\s+)?off\s+(?:tile\s+)?(?P<tile>\d+)|"
    r"(?:off|left)?\s*(?:the\s+)?end)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Event:
    """What happened to one flicked coin (rank ``coin``): it fell off tile number ``tile`` (1 = the start end),
    or left the far end (``tile`` None)."""

    coin: int
    tile: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "coin", parse_rank(self.coin))
        if self.tile is not None and (not isinstance(self.tile, int) or self.tile < 1):
            raise RulesError(f"tiles are numbered from 1 along the catwalk, not {self.tile!r}")

    @property
    def fell(self) -> bool:
        return self.tile is not None

    def __str__(self) -> str:
        return f"{RANK_CHARS[self.coin]} off {'end' if self.tile is None else self.tile}"

    @classmethod
    def parse(cls, text: str) -> Event:
        """Read ``5 off 17`` / ``5 fell off tile 17`` / ``null off 3`` or ``5 off end`` / ``5 left the end``."""
        match = _EVENT_RE.match(str(text))
        if not match:
            raise RulesError(f"cannot read {text!r}: write '5 off 17' (the 5 coin fell off tile 17) or '5 off end'")
        try:
            coin = parse_rank(match.group("coin"))
        except ValueError as err:
            raise RulesError(f"cannot read {text!r}: {err}") from None
        tile = match.group("tile")
        return cls(coin, int(tile) if tile else None)


def _coin_order(coin: Coin) -> tuple[int, int]:
    return SUITS.index(coin.suit), coin.rank


def _sorted_coins(coins: Iterable[Coin]) -> tuple[Coin, ...]:
    """Coins in the canonical order: suits Suns, Moons, Crowns, Arms, then rank."""
    return tuple(sorted(coins, key=_coin_order))


def _marker(pool: Sequence[Coin], tile: Tile) -> tuple[Coin, ...]:
    """The draw-pool coin(s) standing for the tile's value, by the module's documented preference."""
    by_rank: dict[int, list[Coin]] = {r: [] for r in range(6)}
    for coin in _sorted_coins(pool):
        by_rank[coin.rank].append(coin)
    value = flick_value(tile.rank)
    if by_rank[tile.rank]:
        return (by_rank[tile.rank][0],)
    if value == 1:
        other = 1 - tile.rank
        return (by_rank[other][0],) if by_rank[other] else ()
    for low in range(value // 2, 0, -1):
        high = value - low
        for low_rank in ((1, 0) if low == 1 else (low,)):
            for high_rank in ((1, 0) if high == 1 else (high,)):
                if high_rank == low_rank:
                    if len(by_rank[high_rank]) >= 2:
                        return by_rank[high_rank][0], by_rank[high_rank][1]
                elif by_rank[high_rank] and by_rank[low_rank]:
                    return by_rank[high_rank][0], by_rank[low_rank][0]
    return ()


@dataclass(frozen=True)
class State:
    """A Catwalk game in play.

    ``course``: the tiles in flicking order (tile 1 at the start end); ``track``: the catwalk as laid (for the
    map); ``suit``: the flicked coins' suit; ``hand``: ranks not yet flicked (sorted); ``start``: the tile
    number the next coin starts on; ``scoreboard``: pairs in the order made; ``pool``: the draw pool (sorted).
    """

    course: tuple[Tile, ...]
    track: Track
    suit: Suit
    hand: tuple[int, ...]
    start: int = 1
    scoreboard: tuple[ScoreboardPair, ...] = ()
    pool: tuple[Coin, ...] = ()

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(cls, track: Track, suit: Suit | str, from_end: bool = False) -> State:
        """Start flicking: all six coins of ``suit`` in hand, the other 18 in the draw pool. ``from_end`` starts
        at the last tile laid instead of the first."""
        suit = suit if isinstance(suit, Suit) else Suit.parse(suit)
        return cls.from_layout(track, suit, hand=range(COINS_PER_SUIT), from_end=from_end)

    @classmethod
    def from_layout(cls, track: Track | Sequence[Tile | str], suit: Suit | str,
                    hand: Iterable[int | str] = range(COINS_PER_SUIT), start: int = 1,
                    scoreboard: Sequence[ScoreboardPair | Sequence] = (), from_end: bool = False,
                    cells: Sequence[Sequence[int]] | None = None) -> State:
        """Any possible position. ``track`` is a :class:`Track` or the tiles in laying order (with ``cells``,
        their cells, checked against the laying rules); ``hand`` the ranks still to flick; ``scoreboard`` pairs
        as :class:`ScoreboardPair` or ``(coin, tile, marker coins)``; ``from_end`` flicks from the last tile
        laid. The draw pool is every coin not in hand or on the scoreboard."""
        if cells is not None and not isinstance(track, Track):
            track = Track.from_layout(track, [tuple(c) for c in cells])
        if not isinstance(track, Track):
            try:
                tiles = tuple(parse_tile(t) for t in track)
            except (RulesError, ValueError) as err:
                raise LayoutError(f"the catwalk: {err}") from None
            check_distinct(tiles, "the catwalk")
            track = Track(tiles, ())
        if not track.tiles:
            raise LayoutError("the catwalk has no tiles")
        try:
            suit = suit if isinstance(suit, Suit) else Suit.parse(suit)
            ranks = sorted(parse_rank(r) for r in hand)
        except ValueError as err:
            raise LayoutError(str(err)) from None
        if len(set(ranks)) != len(ranks):
            raise LayoutError("a coin appears twice in hand: each coin is flicked once")
        course = track.tiles[::-1] if from_end else track.tiles
        if not 1 <= start <= len(course):
            raise LayoutError(f"the next coin must start on a tile 1..{len(course)}, not {start}")
        pairs = []
        for entry in scoreboard:
            if not isinstance(entry, ScoreboardPair):
                try:
                    coin, tile, marker = entry
                    entry = ScoreboardPair(parse_coin(coin), parse_tile(tile), tuple(parse_coin(c) for c in marker))
                except (RulesError, ValueError, TypeError) as err:
                    raise LayoutError(f"a scoreboard entry must be (coin, tile, marker coins): {err}") from None
            pairs.append(entry)
        for pair in pairs:
            if pair.coin.suit is not suit:
                raise LayoutError(f"the {pair.coin} is on the scoreboard as a fallen coin, but the {suit} were flicked")
            if pair.tile not in course:
                raise LayoutError(f"the {pair.coin} fell off the {pair.tile}, which is not in the catwalk")
            if pair.marker and sum(flick_value(c.rank) for c in pair.marker) != flick_value(pair.tile.rank):
                raise LayoutError(f"the scoreboard pairs the {pair.coin} with {'+'.join(map(str, pair.marker))}, "
                                  f"which does not show the value of the {pair.tile}")
        fallen = {p.coin.rank for p in pairs}
        if fallen & set(ranks):
            raise LayoutError("a coin is both in hand and on the scoreboard: each coin is flicked once")
        used = [Coin(suit, r) for r in ranks] + [c for p in pairs for c in (p.coin, *p.marker)]
        check_distinct(used, "hand and scoreboard")
        if len(pairs) > COINS_PER_SUIT:
            raise LayoutError(f"the scoreboard holds {len(pairs)} pairs, but only {COINS_PER_SUIT} coins are flicked")
        pool = _sorted_coins(c for c in ALL_COINS if c not in set(used))
        return cls(tuple(course), track, suit, tuple(ranks), start, tuple(pairs), pool)

    def to_layout(self) -> dict:
        """Plain JSON-ready data (codes, ranks, lists) with ``State.from_layout(**state.to_layout()) == state``."""
        data = {"track": [tile_code(t) for t in self.track.tiles], "suit": self.suit.value, "hand": list(self.hand),
                "start": self.start, "from_end": len(self.course) > 1 and self.course != self.track.tiles,
                "scoreboard": [[coin_code(p.coin), tile_code(p.tile), [coin_code(c) for c in p.marker]]
                               for p in self.scoreboard]}
        if self.track.cells:
            data["cells"] = [list(c) for c in self.track.cells]
        return data

    # ----------------------------------------------------------------- queries
    def legal_moves(self) -> list[Event]:
        """Every event that can happen next: each coin in hand falls off a tile from the start on, or leaves
        the end."""
        return [Event(c, t) for c in self.hand for t in (*range(self.start, len(self.course) + 1), None)]

    def is_over(self) -> bool:
        """True when every coin has been flicked."""
        return not self.hand

    def all_fell(self) -> bool:
        return len(self.scoreboard) == COINS_PER_SUIT

    def score(self) -> int:
        """Sum of coin value x tile value over the scoreboard, plus 10 when all six coins fell."""
        return sum(p.points for p in self.scoreboard) + (PENALTY_ALL_FELL if self.all_fell() else 0)

    # ----------------------------------------------------------------- play
    def apply(self, event: Event | str) -> State:
        """The position after ``event``; :class:`IllegalMove` with the reason when it cannot happen."""
        if isinstance(event, str):
            event = Event.parse(event)
        if not isinstance(event, Event):
            raise IllegalMove(f"{event!r} is not a Catwalk event", event)
        name = f"the {rank_name(event.coin).lower()} coin"
        if event.coin not in self.hand:
            if not self.hand:
                raise IllegalMove("every coin has been flicked: the Catwalk is over", event)
            raise IllegalMove(f"{name} has already been flicked: each coin goes down the catwalk once", event)
        hand = tuple(r for r in self.hand if r != event.coin)
        coin = Coin(self.suit, event.coin)
        if event.tile is None:
            pool = _sorted_coins(self.pool + (coin,))
            return State(self.course, self.track, self.suit, hand, 1, self.scoreboard, pool)
        if event.tile > len(self.course):
            raise IllegalMove(f"the catwalk has only {len(self.course)} tiles, so {name} cannot fall off tile "
                              f"{event.tile}", event)
        if event.tile < self.start:
            raise IllegalMove(f"{name} starts on tile {self.start} and travels toward the end, so it cannot fall "
                              f"off tile {event.tile}", event)
        tile = self.course[event.tile - 1]
        marker = _marker(self.pool, tile)
        pool = tuple(c for c in self.pool if c not in marker)
        pair = ScoreboardPair(coin, tile, marker)
        return State(self.course, self.track, self.suit, hand, event.tile, self.scoreboard + (pair,), pool)

    def successors(self) -> Iterator[tuple[Event, State]]:
        for event in self.legal_moves():
            yield event, self.apply(event)

    # ----------------------------------------------------------------- display
    def render(self) -> str:
        """The catwalk map, the course numbers, coins in hand, the scoreboard grid, the pool and the score."""
        lines = [self.track.render() if self.track.cells else "(catwalk map not known)"]
        numbered = "  ".join(f"{i}:{tile_code(t)}" for i, t in enumerate(self.course, start=1))
        lines.append(f"course (tile 1 = start): {numbered}")
        hand = " ".join(coin_code(Coin(self.suit, r)) for r in self.hand) or "(none)"
        lines.append(f"{self.suit} in hand: {hand}; next coin starts on tile {self.start}")
        for row in _grid_rows(self.scoreboard):
            lines.append("scoreboard  " + "  ".join(f"{s:<5}" for s in row).rstrip())
        lines.append(f"draw pool ({len(self.pool)}): " + " ".join(coin_code(c) for c in self.pool))
        penalty = f" incl. {PENALTY_ALL_FELL} for letting all fall" if self.all_fell() else ""
        lines.append(f"score {self.score()}{penalty}{' (over)' if self.is_over() else ''}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _grid_rows(pairs: Sequence[ScoreboardPair]) -> list[list[str]]:
    cells = [s for p in pairs for s in (coin_code(p.coin), "+".join(coin_code(c) for c in p.marker) or "?")]
    cells += ["."] * (SCOREBOARD_WIDTH * 3 - len(cells))
    return [cells[i:i + SCOREBOARD_WIDTH] for i in range(0, len(cells), SCOREBOARD_WIDTH)]


@dataclass(frozen=True)
class CatwalkHandover:
    """Catwalk's hand-over to Roll Out the Barrels (see the module notes)."""

    pairs: tuple[ScoreboardPair, ...]
    draw_pool: tuple[Coin, ...]

    def grid(self) -> tuple[tuple[tuple[Coin, ...] | None, ...], ...]:
        """The 4x3 scoreboard, rows north first, each cell the coin(s) lying there (bottom first) or None:
        pairs side by side in reading order, fallen coin then marker."""
        cells: list[tuple[Coin, ...] | None] = [s for p in self.pairs for s in ((p.coin,), p.marker)]
        cells += [None] * (SCOREBOARD_WIDTH * 3 - len(cells))
        return tuple(tuple(cells[i:i + SCOREBOARD_WIDTH]) for i in range(0, len(cells), SCOREBOARD_WIDTH))

    def for_barrels(self) -> tuple[tuple[tuple[Coin, Coin], ...], tuple[Coin, ...]]:
        """``(pairs, pool)``: each pair as (fallen coin, the marker's bottom coin, which stays), and the pool
        with the spare substitute coins added back (sorted)."""
        pairs = tuple((p.coin, p.marker[0]) for p in self.pairs if p.marker)
        spare = [c for p in self.pairs for c in p.marker[1:]]
        return pairs, _sorted_coins(self.draw_pool + tuple(spare))


def transition(state: State) -> CatwalkHandover:
    """The seed's Transition: the tiles are set aside, the scoreboard stays, the draw pool goes face down."""
    return CatwalkHandover(state.scoreboard, state.pool)


def _seen_alike(a: State, b: State) -> bool:
    # The scoreboard coin may be of any suit: a single coin is compared by rank (a null is not an ace: it is
    # wild in the next room), and two substitute coins only by their total, as any two that add up will do.
    def marker(coins: tuple[Coin, ...]) -> tuple:
        if len(coins) == 1:
            return (coins[0].rank,)
        return ("split", len(coins), sum(flick_value(c.rank) for c in coins))

    def key(s: State) -> tuple:
        board = tuple((p.coin, p.tile, marker(p.marker)) for p in s.scoreboard)
        return s.course, s.suit, s.hand, s.start, board
    return key(a) == key(b)


def explain(before: State, after: State, max_moves: int = 2) -> Explanation:
    """The event(s) that turn ``before`` into ``after``, or the reason none does.

    The player may take the scoreboard coin of any suit, and any two substitute coins that add up, so markers
    are compared by rank (single coins) or total (substitutes); ``apply`` records the rules' own choice (see the
    module notes).
    """
    if _seen_alike(before, after):
        return Explanation()
    if (before.course, before.suit) != (after.course, after.suit):
        return Explanation(reason="the catwalk or the flicked suit changed: they stay the same all game")
    came_back = set(after.hand) - set(before.hand)
    if came_back:
        names = ", ".join(rank_name(r).lower() for r in sorted(came_back))
        return Explanation(reason=f"the {names} coin came back into hand: each coin is flicked once")
    flicked = set(before.hand) - set(after.hand)
    if not flicked:
        return Explanation(reason="no coin was flicked, but the scoreboard or the next start changed")
    if len(flicked) > max_moves:
        return Explanation(reason=f"{len(flicked)} coins were flicked at once: too many to tell apart")

    def successors(state: State) -> Iterator[tuple[Event, State]]:
        for event in state.legal_moves():
            if event.coin in flicked:
                yield event, state.apply(event)

    moves = search_moves(before, after, successors, max_moves=len(flicked), same=_seen_alike)
    if moves is not None:
        return Explanation(tuple(moves))
    return Explanation(reason=f"no coin falling or leaving the end explains the change: the next coin started on "
                              f"tile {before.start}, could fall only from there on, and its scoreboard coin must "
                              "show the tile's rank while the pool has one")
