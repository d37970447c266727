"""The printable calibration sheet: ArUco markers along the border of a sheet of paper, a blank centre.

The sheet stays on the table while playing. Its frame IS the table frame: origin at the sheet's top-left
corner, ``x`` to the right, ``y`` down (as seen from above), millimetres. Markers sit in a band along the
edges, so pieces in the centre hide none of them and the homography is pinned at the outside of the play
area (well conditioned over all of it). When a board covers part of a small sheet, the markers still in view
are enough (any two give eight corners).

Each paper size uses its own range of marker ids, so a photo tells which sheet is on the table
(:func:`layout_for_marker_ids`): a4 ids 0-15, letter 20-35, a3 40-59, all from ``DICT_4X4_100``.

Pixel convention of :func:`draw_sheet`: the pixel in column ``c``, row ``r`` covers table millimetres
``[c/p, (c+1)/p) x [r/p, (r+1)/p)`` for ``p = px_per_mm``. In OpenCV sub-pixel coordinates (pixel centres at
integers) the table point ``(x, y)`` is therefore at ``(x*p - 0.5, y*p - 0.5)``: see :func:`sheet_pixel_matrix`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from calibration.errors import CalibrationError

__all__ = [
    "PAPER_SIZES_MM",
    "SheetLayout",
    "sheet_layout",
    "draw_sheet",
    "sheet_pixel_matrix",
    "aruco_dictionary",
    "layout_for_marker_ids",
    "print_px_per_mm",
    "write_sheet",
    "text_font",
]

# Paper sizes (portrait, width x height) in millimetres. Letter is 8.5 x 11 inches.
PAPER_SIZES_MM: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "a3": (297.0, 420.0),
}

# 4x4 bits: the largest cells for a given marker size, so markers are found from farthest away.
# 100 ids leave each paper size its own range.
SHEET_DICTIONARY = cv2.aruco.DICT_4X4_100
_FIRST_ID = {"a4": 0, "letter": 20, "a3": 40}
# Marker side: a 30 mm marker is ~34 px (5-6 px per bit cell) on a 1640 px wide frame covering 1.4 m of table.
# A3 sheets cover more table, so the camera is farther: bigger markers.
_MARKER_MM = {"a4": 30.0, "letter": 30.0, "a3": 40.0}
_MARGIN_MM = 10.0  # from the paper edge: outside most printers' unprintable margin
_MIN_GAP_MM = 15.0  # white between markers (quiet zone for the detector)
_TEXT_MM = 3.2  # cap-height-ish size of the printed text


@dataclass(frozen=True)
class SheetLayout:
    """Where the markers of one printed sheet are, in table millimetres (the sheet's own frame)."""

    name: str  # "a4", "letter" or "a3"
    width_mm: float
    height_mm: float
    dictionary: int  # cv2.aruco predefined dictionary id
    markers: dict[int, np.ndarray]  # marker id -> (4, 2) corners in mm: TL, TR, BR, BL seen from above

    @property
    def marker_mm(self) -> float:
        """Side of the markers in millimetres."""
        corners = next(iter(self.markers.values()))
        return float(corners[1, 0] - corners[0, 0])

    def corners_mm(self, ids: np.ndarray | list[int]) -> np.ndarray:
        """The (4*n, 2) table corners of the markers ``ids`` (in that order, four corners each)."""
        return np.concatenate([self.markers[int(i)] for i in ids], axis=0).astype(np.float64)

    def inner_rect_mm(self) -> tuple[float, float, float, float]:
        """The blank centre ``(x0, y0, x1, y1)`` inside the marker band, in mm."""
        band = _MARGIN_MM + self.marker_mm
        return band, band, self.width_mm - band, self.height_mm - band


def _spread(start: float, length: float, size: float) -> list[float]:
    """Left edges of as many ``size`` markers as fit in ``[start, start+length]`` with gaps >= _MIN_GAP_MM."""
    count = max(2, int(math.floor((length + _MIN_GAP_MM) / (size + _MIN_GAP_MM))))
    gap = (length - count * size) / (count - 1)
    return [start + i * (size + gap) for i in range(count)]


def sheet_layout(paper: str = "a4") -> SheetLayout:
    """The layout of the calibration sheet for ``paper`` ("a4", "letter" or "a3").

    Markers are numbered clockwise from the top-left corner, starting at the paper's first id.
    """
    key = paper.strip().lower()
    if key not in PAPER_SIZES_MM:
        raise CalibrationError(f"unknown paper size {paper!r}: use one of {', '.join(PAPER_SIZES_MM)}")
    width, height = PAPER_SIZES_MM[key]
    size = _MARKER_MM[key]
    xs = _spread(_MARGIN_MM, width - 2 * _MARGIN_MM, size)
    ys = _spread(_MARGIN_MM, height - 2 * _MARGIN_MM, size)
    top, bottom = ys[0], ys[-1]
    left, right = xs[0], xs[-1]
    # Clockwise: top edge left->right, right edge top->bottom, bottom edge right->left, left edge bottom->top.
    origins = [(x, top) for x in xs]
    origins += [(right, y) for y in ys[1:-1]]
    origins += [(x, bottom) for x in reversed(xs)]
    origins += [(left, y) for y in reversed(ys[1:-1])]
    markers = {}
    for offset, (x0, y0) in enumerate(origins):
        square = np.array([[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]], dtype=np.float64)
        square.setflags(write=False)
        markers[_FIRST_ID[key] + offset] = square
    return SheetLayout(key, width, height, SHEET_DICTIONARY, markers)


def aruco_dictionary(layout: SheetLayout) -> cv2.aruco.Dictionary:
    """The OpenCV dictionary object of the sheet's markers."""
    return cv2.aruco.getPredefinedDictionary(layout.dictionary)


def layout_for_marker_ids(ids: np.ndarray | list[int]) -> SheetLayout:
    """The sheet whose markers the detected ``ids`` belong to (the paper with most of them).

    Raises CalibrationError when no id belongs to any sheet.
    """
    found = {int(i) for i in np.asarray(ids).ravel()}
    best, best_count = None, 0
    for paper in PAPER_SIZES_MM:
        layout = sheet_layout(paper)
        count = len(found & layout.markers.keys())
        if count > best_count:
            best, best_count = layout, count
    if best is None:
        raise CalibrationError("no calibration-sheet markers in the image: lay the printed sheet flat in view")
    return best


def sheet_pixel_matrix(px_per_mm: float) -> np.ndarray:
    """The 3x3 matrix taking table mm to OpenCV pixel coordinates of :func:`draw_sheet`'s image."""
    return np.array([[px_per_mm, 0.0, -0.5], [0.0, px_per_mm, -0.5], [0.0, 0.0, 1.0]])


def _marker_bits(dictionary: cv2.aruco.Dictionary, marker_id: int) -> np.ndarray:
    """The (cells, cells) image of one marker including its one-cell black border, 0 black / 255 white."""
    cells = dictionary.markerSize + 2
    return cv2.aruco.generateImageMarker(dictionary, marker_id, cells, borderBits=1)


def _paint_marker(sheet: np.ndarray, corners_mm: np.ndarray, bits: np.ndarray, px_per_mm: float) -> None:
    """Paint an axis-aligned marker with exact area coverage (anti-aliased edges at fractional pixels).

    Hand-written rather than cv2.resize because the marker's edges must land at exact fractional positions:
    each output pixel averages a grid of sub-samples of the bit grid.
    """
    # Fine sub-sampling matters at camera-like scales (a few px/mm); at print resolution 2x2 is plenty.
    supersample = int(min(8, max(2, round(32 / px_per_mm))))
    x0, y0 = corners_mm[0]
    side = corners_mm[1, 0] - corners_mm[0, 0]
    cells = bits.shape[0]
    c0 = max(int(math.floor(x0 * px_per_mm)) - 1, 0)
    c1 = min(int(math.ceil((x0 + side) * px_per_mm)) + 1, sheet.shape[1])
    r0 = max(int(math.floor(y0 * px_per_mm)) - 1, 0)
    r1 = min(int(math.ceil((y0 + side) * px_per_mm)) + 1, sheet.shape[0])
    sub_x = (c0 + (np.arange((c1 - c0) * supersample) + 0.5) / supersample) / px_per_mm
    sub_y = (r0 + (np.arange((r1 - r0) * supersample) + 0.5) / supersample) / px_per_mm
    cell_x = np.floor((sub_x - x0) / side * cells).astype(int)
    cell_y = np.floor((sub_y - y0) / side * cells).astype(int)
    inside_x = (cell_x >= 0) & (cell_x < cells)
    inside_y = (cell_y >= 0) & (cell_y < cells)
    values = bits[np.clip(cell_y, 0, cells - 1)[:, None], np.clip(cell_x, 0, cells - 1)[None, :]].astype(np.float32)
    values[~(inside_y[:, None] & inside_x[None, :])] = 255.0
    patch = values.reshape(r1 - r0, supersample, c1 - c0, supersample).mean(axis=(1, 3))
    region = sheet[r0:r1, c0:c1].astype(np.float32)
    sheet[r0:r1, c0:c1] = np.round(np.minimum(region, patch)).astype(np.uint8)


def text_font(size_px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """DejaVu Sans (or Pillow's built-in font) at ``size_px`` pixels, for the text printed on sheets."""
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "LiberationSans-Regular.ttf"):
        try:
            return ImageFont.truetype(name, size_px)
        except OSError:
            continue
    return ImageFont.load_default(size=size_px)


def _fill_rect_mm(draw: ImageDraw.ImageDraw, x0: float, y0: float, x1: float, y1: float, p: float) -> None:
    left, top = round(x0 * p), round(y0 * p)
    draw.rectangle([left, top, max(left, round(x1 * p) - 1), max(top, round(y1 * p) - 1)], fill=0)


def _paint_text(sheet: np.ndarray, layout: SheetLayout, px_per_mm: float) -> np.ndarray:
    """Paper name and print instructions under the top band, a 100 mm scale bar above the bottom band."""
    image = Image.fromarray(sheet, mode="L")
    draw = ImageDraw.Draw(image)
    p = px_per_mm
    font = text_font(max(6, round(_TEXT_MM * p)))
    x_in, y_in, x_out, y_out = layout.inner_rect_mm()
    centre_x = layout.width_mm / 2
    lines = [
        f"tableside calibration sheet - {layout.name.upper()} ({layout.width_mm:g} x {layout.height_mm:g} mm)",
        "Print at 100% scale (actual size, not 'fit to page').",
        "Leave it flat on the table, the black squares in view.",
    ]
    line_mm = _TEXT_MM * 1.5
    for i, text in enumerate(lines):
        draw.text((centre_x * p, (y_in + 4 + (i + 0.5) * line_mm) * p), text, fill=0, font=font, anchor="mm")
    # Scale bar: 100 mm long, 1.5 mm thick, ticks every 10 mm; measured with a ruler to check the print scale.
    bar_y = y_out - 12.0
    bar_x0 = centre_x - 50.0
    _fill_rect_mm(draw, bar_x0, bar_y, bar_x0 + 100.0, bar_y + 1.5, p)
    for tick in range(11):
        tick_len = 4.0 if tick % 5 == 0 else 2.5
        x = bar_x0 + tick * 10.0
        x_left = min(max(x - 0.25, bar_x0), bar_x0 + 100.0 - 0.5)
        _fill_rect_mm(draw, x_left, bar_y - tick_len, x_left + 0.5, bar_y, p)
    draw.text(
        (centre_x * p, (bar_y + 1.5 + 1.0 + line_mm / 2) * p),
        "100 mm - check with a ruler",
        fill=0,
        font=font,
        anchor="mm",
    )
    return np.asarray(image, dtype=np.uint8).copy()


def draw_sheet(layout: SheetLayout, px_per_mm: float) -> np.ndarray:
    """The whole sheet as a uint8 grayscale image (white paper, black markers and text).

    The image is ``round(height_mm*px_per_mm)`` rows by ``round(width_mm*px_per_mm)`` columns; for the pixel
    convention see the module docstring. Markers are anti-aliased to their exact mm positions.
    """
    if not px_per_mm > 0:
        raise ValueError("px_per_mm must be positive")
    width_px = int(round(layout.width_mm * px_per_mm))
    height_px = int(round(layout.height_mm * px_per_mm))
    sheet = np.full((height_px, width_px), 255, dtype=np.uint8)
    # Text first: marker painting takes the darker of the two, so nothing erases a marker.
    if px_per_mm >= 2.0:  # below ~2 px/mm text is an unreadable smudge that would only add noise
        sheet = _paint_text(sheet, layout, px_per_mm)
    dictionary = aruco_dictionary(layout)
    for marker_id, corners in layout.markers.items():
        _paint_marker(sheet, corners, _marker_bits(dictionary, marker_id), px_per_mm)
    return sheet


def print_px_per_mm(layout: SheetLayout) -> float:
    """A print resolution (~300 dpi) at which the paper is a whole number of pixels, so the PDF page is exact."""
    for dpi in (300.0, 304.8):  # letter is whole inches (300 dpi); a4/a3 are whole mm (304.8 dpi = 12 px/mm)
        p = dpi / 25.4
        if all(abs(v * p - round(v * p)) < 1e-6 for v in (layout.width_mm, layout.height_mm)):
            return p
    return 12.0


def write_sheet(layout: SheetLayout, path: str | Path, px_per_mm: float | None = None) -> Path:
    """Write the printable sheet as PNG or PDF (by the file suffix), at exact scale.

    The PDF page size in points is ``width_mm / 25.4 * 72`` by ``height_mm / 25.4 * 72``; the PNG carries its
    dpi so image viewers print it at 100% too.
    """
    path = Path(path)
    p = px_per_mm or print_px_per_mm(layout)
    image = Image.fromarray(draw_sheet(layout, p), mode="L")
    dpi = p * 25.4
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        # Pillow stores a gray page as JPEG; at quality 95 the edges stay sharp at print resolution. (A bilevel
        # page would be stored losslessly as CCITT fax, but some viewers invert those.)
        image.save(path, "PDF", resolution=dpi, quality=95, title=f"tableside calibration sheet {layout.name}")
    elif suffix == ".png":
        image.save(path, "PNG", dpi=(dpi, dpi))
    else:
        raise CalibrationError(f"cannot write a sheet as {path.name}: use a .pdf or .png file name")
    return path
