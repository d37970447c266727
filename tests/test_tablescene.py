"""The scene renderer: its ground truth lands on the drawn pieces, it is deterministic, editions differ,
hands hide what they cover, and sequences have still segments. Small frames keep this file fast."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from tablescene import (
    EASY_SLIDER_ORIGIN_A3,
    EDITIONS,
    HAND_ID,
    CameraSpec,
    CoinPiece,
    DiePiece,
    GridGeometry,
    Hand,
    Lighting,
    PawnPiece,
    PyramidPiece,
    Scene,
    Slide,
    TilePiece,
    easy_slider_board,
    easy_slider_layout,
    plan_moves,
    read_video,
    render,
    render_plan,
    shuffleboard_scatter,
    teach_layout,
    tile_block,
)

from calibration.sheet import sheet_layout
from rules.pieces import SUITS, Suit

SMALL = (820, 616)
QUIET = Lighting(noise=0.0, jpeg_quality=None, blur_px=0.0, vignetting=0.0, gradient=0.0)


def small_camera(**kw) -> CameraSpec:
    values = dict(resolution=SMALL, focal_px=680.0, distance_mm=520.0, target_mm=(150.0, 150.0))
    values.update(kw)
    return CameraSpec(**values)


def tiles_on_felt() -> Scene:
    pieces = [
        TilePiece(Suit.SUNS, 3, "face", 70, 90, 0),
        TilePiece(Suit.MOONS, 0, "face", 160, 95, 12),
        TilePiece(Suit.CROWNS, 5, "face", 245, 90, -8),
        TilePiece(Suit.ARMS, 1, "face", 110, 200, 30),
        TilePiece(Suit.SUNS, 2, "face", 215, 210, 45),
    ]
    return Scene(pieces=pieces, table="felt", sheet=None, lighting=QUIET)


def test_projected_tile_centres_lie_on_the_tiles_found_by_colour():
    """Segment the white tile faces from the green felt by colour alone; every truth centre must fall inside a
    segmented blob whose centroid is within a few pixels of the truth's top-face centre."""
    for tilt, yaw, k1 in ((0.0, 0.0, 0.0), (25.0, 40.0, -0.08)):
        result = render(tiles_on_felt(), small_camera(tilt_deg=tilt, yaw_deg=yaw, k1=k1, k2=0.0), seed=2)
        hsv = cv2.cvtColor(result.image, cv2.COLOR_BGR2HSV)
        bright = ((hsv[..., 1] < 70) & (hsv[..., 2] > 120)).astype(np.uint8)
        bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(bright)
        assert len(result.truth) == 5
        found = set()
        for t in result.truth:
            x, y = (int(round(v)) for v in t.top_center_px)
            label = labels[y, x]
            assert label != 0, f"tile {t.index} centre {t.top_center_px} is not on a bright tile pixel"
            found.add(label)
            distance = math.dist(centroids[label], t.top_center_px)
            assert distance < 4.0, f"tile {t.index}: blob centroid {centroids[label]} vs truth {t.top_center_px}"
            # the blob's area agrees with the truth's silhouette (top face + visible sides) within 15 %
            assert 0.7 * t.area_px < stats[label, cv2.CC_STAT_AREA] < 1.15 * t.area_px
        assert len(found) == 5


