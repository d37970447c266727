"""Looney pyramids on rendered frames (tests/tablescene): sizes, poses, colours, footprints, gaps, hands.

Frames are calibrated from the A4 sheet in them, as a user would; the truth is the renderer's. Thresholds are
what the detector reaches with some margin (see benchmarks/bench_shuffleboard.py for the distributions), not
what it happens to score on one frame.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from tablescene import CameraSpec, Hand, Lighting, PyramidPiece, Scene, render

from calibration.table_calibration import calibrate_from_sheet
from rules.martian_shuffleboard import footprint, polygon_distance, score_positions
from rules.pieces import Kind, PyramidPose, PyramidSize
from vision.figure_kernels import convex_hull, intersection_area
from vision.figure_models import pyramid_model, silhouette_mm, to_table_plane
from vision.figure_projection import Projector
from vision.figures import detect_figures
from vision.pyramids import classify_pyramid_color


def _nearest(found, truth, max_mm: float = 6.0):
    best = min(found, key=lambda f: math.hypot(f.x_mm - truth.x_mm, f.y_mm - truth.y_mm), default=None)
    if best is None or math.hypot(best.x_mm - truth.x_mm, best.y_mm - truth.y_mm) > max_mm:
        return None
    return best


def _angle_error(a: float, b: float, period: float) -> float:
    return abs((a - b + period / 2) % period - period / 2)


# ----------------------------------------------------------------------------------------------------- frames
# Every size, upright and flat, eight colours; a touching pair (0.6 mm apart) and one Small next to a Large.
MIXED = [
    PyramidPiece("red", "large", "upright", 40, 60, 10),
    PyramidPiece("yellow", "medium", "upright", 95, 55, 35),
    PyramidPiece("green", "small", "upright", 145, 60, 70),
    PyramidPiece("blue", "large", "flat", 205, 70, 120),
    PyramidPiece("black", "medium", "upright", 45, 140, 20),
    PyramidPiece("orange", "small", "flat", 100, 140, 250),
    PyramidPiece("purple", "medium", "flat", 160, 150, 30),
    PyramidPiece("cyan", "large", "upright", 225, 150, 55),
    PyramidPiece("blue", "medium", "upright", 60, 230, 0),
    PyramidPiece("red", "small", "upright", 60 + 19.8 / 2 + 0.6 + 14.3 / 2, 230, 0),
    PyramidPiece("green", "large", "upright", 170, 235, 40),
    PyramidPiece("yellow", "small", "upright", 200, 245, 15),
]
FRAMES = {
    # (pieces, table, tilt, distance, resolution)
    "felt-tilted": (MIXED, "felt", 25.0, 650.0, (1640, 1232)),
    "wood-straight": (MIXED, "wood", 5.0, 700.0, (2304, 1296)),
}


@pytest.fixture(scope="module")
def frames():
    out = {}
    for name, (pieces, table, tilt, distance, resolution) in FRAMES.items():
        scene = Scene(pieces=pieces, table=table, sheet="a4", lighting=Lighting(lamp_mm=(
            300.0, -200.0, 1500.0)))
        spec = CameraSpec(resolution=resolution, distance_mm=distance, tilt_deg=tilt, target_mm=(135, 150))
        result = render(scene, spec, seed=3)
        calibration = calibrate_from_sheet(result.image)
        found = detect_figures(result.image, calibration, kinds=("pyramid",))
        out[name] = (result, calibration, found)
    return out


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_sizes_poses_colours_and_footprints(frames, name):
    result, _, found = frames[name]
    truths = result.of_kind("pyramid")
    confident = 0
    for t in truths:
        f = _nearest(found, t)
        assert f is not None, f"{t.color} {t.size} {t.pose} not found"
        assert f.kind is Kind.PYRAMID
        if f.uncertain:
            continue  # allowed (never a wrong confident answer), counted below
        confident += 1
        assert f.size is PyramidSize(t.size), (t.color, t.size, t.pose, f.size)
        assert f.pose is PyramidPose(t.pose), (t.color, t.size, t.pose, f.pose)
        assert f.color == t.color, (t.color, f.color)
        error = math.hypot(f.x_mm - t.x_mm, f.y_mm - t.y_mm)
        if t.pose == "upright":
            assert error < 0.8, (t.color, t.size, error)
            assert _angle_error(f.angle_deg, t.angle_deg, 90.0) < 4.0, (t.color, t.size, f.angle_deg, t.angle_deg)
        else:
            assert error < 1.5, (t.color, t.size, error)
            assert _angle_error(f.apex_deg, t.angle_deg, 360.0) < 5.0, (t.color, t.size, f.apex_deg, t.angle_deg)
    assert confident >= len(truths) - 1
    assert len(found) <= len(truths)  # nothing made up


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_touching_pair_gap_and_centre_error_budget(frames, name):
    """The 0.6 mm gap between the blue Medium and the red Small, and every pair's gap error."""
    result, _, found = frames[name]
    upright = [(t, _nearest(found, t)) for t in result.of_kind("pyramid") if t.pose == "upright"]
    upright = [(t, f) for t, f in upright if f is not None and not f.uncertain]
    errors = []
    for i in range(len(upright)):
        for j in range(i + 1, len(upright)):
            (ta, fa), (tb, fb) = upright[i], upright[j]
            true_gap = polygon_distance(footprint(ta.x_mm, ta.y_mm, ta.angle_deg, PyramidSize(ta.size).base_mm),
                                        footprint(tb.x_mm, tb.y_mm, tb.angle_deg, PyramidSize(tb.size).base_mm))
            seen_gap = polygon_distance(footprint(fa.x_mm, fa.y_mm, fa.angle_deg, fa.size.base_mm),
                                        footprint(fb.x_mm, fb.y_mm, fb.angle_deg, fb.size.base_mm))
            errors.append(abs(seen_gap - true_gap))
            if {ta.color, tb.color} == {"blue", "red"} and {ta.size, tb.size} == {"medium", "small"}:
                assert abs(true_gap - 0.6) < 0.05
                # touching outlines blur into each other; each piece is fitted again without the side facing the
                # other, which brings the gap within the 0.5 mm aimed at
                assert abs(seen_gap - true_gap) < 0.5
    errors = np.array(errors)
    assert len(errors) >= 15
    assert np.mean(errors <= 0.5) >= 0.8
    assert errors.max() < 1.5


