"""Parallax: the camera recovered from the sheet, and footprints of points seen above the table."""

import math

import numpy as np
import pytest
from planar_camera import look_at, rms, sheet_area_grid, sheet_photo

from calibration.parallax import MIN_TILT_DEG, estimate_focal_px, focal_from_hfov, recover_camera
from calibration.table_calibration import calibrate_from_sheet

CENTRE = ((1640 - 1) / 2, (1232 - 1) / 2)


def _table_to_pixel(camera):
    return camera.camera_matrix @ np.column_stack([camera.rotation[:, 0], camera.rotation[:, 1], camera.translation])


@pytest.mark.parametrize("tilt_deg,azimuth_deg", [(10.0, 0.0), (25.0, 45.0), (40.0, -120.0)])
def test_focal_length_from_an_exact_homography(tilt_deg, azimuth_deg):
    camera = look_at((100.0, 150.0), 900.0, tilt_deg, azimuth_deg=azimuth_deg, roll_deg=7.0)
    focal = estimate_focal_px(_table_to_pixel(camera), CENTRE)
    assert focal == pytest.approx(camera.camera_matrix[0, 0], rel=1e-6)


def test_no_focal_length_from_a_camera_looking_straight_down():
    camera = look_at((100.0, 150.0), 900.0, 0.0)
    focal = estimate_focal_px(_table_to_pixel(camera), CENTRE)
    assert focal is None or focal > 1e6  # no perspective: unobservable


def test_camera_recovered_from_a_tilted_photo():
    camera, image = sheet_photo("a4", 1000.0, 25.0, 30.0, 5.0)
    calibration = calibrate_from_sheet(image)
    pose = calibration.camera
    assert pose.focal_source == "homography"
    assert pose.camera_matrix[0, 0] == pytest.approx(camera.camera_matrix[0, 0], rel=0.02)
    assert pose.tilt_deg == pytest.approx(25.0, abs=0.5)
    assert np.linalg.norm(calibration.camera_position_mm() - camera.position_mm) < 0.02 * 1000.0


def test_straight_down_falls_back_to_the_assumed_field_of_view():
    camera, image = sheet_photo("a4", 700.0, 0.0)
    calibration = calibrate_from_sheet(image, hfov_deg=62.2)
    assert calibration.camera.focal_source == "default-fov"
    assert calibration.camera.tilt_deg < MIN_TILT_DEG
    assert calibration.camera.camera_matrix[0, 0] == pytest.approx(focal_from_hfov(1640, 62.2))
    assert np.linalg.norm(calibration.camera_position_mm() - camera.position_mm) < 10.0


@pytest.mark.parametrize(
    "distance_mm,tilt_deg,azimuth_deg,hfov_deg,limit_mm",
    [
        (1000.0, 25.0, 30.0, 64.0, 0.25),  # focal measured from the sheet
        (700.0, 0.0, 0.0, 64.0, 0.6),  # straight down: focal assumed (64 deg for a 62.2 deg camera)
    ],
)
def test_raised_points_are_corrected_to_their_footprints(distance_mm, tilt_deg, azimuth_deg, hfov_deg, limit_mm):
    camera, image = sheet_photo("a4", distance_mm, tilt_deg, azimuth_deg, 5.0 if tilt_deg else 0.0)
    calibration = calibrate_from_sheet(image, hfov_deg=hfov_deg)
    footprints = sheet_area_grid("a4", 15.0)
    rng = np.random.default_rng(0)
    heights = rng.choice([3.0, 12.7, 25.4, 40.0, 45.0], size=len(footprints))  # coins to pyramid apexes
    pixels = camera.project(footprints, heights)
    uncorrected = calibration.pixel_to_table(pixels)
    corrected = calibration.pixel_to_table(pixels, heights)
    assert rms(uncorrected - footprints) > 5.0  # parallax matters...
    assert rms(corrected - footprints) < limit_mm  # ...and is corrected
    # One height for all points works the same as per-point heights.
    same = calibration.pixel_to_table(pixels[heights == 40.0], 40.0)
    np.testing.assert_allclose(same, corrected[heights == 40.0])


def test_table_to_pixel_inverts_pixel_to_table_at_any_height():
    camera, image = sheet_photo("letter", 1000.0, 25.0, 30.0, 5.0)
    calibration = calibrate_from_sheet(image)
    points = sheet_area_grid("letter", 30.0)
    for height in (0.0, 25.4, np.linspace(0, 50, len(points))):
        pixels = calibration.table_to_pixel(points, height)
        np.testing.assert_allclose(calibration.pixel_to_table(pixels, height), points, atol=1e-6)
    # And it agrees with the true camera for raised points (within a pixel).
    assert np.abs(calibration.table_to_pixel(points, 30.0) - camera.project(points, 30.0)).max() < 1.0


def test_recover_camera_uses_the_lens_matrix_when_given():
    camera = look_at((100.0, 150.0), 800.0, 5.0)  # nearly straight down: the sheet alone could not tell f
    table = sheet_area_grid("a4", 50.0)
    pose = recover_camera(table, camera.project(table), (1640, 1232), lens_matrix=camera.camera_matrix)
    assert pose.focal_source == "lens"
    np.testing.assert_allclose(pose.position_mm, camera.position_mm, atol=1e-3)
    assert pose.tilt_deg == pytest.approx(5.0, abs=1e-4)
    assert math.isclose(np.linalg.det(pose.rotation), 1.0, abs_tol=1e-9)
