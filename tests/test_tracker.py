"""GameTracker: readings judged through the games' explain, uncertain cells resolved with the rules."""

from __future__ import annotations

import pytest

import rules.easy_slider as es
import rules.martian_shuffleboard as ms
import rules.plans_of_action as poa
import rules.slides_of_action as soa
from rules.base import RulesError
from tableside.tracker import GameTracker, Reading, game_rules

START = es.Setup.from_seed(1).state()


def _swapped(state: es.State, a: es.Cell, b: es.Cell) -> es.State:
    board = list(state.board)
    board[a.index], board[b.index] = board[b.index], board[a.index]
    return es.State.from_layout(board, state.pawns, state.coins)


def _tracker(state: es.State = START) -> GameTracker:
    tracker = GameTracker(game_rules("easy-slider"))
    assert tracker.observe(Reading(state)).kind == "start"
    return tracker


def test_first_complete_reading_starts_the_game_and_legal_slides_are_played():
    tracker = _tracker()
    move = START.legal_moves()[0]
    after = START.apply(move)
    verdict = tracker.observe(Reading(after))
    assert verdict.kind == "moves" and verdict.moves == (move,) and verdict.state == after
    assert tracker.moves == [move]
    # two slides seen as one change (a fast player) are both found and played in order
    m2 = next(m for m in after.legal_moves() if m.from_cell != move.to_cell)
    m3 = next(m for m in after.apply(m2).legal_moves() if m.from_cell != m2.to_cell)
    later = after.apply(m2).apply(m3)
    verdict = tracker.observe(Reading(later))
    assert verdict.kind == "moves" and verdict.moves == (m2, m3)
    assert [str(m) for m in tracker.moves] == [str(move), str(m2), str(m3)]
    assert tracker.observe(Reading(later)).kind == "unchanged"


def test_illegal_change_keeps_the_legal_position_reports_once_and_is_restored():
    tracker = _tracker()
    bad = _swapped(START, es.Cell(1, 1), es.Cell(1, 2))
    verdict = tracker.observe(Reading(bad))
    assert verdict.kind == "illegal" and not verdict.repeated
    assert "two tiles changed places" in verdict.reason
    assert tracker.state == START  # still the last legal position
    again = tracker.observe(Reading(bad))
    assert again.kind == "illegal" and again.repeated
    assert tracker.observe(Reading(START)).kind == "restored"
    assert tracker.observe(Reading(START)).kind == "unchanged"
    assert tracker.moves == []


def test_unreadable_and_start_with_unsure_cells_abstain():
    tracker = GameTracker(game_rules("easy-slider"))
    verdict = tracker.observe(Reading(None, reason="a hand is over the board"))
    assert verdict.kind == "unreadable" and "hand" in verdict.reason
    verdict = tracker.observe(Reading(START, uncertain=frozenset({es.Cell(2, 2)})))
    assert verdict.kind == "unreadable" and tracker.state is None  # never start from a guess
    assert tracker.observe(Reading(START)).kind == "start"


def test_unclear_piece_that_did_not_move_is_what_it_was():
    tracker = _tracker()
    cell = es.Cell(2, 3)
    # the vision's best guess for the unclear tile is wrong (another tile's identity): the rules fix it
    guess = _swapped(START, cell, es.Cell(4, 4))
    verdict = tracker.observe(Reading(guess, uncertain=frozenset({cell, es.Cell(4, 4)})))
    assert verdict.kind == "unchanged" and verdict.resolved == {cell, es.Cell(4, 4)}
    assert tracker.state == START


def test_unclear_tile_that_just_slid_is_the_one_that_was_next_to_the_hole():
    tracker = _tracker()
    move = START.legal_moves()[0]
    after = START.apply(move)
    # the slid tile is unreadable (glare): only "a tile is on the old hole's cell" is known
    known = {k: v for k, v in game_rules("easy-slider").cells(after).items() if k != move.to_cell}
    verdict = tracker.observe(Reading(None, uncertain=frozenset({move.to_cell}), cells=known))
    assert verdict.kind == "moves" and verdict.moves == (move,) and tracker.state == after


def test_several_legal_positions_fit_an_unsure_reading_so_it_asks():
    tracker = _tracker()
    hole = START.hole
    around = frozenset({hole, *hole.neighbours()})
    verdict = tracker.observe(Reading(START, uncertain=around))
    assert verdict.kind == "ambiguous" and "could be" in verdict.reason
    assert tracker.state == START and tracker.moves == []


def test_unsure_reading_that_no_legal_move_fits_is_never_called_illegal():
    tracker = _tracker()
    bad = _swapped(START, es.Cell(1, 1), es.Cell(1, 2))
    verdict = tracker.observe(Reading(bad, uncertain=frozenset({es.Cell(3, 3), es.Cell(4, 4)})))
    assert verdict.kind == "unreadable" and "no legal move fits" in verdict.reason


