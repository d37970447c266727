"""Epic Funhouse, room 6 (Game Null): Trampo-Land — triangular peg solitaire with kids, adults and you.

Fifteen trampolines form a triangle of rows 1, 2, 3, 4, 5, numbered 1..15 in reading order::

            1
          2   3
        4   5   6
      7   8   9  10
   11  12  13  14  15

Each trampoline holds a kid (a face-down coin), an adult (a pawn), you (the die) or nobody. Two trampolines
are adjacent along the six directions of the triangular grid (left/right in a row, and the two neighbours in
the rows above and below). A *jump* goes over an adjacent piece into the empty trampoline straight beyond it
and bounces the jumped piece off the board. Kids jump only kids, adults jump kids or adults (never you), you
jump anyone. Adults and you may instead *walk* to an adjacent empty trampoline, but the piece that walked on
the previous turn may not walk again now (the state keeps the trampoline it walked to). Score: 4 per kid, 1
per adult, 0 for you.

Decisions where the seed leaves room:

* **Empty trampoline**: die roll null/ace -> 1, 2/3 -> 2, 4/5 -> 4 (:func:`empty_trampoline`).
* **The coin cast** is modelled as the list of values on the coins that landed value side up; those are coins
  of the one suit set aside, so distinct values 0..5 and a total 0..15 (:func:`cast_total`). A total of 0 is
  cast again; a total equal to the empty trampoline's number becomes one more. The seed's worked example
  ("a 6, a 3 and an ace ... 6+3+1 = 10, so put the die ... on Trampoline 10") names a 6, which no piecepack
  coin shows; we keep its arithmetic: :func:`you_trampoline` takes the total, and the total 10 places you on
  trampoline 10. :func:`cast_total` itself refuses a 6 with a clear sentence.
* **Adults** come from Whack-a-Dummy's four column sums, in order (west to east). A number is first brought
  into 1..15 by the seed's wrap rule (subtract 15 while above 15); a sum of 0 — possible when a column has no
  face-up coin — is read as 15 (the wrap rule counts modulo 15). Then, while that trampoline is taken (you,
  an adult or the empty one), add one, wrapping 16 to 1 (:func:`place_adults`). Kids fill the rest.
* **Any arrangement** is a position: ``State.from_layout({1: "empty", 2: "kid", ..., 15: "adult"})`` takes
  any mix of kid/adult/you/empty (trampolines left out are empty); the only impossible layouts are unknown
  trampolines or pieces, and more than one you (there is one die).
* **Walking twice** is tracked as ``last_walker``: the trampoline the previous move walked a piece to (None
  after a jump). That piece may jump now, but not walk.
* **End**: the game is over when no move is legal. Walks can go round in circles, so a position can repeat;
  the player may stop at any time, and ``score()`` is the score for stopping now. :func:`solve` finds the
  best reachable score (see there for how it copes with the circles).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.pieces import parse_rank

__all__ = [
    "TRAMPOLINES",
    "ROWS",
    "KID",
    "ADULT",
    "YOU",
    "EMPTY",
    "adjacent",
    "jumps_from",
    "Move",
    "State",
    "empty_trampoline",
    "cast_total",
    "cast_coins",
    "you_trampoline",
    "wrap_trampoline",
    "place_adults",
    "setup",
    "random_setup",
    "TrampoSolution",
    "solve",
    "explain",
]

TRAMPOLINES = 15
ROWS = 5
#: One-letter codes of the pieces, as kept in ``State.board``.
KID, ADULT, YOU, EMPTY = "k", "a", "y", "."
PIECE_WORDS = {KID: "kid", ADULT: "adult", YOU: "you", EMPTY: "empty"}
_PIECE_PARSE = {
    "kid": KID, "k": KID, "coin": KID, "kids": KID,
    "adult": ADULT, "a": ADULT, "pawn": ADULT, "adults": ADULT,
    "you": YOU, "y": YOU, "die": YOU, "me": YOU,
    "empty": EMPTY, ".": EMPTY, "e": EMPTY, "none": EMPTY, "": EMPTY,
}
_POINTS = {KID: 4, ADULT: 1, YOU: 0, EMPTY: 0}

# Trampoline n (1..15) sits at row r, place i (0 <= i <= r).
_COORD: tuple[tuple[int, int], ...] = tuple((r, i) for r in range(ROWS) for i in range(r + 1))
_NUMBER = {rc: n + 1 for n, rc in enumerate(_COORD)}
#: The six directions of the triangular grid as (row change, place change).
_DIRECTIONS = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1))


def _at(r: int, i: int) -> int | None:
    return _NUMBER.get((r, i))


#: adjacent[n] = trampolines next to n (index 0 unused).
_ADJ: tuple[tuple[int, ...], ...] = ((),) + tuple(
    tuple(m for dr, di in _DIRECTIONS if (m := _at(r + dr, i + di)) is not None) for r, i in _COORD)
#: jumps[n] = (over, landing) pairs in a straight line from n (index 0 unused).
_JUMPS: tuple[tuple[tuple[int, int], ...], ...] = ((),) + tuple(
    tuple((o, t) for dr, di in _DIRECTIONS
          if (o := _at(r + dr, i + di)) is not None and (t := _at(r + 2 * dr, i + 2 * di)) is not None)
    for r, i in _COORD)


def adjacent(n: int) -> tuple[int, ...]:
    """The trampolines next to trampoline ``n``."""
    return _ADJ[_check_number(n)]


def jumps_from(n: int) -> tuple[tuple[int, int], ...]:
    """The (jumped trampoline, landing trampoline) pairs in a straight line from ``n``."""
    return _JUMPS[_check_number(n)]


def _check_number(n: Any) -> int:
    try:
        value = int(n)
    except (TypeError, ValueError):
        raise LayoutError(f"trampolines are numbered 1..{TRAMPOLINES}, so {n!r} is not one") from None
    if not 1 <= value <= TRAMPOLINES or (isinstance(n, float) and n != value):
        raise LayoutError(f"trampolines are numbered 1..{TRAMPOLINES}, so {n!r} is not one")
    return value


def _can_jump(jumper: str, jumped: str) -> bool:
    if jumped == EMPTY or jumped == YOU and jumper != YOU:
        return False
    if jumper == KID:
        return jumped == KID
    return jumper in (ADULT, YOU)


# ------------------------------------------------------------------------------------------------ moves


@dataclass(frozen=True)
class Move:
    """``jump 4-1`` (over trampoline 2) or ``walk 5-4``."""

    kind: str  # "jump" or "walk"
    frm: int
    to: int

    def __post_init__(self) -> None:
        if self.kind not in ("jump", "walk"):
            raise ValueError(f"unknown kind of move {self.kind!r}: jump or walk")
        frm, to = _check_number(self.frm), _check_number(self.to)
        object.__setattr__(self, "frm", frm)
        object.__setattr__(self, "to", to)
        if self.kind == "walk" and to not in _ADJ[frm]:
            raise RulesError(f"trampolines {frm} and {to} are not next to each other, so nobody can walk {frm}-{to}")
        if self.kind == "jump" and to not in (t for _, t in _JUMPS[frm]):
            raise RulesError(f"trampolines {frm} and {to} are not two apart in a straight line, so nobody can "
                             f"jump {frm}-{to}")

    @classmethod
    def _trusted(cls, kind: str, frm: int, to: int) -> Move:
        # legal_moves builds moves from the geometry tables, so they need no checking (a hot path: the
        # solver's replay and explain call it for every position they look at).
        move = object.__new__(cls)
        object.__setattr__(move, "kind", kind)
        object.__setattr__(move, "frm", frm)
        object.__setattr__(move, "to", to)
        return move

    @property
    def over(self) -> int | None:
        """The trampoline jumped over (None for a walk)."""
        if self.kind == "walk":
            return None
        return next(o for o, t in _JUMPS[self.frm] if t == self.to)

    def __str__(self) -> str:
        return f"{self.kind} {self.frm}-{self.to}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``jump 4-1``, ``walk 5-4`` or a bare ``4-1`` (a walk when the two are adjacent, else a jump)."""
        words = str(text).strip().lower().split()
        kind = None
        if len(words) == 2 and words[0] in ("jump", "walk", "bounce"):
            kind = "jump" if words[0] == "bounce" else words[0]
            words = words[1:]
        if len(words) == 1 and words[0].count("-") == 1:
            a, b = words[0].split("-")
            try:
                frm, to = _check_number(a), _check_number(b)
            except LayoutError as err:
                raise RulesError(f"cannot read move {text!r}: {err}") from None
            if kind is None:
                kind = "walk" if to in _ADJ[frm] else "jump"
            return cls(kind, frm, to)
        raise RulesError(f"cannot read move {text!r}: write 'jump 4-1' or 'walk 5-4'")


