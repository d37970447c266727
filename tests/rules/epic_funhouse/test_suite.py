"""Epic Funhouse suite: the six rooms in order, hand-overs checked against each room's own transition, scores,
save/resume by replay, explain and hints."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import game_module
from rules.base import IllegalMove, RecordError, RulesError
from rules.epic_funhouse import catwalk, magic_mirror, slide_jam, trampo_land, whack_a_dummy
from rules.epic_funhouse import roll_out_the_barrels as barrels
from rules.epic_funhouse import suite as suite_module
from rules.epic_funhouse.common import ALL_TILES, parse_tile
from rules.epic_funhouse.suite import ROOMS, CatwalkStart, FlickChoice, Funhouse, State, explain
from rules.pieces import Suit

# ------------------------------------------------------------------------------------------ a simple player

def next_move(fh: Funhouse) -> str | None:
    """A simple policy: the room's hint; Catwalk (played by hand) lets every other coin fall off the tile it
    starts on and sends the rest off the end; None when the room should be finished."""
    if isinstance(fh.state, CatwalkStart):
        return "flick suns from first"
    if isinstance(fh.state, catwalk.State):
        hand = fh.state.hand
        return str(fh.legal_moves()[0]) if len(hand) % 2 == 0 else f"{hand[-1]} off end"
    return fh.hint().move


def play_room(fh: Funhouse, max_moves: int = 400) -> Funhouse:
    """Play the current room with :func:`next_move` until it is over or the policy stops (not finished)."""
    for _ in range(max_moves):
        if fh.room_over() and not fh.can_retry():
            return fh
        move = next_move(fh)
        if move is None:
            return fh
        fh = fh.apply(move)
    raise AssertionError(f"{fh.title} did not end within {max_moves} moves")


class Game:
    """A whole game played with :func:`next_move`: each room's start and end (before finishing), and the end."""

    def __init__(self, fh: Funhouse) -> None:
        self.starts, self.ends = [], []
        while not fh.is_over():
            self.starts.append(fh)
            fh = play_room(fh)
            self.ends.append(fh)
            fh = fh.finish_room()
        self.final = fh


def play_all(fh: Funhouse) -> Funhouse:
    return Game(fh).final


@pytest.fixture(scope="module")
def game():
    return Game(Funhouse.new(seed=2024))


# ------------------------------------------------------------------------------------------ the rooms in order

def test_registered_as_the_epic_funhouse_game():
    module = game_module("epic-funhouse")
    assert module.State is Funhouse is State and module.explain is explain


def test_plays_all_six_rooms_in_order_and_adds_up_the_scores(game):
    ends, final = game.ends, game.final
    assert [e.room for e in ends] == list(ROOMS)
    assert final.is_over() and not final.legal_moves() and final.summary()["room"] is None
    room_scores = [log.score for log in final.rooms]
    # each room is scored by its own rules at the moment it was finished
    assert room_scores == [e.state.score() for e in ends]
    assert final.score() == sum(room_scores) == final.summary()["total"]
    assert [r["moves"] for r in final.summary()["rooms"]] == [len(e.rooms[-1].moves) for e in ends]
    assert all(r["finished"] for r in final.summary()["rooms"])
    with pytest.raises(IllegalMove, match="over"):
        final.apply("jump 4-1")
    with pytest.raises(IllegalMove, match="over"):
        final.finish_room()


def test_slide_jam_stacks_become_the_mirror_grids_in_reading_order(game):
    end, mirror = game.ends[0], game.starts[1]
    stacks = slide_jam.transition(end.state)
    assert len(stacks.first) == len(stacks.second) == 12
    reading = [t for row in mirror.state.board for t in row]
    assert reading == list(stacks.first) + list(stacks.second)
    assert mirror.state == magic_mirror.State.from_stacks(*stacks)
    # the player may put the second stack on top instead
    swapped = end.finish_room(top=2)
    assert [t for row in swapped.state.board for t in row] == list(stacks.second) + list(stacks.first)
    assert swapped.rooms[-1].setup_data["top"] == 2


def test_mirror_stacks_are_laid_into_the_catwalk_in_the_chosen_order(game):
    end = game.ends[1]
    handover = magic_mirror.transition(end.state)
    order = ["strangers", "twins", "distant_relatives", "cousins"]
    fh = end.finish_room(order="s t d c", rolls=[3, 0, 5, 1, 2, 4] * 4)
    assert isinstance(fh.state, CatwalkStart)
    stacks = catwalk.stacks_in_order(handover, order)
    assert fh.state.track.tiles == tuple(t for pile in stacks for t in pile)
    # the given faces were used at the dead ends, in order, and the rules lay the same track from them
    used = fh.rooms[-1].setup_data["rolls"]
    assert used == ([3, 0, 5, 1, 2, 4] * 4)[:len(used)]
    assert catwalk.lay_catwalk(stacks, iter(used)) == fh.state.track
    assert fh.rooms[-1].setup_data["order"] == order


