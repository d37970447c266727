"""PPN reader/writer, the board that plays its submoves, and the game adapters (round trips through the rules).

The published example records below are copied from the PPN specification (Trevor L. Davis, version 0.14) and
from the example files of the piecepackr packages ppgames (inst/ppn) and piecenikr (inst/ppn/martian-chess.ppn).
"""

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rules.ppn as ppn
from rules import easy_slider as es
from rules import martian_shuffleboard as ms
from rules import plans_of_action as poa
from rules import slides_of_action as soa
from rules.base import RecordError
from rules.ppn import (
    Active,
    ActiveLocation,
    AtLocation,
    BySpec,
    Offset,
    PieceLocation,
    PieceSpec,
    Point,
    expand_braces,
    parse_location,
    parse_piece_id,
    parse_submove,
)
from rules.ppn.board import Board
from rules.ppn.games import record, replay

CHESS = """\
---
GameType: International Chess
...
{"The Immortal Game: Adolf Anderssen - Lionel Kieseritzky, 1851"}
1. e2-e4 1... e7-e5 2. f2-f4 2... e5:f4
3. f1-c4 3... d8-h4 4. e1-f1 4... b7-b5
5. c4:b5 5... g8-f6 6. g1-f3 6... h4-h6
7. d2-d3 7... f6-h5 8. f3-h4 8... h6-g5
9. h4-f5 9... c7-c6 10. g2-g4 10... h5-f6
11. h1-g1 11... c6:b5 12. h2-h4 12... g5-g6
13. h4-h5 13... g6-g5 14. d1-f3 14... f6-g8
15. c1:f4 15... g5-f6 16. b1-c3 16... f8-c5
17. c3-d5 17... f6:b2 18. f4-d6 18... c5:g1
19. e4-e5 19... b2:a1 20. f1-e2 20... b8-a6
21. f5:g7  21... e8-d8 22. f3-f6 22... g8:f6
23. d6-e7 {checkmate!}
"""

CHECKERS = """\
---
GameType: American Checkers
...
1. d3-e4 1... e6-d5 2. e2-d3 2... a6-b5
3. b3-a4 3... d7-e6 4. c2-b3 4... g6-h5
5. b3-c4 5... d5-b3*c4 6. a2-a6*b3*b5 6... f7-g6
7. f1-e2 7... c6-d5 8. e4-c6*d5 8... b7-d5*c6
15. g4-f5 15... e2-d1 S@d1 16. g2-f3 16... 2d1-e2
29. 2e8-g6*f7 29... h7-f5*2g6 30. b5-c6 30... 2d5-b7*c6
"""

TIC_TAC_TOE = """\
---
Event: Example Tic-Tac-Toe Game
Result: 1-0
...
setup. t@b2
1. S@b2 1... M@a2 {? (1... M@a1)}
2. S@c1 2... M@a3
3. S@a1 3... M@c3
4. S@b1 {X wins}
"""

FOUR_FIELD_KONO = """\
GameType: Four Field Kono

1. b1:b3 1... d3:b3 2. c1:c3 2... a3:c3 3. c2-c1 3... b4:b2 4. a1-b1 4... b3:b1
5. d1:b1 5... c3-c2 6. a2-a3 6... b2:d2 7. a3-b3 7... c4-c3 8. c1-d1 8... d4-d3
9. b1-b2 9... d2:b2 10. b3-a3 10... b2-b1 {Player 1's loss is assured with the
 separation of their two remaining pieces and they should resign in a real game}
11. a3-a2 11... b1-c1 12. d1-d2 12... c1-d1 13. a2-a3 13... a4-b4
14. a3-a4 14... b4-c4 15. a4-b4 15... c4-d4 16. b4-a4 16... d4:d2 {Player 2 wins}
"""

FUJISAN = """\
---
GameType:
  Name: Fujisan
  Coins: "44452n24n3aa/a25335325ann"
...
1. a1-b1 2. n2-k2 3. b1-e1 4. e1-j1 5. j1-j2 6. j2-l2 7. k2-m2 8. m2-m1
9. l2-l1 10. n1-k1 11. m1-i1 12. i1-d1 13. d1-d2 14. l1-i1 15. i1-i2 16. k1-k2
17. k2-e2 18. i2-c2 19. a2-f2 20. e2-h2 21. h2-g2 22. c2-h2 23. h2-h1 24. d2-h2
25. f2-b2 26. b2-b1 27. b1-g1
"""

