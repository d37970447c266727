"""Martian Shuffleboard rules: the seed's worked example, footprint geometry, crashes, turn order, variants, explain."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import IllegalMove, LayoutError, RulesError
from rules.martian_shuffleboard import (
    VARIANTS,
    Choice,
    Crash,
    Move,
    Piece,
    PlacedPiece,
    Placement,
    Scoring,
    State,
    Variant,
    explain,
    footprint,
    footprint_gap_mm,
    polygon_distance,
    score_positions,
)
from rules.pieces import Kind, PyramidPose, PyramidSize

SMALL, MEDIUM, LARGE = PyramidSize.SMALL, PyramidSize.MEDIUM, PyramidSize.LARGE


def placed(color, size, x, y, angle=0.0):
    return PlacedPiece(Piece(color, size), Placement(x, y, angle))


# The seed's example: the Small blue is within a Small height of the Large blue and the Medium red, and the
# Medium red is within a Small height of the Large blue (gaps 13.15, 15.95 and 12.4 mm).
EXAMPLE = [placed("blue", LARGE, 0, 0), placed("blue", SMALL, 33, 19), placed("red", MEDIUM, 0, 35)]


# ------------------------------------------------------------------------------------------------- scoring
def test_worked_example_scores_blue_5_red_3():
    report = score_positions(EXAMPLE)
    assert report.points == {"blue": 5, "red": 3}
    by_pair = {frozenset((str(p.a.piece), str(p.b.piece))): p for p in report.pairs}
    assert len(by_pair) == 3 and all(p.within for p in report.pairs)
    small_large = by_pair[frozenset(("blue-small", "blue-large"))]
    assert small_large.scorer == Piece("blue", SMALL) and small_large.points == 3
    assert small_large.gap_mm == pytest.approx(33 - 12.7 - 7.15)
    red_large = by_pair[frozenset(("red-medium", "blue-large"))]
    assert red_large.scorer == Piece("red", MEDIUM) and red_large.points == 3
    assert red_large.gap_mm == pytest.approx(35 - 12.7 - 9.9)


def test_worked_example_under_largers_score_on_smallers():
    report = score_positions(EXAMPLE, variant="any/larger-on-smaller")
    # blue Large scores the Small (1) and the red Medium (2); the red Medium scores the blue Small (1).
    assert report.points == {"blue": 3, "red": 1}


def test_small_height_is_a_parameter():
    # With a 13 mm unit only the Large-Medium pair (12.4 mm) is close enough.
    assert score_positions(EXAMPLE, small_height_mm=13.0).points == {"blue": 0, "red": 3}
    assert score_positions(EXAMPLE, small_height_mm=5.0).points == {"blue": 0, "red": 0}


def test_same_size_pieces_never_score_and_far_pieces_do_not():
    report = score_positions([placed("red", LARGE, 0, 0), placed("blue", LARGE, 30, 0), placed("blue", SMALL, 200, 0)])
    assert report.points == {"red": 0, "blue": 0}
    assert [p.within for p in report.pairs].count(True) == 1


def test_flat_pieces_and_mappings_are_accepted_by_score_positions():
    dets = [
        {"color": "blue", "size": "large", "x_mm": 0, "y_mm": 0, "angle_deg": 0, "pose": "upright"},
        {"color": "blue", "size": "small", "x_mm": 28, "y_mm": 0},
        {"color": "red", "size": "medium", "x_mm": 0, "y_mm": 35, "pose": "flat"},
        SimpleNamespace(kind="coin", color=None, size=None, x_mm=10, y_mm=10, angle_deg=0, pose=None),
        SimpleNamespace(kind=Kind.PYRAMID, color="red", size=SMALL, x_mm=300, y_mm=0, angle_deg=0,
                        pose=PyramidPose.UPRIGHT),
    ]
    assert score_positions(dets).points == {"blue": 3, "red": 0}


def test_rotation_brings_a_corner_closer():
    # A Large turned 45 degrees reaches 12.7*sqrt(2) towards its neighbour instead of 12.7.
    straight = footprint_gap_mm(placed("red", LARGE, 0, 0), placed("blue", SMALL, 50, 0))
    turned = footprint_gap_mm(placed("red", LARGE, 0, 0, 45), placed("blue", SMALL, 50, 0))
    assert straight == pytest.approx(50 - 12.7 - 7.15)
    assert turned == pytest.approx(50 - 12.7 * math.sqrt(2) - 7.15, abs=1e-6)


def test_corner_to_corner_gap():
    gap = footprint_gap_mm(placed("red", SMALL, 0, 0), placed("blue", SMALL, 30, 30))
    assert gap == pytest.approx(math.sqrt(2) * (30 - 14.3))


# ------------------------------------------------------------------------------------------------- geometry
def _point_polygon_distance(points: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Brute-force check: distance of each point to a convex polygon (0 inside), vectorised."""
    a = poly
    b = np.roll(poly, -1, axis=0)
    ab = b - a
    ap = points[:, None, :] - a[None, :, :]
    t = np.clip((ap * ab).sum(-1) / (ab * ab).sum(-1), 0, 1)
    closest = a[None] + t[..., None] * ab[None]
    d = np.linalg.norm(points[:, None, :] - closest, axis=-1).min(axis=1)
    cross = ab[None, :, 0] * ap[..., 1] - ab[None, :, 1] * ap[..., 0]
    inside = np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
    return np.where(inside, 0.0, d)