def test_catwalk_dead_end_rolls_come_from_the_seeded_die_or_are_asked_for():
    # Find a game whose catwalk meets a dead end, then compare seeded, given and asked rolls.
    for seed in range(40):
        end = play_room(play_room(Funhouse.new(seed)).finish_room())
        seeded = end.finish_room()
        if seeded.rooms[-1].setup_data["rolls"]:
            break
    else:
        pytest.skip("no dead end in 40 seeded games")
    data = seeded.rooms[-1].setup_data
    assert data["choices"]["rolls"] == [None] * len(data["rolls"])
    rng = random.Random()
    rng.setstate(end.rng_state)
    assert data["rolls"] == [rng.randrange(6) for _ in data["rolls"]]
    asked = []

    def ask(tile, options):
        asked.append((tile, options))
        return 5 - len(asked) % 6

    by_hand = end.finish_room(rolls=ask)
    faces = [5 - (i + 1) % 6 for i in range(len(asked))]
    assert len(asked) == len(data["rolls"]) and all(len(opts) > 1 for _, opts in asked)
    assert by_hand.rooms[-1].setup_data["rolls"] == faces == by_hand.rooms[-1].setup_data["choices"]["rolls"]
    with pytest.raises(RulesError, match="null, ace"):
        end.finish_room(rolls=["seven"])


def test_catwalk_scoreboard_and_pool_build_the_barrel_maze(game):
    end, maze = game.ends[2], game.starts[3]
    pairs, pool = catwalk.transition(end.state).for_barrels()
    setup = maze.rooms[-1].setup_data
    rng = random.Random()
    rng.setstate(end.rng_state)  # the suite's one generator draws the maze: build_maze takes it as it is
    built = barrels.build_maze(pairs, pool, seed=rng)
    assert maze.state == barrels.State.new(built.grid) and setup["drawn"] == list(built.drawn)
    assert setup["choices"]["drawn"] is None and maze.rng_state == rng.getstate()
    assert sorted(built.grid) == sorted([c.rank for p in pairs for c in p] + [c.rank for c in pool])
    assert len(pairs) == len(end.state.scoreboard) >= 1


def test_barrel_grid_is_the_whack_a_dummy_board_and_its_column_sums_place_the_adults(game):
    barrel_end, whack, whack_end, trampo = game.ends[3], game.starts[4], game.ends[4], game.starts[5]
    assert whack.rooms[-1].setup_data["grid"] == list(barrel_end.state.grid)
    assert whack.state == whack_a_dummy.setup(barrel_end.state.grid)
    assert whack_end.state.grid == barrel_end.state.grid
    sums = whack_a_dummy.column_sums(whack_end.state)
    setup = trampo.rooms[-1].setup_data
    assert setup["column_sums"] == list(sums)
    assert trampo.state == trampo_land.setup(setup["die_roll"], setup["total"], sums)
    assert setup["adults"] == list(trampo_land.place_adults(list(sums), (setup["empty"], setup["you"])))
    board = setup["board"]
    assert [i + 1 for i, c in enumerate(board) if c == "a"] == sorted(setup["adults"])
    assert board[setup["you"] - 1] == "y" and board[setup["empty"] - 1] == "."


def test_same_seed_same_game_other_seed_other_deal():
    a, b = Funhouse.new(11), Funhouse.new(11)
    assert a == b and a.state == slide_jam.State.deal(random.Random(11))
    assert Funhouse.new(12).state != a.state
    assert play_all(a).to_json() == play_all(b).to_json()
    assert isinstance(Funhouse.new().seed, int)


# ------------------------------------------------------------------------------------------ moves and ends

def test_moves_and_illegal_reasons_are_the_rooms_own():
    fh = Funhouse.new(5)
    assert fh.legal_moves() == fh.state.legal_moves()
    bad = "a6a5a4>1 U"
    with pytest.raises(IllegalMove) as room_error:
        fh.state.apply(bad)
    with pytest.raises(IllegalMove) as suite_error:
        fh.apply(bad)
    assert str(suite_error.value) == str(room_error.value) and suite_error.value.reason
    with pytest.raises(RulesError, match="cannot read"):
        fh.apply("jump 4-1")
    with pytest.raises(IllegalMove, match="not a Slide Jam move"):
        fh.apply(magic_mirror.Move((0, 2), (0, 3)))
    move = fh.legal_moves()[5]
    after = fh.apply(move)
    assert after.state == fh.state.apply(move) and after.rooms[-1].moves == (str(move),)
    assert fh.apply(str(move)) == after and fh.rooms[-1].moves == ()  # immutable