def test_labels_image_matches_truth_polygons():
    result = render(tiles_on_felt(), small_camera(tilt_deg=15.0), seed=1, quality="draft")
    for t in result.truth:
        poly = np.array(t.top_polygon_px, np.float32)
        mask = np.zeros(result.labels.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
        inner = cv2.erode(mask, np.ones((5, 5), np.uint8)).astype(bool)
        assert (result.labels[inner] == t.index).mean() > 0.98
    assert (result.labels == -1).mean() > 0.5  # mostly table


@pytest.mark.parametrize("k1", [0.0, -0.1])
def test_aruco_markers_are_found_where_the_truth_projects_them(k1):
    layout = sheet_layout("a4")
    scene = Scene(pieces=[], table="wood", sheet="a4", lighting=Lighting(noise=0.6, jpeg_quality=90))
    camera = small_camera(target_mm=(105.0, 150.0), distance_mm=480.0, tilt_deg=20.0, yaw_deg=-15.0, k1=k1, k2=0.0)
    result = render(scene, camera, seed=3)
    gray = cv2.cvtColor(result.image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(layout.dictionary), params)
    corners, ids, _ = detector.detectMarkers(gray)
    assert ids is not None and len(ids) >= len(layout.markers) - 1
    errors = []
    for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
        expected = result.project(layout.markers[int(marker_id)])
        if k1 == 0.0:  # without distortion the homography itself predicts the pixels
            pts = np.column_stack([layout.markers[int(marker_id)], np.ones(4)]) @ result.homography.T
            np.testing.assert_allclose(pts[:, :2] / pts[:, 2:], expected, atol=1e-6)
        errors.append(np.linalg.norm(marker_corners.reshape(4, 2) - expected, axis=1))
    errors = np.concatenate(errors)
    assert errors.max() < 1.5, errors
    assert errors.mean() < 0.6


def test_same_seed_same_frame_other_seed_other_noise():
    scene = tiles_on_felt().but(lighting=Lighting())
    a = render(scene, small_camera(), seed=5, quality="draft")
    b = render(scene, small_camera(), seed=5, quality="draft")
    c = render(scene, small_camera(), seed=6, quality="draft")
    assert np.array_equal(a.image, b.image)
    assert a.to_json() == b.to_json()
    diff = np.abs(a.image.astype(int) - c.image.astype(int))
    assert 0.5 < diff.mean() < 8  # the sensor noise differs, the picture does not
    assert a.to_json()["pieces"] == c.to_json()["pieces"]


def test_editions_draw_the_same_tile_differently():
    crops = {}
    for name in ("default", "classic", "hand-made", "bold"):
        scene = Scene(pieces=[TilePiece("crowns", 3, "face", 150, 150)], table="felt", sheet=None,
                      edition=name, lighting=QUIET)
        result = render(scene, small_camera(distance_mm=300.0), seed=1, quality="draft")
        x0, y0, x1, y1 = (int(v) for v in result.truth[0].bbox_px)
        crop = cv2.resize(result.image[y0:y1, x0:x1], (64, 64), interpolation=cv2.INTER_AREA).astype(float)
        crops[name] = crop
        assert result.truth[0].edition == name
    names = list(crops)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert np.abs(crops[a] - crops[b]).mean() > 12, (a, b)
    # crowns are green in the default edition and gold in the classic one
    assert EDITIONS["default"].color("crowns") != EDITIONS["classic"].color("crowns")


def test_a_hand_hides_the_tile_it_covers_and_only_that():
    pieces = [TilePiece(s, r, "face", 60 + 60 * r, 80 + 60 * i) for i, s in enumerate(SUITS[:3]) for r in range(4)]
    hand = Hand(60 + 60 * 2, 80 + 60 * 1 - 22, angle_deg=0, h_mm=3.5, pose="flat")
    scene = Scene(pieces=pieces, table="wood", sheet=None, hands=[hand], lighting=QUIET)
    result = render(scene, small_camera(target_mm=(150, 160), distance_mm=600), seed=1, quality="draft")
    covered = result.truth[6]  # moons 2, under the fingers
    assert covered.hand_fraction > 0.5 and covered.hidden
    assert (result.labels == HAND_ID).sum() > 5000
    # tiles of the top row are far from the hand: fully visible
    for t in result.truth[:4]:
        assert t.hand_fraction == 0.0 and not t.hidden and t.visible_fraction > 0.99
    # without the hand nothing is hidden
    clear = render(scene.but(hands=()), small_camera(target_mm=(150, 160), distance_mm=600), seed=1,
                   quality="draft")
    assert not any(t.hidden for t in clear.truth)


def test_stacking_coin_on_tile_die_on_coin():
    scene = Scene(pieces=[TilePiece("arms", 4, "back", 150, 150), CoinPiece("suns", 2, "value", 140, 145),
                          DiePiece("moons", 3, 140, 145), PawnPiece("crowns", 60, 150)],
                  table="cloth", sheet=None, lighting=QUIET)
    result = render(scene, small_camera(tilt_deg=20), seed=1, quality="draft")
    tile, coin, die, pawn = result.truth
    assert coin.on == 0 and coin.base_mm == pytest.approx(tile.top_mm)
    assert die.on == 1 and die.base_mm == pytest.approx(coin.top_mm)
    assert pawn.on is None and pawn.base_mm == 0
    assert die.faces["top"] == 3 and die.faces["bottom"] == 2
    assert tile.occluded_fraction > 0.02 and coin.occluded_fraction > 0.1  # partly under what stands on them
    assert result.labels[tuple(int(round(v)) for v in die.top_center_px[::-1])] == 2


def test_pyramid_truth_upright_and_flat():
    scene = Scene(pieces=[PyramidPiece("red", "large", "upright", 110, 150),
                          PyramidPiece("blue", "medium", "flat", 200, 150, angle_deg=90)],
                  table="felt", sheet=None, lighting=QUIET)
    result = render(scene, small_camera(tilt_deg=10), seed=1, quality="draft")
    upright, flat = result.truth
    assert (upright.color, upright.size, upright.pose) == ("red", "large", "upright")
    assert upright.top_mm == pytest.approx(44.5)
    assert flat.pose == "flat" and flat.apex_deg == pytest.approx(90.0)
    # the apex of a pyramid flat with angle 90 points to +x from its centre
    assert flat.apex_mm[0] > 200 + 15 and abs(flat.apex_mm[1] - 150) < 1e-6
    assert flat.top_mm < 25.0
    # the translucent plastic shows its colour where the truth says it is
    for t, channel in ((upright, 2), (flat, 0)):
        x, y = (int(round(v)) for v in t.center_px)
        b, g, r = result.image[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).mean(axis=0)
        assert (b, g, r)[channel] > max(np.delete([b, g, r], channel)) + 15


def test_layouts_put_pieces_where_the_games_want_them():
    board = easy_slider_board(rng=4)
    pieces = easy_slider_layout(board, rng=4, nudge_mm=0.0, turn_deg=0.0)
    kinds = [p.kind for p in pieces]
    assert kinds.count("tile") == 24 and kinds.count("pawn") == 4 and kinds.count("coin") == 5
    grid = GridGeometry(EASY_SLIDER_ORIGIN_A3)
    first = pieces[0]
    assert (first.x_mm, first.y_mm) == pytest.approx(grid.centre(0, 0))
    assert (first.suit, first.rank) == board[0][0]
    pawns = [p for p in pieces if p.kind == "pawn"]
    assert all(p.x_mm < grid.origin[0] for p in pawns)
    coins = [p for p in pieces if p.kind == "coin"]
    assert [c.rank for c in coins] == [1, 2, 3, 4, 5] and all(c.y_mm < grid.origin[1] for c in coins)
    teach = teach_layout()
    assert [p.kind for p in teach].count("coin") == 48 and [p.kind for p in teach].count("die") == 4
    block = tile_block(4, (0, 0), coins={(0, 0): ("suns", 1), (7, 7): ("arms", 2)})
    assert sum(p.kind == "tile" and p.side == "back" for p in block) == 16
    corner = [p for p in block if p.kind == "coin"][-1]
    assert corner.x_mm == pytest.approx(4 * 50.8 + 3 - 12.7, abs=3) and corner.side == "suit"
    scatter = shuffleboard_scatter(rng=2)
    assert len(scatter) == 12
    for i, a in enumerate(scatter):
        for b in scatter[i + 1 :]:
            assert math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) > (a.size.base_mm + b.size.base_mm) / 2