PLANS_OF_ACTION = """\
---
GameType:
    Name: Plans of Action
    Coins: SASASS/MMACSS/CACCAA/MCMCMM
...
(5,3)-4U; (3,3)-2L; 5(5.5,5.5)$>90!; (5,5)-4L; (2,5)-3R;-2D; (3,5)-2D;
({2..7},3)-2D; (3,4)-3U; (4,5)-2U; (6,4)-3L;-4U; (6,6)-2U; (2,6)-4R; (1,5)-4R;
(7,6)-3D;-2L; (4,6)-3R; (6,6)-3D;-3L; (5,3)-3L; (7,6)-3D; (3,3)-2U; (7,3)-3L;
({3,5,6,7},5)-2D; (5,4)-4L; (1,3)-3U; (5,7)-3D; (1,4)-5R; (1,6)-2D; (7,4)-2U;
(3,6)-3R; (5,6)-2L;-2D; ({1..6},4)-2D; (4,7)-2D;-2R; (3,7)-3D;-2R; (3,8)-2D;
(6,8)-2L;-2D; (6,5)-3U;-2R;-2D; (5,4)-2U;
"""

RELATIVITY = """\
---
Round: Night
GameType:
    Name: Relativity
    Seed: 42
...
{ Notes: Space has power of adjacency while Time has power of sequence }
1S. d3#e3 1T. d3#d1
2S. c2#c3 2T. d2#b1;M2@e6
3S. b2#a2 3T. e3#b2
4S. f1#f4 4T. e2#a3;M3@e6
12S. b2#c2 12T. c1#e2;Ma@e6
"""

TABLUT = """\
---
GameType: Tablut
...
1. a4-a3 1... c5-c3 2. d1-d3 2... e7-c7
3. f1-f3;*e3 3... e4-e3;*d3 4. f9-f7 4... g5-g3;*f3
"""

ICE_FLOE = """\
---
GameType: Ice Floe
...
PlacePawns. pS@e11 pM@k6 pC@f0 pA@(0,5)
RollDice. dS5@f11 dMa@k5 dC3@e0 dA2@(0,6)
PlacePyramids. xn{S@h7,M@d5,C@j1,A@b1}; xa{S@d3,M@f3,C@j9,A@f9};
               x2{S@b5,M@b9,C@h1,A@j3}; x3{S@h5,M@d9,C@d7,A@f1};
               x4{S@h9,M@b3,C@d1,A@b7}; x5{S@h3,M@j7,C@f7,A@j5};
Round1. ?xS4-3L; ?xM3-f10; *4?Ca; ?xC2-g3; ?xAn-d4;-h4; *4?C2;
        ?d{S~5,M~n,C~n,A~a} . c5A@g11 c4A@k4 c3A@d0 cnS@(0,7) . *2?An . *?M2
Round2. ?xMn-3L;-2U; ?xC3-b8; *4?S4; ?xA3-3R; ?xSa-3L;
        ?d{S~5,M~a,C~n,A~a} . 2@g0; 2@d11; a@h0; */cf; ?c5~C ?c{4,3,n}~S . *2?Sn; *?S3
{ Final score: Suns: 3, Moons: 2, Crowns: 2, Arms: 0 }
"""

DESFASES = """\
---
GameType:
    Name: Desfases
    Seed: 42
...
1S. ?S{n,a,2,3,5}@>90; a1-a4; ?Sd~3
2C. ?C{0..5}@>90; &?dC[2]-c3; ?Cnc{~b,_%?Cd}
3C. ?C{1..5}@>90; &?dC[2]-e5; ?C4c{~b,_%?Cd} ?Cd~4
"""

MARTIAN_CHESS = """\
---
GameType:
  Name: Martian Chess
  Seed: 42
...
1. d3-d4 1... b6-c5
3. c5-c0 c4-c5 3... b3-b9 b5-b3
6. a6-a0 d3-a6 6... a3_%a9 a6-a3
15. 2c7-b0 c4-c7 15... c2_%d9[1] c7-c2
"""

