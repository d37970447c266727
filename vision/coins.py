"""Coins: candidate circles from the top-down view, fitted to their rims.

Candidates are peaks of the coin-centre votes (:func:`vision.segment.coin_votes`). Each is fitted with
radial profiles: along rays at ``_RAYS`` directions from the candidate, the gradient along the ray is sampled
across the expected rim; the centre shift and radius that put the most rim strength under the fitted circle
win (a small exhaustive search: a coin's rim is short, and a least-squares circle through per-ray maxima would
follow a numeral's edge or the printed ring as readily as the rim). The share of rays with an edge on the
fitted circle is its *support*; a die or a hand over a coin lowers it.

Numba, for the same reason as :mod:`vision.tiles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numba import njit

from vision.segment import EdgeMap, peaks
from vision.tiles import _normal_strength as _radial
from vision.tiles import _sample as _bilinear

__all__ = ["CircleFit", "CoinFit", "coin_candidates", "fit_circles", "refine_coins", "COIN_RADIUS_MM"]

_RAYS = 24
COIN_RADIUS_MM = 19.05 / 2
_REACH = 4.0
_STEP = 0.5


@dataclass(frozen=True)
class CircleFit:
    """A circle fitted in the view: centre and radius (view px), rim support (0..1), vote strength."""

    x: float
    y: float
    radius: float
    support: float
    score: float


def coin_candidates(votes: np.ndarray, diameter_px: float, min_votes: float) -> np.ndarray:
    """(n, 3) candidate centres x, y (view px) and vote strength, strongest first."""
    return peaks(votes, diameter_px * 0.4, min_votes)


@njit(cache=True, nogil=True)
def _fit_circles(gx, gy, cands, radius, cap, edge_min, out):  # pragma: no cover - numba
    steps = int(2 * _REACH / _STEP) + 1
    prof = np.zeros((_RAYS, steps))
    cos_k = np.empty(_RAYS)
    sin_k = np.empty(_RAYS)
    for k in range(_RAYS):
        a = 2 * math.pi * k / _RAYS
        cos_k[k] = math.cos(a)
        sin_k[k] = math.sin(a)
    shifts = np.arange(-6, 7) * 0.5
    radii = np.arange(-3, 4) * 0.5
    for i in range(cands.shape[0]):
        cx = cands[i, 0]
        cy = cands[i, 1]
        for _round in range(2):
            for k in range(_RAYS):
                for j in range(steps):
                    d = radius - _REACH + j * _STEP
                    px = cx + d * cos_k[k]
                    py = cy + d * sin_k[k]
                    prof[k, j] = _radial(gx, gy, px, py, cos_k[k], sin_k[k], cap)
            best = -1.0
            bx = 0.0
            by = 0.0
            br = 0.0
            for dx in shifts:
                for dy in shifts:
                    for dr in radii:
                        score = 0.0
                        for k in range(_RAYS):
                            x = (dr + dx * cos_k[k] + dy * sin_k[k] + _REACH) / _STEP
                            if x < 0.0 or x > steps - 1.001:
                                continue
                            j = int(x)
                            f = x - j
                            score += prof[k, j] * (1 - f) + prof[k, j + 1] * f
                        if score > best:
                            best = score
                            bx = dx
                            by = dy
                            br = dr
            cx += bx
            cy += by
        # radius and support at the final centre
        for k in range(_RAYS):
            for j in range(steps):
                d = radius - _REACH + j * _STEP
                px = cx + d * cos_k[k]
                py = cy + d * sin_k[k]
                prof[k, j] = _radial(gx, gy, px, py, cos_k[k], sin_k[k], cap)
        best = -1.0
        for dr in radii:
            score = 0.0
            for k in range(_RAYS):
                x = (dr + _REACH) / _STEP
                j = int(x)
                f = x - j
                score += prof[k, j] * (1 - f) + prof[k, min(j + 1, steps - 1)] * f
            if score > best:
                best = score
                br = dr
        found = 0
        for k in range(_RAYS):
            top = 0.0
            for j in range(steps):
                d = -_REACH + j * _STEP
                if abs(d - br) <= 1.01 and prof[k, j] > top:
                    top = prof[k, j]
            if top >= edge_min:
                found += 1
        out[i, 0] = cx
        out[i, 1] = cy
        out[i, 2] = radius + br
        out[i, 3] = found / _RAYS


def fit_circles(edges: EdgeMap, candidates: np.ndarray, diameter_px: float) -> list[CircleFit]:
    """Fit each candidate (rows x, y, votes) to the view's edges; see the module docstring."""
    if len(candidates) == 0:
        return []
    out = np.zeros((len(candidates), 4))
    cands = np.ascontiguousarray(candidates[:, :2], dtype=np.float64)
    _fit_circles(edges.gx, edges.gy, cands, diameter_px / 2.0, 4.0 * edges.noise, 0.6, out)
    return [
        CircleFit(float(r[0]), float(r[1]), float(r[2]), float(r[3]), float(c[2]))
        for r, c in zip(out, candidates, strict=True)
    ]


