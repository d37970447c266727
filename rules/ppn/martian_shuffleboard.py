"""PPN adapter for Martian Shuffleboard: continuous positions and Icehouse pyramids.

Metadata
    ``SetUp: None`` (the game starts with an empty table; piecepackr has no set-up for it), ``GameType: Martian
    Shuffleboard``, and a ``MovetextParser`` with ``Scale Factor: 0.03937007874015748`` so that one PPN unit is
    one millimetre (PPN's unit is the inch). tableside's own top-level keys: ``Players`` (the colours in turn
    order, e.g. ``[red, blue]``; required), ``Variant`` (``any/smaller-on-larger`` ..., default the published
    rules) and ``SmallHeight`` (the proximity unit in mm, default 25.4).

Coordinates
    PPN ``(x,y)`` = table millimetres ``(x_mm, -y_mm)``: PPN's y points up, the table frame's y points down.
    Angles: PPN angles are counter-clockwise, the table frame's clockwise, so ``,aN`` is ``-angle_deg``
    (modulo 90: a pyramid seen from above is a square).

Pieces
    A pyramid is its colour letter (R red, K black, G green, B blue, Y yellow, W white; orange, purple, cyan and
    clear are written ``,s6`` ... ``,s9`` with ``,icehouse_pieces'``), its pips (1 Small, 2 Medium, 3 Large) and
    its side: ``x`` standing upright (PPN's "top" view), ``f`` lying flat. Every colour has one piece of each
    size, so ``?xB1`` names blue's Small standing wherever it is (the ``x`` also lets piecepackr's parser, which
    counts Icehouse pips from one, find it).

One flick = one step (pieces in a player's hand are not on the PPN board):
    ``R3x,a345@(412.5,-300)``      the slid piece stopped upright there (a drop from the hand)
    ``R3x@(0,150) + *``            the slid piece tipped flat and went back to its owner (put at the owner's
                                   place beside the table, turned over, taken away)
    ``R3x@(0,150) *``              the slid piece fell off the table
    ``?xB1-(405,-322.1) @>15``     it pushed blue's Small there, turning it 15 degrees clockwise
    ``?xB1~f *``                   it knocked blue's Small flat (laid on its face, then taken back by its owner)
    ``*?xB1``                      it knocked blue's Small off the table
The owner's place for player *i* (0-based, turn order) is ``(100*i, 150)``: 150 mm beyond the top edge of the
table frame. Reading, a piece taken away while lying flat was knocked flat, while standing it fell off.
"""

from __future__ import annotations

from typing import Any

from rules import martian_shuffleboard as ms
from rules.base import IllegalMove, RecordError, RulesError
from rules.pieces import PyramidSize
from rules.ppn import Game, PieceSpec, Submove, fmt_number
from rules.ppn.board import Board, BoardPiece

NAME = ms.NAME
GROUPING = "step"
MM_PER_INCH = 25.4
SCALE = 1 / MM_PER_INCH
LETTERS = {"red": "R", "black": "K", "green": "G", "blue": "B", "yellow": "Y", "white": "W"}
INDICES = {"orange": 6, "purple": 7, "cyan": 8, "clear": 9}
_BY_LETTER = {v: k for k, v in LETTERS.items()}
_BY_INDEX = {v: k for k, v in INDICES.items()}
_SIZE_BY_PIPS = {1: PyramidSize.SMALL, 2: PyramidSize.MEDIUM, 3: PyramidSize.LARGE}


def spec_of(piece: ms.Piece, side: str = "top", angle_deg: float = 0.0) -> PieceSpec:
    """The PPN piece spec of a pyramid (``angle_deg`` clockwise in the table frame)."""
    ppn_angle = (-angle_deg) % 360.0
    angle = round(ppn_angle, 1) if ppn_angle else None
    if piece.color in LETTERS:
        return PieceSpec("pyramid", side, LETTERS[piece.color], piece.size.points, angle)
    return PieceSpec("pyramid", side, None, piece.size.points, angle, suit_index=INDICES[piece.color],
                     cfg="icehouse_pieces")


def piece_of(p: BoardPiece) -> ms.Piece:
    """The pyramid a PPN board piece is; IllegalMove for anything else."""
    spec = p.spec
    if spec.piece != "pyramid":
        raise IllegalMove(f"Martian Shuffleboard is played with pyramids only, not a {spec.piece}")
    if spec.suit_index is not None and spec.suit_index in _BY_INDEX:
        color = _BY_INDEX[spec.suit_index]
    elif spec.suit in _BY_LETTER:
        color = _BY_LETTER[spec.suit]
    else:
        raise IllegalMove(f"unknown pyramid colour in {spec}")
    if spec.rank not in _SIZE_BY_PIPS:
        raise IllegalMove(f"a pyramid has 1, 2 or 3 pips, not {spec.rank} ({spec})")
    return ms.Piece(color, _SIZE_BY_PIPS[spec.rank])


def _placement(p: BoardPiece) -> ms.Placement:
    return ms.Placement(p.x, -p.y, (-p.angle) % 360.0)


