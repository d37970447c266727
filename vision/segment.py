"""Where pieces may be: edge votes for circles of a coin's size and a matched filter for squares of a tile's size.

Every edge pixel of the top-down view votes for where a coin's centre would be if the edge were on a coin's rim
(half a coin along the gradient, both ways: the coin may be lighter or darker than what is around it): a rim
piles its votes into a sharp point, printed numerals, wood grain and the sheet's markers scatter theirs. For
tiles, the edges are sorted by direction: those along a tile's x axis and those along its y axis, for each
direction the tiles of the view share (a board turned on the table, a tile knocked askew), each into a grid
turned with the tiles at half the view's resolution. There, the share of each side of a square that has edges
is a box filter, and a square's four sides add up at its centre (:func:`square_response`): integrating along
whole sides finds faint seams (white tiles touching on white paper) that single edge pixels cannot vote for.

This is a Hough transform specialised to two known sizes: no threshold on colours (white tiles on white paper,
black backs on a dark table, touching tiles whose only edge is the seam), one pass over the pixels, any
rotation. The pixel loops are numba (scattered writes that numpy cannot express without large temporaries);
every kernel runs once per frame over the view, and nothing allocates per pixel.

Gradients are OpenCV's 3x3 Sobel (``cv2.spatialGradient``, int16: 8 units per grey level per pixel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numba import njit

__all__ = ["EdgeMap", "SideGrid", "edge_map", "edge_directions", "dominant_angles", "votes_and_sides",
           "square_response", "peaks", "squared_distances", "SOBEL_UNIT"]

SOBEL_UNIT = 8.0  # Sobel 3x3 units per grey level per pixel
_CELL_MM = 128.0  # side of the cells whose edge directions vote (see dominant_angles)


@dataclass(frozen=True)
class EdgeMap:
    """Sobel gradients of the grey view (int16, ``SOBEL_UNIT`` per grey level per pixel) and the noise level of
    their magnitude (same units): what flat, noisy surfaces give."""

    gx: np.ndarray
    gy: np.ndarray
    noise: float


@njit(cache=True, nogil=True)
def _median_magnitude(gx, gy, step):  # pragma: no cover - numba
    """Median of the gradient magnitude over every ``step``-th pixel (a histogram of whole units)."""
    h, w = gx.shape
    counts = np.zeros(2048, np.int64)
    n = 0
    for y in range(0, h, step):
        for x in range(0, w, step):
            m = int(math.sqrt(float(gx[y, x]) ** 2 + float(gy[y, x]) ** 2))
            counts[min(m, 2047)] += 1
            n += 1
    half = n // 2
    total = 0
    for m in range(2048):
        total += counts[m]
        if total > half:
            return float(m) + 0.5
    return 2047.0


def edge_map(gray: np.ndarray) -> EdgeMap:
    """Gradients of a grey uint8 view."""
    gx, gy = cv2.spatialGradient(np.ascontiguousarray(gray))
    step = max(1, int(math.sqrt(gx.size / 40000)))  # a subsample is plenty for a median
    noise = _median_magnitude(gx, gy, step)
    return EdgeMap(gx, gy, max(noise, 0.25 * SOBEL_UNIT))


@njit(cache=True, fastmath=True, nogil=True)
def _atan_unit(t):  # pragma: no cover - numba
    """atan(t) for 0 <= t <= 1, within 0.25 degrees (enough for one-degree bins, and no libm call)."""
    return t * (0.7853981633974483 + 0.273 * (1.0 - t))


@njit(cache=True, fastmath=True, nogil=True)
def _direction_mod90(ex, ey):  # pragma: no cover - numba
    """The gradient's direction modulo 90 degrees, in degrees [0, 90)."""
    ax = abs(ex)
    ay = abs(ey)
    if ay <= ax:
        a = _atan_unit(ay / ax) if ax > 0 else 0.0
    else:
        a = 1.5707963267948966 - _atan_unit(ax / ay)
    degrees = a * 57.29577951308232
    if ex * ey < 0:
        degrees = 90.0 - degrees
    # degrees lies in (-90, 180) (a hair outside [0, 90] at most): there Python's ``degrees % 90.0`` is exactly
    # this (its fmod is exact, x - 90 too by Sterbenz's lemma), without the call that took half this kernel's time
    if degrees < 0.0:
        degrees += 90.0
    elif degrees >= 90.0:
        degrees -= 90.0
    return degrees