def test_stopping_slide_jam_early_scores_the_tiles_left():
    fh = Funhouse.new(3)
    fh = fh.apply(fh.legal_moves()[0])
    left = sum(t.rank for row in fh.state.board for t in row if t)
    nxt = fh.finish_room()
    assert nxt.rooms[0].score == left and nxt.room == "magic-mirror"
    # the leftovers go onto the stacks by the Transition: both mirror grids are full
    assert all(t is not None for row in nxt.state.board for t in row)


def test_catwalk_cannot_be_left_before_every_coin_is_flicked():
    fh = play_room(play_room(Funhouse.new(9)).finish_room()).finish_room()
    assert fh.room == "catwalk"
    with pytest.raises(IllegalMove, match="choose the coins"):
        fh.finish_room()
    fh = fh.apply("flick moons from last")
    assert fh.state.suit is Suit.MOONS and fh.state.course == fh.state.track.tiles[::-1]
    fh = fh.apply("5 off end")
    with pytest.raises(IllegalMove, match="5 coins are still in hand"):
        fh.finish_room()
    with pytest.raises(RulesError, match="takes drawn, not order"):
        play_room(fh).finish_room(order="t c d s")


def test_catwalk_figure_6_puts_nulls_east_and_south_of_the_barrel_start():
    # The seed's Figure 6: a 5 coin off a null tile, a 4 coin off a null tile, a null coin off a 3 tile: 12
    # points, and in the next room nulls lie east and south of the start barrel.
    fh = play_room(play_room(Funhouse.new(21)).finish_room()).finish_room()
    course = fh.state.track.tiles
    for end in (False, True):
        tiles = course[::-1] if end else course
        null = next(i for i, t in enumerate(tiles, 1) if t.rank == 0)
        three = next((i for i, t in enumerate(tiles, 1) if t.rank == 3 and i > null), None)
        if three is not None:
            break
    fh = fh.apply(FlickChoice(Suit.ARMS, end))
    for event in (f"5 off {null}", f"4 off {null}", f"null off {three}", "a off end", "2 off end", "3 off end"):
        fh = fh.apply(event)
    assert fh.room_over() and fh.room_score() == 12
    board = fh.state.scoreboard
    assert [(p.coin.rank, p.tile.rank, [c.rank for c in p.marker]) for p in board] == [
        (5, 0, [0]), (4, 0, [0]), (0, 3, [3])]
    maze = fh.finish_room()
    swaps = maze.rooms[-1].setup_data["swaps"]
    assert not any(i < 6 for s in swaps for i in s), "this seed's draw moves no scoreboard coin"
    grid = maze.state.grid
    assert grid[:4] == (5, 0, 4, 0) and grid[4:6] == (0, 3)
    assert grid[barrels.parse_cell("b6")] == 0 and grid[barrels.parse_cell("a5")] == 0
    assert maze.rooms[2].score == 12


def test_barrels_retry_and_giving_up_scores_the_path_to_the_exit():
    fh = play_room(play_room(play_room(Funhouse.new(4)).finish_room()).finish_room()).finish_room()
    assert fh.room == "roll-out-the-barrels"
    with pytest.raises(IllegalMove, match="not in the maze"):
        fh.retry()
    fh = fh.apply(fh.legal_moves()[0])
    if fh.legal_moves():
        fh = fh.apply(fh.legal_moves()[0])
    assert fh.can_retry() and fh.state.cell is not None
    again = fh.apply("retry")
    assert again.state.cell is None and again.rooms[-1].moves[-1] == "retry"
    stopped = fh.finish_room()
    cell = fh.state.cell
    assert stopped.rooms[3].score == barrels.exit_path(fh.state.grid, cell)[1] == fh.state.score()
    with pytest.raises(IllegalMove, match="only Roll Out the Barrels"):
        stopped.retry()


