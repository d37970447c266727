"""Tiles: candidate squares from the top-down view's matched filter, fitted to their outline in the raw frame.

Candidates are the peaks of :func:`vision.segment.square_response` at each dominant edge direction: a centre
(to a view pixel) and a rotation (to a degree or two). Each candidate is then fitted in the RAW frame, through
the homography of its own top face (:func:`vision.crops.piece_homographies`, the face's height included): short
profiles across each of the four sides sample the frame's brightness at the camera's full resolution; the shift
along the tile's axes and the turn that put the most edge under a square of a tile's size win (a small
exhaustive search, concave in each side: two sides half found beat one side twice over and one not at all).
The share of profiles with an edge on the fitted outline is each side's *support*: a tile's outline is complete
when all four sides are supported; a hand or a piece over an edge lowers one or two.

Why the raw frame: the view is at half a pixel per millimetre (cheap to search); the camera has three to four
times that, which tells a tile's edge from a printed margin's. Why numba: a few thousand bilinear samples and a
tiny search per candidate, for a few dozen candidates, would be dominated by numpy's per-call overheads; and
sampling through each candidate's homography needs no crop to be made first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from vision.segment import SideGrid, peaks, square_response, squared_distances

__all__ = ["TileFit", "tile_candidates", "fit_tiles", "project", "gradient_at"]

_PROFILES = 7  # profiles per side
_STEP_MM = 0.5  # along each profile


def tile_candidates(sides: list[SideGrid], side_px: float, min_total: float = 1.5,
                    min_weakest: float = 0.25, responses: list | None = None) -> np.ndarray:
    """(n, 4) array of candidate centres x, y (view px), rotation (degrees mod 90) and matched-filter total, over
    every direction's side grid, strongest first, duplicates within a third of a tile merged. ``responses``, a
    list, receives each direction's (total, weakest) maps (see :func:`vision.segment.square_response`)."""
    rows = []
    for grid in sides:
        total, weakest = square_response(grid, side_px)
        if responses is not None:
            responses.append((total, weakest))
        found = peaks(total, side_px / 2 * 0.3, min_total, mask=weakest, min_mask=min_weakest)
        if len(found) == 0:
            continue
        view = found[:, :2] @ grid.to_view[:, :2].T + grid.to_view[:, 2]
        rows.append(np.column_stack([view, np.full(len(found), grid.angle_deg), found[:, 2]]))
    if not rows:
        return np.zeros((0, 4))
    out = np.vstack(rows)
    out = out[np.argsort(-out[:, 3], kind="stable")]
    close = squared_distances(out[:, :2], out[:, :2]) < (side_px / 3) ** 2
    return out[~np.any(np.tril(close, k=-1), axis=1)]


@dataclass(frozen=True)
class TileFit:
    """A tile's top face fitted in the raw frame around a pose: the correction (mm along the pose's own axes:
    right, down; degrees clockwise), the support of its left, right, top, bottom sides (0..1) and the typical
    strength of its edges (grey levels per mm)."""

    du_mm: float
    dv_mm: float
    dangle_deg: float
    support: tuple[float, float, float, float]
    strength: float
    size_mm: float = 0.0  # of the square fitted: the tile's side, or a printed frame's inside it

    @property
    def complete(self) -> float:
        """The support of the weakest side."""
        return min(self.support)


@njit(cache=True, fastmath=True, nogil=True)
def project(h, u, v):  # pragma: no cover - numba
    """Pixel (x, y) of local mm (u, v) through the homography ``h``."""
    w = h[2, 0] * u + h[2, 1] * v + h[2, 2]
    return (h[0, 0] * u + h[0, 1] * v + h[0, 2]) / w, (h[1, 0] * u + h[1, 1] * v + h[1, 2]) / w


@njit(cache=True, fastmath=True, nogil=True)
def gradient_at(gx, gy, x, y):  # pragma: no cover - numba
    """The Sobel gradient (grey levels per pixel) at the pixel nearest (x, y); zero outside the frame."""
    hh, ww = gx.shape
    xi = int(x + 0.5)
    yi = int(y + 0.5)
    if xi < 0 or yi < 0 or xi >= ww or yi >= hh:
        return 0.0, 0.0
    return gx[yi, xi] * 0.125, gy[yi, xi] * 0.125


