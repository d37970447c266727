"""What the game's rules settle where the picture alone leaves a piece open (the ninth session's additions to
:mod:`tableside.reading`), on detections built from rules states (no rendering: each test runs in well under a
second). Each rule is shown settling its case and, beside it, the cases it must leave open.

Easy Slider Done checks: a pawn doubted only for its outline (a hand-made pawn is a plain block whose outline the
figure reader finds weakly), its colour read clearly, gives its colour to the Done check of a board in full view:
all 24 tiles seen and read surely, so no hand is over the board (a hand over the board hides or blurs tiles). Pawns
never move in Easy Slider and only pawns stand beside its rows. Measured on the 160 Done-check frames of
bench_states (boards 1000-1019 and 3000-3019, four editions): hand-made correct 4 -> 8 of 40, 0 wrong verdicts.
"""

from __future__ import annotations

from dataclasses import replace

from test_reading import board_pieces, seen, solved_board, swapped, tile_index

from rules.pieces import Kind
from tableside.reading import check_easy_slider, read_state

OUTLINE = "outline unclear (partly hidden?)"


def _pawn_rows(pieces) -> list[int]:
    """Indices of the pawns in a detection, top row first."""
    return sorted((i for i, p in enumerate(pieces) if p.kind is Kind.PAWN), key=lambda i: pieces[i].y_mm)


def _doubt(pieces, indices, reason: str = OUTLINE) -> list:
    out = list(pieces)
    for i in indices:
        out[i] = replace(pieces[i], uncertain=True, reason=reason, confidence=0.45)
    return out


def test_done_check_takes_outline_doubted_pawns_on_a_board_in_full_view():
    """hand-made 3000 (bench_states held out): a solved board, the pawns of rows 2 and 3 doubted only for their
    outlines, every tile read: was "unsure", now "correct", the two pawns named with the rule."""
    state = solved_board("SCMA", "35421")
    pieces = seen(board_pieces(state, 51), 52)
    rows = _pawn_rows(pieces)
    doubted = _doubt(pieces, rows[1:3])
    [verdict] = check_easy_slider(doubted)
    assert verdict.verdict == "correct", verdict.reason
    assert [p.value for p in verdict.pawns] == ["suns", "crowns", "moons", "arms"]
    pawns_settled = [s for s in verdict.settled if "pawn" in s.where]
    assert [s.where for s in pawns_settled] == ["the pawn beside row 2", "the pawn beside row 3"]
    assert all("all 24 tiles are seen and read" in s.rule for s in pawns_settled)
    assert verdict.to_json()["settled_by_rules"][0]["reading"] == "the crowns pawn"
    # a position read from the same photo takes them as before
    assert read_state(doubted, "easy-slider").state == state


def test_done_check_outline_doubted_pawns_and_one_of_each_suit_settle_a_pawn_not_seen():
    """hand-made 1005 / 3005 / 3010: one pawn not found at all, others doubted for their outlines: the four pawns
    are one of each suit, so the one not seen is the suit left."""
    state = solved_board("ASMC", "21543")
    pieces = seen(board_pieces(state, 53), 54)
    rows = _pawn_rows(pieces)
    doubted = _doubt([p for i, p in enumerate(pieces) if i != rows[3]], [rows[2]])
    [verdict] = check_easy_slider(doubted)
    assert verdict.verdict == "correct", verdict.reason
    assert [p.value for p in verdict.pawns] == ["arms", "suns", "moons", "crowns"]


def test_done_check_outline_doubted_pawns_judge_a_fumble_naming_only_the_wrong_cells():
    state = swapped(solved_board("MSAC", "245a3"), "b4", "d2")
    pieces = seen(board_pieces(state, 55), 56)
    doubted = _doubt(pieces, _pawn_rows(pieces)[:3])
    [verdict] = check_easy_slider(doubted)
    assert verdict.verdict == "fumble", verdict.reason
    assert {c.name for c in verdict.wrong_cells} == {"b4", "d2"}


def test_done_check_keeps_outline_doubted_pawns_unread_when_the_board_is_not_in_full_view():
    """A hand over the board hides tiles (every rendered hand frame has tiles not seen or not read): then the
    pawns doubted for their outlines decide nothing, and the Done check stays unsure. So do pawns with any other
    doubt, on a board in full view."""
    state = solved_board("SCMA", "35421")
    pieces = seen(board_pieces(state, 57), 58)
    rows = _pawn_rows(pieces)
    doubted = _doubt(pieces, rows[1:3])
    hidden_tile = tile_index(board_pieces(state, 57), "d3")
    covered = [p for i, p in enumerate(doubted) if i != hidden_tile]  # a tile under a hand: not seen
    [verdict] = check_easy_slider(covered)
    assert verdict.verdict == "unsure" and verdict.pawns[1:3] == [None, None]
    unread = list(doubted)
    unread[hidden_tile] = replace(doubted[hidden_tile], uncertain=True, reason="partly hidden", suit=None, rank=None)
    [verdict] = check_easy_slider(unread)
    assert verdict.verdict == "unsure" and verdict.pawns[1:3] == [None, None]
    for reason in ("partly hidden by a hand or another object", "outline unclear (partly hidden?); colour unclear: "
                   "crowns or moons", "partly hidden by a hand or another object; outline unclear (partly hidden?)"):
        [verdict] = check_easy_slider(_doubt(pieces, rows[1:3], reason))
        assert verdict.verdict == "unsure" and verdict.pawns[1:3] == [None, None], reason