# ------------------------------------------------------------------------------------------------ state


@dataclass(frozen=True)
class State:
    """A position: ``board`` holds one letter per trampoline 1..15 (``k`` kid, ``a`` adult, ``y`` you, ``.``
    empty); ``last_walker`` is the trampoline the previous move walked a piece to (None otherwise)."""

    board: str
    last_walker: int | None = None

    @classmethod
    def from_layout(cls, layout: Mapping[Any, Any] | str, last_walker: int | None = None) -> State:
        """Any arrangement: a mapping trampoline number -> ``kid``/``adult``/``you``/``empty`` (numbers left
        out are empty), or a 15-letter string of ``k a y .``. At most one you. ``last_walker`` names the
        trampoline of an adult (or you) that walked on the previous turn."""
        cells = [EMPTY] * TRAMPOLINES
        if isinstance(layout, str):
            letters = [ch for ch in layout if not ch.isspace()]
            if len(letters) != TRAMPOLINES:
                raise LayoutError(f"a Trampo-Land board string needs {TRAMPOLINES} letters (k a y .), "
                                  f"not {len(letters)}")
            items: Iterable[tuple[Any, Any]] = enumerate(letters, start=1)
        else:
            items = layout.items()
        for key, value in items:
            n = _check_number(key)
            word = str(getattr(value, "value", value)).strip().lower()
            if word not in _PIECE_PARSE:
                raise LayoutError(f"unknown piece {value!r} on trampoline {n}: use kid, adult, you or empty")
            cells[n - 1] = _PIECE_PARSE[word]
        if cells.count(YOU) > 1:
            raise LayoutError(f"you are on trampolines {', '.join(str(i + 1) for i, c in enumerate(cells) if c == YOU)}"
                              ": there is only one of you (one die)")
        board = "".join(cells)
        if last_walker is not None:
            lw = _check_number(last_walker)
            if board[lw - 1] not in (ADULT, YOU):
                raise LayoutError(f"trampoline {lw} holds {PIECE_WORDS[board[lw - 1]]}, so it cannot be the adult "
                                  "that walked last turn")
            last_walker = lw
        return cls(board, last_walker)

    def piece(self, n: int) -> str:
        """``kid``, ``adult``, ``you`` or ``empty`` on trampoline ``n``."""
        return PIECE_WORDS[self.board[_check_number(n) - 1]]

    def layout(self) -> dict[int, str]:
        """The position as from_layout takes it: {trampoline: piece word}."""
        return {n: PIECE_WORDS[c] for n, c in enumerate(self.board, start=1)}

    def to_layout(self) -> dict:
        """Plain JSON-ready data with ``State.from_layout(**state.to_layout()) == state`` (keys are strings
        after a JSON round trip; from_layout reads those too)."""
        return {"layout": self.layout(), "last_walker": self.last_walker}

    def count(self, piece: str) -> int:
        return self.board.count(_PIECE_PARSE[piece])

    # -- rules

    def _problem(self, m: Move) -> str | None:
        b = self.board
        mover = b[m.frm - 1]
        if mover == EMPTY:
            return f"trampoline {m.frm} is empty: there is nobody there to move"
        if b[m.to - 1] != EMPTY:
            return f"trampoline {m.to} is taken by {_who(b[m.to - 1])}: you can only land on an empty trampoline"
        if m.kind == "walk":
            if mover == KID:
                return "kids cannot walk: only adults (and you) may walk to an adjacent trampoline"
            if self.last_walker == m.frm:
                return (f"{_who(mover)} on trampoline {m.frm} walked last turn: the same adult may not walk on "
                        "two turns in a row (move someone else or bounce first)")
            return None
        over = m.over
        assert over is not None
        jumped = b[over - 1]
        if jumped == EMPTY:
            return f"trampoline {over} is empty: a bounce must jump over somebody"
        if _can_jump(mover, jumped):
            return None
        if jumped == YOU:
            return "nobody may bounce you out: you are the Funhouse Evacuation Procedures Director"
        return f"a kid can only bounce out other kids, not {_who(jumped)}"

    def legal_moves(self) -> list[Move]:
        moves = []
        b = self.board
        for frm in range(1, TRAMPOLINES + 1):
            mover = b[frm - 1]
            if mover == EMPTY:
                continue
            for over, to in _JUMPS[frm]:
                if b[to - 1] == EMPTY and _can_jump(mover, b[over - 1]):
                    moves.append(Move._trusted("jump", frm, to))
            if mover != KID and frm != self.last_walker:
                moves.extend(Move._trusted("walk", frm, to) for to in _ADJ[frm] if b[to - 1] == EMPTY)
        return moves

    def apply(self, move: Move | str) -> State:
        m = Move.parse(move) if isinstance(move, str) else move
        problem = self._problem(m)
        if problem is not None:
            raise IllegalMove(problem, m)
        cells = list(self.board)
        cells[m.to - 1], cells[m.frm - 1] = cells[m.frm - 1], EMPTY
        if m.kind == "jump":
            cells[m.over - 1] = EMPTY  # type: ignore[operator]
            return State("".join(cells), None)
        return State("".join(cells), m.to)

    def successors(self) -> list[tuple[Move, State]]:
        out = []
        for m in self.legal_moves():  # legal by construction: no need to check them again in apply
            cells = list(self.board)
            cells[m.to - 1], cells[m.frm - 1] = cells[m.frm - 1], EMPTY
            if m.kind == "jump":
                cells[m.over - 1] = EMPTY  # type: ignore[operator]
            out.append((m, State("".join(cells), m.to if m.kind == "walk" else None)))
        return out

    def is_over(self) -> bool:
        return not self.legal_moves()

    def score(self) -> int:
        """4 per kid and 1 per adult left on the board; you score 0."""
        return 4 * self.board.count(KID) + self.board.count(ADULT)

    # -- display

    def render(self) -> str:
        """The triangle with ``k`` kid, ``a`` adult, ``Y`` you, ``.`` empty, beside the trampoline numbers."""
        lines = []
        for r in range(ROWS):
            numbers = [_NUMBER[(r, i)] for i in range(r + 1)]
            pad = " " * (2 * (ROWS - 1 - r))
            marks = "   ".join(self.board[n - 1].replace(YOU, "Y") for n in numbers)
            nums = "  ".join(f"{n:>2}" for n in numbers)
            lines.append(f"{pad}{marks}{' ' * (2 * (ROWS - 1 - r))}    {pad}{nums}")
        tail = f"kids {self.board.count(KID)}, adults {self.board.count(ADULT)}, score {self.score()}"
        if self.last_walker is not None:
            tail += f"; the piece on {self.last_walker} walked last turn"
        lines.append(tail)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _who(piece: str) -> str:
    return {KID: "a kid", ADULT: "an adult", YOU: "you", EMPTY: "nobody"}[piece]