def test_a_slide_sequence_has_still_segments_and_moves_the_tile(tmp_path):
    grid = GridGeometry((40, 60))
    pieces = [TilePiece("suns", 1, "face", *grid.centre(0, 0)), TilePiece("moons", 2, "face", *grid.centre(1, 0))]
    scene = Scene(pieces=pieces, table="wood", sheet=None, lighting=Lighting(noise=0.5))
    plan = plan_moves(scene, [Slide(1, grid.centre(2, 0))], fps=4, still_s=0.5, reach_s=0.5, slide_s=0.5,
                      leave_s=0.5, rng=1)
    assert [(s.start, s.stop) for s in plan.stills] == [(0, 2), (8, 10)]
    camera = CameraSpec(resolution=(320, 240), focal_px=300.0, distance_mm=500.0, target_mm=(120, 90))
    video = tmp_path / "slide.mp4"
    images = []
    truths = render_plan(plan, camera, video_path=video, on_frame=lambda i, result: images.append(result.image))
    assert len(truths) == len(plan.frames) == len(images) == 10
    for still in plan.stills:
        for i in still.frames:
            assert not plan.frames[i].hands
    assert truths[0][1].x_mm == pytest.approx(grid.centre(1, 0)[0])
    assert truths[-1][1].x_mm == pytest.approx(grid.centre(2, 0)[0])
    assert any(t[1].hand_fraction > 0.15 for t in truths[2:8])  # the hand covers the moving tile
    assert all(t[1].hand_fraction == 0 for t in truths[:2] + truths[8:])
    # still frames differ by sensor noise only; a frame with the hand differs where the tile was
    x0, y0, x1, y1 = (int(v) for v in truths[0][1].bbox_px)
    box = (slice(y0, y1), slice(x0, x1))
    still_diff = np.abs(images[0][box].astype(int) - images[1][box].astype(int)).mean()
    move_diff = np.abs(images[0][box].astype(int) - images[5][box].astype(int)).mean()
    assert move_diff > 4 * still_diff, (still_diff, move_diff)
    frames, fps = read_video(video)
    assert len(frames) == 10 and fps == pytest.approx(4.0)
    assert all(np.abs(f.astype(int) - im.astype(int)).mean() < 12 for f, im in zip(frames, images, strict=True))


