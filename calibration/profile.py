"""The piece-set profile: what one piecepack edition looks like, learned by ``tableside teach``.

A profile is a versioned JSON file (``set.json``). Its numeric models (classifier templates, die face crops)
are stored inside the same file as a base64-encoded compressed ``.npz``, so one file is all a user keeps.
Every problem with a file is a :class:`~calibration.errors.CalibrationError` whose one-line message says what
to do (missing, not JSON, another kind of file, another version, damaged arrays).

Why the feature functions live here and not in ``vision``: a profile's templates only mean something together
with the exact way a crop is turned into a vector (:func:`tile_features`, :func:`coin_features`). Keeping the
two in one module versions them together (``FEATURES``), and lets ``calibration.teach`` build templates
without importing ``vision`` (imports flow tableside -> vision -> calibration).

Crops (made by :mod:`vision.crops`) are BGR images of a piece's top face sampled through the calibration in
the piece's own frame (its "up" toward the crop's top):

* tiles: ``TILE_CROP_PX`` square covering ``TILE_CROP_MM`` (the face minus a thin margin, so a pose error of a
  millimetre never brings the table into the crop);
* coins: ``COIN_CROP_PX`` square covering ``COIN_CROP_MM`` (the disc and a thin ring of what it lies on).

Features are von Kries colour ratios: each channel is divided by the crop's own median (the face's dominant
colour) and logged. A change of light colour or exposure multiplies every channel of the crop by a constant,
which cancels; what stays is the ink relative to the face it is printed on (red ink on white, white ink on a
red face...), which is what tells suits and ranks apart in every edition. Vectors are zero-mean, unit-norm,
so the dot product with a template is the normalised cross-correlation.

Fields that other modules read (agreed with ``vision.figures``; all in :class:`PieceSetProfile`):

* ``suit_colors``: suit -> BGR (0-255) of that suit's pawn as seen in the teach photo (``pawn_colors``), the
  die colour where no pawn was seen; ``die_colors`` suit -> BGR of the die faces;
  ``white_bgr``: the tile face / paper white of the teach photo under the same light, to compare colours
  taken under another light (divide by the frame's white, multiply by this);
* ``die_templates``: rank -> grey crop (uint8, top of the die up) of the die faces the teach photo showed,
  ``rank_templates``: rank -> grey "ink" crop (uint8, 255 = ink) of the rank mark of the tiles (null's
  included), usable to read die faces that the teach photo did not show;
* ``pawn_height_mm``, ``pawn_base_mm``: the pawn size (nominal unless measured), ``pyramid_colors``: None
  (pyramids are not taught);
* ``tile_thickness_mm``, ``coin_thickness_mm``: nominal heights of the top faces (used for parallax);
  ``tile_frame_mm``: how much smaller than the tile the strongest square outline of its face is (a printed frame
  inside the edge; 0 when the edge itself is), measured by teach; ``coin_rim_taps``: the coins' radial signature,
  (radius mm, weight) of the concentric edges every coin shows (a printed ring, the rim; weight < 0 where the
  brightness falls outward), measured by teach; ``taught["coin_face_chroma"]``: the value side's face colour
  relative to the teach photo's white (:func:`face_chroma`; absent from profiles taught before it, or whose coins
  were photographed without the tiles' faces: then no blank face is judged by its colour).

A profile may also hold ``tile_marks``: the middle of each tile face (its rank mark, ``MARK_CROP_MM`` square) at
about the camera's own resolution (``MARK_CROP_PX``), with the margin teach measured a reading of it needs. The
detector takes this second look only at the few tiles whose whole-face reading leaves two or more ranks close
(a bold 3 and 5 blur alike at the tile crop's 0.85 px/mm). Profiles taught before it lack it and still load:
their unclear tiles stay unclear.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numba import njit

from calibration.errors import CalibrationError
from rules.pieces import COIN_MM, SUITS, TILE_MM, Suit

__all__ = [
    "PROFILE_VERSION",
    "PROFILE_KIND",
    "FEATURES",
    "TILE_CROP_PX",
    "TILE_CROP_MM",
    "COIN_CROP_PX",
    "COIN_CROP_MM",
    "COIN_RINGS",
    "COIN_ANGLES",
    "ClassModel",
    "PieceSetProfile",
    "tile_features",
    "coin_features",
    "coin_polar",
    "coin_sharpness",
    "coin_face_colour",
    "face_chroma",
    "tile_raw",
    "turned_tile_features",
    "tile_scores",
    "coin_correlations",
    "load_profile",
    "save_profile",
    "default_profile",
    "DEFAULT_PROFILE_PATH",
    "COIN_SHARPNESS_SHARE",
    "MARK_CROP_MM",
    "MARK_CROP_PX",
    "mark_raw",
    "mark_features",
    "mark_scores",
    "CoinSymbolFit",
    "coin_ink_image",
    "coin_symbol_template",
    "fit_coin_symbol",
    "coin_symbol_level",
    "SYMBOL_CROP_BLUR_MM",
]

PROFILE_VERSION = 1
PROFILE_KIND = "tableside-piece-set"
FEATURES = "logratio-opponent-highpass-v2"  # a profile with other features must be taught again

TILE_CROP_PX = 40
TILE_CROP_MM = TILE_MM - 3.0  # 1.5 mm margin each side
COIN_CROP_PX = 44
COIN_CROP_MM = 22.0
MARK_CROP_MM = 24.0  # a tile's rank mark: the middle of the face, inside the corner symbols
MARK_CROP_PX = 40  # 1.67 px/mm: about the camera's own resolution at a tile (1.2-1.7 px/mm) and teach's (1.5)
COIN_RINGS = 10  # radial samples of the polar coin feature, between _COIN_R0 and _COIN_R1 mm
COIN_ANGLES = 64  # angular samples (5.625 degrees apart): a coin's rotation is a circular shift
_COIN_R0 = 0.6
_COIN_R1 = 0.44 * COIN_MM  # inside the printed rim and the bevel

DEFAULT_PROFILE_PATH = Path(__file__).with_name("data") / "default_profile.json"

_TILE_HIGH_PASS_PX = 8.0  # cells of about 10 mm on a tile crop
_COIN_HIGH_PASS_PX = 8.0  # 4 mm on a coin crop
_LOG_LOW, _LOG_HIGH = -2.5, 1.2  # clip of log colour ratios: saturated glare or deep shadow stop counting
_OFFSET = 6.0  # added before the log so that sensor noise in dark ink does not explode
_LOW_SCORE_MARGIN = 0.5  # extra margin per unit of score below the typical right score
COIN_SHARPNESS_SHARE = 0.8  # no coin is read far blurrier than this share of its face's taught sharpness
_TRUSTED_DEFICIT = 0.22  # how far below the typical right score a reading may be and still be trusted


# ------------------------------------------------------------------------------------------------------------
# Features
# ------------------------------------------------------------------------------------------------------------
def _log_ratio(crops: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(n, h, w, 3) BGR -> log(colour / the crop's median colour), clipped; float32."""
    if isinstance(crops, np.ndarray) and crops.dtype == np.uint8 and crops.ndim == 4 \
            and crops.shape[3] == 3 and crops.shape[0] and crops.shape[1] and crops.shape[2] \
            and (mask is None or (mask.dtype == np.bool_ and mask.shape == crops.shape[1:3]
                                  and bool(mask[::2, ::2].any()))):
        return _log_ratio_bytes(crops, mask)
    x = np.asarray(crops, dtype=np.float32) + _OFFSET
    # the median of every other pixel in both directions: as good a reference, a quarter of the sorting
    flat = x[:, ::2, ::2].reshape(len(x), -1, 3) if mask is None else x[:, ::2, ::2][:, mask[::2, ::2], :]
    ordered = np.sort(flat, axis=1)  # (np.median along this axis is ten times slower)
    k = ordered.shape[1]
    ref = 0.5 * (ordered[:, (k - 1) // 2] + ordered[:, k // 2])  # (n, 3)
    n, h, w = x.shape[:3]
    out = np.log(x.reshape(n, h, w * 3))
    out -= np.tile(np.log(ref), w)[:, None, :]  # rows of w * 3: numpy broadcasting over a last axis of 3 is slow
    np.clip(out, _LOG_LOW, _LOG_HIGH, out=out)
    return out.reshape(n, h, w, 3)


# np.log of every byte value plus the offset, as np.log gives it element by element in an array of them (its float32
# log is the same at every position of an array: checked on every value in the tests)
_LOG_OF_BYTES = np.log(np.arange(256, dtype=np.float32) + np.float32(_OFFSET))


@njit(cache=True, nogil=True)
def _counted_median(counts, total):  # pragma: no cover - numba
    """The median (of the middle two, halved) plus the offset, as float32, of ``total`` byte samples counted in
    ``counts`` (256 bins): the order statistics of bytes are bytes; their float32 sums and halving are exact."""
    low_rank, high_rank = (total - 1) // 2, total // 2
    low, high, seen = -1, -1, 0
    for v in range(256):
        seen += counts[v]
        if low < 0 and seen > low_rank:
            low = v
        if seen > high_rank:
            high = v
            break
    return np.float32(0.5) * ((np.float32(low) + np.float32(6.0)) + (np.float32(high) + np.float32(6.0)))


@njit(cache=True, nogil=True)
def _byte_medians(crops, step, out):  # pragma: no cover - numba
    """out[i, c]: the median (:func:`_counted_median`) of channel c of crop i's pixels ``step`` apart both ways,
    plus the offset, as float32: from a 256-bin count, where a sort or partition of each crop's samples cost most
    of :func:`_log_ratio`."""
    counts = np.zeros(256, np.int64)
    for i in range(crops.shape[0]):
        for c in range(3):
            counts[:] = 0
            total = 0
            for y in range(0, crops.shape[1], step):
                for x in range(0, crops.shape[2], step):
                    counts[crops[i, y, x, c]] += 1
                    total += 1
            out[i, c] = _counted_median(counts, total)


@njit(cache=True, nogil=True)
def _masked_byte_medians(crops, samples, out):  # pragma: no cover - numba
    """As :func:`_byte_medians` with step 2, over the pixels where ``samples`` (the mask's every other row and
    column) is set: a coin crop's disc."""
    counts = np.zeros(256, np.int64)
    for i in range(crops.shape[0]):
        for c in range(3):
            counts[:] = 0
            total = 0
            for y in range(samples.shape[0]):
                for x in range(samples.shape[1]):
                    if samples[y, x]:
                        counts[crops[i, 2 * y, 2 * x, c]] += 1
                        total += 1
            out[i, c] = _counted_median(counts, total)


@njit(cache=True, nogil=True)
def _byte_log_ratios(crops, table, log_refs, low, high, out):  # pragma: no cover - numba
    """out[i, y, x, c] = table[crops[i, y, x, c]] - log_refs[i, c], clipped to [low, high]: float32 throughout (the
    same subtraction and clip as numpy's)."""
    for i in range(crops.shape[0]):
        for y in range(crops.shape[1]):
            for x in range(crops.shape[2]):
                for c in range(3):
                    v = table[crops[i, y, x, c]] - log_refs[i, c]
                    out[i, y, x, c] = min(max(v, low), high)


def _log_ratio_bytes(crops: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """:func:`_log_ratio` of uint8 crops (n, h, w, 3), bit for bit: the medians counted (:func:`_byte_medians`;
    with a mask, over its pixels: :func:`_masked_byte_medians`) and each pixel's log looked up (``_LOG_OF_BYTES``)
    instead of sorted and computed; the medians' logs by np.log as before. The tile reader's crops (some 50 a
    frame, and each searched window): 4-8 times faster; a coin crop's disc (its polar features, its face's share):
    about 3 times."""
    crops = np.ascontiguousarray(crops)
    refs = np.empty((crops.shape[0], 3), np.float32)
    if mask is None:
        _byte_medians(crops, 2, refs)
    else:
        _masked_byte_medians(crops, np.ascontiguousarray(mask[::2, ::2], dtype=np.bool_), refs)
    out = np.empty(crops.shape, np.float32)
    _byte_log_ratios(crops, _LOG_OF_BYTES, np.log(refs), np.float32(_LOG_LOW), np.float32(_LOG_HIGH), out)
    return out


_OPPONENT = np.array(
    [
        [1 / 3, 1 / 3, 1 / 3],  # lightness
        [0.0, -1.2, 1.2],  # red - green
        [1.2, -0.6, -0.6],  # blue - yellow
    ],
    dtype=np.float32,
).T  # BGR logs @ this -> (lightness, red-green, blue-yellow)
_OPPONENT_ROWS = np.ascontiguousarray(_OPPONENT.T)  # the same as cv2.transform's matrix


def _opponent(logs: np.ndarray) -> np.ndarray:
    """Log colour ratios (..., 3 BGR) -> lightness and two colour-difference channels. Black and red ink differ
    only in the red log ratio; in these channels they differ in both colour channels (black has none), so
    suits are told apart by colour as much as by darkness."""
    logs = np.ascontiguousarray(logs, dtype=np.float32)
    flat = logs.reshape(-1, logs.shape[-2] if logs.ndim > 2 else 1, 3)
    return cv2.transform(flat, _OPPONENT_ROWS).reshape(logs.shape)  # a 3x3 per pixel: numpy's matmul is 10x slower


def _normalise(vectors: np.ndarray) -> np.ndarray:
    v = vectors - vectors.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return (v / np.maximum(norm, 1e-6)).astype(np.float32)


def _high_pass(images: np.ndarray, scale_px: float) -> np.ndarray:
    """Subtract each channel's low-pass (the image shrunk to cells of ``scale_px`` and enlarged back): light that
    changes across a piece (a lamp to one side, vignetting) is slow; ink is sharp. Without this a light gradient
    correlates with whatever template happens to share it. (Shrink and enlarge: a tenth of a large blur's cost;
    two cv2.resize per image beat any batched numpy form of the same linear map; where the cells are whole
    pixels, three cv2.resize of the whole batch do, bit for bit: see _high_pass_batched.)"""
    h, w = images.shape[1:3]
    small = (max(2, int(round(w / scale_px))), max(2, int(round(h / scale_px))))
    if len(images) > 1 and h % small[1] == 0 and w % small[0] == 0:
        return _high_pass_batched(images, small)
    out = np.empty_like(images)
    for i, image in enumerate(images):
        low = cv2.resize(cv2.resize(image, small, interpolation=cv2.INTER_AREA), (w, h), interpolation=cv2.INTER_LINEAR)
        out[i] = image - low
    return out


def _high_pass_batched(images: np.ndarray, small: tuple[int, int]) -> np.ndarray:
    """:func:`_high_pass` of a batch (n, h, w[, channels]) whose low-pass cells (``small``: columns, rows) are
    whole blocks of pixels, with every value what the per-image resizes give, bit for bit (checked in the tests):
    the images stacked down are shrunk at once (whole-block area means never mix two images), enlarged along rows
    (a resize keeping the height: its vertical step weighs one row 1 and the next 0, exact), then laid side by
    side and enlarged along columns (a resize keeping the width) with each image's own edges. A batch of 34 tile
    crops: 1.6x faster than resizing each."""
    n, h, w = images.shape[:3]
    channels = images.shape[3] if images.ndim == 4 else 1
    sw, sh = small
    stacked = np.ascontiguousarray(images).reshape(n * h, w, channels)
    shrunk = cv2.resize(stacked, (sw, n * sh), interpolation=cv2.INTER_AREA).reshape(n * sh, sw, channels)
    wide = cv2.resize(shrunk, (w, n * sh), interpolation=cv2.INTER_LINEAR).reshape(n, sh, w, channels)
    side = np.ascontiguousarray(wide.transpose(1, 0, 2, 3)).reshape(sh, n * w, channels)
    tall = cv2.resize(side, (n * w, h), interpolation=cv2.INTER_LINEAR).reshape(h, n, w, channels)
    return images - tall.transpose(1, 0, 2, 3).reshape(images.shape)


def tile_raw(crops: np.ndarray) -> np.ndarray:
    """Tile crops (n, TILE_CROP_PX, TILE_CROP_PX, 3) -> unnormalised features (n, TILE_CROP_PX, TILE_CROP_PX, 3)."""
    crops = np.asarray(crops)
    if crops.ndim == 3:
        crops = crops[None]
    return _high_pass(_opponent(_log_ratio(crops)), _TILE_HIGH_PASS_PX)


def mark_raw(crops: np.ndarray) -> np.ndarray:
    """Rank-mark crops (n, MARK_CROP_PX, MARK_CROP_PX, 3) -> unnormalised features of the same shape (the tile
    crop's features: log colour ratios to the crop's median, opponent channels, high-passed over 5 mm cells)."""
    crops = np.asarray(crops)
    if crops.ndim == 3:
        crops = crops[None]
    return _high_pass(_opponent(_log_ratio(crops)), _TILE_HIGH_PASS_PX)


def mark_features(crops: np.ndarray) -> np.ndarray:
    """Rank-mark crops -> (n, 3 * MARK_CROP_PX**2) unit vectors."""
    raw = mark_raw(crops)
    return _normalise(raw.reshape(len(raw), -1))


def mark_scores(windows: np.ndarray, templates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank-mark crops (n, MARK_CROP_PX, MARK_CROP_PX, 3) against unit templates (t, d) at the four quarter turns:
    the best correlation (n, t) and its turn (k quarter turns clockwise: the crop turned back by ``np.rot90(k)``
    shows the template upright). Each crop's own features, as teach computes them."""
    n = MARK_CROP_PX
    raw = mark_features(windows).reshape(len(windows), n, n, 3)
    turned = np.stack([np.rot90(raw, k, axes=(1, 2)).reshape(len(raw), -1) for k in range(4)], axis=1)
    scores = turned @ templates.T  # (n, 4, t)
    return scores.max(axis=1), scores.argmax(axis=1)


def tile_features(crops: np.ndarray) -> np.ndarray:
    """Tile crops (n, TILE_CROP_PX, TILE_CROP_PX, 3) -> (n, 3 * TILE_CROP_PX**2) unit vectors."""
    raw = tile_raw(crops)
    return _normalise(raw.reshape(len(raw), -1))


@lru_cache(maxsize=4)
def _polar_maps(size_px: int, crop_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cv2.remap maps (COIN_RINGS, COIN_ANGLES) from a coin crop to polar samples, and the disc mask."""
    p = size_px / crop_mm
    centre = (size_px - 1) / 2.0
    radii = np.linspace(_COIN_R0, _COIN_R1, COIN_RINGS) * p
    # angle 0 = up (-y), clockwise: the convention of angle_deg
    angles = np.arange(COIN_ANGLES) * (2 * math.pi / COIN_ANGLES)
    map_x = (centre + radii[:, None] * np.sin(angles)[None, :]).astype(np.float32)
    map_y = (centre - radii[:, None] * np.cos(angles)[None, :]).astype(np.float32)
    yy, xx = np.mgrid[0:size_px, 0:size_px]
    disc = np.hypot(xx - centre, yy - centre) <= _COIN_R1 * p
    return map_x, map_y, disc


@lru_cache(maxsize=4)
def _polar_matrix(size_px: int, crop_mm: float):
    """The polar samples of :func:`_polar_maps` (bilinear) as a sparse (size_px**2, COIN_RINGS * COIN_ANGLES)
    matrix over a crop's flattened pixels: one sparse product samples a whole batch."""
    from scipy.sparse import csr_matrix

    map_x, map_y, _ = _polar_maps(size_px, crop_mm)
    x = np.clip(map_x.ravel().astype(np.float64), 0, size_px - 1.0001)
    y = np.clip(map_y.ravel().astype(np.float64), 0, size_px - 1.0001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    index = np.stack([y0 * size_px + x0, y0 * size_px + x0 + 1, (y0 + 1) * size_px + x0,
                      (y0 + 1) * size_px + x0 + 1], axis=1)
    weight = np.stack([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy], axis=1).astype(np.float32)
    samples = np.repeat(np.arange(len(x)), 4)
    return csr_matrix((weight.ravel(), (index.ravel(), samples)), shape=(size_px * size_px, len(x))).T.tocsr()


def coin_polar(crops: np.ndarray) -> np.ndarray:
    """Coin crops (n, COIN_CROP_PX, COIN_CROP_PX, 3) -> polar log-ratio images (n, 3, COIN_RINGS, COIN_ANGLES).

    Ring ``r``, angle ``a`` samples the point ``a * 360 / COIN_ANGLES`` degrees clockwise from the crop's up.
    """
    crops = np.asarray(crops)
    if crops.ndim == 3:
        crops = crops[None]
    n, size = len(crops), crops.shape[1]
    crop_mm = COIN_CROP_MM * size / COIN_CROP_PX
    _, _, disc = _polar_maps(size, crop_mm)
    logs = _high_pass(_opponent(_log_ratio(crops, disc)), _COIN_HIGH_PASS_PX * size / COIN_CROP_PX)
    planes = np.ascontiguousarray(logs.transpose(0, 3, 1, 2)).reshape(n * 3, size * size)
    samples = (_polar_matrix(size, crop_mm) @ planes.T).T  # (n * 3, rings * angles)
    return np.ascontiguousarray(samples, dtype=np.float32).reshape(n, 3, COIN_RINGS, COIN_ANGLES)


@lru_cache(maxsize=2)
def _quarter_turns(size: int) -> np.ndarray:
    index = np.arange(size * size * 3).reshape(size, size, 3)
    return np.stack([np.rot90(index, k, axes=(0, 1)).reshape(-1) for k in range(4)])


def turned_tile_features(features: np.ndarray) -> np.ndarray:
    """Tile feature vectors (n, d) -> (n, 4, d): the crop turned back by k quarter turns (k = 0..3).

    A tile whose face is turned k quarter turns clockwise from the crop's up shows, after turn k, its
    upright face; so ``scores[:, k, t]`` peaks at the face's turn."""
    size = int(round(math.sqrt(features.shape[1] / 3)))
    return features[:, _quarter_turns(size)]


def tile_scores(features: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """(n, 4, t) correlations of tile features at each quarter turn with unit templates (t, d)."""
    return turned_tile_features(features) @ templates.T


def coin_correlations(features: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """(n, t, COIN_ANGLES) correlations of coin features (n, d) with templates (t, d) at every rotation:
    entry ``[i, j, k]`` is the crop turned back by k steps against template j (a coin turned k steps
    clockwise from the crop's up peaks at k)."""
    a = np.fft.rfft(features.reshape(len(features), -1, COIN_ANGLES), axis=-1)
    b = np.conj(np.fft.rfft(templates.reshape(len(templates), -1, COIN_ANGLES), axis=-1))
    return np.fft.irfft(np.einsum("nrf,trf->ntf", a, b), n=COIN_ANGLES, axis=-1)


def _sorted_percentile(ordered: np.ndarray, q: float) -> float:
    """np.percentile(values, q) (linear interpolation) of values already sorted (1-D)."""
    position = q / 100.0 * (len(ordered) - 1)
    below = int(math.floor(position))
    above = min(below + 1, len(ordered) - 1)
    return float(ordered[below]) + (position - below) * (float(ordered[above]) - float(ordered[below]))


def coin_sharpness(crop: np.ndarray) -> float:
    """How sharp a coin crop is: the mean gradient inside the disc over the disc's contrast (a blurred numeral
    keeps its contrast but loses its edges). Teach records the taught coins' value; much less means too blurred
    to tell a numeral from a symbol."""
    size = crop.shape[0]
    grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    _, _, disc = _polar_maps(size, COIN_CROP_MM * size / COIN_CROP_PX)
    values = np.sort(grey[disc])  # the 5th and 95th percentiles (numpy's linear rule) from one sort: a fifth of
    low, high = _sorted_percentile(values, 5.0), _sorted_percentile(values, 95.0)  # two np.percentile calls
    contrast = high - low + 10.0
    return float(np.mean(cv2.magnitude(gx, gy)[disc])) / contrast


_FACE_DISC_MM = 6.4  # a coin's face inside its rim (8.2 mm), a millimetre's margin for a centre fitted off
_FACE_RING_MM = 5.6  # ... and outside the print of a numeral or symbol (to 5.3 mm)


def coin_face_colour(crop: np.ndarray, size_mm: float, ring: bool = False) -> np.ndarray:
    """The median colour (BGR) of a coin's face in a crop centred on it (``size_mm`` across): its disc inside the
    rim (a blank face), or with ``ring`` only the ring between its print and its rim (a face printed in the middle:
    what teach measures on the value side's coins)."""
    x = np.asarray(crop, np.float64).reshape(crop.shape[0], crop.shape[1], -1)
    centre = (x.shape[0] - 1) / 2.0
    y_px, x_px = np.mgrid[0 : x.shape[0], 0 : x.shape[1]]
    r = np.hypot(x_px - centre, y_px - centre) * size_mm / x.shape[0]
    inside = (r < _FACE_DISC_MM) & (r >= (_FACE_RING_MM if ring else 0.0))
    return np.median(x[inside], axis=0)


def face_chroma(colour_bgr: np.ndarray, white_bgr: np.ndarray) -> np.ndarray:
    """(log G/R, log B/R) of ``colour_bgr`` minus those of ``white_bgr`` (the white under the same light): the
    colour's chromaticity relative to the light's. A light's colour multiplies a face and the white alike (the
    von Kries model of the features above), and a face's brightness (shade, exposure) scales its channels alike:
    both cancel."""
    logs = np.log(np.maximum(np.asarray(colour_bgr, np.float64), 1.0)) - np.log(
        np.maximum(np.asarray(white_bgr, np.float64), 1.0))
    return np.array([logs[1] - logs[2], logs[0] - logs[2]])


def coin_features(crops: np.ndarray) -> np.ndarray:
    """Coin crops -> (n, 3 * COIN_RINGS * COIN_ANGLES) unit vectors of the polar log-ratio image. Turning the
    coin by ``k * 360 / COIN_ANGLES`` degrees rolls each ring's samples by ``k``."""
    polar = coin_polar(crops)
    return _normalise(polar.reshape(len(polar), -1))


# ------------------------------------------------------------------------------------------------------------
# A coin's printed symbol: its size (twins: a symbol ace and its suit side)
# ------------------------------------------------------------------------------------------------------------
# Some sets print a coin's value-side ace as its suit's symbol, a little smaller than on the suit side (the
# rendered classic and bold editions: 0.625 vs 0.66 of the coin, 0.35 mm at the symbol's edge, half a camera
# pixel). The polar features cannot tell them apart; the symbol's size can. Size is confounded with blur (a
# blurred symbol's ink spreads: its second moment grows by 2 sigma^2) and with the ink's contrast (glare, the tone
# curve's shoulder), and moments of a soft ink mask did not separate the twins (d' 0.3-2.4 on the bench crops), so
# the size is fitted: the crop's ink image is modelled as the taught symbol scaled by ``s``, turned, shifted and
# blurred by a Gaussian, times a gain, bent by a tone curve, over a face shading linearly, plus whatever is round
# beyond the symbol (a printed rim). Blur, gain, tone and shading are free, so ``s`` is the print's size, not the
# frame's blur or light. The tone curve matters most: a camera's tone curve (its knee, the room's exposure) moves
# where a blurred edge crosses half the ink, the same for every coin of a frame, and a linear ink model read that
# as size (bench twins of one frame fitted 2-8 % small together, coin grid 1027; d' ace vs suit side 1.5-2.6). A
# term m (1 - m) of the blurred symbol m, solved linearly with the gain, bends the edge's profile as the tone curve
# does: d' 5.6-9.0 on the same crops (twins-11's handoff).
# Teach (which cannot import vision) fits its own ace and suit side with it: the references.
_SYM_PX_PER_MM = COIN_CROP_PX / COIN_CROP_MM  # the coin crop's sampling (2 px/mm)
_SYM_UP = 2  # the sharp symbol's sampling: this many times the crop's
_SYM_FACE_RING_MM = (6.9, 7.6)  # the face around the symbol (inside a printed rim at 8.2 mm)
_SYM_INK_DISC_MM = 6.9  # the symbol lies inside this radius
_SYM_FIT_DISC_MM = 8.8  # the pixels fitted (round the symbol's centre)
_SYM_RIM_BUMPS_MM = np.array([8.2, 8.6, 9.0])  # radial bumps fitted linearly beyond the symbol (a rim, the coin's edge)
_SYM_RIM_BUMP_SIGMA_MM = 0.15
_SYM_TEACH_BLUR_MM = 0.45  # about a teach photo's blur at a coin (the taught symbol keeps it)
_SYM_INK_SHARE = 0.05  # the crop's most ink-like pixels giving the ink colour
_SYM_START_SCALE = 0.97  # between an ace (about 0.95) and a suit side (1.0)
_SYM_START_SIGMA_MM = 0.5
_SYM_START_NUDGE = np.array([0.0, 0.013, 0.011, -0.007, 0.0])  # the start off exact zeros (turn, shift: see the fit)
_SYM_SIGMAS_MM = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0])
_SYM_TURN_HINT_DEG = 30.0  # a fit told the symbol's turn searches this far either side of it
_SYM_SCALES = (0.7, 1.3)  # the scales a fit may try (a symbol's own or a twin's is about 0.95-1.0)
# a crop's ink image is blurred this much before a taught symbol (blurred too) is fitted: none. With the tone term
# the fit's blur may as well run to zero (a crop as sharp as the teach photo); blurring the crop first (0.3, 0.6 mm)
# gave d' 5.5-7.6 / 3.9-8.7 against 5.6-9.0 unblurred on the bench's twins (classic crowns aside)
SYMBOL_CROP_BLUR_MM = 0.0
# A fitted symbol's size says which twin a coin is only where the fit explains the crop (its residual share up to
# SYMBOL_SIZE_MOST_RESIDUAL) and blurs it this much at most (blur trades against size): the game's limits
# (vision.coin_twins), kept here so that teach measures its twins' sizes over the copies the game would read
SYMBOL_SIZE_MOST_RESIDUAL = 0.065
SYMBOL_SIZE_MOST_BLUR_MM = 0.7


def _sym_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = COIN_CROP_PX
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float64)
    c = (n - 1) / 2.0
    return xx, yy, np.hypot(xx - c, yy - c) / _SYM_PX_PER_MM


_SYM_XX, _SYM_YY, _SYM_R = _sym_grid()
_SYM_CENTRE = (COIN_CROP_PX - 1) / 2.0


def coin_ink_image(crop: np.ndarray) -> np.ndarray:
    """A coin crop (COIN_CROP_PX square, BGR) as a scalar ink image: each pixel's colour projected on the line
    from the face's colour (the ring round the symbol, 0) to the ink's (the disc's most unlike pixels, 1)."""
    x = np.asarray(crop, np.float64).reshape(COIN_CROP_PX, COIN_CROP_PX, -1)
    face = np.median(x[(_SYM_R > _SYM_FACE_RING_MM[0]) & (_SYM_R < _SYM_FACE_RING_MM[1])], axis=0)
    disc = x[_SYM_R < _SYM_INK_DISC_MM]
    far = np.linalg.norm(disc - face, axis=1)
    k = max(5, int(_SYM_INK_SHARE * len(disc)))
    ink = np.median(disc[np.argsort(-far)[:k]], axis=0)
    d = face - ink
    return ((face - x) @ d) / max(float(d @ d), 1e-9)


def coin_symbol_level(crop: np.ndarray) -> np.ndarray:
    """A taught coin's printed symbol as teach keeps it: its ink image, face 0 and the ink's 98th percentile 1,
    nothing beyond 7.2 mm (a printed rim is fitted apart); float32, COIN_CROP_PX square. It keeps the teach
    photo's blur (cutting it at half the ink to sharpen it fitted the bench's coins worse: thin strokes shrink)."""
    ink = coin_ink_image(crop)
    face = float(np.median(ink[(_SYM_R > _SYM_FACE_RING_MM[0]) & (_SYM_R < _SYM_FACE_RING_MM[1])]))
    top = float(np.percentile(ink[_SYM_R < _SYM_INK_DISC_MM], 98))
    level = (ink - face) / max(top - face, 1e-6)
    level[_SYM_R >= _SYM_INK_DISC_MM + 0.3] = 0.0
    return level.astype(np.float32)


def coin_symbol_template(level: np.ndarray) -> np.ndarray:
    """A symbol level image (:func:`coin_symbol_level`) upsampled ``_SYM_UP`` times, padded and blurred by each
    of ``_SYM_SIGMAS_MM`` (n_sigmas, size, size), for :func:`fit_coin_symbol` (which blends the two nearest
    blurs: one Gaussian per step of the fit would be most of its time). It carries its photo's blur: fit it with
    ``crop_blur_mm = SYMBOL_CROP_BLUR_MM`` so that the crop is never sharper than it."""
    big = cv2.resize(np.asarray(level, np.float32), None, fx=_SYM_UP, fy=_SYM_UP, interpolation=cv2.INTER_CUBIC)
    big = np.pad(big, _SYM_UP * 8)
    return np.stack([cv2.GaussianBlur(big, (0, 0), sigma * _SYM_PX_PER_MM * _SYM_UP) if sigma > 0 else big
                     for sigma in _SYM_SIGMAS_MM]).astype(np.float32)


@dataclass(frozen=True)
class CoinSymbolFit:
    """The fitted print: ``scale`` against the sharp symbol, its turn (degrees), shift (mm), blur ``sigma_mm``,
    the ink's ``gain`` and the fit's residual share (``residual``: unexplained over total variance)."""

    scale: float
    angle_deg: float
    shift_mm: tuple[float, float]
    sigma_mm: float
    gain: float
    residual: float


def _symbol_model(stack: np.ndarray, scale: float, angle: float, tx: float, ty: float, sigma: float) -> np.ndarray:
    k = float(np.interp(sigma, _SYM_SIGMAS_MM, np.arange(len(_SYM_SIGMAS_MM))))
    low = min(int(k), len(_SYM_SIGMAS_MM) - 2)
    w = k - low
    half = (stack.shape[1] - 1) / 2.0
    ca, sa = np.cos(angle), np.sin(angle)
    # crop pixel -> symbol pixel: (R(-angle) (p - centre - t) / scale) * _SYM_UP + half
    a = np.array([[ca, sa], [-sa, ca]]) * (_SYM_UP / scale)
    offset = np.array([half, half]) - a @ np.array([_SYM_CENTRE + tx * _SYM_PX_PER_MM,
                                                     _SYM_CENTRE + ty * _SYM_PX_PER_MM])
    m = np.hstack([a, offset[:, None]])
    out = [cv2.warpAffine(stack[low + i], m, (COIN_CROP_PX, COIN_CROP_PX),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0.0) for i in (0, 1)]
    return (1.0 - w) * out[0] + w * out[1]


def _symbol_round_terms(xx: np.ndarray, yy: np.ndarray, tx: float, ty: float, sigma: float) -> np.ndarray:
    """Smooth radial bumps round the symbol's centre (tx, ty mm) at the pixels (xx, yy), (n, bumps): whatever is
    round about the coin's centre out there (a printed rim, the coin's own edge seen 1-2 mm off) is fitted by these
    linearly, whatever its radius, width and ink, and does not pull the symbol's scale. They are as blurred as the
    symbol (``sigma``: the fit's blur on top of the teach photo's, about ``_SYM_TEACH_BLUR_MM``): a blurred rim's
    inner tail reaches the symbol, and bumps sharper than it left a bold coin's fitted scale 2 % small at 0.8 mm
    of blur."""
    r = np.hypot(xx - _SYM_CENTRE - tx * _SYM_PX_PER_MM, yy - _SYM_CENTRE - ty * _SYM_PX_PER_MM) / _SYM_PX_PER_MM
    width = math.sqrt(_SYM_RIM_BUMP_SIGMA_MM**2 + _SYM_TEACH_BLUR_MM**2 + sigma**2)
    return np.exp(-0.5 * ((r[:, None] - _SYM_RIM_BUMPS_MM[None, :]) / width) ** 2)


def fit_coin_symbol(crop: np.ndarray, symbol: np.ndarray, centre_mm: tuple[float, float] = (0.0, 0.0),
               crop_blur_mm: float = 0.0, passes: int = 2, turn_deg: float | None = None) -> CoinSymbolFit:
    """Fit ``symbol`` (:func:`coin_symbol_template`, or any symbol mask at ``_SYM_UP`` times the crop's sampling) to a
    coin crop: scale, turn, shift, blur, gain, a tone curve, a face shading linearly and whatever is round about
    the symbol's centre beyond 7.2 mm (a printed rim: :func:`_symbol_round_terms`) (variable projection: the linear
    terms are solved at every step). ``centre_mm``: where the symbol is thought to be in the crop; the fitted pixels
    are those within ``_SYM_FIT_DISC_MM`` of it, and each further pass centres them on the symbol fitted before.
    ``crop_blur_mm``: a Gaussian blur applied to the crop's ink image first (so that a template carrying its own
    photo's blur is never sharper than the crop)."""
    ink = coin_ink_image(crop)
    if crop_blur_mm > 0:
        ink = cv2.GaussianBlur(ink, (0, 0), crop_blur_mm * _SYM_PX_PER_MM)
    cx, cy = centre_mm
    start = None
    for _ in range(max(1, passes)):
        result, r, coef, total = _fit_symbol_once(ink, symbol, (cx, cy), start, turn_deg)
        start = result
        cx, cy = float(result[2]), float(result[3])
    s, angle, tx, ty, sigma = (float(v) for v in start)
    return CoinSymbolFit(s, float(np.degrees(angle)) % 360.0, (tx, ty), sigma, float(coef[3]),
                     float(r @ r) / max(total, 1e-12))


def _fit_symbol_once(ink: np.ndarray, symbol: np.ndarray, centre: tuple[float, float], start: np.ndarray | None,
                     turn_deg: float | None = None):
    cx, cy = centre
    inside = np.hypot(_SYM_XX - _SYM_CENTRE - cx * _SYM_PX_PER_MM,
                      _SYM_YY - _SYM_CENTRE - cy * _SYM_PX_PER_MM) / _SYM_PX_PER_MM < _SYM_FIT_DISC_MM
    xs, ys = _SYM_XX[inside], _SYM_YY[inside]
    y = ink[inside]
    fixed = np.column_stack([np.ones(len(y)), (_SYM_XX[inside] - _SYM_CENTRE) / COIN_CROP_PX,
                             (_SYM_YY[inside] - _SYM_CENTRE) / COIN_CROP_PX])
    design = np.zeros((len(y), 5 + len(_SYM_RIM_BUMPS_MM)))
    design[:, :3] = fixed

    def solve(params) -> tuple[np.ndarray, np.ndarray]:
        scale, angle, tx, ty, sigma = params
        sigma = abs(sigma)  # unbounded for the solver (a bound at 0 stalled it): the blur is its size
        model = _symbol_model(symbol, min(max(scale, _SYM_SCALES[0]), _SYM_SCALES[1]), angle, tx, ty,
                              min(sigma, float(_SYM_SIGMAS_MM[-1])))[inside]
        design[:, 3] = model
        design[:, 4] = model * (1.0 - model)  # the tone curve (see above): zero where the face and the full ink lie
        design[:, 5:] = _symbol_round_terms(xs, ys, tx, ty, sigma)
        # the normal equations (9 unknowns; a hair of ridge for a term that is all zero, a rim off the crop)
        gram = design.T @ design
        coef = np.linalg.solve(gram + 1e-9 * np.trace(gram) * np.eye(len(gram)), design.T @ y)
        return y - design @ coef, coef

    if start is None:
        best = None
        turns = np.arange(0.0, 360.0, 15.0) if turn_deg is None else \
            turn_deg + np.arange(-_SYM_TURN_HINT_DEG, _SYM_TURN_HINT_DEG + 1.0, 15.0)
        for angle in np.radians(turns):  # the turn first, coarsely (the symbol is not round)
            r, _ = solve((_SYM_START_SCALE, angle, cx, cy, _SYM_START_SIGMA_MM))
            cost = float(r @ r)
            if best is None or cost < best[0]:
                best = (cost, angle)
        # nudged off exact zeros: from a turn and shift of exactly 0 the solver sometimes never moved (4 of 343
        # bench twins kept the start's scale 0.97 and blur 0.5 to the last digit)
        start = np.array([_SYM_START_SCALE, best[1], cx, cy, _SYM_START_SIGMA_MM]) + _SYM_START_NUDGE
    from scipy.optimize import least_squares  # here: most users of this module never fit a symbol

    # Levenberg-Marquardt, unbounded (the trust-region solver with bounds stalled at its start on crops whose best
    # blur is the bound 0); the scale is clamped inside the model and the shift checked by the caller
    result = least_squares(lambda p: solve(p)[0], start, diff_step=1e-3, x_scale=[0.02, 0.05, 0.2, 0.2, 0.2],
                           method="lm", max_nfev=120, xtol=1e-4)
    params = result.x.copy()
    params[0] = min(max(params[0], _SYM_SCALES[0]), _SYM_SCALES[1])
    params[4] = min(abs(params[4]), float(_SYM_SIGMAS_MM[-1]))
    r, coef = solve(params)
    total = float(((y - y.mean()) ** 2).sum())
    return params, r, coef, total


# ------------------------------------------------------------------------------------------------------------
# Models
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClassModel:
    """Templates of one kind of face (tile faces, coin value sides, ...) and how sure a match must be.

    ``labels[i]`` names template ``templates[i]`` (unit vectors of the kind's features): ``(suit, rank)`` with
    None where the side does not show it. A match is trusted when its correlation is at least ``min_score``
    and beats the best other label by ``min_margin`` (both set by teach from augmented teach crops).
    """

    labels: tuple[tuple[Suit | None, int | None], ...]
    templates: np.ndarray  # (n, d) float32
    min_score: float
    min_margin: float
    label_margins: tuple[float, ...] | None = None  # per label: the margin a reading of it needs, at least
    typical_score: float | None = None  # what the right label scores in teach's augmented copies (median)

    @property
    def trusted_score(self) -> float:
        """The lowest score a reading is trusted at: the model's threshold, and not far below what the right face
        typically scores (a crop that little like any face is degraded or no piece: read it as unclear)."""
        if self.typical_score is None:
            return self.min_score
        return max(self.min_score, self.typical_score - _TRUSTED_DEFICIT)

    def margin_for(self, index: int, score: float | None = None) -> float:
        """The margin a reading of label ``index`` scoring ``score`` needs: the model's, or more where teach saw
        other faces pass for this one (a blurred 4 for an ace); and more the further the score falls below the
        typical one (a degraded crop: blur, glare, a window a little off, where other faces come close)."""
        margin = self.min_margin
        if self.label_margins is not None:
            margin = max(margin, float(self.label_margins[index]))
        if score is not None and self.typical_score is not None:
            margin = max(margin, self.min_margin + _LOW_SCORE_MARGIN * max(0.0, self.typical_score - score))
        return margin

    def to_json(self) -> dict[str, Any]:
        out = {
            "labels": [[s.value if s else None, r] for s, r in self.labels],
            "min_score": round(float(self.min_score), 4),
            "min_margin": round(float(self.min_margin), 4),
        }
        if self.label_margins is not None:
            out["label_margins"] = [round(float(m), 4) for m in self.label_margins]
        if self.typical_score is not None:
            out["typical_score"] = round(float(self.typical_score), 4)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], templates: np.ndarray) -> ClassModel:
        labels = tuple((Suit(s) if s else None, None if r is None else int(r)) for s, r in data["labels"])
        templates = np.asarray(templates, dtype=np.float32)
        if templates.ndim != 2 or len(templates) != len(labels):
            raise ValueError("templates do not match their labels")
        margins = data.get("label_margins")
        if margins is not None and len(margins) != len(labels):
            raise ValueError("label margins do not match their labels")
        typical = data.get("typical_score")
        return cls(labels, templates, float(data["min_score"]), float(data["min_margin"]),
                   None if margins is None else tuple(float(m) for m in margins),
                   None if typical is None else float(typical))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class PieceSetProfile:
    """One piecepack edition as the camera sees it (see the module docstring for the fields others read).

    ``tile_faces`` (24 labels), ``tile_back`` (one label ``(None, None)``, or None when the backs were not
    taught), ``coin_values`` (24 labels, or 6 with suit None when values are printed in black),
    ``coin_suits`` (4 labels, rank None), ``tile_marks`` (the 24 faces' rank marks at the camera's resolution, or
    None in profiles taught before it: see the module docstring). ``taught`` records where it came from (image
    names, frame size, camera scale), ``name`` is free text (the edition).
    """

    name: str
    tile_faces: ClassModel
    coin_values: ClassModel
    coin_suits: ClassModel
    tile_back: ClassModel | None = None
    tile_marks: ClassModel | None = None
    tile_thickness_mm: float = 3.0
    coin_thickness_mm: float = 3.0
    tile_frame_mm: float = 0.0
    coin_rim_taps: tuple[tuple[float, float], ...] = ((19.05 / 2, -1.0),)
    pawn_height_mm: float = 28.0
    pawn_base_mm: float = 16.0
    suit_colors: dict[Suit, tuple[int, int, int]] = field(default_factory=dict)
    pawn_colors: dict[Suit, tuple[int, int, int]] = field(default_factory=dict)
    die_colors: dict[Suit, tuple[int, int, int]] = field(default_factory=dict)
    white_bgr: tuple[int, int, int] = (240, 240, 240)
    die_templates: dict[int, np.ndarray] = field(default_factory=dict)
    rank_templates: dict[int, np.ndarray] = field(default_factory=dict)
    pyramid_colors: tuple[str, ...] | None = None
    taught: dict[str, Any] = field(default_factory=dict)
    created: str = field(default_factory=_now)

    @property
    def coin_values_show_suit(self) -> bool:
        """True when a coin's value side is printed in its suit colour (so its suit can be read)."""
        return any(s is not None for s, _ in self.coin_values.labels)

    def but(self, **changes: Any) -> PieceSetProfile:
        return replace(self, **changes)

    # -- JSON -------------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        arrays: dict[str, np.ndarray] = {}
        models: dict[str, Any] = {}
        for key in ("tile_faces", "tile_back", "coin_values", "coin_suits", "tile_marks"):
            model: ClassModel | None = getattr(self, key)
            if model is None:
                models[key] = None
                continue
            models[key] = model.to_json()
            # int8 with one scale per template: a quarter of float32, and correlations change by < 0.001
            scale = np.maximum(np.abs(model.templates).max(axis=1, keepdims=True), 1e-9) / 127.0
            arrays[key] = np.round(model.templates / scale).astype(np.int8)
            arrays[f"{key}_scale"] = scale.astype(np.float32).ravel()
        for rank, crop in self.die_templates.items():
            arrays[f"die_{rank}"] = np.asarray(crop, np.uint8)
        for rank, crop in self.rank_templates.items():
            arrays[f"rank_{rank}"] = np.asarray(crop, np.uint8)

        def colours(table: dict[Suit, tuple[int, int, int]]) -> dict[str, list[int]]:
            return {s.value: [int(v) for v in table[s]] for s in SUITS if s in table}

        return {
            "version": PROFILE_VERSION,
            "kind": PROFILE_KIND,
            "name": self.name,
            "features": FEATURES,
            "created": self.created,
            "taught": self.taught,
            "tile": {"size_mm": TILE_MM, "thickness_mm": self.tile_thickness_mm, "frame_mm": self.tile_frame_mm},
            "coin": {
                "diameter_mm": COIN_MM,
                "thickness_mm": self.coin_thickness_mm,
                "rim_taps": [[float(r), float(w)] for r, w in self.coin_rim_taps],
                "values_show_suit": self.coin_values_show_suit,
            },
            "pawn": {"height_mm": self.pawn_height_mm, "base_mm": self.pawn_base_mm},
            "suit_colors": colours(self.suit_colors),
            "pawn_colors": colours(self.pawn_colors),
            "die_colors": colours(self.die_colors),
            "white_bgr": [int(v) for v in self.white_bgr],
            "pyramid_colors": list(self.pyramid_colors) if self.pyramid_colors is not None else None,
            "models": models,
            "arrays": _pack(arrays),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PieceSetProfile:
        """Build from the JSON dict; raises KeyError, ValueError or TypeError on missing or malformed fields."""
        arrays = _unpack(data["arrays"])
        models: dict[str, ClassModel | None] = {}
        for key in ("tile_faces", "tile_back", "coin_values", "coin_suits", "tile_marks"):
            spec = data["models"].get(key)  # tile_marks: absent from profiles taught before it (None)
            if spec is None:
                models[key] = None
                continue
            templates = arrays[key].astype(np.float32) * arrays[f"{key}_scale"].astype(np.float32)[:, None]
            models[key] = ClassModel.from_json(spec, templates)
        for key in ("tile_faces", "coin_values", "coin_suits"):
            if models[key] is None:
                raise ValueError(f"no {key} model")

        def colours(table: dict[str, Any] | None) -> dict[Suit, tuple[int, int, int]]:
            return {Suit(k): tuple(int(c) for c in v) for k, v in (table or {}).items()}  # type: ignore[misc]

        def crops(prefix: str) -> dict[int, np.ndarray]:
            return {int(k[len(prefix) :]): v for k, v in arrays.items() if k.startswith(prefix)}

        pyramids = data.get("pyramid_colors")
        return cls(
            name=str(data.get("name", "")),
            tile_faces=models["tile_faces"],  # type: ignore[arg-type]
            coin_values=models["coin_values"],  # type: ignore[arg-type]
            coin_suits=models["coin_suits"],  # type: ignore[arg-type]
            tile_back=models["tile_back"],
            tile_marks=models["tile_marks"],
            tile_thickness_mm=float(data["tile"]["thickness_mm"]),
            tile_frame_mm=float(data["tile"].get("frame_mm", 0.0)),
            coin_thickness_mm=float(data["coin"]["thickness_mm"]),
            coin_rim_taps=tuple((float(r), float(w)) for r, w in data["coin"].get("rim_taps", [[19.05 / 2, -1.0]])),
            pawn_height_mm=float(data.get("pawn", {}).get("height_mm", 28.0)),
            pawn_base_mm=float(data.get("pawn", {}).get("base_mm", 16.0)),
            suit_colors=colours(data.get("suit_colors")),
            pawn_colors=colours(data.get("pawn_colors")),
            die_colors=colours(data.get("die_colors")),
            white_bgr=tuple(int(v) for v in data.get("white_bgr", (240, 240, 240))),  # type: ignore[arg-type]
            die_templates=crops("die_"),
            rank_templates=crops("rank_"),
            pyramid_colors=tuple(pyramids) if pyramids is not None else None,
            taught=dict(data.get("taught", {})),
            created=str(data.get("created", "")),
        )


def _pack(arrays: dict[str, np.ndarray]) -> str:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _unpack(text: str) -> dict[str, np.ndarray]:
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


# ------------------------------------------------------------------------------------------------------------
# Files
# ------------------------------------------------------------------------------------------------------------
_REDO = "teach the set again (tableside teach PHOTOS... --out set.json)"


def save_profile(profile: PieceSetProfile, path: str | Path) -> Path:
    """Write ``profile`` as JSON, atomically (a failed write leaves no half file)."""
    from calibration.calibration_file import write_atomic

    text = json.dumps(profile.to_json(), indent=1) + "\n"
    written = write_atomic(path, text.encode("utf-8"))
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(written, 0o666 & ~mask)  # an ordinary file (the temporary file it was renamed from was private)
    return written


def load_profile(path: str | Path) -> PieceSetProfile:
    """Read a piece-set profile; CalibrationError with a one-line message for any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"profile {path.name} not found ({path}): {_REDO}") from None
    except IsADirectoryError:
        raise CalibrationError(f"{path} is a folder, not a piece-set profile") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{path.name} is not a piece-set profile (not text): {_REDO}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{path.name} is not a piece-set profile (bad JSON at line {err.lineno})") from None
    if not isinstance(data, dict) or data.get("kind") != PROFILE_KIND:
        what = data.get("kind") if isinstance(data, dict) else None
        hint = (
            " (a calibration file? give it with --calibration)"
            if isinstance(data, dict) and "homography" in data
            else ""
        )
        raise CalibrationError(
            f"{path.name} is not a piece-set profile (kind {what!r}){hint}: "
            "give the set.json written by tableside teach"
        )
    version = data.get("version")
    if version != PROFILE_VERSION:
        raise CalibrationError(
            f"{path.name} is a version {version} piece-set profile; this tableside reads version {PROFILE_VERSION}: "
            + _REDO
        )
    if data.get("features") != FEATURES:
        raise CalibrationError(f"{path.name} was taught with other features ({data.get('features')!r}): {_REDO}")
    try:
        return PieceSetProfile.from_json(data)
    except (KeyError, ValueError, TypeError, IndexError, OSError) as err:
        detail = f"no {err.args[0]!r}" if isinstance(err, KeyError) else (str(err).splitlines() or ["bad"])[0]
        raise CalibrationError(f"{path.name} is a damaged piece-set profile ({detail}): {_REDO}") from None


def default_profile() -> PieceSetProfile:
    """The built-in profile of the default edition (made by tests/make_default_profile.py)."""
    if not DEFAULT_PROFILE_PATH.exists():
        raise CalibrationError(
            "the built-in piece-set profile is missing: reinstall tableside or give --profile set.json"
        )
    return load_profile(DEFAULT_PROFILE_PATH)