# ------------------------------------------------------------------------------------------------ set-up


def empty_trampoline(die_roll: int | str) -> int:
    """The trampoline left empty for a die roll: null/ace -> 1, 2/3 -> 2, 4/5 -> 4."""
    try:
        roll = parse_rank(die_roll)
    except ValueError:
        raise LayoutError(f"a piecepack die shows null, ace, 2, 3, 4 or 5, not {die_roll!r}") from None
    return {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4}[roll]


def cast_total(face_up: Iterable[Any]) -> int:
    """The total of a coin cast: the values of the coins that landed value side up.

    They are coins of one suit, so each value 0..5 can appear once. (The seed's example mentions "a 6", which
    no piecepack coin shows; pass its total to :func:`you_trampoline` instead.)
    """
    values = []
    for v in face_up:
        try:
            values.append(parse_rank(v))
        except ValueError:
            raise LayoutError(f"a piecepack coin shows null, ace, 2, 3, 4 or 5, not {v!r}") from None
    if len(set(values)) != len(values):
        raise LayoutError("the cast uses the six coins of one suit, so no value can come up twice")
    return sum(values)


def cast_coins(rng: random.Random) -> tuple[int, ...]:
    """Cast the six coins of one suit until the total is not 0; the values that landed face up."""
    while True:
        up = tuple(v for v in range(6) if rng.random() < 0.5)
        if sum(up) > 0:
            return up