ALIEN_CITY = """\
---
GameType:
  Name: Alien City
  Tiles: C3^Sa^S5vAa>/M4>S4>M3<A4^/C2vMa>M5>A3v/Ca<S2^C5vC4^/A5<M2<A2^S3v
...
1. B3x@e6 K1x@e6 {?!} 1... R3x@f5
2. S@c7 2... B3x@e5
3. M@d5 3... M@f6 W1x@f5
"""

JAPAN = """\
---
  GameType:
    Name: Japan
    Seed: 42
...
1R. R`6-3'<@(10.5,3)
"""

PUBLISHED = {
    "chess": CHESS, "checkers": CHECKERS, "tic-tac-toe": TIC_TAC_TOE, "four-field-kono": FOUR_FIELD_KONO,
    "fujisan": FUJISAN, "plans-of-action": PLANS_OF_ACTION, "relativity": RELATIVITY, "tablut": TABLUT,
    "ice-floe": ICE_FLOE, "desfases": DESFASES, "martian-chess": MARTIAN_CHESS, "alien-city": ALIEN_CITY,
}


def one(text):
    (game,) = ppn.parse(text)
    return game


# ------------------------------------------------------------------------------------------------- reading
@pytest.mark.parametrize("name", PUBLISHED)
def test_published_examples_parse_and_round_trip(name):
    game = one(PUBLISHED[name])
    assert list(game.steps())
    again = one(ppn.dumps(game))
    assert again == game


def test_chess_structure():
    game = one(CHESS)
    assert game.metadata == {"GameType": "International Chess"}
    assert game.game_type == "international-chess"
    assert game.comments == ['"The Immortal Game: Adolf Anderssen - Lionel Kieseritzky, 1851"']
    assert [m.number for m in game.moves[:4]] == ["1.", "1...", "2.", "2..."]
    capture = game.moves[3].steps[0].submoves[0]
    assert capture.op == ":" and capture.piece == AtLocation(Point(5, 5)) and capture.other == AtLocation(Point(6, 4))
    assert game.moves[-1].steps[0].comments == ["checkmate!"]
    assert sum(1 for _ in game.steps()) == 45


def test_metadata_without_dashes_ends_at_the_first_empty_line():
    game = one(FOUR_FIELD_KONO)
    assert game.game_type == "four-field-kono"
    assert game.moves[0].number == "1." and str(game.moves[0].steps[0]) == "b1:b3"
    comment = game.moves[19].steps[0].comments[0]
    assert comment.startswith("Player 1's loss is assured with the separation")  # spans two lines


def test_semicolon_and_dot_make_steps_of_one_move():
    game = one(TABLUT)
    third = game.moves[4]
    assert third.number == "3." and [str(s) for s in third.steps] == ["f1-f3", "*e3"]
    game = one(ICE_FLOE)
    round1 = game.moves[3]
    assert round1.number == "Round1."
    assert [str(s) for s in round1.steps][-4:] == ["?dS~5 ?dM~0 ?dC~0 ?dA~1",
                                                  "cA5@g11 cA4@k4 cA3@d0 cS0@(0,7)", "*2&?A0", "*?M2"]
    # without move numbers every ;-step belongs to one unnumbered move
    poa_game = one(PLANS_OF_ACTION)
    assert len(poa_game.moves) == 1 and poa_game.moves[0].number is None
    assert len(poa_game.moves[0].steps) == 46


def test_removal_and_flip_suffixes_become_submoves():
    game = one(CHECKERS)
    five = game.moves[9].steps[0]  # 5... d5-b3*c4
    assert [s.op for s in five.submoves] == ["-", "*"]
    six = game.moves[10].steps[0]  # 6. a2-a6*b3*b5
    assert [str(s) for s in six.submoves] == ["a2-a6", "*b3", "*b5"]
    stack = game.moves[-1].steps[0]  # 30... 2d5-b7*c6
    assert stack.submoves[0].piece == AtLocation(Point(4, 5), count=2)