def _sample_square(x, y, angle, side, n=41):
    u = np.linspace(-side / 2, side / 2, n)
    gx, gy = np.meshgrid(u, u)
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    px = x + gx.ravel() * c - gy.ravel() * s
    py = y + gx.ravel() * s + gy.ravel() * c
    return np.stack([px, py], axis=1), side / (n - 1)


squares = st.tuples(
    st.floats(-60, 60), st.floats(-60, 60), st.floats(0, 360), st.sampled_from([14.3, 19.8, 25.4])
)


@settings(max_examples=120, deadline=None)
@given(squares, squares)
def test_polygon_distance_matches_brute_force(sq1, sq2):
    p = footprint(*sq1)
    q = footprint(*sq2)
    exact = polygon_distance(p, q)
    assert exact == polygon_distance(q, p) or exact == pytest.approx(polygon_distance(q, p), abs=1e-9)
    points, spacing = _sample_square(*sq1)
    sampled = _point_polygon_distance(points, np.array(q)).min()
    # Sampling only over-estimates the true distance, by at most half a grid diagonal.
    assert sampled >= exact - 1e-9
    assert sampled <= exact + spacing * math.sqrt(2) / 2 + 1e-9
    if sampled == 0.0:  # a sampled point of one square lies inside the other: they overlap
        assert exact == 0.0
    if exact > 0.0:
        assert sampled > 0.0


def test_overlapping_and_touching_squares_are_at_distance_zero():
    assert polygon_distance(footprint(0, 0, 0, 20), footprint(10, 0, 30, 20)) == 0.0
    assert polygon_distance(footprint(0, 0, 0, 20), footprint(20, 0, 0, 20)) == 0.0  # edge to edge
    assert polygon_distance(footprint(0, 0, 0, 40), footprint(0, 0, 45, 10)) == 0.0  # one inside the other


# ------------------------------------------------------------------------------------------------- moves & turns
def test_move_text_round_trips():
    for text in (
        "red-large>(412.5,300.0,15.0)",
        "blue-small>(405.0,322.1,0.0) red-large>(430.2,301.7,20.0)",
        "blue-medium>flat",
        "blue-medium>off green-large>flat red-small>off",
    ):
        assert str(Move.parse(text)) == text
        assert Move.parse(str(Move.parse(text))) == Move.parse(text)


outcomes = st.one_of(
    st.sampled_from(list(Crash)),
    st.builds(Placement, st.floats(-2000, 2000), st.floats(-2000, 2000), st.floats(-720, 720)),
)
pieces = st.builds(Piece, st.sampled_from(["red", "blue", "green", "yellow"]), st.sampled_from(list(PyramidSize)))


@settings(max_examples=150, deadline=None)
@given(pieces, outcomes, st.lists(st.tuples(pieces, outcomes), max_size=4))
def test_move_text_round_trips_for_any_outcome(piece, outcome, crashes):
    move = Move(piece, outcome, tuple(crashes))
    assert Move.parse(str(move)) == move
    assert hash(Move.parse(str(move))) == hash(move)


def test_moves_in_words():
    move = Move.parse("red-large>(500.2,330.0,40.0) blue-small>flat red-small>off blue-large>(1,2,0)")
    assert move.describe() == (
        "red slides the large to x 500.2, y 330.0 mm; it knocks blue small flat (back to blue), "
        "pushes blue large to x 1.0, y 2.0 mm, knocks red small off the table (out of the game)")
    assert Move.parse("blue-medium>off").describe() == (
        "blue slides the medium and it falls off the table (out of the game)")


def test_bad_move_text_is_a_rules_error():
    for text in ("", "red-large", "red-huge>off", "purpleish-small>off", "red-small>(1,2", "red-small>sideways"):
        with pytest.raises(RulesError):
            Move.parse(text)


