"""Lens calibration from photos of the ChArUco board, and its use before the homography (820x616, barrel)."""

import json
import re

import cv2
import numpy as np
import pytest
from planar_camera import look_at, photograph, rms, sheet_area_grid, sheet_photo

from calibration.calibration_file import load_calibration, load_lens
from calibration.errors import CalibrationError
from calibration.homography import apply_homography, detect_sheet_markers
from calibration.lens import (
    CHARUCO_SQUARE_MM,
    LensModel,
    calibrate_lens,
    charuco_origin_mm,
    detect_charuco,
    distort_points,
    draw_charuco_sheet,
    undistort_points,
    undistort_raw,
)
from calibration.rectify import rectified_matrix, rectify
from calibration.table_calibration import calibrate_from_sheet
from tableside.cli import main

SIZE = (820, 616)
BARREL = (-0.28, 0.09, 0.0, 0.0, 0.0)
# Board photos: centred and in each corner of the frame, tilted various ways (target, distance, tilt, azimuth, roll).
POSES = [
    ((105, 148), 380, 0, 0, 0),
    ((40, 60), 340, 20, 30, 0),
    ((170, 60), 340, 25, -40, 10),
    ((40, 240), 360, 25, 140, -5),
    ((170, 240), 360, 30, -150, 0),
    ((105, 148), 420, 35, 90, 0),
]


@pytest.fixture(scope="module")
def board_photos():
    page, px_per_mm = draw_charuco_sheet("a4", 5.0)
    cameras = [look_at(t, d, tilt, SIZE, 62.2, az, roll, np.array(BARREL)) for t, d, tilt, az, roll in POSES]
    return cameras, [photograph(c, page, px_per_mm, seed=i) for i, c in enumerate(cameras)]


def test_printable_board_is_at_exact_scale():
    page, px_per_mm = draw_charuco_sheet("a4")
    assert px_per_mm == pytest.approx(12.0)
    assert page.shape == (297 * 12, 210 * 12)
    corners, ids = detect_charuco(page)
    assert len(ids) == 24  # all inner corners of the 5 x 7 board
    # Corner id 0 is one square in from the board's top-left corner.
    x0, y0 = charuco_origin_mm("a4")
    expected = np.array([x0 + CHARUCO_SQUARE_MM, y0 + CHARUCO_SQUARE_MM]) * px_per_mm - 0.5
    np.testing.assert_allclose(corners[ids == 0][0], expected, atol=1.0)


def test_undistort_and_distort_are_inverse():
    k = np.array([[680.0, 0, 409.5], [0, 680.0, 307.5], [0, 0, 1]])
    lens = LensModel(k, np.array(BARREL), SIZE)
    grid = np.stack(np.meshgrid(np.linspace(0, 819, 12), np.linspace(0, 615, 9)), axis=-1)
    undistorted = undistort_points(grid, lens)
    assert undistorted.shape == grid.shape
    assert np.abs(undistorted - grid).max() > 20  # barrel distortion moves the corners a lot
    np.testing.assert_allclose(distort_points(undistorted, lens), grid, atol=1e-3)


def test_lens_recovered_from_board_photos(board_photos):
    cameras, photos = board_photos
    result = calibrate_lens(photos)
    lens, truth = result.lens, cameras[0]
    assert lens.photos == len(photos) and all(n >= 8 for n in result.corners_per_photo)
    assert lens.rms_px < 0.5
    assert lens.focal_px == pytest.approx(truth.camera_matrix[0, 0], rel=0.02)
    assert lens.dist_coeffs[0] == pytest.approx(BARREL[0], abs=0.03)
    # Up to a homography (which the table fit absorbs), undistortion matches the true lens over the frame.
    grid = np.stack(np.meshgrid(np.linspace(40, 780, 30), np.linspace(40, 576, 24)), axis=-1).reshape(-1, 1, 2)
    ours = undistort_raw(grid, lens.camera_matrix, lens.dist_coeffs).reshape(-1, 2)
    true = undistort_raw(grid, truth.camera_matrix, truth.dist_coeffs).reshape(-1, 2)
    homography, _ = cv2.findHomography(ours, true, 0)
    residual = cv2.perspectiveTransform(ours.reshape(-1, 1, 2), homography).reshape(-1, 2) - true
    assert rms(residual * truth.camera_matrix[0, 0]) < 0.6  # pixels


