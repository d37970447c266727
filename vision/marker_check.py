"""Which of the calibration sheet's ArUco markers still show plainly in a frame, bit for bit.

The calibration knows where each marker of its sheet lies on the table and which bit pattern it carries. Where a
frame still shows that pattern at that place (every cell's middle dark or light as printed, and the white ring of
paper around the marker light), nothing lies on the marker: a tile there would hide some of it. The detector's
forced searches (a lattice place, a lopsided outline) that can only land on such a marker are then not worth
reading (:meth:`vision.detect.Detector._read_drifted`, ``_refit_lopsided``).

Written here rather than with ``cv2.aruco.detectMarkers`` because the question is narrower and must be cheap: not
"is there a marker somewhere" (a search of the whole frame, tens of milliseconds) but "does this known marker show
exactly at its known place", a few hundred grey samples. Any doubt (a shadow, glare, a corner hidden) answers no,
and the searches run as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numba import njit

from calibration.table_calibration import Calibration

# Each cell is sampled at 2 x 2 points in its middle half (cells are 5-7 mm: a millimetre of calibration error or
# of the camera's blur stays inside the cell).
_CELL_SPREAD = (-0.2, 0.2)
_RING_CELLS = 0.5  # the white ring sampled half a cell outside the marker's black border
_MIN_GAP = 30.0  # grey levels: the darkest light sample above the lightest dark one by this much at least
_MIN_GAP_SHARE = 0.3  # ... and by this share of the mean light-dark difference


@dataclass(frozen=True)
class MarkerSamples:
    """Where to look at one marker: table points (k, 2) mm, each expected dark (True) or light."""

    marker_id: int
    points_mm: np.ndarray
    dark: np.ndarray


def marker_samples(marker_id: int, corners_mm: np.ndarray, bits: np.ndarray) -> MarkerSamples:
    """The sample points of a marker whose corners (TL, TR, BR, BL, table mm) are ``corners_mm`` and whose cells
    (including the black border) are ``bits`` (cells, cells), 0 black, 255 white: 2 x 2 points in the middle of
    every cell, and a ring of points half a cell outside the border (expected white: the sheet's paper)."""
    corners = np.asarray(corners_mm, np.float64).reshape(4, 2)
    cells = bits.shape[0]
    origin, right, down = corners[0], (corners[1] - corners[0]) / cells, (corners[3] - corners[0]) / cells
    spread = np.asarray(_CELL_SPREAD)
    # every cell's 2 x 2 points (row, col, point across, point down), in cell units from the top-left corner
    index = np.arange(cells) + 0.5
    u = (index[None, :, None, None] + spread[None, None, :, None]) + np.zeros((cells, 1, 1, len(spread)))
    v = (index[:, None, None, None] + spread[None, None, None, :]) + np.zeros((1, cells, len(spread), 1))
    dark_cells = np.broadcast_to((bits < 128)[:, :, None, None], u.shape)
    # the ring: every half cell along each side, half a cell out
    steps = np.arange(-_RING_CELLS, cells + _RING_CELLS + 1e-9, 0.5)
    near, far = np.full_like(steps, -_RING_CELLS), np.full_like(steps, cells + _RING_CELLS)
    ring_u = np.concatenate([steps, steps, near, far])
    ring_v = np.concatenate([near, far, steps, steps])
    all_u = np.concatenate([u.reshape(-1), ring_u])
    all_v = np.concatenate([v.reshape(-1), ring_v])
    points = origin + all_u[:, None] * right + all_v[:, None] * down
    dark = np.concatenate([dark_cells.reshape(-1), np.zeros(len(ring_u), bool)])
    return MarkerSamples(marker_id, points, dark)


@dataclass(frozen=True)
class SheetMarkers:
    """The sample points of every marker of a calibration's sheet, each marker with as many: ``ids`` (m,),
    ``points_mm`` (m, k, 2) table mm, ``dark`` (m, k), ``pixels`` (m, k, 2) float32 where the calibration sees
    them (fixed for a calibration: mapped once, not every frame), ``boxes`` (m, 4) the points' x0, y0, x1, y1."""

    ids: np.ndarray
    points_mm: np.ndarray
    dark: np.ndarray
    pixels: np.ndarray
    boxes: np.ndarray


def sheet_markers(calibration: Calibration) -> SheetMarkers | None:
    """The sample points of the calibration's sheet's markers (None when it was not made from a sheet)."""
    samples = sheet_marker_samples(calibration)
    if not samples:
        return None
    points = np.stack([s.points_mm for s in samples])
    pixels = calibration.table_to_pixel(points.reshape(-1, 2)).reshape(points.shape).astype(np.float32)
    boxes = np.concatenate([points.min(axis=1), points.max(axis=1)], axis=1)
    return SheetMarkers(np.array([s.marker_id for s in samples]), points, np.stack([s.dark for s in samples]),
                        pixels, boxes)


def markers_shown(grey: np.ndarray, markers: SheetMarkers, which: np.ndarray | None = None) -> np.ndarray:
    """Whether the frame's grey image (full resolution, the calibration's size) shows each marker ``which``
    (indices; default all) exactly as printed (a bool each): every dark sample darker than every light one by a
    clear gap (``_MIN_GAP`` grey levels and ``_MIN_GAP_SHARE`` of the mean light-dark difference). A marker with
    a sample off the frame answers no. All their samples are read at once (one remap)."""
    which = np.arange(len(markers.ids)) if which is None else np.asarray(which, int)
    if len(which) == 0:
        return np.zeros(0, bool)
    pixels = markers.pixels[which].reshape(-1, 2)
    dark = markers.dark[which]
    values = cv2.remap(grey, np.ascontiguousarray(pixels[:, :1]), np.ascontiguousarray(pixels[:, 1:]),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32).reshape(dark.shape)
    h, w = grey.shape[:2]
    return _judge_markers(values, dark, pixels.reshape(dark.shape + (2,)), float(w - 1), float(h - 1),
                          _MIN_GAP, _MIN_GAP_SHARE)


@njit(cache=True)
def _judge_markers(values, dark, pixels, x_max, y_max, min_gap, min_share):  # pragma: no cover - numba
    # one pass a marker (numba: the numpy form took a dozen whole-array steps for ~200 samples a marker)
    out = np.zeros(values.shape[0], np.bool_)
    for m in range(values.shape[0]):
        darkest_light, lightest_dark = np.inf, -np.inf
        sum_dark, sum_light, n_dark, n_light = 0.0, 0.0, 0, 0
        inside = True
        for k in range(values.shape[1]):
            x, y = pixels[m, k, 0], pixels[m, k, 1]
            if not (x >= 0.0 and y >= 0.0 and x <= x_max and y <= y_max):
                inside = False
            v = values[m, k]
            if dark[m, k]:
                lightest_dark = max(lightest_dark, v)
                sum_dark += v
                n_dark += 1
            else:
                darkest_light = min(darkest_light, v)
                sum_light += v
                n_light += 1
        if not inside or n_dark == 0 or n_light == 0:
            continue
        gap = darkest_light - lightest_dark
        typical = sum_light / n_light - sum_dark / n_dark
        out[m] = gap >= min_gap and gap >= min_share * typical
    return out


def sheet_marker_samples(calibration: Calibration) -> list[MarkerSamples]:
    """The sample points of every marker of the calibration's sheet (none when it was not made from a sheet)."""
    report = calibration.report
    if report is None or not report.paper:
        return []
    from calibration.sheet import aruco_dictionary, sheet_layout

    try:
        layout = sheet_layout(report.paper)
    except (KeyError, ValueError):
        return []
    dictionary = aruco_dictionary(layout)
    cells = dictionary.markerSize + 2
    return [marker_samples(marker_id, corners, cv2.aruco.generateImageMarker(dictionary, marker_id, cells,
                                                                             borderBits=1))
            for marker_id, corners in layout.markers.items()]


def squares_hide_shown(centres_mm: np.ndarray, angles_deg: np.ndarray, half_mm: float, markers: SheetMarkers,
                       state: np.ndarray, least: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Whether each square (centres (n, 2) mm, turns (n,) degrees clockwise, half side mm) would cover at
    least ``least`` dark and ``least`` light sample points of a marker near it that ``state`` (m,) says the
    frame shows as printed (1; 0 not shown; -1 not looked at yet): no piece lies so (it would hide them), so
    nothing there is worth a search. Both kinds are asked for: a dark tile back over dark cells only, or a white
    tile over the white ring only, would leave those samples as printed. Returns (hides, needed): a bool per
    square, and a bool per marker near some square and not looked at yet (look at those, then ask again: their
    squares are left False)."""
    turn = np.radians(np.asarray(angles_deg, np.float64))
    centres = np.ascontiguousarray(centres_mm, np.float64).reshape(-1, 2)
    reach = half_mm * np.sqrt(2.0)  # the square's corner, however it is turned
    return _squares_hide_near(centres, np.cos(turn), np.sin(turn), float(half_mm), float(reach), markers.boxes,
                              markers.points_mm, markers.dark, state, least)


@njit(cache=True)
def _squares_hide_near(centres, cos, sin, half, reach, boxes, points, dark, state, least):  # pragma: no cover
    # the markers near each square found and tested in one pass (numba: called a few times a frame, each with a
    # handful to a few dozen squares, where numpy's per-step overheads were most of the time)
    out = np.zeros(centres.shape[0], np.bool_)
    needed = np.zeros(boxes.shape[0], np.bool_)
    for i in range(centres.shape[0]):
        x, y = centres[i, 0], centres[i, 1]
        for m in range(boxes.shape[0]):
            if not (boxes[m, 0] - reach < x < boxes[m, 2] + reach and boxes[m, 1] - reach < y < boxes[m, 3] + reach):
                continue
            if state[m] < 0:
                needed[m] = True
                continue
            if state[m] == 0 or out[i]:
                continue
            n_dark, n_light = 0, 0
            for k in range(points.shape[1]):
                dx = points[m, k, 0] - x
                dy = points[m, k, 1] - y
                if abs(dx * cos[i] + dy * sin[i]) < half and abs(dy * cos[i] - dx * sin[i]) < half:
                    if dark[m, k]:
                        n_dark += 1
                    else:
                        n_light += 1
                    if n_dark >= least and n_light >= least:
                        out[i] = True
                        break
    return out, needed
