"""Easy Slider rules: the seed's worked examples, layouts and their errors, moves, Done checks, explain, the
Caller's set-up, match scoring, the "Slide!" variant and the solver hooks."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.easy_slider import (
    CELLS,
    Cell,
    Match,
    Move,
    Setup,
    State,
    check_slide_call,
    explain,
    parse_tile,
    round_points,
    tile_token,
)
from rules.pieces import SUITS, Suit, Tile

# The rules' diagram: pawns K, R, B, G beside rows 1-4 and coins 2 4 5 A 3 above the columns. The board is
# written suit first (piecepackr's order, "M2"); the engine reads both orders and prints rank first ("2M").
DIAGRAM_PAWNS = "KRBG"
DIAGRAM_COINS = "245A3"
SOLVED_TEXT = """
M2 M4 M5 Ma M3
S2 S4 S5 Sa S3
A2 A4 A5 Aa A3
C2 C4 C5 Ca C3
Sn Mn Cn An ..
"""


def solved() -> State:
    return State.from_layout(SOLVED_TEXT, DIAGRAM_PAWNS, DIAGRAM_COINS)


def play(state: State, moves: str) -> State:
    for m in moves.split():
        state = state.apply(m)
    return state


def random_play(state: State, steps: int, rng: random.Random) -> State:
    for _ in range(steps):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


# --- the seed's worked examples ---------------------------------------------------------------------------------


def test_diagram_targets_from_the_rules():
    s = solved()
    assert s.pawns == (Suit.MOONS, Suit.SUNS, Suit.ARMS, Suit.CROWNS)  # K = black, R = red, B = blue, G = green
    assert s.coins == (2, 4, 5, 1, 3)
    # "the tile in the top left corner should be the Black 2 (2 of Moons), the second tile in that row should
    # be the Black 4, the tile at the end of the second row should be the Red 3 (3 of Suns)"
    assert s.target(Cell(1, 1)) == Tile(Suit.MOONS, 2) and s.target(Cell(1, 1)).spoken == "Black 2"
    assert s.target(Cell(1, 2)) == Tile(Suit.MOONS, 4) and s.target(Cell(1, 2)).spoken == "Black 4"
    assert s.target(Cell(2, 5)) == Tile(Suit.SUNS, 3) and s.target("e4").spoken == "Red 3"
    assert s.target("a1") is None  # the bottom row: any null, or the hole
    assert s.target_cell(Tile(Suit.SUNS, 3)) == Cell.parse("e4")
    assert s.target_cell(Tile(Suit.ARMS, 0)) is None
    assert s.is_over() and s.done_check().correct


def test_parity_sponge_nulls_in_any_order_hole_anywhere_in_the_bottom_row():
    top = SOLVED_TEXT.strip().split("\n")[:4]
    for bottom in itertools.permutations(["Sn", "Mn", "Cn", "An", ".."]):
        s = State.from_layout(top + [" ".join(bottom)], DIAGRAM_PAWNS, DIAGRAM_COINS)
        assert s.is_over()
        assert s.solution() == () and s.hint() is None and s.par() == 0


def test_caller_words_follow_the_seed():
    # "Blue 5, Green Null, Green 2, Red Ace..." — a set-up whose first four flipped tiles are those.
    first = [Tile("arms", 5), Tile("crowns", 0), Tile("crowns", 2), Tile("suns", 1)]
    rest = [t for t in (Tile(s, r) for s in SUITS for r in range(6)) if t not in first]
    setup = Setup(None, tuple(first + rest), (Suit.MOONS, Suit.SUNS, Suit.ARMS, Suit.CROWNS), (2, 4, 5, 1, 3),
                  Suit.SUNS)
    words = setup.script()
    assert words[:4] == ["Black", "Red", "Blue", "Green"]
    assert words[4:9] == ["2", "4", "5", "Ace", "3"]
    assert ", ".join(words[9:13]) == "Blue 5, Green Null, Green 2, Red Ace"
    calls = setup.calls()
    assert [c.place for c in calls[:2]] == ["row 1", "row 2"]
    assert calls[4].place == "column 1" and calls[9].place == "a5" and calls[-1].place == "d1"
    state = setup.state()
    assert state.hole == Cell.parse("e1")  # the hole is bottom-right
    assert state.tile_at("a5") == Tile("arms", 5) and state.tile_at("b5") == Tile("crowns", 0)


# --- cells and moves --------------------------------------------------------------------------------------------


def test_cell_names():
    assert Cell(5, 1).name == "a1" and Cell(1, 1).name == "a5" and Cell(1, 5).name == "e5"
    assert Cell.parse("a1") == Cell.from_xy(1, 1) == Cell.parse("(1,1)") == Cell.parse(" A1 ")
    assert (Cell.parse("b4").row, Cell.parse("b4").col, Cell.parse("b4").x, Cell.parse("b4").y) == (2, 2, 2, 4)
    assert [c.name for c in CELLS[:6]] == ["a5", "b5", "c5", "d5", "e5", "a4"]
    assert all(Cell.from_index(c.index) == c for c in CELLS)
    assert sorted(CELLS, reverse=True)[-1] == Cell(1, 1)  # cells order in reading order
    assert Cell.parse("c3").step("U") == Cell.parse("c4") and Cell.parse("c3").step("e") == Cell.parse("d3")
    assert Cell.parse("a1").step("D") is None
    for bad in ("f1", "a6", "(0,3)", "(6,1)", "", "a"):
        with pytest.raises(RulesError, match="cell"):
            Cell.parse(bad)
    with pytest.raises(RulesError, match="no cell"):
        Cell(0, 3)


def test_move_text_forms():
    m = Move(Cell.parse("b2"), Cell.parse("b1"))
    assert str(m) == "b2-b1" and m.direction == "down"
    assert Move.parse("b2-b1") == Move.parse("b2-D") == Move.parse("(2,2)-D") == Move.parse("(2,2)-(2,1)") == m
    assert Move.parse("B2 - S") == m and Move.parse("b2-1D") == m
    assert eval(repr(m)) == m and Move("b2", "b1") == m
    for bad, message in (("b2", "cannot read the move"), ("b2-2D", "one cell"), ("a1-L", "off the board"),
                         ("b2-z9", "cell")):
        with pytest.raises(RulesError, match=message):
            Move.parse(bad)


def test_legal_moves_and_illegal_slides():
    s = solved()  # hole on e1
    assert [str(m) for m in s.legal_moves()] == ["e2-e1", "d1-e1"]
    t = s.apply("e2-e1")
    assert t.hole == Cell.parse("e2") and t.tile_at("e1") == Tile("crowns", 3)
    assert s.push(Move.parse("e2-e1")) == t
    cases = [
        ("e1-e2", "there is no tile on e1"),
        ("a5-a4", "cannot slide to a4: the 2 of suns is there"),
        ("c1-e1", "not next to the hole"),
        ("d2-e1", "diagonal"),
    ]
    for text, message in cases:
        with pytest.raises(IllegalMove, match=message) as info:
            s.apply(text)
        assert info.value.move == Move.parse(text)
    assert not s.is_legal(Move.parse("c1-e1")) and s.is_legal(Move.parse("d1-e1"))


# --- layouts ----------------------------------------------------------------------------------------------------


def test_layout_text_forms_round_trip():
    s = random_play(solved(), 40, random.Random(3))
    assert State.from_layout(s.board_text(), s.pawn_text(), s.coin_text()) == s
    assert State.from_layout(s.board_text().replace("\n", " / "), s.pawns, list(s.coins)) == s
    assert State.from_layout(s.board_text().split("\n"), s.pawns, s.coins) == s
    assert State.from_layout([row.split() for row in s.board_text().split("\n")], s.pawns, s.coins) == s
    assert State.from_layout(list(s.board), [p.colour for p in s.pawns], [str(c) for c in s.coins]) == s
    assert State.from_dict(s.to_dict()) == s
    assert eval(repr(s)) == s
    assert hash(State.from_layout(s.board_text(), s.pawn_text(), s.coin_text())) == hash(s)
    black_2 = Tile("moons", 2)
    assert parse_tile("2 of moons") == parse_tile("Black 2") == parse_tile(("moons", 2)) == black_2
    assert parse_tile("2M") == parse_tile("2m") == parse_tile("M2") == black_2  # rank first; suit first read too
    assert parse_tile("aA") == parse_tile("Aa") == Tile("arms", 1) and parse_tile("nS") == parse_tile("Sn")
    assert parse_tile("..") is None and tile_token(None) == ".." and tile_token(Tile("arms", 1)) == "aA"
    assert tile_token(black_2) == "2M" and tile_token(Tile("crowns", 0)) == "nC"
    assert solved().diagram().split("\n") == [
        "     2   4   5   a   3",
        "M   2M  4M  5M  aM  3M",
        "S   2S  4S  5S  aS  3S",
        "A   2A  4A  5A  aA  3A",
        "C   2C  4C  5C  aC  3C",
        "    nS  nM  nC  nA  ..",
    ]


def test_impossible_layouts_are_refused_with_a_sentence():
    rows = SOLVED_TEXT.strip().split("\n")
    full = rows[:4] + ["Sn Mn Cn An An"]
    cases = [
        (rows[:4] + ["Sn Mn Cn An"], DIAGRAM_PAWNS, DIAGRAM_COINS, "5 rows of 5 cells"),
        (rows[:4], DIAGRAM_PAWNS, DIAGRAM_COINS, "5 rows of 5 cells"),
        (full, DIAGRAM_PAWNS, DIAGRAM_COINS, "25 tiles and no hole"),
        (rows[:4] + ["Sn Mn Cn .. .."], DIAGRAM_PAWNS, DIAGRAM_COINS, "2 holes"),
        (rows[:4] + ["Sn Mn Cn .. C3"], DIAGRAM_PAWNS, DIAGRAM_COINS, r"3 of crowns is on the board twice \(e2 and e1"),
        (SOLVED_TEXT, "KRBK", DIAGRAM_COINS, "black pawn stands beside two rows"),
        (SOLVED_TEXT, "KRB", DIAGRAM_COINS, "4 pawns"),
        (SOLVED_TEXT, DIAGRAM_PAWNS, "24513a", "5 coins"),
        (SOLVED_TEXT, DIAGRAM_PAWNS, "2443a", r"4 coin is above two columns \(2 and 3\)"),
        (SOLVED_TEXT, DIAGRAM_PAWNS, "245n3", "null coin"),
        (SOLVED_TEXT.replace("M2", "X7"), DIAGRAM_PAWNS, DIAGRAM_COINS, "cannot read the tile 'X7'"),
        (SOLVED_TEXT, "KRBZ", DIAGRAM_COINS, "cannot read the pawn"),
        (SOLVED_TEXT, DIAGRAM_PAWNS, "2457x", "cannot read the coin"),
    ]
    for board, pawns, coins, message in cases:
        with pytest.raises(LayoutError, match=message):
            State.from_layout(board, pawns, coins)
    # 25 tiles and no hole: one tile of a second set is the only way to fill the hole without a duplicate.
    with pytest.raises(LayoutError, match="no hole"):
        State(tuple(Tile(s, r) for s in SUITS for r in range(6)) + (Tile("suns", 0),), solved().pawns, (2, 4, 5, 1, 3))
    with pytest.raises(LayoutError, match="25 cells"):
        State.from_layout(["2M"] * 3, DIAGRAM_PAWNS, DIAGRAM_COINS)
    with pytest.raises(LayoutError, match="bottom row"):
        State.solved(DIAGRAM_PAWNS, DIAGRAM_COINS, hole="a5")
    with pytest.raises(LayoutError, match="4 pawns"):
        State.solved("KRB", DIAGRAM_COINS)
    assert State.solved(DIAGRAM_PAWNS, DIAGRAM_COINS) == solved()
    assert State.solved(DIAGRAM_PAWNS, DIAGRAM_COINS, hole="a1").tile_at("a1") is None


# --- the Done check ---------------------------------------------------------------------------------------------


def test_done_check_lists_every_wrong_cell_in_reading_order():
    s = solved()
    assert s.done_check().correct and s.done_check().wrong_cells == ()
    assert s.done_check().spoken() == "Correct!"
    # One swap away: the 2 and the 4 of moons exchanged (as if lifted).
    swapped = State.from_layout(SOLVED_TEXT.replace("M2 M4", "M4 M2"), DIAGRAM_PAWNS, DIAGRAM_COINS)
    check = swapped.done_check()
    assert not check.correct and not swapped.is_over()
    assert [(w.cell.name, w.found, w.wanted) for w in check.wrong_cells] == [
        ("a5", Tile("moons", 4), Tile("moons", 2)),
        ("b5", Tile("moons", 2), Tile("moons", 4)),
    ]
    assert str(check) == ("fumble: 2 cells are wrong: a5 has the 4 of moons, should have the 2 of moons; "
                          "b5 has the 2 of moons, should have the 4 of moons")
    assert check.spoken() == "Fumble! A5 has Black 4, should be Black 2. B5 has Black 2, should be Black 4."
    dealt = Setup.from_seed(5).state().done_check()
    assert dealt.spoken().endswith(f"and {len(dealt.wrong_cells) - 3} more cells.")
    assert dealt.spoken(limit=30).count("should be") == len(dealt.wrong_cells)
    # The hole in a wrong place: slide the 3 of crowns down into the bottom row.
    up = s.apply("e2-e1")
    assert [str(w) for w in up.done_check().wrong_cells] == [
        "e2 has the hole, should have the 3 of crowns",
        "e1 has the 3 of crowns, should have a null tile or the hole",
    ]
    # A null out of the bottom row, three slides later.
    nul = play(s, "e2-e1 d2-e2 d1-d2")
    wrong = {w.cell.name: w for w in nul.done_check().wrong_cells}
    assert sorted(wrong) == ["d2", "e1", "e2"]
    assert wrong["d2"].found == Tile("arms", 0) and wrong["d2"].wanted == Tile("crowns", 1)
    assert wrong["e2"].found == Tile("crowns", 1) and wrong["e1"].found == Tile("crowns", 3)
    assert [w.cell for w in nul.done_check().wrong_cells] == sorted(w.cell for w in nul.done_check().wrong_cells)


# --- random play --------------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(1, 60))
def test_random_legal_play_keeps_the_invariants(seed, steps):
    rng = random.Random(seed)
    s = Setup.from_seed(seed).state()
    tiles = sorted(t for t in s.board if t is not None)
    for _ in range(steps):
        moves = s.legal_moves()
        assert 2 <= len(moves) <= 4
        m = rng.choice(moves)
        assert Move.parse(str(m)) == m
        t = s.apply(m)  # never raises on a legal move
        assert sorted(x for x in t.board if x is not None) == tiles and t.board.count(None) == 1
        assert t.hole == m.from_cell and t.tile_at(m.to_cell) == s.tile_at(m.from_cell)
        assert explain(s, t).moves == (m,)
        assert State.from_layout(t.board_text(), t.pawn_text(), t.coin_text()) == t
        s = t


# --- explain ------------------------------------------------------------------------------------------------------


def test_explain_moves_and_reasons():
    s = solved()
    assert explain(s, s).unchanged
    two = play(s, "e2-e1 e3-e2")
    e = explain(s, two)
    assert e.legal and [str(m) for m in e.moves] == ["e2-e1", "e3-e2"] and str(e) == "e2-e1; e3-e2"
    swapped = State.from_layout(SOLVED_TEXT.replace("M2 M4", "M4 M2"), DIAGRAM_PAWNS, DIAGRAM_COINS)
    assert explain(s, swapped).reason.startswith("two tiles changed places (the 2 of moons on a5 and the 4 of moons "
                                                 "on b5): tiles cannot jump")
    lifted = State.from_layout(SOLVED_TEXT.replace("Cn An ..", "Cn An M3").replace("Ma M3", "Ma .."),
                               DIAGRAM_PAWNS, DIAGRAM_COINS)
    assert explain(s, lifted).reason.startswith("a tile was picked up: the 3 of moons went from e5 to e1")
    diagonal = State.from_layout(SOLVED_TEXT.replace("Ca C3", ".. C3").replace("An ..", "An Ca"), DIAGRAM_PAWNS,
                                 DIAGRAM_COINS)
    assert "moved diagonally from d2 to e1" in explain(s, diagonal).reason
    pawns = State.from_layout(SOLVED_TEXT, "RKBG", DIAGRAM_COINS)
    assert explain(s, pawns).reason.startswith("the pawns changed (beside rows 1, 2)")
    coins = State.from_layout(SOLVED_TEXT, DIAGRAM_PAWNS, "425a3")
    assert explain(s, coins).reason.startswith("the coins changed (above columns 1, 2)")
    far = random_play(s, 30, random.Random(1))
    assert "too much changed at once" in explain(s, far).reason


# --- the Caller's set-up -----------------------------------------------------------------------------------------


def test_setup_is_reproducible_from_a_seed():
    a, b = Setup.from_seed(2003), Setup.from_seed(2003)
    assert a == b and a.script() == b.script() and a.state() == b.state()
    assert Setup.from_seed(2004).script() != a.script()
    words = a.script()
    assert len(words) == 4 + 5 + 24
    assert sorted(words[:4]) == ["Black", "Blue", "Green", "Red"]
    assert sorted(words[4:9]) == ["2", "3", "4", "5", "Ace"]
    state = a.state()
    assert words[4:9] == ["Ace" if c == 1 else str(c) for c in state.coins]
    assert words[9:] == [t.spoken for t in state.board if t is not None]  # flipped in reading order
    assert state.hole == Cell.parse("e1")
    assert [c.kind for c in a] == ["pawn"] * 4 + ["coin"] * 5 + ["tile"] * 24
    # The shuffle is fair enough that 200 seeds put every tile in the top-left corner at least once.
    assert len({Setup.from_seed(i).tiles[0] for i in range(200)}) == 24


# --- match scoring -------------------------------------------------------------------------------------------------

FIVE = ["Ann", "Bob", "Cy", "Di", "Ed"]


def test_round_points_worked_examples():
    clean = round_points(FIVE, [("Ann", True), ("Bob", True), ("Cy", True), ("Di", True)])
    assert clean == {"Ann": 4, "Bob": 3, "Cy": 2, "Di": 1, "Ed": 0}  # rules 5, 7 and 8
    fumble = round_points(FIVE, [("Ann", True), ("Bob", False), ("Cy", True), ("Di", True)])
    assert fumble == {"Ann": 5, "Bob": 0, "Cy": 3, "Di": 2, "Ed": 1}  # rule 9: every non-fumbler gets the bonus
    first_fumbles = round_points(FIVE, [("Ann", False), ("Bob", True), ("Cy", False), ("Di", True)])
    assert first_fumbles == {"Ann": 0, "Bob": 3 + 2, "Cy": 0, "Di": 1 + 2, "Ed": 0 + 2}
    assert round_points(["Ann", "Bob"], [("Ann", False)]) == {"Ann": 0, "Bob": 1}
    assert round_points(["Solo"], []) == {"Solo": 0}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 7), data=st.data())
def test_round_points_follow_rules_5_to_9(n, data):
    players = [f"P{i}" for i in range(n)]
    order = data.draw(st.permutations(players))
    correct = data.draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
    finishes = list(zip(order[:-1], correct, strict=True))
    points = round_points(players, finishes)
    fumblers = {p for p, ok in finishes if not ok}
    f = len(fumblers)
    assert all(points[p] == 0 for p in fumblers)  # rule 6
    assert points[order[-1]] == f  # rule 8 (zero) plus rule 9's bonus
    for i, (p, ok) in enumerate(finishes):
        if ok:  # beat the players still solving at his Done, plus one bonus per fumbler
            assert points[p] == (n - 1 - i) + f
    if f == 0:  # no fumbles: n-1, n-2, ..., 0
        assert sorted(points.values()) == list(range(n))


def test_match_rounds_totals_playoff_and_errors():
    m = Match(FIVE, rounds=2)
    assert m.done("Ann", True) == 4  # announced at once: the four others still playing
    assert m.done("Bob", False) == 0
    assert m.done("Cy", True) == 2
    with pytest.raises(RulesError, match="already called Done"):
        m.done("Ann", True)
    with pytest.raises(RulesError, match="no player called 'Zed'"):
        m.done("Zed", True)
    assert m.still_playing() == ["Di", "Ed"]
    assert m.done("Di", True) == 1
    assert m.round_over and m.results[0].last == "Ed"
    assert m.round_scores() == [{"Ann": 5, "Bob": 0, "Cy": 3, "Di": 2, "Ed": 1}]  # +1 bonus each for Bob's fumble
    with pytest.raises(RulesError, match="round is over"):
        m.done("Ed", True)
    with pytest.raises(RulesError, match="playoff comes only after"):
        m.start_playoff()
    m.start_round()
    for p in ["Cy", "Bob", "Ann", "Di"]:
        m.done(p, True)
    assert m.totals() == {"Ann": 7, "Bob": 3, "Cy": 7, "Di": 3, "Ed": 1}
    assert m.standings()[:2] == [("Ann", 7), ("Cy", 7)]
    assert m.tied_leaders() == ["Ann", "Cy"] and not m.is_over() and m.winner() is None
    with pytest.raises(RulesError, match="leaders are tied"):
        m.start_round()
    m.start_playoff()
    with pytest.raises(RulesError, match="not playing in this playoff"):
        m.done("Bob", True)
    m.done("Cy", True)
    assert m.round_over and m.is_over() and m.winner() == "Cy"
    assert m.round_scores()[-1] == {"Ann": 0, "Bob": 0, "Cy": 1, "Di": 0, "Ed": 0}
    with pytest.raises(RulesError, match="match is over"):
        m.start_round()
    with pytest.raises(RulesError, match="different name"):
        Match(["Ann", "Ann"])
    with pytest.raises(RulesError, match="at least one round"):
        Match(["Ann"], rounds=0)
    with pytest.raises(RulesError, match="called Done twice"):
        round_points(["A", "B", "C"], [("A", True), ("A", True)])
    with pytest.raises(RulesError, match="ends when 2 have called Done"):
        round_points(["A", "B", "C"], [("A", True)])


# --- the "Slide!" variant ---------------------------------------------------------------------------------------


def test_slide_call_checker():
    s = solved()
    before = {"Ann": s, "Bob": s, "Cy": s, "Di": s}
    after = {
        "Ann": s.apply("d1-e1"),
        "Bob": s,
        "Cy": play(s, "d1-e1 c1-d1"),
        "Di": State.from_layout(SOLVED_TEXT.replace("M2 M4", "M4 M2"), DIAGRAM_PAWNS, DIAGRAM_COINS),
    }
    verdicts = check_slide_call(before, after)
    assert verdicts["Ann"].ok and verdicts["Ann"].move == Move.parse("d1-e1") and str(verdicts["Ann"]) == "Ann: d1-e1"
    assert not verdicts["Bob"].ok and "no tile was slid" in verdicts["Bob"].reason
    assert not verdicts["Cy"].ok and verdicts["Cy"].reason.startswith("2 tiles were slid (d1-e1; c1-d1)")
    assert not verdicts["Di"].ok and "two tiles changed places" in verdicts["Di"].reason
    with pytest.raises(RulesError, match="Eve"):
        check_slide_call(before, {**after, "Eve": s})


# --- the solver hooks ---------------------------------------------------------------------------------------------


def test_hint_and_par_near_the_goal():
    s = solved()
    one = s.apply("e2-e1")
    assert one.par() == 1 and one.hint() == Move.parse("e1-e2") and one.apply(one.hint()).is_over()
    # A board a dozen slides from solved gets a shortest solution (the solver's optimal end game).
    rng = random.Random(11)
    far = random_play(s, 12, rng)
    assert far.par() <= 12 and (12 - far.par()) % 2 == 0


@pytest.mark.parametrize("seed", [1, 77])
def test_solver_solves_a_dealt_board(seed):
    s = Setup.from_seed(seed).state()
    moves = s.solution()
    assert s.hint() == moves[0] and s.par() == len(moves)
    for m in moves:
        s = s.apply(m)  # every step is legal
    assert s.is_over()
    assert 40 <= len(moves) <= 200