def test_brace_expansion():
    assert expand_braces("t@{b,d}{2..8..2}") == ["t@b2", "t@b4", "t@b6", "t@b8", "t@d2", "t@d4", "t@d6", "t@d8"]
    assert expand_braces("*{b..f}2") == ["*b2", "*c2", "*d2", "*e2", "*f2"]
    assert expand_braces("{5..0}@b5") == ["5@b5", "4@b5", "3@b5", "2@b5", "1@b5", "0@b5"]
    assert expand_braces("({2..7},3)-2D") == [f"({x},3)-2D" for x in range(2, 8)]
    assert expand_braces("x{a,b{1,2}}") == ["xa", "xb1", "xb2"]
    assert expand_braces("(8.5,4){~v,-(14\\,2.5)}") == ["(8.5,4)~v", "(8.5,4)-(14,2.5)"]
    assert expand_braces("a{x}b") == ["a{x}b"]


def test_locations():
    assert parse_location("(2.5,3.5)") == Point(2.5, 3.5)
    assert parse_location("c2") == Point(3, 2) and str(parse_location("c2")) == "c2"
    assert parse_location("aa1") == Point(27, 1)
    assert parse_location("4U") == Offset(0, 4) and str(parse_location("4U")) == "4U"
    assert parse_location("3NE") == Offset(3, 3)
    assert parse_location("<4,-2>") == Offset(4, -2)
    assert parse_location("<-2,3>$?pA") == Offset(-2, 3, anchor_piece=BySpec(PieceSpec.parse("pA")))
    assert parse_location("2R|b2") == Offset(2, 0, anchor=Point(2, 2))
    assert parse_location("&?S4") == PieceLocation(BySpec(PieceSpec.parse("S4")))
    assert parse_location("") == ActiveLocation()
    assert parse_location("(-1.5,-2)") == Point(-1.5, -2)


def test_piece_ids():
    assert parse_piece_id("2b4") == AtLocation(Point(2, 4), count=2)
    assert parse_piece_id("b4[3:6]") == AtLocation(Point(2, 4), slice=(3, 4, 5, 6))
    assert parse_piece_id("(2,4)[1,3,5]") == AtLocation(Point(2, 4), slice=(1, 3, 5))
    assert parse_piece_id("?S4") == BySpec(PieceSpec(suit="S", rank=4))
    assert parse_piece_id("/cf") == BySpec(PieceSpec(piece="coin", side="face"), greedy=True)
    assert parse_piece_id("") == Active()
    assert parse_piece_id("^b2") == AtLocation(Point(2, 2), from_start=True)
    assert parse_piece_id("5(5.5,5.5)") == AtLocation(Point(5.5, 5.5), count=5)


def test_piece_specs_and_assumptions():
    assert PieceSpec.parse("t").completed() == PieceSpec("tile", "back", "S", 0, 0.0)
    aa = PieceSpec.parse("Aa>")
    assert (aa.suit, aa.rank, aa.angle) == ("A", 1, 270.0)
    assert aa.completed().piece == "tile" and aa.completed().side == "face"
    assert PieceSpec.parse("C").completed() == PieceSpec("coin", "back", "C", 0, 0.0)
    assert PieceSpec.parse("cC3b^") == PieceSpec("coin", "back", "C", 3, 0.0)
    assert PieceSpec.parse("nv").completed() == PieceSpec("coin", "face", "S", 0, 180.0)
    assert PieceSpec.parse("pM").completed().piece == "pawn"
    for text in ("K3\u25b2", "K3x", "K3/\\"):
        spec = PieceSpec.parse(text).completed()
        assert (spec.piece, spec.side, spec.suit, spec.rank) == ("pyramid", "top", "K", 3)
    assert PieceSpec.parse("R2x,a345") == PieceSpec("pyramid" if False else None, "top", "R", 2, 345.0)
    assert str(PieceSpec.parse("R2x,a345")) == "xR2,a345"
    assert PieceSpec.parse("x1,s6").suit_index == 6


