"""Coins: candidate centres from the view's votes, rims fitted in the raw frame.

Candidates are peaks of the coin-centre votes (:func:`vision.segment.votes_and_sides`). Each is fitted in the
RAW frame through the homography of the coin's top face (:func:`vision.crops.piece_homographies`): along
``_RAYS`` rays from the candidate, the brightness derivative along the ray is sampled (radial profiles, computed
once per round); a centre shift moves every circle along ray k by the shift's component along it, so the shift
that best matches the coin's *radial signature* is a cheap search over the profiles.

The signature is what a coin of the set shows going outward from its centre: a few edges at known radii with
known signs (the default edition: a printed ring's inner and outer edge, then the rim where the top face ends
and the shaded side begins; a wooden set: only the rim). Teach measures it (``PieceSetProfile.coin_rim_taps``);
without a profile it is the rim alone, darker outward. Why a signature and not just the rim: a light coin on
white paper has a faint rim, and a circle of the coin's size fits the printed ring on one side and the side's
shadow on the other as well as the rim; the ring and the rim together, concentric, admit one centre.

The fit reports how well the signature matches (a normalised correlation over all rays: texture, print and wood
grain do not have the coin's concentric edges), the share of rays with an edge at the rim (*support*: a die or a
hand over a coin lowers it) and the share of those darker outward (*polarity*).

Numba, for the reason given in :mod:`vision.tiles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from vision.tiles import gradient_at, project

__all__ = ["CoinFit", "fit_coins", "COIN_RADIUS_MM", "RIM_ONLY"]

COIN_RADIUS_MM = 19.05 / 2
RIM_ONLY = ((COIN_RADIUS_MM, -1.0),)  # the signature without teach: the top face ends in a darker side
_RAYS = 32
_SPAN_MM = 5.5  # radial profiles from the rim's radius - span to + span
_STEP_MM = 0.25
_CAP = 60.0  # grey levels per mm: one strong edge counts no more than this


@dataclass(frozen=True)
class CoinFit:
    """A coin's rim fitted in the raw frame: centre offset (mm, the homography's local frame) from where it was
    looked for; ``match``: how well the radial signature fits (-1..1); ``support``: the share of rays with an
    edge at the rim; ``polarity``: the share of those darker outward or lighter outward, whichever is more;
    ``strength``: the rim's typical edge (grey levels per mm); ``lighter``: the top face is lighter than what
    is around it on most rays."""

    dx_mm: float
    dy_mm: float
    match: float
    support: float
    polarity: float
    strength: float
    lighter: bool


@njit(cache=True, fastmath=True, nogil=True)
def _radial(gx, gy, h, cx, cy, radius, cos_k, sin_k, prof):  # pragma: no cover - numba
    """prof[k, j]: brightness derivative outward along ray k (grey levels per mm) at radius - span + j * step:
    the frame's Sobel gradient at the nearest pixel, along the ray's direction in the frame (the ray's points,
    a few millimetres, spaced evenly in the frame between its exactly projected ends)."""
    steps = prof.shape[1]
    r0 = radius - _SPAN_MM
    r1 = radius - _SPAN_MM + (steps - 1) * _STEP_MM
    for k in range(cos_k.shape[0]):
        c = cos_k[k]
        s = sin_k[k]
        x0, y0 = project(h, cx + r0 * c, cy + r0 * s)
        x1, y1 = project(h, cx + r1 * c, cy + r1 * s)
        dx = (x1 - x0) / (r1 - r0)
        dy = (y1 - y0) / (r1 - r0)
        for j in range(steps):
            f = j / (steps - 1)
            ex, ey = gradient_at(gx, gy, x0 + f * (x1 - x0), y0 + f * (y1 - y0))
            prof[k, j] = ex * dx + ey * dy


@njit(cache=True, fastmath=True, nogil=True)
def _value(prof, k, x):  # pragma: no cover - numba
    """Profile k at fractional step x (linear interpolation; 0 outside)."""
    if x < 0.0 or x > prof.shape[1] - 1.001:
        return 0.0
    j = int(x)
    f = x - j
    return prof[k, j] * (1 - f) + prof[k, j + 1] * f


@njit(cache=True, fastmath=True, nogil=True)
def _score(prof, cos_k, sin_k, dx, dy, taps, radius):  # pragma: no cover - numba
    """The signature's fit for a centre shifted by (dx, dy): the sum over rays and taps of weight x derivative
    (capped), the derivatives read where each tap's circle crosses each ray."""
    total = 0.0
    for k in range(cos_k.shape[0]):
        shift = dx * cos_k[k] + dy * sin_k[k]
        for t in range(taps.shape[0]):
            x = (_SPAN_MM + taps[t, 0] - radius + shift) / _STEP_MM
            value = taps[t, 1] * _value(prof, k, x)
            total += min(max(value, -_CAP), _CAP)
    return total


