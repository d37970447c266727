"""Slides of Action (Clark D. Rodeffer, 2003): Lines of Action played on a 15-puzzle.

The board
    Four tiles face down in a 2x2 square make a 4x4 grid. Cells use PPN coordinates: ``(x, y)`` with x to the
    right and y up, ``(1, 1)`` the bottom-left cell; algebraic ``a1`` is ``(1, 1)`` and ``d4`` is ``(4, 4)``.
    Five coins each of arms, crowns and suns lie suit side up; one cell, the *hole*, is empty.

Set-up (:meth:`State.initial`)
    The seed's set-up diagram is lost; we use the one in piecepackr's ``ppgames::df_slides_of_action()``
    (Trevor L. Davis's reconstruction of the original). Rows from the top (y = 4) down, ``.`` the hole::

        4  A C S A
        3  S A C S
        2  C S A C
        1  A C S .
           a b c d

    No suit starts connected.

A move
    A line of one, two or three coins in line with the hole, the nearest one next to it, slides exactly one cell
    toward it; the hole ends where the far coin was. A :class:`Move` is ``(start, direction, length)``: ``start`` is
    the far coin's cell (the new hole), ``direction`` one of ``U D L R`` (the way the coins move), ``length`` the
    number of coins.

Text form of a move (``str(move)``, parsed back by :meth:`Move.parse`)
    PPN submoves, one per coin, front coin first, separated by spaces, algebraic cells: sliding the coins on b1
    and c1 right into the hole on d1 is ``c1-d1 b1-c1``; a single coin is ``c1-d1``. This is a valid PPN step
    (submoves of one step happen together; front first so that a sequential reader never stacks two coins).
    :meth:`Move.parse` also accepts Cartesian cells ``(3,1)-(4,1)`` and the submoves in any order.

Turns
    Arms goes first, then turns go clockwise. We take the seed's listing order "arms, crowns and suns" as the
    seating, so the 3-player order is arms, crowns, suns. In the 2-player game arms is neutral and takes no turns;
    the players are crowns then suns (crowns first). Both orders can be changed with ``players=``. Any player
    may slide any coins (the move is not tied to the mover's suit).

No slide backs (decision)
    A move may not exactly undo the move just before it, whoever made it: it may not put the hole back where it
    was before the previous move (the only move that does so is the reverse slide of the same coins). Older
    positions may recur.

Ending and winning
    All five coins of a suit are *connected* when they form one group under orthogonal or diagonal adjacency
    (8-connectivity). Checked after every move, for all three suits, arms included even in the 2-player game:

    * no suit connected: play on;
    * exactly one suit connected: that suit wins, whoever moved (also when a player connects an opponent's suit);
    * two or three suits connected at once: the player who moved wins ("if you create two connected groups using
      only your opponents' coins, you win").

    In the 2-player game arms "may still win": if arms alone ends up connected, :meth:`State.winner` is
    ``Suit.ARMS`` and both players lose (:meth:`State.result` says so). Arms never wins through the simultaneous
    rule in the 2-player game because arms never moves. For a layout built directly (no move played), the player
    before ``turn`` counts as the one who moved.

Variant ``one_diagonal`` ("at most one connection may be diagonal", decision)
    The five coins count as connected when they can be joined into one group using orthogonal links and at most
    one diagonal link: their orthogonal groups number one, or two that touch diagonally somewhere.

explain(before, after) and turn bookkeeping
    The camera sees only which coin lies where. :func:`explain` compares coin layouts only: ``after``'s ``turn``,
    ``last_move`` and players are ignored, and the search runs from ``before`` with ``before``'s bookkeeping
    (whose turn, the previous move for the no-slide-back rule). It finds the shortest sequence of up to
    ``max_moves`` legal slides (default 3, for moves the camera missed); the live loop then applies those moves to
    its own tracked ``before`` to get the new turn. The camera cannot tell who slid; the turn simply passes on.
    A change that one forbidden slide back explains is reported as a slide back (reason), even when two legal
    slides could also explain it: a single illegal slide is likelier than two slides the camera missed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from rules.base import Explanation, IllegalMove, LayoutError, RulesError, search_moves
from rules.pieces import Suit

__all__ = [
    "NAME",
    "SIZE",
    "COIN_SUITS",
    "COINS_PER_SUIT",
    "DIRECTIONS",
    "INITIAL_DIAGRAM",
    "Move",
    "State",
    "explain",
    "cell_name",
    "parse_cell",
]

NAME = "slides-of-action"
SIZE = 4
COIN_SUITS: tuple[Suit, ...] = (Suit.ARMS, Suit.CROWNS, Suit.SUNS)
COINS_PER_SUIT = 5
MAX_LINE = 3
#: Direction letter -> (dx, dy) with y up.
DIRECTIONS: dict[str, tuple[int, int]] = {"U": (0, 1), "D": (0, -1), "L": (-1, 0), "R": (1, 0)}
_OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}
_WORDS = {"U": "up", "D": "down", "L": "left", "R": "right"}
#: The set-up of ppgames' df_slides_of_action, rows top (y = 4) first, "." the hole.
INITIAL_DIAGRAM = "ACSA/SACS/CSAC/ACS."

Cell = tuple[int, int]


def cell_name(cell: Cell) -> str:
    """Algebraic name of a cell on the 4x4 board (``(1, 1)`` -> ``a1``); Cartesian ``(x,y)`` off the board."""
    x, y = cell
    if 1 <= x <= 26 and y >= 1:
        return f"{chr(ord('a') + x - 1)}{y}"
    return f"({x},{y})"


_CELL_RE = re.compile(r"^\s*(?:([a-z])(\d+)|\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\))\s*$", re.IGNORECASE)
_CELL_TEXT = r"(?:[a-z]\d+|\(-?\d+,-?\d+\))"
_SUBMOVE_RE = re.compile(rf"^({_CELL_TEXT})-({_CELL_TEXT})$", re.IGNORECASE)


def parse_cell(text: str) -> Cell:
    """``a1`` or ``(1,1)`` -> ``(1, 1)``."""
    m = _CELL_RE.match(text)
    if not m:
        raise RulesError(f"cannot read the cell {text!r}: write it like a1 or (1,1)")
    if m.group(1):
        return (ord(m.group(1).lower()) - ord("a") + 1, int(m.group(2)))
    return (int(m.group(3)), int(m.group(4)))


def _on_board(cell: Cell) -> bool:
    return 1 <= cell[0] <= SIZE and 1 <= cell[1] <= SIZE


def _index(cell: Cell) -> int:
    return (cell[1] - 1) * SIZE + (cell[0] - 1)


def _cell(index: int) -> Cell:
    return (index % SIZE + 1, index // SIZE + 1)


def _step(cell: Cell, direction: str, n: int = 1) -> Cell:
    dx, dy = DIRECTIONS[direction]
    return (cell[0] + n * dx, cell[1] + n * dy)


@dataclass(frozen=True, order=True)
class Move:
    """Slide ``length`` coins one cell in ``direction``; ``start`` is the far coin's cell (the hole afterwards)."""

    start: Cell
    direction: str
    length: int = 1

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise RulesError(f"unknown direction {self.direction!r}: use U, D, L or R")
        if self.length < 1:
            raise RulesError("a slide moves at least one coin")

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The cells of the moving coins, far coin first."""
        return tuple(_step(self.start, self.direction, i) for i in range(self.length))

    @property
    def target(self) -> Cell:
        """Where the front coin goes: the hole before the move."""
        return _step(self.start, self.direction, self.length)

    def reverse(self) -> Move:
        """The slide that undoes this one."""
        return Move(self.target, _OPPOSITE[self.direction], self.length)

    def __str__(self) -> str:
        parts = []
        for i in range(self.length - 1, -1, -1):
            parts.append(f"{cell_name(_step(self.start, self.direction, i))}-"
                         f"{cell_name(_step(self.start, self.direction, i + 1))}")
        return " ".join(parts)

    def describe(self) -> str:
        """A sentence for speech: "slide the coins on b1 and c1 right"."""
        names = [cell_name(c) for c in self.cells]
        if len(names) == 1:
            return f"slide the coin on {names[0]} {_WORDS[self.direction]}"
        return f"slide the coins on {', '.join(names[:-1])} and {names[-1]} {_WORDS[self.direction]}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a slide: PPN submoves ``c1-d1 b1-c1`` (any order; algebraic or ``(x,y)`` cells)."""
        tokens = text.split()
        if not tokens:
            raise RulesError("cannot read an empty move: write a slide like c1-d1 b1-c1")
        steps: list[tuple[Cell, Cell]] = []
        for token in tokens:
            m = _SUBMOVE_RE.match(token)
            if not m:
                raise RulesError(f"cannot read {token!r}: write each coin's slide like c1-d1")
            steps.append((parse_cell(m.group(1)), parse_cell(m.group(2))))
        direction = None
        for src, dst in steps:
            delta = (dst[0] - src[0], dst[1] - src[1])
            found = [d for d, v in DIRECTIONS.items() if v == delta]
            if not found:
                raise RulesError(f"{cell_name(src)}-{cell_name(dst)} is not a slide of one cell orthogonally")
            if direction is None:
                direction = found[0]
            elif found[0] != direction:
                raise RulesError(f"all coins of a slide move the same way: {text!r} mixes directions")
        assert direction is not None
        sources = {src for src, _ in steps}
        if len(sources) != len(steps):
            raise RulesError(f"{text!r} moves the same coin twice")
        # The far coin is the source that is nobody's destination.
        dests = {dst for _, dst in steps}
        far = [s for s in sources if s not in dests]
        if len(far) != 1:
            raise RulesError(f"{text!r} is not one line of coins sliding together")
        move = cls(far[0], direction, len(steps))
        if set(move.cells) != sources:
            raise RulesError(f"{text!r} is not one line of coins sliding together")
        return move