def test_angles_are_modulo_90_and_rounded():
    assert Placement(1.04, 2.06, 135.0) == Placement(1.0, 2.1, 45.0)
    assert Placement(0, 0, 89.99).angle_deg == 0.0
    assert Placement(0, 0, -10).angle_deg == 80.0


def test_opening_and_turn_order():
    s = State.new(["red", "blue", "green"])
    assert not s.opened and s.player_to_move == "red"
    assert {str(f.piece) for f in s.legal_moves()} == {"red-small", "red-medium", "red-large"}
    s = s.apply("red-medium>(500,400,0)")
    assert s.opened and s.player_to_move == "blue"
    s = s.apply("blue-small>(520,400,0) red-medium>(505,400,0)")
    assert s.placed(Piece("red", MEDIUM)).at == Placement(505, 400, 0)
    assert s.player_to_move == "green"


def test_first_piece_must_stand_alone():
    s = State.new(["red", "blue"])
    with pytest.raises(IllegalMove, match="first piece"):
        s.apply("red-small>flat")
    with pytest.raises(IllegalMove, match="nothing to crash into"):
        s.apply("red-small>(0,0,0) blue-large>off")


def test_illegal_flicks_say_why():
    s = State.new(["red", "blue"]).apply("red-large>(0,0,0)")
    with pytest.raises(IllegalMove, match="blue's turn, not red's"):
        s.apply("red-small>(40,0,0)")
    s = s.apply("blue-small>off")  # blue's own piece off the table: out of the game
    with pytest.raises(IllegalMove, match="already on the table"):
        s.apply("red-large>(10,0,0)")
    s = s.apply("red-small>(40,0,0)")
    with pytest.raises(IllegalMove, match="out of the game"):
        s.apply("blue-small>(70,0,0)")
    with pytest.raises(IllegalMove, match="listed twice"):
        s.apply("blue-medium>(70,0,0) red-small>off red-small>flat")
    with pytest.raises(IllegalMove, match="is not on the table"):
        s.apply("blue-medium>(70,0,0) red-medium>off")


def test_crashes_send_pieces_back_or_out():
    s = State.from_layout(
        ["red", "blue"],
        [placed("red", LARGE, 0, 0), placed("red", SMALL, 40, 0), placed("blue", LARGE, 0, 60)],
        to_move="red",
    )
    # red flicks its Medium, which knocks blue's Large off (back to blue), its own Small off (out of the game)
    # and tips its own Large flat (back to red).
    after = s.apply("red-medium>(20,5,0) blue-large>off red-small>off red-large>flat")
    assert [str(p.piece) for p in after.table] == ["red-medium"]
    assert after.out == frozenset({Piece("red", SMALL)})
    assert after.hand("blue") == (Piece("blue", SMALL), Piece("blue", MEDIUM), Piece("blue", LARGE))
    assert after.hand("red") == (Piece("red", LARGE),)
    # a slid piece that tips flat comes straight back; one that falls off is out
    flat = State.new(["red", "blue"]).apply("red-small>(0,0,0)").apply("blue-large>flat")
    assert Piece("blue", LARGE) in flat.hand("blue")
    off = State.new(["red", "blue"]).apply("red-small>(0,0,0)").apply("blue-large>off")
    assert Piece("blue", LARGE) in off.out


def test_players_with_nothing_to_slide_are_skipped_and_game_ends():
    s = State.new(["red", "blue"])
    s = s.apply("red-small>(0,0,0)")
    s = s.apply("blue-small>off")
    s = s.apply("red-medium>(30,0,0)")
    s = s.apply("blue-medium>off")
    s = s.apply("red-large>(0,40,0)")
    assert s.player_to_move == "blue"
    s = s.apply("blue-large>off")
    assert s.is_over() and s.legal_moves() == ()
    # red Small scores the Medium (2) and the Large (3); red Medium scores the Large (3)
    assert s.scores() == {"red": 8, "blue": 0}
    assert s.winner() == "red"
    with pytest.raises(IllegalMove, match="game is over"):
        s.apply("red-small>(1,1,0)")


def test_skip_a_player_whose_hand_is_empty():
    s = State.from_layout(
        ["red", "blue", "green"],
        [placed("blue", SMALL, 0, 0), placed("blue", MEDIUM, 50, 0), placed("blue", LARGE, 100, 0)],
        to_move="red",
    )
    s = s.apply("red-small>(200,0,0)")
    assert s.player_to_move == "green"
    # green knocks a blue piece off: blue has a piece again and gets the next turn after red
    s = s.apply("green-small>(300,0,0) blue-large>off")
    assert s.player_to_move == "red"
    s = s.apply("red-medium>(400,0,0)")
    assert s.player_to_move == "blue" and s.legal_moves()[0].piece == Piece("blue", LARGE)


