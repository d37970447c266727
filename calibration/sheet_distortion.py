"""Barrel distortion estimated from the calibration sheet alone (no lens calibration needed).

A homography maps straight lines to straight lines; a barrel lens bends them. The sheet's 64 marker corners lie
on straight rows and columns, so their misfit to a homography measures the lens's first radial coefficient
``k1``: undistort the corners with a trial ``k1`` (principal point at the image centre, the focal length in use),
fit a homography, and keep the ``k1`` that fits best (a 1-D bounded search, ``scipy.optimize.minimize_scalar``).

A wrong ``k1`` does more harm than none (it bends the frame's corners, far from the sheet), so it is only kept
when the data demand it: an F test of the homography's residuals with and without it (one extra parameter)
must exceed ``MIN_F``, a threshold set on rendered frames (without distortion F stays below ~15; a Pi-like
k1 = -0.04 close up gives F ~ 300). A sheet small in the middle of the frame barely sees the lens's curvature:
then F stays low and nothing changes. A full ChArUco lens calibration (:mod:`calibration.lens`) is still better.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import minimize_scalar

from calibration.lens import undistort_raw

__all__ = ["MIN_F", "K1_BOUNDS", "SheetDistortion", "estimate_k1"]

MIN_F = 50.0
K1_BOUNDS = (-0.8, 0.5)  # wider than any camera the Pi or a webcam has; a fit at the bound is rejected


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


def _homography_rss(points_px: np.ndarray, points_mm: np.ndarray, camera_matrix: np.ndarray, k1: float) -> float:
    coeffs = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    undistorted = undistort_raw(points_px.reshape(-1, 1, 2), camera_matrix, coeffs, camera_matrix).reshape(-1, 2)
    table_to_px, _ = cv2.findHomography(points_mm, undistorted, 0)
    if table_to_px is None:
        return float("inf")
    mapped = cv2.perspectiveTransform(points_mm.reshape(-1, 1, 2), table_to_px).reshape(-1, 2)
    return float(np.sum((mapped - undistorted) ** 2))


def estimate_k1(points_px: np.ndarray, points_mm: np.ndarray, camera_matrix: np.ndarray) -> SheetDistortion:
    """The radial coefficient ``k1`` that makes the sheet's corners (raw pixels, table mm) fit a homography
    best, for the camera matrix ``camera_matrix`` (principal point and focal length, pixels)."""
    points_px = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    points_mm = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    rss_without = _homography_rss(points_px, points_mm, camera_matrix, 0.0)
    result = minimize_scalar(
        lambda k1: _homography_rss(points_px, points_mm, camera_matrix, k1),
        bounds=K1_BOUNDS,
        method="bounded",
        options={"xatol": 1e-5},
    )
    rss_with = min(float(result.fun), rss_without)
    k1 = float(result.x) if result.fun < rss_without else 0.0
    degrees_of_freedom = 2 * len(points_px) - 9  # two residuals per corner; 8 homography parameters + k1
    if degrees_of_freedom <= 0 or rss_with <= 0:
        return SheetDistortion(k1, 0.0, rss_without, rss_with)
    f_statistic = (rss_without - rss_with) / (rss_with / degrees_of_freedom)
    return SheetDistortion(k1, float(f_statistic), rss_without, rss_with)