def test_scores_match_the_truth(frames):
    result, _, found = frames["wood-straight"]
    seen = [f for f in found if not f.uncertain]
    truth = [dict(color=t.color, size=t.size, pose=t.pose, x_mm=t.x_mm, y_mm=t.y_mm, angle_deg=t.angle_deg)
             for t in result.of_kind("pyramid")]
    if len(seen) == len(truth):
        assert score_positions(seen).points == score_positions(truth).points
    else:  # an uncertain piece: the assistant abstains; the confident ones must still agree where they are
        assert len(seen) >= len(truth) - 1


def test_apex_parallax_is_what_locates_the_base(frames):
    """The apex of an upright Large is seen well away from its base centre; the fitted footprint is the base."""
    result, calibration, found = frames["felt-tilted"]
    t = next(t for t in result.of_kind("pyramid") if t.color == "cyan")
    apex_px = result.project(np.array([[t.x_mm, t.y_mm]]), PyramidSize.LARGE.height_mm)
    apex_on_table = calibration.pixel_to_table(apex_px)[0]
    naive = math.hypot(apex_on_table[0] - t.x_mm, apex_on_table[1] - t.y_mm)
    f = _nearest(found, t)
    assert naive > 5.0  # where a top-down reading of the apex would put it
    assert math.hypot(f.x_mm - t.x_mm, f.y_mm - t.y_mm) < 0.8


