"""Where the standing pieces might be: a top-down view of the table, its local background, and the blobs
that differ from it.

One frame, no reference picture of the empty table: the background at each point is the **median** of a
neighbourhood much larger than any piece (``background_mm``, 70 mm), computed on a half-size copy (the table's
light and colour change slowly; pieces are small). A pixel belongs to a piece when it differs from that
background in **chromaticity** (normalised r, g, b: a shadow darkens the table but keeps its hue) or in
lightness by more than a shadow does (much darker: black plastic; brighter: clear and white plastic catch the
light). Weak, wide differences (wood grain, a lamp's gradient) stay below the thresholds.

All lengths are millimetres on the table; the working image is a rectified view (x right, y down) at
``px_per_mm`` (1-2.5 is plenty to find pieces: the sub-pixel fit happens later on the raw frame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.rectify import Rectified, rectified_matrix, rectify, visible_bounds_mm
from calibration.sheet import SheetLayout, draw_sheet, sheet_layout, sheet_pixel_matrix
from calibration.table_calibration import Calibration

__all__ = [
    "TableView", "Blob", "table_view", "foreground", "find_blobs", "split_blob", "split_by_colour", "blob_from_mask",
    "sheet_in_view",
]

_MAX_DETECT_PX_PER_MM = 1.6
_MIN_DETECT_PX_PER_MM = 0.8
_MAX_VIEW_PIXELS = 4.0e6
_BACKGROUND_PX_PER_MM = 0.5


@dataclass
class TableView:
    """A rectified view of the table plane with its background estimate and foreground evidence."""

    image: np.ndarray  # BGR uint8
    bounds_mm: tuple[float, float, float, float]
    px_per_mm: float
    valid: np.ndarray  # bool: pixels that see the frame (not the black border of the warp)
    background: np.ndarray | None = None  # BGR float32
    chroma: np.ndarray | None = None  # chromaticity distance from the background (0..~0.5)
    light: np.ndarray | None = None  # log(lightness / background lightness)
    mask: np.ndarray | None = None  # bool foreground
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


def table_view(image_bgr: np.ndarray, calibration: Calibration, rectified: Any = None,
               area_mm: tuple[float, float, float, float] | None = None) -> TableView:
    """The rectified table view to search: ``rectified`` when given (downscaled when finer than needed),
    otherwise the frame warped at about its own scale (capped) over what it sees of the table."""
    if rectified is not None:
        img = np.asarray(rectified.image)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        bounds = tuple(float(v) for v in rectified.bounds_mm)
        p = float(rectified.px_per_mm)
        if p > _MAX_DETECT_PX_PER_MM:
            factor = _MAX_DETECT_PX_PER_MM / p
            img = cv2.resize(img, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            p = img.shape[1] / (bounds[2] - bounds[0])
        valid = img.max(axis=2) > 0
        return TableView(img, bounds, p, valid)
    bounds = visible_bounds_mm(calibration, area_mm)
    centre = np.array([(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2])
    try:
        native = calibration.px_per_mm_at(centre)
    except (ValueError, np.linalg.LinAlgError):
        native = 1.5
    p = float(np.clip(native, _MIN_DETECT_PX_PER_MM, _MAX_DETECT_PX_PER_MM))
    area = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1])
    if area * p * p > _MAX_VIEW_PIXELS:
        p = math.sqrt(_MAX_VIEW_PIXELS / area)
    rect: Rectified = rectify(image_bgr, calibration, bounds, p)
    # Which view pixels see the frame: map the frame's outline into the view.
    h, w = image_bgr.shape[:2]
    edge = np.linspace(0.0, 1.0, 65)
    outline = np.concatenate([
        np.column_stack([edge * (w - 1), np.zeros_like(edge)]),
        np.column_stack([np.full_like(edge, w - 1), edge * (h - 1)]),
        np.column_stack([(1 - edge) * (w - 1), np.full_like(edge, h - 1)]),
        np.column_stack([np.zeros_like(edge), (1 - edge) * (h - 1)]),
    ])
    table = calibration.pixel_to_table(outline)
    view = TableView(rect.image, rect.bounds_mm, rect.px_per_mm, np.zeros(rect.image.shape[:2], bool))
    poly = view.to_px(table)
    valid = np.zeros(rect.image.shape[:2], np.uint8)
    if np.all(np.isfinite(poly)):
        cv2.fillPoly(valid, [np.round(poly * 16).astype(np.int32).reshape(-1, 1, 2)], 1, cv2.LINE_8, 4)
    else:
        valid[:] = rect.image.max(axis=2) > 0
    view.valid = valid.astype(bool)
    return view


def foreground(view: TableView, background_mm: float = 70.0, chroma_min: float = 0.07,
               darker_log: float = -0.75, brighter_log: float = 0.12, sheet: SheetLayout | None = None,
               weak_factor: float = 1.0) -> TableView:
    """Fill ``view.background``, ``chroma``, ``light`` and ``mask`` (see the module docstring).

    ``chroma_min``: chromaticity distance (normalised rgb) that counts as a piece; ``darker_log`` /
    ``brighter_log``: log lightness ratios beyond which a grey difference counts (a shadow is rarely darker
    than exp(-0.75) = 0.47 of the lit table). ``sheet``: the calibration sheet lying at the origin (its printed
    markers are predicted instead of mistaken for pieces; see :func:`sheet_in_view`). ``weak_factor``: the share
    of the darkening threshold that still counts for pixels joined to a clear region (1: no hysteresis).
    """
    img = view.image.astype(np.float32)
    bg, alternatives = _background(view, background_mm, sheet)
    chroma, light = _evidence(img, bg)
    badness = _badness(chroma, light, chroma_min, darker_log, brighter_log)
    # Near the sheet's printed edges and the paper's edge the prediction is only as good as the registration
    # (a calibration without a lens model is off by a millimetre or two at the paper's edge): there a pixel is
    # background if it matches either side of the edge.
    for alt_bg, band in alternatives:
        if not band.any():
            continue
        alt_chroma, alt_light = _evidence(img, alt_bg)
        alt_bad = _badness(alt_chroma, alt_light, chroma_min, darker_log, brighter_log)
        better = band & (alt_bad < badness)
        badness[better] = alt_bad[better]
        chroma[better] = alt_chroma[better]
        light[better] = alt_light[better]
    fg = (badness > 1.0) & view.valid
    fg = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if weak_factor < 1.0:
        # hysteresis on darkening: a weaker darkening joined to a clear region belongs to it (the grey-lit top of
        # a black die on white paper is less dark than its side, found first); weak colour differences are left
        # out (wood grain would join everything)
        weak = ((light < weak_factor * darker_log) & view.valid).astype(np.uint8)
        count, labels = cv2.connectedComponents(weak, connectivity=8)
        keep = np.zeros(count, bool)
        keep[np.unique(labels[fg.astype(bool)])] = True
        keep[0] = False
        fg = keep[labels].astype(np.uint8)
    view.background = bg
    view.chroma = chroma
    view.light = light
    view.mask = fg.astype(bool)
    return view


def _evidence(img: np.ndarray, bg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chromaticity difference, log lightness ratio) of an image against a background, lightly smoothed."""
    # cv2 arithmetic rather than numpy: several times faster on full-size float images (SIMD, no temporaries)
    ones = np.ones((1, 3), np.float32)
    s_img = cv2.transform(img, ones) + 3.0
    s_bg = cv2.transform(bg, ones) + 3.0
    # Chromaticity difference, normalised by at least a mid-grey level: in dark places (printed ink, deep
    # shadow) the noise of a normalised colour would otherwise look like colour.
    s_floor = cv2.max(s_img, 200.0)
    scaled_bg = cv2.multiply(bg, cv2.merge([cv2.divide(s_img, s_bg)] * 3))
    diff = cv2.divide(cv2.subtract(img, scaled_bg), cv2.merge([s_floor] * 3))
    chroma = cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), ones))
    light = cv2.log(cv2.divide(s_img, s_bg))
    # Sensor noise and JPEG make single pixels flicker: decide on a lightly smoothed evidence map.
    return cv2.GaussianBlur(chroma, (0, 0), 0.7), cv2.GaussianBlur(light, (0, 0), 0.7)


