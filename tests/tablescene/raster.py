"""A small z-buffered polygon rasteriser over an undistorted (pinhole) canvas.

Why hand-written: OpenCV draws 2-D polygons but has no depth test, and the renderer needs exact occlusion
(pieces in front of pieces, a pawn's ball over its cone, hands over everything) and a per-pixel id of the
front surface for the ground truth. Every face is planar, so its inverse depth is an affine function of the
pixel position; each face is filled in its bounding box with cv2.fillPoly and depth-tested with numpy.
"""

from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera

__all__ = ["Canvas", "BACKGROUND_ID", "HAND_ID", "PROP_ID"]

BACKGROUND_ID = -1
HAND_ID = -2
PROP_ID = -3
_SHIFT = 4  # fixed-point bits for sub-pixel polygon vertices


class Canvas:
    """Colour, inverse depth and id buffers of the supersampled, undistorted image."""

    def __init__(self, camera: Camera, K: np.ndarray, width: int, height: int):
        self.camera = camera
        self.K = K
        self.Kinv = np.linalg.inv(K)
        self.w, self.h = width, height
        self.color = np.zeros((height, width, 3), np.float32)
        self.invz = np.zeros((height, width), np.float32)
        self.ids = np.full((height, width), BACKGROUND_ID, np.int16)

    # -- geometry ----------------------------------------------------------------------------------------
    def project(self, world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cam = world @ self.camera.R.T + self.camera.t
        z = cam[:, 2]
        uv = cam[:, :2] / z[:, None] * [self.K[0, 0], self.K[1, 1]] + [self.K[0, 2], self.K[1, 2]]
        return uv, z

    def plane_invz(self, point: np.ndarray, normal: np.ndarray) -> np.ndarray:
        """Coefficients (a, b, c): 1/z_cam = a*u + b*v + c over the canvas for the plane through ``point``."""
        n_c = self.camera.R @ normal
        d = float(n_c @ (self.camera.R @ point + self.camera.t))
        return (n_c @ self.Kinv) / d

    def roi(self, uv: np.ndarray, pad: int = 1) -> tuple[int, int, int, int] | None:
        x0 = max(int(np.floor(uv[:, 0].min())) - pad, 0)
        y0 = max(int(np.floor(uv[:, 1].min())) - pad, 0)
        x1 = min(int(np.ceil(uv[:, 0].max())) + pad + 1, self.w)
        y1 = min(int(np.ceil(uv[:, 1].max())) + pad + 1, self.h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def polygon_mask(self, uv: np.ndarray, box: tuple[int, int, int, int], outline: bool = False) -> np.ndarray:
        x0, y0, x1, y1 = box
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = np.round((uv - [x0, y0]) * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(mask, [pts], 1, lineType=cv2.LINE_8, shift=_SHIFT)
        if outline:
            # thin faces (a tile's side seen almost edge-on) would rasterise as dashes: draw their outline too,
            # so they stay a continuous line; the depth test settles the overlap with neighbouring faces
            cv2.polylines(mask, [pts], True, 1, thickness=1, lineType=cv2.LINE_8, shift=_SHIFT)
        return mask.view(bool)

    def invz_grid(self, coef: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        x0, y0, x1, y1 = box
        us = np.arange(x0, x1, dtype=np.float32) * np.float32(coef[0])
        vs = np.arange(y0, y1, dtype=np.float32) * np.float32(coef[1])
        return vs[:, None] + us[None, :] + np.float32(coef[2])

    def points_on_plane(self, us: np.ndarray, vs: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """World points (N, 3) seen at canvas pixels (us, vs) on the plane with inverse-depth ``coef``."""
        us = np.asarray(us, np.float64).ravel()
        vs = np.asarray(vs, np.float64).ravel()
        z = 1.0 / (coef[0] * us + coef[1] * vs + coef[2])
        rx = (us - self.K[0, 2]) / self.K[0, 0] * z
        ry = (vs - self.K[1, 2]) / self.K[1, 1] * z
        R, centre = self.camera.R, self.camera.centre_mm
        # world = R^T (X_cam - t) = R^T X_cam + centre, with X_cam = (rx, ry, z)
        out = np.empty((len(us), 3))
        for i in range(3):
            out[:, i] = R[0, i] * rx + R[1, i] * ry + R[2, i] * z + centre[i]
        return out

    # -- drawing -----------------------------------------------------------------------------------------
    def write(self, box, sel: np.ndarray, color: np.ndarray, invz: np.ndarray, ident: int) -> None:
        """Store ``color`` (ROI-shaped (h, w, 3) or a (3,) constant) where ``sel``."""
        x0, y0, x1, y1 = box
        region = self.color[y0:y1, x0:x1]
        if color.ndim == 1:
            region[sel] = color
        else:
            np.copyto(region, color, where=sel[..., None])
        np.copyto(self.invz[y0:y1, x0:x1], invz, where=sel)
        self.ids[y0:y1, x0:x1][sel] = ident

    def blend(self, box, sel: np.ndarray, color: np.ndarray, alpha: np.ndarray | float, ident: int,
              filter_rgb: np.ndarray | None = None) -> None:
        """Translucent layer: dst = dst * filter * (1 - alpha) + color * alpha (no depth write)."""
        x0, y0, x1, y1 = box
        region = self.color[y0:y1, x0:x1]
        a = alpha if np.isscalar(alpha) else alpha[sel][:, None]
        below = region[sel]
        if filter_rgb is not None:
            below = below * (filter_rgb if filter_rgb.ndim == 1 else filter_rgb[sel])
        col = color if color.ndim == 1 else color[sel]
        region[sel] = below * (1 - a) + col * a
        self.ids[y0:y1, x0:x1][sel] = ident
