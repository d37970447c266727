"""Game state tracking: what the camera reads, turned into moves the rules accept, or into the reason they don't.

The live loop (:mod:`tableside.session`) hands every *settled* reading of the table to a :class:`GameTracker`.
The tracker keeps the last **legal** position and judges each new reading against it with the game's
``explain(before, after)``:

* the same position -> ``unchanged`` (a nudged piece, a light change, a hand that came and went);
* a legal move, or a short legal sequence the camera saw as one change -> ``moves``: the moves are applied to
  the tracked position one by one (so the rules' bookkeeping - whose turn, the previous slide, the move count -
  comes from the rules, never from the picture);
* no legal move explains it -> ``illegal`` with the rules' reason. The tracked position stays the last legal
  one: the player puts the piece back (``restored``) or the next reading is judged against it again. The same
  illegal position seen twice is flagged ``repeated`` so it is not announced again and again;
* the reading has no position (a hand over the board, a piece half-way through a slide, the board not found)
  -> ``unreadable`` with the reading's reason (ask the player to move their hand or fix the piece).

Uncertain readings (:attr:`Reading.uncertain`: cells the vision could not read surely) are resolved with the
rules and the previous position: the candidates are the previous position and every position reachable from
it by at most ``max_moves`` legal moves; those that agree with every *surely read* cell are kept. One distinct
candidate -> it is the position (a piece whose rank is unclear but did not move is what it was; an unclear
tile that just slid into the hole is the one that was next to it), unless its moves change two or more unsure
cells (they could as well have been picked up and swapped: ``unreadable``). Several -> ``ambiguous``
(tableside asks instead of guessing). None -> ``unreadable``: with unsure cells in the reading tableside never
calls a move illegal, it asks the player to check the board. Before that, a game may *complete* the reading
when the sure cells force the unsure ones whatever happened (Easy Slider: pawns and coins never move; one
unsure cell holds the one tile, or the hole, that the 24 sure cells lack): it is then judged like a sure
reading, illegal moves included. Whack-a-Dummy's die always hides its coin: the side of that coin is the one a
legal sequence from the tracked position explains (the move that lands on a coin flips it; the shorter
sequence when both sides have one, the same length: ``ambiguous``), or, when none
does, the change is illegal whatever it shows; at the start it is ``--die-coin`` (joining a game under way)
or the rules' set-up (every coin face down, the die not yet placed).

The games (:func:`game_rules`): a :class:`GameRules` per game gives the tracker the rules module's
``explain``, how to apply and parse moves, how to write a position as JSON for the journal (``encode`` /
``decode``, used to resume a game) and the per-cell view used to resolve uncertain readings (``cells``).
"""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import GAMES, ROOMS
from rules.base import Explanation, LayoutError, RulesError

__all__ = [
    "Reading",
    "Verdict",
    "GameRules",
    "game_rules",
    "GameTracker",
    "ABSTAIN_MARKERS",
]

#: Phrases in an ``explain`` reason that mean "the rules cannot tell what happened", not "this was illegal"
#: (Martian Shuffleboard: a flicked piece left the table and the mover had several to choose from).
ABSTAIN_MARKERS = ("cannot be told apart",)


@dataclass(frozen=True)
class Reading:
    """What the vision made of one still frame, for one game (the contract with :mod:`tableside.reading`).

    ``state``: the rules position seen (its bookkeeping - turn, move count - is ignored), or None when no
    position could be read; ``reason`` then says why, in a player's words ("a hand is over the board",
    "the tile on c3 is half-way between two cells"). ``uncertain``: cell keys (in the game's :attr:`GameRules.cells`
    vocabulary) that were seen but not read surely; ``state`` may still hold a best guess for them.
    ``cells``: the surely read cells, when the vision could not build a whole position (optional; by default
    they are ``state``'s cells minus the uncertain ones). ``overlay``: what to draw on the annotated frame
    (``(points_px, label, ok)`` items). ``detection``: the raw detection, kept for the record.
    """

    state: Any | None = None
    uncertain: frozenset = frozenset()
    reason: str | None = None
    cells: Mapping[Any, Any] | None = None
    overlay: tuple = ()
    detection: Any = field(default=None, compare=False, repr=False)

    @property
    def readable(self) -> bool:
        return self.state is not None or self.cells is not None


