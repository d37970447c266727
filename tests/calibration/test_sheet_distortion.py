"""Barrel distortion (k1) estimated from the calibration sheet alone, only when the corners demand it."""

import json

import cv2
import numpy as np
import pytest
from planar_camera import rms, sheet_area_grid, sheet_photo

from calibration.calibration_file import load_calibration, save_calibration
from calibration.homography import detect_sheet_markers
from calibration.sheet_distortion import MIN_F, estimate_k1
from calibration.table_calibration import calibrate_from_sheet
from tableside.cli import main

BARREL = (-0.1, 0.02, 0.0, 0.0, 0.0)
# The sheet in a corner of the frame, where the lens bends most (camera aimed 150 mm beyond the sheet's corner).
OFF_CENTRE = {"target_mm": (255.0, 248.0)}


def _play_area(camera):
    grid = np.stack(np.meshgrid(np.arange(-150.0, 360.0, 10.0), np.arange(-100.0, 400.0, 10.0)), -1).reshape(-1, 2)
    px = camera.project(grid)
    inside = (px[:, 0] >= 0) & (px[:, 0] < 1640) & (px[:, 1] >= 0) & (px[:, 1] < 1232)
    return grid[inside], px[inside]


def test_no_distortion_no_k1():
    camera, image = sheet_photo("a4", 600.0, 20.0, 15.0, 0.0, **OFF_CENTRE)
    detection = detect_sheet_markers(image)
    pixels, table = detection.points()
    estimate = estimate_k1(pixels, table, camera.camera_matrix)
    assert not estimate.significant and estimate.f_statistic < MIN_F
    assert calibrate_from_sheet(image).lens is None


def test_barrel_is_found_and_corrected():
    camera, image = sheet_photo("a4", 600.0, 20.0, 15.0, 0.0, dist_coeffs=BARREL, **OFF_CENTRE)
    detection = detect_sheet_markers(image)
    pixels, table = detection.points()
    estimate = estimate_k1(pixels, table, camera.camera_matrix)
    assert estimate.significant
    assert estimate.k1 == pytest.approx(BARREL[0], abs=0.03)
    plain = calibrate_from_sheet(image, sheet_distortion=False)
    with_k1 = calibrate_from_sheet(image)
    assert plain.lens is None
    assert with_k1.lens.source == "sheet" and with_k1.lens.photos == 0
    assert with_k1.camera.focal_source == "homography"
    sheet = sheet_area_grid("a4")
    assert rms(with_k1.pixel_to_table(camera.project(sheet)) - sheet) < 0.15
    play, play_px = _play_area(camera)
    error_plain = rms(plain.pixel_to_table(play_px) - play)
    error_k1 = rms(with_k1.pixel_to_table(play_px) - play)
    assert error_k1 < 0.5 < error_plain
    # Raised points (coins on tiles) are corrected with the undistorted camera too.
    assert rms(with_k1.pixel_to_table(camera.project(sheet, 12.0), 12.0) - sheet) < 0.3


def test_sheet_lens_round_trips_and_the_cli_reports_it(tmp_path, capsys):
    camera, image = sheet_photo("a4", 600.0, 20.0, 15.0, 0.0, dist_coeffs=BARREL, **OFF_CENTRE)
    calibration = calibrate_from_sheet(image)
    loaded = load_calibration(save_calibration(calibration, tmp_path / "k1.json"))
    assert loaded.lens.source == "sheet"
    points = np.array([[5.0, 7.0], [1500.0, 1100.0]])
    np.testing.assert_allclose(loaded.pixel_to_table(points, 20.0), calibration.pixel_to_table(points, 20.0))
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), image)
    assert main(["calibrate", str(frame), "--out", str(tmp_path / "t.json"), "--no-rectified", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sheet_k1"] == pytest.approx(BARREL[0], abs=0.03)
    assert main(["calibrate", str(frame), "--out", str(tmp_path / "t.json"), "--no-rectified"]) == 0
    assert "estimated from the sheet" in capsys.readouterr().out
    argv = ["calibrate", str(frame), "--out", str(tmp_path / "t.json"), "--no-rectified", "--no-sheet-distortion"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sheet_k1"] is None
