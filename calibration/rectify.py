"""A top-down view of the table from a calibrated frame, with a millimetre grid to check the calibration by eye.

Output pixel convention (as the sheet's): with ``bounds = (x0, y0, x1, y1)`` mm and ``p`` px/mm, output pixel
column ``c`` covers table x in ``[x0 + c/p, x0 + (c+1)/p)``; see :func:`rectified_matrix`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table_calibration import Calibration

__all__ = ["Rectified", "rectified_matrix", "visible_bounds_mm", "rectify", "draw_grid"]

_MAX_SIDE_PX = 2400  # keep the check image viewable and cheap to write
_REACH_MM = 700.0  # how far beyond the calibrated area to show at most (grazing views reach the horizon)


@dataclass(frozen=True)
class Rectified:
    """A rectified top-down image and where it lies on the table."""

    image: np.ndarray
    bounds_mm: tuple[float, float, float, float]  # x0, y0, x1, y1
    px_per_mm: float


def rectified_matrix(bounds_mm: tuple[float, float, float, float], px_per_mm: float) -> np.ndarray:
    """3x3 matrix from table mm to OpenCV pixel coordinates of the rectified image."""
    x0, y0 = bounds_mm[0], bounds_mm[1]
    p = px_per_mm
    return np.array([[p, 0.0, -x0 * p - 0.5], [0.0, p, -y0 * p - 0.5], [0.0, 0.0, 1.0]])


def visible_bounds_mm(
    calibration: Calibration, area_mm: tuple[float, float, float, float] | None = None
) -> tuple[float, float, float, float]:
    """The table rectangle seen in the frame, limited to ``_REACH_MM`` around ``area_mm`` (the calibrated area:
    the sheet, or the rectangle clicked)."""
    width, height = calibration.image_size
    edge = np.linspace(0.0, 1.0, 33)
    border = np.concatenate(
        [
            np.column_stack([edge * (width - 1), np.zeros_like(edge)]),
            np.column_stack([np.full_like(edge, width - 1), edge * (height - 1)]),
            np.column_stack([edge * (width - 1), np.full_like(edge, height - 1)]),
            np.column_stack([np.zeros_like(edge), edge * (height - 1)]),
        ]
    )
    table = calibration.pixel_to_table(border)
    # Points beyond the horizon map "behind" the camera: the homography's w changes sign there.
    h = calibration.homography
    undistorted = calibration.undistorted_pixels(border)
    w = undistorted @ h[2, :2] + h[2, 2]
    centre_w = np.array([(width - 1) / 2, (height - 1) / 2]) @ h[2, :2] + h[2, 2]
    ok = (np.sign(w) == np.sign(centre_w)) & np.all(np.isfinite(table), axis=1)
    if area_mm is None:
        area_mm = (
            (table[ok, 0].min(), table[ok, 1].min(), table[ok, 0].max(), table[ok, 1].max())
            if ok.any()
            else (
                0.0,
                0.0,
                100.0,
                100.0,
            )
        )
    ax0, ay0, ax1, ay1 = area_mm
    if not ok.all():
        # Part of the frame sees no table (horizon): show the whole reach on that side.
        return ax0 - _REACH_MM, ay0 - _REACH_MM, ax1 + _REACH_MM, ay1 + _REACH_MM
    x0 = max(table[:, 0].min(), ax0 - _REACH_MM)
    y0 = max(table[:, 1].min(), ay0 - _REACH_MM)
    x1 = min(table[:, 0].max(), ax1 + _REACH_MM)
    y1 = min(table[:, 1].max(), ay1 + _REACH_MM)
    return float(x0), float(y0), float(x1), float(y1)


def rectify(
    image: np.ndarray,
    calibration: Calibration,
    bounds_mm: tuple[float, float, float, float],
    px_per_mm: float | None = None,
) -> Rectified:
    """The table rectangle ``bounds_mm`` seen top-down at ``px_per_mm`` (default: about the frame's own scale
    in the middle of the bounds, limited to a _MAX_SIDE_PX image). Lens distortion is removed too."""
    x0, y0, x1, y1 = bounds_mm
    if px_per_mm is None:
        px_per_mm = calibration.px_per_mm_at(np.array([(x0 + x1) / 2, (y0 + y1) / 2]))
        px_per_mm = max(0.25, round(px_per_mm * 4) / 4)
    px_per_mm = min(px_per_mm, _MAX_SIDE_PX / max(x1 - x0, y1 - y0))
    out_w = max(1, int(math.ceil((x1 - x0) * px_per_mm)))
    out_h = max(1, int(math.ceil((y1 - y0) * px_per_mm)))
    to_out = rectified_matrix(bounds_mm, px_per_mm)
    if calibration.lens is None:
        out = cv2.warpPerspective(
            image, to_out @ calibration.homography, (out_w, out_h), flags=cv2.INTER_LINEAR, borderValue=0
        )
    else:
        # Distortion is not a homography: trace a coarse grid of output pixels back into the frame, interpolate.
        step = 8
        cols = np.arange(0, out_w + step, step, dtype=np.float64)
        rows = np.arange(0, out_h + step, step, dtype=np.float64)
        grid_c, grid_r = np.meshgrid(cols, rows)
        table = np.column_stack([x0 + (grid_c.ravel() + 0.5) / px_per_mm, y0 + (grid_r.ravel() + 0.5) / px_per_mm])
        source = calibration.table_to_pixel(table).reshape(len(rows), len(cols), 2).astype(np.float32)
        map_c = np.ascontiguousarray(np.broadcast_to((np.arange(out_w, dtype=np.float32) / step)[None], (out_h, out_w)))
        map_r = np.ascontiguousarray(
            np.broadcast_to((np.arange(out_h, dtype=np.float32) / step)[:, None], (out_h, out_w))
        )
        full = cv2.remap(source, map_c, map_r, cv2.INTER_LINEAR)
        out = cv2.remap(image, full[:, :, 0], full[:, :, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return Rectified(out, (float(x0), float(y0), float(x1), float(y1)), float(px_per_mm))


def draw_grid(
    rectified: Rectified,
    step_mm: float = 50.0,
    outline_mm: tuple[float, float, float, float] | None = None,
) -> np.ndarray:
    """A BGR copy of the rectified image with a grid every ``step_mm`` (every second line stronger and labelled
    in mm), the table axes through the origin, and an optional outline (e.g. the sheet)."""
    image = rectified.image
    canvas = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image.copy()
    x0, y0, x1, y1 = rectified.bounds_mm
    to_px = rectified_matrix(rectified.bounds_mm, rectified.px_per_mm)
    shift = 4  # sub-pixel line positions: cv2 drawing takes fixed-point coordinates with this many bits

    def px(x: float, y: float) -> tuple[int, int]:
        u = to_px[0, 0] * x + to_px[0, 2]
        v = to_px[1, 1] * y + to_px[1, 2]
        return int(round(u * (1 << shift))), int(round(v * (1 << shift)))

    font_scale = 0.4
    for i in range(int(math.ceil(x0 / step_mm)), int(math.floor(x1 / step_mm)) + 1):
        x = i * step_mm
        major = i % 2 == 0
        colour = (0, 0, 255) if i == 0 else ((255, 200, 0) if major else (200, 150, 0))
        cv2.line(canvas, px(x, y0), px(x, y1), colour, 2 if i == 0 else 1, cv2.LINE_AA, shift)
        if major:
            u, _ = px(x, y0)
            cv2.putText(
                canvas,
                f"{x:g}",
                (u // (1 << shift) + 3, 14),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                (255, 255, 0),
                1,
                cv2.LINE_AA,
            )
    for j in range(int(math.ceil(y0 / step_mm)), int(math.floor(y1 / step_mm)) + 1):
        y = j * step_mm
        major = j % 2 == 0
        colour = (0, 0, 255) if j == 0 else ((255, 200, 0) if major else (200, 150, 0))
        cv2.line(canvas, px(x0, y), px(x1, y), colour, 2 if j == 0 else 1, cv2.LINE_AA, shift)
        if major:
            _, v = px(x0, y)
            cv2.putText(
                canvas,
                f"{y:g}",
                (3, v // (1 << shift) - 3),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                (255, 255, 0),
                1,
                cv2.LINE_AA,
            )
    if outline_mm is not None:
        ox0, oy0, ox1, oy1 = outline_mm
        corners = [px(ox0, oy0), px(ox1, oy0), px(ox1, oy1), px(ox0, oy1)]
        cv2.polylines(canvas, [np.array(corners, np.int32)], True, (0, 255, 0), 1, cv2.LINE_AA, shift)
    return canvas