def you_trampoline(total: int, empty: int) -> int:
    """Where you start: the cast total, plus one if it is the empty trampoline's number."""
    if not isinstance(total, int) or isinstance(total, bool) or not 0 <= total <= TRAMPOLINES:
        raise LayoutError(f"a cast of six coins totals 0..{TRAMPOLINES}, not {total!r}")
    if total == 0:
        raise LayoutError("a cast totalling 0 does not count: shake the coins and cast again")
    empty = _check_number(empty)
    return total + 1 if total == empty else total


def wrap_trampoline(number: int) -> int:
    """A number brought into 1..15 by the seed's rule (subtract 15 while above 15; 0 counts as 15)."""
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise LayoutError(f"adult placement numbers are column sums (0 or more), not {number!r}")
    return (number - 1) % TRAMPOLINES + 1


def place_adults(numbers: Sequence[int], taken: Iterable[int]) -> tuple[int, ...]:
    """Trampolines for the adults, one per number in order, skipping taken ones (+1, 16 wraps to 1)."""
    occupied = {_check_number(n) for n in taken}
    if len(numbers) + len(occupied) > TRAMPOLINES:
        raise LayoutError("there are not enough free trampolines for all the adults")
    placed = []
    for number in numbers:
        n = wrap_trampoline(number)
        while n in occupied:
            n = wrap_trampoline(n + 1)
        occupied.add(n)
        placed.append(n)
    return tuple(placed)


