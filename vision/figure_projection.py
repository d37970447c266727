"""Table points at heights -> raw frame pixels, fast: the calibration's mapping with its matrices cached.

:meth:`Calibration.table_to_pixel` rebuilds its plane matrices on every call; the figure fit calls it a few
thousand times per frame with a few dozen points each, so the per-call set-up dominated. :class:`Projector` does
the same arithmetic with the matrices built once: the table->undistorted-pixel homography ``G0`` (the fitted
one, scaled like the camera pose's ``K [r1 r2 t]``), the column ``K r3`` that a height moves (the plane
``z = -h``), then the lens distortion. It agrees with ``table_to_pixel`` to rounding (checked in the tests).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.table_calibration import Calibration

__all__ = ["Projector"]


class Projector:
    """``project(xy (n, 2), h (n,) or scalar) -> raw pixels (n, 2)`` for one calibration."""

    def __init__(self, calibration: Calibration):
        self.calibration = calibration
        g0 = np.linalg.inv(np.asarray(calibration.homography, np.float64))
        k_r3 = None
        if calibration.camera is not None:
            pose_g = calibration.camera.plane_to_pixel(0.0)
            g0 = g0 * (np.sum(pose_g * g0) / np.sum(g0 * g0))
            k_r3 = calibration.camera.camera_matrix @ calibration.camera.rotation[:, 2]
        self.g0 = g0
        self.k_r3 = k_r3
        lens = calibration.lens
        self.lens_k = None if lens is None else np.asarray(lens.camera_matrix, np.float64)
        self.lens_d = None if lens is None else np.asarray(lens.dist_coeffs, np.float64).ravel()

    def project(self, xy: np.ndarray, h: np.ndarray | float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        n = len(xy)
        if n == 0:
            return np.zeros((0, 2))
        hom = xy @ self.g0[:, :2].T + self.g0[:, 2]
        if self.k_r3 is not None:
            hom = hom - np.broadcast_to(np.asarray(h, np.float64), (n,))[:, None] * self.k_r3[None, :]
        und = hom[:, :2] / hom[:, 2:3]
        if self.lens_k is None:
            return und
        k = self.lens_k
        norm = np.empty((n, 3))
        norm[:, 1] = (und[:, 1] - k[1, 2]) / k[1, 1]
        norm[:, 0] = (und[:, 0] - k[0, 2] - k[0, 1] * norm[:, 1]) / k[0, 0]
        norm[:, 2] = 1.0
        out, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), k, self.lens_d)
        return out.reshape(n, 2)
