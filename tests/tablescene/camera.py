"""The simulated camera: a pinhole with radial lens distortion looking down at the table.

Frames (all right-handed):

* table/world: ``x`` right, ``y`` down (as in a top-down picture), ``z`` INTO the table; a point at height
  ``h_mm`` above the table is ``(x, y, -h)``.
* camera: ``x`` right in the image, ``y`` down in the image, ``z`` forward along the optical axis (OpenCV's).

Projection is OpenCV's model (``cv2.projectPoints`` with distortion ``(k1, k2, 0, 0)``), so the ground truth of
a frame is reproducible with plain OpenCV calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

__all__ = ["CameraSpec", "Camera", "PI_RESOLUTIONS", "default_focal_px"]

#: Raspberry Pi camera modes and their horizontal field of view (degrees).
#: 1640x1232 is the 2x2-binned mode of the v2 camera (IMX219, 62.2 deg); 2304x1296 and 4608x2592 are the
#: binned and full modes of Camera Module 3 (IMX708, 66 deg).
PI_RESOLUTIONS: dict[tuple[int, int], float] = {
    (1640, 1232): 62.2,
    (2304, 1296): 66.0,
    (4608, 2592): 66.0,
}


def default_focal_px(resolution: tuple[int, int]) -> float:
    """Focal length in pixels of the Pi camera mode with this resolution (62.2 deg HFOV if unknown)."""
    width = resolution[0]
    hfov = PI_RESOLUTIONS.get(tuple(resolution), 62.2)
    return (width / 2.0) / math.tan(math.radians(hfov) / 2.0)


@dataclass(frozen=True)
class CameraSpec:
    """Where the camera is and what it is like. Lengths in mm, angles in degrees.

    The camera looks at ``target_mm`` (a point on the table) from ``distance_mm`` away along its optical
    axis. ``tilt_deg`` is the angle between the optical axis and the vertical (0 = straight down); a tilted
    camera stands back toward +y rotated by ``yaw_deg`` (the player's side for yaw 0), so the far edge of the
    table (-y) is at the top of the image. ``yaw_deg`` turns the camera about the vertical, clockwise as seen
    from above. ``k1``, ``k2`` are OpenCV's radial distortion coefficients (negative k1 = barrel).
    """

    resolution: tuple[int, int] = (1640, 1232)
    distance_mm: float = 700.0
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    target_mm: tuple[float, float] = (150.0, 150.0)
    focal_px: float | None = None
    k1: float = -0.04
    k2: float = 0.01
    roll_deg: float = 0.0

    def camera(self) -> Camera:
        return Camera.from_spec(self)


@dataclass(frozen=True, eq=False)
class Camera:
    """A resolved camera: intrinsics ``K``, distortion ``dist`` (k1, k2, p1, p2, k3), pose ``R``, ``t``.

    ``R``, ``t`` take table points (x, y, -h) to camera coordinates: ``X_cam = R @ X_table + t``.
    """

    width: int
    height: int
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    spec: CameraSpec | None = field(default=None)

    @classmethod
    def from_spec(cls, spec: CameraSpec) -> Camera:
        width, height = (int(v) for v in spec.resolution)
        focal = float(spec.focal_px) if spec.focal_px else default_focal_px((width, height))
        K = np.array([[focal, 0.0, (width - 1) / 2.0], [0.0, focal, (height - 1) / 2.0], [0.0, 0.0, 1.0]])
        dist = np.array([spec.k1, spec.k2, 0.0, 0.0, 0.0])
        tilt, yaw, roll = (math.radians(a) for a in (spec.tilt_deg, spec.yaw_deg, spec.roll_deg))
        # Horizontal unit vectors of the yawed frame: "right" and "toward the player" (+y for yaw 0).
        right = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        toward = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        target = np.array([spec.target_mm[0], spec.target_mm[1], 0.0])
        to_camera = math.sin(tilt) * toward + np.array([0.0, 0.0, -math.cos(tilt)])
        centre = target + spec.distance_mm * to_camera
        z_axis = -to_camera
        x_axis = right
        y_axis = np.cross(z_axis, x_axis)
        if roll:
            c, s = math.cos(roll), math.sin(roll)
            x_axis, y_axis = c * x_axis + s * y_axis, -s * x_axis + c * y_axis
        R = np.stack([x_axis, y_axis, z_axis])
        t = -R @ centre
        return cls(width, height, K, dist, R, t, spec)

    # -- geometry -----------------------------------------------------------------------------------------
    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre in table coordinates (x, y, z) with z = -height."""
        return -self.R.T @ self.t

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0].reshape(3)

    @property
    def tvec(self) -> np.ndarray:
        return self.t.reshape(3).copy()

    def homography(self, h_mm: float = 0.0) -> np.ndarray:
        """Homography from table mm (x, y) at height ``h_mm`` to UNDISTORTED pixel coordinates.

        With no lens distortion (k1 = k2 = 0) these are the image's pixels; otherwise undistort detected
        pixels first (``cv2.undistortPoints(p, K, dist, P=K)``) or use :meth:`project`.
        """
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * (-h_mm) + self.t])
        return H / H[2, 2]

    def project(self, points_mm: np.ndarray, h_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Pixel positions (with lens distortion) of table points ``(x, y)`` at height ``h_mm``, or of
        ``(x, y, h)`` triples. Returns an (N, 2) float array."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.asarray(points_mm).shape[-1])
        if pts.shape[1] == 2:
            heights = np.broadcast_to(np.asarray(h_mm, dtype=np.float64), (len(pts),))
            pts = np.column_stack([pts, heights])
        world = np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2]])
        if len(world) == 0:
            return np.zeros((0, 2))
        pix, _ = cv2.projectPoints(world.reshape(-1, 1, 3), self.rvec, self.tvec, self.K, self.dist)
        return pix.reshape(-1, 2)

    def project_undistorted(self, world: np.ndarray, K: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Pinhole projection of world points (x, y, z) with ``K`` (default: this camera's); returns
        (pixels (N, 2), depth z_cam (N,))."""
        K = self.K if K is None else K
        cam = world @ self.R.T + self.t
        z = cam[:, 2]
        uv = cam[:, :2] / z[:, None]
        return uv * [K[0, 0], K[1, 1]] + [K[0, 2], K[1, 2]], z

    def to_camera(self, world: np.ndarray) -> np.ndarray:
        return world @ self.R.T + self.t

    def undistort_normalized(self, pixels: np.ndarray) -> np.ndarray:
        """Normalized undistorted coordinates (x/z, y/z) of image pixels: the exact inverse of the radial
        model used by cv2.projectPoints (k1, k2 only), by a dense 1-D lookup of r_d -> r_u.

        Written here rather than calling cv2.undistortPoints because its iteration count (and the
        criteria argument) differ between OpenCV 4.x and 5.x; the lookup is exact to ~1e-7.
        """
        pixels = np.asarray(pixels, dtype=np.float64)
        xd = (pixels[..., 0] - self.K[0, 2]) / self.K[0, 0]
        yd = (pixels[..., 1] - self.K[1, 2]) / self.K[1, 1]
        rd = np.hypot(xd, yd)
        k1, k2 = float(self.dist[0]), float(self.dist[1])
        if k1 == 0.0 and k2 == 0.0:
            return np.stack([xd, yd], axis=-1)
        ru_of_rd = _radial_inverse(k1, k2, float(rd.max()) * 1.001 + 1e-6)
        ru = np.interp(rd, ru_of_rd[1], ru_of_rd[0])
        scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        return np.stack([xd * scale, yd * scale], axis=-1)

    def table_point(self, pixels: np.ndarray, h_mm: float = 0.0) -> np.ndarray:
        """Table (x, y) in mm seen at image pixels (with distortion), on the plane at height ``h_mm``."""
        norm = self.undistort_normalized(np.asarray(pixels, dtype=np.float64).reshape(-1, 2))
        Hn = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * (-h_mm) + self.t])
        q = np.column_stack([norm, np.ones(len(norm))]) @ np.linalg.inv(Hn).T
        return q[:, :2] / q[:, 2:3]

    def to_json(self) -> dict:
        spec = self.spec
        return {
            "width": self.width,
            "height": self.height,
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "R": self.R.tolist(),
            "centre_mm": self.centre_mm.tolist(),
            "spec": None
            if spec is None
            else {
                "resolution": list(spec.resolution),
                "distance_mm": spec.distance_mm,
                "tilt_deg": spec.tilt_deg,
                "yaw_deg": spec.yaw_deg,
                "roll_deg": spec.roll_deg,
                "target_mm": list(spec.target_mm),
                "focal_px": float(self.K[0, 0]),
                "k1": spec.k1,
                "k2": spec.k2,
            },
        }


@lru_cache(maxsize=32)
def _radial_inverse(k1: float, k2: float, rd_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Samples (r_u, r_d(r_u)) of the radial distortion, dense enough for linear interpolation."""
    # Find r_u reaching rd_max by bisection-free stepping: the model is monotonic for mild distortion.
    ru_max = rd_max
    for _ in range(60):
        rd = ru_max * (1 + k1 * ru_max**2 + k2 * ru_max**4)
        if rd >= rd_max:
            break
        ru_max *= 1.05
    ru = np.linspace(0.0, ru_max, 200001)
    rd = ru * (1 + k1 * ru**2 + k2 * ru**4)
    if np.any(np.diff(rd) <= 0):
        raise ValueError(f"lens distortion k1={k1}, k2={k2} is not monotonic over the image; use milder values")
    return ru, rd
