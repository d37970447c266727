"""What every rules engine shares: its errors, the result of ``explain``, and the search behind it.

Every game module follows the same shape, modelled on python-chess:

* ``State`` is immutable and hashable; ``State.from_layout(...)`` builds any position.
* ``state.legal_moves()`` lists ``Move`` objects; ``str(move)`` is the move's text form and
  ``Move.parse(str(move)) == move``.
* ``state.apply(move)`` returns the next state or raises :class:`IllegalMove` whose message is a sentence
  a player understands ("that tile cannot slide: it is not next to the hole").
* ``state.is_over()`` and the game's scoring (``score``/``winner``).
* ``explain(before, after)`` returns an :class:`Explanation`: the legal move (or short sequence) that turns
  one observed state into the next, or the reason none does. The live camera loop calls it on every change.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

__all__ = [
    "RulesError",
    "IllegalMove",
    "LayoutError",
    "RecordError",
    "Explanation",
    "GameState",
    "search_moves",
]


class RulesError(ValueError):
    """Base of every error the rules raise about the player's input. Its message is one plain sentence."""


class IllegalMove(RulesError):
    """A move the rules forbid in this position. ``str(err)`` says why, in a player's words."""

    def __init__(self, reason: str, move: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.move = move


class LayoutError(RulesError):
    """A position that cannot exist (two pieces on one cell, 25 tiles, an unknown piece)."""


class RecordError(RulesError):
    """A game record (PPN, journal) that cannot be read."""


@dataclass(frozen=True)
class Explanation:
    """The answer of ``explain(before, after)``.

    ``moves`` is the legal move sequence from ``before`` to ``after`` (empty when nothing changed);
    ``reason`` is None when the change is legal, else a sentence saying why no legal move explains it.
    """

    moves: tuple[Any, ...] = ()
    reason: str | None = None

    @property
    def legal(self) -> bool:
        return self.reason is None

    @property
    def unchanged(self) -> bool:
        return self.reason is None and not self.moves

    def __str__(self) -> str:
        if self.reason is not None:
            return self.reason
        if not self.moves:
            return "no change"
        return "; ".join(str(m) for m in self.moves)


class GameState(Protocol):
    """The protocol every game's ``State`` follows (structural; games need not inherit from it)."""

    def legal_moves(self) -> Sequence[Any]: ...

    def apply(self, move: Any) -> GameState: ...

    def is_over(self) -> bool: ...


S = TypeVar("S", bound=Hashable)


def search_moves(
    before: S,
    after: S,
    successors: Callable[[S], Iterable[tuple[Any, S]]],
    max_moves: int,
    same: Callable[[S, S], bool] | None = None,
    max_states: int = 200_000,
) -> tuple[Any, ...] | None:
    """Breadth-first search for the shortest move sequence (at most ``max_moves``) from ``before`` to ``after``.

    ``successors(state)`` yields ``(move, next_state)`` pairs of legal moves. ``same`` compares a reached
    state with ``after`` (default ``==``; games pass a looser test when ``after`` is observed by the camera
    and lacks bookkeeping such as whose turn it is). Returns the moves, ``()`` if the states are the same,
    or None when no sequence within the bounds exists. Games build ``explain`` on this and add their own
    reason when it returns None.
    """
    match = same or (lambda a, b: a == b)
    if match(before, after):
        return ()
    frontier: deque[tuple[S, tuple[Any, ...]]] = deque([(before, ())])
    seen: set[S] = {before}
    while frontier:
        state, path = frontier.popleft()
        if len(path) >= max_moves:
            continue
        for move, nxt in successors(state):
            if nxt in seen:
                continue
            new_path = path + (move,)
            if match(nxt, after):
                return new_path
            seen.add(nxt)
            if len(seen) > max_states:
                return None
            frontier.append((nxt, new_path))
    return None
