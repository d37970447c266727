"""Table positions from photos of the calibration sheet taken by a known camera (1640x1232, noise, blur, JPEG)."""

import cv2
import numpy as np
import pytest
from planar_camera import look_at, photograph, rms, sheet_area_grid, sheet_photo

from calibration.errors import CalibrationError
from calibration.homography import (
    apply_homography,
    detect_sheet_markers,
    fit_homography,
    rectangle_homography,
    scale_homography,
)
from calibration.rectify import draw_grid, rectified_matrix, rectify, visible_bounds_mm
from calibration.sheet import aruco_dictionary, sheet_layout
from calibration.table_calibration import calibrate_from_sheet


@pytest.mark.parametrize(
    "paper,distance_mm,tilt_deg,azimuth_deg,roll_deg",
    [
        ("a4", 700.0, 0.0, 0.0, 0.0),  # straight down
        ("letter", 1000.0, 25.0, 30.0, 5.0),  # from a corner, rolled
        ("a3", 1200.0, 30.0, -90.0, 0.0),  # from the side, far
    ],
)
def test_table_positions_within_half_a_millimetre_over_the_sheet(paper, distance_mm, tilt_deg, azimuth_deg, roll_deg):
    camera, image = sheet_photo(paper, distance_mm, tilt_deg, azimuth_deg, roll_deg)
    calibration = calibrate_from_sheet(image)
    layout = sheet_layout(paper)
    assert calibration.report.paper == paper
    assert len(calibration.report.marker_ids) == len(layout.markers)
    assert calibration.image_size == (1640, 1232)
    truth = sheet_area_grid(paper)
    found = calibration.pixel_to_table(camera.project(truth))
    assert rms(found - truth) < 0.5
    assert np.abs(found - truth).max() < 1.0
    # The reported fit error is honest: small, and of the size of the corner noise.
    assert 0.01 < calibration.report.rms_mm < 0.5


def test_a_board_over_half_the_sheet_leaves_enough_markers():
    # An a4 sheet with a 340 mm board lying over its right half and bottom: only some markers remain.
    board = (120.0, 150.0, 460.0, 490.0)
    camera, image = sheet_photo("a4", 900.0, 20.0, occluders_mm=(board,), target_mm=(200.0, 250.0))
    detection = detect_sheet_markers(image)
    layout = sheet_layout("a4")
    assert 2 <= len(detection.ids) < len(layout.markers)
    calibration = calibrate_from_sheet(image)
    # Accurate where the markers are, and still within a millimetre over the whole board.
    truth = sheet_area_grid("a4")
    assert rms(calibration.pixel_to_table(camera.project(truth)) - truth) < 0.5
    x_board, y_board = np.meshgrid(np.linspace(120, 460, 18), np.linspace(150, 490, 18))
    on_board = np.column_stack([x_board.ravel(), y_board.ravel()])
    assert rms(calibration.pixel_to_table(camera.project(on_board)) - on_board) < 1.5


def test_an_empty_table_is_a_clear_error():
    camera = look_at((0.0, 0.0), 800.0, 10.0, image_size=(820, 616))
    blank = np.full((8, 8), 255, np.uint8)
    image = photograph(camera, blank, 0.01, sheet_origin_mm=(5000.0, 5000.0))  # the sheet is off the table
    with pytest.raises(CalibrationError, match="no calibration-sheet markers found"):
        detect_sheet_markers(image)


def test_a_single_visible_marker_is_too_few():
    layout = sheet_layout("a4")
    image = np.full((400, 400), 230, np.uint8)
    marker = cv2.aruco.generateImageMarker(aruco_dictionary(layout), 3, 120)
    image[140:260, 140:260] = marker
    with pytest.raises(CalibrationError, match="only 1 marker of the a4 calibration sheet found"):
        detect_sheet_markers(image)


