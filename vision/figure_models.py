"""3-D models of the standing pieces and their silhouettes, seen through a calibrated camera.

A pyramid, a die and (nearly) a pawn are convex solids, so what a pinhole camera sees of one is the convex hull
of its projected points. Two views are used:

* on the **table plane**: every model point ``(x, y, h)`` is carried along the ray from the camera centre down to
  the table (height 0), ``q = c + (p - c) * H / (H - h)`` with the camera at ``(c, H)``: the silhouette in a
  rectified top-down image, in millimetres; the apex of a pyramid or the top of a pawn lands *outward* from the
  nadir ``c``. An orthographic ("scale") calibration has no camera: ``q = p``.
* in the **raw frame**: ``Calibration.table_to_pixel(points, heights)`` (lens distortion included), for the
  sub-pixel fit.

Local model coordinates: ``u`` right, ``v`` down (toward +y at angle 0), ``h`` up; a pose ``(x, y, angle_deg)``
turns the model clockwise as seen from above (the table frame is y-down) and moves it to (x, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from rules.pieces import DIE_MM, PyramidSize
from vision.figure_kernels import visible_creases

__all__ = [
    "FigureModel",
    "pyramid_model",
    "die_model",
    "pawn_model",
    "meeple_model",
    "meeple_faces",
    "DEFAULT_PAWN_PROFILE",
    "MEEPLE_OUTLINE",
    "rotation",
    "place",
    "to_table_plane",
    "silhouette_mm",
    "silhouettes_mm",
    "convex_iou",
]


@dataclass(frozen=True)
class FigureModel:
    """A solid's points in local coordinates (n, 3) = (u, v, h), and which of them form edges (index pairs)."""

    name: str  # "pyramid-large-upright", "die", "pawn"
    points: np.ndarray
    edges: tuple[tuple[int, int], ...] = ()
    base_polygon: np.ndarray | None = None  # (k, 2) local footprint outline on the surface it stands on
    symmetry_deg: float = 360.0  # poses differing by this angle look the same (90 for a square base)
    faces: tuple[tuple[int, ...], ...] = ()  # planar faces (point indices) of a polyhedron; () for a pawn

    def visible_inner_edges(self, placed_xyh: np.ndarray, camera_mm: np.ndarray | None) -> list[tuple[int, int]]:
        """Edges between two faces that both face the camera (creases seen inside the outline), for points
        ``placed_xyh`` (the model placed on the table, (n, 3) x, y, h)."""
        return [(int(a), int(b)) for a, b in self.visible_creases(placed_xyh, camera_mm)]

    def visible_creases(self, placed_xyh: np.ndarray, camera_mm: np.ndarray | None) -> np.ndarray:
        """:meth:`visible_inner_edges` as an (m, 2) int array (compiled)."""
        if not self.faces:
            return np.zeros((0, 2), np.int64)
        faces, sizes, edges, owners = _face_tables(self.faces)
        has_camera = camera_mm is not None
        camera = np.asarray(camera_mm, np.float64) if has_camera else np.zeros(3)
        return visible_creases(np.ascontiguousarray(placed_xyh, np.float64), faces, sizes, edges, owners, camera,
                               has_camera)


_FACE_TABLES: dict[tuple, tuple] = {}


def _face_tables(faces: tuple[tuple[int, ...], ...]):
    """The faces as a padded (F, 4) index array with their sizes, and the edges shared by two faces with those
    faces (cached per model shape)."""
    if faces not in _FACE_TABLES:
        owners: dict[tuple[int, int], list[int]] = {}
        for k, face in enumerate(faces):
            for i in range(len(face)):
                a, b = face[i], face[(i + 1) % len(face)]
                owners.setdefault((min(a, b), max(a, b)), []).append(k)
        shared = [(e, fs) for e, fs in owners.items() if len(fs) == 2]
        padded = np.full((len(faces), max(len(f) for f in faces)), -1, np.int64)
        for k, face in enumerate(faces):
            padded[k, : len(face)] = face
        _FACE_TABLES[faces] = (padded, np.array([len(f) for f in faces], np.int64),
                               np.array([e for e, _ in shared], np.int64).reshape(-1, 2),
                               np.array([fs for _, fs in shared], np.int64).reshape(-1, 2))
    return _FACE_TABLES[faces]