def test_tie_has_no_winner():
    s = State.from_layout(["red", "blue"], [placed(c, z, 100 * i, 100 * j) for i, c in enumerate(("red", "blue"))
                                           for j, z in enumerate((SMALL, MEDIUM, LARGE))])
    assert s.is_over() and s.scores() == {"red": 0, "blue": 0} and s.winner() is None


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_variants_force_the_piece_choice(variant):
    s = State.new(["red", "blue"], variant=variant)
    allowed = {f.piece.size for f in s.legal_moves()}
    expected = {Choice.ANY: {SMALL, MEDIUM, LARGE}, Choice.SMALLEST: {SMALL}, Choice.LARGEST: {LARGE}}
    assert allowed == expected[variant.choice]
    if variant.choice is not Choice.ANY:
        with pytest.raises(IllegalMove, match=f"must slide the {variant.choice.value} piece"):
            s.apply("red-medium>(0,0,0)")
    state = State.from_layout(["red", "blue"], EXAMPLE, variant=variant)
    expected_points = {
        Scoring.SMALLER_ON_LARGER: {"red": 3, "blue": 5},
        Scoring.LARGER_ON_SMALLER: {"red": 1, "blue": 3},
    }
    assert state.scores() == expected_points[variant.scoring]


def test_variant_text_forms():
    assert len(VARIANTS) == 6 and len(set(VARIANTS)) == 6
    for v in VARIANTS:
        assert Variant.parse(str(v)) == v
    assert Variant.parse("smallest") == Variant(Choice.SMALLEST)
    with pytest.raises(RulesError):
        Variant.parse("all/whatever")


def test_state_is_hashable_and_from_layout_checks():
    a = State.from_layout(["red", "blue"], EXAMPLE)
    b = State.from_layout(["red", "blue"], list(reversed(EXAMPLE)))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(LayoutError, match="twice"):
        State.from_layout(["red", "blue"], [placed("red", SMALL, 0, 0), placed("red", SMALL, 9, 9)])
    with pytest.raises(LayoutError, match="belongs to no player"):
        State.from_layout(["red", "blue"], [placed("green", SMALL, 0, 0)])
    with pytest.raises(LayoutError, match="different colour"):
        State.from_layout(["red", "red"])
    with pytest.raises(RulesError, match="unknown pyramid colour"):
        State.new(["red", "mauve"])


# ------------------------------------------------------------------------------------------------- explain
def test_explain_finds_the_flick_with_its_crashes():
    before = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0), placed("red", SMALL, 60, 0)],
                               to_move="blue")
    seen = State.from_layout(
        ["red", "blue"],
        [placed("red", LARGE, 5.0, 1.0), placed("blue", SMALL, 30, 0),
         {"color": "red", "size": "small", "pose": "flat"}],
    )
    result = explain(before, seen)
    assert result.legal, result.reason
    (move,) = result.moves
    assert str(move) == "blue-small>(30.0,0.0,0.0) red-small>flat red-large>(5.0,1.0,0.0)"
    # small jitter of the camera is not a move
    assert explain(before, State.from_layout(["red", "blue"], [placed("red", LARGE, 1, 1),
                                                               placed("red", SMALL, 60, 1.5)])).unchanged


def test_explain_rejects_two_pieces_of_different_players():
    before = State.new(["red", "blue"]).apply("red-large>(0,0,0)")
    seen = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0), placed("red", SMALL, 40, 0),
                                               placed("blue", SMALL, -40, 0)])
    assert "different players" in explain(before, seen).reason


def test_explain_rejects_a_piece_out_of_the_game_or_out_of_turn():
    before = State.new(["red", "blue"]).apply("red-large>(0,0,0)").apply("blue-small>off")
    # red's turn now; blue's Small is out of the game
    seen = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0), placed("blue", SMALL, 40, 0)])
    assert "it is red's turn" in explain(before, seen).reason
    before_blue = before.apply("red-small>(80,0,0)")
    seen = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0), placed("red", SMALL, 80, 0),
                                               placed("blue", SMALL, 40, 0)])
    assert "out of the game" in explain(before_blue, seen).reason
    seen = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0), placed("red", SMALL, 80, 0),
                                               placed("red", MEDIUM, 40, 0)])
    assert "it is blue's turn" in explain(before_blue, seen).reason


