"""Canonical crops of pieces: small squares of the ORIGINAL frame, sampled in each piece's own frame.

A crop is what a piece's top face looks like seen straight from above with its "up" toward the crop's top, at a
fixed resolution, whatever the camera's tilt, distance and lens. It is sampled through the calibration at the
height of the face (a coin on a tile is 6 mm up), so parallax does not shift it.

Why from the raw frame and not from the top-down view pieces are found in: the view is made at a low resolution
for finding pieces quickly; reading a coin's numeral needs the camera's full resolution. Over a 50 mm patch lens
distortion is a projective map to well under 0.1 px, so each piece's patch is one homography fitted to its four
corners (the corners themselves go through the full calibration, distortion included): :func:`piece_homographies`
maps a piece's local millimetres to raw pixels. The numba kernels of :mod:`vision.tiles` and :mod:`vision.coins`
sample the frame through them directly; :func:`sample_crops` makes the crops of many pieces with ONE
``cv2.remap`` (maps computed for all of them at once) and one area-averaging resize.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numba import njit

from calibration.table_calibration import Calibration

__all__ = ["piece_axes", "crop_corners_mm", "piece_homographies", "crop_homographies", "sample_crops",
           "sample_with"]


def piece_axes(angle_deg: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (table mm) of a piece's "right" and "down" axes for ``angle_deg`` clockwise (y down)."""
    a = np.radians(np.asarray(angle_deg, dtype=np.float64))
    # (filled in place, cos and sin taken once: np.stack's overhead was most of this on the ~70 calls a frame)
    cos, sin = np.cos(a), np.sin(a)
    right = np.empty(a.shape + (2,))
    down = np.empty(a.shape + (2,))
    right[..., 0], right[..., 1] = cos, sin
    down[..., 0], down[..., 1] = -sin, cos
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


