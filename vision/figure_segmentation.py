"""Where the standing pieces might be: a top-down view of the table, its local background, and the blobs
that differ from it.

One frame, no reference picture of the empty table: the background at each point is a **robust mean** of a
neighbourhood much larger than any piece (``background_mm``, 70 mm), computed at 0.25 px/mm (the table's light
and colour change slowly; pieces are small): the mean, then the mean again without the pixels far from it (the
pieces), with box filters (a median of that size cost 20 times more). A pixel belongs to a piece when it differs
from that background in **chromaticity** (normalised r, g, b: a shadow darkens the table but keeps its hue) or in
lightness by more than a shadow does (much darker: black plastic; brighter: clear and white plastic catch the
light). Weak, wide differences (wood grain, a lamp's gradient) stay below the thresholds.

Speed: the evidence is first computed at 0.25 px/mm, with lower thresholds, to find where something might be;
only those places are examined at the view's resolution (pieces cover a few per cent of a table). The
per-pixel arithmetic is one compiled pass (:func:`vision.figure_kernels.evidence`).

The calibration sheet, when the calibration came from it and it still lies there, is *predicted* (its drawing
warped into the view, paper and ink colours measured) so its markers, text and ruler are not pieces. Tiles handed
in by the tile/coin detector (their print is not figures) are left out, except around coins lying on them (a
die on a coin on a tile), where the tile's own colour is the background.

All lengths are millimetres on the table; the view is a rectified image (x right, y down) at ``px_per_mm``
(about 1: the sub-pixel fit happens later on the raw frame).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.rectify import rectified_matrix
from calibration.sheet import SheetLayout, draw_sheet, sheet_layout, sheet_pixel_matrix
from calibration.table_calibration import Calibration
from vision.figure_kernels import evidence

__all__ = [
    "TableView", "Blob", "Support", "table_view", "segment", "split_blob", "split_by_colour", "blob_from_mask",
    "sheet_in_view",
]

_MAX_DETECT_PX_PER_MM = 1.0
_COARSE_PX_PER_MM = 0.25  # the first look
_BACKGROUND_PX_PER_MM = 0.125  # the background fields (smooth: 8 mm pixels are plenty)
_COARSE_LEVEL = 0.6  # share of the thresholds that marks a place worth a closer look
_KEEP_AROUND_COIN_MM = 10.0  # around a coin on a tile, figures are looked for (a die on a coin)


@dataclass
class TableView:
    """A rectified view of the table plane and its background estimate."""

    image: np.ndarray  # BGR uint8
    bounds_mm: tuple[float, float, float, float]
    px_per_mm: float
    valid: np.ndarray  # bool: pixels that see the frame (not the black border of the warp)
    fields: _Fields | None = None  # the background estimate (see ``background_at_mm``)
    extra: dict = field(default_factory=dict)

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        """Rectified pixel coordinates -> table mm."""
        p = np.asarray(points_px, dtype=np.float64)
        x0, y0 = self.bounds_mm[:2]
        return np.stack([x0 + (p[..., 0] + 0.5) / self.px_per_mm, y0 + (p[..., 1] + 0.5) / self.px_per_mm], -1)

    def to_px(self, points_mm: np.ndarray) -> np.ndarray:
        """Table mm -> rectified pixel coordinates."""
        p = np.asarray(points_mm, dtype=np.float64)
        x0, y0 = self.bounds_mm[:2]
        return np.stack([(p[..., 0] - x0) * self.px_per_mm - 0.5, (p[..., 1] - y0) * self.px_per_mm - 0.5], -1)

    @property
    def coarse_scale(self) -> float:
        """Coarse-level pixels per view pixel."""
        return _COARSE_PX_PER_MM / self.px_per_mm

    def to_coarse(self, points_mm: np.ndarray) -> np.ndarray:
        """Table mm -> coarse-level pixel coordinates."""
        return (self.to_px(points_mm) + 0.5) * self.coarse_scale - 0.5

    @property
    def background_scale(self) -> float:
        """Background-field pixels per view pixel."""
        return _BACKGROUND_PX_PER_MM / self.px_per_mm

    def background_at_mm(self, points_mm: np.ndarray) -> np.ndarray:
        """The background colour (n, 3) at table points (n, 2): the table (and the sheet, and the tiles handed
        in) without pieces."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        f = self.fields
        if f is None:
            raise ValueError("no background yet: run segment() first")
        c = self.to_coarse(p).astype(np.float32)
        b = ((self.to_px(p) + 0.5) * self.background_scale - 0.5).astype(np.float32)

        def sample(img: np.ndarray, at: np.ndarray) -> np.ndarray:
            out = cv2.remap(img, at[:, 0:1], at[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            return out.reshape(len(at), -1)

        colour = sample(f.table, b)
        if f.sheet is not None:  # the print at the view's resolution: its edges are sharp
            v = self.to_px(p).astype(np.float32)
            ink, cover = sample(f.sheet.ink, v), sample(f.sheet.cover, v)
            colour = colour * (1 - cover) + cover * (sample(f.paper, b) * (1 - ink) + f.ink_bgr * ink)
        if f.tiles:
            q = np.round(c).astype(np.int64)
            index = f.tile_index
            inside = (q[:, 0] >= 0) & (q[:, 1] >= 0) & (q[:, 0] < index.shape[1]) & (q[:, 1] < index.shape[0])
            which = np.zeros(len(p), np.int64)
            which[inside] = index[q[inside, 1], q[inside, 0]]
            on = which > 0
            colour[on] = np.asarray([tile.colour for tile in f.tiles])[which[on] - 1]
        return colour.astype(np.float32)


@dataclass
class Blob:
    """A connected region of foreground in the table view."""

    label: int
    box: tuple[int, int, int, int]  # x, y, w, h in view pixels
    area_mm2: float
    hull_mm: np.ndarray  # (k, 2) convex hull of the region, mm
    contour_mm: np.ndarray  # (n, 2) outer contour, mm
    touches_edge: bool  # reaches the edge of what the camera sees
    mask: np.ndarray | None = None  # uint8 crop of the region (at ``box``)
    faint: bool = False  # found by its edges alone (a clear or white piece passing the table's colour through)


@dataclass(frozen=True)
class Support:
    """A tile or coin lying on the table (from the tile/coin detector) as the camera sees it on the table plane:
    ``seen_mm`` the hull of its footprint and its top face, ``top_mm`` its top face, ``top_h`` its top height."""

    seen_mm: np.ndarray
    top_mm: np.ndarray
    top_h: float
    round: bool
    bare: bool = False  # a coin read surely: its whole face shows, nothing stands on it (it is left out)


# ----------------------------------------------------------------------------------------------------- the view
_VIEWS: dict[int, tuple[Calibration, Any]] = {}  # the warp maps of the last calibrations (a cache, not state)


def _view_maker(calibration: Calibration):
    from vision.rectify import TableView as Warp  # the tile detector's precomputed warp

    entry = _VIEWS.get(id(calibration))
    if entry is not None and entry[0] is calibration:
        return entry[1]
    warp = Warp(calibration, px_per_mm=_MAX_DETECT_PX_PER_MM)
    if len(_VIEWS) >= 4:
        _VIEWS.pop(next(iter(_VIEWS)))
    _VIEWS[id(calibration)] = (calibration, warp)
    return warp


def table_view(image_bgr: np.ndarray, calibration: Calibration, rectified: Any = None) -> TableView:
    """The rectified table view to search: ``rectified`` when given (downscaled when finer than needed),
    otherwise the frame warped at 1 px/mm over what it sees of the table (maps computed once per calibration)."""
    if rectified is not None:
        img = np.asarray(rectified.image)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        bounds = tuple(float(v) for v in rectified.bounds_mm)
        p = float(rectified.px_per_mm)
        if p > _MAX_DETECT_PX_PER_MM * 1.25:
            factor = _MAX_DETECT_PX_PER_MM / p
            img = cv2.resize(img, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            p = img.shape[1] / (bounds[2] - bounds[0])
        valid = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) > 0  # not the warp's black border
        return TableView(img, bounds, p, valid)
    warp = _view_maker(calibration)
    rect = warp.rectify(image_bgr)
    return TableView(rect.image, rect.bounds_mm, rect.px_per_mm, warp.valid)


def _level_size(view: TableView, scale: float) -> tuple[int, int]:
    """Size of the view resampled by ``scale`` (< 1): whole blocks when 1 / scale is a whole number (OpenCV's
    fast area mode; the view's last partial block is left out)."""
    h, w = view.image.shape[:2]
    k = 1.0 / scale
    if abs(k - round(k)) < 1e-6:
        k = int(round(k))
        return max(1, w // k), max(1, h // k)
    return max(1, int(round(w * scale))), max(1, int(round(h * scale)))


def _shrunk(img: np.ndarray, scale: float, size: tuple[int, int]) -> np.ndarray:
    """``img`` (at the view's scale) area-averaged to ``size`` at ``scale`` (whole blocks when possible)."""
    k = 1.0 / scale
    if abs(k - round(k)) < 1e-6:
        k = int(round(k))
        img = img[: size[1] * k, : size[0] * k]
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def _background_size(view: TableView) -> tuple[int, int]:
    return _level_size(view, view.background_scale)


def _coarse_size(view: TableView) -> tuple[int, int]:
    return _level_size(view, view.coarse_scale)


def _coarse_image(view: TableView) -> np.ndarray:
    if "coarse" not in view.extra:
        view.extra["coarse"] = _shrunk(view.image, view.coarse_scale, _coarse_size(view))
    return view.extra["coarse"]


def _coarse_valid(view: TableView) -> np.ndarray:
    """Coarse pixels wholly inside what the frame sees, off the warp's border (mixed with its black)."""
    if "coarse_valid" not in view.extra:
        whole = _shrunk(view.valid.astype(np.float32), view.coarse_scale, _coarse_size(view)) > 0.99
        view.extra["coarse_valid"] = cv2.erode(whole.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return view.extra["coarse_valid"]


def _fine_valid(view: TableView) -> np.ndarray:
    """The view's valid pixels off the warp's border."""
    if "fine_valid" not in view.extra:
        view.extra["fine_valid"] = cv2.erode(view.valid.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return view.extra["fine_valid"]


# ----------------------------------------------------------------------------------------------------- the sheet
@dataclass
class _SheetMaps:
    """The calibration sheet drawn into the view (static for a calibration): ink and paper cover (0..1) at the
    view's resolution and at the coarse level, and the bands along printed edges and the paper's edge."""

    ink: np.ndarray
    cover: np.ndarray
    ink_band: np.ndarray
    paper_band: np.ndarray
    ink_coarse: np.ndarray
    cover_coarse: np.ndarray
    ink_band_coarse: np.ndarray
    paper_band_coarse: np.ndarray
    ink_background: np.ndarray  # at the background level
    cover_background: np.ndarray
    paper_samples: tuple[np.ndarray, np.ndarray]  # view pixels (rows, cols) on the sheet, for its presence test
    ink_samples: tuple[np.ndarray, np.ndarray]  # view pixels surely printed, for the ink's colour


@lru_cache(maxsize=4)
def draw_sheet_cached(paper: str, px_per_mm: float) -> np.ndarray:
    return draw_sheet(sheet_layout(paper), px_per_mm)


@lru_cache(maxsize=4)
def _sheet_maps(paper: str, bounds_mm: tuple[float, float, float, float], px_per_mm: float,
                size: tuple[int, int], coarse_size: tuple[int, int], background_size: tuple[int, int]) -> _SheetMaps:
    draw_ppm = 4.0  # fixed: the drawing is cached, and 4 px/mm is finer than any detection view
    printed = draw_sheet_cached(paper, draw_ppm)
    ones = np.full(printed.shape, 255, np.uint8)

    def warp(p: float, out_size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        to_view = rectified_matrix(bounds_mm, p) @ np.linalg.inv(sheet_pixel_matrix(draw_ppm))
        # warps have no area mode: low-pass the drawing to the target scale first (no aliasing)
        sigma = 0.5 * draw_ppm / p
        src = cv2.GaussianBlur(printed, (0, 0), sigma) if sigma > 0.7 else printed
        ink = 1.0 - cv2.warpPerspective(src, to_view, out_size, flags=cv2.INTER_LINEAR,
                                        borderValue=255).astype(np.float32) / 255.0
        cover = cv2.warpPerspective(ones, to_view, out_size, flags=cv2.INTER_LINEAR, borderValue=0).astype(
            np.float32) / 255
        return ink, cover

    def bands(ink: np.ndarray, cover: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
        ink_band = cv2.dilate(cv2.morphologyEx(ink, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)),
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(3 * p) | 1, int(3 * p) | 1))) > 0.1
        paper_band = cv2.dilate(cv2.morphologyEx(cover, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)),
                                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(6 * p) | 1, int(6 * p) | 1))) > 0.1
        return ink_band.astype(np.uint8), paper_band.astype(np.uint8)

    ink, cover = warp(px_per_mm, size)
    ink_band, paper_band = bands(ink, cover, px_per_mm)
    ink_c, cover_c = warp(_COARSE_PX_PER_MM, coarse_size)
    ink_band_c, paper_band_c = bands(ink_c, cover_c, 1.0)
    ink_b, cover_b = warp(_BACKGROUND_PX_PER_MM, background_size)
    ys, xs = np.nonzero(cover[::3, ::3] > 0.99)
    step = max(1, len(ys) // 4000)
    paper_samples = (ys[::step] * 3, xs[::step] * 3)
    ys, xs = np.nonzero((cover[::2, ::2] > 0.99) & (ink[::2, ::2] > 0.95))
    step = max(1, len(ys) // 2000)
    ink_samples = (ys[::step] * 2, xs[::step] * 2)
    return _SheetMaps(ink, cover, ink_band, paper_band, ink_c, cover_c, ink_band_c, paper_band_c, ink_b, cover_b,
                      paper_samples, ink_samples)


def _maps_for(view: TableView, sheet: SheetLayout) -> _SheetMaps:
    return _sheet_maps(sheet.name, tuple(float(v) for v in view.bounds_mm), float(view.px_per_mm),
                       (view.image.shape[1], view.image.shape[0]), _coarse_size(view), _background_size(view))


def sheet_in_view(view: TableView, calibration: Calibration, min_correlation: float = 0.5) -> SheetLayout | None:
    """The calibration sheet, if the calibration was made from one and it still lies where it was: the
    printed pattern must correlate with the view (a removed or moved sheet is not predicted)."""
    report = getattr(calibration, "report", None)
    paper = getattr(report, "paper", None)
    if not paper:
        return None
    try:
        layout = sheet_layout(paper)
    except CalibrationError:
        return None
    maps = _maps_for(view, layout)
    # at 4 mm a pixel the markers' 5 mm cells blur: their fine pattern is what identifies the sheet, so compare
    # on a sample of the view's own pixels
    ys, xs = maps.paper_samples
    seen = view.valid[ys, xs]
    ys, xs = ys[seen], xs[seen]
    if len(ys) < 200:
        return None
    gray = view.image[ys, xs].astype(np.float32) @ np.float32([0.114, 0.587, 0.299])
    expected = 1.0 - maps.ink[ys, xs]
    if expected.std() < 1e-3 or gray.std() < 1e-3:
        return None
    corr = float(np.corrcoef(gray, expected)[0, 1])
    return layout if corr >= min_correlation else None


# ----------------------------------------------------------------------------------------------------- background
def _robust_mean(image: np.ndarray, usable: np.ndarray, size_px: float, passes: int = 2) -> np.ndarray:
    """A robust local mean of ``image`` (float32 BGR) over ``size_px`` boxes, from ``usable`` pixels only (a
    boolean map, or weights 0..1: the share of each pixel that is table): the mean, then the mean of the pixels
    near it (pieces, shadows and print differ from the table much more than its grain does), ``passes`` times.
    Where a box holds almost no usable pixel, a box three times bigger, and failing that the whole image, decides.
    (OpenCV box filters: a median of that size costs 20 times more.)"""
    k = max(3, int(round(size_px)) | 1)
    ones = np.ones((1, 3), np.float32)
    usable_w = np.asarray(usable).astype(np.float32)
    weight = usable_w
    mean, wsum = _masked_mean(image, weight, k)
    for _ in range(passes):
        dev = cv2.transform(cv2.absdiff(image, mean), ones)  # summed over the channels
        typical = cv2.divide(cv2.blur(cv2.multiply(dev, weight), (k, k), borderType=cv2.BORDER_REFLECT),
                             cv2.max(wsum, 1e-6))
        keep = cv2.multiply(usable_w, (dev <= 2.0 * typical + 12.0).astype(np.float32))
        if keep.sum() < 0.2 * weight.sum():
            break  # a busy table (print, checks): keep the plain mean
        weight = keep
        mean, wsum = _masked_mean(image, weight, k)
    if float(wsum.min()) < 0.02:  # blend in the bigger boxes' mean where the boxes are (nearly) empty
        big, bsum = _masked_mean(image, weight, 3 * k)
        if float(bsum.min()) < 0.02:
            total = max(float(weight.sum()), 1e-6)
            overall = cv2.multiply(image, cv2.merge([weight] * 3)).reshape(-1, 3).sum(axis=0) / total
            t = cv2.merge([np.clip(bsum * 50.0, 0.0, 1.0)] * 3)
            big = cv2.add(cv2.multiply(big, t), cv2.multiply(np.broadcast_to(overall.astype(np.float32),
                                                                               big.shape).copy(), 1.0 - t))
        t = cv2.merge([np.clip(wsum * 50.0, 0.0, 1.0)] * 3)
        mean = cv2.add(cv2.multiply(mean, t), cv2.multiply(big, 1.0 - t))
    return mean


# Coins are no table: the background is estimated off them (the tiles' way of being left out, whole 8 mm pixels,
# would leave nothing of a coin grid's paper: its gaps are 6 mm). Each 8 mm pixel's colour is the mean of its view
# pixels off every coin handed in (sure or not) and more than _OFF_COIN_MM from its seen outline (the rim's blur, its
# shadow), weighted by their share. Leaving out sure coins whole, as the foreground does, left a coin grid's
# background to the pixels of the unsure coins -- where the dice stand: hand-made dice scene 500 (two script A's read
# surely) estimated the sheet's paper from its dice, (139, 158, 164) for (175, 200, 205), and found a 3600 mm2 region
# it took for a hand beside them.
_OFF_COIN_MM = 2.0


def _off_coins(view: TableView, coins: list[Support], img: np.ndarray, weight: np.ndarray,
               size_b: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The background level's colours (``img``) and weights (``weight``) with the coins' pixels left out."""
    free = np.ones(view.image.shape[:2], np.uint8)
    for coin in coins:
        _fill(free, coin.seen_mm, view, 1.0, 0)
    r = max(1, int(round(_OFF_COIN_MM * view.px_per_mm)))
    free = cv2.erode(free, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    free &= view.valid.astype(np.uint8)
    share = _shrunk(free.astype(np.float32), view.background_scale, size_b)
    sums = _shrunk(cv2.multiply(view.image, cv2.merge([free] * 3), dtype=cv2.CV_32F), view.background_scale, size_b)
    some = (share > 0) & (share < 1)
    img = img.copy()
    img[some] = sums[some] / share[some, None]
    return img, cv2.multiply(weight, share)


def _masked_mean(image: np.ndarray, weight: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The weighted box mean of ``image`` and the boxes' mean weight."""
    wsum = cv2.blur(weight, (k, k), borderType=cv2.BORDER_REFLECT)
    num = cv2.blur(cv2.multiply(image, cv2.merge([weight] * 3)), (k, k), borderType=cv2.BORDER_REFLECT)
    return cv2.divide(num, cv2.merge([cv2.max(wsum, 1e-6)] * 3)), wsum


@dataclass
class _Tile:
    """A tile handed in: where it is seen, its own colour, the zones around coins lying on it."""

    support: Support
    colour: np.ndarray
    keep: list[np.ndarray]  # polygons (mm) around coins lying on it

    @property
    def box_mm(self) -> tuple[np.ndarray, np.ndarray]:
        return self.support.seen_mm.min(axis=0), self.support.seen_mm.max(axis=0)


@dataclass
class _Fields:
    """The background: the table's and the paper's colour fields at the coarse level, the ink colour, the sheet
    maps (or None) and the tiles handed in (with a coarse map of which tile is where)."""

    table: np.ndarray
    paper: np.ndarray
    ink_bgr: np.ndarray
    sheet: _SheetMaps | None
    tiles: list[_Tile]
    tile_index: np.ndarray | None
    left_out: np.ndarray | None = None  # coarse-level map of the tiles and bare coins (no figures there)
    two_tone: _TwoTone | None = None  # a checked tablecloth's colour line


def _disc_mm(centre: np.ndarray, radius: float) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    return np.asarray(centre, np.float64) + radius * np.column_stack([np.cos(a), np.sin(a)])


def _poly_px(points_mm: np.ndarray, view: TableView, scale: float, origin=(0, 0)) -> np.ndarray:
    """Fixed-point (4 bits) polygon in an image ``scale`` times the view's pixels, shifted by ``origin``."""
    q = (view.to_px(points_mm) + 0.5) * scale - 0.5 - np.asarray(origin, np.float64)
    return np.round(q * 16).astype(np.int32).reshape(-1, 1, 2)


def _fill(mask: np.ndarray, points_mm: np.ndarray, view: TableView, scale: float, value, origin=(0, 0)) -> None:
    cv2.fillPoly(mask, [_poly_px(points_mm, view, scale, origin)], value, cv2.LINE_8, 4)


def _tiles(view: TableView, supports: list[Support], small: np.ndarray) -> list[_Tile]:
    """Tiles with their own colour (median of a grid of points on their top face, off the rim) and the zones
    around the coins lying on them."""
    tiles = sorted((s for s in supports if not s.round and len(s.top_mm) == 4), key=lambda s: s.top_h)
    if not tiles:
        return []
    coins = [s for s in supports if s.round]
    tops = np.array([t.top_mm for t in tiles])  # (n, 4, 2)
    centre = tops.mean(axis=1, keepdims=True)
    grid = np.linspace(-0.8, 0.8, 7)
    u = tops[:, 1] - tops[:, 0]  # one side and the next
    v = tops[:, 3] - tops[:, 0]
    gu, gv = np.meshgrid(grid, grid)
    pts = centre + 0.5 * (gu.reshape(1, -1, 1) * u[:, None] + gv.reshape(1, -1, 1) * v[:, None])  # (n, 49, 2)
    q = np.round(view.to_coarse(pts)).astype(int)
    q[..., 0] = np.clip(q[..., 0], 0, small.shape[1] - 1)
    q[..., 1] = np.clip(q[..., 1], 0, small.shape[0] - 1)
    colours = np.median(small[q[..., 1], q[..., 0]].astype(np.float32), axis=1)
    out = []
    for tile, colour in zip(tiles, colours, strict=True):
        keep = []
        poly = tile.top_mm.astype(np.float32).reshape(-1, 1, 2)
        for coin in coins:
            c = coin.top_mm.mean(axis=0)
            if coin.top_h > tile.top_h and cv2.pointPolygonTest(poly, (float(c[0]), float(c[1])), False) >= 0:
                radius = float(np.linalg.norm(coin.top_mm - c, axis=1).max())
                keep.append(_disc_mm(c, radius + _KEEP_AROUND_COIN_MM))
        out.append(_Tile(tile, colour.astype(np.float32), keep))
    return out


def _fields(view: TableView, sheet: SheetLayout | None, supports: list[Support], background_mm: float) -> _Fields:
    small = _coarse_image(view)
    size_b = _background_size(view)
    to_b = view.background_scale / view.coarse_scale  # background pixels per coarse pixel (1/2)
    img = _shrunk(small, to_b, size_b).astype(np.float32)
    usable_f = _shrunk(_coarse_valid(view).astype(np.float32), to_b, size_b)
    tiles = _tiles(view, supports, small)
    tile_index = left_out = None
    bare = [sup for sup in supports if sup.round and sup.bare]
    if tiles or bare:
        tile_index = np.zeros(small.shape[:2], np.uint8 if len(tiles) < 254 else np.int32)
        for k, tile in enumerate(tiles):
            _fill(tile_index, tile.support.seen_mm, view, view.coarse_scale, k + 1)
        left_out = tile_index > 0
        if tiles:
            usable_f = cv2.min(usable_f, _shrunk((~left_out).astype(np.float32), to_b, size_b))
        if bare:
            coins = np.zeros(small.shape[:2], np.uint8)
            for coin in bare:
                _fill(coins, coin.seen_mm, view, view.coarse_scale, 1)
            left_out |= coins.astype(bool)
    weight = (usable_f > 0.99).astype(np.float32)
    round_supports = [sup for sup in supports if sup.round]
    if round_supports:
        img, weight = _off_coins(view, round_supports, img, weight, size_b)
    size = background_mm * _BACKGROUND_PX_PER_MM
    if sheet is None:
        table = _robust_mean(img, weight, size)
        return _Fields(table, table, np.zeros(3, np.float32), None, tiles, tile_index, left_out)
    maps = _maps_for(view, sheet)
    table = _robust_mean(img, weight * (maps.cover_background < 0.01), size)
    # paper pixels wholly inside the paper and off the print (8 mm pixels: a registration error of a millimetre or
    # two mixes the table or the ink into the ones at their edges)
    paper_w = weight * cv2.erode(((maps.cover_background > 0.99) & (maps.ink_background < 0.05)).astype(np.uint8),
                                 np.ones((3, 3), np.uint8))
    paper_px = paper_w > 0
    paper = _robust_mean(img, paper_w, size)
    ys, xs = maps.ink_samples
    seen = view.valid[ys, xs]
    if seen.sum() > 50:
        ink_bgr = np.median(view.image[ys[seen], xs[seen]], axis=0).astype(np.float32)
    elif paper_px.any():
        ink_bgr = np.float32(0.15) * np.median(paper[paper_px], axis=0)
    else:
        ink_bgr = np.full(3, 30, np.float32)
    return _Fields(table, paper, ink_bgr, maps, tiles, tile_index, left_out)


# ----------------------------------------------------------------------------------------------------- foreground
_EMPTY_F = np.zeros((1, 1), np.float32)
_EMPTY_U = np.zeros((1, 1), np.uint8)
_EMPTY_3 = np.zeros((1, 1, 3), np.float32)


def _evidence(img: np.ndarray, table: np.ndarray, paper: np.ndarray | None, ink_bgr: np.ndarray, maps: tuple | None,
              thresholds: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(chroma, light) of an image (crop) against the background colours at its pixels; ``maps`` the sheet's
    (ink, cover, ink band, paper band) at the same pixels, or None."""
    h, w = img.shape[:2]
    chroma = np.empty((h, w), np.float32)
    light = np.empty((h, w), np.float32)
    if maps is None:
        evidence(img, table, _EMPTY_3, ink_bgr, _EMPTY_F, _EMPTY_F, _EMPTY_U, _EMPTY_U, False, *thresholds, chroma,
                 light)
    else:
        ink, cover, ink_band, paper_band = (np.ascontiguousarray(m) for m in maps)
        evidence(img, table, paper, ink_bgr, ink, cover, ink_band, paper_band, True, *thresholds, chroma, light)
    # sensor noise and JPEG make single pixels flicker: decide on lightly smoothed evidence
    return cv2.GaussianBlur(chroma, (0, 0), 0.7), cv2.GaussianBlur(light, (0, 0), 0.7)


_BUSY_SHARE = 0.2  # a table this much of which differs from its own mean is patterned (checks, stripes)


def _two_tone(small: np.ndarray, table: np.ndarray, bad: np.ndarray, valid: np.ndarray, fields: _Fields,
              thresholds: tuple[float, float, float]) -> _TwoTone | None:
    """The colour line of a checked or striped table (a gingham tablecloth), when the table is patterned: much
    of it differs from its own local mean, and its chromaticities lie along one line (white to red; the
    half-tone checks are their mix). None for a plain table."""
    usable = valid.copy()
    if fields.sheet is not None:
        usable &= fields.sheet.cover_coarse < 0.01
    if fields.left_out is not None:
        usable &= ~fields.left_out
    if usable.sum() < 200 or float((bad[usable] > 1.0).mean()) < _BUSY_SHARE:
        return None
    px = small[usable].astype(np.float64)
    sums = px.sum(axis=1) + 3.0
    c = px / sums[:, None]
    mean = c.mean(axis=0)
    _, sv, vt = np.linalg.svd(c - mean, full_matrices=False)
    axis = vt[0]
    t = (c - mean) @ axis
    lo, hi = np.percentile(t, [2, 98])
    if hi - lo < 0.06:  # the colours hardly differ: not a two-colour pattern
        return None
    # the lightness along the line (red checks are darker than white ones), against the local mean
    rel = np.log(sums / (table[usable].sum(axis=1) + 3.0))
    u = (t - lo) / (hi - lo)
    slope, offset = np.polyfit(u, rel, 1)
    residual = rel - (offset + slope * np.clip(u, 0.0, 1.0))
    low, high = np.percentile(residual, [1, 99])  # the pattern's own spread of lightness is table too
    model = _TwoTone(mean + axis * lo, mean + axis * hi, float(offset), float(slope), float(low), float(high))
    chroma, light = _two_tone_evidence(small, table, model, None, None, None)
    explained = float((_badness(chroma, light, *thresholds)[usable] <= 1.0).mean())
    return model if explained > 0.9 else None


@dataclass(frozen=True)
class _TwoTone:
    """A patterned table: its chromaticities lie on the segment ``a``-``b`` (normalised rgb); a pixel at
    position u (0..1) along it has log lightness ``offset + slope * u`` against the local mean, give or take
    ``low`` .. ``high``."""

    a: np.ndarray
    b: np.ndarray
    offset: float
    slope: float
    low: float = 0.0  # the table's own spread of lightness about that (1st and 99th percentiles)
    high: float = 0.0


def _two_tone_evidence(img: np.ndarray, table: np.ndarray, model: _TwoTone, chroma: np.ndarray | None,
                       light: np.ndarray | None, sheet_maps: tuple | None) -> tuple[np.ndarray, np.ndarray]:
    """Chromaticity distance from a patterned table's colour line (any mix of its colours is table) and the
    lightness against what that mix would be under the local light; on the sheet (``sheet_maps`` = (ink,
    cover)) the usual evidence (``chroma``, ``light``) is kept."""
    px = img.astype(np.float32)
    s = px.sum(axis=2) + 3.0
    c = px / s[..., None]
    a = model.a.astype(np.float32)
    ab = (model.b - model.a).astype(np.float32)
    u = np.clip(((c - a) @ ab) / max(float(ab @ ab), 1e-9), 0.0, 1.0)
    nearest = a + u[..., None] * ab
    out_c = (np.linalg.norm(c - nearest, axis=2) * s / np.maximum(s, 200.0)).astype(np.float32)
    expected = np.log(table.sum(axis=2) + 3.0) + model.offset + model.slope * u
    out_l = (np.log(s) - expected).astype(np.float32)
    out_l = np.where(out_l > 0, np.maximum(out_l - model.high, 0.0), np.minimum(out_l - model.low, 0.0))
    out_c = cv2.GaussianBlur(out_c, (0, 0), 0.7)
    out_l = cv2.GaussianBlur(out_l, (0, 0), 0.7)
    if sheet_maps is not None and chroma is not None:
        on_sheet = sheet_maps[1] > 0.01
        out_c[on_sheet] = chroma[on_sheet]
        out_l[on_sheet] = light[on_sheet]
    return out_c, out_l


def _badness(chroma: np.ndarray, light: np.ndarray, chroma_min: float, darker_log: float,
             brighter_log: float) -> np.ndarray:
    """How far past the nearest threshold a pixel is (> 1: foreground)."""
    return np.maximum(np.maximum(chroma / chroma_min, light / darker_log), light / brighter_log)


def _resampled(img: np.ndarray, img_scale: float, box: tuple[int, int, int, int], scale: float = 1.0,
               origin: tuple[float, float] = (0.0, 0.0), interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """An image ``img_scale`` times the view (its pixel (0, 0) at ``origin`` in its own level's coordinates)
    read at the pixels of ``box`` = (x0, y0, x1, y1) of an image ``scale`` times the view."""
    x0, y0, x1, y1 = box
    f = img_scale / scale
    # source coordinate of target pixel (x0 + i): (x0 + i + 0.5) * f - 0.5 - origin
    m = np.float32([[f, 0, (x0 + 0.5) * f - 0.5 - origin[0]], [0, f, (y0 + 0.5) * f - 0.5 - origin[1]]])
    return cv2.warpAffine(img, m, (x1 - x0, y1 - y0), flags=interpolation | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _upsampled(field_img: np.ndarray, view: TableView, box: tuple[int, int, int, int], scale: float = 1.0
               ) -> np.ndarray:
    """A background field read (bilinear) at the pixels of ``box`` of an image ``scale`` times the view."""
    return _resampled(field_img, view.background_scale, box, scale)


def segment(view: TableView, *, sheet: SheetLayout | None = None, supports: list[Support] | None = None,
            background_mm: float = 70.0, chroma_min: float = 0.07, darker_log: float = -0.75,
            brighter_log: float = 0.12, min_area_mm2: float = 60.0, faint: bool = False) -> list[Blob]:
    """The blobs of foreground in the view (see the module docstring); sets ``view.fields``.

    ``chroma_min``: chromaticity distance (normalised rgb) that counts as a piece; ``darker_log`` /
    ``brighter_log``: log lightness ratios beyond which a grey difference counts (a shadow is rarely darker
    than exp(-0.75) = 0.47 of the lit table). ``sheet``: the calibration sheet lying there (see
    :func:`sheet_in_view`). ``supports``: tiles and coins handed in (tiles and bare coins are left out).
    ``faint``: also look for pieces by their edges alone (:func:`_faint_blobs`: clear and white pyramids)."""
    clock = _Clock(view.extra.setdefault("timings_ms", {}))
    thresholds = (chroma_min, darker_log, brighter_log)
    fields = _fields(view, sheet, list(supports or ()), background_mm)
    view.fields = fields
    clock.tick("background")
    tiles = fields.tiles
    # 1. a first look at the coarse level, with lower thresholds
    small = _coarse_image(view)
    cvalid = _coarse_valid(view)
    maps = None
    if fields.sheet is not None:
        s = fields.sheet
        maps = (s.ink_coarse, s.cover_coarse, s.ink_band_coarse, s.paper_band_coarse)
    fc = view.coarse_scale
    whole = (0, 0, small.shape[1], small.shape[0])
    table_c = _upsampled(fields.table, view, whole, fc)
    paper_c = _upsampled(fields.paper, view, whole, fc) if fields.sheet is not None else None
    chroma, light = _evidence(small, table_c, paper_c, fields.ink_bgr, maps, thresholds)
    bad = _badness(chroma, light, *thresholds)
    two_tone = _two_tone(small, table_c, bad, cvalid, fields, thresholds)
    if two_tone is not None:
        fields.two_tone = two_tone
        chroma, light = _two_tone_evidence(small, table_c, two_tone, chroma, light, maps)
        bad = _badness(chroma, light, *thresholds)
    if fields.left_out is not None:  # inside a tile only around coins, against the tile's own colour
        bad[fields.left_out] = 0.0
        for tile in tiles:
            if tile.keep:
                _tile_evidence(bad, small, tile, view, fc, (0, 0), coarse_look=True)
    raw = ((bad > _COARSE_LEVEL) & cvalid).astype(np.uint8)
    look = cv2.dilate(raw, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(look, connectivity=8)
    # A figure is compact: some 2 x 2 block of the coarse look (8 mm) lies wholly on it. Streaks of wood grain,
    # printed lines and the odd noisy pixel do not hold one.
    core = cv2.erode(raw, np.ones((2, 2), np.uint8)).astype(bool)
    compact = np.zeros(count, bool)
    compact[np.unique(labels[core])] = True
    clock.tick("first look")
    faint_blobs = _faint_blobs(view, look, fields, min_area_mm2) if faint else []
    # 2. a closer look at the view's resolution where something may be
    tile_lo = np.array([view.to_px(t.box_mm[0]) for t in tiles]).reshape(-1, 2) - 1
    tile_hi = np.array([view.to_px(t.box_mm[1]) for t in tiles]).reshape(-1, 2) + 1
    bare = [sup for sup in (supports or ()) if sup.round and sup.bare]
    coin_lo = np.array([view.to_px(c.seen_mm.min(axis=0)) for c in bare]).reshape(-1, 2) - 1
    coin_hi = np.array([view.to_px(c.seen_mm.max(axis=0)) for c in bare]).reshape(-1, 2) + 1
    h, w = view.image.shape[:2]
    pad = int(math.ceil(3 * view.px_per_mm))
    blobs: list[Blob] = []
    for label in range(1, count):
        cx, cy, cw, ch, _area = (int(v) for v in stats[label])
        if not compact[label]:
            continue
        corners = np.array([[cx, cy], [cx + cw, cy], [cx, cy + ch], [cx + cw, cy + ch]], float) - 0.5
        corners_px = (corners + 0.5) / fc - 0.5
        mine = (labels[cy : cy + ch, cx : cx + cw] == label).astype(np.uint8)
        x0 = max(int(math.floor(corners_px[:, 0].min())) - pad, 0)
        y0 = max(int(math.floor(corners_px[:, 1].min())) - pad, 0)
        x1 = min(int(math.ceil(corners_px[:, 0].max())) + pad, w)
        y1 = min(int(math.ceil(corners_px[:, 1].max())) + pad, h)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        # this component's own pixels (so that a neighbour's box overlapping this one is not found twice)
        box = (x0, y0, x1, y1)
        own = _resampled(mine, fc, box, origin=(cx, cy), interpolation=cv2.INTER_NEAREST) > 0
        img = np.ascontiguousarray(view.image[y0:y1, x0:x1])
        table = _upsampled(fields.table, view, box)
        fine_maps = paper = None
        if fields.sheet is not None:
            s = fields.sheet
            fine_maps = (s.ink[y0:y1, x0:x1], s.cover[y0:y1, x0:x1], s.ink_band[y0:y1, x0:x1],
                         s.paper_band[y0:y1, x0:x1])
            paper = _upsampled(fields.paper, view, box)
        chroma, light = _evidence(img, table, paper, fields.ink_bgr, fine_maps, thresholds)
        if fields.two_tone is not None:
            chroma, light = _two_tone_evidence(img, table, fields.two_tone, chroma, light,
                                               None if fine_maps is None else fine_maps[:2])
        bad = _badness(chroma, light, *thresholds)
        for k in np.nonzero((tile_lo[:, 0] < x1) & (tile_lo[:, 1] < y1) & (tile_hi[:, 0] > x0)
                            & (tile_hi[:, 1] > y0))[0]:
            _tile_evidence(bad, img, tiles[k], view, 1.0, (x0, y0), coarse_look=False)
        for k in np.nonzero((coin_lo[:, 0] < x1) & (coin_lo[:, 1] < y1) & (coin_hi[:, 0] > x0)
                            & (coin_hi[:, 1] > y0))[0]:
            covered = np.zeros(bad.shape, np.uint8)
            _fill(covered, bare[k].seen_mm, view, 1.0, 1, (x0, y0))
            bad[covered.astype(bool)] = 0.0
        fg = ((bad > 1.0) & _fine_valid(view)[y0:y1, x0:x1] & own).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        blobs.extend(_blobs_in(view, fg, x0, y0, min_area_mm2))
    clock.tick("closer look")
    return blobs + faint_blobs


class _Clock:
    """Adds the CPU time of each stage (ms) to a dict: what the benchmarks report."""

    def __init__(self, into: dict[str, float]):
        self.into = into
        self.last = time.process_time()

    def tick(self, name: str) -> None:
        now = time.process_time()
        self.into[name] = self.into.get(name, 0.0) + 1000.0 * (now - self.last)
        self.last = now


_FAINT_RATIO = 2.5  # edge energy this many times the table's own (over 12 mm) marks a faint piece
_FAINT_MIN_MM2 = 60.0  # the core (eroded by 4 mm) of a Small seen from above
_FAINT_MAX_MM2 = 1200.0  # bigger than the core of any pyramid seen from anywhere
_CALM = 0.1  # a table whose own edge energy (relative gradient per pixel) is below this is calm


def _faint_blobs(view: TableView, found: np.ndarray, fields: _Fields, min_area_mm2: float) -> list[Blob]:
    """Pieces the colour look misses: a clear or white pyramid passes the table's colour through and differs
    from it by a few per cent, but its outline and ridges catch the light. The local edge energy (gradient
    magnitude relative to the brightness, at 2 mm and averaged over 4 mm cells) is compared with the table's
    own (its robust mean over ``background_mm``: paper, laminate and cloth are calm, wood grain less so); a
    compact region well above it that the colour look did not find is a candidate. The sheet's printed edges
    and its paper edge, tiles and coins are left out. The model fit decides (a candidate no pyramid outlines
    clearly is dropped: see :mod:`vision.figure_search`)."""
    small = _coarse_image(view)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
    half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA).astype(np.float32)
    mag = cv2.magnitude(cv2.Sobel(half, cv2.CV_32F, 1, 0), cv2.Sobel(half, cv2.CV_32F, 0, 1))
    mag = cv2.divide(mag, cv2.max(cv2.blur(half, (9, 9)), 20.0))
    cells = cv2.resize(mag, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
    usable = cv2.erode(_coarse_valid(view).astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    if fields.sheet is not None:
        usable &= (fields.sheet.ink_band_coarse == 0) & (fields.sheet.paper_band_coarse == 0)
    if fields.left_out is not None:
        usable &= ~cv2.dilate(fields.left_out.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    usable &= ~cv2.dilate(found, np.ones((3, 3), np.uint8)).astype(bool)
    calm = cv2.merge([cells] * 3)
    table = _robust_mean(calm, usable, 70.0 * _COARSE_PX_PER_MM)[..., 0]
    ratio = cv2.blur(cells, (3, 3)) / np.maximum(table, 0.01)
    # only on calm surfaces (paper, laminate, felt, cloth): on wood its own grain is as strong
    raw = ((ratio > _FAINT_RATIO) & usable & (table < _CALM)).astype(np.uint8)
    raw = cv2.erode(raw, np.ones((2, 2), np.uint8))  # a compact core, not a streak
    count, labels, stats, _ = cv2.connectedComponentsWithStats(raw, connectivity=8)
    p2 = _COARSE_PX_PER_MM ** 2
    out = []
    fc = view.coarse_scale
    h, w = view.image.shape[:2]
    for label in range(1, count):
        cx, cy, cw, ch, area = (int(v) for v in stats[label])
        if area / p2 < _FAINT_MIN_MM2 or area / p2 > _FAINT_MAX_MM2:
            continue
        x0 = max(int((cx - 1 + 0.5) / fc - 0.5), 0)
        y0 = max(int((cy - 1 + 0.5) / fc - 0.5), 0)
        x1 = min(int((cx + cw + 1 + 0.5) / fc - 0.5) + 1, w)
        y1 = min(int((cy + ch + 1 + 0.5) / fc - 0.5) + 1, h)
        mine = cv2.dilate((labels[cy - 1 : cy + ch + 1, cx - 1 : cx + cw + 1] == label).astype(np.uint8),
                          np.ones((3, 3), np.uint8))  # the core grown back
        region = _resampled(mine, fc, (x0, y0, x1, y1), origin=(cx - 1, cy - 1), interpolation=cv2.INTER_NEAREST)
        if not region.any():
            continue
        blob = blob_from_mask(view, label, region, x0, y0, False)
        if blob is not None:
            out.append(replace(blob, faint=True))
    return out


def _tile_evidence(bad: np.ndarray, img: np.ndarray, tile: _Tile, view: TableView, scale: float,
                   origin: tuple[int, int], coarse_look: bool) -> None:
    """Inside a tile the background is the tile's own colour and only a clear difference counts (its print is
    thin: an opening removes it); away from coins on it nothing counts, and its rim never does."""
    h, w = bad.shape
    seen = np.zeros((h, w), np.uint8)
    _fill(seen, tile.support.seen_mm, view, scale, 1, origin)
    if not seen.any():
        return
    seen_b = seen.astype(bool)
    if not tile.keep:
        bad[seen_b] = 0.0
        return
    p = view.px_per_mm * scale
    top = np.zeros((h, w), np.uint8)
    _fill(top, tile.support.top_mm, view, scale, 1, origin)
    inner = cv2.erode(top, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(4 * p) | 1, int(4 * p) | 1)))
    zone = np.zeros((h, w), np.uint8)
    for disc in tile.keep:
        _fill(zone, disc, view, scale, 1, origin)
    zone &= inner if not coarse_look else top
    bad[seen_b] = 0.0
    if not zone.any():
        return
    px = img.astype(np.float32)
    s_seen = px.sum(axis=2) + 3.0
    median = tile.colour
    s_bg = float(median.sum()) + 3.0
    diff = (px - median[None, None] * (s_seen / s_bg)[..., None]) / np.maximum(s_seen, 200.0)[..., None]
    chroma = np.linalg.norm(diff, axis=2)
    light = np.log(s_seen / s_bg)
    strong = ((chroma > 0.1) | (light < -0.9) | (light > 0.35)).astype(np.uint8)
    if not coarse_look:
        strong = cv2.morphologyEx(strong, cv2.MORPH_OPEN, cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (int(2.5 * p) | 1, int(2.5 * p) | 1)))
    keep = zone.astype(bool)
    bad[keep] = np.where(strong.astype(bool), 2.0, 0.0)[keep]


def _blobs_in(view: TableView, fg: np.ndarray, x0: int, y0: int, min_area_mm2: float) -> list[Blob]:
    """Connected regions of a foreground crop (top-left at view pixel (x0, y0)) of a plausible size."""
    # close one-pixel cracks inside translucent pieces (their internal edges can be near the background colour)
    m = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    p2 = view.px_per_mm**2
    h, w = fg.shape
    vh, vw = view.valid.shape
    invalid = ~view.valid[y0 : y0 + h, x0 : x0 + w]
    edge = cv2.dilate(invalid.astype(np.uint8), np.ones((3, 3), np.uint8))
    if x0 == 0:
        edge[:, 0] = 1
    if y0 == 0:
        edge[0, :] = 1
    if x0 + w >= vw:
        edge[:, -1] = 1
    if y0 + h >= vh:
        edge[-1, :] = 1
    out = []
    for label in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[label])
        if area / p2 < min_area_mm2:
            continue
        sub = (labels[y : y + bh, x : x + bw] == label).astype(np.uint8)
        touches = bool((edge[y : y + bh, x : x + bw] & sub).any())
        blob = blob_from_mask(view, label, sub, x0 + x, y0 + y, touches)
        if blob is not None:
            out.append(blob)
    return out


def blob_from_mask(view: TableView, label: int, sub: np.ndarray, x: int, y: int, touches: bool) -> Blob | None:
    """A :class:`Blob` from a uint8 mask crop whose top-left corner is view pixel (x, y)."""
    contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64) + (x, y)
    hull = cv2.convexHull(contour.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    h, w = sub.shape
    return Blob(label, (x, y, w, h), float(sub.sum()) / view.px_per_mm**2, view.to_mm(hull), view.to_mm(contour),
                touches, sub)


def split_by_colour(view: TableView, blob: Blob, min_part_mm2: float = 60.0, min_distance: float = 60.0,
                    min_share: float = 0.12) -> list[Blob]:
    """Split a region into its two main colours (k-means, k = 2) when they are far apart (BGR distance) and
    each is a real share of it: a red pyramid against a blue one, a piece against fingertips."""
    sub = blob.mask
    if sub is None:
        return [blob]
    x, y, w, h = blob.box
    crop = view.image[y : y + h, x : x + w].astype(np.float32)
    inside = sub.astype(bool)
    pixels = crop[inside]
    if len(pixels) < 40:
        return [blob]
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, labels, centres = cv2.kmeans(pixels, 2, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=2) / len(labels)
    if np.linalg.norm(centres[0] - centres[1]) < min_distance or share.min() < min_share:
        return [blob]
    label_img = np.full(sub.shape, -1, np.int32)
    label_img[inside] = labels.ravel()
    parts = []
    p2 = view.px_per_mm**2
    for k in range(2):
        part = (label_img == k).astype(np.uint8)
        part = cv2.morphologyEx(part, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        count, comp, stats, _ = cv2.connectedComponentsWithStats(part, connectivity=8)
        for c in range(1, count):
            bx, by, bw, bh, area = (int(v) for v in stats[c])
            if area / p2 < min_part_mm2:
                continue
            made = blob_from_mask(view, blob.label, (comp[by : by + bh, bx : bx + bw] == c).astype(np.uint8),
                                  x + bx, y + by, blob.touches_edge)
            if made is not None:
                parts.append(made)
    return parts if len(parts) > 1 else [blob]


def split_blob(view: TableView, blob: Blob, min_depth_mm: float = 1.2, min_part_mm2: float = 60.0) -> list[Blob]:
    """Cut a region that looks like several touching pieces at its two deepest opposite notches.

    Two convex outlines that touch make a region with a notch (convexity defect) on each side of the contact;
    the cut joins the pair of notches that are deepest for the shortest cut. Returns the parts (or the blob
    itself when there is no such pair)."""
    sub = blob.mask
    if sub is None:
        return [blob]
    p = view.px_per_mm
    pad = 2
    padded = cv2.copyMakeBorder(sub, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    contours, _ = cv2.findContours(padded, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return [blob]
    contour = max(contours, key=cv2.contourArea)
    if len(contour) < 8:
        return [blob]
    hull_idx = cv2.convexHull(contour, returnPoints=False)
    try:
        defects = cv2.convexityDefects(contour, hull_idx)
    except cv2.error:
        return [blob]
    if defects is None:
        return [blob]
    defects = defects.reshape(-1, 4)
    depth = defects[:, 3] / 256.0 / p
    deep = defects[depth >= min_depth_mm]
    if len(deep) < 2:
        return [blob]
    pts = contour.reshape(-1, 2)
    best = None
    for i in range(len(deep)):
        for j in range(i + 1, len(deep)):
            a, b = pts[deep[i, 2]], pts[deep[j, 2]]
            cut = float(np.hypot(*(a - b))) / p
            d = min(deep[i, 3], deep[j, 3]) / 256.0 / p
            score = d / (cut + 1.0)
            if best is None or score > best[0]:
                best = (score, a, b)
    _, a, b = best
    cut_mask = padded.copy()
    cv2.line(cut_mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 0, 2)
    count, labels = cv2.connectedComponents(cut_mask, connectivity=4)
    parts = []
    x, y = blob.box[:2]
    for k in range(1, count):
        part = (labels == k).astype(np.uint8)
        if part.sum() / p**2 < min_part_mm2:
            continue
        ys, xs = np.nonzero(part)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        made = blob_from_mask(view, blob.label, part[y0:y1, x0:x1], x + x0 - pad, y + y0 - pad, blob.touches_edge)
        if made is not None:
            parts.append(made)
    if len(parts) < 2:
        return [blob]
    out = []
    for part in parts:
        out.extend(split_blob(view, part, min_depth_mm, min_part_mm2))
    return out
