"""The per-frame kernels made cheaper without changing what they compute: each is compared, bit for bit, with the
straightforward computation it replaced (kept here as the reference) on rendered frames."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
import pytest
from detect_scenes import coin_grid_frame, easy_slider_frame
from numba import njit

import vision.segment as segment
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import COIN_MM, TILE_MM
from vision import Detector
from vision.detect import _ink_marks
from vision.segment import (
    _dilated_maxima,
    _direction_mod90,
    _window_maxima,
    dominant_angles,
    edge_directions,
    edge_map,
    votes_and_sides,
)


@lru_cache(maxsize=4)
def _frame_and_detector(name: str):
    """A rendered frame (an Easy Slider board, or a coin grid: coins of every kind and side) and a detector
    calibrated from the sheet in it."""
    frame = easy_slider_frame(int(name[1:])) if name[0] == "e" else coin_grid_frame(int(name[1:]))
    return frame, Detector(calibrate_from_sheet(frame.image))


FRAMES = ["e500", "e505", "c1001"]


@njit(cache=True, fastmath=True, nogil=True)
def _votes_and_sides_reference(gx, gy, low, cap, radius, acc, cos_tol, turns, grids_x, grids_y):  # pragma: no cover
    """vision.segment._votes_and_sides as it was: one loop over the pixels, the directions inside it."""
    h, w = gx.shape
    low2 = low * low
    n_dir = turns.shape[0]
    gh = grids_x.shape[1]
    gw = grids_x.shape[2]
    for y in range(h):
        for x in range(w):
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            m2 = ex * ex + ey * ey
            if m2 < low2:
                continue
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
            for k in range(n_dir):
                c = turns[k, 6]
                s = turns[k, 7]
                u = int(turns[k, 0] * x + turns[k, 1] * y + turns[k, 2] + 0.5)
                v = int(turns[k, 3] * x + turns[k, 4] * y + turns[k, 5] + 0.5)
                if u < 0 or v < 0 or u >= gw or v >= gh:
                    continue
                if abs(nx * c + ny * s) >= cos_tol:
                    grids_x[k, v, u] += 0.25 * weight
                elif abs(ny * c - nx * s) >= cos_tol:
                    grids_y[k, v, u] += 0.25 * weight


@pytest.mark.parametrize("name", FRAMES)
def test_votes_and_sides_are_the_straightforward_loops(name, monkeypatch):
    """The coin votes and every direction's side grids, row by row with branch-free picking, are the one loop's
    over the pixels, bit for bit, on the view of a rendered board and of a coin grid (3-4 tile directions)."""
    frame, detector = _frame_and_detector(name)
    view = detector.view.rectify_grey(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    p = detector.view.px_per_mm
    edges = edge_map(view)
    angles = dominant_angles(edge_directions(edges, p))
    assert angles
    votes, sides = votes_and_sides(edges, COIN_MM * p, angles)
    monkeypatch.setattr(segment, "_votes_and_sides", _votes_and_sides_reference)
    votes_ref, sides_ref = votes_and_sides(edges, COIN_MM * p, angles)
    assert votes.max() > 0 and np.array_equal(votes, votes_ref)
    for grid, ref in zip(sides, sides_ref, strict=True):
        assert ref.along_x.max() > 0 and ref.along_y.max() > 0
        assert np.array_equal(grid.along_x, ref.along_x) and np.array_equal(grid.along_y, ref.along_y)


@njit(cache=True, fastmath=True, nogil=True)
def _directions_reference(gx, gy, low, cap, step, cell, hist):  # pragma: no cover - numba
    """vision.segment._directions as it was: the edge test a branch in the loop over the pixels."""
    h, w = gx.shape
    low2 = low * low
    bins = hist.shape[2]
    columns = np.empty(w, np.int64)
    for x in range(w):
        columns[x] = x // cell
    for y in range(0, h, step):
        row = y // cell
        for x in range(0, w, step):
            ex = float(gx[y, x])
            ey = float(gy[y, x])
            m2 = ex * ex + ey * ey
            if m2 < low2:
                continue
            weight = min(math.sqrt(m2), cap) / cap
            b = int(_direction_mod90(ex, ey) * bins / 90.0)
            if b >= bins:
                b -= bins
            hist[row, columns[x], b] += weight


@pytest.mark.parametrize("name", FRAMES)
def test_edge_directions_are_the_straightforward_loop(name, monkeypatch):
    """The cells' direction histograms, edge pixels listed row by row first, are the one loop's, bit for bit, at
    the view's scale (every pixel) and at 1 px/mm (every other pixel)."""
    frame, detector = _frame_and_detector(name)
    edges = edge_map(detector.view.rectify_grey(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)))
    scales = (detector.view.px_per_mm, 1.0)
    hists = [edge_directions(edges, p) for p in scales]
    monkeypatch.setattr(segment, "_directions", _directions_reference)
    for p, hist in zip(scales, hists, strict=True):
        reference = edge_directions(edges, p)
        assert reference.sum() > 0 and np.array_equal(hist, reference)


@pytest.mark.parametrize("name", FRAMES)
def test_maxima_through_the_dilation_are_those_looked_for_around_each(name, monkeypatch):
    """On a frame's maps (the coin votes, and the ink-mark map of a faint grid, where tens of thousands of pixels
    pass and windows are 27 px wide: peaks then dilates) the maxima through cv2.dilate are those the windows
    give, the same in the same order, at several window sizes; and peaks finds the same either way."""
    frame, detector = _frame_and_detector(name)
    shapes = detector.shapes(frame.image)
    p = shapes.edges_px_per_mm
    calls = []
    monkeypatch.setattr(segment, "_dilated_maxima", lambda *a: calls.append(a) or _dilated_maxima(*a))
    marks = _ink_marks(shapes.view, p, shapes.noise)
    coin_votes, _ = votes_and_sides(shapes.edges, COIN_MM * p, [grid.angle_deg for grid in shapes.sides])
    maps = [(coin_votes, COIN_MM * p * 0.4, 1.0)] + [(votes, TILE_MM / 2 * p, shapes.noise / 8.0 * 3.0)
                                                     for votes, _, _ in calls]
    for votes, radius, floor in maps:
        candidates = np.flatnonzero(votes >= floor)
        for r in (1, 4, max(1, int(round(radius)))):
            expected = _window_maxima(votes, candidates, r)
            assert len(expected) and np.array_equal(_dilated_maxima(votes, candidates, r), expected)
    monkeypatch.setattr(segment, "_dilated_maxima", _window_maxima)
    assert np.array_equal(_ink_marks(shapes.view, p, shapes.noise), marks)
    if name == "e505":
        assert calls  # its ink-mark map went through the dilation
