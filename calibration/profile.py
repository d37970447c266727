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
  brightness falls outward), measured by teach.

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
    two cv2.resize per image beat any batched numpy form of the same linear map.)"""
    out = np.empty_like(images)
    h, w = images.shape[1:3]
    small = (max(2, int(round(w / scale_px))), max(2, int(round(h / scale_px))))
    for i, image in enumerate(images):
        low = cv2.resize(cv2.resize(image, small, interpolation=cv2.INTER_AREA), (w, h), interpolation=cv2.INTER_LINEAR)
        out[i] = image - low
    return out


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


def coin_features(crops: np.ndarray) -> np.ndarray:
    """Coin crops -> (n, 3 * COIN_RINGS * COIN_ANGLES) unit vectors of the polar log-ratio image. Turning the
    coin by ``k * 360 / COIN_ANGLES`` degrees rolls each ring's samples by ``k``."""
    polar = coin_polar(crops)
    return _normalise(polar.reshape(len(polar), -1))


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