# ----------------------------------------------------------------------------------------------------- hands
def test_a_hand_over_a_pyramid_makes_it_uncertain():
    pieces = [PyramidPiece("red", "large", "upright", 100, 150, 10), PyramidPiece("blue", "medium", "upright", 160,
                                                                                   150, 30),
              PyramidPiece("green", "small", "upright", 220, 150, 0)]
    scene = Scene(pieces=pieces, table="wood", sheet="a4", hands=[Hand(100, 158, angle_deg=10, h_mm=30, pose="pinch")])
    result = render(scene, CameraSpec(distance_mm=650, tilt_deg=15, target_mm=(150, 180)), seed=2)
    found = detect_figures(result.image, calibrate_from_sheet(result.image), kinds=("pyramid",))
    by_colour = {t.color: (t, _nearest(found, t)) for t in result.of_kind("pyramid")}
    red_truth, red = by_colour["red"]
    assert red_truth.hand_fraction > 0.5
    assert red is None or red.uncertain  # mostly hidden: never reported as if seen
    blue_truth, blue = by_colour["blue"]
    assert 0.0 < blue_truth.hand_fraction < 0.2  # the fingertips touch it
    assert blue is not None and blue.uncertain and "hand" in blue.reason
    green_truth, green = by_colour["green"]
    assert green_truth.hand_fraction == 0.0
    assert green is not None and not green.uncertain and green.size is PyramidSize.SMALL


# ----------------------------------------------------------------------------------------------------- colourless
def test_clear_and_white_are_told_apart_only_when_one_of_them_is_in_play():
    # on the dark wood beside the sheet (a clear piece on the white sheet itself is too faint to find: see the
    # handoff's limits)
    pieces = [PyramidPiece("clear", "large", "upright", 90, 340, 20), PyramidPiece("red", "medium", "upright", 170,
                                                                                    340, 0)]
    result = render(Scene(pieces=pieces, table="dark-wood", sheet="a4"),
                    CameraSpec(distance_mm=600, tilt_deg=10, target_mm=(130, 250)), seed=4)
    calibration = calibrate_from_sheet(result.image)
    clear_truth = result.of_kind("pyramid")[0]
    found = detect_figures(result.image, calibration, kinds=("pyramid",))
    f = _nearest(found, clear_truth)
    assert f is not None and f.color in ("white", "clear") and f.uncertain and "white or clear" in f.reason

    class Profile:  # a Treehouse set with a clear stash and no white one
        pyramid_colors = ("red", "yellow", "green", "blue", "clear")

    found = detect_figures(result.image, calibration, Profile(), kinds=("pyramid",))
    f = _nearest(found, clear_truth)
    assert f is not None and f.color == "clear" and not f.uncertain and f.size is PyramidSize.LARGE
    assert math.hypot(f.x_mm - clear_truth.x_mm, f.y_mm - clear_truth.y_mm) < 0.8


def test_clear_and_white_on_paper_are_reported_never_silently_missed():
    """Clear and white plastic passes the sheet's white through: the colour look cannot see them, their edges
    can. Each one on the paper is reported (uncertain is fine: it then stops the score), and none is read as a
    coloured piece or confidently given a wrong size."""
    pieces = [PyramidPiece("clear", "large", "upright", 90, 150, 20), PyramidPiece("white", "medium", "upright", 150,
                                                                                    150, 10),
              PyramidPiece("clear", "small", "upright", 120, 200, 40), PyramidPiece("red", "medium", "upright", 60, 260,
                                                                                     0)]
    result = render(Scene(pieces=pieces, table="laminate", sheet="a4", lighting=Lighting(lamp_mm=(300.0, -200.0,
                                                                                                    1500.0))),
                    CameraSpec(distance_mm=650, tilt_deg=15, target_mm=(150, 200)), seed=1)
    found = detect_figures(result.image, calibrate_from_sheet(result.image), kinds=("pyramid",))
    for t in result.of_kind("pyramid"):
        f = _nearest(found, t, max_mm=8.0)
        assert f is not None, (t.color, t.size)
        if t.color in ("clear", "white"):
            assert f.color in ("clear", "white") and f.uncertain, (t.color, f.color, f.reason)
        else:
            assert not f.uncertain and f.color == "red" and f.size is PyramidSize.MEDIUM
    assert len(found) == len(pieces)  # nothing made up on the paper, the print or the laminate