@pytest.mark.parametrize("text, where, what", [
    ("1. a1-a2 {never closed\n2. b1-b2\n", "line 1, column 10", "never closed"),
    ("---\nGameType: Test\n...\n1. a1-a2\n2. b1-(3,\n", "line 5, column 4", "location"),
    ("---\nGameType: [unclosed\n...\n1. a1-a2\n", "line 2, column", "not valid YAML"),
    ("---\n- a list\n...\n1. a1-a2\n", "line 2, column 1", "mapping"),
    ("1. a1-a2 2. q@b2\n", "line 1, column 13", "unknown character 'q'"),
    ("1. a1-a2   \n\t2. b1-<1,2\n", "line 2, column 5", "location"),
    (JAPAN, "line 6, column 5", "macro `6-3' is unknown"),
])
def test_malformed_records_say_where(text, where, what):
    with pytest.raises(RecordError) as info:
        ppn.parse(text, "game.ppn")
    message = str(info.value)
    assert message.startswith("game.ppn: ") and where in message and what in message


def test_macros_from_metadata():
    game = one("---\nMacros:\n  Q: S3\n...\n1. `Q'@b2\n")
    sub = game.moves[0].steps[0].submoves[0]
    assert sub.op == "@" and sub.spec == PieceSpec(suit="S", rank=3)


def test_several_games_in_one_file_and_comments_kept():
    games = ppn.parse(TIC_TAC_TOE + FUJISAN)
    assert [g.game_type for g in games] == [None, "fujisan"]
    assert games[0].metadata["Result"] == "1-0"
    assert games[0].moves[2].steps[0].comments == ["? (1... M@a1)"]
    assert games[1].line == 10


# ------------------------------------------------------------------------------------------------- board
def play(board, text):
    for step in one(text).steps():
        board = board.play(step)
    return board


def test_board_plays_tic_tac_toe():
    board = play(Board(), TIC_TAC_TOE)
    coins = {(p.x, p.y, p.spec.suit) for p in board if p.kind == "coin"}
    assert coins == {(2, 2, "S"), (1, 2, "M"), (3, 1, "S"), (1, 3, "M"), (1, 1, "S"), (3, 3, "M"), (2, 1, "S")}
    assert [p.kind for p in board.at(2, 2)] == ["tile", "coin"]


def test_board_moves_stacks_rotates_and_orders():
    board = Board.from_pieces([("t", 1.5, 1.5), ("cS", 1, 1), ("cM", 2, 1), ("cC", 1, 2), ("cA", 2, 2)])
    turned = play(board, "1. 5(1.5,1.5)$>90")
    # clockwise with y up: (1,1) -> (1,2) -> (2,2) -> (2,1) -> (1,1)
    assert {(p.x, p.y): p.spec.suit for p in turned if p.kind == "coin"} == {
        (1, 2): "S", (1, 1): "M", (2, 2): "C", (2, 1): "A"}
    assert [p.angle for p in turned if p.kind == "tile"] == [270.0]
    shifted = play(board, "1. 5(1.5,1.5)-2R")
    assert sorted((p.x, p.y) for p in shifted) == [(3, 1), (3, 2), (3.5, 1.5), (4, 1), (4, 2)]
    # '_' puts a piece underneath, '!' back on top, '#' swaps, ':' captures, '+' flips, '~' updates
    stacked = play(board, "1. (2,2)-(1,1) 2. (2,1)_(1,1)")
    assert [p.spec.suit for p in stacked.at(1, 1)] == ["M", "S", "A"]
    raised = play(stacked, "1. !(1,1)[3]")
    assert [p.spec.suit for p in raised.at(1, 1)] == ["S", "A", "M"]
    assert [p.spec.suit for p in play(raised, "1. (1,1)_(1,1)").at(1, 1)] == ["M", "S", "A"]
    swapped = play(board, "1. (1,1)#(2,2)")
    assert swapped.at(1, 1)[0].spec.suit == "A" and swapped.at(2, 2)[0].spec.suit == "S"
    captured = play(board, "1. (1,1):(2,2)")
    assert [p.spec.suit for p in captured if p.kind == "coin"].count("A") == 0
    assert captured.at(2, 2)[0].spec.suit == "S"
    flipped = play(board, "1. +(1,1) 2. (2,1)~f")
    assert flipped.at(1, 1)[-1].spec.side == "face" and flipped.at(2, 1)[-1].spec.side == "face"