@njit(cache=True, fastmath=True, nogil=True)
def _directions(gx, gy, low, cap, step, cell, hist):  # pragma: no cover - numba
    """Per cell of ``cell`` x ``cell`` pixels, the histogram of edge directions modulo 90 degrees (one-degree
    bins, weights capped: a numeral's strong edge counts no more than a faint seam), over every ``step``-th
    pixel."""
    h, w = gx.shape
    low2 = low * low
    bins = hist.shape[2]
    # each row's and column's cell worked out once (an integer division per edge pixel was a fifth of the time)
    columns = np.empty(w, np.int64)
    for x in range(w):
        columns[x] = x // cell
    xs = np.empty(w, np.int64)
    for y in range(0, h, step):
        row = y // cell
        # the row's edge pixels listed first, without a branch (see _votes_and_sides), then binned in order
        count = 0
        for x in range(0, w, step):
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            xs[count] = x
            count += ex * ex + ey * ey >= low2
        for i in range(count):
            x = xs[i]
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            m2 = ex * ex + ey * ey
            weight = min(math.sqrt(m2), cap) / cap
            b = int(_direction_mod90(ex, ey) * bins / 90.0)  # >= 0
            if b >= bins:  # (as ``% bins`` did)
                b -= bins
            hist[row, columns[x], b] += weight


