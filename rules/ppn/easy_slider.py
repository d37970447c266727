"""PPN adapter for Easy Slider.

Record form (piecepackr's ``df_easy_slider`` set-up, one PPN unit = one tile)
    ``GameType: {Name: Easy Slider, Tiles: M2M4M5MaM3/S2S4S5SaS3/..., Coins: 245a3, Pawns: MSAC}``:
    ``Tiles`` the 24 tiles face up in reading order from the top left (suit letter then rank: ``n`` null, ``a``
    ace, ``2``-``5``; rows of five separated by ``/``, the last row of four), the hole bottom right as the Caller
    deals them; ``Coins`` the target ranks of columns 1-5; ``Pawns`` the target suits of rows 1-4, top first.
    PPN cells are the engine's algebraic cells: ``a1`` bottom left, ``e5`` top right. The pawns stand at
    x = 0.25 beside rows 1-4 and the coins at y = 5.75 above the columns (piecepackr's layout).

Every submove is a slide of its own: ``1. b2-b1 2. c2-b2`` or several in one step (``b2-b1 c2-b2``). Any form
that moves the tile is read (``(2,2)-1D``, ``?S4-b1`` ...); only tiles may move.
"""

from __future__ import annotations

from typing import Any

from rules import easy_slider as es
from rules.base import IllegalMove, LayoutError, RecordError, RulesError
from rules.pieces import Tile
from rules.ppn import Game, Submove
from rules.ppn.board import Board
from rules.ppn.games import diff, record

NAME = "easy-slider"
GROUPING = "submove"
PAWN_X = 0.25
COIN_Y = 5.75
_RANKS = {0: "n", 1: "a", 2: "2", 3: "3", 4: "4", 5: "5"}


def _tile_text(tile: Tile) -> str:
    return tile.suit.letter + _RANKS[tile.rank]


def tiles_text(state: es.State) -> str:
    """The ``Tiles`` parameter of a dealt board (hole bottom right); RecordError for any other board."""
    if state.hole.name != "e1":
        raise RecordError("an Easy Slider record starts from the Caller's deal, with the hole bottom right")
    tiles = [t for t in state.board if t is not None]
    rows = [tiles[i : i + 5] for i in range(0, 25, 5)]
    return "/".join("".join(_tile_text(t) for t in row) for row in rows if row)


def initial_state(game: Game) -> es.State:
    setup = game.setup
    missing = [k for k in ("Tiles", "Coins", "Pawns") if k not in setup]
    if missing:
        raise RecordError("an Easy Slider record gives its deal: GameType: {Name: Easy Slider, Tiles: ..., "
                          f"Coins: ..., Pawns: ...}} ({', '.join(missing)} missing; piecepackr's random Seed "
                          "cannot be reproduced)")
    text = "".join(str(setup["Tiles"]).split()).replace("/", "")
    if len(text) != 48:
        raise RecordError(f"Tiles lists the 24 tiles as suit letter and rank (48 characters), not {len(text)}")
    try:
        tokens = [text[i + 1] + text[i] for i in range(0, 48, 2)]  # engine tokens are rank then suit
        board = [es.parse_tile(t) for t in tokens] + [None]
        coins = str(setup["Coins"]).replace("/", "").replace(" ", "")
        return es.State.from_layout(board, str(setup["Pawns"]), coins)
    except (LayoutError, RulesError) as err:
        raise RecordError(f"bad Easy Slider set-up: {err}") from None


def board(state: es.State) -> Board:
    items: list[tuple[str, float, float]] = []
    for cell in es.CELLS:
        tile = state.tile_at(cell)
        if tile is not None:
            items.append((_tile_text(tile), cell.x, cell.y))
    items += [(_RANKS[rank], col, COIN_Y) for col, rank in enumerate(state.coins, start=1)]
    items += [("p" + suit.letter, PAWN_X, 5 - row) for row, suit in enumerate(state.pawns)]
    return Board.from_pieces(items)


def read_move(state: es.State, before: Board, after: Board, submoves: list[Submove]) -> es.Move:
    d = diff(before, after)
    if d.added or d.removed or d.changed:
        raise IllegalMove("an Easy Slider move only slides a tile: nothing is added, removed or turned over")
    if any(p.kind != "tile" for p, _ in d.moved):
        raise IllegalMove("only tiles slide: the pawns and coins stay beside the board")
    if len(d.moved) != 1:
        raise IllegalMove("one tile slides at a time" if d.moved else "no tile moved")
    p, q = d.moved[0]
    if not all(float(v).is_integer() for v in (p.x, p.y, q.x, q.y)):
        raise IllegalMove("tiles slide from cell to cell")
    try:
        return es.Move(es.Cell.from_xy(int(p.x), int(p.y)), es.Cell.from_xy(int(q.x), int(q.y)))
    except RulesError as err:
        raise IllegalMove(str(err)) from None


def move_text(state: es.State, move: es.Move) -> str:
    return str(move)


def metadata(state: es.State) -> dict[str, Any]:
    return {"GameType": {"Name": "Easy Slider", "Tiles": tiles_text(state), "Coins": state.coin_text(),
                         "Pawns": state.pawn_text()}}


def goal_reached(state: es.State) -> bool:
    return state.is_over()


def position_json(state: es.State) -> dict[str, Any]:
    check = state.done_check()
    return {**state.to_dict(), "hole": state.hole.name, "done": check.correct,
            "wrong": [str(w) for w in check.wrong_cells]}


def example_round(seed: int = 1) -> Game:
    """The Caller's deal from ``seed`` and the solver's slides to Done, as a record (a few seconds: the solver
    builds its tables on first use)."""
    start = es.Setup.from_seed(seed).state()
    moves = list(start.solution())
    return record(NAME, start, moves, {"Event": f"tableside example: the Caller's deal (seed {seed}) solved",
                                       "Result": "Done"})
