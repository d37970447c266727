"""Fitting a figure's pose: a coarse search on the table plane, then a sub-pixel edge fit on the raw frame.

1. **Coarse** (:func:`coarse_pose`): the blob's convex hull on the table plane against the model's silhouette
   (:func:`vision.figure_models.silhouette_mm`), scored by intersection over union; a grid of angles, the
   position that matches the centroids, then Nelder-Mead on ``(x, y, angle)``.
2. **Fine** (:func:`refine_pose`), model-based edge tracking in the style of RAPiD / Drummond & Cipolla: the
   model's silhouette edges are projected into the raw frame through the calibration (lens included); along
   the normal of each sample point the colour profile is read (bilinear) and the strongest colour step within
   a few pixels is located to a fraction of a pixel (parabola through the peak); Gauss-Newton on the pose
   minimises the normal distances, with Tukey weights so that edges hidden by a neighbour or confused by a
   shadow do not pull. Hand-written because OpenCV has no model-based silhouette tracker for arbitrary convex
   solids, and the fit needs the calibration's own projection (parallax, lens).

Poses are ``(x_mm, y_mm, angle_deg)``; the model stands on a surface ``base_h`` mm high.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import minimize

from calibration.table_calibration import Calibration
from vision.figure_models import FigureModel, convex_iou, place, silhouettes_mm
from vision.figure_projection import Projector

__all__ = ["CoarseFit", "EdgeFit", "coarse_pose", "polish_pose", "refine_pose", "project_model"]

# The outline as it appears can lie a little outside or inside the solid's true outline, evenly all round:
# blur with a threshold-free edge detector does not move it, but translucent rims, bevels, and renderers that
# fill a polygon's boundary pixels do. The fit estimates that even offset (``grow``, pixels) as a nuisance
# parameter: it changes neither the centre nor the angle, and keeps such edges counted as support.
_MAX_GROW_PX = 1.5


@dataclass(frozen=True)
class CoarseFit:
    pose: tuple[float, float, float]
    iou: float


@dataclass(frozen=True)
class EdgeFit:
    """The refined pose and how well the model's outline is supported by edges in the frame."""

    pose: tuple[float, float, float]
    support: float  # share of outline samples with a clear edge where the model says (0..1)
    rms_px: float  # RMS distance of the supporting edges from the fitted outline, pixels
    samples: int
    outline_px: np.ndarray  # (k, 2) fitted silhouette in frame pixels
    converged: bool
    grow_px: float = 0.0  # how far the outline seen lies outside the model's (see _MAX_GROW_PX)
    crease_support: float = 0.0  # the same share for the creases seen inside the outline (when fitted)


# ----------------------------------------------------------------------------------------------------- coarse
def _centroid(poly: np.ndarray) -> np.ndarray:
    m = cv2.moments(poly.astype(np.float32).reshape(-1, 1, 2))
    if abs(m["m00"]) < 1e-9:
        return poly.mean(axis=0)
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])


def coarse_pose(hull_mm: np.ndarray, model: FigureModel, camera_mm: np.ndarray | None, base_h: float = 0.0,
                angle_step_deg: float = 10.0) -> CoarseFit:
    """The pose on a grid of angles whose table-plane silhouette best overlaps ``hull_mm`` (intersection over
    union), each placed so that the centroids match. :func:`polish_pose` takes it further."""
    target = np.asarray(hull_mm, dtype=np.float64)
    c_obs = _centroid(target)
    span = model.symmetry_deg
    angles = np.arange(0.0, span, angle_step_deg) if _has_direction(model) else np.zeros(1)
    poses = np.column_stack([np.tile(c_obs, (len(angles), 1)), angles])
    for _ in range(2):  # the silhouette's centroid moves with the pose almost one to one
        cents = np.array([_centroid(h) for h in silhouettes_mm(model, poses, camera_mm, base_h)])
        poses[:, :2] += c_obs - cents
    scores = [convex_iou(h, target) for h in silhouettes_mm(model, poses, camera_mm, base_h)]
    k = int(np.argmax(scores))
    return CoarseFit(tuple(float(v) for v in poses[k]), float(scores[k]))