def _parse_suit(value: object) -> Suit:
    if isinstance(value, Suit):
        return value
    try:
        return Suit.parse(str(value))
    except ValueError as err:
        raise LayoutError(str(err)) from None


def _connected(cells: list[Cell], one_diagonal: bool) -> bool:
    """Whether the cells form one group (8-connectivity), or with ``one_diagonal`` at most one diagonal link."""
    remaining = set(cells)
    groups: list[set[Cell]] = []
    neighbours = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if not one_diagonal:
        neighbours += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    while remaining:
        seed = remaining.pop()
        group, stack = {seed}, [seed]
        while stack:
            x, y = stack.pop()
            for dx, dy in neighbours:
                n = (x + dx, y + dy)
                if n in remaining:
                    remaining.discard(n)
                    group.add(n)
                    stack.append(n)
        groups.append(group)
    if len(groups) == 1:
        return True
    if not one_diagonal or len(groups) != 2:
        return False
    a, b = groups
    return any((x + dx, y + dy) in b for x, y in a for dx in (-1, 1) for dy in (-1, 1))


def _default_players(count: int) -> tuple[Suit, ...]:
    if count == 3:
        return (Suit.ARMS, Suit.CROWNS, Suit.SUNS)
    if count == 2:
        return (Suit.CROWNS, Suit.SUNS)
    raise LayoutError(f"Slides of Action is for 2 or 3 players, not {count}")