def test_board_active_pieces_and_start_of_step():
    board = Board.from_pieces([("pS", 1, 1), ("cM", 1, 2)])
    after = play(board, "1. ?pS-a4;-a5;*")
    assert [(p.kind, p.x, p.y) for p in after] == [("coin", 1, 2)]
    # spec examples: "a1-a2 a2-a3" is a1-a3, but "a1-a2 ^a2-a3" moves the piece that was on a2 first
    chained = play(board, "1. a1-a3")
    seq = play(Board.from_pieces([("pS", 1, 1)]), "1. a1-a2 a2-a3")
    assert [(p.x, p.y) for p in seq] == [(1, 3)] and [(p.x, p.y) for p in chained if p.kind == "pawn"] == [(1, 3)]
    start = play(board, "1. a1-a2 ^a2-a3")
    assert {(p.kind, p.x, p.y) for p in start} == {("pawn", 1, 2), ("coin", 1, 3)}


def test_board_errors_name_the_submove():
    with pytest.raises(RecordError, match=r"line 1, column 4: cannot play c3-c4: there is no piece at \(3,3\)"):
        play(Board(), "1. c3-c4")
    with pytest.raises(RecordError, match="no piece has moved yet"):
        play(Board(), "1. -2U")


# ------------------------------------------------------------------------------------------ hypothesis round trip
coords = st.integers(-20, 40).map(lambda v: v / 2)
points = st.builds(lambda x, y: Point(x, y), coords, coords)
alg = st.builds(lambda x, y: Point(x, y, algebraic=True), st.integers(1, 30), st.integers(0, 30))
offsets = st.builds(lambda n, d: parse_location(f"{n}{d}"), st.integers(1, 9), st.sampled_from(list("UDLRNSEW")))
locations = st.one_of(points, alg, offsets)
specs = st.builds(PieceSpec, st.sampled_from([None, "tile", "coin", "die", "pawn"]),
                  st.sampled_from([None, "face", "back"]), st.sampled_from([None, "S", "M", "C", "A"]),
                  st.one_of(st.none(), st.integers(0, 5)), st.sampled_from([None, 0.0, 90.0, 180.0, 270.0, 45.0]))
ids = st.one_of(st.builds(AtLocation, st.one_of(points, alg)),
                st.builds(AtLocation, points, st.integers(2, 5)),
                st.builds(BySpec, specs.filter(lambda s: str(s) != ""), st.booleans()),
                st.just(Active()))
submoves = st.one_of(
    st.builds(lambda p, to: ppn.Submove("-", p, to=to), ids, locations),
    st.builds(lambda s, to: ppn.Submove("@", spec=s, to=to), specs, st.one_of(points, alg)),
    st.builds(lambda p: ppn.Submove("*", p), ids),
    st.builds(lambda a, b: ppn.Submove("#", a, b), ids.filter(lambda i: not isinstance(i, Active)),
              ids.filter(lambda i: not isinstance(i, Active))),
    st.builds(lambda p, a: ppn.Submove("$>", p, angle=a), ids, st.sampled_from([90.0, 180.0, 270.0, 45.5])),
    st.builds(lambda p: ppn.Submove("+", p), ids),
)
steps = st.builds(lambda subs, c: ppn.Step(subs, c), st.lists(submoves, min_size=1, max_size=3),
                  st.lists(st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=8),
                           max_size=1))
games = st.builds(
    lambda meta, moves: ppn.Game(meta, [ppn.MoveEntry(f"{i}.", s) for i, s in enumerate(moves, 1)]),
    st.dictionaries(st.sampled_from(["Event", "Site", "Round"]), st.text(st.characters(
        whitelist_categories=("L", "N")), min_size=1, max_size=10), max_size=2),
    st.lists(st.lists(steps, min_size=1, max_size=2), max_size=5),
)


@settings(max_examples=80, deadline=None)
@given(games)
def test_any_game_round_trips_through_text(game):
    text = ppn.dumps(game)
    assert one(text) == game


@settings(max_examples=100, deadline=None)
@given(submoves)
def test_submove_text_round_trips(sub):
    assert parse_submove(str(sub)) == sub


