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

from calibration.table_calibration import Calibration
from vision.crops import piece_axes

# Each cell is sampled at 3 x 3 points over its middle half (cells are 5-7.5 mm: a millimetre of calibration error
# or of the camera's blur stays inside the cell).
_CELL_SPREAD = (-0.25, 0.0, 0.25)
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
    (including the black border) are ``bits`` (cells, cells), 0 black, 255 white: 3 x 3 points in the middle of
    every cell, and a ring of points half a cell outside the border (expected white: the sheet's paper)."""
    corners = np.asarray(corners_mm, np.float64).reshape(4, 2)
    cells = bits.shape[0]
    origin, right, down = corners[0], (corners[1] - corners[0]) / cells, (corners[3] - corners[0]) / cells
    spread = np.asarray(_CELL_SPREAD)
    # every cell's 3 x 3 points (row, col, point across, point down), in cell units from the top-left corner
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


def markers_shown(grey: np.ndarray, calibration: Calibration, samples: list[MarkerSamples]) -> np.ndarray:
    """Whether the frame's grey image (full resolution, the calibration's size) shows each marker exactly as
    printed (bool per marker): every dark sample darker than every light one by a clear gap (``_MIN_GAP`` grey
    levels and ``_MIN_GAP_SHARE`` of the mean light-dark difference). A marker with a sample off the frame
    answers no. All markers' samples are mapped and read at once (one projection, one remap: the markers of one
    sheet have as many samples each)."""
    if not samples:
        return np.zeros(0, bool)
    points = np.stack([s.points_mm for s in samples])  # (markers, k, 2)
    dark = np.stack([s.dark for s in samples])
    pixels = calibration.table_to_pixel(points.reshape(-1, 2)).astype(np.float32)
    values = cv2.remap(grey, np.ascontiguousarray(pixels[:, :1]), np.ascontiguousarray(pixels[:, 1:]),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32).reshape(dark.shape)
    h, w = grey.shape[:2]
    inside = ((pixels[:, 0] >= 0.0) & (pixels[:, 1] >= 0.0) & (pixels[:, 0] <= w - 1)
              & (pixels[:, 1] <= h - 1)).reshape(dark.shape).all(axis=1)
    darkest_light = np.where(dark, np.inf, values).min(axis=1)
    lightest_dark = np.where(dark, values, -np.inf).max(axis=1)
    n_dark = np.maximum(dark.sum(axis=1), 1)
    n_light = np.maximum((~dark).sum(axis=1), 1)
    typical = np.where(dark, 0.0, values).sum(axis=1) / n_light - np.where(dark, values, 0.0).sum(axis=1) / n_dark
    gap = darkest_light - lightest_dark
    return inside & (gap >= _MIN_GAP) & (gap >= _MIN_GAP_SHARE * typical)


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


def shown_markers(grey: np.ndarray, calibration: Calibration, samples: list[MarkerSamples]) -> list[MarkerSamples]:
    """Those of ``samples`` whose marker the frame shows exactly as printed (see :func:`markers_shown`)."""
    return [s for s, shown in zip(samples, markers_shown(grey, calibration, samples), strict=True) if shown]


def square_hides_marker(centre_mm: np.ndarray, angle_deg: float, half_mm: float, shown: list[MarkerSamples],
                        least: int = 3) -> bool:
    """Whether a square (centre, turn clockwise in degrees, half side mm) would cover at least ``least`` dark and
    ``least`` light sample points of a marker the frame shows as printed: no piece lies so (it would hide them),
    so nothing there is worth a search. Both kinds are asked for: a dark tile back over dark cells only, or a
    white tile over the white ring only, would leave those samples as printed."""
    centres = np.asarray(centre_mm, np.float64).reshape(1, 2)
    return any(bool(squares_hide_marker(centres, np.array([angle_deg], np.float64), half_mm, s, least)[0])
               for s in shown)


def squares_hide_marker(centres_mm: np.ndarray, angles_deg: np.ndarray, half_mm: float, shown: MarkerSamples,
                        least: int = 3) -> np.ndarray:
    """:func:`square_hides_marker` of many squares (centres (n, 2) mm, turns (n,) degrees) and one marker shown:
    a bool per square."""
    right, down = piece_axes(np.asarray(angles_deg, np.float64))  # (n, 2) each
    offsets = shown.points_mm[None, :, :] - np.asarray(centres_mm, np.float64)[:, None, :]  # (n, k, 2)
    across = np.abs(np.einsum("nkd,nd->nk", offsets, right))
    along = np.abs(np.einsum("nkd,nd->nk", offsets, down))
    inside = (across < half_mm) & (along < half_mm)
    dark = np.count_nonzero(inside & shown.dark[None, :], axis=1)
    light = np.count_nonzero(inside & ~shown.dark[None, :], axis=1)
    return (dark >= least) & (light >= least)
