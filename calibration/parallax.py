"""Parallax: where the camera is, and where on the table a point seen at a height above it stands.

A homography maps the table plane only. The top of a pawn, the apex of a pyramid or a coin lying on a tile is
``h`` mm above the table, so its pixel maps to a table point displaced away from the camera's nadir by
``h / camera_height`` of its distance from the nadir. Correcting that needs the camera itself: the intrinsics
``K`` and the pose ``[R | t]`` of the table in camera coordinates.

Frames: the table frame is x right, y down (as seen from above), so a right-handed z points INTO the table and
a point ``h`` mm above the table has ``z = -h``. A table point ``(x, y, z)`` projects to undistorted pixels as
``K (R (x, y, z) + t)``; on the plane ``z = -h`` that is the homography ``K [r1 r2 t - h r3]``.

Intrinsics come from the lens calibration when there is one. Without one they are estimated: principal point
at the image centre, square pixels and no skew (true to ~1-2 % for Pi and webcam sensors), and the focal
length from the homography's orthogonality constraints (the images of the table's x and y axes must be
perpendicular and equally long after K^-1; Zhang 2000, one view, one unknown). A camera looking straight down
sees no perspective, so the constraints vanish there: when the view is tilted less than ``MIN_TILT_DEG`` or the
estimate is implausible, the focal length comes from an assumed horizontal field of view instead
(``DEFAULT_HFOV_DEG``: the Raspberry Pi Camera Module 3 and v2 are 66 and 62 degrees). The table positions of
points ON the table never depend on this choice; only the parallax correction of raised points does, in
proportion (a 10 % focal error moves a 30 mm pawn top seen 300 mm from the nadir by ~1 mm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

__all__ = [
    "DEFAULT_HFOV_DEG",
    "MIN_TILT_DEG",
    "CameraPose",
    "estimate_focal_px",
    "focal_from_hfov",
    "camera_matrix",
    "recover_camera",
]

DEFAULT_HFOV_DEG = 64.0  # between the Pi Camera v2 (62.2) and Module 3 (66) in their full-field modes
MIN_TILT_DEG = 12.0  # below this the homography's focal estimate is dominated by corner noise
_HFOV_PLAUSIBLE_DEG = (15.0, 140.0)


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera over the table: intrinsics (of undistorted pixels) and the table's pose."""

    camera_matrix: np.ndarray  # (3, 3) K
    rotation: np.ndarray  # (3, 3) R: table frame -> camera frame
    translation_mm: np.ndarray  # (3,) t: the table origin in camera coordinates, mm
    focal_source: str  # "lens", "homography" or "default-fov"

    @property
    def position_mm(self) -> np.ndarray:
        """The camera centre as ``(x_mm, y_mm, h_mm)``: over table point (x, y), h mm above the table."""
        centre = -self.rotation.T @ self.translation_mm
        return np.array([centre[0], centre[1], -centre[2]])

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down (0 = looking straight down at the table)."""
        axis_in_table = self.rotation.T @ np.array([0.0, 0.0, 1.0])  # optical axis; +z is down into the table
        return float(math.degrees(math.acos(np.clip(axis_in_table[2], -1.0, 1.0))))

    def plane_to_pixel(self, height_mm: float = 0.0) -> np.ndarray:
        """The 3x3 homography from table (x, y) at ``height_mm`` above the table to undistorted pixels."""
        r = self.rotation
        return self.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], self.translation_mm - height_mm * r[:, 2]])

    def to_json(self) -> dict[str, Any]:
        return {
            "camera_matrix": np.asarray(self.camera_matrix, float).tolist(),
            "rotation": np.asarray(self.rotation, float).tolist(),
            "translation_mm": np.asarray(self.translation_mm, float).tolist(),
            "focal_source": self.focal_source,
            "tilt_deg": round(self.tilt_deg, 2),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CameraPose:
        matrix = np.array(data["camera_matrix"], dtype=np.float64)
        rotation = np.array(data["rotation"], dtype=np.float64)
        translation = np.array(data["translation_mm"], dtype=np.float64).ravel()
        if matrix.shape != (3, 3) or rotation.shape != (3, 3) or translation.shape != (3,):
            raise ValueError("bad camera matrix, rotation or translation")
        if not np.allclose(rotation @ rotation.T, np.eye(3), atol=1e-5):
            raise ValueError("rotation is not a rotation matrix")
        return cls(matrix, rotation, translation, str(data.get("focal_source", "homography")))


def focal_from_hfov(image_width: int, hfov_deg: float) -> float:
    """Focal length in pixels of a camera whose frame spans ``hfov_deg`` horizontally."""
    return image_width / 2 / math.tan(math.radians(hfov_deg) / 2)


def camera_matrix(focal_px: float, principal_point: tuple[float, float]) -> np.ndarray:
    """K for square pixels, no skew."""
    return np.array([[focal_px, 0.0, principal_point[0]], [0.0, focal_px, principal_point[1]], [0.0, 0.0, 1.0]])


def estimate_focal_px(table_to_pixel: np.ndarray, principal_point: tuple[float, float]) -> float | None:
    """Focal length (pixels) from a table->pixel homography, given the principal point; None when not observable.

    With ``G ~ K [r1 r2 t]`` and ``K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]``, shifting the principal point to the
    origin leaves columns ``g = (f r_x, f r_y, r_z)``; ``r1 . r2 = 0`` and ``|r1| = |r2|`` are each linear in
    ``w = 1/f^2``, solved together by least squares.
    """
    shift = np.array([[1.0, 0.0, -principal_point[0]], [0.0, 1.0, -principal_point[1]], [0.0, 0.0, 1.0]])
    g = shift @ np.asarray(table_to_pixel, dtype=np.float64)
    g = g / np.linalg.norm(g[:2, :2])  # any scale; this keeps the numbers near 1
    g1, g2 = g[:, 0], g[:, 1]
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1], g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2])
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    denominator = float(a @ a)
    if denominator <= 0:
        return None
    w = -float(a @ b) / denominator
    if not w > 0:
        return None
    return 1.0 / math.sqrt(w)


def _pose(points_mm: np.ndarray, points_px: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pose of the table from >= 4 table points and their undistorted pixels (IPPE for planes, then LM)."""
    object_points = np.column_stack([points_mm, np.zeros(len(points_mm))]).astype(np.float64)
    image_points = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
    ok, rvec, tvec = cv2.solvePnP(object_points, image_points, k, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise ValueError("solvePnP failed")
    rvec, tvec = cv2.solvePnPRefineLM(object_points, image_points, k, None, rvec, tvec)
    rotation, _ = cv2.Rodrigues(rvec)
    return rotation, tvec.reshape(3)


def recover_camera(
    points_mm: np.ndarray,
    points_px: np.ndarray,
    image_size: tuple[int, int],
    lens_matrix: np.ndarray | None = None,
    hfov_deg: float = DEFAULT_HFOV_DEG,
) -> CameraPose:
    """The camera over the table from table points (mm, on the table) and their undistorted pixels.

    ``lens_matrix``: K from a lens calibration; without it K is estimated (see the module docstring).
    """
    points_mm = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    points_px = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    if lens_matrix is not None:
        k = np.asarray(lens_matrix, dtype=np.float64)
        rotation, translation = _pose(points_mm, points_px, k)
        return CameraPose(k, rotation, translation, "lens")
    width, height = image_size
    centre = ((width - 1) / 2, (height - 1) / 2)  # pixel centres at integers: the middle of the frame
    table_to_pixel, _ = cv2.findHomography(points_mm, points_px, 0)
    fallback = focal_from_hfov(width, hfov_deg)
    focal = estimate_focal_px(table_to_pixel, centre) if table_to_pixel is not None else None
    if focal is not None:
        hfov = math.degrees(2 * math.atan(width / 2 / focal))
        if _HFOV_PLAUSIBLE_DEG[0] <= hfov <= _HFOV_PLAUSIBLE_DEG[1]:
            k = camera_matrix(focal, centre)
            rotation, translation = _pose(points_mm, points_px, k)
            pose = CameraPose(k, rotation, translation, "homography")
            if pose.tilt_deg >= MIN_TILT_DEG:
                return pose
    k = camera_matrix(fallback, centre)
    rotation, translation = _pose(points_mm, points_px, k)
    return CameraPose(k, rotation, translation, "default-fov")
