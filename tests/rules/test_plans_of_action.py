"""Plans of Action: the seed's wording and worked example, the published PPN example game, errors, random play."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import game_module
from rules.base import IllegalMove, LayoutError, RulesError
from rules.pieces import SUITS, Suit
from rules.plans_of_action import EXAMPLE_COINS, Jump, Move, Rotate, Shift, State, explain

S, M, C, A = Suit.SUNS, Suit.MOONS, Suit.CROWNS, Suit.ARMS

# A position in the middle of a game: the tile-space centred (5.5,5.5) is empty (its tile was shifted to the
# end of its row, to (9.5,5.5), as in step 11 of the seed's example). Rows top (y = 8) first, x = 1..10.
SHIFTED = """
........--
........--
.MAC--M.AC
.SMS--C.AS
.SACCAA.--
.MCMSSM.--
........--
........--
"""


def test_registered_under_its_game_name():
    assert game_module("plans-of-action").State is State


def test_ppn_set_up_string():
    s = State.from_ppn_coins(EXAMPLE_COINS)
    # Rows y = 6, 5, 4, 3 top first, each over x = 2..7.
    assert s.coin_at((2, 6)) is S and s.coin_at((3, 6)) is A and s.coin_at((7, 6)) is S
    assert s.coin_at((4, 5)) is A and s.coin_at((5, 5)) is C
    assert s.coin_at("b3") is M and s.coin_at((7, 3)) is M
    assert s.coin_at((1, 1)) is None and s.coin_at((8, 8)) is None
    assert sorted(s.tile_centres()) == [(x, y) for x in (1.5, 3.5, 5.5, 7.5) for y in (1.5, 3.5, 5.5, 7.5)]
    assert s.diagram().split("/")[2:6] == [".SASASS.", ".MMACSS.", ".CACCAA.", ".MCMCMM."]
    assert s.moves == 0 and s.pending is None and not s.is_solved() and not s.is_over()
    with pytest.raises(LayoutError, match="4 rows of 6 letters"):
        State.from_ppn_coins("SASASS/MMACSS/CACCAA")
    with pytest.raises(LayoutError, match="6 of each suit, but the layout has 8 suns"):
        State.from_ppn_coins("SSSSSS/MMACSS/CACCAA/MCMCMM")


def test_jump_over_as_many_spaces_as_coins_of_its_suit_in_line():
    s = State.from_ppn_coins()
    # "If there are two, it must Jump two spaces": the suns coin on (6,5) has two suns in its column (6,6 and
    # itself), so it jumps over two cells and lands on the third.
    assert s.line_count((6, 5), "D") == 2 and s.jump_distance((6, 5), "D") == 3
    assert s.apply("(6,5)-3D").coin_at((6, 2)) is S
    with pytest.raises(IllegalMove, match=r"jump over exactly 2 spaces \(there are 2 suns coins in its column\), "
                                          r"landing 3 cells away, not 2"):
        s.apply("(6,5)-2D")
    # "If a coin is the only one in the row, it may only Jump one space": over one space, landing two away.
    lone = s.apply("(5,3)-4U")  # the crowns coin on (3,3) is now the only crowns coin in row 3
    assert lone.line_count((3, 3), "L") == 1
    assert lone.apply("(3,3)-2L").coin_at((1, 3)) is C
    with pytest.raises(IllegalMove, match=r"over exactly 1 space \(it is the only crowns coin in its row\)"):
        lone.apply("(3,3)-1L")


def test_jump_lands_only_on_an_empty_cell_of_a_tile():
    s = State.from_ppn_coins()
    # Four suns in row 6: the coin on (2,6) jumps over four cells and would land on the suns coin on (7,6).
    with pytest.raises(IllegalMove, match=r"may not land on another coin: \(7,6\) holds a suns coin"):
        s.apply("(2,6)-5R")
    # Two suns in column 7: the coin on (7,6) would land on (7,9), past the edge of the tiles.
    with pytest.raises(IllegalMove, match=r"would land on \(7,9\), where there is no tile"):
        s.apply("(7,6)-3U")
    with pytest.raises(IllegalMove, match=r"no coin on \(1,1\)"):
        s.apply("(1,1)-2U")


def test_published_ppn_example_opening():
    # The Plans of Action example game published with the PPN specification (ppgames docs and the ludism
    # wiki), on the set-up Coins: SASASS/MMACSS/CACCAA/MCMCMM. Its first seven moves connect six moons.
    s = State.from_ppn_coins()
    for text in ["(5,3)-4U", "(3,3)-2L", "5(5.5,5.5)$>90!", "(5,5)-4L", "(2,5)-3R", "(5,5)-2D", "(3,5)-2D"]:
        assert not s.is_solved()
        s = s.apply(text)
    assert s.solved_suits() == (M,)
    assert s.is_solved() and s.is_over() and s.score == 7
    assert s.result() == "solved in 7 moves (moons connected)"
    assert s.legal_moves() == []
    with pytest.raises(IllegalMove, match="already solved in 7 moves"):
        s.apply("(2,6)-2U")


PPN_EXAMPLE = """
(5,3)-4U; (3,3)-2L; 5(5.5,5.5)$>90!; (5,5)-4L; (2,5)-3R;-2D; (3,5)-2D;
({2..7},3)-2D; (3,4)-3U; (4,5)-2U; (6,4)-3L;-4U; (6,6)-2U; (2,6)-4R; (1,5)-4R;
(7,6)-3D;-2L; (4,6)-3R; (6,6)-3D;-3L; (5,3)-3L; (7,6)-3D; (3,3)-2U; (7,3)-3L;
({3,5,6,7},5)-2D; (5,4)-4L; (1,3)-3U; (5,7)-3D; (1,4)-5R; (1,6)-2D; (7,4)-2U;
(3,6)-3R; (5,6)-2L;-2D; ({1..6},4)-2D; (4,7)-2D;-2R; (3,7)-3D;-2R; (3,8)-2D;
(6,8)-2L;-2D; (6,5)-3U;-2R;-2D; (5,4)-2U;
"""


def test_published_ppn_example_game_all_four_suits():
    # The whole published record (the author's preferred variant: all four suits). Steps such as
    # ({2..7},3)-2D use PPN brace expansion for several coins moving at once; each of those coins is the only
    # one of its suit in its column, so each makes its own legal 2-cell jump: we play them as separate moves.
    s = State.from_ppn_coins(goal="all")
    last = None
    expanded = 0
    for step in [t.strip() for t in PPN_EXAMPLE.replace("\n", " ").split(";") if t.strip()]:
        group = re.fullmatch(r"\(\{(.+)\},(\d+)\)-2D", step)
        if group:
            spec, y = group.group(1), int(group.group(2))
            lo, _, hi = spec.partition("..")
            xs = range(int(lo), int(hi) + 1) if hi else [int(v) for v in spec.split(",")]
            for x in xs:
                assert s.line_count((x, y), "D") == 1
                s = s.apply(Jump((x, y), "D", 2))
                expanded += 1
            continue
        if step.startswith("-"):  # PPN: an empty piece means the piece moved last
            step = f"({last[0]},{last[1]})" + step
        move = Move.parse(step)
        s = s.apply(move)
        last = move.target if isinstance(move, Jump) else None
    assert expanded == 16
    assert s.solved_suits() == tuple(SUITS) and s.is_solved()
    assert s.moves == 43 + 16  # 43 single steps (one a rotation) and the 16 expanded jumps
    assert s.diagram() == "......../......../..AAAAAA/......../......../.SSSSSS./CCCCCC../.MMMMMM."


def test_rotation_turns_the_coins_clockwise_and_a_coin_of_that_tile_must_jump_next():
    s = State.from_ppn_coins()
    # Example step 4: "the tile third from left, second tile down" is the one centred (5.5,5.5).
    turned = s.apply("5(5.5,5.5)$>90")
    # Before: top row A S, bottom row C S. Clockwise: the top-left coin goes top-right, and so on.
    assert [turned.coin_at(c) for c in [(5, 6), (6, 6), (5, 5), (6, 5)]] == [C, A, S, S]
    assert turned.pending == (5, 5) and turned.moves == 1
    half = s.apply("5(5.5,5.5)$>180")
    assert [half.coin_at(c) for c in [(5, 6), (6, 6), (5, 5), (6, 5)]] == [S, C, S, A]
    back = s.apply("5(5.5,5.5)$>270")
    assert [back.coin_at(c) for c in [(5, 6), (6, 6), (5, 5), (6, 5)]] == [S, S, A, C]
    # Example step 5: only coins of the rotated tile may move, and no tile may move.
    legal = turned.legal_moves()
    assert legal and all(isinstance(m, Jump) and 5 <= m.start[0] <= 6 and 5 <= m.start[1] <= 6 for m in legal)
    with pytest.raises(IllegalMove, match=r"tile at \(5.5,5.5\) was just rotated or shifted, so a coin from that "
                                          r"tile must jump now"):
        turned.apply("(2,6)-2U")
    with pytest.raises(IllegalMove, match=r"must jump before any tile may rotate"):
        turned.apply("5(3.5,3.5)$>90")
    # After that one jump, moves are free again (example step 13: the second coin's jump is not required).
    freed = turned.apply("(5,5)-4L")
    assert freed.pending is None
    assert any(isinstance(m, Rotate) for m in freed.legal_moves())


def test_only_fully_loaded_tiles_rotate_or_shift():
    s = State.from_ppn_coins()
    with pytest.raises(IllegalMove, match=r"only a fully loaded tile .* may rotate; the tile at \(1.5,1.5\) holds 0"):
        s.apply("5(1.5,1.5)$>90")
    with pytest.raises(IllegalMove, match=r"may shift; the tile at \(7.5,5.5\) holds 2"):
        s.apply("5(7.5,5.5)-(9.5,5.5)")
    with pytest.raises(IllegalMove, match="90, 180 or 270 degrees, not 45"):
        s.apply(Rotate((5, 5), 45))
    with pytest.raises(IllegalMove, match=r"no tile at \(9.5,9.5\)"):
        s.apply("5(9.5,9.5)$>90")


def test_shift_to_the_next_empty_tile_space_beyond_the_block():
    s = State.from_ppn_coins()
    # Example step 11: the block is full, so a tile shifted right goes to the end of its row, past the edge.
    shifted = s.apply("5(3.5,5.5)-(9.5,5.5)")
    assert (3, 5) not in shifted.tiles and (9, 5) in shifted.tiles and len(shifted.tiles) == 16
    assert [shifted.coin_at(c) for c in [(9, 6), (10, 6), (9, 5), (10, 5)]] == [A, S, M, A]
    assert not shifted.has_tile_at((3, 5)) and shifted.coin_at((3, 5)) is None
    assert shifted.pending == (9, 5)
    assert shifted.diagram().split("/")[2:4] == [".S--ASS.AS", ".M--CSS.MA"]
    with pytest.raises(IllegalMove, match=r"next empty tile-space that way, which is \(9.5,5.5\), not \(5.5,5.5\)"):
        s.apply("5(3.5,5.5)-(5.5,5.5)")
    with pytest.raises(IllegalMove, match="orthogonally"):
        s.apply("5(3.5,5.5)-(5.5,7.5)")
    # Example step 12: a coin of the shifted tile must jump next.
    assert [str(m) for m in shifted.legal_moves()] == ["(10,5)-2L"]
    after = shifted.apply("(10,5)-2L")
    assert after.coin_at((8, 5)) is A and after.pending is None and after.moves == 2
    # Example step 14: a loaded tile shifts left into the empty tile-space the first shift left.
    into_hole = after.apply("5(5.5,5.5)-(3.5,5.5)")
    assert into_hole.tiles == (s.tiles - {(5, 5)}) | {(9, 5)} and into_hole.pending == (3, 5)


def test_shift_passes_over_tiles_to_the_next_empty_tile_space():
    p = State.from_diagram(SHIFTED)
    assert len(p.tiles) == 16 and not p.has_tile_at((5, 5)) and p.has_tile_at((10, 6))
    # The tile at (9.5,5.5) shifting left passes over (7.5,5.5) into the empty space at (5.5,5.5).
    left = p.apply("5(9.5,5.5)-(5.5,5.5)")
    assert [left.coin_at(c) for c in [(5, 6), (6, 6), (5, 5), (6, 5)]] == [A, C, A, S]
    with pytest.raises(IllegalMove, match=r"which is \(5.5,5.5\), not \(3.5,5.5\)"):
        p.apply("5(9.5,5.5)-(3.5,5.5)")
    # Relative PPN form of the same shift, in cells.
    assert Move.parse("5(9.5,5.5)-4L") == Shift((9, 5), (5, 5))


def test_the_same_tile_may_shift_again_once_loaded_again():
    # Example steps 16 and 19: a tile shifts up into the first empty tile-space above it; later, loaded with
    # other coins, the same tile shifts down to the next empty tile-space below, a completely new shift.
    p = State.from_diagram(SHIFTED)
    up = p.apply("5(5.5,3.5)-(5.5,5.5)")
    assert up.pending == (5, 5) and not up.has_tile_at((5, 3))
    reloaded = up.apply("(5,5)-2U").apply("(3,5)-2R")
    assert reloaded.is_loaded((5, 5)) and reloaded.coin_at((5, 5)) is M
    down = reloaded.apply("5(5.5,5.5)-(5.5,3.5)")
    assert down.has_tile_at((5, 3)) and not down.has_tile_at((5, 5)) and down.moves == 4


def test_jump_counts_the_cells_of_an_empty_tile_space():
    # Example step 21: "a Red coin has Jumped three spaces to the right ... although there is an empty tile-space
    # in the middle, you still count the two spaces that would be there."
    p = State.from_diagram(SHIFTED)
    assert p.line_count((4, 5), "R") == 3
    after = p.apply("(4,5)-4R")  # over (5,5) and (6,5) (no tile) and (7,5), onto (8,5)
    assert after.coin_at((8, 5)) is S and after.coin_at((4, 5)) is None
    # "While a coin may not land in an empty tile-space, it can Jump over it."
    with pytest.raises(IllegalMove, match=r"land on \(6,5\), where there is no tile"):
        p.apply("(2,5)-4R")
    # Counting only the cells of tiles would make it a 2-cell jump onto the crowns coin: wrong length.
    with pytest.raises(IllegalMove, match="jump over exactly 3 spaces"):
        p.apply("(4,5)-3R")


def test_rotation_or_shift_needs_a_coin_that_can_then_jump():
    # Turned 90 degrees, the tile at (9.5,5.5) would hold a suns coin on (9,6), an arms coin on (10,6), a moons
    # coin on (9,5) and an arms coin on (10,5); none of them could then land on an empty cell of a tile.
    p = State.from_diagram(".S......--/........--/..--.SSAAS/..--C.S.MA/CC.A.AA.--/.MMCCMM.--/.MC..S..--/........--")
    assert p.is_loaded((9, 5)) and p.pending is None
    with pytest.raises(IllegalMove, match="after that rotation no coin on the tile could jump, and one must"):
        p.apply("5(9.5,5.5)$>90")
    assert Rotate((9, 5), 90) not in p.legal_moves()
    assert Rotate((9, 5), 180) in p.legal_moves()


def test_move_text_forms_round_trip():
    for text in ["(5,3)-4U", "5(5.5,5.5)$>90", "5(7.5,5.5)-2R", "(-1,5)-2R", "5(-0.5,5.5)-2R", "5(1.5,9.5)-6D"]:
        assert str(Move.parse(text)) == text
    # A shift is written relative (PPN moves the tile and its coins by one offset); the absolute form still reads.
    assert Move.parse("5(7.5,5.5)-(9.5,5.5)") == Move.parse("5(7.5,5.5)-2E") == Shift((7, 5), (9, 5))
    assert str(Shift((7, 5), (9, 5))) == "5(7.5,5.5)-2R" and str(Shift((3, 5), (3, -1))) == "5(3.5,5.5)-6D"
    assert Move.parse(str(Shift((1, 1), (3, 3)))) == Shift((1, 1), (3, 3))  # not a legal shift, but it reads back
    assert Move.parse("e3-e7") == Move.parse("(5,3)-(5,7)") == Move.parse("(5,3)-4N") == Jump((5, 3), "U", 4)
    assert Move.parse("5(5.5,5.5)$>90!") == Move.parse("(5.5,5.5)$>90") == Rotate((5, 5), 90)
    assert Jump((5, 3), "U", 4).describe() == "jump the coin on (5,3) up to (5,7)"
    for bad in ["", "(5,3)-(6,4)", "(5,3)", "5(5,3)-2U", "(5,3)-(5.5,7)", "(4.5,5.5)$>90", "hello"]:
        with pytest.raises(RulesError):
            Move.parse(bad)


def test_layout_errors():
    good = State.from_ppn_coins().coin_map()
    with pytest.raises(LayoutError, match=r"two coins are on \(2,6\)"):
        State.from_layout(list(good.items()) + [((2, 6), S)])
    with pytest.raises(LayoutError, match=r"coin at \(9,5\) is off the tiles"):
        State.from_layout({**{c: s for c, s in good.items() if c != (2, 6)}, (9, 5): S})
    with pytest.raises(LayoutError, match="has 7 suns"):
        State.from_layout({**good, (1, 1): S})
    with pytest.raises(LayoutError, match="all 16 tiles, but the layout has 15"):
        State.from_layout(good, tiles=[(x, y) for x in (1.5, 3.5, 5.5, 7.5) for y in (1.5, 3.5, 5.5)] + [
            (1.5, 7.5), (3.5, 7.5), (5.5, 7.5)])
    with pytest.raises(LayoutError, match="off the tile grid"):
        State.from_layout(good, tiles=[(x, y) for x in (1.5, 3.5, 5.5, 7.5) for y in (1.5, 3.5, 5.5)] + [
            (1.5, 7.5), (3.5, 7.5), (5.5, 7.5), (8.5, 7.5)])
    with pytest.raises(LayoutError, match=r"two tiles are on the tile-space at \(1.5,1.5\)"):
        State.from_layout(good, tiles=[(1.5, 1.5)] * 2)
    with pytest.raises(LayoutError, match="must hold four coins"):
        State.from_layout(good, pending=(1.5, 1.5))
    with pytest.raises(LayoutError, match="unknown goal"):
        State.from_layout(good, goal="two")
    with pytest.raises(LayoutError, match="only partly covered"):
        State.from_diagram(SHIFTED.replace(".MAC--M.AC", ".MAC-.M.AC"))
    assert State.from_layout(good, pending="(5.5,5.5)").pending == (5, 5)


def test_goal_all_four_suits_and_stuck_positions():
    # Six moons in a row solve the one-suit goal but not the all-suits variant.
    s = State.from_diagram(".MMMMMM./.SASCSA./.SACCAA./.CCSCAS./......../......../......../........")
    assert s.solved_suits() == (M,) and s.is_solved()
    assert not State.from_diagram(s.diagram(), goal="all").is_solved()
    done = State.from_diagram("MMMMMM../SSSSSS../CCCCCC../AAAAAA../......../......../......../........", goal="all")
    assert done.is_solved() and done.result() == "solved in 0 moves (suns and moons and crowns and arms connected)"


def test_explain_finds_one_move_and_rotate_then_jump():
    s = State.from_ppn_coins()
    one = s.apply("(6,5)-3D")
    seen = State.from_layout(one.coin_map())  # the camera's view: no move count, no obligation
    e = explain(s, seen)
    assert e.legal and e.moves == (Jump((6, 5), "D", 3),)
    two = s.apply("5(5.5,5.5)$>90").apply("(5,5)-4L")
    e = explain(s, State.from_layout(two.coin_map()))
    assert e.legal and [str(m) for m in e.moves] == ["5(5.5,5.5)$>90", "(5,5)-4L"]
    assert explain(s, State.from_ppn_coins()).unchanged
    # A shift seen by the camera: the tiles moved too.
    shifted = s.apply("5(3.5,5.5)-(9.5,5.5)")
    view = State.from_layout(shifted.coin_map(), tiles=shifted.tile_centres())
    assert explain(s, view).moves == (Shift((3, 5), (9, 5)),)


def test_explain_says_why_a_change_is_illegal():
    s = State.from_ppn_coins()
    e = explain(s, State.from_layout(_moved(s, (6, 5), (6, 7))))  # 2 cells up where it must go 3
    assert not e.legal
    assert e.reason == ("jump the coin on (6,5) up to (6,7) is not allowed: that suns coin must jump over exactly "
                        "2 spaces (there are 2 suns coins in its column), landing 3 cells away, not 2")
    turned = s.apply("5(5.5,5.5)$>90")
    other = State.from_layout(_moved(turned, (2, 6), (2, 8)))
    e = explain(turned, other, max_moves=1)
    assert not e.legal and "must jump now" in e.reason
    swapped = dict(s.coin_map())
    swapped[(2, 6)], swapped[(2, 5)] = swapped[(2, 5)], swapped[(2, 6)]
    e = explain(s, State.from_layout(swapped), max_moves=1)
    assert not e.legal and "no legal move" in e.reason
    solved = State.from_diagram(".MMMMMM./.SASCSA./.SACCAA./.CCSCAS./......../......../......../........")
    e = explain(solved, State.from_layout(_moved(solved, (2, 6), (2, 4))))
    assert not e.legal and "already solved" in e.reason


def _moved(state, src, dst):
    coins = state.coin_map()
    coins[dst] = coins.pop(src)
    return coins


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=12), st.sampled_from(["one", "all"]))
def test_random_play_keeps_invariants(choices, goal):
    state = State.from_ppn_coins(goal=goal)
    for choice in choices:
        moves = state.legal_moves()
        if not moves:
            assert state.is_over()
            break
        move = moves[choice % len(moves)]
        assert Move.parse(str(move)) == move
        after = state.apply(move)  # never raises on a legal move
        coins = after.coin_map()
        assert len(coins) == 24 and all(list(coins.values()).count(s) == 6 for s in SUITS)
        assert len(after.tiles) == 16 and all(after.has_tile_at(c) for c in coins)
        assert after.moves == state.moves + 1
        if isinstance(move, (Rotate, Shift)):
            assert after.pending is not None and after.is_loaded(after.pending)
            assert all(isinstance(m, Jump) for m in after.legal_moves())
        else:
            assert after.pending is None
        view = State.from_layout(coins, tiles=after.tile_centres())
        e = explain(state, view, max_moves=1)
        assert e.legal and len(e.moves) <= 1
        replay = state.apply(e.moves[0]) if e.moves else state
        assert (replay.tiles, replay.coins) == (after.tiles, after.coins)
        assert hash(view) == hash(State.from_layout(coins, tiles=after.tile_centres()))
        state = after


def test_initial_and_random_set_ups():
    from rules.plans_of_action import random_coins

    assert State.initial() == State.from_ppn_coins(EXAMPLE_COINS)
    text = random_coins(7)
    assert text == random_coins(7) and text != random_coins(8)
    s = State.initial(text, goal="all")
    assert s.goal == "all" and sorted(s.coin_map()) == sorted(State.initial().coin_map())