def test_ransac_drops_a_misread_marker():
    layout = sheet_layout("a4")
    truth_homography = np.array([[0.5, 0.02, -30.0], [-0.01, 0.55, -20.0], [1e-5, 2e-4, 1.0]])
    ids = np.array(sorted(layout.markers))
    points_mm = layout.corners_mm(ids)
    points_px = apply_homography(np.linalg.inv(truth_homography), points_mm)
    rng = np.random.default_rng(3)
    points_px += rng.normal(0, 0.1, points_px.shape)
    points_px[8:12] += 40.0  # marker 2 "found" in the wrong place
    fit = fit_homography(points_px, points_mm)
    assert not fit.inliers[8:12].any() and fit.inliers.sum() == len(points_px) - 4
    assert fit.rms_mm < 0.3
    assert fit.residuals_mm[8:12].min() > 10.0


def test_rectangle_homography_maps_the_clicked_corners():
    clicks = np.array([[100.0, 120.0], [900.0, 110.0], [950.0, 700.0], [60.0, 690.0]])
    homography = rectangle_homography(clicks, (210.0, 297.0), origin_mm=(10.0, 20.0))
    np.testing.assert_allclose(
        apply_homography(homography, clicks), [[10, 20], [220, 20], [220, 317], [10, 317]], atol=1e-6
    )
    with pytest.raises(CalibrationError, match="clockwise from the top left"):
        rectangle_homography(clicks[::-1], (210.0, 297.0))
    with pytest.raises(CalibrationError, match="clockwise from the top left"):
        rectangle_homography(clicks[[0, 2, 1, 3]], (210.0, 297.0))  # crossed


def test_scale_homography_pixel_convention():
    # Pixel (c, r) covers [c/p, (c+1)/p): its centre (integer coordinates in OpenCV) is (c+0.5)/p mm.
    np.testing.assert_allclose(
        apply_homography(scale_homography(4.0), np.array([[0.0, 0.0], [-0.5, -0.5], [3.0, 1.0]])),
        [[0.125, 0.125], [0.0, 0.0], [0.875, 0.375]],
    )
    with pytest.raises(CalibrationError):
        scale_homography(0.0)


def test_rectified_image_puts_the_markers_where_the_sheet_says():
    camera, image = sheet_photo("letter", 1000.0, 25.0, 30.0, 5.0)
    calibration = calibrate_from_sheet(image)
    layout = sheet_layout("letter")
    bounds = visible_bounds_mm(calibration, (0.0, 0.0, layout.width_mm, layout.height_mm))
    # The view reaches beyond the sheet on every side.
    assert bounds[0] < -100 and bounds[1] < -100 and bounds[2] > layout.width_mm + 100
    rectified = rectify(image, calibration, bounds, px_per_mm=3.0)
    scale = rectified.px_per_mm
    assert 1.0 < scale <= 3.0  # limited so the check image stays viewable
    assert rectified.image.shape[:2] == (
        int(np.ceil((bounds[3] - bounds[1]) * scale)),
        int(np.ceil((bounds[2] - bounds[0]) * scale)),
    )
    assert max(rectified.image.shape) <= 2400
    detection = detect_sheet_markers(rectified.image, layout)
    to_px = rectified_matrix(rectified.bounds_mm, scale)
    expected = apply_homography(to_px, layout.corners_mm(detection.ids)).reshape(-1, 4, 2)
    assert len(detection.ids) == len(layout.markers)
    assert np.abs(detection.corners_px - expected).max() < 1.0 * scale  # < 1 mm
    gridded = draw_grid(rectified, 50.0, outline_mm=(0, 0, layout.width_mm, layout.height_mm))
    assert gridded.shape == rectified.image.shape
    # Grid lines are drawn at every 50 mm: the column of x = 0 is the red axis.
    column = int(round(to_px[0, 2]))
    assert (gridded[:, column, 2] > 200).mean() > 0.5 and (gridded[:, column, 0] < 80).mean() > 0.5