def edge_directions(edges: EdgeMap, px_per_mm: float = 1.0) -> np.ndarray:
    """Histograms of edge directions modulo 90 degrees of the view's cells of 128 x 128 mm (cells down, cells
    across, 90 one-degree bins), from every other pixel (every pixel below 1 px/mm)."""
    h, w = edges.gx.shape
    cell = max(16, int(round(_CELL_MM * px_per_mm)))
    hist = np.zeros(((h + cell - 1) // cell, (w + cell - 1) // cell, 90), np.float64)
    _directions(edges.gx, edges.gy, 1.5 * edges.noise, 4.0 * edges.noise, 2 if px_per_mm >= 0.99 else 1, cell, hist)
    return hist


def _smooth(hist: np.ndarray) -> np.ndarray:
    out = hist.copy()
    for k in (1, 2):  # circular [1 2 3 2 1]/9 smoothing: nudged tiles spread over a few degrees
        out = out + (3 - k) / 3 * (np.roll(hist, k, axis=-1) + np.roll(hist, -k, axis=-1))
    return out


def dominant_angles(hist: np.ndarray, limit: int = 4) -> list[float]:
    """Directions (degrees modulo 90) that the edges of some part of the view share: the rotations of the tiles.

    ``hist``: per-cell direction histograms (see :func:`edge_directions`). Each cell whose histogram has a clear
    peak votes for it (a board turned on a wood table: the wood's grain wins the whole view's histogram, the
    board wins the cells it covers); the directions most cells agree on come first, with the direction of the
    whole view's strongest peak always among them."""
    cells = _smooth(hist.reshape(-1, hist.shape[-1]))
    bins = cells.shape[1]
    totals = cells.sum(axis=1)
    best = np.argmax(cells, axis=1)
    top = cells[np.arange(len(cells)), best]
    clear = (totals > 0) & (top >= 2.5 * np.median(cells, axis=1))
    votes = np.zeros(bins)
    np.add.at(votes, best[clear], 1.0 + top[clear] / np.maximum(totals[clear], 1e-9))
    overall = _smooth(hist.reshape(-1, bins).sum(axis=0))
    votes[int(np.argmax(overall))] += 1e6  # the whole view's main direction is always tried
    found: list[float] = []
    smoothed = votes + 0.5 * (np.roll(votes, 1) + np.roll(votes, -1))
    for i in np.argsort(-smoothed):
        if len(found) >= limit or smoothed[i] < 1.0:
            break
        if any(min(abs(i - f), bins - abs(i - f)) < 5 for f in (round(a * bins / 90.0 - 0.5) for a in found)):
            continue
        found.append((i + 0.5) * 90.0 / bins)  # to a degree: the fits correct the rest
    return found


@dataclass(frozen=True)
class SideGrid:
    """Edges of one direction sorted into a grid turned by ``angle_deg`` at half the view's resolution:
    ``along_x`` holds edges whose normal is the tiles' x axis (their left and right sides), ``along_y`` those of
    the y axis; ``to_view`` is the 2x3 affine matrix from grid to view pixels."""

    angle_deg: float
    along_x: np.ndarray
    along_y: np.ndarray
    to_view: np.ndarray


def _grid_geometry(shape: tuple[int, int], angle_deg: float) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Size of the turned half-resolution grid, and the affine matrices view -> grid and grid -> view."""
    h, w = shape
    sw, sh = (w + 1) / 2.0, (h + 1) / 2.0
    theta = math.radians(angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    out_w = int(math.ceil(abs(c) * sw + abs(s) * sh)) + 2
    out_h = int(math.ceil(abs(s) * sw + abs(c) * sh)) + 2
    small_c = np.array([(sw - 1) / 2, (sh - 1) / 2])
    grid_c = np.array([(out_w - 1) / 2, (out_h - 1) / 2])
    turn = np.array([[c, s], [-s, c]])  # small -> grid: the tiles' axes become the grid's
    to_small = np.array([[0.5, 0.0, -0.25], [0.0, 0.5, -0.25]])  # view pixel p lies at (p - 0.5) / 2
    to_grid = np.zeros((2, 3))
    to_grid[:, :2] = turn @ to_small[:, :2]
    to_grid[:, 2] = turn @ (to_small[:, 2] - small_c) + grid_c
    return out_w, out_h, to_grid, cv2.invertAffineTransform(to_grid)


@njit(cache=True, fastmath=True, nogil=True)
def _votes_and_sides(gx, gy, low, cap, radius, acc, cos_tol, turns, grids_x, grids_y):  # pragma: no cover
    """One pass over the edge pixels: coin-centre votes (both ways along the gradient, ``radius`` away) into
    ``acc``, and for each direction k (``turns[k]`` = view -> grid affine row-major, cos, sin) the edge weights
    of pixels within the tolerance of the tiles' x axis (``grids_x[k]``) or y axis (``grids_y[k]``).

    Row by row: a row's edge pixels (position, unit normal, weight) are listed first, then each direction picks
    those along each of its axes into a list of its own (no branch: a branch taken for about half of them at
    random was most of this kernel's time) and adds them to its grid. Each grid gets the same additions in the
    same order as a loop over the pixels with the directions inside it: the same sums, bit for bit."""
    h, w = gx.shape
    low2 = low * low
    n_dir = turns.shape[0]
    gh = grids_x.shape[1]
    gw = grids_x.shape[2]
    xs = np.empty(w, np.int64)
    nxs = np.empty(w)
    nys = np.empty(w)
    weights = np.empty(w)
    pick_x = np.empty(w, np.int64)
    pick_y = np.empty(w, np.int64)
    for y in range(h):
        count = 0
        for x in range(w):  # the row's edge pixels listed (without a branch: see above)
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            xs[count] = x
            count += ex * ex + ey * ey >= low2
        for i in range(count):
            x = xs[i]
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            m2 = ex * ex + ey * ey
            m = math.sqrt(m2)
            weight = min(m, cap) / cap
            nx = ex / m
            ny = ey / m
            cx = int(x + radius * nx + 0.5)
            cy = int(y + radius * ny + 0.5)
            if 0 <= cx < w and 0 <= cy < h:
                acc[cy, cx] += weight
            cx = int(x - radius * nx + 0.5)
            cy = int(y - radius * ny + 0.5)
            if 0 <= cx < w and 0 <= cy < h:
                acc[cy, cx] += weight
            nxs[i] = nx
            nys[i] = ny
            weights[i] = weight
        for k in range(n_dir):
            c = turns[k, 6]
            s = turns[k, 7]
            n_x = 0
            n_y = 0
            for i in range(count):
                along_x = abs(nxs[i] * c + nys[i] * s) >= cos_tol
                along_y = abs(nys[i] * c - nxs[i] * s) >= cos_tol
                pick_x[n_x] = i
                pick_y[n_y] = i
                n_x += along_x
                n_y += along_y and not along_x
            for axis in range(2):
                grid = grids_x[k] if axis == 0 else grids_y[k]
                picked = pick_x if axis == 0 else pick_y
                for j in range(n_x if axis == 0 else n_y):
                    i = picked[j]
                    u = int(turns[k, 0] * xs[i] + turns[k, 1] * y + turns[k, 2] + 0.5)
                    v = int(turns[k, 3] * xs[i] + turns[k, 4] * y + turns[k, 5] + 0.5)
                    if u < 0 or v < 0 or u >= gw or v >= gh:
                        continue
                    grid[v, u] += 0.25 * weights[i]


def votes_and_sides(
    edges: EdgeMap, coin_px: float, angles_deg: list[float], tolerance_deg: float = 8.0
) -> tuple[np.ndarray, list[SideGrid]]:
    """Smoothed coin-centre votes for coins of diameter ``coin_px``, and the side grids of each direction in
    ``angles_deg`` (edges within ``tolerance_deg`` of the tiles' axes)."""
    h, w = edges.gx.shape
    geometry = [_grid_geometry((h, w), a) for a in angles_deg]
    gw = max([g[0] for g in geometry], default=1)
    gh = max([g[1] for g in geometry], default=1)
    n = len(angles_deg)
    grids_x = np.zeros((n, gh, gw), np.float32)
    grids_y = np.zeros((n, gh, gw), np.float32)
    turns = np.zeros((max(n, 1), 8))
    for k, (a, (_, _, to_grid, _)) in enumerate(zip(angles_deg, geometry, strict=True)):
        turns[k, :6] = to_grid.ravel()
        turns[k, 6:] = math.cos(math.radians(a)), math.sin(math.radians(a))
    acc = np.zeros((h, w), np.float32)
    _votes_and_sides(edges.gx, edges.gy, 1.5 * edges.noise, 4.0 * edges.noise, coin_px / 2.0, acc,
                     math.cos(math.radians(tolerance_deg)), turns[:n], grids_x, grids_y)
    votes = cv2.GaussianBlur(acc, (0, 0), max(0.8, 0.05 * coin_px))
    sides = [SideGrid(a, grids_x[k, : g[1], : g[0]], grids_y[k, : g[1], : g[0]], g[3])
             for k, (a, g) in enumerate(zip(angles_deg, geometry, strict=True))]
    return votes, sides


@njit(cache=True, fastmath=True, nogil=True)
def _square_filter(side_x, side_y, length, half, total, weakest):  # pragma: no cover - numba
    """The matched filter on a turned grid: each side's share of edges (box mean over ``length`` of the
    direction's edges, dilated by a pixel across, capped at 1), four sides ``half`` away from the centre."""
    h, w = side_x.shape
    # dilate across the side (a side may be a pixel off) and integrate along it (cumulative sums); the two in
    # loops of their own: the columns' sums run across a row independently (the compiler vectorises them),
    # the rows' sums are a chain along each row (the same sums, in the same order, as one loop doing both)
    col = np.zeros((h + 1, w), np.float32)  # cumulative sums down the columns of the dilated x-edges
    row = np.zeros((h, w + 1), np.float32)  # ... along the rows of the dilated y-edges
    for y in range(h):
        for x in range(w):
            a = side_x[y, x]
            if x > 0 and side_x[y, x - 1] > a:
                a = side_x[y, x - 1]
            if x < w - 1 and side_x[y, x + 1] > a:
                a = side_x[y, x + 1]
            col[y + 1, x] = col[y, x] + a
    for y in range(h):
        for x in range(w):
            b = side_y[y, x]
            if y > 0 and side_y[y - 1, x] > b:
                b = side_y[y - 1, x]
            if y < h - 1 and side_y[y + 1, x] > b:
                b = side_y[y + 1, x]
            row[y, x + 1] = row[y, x] + b
    r = length // 2
    inv = 1.0 / length
    for y in range(h):
        y0 = max(y - r, 0)
        y1 = min(y + r + 1, h)
        for x in range(w):
            x0 = max(x - r, 0)
            x1 = min(x + r + 1, w)
            # left and right sides: columns x -+ half over rows y0..y1; top and bottom: rows y -+ half
            left = 0.0
            right = 0.0
            top = 0.0
            bottom = 0.0
            if x - half >= 0:
                left = min((col[y1, x - half] - col[y0, x - half]) * inv, 1.0)
            if x + half < w:
                right = min((col[y1, x + half] - col[y0, x + half]) * inv, 1.0)
            if y - half >= 0:
                top = min((row[y - half, x1] - row[y - half, x0]) * inv, 1.0)
            if y + half < h:
                bottom = min((row[y + half, x1] - row[y + half, x0]) * inv, 1.0)
            total[y, x] = left + right + top + bottom
            lo1 = min(left, right)
            hi1 = max(left, right)
            lo2 = min(top, bottom)
            hi2 = max(top, bottom)
            weakest[y, x] = min(max(lo1, lo2), min(hi1, hi2))  # the second smallest of four


def square_response(sides: SideGrid, side_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Matched filter for squares of ``side_px`` (view pixels) on a direction's side grid: per grid pixel the
    edge support of the four sides of a square centred there (each side's share of its length with edges of the
    right direction; 4 is a perfect outline) and the support of the weakest side but one (a hand may hide one
    side). Map grid points to the view with ``sides.to_view``."""
    side = side_px / 2
    length = max(3, int(round(side * 0.9)) | 1)
    half = int(round(side / 2))
    # A sharp edge one view pixel wide puts about 0.5 into each grid pixel along it; Sobel edges are about two
    # pixels wide: about 1. The box mean along a side is then its share.
    total = np.empty(sides.along_x.shape, np.float32)
    weakest = np.empty_like(total)
    _square_filter(sides.along_x, sides.along_y, length, half, total, weakest)
    return total, weakest


def squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) squared distances between the rows of ``a`` (n, 2) and ``b`` (m, 2): bit for bit
    ``np.sum((a[:, None] - b[None]) ** 2, axis=2)`` (the same differences and squares, and a sum of two is one
    addition), 5-8 times faster: numpy reduces over an axis of length two slowly."""
    a = np.asarray(a)
    b = np.asarray(b)
    dx = a[:, 0, None] - b[None, :, 0]
    dy = a[:, 1, None] - b[None, :, 1]
    return dx * dx + dy * dy


@njit(cache=True, nogil=True)
def _refine(votes, ys, xs, out):  # pragma: no cover - numba
    """Sub-pixel (parabolic) positions and values of the maxima at (ys, xs): out rows x, y, value."""
    h, w = votes.shape
    for n in range(ys.shape[0]):
        y = ys[n]
        x = xs[n]
        v = votes[y, x]
        fx = float(x)
        fy = float(y)
        if 0 < x < w - 1:
            a = votes[y, x - 1]
            c = votes[y, x + 1]
            d = a - 2 * v + c
            if d < -1e-6:
                fx += min(max(0.5 * (a - c) / d, -0.5), 0.5)
        if 0 < y < h - 1:
            a = votes[y - 1, x]
            c = votes[y + 1, x]
            d = a - 2 * v + c
            if d < -1e-6:
                fy += min(max(0.5 * (a - c) / d, -0.5), 0.5)
        out[n, 0] = fx
        out[n, 1] = fy
        out[n, 2] = v


@njit(cache=True, nogil=True)
def _window_maxima(votes, candidates, r):  # pragma: no cover - numba
    """Of the row-major flat indices ``candidates`` (ascending), those whose value no pixel of its (2r + 1)^2
    window (clipped at the map's edges) exceeds, in the same order."""
    h, w = votes.shape
    out = np.empty(candidates.shape[0], np.int64)
    count = 0
    for i in range(candidates.shape[0]):
        y = candidates[i] // w
        x = candidates[i] - y * w
        v = votes[y, x]
        top = True
        for yy in range(max(y - r, 0), min(y + r + 1, h)):
            for xx in range(max(x - r, 0), min(x + r + 1, w)):
                if votes[yy, xx] > v:
                    top = False
                    break
            if not top:
                break
        if top:
            out[count] = candidates[i]
            count += 1
    return out[:count]


def _dilated_maxima(votes: np.ndarray, candidates: np.ndarray, r: int) -> np.ndarray:
    """:func:`_window_maxima` through the map's grey dilation: those of ``candidates`` (row-major flat indices,
    ascending) that equal the maximum of their (2r + 1)^2 window, the same ones in the same order (a maximum is
    exact, and cv2.dilate's default border leaves out what lies outside the map, as the window's clipping does)."""
    dilated = cv2.dilate(votes, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    return candidates[votes.ravel()[candidates] >= dilated.ravel()[candidates]]


def _maxima(votes: np.ndarray, candidates: np.ndarray, r: int) -> np.ndarray:
    """The local maxima among ``candidates`` (see :func:`_window_maxima`), whichever way costs less: looking
    around each candidate costs up to its window's area, the dilation (separable) a little per pixel of the map
    (measured: ~39k candidates in 27 x 27 windows of a faint board's ink-mark map, 384 x 549, 2.9 ms looking
    around each and 0.4 ms dilating; the usual few hundred to two thousand in 9 x 9 windows, 0.002-0.05 ms
    looking around, 0.04-0.12 ms dilating)."""
    if len(candidates) * (2 * r + 1) ** 2 > 8 * votes.size:
        return _dilated_maxima(votes, candidates, r)
    return _window_maxima(votes, candidates, r)


def peaks(votes: np.ndarray, radius_px: float, min_votes: float, limit: int = 400,
          mask: np.ndarray | None = None, min_mask: float = 0.0) -> np.ndarray:
    """Local maxima of a vote map at least ``radius_px`` apart with at least ``min_votes`` (and, given ``mask``
    of the same shape, where it is at least ``min_mask``): (n, 3) array of x, y (sub-pixel, parabolic) and
    value, strongest first. (The maxima: equal to the map's grey dilation, a separable running max whatever the
    radius; plateaus and near ties closer than the radius keep the strongest, first in reading order.)"""
    r = max(1, int(round(radius_px)))
    votes = np.ascontiguousarray(votes, dtype=np.float32)
    keep = votes >= min_votes
    if mask is not None:
        keep &= mask >= min_mask
    # the maxima among the few pixels with enough votes: exactly where the map equals its grey dilation (a
    # window's maximum over the pixels inside the map, as cv2.dilate's border takes them), without dilating the
    # whole map; row-major flat indices split: the same (ys, xs) in the same order as np.nonzero(keep), which
    # is ten times slower on a 2-D mask (numpy 2: about 0.9 ms against 0.09 ms on a 384x549 view)
    ys, xs = np.divmod(_maxima(votes, np.flatnonzero(keep), r), votes.shape[1])
    if len(ys) == 0:
        return np.zeros((0, 3))
    order = np.argsort(-votes[ys, xs], kind="stable")[: 4 * limit]
    ys, xs = ys[order], xs[order]
    out = np.zeros((len(ys), 3))
    _refine(votes, ys.astype(np.int64), xs.astype(np.int64), out)
    close = squared_distances(out[:, :2], out[:, :2]) < r * r
    out = out[~np.any(np.tril(close, k=-1), axis=1)]
    return out[:limit]