def test_a_gingham_tablecloth_is_table_not_pieces():
    """A red and white checked cloth: its checks (and their half-tone mix) are one colour line, so they are not
    pieces, and pyramids of other colours stand out from it; red ones are found by their edges and shading."""
    pieces = [PyramidPiece("red", "large", "upright", 250, 120, 20), PyramidPiece("blue", "medium", "upright", 300,
                                                                                   200, 10),
              PyramidPiece("green", "small", "upright", 260, 300, 40), PyramidPiece("yellow", "large", "flat", 330,
                                                                                     300, 100),
              PyramidPiece("blue", "large", "upright", 350, 120, 30)]
    result = render(Scene(pieces=pieces, table="tablecloth", sheet="a4", lighting=Lighting(lamp_mm=(
        300.0, -200.0, 1500.0))), CameraSpec(distance_mm=650, tilt_deg=15, target_mm=(250, 200)), seed=1)
    found = detect_figures(result.image, calibrate_from_sheet(result.image), kinds=("pyramid",))
    confident = 0
    for t in result.of_kind("pyramid"):
        f = _nearest(found, t)
        assert f is not None, (t.color, t.size, t.pose)
        if not f.uncertain:
            confident += 1
            assert (f.color, f.size, f.pose) == (t.color, PyramidSize(t.size), PyramidPose(t.pose))
            assert math.hypot(f.x_mm - t.x_mm, f.y_mm - t.y_mm) < (0.8 if t.pose == "upright" else 1.5)
    assert confident >= len(pieces) - 1
    assert len(found) == len(pieces)  # no check read as a piece


# ----------------------------------------------------------------------------------------------------- geometry
def test_flat_outline_is_base_width_by_slant_height():
    for size in PyramidSize:
        model = pyramid_model(size, "flat")
        outline = silhouette_mm(model, (0.0, 0.0, 0.0), None)
        width = outline[:, 0].max() - outline[:, 0].min()
        length = outline[:, 1].max() - outline[:, 1].min()
        slant = math.hypot(size.height_mm, size.base_mm / 2)
        assert width == pytest.approx(size.base_mm, abs=1e-6)
        assert length == pytest.approx(slant, abs=1e-6)
        apex = model.points[4]
        assert apex[1] == pytest.approx(outline[:, 1].min())  # the apex points to -v (angle 0: up the picture)
        assert apex[2] == pytest.approx(0.0, abs=1e-9)  # it lies on the table


def test_the_apex_is_seen_displaced_away_from_the_nadir():
    camera = np.array([0.0, 0.0, 600.0])
    for x, y in ((200.0, 0.0), (0.0, -150.0), (100.0, 100.0)):
        apex = to_table_plane(np.array([[x, y, 44.5]]), camera)[0]
        shift = apex - (x, y)
        assert np.dot(shift, (x, y)) > 0  # outward
        assert np.linalg.norm(shift) == pytest.approx(math.hypot(x, y) * 44.5 / (600 - 44.5))


def test_projector_agrees_with_the_calibration(frames):
    _, calibration, _ = frames["felt-tilted"]
    rng = np.random.default_rng(0)
    xy = rng.uniform([-50, -50], [300, 350], (200, 2))
    h = rng.uniform(0, 45, 200)
    assert np.abs(Projector(calibration).project(xy, h) - calibration.table_to_pixel(xy, h)).max() < 1e-6


