"""Table points at heights -> raw frame pixels, fast: the calibration's mapping with its matrices cached.

:meth:`Calibration.table_to_pixel` rebuilds its plane matrices on every call; the figure fit calls it a few
thousand times per frame with a few dozen points each, so the per-call set-up dominated. :class:`Projector` does
the same arithmetic with the matrices built once: the table->undistorted-pixel homography ``G0`` (the fitted
one, scaled like the camera pose's ``K [r1 r2 t]``), the column ``K r3`` that a height moves (the plane
``z = -h``), then the lens distortion. It agrees with ``table_to_pixel`` to rounding (checked in the tests).
The same numbers are packed into one array (:attr:`Projector.packed`) for the compiled fit
(:mod:`vision.figure_kernels`), which projects with exactly this arithmetic.
"""

from __future__ import annotations

import numpy as np

from calibration.table_calibration import Calibration
from vision.figure_kernels import PACKED_LENGTH, project_points

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
        packed = np.zeros(PACKED_LENGTH)
        packed[0:9] = g0.ravel()
        if k_r3 is not None:
            packed[9:12] = k_r3
            packed[12] = 1.0
        if self.lens_k is not None:
            d = self.lens_d
            if len(d) > 12 and np.any(d[12:] != 0):
                # OpenCV's tilted-sensor terms (tauX, tauY): no lens calibration here produces them
                raise ValueError("lens models with a tilted sensor (tauX, tauY) are not supported")
            k = self.lens_k
            packed[13] = 1.0
            packed[14:19] = (k[0, 0], k[1, 1], k[0, 2], k[1, 2], k[0, 1])
            packed[19 : 19 + min(len(d), 12)] = d[:12]
        self.packed = packed
        position = calibration.camera_position_mm()
        self.camera = np.zeros(3) if position is None else np.asarray(position, np.float64)
        self.has_camera = position is not None

    def project(self, xy: np.ndarray, h: np.ndarray | float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        n = len(xy)
        if n == 0:
            return np.zeros((0, 2))
        heights = np.ascontiguousarray(np.broadcast_to(np.asarray(h, np.float64), (n,)))
        return project_points(np.ascontiguousarray(xy), heights, self.packed)