def test_whack_a_dummy_given_up_scores_15_plus_penalties_and_trampo_choices():
    fh = Funhouse.new(8)
    while fh.room != "whack-a-dummy":
        fh = play_room(fh).finish_room()
    fh = fh.apply("start b3")
    # walk until a corner is flipped out of sequence (a 10 point penalty), then give up
    rng = random.Random(1)
    while fh.state.penalties == 0:
        fh = fh.apply(rng.choice(fh.legal_moves()))
    assert not fh.room_over()
    # the seed's example cast: total 10 puts you on trampoline 10 (the empty one is 2 after a roll of 3)
    trampo = fh.finish_room(die_roll=3, cast=10)
    assert trampo.rooms[4].score == 15 + fh.state.penalties
    setup = trampo.rooms[-1].setup_data
    assert (setup["empty"], setup["you"], setup["total"]) == (2, 10, 10)
    assert trampo.state.piece(10) == "you" and trampo.state.piece(2) == "empty"
    assert setup["choices"] == {"die_roll": 3, "cast": 10}
    # a cast equal to the empty trampoline's number adds one; coin values are added up
    other = fh.finish_room(die_roll="ace", cast=["ace"])
    assert other.rooms[-1].setup_data["you"] == 2 and other.state.piece(1) == "empty"
    with pytest.raises(RulesError, match="cast again"):
        fh.finish_room(cast=0)


# ------------------------------------------------------------------------------------------ save and resume

def test_save_and_resume_mid_room_is_exact_and_plays_on_identically(game):
    fh = Funhouse.new(2024)
    while fh.room != "catwalk":
        fh = play_room(fh).finish_room()
    fh = fh.apply("flick suns from first").apply("3 off end")
    text = json.dumps(fh.to_json())
    back = Funhouse.from_json(text)
    assert back == fh and back.rng_state == fh.rng_state and hash(back) == hash(fh)
    assert back.to_json() == fh.to_json() and Funhouse.from_json(fh.to_json()) == fh
    assert play_all(back) == play_all(fh)
    # a finished game round-trips too
    assert Funhouse.from_json(json.dumps(game.final.to_json())) == game.final


def test_a_damaged_save_is_refused_with_one_sentence(game):
    saved = game.final.to_json()

    def damaged(change):
        data = json.loads(json.dumps(saved))
        change(data)
        return data

    cases = [
        damaged(lambda d: d["rooms"][1]["moves"].__setitem__(0, "a6a1")),
        damaged(lambda d: d["rooms"][2].__setitem__("score", 0 if d["rooms"][2]["score"] else 1)),
        damaged(lambda d: d.__setitem__("seed", d["seed"] + 1)),
        damaged(lambda d: d["rooms"][4]["setup"]["grid"].reverse()),
        damaged(lambda d: d.__setitem__("format", "something else")),
        damaged(lambda d: d["rooms"].pop(1)),
        damaged(lambda d: d["rooms"][3]["moves"].append(7)),
        damaged(lambda d: d.__setitem__("total", d["total"] + 1)),
        damaged(lambda d: d["rooms"][0].pop("moves")),
        "{not json",
        "[1, 2]",
    ]
    for case in cases:
        with pytest.raises(RecordError) as err:
            Funhouse.from_json(case if isinstance(case, str) else json.dumps(case))
        assert "\n" not in str(err.value) and str(err.value)


def test_given_tiles_and_draws_are_kept_in_the_save():
    tiles = list(ALL_TILES)
    random.Random(99).shuffle(tiles)
    fh = Funhouse.new(1, tiles=tiles)
    assert [t for row in fh.state.board for t in row] == tiles
    while fh.room != "catwalk":
        fh = play_room(fh).finish_room()
    fh = play_room(fh)
    pool = fh.handover().for_barrels()[1]
    values = sorted(c.rank for c in pool)
    maze = fh.finish_room(drawn=values)
    setup = maze.rooms[-1].setup_data
    assert setup["choices"]["drawn"] == values == setup["drawn"] and maze.rng_state == fh.rng_state
    assert Funhouse.from_json(maze.to_json()) == maze
    with pytest.raises(RulesError, match="every coin of the draw pool"):
        fh.finish_room(drawn=values[:-1])
    with pytest.raises(RulesError):
        Funhouse.new(1, tiles=tiles[:23])


# ------------------------------------------------------------------------------------------ explain, hints, questions

def test_explain_delegates_to_the_room(game):
    fh = Funhouse.new(6)
    move = fh.legal_moves()[0]
    after = fh.apply(move)
    assert explain(fh, after).moves == (move,)
    assert explain(fh.state, after.state).moves == (move,)
    assert not explain(game.ends[0], game.starts[1]).legal
    cw, first = game.ends[2], game.starts[2]
    assert isinstance(first.state, CatwalkStart)
    two = first.apply(cw.rooms[2].moves[0]).apply(cw.rooms[2].moves[1])
    explained = explain(first, two)
    assert [str(m) for m in explained.moves] == list(cw.rooms[2].moves[:2])
    assert not explain(first.state, game.starts[3].state).legal