def _badness(chroma: np.ndarray, light: np.ndarray, chroma_min: float, darker_log: float,
             brighter_log: float) -> np.ndarray:
    """How far past the nearest threshold a pixel is (> 1: foreground)."""
    return np.maximum(np.maximum(chroma / chroma_min, light / darker_log), light / brighter_log)


def _median_field(image: np.ndarray, usable: np.ndarray, px_per_mm: float, background_mm: float) -> np.ndarray:
    """Median of the ``usable`` pixels over a ``background_mm`` neighbourhood, at the size of ``image``.

    The median runs at about 0.5 px/mm (the background is smooth, and a big median costs in proportion);
    unusable pixels take the colour of the nearest usable one first, so they do not leak in."""
    factor = min(1.0, _BACKGROUND_PX_PER_MM / px_per_mm)
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    # only small pixels made wholly of usable ones: a mixed pixel on a boundary has a mixed colour, and the fill
    # below would spread it
    ok = cv2.resize(usable.astype(np.float32), (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA) > 0.99
    if not ok.any():
        ok[:] = True
    if not ok.all():
        small = _fill_nearest(small, ok)
    k = max(3, int(round(background_mm * px_per_mm * factor)) | 1)
    med = cv2.medianBlur(small, k)
    return cv2.resize(med, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _background(view: TableView, background_mm: float, sheet: SheetLayout | None
                ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The background colour everywhere, and alternative backgrounds with the bands where they may hold
    instead (either side of a printed edge or of the paper's edge)."""
    p = view.px_per_mm
    if sheet is None:
        return _median_field(view.image, view.valid, p, background_mm), []
    ink, cover = _sheet_in_view(view, sheet)
    margin = cv2.dilate((cover > 0.01).astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (int(4 * p) | 1, int(4 * p) | 1))).astype(bool)
    table = _median_field(view.image, view.valid & ~margin, p, background_mm)
    paper_px = (cover > 0.99) & (ink < 0.05) & view.valid
    paper = _median_field(view.image, paper_px, p, background_mm)
    ink_px = (cover > 0.99) & (ink > 0.95) & view.valid
    ink_bgr = np.median(view.image[ink_px], axis=0).astype(np.float32) if ink_px.sum() > 50 else \
        np.float32(0.15) * np.median(paper[paper_px], axis=0) if paper_px.any() else np.full(3, 30, np.float32)
    ink_img = np.broadcast_to(ink_bgr, paper.shape).astype(np.float32)

    def blend(a: np.ndarray, b: np.ndarray, weight: np.ndarray) -> np.ndarray:
        w3 = cv2.merge([weight] * 3)
        return cv2.add(cv2.multiply(a, cv2.subtract(1.0, w3)), cv2.multiply(b, w3))

    printed = blend(paper, ink_img, ink)
    background = blend(table, printed, cover)
    flipped_ink = blend(table, blend(paper, ink_img, 1.0 - ink), cover)
    flipped_cover = blend(table, printed, 1.0 - cover)
    ink_band = cv2.dilate(cv2.morphologyEx(ink, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)),
                          cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(3 * p) | 1, int(3 * p) | 1))) > 0.1
    paper_band = cv2.dilate(cv2.morphologyEx(cover, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)),
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(6 * p) | 1, int(6 * p) | 1))) > 0.1
    return background, [(flipped_ink, ink_band), (flipped_cover, paper_band)]


