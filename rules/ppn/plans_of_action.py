"""PPN adapter for Plans of Action.

Record form (as in the example record published with the PPN specification)
    ``GameType: {Name: Plans of Action, Coins: SASASS/MMACSS/CACCAA/MCMCMM}``: the 16 tiles grid side up at
    x, y in {1.5, 3.5, 5.5, 7.5} and the 24 coins suit side up on x = 2..7, rows y = 6, 5, 4, 3 (top row first).
    piecepackr's random ``Seed`` set-up cannot be reproduced here: records need ``Coins``. tableside's own
    top-level key ``Goal: all`` asks for all four suits connected (default ``one``).

Every submove is a move of its own: a jump ``(5,3)-4U`` (or ``-2D``: the coin moved last, again), a rotation
``5(5.5,5.5)$>90`` (a trailing ``!`` only redraws), a shift ``5(7.5,5.5)-2R`` (written relative: with an
absolute destination PPN would put the tile and its four coins on one point). ``({2..7},3)-2D`` is six jumps.
The board after each submove decides what moved: one coin (a jump), or a tile with its coins (turned: a
rotation; moved: a shift).
"""

from __future__ import annotations

from typing import Any

from rules import plans_of_action as poa
from rules.base import IllegalMove, LayoutError, RecordError, RulesError
from rules.ppn import Game, Submove, fmt_number
from rules.ppn.board import Board
from rules.ppn.games import diff

NAME = poa.NAME
GROUPING = "submove"


def initial_state(game: Game) -> poa.State:
    setup = game.setup
    goal = str(game.metadata.get("Goal", "one"))
    if "Coins" not in setup:
        raise RecordError("a Plans of Action record gives its coins: GameType: {Name: Plans of Action, "
                          "Coins: SASASS/MMACSS/CACCAA/MCMCMM} (piecepackr's random Seed cannot be reproduced)")
    try:
        return poa.State.from_ppn_coins(str(setup["Coins"]), goal=goal)
    except (LayoutError, RulesError) as err:
        raise RecordError(f"bad Plans of Action set-up: {err}") from None


def board(state: poa.State) -> Board:
    items: list[tuple[str, float, float]] = [("t", x, y) for x, y in state.tile_centres()]
    items += [("c" + suit.letter, x, y) for (x, y), suit in state.coins]
    return Board.from_pieces(items)


def _coins(b: Board) -> dict[tuple[float, float], str | None]:
    return {(p.x, p.y): p.spec.suit for p in b if p.kind == "coin"}


def read_move(state: poa.State, before: Board, after: Board, submoves: list[Submove]) -> poa.Move:
    d = diff(before, after)
    if d.added or d.removed or d.changed:
        raise IllegalMove("a Plans of Action move only jumps coins and turns or shifts tiles")
    tiles = [(p, q) for p, q in d.moved if p.kind == "tile"]
    coins = [(p, q) for p, q in d.moved if p.kind == "coin"]
    if not tiles and not coins:
        raise IllegalMove("nothing moved")
    try:
        if not tiles:
            if len(coins) != 1:
                raise IllegalMove(f"one coin jumps at a time, but {len(coins)} coins moved together")
            p, q = coins[0]
            move = poa.Move.parse(f"({fmt_number(p.x)},{fmt_number(p.y)})-({fmt_number(q.x)},{fmt_number(q.y)})")
        else:
            if len(tiles) != 1:
                raise IllegalMove(f"one tile turns or shifts at a time, but {len(tiles)} tiles moved")
            p, q = tiles[0]
            centre = f"({fmt_number(p.x)},{fmt_number(p.y)})"
            if (p.x, p.y) != (q.x, q.y):
                move = poa.Move.parse(f"5{centre}-({fmt_number(q.x)},{fmt_number(q.y)})")
            else:
                turn = round((p.angle - q.angle) % 360.0, 6)
                if turn not in (90.0, 180.0, 270.0):
                    raise IllegalMove(f"a tile turns by 90, 180 or 270 degrees, not {fmt_number(turn)}")
                move = poa.Move.parse(f"5{centre}$>{int(turn)}")
    except RulesError as err:
        if isinstance(err, IllegalMove):
            raise
        raise IllegalMove(str(err)) from None
    # The rules judge the move; then the pieces must be where that move puts them.
    expected = state.apply(move)
    if _coins(board(expected)) != _coins(after):
        raise IllegalMove(f"the coins did not end where {move.describe()} puts them")
    return move


def move_text(state: poa.State, move: poa.Move) -> str:
    """PPN for a move: the engine's own text form, which is PPN (a shift is relative, ``5(7.5,5.5)-4R``: with an
    absolute destination PPN would put all five pieces on that one point)."""
    return str(move)


def metadata(state: poa.State) -> dict[str, Any]:
    coins = state.coin_map()
    rows = []
    for y in (6, 5, 4, 3):
        row = ""
        for x in range(2, 8):
            suit = coins.get((x, y))
            if suit is None:
                raise RecordError("a Plans of Action record starts from a set-up: coins on x = 2..7, y = 3..6")
            row += suit.letter
        rows.append(row)
    if len(coins) != 24 or state.tiles != frozenset((x, y) for x in (1, 3, 5, 7) for y in (1, 3, 5, 7)):
        raise RecordError("a Plans of Action record starts from a set-up: the 4x4 block of tiles")
    meta: dict[str, Any] = {"GameType": {"Name": "Plans of Action", "Coins": "/".join(rows)}}
    if state.goal != "one":
        meta["Goal"] = state.goal
    return meta


def goal_reached(state: poa.State) -> bool:
    return state.is_solved()


def position_json(state: poa.State) -> dict[str, Any]:
    return {
        "diagram": state.diagram(),
        "moves": state.moves,
        "goal": state.goal,
        "solved": [s.value for s in state.solved_suits()],
        "pending": None if state.pending is None else "({},{})".format(*map(fmt_number,
                                                                            poa.tile_centre(state.pending))),
        "result": state.result(),
    }