def test_committed_fixture_matches_its_generator_and_its_truth(tmp_path):
    """fixtures/scenes/easy_slider.*: the generator reproduces the committed truth, and in the committed JPEG
    every tile's face is where the truth says (the blank upper-right quarter of a default face is white)."""
    import json
    from pathlib import Path

    import make_fixtures

    root = Path(__file__).resolve().parent.parent / "fixtures" / "scenes"
    committed = json.loads((root / "easy_slider.json").read_text())
    scene, _ = make_fixtures.easy_slider_scene()
    fresh = render(scene, make_fixtures.EASY_CAMERA, seed=1, quality="draft").to_json()
    assert committed["camera"] == fresh["camera"] and committed["homography"] == fresh["homography"]
    for old, new in zip(committed["pieces"], fresh["pieces"], strict=True):
        for key in ("kind", "suit", "rank", "side", "x_mm", "y_mm", "angle_deg", "center_px", "top_center_px"):
            assert old.get(key) == new.get(key), key
    image = cv2.imread(str(root / "easy_slider.jpg"))
    assert image.shape == (1232, 1640, 3)
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    tiles = [t for t in committed["pieces"] if t["kind"] == "tile"]
    assert len(tiles) == 24
    for t in tiles:
        centre = np.array(t["top_center_px"])
        corner = np.array(t["top_polygon_px"][1])  # the top-right corner of the face
        x, y = np.round(centre + 0.3 * (corner - centre)).astype(int)
        assert hsv[y, x, 2] > 150 and hsv[y, x, 1] < 60, (t["suit"], t["rank"], hsv[y, x])
    # a result saved and loaded back is the same truth
    result = render(tiles_on_felt(), small_camera(), seed=1, quality="draft")
    image_path, json_path = result.save(tmp_path / "frame.png")
    assert json.loads(json_path.read_text()) == json.loads(json.dumps(result.to_json()))
    assert np.array_equal(cv2.imread(str(image_path)), result.image)