def _sheet_in_view(view: TableView, sheet: SheetLayout) -> tuple[np.ndarray, np.ndarray]:
    """(ink, cover) float32 maps of the calibration sheet in the view: ink 1 where the sheet is printed
    black, cover 1 on the paper (anti-aliased at its edge)."""
    draw_ppm = 4.0  # fixed: the drawing is cached, and 4 px/mm is finer than any detection view
    printed = draw_sheet_cached(sheet.name, draw_ppm)
    to_view = rectified_matrix(view.bounds_mm, view.px_per_mm) @ np.linalg.inv(sheet_pixel_matrix(draw_ppm))
    size = (view.image.shape[1], view.image.shape[0])
    ink = 1.0 - cv2.warpPerspective(printed, to_view, size, flags=cv2.INTER_AREA, borderValue=255).astype(
        np.float32) / 255.0
    ones = np.full(printed.shape, 255, np.uint8)
    cover = cv2.warpPerspective(ones, to_view, size, flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32) / 255
    return ink, cover


@lru_cache(maxsize=4)
def draw_sheet_cached(paper: str, px_per_mm: float) -> np.ndarray:
    return draw_sheet(sheet_layout(paper), px_per_mm)


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
    ink, cover = _sheet_in_view(view, layout)
    inside = (cover > 0.99) & view.valid
    if inside.sum() < 500:
        return None
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY).astype(np.float32)[inside]
    expected = 1.0 - ink[inside]
    if expected.std() < 1e-3 or gray.std() < 1e-3:
        return None
    corr = float(np.corrcoef(gray, expected)[0, 1])
    return layout if corr >= min_correlation else None


def _fill_nearest(img: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Copy the nearest valid pixel into invalid ones (distance transform labels)."""
    _, labels = cv2.distanceTransformWithLabels((~valid).astype(np.uint8), cv2.DIST_L2, 3,
                                                labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(valid)
    # label of each valid pixel
    lut = np.zeros(labels.max() + 1, np.int64)
    lut[labels[ys, xs]] = ys * img.shape[1] + xs
    flat = img.reshape(-1, img.shape[2])
    return flat[lut[labels]].reshape(img.shape)


def find_blobs(view: TableView, mask: np.ndarray | None = None, min_area_mm2: float = 60.0,
               max_area_mm2: float = 6000.0) -> list[Blob]:
    """Connected foreground regions of a plausible size for a standing piece (or a few touching ones)."""
    mask = view.mask if mask is None else mask
    m = mask.astype(np.uint8)
    # close one-pixel cracks inside translucent pieces (their internal edges can be near the background colour)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    p2 = view.px_per_mm**2
    edge = cv2.dilate((~view.valid).astype(np.uint8), np.ones((3, 3), np.uint8))
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = 1
    blobs = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        area_mm2 = area / p2
        if area_mm2 < min_area_mm2 or area_mm2 > max_area_mm2:
            continue
        sub = (labels[y : y + h, x : x + w] == label).astype(np.uint8)
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contour = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64) + (x, y)
        hull = cv2.convexHull(contour.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        touches = bool((edge[y : y + h, x : x + w] & sub).any())
        blobs.append(Blob(label, (x, y, w, h), area_mm2, view.to_mm(hull), view.to_mm(contour), touches, sub))
    view.extra["labels"] = labels
    return blobs


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
