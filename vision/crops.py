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


@njit(cache=True, nogil=True)
def _square_corners(centres, angles_deg, half, out):  # pragma: no cover - numba
    """out[i]: :func:`crop_corners_mm` of one square (the same sums; cos and sin from libm, not numpy's: they may
    differ in the last bit), without a dozen numpy calls on arrays of a few numbers."""
    for i in range(centres.shape[0]):
        a = angles_deg[i] * (math.pi / 180.0)
        cos = math.cos(a)
        sin = math.sin(a)
        for k in range(4):
            su = -1.0 if k == 0 or k == 3 else 1.0
            sv = -1.0 if k < 2 else 1.0
            out[i, k, 0] = centres[i, 0] + half * (su * cos + sv * -sin)
            out[i, k, 1] = centres[i, 1] + half * (su * sin + sv * cos)


@njit(cache=True, nogil=True)
def _square_homographies(corners, half, out):  # pragma: no cover - numba
    """out[i]: the homography (h22 = 1) taking the square of side 2 ``half`` centred on the origin (its corners
    top-left, top-right, bottom-right, bottom-left) to the quad ``corners[i]`` (4, 2), in closed form: the unit
    square's projective map to a quad (Heckbert, "Fundamentals of texture mapping", 1989, section 2.2.3), after
    the square's scaling to the unit one. The same map as cv2.getPerspectiveTransform's 8x8 solve (to rounding:
    a few 1e-16 relative); written out because a frame makes a dozen batches of 1-70 pieces, and numpy's batched
    solve cost 0.1-0.4 ms a batch where this costs microseconds."""
    k = 1.0 / (2.0 * half)
    for i in range(corners.shape[0]):
        x0, y0 = corners[i, 0, 0], corners[i, 0, 1]
        x1, y1 = corners[i, 1, 0], corners[i, 1, 1]
        x2, y2 = corners[i, 2, 0], corners[i, 2, 1]
        x3, y3 = corners[i, 3, 0], corners[i, 3, 1]
        sx = x0 - x1 + x2 - x3
        sy = y0 - y1 + y2 - y3
        dx1 = x1 - x2
        dx2 = x3 - x2
        dy1 = y1 - y2
        dy2 = y3 - y2
        den = dx1 * dy2 - dx2 * dy1
        g = (sx * dy2 - dx2 * sy) / den
        h = (dx1 * sy - sx * dy1) / den
        a = x1 - x0 + g * x1
        b = x3 - x0 + h * x3
        d = y1 - y0 + g * y1
        e = y3 - y0 + h * y3
        # unit square (u, v) = (x / (2 half) + 1/2, y / (2 half) + 1/2), then h22 brought to 1
        scale = 1.0 / (0.5 * (g + h) + 1.0)
        out[i, 0, 0] = a * k * scale
        out[i, 0, 1] = b * k * scale
        out[i, 0, 2] = (0.5 * (a + b) + x0) * scale
        out[i, 1, 0] = d * k * scale
        out[i, 1, 1] = e * k * scale
        out[i, 1, 2] = (0.5 * (d + e) + y0) * scale
        out[i, 2, 0] = g * k * scale
        out[i, 2, 1] = h * k * scale
        out[i, 2, 2] = 1.0


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
    centres = np.ascontiguousarray(np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2))
    n = len(centres)
    if n == 0:
        return np.zeros((0, 3, 3))
    angles = np.ascontiguousarray(np.broadcast_to(np.asarray(angles_deg, dtype=np.float64).reshape(-1), (n,)))
    corners = np.empty((n, 4, 2))
    _square_corners(centres, angles, size_mm / 2.0, corners)
    heights = np.asarray(heights_mm, dtype=np.float64)
    if heights.ndim:  # one per piece: one per corner
        heights = np.repeat(np.broadcast_to(heights.reshape(-1), (n,)), 4)
    pixels = calibration.table_to_pixel(corners.reshape(-1, 2), heights).reshape(n, 4, 2)
    out = np.empty((n, 3, 3))
    _square_homographies(np.ascontiguousarray(pixels, dtype=np.float64), size_mm / 2.0, out)
    return out


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


# error_model="numpy": a float division is IEEE's, without the check for a zero divisor that numba's default
# ("python": raise ZeroDivisionError) puts before each one; that branch kept LLVM from vectorising the row loop.
# The same divisions, products and sums (no fastmath), so the same maps bit for bit (a sample's w is never 0: a
# crop's corners lie in front of the camera); 4x faster (29 tile crops' maps: 500 -> 120 us)
@njit(cache=True, nogil=True, error_model="numpy")
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
    stacked = _remap(image, map_x, map_y)
    if oversample > 1:  # whole blocks of oversample x oversample: each crop averages only its own samples
        stacked = cv2.resize(stacked, (count, n * count), interpolation=cv2.INTER_AREA)
    if stacked.ndim == 3 and stacked.shape[2] != channels:  # the 4-channel copy's fourth channel dropped
        stacked = cv2.cvtColor(stacked, cv2.COLOR_BGRA2BGR)  # (20 times faster than numpy's strided copy)
    return stacked.reshape(n, count, count, channels)


_FOUR_CHANNEL_SAMPLES = 50_000  # see _remap: a batch of 34 tile crops has 217k samples, one crop 6-9k


def _remap(image: np.ndarray, map_x: np.ndarray, map_y: np.ndarray) -> np.ndarray:
    """``cv2.remap(image, map_x, map_y, INTER_LINEAR, BORDER_CONSTANT)`` (float maps, black outside). A colour
    frame is remapped as a 4-channel copy of just the part the maps read (a fourth channel after the three): in
    OpenCV 5 remap's 4-channel path takes about half the time of its 3-channel one (34 tile crops: 1.4 against
    2.6 ms, measured here), and each channel's samples are the same, bit for bit. Shifting the maps by a whole
    pixel is exact in float32 (the difference is a multiple of the coordinate's last bit, and no larger), and
    every pixel a sample's four taps read lies in the part copied, so the result is what the whole frame gave.
    The maps are shifted in place (the caller's own). The copy is made only where it costs less than it saves:
    for large batches (a few crops gain nothing), and where the part read, in pixels, is under four times the
    samples (crops far apart read a large part)."""
    if image.ndim == 3 and image.shape[2] == 3 and map_x.size >= _FOUR_CHANNEL_SAMPLES:
        h, w = image.shape[:2]
        lo_x, hi_x = float(map_x.min()), float(map_x.max())
        lo_y, hi_y = float(map_y.min()), float(map_y.max())
        if math.isfinite(lo_x + hi_x + lo_y + hi_y):
            x0, y0 = max(0, math.floor(lo_x)), max(0, math.floor(lo_y))
            x1, y1 = min(w, math.floor(hi_x) + 2), min(h, math.floor(hi_y) + 2)  # a sample reads x and x + 1
            if x0 < x1 and y0 < y1 and (x1 - x0) * (y1 - y0) < 4 * map_x.size:
                part = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2BGRA)
                if x0:
                    map_x -= np.float32(x0)
                if y0:
                    map_y -= np.float32(y0)
                return cv2.remap(part, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


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