def test_compiled_overlaps_agree_with_opencv():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a = cv2.convexHull(rng.uniform(0, 50, (8, 2)).astype(np.float32)).reshape(-1, 2).astype(np.float64)
        b = cv2.convexHull(rng.uniform(10, 60, (8, 2)).astype(np.float32)).reshape(-1, 2).astype(np.float64)
        inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
        assert intersection_area(a, b) == pytest.approx(inter, rel=1e-4, abs=1e-3)
        assert len(convex_hull(np.vstack([a, b]))) == len(cv2.convexHull(np.vstack([a, b]).astype(np.float32)))


def test_colour_of_a_translucent_piece_depends_on_what_it_filters():
    # a translucent red over a white sheet passes red and cuts green/blue; over a green felt it still reads red
    assert classify_pyramid_color((60, 55, 190), (220, 225, 228)).color == "red"
    assert classify_pyramid_color((25, 35, 120), (40, 110, 45)).color == "red"
    assert classify_pyramid_color((18, 16, 17), (200, 205, 210)).color == "black"
    vote = classify_pyramid_color((200, 205, 210), (215, 220, 224))
    assert vote.color in ("white", "clear") and vote.ambiguous


def test_bad_input_is_refused(frames):
    _, calibration, _ = frames["felt-tilted"]
    with pytest.raises(ValueError, match="BGR uint8"):
        detect_figures(np.zeros((1232, 1640), np.uint8), calibration)
    with pytest.raises(ValueError, match="unknown figure kind"):
        detect_figures(np.zeros((1232, 1640, 3), np.uint8), calibration, kinds=("meeple",))
    small = cv2.resize(np.zeros((1232, 1640, 3), np.uint8), (820, 616))
    with pytest.raises(Exception, match="calibration"):
        detect_figures(small, calibration)


def test_a_fitted_piece_is_checked_against_the_region_seen():
    """The size/pose checks' geometry: a piece fitted half off the region seen (a Small lying flat read upright
    over the print, where only part of it showed) reaches beyond it; a Large's region read as a Medium is mostly
    left uncovered; the right model fits its region both ways."""
    from types import SimpleNamespace

    from vision.figure_search import _MIN_EXPLAINED_SHARE, _MIN_SEEN_SHARE, _seen_shares
    from vision.figure_segmentation import Blob, TableView

    view = TableView(np.zeros((200, 200, 3), np.uint8), (0.0, 0.0, 200.0, 200.0), 1.0, np.ones((200, 200), bool))
    search = SimpleNamespace(view=view)

    def region(size: PyramidSize, pose: str) -> Blob:
        outline = silhouette_mm(pyramid_model(size, pose), (100.0, 100.0, 30.0), None)
        mask = np.zeros((200, 200), np.uint8)
        cv2.fillPoly(mask, [np.round(view.to_px(outline) * 16).astype(np.int32).reshape(-1, 1, 2)], 1,
                     cv2.LINE_8, 4)
        ys, xs = np.nonzero(mask)
        x, y, w, h = xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
        return Blob(1, (x, y, w, h), float(mask.sum()), outline, outline, False, mask[y : y + h, x : x + w])

    def shares(blob: Blob, size: PyramidSize, pose: str, at=(100.0, 100.0, 30.0)) -> tuple[float, float]:
        return _seen_shares(search, blob, silhouette_mm(pyramid_model(size, pose), at, None))

    for pose in ("upright", "flat"):
        own = region(PyramidSize.SMALL, pose)
        on, of = shares(own, PyramidSize.SMALL, pose)
        assert on > 0.95 and of > 0.95, pose
        on, _ = shares(own, PyramidSize.SMALL, pose, (107.0, 100.0, 30.0))  # 7 mm aside: half of it off
        assert on < _MIN_SEEN_SHARE, (pose, on)
    large = region(PyramidSize.LARGE, "upright")
    on, of = shares(large, PyramidSize.MEDIUM, "upright")
    assert on > 0.95 and of < _MIN_EXPLAINED_SHARE


