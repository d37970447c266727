"""Ground truth of a rendered frame: every piece's identity, table pose and where it is in the image."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .camera import Camera

__all__ = ["PieceTruth", "RenderResult", "load_truth"]


@dataclass
class PieceTruth:
    """One piece in one frame. Table quantities in mm, image quantities in output pixels (lens included).

    ``center_px`` is the footprint centre (x_mm, y_mm) projected at table height 0 (where the table-plane
    homography puts it); ``top_center_px`` the same point at the piece's top height (where a detector sees the
    top face's centre). ``polygon_px``/``top_polygon_px`` are the footprint outline at both heights.
    ``occluded_fraction`` is the share of the piece's own silhouette covered by anything in front (hands,
    other pieces, pyramids); ``hand_fraction`` the share covered by hands; ``hidden`` is occluded >= 0.5.
    """

    index: int
    kind: str
    suit: str | None
    rank: int | None
    side: str | None
    edition: str | None
    x_mm: float
    y_mm: float
    angle_deg: float
    base_mm: float
    top_mm: float
    on: int | None
    center_px: list[float]
    top_center_px: list[float]
    polygon_px: list[list[float]]
    top_polygon_px: list[list[float]]
    polygon_mm: list[list[float]]
    bbox_px: list[float] | None
    area_px: float
    visible_fraction: float
    occluded_fraction: float
    hand_fraction: float
    hidden: bool
    in_frame: bool
    top: int | None = None  # dice: the rank on top (also in ``rank``)
    faces: dict | None = None  # dice: rank on each face (top, bottom, north, south, east, west)
    color: str | None = None  # pyramids
    size: str | None = None
    pose: str | None = None
    apex_deg: float | None = None  # flat pyramids: the direction the apex points, clockwise from -y
    apex_mm: list[float] | None = None

    def to_json(self) -> dict:
        return {k: _rounded(v) for k, v in asdict(self).items() if v is not None}


def _rounded(value, digits: int = 3):
    """JSON-friendly copy with floats rounded (sub-micrometre and milli-pixel digits are noise)."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, (list, tuple)):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, np.generic):
        return _rounded(value.item(), digits)
    return value


@dataclass
class RenderResult:
    """A rendered frame and its truth. ``image`` is BGR uint8. ``labels`` (int16, image-sized) holds per pixel
    the index of the piece seen there, -1 for table/sheet, -2 for a hand, -3 for a prop. ``homography`` maps table mm
    (height 0) to UNDISTORTED pixels; with k1 = k2 = 0 those are the image's pixels. Use :meth:`project` for
    exact pixels of any table point at any height."""

    image: np.ndarray
    truth: list[PieceTruth]
    camera: Camera
    homography: np.ndarray
    scene: object = None
    seed: int = 0
    quality: str = "normal"
    labels: np.ndarray | None = field(default=None, repr=False)
    timings: dict = field(default_factory=dict, repr=False)  # cumulative seconds after each stage

    def project(self, points_mm, h_mm: float = 0.0) -> np.ndarray:
        return self.camera.project(points_mm, h_mm)

    def of_kind(self, kind: str) -> list[PieceTruth]:
        return [t for t in self.truth if t.kind == kind]

    def to_json(self) -> dict:
        return {
            "image_size": [self.camera.width, self.camera.height],
            "seed": self.seed,
            "quality": self.quality,
            "camera": self.camera.to_json(),
            "homography": _rounded(self.homography.tolist(), 12),
            "homography_note": "table mm at height 0 -> undistorted pixels (apply camera.dist for image pixels)",
            "pieces": [t.to_json() for t in self.truth],
        }

    def save(self, image_path: str | Path, jpeg_quality: int = 85) -> tuple[Path, Path]:
        """Write the image (JPEG/PNG by suffix) and ``<stem>.json`` with the truth next to it."""
        image_path = Path(image_path)
        params = [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality] if image_path.suffix.lower() in (".jpg", ".jpeg") else []
        if not cv2.imwrite(str(image_path), self.image, params):
            raise OSError(f"cannot write {image_path}")
        json_path = image_path.with_suffix(".json")
        json_path.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n")
        return image_path, json_path


def load_truth(path: str | Path) -> dict:
    """Read a truth JSON written by :meth:`RenderResult.save`."""
    return json.loads(Path(path).read_text())
