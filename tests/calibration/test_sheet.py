"""The printable calibration sheet: layout, drawing at exact scale, PNG/PDF page sizes."""

import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from calibration.errors import CalibrationError
from calibration.sheet import (
    PAPER_SIZES_MM,
    aruco_dictionary,
    draw_sheet,
    layout_for_marker_ids,
    print_px_per_mm,
    sheet_layout,
    sheet_pixel_matrix,
    write_sheet,
)


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES_MM))
def test_markers_lie_in_the_border_band_and_do_not_overlap(paper):
    layout = sheet_layout(paper)
    assert (layout.width_mm, layout.height_mm) == PAPER_SIZES_MM[paper]
    x_in, y_in, x_out, y_out = layout.inner_rect_mm()
    boxes = []
    for corners in layout.markers.values():
        assert corners.shape == (4, 2)
        x0, y0 = corners.min(axis=0)
        x1, y1 = corners.max(axis=0)
        assert x0 >= 5 and y0 >= 5 and x1 <= layout.width_mm - 5 and y1 <= layout.height_mm - 5
        # Every marker is in the band: none reaches into the blank centre.
        assert x1 <= x_in + 1e-9 or x0 >= x_out - 1e-9 or y1 <= y_in + 1e-9 or y0 >= y_out - 1e-9
        boxes.append((x0, y0, x1, y1))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            gap = max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])
            assert gap >= 10.0
    # The centre is a real play area.
    assert x_out - x_in >= 120 and y_out - y_in >= 180


def test_paper_sizes_use_distinct_ids_so_a_photo_tells_the_sheet():
    ids = [set(sheet_layout(p).markers) for p in PAPER_SIZES_MM]
    assert all(not (a & b) for i, a in enumerate(ids) for b in ids[i + 1 :])
    assert layout_for_marker_ids([21, 22, 3]).name == "letter"
    assert layout_for_marker_ids(np.array([[44], [45]])).name == "a3"
    with pytest.raises(CalibrationError, match="no calibration-sheet markers"):
        layout_for_marker_ids([99])


def test_unknown_paper_is_a_clear_error():
    with pytest.raises(CalibrationError, match="unknown paper size 'a5'"):
        sheet_layout("a5")


@pytest.mark.parametrize("paper,px_per_mm", [("a4", 4.0), ("letter", 3.37), ("a3", 2.5)])
def test_drawn_markers_are_detected_where_the_layout_says(paper, px_per_mm):
    layout = sheet_layout(paper)
    image = draw_sheet(layout, px_per_mm)
    assert image.dtype == np.uint8
    assert image.shape == (round(layout.height_mm * px_per_mm), round(layout.width_mm * px_per_mm))
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(aruco_dictionary(layout), params).detectMarkers(image)
    assert ids is not None and sorted(ids.ravel().tolist()) == sorted(layout.markers)
    to_px = sheet_pixel_matrix(px_per_mm)
    for found, marker_id in zip(corners, ids.ravel(), strict=True):
        expected = cv2.perspectiveTransform(layout.markers[int(marker_id)][None], to_px)[0]
        assert np.abs(found.reshape(4, 2) - expected).max() < 0.35


def test_paper_is_white_around_the_markers():
    layout = sheet_layout("a4")
    image = draw_sheet(layout, 2.0)
    x_in, y_in, x_out, y_out = layout.inner_rect_mm()
    # A strip through the middle of the blank centre is white.
    row = image[int(layout.height_mm / 2 * 2.0), int(x_in * 2) : int(x_out * 2)]
    assert row.min() == 255


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES_MM))
def test_pdf_page_is_the_paper_size_in_points(tmp_path, paper):
    layout = sheet_layout(paper)
    path = write_sheet(layout, tmp_path / f"{paper}.pdf", px_per_mm=3.0 if paper != "letter" else 100 / 25.4)
    media_box = re.search(rb"/MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+) *\]", path.read_bytes())
    assert media_box is not None
    width_pt, height_pt = float(media_box.group(1)), float(media_box.group(2))
    assert width_pt == pytest.approx(layout.width_mm / 25.4 * 72, abs=0.01)
    assert height_pt == pytest.approx(layout.height_mm / 25.4 * 72, abs=0.01)


def test_print_resolution_makes_whole_pixels_and_png_carries_dpi(tmp_path):
    for paper in PAPER_SIZES_MM:
        layout = sheet_layout(paper)
        p = print_px_per_mm(layout)
        assert 11.5 < p < 12.5
        assert abs(layout.width_mm * p - round(layout.width_mm * p)) < 1e-6
    path = write_sheet(sheet_layout("a4"), tmp_path / "a4.png", px_per_mm=4.0)
    with Image.open(path) as png:
        assert png.size == (840, 1188)
        assert png.info["dpi"][0] == pytest.approx(101.6, abs=0.01)
    with pytest.raises(CalibrationError, match="use a .pdf or .png"):
        write_sheet(sheet_layout("a4"), tmp_path / "a4.jpg")


def test_printable_sheets_in_docs_are_current():
    # docs/calibration-sheet-PAPER.png|pdf come from `tableside calibrate --sheet PAPER --out ...`; all three are
    # drawn by the same code, so comparing one PNG pixel for pixel catches a stale set.
    docs = Path(__file__).resolve().parents[2] / "docs"
    layout = sheet_layout("a4")
    with Image.open(docs / "calibration-sheet-a4.png") as png:
        committed = np.asarray(png.convert("L"))
    np.testing.assert_array_equal(committed, draw_sheet(layout, print_px_per_mm(layout)))
    for paper in PAPER_SIZES_MM:
        assert (docs / f"calibration-sheet-{paper}.pdf").stat().st_size > 10_000
        with Image.open(docs / f"calibration-sheet-{paper}.png") as png:
            width_mm, height_mm = PAPER_SIZES_MM[paper]
            p = print_px_per_mm(sheet_layout(paper))
            assert png.size == (round(width_mm * p), round(height_mm * p))
