"""Calibration files: round trip, and a clear one-line error for every way a file can be wrong."""

import json

import cv2
import numpy as np
import pytest

from calibration.calibration_file import load_calibration, load_lens, save_calibration, save_lens
from calibration.errors import CalibrationError
from calibration.lens import LensModel
from calibration.parallax import recover_camera
from calibration.table_calibration import Calibration, FitReport, calibrate_from_scale


def _camera_calibration() -> Calibration:
    # An exact camera: K, a tilted pose, and the homography it implies.
    k = np.array([[1300.0, 0, 819.5], [0, 1300.0, 615.5], [0, 0, 1]])
    angle = np.radians(25)
    rotation = np.array([[1, 0, 0], [0, np.cos(angle), -np.sin(angle)], [0, np.sin(angle), np.cos(angle)]])
    translation = np.array([-100.0, -80.0, 900.0])
    table = np.array([[0, 0], [210, 0], [210, 297], [0, 297], [105, 150]], float)
    projected = (k @ (rotation[:, :2] @ table.T + translation[:, None])).T
    pixels = projected[:, :2] / projected[:, 2:]
    homography, _ = cv2.findHomography(pixels, table, 0)
    camera = recover_camera(table, pixels, (1640, 1232))
    lens = LensModel(k, np.array([-0.1, 0.02, 0, 0, 0]), (1640, 1232), 0.21, 12)
    report = FitReport("sheet", 0.12, 0.3, 64, 63, "a4", (0, 1, 2, 3))
    return Calibration("homography", (1640, 1232), homography, lens, camera, report)


def test_round_trip_keeps_everything(tmp_path):
    calibration = _camera_calibration()
    path = save_calibration(calibration, tmp_path / "table.json")
    data = json.loads(path.read_text())
    assert data["version"] == 1 and data["kind"] == "homography" and data["image_size"] == [1640, 1232]
    assert len(data["camera_position_mm"]) == 3 and data["created"]
    loaded = load_calibration(path, (1640, 1232))
    np.testing.assert_allclose(loaded.homography, calibration.homography)
    np.testing.assert_allclose(loaded.lens.dist_coeffs, calibration.lens.dist_coeffs)
    np.testing.assert_allclose(loaded.camera.rotation, calibration.camera.rotation)
    assert loaded.report == calibration.report
    points = np.array([[10.0, 20.0], [700.0, 900.0]])
    np.testing.assert_allclose(loaded.pixel_to_table(points, 30.0), calibration.pixel_to_table(points, 30.0))
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic write left no temporary file


def test_scale_calibration_round_trip(tmp_path):
    path = save_calibration(calibrate_from_scale(4.0, (800, 600)), tmp_path / "scan.json")
    loaded = load_calibration(path)
    assert loaded.kind == "scale" and loaded.camera is None and loaded.camera_position_mm() is None
    np.testing.assert_allclose(loaded.pixel_to_table(np.array([[-0.5, -0.5], [3.5, 7.5]])), [[0, 0], [1, 2]])


def test_missing_file(tmp_path):
    with pytest.raises(CalibrationError, match=r"table.json not found .*tableside calibrate"):
        load_calibration(tmp_path / "table.json")


@pytest.mark.parametrize(
    "content,message",
    [
        ("{not json", r"not a calibration file \(bad JSON at line 1\)"),
        ("[1, 2]", "no JSON object"),
        ('{"version": 2, "kind": "homography"}', "version 2 calibration file; this tableside reads version 1"),
        ('{"kind": "homography"}', "version None"),
        (
            '{"version": 1, "kind": "homography", "image_size": [640, 480]}',
            r"damaged calibration file \(no 'homography'\)",
        ),
        (
            '{"version": 1, "kind": "homography", "image_size": [640, 480], "homography": [[1, 0], [0, 1]]}',
            "damaged calibration file",
        ),
        ('{"version": 1, "kind": "lens"}', "is a lens calibration, not a table calibration"),
    ],
)
def test_corrupt_files_say_what_to_do(tmp_path, content, message):
    path = tmp_path / "table.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message) as err:
        load_calibration(path)
    assert "\n" not in str(err.value)


def test_binary_garbage_is_not_a_calibration(tmp_path):
    path = tmp_path / "table.json"
    path.write_bytes(b"\xff\xfe\x00\x81garbage")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        load_calibration(path)


def test_resolution_mismatch_names_both_sizes(tmp_path):
    path = save_calibration(_camera_calibration(), tmp_path / "table.json")
    expected = (
        "table.json was made for 1640x1232 frames but this frame is 2304x1296: "
        "run `tableside calibrate` again for this camera mode"
    )
    with pytest.raises(CalibrationError) as err:
        load_calibration(path, (2304, 1296))
    assert str(err.value) == expected


def test_lens_file_round_trip_and_errors(tmp_path):
    lens = _camera_calibration().lens
    path = save_lens(lens, tmp_path / "lens.json")
    loaded = load_lens(path, (1640, 1232))
    np.testing.assert_allclose(loaded.camera_matrix, lens.camera_matrix)
    assert loaded.photos == 12
    with pytest.raises(CalibrationError, match="made for 1640x1232 frames but this frame is 820x616"):
        load_lens(path, (820, 616))
    table = save_calibration(_camera_calibration(), tmp_path / "table.json")
    with pytest.raises(CalibrationError, match="is not a lens calibration"):
        load_lens(table)
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "kind": "lens", "image_size": [10, 10], "camera_matrix": [1], "dist_coeffs": []}')
    with pytest.raises(CalibrationError, match="damaged lens calibration"):
        load_lens(bad)
