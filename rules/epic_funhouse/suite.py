"""Epic Funhouse, the whole suite: the six rooms in order, each room's end carried into the next room's set-up.

Slide Jam -> Magic Mirror -> Catwalk -> Roll Out the Barrels -> Whack-a-Dummy -> Trampo-Land. The perfect score
of each room, and of the Funhouse (the sum of the rooms), is 0.

Design
------
:class:`Funhouse` (also exported as ``State``, the name every game module uses) is **immutable**, like the room
states it wraps: ``apply``, ``retry`` and ``finish_room`` return a new ``Funhouse``. It holds

* ``state``: the current room's own immutable ``State`` (the six room modules' classes, or
  :class:`CatwalkStart` before the Catwalk's suit is chosen); ``legal_moves()``, ``apply(move)``, ``render()``
  and ``hint()`` delegate to it, and an :class:`~rules.base.IllegalMove` keeps the room's reason;
* ``rooms``: one :class:`RoomLog` per room reached, the current one last: how the room was set up (the
  player's choices and the hand-over, as JSON data), the moves played (text forms) and, once finished, the score;
* ``seed`` and ``rng_state``: ONE ``random.Random(seed)`` draws every random input of the game, in order (the
  Slide Jam deal, die rolls at Catwalk dead ends, the draw of the barrel coins, the Trampo-Land die roll and
  coin cast). Any of them can be given by the player instead. Reproducible: the same seed and the same
  choices and moves give the same game.

Save and resume (:meth:`Funhouse.to_json` / :meth:`Funhouse.from_json`) store the seed, each room's set-up and
moves, and the scores. Resuming *replays* the whole record through the rules from the seed, so the resumed
object equals the saved one (generator state included), and a save file that was edited or damaged is caught
(its set-up, moves or scores do not replay): :class:`~rules.base.RecordError` with one sentence.

Choices, moves and the end of a room
------------------------------------
Choices made *on a room's table* are moves of that room (where Roll Out the Barrels' die starts and how it
lies, where Whack-a-Dummy's die starts, and here: which suit the Catwalk flicks and from which end, the move
``flick suns from first`` of :class:`CatwalkStart`). Choices that *build* the next room's table are passed to
:meth:`Funhouse.finish_room` (and listed, with prompts and readers for a terminal, by
:meth:`Funhouse.questions`):

=====================  ==========================================================================================
finishing              keyword choices (all optional)
=====================  ==========================================================================================
slide-jam              ``top``: which Slide Jam stack (1 or 2) makes the Magic Mirror's top grid (default 1)
magic-mirror           ``order``: the four stacks in laying order (default twins, cousins, distant relatives,
                       strangers); ``rolls``: die faces for the Catwalk's dead ends, in order (``None`` items,
                       or running out, roll the seeded die), or a function ``(tile, open_directions) -> face |
                       None`` asked at each dead end
catwalk                ``drawn``: the coin values drawn into the barrel maze in reading order (default: a seeded
                       random draw of the whole draw pool)
roll-out-the-barrels   (none: the die's start on a central coin is Whack-a-Dummy's first move)
whack-a-dummy          ``die_roll``: the roll for the empty trampoline; ``cast``: the values of the coins that
                       landed face up, or their total (defaults: the seeded die and a seeded cast)
trampo-land            (none: the Funhouse is over)
=====================  ==========================================================================================

A room ends when its rules say so (``room_over()``) or when the player stops: :meth:`Funhouse.finish_room`
scores it as it stands with the room's own ``score()``: Slide Jam the tiles left, Magic Mirror the pairs taken
plus the Strangers left, Roll Out the Barrels the scoring path from where the die stopped (the die not yet
placed: from the start barrel), Whack-a-Dummy 15 + penalties for an unfinished tour, Trampo-Land the pieces
left. The Catwalk alone cannot be left early: the seed has every coin flicked, so it refuses until the hand is
empty. Roll Out the Barrels allows new attempts (``retry``; the seed's "infinite retries"); the attempt the
player finishes on is the one scored.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.base import Explanation, IllegalMove, RecordError, RulesError
from rules.epic_funhouse import catwalk, magic_mirror, slide_jam, trampo_land, whack_a_dummy
from rules.epic_funhouse import roll_out_the_barrels as barrels
from rules.epic_funhouse.common import coin_code, tile_code
from rules.epic_funhouse.die import arrangement_named
from rules.pieces import SUITS, Suit, Tile, parse_rank, rank_name

__all__ = [
    "ROOMS",
    "TITLES",
    "FORMAT",
    "VERSION",
    "FlickChoice",
    "CatwalkStart",
    "RoomLog",
    "Question",
    "Hint",
    "Funhouse",
    "State",
    "explain",
]

#: The rooms in the order they are played.
ROOMS: tuple[str, ...] = ("slide-jam", "magic-mirror", "catwalk", "roll-out-the-barrels", "whack-a-dummy",
                          "trampo-land")
TITLES: dict[str, str] = {
    "slide-jam": "Slide Jam",
    "magic-mirror": "Magic Mirror",
    "catwalk": "Catwalk",
    "roll-out-the-barrels": "Roll Out the Barrels",
    "whack-a-dummy": "Whack-a-Dummy",
    "trampo-land": "Trampo-Land",
}
#: ``format`` and ``version`` of a save file.
FORMAT = "tableside-epic-funhouse"
VERSION = 1

MIRROR_STACKS = ("twins", "cousins", "distant_relatives", "strangers")
DEFAULT_ORDER = MIRROR_STACKS
_STACK_WORDS = {
    "t": "twins", "twin": "twins", "twins": "twins",
    "c": "cousins", "cousin": "cousins", "cousins": "cousins",
    "d": "distant_relatives", "distant": "distant_relatives", "distant_relatives": "distant_relatives",
    "distant-relatives": "distant_relatives", "relatives": "distant_relatives",
    "s": "strangers", "stranger": "strangers", "strangers": "strangers",
    "1": "twins", "2": "cousins", "3": "distant_relatives", "4": "strangers",
}

RANK_NAMES_SHORT = {0: "n", 1: "a", 2: "2", 3: "3", 4: "4", 5: "5"}

# Bounds of the hint searches, so a hint answers in well under a second.
_SLIDE_JAM_HINT_NODES = 3_000
_MIRROR_HINT_NODES = 20_000
_WHACK_HINT_STATES = 20_000
# Trampo-Land's hint is the room's exact numba solver, bounded (benchmarks/bench_funhouse_solvers.py, "hint" rows).
# Measured warm on a loaded 2-core machine: 100,000 positions take a median 0.05-0.14 s, at most 0.9 s, and found
# the best score in 53 of the benchmark's 60 positions (never more than 2 above it); 20,000 positions (at most
# 0.24 s) found it in 36/60, up to 4 above. The old jumps-only search was worse than the bounded solver in 44/60.
# The first hint of a process loads the compiled search from numba's cache (about 1-3 s; compiling it on a new
# machine, about 10 s, happens once).
_TRAMPO_HINT_STATES = 100_000


# ===================================================================================== Catwalk: suit and end

_END_WORDS = {"first": False, "start": False, "beginning": False, "last": True, "end": True}


@dataclass(frozen=True)
class FlickChoice:
    """The Catwalk's first move: the suit of coins to flick, and the end to start from (``from_end``: the last
    tile laid, else the first). Text ``flick suns from first`` / ``flick arms from last``."""

    suit: Suit
    from_end: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.suit, Suit):
            object.__setattr__(self, "suit", Suit.parse(str(self.suit)))

    def __str__(self) -> str:
        return f"flick {self.suit.value} from {'last' if self.from_end else 'first'}"

    @classmethod
    def parse(cls, text: str) -> FlickChoice:
        """Read ``flick suns from first`` (also ``suns``, ``flick red from last``, ``arms end``)."""
        words = [w for w in str(text).strip().lower().replace(",", " ").split() if w not in ("flick", "from", "the")]
        if words and words[-1] in ("tile", "one"):
            words = words[:-1]
        if len(words) in (1, 2):
            try:
                suit = Suit.parse(words[0])
            except ValueError:
                suit = None
            end = _END_WORDS.get(words[1]) if len(words) == 2 else False
            if suit is not None and end is not None:
                return cls(suit, end)
        raise RulesError(f"cannot read {text!r}: choose the coins to flick and the end to start from, like "
                         "'flick suns from first' (tile 1 of the map) or 'flick arms from last'")


@dataclass(frozen=True)
class CatwalkStart:
    """The Catwalk laid, before the player picks the suit of coins to flick and the starting end.

    A thin room state of this suite (the Catwalk module starts at :meth:`rules.epic_funhouse.catwalk.State.new`):
    its moves are the eight :class:`FlickChoice` moves; applying one gives the Catwalk's own ``State``.
    """

    track: catwalk.Track

    def legal_moves(self) -> list[FlickChoice]:
        return [FlickChoice(suit, end) for suit in SUITS for end in (False, True)]

    def apply(self, move: FlickChoice | str) -> catwalk.State:
        choice = FlickChoice.parse(move) if isinstance(move, str) else move
        if not isinstance(choice, FlickChoice):
            raise IllegalMove(f"{move!r} is not a Catwalk choice: say which coins to flick, like 'flick suns from "
                              "first'", move)
        return catwalk.State.new(self.track, choice.suit, choice.from_end)

    def successors(self) -> Iterator[tuple[FlickChoice, catwalk.State]]:
        for move in self.legal_moves():
            yield move, self.apply(move)

    def is_over(self) -> bool:
        return False

    def score(self) -> int:
        return 0

    def render(self) -> str:
        return "\n".join([
            self.track.render(),
            f"the catwalk is laid ({len(self.track.tiles)} tiles, numbered in laying order)",
            "choose the suit of coins to flick and the end to start from: 'flick suns from first' starts at tile 1, "
            f"'... from last' at tile {len(self.track.tiles)}; the other 18 coins make the draw pool",
        ])

    def __str__(self) -> str:
        return self.render()


# ===================================================================================== records, questions, hints

def _canon(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class RoomLog:
    """One room as played: its name, how it was set up (canonical JSON: ``setup_data`` reads it), the moves in
    their text forms (``retry`` for a new attempt at the barrels), and the score once the room is finished."""

    name: str
    setup: str
    moves: tuple[str, ...] = ()
    score: int | None = None

    @property
    def setup_data(self) -> dict:
        return json.loads(self.setup)

    @property
    def finished(self) -> bool:
        return self.score is not None

    @property
    def title(self) -> str:
        return TITLES[self.name]


@dataclass(frozen=True)
class Question:
    """One choice :meth:`Funhouse.finish_room` takes: ``name`` (its keyword), what to ask, what an empty answer
    means, and ``read`` (the player's text -> the choice value; a :class:`RulesError` with a sentence if
    unreadable; ``""`` gives the default)."""

    name: str
    prompt: str
    default: str
    read: Callable[[str], Any] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Hint:
    """A suggested move (its text; None when finishing the room is best or the room is played by hand) and a
    note saying what the suggestion is based on."""

    move: str | None
    note: str


def _read_top(text: str) -> int:
    key = text.strip().lower().removeprefix("stack").strip()
    if key in ("", "1"):
        return 1
    if key == "2":
        return 2
    raise RulesError(f"answer 1 or 2 (which Slide Jam stack makes the top grid), not {text!r}")


def _stack_order(order: Sequence[str] | str) -> tuple[str, ...]:
    if isinstance(order, str):
        text = order.strip().lower().replace("distant relatives", "distant_relatives")
        order = text.replace(",", " ").split()
    keys = []
    for word in order:
        key = _STACK_WORDS.get(str(word).strip().lower().replace(" ", "_"))
        if key is None:
            raise RulesError(f"unknown stack {word!r}: name the four stacks twins, cousins, distant relatives and "
                             "strangers (or t c d s)")
        keys.append(key)
    if sorted(keys) != sorted(MIRROR_STACKS):
        raise RulesError("name each of the four stacks once, in laying order (twins, cousins, distant relatives, "
                         "strangers; or t c d s)")
    return tuple(keys)


def _read_order(text: str) -> tuple[str, ...]:
    return DEFAULT_ORDER if not text.strip() else _stack_order(text)


def _faces(items: Sequence[Any], what: str) -> list[int | None]:
    out: list[int | None] = []
    for item in items:
        if item is None:
            out.append(None)
            continue
        try:
            out.append(parse_rank(item))
        except ValueError:
            raise RulesError(f"{what}: a die shows null, ace, 2, 3, 4 or 5, not {item!r}") from None
    return out


def _read_rolls(text: str) -> list[int | None] | str | None:
    key = text.strip().lower()
    if not key:
        return None
    if key == "ask":
        return "ask"
    return _faces(key.replace(",", " ").split(), "die rolls")


def _read_values(text: str) -> list[int] | None:
    if not text.strip():
        return None
    values = []
    for word in text.replace(",", " ").split():
        try:
            values.append(parse_rank(word))
        except ValueError:
            raise RulesError(f"a coin shows null, ace, 2, 3, 4 or 5, not {word!r}") from None
    return values


def _read_die_roll(text: str) -> int | None:
    if not text.strip():
        return None
    face = _faces([text.strip()], "the die roll")[0]
    return face


def _read_cast(text: str) -> list[int] | int | None:
    words = text.replace(",", " ").split()
    if not words:
        return None
    if words[0].lower() == "total" and len(words) == 2:
        words = words[1:]
        if not words[0].isdigit():
            raise RulesError(f"a cast total is a number 1..15, not {words[0]!r}")
        return int(words[0])
    if len(words) == 1 and words[0].isdigit() and int(words[0]) > 5:
        return int(words[0])  # a total (a single coin shows at most 5)
    return _read_values(text)


# ===================================================================================== the suite

_MOVE_PARSERS: dict[type, Callable[[Any, str], Any]] = {
    slide_jam.State: lambda s, t: slide_jam.Move.parse(t),
    magic_mirror.State: lambda s, t: magic_mirror.Move.parse(t),
    CatwalkStart: lambda s, t: FlickChoice.parse(t),
    catwalk.State: lambda s, t: catwalk.Event.parse(t),
    barrels.State: lambda s, t: barrels.Move.parse(t, s.arrangement),
    whack_a_dummy.State: lambda s, t: whack_a_dummy.Move.parse(t),
    trampo_land.State: lambda s, t: trampo_land.Move.parse(t),
}
_MOVE_CLASSES: dict[type, type] = {
    slide_jam.State: slide_jam.Move,
    magic_mirror.State: magic_mirror.Move,
    CatwalkStart: FlickChoice,
    catwalk.State: catwalk.Event,
    barrels.State: barrels.Move,
    whack_a_dummy.State: whack_a_dummy.Move,
    trampo_land.State: trampo_land.Move,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "slide-jam": ("top",),
    "magic-mirror": ("order", "rolls"),
    "catwalk": ("drawn",),
    "roll-out-the-barrels": (),
    "whack-a-dummy": ("die_roll", "cast"),
    "trampo-land": (),
}


@dataclass(frozen=True)
class Funhouse:
    """A game of Epic Funhouse in progress (see the module notes). Build one with :meth:`new`."""

    seed: int
    rng_state: tuple = field(repr=False)
    die: str
    rooms: tuple[RoomLog, ...]
    state: Any

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(cls, seed: int | None = None, tiles: Sequence[Tile | str] | None = None,
            die: str = "counter") -> Funhouse:
        """A new Funhouse at the start of Slide Jam.

        ``seed`` seeds the one random generator (a fresh random seed when None, kept in ``seed``); ``tiles`` the
        Slide Jam layout in reading order (24 tiles; default: dealt with the generator); ``die`` the piecepack
        die's arrangement used in Roll Out the Barrels (``counter`` or ``opposites_sum_to_5``).
        """
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RulesError(f"the seed must be a whole number, not {seed!r}")
        arrangement = arrangement_named(die).name
        rng = random.Random(seed)
        if tiles is None:
            state = slide_jam.State.deal(rng)
        else:
            state = slide_jam.State.from_tiles(list(tiles))
        setup = {"choices": {"tiles": None if tiles is None else [tile_code(t) for _, t in state.placed()]},
                 "tiles": [tile_code(t) for _, t in state.placed()]}
        return cls(seed, rng.getstate(), arrangement, (RoomLog("slide-jam", _canon(setup)),), state)

    def _rng(self) -> random.Random:
        rng = random.Random()
        rng.setstate(self.rng_state)
        return rng

    # ----------------------------------------------------------------- where we are
    @property
    def room(self) -> str:
        """The current room's name (the last room once the Funhouse is over)."""
        return self.rooms[-1].name

    @property
    def room_number(self) -> int:
        """1..6."""
        return ROOMS.index(self.room) + 1

    @property
    def title(self) -> str:
        return TITLES[self.room]

    def is_over(self) -> bool:
        """True when all six rooms are finished."""
        return self.room == ROOMS[-1] and self.rooms[-1].finished

    def room_over(self) -> bool:
        """True when the current room's rules end it (it still has to be finished with :meth:`finish_room`)."""
        return not self.is_over() and self.state.is_over()

    def can_retry(self) -> bool:
        """True in Roll Out the Barrels once the die is in the maze and not out at the exit."""
        return (not self.is_over() and isinstance(self.state, barrels.State) and self.state.cell is not None
                and not self.state.won())

    def finish_problem(self) -> str | None:
        """Why the current room cannot be finished now, or None."""
        if self.is_over():
            return "the Funhouse is over: every room is finished"
        if isinstance(self.state, CatwalkStart):
            return "choose the coins to flick first (like 'flick suns from first'), then flick every coin"
        if isinstance(self.state, catwalk.State) and not self.state.is_over():
            left = len(self.state.hand)
            return (f"flick every coin before leaving the Catwalk: {left} coin{'s are' if left != 1 else ' is'} still "
                    "in hand (each coin goes down the catwalk once)")
        return None

    # ----------------------------------------------------------------- scores
    def room_score(self) -> int:
        """The current room's score as it stands (its final score once finished)."""
        log = self.rooms[-1]
        return log.score if log.finished else int(self.state.score())

    def scores(self) -> list[tuple[str, int, bool]]:
        """``(room name, score, finished)`` for every room reached; an unfinished room's score is the score it
        would get if finished now."""
        out = [(log.name, log.score, True) for log in self.rooms if log.finished]
        if not self.rooms[-1].finished:
            out.append((self.room, self.room_score(), False))
        return out

    def score(self) -> int:
        """The Funhouse score so far: the rooms' scores added up (0 is perfect)."""
        return sum(s for _, s, _ in self.scores())

    # ----------------------------------------------------------------- play
    def _playing(self, what: Any) -> None:
        if self.is_over():
            raise IllegalMove("the Funhouse is over: every room is finished", what)

    def parse_move(self, text: str) -> Any:
        """The current room's move for ``text`` (RulesError with the room's sentence when unreadable)."""
        return _MOVE_PARSERS[type(self.state)](self.state, text)

    def legal_moves(self) -> list[Any]:
        """The current room's legal moves (an empty list once the Funhouse is over)."""
        return [] if self.is_over() else list(self.state.legal_moves())

    def apply(self, move: Any) -> Funhouse:
        """The Funhouse after ``move`` (a room move or its text; ``retry`` starts a new barrel attempt)."""
        self._playing(move)
        if isinstance(move, str):
            if move.strip().lower() == "retry":
                return self.retry()
            move = self.parse_move(move)
        elif not isinstance(move, _MOVE_CLASSES[type(self.state)]):
            raise IllegalMove(f"{move!r} is not a {self.title} move", move)
        state = self.state.apply(move)
        log = replace(self.rooms[-1], moves=self.rooms[-1].moves + (str(move),))
        return replace(self, rooms=self.rooms[:-1] + (log,), state=state)

    def retry(self) -> Funhouse:
        """A new attempt at Roll Out the Barrels: the die comes off the maze, to be placed on the start again."""
        self._playing("retry")
        if not isinstance(self.state, barrels.State):
            raise IllegalMove(f"only Roll Out the Barrels allows a new attempt, not {self.title}", "retry")
        if self.state.cell is None:
            raise IllegalMove("the die is not in the maze yet: place it on the start barrel", "retry")
        log = replace(self.rooms[-1], moves=self.rooms[-1].moves + ("retry",))
        return replace(self, rooms=self.rooms[:-1] + (log,), state=self.state.retry())

    def successors(self) -> Iterator[tuple[Any, Funhouse]]:
        for move in self.legal_moves():
            yield move, self.apply(move)

    # ----------------------------------------------------------------- transitions
    def questions(self) -> tuple[Question, ...]:
        """The choices :meth:`finish_room` takes for the current room, with prompts for a terminal."""
        if self.is_over():
            return ()
        if self.room == "slide-jam":
            return (Question("top", "Which Slide Jam stack makes the top grid of the Magic Mirror, 1 or 2?", "1",
                             _read_top),)
        if self.room == "magic-mirror":
            return (
                Question("order", "Lay the four stacks into the catwalk in which order? (twins, cousins, distant, "
                         "strangers; or t c d s)", "twins cousins distant strangers", _read_order),
                Question("rolls", "Die rolls at the catwalk's dead ends: the faces you roll, in order, or 'ask' to "
                         "be asked at each dead end", "the seeded die", _read_rolls),
            )
        if self.room == "catwalk":
            return (Question("drawn", "Coins for the barrel maze: the values you draw from the pool, in reading "
                             "order", "a seeded random draw", _read_values),)
        if self.room == "whack-a-dummy":
            return (
                Question("die_roll", "Roll the die for the empty trampoline (null, ace, 2..5)", "the seeded die",
                         _read_die_roll),
                Question("cast", "Cast the six set-aside coins: the values that land face up (like 'ace 3 5'), or "
                         "their total", "a seeded cast", _read_cast),
            )
        return ()

    def finish_room(self, **choices: Any) -> Funhouse:
        """Finish the current room (over by its rules, or the player stops): score it, hand its end over and set
        up the next room with ``choices`` (see the module notes) and the generator for what is left random."""
        self._playing("finish")
        problem = self.finish_problem()
        if problem is not None:
            raise IllegalMove(problem, "finish")
        allowed = _CHOICES[self.room]
        unknown = sorted(set(choices) - set(allowed))
        if unknown:
            known = ", ".join(allowed) or "no choices"
            raise RulesError(f"finishing {self.title} takes {known}, not {', '.join(unknown)}")
        finished = replace(self.rooms[-1], score=int(self.state.score()))
        if self.room == ROOMS[-1]:
            return replace(self, rooms=self.rooms[:-1] + (finished,))
        rng = self._rng()
        state, setup = _SETUPS[self.room](self, rng, **choices)
        nxt = RoomLog(ROOMS[ROOMS.index(self.room) + 1], _canon(setup))
        return Funhouse(self.seed, rng.getstate(), self.die, self.rooms[:-1] + (finished, nxt), state)

    def handover(self) -> Any:
        """The current room's hand-over as its module's ``transition`` gives it (Whack-a-Dummy: the column sums;
        Roll Out the Barrels: the grid of coin values; Trampo-Land: None)."""
        s = self.state
        if isinstance(s, slide_jam.State):
            return slide_jam.transition(s)
        if isinstance(s, magic_mirror.State):
            return magic_mirror.transition(s)
        if isinstance(s, catwalk.State):
            return catwalk.transition(s)
        if isinstance(s, barrels.State):
            return s.grid
        if isinstance(s, whack_a_dummy.State):
            return whack_a_dummy.column_sums(s)
        return None

    # ----------------------------------------------------------------- display
    def render(self) -> str:
        """The room's title line and its text board."""
        head = f"Room {self.room_number} of {len(ROOMS)}: {self.title}"
        if self.is_over():
            head += " (the Funhouse is over)"
        return f"{head}\n{self.state.render()}"

    def __str__(self) -> str:
        return self.render()

    def setup_text(self, index: int | None = None) -> str:
        """How room ``index`` (0..5; default the current room) was set up from the room before: the hand-over
        in words (Slide Jam's stacks, the catwalk map, the barrel draw, the trampoline set-up)."""
        log = self.rooms[-1 if index is None else index]
        return _setup_text(log.name, log.setup_data)

    def summary(self) -> dict:
        """The progress summary: ``{"room", "rooms": [{"name", "score", "moves", "finished"}], "total", "over",
        "seed"}``; ``room`` is the current room (None once over), ``moves`` the number of moves played there."""
        rows = []
        for log in self.rooms:
            score = log.score if log.finished else self.room_score()
            rows.append({"name": log.name, "score": score, "moves": len(log.moves), "finished": log.finished})
        return {"room": None if self.is_over() else self.room, "rooms": rows, "total": self.score(),
                "over": self.is_over(), "seed": self.seed}

    # ----------------------------------------------------------------- hints
    def hint(self) -> Hint:
        """A suggested move from a bounded search of the current room (see :class:`Hint`)."""
        if self.is_over():
            return Hint(None, "the Funhouse is over")
        return _hint(self.state)

    # ----------------------------------------------------------------- save and resume
    def to_json(self) -> dict:
        """JSON-ready data: the seed, the die, each room's set-up, moves and score (see :meth:`from_json`)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": "epic-funhouse",
            "seed": self.seed,
            "die": self.die,
            "rooms": [{"name": log.name, "setup": log.setup_data, "moves": list(log.moves), "score": log.score}
                      for log in self.rooms],
            "room": None if self.is_over() else self.room,
            "total": self.score(),
            "over": self.is_over(),
        }

    @classmethod
    def from_json(cls, data: Mapping | str) -> Funhouse:
        """The Funhouse saved by :meth:`to_json` (the data or its JSON text), replayed through the rules from its
        seed; :class:`RecordError` with one sentence when it is not a save or does not replay."""
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError as err:
                raise RecordError(f"not a saved Epic Funhouse: the file is not JSON ({err})") from None
        try:
            return _replay(data)
        except RecordError:
            raise
        except KeyError as err:
            raise RecordError(f"the saved Epic Funhouse lacks its {err.args[0]!r} entry") from None
        except (RulesError, ValueError, TypeError, AttributeError, IndexError) as err:
            raise RecordError(f"the saved Epic Funhouse does not replay: {_one_line(err)}") from None


#: Every game module names its position class ``State``.
State = Funhouse


def _one_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


# ===================================================================================== set-ups (transitions)

def _codes(tiles: Sequence[Tile]) -> list[str]:
    return [tile_code(t) for t in tiles]


def _setup_mirror(fh: Funhouse, rng: random.Random, top: int | str = 1) -> tuple[Any, dict]:
    top = _read_top(str(top))
    stacks = slide_jam.transition(fh.state)
    first, second = (stacks.first, stacks.second) if top == 1 else (stacks.second, stacks.first)
    state = magic_mirror.State.from_stacks(first, second)
    return state, {"choices": {"top": top}, "stacks": [_codes(stacks.first), _codes(stacks.second)], "top": top}


Roller = Sequence[Any] | Callable[[Tile, tuple[catwalk.Compass, ...]], Any] | None


def _setup_catwalk(fh: Funhouse, rng: random.Random, order: Sequence[str] | str = DEFAULT_ORDER,
                   rolls: Roller = None) -> tuple[Any, dict]:
    keys = _stack_order(order)
    if rolls is None or callable(rolls):
        given: Iterator[Any] = iter(())
    elif isinstance(rolls, str):
        raise RulesError("give the die rolls as a list of faces (or a function asked at each dead end)")
    else:
        given = iter(_faces(list(rolls), "die rolls"))
    asked: list[int | None] = []

    def roll(tile: Tile, options: tuple[catwalk.Compass, ...]) -> int:
        # the player's face (given or asked), else the seeded die; what was given is kept for the save
        answer = rolls(tile, options) if callable(rolls) else next(given, None)
        asked.append(_faces([answer], "die roll")[0])
        return rng.randrange(6) if asked[-1] is None else asked[-1]

    handover = magic_mirror.transition(fh.state)
    track = catwalk.lay_catwalk(catwalk.stacks_in_order(handover, keys), roll)
    by_name = dict(zip(MIRROR_STACKS, handover, strict=True))
    setup = {"choices": {"order": list(keys), "rolls": asked},
             "stacks": {name: _codes(pile) for name, pile in by_name.items()},
             "order": list(keys), "rolls": list(track.rolls), "tiles": _codes(track.tiles),
             "cells": [list(c) for c in track.cells], "bridges": list(track.bridges)}
    return CatwalkStart(track), setup


def _setup_barrels(fh: Funhouse, rng: random.Random, drawn: Sequence[Any] | None = None) -> tuple[Any, dict]:
    handover = catwalk.transition(fh.state)
    pairs, pool = handover.for_barrels()
    placed = [c.rank for pair in pairs for c in pair]
    if drawn is None:
        built = barrels.build_maze(pairs, pool, seed=rng)
        values = list(built.drawn)
    else:
        values = [v for v in _faces(list(drawn), "the coins drawn") if v is not None]
        if sorted(values) != sorted(c.rank for c in pool) or len(values) != len(drawn):
            listed = " ".join(rank_name(c.rank).lower() for c in pool)
            raise RulesError(f"the maze is filled with every coin of the draw pool, once each: {listed}")
        built = barrels.settle_maze(placed + values)
    state = barrels.State.new(built.grid, arrangement=fh.die)
    setup = {"choices": {"drawn": None if drawn is None else values},
             "scoreboard": [[coin_code(p.coin), [coin_code(c) for c in p.marker], tile_code(p.tile)]
                            for p in handover.pairs],
             "pool": [coin_code(c) for c in pool], "drawn": values,
             "swaps": [list(s) for s in built.swaps], "problem": built.problem, "grid": list(built.grid)}
    return state, setup


def _setup_whack(fh: Funhouse, rng: random.Random) -> tuple[Any, dict]:
    state = whack_a_dummy.setup(fh.state.grid)
    return state, {"choices": {}, "grid": list(state.grid)}


def _setup_trampo(fh: Funhouse, rng: random.Random, die_roll: Any = None, cast: Any = None) -> tuple[Any, dict]:
    sums = whack_a_dummy.column_sums(fh.state)
    given_roll = None if die_roll is None else _faces([die_roll], "the die roll")[0]
    roll = rng.randrange(6) if given_roll is None else given_roll
    empty = trampo_land.empty_trampoline(roll)
    if cast is None:
        values: list[int] | None = list(trampo_land.cast_coins(rng))
        total = trampo_land.cast_total(values)
    elif isinstance(cast, int) and not isinstance(cast, bool):
        values, total = None, cast
    else:
        values = [v for v in _faces(list(cast), "the coin cast") if v is not None]
        total = trampo_land.cast_total(values)
    you = trampo_land.you_trampoline(total, empty)
    adults = trampo_land.place_adults(list(sums), (empty, you))
    state = trampo_land.setup(roll, total, sums)
    given_cast = None if cast is None else (total if values is None else values)
    setup = {"choices": {"die_roll": given_roll, "cast": given_cast}, "column_sums": list(sums), "die_roll": roll,
             "empty": empty, "cast": values, "total": total, "you": you, "adults": list(adults),
             "board": state.board}
    return state, setup


_SETUPS: dict[str, Callable[..., tuple[Any, dict]]] = {
    "slide-jam": _setup_mirror,
    "magic-mirror": _setup_catwalk,
    "catwalk": _setup_barrels,
    "roll-out-the-barrels": _setup_whack,
    "whack-a-dummy": _setup_trampo,
}


def _setup_text(name: str, data: dict) -> str:
    if name == "slide-jam":
        how = "given" if data["choices"]["tiles"] else "dealt with the seeded shuffle"
        return f"the 24 tiles are laid face up, 4 wide and 6 high ({how})"
    if name == "magic-mirror":
        lines = ["Slide Jam's two stacks of 12 (top first):"]
        lines += [f"  stack {i}: {' '.join(pile)}" for i, pile in enumerate(data["stacks"], start=1)]
        lines.append(f"stack {data['top']} makes the top grid (above the mirror), the other the bottom grid, "
                     "each laid from its top in reading order")
        return "\n".join(lines)
    if name == "catwalk":
        lines = ["Magic Mirror's four stacks (top first):"]
        lines += [f"  {k.replace('_', ' ')} ({len(data['stacks'][k])}): {' '.join(data['stacks'][k]) or '(empty)'}"
                  for k in MIRROR_STACKS]
        lines.append("laid in the order " + ", ".join(k.replace("_", " ") for k in data["order"]))
        rolls = data["rolls"]
        given = data["choices"]["rolls"]
        if rolls:
            words = [f"{rank_name(f).lower()}{'' if g is not None else ' (seeded)'}"
                     for f, g in zip(rolls, given, strict=True)]
            lines.append("die rolls at dead ends: " + ", ".join(words))
        else:
            lines.append("no dead end needed a die roll")
        if data["bridges"]:
            lines.append("boxed in: tiles " + ", ".join(map(str, data["bridges"])) + " bridge over the track")
        lines.append("the catwalk map below is north up; each cell shows the laying number and the tile")
        return "\n".join(lines)
    if name == "roll-out-the-barrels":
        board = "  ".join(f"{c}/{'+'.join(m) or '?'}" for c, m, _ in data["scoreboard"]) or "(empty)"
        lines = [f"Catwalk's scoreboard (fallen coin / coin for the tile's value): {board}",
                 f"draw pool ({len(data['pool'])} coins): {' '.join(data['pool'])}",
                 "drawn into the maze in reading order"
                 + (" (seeded draw)" if data["choices"]["drawn"] is None else " (given)") + ": "
                 + " ".join(RANK_NAMES_SHORT[v] for v in data["drawn"])]
        if data["swaps"]:
            lines.append("swaps to part equal neighbours: " + ", ".join(
                f"{barrels.cell_name(a)}<->{barrels.cell_name(b)}" for a, b in data["swaps"]))
        if data["problem"]:
            lines.append(f"the swap procedure stopped: {data['problem']}")
        lines.append("tumble the die from a6 (northwest) to the exit barrel d1 (southeast); first place it: "
                     "'start top=... north=...'")
        return "\n".join(lines)
    if name == "whack-a-dummy":
        return ("the barrels are flipped face down where they lie; first place the die on a central coin "
                "(b4, c4, b3 or c3), like 'start c3'")
    if name == "trampo-land":
        cast = data["cast"]
        cast_words = (" ".join(rank_name(v).lower() for v in cast) + f" face up, total {data['total']}"
                      if cast is not None else f"total {data['total']}")
        seeded = " (seeded)" if data["choices"]["cast"] is None else ""
        roll_seeded = " (seeded)" if data["choices"]["die_roll"] is None else ""
        return "\n".join([
            "Whack-a-Dummy's column sums (west to east): " + " ".join(map(str, data["column_sums"])),
            f"die roll {rank_name(data['die_roll']).lower()}{roll_seeded}: trampoline {data['empty']} is empty",
            f"coin cast{seeded}: {cast_words}: you (the die) on trampoline {data['you']}",
            "adults (pawns) on trampolines " + ", ".join(map(str, data["adults"])) + "; kids (coins) on the rest",
        ])
    return ""


# ===================================================================================== resume

def _replay(data: Mapping) -> Funhouse:
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise RecordError("not a saved Epic Funhouse (its \"format\" is not " + FORMAT + ")")
    if data.get("version") != VERSION:
        raise RecordError(f"a saved Epic Funhouse of version {data.get('version')!r}: this tableside reads version "
                          f"{VERSION}")
    rooms = data["rooms"]
    if not isinstance(rooms, list) or not 1 <= len(rooms) <= len(ROOMS):
        raise RecordError("the saved Epic Funhouse lists no rooms (or more than six)")
    names = [r["name"] for r in rooms]
    if names != list(ROOMS[:len(names)]):
        raise RecordError(f"the saved rooms {', '.join(map(str, names))} are not the Funhouse's rooms in order")
    first = rooms[0]["setup"]
    fh = Funhouse.new(data["seed"], tiles=first["choices"]["tiles"], die=data["die"])
    for i, saved in enumerate(rooms):
        title = TITLES[saved["name"]]
        if fh.rooms[-1].setup_data != saved["setup"]:
            raise RecordError(f"the saved set-up of {title} is not what the rules and the seed give")
        for number, move in enumerate(saved["moves"], start=1):
            if not isinstance(move, str):
                raise RecordError(f"{title}, move {number}: {move!r} is not a move's text")
            try:
                fh = fh.apply(move)
            except RulesError as err:
                raise RecordError(f"{title}, move {number} ({move}): {_one_line(err)}") from None
        if saved["score"] is None:
            if i != len(rooms) - 1:
                raise RecordError(f"{title} is not finished, but a later room is saved")
            continue
        if i + 1 == len(rooms) and saved["name"] != ROOMS[-1]:
            raise RecordError(f"{title} is finished, but the room after it is missing")
        choices = rooms[i + 1]["setup"]["choices"] if i + 1 < len(rooms) else {}
        fh = fh.finish_room(**choices)
        if fh.rooms[i].score != saved["score"]:
            raise RecordError(f"{title} scores {fh.rooms[i].score} when replayed, not the saved {saved['score']}")
    if "total" in data and data["total"] != fh.score():
        raise RecordError(f"the saved total {data['total']} is not the rooms' scores added up ({fh.score()})")
    return fh


# ===================================================================================== hints

def _hint(state: Any) -> Hint:
    if isinstance(state, slide_jam.State):
        if state.is_over():
            return Hint(None, f"no family can be removed: finish the room (score {state.score()})")
        score, line = slide_jam.best_line(state, max_nodes=_SLIDE_JAM_HINT_NODES)
        if not line:
            return Hint(str(state.legal_moves()[0]), "no line found within the search bound; this is a legal move")
        return Hint(str(line[0]), f"a line of {len(line)} families found that ends with score {score} "
                                  "(a bounded search, not a proof)")
    if isinstance(state, magic_mirror.State):
        score, move = _mirror_best(state)
        if move is None:
            return Hint(None, f"no pair is worth taking: finish the room (score {state.score()})")
        return Hint(str(move), f"the best line found scores {score} (a bounded search)")
    if isinstance(state, CatwalkStart):
        return Hint(None, "any suit scores alike; start from the end whose first tiles are low (a coin falling off "
                          "a low tile costs little)")
    if isinstance(state, catwalk.State):
        return Hint(None, "the Catwalk is played by hand: flick a coin and enter what happened ('5 off 12' or "
                          "'5 off end'); flick the high coins the shortest distance")
    if isinstance(state, barrels.State):
        if state.cell is not None and state.is_over():
            return Hint(None, "the die is out" if state.won() else
                        f"the die is stuck: 'retry' or finish the room (score {state.score()})")
        solution = barrels.solve(state)
        if not solution.moves:
            return Hint(None, f"no tip improves on stopping here: finish the room (score {state.score()})")
        what = (f"reaches the exit in {len(solution.moves)} moves" if solution.reachable else
                f"the exit is out of reach; the best place to stop scores {solution.score}")
        return Hint(str(solution.moves[0]), what)
    if isinstance(state, whack_a_dummy.State):
        if state.is_over():
            return Hint(None, "the tour is complete: finish the room")
        solution = whack_a_dummy.solve(state, max_states=_WHACK_HINT_STATES, max_extra_penalties=10)
        if solution.completable and solution.moves:
            return Hint(str(solution.moves[0]), f"completes the tour in {len(solution.moves)} moves, scoring "
                                                f"{solution.score}")
        return Hint(str(state.legal_moves()[0]), "no short way to complete the tour found; this is a legal move "
                                                 f"(stopping now scores {state.score()})")
    if isinstance(state, trampo_land.State):
        solution = trampo_land.solve(state, max_states=_TRAMPO_HINT_STATES)
        proof = "the best reachable" if solution.exact else "the best found by a bounded search"
        if not solution.moves:
            return Hint(None, f"no move lowers the score ({proof}): finish the room (score {state.score()})")
        return Hint(str(solution.moves[0]), f"a line of {len(solution.moves)} moves ends with score "
                                            f"{solution.score} ({proof})")
    return Hint(None, "no hint for this room")


def _mirror_best(state: magic_mirror.State) -> tuple[int, magic_mirror.Move | None]:
    # The score is additive (points of each pair taken + 3 per Stranger pair left), and what is left to play
    # depends only on the board, so a memo on boards finds the best line; bounded to stay quick.
    memo: dict[Any, tuple[int, magic_mirror.Move | None]] = {}
    budget = [_MIRROR_HINT_NODES]

    def best(s: magic_mirror.State) -> tuple[int, magic_mirror.Move | None]:
        known = memo.get(s.board)
        if known is not None:
            return known
        result: tuple[int, magic_mirror.Move | None] = (3 * s.tiles_per_side(), None)
        budget[0] -= 1
        if budget[0] > 0:
            for a, b in s.pairs():
                move = magic_mirror.Move(a, b)
                points = magic_mirror.relation(s.tile_at(a), s.tile_at(b)).points_per_pair
                nxt = s.apply(move)
                rest, _ = best(magic_mirror.State(nxt.board))
                if points + rest < result[0]:
                    result = (points + rest, move)
        memo[s.board] = result
        return result

    rest, move = best(magic_mirror.State(state.board))
    return state.score() - 3 * state.tiles_per_side() + rest, move


# ===================================================================================== explain

_EXPLAINERS: dict[type, Callable[[Any, Any], Explanation]] = {
    slide_jam.State: slide_jam.explain,
    magic_mirror.State: magic_mirror.explain,
    catwalk.State: catwalk.explain,
    barrels.State: barrels.explain,
    whack_a_dummy.State: whack_a_dummy.explain,
    trampo_land.State: trampo_land.explain,
}


def _explain_catwalk_start(before: CatwalkStart, after: Any) -> Explanation:
    if isinstance(after, CatwalkStart):
        return Explanation() if after == before else Explanation(reason="the catwalk changed after it was laid")
    if not isinstance(after, catwalk.State):
        return Explanation(reason="the two positions are not of the same Epic Funhouse room")
    for choice in before.legal_moves():
        start = before.apply(choice)
        if (start.course, start.suit) == (after.course, after.suit):
            rest = catwalk.explain(start, after)
            if rest.legal:
                return Explanation((choice,) + tuple(rest.moves))
            return rest
    return Explanation(reason="the catwalk is not the one laid, or no suit of coins is being flicked along it")


def explain(before: Funhouse | Any, after: Funhouse | Any) -> Explanation:
    """The move(s) that turn ``before`` into ``after``, or the reason none does, from the room's own ``explain``.

    Takes two :class:`Funhouse` objects in the same room, or two room states (what the camera loop sees).
    """
    if isinstance(before, Funhouse) and isinstance(after, Funhouse):
        if before.room != after.room:
            return Explanation(reason=f"the positions are in different rooms ({before.title}, {after.title}): a "
                                      "room ends by finishing it, not by a move")
        before, after = before.state, after.state
    if isinstance(before, CatwalkStart):
        return _explain_catwalk_start(before, after)
    explainer = _EXPLAINERS.get(type(before))
    if explainer is None or type(after) is not type(before):
        return Explanation(reason="the two positions are not of the same Epic Funhouse room")
    return explainer(before, after)