def test_one_unsure_tile_is_known_by_elimination_and_unsure_pawns_and_coins_never_move():
    # a tile picked up over its neighbour into the hole (the demo's illegal move): the tile put down is not read
    # surely, nor are the pawns and coins; every other cell is, so the reading is complete and judged illegal
    rules = game_rules("easy-slider")
    tracker = _tracker()
    hole = START.hole
    frm = es.Cell(hole.row, hole.col - 2) if hole.col > 2 else es.Cell(hole.row - 2, hole.col)
    picked = _swapped(START, frm, hole)
    unsure = frozenset({hole, ("pawn", 1), ("coin", 3)})
    known = {k: v for k, v in rules.cells(picked).items() if k not in unsure}
    verdict = tracker.observe(Reading(None, uncertain=unsure, cells=known))
    assert verdict.kind == "illegal" and "picked up" in verdict.reason and tracker.state == START
    # two unsure cells that a legal sequence would change: it could as well be a swap, so it is not guessed
    two = START.apply(START.legal_moves()[0])
    two = two.apply(next(m for m in two.legal_moves() if m.to_cell != START.hole))
    changed = [c for c in es.CELLS if two.board[c.index] != START.board[c.index]]
    gone = frozenset(c for c in changed if two.board[c.index] is not None)
    assert len(gone) == 2
    known = {k: v for k, v in rules.cells(two).items() if k not in gone}
    verdict = tracker.observe(Reading(None, uncertain=gone, cells=known))
    assert verdict.kind == "unreadable" and "may have moved" in verdict.reason and tracker.state == START


def test_slides_of_action_slide_back_is_illegal_and_turns_come_from_the_rules():
    rules = game_rules("slides-of-action")
    start = soa.State.initial(2)
    tracker = GameTracker(rules, start)
    move = start.legal_moves()[0]
    after = start.apply(move)
    seen = soa.State.from_text(after.diagram())  # the camera sees coins only: turn and last move are defaults
    verdict = tracker.observe(Reading(seen))
    assert verdict.kind == "moves" and tracker.state.turn == start.players[1]
    assert tracker.state.last_move == move
    back = soa.State.from_text(start.diagram())
    verdict = tracker.observe(Reading(back))
    assert verdict.kind == "illegal" and verdict.reason.startswith("no slide backs")


def test_martian_shuffleboard_flicks_and_abstains_when_the_flicked_piece_is_unknown():
    rules = game_rules("martian-shuffleboard")
    tracker = GameTracker(rules, ms.State.new(["red", "blue"]))
    large = {"color": "red", "size": "large", "x_mm": 150.0, "y_mm": 200.0, "angle_deg": 0.0}
    verdict = tracker.observe(Reading(ms.State.from_layout(["red", "blue"], [large])))
    assert verdict.kind == "moves" and tracker.state.player_to_move == "blue"
    small = {"color": "blue", "size": "small", "x_mm": 178.0, "y_mm": 205.0, "angle_deg": 0.0}
    verdict = tracker.observe(Reading(ms.State.from_layout(["red", "blue"], [large, small])))
    assert verdict.kind == "moves" and tracker.state.scores() == {"red": 0, "blue": 3}
    # red's flick knocks the Large off and leaves nothing new: which piece red slid cannot be told
    verdict = tracker.observe(Reading(ms.State.from_layout(["red", "blue"], [small])))
    assert verdict.kind == "ambiguous" and "cannot be told apart" in verdict.reason


@pytest.mark.parametrize("name, start", [
    ("easy-slider", START),
    ("slides-of-action", soa.State.initial(3)),
    ("plans-of-action", poa.State.initial()),
    ("martian-shuffleboard", ms.State.new(["red", "blue"]).apply(ms.Move.parse("red-large>(150.0,200.0,0.0)"))),
])
def test_positions_round_trip_through_json_and_games_replay(name, start):
    import json

    rules = game_rules(name)
    encoded = json.loads(json.dumps(rules.encode(start)))
    assert rules.decode(encoded) == start
    if name == "martian-shuffleboard":
        moves = [ms.Move.parse("blue-small>(178.0,205.0,0.0)")]
    else:
        moves = [start.legal_moves()[0]]
        moves.append(start.apply(moves[0]).legal_moves()[-1])
    tracker = GameTracker(rules)
    tracker.restore(start, [str(m) for m in moves])
    state = start
    for m in moves:
        state = state.apply(m)
    assert tracker.state == state and len(tracker.history) == len(moves)
    with pytest.raises(RulesError, match="move 1"):
        GameTracker(rules).restore(state if name != "martian-shuffleboard" else ms.State.new(["red"]),
                                   ["zz-top" if name != "martian-shuffleboard" else "green-large>off"])


def test_unknown_game_is_a_rules_error():
    with pytest.raises(RulesError, match="unknown game"):
        game_rules("chess")
    assert game_rules("slide-jam").name == "slide-jam"


# ------------------------------------------------------------------------------------------- Whack-a-Dummy
# The camera never sees the coin under the die: the live reader marks it unsure with a stand-in side ("down", as
# tableside.commands.watch.VisionReader does); the tracker must put the rules' side there.

