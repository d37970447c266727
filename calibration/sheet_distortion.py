"""Barrel distortion estimated from the calibration sheet alone (no lens calibration needed).

A homography maps straight lines to straight lines; a barrel lens bends them. The sheet's 64 marker corners lie
on straight rows and columns, so their misfit to a homography measures the lens's first radial coefficient
``k1``: undistort the corners with a trial ``k1`` (principal point at the image centre, the focal length in use),
fit a homography, and keep the ``k1`` that fits best (a 1-D bounded search, ``scipy.optimize.minimize_scalar``).

The ArUco detector reports blurred markers slightly too small (each corner ~0.2-0.3 px toward the marker's
centre); markers along the sheet's edges shrinking looks like barrel distortion, so one shrink for all markers is
fitted alongside (without it k1 came out up to 2.5x too strong on rendered frames).

A wrong ``k1`` does more harm than none (it bends the frame's corners, far from the sheet), so it is only kept
when the data demand it: an F test of the homography's residuals with and without it (one extra parameter)
must exceed ``MIN_F``. On rendered frames without distortion F stays below 6; a Pi-like k1 = -0.04 gives F ~ 200
with the sheet filling a third of the frame, ~12 (rejected, and then barely visible) when it fills a tenth.
A ChArUco lens calibration (:mod:`calibration.lens`) is still better: it also knows k2 and the principal point.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import minimize_scalar

from calibration.lens import undistort_raw

__all__ = ["MIN_F", "K1_BOUNDS", "SHRINK_BOUNDS_PX", "SheetDistortion", "estimate_k1"]

MIN_F = 20.0
K1_BOUNDS = (-0.8, 0.5)  # wider than any camera the Pi or a webcam has; a fit at the bound is rejected
SHRINK_BOUNDS_PX = (-2.0, 2.0)


@dataclass(frozen=True)
class SheetDistortion:
    """The best ``k1`` for the sheet's corners and whether it is worth using."""

    k1: float
    f_statistic: float  # improvement of the homography fit, in units of its noise (1 extra parameter)
    rss_without: float  # homography residual sum of squares, undistorted pixels^2, without k1
    rss_with: float  # ... with k1

    @property
    def significant(self) -> bool:
        return self.f_statistic >= MIN_F and K1_BOUNDS[0] + 1e-3 < self.k1 < K1_BOUNDS[1] - 1e-3


def _adjust(corners_px: np.ndarray, shrink_px: float) -> np.ndarray:
    """Move every marker's corners ``shrink_px`` outward along the marker's diagonals (undoing a detector bias)."""
    centres = corners_px.mean(axis=1, keepdims=True)
    offsets = corners_px - centres
    return corners_px + shrink_px * offsets / np.linalg.norm(offsets, axis=2, keepdims=True)


def _homography_rss(
    corners_px: np.ndarray, corners_mm: np.ndarray, camera_matrix: np.ndarray, k1: float, shrink_px: float
) -> float:
    coeffs = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    points_px = _adjust(corners_px, shrink_px).reshape(-1, 1, 2)
    undistorted = undistort_raw(points_px, camera_matrix, coeffs, camera_matrix).reshape(-1, 2)
    points_mm = corners_mm.reshape(-1, 2)
    table_to_px, _ = cv2.findHomography(points_mm, undistorted, 0)
    if table_to_px is None:
        return float("inf")
    mapped = cv2.perspectiveTransform(points_mm.reshape(-1, 1, 2), table_to_px).reshape(-1, 2)
    return float(np.sum((mapped - undistorted) ** 2))


def _best_shrink(corners_px: np.ndarray, corners_mm: np.ndarray, camera_matrix: np.ndarray, k1: float) -> float:
    result = minimize_scalar(
        lambda d: _homography_rss(corners_px, corners_mm, camera_matrix, k1, d),
        bounds=SHRINK_BOUNDS_PX,
        method="bounded",
        options={"xatol": 1e-3},
    )
    return float(result.fun)


def estimate_k1(corners_px: np.ndarray, corners_mm: np.ndarray, camera_matrix: np.ndarray) -> SheetDistortion:
    """The radial coefficient ``k1`` that makes the sheet's marker corners fit a homography best.

    ``corners_px``: (n, 4, 2) raw pixel corners of n markers; ``corners_mm``: their (n, 4, 2) table positions;
    ``camera_matrix``: principal point and focal length (pixels) to undistort with.

    The ArUco corner refinement reports a blurred marker about 0.2-0.3 px too small at each corner; markers along
    the sheet's edge shrinking toward their centres looks like barrel distortion, so that shrink is fitted too
    (one value for all markers), with and without k1.
    """
    corners_px = np.asarray(corners_px, dtype=np.float64).reshape(-1, 4, 2)
    corners_mm = np.asarray(corners_mm, dtype=np.float64).reshape(-1, 4, 2)
    rss_without = _best_shrink(corners_px, corners_mm, camera_matrix, 0.0)
    result = minimize_scalar(
        lambda k1: _best_shrink(corners_px, corners_mm, camera_matrix, k1),
        bounds=K1_BOUNDS,
        method="bounded",
        options={"xatol": 1e-4},
    )
    rss_with = min(float(result.fun), rss_without)
    k1 = float(result.x) if result.fun < rss_without else 0.0
    degrees_of_freedom = 2 * corners_px.shape[0] * 4 - 10  # 2 residuals a corner; homography (8), shrink, k1
    if degrees_of_freedom <= 0 or rss_with <= 0:
        return SheetDistortion(k1, 0.0, rss_without, rss_with)
    f_statistic = (rss_without - rss_with) / (rss_with / degrees_of_freedom)
    return SheetDistortion(k1, float(f_statistic), rss_without, rss_with)