@njit(cache=True, fastmath=True, nogil=True)
def _fit_coins(gx, gy, homographies, radius, taps, reach, floor, out):  # pragma: no cover - numba
    steps = int(2 * _SPAN_MM / _STEP_MM) + 1
    prof = np.zeros((_RAYS, steps))
    cos_k = np.empty(_RAYS)
    sin_k = np.empty(_RAYS)
    for k in range(_RAYS):
        a = 2 * math.pi * k / _RAYS
        cos_k[k] = math.cos(a)
        sin_k[k] = math.sin(a)
    strengths = np.empty(_RAYS)
    signs = np.empty(_RAYS)
    for i in range(homographies.shape[0]):
        h = homographies[i]
        cx = 0.0
        cy = 0.0
        # coarse (1 mm over +-reach), then 0.25 mm over +-1 mm and 0.125 mm over +-0.25 mm, the profiles
        # redone at each new centre
        for stage in range(3):
            _radial(gx, gy, h, cx, cy, radius, cos_k, sin_k, prof)
            step = 1.0 if stage == 0 else (0.25 if stage == 1 else 0.125)
            span = reach if stage == 0 else (1.0 if stage == 1 else 0.25)
            n = int(span / step + 0.5)
            best = -1e30
            bx = 0.0
            by = 0.0
            for ix in range(-n, n + 1):
                for iy in range(-n, n + 1):
                    dx = ix * step
                    dy = iy * step
                    if dx * dx + dy * dy > span * span + 1e-9:
                        continue
                    score = _score(prof, cos_k, sin_k, dx, dy, taps, radius)
                    if score > best:
                        best = score
                        bx = dx
                        by = dy
            cx += bx
            cy += by
        _radial(gx, gy, h, cx, cy, radius, cos_k, sin_k, prof)
        # how well the signature matches: normalised correlation of the taps' weights with the derivatives
        num = 0.0
        ww = 0.0
        vv = 0.0
        for k in range(_RAYS):
            for t in range(taps.shape[0]):
                v = _value(prof, k, (_SPAN_MM + taps[t, 0] - radius) / _STEP_MM)
                num += taps[t, 1] * v
                ww += taps[t, 1] * taps[t, 1]
                vv += v * v
        match = num / math.sqrt(max(ww * vv, 1e-12))
        # support and polarity at the rim: the strongest edge within 0.75 mm of it on each ray
        for k in range(_RAYS):
            top = 0.0
            sg = 0.0
            for j in range(steps):
                d = -_SPAN_MM + j * _STEP_MM
                if abs(d) <= 0.76 and abs(prof[k, j]) > top:
                    top = abs(prof[k, j])
                    sg = 1.0 if prof[k, j] > 0 else -1.0
            strengths[k] = top
            signs[k] = sg
        order = np.sort(strengths)
        typical = order[_RAYS // 2 :].mean()
        edge_min = max(0.3 * typical, floor)
        found = 0
        darker_out = 0
        for k in range(_RAYS):
            if strengths[k] >= edge_min:
                found += 1
                if signs[k] < 0:
                    darker_out += 1
        out[i, 0] = cx
        out[i, 1] = cy
        out[i, 2] = match
        out[i, 3] = found / _RAYS
        out[i, 4] = max(darker_out, found - darker_out) / max(found, 1)
        out[i, 5] = typical
        out[i, 6] = 1.0 if darker_out * 2 >= found else -1.0


def fit_coins(gradients: tuple[np.ndarray, np.ndarray], homographies: np.ndarray,
              taps: tuple[tuple[float, float], ...] = RIM_ONLY, radius_mm: float = COIN_RADIUS_MM,
              reach_mm: float = 4.0, floor: float = 4.0) -> list[CoinFit]:
    """Fit a coin's radial signature (``taps``: (radius mm, weight) of its concentric edges, weight < 0 where
    the brightness falls outward) near the local origin of each homography (local mm of the coin's top face ->
    raw pixels; see :func:`vision.crops.piece_homographies`) to the raw frame's Sobel ``gradients`` (int16,
    ``cv2.spatialGradient``), within ``reach_mm``. ``floor``: the weakest edge (grey levels per mm) that counts
    as rim."""
    n = len(homographies)
    if n == 0:
        return []
    out = np.zeros((n, 7))
    gx, gy = gradients
    tap_array = np.asarray(taps, dtype=np.float64).reshape(-1, 2)
    _fit_coins(gx, gy, np.ascontiguousarray(homographies, dtype=np.float64), float(radius_mm), tap_array,
               float(reach_mm), float(floor), out)
    return [CoinFit(float(r[0]), float(r[1]), float(r[2]), float(r[3]), float(r[4]), float(r[5]), bool(r[6] > 0))
            for r in out]