def _point(x_mm: float, y_mm: float) -> str:
    return f"({fmt_number(x_mm)},{fmt_number(-y_mm + 0.0)})"


def initial_state(game: Game) -> ms.State:
    meta = game.metadata
    players = meta.get("Players")
    if isinstance(players, str):
        players = [c.strip() for c in players.replace(",", " ").split()]
    if not isinstance(players, list) or not players:
        raise RecordError("a Martian Shuffleboard record lists its players' colours in turn order: "
                          "Players: [red, blue]")
    try:
        return ms.State.new([str(c) for c in players], meta.get("Variant"), float(meta.get("SmallHeight",
                                                                                            ms.SMALL_HEIGHT_MM)))
    except (RulesError, TypeError, ValueError) as err:
        raise RecordError(f"bad Martian Shuffleboard set-up: {err}") from None


def board(state: ms.State) -> Board:
    return Board.from_pieces(
        (spec_of(p.piece, "top", p.at.angle_deg), p.at.x_mm, -p.at.y_mm) for p in state.table
    )


def read_move(state: ms.State, before: Board, after: Board, submoves: list[Submove]) -> ms.Move:
    # Follow the step submove by submove: a piece dropped and taken away again leaves no trace on `after`.
    board_now = before
    last_seen: dict[int, BoardPiece] = {p.id: p for p in before}
    dropped: list[int] = []
    for sub in submoves:
        nxt = board_now.apply(sub, before)
        for p in nxt:
            if p.id not in last_seen:
                dropped.append(p.id)
            last_seen[p.id] = p
        board_now = nxt
    if len(dropped) != 1:
        raise IllegalMove(f"a flick slides exactly one piece from the hand; this step drops {len(dropped)}")
    final = {p.id: p for p in after}

    def fate(pid: int) -> ms.Outcome:
        if pid in final:
            p = final[pid]
            if p.spec.side == "top":
                return _placement(p)
            return ms.Crash.FLAT  # lying on the table: its owner takes it back
        return ms.Crash.OFF if last_seen[pid].spec.side == "top" else ms.Crash.FLAT

    slid = piece_of(last_seen[dropped[0]])
    crashes = []
    for p in before:
        q = final.get(p.id)
        if q is not None and (q.x, q.y, q.angle % 90, q.spec.side) == (p.x, p.y, p.angle % 90, p.spec.side):
            continue
        crashes.append((piece_of(p), fate(p.id)))
    try:
        return ms.Move(slid, fate(dropped[0]), tuple(crashes))
    except RulesError as err:
        raise IllegalMove(str(err)) from None


def _hand_spot(state: ms.State, piece: ms.Piece) -> str:
    return _point(100.0 * state.players.index(piece.color), -150.0)


def move_text(state: ms.State, move: ms.Move) -> str:
    parts = []
    if isinstance(move.outcome, ms.Placement):
        at = move.outcome
        parts.append(f"{spec_of(move.piece, 'top', at.angle_deg)}@{_point(at.x_mm, at.y_mm)}")
    elif move.outcome is ms.Crash.FLAT:
        parts += [f"{spec_of(move.piece, 'top')}@{_hand_spot(state, move.piece)}", "+", "*"]
    else:
        parts += [f"{spec_of(move.piece, 'top')}@{_hand_spot(state, move.piece)}", "*"]
    for piece, outcome in move.crashes:
        full = spec_of(piece)
        ident = "?" + str(PieceSpec(None, "top", full.suit, full.rank, None, full.suit_index))
        if isinstance(outcome, ms.Placement):
            parts.append(f"{ident}-{_point(outcome.x_mm, outcome.y_mm)}")
            old = state.placed(piece)
            turn = round((outcome.angle_deg - (old.at.angle_deg if old else 0.0)) % 90.0, 1)
            if turn and turn != 90.0:
                parts.append(f"@>{fmt_number(turn)}")
        elif outcome is ms.Crash.FLAT:
            parts += [f"{ident}~f", "*"]
        else:
            parts.append(f"*{ident}")
    return " ".join(parts)


def metadata(state: ms.State) -> dict[str, Any]:
    if state.opened or state.table or state.out:
        raise RecordError("a Martian Shuffleboard record starts with an empty table")
    meta: dict[str, Any] = {
        "SetUp": "None",
        "GameType": "Martian Shuffleboard",
        "MovetextParser": {"Name": "Default", "Scale Factor": SCALE},
        "Players": list(state.players),
    }
    if state.variant != ms.Variant():
        meta["Variant"] = str(state.variant)
    if state.small_height_mm != ms.SMALL_HEIGHT_MM:
        meta["SmallHeight"] = state.small_height_mm
    return meta


def goal_reached(state: ms.State) -> bool:
    return state.is_over()


def position_json(state: ms.State) -> dict[str, Any]:
    """The state's JSON plus every pair of pieces on the table with its gap and who scores from it."""
    out = state.to_json()
    out["pairs"] = [p.to_json() for p in state.score_report().pairs]
    return out
