"""Replay PPN records through the rules, and write a game's moves as a PPN record.

Every game with PPN support has an adapter module in :mod:`rules.ppn` (see :data:`ADAPTERS`) that provides:

``NAME``
    the tableside game name (``GameType`` names are normalised to it by :func:`rules.ppn.normalize_game_name`).
``GROUPING``
    ``"step"`` when one PPN step is one game move (a slide of several coins, a flick with its crashes), or
    ``"submove"`` when every submove is a move of its own (``({2..7},3)-2D`` is six jumps).
``initial_state(game)``
    the starting position from the metadata (``GameType`` set-up parameters and tableside's own top-level keys).
``board(state)``
    the PPN table (:class:`~rules.ppn.board.Board`) of a position, in PPN coordinates.
``read_move(state, before, after, submoves)``
    the game move that turns board ``before`` into ``after``; :class:`IllegalMove` when no move of the game
    does that kind of thing (the rules then judge the move itself with ``state.apply``).
``move_text(state, move)``
    the PPN text of a move played in ``state``.
``metadata(state, **extra)``
    the metadata mapping that sets up ``state`` (for writing a record).
``goal_reached(state)`` and ``position_json(state)``
    whether the game's goal is reached (solved, won, finished) and a JSON description of the position.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rules.base import IllegalMove, RecordError
from rules.ppn import GAME_TYPES, Game, MoveEntry, Step, Submove, parse_submove
from rules.ppn.board import Board, BoardPiece, PlayError

__all__ = ["ADAPTERS", "adapter", "Replay", "Illegal", "replay", "record", "Diff", "diff", "chunks"]

#: tableside game name -> adapter module.
ADAPTERS: dict[str, str] = {
    "easy-slider": "rules.ppn.easy_slider",
    "slides-of-action": "rules.ppn.slides_of_action",
    "plans-of-action": "rules.ppn.plans_of_action",
    "martian-shuffleboard": "rules.ppn.martian_shuffleboard",
}


def adapter(name: str) -> ModuleType:
    """The PPN adapter of a game; RecordError for a game tableside does not know or cannot replay."""
    if name not in ADAPTERS:
        from rules import ROOMS

        known = ", ".join(GAME_TYPES[n] for n in ADAPTERS)
        if name == "epic-funhouse" or name in ROOMS:
            # Epic Funhouse's rooms are set up from each other and a seeded generator: no PPN moves to replay
            # (a room's position may still be written as PPN, to be drawn).
            raise RecordError(f"tableside does not replay Epic Funhouse records ({name!r}): play the Funhouse with "
                              f"'tableside funhouse' and keep a game with --save FILE / --resume FILE; "
                              f"tableside replays PPN records of {known}")
        raise RecordError(f"cannot replay a game of {name!r}: tableside replays {known}")
    return importlib.import_module(ADAPTERS[name])


@dataclass(frozen=True)
class Diff:
    """What a PPN step did to the board: pieces moved or turned (before, after), added, removed, and changed
    in kind/side/suit/rank (before, after)."""

    moved: tuple[tuple[BoardPiece, BoardPiece], ...]
    added: tuple[BoardPiece, ...]
    removed: tuple[BoardPiece, ...]
    changed: tuple[tuple[BoardPiece, BoardPiece], ...]

    @property
    def empty(self) -> bool:
        return not (self.moved or self.added or self.removed or self.changed)


def diff(before: Board, after: Board) -> Diff:
    old = {p.id: p for p in before}
    new = {p.id: p for p in after}
    moved, changed = [], []
    for pid, p in old.items():
        q = new.get(pid)
        if q is None:
            continue
        if (p.x, p.y) != (q.x, q.y) or (p.angle % 360) != (q.angle % 360):
            moved.append((p, q))
        if (p.spec.piece, p.spec.side, p.spec.suit, p.spec.rank) != (q.spec.piece, q.spec.side, q.spec.suit,
                                                                       q.spec.rank):
            changed.append((p, q))
    added = [q for pid, q in new.items() if pid not in old]
    removed = [p for pid, p in old.items() if pid not in new]
    return Diff(tuple(moved), tuple(added), tuple(removed), tuple(changed))


def chunks(step: Step, grouping: str) -> list[list[Submove]]:
    """The submoves of a step grouped into game moves: the whole step, or one per submove (a ``!``, which only
    changes the drawing order, joins the submove before it)."""
    if grouping == "step":
        return [list(step.submoves)]
    out: list[list[Submove]] = []
    for sub in step.submoves:
        if sub.op == "!" and out:
            out[-1].append(sub)
        else:
            out.append([sub])
    return out


@dataclass(frozen=True)
class Illegal:
    """The first move of a record that the rules reject: its PPN text, the reason, and where it is."""

    move: str
    reason: str
    line: int = 0
    column: int = 0
    number: int = 0  # 1-based index of the move in the game

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "reason": self.reason, "line": self.line, "column": self.column,
                "number": self.number}


@dataclass
class Replay:
    """The outcome of replaying a record."""

    game: str
    moves: list[Any] = field(default_factory=list)
    illegal: Illegal | None = None
    state: Any = None
    goal_reached: bool = False
    adapter: ModuleType | None = None

    def to_json(self) -> dict[str, Any]:
        assert self.adapter is not None
        return {
            "game": self.game,
            "moves": [str(m) for m in self.moves],
            "illegal": self.illegal.to_json() if self.illegal else None,
            "goal_reached": self.goal_reached,
            "final_position": self.adapter.position_json(self.state),
        }


def replay(game: Game) -> Replay:
    """Replay a parsed game through its rules, stopping at the first illegal move.

    A record that cannot be read at all (unknown game, bad set-up) raises RecordError; a move the rules forbid,
    or one that refers to a piece that is not there, ends the replay with :attr:`Replay.illegal` set.
    """
    name = game.game_type
    if name is None:
        raise RecordError("the record does not say which game it is: add a GameType to its metadata")
    ad = adapter(name)
    state = ad.initial_state(game)
    board = ad.board(state)
    result = Replay(name, [], None, state, False, ad)
    for step in game.steps():
        for subs in chunks(step, ad.GROUPING):
            if all(s.op == "!" for s in subs):
                board = board.play(Step(subs))  # only the drawing order changes
                continue
            text = " ".join(str(s) for s in subs)
            line, column = (subs[0].line, subs[0].column) if subs else (step.line, step.column)
            number = len(result.moves) + 1
            try:
                after = board
                for sub in subs:
                    after = after.apply(sub, board)
                move = ad.read_move(state, board, after, subs)
                state = state.apply(move)
            except (IllegalMove, PlayError) as err:
                reason = err.reason
                result.illegal = Illegal(text, reason, line, column, number)
                result.state = state
                result.goal_reached = bool(ad.goal_reached(state))
                return result
            result.moves.append(move)
            board = after
    result.state = state
    result.goal_reached = bool(ad.goal_reached(state))
    return result


def record(name: str, start: Any, moves: Iterable[Any], metadata: dict[str, Any] | None = None,
           comments: Sequence[str] = ()) -> Game:
    """A PPN game recording ``moves`` played from ``start`` (checked with the rules as they are written).

    Moves are numbered ``1.``, ``2.``, ... one step each. ``metadata`` adds keys (``Event``, ``Date`` ...)
    after the set-up keys. Raises IllegalMove if a move is illegal.
    """
    ad = adapter(name)
    meta = ad.metadata(start)
    meta.update(metadata or {})
    game = Game(metadata=meta, comments=list(comments))
    state = start
    for i, move in enumerate(moves, start=1):
        text = ad.move_text(state, move)
        step = Step([parse_submove(t) for t in text.split()])
        game.moves.append(MoveEntry(f"{i}.", [step]))
        state = state.apply(move)
    return game