def rotation(angle_deg: float) -> np.ndarray:
    """Local (u, v) -> table (x, y) rotation for an angle clockwise as seen from above (y-down frame)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def place(points: np.ndarray, x: float, y: float, angle_deg: float, base_h: float = 0.0) -> np.ndarray:
    """Local (n, 3) points -> table (n, 3) ``(x, y, h)`` for a pose, standing on a surface ``base_h`` high."""
    pts = np.asarray(points, dtype=np.float64)
    xy = pts[:, :2] @ rotation(angle_deg).T + (x, y)
    return np.column_stack([xy, pts[:, 2] + base_h])


def to_table_plane(points_xyh: np.ndarray, camera_mm: np.ndarray | None) -> np.ndarray:
    """Where the camera sees table points ``(x, y, h)`` on the table plane (central projection from the camera
    centre ``(cx, cy, H)``); orthographic when ``camera_mm`` is None."""
    pts = np.asarray(points_xyh, dtype=np.float64)
    if camera_mm is None:
        return pts[:, :2].copy()
    c = np.asarray(camera_mm, dtype=np.float64)
    scale = c[2] / np.maximum(c[2] - pts[:, 2], 1e-6)
    return c[:2] + (pts[:, :2] - c[:2]) * scale[:, None]


def silhouette_mm(model: FigureModel, pose: tuple[float, float, float], camera_mm: np.ndarray | None,
                  base_h: float = 0.0) -> np.ndarray:
    """The model's outline on the table plane (convex hull, (k, 2) mm, counter-clockwise in OpenCV's sense)."""
    flat = to_table_plane(place(model.points, *pose, base_h), camera_mm)
    return cv2.convexHull(flat.astype(np.float32)).reshape(-1, 2).astype(np.float64)


def silhouettes_mm(model: FigureModel, poses: np.ndarray, camera_mm: np.ndarray | None,
                   base_h: float = 0.0) -> list[np.ndarray]:
    """:func:`silhouette_mm` for many poses (k, 3) at once (the projection vectorised, one hull per pose)."""
    poses = np.asarray(poses, dtype=np.float64).reshape(-1, 3)
    a = np.radians(poses[:, 2])
    c, s = np.cos(a), np.sin(a)
    u, v = model.points[:, 0], model.points[:, 1]
    x = poses[:, 0:1] + c[:, None] * u[None] - s[:, None] * v[None]
    y = poses[:, 1:2] + s[:, None] * u[None] + c[:, None] * v[None]
    if camera_mm is not None:
        cam = np.asarray(camera_mm, dtype=np.float64)
        scale = cam[2] / np.maximum(cam[2] - (model.points[:, 2] + base_h), 1e-6)
        x = cam[0] + (x - cam[0]) * scale[None]
        y = cam[1] + (y - cam[1]) * scale[None]
    pts = np.stack([x, y], axis=-1).astype(np.float32)
    return [cv2.convexHull(p).reshape(-1, 2) for p in pts]


def convex_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex polygons (float32-exact areas from OpenCV)."""
    a32 = np.ascontiguousarray(a, dtype=np.float32).reshape(-1, 1, 2)
    b32 = np.ascontiguousarray(b, dtype=np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    area_a = abs(cv2.contourArea(a32))
    area_b = abs(cv2.contourArea(b32))
    union = area_a + area_b - inter
    return float(inter / union) if union > 0 else 0.0


# ----------------------------------------------------------------------------------------------------- models
def _square(half: float, h: float) -> np.ndarray:
    return np.array([(-half, -half, h), (half, -half, h), (half, half, h), (-half, half, h)], dtype=np.float64)


def pyramid_model(size: PyramidSize, pose: str) -> FigureModel:
    """A Looney pyramid: base square ``size.base_mm``, apex ``size.height_mm`` above it.

    Upright: base centred at the origin. Flat (lying on one of its faces): the apex points to -v (so the pose's
    angle is the apex direction) and the origin is the centre (centroid) of its outline seen from straight
    above, the position reported for flat pieces.
    """
    size = PyramidSize(size)
    b, height = size.base_mm, size.height_mm
    half = b / 2
    pts = np.vstack([_square(half, 0.0), [(0.0, 0.0, height)]])
    edges = ((0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4), (2, 4), (3, 4))
    faces = ((0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (3, 2, 1, 0))
    if pose == "upright":
        return FigureModel(f"pyramid-{size.value}-upright", pts, edges, pts[:4, :2].copy(), 90.0, faces)
    if pose != "flat":
        raise ValueError(f"pyramid pose must be upright or flat, not {pose!r}")
    # Tip it over its -v base edge until the -v face lies on the table: turn about the u axis through
    # (v = -half, h = 0) by 90 degrees plus the face's inclination from the vertical.
    beta = math.atan2(half, height)
    psi = math.pi / 2 + beta
    c, s = math.cos(psi), math.sin(psi)
    v = pts[:, 1] + half
    h = pts[:, 2]
    tipped = np.column_stack([pts[:, 0], v * c - h * s - half, v * s + h * c])
    tipped[:, 2] -= tipped[:, 2].min()
    hull = cv2.convexHull(tipped[:, :2].astype(np.float32)).reshape(-1, 2).astype(np.float64)
    centre = _polygon_centroid(hull)
    tipped[:, :2] -= centre
    base = tipped[np.abs(tipped[:, 2]) < 1e-6, :2]
    base = cv2.convexHull(base.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    return FigureModel(f"pyramid-{size.value}-flat", tipped, edges, base, 360.0, faces)


@lru_cache(maxsize=4)
def die_model(side_mm: float = DIE_MM) -> FigureModel:
    """A die: a cube standing on its bottom face."""
    half = side_mm / 2
    pts = np.vstack([_square(half, 0.0), _square(half, side_mm)])
    edges = ((4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7), (0, 1), (1, 2), (2, 3), (3, 0))
    faces = ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))
    return FigureModel("die", pts, edges, pts[:4, :2].copy(), 90.0, faces)


#: (radius, height) rings of the default edition's peg pawn (28 mm: a domed foot, a cone, a collar, a ball).
#: Only the convex hull matters, so a handful of rings describe it.
DEFAULT_PAWN_PROFILE: tuple[tuple[float, float], ...] = (
    (7.4, 0.0), (7.7, 0.8), (7.5, 2.0), (6.6, 3.2), (4.9, 17.7), (4.8, 23.3), (3.4, 26.7), (0.0, 28.1),
)


@lru_cache(maxsize=16)
def pawn_model(profile: tuple[tuple[float, float], ...] = DEFAULT_PAWN_PROFILE, height_mm: float | None = None,
               base_mm: float | None = None, segments: int = 24) -> FigureModel:
    """A pawn as a body of revolution from (radius, height) rings, scaled to ``height_mm`` tall and
    ``base_mm`` across its foot when given (a profile learned in teach). Built once per set of arguments."""
    prof = np.asarray(profile, dtype=np.float64).copy()
    if height_mm:
        prof[:, 1] *= height_mm / prof[:, 1].max()
    if base_mm:
        prof[:, 0] *= (base_mm / 2) / prof[:, 0].max()
    a = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    rings = [np.column_stack([r * np.cos(a), r * np.sin(a), np.full(segments, h)]) for r, h in prof if r > 1e-6]
    tips = [np.array([[0.0, 0.0, h]]) for r, h in prof if r <= 1e-6]
    pts = np.vstack(rings + tips)
    foot = prof[prof[:, 1] <= prof[:, 1].max() * 0.1, 0].max()
    base = np.column_stack([foot * np.cos(a), foot * np.sin(a)])
    return FigureModel("pawn", pts, (), base, 360.0)


#: The front outline (u across, h up; mm) of a meeple 26 mm tall, 18 mm across its arms and 10 mm deep: the
#: hand-made set's pawn (a flat figure cut from board or wood): legs with a gap between them, waist, arms, neck, head.
MEEPLE_OUTLINE: tuple[tuple[float, float], ...] = (
    (-6.75, 0.0), (-2.25, 0.0), (0.0, 4.64), (2.25, 0.0), (6.75, 0.0), (5.63, 3.71), (3.75, 9.29), (4.13, 12.07),
    (7.88, 13.93), (9.0, 16.25), (7.5, 18.11), (3.75, 17.64), (3.38, 19.5), (4.13, 22.29), (2.63, 25.07),
    (0.0, 26.0), (-2.63, 25.07), (-4.13, 22.29), (-3.38, 19.5), (-3.75, 17.64), (-7.5, 18.11), (-9.0, 16.25),
    (-7.88, 13.93), (-4.13, 12.07), (-3.75, 9.29), (-5.63, 3.71),
)
MEEPLE_DEPTH_MM = 10.0


@lru_cache(maxsize=8)
def meeple_model(height_mm: float | None = None) -> FigureModel:
    """A meeple: :data:`MEEPLE_OUTLINE` extruded :data:`MEEPLE_DEPTH_MM` deep, scaled to ``height_mm`` tall (its
    width and depth in proportion). Unlike a peg pawn it has a direction: the outline faces -v at angle 0, and it
    looks the same turned half a turn. Its silhouette is the convex hull of its corners, which holds all of its
    plastic (the waist, the neck and the gap between the legs lie inside it)."""
    outline = np.asarray(MEEPLE_OUTLINE, np.float64)
    outline = outline[cv2.convexHull(outline.astype(np.float32), returnPoints=False).ravel()]
    scale = (height_mm / outline[:, 1].max()) if height_mm else 1.0
    half_depth = MEEPLE_DEPTH_MM / 2 * scale
    pts = np.vstack([np.column_stack([outline[:, 0] * scale, np.full(len(outline), v), outline[:, 1] * scale])
                     for v in (-half_depth, half_depth)])
    foot = outline[outline[:, 1] == 0.0, 0] * scale
    base = np.array([(foot.min(), -half_depth), (foot.max(), -half_depth), (foot.max(), half_depth),
                     (foot.min(), half_depth)])
    return FigureModel("pawn-meeple", pts, (), base, 180.0)


@lru_cache(maxsize=8)
def meeple_faces(height_mm: float | None = None) -> tuple[np.ndarray, ...]:
    """The faces of :func:`meeple_model`'s solid in local coordinates ((k, 3) arrays of u, v, h): its front and
    back (the meeple's outline, not convex) and the sides between them. What the camera sees of a meeple is the
    union of their projections, which leaves out the waist, the neck and the gap between the legs that the convex
    silhouette covers."""
    outline = np.asarray(MEEPLE_OUTLINE, np.float64)
    scale = (height_mm / outline[:, 1].max()) if height_mm else 1.0
    outline = outline * scale
    half_depth = MEEPLE_DEPTH_MM / 2 * scale
    faces = [np.column_stack([outline[:, 0], np.full(len(outline), v), outline[:, 1]]) for v in (-half_depth,
                                                                                                    half_depth)]
    for i in range(len(outline)):
        (u0, h0), (u1, h1) = outline[i], outline[(i + 1) % len(outline)]
        faces.append(np.array([(u0, -half_depth, h0), (u1, -half_depth, h1), (u1, half_depth, h1),
                               (u0, half_depth, h0)]))
    return tuple(faces)


def _polygon_centroid(poly: np.ndarray) -> np.ndarray:
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1e-12:
        return poly.mean(axis=0)
    return np.array([((x + xn) * cross).sum() / (6 * area), ((y + yn) * cross).sum() / (6 * area)])
