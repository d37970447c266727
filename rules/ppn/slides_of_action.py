"""PPN adapter for Slides of Action.

Record form
    ``GameType: Slides of Action`` sets up the four tiles and the fifteen coins as piecepackr's
    ``df_slides_of_action()`` does (the engine's :data:`rules.slides_of_action.INITIAL_DIAGRAM`). PPN cells are the
    engine's cells: ``a1`` = ``(1,1)`` bottom left, tiles at ``(1.5,1.5)`` ... ``(3.5,3.5)``.
    tableside's own top-level keys (piecepackr ignores them): ``Players`` (2, 3, or the seating as a list of
    suits, e.g. ``[crowns, suns]``) and ``Variant: one-diagonal``.

A move is one step: the coins of the slide as simultaneous submoves, front coin first so that a sequential
reader (piecepackr) never stacks two coins: ``1. c1-d1 b1-c1``. Any submove form that moves the same coins is
read (``(3,1)-1R``, ``?cA-d1`` ...); the board after the step decides which coins moved where.
"""

from __future__ import annotations

from typing import Any

from rules import slides_of_action as soa
from rules.base import IllegalMove, LayoutError, RecordError, RulesError
from rules.ppn import Game, PieceSpec, Submove
from rules.ppn.board import Board
from rules.ppn.games import diff

NAME = soa.NAME
GROUPING = "step"
TILE_CENTRES = ((1.5, 1.5), (3.5, 1.5), (1.5, 3.5), (3.5, 3.5))


def initial_state(game: Game) -> soa.State:
    if game.setup:
        raise RecordError(f"Slides of Action has no set-up parameters, but GameType gives {', '.join(game.setup)}")
    players = game.metadata.get("Players", 2)
    variant = game.metadata.get("Variant")
    if variant not in (None, "one-diagonal"):
        raise RecordError(f"unknown Slides of Action variant {variant!r}: the only one is one-diagonal")
    try:
        return soa.State.initial(players, one_diagonal=variant == "one-diagonal")
    except (LayoutError, RulesError, TypeError) as err:
        raise RecordError(f"bad Players for Slides of Action: {err}") from None


def board(state: soa.State) -> Board:
    items: list[tuple[PieceSpec | str, float, float]] = [("t", x, y) for x, y in TILE_CENTRES]
    for (x, y), suit in sorted(state.coins().items()):
        items.append(("c" + suit.letter, x, y))
    return Board.from_pieces(items)


def read_move(state: soa.State, before: Board, after: Board, submoves: list[Submove]) -> soa.Move:
    d = diff(before, after)
    if d.added or d.removed or d.changed:
        raise IllegalMove("a Slides of Action move only slides coins: nothing is added, removed or turned over")
    pairs = []
    for p, q in d.moved:
        if p.kind != "coin":
            raise IllegalMove("the tiles stay where they are: only coins slide")
        if not all(float(v).is_integer() for v in (p.x, p.y, q.x, q.y)):
            raise IllegalMove("coins slide from cell to cell")
        pairs.append(((int(p.x), int(p.y)), (int(q.x), int(q.y))))
    if not pairs:
        raise IllegalMove("no coin moved")
    text = " ".join(f"{soa.cell_name(a)}-{soa.cell_name(b)}" for a, b in pairs)
    try:
        return soa.Move.parse(text)
    except RulesError as err:
        raise IllegalMove(str(err)) from None


def move_text(state: soa.State, move: soa.Move) -> str:
    return str(move)


def metadata(state: soa.State) -> dict[str, Any]:
    if state.diagram() != soa.INITIAL_DIAGRAM:
        raise RecordError("a Slides of Action record starts from the set-up position")
    players: Any = [p.value for p in state.players]
    if tuple(state.players) == soa._default_players(len(state.players)):
        players = len(state.players)
    meta: dict[str, Any] = {"GameType": "Slides of Action", "Players": players}
    if state.one_diagonal:
        meta["Variant"] = "one-diagonal"
    return meta


def goal_reached(state: soa.State) -> bool:
    return state.is_over()


def position_json(state: soa.State) -> dict[str, Any]:
    winner = state.winner()
    return {
        "diagram": state.diagram(),
        "players": [p.value for p in state.players],
        "turn": state.turn.value,
        "connected": [s.value for s in state.connected_suits()],
        "winner": winner.value if winner else None,
        "result": state.result(),
    }
