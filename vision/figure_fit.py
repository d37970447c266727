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
   solids, and the fit needs the calibration's own projection (parallax, lens). The loops are compiled
   (:mod:`vision.figure_kernels`); the fit reads a small crop of the frame around the piece (:class:`FrameCrop`).

Poses are ``(x_mm, y_mm, angle_deg)``; the model stands on a surface ``base_h`` mm high.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table_calibration import Calibration
from vision import figure_kernels as kern
from vision.figure_models import FigureModel, place
from vision.figure_projection import Projector

__all__ = ["CoarseFit", "EdgeFit", "FrameCrop", "frame_crop", "coarse_pose", "polish_pose", "refine_pose",
           "project_model"]

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
def _camera_args(camera_mm: np.ndarray | None) -> tuple[np.ndarray, bool]:
    if camera_mm is None:
        return np.zeros(3), False
    return np.asarray(camera_mm, np.float64), True


def coarse_pose(hull_mm: np.ndarray, model: FigureModel, camera_mm: np.ndarray | None, base_h: float = 0.0,
                angle_step_deg: float = 10.0) -> CoarseFit:
    """The pose on a grid of angles whose table-plane silhouette best overlaps ``hull_mm`` (intersection over
    union), each placed so that the centroids match. :func:`polish_pose` takes it further."""
    target = np.ascontiguousarray(hull_mm, dtype=np.float64)
    cam, has_cam = _camera_args(camera_mm)
    x, y, a, iou = kern.coarse_pose(model.points, _has_direction(model), float(model.symmetry_deg),
                                    float(angle_step_deg), cam, has_cam, float(base_h), target)
    return CoarseFit((float(x), float(y), float(a)), float(iou))


def polish_pose(hull_mm: np.ndarray, model: FigureModel, camera_mm: np.ndarray | None, start: CoarseFit,
                base_h: float = 0.0, angle_step_deg: float = 10.0) -> CoarseFit:
    """Local search on ``(x, y, angle)`` from a coarse pose, maximising the overlap with ``hull_mm``."""
    target = np.ascontiguousarray(hull_mm, dtype=np.float64)
    cam, has_cam = _camera_args(camera_mm)
    scale = math.sqrt(abs(kern.area_centroid(target)[0])) or 10.0
    x, y, a, iou = kern.polish_pose(model.points, _has_direction(model), cam, has_cam, float(base_h), target,
                                    *start.pose, start.iou, scale, float(angle_step_deg))
    if iou <= start.iou:
        return start
    return CoarseFit((float(x), float(y), float(a)), float(iou))


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


@dataclass(frozen=True)
class FrameCrop:
    """A part of the frame the fit reads: the lightly smoothed colours (float32 BGR), the table's colour without
    pieces seen at the same pixels, and the frame pixel of the crop's top-left pixel."""

    image: np.ndarray
    background: np.ndarray
    origin: np.ndarray  # (2,) float64

    def contains(self, pixels: np.ndarray, margin: float = 0.0) -> bool:
        h, w = self.image.shape[:2]
        q = np.asarray(pixels, np.float64).reshape(-1, 2) - self.origin
        return bool(np.all((q >= margin) & (q <= (w - 1 - margin, h - 1 - margin))))


def frame_crop(image: np.ndarray, box: tuple[int, int, int, int], background, smooth_sigma: float = 0.6) -> FrameCrop:
    """The crop of ``image`` (uint8 BGR frame) at ``box`` = (x0, y0, x1, y1) frame pixels (clipped to the frame),
    smoothed by a Gaussian of ``smooth_sigma`` px; ``background(pixels (n, 2)) -> (n, 3)`` gives the table's
    colour, read on a coarse grid (it is smooth) and interpolated."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(v) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        x0, y0, x1, y1 = 0, 0, min(w, 2), min(h, 2)
    pad = 3  # the blur reads beyond the crop: take it from the frame, not from a replicated border
    px0, py0, px1, py1 = max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, w), min(y1 + pad, h)
    big = cv2.GaussianBlur(image[py0:py1, px0:px1].astype(np.float32), (0, 0), smooth_sigma)
    crop = np.ascontiguousarray(big[y0 - py0 : y0 - py0 + (y1 - y0), x0 - px0 : x0 - px0 + (x1 - x0)])
    step = 8
    xs = np.arange(x0, x1 + step, step, dtype=np.float64)
    ys = np.arange(y0, y1 + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    coarse = np.asarray(background(np.column_stack([gx.ravel(), gy.ravel()])), np.float32).reshape(len(ys), len(xs), 3)
    # grid node k lies at crop pixel k * step: sample the coarse grid at crop pixel / step
    mx = np.arange(x1 - x0, dtype=np.float32) / step
    my = np.arange(y1 - y0, dtype=np.float32) / step
    map_x = np.ascontiguousarray(np.broadcast_to(mx[None, :], (y1 - y0, x1 - x0)))
    map_y = np.ascontiguousarray(np.broadcast_to(my[:, None], (y1 - y0, x1 - x0)))
    bg = cv2.remap(coarse, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return FrameCrop(crop, np.ascontiguousarray(bg), np.array([x0, y0], np.float64))


_NO_POLYGON = np.zeros((0, 2))


def refine_pose(crop: FrameCrop, calibration: Calibration | Projector, model: FigureModel, pose, base_h: float = 0.0,
                iterations: int = 7, reach_px: float = 6.0, spacing_px: float = 1.5, min_strength: float = 10.0,
                fixed_angle: bool = False, inner_weight: float = 0.0, ignore_px: np.ndarray | None = None,
                max_per_edge: int = 16, contrast_share: float = 0.0, grow_centre_px: float = 0.0,
                grow_weight: float = 0.05) -> EdgeFit:
    """Sub-pixel pose from the silhouette edges in ``crop`` (see the module docstring). ``min_strength``: the
    colour step per pixel (0-255 units, as a vector) below which a sample has no edge. The outside colour for
    the polarity test is the crop's background (the table without pieces). ``ignore_px``: a convex polygon of
    frame pixels (a touching neighbour) whose edges say nothing about this piece. ``max_per_edge``: a cap on
    the samples of one edge; ``contrast_share``: the edge threshold of faint pieces; ``grow_centre_px`` /
    ``grow_weight``: the prior on the even outline offset (all: see :func:`vision.figure_kernels.refine_pose`)."""
    proj = projector_for(calibration)
    pose = np.asarray(pose, dtype=np.float64)
    # which creases show: decided once (a pose change of a few pixels does not turn a face)
    crease_arr = model.visible_creases(place(model.points, *pose, base_h), proj.camera if proj.has_camera else None)
    ignore = _NO_POLYGON if ignore_px is None else np.ascontiguousarray(ignore_px, np.float64).reshape(-1, 2)
    out_pose, stats, outline = kern.refine_pose(
        crop.image, crop.background, crop.origin, model.points, not model.faces, crease_arr, pose, float(base_h),
        proj.packed, 2 if fixed_angle else 3, float(inner_weight), int(iterations), float(reach_px),
        float(spacing_px), float(min_strength), _MAX_GROW_PX, ignore, int(max_per_edge), float(contrast_share),
        float(grow_centre_px), float(grow_weight))
    support, rms, count, converged, grow, crease_support = (float(v) for v in stats)
    return EdgeFit((float(out_pose[0]), float(out_pose[1]), float(out_pose[2])), support, rms, int(count), outline,
                   bool(converged), grow, crease_support)
