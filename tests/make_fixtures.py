"""Regenerate the committed rendered fixtures, deterministically:

    .venv/bin/python tests/make_fixtures.py            # everything
    .venv/bin/python tests/make_fixtures.py scenes     # or: docs

fixtures/scenes/  rendered frames (JPEG, quality 85) with their ground truth (<name>.json, see tablescene.truth):
    easy_slider.jpg            an Easy Slider board, default edition, on an A3 sheet, 1640x1232 (a mug, a pencil
                               and a phone beside it)
    easy_slider_hand.jpg       the same board, a hand sliding a tile (the hidden flags in the truth)
    martian_shuffleboard.jpg   three players' pyramids around an A3 sheet, some flat, some touching
    teach_default.jpg          the teach layout, default edition  } a teach photo pair: the default set and
    teach_classic.jpg          the teach layout, classic edition  } a differently drawn one
docs/scenes.jpg                a 3x3 contact sheet of varied rendered frames

The videos in fixtures/video/ (the demo's, the live tests' and the Caller's reveal) are made by
tests/make_live_fixtures.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablescene import (  # noqa: E402
    EASY_SLIDER_ORIGIN_A3,
    SKIN_TONES,
    CameraSpec,
    CoinPiece,
    DiePiece,
    GridGeometry,
    Hand,
    Lighting,
    PawnPiece,
    Prop,
    PyramidPiece,
    Scene,
    TilePiece,
    coin_grid,
    easy_slider_board,
    easy_slider_layout,
    render,
    shuffleboard_scatter,
    teach_layout,
    tile_block,
)

ROOT = Path(__file__).resolve().parent.parent
SCENES = ROOT / "fixtures" / "scenes"
DOCS = ROOT / "docs"
JPEG_QUALITY = 85


def easy_slider_scene(seed: int = 11) -> tuple[Scene, list]:
    rng = np.random.default_rng(seed)
    board = easy_slider_board(rng)
    pieces = easy_slider_layout(board, rng=rng, pawns=("moons", "suns", "arms", "crowns"), coins=(2, 4, 5, 1, 3))
    lighting = Lighting(lamp_mm=(420.0, -150.0, 1500.0), lamp_radius_mm=90.0, white_balance=(0.95, 1.0, 1.06),
                        exposure=1.02, noise=1.0, jpeg_quality=92)
    props = (Prop("mug", 405.0, 115.0, 200.0), Prop("pencil", 390.0, 330.0, 65.0), Prop("phone", -140.0, 360.0, 12.0))
    return Scene(pieces=pieces, table="wood", table_variant=1, sheet="a3", lighting=lighting, props=props), board


EASY_CAMERA = CameraSpec(resolution=(1640, 1232), distance_mm=640.0, tilt_deg=12.0, yaw_deg=3.0,
                         target_mm=(150.0, 215.0), k1=-0.05, k2=0.012)


def make_scenes() -> None:
    SCENES.mkdir(parents=True, exist_ok=True)
    scene, _ = easy_slider_scene()
    render(scene, EASY_CAMERA, seed=1).save(SCENES / "easy_slider.jpg", JPEG_QUALITY)
    grid = GridGeometry(EASY_SLIDER_ORIGIN_A3)
    tip = grid.centre(3, 4)
    hand = Hand(tip[0] - 6, tip[1] - 12, angle_deg=-8.0, h_mm=3.5, pose="flat", skin=SKIN_TONES[2],
                sleeve=(110, 60, 40))
    moved = scene.with_piece(23, scene.pieces[23].moved(tip[0] + 14.0, tip[1]))
    render(moved.but(hands=(hand,)), EASY_CAMERA, seed=2).save(SCENES / "easy_slider_hand.jpg", JPEG_QUALITY)

    rng = np.random.default_rng(4)
    pyramids = shuffleboard_scatter(rng, colors=("red", "yellow", "blue"), centre_mm=(148.5, 210.0), radius_mm=150.0,
                                    flat_fraction=0.2, touching=3)
    ms_light = Lighting(lamp_mm=(-200.0, 100.0, 1300.0), lamp_radius_mm=50.0, noise=1.2,
                        white_balance=(1.08, 1.0, 0.93), jpeg_quality=90)
    ms_scene = Scene(pieces=pyramids, table="laminate", table_variant=1, sheet="a3", lighting=ms_light,
                     props=(Prop("notepad", 420.0, 300.0, -10.0), Prop("box", -110.0, 120.0, 95.0)))
    ms_camera = CameraSpec(resolution=(1640, 1232), distance_mm=720.0, tilt_deg=18.0, yaw_deg=-6.0,
                           target_mm=(148.0, 215.0), k1=-0.04, k2=0.01)
    render(ms_scene, ms_camera, seed=3).save(SCENES / "martian_shuffleboard.jpg", JPEG_QUALITY)

    # the teach layout lies to the right of the sheet, all markers in view
    teach_camera = CameraSpec(resolution=(1640, 1232), distance_mm=760.0, tilt_deg=8.0, target_mm=(320.0, 210.0),
                              k1=-0.04, k2=0.01)
    for edition, seed, table in (("default", 5, "felt"), ("classic", 6, "cloth")):
        pieces = teach_layout(origin_mm=(315.0, 20.0), rng=seed, edition=edition)
        scene = Scene(pieces=pieces, table=table, sheet="a3", edition=edition,
                      lighting=Lighting(lamp_mm=(150.0, -250.0, 1600.0), noise=0.9, jpeg_quality=92))
        render(scene, teach_camera, seed=seed).save(SCENES / f"teach_{edition}.jpg", JPEG_QUALITY)


def contact_scenes() -> list[tuple[Scene, CameraSpec, int]]:
    """Nine varied frames: tables, editions, tilts, lights, hands."""
    out = []
    scene, _ = easy_slider_scene(seed=31)
    grid = GridGeometry(EASY_SLIDER_ORIGIN_A3)
    tip = grid.centre(2, 2)
    out.append((scene.but(hands=(Hand(tip[0], tip[1] + 6, -15, 3.5, "point", SKIN_TONES[4], sleeve=(40, 40, 40)),)),
                CameraSpec(distance_mm=650, tilt_deg=10, target_mm=(150, 215)), 1))

    rng = np.random.default_rng(32)
    pieces = easy_slider_layout(easy_slider_board(rng), rng=rng, edition="classic", nudge_mm=2.0, turn_deg=3.0)
    out.append((Scene(pieces=pieces, table="felt", sheet="a3", edition="classic", lighting=Lighting.random(rng)),
                CameraSpec(distance_mm=700, tilt_deg=28, yaw_deg=40, target_mm=(150, 215), k1=-0.09, k2=0.02), 2))

    rng = np.random.default_rng(33)
    pieces = tile_block(4, (20.0, 30.0), rng=rng, edition="hand-made",
                        coins={(c, r): (["suns", "moons", "crowns", "arms"][(c * 3 + r) % 4], (c + r) % 6)
                               for c in range(1, 7) for r in range(2, 6)})
    out.append((Scene(pieces=pieces, table="cloth", sheet="a4", edition="hand-made",
                      lighting=Lighting.random(rng, white_balance=(0.82, 0.97, 1.18), exposure=0.85)),
                CameraSpec(distance_mm=620, tilt_deg=15, yaw_deg=-20, target_mm=(130, 140)), 3))

    rng = np.random.default_rng(34)
    pieces = tile_block(2, (60.0, 90.0), rng=rng, edition="bold", gap_mm=0.5,
                        coins={(c, r): (["arms", "crowns", "suns"][(c + 2 * r) % 3], (c * r) % 6)
                               for c in range(4) for r in range(4) if (c, r) != (3, 0)})
    out.append((Scene(pieces=pieces, table="tablecloth", sheet="a4", edition="bold", lighting=Lighting.random(rng),
                      hands=(Hand(130, 150, 30, 4.0, "pinch", SKIN_TONES[0], sleeve=None, motion_px=(6, -3)),)),
                CameraSpec(distance_mm=480, tilt_deg=20, yaw_deg=15, target_mm=(110, 150)), 4))

    rng = np.random.default_rng(35)
    pyramids = shuffleboard_scatter(rng, colors=("red", "yellow", "green", "blue", "purple"), radius_mm=170.0,
                                    flat_fraction=0.25)
    out.append((Scene(pieces=pyramids, table="laminate", sheet="a3", lighting=Lighting.random(rng),
                      props=(Prop("phone", 430.0, 200.0, -20.0),)),
                CameraSpec(distance_mm=780, tilt_deg=22, yaw_deg=-30, target_mm=(150, 210)), 5))

    out.append((Scene(pieces=teach_layout(origin_mm=(315.0, 20.0), rng=36), table="wood", table_variant=2, sheet="a3",
                      lighting=Lighting.random(np.random.default_rng(36))),
                CameraSpec(distance_mm=640, tilt_deg=5, yaw_deg=90, target_mm=(320, 210), resolution=(2304, 1296)), 6))

    rng = np.random.default_rng(37)
    pieces = [TilePiece("suns", 5, "face", 60, 70, 4), TilePiece("arms", 0, "back", 115, 72, -6),
              CoinPiece("moons", 3, "value", 60, 70), DiePiece("moons", 4, 60, 70, 20),
              DiePiece("crowns", 2, 170, 90, 35), DiePiece("suns", 1, 190, 60, -10), DiePiece("arms", 5, 150, 130, 5),
              PawnPiece("suns", 230, 120), PawnPiece("moons", 90, 140), PawnPiece("crowns", 130, 160),
              PyramidPiece("green", "large", "upright", 210, 170, 15),
              PyramidPiece("red", "small", "flat", 60, 165, 250)]
    pieces += coin_grid([("arms", r) for r in range(6)], (30.0, 215.0), cols=6, side="suit", rng=rng)
    out.append((Scene(pieces=pieces, table="dark-wood", sheet=None, lighting=Lighting.random(rng),
                      props=(Prop("mug", 330.0, 250.0), Prop("pencil", 20.0, 120.0, 10.0)),
                      hands=(Hand(230, 60, -110, 20, "flat", SKIN_TONES[3], sleeve=(170, 170, 175)),)),
                CameraSpec(distance_mm=430, tilt_deg=25, target_mm=(140, 130)), 7))

    rng = np.random.default_rng(38)
    pieces = easy_slider_layout(easy_slider_board(rng), rng=rng, edition="bold", nudge_mm=1.5)
    out.append((Scene(pieces=pieces, table="wood", table_variant=3, sheet="a3", edition="bold",
                      lighting=Lighting.random(rng, lamp_mm=(600, 300, 900), exposure=1.1),
                      table_rect_mm=(-330.0, -120.0, 530.0, 620.0), props=(Prop("box", 420.0, 80.0, 30.0),)),
                CameraSpec(distance_mm=1150, tilt_deg=25, yaw_deg=160, target_mm=(150, 215)), 8))

    rng = np.random.default_rng(39)
    pieces = tile_block(4, (10.0, 40.0), rng=rng, coins={(c, r): (["suns", "moons", "crowns", "arms"][r % 4], c % 6)
                                                         for c in range(1, 7) for r in range(2, 6)})
    out.append((Scene(pieces=pieces, table="felt", table_variant=1, sheet="a3", lighting=Lighting.random(rng),
                      hands=(Hand(120, 160, 10, 5.0, "point", SKIN_TONES[1], sleeve=(30, 30, 140)),
                             Hand(260, 120, -80, 30.0, "flat", SKIN_TONES[1], sleeve=(30, 30, 140)))),
                CameraSpec(distance_mm=600, tilt_deg=30, yaw_deg=-10, target_mm=(140, 180), k1=-0.1, k2=0.02), 9))
    return out


def make_docs() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    thumbs = []
    for scene, camera, seed in contact_scenes():
        image = render(scene, camera, seed=seed).image
        h = 410
        w = int(round(image.shape[1] * h / image.shape[0]))
        thumb = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        if w > 546:  # wider frames (16:9) are centre-cropped to the 4:3 cell
            x0 = (w - 546) // 2
            thumb = thumb[:, x0 : x0 + 546]
        thumbs.append(cv2.copyMakeBorder(thumb, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255)))
    rows = [np.hstack(thumbs[i : i + 3]) for i in range(0, 9, 3)]
    cv2.imwrite(str(DOCS / "scenes.jpg"), np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])


def main(argv: list[str]) -> int:
    parts = argv or ["scenes", "docs"]
    makers = {"scenes": make_scenes, "docs": make_docs}
    for part in parts:
        if part not in makers:
            print(f"unknown part {part!r}: use scenes, video or docs", file=sys.stderr)
            return 2
        makers[part]()
        print(f"made {part}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