def test_hints_are_legal_moves_of_the_room(game):
    hinted = 0
    for start in game.starts:
        hint = start.hint()
        assert hint.note
        if hint.move is not None:
            hinted += 1
            assert start.apply(hint.move).rooms[-1].moves == (start.parse_move(hint.move).__str__(),)
    assert hinted >= 4
    # Trampo-Land's hint is the room's own solver (bounded): its first move, and the score its line reaches
    trampo = game.starts[5]
    solution = trampo_land.solve(trampo.state, max_states=suite_module._TRAMPO_HINT_STATES)
    hint = trampo.hint()
    assert solution.moves and hint.move == str(solution.moves[0])
    assert f"ends with score {solution.score} " in hint.note and solution.score <= trampo.state.score()


def test_questions_read_what_a_player_types():
    fh = Funhouse.new(13)
    (top,) = fh.questions()
    assert (top.name, top.read(""), top.read("2"), top.read("stack 1")) == ("top", 1, 2, 1)
    with pytest.raises(RulesError):
        top.read("3")
    mirror = fh.finish_room(top=top.read("2"))
    order, rolls = mirror.questions()
    assert order.read("") == ("twins", "cousins", "distant_relatives", "strangers")
    assert order.read("s, distant relatives, t c") == ("strangers", "distant_relatives", "twins", "cousins")
    with pytest.raises(RulesError, match="each of the four"):
        order.read("t t c d")
    assert (rolls.read(""), rolls.read("ask"), rolls.read("3 null ace")) == (None, "ask", [3, 0, 1])
    whack = Funhouse.new(13)
    while whack.room != "whack-a-dummy":
        whack = play_room(whack).finish_room()
    die_roll, cast = whack.questions()
    assert (die_roll.read(""), die_roll.read("ace"), cast.read(""), cast.read("ace 3 5"), cast.read("10"),
            cast.read("total 4")) == (None, 1, None, [1, 3, 5], 10, 4)
    with pytest.raises(RulesError):
        cast.read("ace x")
    assert parse_tile("Sn") in ALL_TILES


# ------------------------------------------------------------------------------------------ random play

@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.data())
def test_random_play_through_the_suite_adds_up_and_saves_exactly(seed, data):
    # Random legal moves in every room (a random number of them, then the player stops; the Catwalk's coins
    # all go down), random top/order choices: every move is legal to apply, its text reads back, explain finds
    # it, the total is the rooms' scores added up, and a save taken anywhere resumes to the same Funhouse.
    fh = Funhouse.new(seed)
    while not fh.is_over():
        steps = data.draw(st.integers(0, 30), label="moves in " + fh.room)
        for _ in range(10_000):
            must_play = fh.finish_problem() is not None
            if not must_play and (steps <= 0 or fh.room_over()):
                break  # the player stops (a stuck barrel die could also 'retry': tested elsewhere)
            moves = fh.legal_moves()
            assert moves, fh.render()
            move = data.draw(st.sampled_from(moves))
            assert fh.parse_move(str(move)) == move
            after = fh.apply(move)  # never raises on a legal move
            found = explain(fh, after)
            assert found.legal and found.moves and after.state == _replayed(fh.state, found.moves)
            assert after.rooms[-1].moves == fh.rooms[-1].moves + (str(move),)
            fh, steps = after, steps - 1
        assert fh.score() == sum(score for _, score, _ in fh.scores()) >= 0
        if data.draw(st.booleans(), label="save here"):
            assert Funhouse.from_json(json.dumps(fh.to_json())) == fh
        choices = {}
        if fh.room == "slide-jam":
            choices["top"] = data.draw(st.sampled_from([1, 2]))
        if fh.room == "magic-mirror":
            choices["order"] = data.draw(st.permutations(["twins", "cousins", "distant_relatives", "strangers"]))
        before = fh
        fh = fh.finish_room(**choices)
        assert fh.rooms[len(before.rooms) - 1].score == before.room_score()
    assert [log.name for log in fh.rooms] == list(ROOMS) and all(log.finished for log in fh.rooms)
    assert Funhouse.from_json(fh.to_json()) == fh and fh.summary()["total"] == fh.score()


def _replayed(state, moves):
    for move in moves:
        state = state.apply(move)
    return state
