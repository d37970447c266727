"""Slides of Action: the seed's wording (set-up, slides, no slide backs, winning, variant) and random play."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import game_module
from rules.base import IllegalMove, LayoutError, RulesError
from rules.pieces import Suit
from rules.slides_of_action import INITIAL_DIAGRAM, Move, State, explain, parse_cell

A, C, S = Suit.ARMS, Suit.CROWNS, Suit.SUNS


def test_registered_under_its_game_name():
    assert game_module("slides-of-action").State is State


def test_initial_layout_is_ppgames_diagram_and_no_suit_starts_connected():
    s = State.initial()
    # ppgames df_slides_of_action: top row A C S A, bottom row A C S with the hole at d1.
    assert s.diagram() == "ACSA/SACS/CSAC/ACS."
    assert s.hole == (4, 1)
    assert s.coin_at("a4") is A and s.coin_at((3, 4)) is S and s.coin_at("d1") is None
    assert sorted(s.coins().values()).count(S) == 5
    assert s.connected_suits() == ()
    assert not s.is_over() and s.winner() is None


def test_turns_arms_first_clockwise_and_neutral_arms_in_two_player_game():
    three = State.initial(players=3)
    assert three.players == (A, C, S) and three.turn is A
    seq = [three]
    for _ in range(3):
        seq.append(seq[-1].apply(seq[-1].legal_moves()[0]))
    assert [x.turn for x in seq] == [A, C, S, A]
    two = State.initial()
    assert two.players == (C, S) and two.turn is C
    assert two.apply("c1-d1").turn is S
    with pytest.raises(LayoutError, match="arms is neutral"):
        State.initial(players=[A, C])


def test_legal_moves_slide_one_to_three_coins_into_the_hole():
    s = State.initial()
    texts = sorted(str(m) for m in s.legal_moves())
    assert texts == sorted(["c1-d1", "c1-d1 b1-c1", "c1-d1 b1-c1 a1-b1",
                            "d2-d1", "d2-d1 d3-d2", "d2-d1 d3-d2 d4-d3"])
    after = s.apply("c1-d1 b1-c1 a1-b1")
    # The three coins each moved one cell right; the hole is where the far coin was.
    assert after.diagram() == "ACSA/SACS/CSAC/.ACS"
    assert after.hole == (1, 1)
    after = s.apply(Move((4, 4), "D", 3))
    assert after.diagram() == "ACS./SACA/CSAS/ACSC"


def test_move_text_forms():
    m = Move.parse("c1-d1 b1-c1")
    assert m == Move((2, 1), "R", 2)
    assert str(m) == "c1-d1 b1-c1"
    assert Move.parse("b1-c1 c1-d1") == m  # any order
    assert Move.parse("(3,1)-(4,1) (2,1)-(3,1)") == m
    assert m.describe() == "slide the coins on b1 and c1 right"
    for bad in ["", "c1-e1", "c1-d1 b2-c2", "c1-d1 c2-c1", "c1d1", "c1-d1 c1-d1"]:
        with pytest.raises(RulesError):
            Move.parse(bad)
    assert parse_cell("(2,3)") == (2, 3) == parse_cell("B3")


def test_no_slide_backs():
    s = State.initial()
    after = s.apply("c1-d1")
    assert Move.parse("d1-c1") not in after.legal_moves()
    with pytest.raises(IllegalMove, match="no slide backs"):
        after.apply("d1-c1")
    # Sliding the same line back with a different length is a different move and allowed.
    shorter = s.apply("c1-d1 b1-c1").apply("c1-b1")
    assert shorter.hole == (3, 1)


def test_slide_back_rule_exact_undo_only():
    s = State.initial().apply("c1-d1").apply("c2-c1")
    with pytest.raises(IllegalMove, match="no slide backs"):
        s.apply("c1-c2")
    # Only that one move is barred; it is the previous move that counts, whoever made it.
    assert len(s.legal_moves()) == len(list(s._pseudo_moves())) - 1
    # Older positions may recur: the hole goes up to c3, then two coins slide up and it is back on c1.
    loop = s.apply("c3-c2").apply("c2-c3 c1-c2")
    assert loop.diagram() == State.initial().apply("c1-d1").diagram()


def test_illegal_slides_have_reasons():
    s = State.initial()
    with pytest.raises(IllegalMove, match="one, two or three coins, not 4"):
        s.apply(Move((1, 1), "R", 4))
    with pytest.raises(IllegalMove, match="hole at d1"):
        s.apply("b1-c1")
    with pytest.raises(IllegalMove, match="off the board"):
        s.apply("(4,0)-d1")
    with pytest.raises(IllegalMove, match="hole at d1"):
        s.apply("c2-d2")


def test_layout_errors():
    good = dict(State.initial().coins())
    with pytest.raises(LayoutError, match="two coins are on a1"):
        State.from_layout(list(good.items()) + [((1, 1), S)])
    with pytest.raises(LayoutError, match="off the 4x4 board"):
        State.from_layout({**good, (5, 1): S})
    with pytest.raises(LayoutError, match="exactly 5 suns coins, but the layout has 6"):
        State.from_layout({**good, (4, 1): S})
    missing = dict(good)
    del missing[(1, 1)]
    with pytest.raises(LayoutError, match="exactly 5 arms coins, but the layout has 4"):
        State.from_layout(missing)
    with pytest.raises(LayoutError, match="no moons coins"):
        State.from_layout({**good, (4, 1): Suit.MOONS})
    with pytest.raises(LayoutError, match="4 rows of 4 cells"):
        State.from_text("ACSA/SACS/CSAC")
    with pytest.raises(LayoutError, match="unknown suit"):
        State.from_text("ACSA/SACS/CSAC/ACSX")
    with pytest.raises(LayoutError, match="2 or 3 players"):
        State.initial(players=4)
    with pytest.raises(LayoutError, match="hole at a1, but the hole is at d1"):
        State.from_text(INITIAL_DIAGRAM, last_move="a1-b1")
    # Any position, not only the start, and words or colours for suits.
    s = State.from_layout({"a1": "suns", "b1": "red", (3, 1): "S", "d1": S, "a2": S,
                           **{c: "arms" for c in ["b2", "c2", "d2", "a3", "b3"]},
                           **{c: "crowns" for c in ["c3", "d3", "a4", "b4", "c4"]}})
    assert s.hole == (4, 4)
    assert s.connected_suits() == (A, C, S)


def test_win_for_a_single_connected_suit_even_when_an_opponent_moved():
    s = State.from_text("ACAS/AS.C/CSSS/CAAC")
    assert s.turn is C and s.connected_suits() == ()
    after = s.apply("c2-c3")
    assert after.connected_suits() == (S,)
    assert after.winner() is S and after.is_over()
    assert after.result() == "suns win"
    assert after.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over: suns win"):
        after.apply(after._pseudo_moves().__next__())


def test_simultaneous_connection_goes_to_the_mover():
    # Crowns to move connects both opponents' suits (arms and suns) at once: crowns win.
    s = State.from_text("SCCA/SACA/.ASA/CCSS")
    assert s.turn is C and s.connected_suits() == ()
    after = s.apply("b2-a2 c2-b2 d2-c2")
    assert after.connected_suits() == (A, S)
    assert after.winner() is C
    assert "crowns win" in after.result()
    # Had suns moved (3-player seat order crowns -> suns -> arms ...), suns would have won.
    s3 = State.from_text("SCCA/SACA/.ASA/CCSS", players=3, turn=S)
    assert s3.apply("b2-a2 c2-b2 d2-c2").winner() is S


def test_neutral_arms_may_win_in_the_two_player_game():
    s = State.from_text("CCAS/CAAS/SACS/CS.A")
    assert s.connected_suits() == ()
    after = s.apply("c2-c1 c3-c2")
    assert after.winner() is A
    assert after.result() == "arms (neutral) connected: both players lose"
    assert after.is_over()


def test_variant_at_most_one_diagonal_connection():
    two_diagonals = "ACAS/ACSC/ASA./CSSC"
    assert S in State.from_text(two_diagonals).connected_suits()
    assert S not in State.from_text(two_diagonals, one_diagonal=True).connected_suits()
    # Suns on a4 b4 c3 d3 d2: one diagonal link (b4-c3) joins two orthogonal groups.
    one_diagonal = "SSAC/ACSS/ACAS/C.CA"
    assert S in State.from_text(one_diagonal, one_diagonal=True).connected_suits()
    assert S in State.from_text(one_diagonal).connected_suits()


def test_explain_finds_moves_and_ignores_after_bookkeeping():
    s = State.initial()
    one = s.apply("c1-d1 b1-c1")
    # The camera's view: same coins, but default bookkeeping (crowns to move, no previous move).
    seen = State.from_text(one.diagram())
    assert seen != one
    e = explain(s, seen)
    assert e.legal and e.moves == (Move.parse("c1-d1 b1-c1"),)
    two = one.apply("b2-b1")
    e2 = explain(s, State.from_text(two.diagram()))
    assert e2.legal and len(e2.moves) == 2
    replay = s
    for m in e2.moves:
        replay = replay.apply(m)
    assert replay.diagram() == two.diagram()
    assert explain(s, State.from_text(s.diagram())).unchanged


def test_explain_says_why_not():
    s = State.initial().apply("c1-d1")
    back = State.from_text(State.initial().diagram())
    e = explain(s, back)
    assert not e.legal and "no slide backs" in e.reason
    swapped = State.from_text("CASA/SACS/CSAC/AC.S")  # a1/b4 swapped: no slide does that
    e = explain(s, swapped, max_moves=2)
    assert not e.legal and "no legal slide explains" in e.reason
    over = State.from_text("ACAS/AS.C/CSSS/CAAC").apply("c2-c3")
    e = explain(over, State.from_text("ACAS/AS.C/CSSS/CAAC"))
    assert not e.legal and "already over" in e.reason


@st.composite
def random_games(draw):
    players = draw(st.sampled_from([2, 3]))
    variant = draw(st.booleans())
    choices = draw(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=25))
    return State.initial(players=players, one_diagonal=variant), choices


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_random_play_keeps_invariants(game):
    state, choices = game
    for choice in choices:
        moves = state.legal_moves()
        if not moves:
            assert state.is_over()
            break
        move = moves[choice % len(moves)]
        assert Move.parse(str(move)) == move
        after = state.apply(move)  # never raises on a legal move
        coins = list(after.coins().values())
        assert len(coins) == 15 and all(coins.count(s) == 5 for s in (A, C, S))
        assert after.hole == move.start and after.coin_at(move.target) is not None
        for cell in move.cells:  # every coin of the line moved one cell on
            assert after.coin_at((cell[0] + move.target[0] - move.cells[-1][0],
                                  cell[1] + move.target[1] - move.cells[-1][1])) is state.coin_at(cell)
        assert explain(state, State.from_text(after.diagram())).moves == (move,)
        assert hash(after) == hash(State.from_layout(after.coins(), players=after.players, turn=after.turn,
                                                     last_move=after.last_move, one_diagonal=after.one_diagonal))
        state = after