def test_explain_flicked_piece_that_left_the_table():
    before = State.new(["red", "blue"]).apply("red-large>(0,0,0)")
    pushed = State.from_layout(["red", "blue"], [placed("red", LARGE, 20, 0)])
    ambiguous = explain(before, pushed)
    assert not ambiguous.legal and "cannot be told apart" in ambiguous.reason
    forced = State.from_layout(["red", "blue"], [placed("red", LARGE, 0, 0)], variant="largest")
    forced = forced._advanced(1)  # blue to move
    result = explain(forced, State.from_layout(["red", "blue"], [placed("red", LARGE, 20, 0)]))
    assert result.legal and str(result.moves[0]) == "blue-large>off red-large>(20.0,0.0,0.0)"


# ------------------------------------------------------------------------------------------------- random play
far_spots = st.builds(Placement, st.floats(0, 1500), st.floats(0, 900), st.floats(0, 89.9))
fates = st.one_of(st.sampled_from([Crash.FLAT, Crash.OFF]), far_spots)


@st.composite
def random_flicks(draw):
    """A game's start and up to 14 flicks drawn from the legal templates, each with random crashes."""
    players = draw(st.sampled_from([["red", "blue"], ["green", "yellow", "black"], ["blue"]]))
    state = State.new(players, draw(st.sampled_from(VARIANTS)))
    flicks = []
    for _ in range(draw(st.integers(1, 14))):
        if state.is_over():
            break
        template = draw(st.sampled_from(state.legal_moves()))
        if not state.opened:
            flicks.append(template.landing(*draw(st.tuples(st.floats(0, 1500), st.floats(0, 900)))))
        else:
            hit = draw(st.lists(st.sampled_from([p.piece for p in state.table] or [None]), unique=True, max_size=3))
            crashes = []
            for p in (p for p in hit if p is not None):
                old = state.placed(p).at  # a pushed piece moves more than explain's tolerance
                crashes.append((p, draw(fates.filter(lambda o, old=old: not isinstance(o, Placement)
                                                     or o.distance_mm(old) > 5.0))))
            flicks.append(Move(template.piece, draw(fates), tuple(crashes)))
        state = state.apply(flicks[-1])
    return State.new(players, state.variant), flicks


def seen_by_camera(state, flat):
    """What the camera sees after a flick: the upright pieces and those lying flat (the state's bookkeeping lost)."""
    lying = [{"color": p.color, "size": p.size.value, "pose": "flat"} for p in flat]
    return State.from_layout(state.players, [*state.table, *lying], variant=state.variant)


@settings(max_examples=40, deadline=None)
@given(random_flicks())
def test_random_legal_play_keeps_the_invariants(game):
    state, flicks = game
    everyone = {Piece(c, s) for c in state.players for s in (SMALL, MEDIUM, LARGE)}
    for move in flicks:
        assert move.piece in {f.piece for f in state.legal_moves()}
        assert Move.parse(str(move)) == move and hash(Move.parse(str(move))) == hash(move)
        after = state.apply(move)  # never raises on a flick of a legal piece
        on_table = {p.piece for p in after.table}
        hands = {p for c in after.players for p in after.hand(c)}
        # every piece is in exactly one place: upright on the table, in its owner's hand, or out of the game
        assert on_table | hands | after.out == everyone and not (on_table & after.out) and not (hands & after.out)
        assert state.out <= after.out  # nothing comes back into the game
        for p in after.out - state.out:  # only the mover's own pieces fall out of the game
            assert p.color == state.player_to_move and Crash.OFF in {move.outcome, *dict(move.crashes).values()}
        assert after.is_over() == (not hands) and (after.is_over() or after.hand(after.player_to_move))
        assert all(v >= 0 for v in after.scores().values())
        assert sum(after.scores().values()) == sum(p.points for p in after.score_report().pairs if p.within)
        # explain finds the flick from what the camera sees, or abstains when the slid piece left the table
        # and the mover had several to choose from (or sees nothing when it left touching nothing)
        flat = [p for p, o in ((move.piece, move.outcome), *move.crashes) if o is Crash.FLAT]
        found = explain(state, seen_by_camera(after, flat))
        if move.outcome is Crash.OFF and not move.crashes:
            assert found.unchanged  # the flicked piece left the table touching nothing: the table looks the same
        elif move.outcome is Crash.OFF and len(state.slidable()) > 1:
            assert not found.legal and "cannot be told apart" in found.reason
        else:
            assert found.legal and found.moves == (move,), (str(move), found)
        state = after