WHACK_GRID = [0, 2, 3, 1, 4, 5, 0, 2, 1, 3, 4, 5, 2, 0, 5, 1, 3, 4, 2, 0, 1, 5, 3, 4]


def _whack_seen(state):
    """What the camera gives for ``state``: the sides it sees, the die's coin as the stand-in, bookkeeping lost."""
    from rules.epic_funhouse import whack_a_dummy as wad
    from rules.epic_funhouse.roll_out_the_barrels import cell_name

    up = [i for i in range(24) if state.is_up(i) and i != state.cell]
    die = None if state.cell is None else cell_name(state.cell)
    seen = wad.State.from_layout(state.grid, up, die)
    return Reading(seen, frozenset() if die is None else frozenset({die}))


def test_whack_a_dummy_follows_the_coin_under_the_die_through_the_rules():
    import random

    from rules.epic_funhouse import whack_a_dummy as wad

    tracker = GameTracker(game_rules("whack-a-dummy"), wad.setup(WHACK_GRID))
    truth = wad.setup(WHACK_GRID).apply("start c3")
    verdict = tracker.observe(_whack_seen(truth))
    assert verdict.kind == "moves" and [str(m) for m in verdict.moves] == ["start c3"]
    assert not tracker.state.is_up("c3")  # the start coin is not flipped
    rng = random.Random(5)
    hidden_up = 0
    for _ in range(60):
        move = rng.choice(truth.legal_moves())
        truth = truth.apply(move)
        hidden_up += truth.is_up(truth.cell)
        verdict = tracker.observe(_whack_seen(truth))
        # one move (on the 4-wide board a jump of 2 east and one of 2 west land on the same coin: either is it)
        assert verdict.kind == "moves" and len(verdict.moves) == 1, (str(move), verdict)
        assert tracker.state == truth  # the coin under the die, progress and penalties all from the rules
        if truth.is_over():
            break
    assert 10 < hidden_up  # the stand-in side ("down") was wrong that often, and the rules put it right
    assert truth.penalties > 0 or truth.progress > 0  # corners were flipped: the bookkeeping was exercised
    assert tracker.observe(_whack_seen(truth)).kind == "unchanged"


def test_whack_a_dummy_illegal_landing_is_illegal_whatever_the_hidden_coin_shows():
    from rules.epic_funhouse import whack_a_dummy as wad

    start = wad.setup(WHACK_GRID).apply("start c3").apply("go north")  # c4 flipped up (a 1: jumps 1)
    tracker = GameTracker(game_rules("whack-a-dummy"), start)
    reachable = {s.cell for _, s in start.successors()}
    far = next(i for i in range(24) if i not in reachable and i != start.cell and not start.is_up(i))
    # the die put down on a coin no move reaches, flipping nothing else: no side of that coin makes it legal
    wrong = wad.State(start.grid, start.face_up, far)
    verdict = tracker.observe(_whack_seen(wrong))
    assert verdict.kind == "illegal" and "no legal sequence" in verdict.reason, verdict
    assert tracker.state == start
    assert tracker.observe(_whack_seen(wrong)).repeated
    assert tracker.observe(_whack_seen(start)).kind == "restored"


def test_whack_a_dummy_joined_under_way_needs_the_die_coin_from_the_player():
    from rules.epic_funhouse import whack_a_dummy as wad

    truth = wad.setup(WHACK_GRID).apply("start c3")
    while not (truth.is_up(truth.cell) and bin(truth.face_up).count("1") > 4):  # well under way, its coin up
        truth = truth.apply(truth.legal_moves()[0] if truth.face_up % 3 else truth.legal_moves()[-1])
    # told: the first reading is the start, with the player's side under the die; later moves follow the rules
    told = GameTracker(game_rules("whack-a-dummy", die_coin="up"))
    assert told.observe(_whack_seen(truth)).kind == "start" and told.state.is_up(truth.cell)
    nxt = truth.apply(truth.legal_moves()[0])
    assert told.observe(_whack_seen(nxt)).kind == "moves" and told.state.face_up == nxt.face_up
    # not told, watching from the set-up: the board under way is not the set-up's, and it says what to give
    untold = GameTracker(game_rules("whack-a-dummy"), wad.setup(WHACK_GRID))
    verdict = untold.observe(_whack_seen(truth))
    assert verdict.kind == "illegal" and "--die-coin up|down" in verdict.reason
    # no start position and no side given: the first reading is never guessed
    blind = GameTracker(game_rules("whack-a-dummy"))
    seen = _whack_seen(truth)
    verdict = blind.observe(Reading(seen.state, seen.uncertain, reason="say which side is up with --die-coin"))
    assert verdict.kind == "unreadable" and "--die-coin" in verdict.reason and blind.state is None
    with pytest.raises(RulesError, match="up or down"):
        game_rules("whack-a-dummy", die_coin="sideways")
