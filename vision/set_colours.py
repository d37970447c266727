"""Whether a frame's tiles show the colours of the profile's set (issue #5: a profile from another set is refused).

Another edition's tiles can read as this set's: every edition's backs print a frame and a cross, so the default
and bold backs read as each other's, and the reader's features cannot tell them apart (they are colour ratios
within a crop: the light's colour cancels, and so does the set's own colour). The colour of the tiles tells them
apart: the default backs are grey-blue, the bold ones black.

A tile's colour is the median of its middle (``TILE_COLOUR_MM`` square, clear of its edge and border) divided,
channel by channel, by the sheet's paper beside the tiles (the same light: its colour and strength cancel). Of
that ratio ``c`` only the opponent pair ``(c_B - c_R, c_G - (c_B + c_R) / 2)`` is compared: glare on a glossy tile
adds the light's own colour, the same to every channel of ``c``, and cancels in it (the default backs under a
lamp's glare, tile-backs 1204: their ratios rose by 0.3-0.6, the pair moved 0.04); shading scales the pair, so the
taught pair is compared at any scale between ``_SCALES``. Brightness is not compared: glare and shading move it
as far as the sets lie apart.

Teach measures the same on its two photos (``calibration.teach``, ``taught["tile_colours"]``: BGR ratios per suit
for the faces, the bold faces being printed in their suit's colour, and for the backs) against the paper of the
sheet beside the layout (:func:`marker_paper`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.table_calibration import Calibration
from rules.pieces import COIN_MM, SUITS, TILE_MM
from vision.crops import sample_crops
from vision.marker_check import SheetMarkers

TILE_COLOUR_MM = 0.7 * TILE_MM  # a tile's middle: clear of its edge, a printed border and a fit a few mm off
_TILE_COLOUR_PX = 12  # ... sampled so (its median is the colour the tile is printed on)
_PAPER_RINGS_MM = (5.0, 10.0)  # the paper beside the tiles: points this far outside a tile's half side ...
_PAPER_TURNS = 16  # ... at this many directions around it
_PAPER_CLEAR_MM = 3.0  # ... kept clear of every tile's square and coin by this much
_PAPER_SHEET_MARGIN_MM = 5.0  # ... inside the sheet, and this far from its edge and its markers
_PAPER_POINTS_MIN = 8  # fewer paper points than this: the paper beside the tiles is not known
_PAPER_LIGHT_SHARE = 0.85  # the paper: the points at least this share as light as the lightest tenth
_SCALES = (0.6, 1.6)  # how much darker or lighter than taught a tile may be lit relative to the paper beside it


def tile_colours(image: np.ndarray, calibration: Calibration, centres_mm: np.ndarray, angles_deg: np.ndarray,
                 height_mm: float) -> np.ndarray:
    """The median BGR (n, 3) of each tile's middle (top faces ``height_mm`` above the table)."""
    centres = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    if len(centres) == 0:
        return np.zeros((0, 3))
    crops = sample_crops(image, calibration, centres, np.asarray(angles_deg, np.float64), height_mm,
                         TILE_COLOUR_MM, _TILE_COLOUR_PX)
    return np.median(crops.reshape(len(centres), -1, 3).astype(np.float64), axis=1)


def marker_paper(image: np.ndarray, markers: SheetMarkers | None, shown: np.ndarray) -> np.ndarray | None:
    """The paper's BGR where the sheet's markers that show plainly (``shown``, a bool each) are printed light (their
    light cells and the ring of paper around them): the teach photos' paper (the layout lies beside the sheet)."""
    if markers is None or shown.sum() < 3:
        return None
    values = _values_at(image, markers.pixels[shown][~markers.dark[shown]])
    return None if values is None else np.median(values, axis=0)


def paper_beside(image: np.ndarray, calibration: Calibration, tiles_mm: np.ndarray, coins_mm: np.ndarray,
                 sheet_mm: tuple[float, float, float, float] | None,
                 markers_mm: Sequence[tuple[float, float, float, float]] | None) -> np.ndarray | None:
    """The BGR of the sheet's paper beside the tiles (centres ``tiles_mm``, every outline seen): points around each
    tile off every tile and coin (``coins_mm``), on the sheet and off its markers; None when the tiles do not lie on
    the sheet (too few such points). Beside them, not at the markers, because a lamp close above the board lights
    its middle a third brighter than the sheet's edge (tile-backs 1204)."""
    points = paper_points(tiles_mm, coins_mm, sheet_mm, markers_mm)
    if len(points) < _PAPER_POINTS_MIN:
        return None
    values = _values_at(image, calibration.table_to_pixel(points))
    if values is None:
        return None
    # a hand over the board, its shadow or a piece not found (a pawn) lies on some of these points: the paper is
    # the lightest thing there (skin, 125-205 of 255 against the paper's 240: hand over the board 756, where the
    # median of all points made the right profile's tiles look another set's)
    brightness = values.sum(axis=1)
    light = values[brightness >= _PAPER_LIGHT_SHARE * np.percentile(brightness, 90)]
    if len(light) < _PAPER_POINTS_MIN:
        return None
    return np.median(light, axis=0)