def test_easy_slider_layout_takes_a_rules_state():
    from rules.easy_slider import State

    board = easy_slider_board(rng=9)
    state = State.from_layout(board, "MSAC", [2, 4, 5, 1, 3])
    pieces = easy_slider_layout(state, nudge_mm=0.0, turn_deg=0.0)
    tiles = [p for p in pieces if p.kind == "tile"]
    assert [(t.suit, t.rank) for t in tiles] == [c for row in board for c in row if c is not None]
    assert [p.suit.value for p in pieces if p.kind == "pawn"] == ["moons", "suns", "arms", "crowns"]
    assert [p.rank for p in pieces if p.kind == "coin"] == [2, 4, 5, 1, 3]


def test_props_are_labelled_and_hide_what_stands_behind_them():
    from tablescene import PROP_ID, Prop

    scene = Scene(pieces=[CoinPiece("suns", 4, "value", 150, 140), TilePiece("arms", 2, "face", 40, 250)],
                  props=[Prop("mug", 150, 200), Prop("notepad", 280, 250, 10)], table="wood", sheet=None,
                  lighting=QUIET)
    result = render(scene, small_camera(target_mm=(150, 180), distance_mm=600, tilt_deg=30), seed=1, quality="draft")
    assert len(result.truth) == 2  # props are not pieces
    coin, tile = result.truth
    assert coin.occluded_fraction > 0.5 and coin.hidden and coin.hand_fraction == 0.0
    assert tile.visible_fraction > 0.95
    assert (result.labels == PROP_ID).sum() > 3000


def test_frames_are_identical_across_processes():
    """Nothing depends on per-process state (str hashes, dict order): a fresh interpreter with another hash
    seed renders the very same pixels."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import hashlib, sys\n"
        "from tablescene import *\n"
        "scene = Scene(pieces=[TilePiece('moons', 4, 'face', 120, 150, 7), CoinPiece('arms', 0, 'suit', 200, 150),\n"
        "                      PawnPiece('crowns', 160, 200)], edition='hand-made', table='cloth',\n"
        "              hands=[Hand(220, 220, -30, 12.0)], props=[Prop('pencil', 120, 230, 80)])\n"
        "camera = CameraSpec(resolution=(320, 240), focal_px=300.0, distance_mm=450.0, target_mm=(160, 180))\n"
        "print(hashlib.sha1(render(scene, camera, seed=3).image.tobytes()).hexdigest())\n"
    )
    tests_dir = str(Path(__file__).resolve().parent)
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=os.pathsep.join([tests_dir, str(Path(tests_dir).parent)]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    namespace: dict = {}
    exec(code.replace("print(", "digest = ("), namespace)
    assert len(out.strip()) == 40 and out.strip() == namespace["digest"]


def test_beyond_the_table_edge_the_floor_is_far_and_dim():
    scene = Scene(pieces=[TilePiece("suns", 1, "face", 150, 150)], table="laminate", sheet=None,
                  table_rect_mm=(-100.0, 60.0, 400.0, 400.0), lighting=QUIET)
    result = render(scene, small_camera(target_mm=(150, 120), distance_mm=700), seed=1, quality="draft")
    # the far edge of the table (y = 60) crosses the view: above it the floor, below it the table
    edge_row = int(round(result.project([[150.0, 60.0]])[0, 1]))
    gray = cv2.cvtColor(result.image, cv2.COLOR_BGR2GRAY).astype(float)
    assert 40 < edge_row < SMALL[1] - 200
    floor, table = gray[: edge_row - 15].mean(), gray[edge_row + 15 : edge_row + 100].mean()
    assert floor < 0.6 * table
    assert (result.labels[: edge_row - 15] == -1).all()  # floor pixels are "not a piece"
    assert result.truth[0].visible_fraction > 0.99
