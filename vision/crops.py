"""Canonical crops of pieces: a small square of the ORIGINAL frame, sampled in the piece's own frame.

A crop is what a piece's top face looks like seen straight from above with its "up" toward the crop's top,
at a fixed resolution, whatever the camera's tilt, distance and lens. It is sampled through the calibration at
the height of the face (a coin on a tile is 6 mm up), so parallax does not shift it.

Why one small warp per piece and not a crop of the rectified table image: the rectified image is made at a
low resolution for finding pieces quickly; reading a coin's numeral needs the camera's full resolution, and a
per-piece warp from the raw frame costs microseconds. Over a 50 mm patch lens distortion is a projective map to
well under 0.1 px, so each crop is one ``cv2.warpPerspective`` through the homography fitted to its four
corners (the corners themselves go through the full calibration, distortion included).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.table_calibration import Calibration

__all__ = ["piece_axes", "crop_corners_mm", "crop_homographies", "sample_crops"]


def piece_axes(angle_deg: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (table mm) of a piece's "right" and "down" axes for ``angle_deg`` clockwise (y down)."""
    a = np.radians(np.asarray(angle_deg, dtype=np.float64))
    right = np.stack([np.cos(a), np.sin(a)], axis=-1)
    down = np.stack([-np.sin(a), np.cos(a)], axis=-1)
    return right, down


def crop_corners_mm(centres_mm: np.ndarray, angles_deg: np.ndarray, size_mm: float) -> np.ndarray:
    """(n, 4, 2) table corners (top-left, top-right, bottom-right, bottom-left in the piece's frame) of squares
    of side ``size_mm`` centred on ``centres_mm`` and turned by ``angles_deg``."""
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    right, down = piece_axes(np.asarray(angles_deg, dtype=np.float64).reshape(-1))
    half = size_mm / 2.0
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
    offsets = signs[None, :, 0:1] * right[:, None, :] + signs[None, :, 1:2] * down[:, None, :]
    return centres[:, None, :] + half * offsets


def crop_homographies(
    calibration: Calibration,
    centres_mm: np.ndarray,
    angles_deg: np.ndarray,
    heights_mm: np.ndarray | float,
    size_mm: float,
    out_px: int,
) -> np.ndarray:
    """(n, 3, 3) homographies from crop pixels (OpenCV convention, centres at integers) to raw frame pixels."""
    corners = crop_corners_mm(centres_mm, angles_deg, size_mm)
    n = len(corners)
    heights = np.broadcast_to(np.asarray(heights_mm, dtype=np.float64), (n,))
    pixels = calibration.table_to_pixel(corners.reshape(-1, 2), np.repeat(heights, 4)).reshape(n, 4, 2)
    edge = out_px - 0.5
    src = np.array([[-0.5, -0.5], [edge, -0.5], [edge, edge], [-0.5, edge]], dtype=np.float32)
    out = np.empty((n, 3, 3))
    for i in range(n):
        out[i] = cv2.getPerspectiveTransform(src, pixels[i].astype(np.float32))
    return out


def sample_crops(
    image: np.ndarray,
    calibration: Calibration,
    centres_mm: np.ndarray,
    angles_deg: np.ndarray,
    heights_mm: np.ndarray | float,
    size_mm: float,
    out_px: int,
    oversample: int | None = None,
) -> np.ndarray:
    """Crops (n, out_px, out_px, channels) uint8 of squares of ``size_mm`` on the table at ``heights_mm``.

    ``oversample``: sample at this many times ``out_px`` and average down (anti-aliasing when the frame has
    more pixels per mm than the crop); by default chosen from the calibration's scale at the first centre.
    Outside the frame is black.
    """
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    n = len(centres)
    channels = 1 if image.ndim == 2 else image.shape[2]
    if n == 0:
        return np.zeros((0, out_px, out_px, channels), np.uint8)
    if oversample is None:
        native = calibration.px_per_mm_at(centres[0])
        oversample = max(1, min(4, int(math.ceil(native * size_mm / out_px - 0.25))))
    big = out_px * oversample
    homographies = crop_homographies(calibration, centres, angles_deg, heights_mm, size_mm, big)
    out = np.empty((n, out_px, out_px, channels), np.uint8)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for i in range(n):
        crop = cv2.warpPerspective(image, homographies[i], (big, big), flags=flags, borderMode=cv2.BORDER_CONSTANT)
        if oversample > 1:
            crop = cv2.resize(crop, (out_px, out_px), interpolation=cv2.INTER_AREA)
        out[i] = crop.reshape(out_px, out_px, channels)
    return out