@njit(cache=True, fastmath=True, nogil=True)
def _profiles(gx, gy, h, cu, cv, theta, half, length, prof, ts, span):  # pragma: no cover - numba
    """Edge strength across each side of a square (centre cu, cv local mm, turned theta) at prof[side, k, j]:
    profile k along the side, offset j outward in steps of _STEP_MM from -span; the brightness derivative along
    the side's normal (grey levels per mm), zero where the brightness changes more along the side than half as
    much (an oblique edge is not this outline's). The frame's Sobel gradient is read at the nearest pixel; the
    points of a profile (a few millimetres) are spaced evenly in the frame between its exactly projected ends."""
    ux = math.cos(theta)
    uy = math.sin(theta)
    vx = -uy
    vy = ux
    k_count = prof.shape[1]
    steps = prof.shape[2]
    for side in range(4):
        if side == 0:
            nx, ny, tx, ty = -ux, -uy, vx, vy
        elif side == 1:
            nx, ny, tx, ty = ux, uy, vx, vy
        elif side == 2:
            nx, ny, tx, ty = -vx, -vy, ux, uy
        else:
            nx, ny, tx, ty = vx, vy, ux, uy
        # the side's direction in the frame (per mm along it), from its first and last profiles' middles
        t0 = -0.42 * length
        t1 = 0.42 * length
        ax, ay = project(h, cu + half * nx + t0 * tx, cv + half * ny + t0 * ty)
        bx, by = project(h, cu + half * nx + t1 * tx, cv + half * ny + t1 * ty)
        along_tx = (bx - ax) / (t1 - t0)
        along_ty = (by - ay) / (t1 - t0)
        for k in range(k_count):
            t = (-0.42 + 0.84 * k / (k_count - 1)) * length
            ts[k] = t
            d0 = -span
            d1 = -span + (steps - 1) * _STEP_MM
            x0, y0 = project(h, cu + (half + d0) * nx + t * tx, cv + (half + d0) * ny + t * ty)
            x1, y1 = project(h, cu + (half + d1) * nx + t * tx, cv + (half + d1) * ny + t * ty)
            # the normal in the frame, per mm: d(pixel)/d(offset)
            nxp = (x1 - x0) / (d1 - d0)
            nyp = (y1 - y0) / (d1 - d0)
            for j in range(steps):
                f = j / (steps - 1)
                ex, ey = gradient_at(gx, gy, x0 + f * (x1 - x0), y0 + f * (y1 - y0))
                along = abs(ex * nxp + ey * nyp)
                across = abs(ex * along_tx + ey * along_ty)
                prof[side, k, j] = along if across <= 0.47 * along else 0.0


@njit(cache=True, fastmath=True, nogil=True)
def _side_sums(prof, side, ts, r, offsets, span, out):  # pragma: no cover - numba
    """out[j]: the side's profiles summed along its edge line at outward offset offsets[j] for a turn r (the
    line's offset at profile k grows by r t_k on the left and bottom sides, falls on the others)."""
    steps = prof.shape[2]
    sign = 1.0 if side == 0 or side == 3 else -1.0
    for j in range(offsets.shape[0]):
        total = 0.0
        for k in range(prof.shape[1]):
            x = (offsets[j] + sign * r * ts[k] + span) / _STEP_MM
            if x < 0.0 or x > steps - 1.001:
                continue
            i = int(x)
            f = x - i
            total += prof[side, k, i] * (1 - f) + prof[side, k, i + 1] * f
        out[j] = math.sqrt(total)  # concave: two sides half found beat one side twice over and one not at all


@njit(cache=True, fastmath=True, nogil=True)
def _pair_table(offsets, grows, reach, pair_j, pair_jb, pair_move, pair_count):  # pragma: no cover - numba
    """For a square grown by ``grows[g]`` mm (each side moves out by grow / 2), the pairs of opposite edges a fit
    compares: first at offset a, second at grow - a, the centre moving by (second - first) / 2 within ``reach``
    (the j, jb and move of each, in offset order). They depend on the grow alone, not on the turn, so a fit works
    them out once per round instead of once per turn (9 turns in the first round)."""
    step = offsets[1] - offsets[0]
    for gi in range(grows.shape[0]):
        grow = grows[gi]
        count = 0
        for j in range(offsets.shape[0]):
            a = offsets[j]
            b = grow - a
            jb = int(round((b - offsets[0]) / step))
            if jb < 0 or jb >= offsets.shape[0]:
                continue
            move = (offsets[jb] - a) / 2.0
            if abs(move) > reach + 1e-9:
                continue
            pair_j[gi, count] = j
            pair_jb[gi, count] = jb
            pair_move[gi, count] = move
            count += 1
        pair_count[gi] = count


@njit(cache=True, fastmath=True, nogil=True)
def _best_listed(first, second, pair_j, pair_jb, pair_move, count):  # pragma: no cover - numba
    """The best pair of opposite edges among those listed for one grow (see :func:`_pair_table`): its score
    and the centre's shift."""
    best = -1.0
    shift = 0.0
    for n in range(count):
        score = first[pair_j[n]] + second[pair_jb[n]]
        if score > best:
            best = score
            shift = pair_move[n]
    return best, shift


