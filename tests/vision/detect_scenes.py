"""Rendered test frames for the tile/coin detector, its teach step and its benchmark, cached on disk.

Rendering a 1640x1232 frame takes seconds; the same frames are used by several test files and the benchmark,
so each is rendered once and kept as PNG + truth JSON under ``$TABLESIDE_RENDER_CACHE`` (default
``/tmp/vision-cache``), keyed by a hash of everything that defines it (scene, camera, seed, quality, and the
renderer's source code, so a changed renderer never serves stale frames).

Teach photos follow the issue's wording: the first photo has T (tiles face up), V (coins value side up), P and
D; the second has S (coins suit side up) in V's place and, optionally, the tiles back side up.
``tablescene.teach_layout`` places S to the right of V in one picture (a set has only 24 coins, so a real
photo cannot show both): :func:`teach_photos` splits it into the two photos.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import tablescene
from tablescene import (
    CameraSpec,
    CoinPiece,
    Lighting,
    Scene,
    TilePiece,
    easy_slider_board,
    easy_slider_layout,
    render,
    teach_layout,
)

from calibration.lens import LensModel
from calibration.parallax import CameraPose
from calibration.table_calibration import Calibration

CACHE = Path(os.environ.get("TABLESIDE_RENDER_CACHE", "/tmp/vision-cache"))

#: The realistic camera: a Pi camera v2 (1640x1232 binned mode) 80 cm above an A3 sheet, tilted a little.
GAME_CAMERA = CameraSpec(distance_mm=800, tilt_deg=12, target_mm=(148, 215))
#: Teach photos: the layout is larger than a game board.
TEACH_CAMERA = CameraSpec(distance_mm=900, tilt_deg=8, target_mm=(285, 190))
#: Where the teach layout's top-left tile corner is: on the table right of an A4 sheet (origin at its top left).
TEACH_ORIGIN = (235.0, 0.0)


@lru_cache(maxsize=1)
def _renderer_hash() -> str:
    if os.environ.get("TABLESIDE_RENDERER_HASH"):  # pin while developing against a renderer being edited
        return os.environ["TABLESIDE_RENDERER_HASH"]
    digest = hashlib.sha1()
    for path in sorted(Path(tablescene.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class Frame:
    """A rendered frame, its truth (the dicts of tablescene's truth JSON) and its camera (JSON)."""

    image: np.ndarray
    truth: list[dict]
    key: str
    camera: dict

    def of_kind(self, *kinds: str) -> list[dict]:
        return [t for t in self.truth if t["kind"] in kinds]

    def exact_calibration(self) -> Calibration:
        """The calibration a perfect lens + sheet calibration would give (the renderer's own camera): tests of
        the vision alone use it, tests of the whole chain calibrate from the sheet in the frame."""
        K = np.array(self.camera["K"], float)
        dist = np.array(self.camera["dist"], float)
        R = np.array(self.camera["R"], float)
        t = np.array(self.camera["tvec"], float)
        size = (int(self.camera["width"]), int(self.camera["height"]))
        table_to_px = K @ np.column_stack([R[:, 0], R[:, 1], t])
        homography = np.linalg.inv(table_to_px)
        homography /= homography[2, 2]
        lens = LensModel(K, dist, size)
        pose = CameraPose(K, R, t, "lens")
        return Calibration("homography", size, homography, lens, pose)


def rendered(scene: Scene, camera: CameraSpec, seed: int = 0, quality: str = "normal") -> Frame:
    """``tablescene.render`` through the disk cache."""
    text = repr((scene, camera, seed, quality, _renderer_hash()))
    key = hashlib.sha1(text.encode()).hexdigest()[:16]
    image_path = CACHE / f"{key}.png"
    json_path = image_path.with_suffix(".json")
    if image_path.exists() and json_path.exists():
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is not None:
            data = json.loads(json_path.read_text())
            return Frame(image, data["pieces"], key, data["camera"])
    result = render(scene, camera, seed=seed, quality=quality)
    CACHE.mkdir(parents=True, exist_ok=True)
    temporary = CACHE / f".{key}.{os.getpid()}.png"
    result.save(temporary)
    os.replace(temporary.with_suffix(".json"), json_path)
    os.replace(temporary, image_path)
    data = result.to_json()
    return Frame(result.image, data["pieces"], key, data["camera"])


def teach_photos(
    edition: str = "default",
    seed: int = 1,
    backs: bool = True,
    lighting: Lighting | None = None,
    camera: CameraSpec = TEACH_CAMERA,
    table: str = "wood",
) -> tuple[Frame, Frame]:
    """The two teach photos of an edition: (T, V, P, D) and (S in V's place, tiles back up if ``backs``)."""
    pieces = teach_layout(origin_mm=TEACH_ORIGIN, rng=seed, edition=edition)
    coins_v = [p for p in pieces if isinstance(p, CoinPiece) and p.side == "value"]
    coins_s = [p for p in pieces if isinstance(p, CoinPiece) and p.side == "suit"]
    others = [p for p in pieces if not isinstance(p, CoinPiece)]
    first = [p for p in others] + coins_v
    shift = min(c.x_mm for c in coins_s) - min(c.x_mm for c in coins_v)
    moved = [c.moved(x_mm=c.x_mm - shift) for c in coins_s]
    tiles2 = [p.moved(side="back") if isinstance(p, TilePiece) and backs else p for p in others]
    second = tiles2 + moved
    light = lighting or Lighting()
    photo1 = rendered(Scene(pieces=first, table=table, sheet="a4", edition=edition, lighting=light), camera, seed)
    photo2 = rendered(Scene(pieces=second, table=table, sheet="a4", edition=edition, lighting=light), camera, seed + 1)
    return photo1, photo2


def easy_slider_frame(
    seed: int,
    edition: str = "default",
    camera: CameraSpec = GAME_CAMERA,
    lighting: Lighting | None = None,
    hands: tuple = (),
    gap_mm: float = 6.0,
    table: str = "wood",
    quality: str = "normal",
) -> Frame:
    """A full Easy Slider board (24 tiles, 4 pawns, 5 coins) on an A3 sheet under random room light."""
    rng = np.random.default_rng(seed)
    pieces = easy_slider_layout(easy_slider_board(rng=seed), rng=seed, gap_mm=gap_mm, edition=None)
    light = lighting if lighting is not None else Lighting.random(rng)
    scene = Scene(pieces=pieces, table=table, sheet="a3", edition=edition, hands=hands, lighting=light)
    return rendered(scene, camera, seed, quality)