def polish_pose(hull_mm: np.ndarray, model: FigureModel, camera_mm: np.ndarray | None, start: CoarseFit,
                base_h: float = 0.0, angle_step_deg: float = 10.0) -> CoarseFit:
    """Nelder-Mead on ``(x, y, angle)`` from a coarse pose, maximising the overlap with ``hull_mm``."""
    target = np.asarray(hull_mm, dtype=np.float64)
    turn = _has_direction(model)

    def loss(q) -> float:
        pose = (q[0], q[1], q[2] if turn else 0.0)
        return -convex_iou(silhouettes_mm(model, pose, camera_mm, base_h)[0], target)

    scale = math.sqrt(abs(cv2.contourArea(target.astype(np.float32)))) or 10.0
    x0 = np.array(start.pose if turn else start.pose[:2])
    simplex = [x0] + [x0 + step for step in np.diag([0.05 * scale, 0.05 * scale, angle_step_deg / 2][: len(x0)])]
    res = minimize(loss, x0, method="Nelder-Mead",
                   options={"xatol": 0.02, "fatol": 2e-4, "maxiter": 150, "initial_simplex": np.array(simplex)})
    if -res.fun <= start.iou:
        return start
    pose = (float(res.x[0]), float(res.x[1]), float(res.x[2]) if turn else 0.0)
    return CoarseFit(pose, float(-res.fun))


def _has_direction(model: FigureModel) -> bool:
    """Whether turning the model changes its silhouette (a pawn of revolution does not)."""
    return model.name != "pawn"


# ----------------------------------------------------------------------------------------------------- fine
def projector_for(calibration: Calibration | Projector) -> Projector:
    return calibration if isinstance(calibration, Projector) else Projector(calibration)


def project_model(calibration: Calibration | Projector, model: FigureModel, pose, base_h: float = 0.0) -> np.ndarray:
    """Frame pixels (n, 2) of the model's points at ``pose``."""
    pts = place(model.points, *pose, base_h)
    return projector_for(calibration).project(pts[:, :2], pts[:, 2])