@dataclass(frozen=True)
class Verdict:
    """The tracker's judgement of one reading.

    ``kind``: ``start`` (the first position was read), ``unchanged``, ``moves`` (legal; ``moves`` and the
    position after each in ``states``), ``illegal`` (``reason``; ``repeated`` when this same illegal position
    was already reported), ``restored`` (the board is back to the last legal position after an illegal move),
    ``ambiguous`` (several legal positions fit an uncertain reading), ``unreadable`` (``reason``).
    ``resolved``: the uncertain cells the rules filled in. ``state``: the tracked (legal) position afterwards.
    """

    kind: str
    state: Any = None
    moves: tuple = ()
    states: tuple = ()
    reason: str | None = None
    resolved: frozenset = frozenset()
    repeated: bool = False

    @property
    def judged(self) -> bool:
        """True when the rules judged the change (moves, illegal, restored); False when tableside abstained."""
        return self.kind in ("moves", "illegal", "restored")


# ----------------------------------------------------------------------------------------------- the games


@dataclass(frozen=True)
class GameRules:
    """How the tracker uses one game's rules module.

    ``explain(before, after) -> Explanation``; ``encode(state) -> JSON`` and ``decode(JSON) -> state`` (the
    journal's set-up, for resuming); ``parse_move(text)``; ``cells(state) -> {key: value}`` (None when the game
    has no cell grid: uncertain readings of it are not resolved, tableside abstains); ``max_moves``: how many
    moves the resolution of an uncertain reading looks ahead. ``complete(previous, known, uncertain)``: the
    position seen when what is sure forces the unsure cells whatever the moves were (None when it does not);
    ``previous`` is None for the first reading (a game that can start from an unsure reading says how).
    """

    name: str
    module: Any
    explain: Callable[[Any, Any], Explanation]
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    parse_move: Callable[[str], Any]
    cells: Callable[[Any], Mapping[Any, Any]] | None = None
    max_moves: int = 2
    complete: Callable[[Any, Mapping[Any, Any], frozenset], Any] | None = None

    def apply(self, state: Any, move: Any) -> Any:
        return state.apply(move)

    def successors(self, state: Any) -> Iterable[tuple[Any, Any]]:
        if hasattr(state, "successors"):
            return state.successors()
        return ((m, state.apply(m)) for m in state.legal_moves())

    def replay(self, start: Any, moves: Iterable[str]) -> Any:
        """The position after playing ``moves`` (text forms, as in a journal) from ``start``."""
        state = start
        for i, text in enumerate(moves, start=1):
            try:
                state = state.apply(self.parse_move(text))
            except RulesError as err:
                raise RulesError(f"move {i} ({text}) does not replay: {err}") from None
        return state


def _easy_slider() -> GameRules:
    import rules.easy_slider as es

    def cells(state: es.State) -> dict:
        out: dict[Any, Any] = {cell: state.board[cell.index] for cell in es.CELLS}
        out.update({("pawn", i + 1): suit for i, suit in enumerate(state.pawns)})
        out.update({("coin", j + 1): rank for j, rank in enumerate(state.coins)})
        return out

    def complete(previous: es.State, known: Mapping[Any, Any], uncertain: frozenset) -> es.State | None:
        # No move changes the pawns and coins: unsure ones are what they were. Every tile is unique and there
        # is one hole: one unsure cell holds whatever the 24 sure cells do not (a tile, or the hole).
        if previous is None:
            return None
        pawns = [known.get(("pawn", i + 1), suit) for i, suit in enumerate(previous.pawns)]
        coins = [known.get(("coin", j + 1), rank) for j, rank in enumerate(previous.coins)]
        unsure = [cell for cell in es.CELLS if cell not in known]
        if len(unsure) > 1:
            return None
        board = [known.get(cell) for cell in es.CELLS]
        if unsure:
            tiles = [t for t in board if t is not None]
            left = [t for t in previous.board if t is not None and t not in tiles]
            holes = sum(1 for cell in es.CELLS if cell in known and known[cell] is None)
            if len(set(tiles)) != len(tiles) or (len(left), holes) not in ((1, 1), (0, 0)):
                return None
            board[unsure[0].index] = left[0] if left else None
        try:
            return es.State.from_layout(board, pawns, coins)
        except (LayoutError, RulesError):
            return None

    return GameRules("easy-slider", es, es.explain, lambda s: s.to_dict(), es.State.from_dict, es.Move.parse,
                     cells, max_moves=2, complete=complete)


def _slides_of_action() -> GameRules:
    import rules.slides_of_action as soa

    def encode(s: soa.State) -> dict:
        return {"diagram": s.diagram(), "players": [p.value for p in s.players], "turn": s.turn.value,
                "last_move": None if s.last_move is None else str(s.last_move), "one_diagonal": s.one_diagonal}

    def decode(d: Mapping) -> soa.State:
        return soa.State.from_text(d["diagram"], players=d["players"], turn=d["turn"], last_move=d.get("last_move"),
                                   one_diagonal=bool(d.get("one_diagonal", False)))

    def cells(s: soa.State) -> dict:
        return {(x, y): s.coin_at((x, y)) for x in range(1, soa.SIZE + 1) for y in range(1, soa.SIZE + 1)}

    return GameRules("slides-of-action", soa, soa.explain, encode, decode, soa.Move.parse, cells, max_moves=1)