def _four_point_homographies(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """(n, 3, 3) homographies taking the 4 points ``src`` (4, 2) to each ``dst[i]`` (4, 2): the batched linear
    solve of cv2.getPerspectiveTransform."""
    n = len(dst)
    a = np.zeros((n, 8, 8))
    b = np.zeros((n, 8))
    # the four points' rows at once (the same entries as one point at a time: the same products): 12 numpy
    # operations instead of 48
    x, y = src[:, 0], src[:, 1]
    u, v = dst[:, :, 0], dst[:, :, 1]
    a[:, :4, 0], a[:, :4, 1], a[:, :4, 2] = x, y, 1.0
    a[:, :4, 6], a[:, :4, 7] = -x * u, -y * u
    a[:, 4:, 3], a[:, 4:, 4], a[:, 4:, 5] = x, y, 1.0
    a[:, 4:, 6], a[:, 4:, 7] = -x * v, -y * v
    b[:, :4], b[:, 4:] = u, v
    h = np.linalg.solve(a, b[:, :, None])[:, :, 0]
    return np.concatenate([h, np.ones((n, 1))], axis=1).reshape(n, 3, 3)


def piece_homographies(
    calibration: Calibration,
    centres_mm: np.ndarray,
    angles_deg: np.ndarray,
    heights_mm: np.ndarray | float,
    size_mm: float,
) -> np.ndarray:
    """(n, 3, 3) homographies from a piece's local millimetres (x right, y down along the piece's axes, origin at
    its centre) to raw frame pixels, for the plane ``heights_mm`` above the table, exact at the corners of a
    square of ``size_mm`` around the centre."""
    corners = crop_corners_mm(centres_mm, angles_deg, size_mm)
    n = len(corners)
    if n == 0:
        return np.zeros((0, 3, 3))
    heights = np.broadcast_to(np.asarray(heights_mm, dtype=np.float64), (n,))
    pixels = calibration.table_to_pixel(corners.reshape(-1, 2), np.repeat(heights, 4)).reshape(n, 4, 2)
    half = size_mm / 2.0
    src = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return _four_point_homographies(src, pixels)


def crop_homographies(
    calibration: Calibration,
    centres_mm: np.ndarray,
    angles_deg: np.ndarray,
    heights_mm: np.ndarray | float,
    size_mm: float,
    out_px: int,
) -> np.ndarray:
    """(n, 3, 3) homographies from crop pixels (OpenCV convention, centres at integers) to raw frame pixels."""
    local = piece_homographies(calibration, centres_mm, angles_deg, heights_mm, size_mm)
    scale = size_mm / out_px
    to_local = np.array([[scale, 0.0, scale * 0.5 - size_mm / 2], [0.0, scale, scale * 0.5 - size_mm / 2],
                         [0.0, 0.0, 1.0]])
    return local @ to_local


@njit(cache=True, nogil=True)
def _maps(homographies, size_mm, out_px, first, count, map_x, map_y):  # pragma: no cover - numba
    """Remap maps of every piece's crop, stacked down: row i * count + r, column c samples local mm
    ((first + c + 0.5) * s - size / 2, (first + r + 0.5) * s - size / 2), s = size / out_px (pixels ``first`` ..
    ``first + count`` of an ``out_px`` crop, each computed exactly as in the whole crop)."""
    step = size_mm / out_px
    origin = 0.5 * step - size_mm / 2.0
    for i in range(homographies.shape[0]):
        # the homography's entries read once per crop (the maps may alias it as far as the compiler knows)
        h00, h01, h02 = homographies[i, 0, 0], homographies[i, 0, 1], homographies[i, 0, 2]
        h10, h11, h12 = homographies[i, 1, 0], homographies[i, 1, 1], homographies[i, 1, 2]
        h20, h21, h22 = homographies[i, 2, 0], homographies[i, 2, 1], homographies[i, 2, 2]
        for r in range(count):
            v = origin + (first + r) * step
            row = i * count + r
            for c in range(count):
                u = origin + (first + c) * step
                w = h20 * u + h21 * v + h22
                map_x[row, c] = (h00 * u + h01 * v + h02) / w
                map_y[row, c] = (h10 * u + h11 * v + h12) / w


def sample_with(image: np.ndarray, homographies: np.ndarray, size_mm: float, out_px: int,
                oversample: int = 1, window: tuple[int, int] | None = None) -> np.ndarray:
    """Crops (n, out_px, out_px, channels) uint8 of squares of ``size_mm`` in each piece's local millimetres
    (``homographies`` from :func:`piece_homographies`), ``oversample`` x ``oversample`` samples averaged per
    crop pixel (anti-aliasing when the frame has more pixels per mm than the crop). Outside the frame is black.
    ``window`` (first, count): only crop pixels ``first`` .. ``first + count`` along both axes, the same values
    as in the whole crop (n, count, count, channels): the middle of a crop made wide for a search, without it."""
    n = len(homographies)
    channels = 1 if image.ndim == 2 else image.shape[2]
    first, count = (0, out_px) if window is None else (int(window[0]), int(window[1]))
    if n == 0:
        return np.zeros((0, count, count, channels), np.uint8)
    big = count * oversample
    map_x = np.empty((n * big, big), np.float32)
    map_y = np.empty((n * big, big), np.float32)
    _maps(np.ascontiguousarray(homographies, dtype=np.float64), float(size_mm), out_px * oversample,
          first * oversample, big, map_x, map_y)
    stacked = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    if oversample > 1:  # whole blocks of oversample x oversample: each crop averages only its own samples
        stacked = cv2.resize(stacked, (count, n * count), interpolation=cv2.INTER_AREA)
    return stacked.reshape(n, count, count, channels)


def oversampling(calibration: Calibration, centre_mm: np.ndarray, size_mm: float, out_px: int) -> int:
    """Samples per crop pixel and axis so that the crop averages every frame pixel it covers (1 to 4)."""
    native = calibration.px_per_mm_at(np.asarray(centre_mm, float).reshape(2))
    return max(1, min(4, int(math.ceil(native * size_mm / out_px - 0.25))))


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
    channels = 1 if image.ndim == 2 else image.shape[2]
    if len(centres) == 0:
        return np.zeros((0, out_px, out_px, channels), np.uint8)
    if oversample is None:
        oversample = oversampling(calibration, centres[0], size_mm, out_px)
    homographies = piece_homographies(calibration, centres, angles_deg, heights_mm, size_mm)
    return sample_with(image, homographies, size_mm, out_px, oversample)