@dataclass(frozen=True)
class State:
    """A Slides of Action position with its bookkeeping (whose turn, the previous move, the variant)."""

    board: tuple[Suit | None, ...]
    players: tuple[Suit, ...] = (Suit.CROWNS, Suit.SUNS)
    turn: Suit = Suit.CROWNS
    last_move: Move | None = None
    one_diagonal: bool = False
    _hole: Cell = field(init=False, compare=False, repr=False)

    # ----------------------------------------------------------------- construction
    @classmethod
    def initial(cls, players: int | Iterable[Suit | str] = 2, one_diagonal: bool = False) -> State:
        """The set-up position (ppgames' diagram); ``players`` is 2, 3 or the seating order of suits."""
        return cls.from_text(INITIAL_DIAGRAM, players=players, one_diagonal=one_diagonal)

    @classmethod
    def from_text(cls, diagram: str, **kwargs: object) -> State:
        """A layout from rows top (y = 4) first, letters A/C/S (or suit words' first letters) and ``.`` the hole.

        Rows are separated by ``/`` or newlines; spaces are ignored: ``"ACSA/SACS/CSAC/ACS."``.
        """
        rows = [r.replace(" ", "") for r in re.split(r"[/\n]", diagram.strip()) if r.strip()]
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise LayoutError(f"a Slides of Action diagram has {SIZE} rows of {SIZE} cells, like {INITIAL_DIAGRAM}")
        coins: list[tuple[Cell, Suit]] = []
        for r, row in enumerate(rows):
            y = SIZE - r
            for i, ch in enumerate(row):
                if ch not in ".-_":
                    coins.append(((i + 1, y), _parse_suit(ch)))
        return cls.from_layout(coins, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_layout(
        cls,
        coins: Mapping[Cell | str, Suit | str] | Iterable[tuple[Cell | str, Suit | str]],
        players: int | Iterable[Suit | str] = 2,
        turn: Suit | str | None = None,
        last_move: Move | str | None = None,
        one_diagonal: bool = False,
    ) -> State:
        """Any position: ``coins`` maps cells (``(x, y)`` or ``"a1"``) to suits, or is a list of (cell, suit).

        Raises :class:`LayoutError` for a position that cannot exist on the table: a coin off the board, two coins
        on one cell, moons coins, not exactly five coins of each of arms, crowns and suns (so exactly one hole).
        ``players`` is 2, 3 or the seating order; ``turn`` defaults to the first player; ``last_move`` is the
        previous slide (for the no-slide-back rule).
        """
        items = coins.items() if isinstance(coins, Mapping) else coins
        board: list[Suit | None] = [None] * (SIZE * SIZE)
        counts = dict.fromkeys(COIN_SUITS, 0)
        for raw_cell, raw_suit in items:
            cell = parse_cell(raw_cell) if isinstance(raw_cell, str) else (int(raw_cell[0]), int(raw_cell[1]))
            suit = _parse_suit(raw_suit)
            if not _on_board(cell):
                raise LayoutError(f"a coin at {cell_name(cell)} is off the 4x4 board")
            if suit not in counts:
                raise LayoutError(f"Slides of Action uses no {suit.value} coins, but one is at {cell_name(cell)}")
            if board[_index(cell)] is not None:
                raise LayoutError(f"two coins are on {cell_name(cell)}")
            board[_index(cell)] = suit
            counts[suit] += 1
        for suit, n in counts.items():
            if n != COINS_PER_SUIT:
                raise LayoutError(f"Slides of Action has exactly {COINS_PER_SUIT} {suit.value} coins, "
                                  f"but the layout has {n}")
        if isinstance(players, int):
            seating = _default_players(players)
        else:
            seating = tuple(_parse_suit(p) for p in players)
            _default_players(len(seating))
            if len(set(seating)) != len(seating) or not set(seating) <= set(COIN_SUITS):
                raise LayoutError("the players are two or three different suits among arms, crowns and suns")
            if len(seating) == 2 and Suit.ARMS in seating:
                raise LayoutError("in the 2-player game arms is neutral: the players are crowns and suns")
        to_move = seating[0] if turn is None else _parse_suit(turn)
        if to_move not in seating:
            raise LayoutError(f"{to_move.value} is not a player in this game")
        last = Move.parse(last_move) if isinstance(last_move, str) else last_move
        hole = _cell(board.index(None))
        if last is not None and last.start != hole:
            raise LayoutError(f"the previous slide {last} would have left the hole at {cell_name(last.start)}, "
                              f"but the hole is at {cell_name(hole)}")
        return cls(tuple(board), seating, to_move, last, one_diagonal)

    # ----------------------------------------------------------------- queries
    def __post_init__(self) -> None:
        # Cache the hole (derived from the board, so not compared).
        object.__setattr__(self, "_hole", _cell(self.board.index(None)))

    @property
    def hole(self) -> Cell:
        return self._hole

    def coin_at(self, cell: Cell | str) -> Suit | None:
        c = parse_cell(cell) if isinstance(cell, str) else cell
        return self.board[_index(c)] if _on_board(c) else None

    def coins(self) -> dict[Cell, Suit]:
        """Cell -> suit of every coin."""
        return {_cell(i): s for i, s in enumerate(self.board) if s is not None}

    def diagram(self) -> str:
        """Rows top first, ``/``-separated, like :data:`INITIAL_DIAGRAM`."""
        rows = []
        for y in range(SIZE, 0, -1):
            rows.append("".join(self.board[_index((x, y))].letter if self.board[_index((x, y))] else "."
                                for x in range(1, SIZE + 1)))
        return "/".join(rows)

    def __str__(self) -> str:
        return self.diagram()

    def __repr__(self) -> str:
        last = f", last_move={str(self.last_move)!r}" if self.last_move is not None else ""
        variant = ", one_diagonal=True" if self.one_diagonal else ""
        players = ", ".join(p.value for p in self.players)
        return f"<State {self.diagram()} players=({players}) turn={self.turn.value}{last}{variant}>"

    def connected_suits(self) -> tuple[Suit, ...]:
        """Suits whose five coins are all connected (under the variant's rule), in :data:`COIN_SUITS` order."""
        out = []
        for suit in COIN_SUITS:
            cells = [_cell(i) for i, s in enumerate(self.board) if s is suit]
            if _connected(cells, self.one_diagonal):
                out.append(suit)
        return tuple(out)

    @property
    def previous_player(self) -> Suit:
        """The player who moved last (for a built layout: the one seated before ``turn``)."""
        i = self.players.index(self.turn)
        return self.players[i - 1]

    def winner(self) -> Suit | None:
        """The winning suit, or None while the game goes on. ``Suit.ARMS`` in a 2-player game: both lose."""
        connected = self.connected_suits()
        if not connected:
            return None
        if len(connected) == 1:
            return connected[0]
        return self.previous_player

    def is_over(self) -> bool:
        return self.winner() is not None

    def result(self) -> str:
        """A sentence: who won, or that the game goes on."""
        w = self.winner()
        if w is None:
            return f"the game goes on: {self.turn.value} to move"
        if w not in self.players:
            return f"{w.value} (neutral) connected: both players lose"
        connected = self.connected_suits()
        if len(connected) > 1:
            return f"{w.value} win: {' and '.join(s.value for s in connected)} connected at once on their move"
        return f"{w.value} win"

    # ----------------------------------------------------------------- moves
    def _pseudo_moves(self) -> Iterator[Move]:
        hole = self.hole
        for direction in DIRECTIONS:
            # Coins move in `direction` toward the hole, so they lie on the opposite side of it.
            back = _OPPOSITE[direction]
            for length in range(1, MAX_LINE + 1):
                start = _step(hole, back, length)
                if not _on_board(start):
                    break
                yield Move(start, direction, length)

    def legal_moves(self) -> list[Move]:
        """Every legal slide (none once the game is over)."""
        if self.is_over():
            return []
        undo = self.last_move.reverse() if self.last_move is not None else None
        return [m for m in self._pseudo_moves() if m != undo]

    def _check(self, move: Move) -> None:
        winner = self.winner()
        if winner is not None:
            raise IllegalMove(f"the game is over: {self.result()}", move)
        if move.length > MAX_LINE:
            raise IllegalMove(f"a slide moves one, two or three coins, not {move.length}", move)
        for cell in (*move.cells, move.target):
            if not _on_board(cell):
                raise IllegalMove(f"{cell_name(cell)} is off the board", move)
        if move.target != self.hole:
            raise IllegalMove(f"the coins must slide into the hole at {cell_name(self.hole)}, "
                              f"but this slide ends on {cell_name(move.target)}", move)
        if self.last_move is not None and move == self.last_move.reverse():
            raise IllegalMove(f"no slide backs: that slide undoes the previous one ({self.last_move}) "
                              f"and puts the hole back on {cell_name(move.start)}", move)

    def apply(self, move: Move | str) -> State:
        """The position after ``move``; raises :class:`IllegalMove` saying why when the rules forbid it."""
        m = Move.parse(move) if isinstance(move, str) else move
        self._check(m)
        board = list(self.board)
        for cell in reversed(m.cells):  # front coin first, into the free cell ahead
            board[_index(_step(cell, m.direction))] = board[_index(cell)]
        board[_index(m.start)] = None
        i = self.players.index(self.turn)
        return State(tuple(board), self.players, self.players[(i + 1) % len(self.players)], m, self.one_diagonal)

    def successors(self) -> Iterator[tuple[Move, State]]:
        for m in self.legal_moves():
            yield m, self.apply(m)


def explain(before: State, after: State, max_moves: int = 3) -> Explanation:
    """The legal slides (at most ``max_moves``) turning ``before``'s coins into ``after``'s, or why none does.

    Only the coins are compared (see the module docstring): the camera sees neither the turn nor the previous
    move, so ``after``'s bookkeeping is ignored and ``before``'s is used.
    """
    if before.board == after.board:
        return Explanation(())
    if before.is_over():
        return Explanation((), f"the game is already over ({before.result()}), yet the coins moved")
    def same(a: State, b: State) -> bool:
        return a.board == b.board

    # One slide first: a single illegal slide back is likelier than two slides the camera missed.
    moves = search_moves(before, after, State.successors, 1, same=same)
    if moves is not None:
        return Explanation(tuple(moves))
    if before.last_move is not None:
        undo = before.last_move.reverse()
        undone = State(before.board, before.players, before.turn, None, before.one_diagonal).apply(undo)
        if undone.board == after.board:
            return Explanation((), f"no slide backs: the coins were slid back ({undo}), undoing the previous slide")
    moves = search_moves(before, after, State.successors, max_moves, same=same)
    if moves is not None:
        return Explanation(tuple(moves))
    moved = sum(1 for a, b in zip(before.board, after.board, strict=True) if a != b)
    return Explanation((), f"no legal slide explains the change ({moved} cells changed): coins slide one cell "
                           f"into the hole, one to three at a time, in line with it")