def _bench_frame(seed: int, index: int):
    """The Shuffleboard bench's frame ``scene_for(index, seed)`` (benchmarks/bench_shuffleboard.py), through the
    tests' render cache."""
    from detect_scenes import rendered
    from tablescene import shuffleboard_scatter

    rng = np.random.default_rng([seed, index])
    pieces = shuffleboard_scatter(rng=rng, radius_mm=float(rng.uniform(110, 170)), touching=int(rng.integers(1, 4)))
    table = ("wood", "dark-wood", "felt", "cloth", "laminate")[int(rng.integers(5))]
    scene = Scene(pieces=pieces, table=table, table_variant=int(rng.integers(0, 3)), sheet="a4",
                  lighting=Lighting.random(rng))
    spec = CameraSpec(resolution=((1640, 1232), (2304, 1296))[index % 2], distance_mm=float(rng.uniform(400, 1200)),
                      tilt_deg=float(rng.uniform(0, 30)), yaw_deg=float(rng.uniform(-20, 20)),
                      target_mm=(float(148.5 + rng.normal(0, 30)), float(210 + rng.normal(0, 30))))
    return rendered(scene, spec, index)


def test_an_upright_whose_outline_and_ridges_disagree_is_not_placed_surely():
    """The bench's frame seed 1 #18: a green Large straddling the sheet's markers (dark print under translucent
    plastic) beside a blue piece was placed 1.7 mm off, confidently; its base outline alone and its ridges put it
    1.8 mm apart. It is reported uncertain (or placed within 1.5 mm), and the frame's other uprights keep their
    readings."""
    frame = _bench_frame(1, 18)
    found = detect_figures(frame.image, calibrate_from_sheet(frame.image), kinds=("pyramid",))
    uprights = [t for t in frame.truth if t["kind"] == "pyramid" and t["pose"] == "upright" and t["in_frame"]
                and t["occluded_fraction"] < 0.05 and t["hand_fraction"] == 0.0]
    sure = []
    for t in uprights:
        f = min(found, key=lambda f: math.hypot(f.x_mm - t["x_mm"], f.y_mm - t["y_mm"]))
        off = math.hypot(f.x_mm - t["x_mm"], f.y_mm - t["y_mm"])
        if off < 6.0 and not f.uncertain:  # (further: missed, the bench's count)
            assert off < 1.5, (t["color"], t["size"], round(off, 2))
            sure.append(t)
    (green_large,) = [t for t in uprights if (t["color"], t["size"]) == ("green", "large")]
    # reported (uncertain), not dropped: a pyramid left out would change the score silently
    assert any(math.hypot(f.x_mm - green_large["x_mm"], f.y_mm - green_large["y_mm"]) < 6.0 for f in found)
    assert len(sure) >= 5, (len(sure), len(uprights))  # of nine: two missed, one reported partly hidden


def test_a_flat_piece_fitted_over_its_own_shadow_is_not_sized_surely():
    """The bench's frame seed 10 #5 (2304x1296, close up): a yellow Small and a green Medium lying flat were read
    Medium and Large, confidently, each model reaching over the piece's grey shadow. A coloured piece's fitted
    silhouette must be its plastic's colour throughout: they are reported uncertain (size unclear), and the
    frame's other pieces keep their sizes."""
    frame = _bench_frame(10, 5)
    found = detect_figures(frame.image, calibrate_from_sheet(frame.image), kinds=("pyramid",))
    confident = 0
    for t in frame.truth:
        if t["kind"] != "pyramid" or not t["in_frame"]:
            continue
        f = min(found, key=lambda f: math.hypot(f.x_mm - t["x_mm"], f.y_mm - t["y_mm"]))
        if math.hypot(f.x_mm - t["x_mm"], f.y_mm - t["y_mm"]) > 8.0 or f.uncertain:
            continue
        assert (f.size.value, f.pose.value) == (t["size"], t["pose"]), (t["color"], t["size"], t["pose"], f.size)
        confident += 1
    assert confident >= 8, confident