def _outline_edges(pixels: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive hull vertices (indices into ``pixels``) of the projected model."""
    hull = cv2.convexHull(pixels.astype(np.float32), returnPoints=False).reshape(-1)
    return [(int(hull[i]), int(hull[(i + 1) % len(hull)])) for i in range(len(hull))]


def _edge_samples(model: FigureModel, pose, base_h: float, pixels: np.ndarray, spacing_px: float,
                  creases: list[tuple[int, int]]):
    """3-D points spread along the silhouette's edges and the creases seen inside it (table x, y, h), which edge
    each belongs to, the edges' end points, and whether each edge is an inner crease."""
    pts = place(model.points, *pose, base_h)
    edges = [(a, b, False) for a, b in _outline_edges(pixels)]
    edges += [(a, b, True) for a, b in creases]
    xyh, owner, ends, inner = [], [], [], []
    for a, b, is_inner in edges:
        length = float(np.linalg.norm(pixels[b] - pixels[a]))
        if is_inner and length < 4.0:
            continue  # a crease seen end-on says nothing
        n = max(2, int(length / spacing_px))
        # stay off the corners: there two edges meet and the profile mixes both
        t = 0.1 + 0.8 * (np.arange(n) + 0.5) / n
        if not model.faces and abs(pts[a, 2] - pts[b, 2]) > 2.0:
            # a body of revolution: an outline edge joining rings at different heights is a tangent spanning
            # the waist; only its ends lie on the piece
            t = t[(t < 0.25) | (t > 0.75)]
            n = len(t)
        xyh.append(pts[a][None] * (1 - t[:, None]) + pts[b][None] * t[:, None])
        owner.append(np.full(n, len(ends)))
        ends.append((a, b))
        inner.append(is_inner)
    return np.vstack(xyh), np.concatenate(owner), ends, np.array(inner, bool)


def _project_with_derivatives(proj: Projector, xyh: np.ndarray, pose) -> tuple[np.ndarray, np.ndarray]:
    """Pixels of table points (x, y, h) and their derivatives (n, 2, 3) with respect to the pose
    (x mm, y mm, angle degrees), from one batched projection (finite differences of 0.05 mm)."""
    eps = 0.05
    n = len(xyh)
    xy = xyh[:, :2]
    stacked = np.vstack([xy, xy + (eps, 0.0), xy + (0.0, eps)])
    px = proj.project(stacked, np.tile(xyh[:, 2], 3))
    base = px[:n]
    dx = (px[n : 2 * n] - base) / eps
    dy = (px[2 * n :] - base) / eps
    # turning by dθ moves a point by dθ (-(y - y0), x - x0) in the table (radians)
    rel = xy - np.asarray(pose[:2])
    k = math.pi / 180.0
    dtheta = (-rel[:, 1:2] * dx + rel[:, 0:1] * dy) * k
    return base, np.stack([dx, dy, dtheta], axis=2)


def _edge_offsets(image: np.ndarray, points: np.ndarray, normals: np.ndarray, contrast: np.ndarray | None,
                  reach_px: float, step_px: float = 0.25, outside: np.ndarray | None = None,
                  tolerance: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each point, the signed offset (pixels, along its outward normal) of the strongest colour step within
    ``reach_px``, and that step's strength (colour difference per pixel). With ``contrast`` (n, 3: the expected
    outside-minus-inside colour direction, unit vectors) only steps of that polarity count, so the neighbour's
    edge a pixel away across a narrow gap (which steps the other way) is not taken for the piece's own. With
    ``outside`` (n, 3: the table's colour there), a step counts fully only where what lies just beyond it looks
    like the table (within ``tolerance``): creases inside the piece and a neighbour's edges count less."""
    d = np.arange(-reach_px - 1.0, reach_px + 1.0 + 1e-9, step_px, dtype=np.float32)
    xs = (points[:, 0:1] + normals[:, 0:1] * d[None]).astype(np.float32)
    ys = (points[:, 1:2] + normals[:, 1:2] * d[None]).astype(np.float32)
    prof = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)  # (n, m, 3)
    lag = int(round(0.5 / step_px))  # central difference over one pixel
    diff = prof[:, 2 * lag :, :] - prof[:, : -2 * lag, :]
    if contrast is None:
        strength = np.sqrt((diff * diff).sum(axis=2))
    else:
        strength = np.einsum("nmc,nc->nm", diff, contrast.astype(np.float32))
    centres = d[lag:-lag]
    if outside is not None:
        beyond = prof[:, 2 * lag :, :]  # the colour one step past each candidate position
        miss = np.linalg.norm(beyond - outside[:, None, :].astype(np.float32), axis=2)
        tol = np.maximum(tolerance if tolerance is not None else 25.0, 12.0)
        like = np.exp(-((miss / np.asarray(tol, np.float32).reshape(-1, 1)) ** 2))
        strength = strength * (0.35 + 0.65 * like)
    inside = np.abs(centres) <= reach_px + 1e-6
    strength_in = np.where(inside[None], strength, -1e9)
    k = np.argmax(strength_in, axis=1)
    kk = np.clip(k, 1, strength.shape[1] - 2)
    rows = np.arange(len(k))
    s0, s1, s2 = strength[rows, kk - 1], strength[rows, kk], strength[rows, kk + 1]
    denom = s0 - 2 * s1 + s2
    safe = np.where(np.abs(denom) > 1e-9, denom, 1.0)
    frac = np.where(np.abs(denom) > 1e-9, 0.5 * (s0 - s2) / safe, 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    offset = centres[kk] + frac * step_px
    return offset.astype(np.float64), s1.astype(np.float64)


def _inside_colour(image: np.ndarray, hull_px: np.ndarray) -> np.ndarray:
    """Mean colour of the frame inside a convex outline shrunk toward its centre (away from the edges)."""
    centre = hull_px.mean(axis=0)
    inner = centre + (hull_px - centre) * 0.7
    x0, y0 = np.floor(inner.min(axis=0)).astype(int)
    x1, y1 = np.ceil(inner.max(axis=0)).astype(int) + 1
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros(3, np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((inner - (x0, y0)) * 16).astype(np.int32).reshape(-1, 1, 2), 1, cv2.LINE_8, 4)
    return np.asarray(cv2.mean(image[y0:y1, x0:x1], mask)[:3], np.float32)


def refine_pose(image: np.ndarray, calibration: Calibration | Projector, model: FigureModel, pose, base_h: float = 0.0,
                iterations: int = 7, reach_px: float = 6.0, spacing_px: float = 1.5, min_strength: float = 10.0,
                fixed_angle: bool = False, background=None, inner_weight: float = 0.0,
                table_like: bool = False) -> EdgeFit:
    """Sub-pixel pose from the silhouette edges in ``image`` (float32 BGR, lightly smoothed). See the module
    docstring. ``min_strength``: the colour step per pixel (0-255 units, as a vector) below which a sample has
    no edge. ``background``: a function from frame pixels (n, 2) to the table's colour there without pieces
    (n, 3): the outside colour for the polarity test (default: the colour just beyond the search window).
    ``table_like``: also weigh each step by how much what lies just beyond it looks like that table colour
    (off by default: a piece's own shadow then wins over its edge)."""
    pose = np.array(pose, dtype=np.float64)
    n_params = 2 if fixed_angle else 3
    proj = projector_for(calibration)
    camera_mm = proj.calibration.camera_position_mm()
    # which creases show: decided once (a pose change of a few pixels does not turn a face)
    creases = model.visible_inner_edges(place(model.points, *pose, base_h), camera_mm)
    grow = 0.0
    converged = False
    reach = reach_px
    for it in range(iterations + 1):
        pixels = project_model(proj, model, pose, base_h)
        xyh, owner, ends, inner_edge = _edge_samples(model, pose, base_h, pixels, spacing_px, creases)
        crease = inner_edge[owner]
        pts, deriv = _project_with_derivatives(proj, xyh, pose)
        a = pixels[[e[0] for e in ends]]
        b = pixels[[e[1] for e in ends]]
        edge_dir = b - a
        normals = np.column_stack([edge_dir[:, 1], -edge_dir[:, 0]])
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
        centre = pixels.mean(axis=0)
        flip = np.einsum("ij,ij->i", (a + b) / 2 - centre, normals) < 0
        normals[flip] *= -1
        normals = normals[owner]
        hull = cv2.convexHull(pixels.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        inside = _inside_colour(image, hull)
        if background is not None:
            outside = np.asarray(background(pts + normals * (reach + 2.0)), np.float32)
        else:
            far = pts + normals * (reach + 2.5)
            outside = cv2.remap(image, far[:, 0:1].astype(np.float32), far[:, 1:2].astype(np.float32),
                                cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3)
        contrast = outside - inside
        contrast_norm = np.linalg.norm(contrast, axis=1, keepdims=True)
        weak = (contrast_norm[:, 0] < 8.0) | crease  # no expected polarity: the unsigned step
        unit = contrast / np.maximum(contrast_norm, 1e-6)
        outline = ~crease
        # search about the outline as it appears: the model's outline moved out by the fitted ``grow``
        centres = pts + normals * np.where(outline, grow, 0.0)[:, None]
        step_px = 0.5 if reach > 2.5 else 0.25  # coarse steps while the search is wide
        offsets, strength = _edge_offsets(image, centres, normals, unit, reach, step_px,
                                          outside=outside if table_like else None,
                                          tolerance=0.4 * contrast_norm[:, 0])
        if weak.any():
            off_u, str_u = _edge_offsets(image, centres[weak], normals[weak], None, reach, step_px)
            offsets[weak], strength[weak] = off_u, str_u
        jac = np.einsum("nj,njk->nk", normals, deriv)[:, :n_params]
        jac = np.column_stack([jac, outline.astype(np.float64)])
        good = strength >= min_strength
        count = int(outline.sum())
        inl = good & (np.abs(offsets) < 1.0) & outline
        support = float(inl.sum() / count) if count else 0.0
        n_crease = int(crease.sum())
        crease_support = float((good & (np.abs(offsets) < 1.0) & crease).sum() / n_crease) if n_crease else 0.0
        rms = float(np.sqrt(np.mean(offsets[inl] ** 2))) if inl.any() else float("inf")
        if it == iterations or converged:
            break
        c = max(1.0, reach * 0.6)
        u = offsets / c
        w = np.where((np.abs(u) < 1) & good, (1 - u**2) ** 2, 0.0) * np.where(crease, inner_weight, 1.0)
        if w.sum() < n_params * 3:
            break
        wj = jac * w[:, None]
        # a weak prior keeps ``grow`` near 0 when few edges are seen
        prior = np.zeros((n_params + 1, n_params + 1))
        prior[-1, -1] = 0.05 * w.sum()
        rhs = wj.T @ offsets
        rhs[-1] -= prior[-1, -1] * grow
        step = np.linalg.solve(jac.T @ wj + prior + 1e-6 * np.eye(n_params + 1), rhs)
        pose[:n_params] += step[:n_params]
        grow = float(np.clip(grow + step[-1], -_MAX_GROW_PX, _MAX_GROW_PX))
        reach = max(1.5, reach * 0.7)
        if np.all(np.abs(step[:n_params]) < (0.005, 0.005, 0.02)[:n_params]) and it >= 1:
            converged = True
    return EdgeFit((float(pose[0]), float(pose[1]), float(pose[2])), support, rms, count, hull, converged, grow,
                   crease_support)