# ------------------------------------------------------------------------------------------------------------
# Fine fit in the raw frame
# ------------------------------------------------------------------------------------------------------------
FINE_CONTEXT_MM = 30.0
FINE_PX_PER_MM = 3.0
_FINE_RAYS = 32


@dataclass(frozen=True)
class CoinFit:
    """A coin's rim fitted in a crop of the raw frame: centre offset (mm, table frame) from where the crop was
    taken, radius (mm), share of rays with an edge on the rim, and the share of those with the majority polarity
    (a coin's rim is darker or lighter than its face all round)."""

    dx_mm: float
    dy_mm: float
    radius_mm: float
    support: float
    polarity: float
    strength: float  # median rim edge strength, grey levels per crop pixel


@njit(cache=True, nogil=True)
def _fine_fit(gx, gy, radius, reach, out):  # pragma: no cover - numba
    """Best centre/radius of a rim of about ``radius`` px near the crop centre; out = dx, dy, r, support,
    polarity, strength."""
    h, w = gx.shape
    cx0 = (w - 1) / 2.0
    cy0 = (h - 1) / 2.0
    rays = _FINE_RAYS
    cos_k = np.empty(rays)
    sin_k = np.empty(rays)
    for k in range(rays):
        a = 2 * math.pi * k / rays
        cos_k[k] = math.cos(a)
        sin_k[k] = math.sin(a)
    best = -1.0
    bx = 0.0
    by = 0.0
    br = radius
    # coarse search of the centre (1 px), radius within +-1.5 px, then fine (0.25 px)
    for stage in range(2):
        step = 2.0 if stage == 0 else 0.5
        span = reach if stage == 0 else 2.0
        n = int(span / step)
        ox, oy, orad = bx, by, br
        for ix in range(-n, n + 1):
            for iy in range(-n, n + 1):
                cx = cx0 + ox + ix * step
                cy = cy0 + oy + iy * step
                for ir in range(-2, 3):
                    r = (radius if stage == 0 else orad) + ir * (0.5 if stage == 0 else 0.25)
                    plus = 0.0
                    minus = 0.0
                    for k in range(rays):
                        px = cx + r * cos_k[k]
                        py = cy + r * sin_k[k]
                        ex = _bilinear(gx, px, py)
                        ey = _bilinear(gy, px, py)
                        along = ex * cos_k[k] + ey * sin_k[k]
                        across = abs(ey * cos_k[k] - ex * sin_k[k])
                        if across < 0.6 * abs(along):
                            if along > 0:
                                plus += min(along, 40.0)
                            else:
                                minus += min(-along, 40.0)
                    # the top face ends where the coin's shaded side begins: darker outward (gradient inward);
                    # the side's far edge and the shadow's (darker inward) would make the coin look too big
                    score = minus
                    if score > best:
                        best = score
                        bx = ox + ix * step
                        by = oy + iy * step
                        br = r
    # support and polarity at the fit
    strengths = np.empty(rays)
    signs = np.empty(rays)
    for k in range(rays):
        top = 0.0
        sg = 0.0
        for j in range(-4, 5):
            r = br + j * 0.25
            px = cx0 + bx + r * cos_k[k]
            py = cy0 + by + r * sin_k[k]
            ex = _bilinear(gx, px, py)
            ey = _bilinear(gy, px, py)
            along = ex * cos_k[k] + ey * sin_k[k]
            across = abs(ey * cos_k[k] - ex * sin_k[k])
            if abs(along) > top and across < 0.6 * abs(along):
                top = abs(along)
                sg = 1.0 if along > 0 else -1.0
        strengths[k] = top
        signs[k] = sg
    order = np.sort(strengths)
    typical = order[rays // 2 :].mean()
    floor = max(0.3 * typical, 2.0)
    found = 0
    plus = 0
    minus = 0
    for k in range(rays):
        if strengths[k] >= floor:
            found += 1
            if signs[k] > 0:
                plus += 1
            else:
                minus += 1
    out[0] = bx
    out[1] = by
    out[2] = br
    out[3] = found / rays
    out[4] = max(plus, minus) / max(found, 1)
    out[5] = typical



def refine_coins(image: np.ndarray, calibration, centres_mm: np.ndarray, heights_mm: np.ndarray) -> list[CoinFit]:
    """Fit each coin's rim in a crop of the raw frame (FINE_PX_PER_MM, at the coin top's height) around
    ``centres_mm``: centres to a few hundredths of a mm where the view's 1 px/mm gives about one."""
    from vision.crops import sample_crops

    n = len(centres_mm)
    if n == 0:
        return []
    size = int(round(FINE_CONTEXT_MM * FINE_PX_PER_MM))
    crops = sample_crops(image, calibration, centres_mm, np.zeros(n), heights_mm, FINE_CONTEXT_MM, size)
    out = []
    result = np.zeros(6)
    radius = COIN_RADIUS_MM * FINE_PX_PER_MM
    for crop in crops:
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        _fine_fit(gx, gy, radius, 8.0, result)
        p = FINE_PX_PER_MM
        out.append(CoinFit(result[0] / p, result[1] / p, result[2] / p, result[3], result[4], result[5]))
    return out