def _plans_of_action() -> GameRules:
    import rules.plans_of_action as poa

    def encode(s: poa.State) -> dict:
        # tiles and the pending tile by their centres (what from_layout reads), not the stored corner cells
        return {"coins": [[list(c), suit.value] for c, suit in s.coins],
                "tiles": [[x + 0.5, y + 0.5] for x, y in sorted(s.tiles)],
                "pending": None if s.pending is None else [s.pending[0] + 0.5, s.pending[1] + 0.5],
                "moves": s.moves, "goal": s.goal}

    def decode(d: Mapping) -> poa.State:
        return poa.State.from_layout([(tuple(c), suit) for c, suit in d["coins"]], [tuple(t) for t in d["tiles"]],
                                     None if d.get("pending") is None else tuple(d["pending"]), int(d["moves"]),
                                     d.get("goal", "one"))

    def cells(s: poa.State) -> dict:
        out: dict[Any, Any] = {("tile", t): True for t in s.tiles}
        out.update({c: suit for c, suit in s.coins})
        return out

    return GameRules("plans-of-action", poa, poa.explain, encode, decode, poa.Move.parse, cells, max_moves=1)


def _martian_shuffleboard() -> GameRules:
    import rules.martian_shuffleboard as ms

    def decode(d: Mapping) -> ms.State:
        to_move = d.get("to_move")
        return ms.State.from_layout(d["players"], d.get("table", ()), to_move=to_move, out=d.get("out", ()),
                                    opened=d.get("opened"), variant=d.get("variant"),
                                    small_height_mm=float(d.get("small_height_mm", ms.SMALL_HEIGHT_MM)))

    # No cell grid: positions are continuous, so an uncertain reading is never resolved by guessing.
    return GameRules("martian-shuffleboard", ms, ms.explain, lambda s: s.to_json(), decode, ms.Move.parse, None,
                     max_moves=1)


def _room(name: str) -> GameRules:
    module = importlib.import_module(ROOMS[name])
    state_cls = module.State
    parse = getattr(module, "Move", None) or getattr(module, "Event", None)
    return GameRules(name, module, module.explain, lambda s: s.to_layout(), lambda d: state_cls.from_layout(**d),
                     parse.parse, None, max_moves=1)


def _whack_a_dummy(die_coin: str | None = None) -> GameRules:
    """Whack-a-Dummy: the coin under the die is never seen (the die covers it), so every reading with the die on
    the board has that coin unsure; the rules say which side it shows (see :func:`_whack_complete`)."""
    from rules.epic_funhouse import whack_a_dummy as wad
    from rules.epic_funhouse.roll_out_the_barrels import CELLS, cell_name

    if die_coin not in (None, "up", "down"):
        raise RulesError(f"the coin under the die is up or down, not {die_coin!r}")

    def cells(s: wad.State) -> dict:
        out: dict[Any, Any] = {cell_name(i): s.is_up(i) for i in range(CELLS)}
        out["die"] = None if s.cell is None else cell_name(s.cell)
        out["grid"] = s.grid
        return out

    def explain(before: wad.State, after: wad.State) -> Explanation:
        # only what a camera sees (sides, the die's coin): progress and penalties come from the rules
        found = wad.explain(before, after, observed=True)
        if found.reason is not None and before.cell is None:
            return Explanation(reason=f"{found.reason}; joining a game under way? start watching again with "
                                      "--die-coin up|down (the side of the coin under the die)")
        return found

    def seen(known: Mapping[Any, Any], die: str, up: bool) -> wad.State:
        face_up = [cell_name(i) for i in range(CELLS) if (up if cell_name(i) == die else known[cell_name(i)])]
        return wad.State.from_layout(known["grid"], face_up, die)

    def complete(previous: wad.State | None, known: Mapping[Any, Any], uncertain: frozenset) -> wad.State | None:
        die = known.get("die")
        if die is None or set(uncertain) != {die} or "grid" not in known:
            return None
        try:
            if previous is None:  # the first reading: the player said which side it shows
                return None if die_coin is None else seen(known, die, die_coin == "up")
            # The coin under the die is what the moves that brought the die there made it: of its two sides,
            # the one a legal sequence explains. Both (e.g. the die seen on c3, everything face down: "start c3",
            # or "start c4, go south" flipping c3): the shorter story, as explain() prefers for any reading (the
            # live loop reads after every settled change); the same length: left to the candidates (ambiguous).
            # Neither: illegal whatever it shows; judged with the side the rules expect (flipped when the die
            # landed there, else unchanged).
            options = [seen(known, die, up) for up in (True, False)]
            stories = [(len(found.moves), s) for s in options if (found := explain(previous, s)).reason is None]
            stories.sort(key=lambda item: item[0])
            if len(stories) == 1 or (len(stories) == 2 and stories[0][0] < stories[1][0]):
                return stories[0][1]
            if stories:
                return None
            landed = previous.cell is not None and cell_name(previous.cell) != die
            return seen(known, die, previous.is_up(die) != landed)
        except (LayoutError, RulesError):
            return None

    return GameRules("whack-a-dummy", wad, explain, lambda s: s.to_layout(), lambda d: wad.State.from_layout(**d),
                     wad.Move.parse, cells, max_moves=3, complete=complete)


