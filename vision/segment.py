"""Where pieces may be: edge votes for squares of a tile's size and circles of a coin's size.

Every edge pixel of the top-down view votes for where the centre of a tile would be if the edge were one of
the tile's sides (half a tile along the gradient, both ways: the tile may be brighter or darker than what is
around it) and for where a coin's centre would be if it were on a coin's rim. The four sides of a tile pile
their votes into a cross centred on the tile, a coin's rim into a sharp point; printed numerals, symbols,
wood grain and the sheet's markers scatter theirs. Peaks of the smoothed vote maps are the candidates that
:mod:`vision.tiles` and :mod:`vision.coins` then fit and the classifier checks.

This is a Hough transform specialised to two known sizes: it needs no threshold on colours (so it works for
white tiles on white paper, black backs on a dark table, touching tiles whose only edge is the seam), costs one
pass over the pixels, and works at any rotation. The votes also carry each edge's orientation (as cos and sin of
four times the angle, which a square's four sides share), so every tile candidate comes with its rotation
modulo 90 degrees. Written with numba because it is a per-pixel loop with scattered writes that numpy cannot
express without large temporaries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numba import njit

__all__ = ["EdgeMap", "edge_map", "coin_votes", "dominant_angles", "square_response", "peaks"]


@dataclass(frozen=True)
class EdgeMap:
    """Sobel gradients of the grey view (grey levels per pixel) and the noise level of their magnitude."""

    gx: np.ndarray  # float32
    gy: np.ndarray
    noise: float  # median gradient magnitude: what flat, noisy surfaces give


def edge_map(gray: np.ndarray) -> EdgeMap:
    """Gradients of a grey uint8 view (Sobel 3x3 scaled to grey levels per pixel)."""
    g = gray if gray.dtype == np.float32 else gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    step = max(1, int(math.sqrt(gx.size / 40000)))  # a subsample is plenty for a median
    sx, sy = gx[::step, ::step], gy[::step, ::step]
    noise = float(np.median(np.sqrt(sx * sx + sy * sy)))
    return EdgeMap(gx, gy, max(noise, 0.25))


@njit(cache=True, nogil=True)
def _coin_votes(gx, gy, low, cap, radius, acc, hist):  # pragma: no cover - numba
    """Coin-centre votes (both ways along the gradient, ``radius`` away) and, per cell of 128 x 128 pixels, the
    histogram of edge directions modulo 90 degrees (1 degree bins, capped weights)."""
    h, w = gx.shape
    low2 = low * low
    bins = hist.shape[2]
    for y in range(h):
        for x in range(w):
            ex = gx[y, x]
            ey = gy[y, x]
            m2 = ex * ex + ey * ey
            if m2 < low2:
                continue
            m = math.sqrt(m2)
            weight = min(m, cap) / cap  # a numeral's strong edge counts no more than a faint seam
            nx = ex / m
            ny = ey / m
            angle = math.degrees(math.atan2(ny, nx)) % 90.0
            hist[y >> 7, x >> 7, int(angle * bins / 90.0) % bins] += weight
            for sign in (-1.0, 1.0):
                cx = int(x + sign * radius * nx + 0.5)
                cy = int(y + sign * radius * ny + 0.5)
                if 0 <= cx < w and 0 <= cy < h:
                    acc[cy, cx] += weight


def coin_votes(edges: EdgeMap, coin_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed coin-centre votes for coins of diameter ``coin_px`` and the edge-direction histograms of the
    view's cells of 128 x 128 pixels (cells down, cells across, 90 one-degree bins)."""
    h, w = edges.gx.shape
    acc = np.zeros((h, w), np.float32)
    hist = np.zeros(((h + 127) // 128, (w + 127) // 128, 90), np.float64)
    _coin_votes(edges.gx, edges.gy, 1.5 * edges.noise, 4.0 * edges.noise, coin_px / 2.0, acc, hist)
    return cv2.GaussianBlur(acc, (0, 0), max(0.8, 0.05 * coin_px)), hist


def _smooth(hist: np.ndarray) -> np.ndarray:
    out = hist.copy()
    for k in (1, 2):  # circular [1 2 3 2 1]/9 smoothing: nudged tiles spread over a few degrees
        out = out + (3 - k) / 3 * (np.roll(hist, k, axis=-1) + np.roll(hist, -k, axis=-1))
    return out


def dominant_angles(hist: np.ndarray, limit: int = 4) -> list[float]:
    """Directions (degrees modulo 90) that the edges of some part of the view share: the rotations of the tiles.

    ``hist``: per-cell direction histograms (see :func:`coin_votes`). Each cell whose histogram has a clear peak
    votes for it (a board turned on a wood table: the wood's grain wins the whole view's histogram, the board
    wins the cells it covers); the directions most cells agree on come first, with the direction of the whole
    view's strongest peak always among them."""
    cells = _smooth(hist.reshape(-1, hist.shape[-1]))
    bins = cells.shape[1]
    votes = np.zeros(bins)
    for cell in cells:
        total = cell.sum()
        if total <= 0:
            continue
        i = int(np.argmax(cell))
        if cell[i] >= 2.5 * np.median(cell):
            votes[i] += 1.0 + cell[i] / total  # a sharp, strong peak counts a little more
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


@njit(cache=True, nogil=True)
def _side_maps(gx, gy, low, cap, cos_tol, c, s, out_x, out_y):  # pragma: no cover - numba
    """Edge weights of pixels whose direction is within the tolerance of the tile's x (``out_x``) or y axis
    (``out_y``), summed into 2x2 blocks (the half-size grids)."""
    h, w = gx.shape
    low2 = low * low
    for y in range(h):
        for x in range(w):
            ex = gx[y, x]
            ey = gy[y, x]
            m2 = ex * ex + ey * ey
            if m2 < low2:
                continue
            m = math.sqrt(m2)
            weight = 0.25 * min(m, cap) / cap
            along = abs(ex * c + ey * s)
            if along >= cos_tol * m:
                out_x[y >> 1, x >> 1] += weight
            elif abs(ey * c - ex * s) >= cos_tol * m:
                out_y[y >> 1, x >> 1] += weight


def square_response(
    edges: EdgeMap, angle_deg: float, side_px: float, tolerance_deg: float = 8.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matched filter for squares of ``side_px`` (view pixels) turned by ``angle_deg``.

    Returns ``(total, weakest, to_view)``: per pixel of a rotated half-resolution grid, the edge support of the
    four sides of a square centred there (each side's share of its length with edges of the right direction,
    within ``tolerance_deg``; 4 is a perfect outline), the support of the weakest side but one (a hand may hide
    one side), and the 2x3 affine matrix from that grid to view pixels. Integrating along whole sides is what
    finds faint seams that single edge pixels cannot vote for.
    """
    gx, gy = edges.gx, edges.gy
    theta = math.radians(angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    h, w = gx.shape
    small_w, small_h = (w + 1) // 2, (h + 1) // 2
    side_x = np.zeros((small_h, small_w), np.float32)
    side_y = np.zeros((small_h, small_w), np.float32)
    cap = 4.0 * edges.noise
    _side_maps(gx, gy, 1.5 * edges.noise, cap, math.cos(math.radians(tolerance_deg)), c, s, side_x, side_y)
    # Rotate by -angle about the centre into a grid where the squares are axis-aligned.
    out_w = int(math.ceil(abs(c) * small_w + abs(s) * small_h)) + 2
    out_h = int(math.ceil(abs(s) * small_w + abs(c) * small_h)) + 2
    rotate = cv2.getRotationMatrix2D(((small_w - 1) / 2, (small_h - 1) / 2), angle_deg, 1.0)
    rotate[0, 2] += (out_w - 1) / 2 - (small_w - 1) / 2
    rotate[1, 2] += (out_h - 1) / 2 - (small_h - 1) / 2
    if abs(angle_deg) > 0.05:
        side_x = cv2.warpAffine(side_x, rotate, (out_w, out_h), flags=cv2.INTER_LINEAR)
        side_y = cv2.warpAffine(side_y, rotate, (out_w, out_h), flags=cv2.INTER_LINEAR)
    else:
        side_x = cv2.copyMakeBorder(side_x, 1, out_h - small_h - 1, 1, out_w - small_w - 1, cv2.BORDER_CONSTANT)
        side_y = cv2.copyMakeBorder(side_y, 1, out_h - small_h - 1, 1, out_w - small_w - 1, cv2.BORDER_CONSTANT)
        rotate = np.array([[1.0, 0, 1], [0, 1.0, 1]])
    # A side may be a pixel off (tiles are nudged, the top face is raised): take the best of three.
    grid_x = cv2.dilate(side_x, np.ones((1, 3), np.float32))
    grid_y = cv2.dilate(side_y, np.ones((3, 1), np.float32))
    # view -> half grid: a view pixel p lies at (p - 0.5) / 2 (blocks of 2x2 pixels); then the rotation
    to_small = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])
    to_grid = (np.vstack([rotate, [0, 0, 1]]) @ to_small)[:2]
    side = side_px / 2
    length = max(3, int(round(side * 0.9)) | 1)
    half = int(round(side / 2))
    # A sharp edge one view pixel wide fills half of each 2x2 block with weight 1/4 per pixel: 0.5 per grid
    # pixel; Sobel edges are about two pixels wide: about 1. The box mean along a side is then its share.
    vertical = cv2.boxFilter(grid_x, -1, (1, length), normalize=True, borderType=cv2.BORDER_CONSTANT)
    horizontal = cv2.boxFilter(grid_y, -1, (length, 1), normalize=True, borderType=cv2.BORDER_CONSTANT)
    np.minimum(vertical, 1.0, out=vertical)
    np.minimum(horizontal, 1.0, out=horizontal)
    left = np.zeros((out_h, out_w), np.float32)
    right = np.zeros_like(left)
    top = np.zeros_like(left)
    bottom = np.zeros_like(left)
    left[:, half:] = vertical[:, : out_w - half]
    right[:, : out_w - half] = vertical[:, half:]
    top[half:, :] = horizontal[: out_h - half, :]
    bottom[: out_h - half, :] = horizontal[half:, :]
    total = left + right + top + bottom
    # second smallest of four: the larger of the two pairwise minima's smaller... via a sorting network
    lo1, hi1 = np.minimum(left, right), np.maximum(left, right)
    lo2, hi2 = np.minimum(top, bottom), np.maximum(top, bottom)
    weakest = np.minimum(np.maximum(lo1, lo2), np.minimum(hi1, hi2))
    return total, weakest, cv2.invertAffineTransform(to_grid)


def peaks(votes: np.ndarray, radius_px: float, min_votes: float, limit: int = 400) -> np.ndarray:
    """Local maxima of a vote map at least ``radius_px`` apart with at least ``min_votes``: (n, 3) array of
    x, y (sub-pixel, parabolic) and value, strongest first."""
    r = max(1, int(round(radius_px)))
    kernel = np.ones((2 * r + 1, 2 * r + 1), np.uint8)  # square: separable, so cheap; the radius check follows
    dilated = cv2.dilate(votes, kernel)
    mask = (votes >= dilated) & (votes >= min_votes)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return np.zeros((0, 3))
    values = votes[ys, xs]
    order = np.argsort(-values)[:limit]
    ys, xs, values = ys[order], xs[order], values[order]
    h, w = votes.shape
    fx = xs.astype(np.float64)
    fy = ys.astype(np.float64)
    inner = (xs > 0) & (xs < w - 1) & (ys > 0) & (ys < h - 1)
    i = np.nonzero(inner)[0]
    left, right = votes[ys[i], xs[i] - 1], votes[ys[i], xs[i] + 1]
    up, down = votes[ys[i] - 1, xs[i]], votes[ys[i] + 1, xs[i]]
    centre = values[i]
    dx = 0.5 * (left - right) / np.minimum(left - 2 * centre + right, -1e-6)
    dy = 0.5 * (up - down) / np.minimum(up - 2 * centre + down, -1e-6)
    fx[i] += np.clip(dx, -0.5, 0.5)
    fy[i] += np.clip(dy, -0.5, 0.5)
    # Plateaus give several equal maxima: keep the first (strongest) of any that are closer than the radius.
    points = np.column_stack([fx, fy])
    close = np.sum((points[:, None, :] - points[None, :, :]) ** 2, axis=2) < r * r
    keep = ~np.any(np.tril(close, k=-1), axis=1)
    return np.column_stack([fx[keep], fy[keep], values[keep]])