noise = st.lists(st.sampled_from(list("abcxtSMCA0123456789.,;:-_@*#!+~=%&?/^<>(){}[]|$ \n\t'`\\")
                                 + ["---\n", "...\n", "@>", "$>"]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(noise)
@example("-&%")  # the active location before an order was written "-%", which reads as "to where % is"
def test_garbage_is_a_record_error_or_round_trips(text):
    try:
        games = ppn.parse(text)
    except RecordError:
        return
    assert ppn.parse(ppn.dumps(games)) == games
    for game in games:
        board = Board()
        for step in game.steps():
            try:
                board = board.play(step)
            except RecordError:
                break


# ------------------------------------------------------------------------------------------------- adapters
def test_published_plans_of_action_game_replays_through_the_rules():
    game = one(PLANS_OF_ACTION)
    game.metadata["Goal"] = "all"
    result = replay(game)
    assert result.illegal is None and result.goal_reached
    assert len(result.moves) == 59 and result.state.is_solved() and len(result.state.solved_suits()) == 4
    rotation = [m for m in result.moves if isinstance(m, poa.Rotate)]
    assert [str(m) for m in rotation] == ["5(5.5,5.5)$>90"]
    # with the default goal (one suit) the puzzle is solved after 7 moves and the 8th is refused
    short = replay(one(PLANS_OF_ACTION))
    assert short.illegal is not None and short.illegal.number == 8 and "already solved" in short.illegal.reason
    assert (short.illegal.line, short.illegal.column) == (7, 1)


def _random_game(state, rng, limit):
    moves = []
    while not state.is_over() and len(moves) < limit:
        move = rng.choice(list(state.legal_moves()))
        moves.append(move)
        state = state.apply(move)
    return moves, state


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_easy_slider_records_round_trip(seed):
    start = es.Setup.from_seed(seed).state()
    moves, final = _random_game(start, random.Random(seed), 60)
    game = record("easy-slider", start, moves)
    setup = game.metadata["GameType"]
    assert setup["Name"] == "Easy Slider" and setup["Pawns"] == start.pawn_text()
    assert setup["Tiles"].startswith(start.board_text().split()[0][::-1])  # "2M" is written M2
    result = replay(one(ppn.dumps(game)))
    assert result.illegal is None and result.moves == moves and result.state == final


def test_easy_slider_reads_any_form_of_a_slide():
    start = es.Setup.from_seed(5).state()
    head = ppn.dumps(record("easy-slider", start, []))
    # the hole is on e1: the tile on e2 slides down, written three ways; then a diagonal slide and a pawn move
    tile = start.tile_at("e2")
    for form in ("e2-e1", "(5,2)-1D", "(5,2)-(5,1)", f"?{tile.suit.letter}{tile.rank}-e1"):
        result = replay(one(head + f"1. {form}\n"))
        assert result.illegal is None and [str(m) for m in result.moves] == ["e2-e1"], form
    result = replay(one(head + "1. e2-e1 2. d1-e2\n"))
    assert "diagonal" in result.illegal.reason and result.illegal.number == 2
    result = replay(one(head + "1. (0.25,5)-(0.25,4)\n"))
    assert "only tiles slide" in result.illegal.reason
    result = replay(one(head + "1. e2-e1 2. e1-1R\n"))
    assert "there is no cell (6,1)" in result.illegal.reason


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_slides_of_action_records_round_trip(seed):
    start = soa.State.initial(3 if seed % 2 else 2)
    moves, final = _random_game(start, random.Random(seed), 60)
    game = record("slides-of-action", start, moves, {"Event": "round trip"})
    result = replay(one(ppn.dumps(game)))
    assert result.illegal is None
    assert result.moves == moves and result.state == final
    assert result.goal_reached == final.is_over()


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_plans_of_action_records_round_trip(seed):
    start = poa.State.from_ppn_coins(poa.EXAMPLE_COINS)
    moves, final = _random_game(start, random.Random(seed), 40)
    game = record("plans-of-action", start, moves)
    assert game.metadata["GameType"]["Coins"] == poa.EXAMPLE_COINS
    result = replay(one(ppn.dumps(game)))
    assert result.illegal is None and result.moves == moves and result.state == final


def test_plans_of_action_engine_move_texts_are_ppn():
    # Every legal move's own text (a shift is relative), played on the PPN board, puts the pieces where the
    # rules do: the tile and its four coins move together, not to one point.
    from rules.ppn import plans_of_action as poa_ppn

    state = poa.State.from_ppn_coins(poa.EXAMPLE_COINS)
    shifts = [m for m in state.legal_moves() if isinstance(m, poa.Shift)]
    assert shifts and all(not str(m).endswith(")") for m in shifts)
    for move in state.legal_moves():
        after = play(poa_ppn.board(state), f"1. {move}")
        assert sorted((p.kind, p.x, p.y) for p in after) == sorted(
            (p.kind, p.x, p.y) for p in poa_ppn.board(state.apply(move))), str(move)


outcome_st = st.one_of(st.sampled_from([ms.Crash.FLAT, ms.Crash.OFF]),
                       st.builds(ms.Placement, st.floats(0, 900), st.floats(0, 600), st.floats(0, 89.9)))


@st.composite
def shuffleboard_games(draw):
    colors = draw(st.sampled_from([["red", "blue"], ["green", "orange", "black"], ["yellow", "clear"]]))
    state = start = ms.State.new(colors, draw(st.sampled_from(ms.VARIANTS)))
    moves = []
    for _ in range(draw(st.integers(1, 12))):
        if state.is_over():
            break
        piece = draw(st.sampled_from([f.piece for f in state.legal_moves()]))
        outcome = draw(outcome_st) if state.opened else draw(outcome_st.filter(lambda o: isinstance(o, ms.Placement)))
        crashes = []
        if state.opened and state.table:
            hit = draw(st.lists(st.sampled_from([p.piece for p in state.table]), unique=True, max_size=3))
            for p in hit:
                old = state.placed(p).at
                crashes.append((p, draw(outcome_st.filter(lambda o, old=old: o != old))))
        move = ms.Move(piece, outcome, tuple(crashes))
        moves.append(move)
        state = state.apply(move)
    return start, moves, state


@settings(max_examples=60, deadline=None)
@given(shuffleboard_games())
def test_martian_shuffleboard_records_round_trip(game):
    start, moves, final = game
    text = ppn.dumps(record("martian-shuffleboard", start, moves))
    result = replay(one(text))
    assert result.illegal is None, result.illegal
    assert result.moves == moves and result.state == final


def test_illegal_moves_are_reported_with_the_rules_reason():
    start = soa.State.initial(2)
    first = start.legal_moves()[0]
    text = ppn.dumps(record("slides-of-action", start, [first])) + f"2. {first.reverse()}\n"
    result = replay(one(text))
    assert result.illegal is not None and result.illegal.number == 2
    assert "no slide backs" in result.illegal.reason and result.illegal.move == str(first.reverse())
    # a jump of the wrong length in Plans of Action
    bad = one(PLANS_OF_ACTION.replace("(5,3)-4U;", "(5,3)-3U;"))
    result = replay(bad)
    assert result.illegal.number == 1 and "must jump over exactly 3" in result.illegal.reason
    # Martian Shuffleboard: the red player flicks twice
    text = ppn.dumps(record("martian-shuffleboard", ms.State.new(["red", "blue"]),
                            [ms.Move.parse("red-large>(0,0,0)")])) + "2. xR1@(50,-50)\n"
    result = replay(one(text))
    assert "blue's turn, not red's" in result.illegal.reason
    # a piece that is not there
    result = replay(one(PLANS_OF_ACTION.replace("(5,3)-4U;", "(8,8)-1U;")))
    assert "there is no piece at (8,8)" in result.illegal.reason


def test_unknown_or_missing_game_is_a_record_error():
    with pytest.raises(RecordError, match="tableside replays"):
        replay(one(CHESS))
    with pytest.raises(RecordError, match="add a GameType"):
        replay(one(TIC_TAC_TOE))
    with pytest.raises(RecordError, match="Coins"):
        replay(one("---\nGameType: Plans of Action\n...\n1. (5,3)-4U\n"))