def _funhouse() -> GameRules:
    module = importlib.import_module(GAMES["epic-funhouse"])
    fun = module.Funhouse
    return GameRules("epic-funhouse", module, module.explain, lambda s: s.to_json(), fun.from_json,
                     lambda text: text, None, max_moves=1)


_BUILDERS: dict[str, Callable[[], GameRules]] = {
    "easy-slider": _easy_slider,
    "slides-of-action": _slides_of_action,
    "plans-of-action": _plans_of_action,
    "martian-shuffleboard": _martian_shuffleboard,
    "epic-funhouse": _funhouse,
}


def game_rules(name: str, die_coin: str | None = None) -> GameRules:
    """The :class:`GameRules` of a game or Epic Funhouse room by its name (``easy-slider``, ``slide-jam`` ...).

    ``die_coin`` (Whack-a-Dummy, ``up``/``down``): the side of the coin under the die when the game is joined
    under way (the first reading is the start); afterwards the rules know it."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key == "whack-a-dummy":
        return _whack_a_dummy(die_coin)
    if key in _BUILDERS:
        return _BUILDERS[key]()
    if key in ROOMS:
        return _room(key)
    known = ", ".join(list(GAMES) + list(ROOMS))
    raise RulesError(f"unknown game {name!r}: known games are {known}")


# --------------------------------------------------------------------------------------------- the tracker


class GameTracker:
    """The last legal position of one game, and the judge of every new reading (see the module docstring).

    ``state``: the starting position when it is known (a Caller's deal, a resumed journal, Martian
    Shuffleboard's empty table); None to take the first complete reading as the start.
    """

    def __init__(self, rules: GameRules, state: Any = None) -> None:
        self.rules = rules
        self.state = state
        self.start_state = state
        self.illegal_seen: Any = None  # the last illegal position reported (until the board is fixed)
        self.history: list[tuple[Any, Any]] = []  # (move, state after it)

    # -------------------------------------------------------------------------------------------------

    def start(self, state: Any) -> None:
        """Set the starting position (and forget the history)."""
        self.state = state
        self.start_state = state
        self.illegal_seen = None
        self.history = []

    def restore(self, start: Any, moves: Iterable[str]) -> None:
        """Rebuild the game from its start and the moves played (a journal): the moves are replayed."""
        self.start(start)
        state = start
        for i, text in enumerate(moves, start=1):
            try:
                move = self.rules.parse_move(text)
                state = self.rules.apply(state, move)
            except RulesError as err:
                raise RulesError(f"move {i} ({text}) does not replay: {err}") from None
            self.history.append((move, state))
        self.state = state

    @property
    def moves(self) -> list[Any]:
        return [m for m, _ in self.history]

    # -------------------------------------------------------------------------------------------------

    def observe(self, reading: Reading) -> Verdict:
        """Judge one settled reading against the last legal position."""
        if not reading.readable:
            return Verdict("unreadable", self.state, reason=reading.reason or "the board cannot be read")
        if self.state is None:
            first = reading.state
            if reading.uncertain and self.rules.complete is not None:
                known = self._known_cells(reading)  # what the player told may complete it (Whack-a-Dummy)
                first = None if known is None else self.rules.complete(None, known, frozenset(reading.uncertain))
            elif reading.uncertain:
                first = None
            if first is None:
                why = reading.reason or "some pieces cannot be read surely"
                return Verdict("unreadable", None, reason=why)
            self.start(first)
            return Verdict("start", self.state)
        if reading.uncertain or reading.state is None:
            return self._resolve(reading)
        return self._judge(reading.state)

    def _judge(self, seen: Any, resolved: frozenset = frozenset()) -> Verdict:
        before = self.state
        explanation = self.rules.explain(before, seen)
        if explanation.reason is not None:
            if any(marker in explanation.reason for marker in ABSTAIN_MARKERS):
                return Verdict("ambiguous", before, reason=explanation.reason)
            repeated = self.illegal_seen is not None and self._same(self.illegal_seen, seen)
            self.illegal_seen = seen
            return Verdict("illegal", before, reason=explanation.reason, repeated=repeated)
        if not explanation.moves:
            if self.illegal_seen is not None:
                self.illegal_seen = None
                return Verdict("restored", before, resolved=resolved)
            return Verdict("unchanged", before, resolved=resolved)
        return self._play(explanation.moves, resolved)

    def _play(self, moves: tuple, resolved: frozenset = frozenset()) -> Verdict:
        states = []
        state = self.state
        for move in moves:
            state = self.rules.apply(state, move)
            states.append(state)
            self.history.append((move, state))
        self.state = state
        self.illegal_seen = None
        return Verdict("moves", state, moves=tuple(moves), states=tuple(states), resolved=resolved)

    def _same(self, a: Any, b: Any) -> bool:
        if self.rules.cells is not None:
            return self.rules.cells(a) == self.rules.cells(b)
        return self.rules.explain(a, b).unchanged

    # ------------------------------------------------------------------------------ uncertain readings

    def _known_cells(self, reading: Reading) -> dict[Any, Any] | None:
        if reading.cells is not None:
            return {k: v for k, v in reading.cells.items() if k not in reading.uncertain}
        if reading.state is None or self.rules.cells is None:
            return None
        return {k: v for k, v in self.rules.cells(reading.state).items() if k not in reading.uncertain}

    def candidates(self, known: Mapping[Any, Any], max_moves: int | None = None) -> list[tuple[tuple, Any]]:
        """Positions within ``max_moves`` legal moves of the tracked one that agree with the ``known`` cells,
        each with the moves that reach it (shortest first; each distinct position once)."""
        assert self.rules.cells is not None
        depth = self.rules.max_moves if max_moves is None else max_moves

        def agrees(state: Any) -> bool:
            view = self.rules.cells(state)
            return all(view.get(k) == v for k, v in known.items())

        found: list[tuple[tuple, Any]] = []
        seen = {self.state}
        frontier: deque[tuple[Any, tuple]] = deque([(self.state, ())])
        while frontier:
            state, path = frontier.popleft()
            if agrees(state):
                found.append((path, state))
            if len(path) >= depth:
                continue
            for move, nxt in self.rules.successors(state):
                if nxt in seen:
                    continue
                seen.add(nxt)
                frontier.append((nxt, path + (move,)))
        return found

    def _resolve(self, reading: Reading) -> Verdict:
        known = self._known_cells(reading)
        unsure = ", ".join(sorted(_cell_text(c) for c in reading.uncertain)) or "some pieces"
        if known is None:
            return Verdict("unreadable", self.state, reason=reading.reason or f"cannot read {unsure} surely")
        if self.rules.complete is not None:
            seen = self.rules.complete(self.state, known, frozenset(reading.uncertain))
            if seen is not None:  # the sure cells force the unsure ones: judged like a sure reading
                return self._judge(seen, resolved=frozenset(reading.uncertain))
        found = self.candidates(known)
        if len(found) == 1:
            path, state = found[0]
            if not path:
                return self._judge(self.state, resolved=frozenset(reading.uncertain))
            # Legal moves are the likeliest story, but when they change two or more unsure cells, the pieces
            # there could as well have been picked up and swapped (an illegal move): nothing sure tells.
            before, after = self.rules.cells(self.state), self.rules.cells(state)
            moved = [k for k in reading.uncertain if before.get(k) != after.get(k)]
            if len(moved) > 1:
                return Verdict("unreadable", self.state,
                               reason=f"cannot read {unsure} surely, and pieces there may have moved")
            return self._play(path, resolved=frozenset(reading.uncertain))
        if not found:
            return Verdict("unreadable", self.state,
                           reason=f"cannot read {unsure} surely, and no legal move fits what is seen")
        options = "; ".join(" ".join(str(m) for m in path) or "no move" for path, _ in found[:3])
        return Verdict("ambiguous", self.state, reason=f"cannot read {unsure} surely: it could be {options}")


def _cell_text(key: Any) -> str:
    name = getattr(key, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str):
        return f"{key[0]} {key[1]}"
    return str(key)