def paper_points(tiles_mm: np.ndarray, coins_mm: np.ndarray, sheet_mm: tuple[float, float, float, float] | None,
                 markers_mm: Sequence[tuple[float, float, float, float]] | None) -> np.ndarray:
    """The points (k, 2) table mm where :func:`paper_beside` looks at the paper: ``_PAPER_TURNS`` around each tile
    (centres ``tiles_mm``) at each of ``_PAPER_RINGS_MM`` outside its half side, off every tile and coin
    (``coins_mm``), on the sheet and off its markers; none without a sheet or tiles."""
    tiles = np.asarray(tiles_mm, np.float64).reshape(-1, 2)
    if sheet_mm is None or len(tiles) == 0:
        return np.zeros((0, 2))
    turns = np.radians(np.arange(_PAPER_TURNS) * 360.0 / _PAPER_TURNS)
    rings = TILE_MM / 2 + np.asarray(_PAPER_RINGS_MM)
    offsets = (rings[:, None, None] * np.stack([np.cos(turns), np.sin(turns)], axis=1)[None]).reshape(-1, 2)
    points = (tiles[:, None, :] + offsets[None]).reshape(-1, 2)
    # off every tile: its square at any turn lies within half a diagonal, and a turn of a few degrees adds little
    # to the half side; the points are kept off the square grown by the margin, taken square to the table (the
    # larger of |dx| and |dy| by np.maximum, the values np.max over an axis of two gives: 768 points x 24 tiles of
    # an Easy Slider board 0.73 -> 0.05 ms)
    across = np.maximum(np.abs(points[:, 0:1] - tiles[None, :, 0]), np.abs(points[:, 1:2] - tiles[None, :, 1]))
    keep = np.all(across > TILE_MM / 2 + _PAPER_CLEAR_MM, axis=1)
    coins = np.asarray(coins_mm, np.float64).reshape(-1, 2)
    if len(coins):
        keep &= np.all(np.hypot(*(points[:, None, :] - coins[None]).transpose(2, 0, 1)) > COIN_MM / 2
                       + _PAPER_CLEAR_MM, axis=1)
    m = _PAPER_SHEET_MARGIN_MM
    x0, y0, x1, y1 = sheet_mm
    keep &= (points[:, 0] > x0 + m) & (points[:, 0] < x1 - m) & (points[:, 1] > y0 + m) & (points[:, 1] < y1 - m)
    if markers_mm is not None and len(markers_mm):  # every marker's box at once
        boxes = np.asarray(markers_mm, np.float64).reshape(-1, 4)
        px, py = points[:, 0:1], points[:, 1:2]
        keep &= ~np.any((px > boxes[:, 0] - m) & (px < boxes[:, 2] + m) & (py > boxes[:, 1] - m)
                        & (py < boxes[:, 3] + m), axis=1)
    return points[keep]


def _values_at(image: np.ndarray, pixels: np.ndarray) -> np.ndarray | None:
    """The BGR (k, 3) float at frame ``pixels`` inside the frame; None when fewer than ``_PAPER_POINTS_MIN``."""
    pixels = np.asarray(pixels, np.float32).reshape(-1, 2)
    h, w = image.shape[:2]
    inside = (pixels[:, 0] >= 0) & (pixels[:, 0] <= w - 1) & (pixels[:, 1] >= 0) & (pixels[:, 1] <= h - 1)
    if inside.sum() < _PAPER_POINTS_MIN:
        return None
    pixels = pixels[inside]
    values = cv2.remap(image, np.ascontiguousarray(pixels[:, :1]), np.ascontiguousarray(pixels[:, 1:]),
                       cv2.INTER_LINEAR)
    return values.reshape(-1, 3).astype(np.float64)


def opponent(relative: np.ndarray) -> np.ndarray:
    """The opponent pair (n, 2) of colours relative to the paper (n, 3) BGR ratios: blue-red, green-magenta."""
    c = np.asarray(relative, np.float64).reshape(-1, 3)
    return np.stack([c[:, 0] - c[:, 2], c[:, 1] - (c[:, 0] + c[:, 2]) / 2], axis=1)


def colour_distances(relative: np.ndarray, sides: Sequence[str], taught: dict[str, list[float]]) -> np.ndarray:
    """How far each tile's colour (``relative``: (n, 3) BGR ratios to the paper; ``sides``: "face" or "back" as
    read) lies from the taught colour of its side (a face: the nearest suit's): the distance of the opponent pairs,
    the taught one scaled within ``_SCALES``. NaN where the side's colour was not taught."""
    seen = opponent(relative)
    faces = opponent(np.array([taught[s.value] for s in SUITS if s.value in taught], np.float64))
    backs = opponent(np.array([taught["back"]], np.float64)) if "back" in taught else np.zeros((0, 2))
    out = np.full(len(seen), np.nan)
    is_back = np.array([side == "back" for side in sides], bool)
    for refs, which in ((faces, ~is_back), (backs, is_back)):
        if len(refs) and which.any():
            out[which] = _scaled_distances(seen[which], refs).min(axis=1)
    return out


def _scaled_distances(pairs: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """The distance (n, m) of each pair from ``k * ref`` for each ref, ``k`` within ``_SCALES`` (the projection's,
    clipped; 1 for a ref with no colour at all)."""
    norms = np.einsum("mj,mj->m", refs, refs)
    safe = np.where(norms > 1e-12, norms, 1.0)
    k = np.where(norms > 1e-12, np.clip(pairs @ refs.T / safe, *_SCALES), 1.0)
    return np.hypot(*(pairs[:, None, :] - k[:, :, None] * refs[None]).transpose(2, 0, 1))