@njit(cache=True, fastmath=True, nogil=True)
def _fit_tiles(gx, gy, homographies, side, reach, shrink, floor, out):  # pragma: no cover - numba
    """Fit a square near each candidate's local origin (local mm through ``homographies[i]``) to the frame's
    gradients: any square of ``side`` - ``shrink`` to ``side`` mm (a printed frame inside the tile's edge is a
    square concentric with it: either gives the centre and the turn). out[i] = du, dv, dtheta (degrees), support
    left, right, top, bottom, typical strength, size of the square fitted."""
    half = side / 2.0
    k_count = _PROFILES
    span = reach + shrink / 2.0 + 1.0  # profiles reach past the largest move of a side
    steps = int(2 * span / _STEP_MM) + 1
    prof = np.zeros((4, k_count, steps))
    ts = np.zeros(k_count)
    rotations = np.arange(-4, 5) * math.radians(0.4)
    tops = np.zeros(k_count)
    sums = np.zeros((4, 2 * steps))
    for i in range(homographies.shape[0]):
        h = homographies[i]
        cu = 0.0
        cv = 0.0
        theta = 0.0
        size = side
        for _round in range(2):
            _profiles(gx, gy, h, cu, cv, theta, half, side, prof, ts, span)
            if _round == 0:
                offsets = np.arange(steps) * _STEP_MM - span
                turns = rotations
                grows = np.arange(-int(shrink / _STEP_MM), 1) * _STEP_MM * 1.0
                limit = reach
            else:  # around the first round's result (edges near offset base / 2), on a finer grid
                base = size - side
                offsets = base / 2.0 + np.arange(-4, 5) * (_STEP_MM / 2)
                turns = rotations[2:7] * 0.5
                grows = base + np.arange(-2, 3) * (_STEP_MM / 2)
                limit = 0.75
            best = -1.0
            best_u = 0.0
            best_v = 0.0
            best_r = 0.0
            best_g = 0.0
            n_off = offsets.shape[0]
            pair_j = np.empty((grows.shape[0], n_off), np.int64)
            pair_jb = np.empty((grows.shape[0], n_off), np.int64)
            pair_move = np.empty((grows.shape[0], n_off))
            pair_count = np.zeros(grows.shape[0], np.int64)
            _pair_table(offsets, grows, limit, pair_j, pair_jb, pair_move, pair_count)
            for r in turns:
                for s in range(4):
                    _side_sums(prof, s, ts, r, offsets, span, sums[s, :n_off])
                for gi in range(grows.shape[0]):
                    g = grows[gi]
                    if g > 1e-9 or g < -shrink - 1e-9:
                        continue
                    # left/right edges at offsets a and g - a: the centre moves right by (g - a - a) / 2
                    c = pair_count[gi]
                    su, mu = _best_listed(sums[0, :n_off], sums[1, :n_off], pair_j[gi], pair_jb[gi], pair_move[gi], c)
                    sv, mv = _best_listed(sums[2, :n_off], sums[3, :n_off], pair_j[gi], pair_jb[gi], pair_move[gi], c)
                    if su + sv > best:
                        best = su + sv
                        best_u = mu
                        best_v = mv
                        best_r = r
                        best_g = g
            ux = math.cos(theta)
            uy = math.sin(theta)
            cu += best_u * ux - best_v * uy
            cv += best_u * uy + best_v * ux
            theta += best_r
            size = side + best_g
        # support of each side at the final pose: profiles with an edge within a millimetre of the square, at
        # least a share of the square's typical edge (and of the noise floor)
        _profiles(gx, gy, h, cu, cv, theta, size / 2.0, side, prof, ts, span)
        n_top = 0
        all_tops = np.zeros(4 * k_count)
        for s in range(4):
            for k in range(k_count):
                top = 0.0
                for j in range(steps):
                    d = -span + j * _STEP_MM
                    if abs(d) <= 1.01 and prof[s, k, j] > top:
                        top = prof[s, k, j]
                all_tops[n_top] = top
                n_top += 1
        typical = np.sort(all_tops)[(3 * n_top) // 4]  # the outline's strength where it shows
        edge_min = max(0.2 * typical, floor)
        for s in range(4):
            found = 0
            for k in range(k_count):
                tops[k] = all_tops[s * k_count + k]
                if tops[k] >= edge_min:
                    found += 1
            out[i, 3 + s] = found / k_count
        out[i, 0] = cu
        out[i, 1] = cv
        out[i, 2] = math.degrees(theta)
        out[i, 7] = typical
        out[i, 8] = size


def fit_tiles(gradients: tuple[np.ndarray, np.ndarray], homographies: np.ndarray, side_mm: float,
              reach_mm: float = 3.0, shrink_mm: float = 7.0, floor: float = 4.0) -> list[TileFit]:
    """Fit each candidate's outline to the raw frame's Sobel ``gradients`` (int16, ``cv2.spatialGradient``)
    around the local origin of its homography (see :func:`vision.crops.piece_homographies`), within ``reach_mm``
    and a few degrees: the tile's edge (a square of ``side_mm``) or a printed frame up to ``shrink_mm`` smaller,
    concentric with it; ``floor``: the weakest edge (grey levels per mm) that counts as outline."""
    n = len(homographies)
    if n == 0:
        return []
    out = np.zeros((n, 9))
    gx, gy = gradients
    _fit_tiles(gx, gy, np.ascontiguousarray(homographies, dtype=np.float64), float(side_mm), float(reach_mm),
               float(shrink_mm), float(floor), out)
    return [TileFit(float(r[0]), float(r[1]), float(r[2]), (float(r[3]), float(r[4]), float(r[5]), float(r[6])),
                    float(r[7]), float(r[8])) for r in out]