def setup(die_roll: int | str, cast: int | Iterable[Any], adult_numbers: Sequence[int]) -> State:
    """Trampo-Land's start from plain data.

    ``die_roll``: the roll that picks the empty trampoline (0..5 or rank words). ``cast``: the values of the
    coins that landed face up, or their total (1..15). ``adult_numbers``: Whack-a-Dummy's four column sums,
    west to east. Kids fill the other trampolines.
    """
    empty = empty_trampoline(die_roll)
    total = cast if isinstance(cast, int) and not isinstance(cast, bool) else cast_total(cast)
    you = you_trampoline(total, empty)
    adults = place_adults(list(adult_numbers), (empty, you))
    layout = {n: "kid" for n in range(1, TRAMPOLINES + 1)}
    layout[empty] = "empty"
    layout[you] = "you"
    for n in adults:
        layout[n] = "adult"
    return State.from_layout(layout)


def random_setup(adult_numbers: Sequence[int], seed: int | None = None) -> State:
    """:func:`setup` with a random die roll and coin cast from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return setup(rng.randrange(6), cast_coins(rng), adult_numbers)


# ------------------------------------------------------------------------------------------------ solver


@dataclass(frozen=True)
class TrampoSolution:
    """What :func:`solve` found.

    ``score``: the best score reachable (stopping counts); ``moves``: a line of play reaching it;
    ``states_searched``: positions examined (symmetric positions count once); ``exact``: True when the
    search proved ``score`` is the best (it reached the lowest score the position could ever have, or
    examined every reachable position), False when ``max_states`` ran out first (``score`` is then the best
    found).
    """

    score: int
    moves: tuple[Move, ...]
    states_searched: int
    exact: bool


def solve(state: State, max_states: int = 4_000_000) -> TrampoSolution:
    """The best score reachable from ``state``, with a line of play that reaches it.

    The player may stop at any time, so the best reachable score is the lowest score over every position
    reachable from ``state``: a search with a visited set, which is also what makes the circles that walks
    can go round harmless (a position is never expanded twice). The search is compiled with numba (see
    :mod:`rules.epic_funhouse.trampo_search`) and stops early once it reaches a score no line could beat.
    """
    from rules.epic_funhouse import trampo_search as ts

    start = ts.encode(state.board, state.last_walker)
    best, best_key, searched, exact, keys, parents = ts.search(
        start, ts.ADJ, ts.JUMP_OVER, ts.JUMP_TO, ts.SYMMETRIES, ts.CHUNKS, max_states)
    chain = [best_key]
    while True:
        parent = ts.lookup_parent(keys, parents, chain[-1])
        if parent < 0:
            break
        chain.append(parent)
    chain.reverse()
    # Replay on the real board: each step is a legal move whose result is (a symmetric image of) the next key.
    moves: list[Move] = []
    current = state
    for key in chain[1:]:
        for move, nxt in current.successors():
            if ts.canonical(ts.encode(nxt.board, nxt.last_walker), ts.SYMMETRIES, ts.CHUNKS) == key:
                moves.append(move)
                current = nxt
                break
        else:  # pragma: no cover - every stored parent link is a legal move
            raise RuntimeError("the solver's line cannot be replayed")
    return TrampoSolution(int(best), tuple(moves), int(searched), bool(exact))


# ------------------------------------------------------------------------------------------------ explain


def explain(before: State, after: State, max_moves: int = 2, observed: bool = False) -> Explanation:
    """The legal move(s) that turn ``before`` into ``after``, or why none does.

    With ``observed=True`` only the pieces are compared, not who walked last (a camera cannot see that).
    """
    same = (lambda a, b: a.board == b.board) if observed else None
    moves = search_moves(before, after, State.successors, max_moves, same=same)
    if moves is not None:
        return Explanation(moves=tuple(moves))
    gone = [n for n in range(1, TRAMPOLINES + 1) if before.board[n - 1] != EMPTY and after.board[n - 1] == EMPTY]
    new = [n for n in range(1, TRAMPOLINES + 1) if before.board[n - 1] == EMPTY and after.board[n - 1] != EMPTY]
    for piece, plural in ((KID, "kids"), (ADULT, "adults")):
        if after.board.count(piece) > before.board.count(piece):
            return Explanation(reason=f"there are more {plural} on the board than before: pieces only ever "
                                      "leave Trampo-Land")
    if YOU in after.board and YOU not in before.board:
        return Explanation(reason="you (the die) came back onto the board: nobody returns to Trampo-Land")
    return Explanation(reason=f"no legal sequence of up to {max_moves} moves explains it (emptied: "
                              f"{', '.join(map(str, gone)) or 'none'}; filled: {', '.join(map(str, new)) or 'none'})")