def test_lens_correction_improves_table_positions(board_photos):
    lens = calibrate_lens(board_photos[1]).lens
    camera, image = sheet_photo("a4", 600.0, 15.0, -60.0, 0.0, 0, SIZE, BARREL)
    truth = sheet_area_grid("a4")
    plain = calibrate_from_sheet(image, sheet_distortion=False)
    sheet_k1 = calibrate_from_sheet(image)  # k1 estimated from the sheet alone
    corrected = calibrate_from_sheet(image, lens=lens)
    assert corrected.camera.focal_source == "lens" and corrected.lens.source == "charuco"
    assert sheet_k1.lens is not None and sheet_k1.lens.source == "sheet"
    error_plain = rms(plain.pixel_to_table(camera.project(truth)) - truth)
    error_sheet_k1 = rms(sheet_k1.pixel_to_table(camera.project(truth)) - truth)
    error_corrected = rms(corrected.pixel_to_table(camera.project(truth)) - truth)
    assert error_corrected < 0.3
    assert error_plain > 2 * error_corrected
    assert error_sheet_k1 < 0.75 * error_plain


def test_too_few_board_photos_is_a_clear_error(board_photos):
    blank = np.full((SIZE[1], SIZE[0], 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match=r"only 2 of 4 photos show enough of the ChArUco board \(need 3\+\)"):
        calibrate_lens([board_photos[1][0], board_photos[1][1], blank, blank])
    with pytest.raises(CalibrationError, match="different sizes"):
        calibrate_lens([board_photos[1][0], cv2.resize(board_photos[1][1], (640, 480))])


def test_lens_through_the_cli(board_photos, tmp_path, capsys):
    paths = []
    for i, photo in enumerate(board_photos[1]):
        paths.append(tmp_path / f"board{i}.png")
        cv2.imwrite(str(paths[-1]), photo)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((SIZE[1], SIZE[0], 3), 128, np.uint8))
    lens_json = tmp_path / "lens.json"
    assert main(["calibrate", "--lens", *map(str, paths), str(blank), "--out", str(lens_json), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["photos"] == 7 and report["photos_used"] == 6 and report["corners_per_photo"][str(blank)] == 0
    assert report["rms_px"] < 0.5 and report["dist_coeffs"][0] < -0.2
    lens = load_lens(lens_json, SIZE)
    # Use it: IMAGE --lens lens.json.
    camera, image = sheet_photo("a4", 600.0, 15.0, -60.0, 0.0, 0, SIZE, BARREL)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), image)
    table_json = tmp_path / "table.json"
    assert main(["calibrate", str(photo), "--lens", str(lens_json), "--out", str(table_json)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"reprojection error: RMS \d\.\d\d mm", out) and "(lens calibration)" in out
    calibration = load_calibration(table_json, SIZE)
    np.testing.assert_allclose(calibration.lens.camera_matrix, lens.camera_matrix)
    truth = sheet_area_grid("a4")
    assert rms(calibration.pixel_to_table(camera.project(truth)) - truth) < 0.3
    check = cv2.imread(str(tmp_path / "table-rectified.png"))
    assert check is not None and min(check.shape[:2]) > 300
    # Rectified through the lens, the frame is a true top-down view: every marker where the sheet says.
    rectified = rectify(image, calibration, (-20.0, -20.0, 230.0, 317.0), px_per_mm=2.0)
    detection = detect_sheet_markers(rectified.image)
    assert len(detection.ids) == 16
    expected = apply_homography(rectified_matrix(rectified.bounds_mm, 2.0), detection.layout.corners_mm(detection.ids))
    assert np.abs(detection.corners_px.reshape(-1, 2) - expected).max() < 2.0  # 1 mm
    # A lens made for another camera mode is refused, and nothing is written.
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(image, (640, 480)))
    assert main(["calibrate", str(small), "--lens", str(lens_json), "--out", str(tmp_path / "other.json")]) == 2
    assert "made for 820x616 frames but this frame is 640x480" in capsys.readouterr().err
    assert not (tmp_path / "other.json").exists() and not (tmp_path / "other-rectified.png").exists()
