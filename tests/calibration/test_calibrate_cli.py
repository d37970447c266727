"""`tableside calibrate` end to end: sheets, calibrations, JSON output, and one-line errors that write nothing."""

import json
import re

import cv2
import numpy as np
import pytest
from planar_camera import rms, sheet_area_grid, sheet_photo

from calibration.calibration_file import load_calibration
from calibration.sheet import PAPER_SIZES_MM
from tableside.cli import main


@pytest.fixture(scope="module")
def photo_path(tmp_path_factory):
    camera, image = sheet_photo("letter", 1000.0, 25.0, 30.0, 5.0)
    path = tmp_path_factory.mktemp("photos") / "frame.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return camera, path


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("paper", ["a4"])  # the other sizes: test_sheet.py, at a lower resolution
def test_sheet_pdf_at_paper_size(tmp_path, capsys, paper):
    out = tmp_path / f"sheet-{paper}.pdf"
    code, stdout, _ = _run(["calibrate", "--sheet", paper, "--out", str(out), "--json"], capsys)
    assert code == 0
    report = json.loads(stdout)
    assert report["sheet"] == paper and report["markers"] >= 16
    width_pt, height_pt = map(float, re.search(rb"/MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+)", out.read_bytes()).groups())
    width_mm, height_mm = PAPER_SIZES_MM[paper]
    assert width_pt == pytest.approx(width_mm / 25.4 * 72, abs=0.01)
    assert height_pt == pytest.approx(height_mm / 25.4 * 72, abs=0.01)


def test_charuco_board_png(tmp_path, capsys):
    out = tmp_path / "board.png"
    code, stdout, _ = _run(["calibrate", "--charuco-board", "a4", "--out", str(out)], capsys)
    assert code == 0 and "ChArUco lens board" in stdout
    assert cv2.imread(str(out), cv2.IMREAD_GRAYSCALE).shape == (297 * 12, 210 * 12)


def test_calibrate_from_a_photo_prints_json_and_writes_the_check_image(photo_path, tmp_path, capsys):
    camera, photo = photo_path
    out = tmp_path / "table.json"
    code, stdout, stderr = _run(["calibrate", str(photo), "--out", str(out), "--json"], capsys)
    assert code == 0, stderr
    report = json.loads(stdout)
    assert report["kind"] == "homography" and report["method"] == "sheet" and report["paper"] == "letter"
    assert report["markers_found"] == report["markers_total"] == 16
    assert report["inliers"] == report["points"] == 64
    assert 0.0 < report["rms_mm"] <= report["max_mm"] < 1.0
    assert report["focal_source"] == "homography" and report["tilt_deg"] == pytest.approx(25.0, abs=1.0)
    assert np.linalg.norm(np.array(report["camera_position_mm"]) - camera.position_mm) < 20.0
    assert report["rectified"] == str(tmp_path / "table-rectified.png")
    check = cv2.imread(report["rectified"])
    assert check is not None and check.shape[0] > 500
    calibration = load_calibration(out, (1640, 1232))
    truth = sheet_area_grid("letter")
    assert rms(calibration.pixel_to_table(camera.project(truth)) - truth) < 0.5


def test_plain_report_for_people(photo_path, tmp_path, capsys):
    _, photo = photo_path
    rectified = tmp_path / "top.png"
    code, stdout, _ = _run(
        ["calibrate", str(photo), "--out", str(tmp_path / "t.json"), "--rectified", str(rectified)], capsys
    )
    assert code == 0
    lines = stdout.strip().splitlines()
    assert lines[0].endswith("1640x1232 frames calibrated from the letter sheet (16 of 16 markers)")
    assert re.match(r"reprojection error: RMS 0\.\d\d mm, max 0\.\d\d mm over 64 marker corners$", lines[1])
    assert re.match(r"camera: \d+ mm above the table over \(-?\d+, -?\d+\) mm, tilted 2\d\.\d deg", lines[2])
    assert rectified.exists() and not (tmp_path / "t-rectified.png").exists()


