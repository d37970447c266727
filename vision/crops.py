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
           "sample_with", "HalfFrame"]


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


_HALF_BLOCK = 32  # HalfFrame: half-frame pixels per block side (a tile crop's square spans 2-3 blocks)


class HalfFrame:
    """A frame halved by 2 x 2 block means (``cv2.resize`` to half the size, ``INTER_AREA``), made only where crops
    read it. An exact halving averages each output pixel's own 2 x 2 pixels alone, so a part resized on its own is
    the whole frame's resize there, bit for bit (checked in the tests); the tile crops of a full Easy Slider frame
    read a fifth of it (boards 500-505: 17-24% of its 32-pixel blocks), and the whole halving cost 0.55 ms a
    frame at 1640 x 1232. A frame of odd width or height is halved whole (its resize is no exact halving)."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        h, w = image.shape[0] // 2, image.shape[1] // 2
        if image.shape[0] % 2 or image.shape[1] % 2:
            self.pixels = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
            self._made = None
            return
        # (zeros: pages the crops never read are never touched)
        self.pixels = np.zeros((h, w) + image.shape[2:], np.uint8)
        self._made = np.zeros((-(-h // _HALF_BLOCK), -(-w // _HALF_BLOCK)), bool)

    def read_by(self, homographies: np.ndarray, size_mm: float) -> np.ndarray:
        """The half frame, made at least wherever crops of ``size_mm`` through ``homographies`` (piece mm -> half
        frame pixels) read it: around each crop square's corners' bounding box (a square's image is the quad of
        its corners' images; two pixels more each way for the bilinear taps and the maps' float32 rounding)."""
        if self._made is None or len(homographies) == 0:
            return self.pixels
        half = size_mm / 2.0
        square = np.array([[-half, half, half, -half], [-half, -half, half, half], [1.0, 1.0, 1.0, 1.0]])
        corners = np.asarray(homographies, np.float64) @ square  # (n, 3, 4)
        w = corners[:, 2]
        if not (np.all(np.isfinite(corners)) and np.all(w > 0)):  # a corner behind the camera: no quad bound
            self._make(0, 0, self._made.shape[1], self._made.shape[0])
            return self.pixels
        x, y = corners[:, 0] / w, corners[:, 1] / w
        h, width = self.pixels.shape[:2]
        x0, x1 = max(0, math.floor(x.min()) - 2), min(width, math.floor(x.max()) + 4)
        y0, y1 = max(0, math.floor(y.min()) - 2), min(h, math.floor(y.max()) + 4)
        if x0 < x1 and y0 < y1:
            b = _HALF_BLOCK
            self._make(x0 // b, y0 // b, (x1 - 1) // b + 1, (y1 - 1) // b + 1)
        return self.pixels

    def _make(self, bx0: int, by0: int, bx1: int, by1: int) -> None:
        """The blocks [by0, by1) x [bx0, bx1) made: each row of blocks' span from its first block not made to its
        last resized at once (blocks made already in between are made again, the same values)."""
        b = _HALF_BLOCK
        h, w = self.pixels.shape[:2]
        for by in range(by0, by1):
            todo = np.flatnonzero(~self._made[by, bx0:bx1])
            if not len(todo):
                continue
            c0, c1 = bx0 + int(todo[0]), bx0 + int(todo[-1]) + 1
            r0, r1, x0, x1 = by * b, min(h, (by + 1) * b), c0 * b, min(w, c1 * b)
            self.pixels[r0:r1, x0:x1] = cv2.resize(self.image[2 * r0 : 2 * r1, 2 * x0 : 2 * x1], (x1 - x0, r1 - r0),
                                                   interpolation=cv2.INTER_AREA)
            self._made[by, c0:c1] = True


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
