"""Tiles: candidate squares from the top-down view, fitted to their four edges.

Candidates come from :func:`vision.segment.square_response` (a matched filter for a tile's outline at each
dominant edge direction). Each is then fitted in the 1 px/mm view: for each side, short profiles across the
expected edge find where the gradient along the side's normal peaks; a robust line through those points gives
the side's offset and tilt. Opposite sides give the centre and the rotation, and the share of profiles that
found an edge on the fitted line is the side's *support*: a tile's outline is complete when all four sides are
supported; a hand or a piece over an edge lowers one or two.

Written with numba: it is a few hundred bilinear samples per candidate and a tiny robust fit, for up to a few
hundred candidates, which in numpy would be dominated by array overheads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from rules.pieces import TILE_MM
from vision.segment import EdgeMap, dominant_angles, peaks, square_response

__all__ = ["SquareFit", "TileFit", "tile_candidates", "fit_squares", "refine_tiles"]

_PROFILES = 11  # profiles per side
_STEP = 0.5


@dataclass(frozen=True)
class SquareFit:
    """A square fitted in the view: centre (view px), rotation (degrees, clockwise), side lengths (px) along
    its x and y axes, and the support of its left, right, top, bottom sides (0..1)."""

    x: float
    y: float
    angle_deg: float
    width: float
    height: float
    support: tuple[float, float, float, float]
    score: float  # candidate strength (matched-filter total, 0..4)

    @property
    def complete(self) -> float:
        """The support of the weakest side."""
        return min(self.support)


def tile_candidates(
    edges: EdgeMap, hist: np.ndarray, side_px: float, min_total: float = 1.5, min_weakest: float = 0.25,
    maps: list | None = None,
) -> np.ndarray:
    """(n, 4) array of candidate centres x, y (view px), rotation (degrees mod 90) and matched-filter total,
    over every dominant edge direction, strongest first, duplicates within a third of a tile merged. ``maps``, a
    list, receives (angle, total, to_view) of each direction (see :func:`outline_support`)."""
    rows = []
    for angle in dominant_angles(hist):
        total, weakest, to_view = square_response(edges, angle, side_px)
        if maps is not None:
            maps.append((angle, total, to_view))
        found = peaks(total, side_px / 2 * 0.3, min_total)
        if len(found) == 0:
            continue
        xi = np.clip(np.round(found[:, 0]).astype(int), 0, total.shape[1] - 1)
        yi = np.clip(np.round(found[:, 1]).astype(int), 0, total.shape[0] - 1)
        keep = weakest[yi, xi] >= min_weakest
        found = found[keep]
        view = found[:, :2] @ to_view[:, :2].T + to_view[:, 2]
        rows.append(np.column_stack([view, np.full(len(found), angle), found[:, 2]]))
    if not rows:
        return np.zeros((0, 4))
    out = np.vstack(rows)
    out = out[np.argsort(-out[:, 3])]
    close = np.sum((out[:, None, :2] - out[None, :, :2]) ** 2, axis=2) < (side_px / 3) ** 2
    return out[~np.any(np.tril(close, k=-1), axis=1)]


def outline_support(maps: list, view_xy: np.ndarray, angle_deg: float) -> float:
    """The matched filter's total (0..4: the share of each side's length with edges) at a view point for a tile
    turned ``angle_deg``, from the direction map nearest that turn (0 where no map is within 6 degrees)."""
    best = None
    for angle, total, to_view in maps:
        off = abs(((angle - angle_deg) + 45.0) % 90.0 - 45.0)
        if off <= 6.0 and (best is None or off < best[0]):
            best = (off, total, to_view)
    if best is None:
        return 0.0
    _, total, to_view = best
    import cv2

    to_grid = cv2.invertAffineTransform(to_view)
    gx, gy = to_grid[:, :2] @ np.asarray(view_xy, float) + to_grid[:, 2]
    xi, yi = int(round(gx)), int(round(gy))
    if not (0 <= yi < total.shape[0] and 0 <= xi < total.shape[1]):
        return 0.0
    return float(total[max(0, yi - 1) : yi + 2, max(0, xi - 1) : xi + 2].max())


@njit(cache=True, nogil=True)
def _sample(img, x, y):  # pragma: no cover - numba
    h, w = img.shape
    if x < 0.0 or y < 0.0 or x > w - 1.001 or y > h - 1.001:
        return 0.0
    x0 = int(x)
    y0 = int(y)
    fx = x - x0
    fy = y - y0
    return (
        img[y0, x0] * (1 - fx) * (1 - fy)
        + img[y0, x0 + 1] * fx * (1 - fy)
        + img[y0 + 1, x0] * (1 - fx) * fy
        + img[y0 + 1, x0 + 1] * fx * fy
    )


@njit(cache=True, nogil=True)
def _normal_strength(gx, gy, x, y, nx, ny, cap):  # pragma: no cover - numba
    """Edge strength along the unit normal (nx, ny) at (x, y), capped to 0..1; 0 unless the gradient is within
    25 degrees of the normal (an oblique edge is not this outline's edge)."""
    ex = _sample(gx, x, y)
    ey = _sample(gy, x, y)
    along = abs(ex * nx + ey * ny)
    across = abs(ey * nx - ex * ny)
    if across > 0.47 * along:
        return 0.0
    return min(along, cap) / cap


@njit(cache=True, nogil=True)
def _profiles(gx, gy, cx, cy, theta, half, length, cap, prof, ts, span):  # pragma: no cover - numba
    """Edge strength across each side at the pose (cx, cy, theta): prof[side, k, j] for profile k along the
    side and offset j (outward positive) in steps of _STEP from -span to +span; capped to 0..1."""
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
        for k in range(k_count):
            t = (-0.42 + 0.84 * k / (k_count - 1)) * length
            ts[k] = t
            for j in range(steps):
                d = -span + j * _STEP
                px = cx + (half + d) * nx + t * tx
                py = cy + (half + d) * ny + t * ty
                prof[side, k, j] = _normal_strength(gx, gy, px, py, nx, ny, cap)


@njit(cache=True, nogil=True)
def _at(prof, side, k, d, span):  # pragma: no cover - numba
    """Profile value at offset d (linear interpolation; 0 outside)."""
    x = (d + span) / _STEP
    steps = prof.shape[2]
    if x < 0.0 or x > steps - 1.001:
        return 0.0
    j = int(x)
    f = x - j
    return prof[side, k, j] * (1 - f) + prof[side, k, j + 1] * f


@njit(cache=True, nogil=True)
def _fit_squares(gx, gy, cands, side, cap, edge_min, reach, out):  # pragma: no cover - numba
    half = side / 2.0
    k_count = _PROFILES
    span = reach + 3.0  # profiles reach past the largest shift
    steps = int(2 * span / _STEP) + 1
    prof = np.zeros((4, k_count, steps))
    ts = np.zeros(k_count)
    offsets = np.zeros(4)
    wide = np.arange(-int(reach), int(reach) + 1) * 1.0  # centre moves, px: first round, whole pixels
    narrow = np.arange(-3, 4) * 0.5  # second round, around the first's result
    rotations = np.arange(-6, 7) * math.radians(0.4)
    for i in range(cands.shape[0]):
        cx = cands[i, 0]
        cy = cands[i, 1]
        theta = math.radians(cands[i, 2])
        best_u = 0.0
        best_v = 0.0
        best_r = 0.0
        for _round in range(2):
            shifts = wide if _round == 0 else narrow
            turns = rotations if _round == 0 else rotations[4:9] * 0.5
            _profiles(gx, gy, cx, cy, theta, half, side, cap, prof, ts, span)
            best = -1.0
            for r in turns:
                # offsets of each side's edge at profile k for a centre shift (du, dv) and a turn r:
                # left -du + r t, right du - r t, top -dv - r t, bottom dv + r t (see the docstring maths)
                top_u = -1.0
                arg_u = 0.0
                for du in shifts:
                    left = 0.0
                    right = 0.0
                    for k in range(k_count):
                        left += _at(prof, 0, k, -du + r * ts[k], span)
                        right += _at(prof, 1, k, du - r * ts[k], span)
                    # concave in each side: two sides half found beat one side twice over and one not at all
                    score = math.sqrt(left) + math.sqrt(right)
                    if score > top_u:
                        top_u = score
                        arg_u = du
                top_v = -1.0
                arg_v = 0.0
                for dv in shifts:
                    top = 0.0
                    bottom = 0.0
                    for k in range(k_count):
                        top += _at(prof, 2, k, -dv - r * ts[k], span)
                        bottom += _at(prof, 3, k, dv + r * ts[k], span)
                    score = math.sqrt(top) + math.sqrt(bottom)
                    if score > top_v:
                        top_v = score
                        arg_v = dv
                if top_u + top_v > best:
                    best = top_u + top_v
                    best_u = arg_u
                    best_v = arg_v
                    best_r = r
            ux = math.cos(theta)
            uy = math.sin(theta)
            cx += best_u * ux - best_v * uy
            cy += best_u * uy + best_v * ux
            theta += best_r
        # support of each side at the final pose: profiles with an edge within a pixel of the outline;
        # and where each side's own edge is (the sum over its profiles peaks there): the square's size
        _profiles(gx, gy, cx, cy, theta, half, side, cap, prof, ts, span)
        for s in range(4):
            found = 0
            for k in range(k_count):
                top = 0.0
                for j in range(steps):
                    d = -span + j * _STEP
                    if abs(d) <= 1.01 and prof[s, k, j] > top:
                        top = prof[s, k, j]
                if top >= edge_min:
                    found += 1
            out[i, 5 + s] = found / k_count
            best_sum = -1.0
            best_d = 0.0
            for j in range(steps):
                total = 0.0
                for k in range(k_count):
                    total += prof[s, k, j]
                if total > best_sum:
                    best_sum = total
                    best_d = -span + j * _STEP
            offsets[s] = best_d
        out[i, 0] = cx
        out[i, 1] = cy
        out[i, 2] = math.degrees(theta)
        out[i, 3] = side + offsets[0] + offsets[1]
        out[i, 4] = side + offsets[2] + offsets[3]


def fit_squares(edges: EdgeMap, candidates: np.ndarray, side_px: float) -> list[SquareFit]:
    """Fit each candidate (rows x, y, angle, score) to the view's edges; see the module docstring."""
    if len(candidates) == 0:
        return []
    out = np.zeros((len(candidates), 9))
    cands = np.ascontiguousarray(candidates[:, :3], dtype=np.float64)
    _fit_squares(edges.gx, edges.gy, cands, float(side_px), 4.0 * edges.noise, 0.6, 4.0, out)
    return [
        SquareFit(float(r[0]), float(r[1]), float(r[2]), float(r[3]), float(r[4]), tuple(float(v) for v in r[5:9]),
                  float(c[3]))
        for r, c in zip(out, candidates, strict=True)
    ]


# ------------------------------------------------------------------------------------------------------------
# Fine fit in the raw frame
# ------------------------------------------------------------------------------------------------------------
FINE_CONTEXT_MM = 68.0
FINE_PX_PER_MM = 2.0


@dataclass(frozen=True)
class TileFit:
    """A tile's top face fitted in a crop of the raw frame taken around a pose: the correction (mm, in the
    table frame; degrees clockwise) and the support of its left, right, top, bottom sides."""

    dx_mm: float
    dy_mm: float
    dangle_deg: float
    support: tuple[float, float, float, float]

    @property
    def complete(self) -> float:
        return min(self.support)


def refine_tiles(
    image: np.ndarray, calibration, centres_mm: np.ndarray, angles_deg: np.ndarray, height_mm: float
) -> list[TileFit]:
    """Fit each tile's outline in a crop of the raw frame at FINE_PX_PER_MM, at the top face's height, around
    the given poses (good to a few mm and degrees): the view's 1 px/mm cannot tell a printed margin from the
    tile's edge, twice the resolution of the camera's own pixels can."""
    import cv2

    from vision.crops import sample_crops

    n = len(centres_mm)
    if n == 0:
        return []
    size = int(round(FINE_CONTEXT_MM * FINE_PX_PER_MM))
    crops = sample_crops(image, calibration, centres_mm, angles_deg, height_mm, FINE_CONTEXT_MM, size)
    side = TILE_MM * FINE_PX_PER_MM
    centre = (size - 1) / 2.0
    fits = []
    out = np.zeros((1, 9))
    cand = np.array([[centre, centre, 0.0]])
    for crop, angle in zip(crops, np.asarray(angles_deg, float), strict=True):
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        magnitude = cv2.magnitude(gx, gy)
        # No saturation here: the strongest consistent outline must win over a printed margin's inner edge, and
        # a small turn must change the score (saturated plateaus would make every turn tie).
        cap = max(float(np.percentile(magnitude, 99.5)), 4.0)
        _fit_squares(gx, gy, cand, side, cap, 0.12, 4.5 * FINE_PX_PER_MM, out)
        du = (out[0, 0] - centre) / FINE_PX_PER_MM
        dv = (out[0, 1] - centre) / FINE_PX_PER_MM
        a = math.radians(angle)
        dx = du * math.cos(a) - dv * math.sin(a)
        dy = du * math.sin(a) + dv * math.cos(a)
        fits.append(TileFit(dx, dy, float(out[0, 2]), tuple(float(v) for v in out[0, 5:9])))
    return fits