def test_four_clicked_corners(photo_path, tmp_path, capsys):
    camera, photo = photo_path
    corners = camera.project(np.array([[0.0, 0.0], [215.9, 0.0], [215.9, 279.4], [0.0, 279.4]]))
    text = ";".join(f"{x:.2f},{y:.2f}" for x, y in corners)
    out = tmp_path / "clicked.json"
    argv = ["calibrate", str(photo), "--corners", text, "--size-mm", "215.9,279.4", "--out", str(out), "--json"]
    code, stdout, stderr = _run(argv, capsys)
    assert code == 0, stderr
    assert json.loads(stdout)["method"] == "corners"
    truth = sheet_area_grid("letter")
    assert rms(load_calibration(out).pixel_to_table(camera.project(truth)) - truth) < 0.2


def test_scan_at_known_scale(tmp_path, capsys):
    out = tmp_path / "scan.json"
    code, stdout, _ = _run(
        ["calibrate", "--px-per-mm", "4", "--image-size", "800x600", "--out", str(out), "--json"], capsys
    )
    assert code == 0
    report = json.loads(stdout)
    assert report["kind"] == "scale" and report["px_per_mm"] == 4.0 and report["rectified"] is None
    calibration = load_calibration(out, (800, 600))
    np.testing.assert_allclose(calibration.pixel_to_table(np.array([[399.5, 299.5]])), [[100.0, 75.0]])


@pytest.mark.parametrize(
    "argv,message",
    [
        (["{blank}"], "no calibration-sheet markers found"),
        (["{missing}"], "image not found"),
        (["{text}"], "cannot read"),
        ([], "give IMAGE"),
        (["{photo}", "--corners", "1,2;3,4"], "give four corners"),
        (["{photo}", "--corners", "1,2;3,4;5,6;7,8"], "--corners needs --size-mm"),
        (["{photo}", "--corners", "10,10;500,10;500,400;10,400", "--size-mm", "abc"], "write 2 numbers"),
        (["{photo}", "--corners", "10,10;10,400;500,400;500,10", "--size-mm", "100,100"], "clockwise"),
        (["{photo}", "--lens", "{corrupt}"], "lens.json is not a lens calibration file"),
        (["{photo}", "--lens", "{missing_json}"], "nolens.json not found"),
        (["--px-per-mm", "4"], "needs IMAGE or --image-size"),
        (["--px-per-mm", "-1", "--image-size", "10x10"], "must be positive"),
        (["{photo}", "--rectified", "{dir}/check.jpg"], "written as .png"),
    ],
)
def test_errors_are_one_line_exit_2_and_write_nothing(photo_path, tmp_path, capsys, argv, message):
    _, photo = photo_path
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((600, 800, 3), 200, np.uint8))
    text = tmp_path / "notes.png"
    text.write_text("not an image")
    corrupt = tmp_path / "lens.json"
    corrupt.write_text("{oops")
    names = {
        "blank": blank,
        "missing": tmp_path / "nope.jpg",
        "text": text,
        "photo": photo,
        "corrupt": corrupt,
        "missing_json": tmp_path / "nolens.json",
        "dir": tmp_path,
    }
    out = tmp_path / "table.json"
    before = set(tmp_path.iterdir())
    code, stdout, stderr = _run(["calibrate", *[a.format(**names) for a in argv], "--out", str(out)], capsys)
    assert code == 2
    assert stderr.startswith("tableside calibrate: error: ") and stderr.count("\n") == 1
    assert message in stderr
    assert set(tmp_path.iterdir()) == before  # nothing written, no temporary files left


def test_wrong_output_type_is_refused(tmp_path, capsys):
    code, _, stderr = _run(["calibrate", "--sheet", "a4", "--out", str(tmp_path / "sheet.json")], capsys)
    assert code == 2 and ".pdf or .png" in stderr
    code, _, stderr = _run(["calibrate", "--sheet", "a4", "--out", str(tmp_path / "no" / "sheet.pdf")], capsys)
    assert code == 2 and "does not exist" in stderr
    assert list(tmp_path.iterdir()) == []
