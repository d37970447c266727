"""Calibration on frames of the photo-realistic table renderer (tests/tablescene) with known camera poses.

Pieces on the sheet, lens distortion (the renderer's default mild barrel), lighting, noise and JPEG: table
positions within 0.5 mm RMS over the calibrated area, raised points corrected to their footprints, and the
CLI's errors for frames without a sheet and for calibrations made for another camera mode.
"""

import json

import cv2
import numpy as np
import pytest
from planar_camera import rms, sheet_area_grid
from tablescene import CameraSpec, Scene, easy_slider_board, easy_slider_layout, render

from calibration.sheet import sheet_layout
from calibration.table_calibration import calibrate_from_sheet
from tableside.cli import main

POSES = {
    # An Easy Slider game on an A3 sheet: the board covers the sheet's side markers.
    "a3-game": ("a3", True, CameraSpec(distance_mm=800, tilt_deg=15, target_mm=(148, 210))),
    # An empty A4 sheet seen from the corner of the table, far and tilted.
    "a4-far": ("a4", False, CameraSpec(distance_mm=1100, tilt_deg=30, yaw_deg=35, target_mm=(105, 150))),
}


@pytest.fixture(scope="module")
def frames():
    results = {}
    for name, (paper, game, spec) in POSES.items():
        pieces = easy_slider_layout(easy_slider_board(rng=1), rng=1) if game else []
        results[name] = render(Scene(pieces=pieces, table="wood", sheet=paper), spec, seed=2, quality="draft")
    return results


@pytest.mark.parametrize("name", sorted(POSES))
def test_table_positions_within_half_a_millimetre(frames, name):
    paper = POSES[name][0]
    result = frames[name]
    assert result.image.shape == (1232, 1640, 3)
    calibration = calibrate_from_sheet(result.image)
    assert calibration.report.paper == paper
    truth = sheet_area_grid(paper)
    found = calibration.pixel_to_table(result.project(truth, 0.0))
    assert rms(found - truth) < 0.5
    # The camera is where the renderer put it (focal length measured from the tilted sheet).
    position = calibration.camera_position_mm()
    true_centre = -result.camera.R.T @ result.camera.t
    assert (
        np.linalg.norm(position - [true_centre[0], true_centre[1], -true_centre[2]]) < 0.03 * POSES[name][2].distance_mm
    )


def test_board_over_the_a3_sheet_hides_markers_but_not_the_calibration(frames):
    calibration = calibrate_from_sheet(frames["a3-game"].image)
    assert 4 <= len(calibration.report.marker_ids) < len(sheet_layout("a3").markers)
    # The renderer's lens (k1 -0.04, k2 0.01) is seen in the sheet's corners and estimated without bias.
    assert calibration.lens is not None and calibration.lens.source == "sheet"
    assert -0.06 < calibration.lens.dist_coeffs[0] < -0.03


def test_pawn_tops_map_to_their_footprints(frames):
    result = frames["a3-game"]
    calibration = calibrate_from_sheet(result.image)
    pawns = [t for t in result.truth if t.kind == "pawn" and not t.hidden]
    assert len(pawns) == 4
    tops_px = np.array([p.top_center_px for p in pawns])
    heights = np.array([p.top_mm for p in pawns])
    footprints = np.array([[p.x_mm, p.y_mm] for p in pawns])
    assert rms(calibration.pixel_to_table(tops_px) - footprints) > 5.0  # uncorrected: the tops lean away
    assert rms(calibration.pixel_to_table(tops_px, heights) - footprints) < 0.6
    coins = [t for t in result.truth if t.kind == "coin" and not t.hidden]
    tops_px = np.array([c.top_center_px for c in coins])
    corrected = calibration.pixel_to_table(tops_px, np.array([c.top_mm for c in coins]))
    assert rms(corrected - np.array([[c.x_mm, c.y_mm] for c in coins])) < 0.5


def test_cli_calibrates_checks_and_refuses_other_frames(frames, tmp_path, capsys):
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), frames["a4-far"].image)
    table = tmp_path / "table.json"
    assert main(["calibrate", str(frame), "--out", str(table), "--no-rectified", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rms_mm"] < 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.png", "table.json"]
    # The same camera still fits.
    assert main(["calibrate", str(frame), "--check", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rms_mm"] < 0.5
    # The camera turned a little (the frame shifted by 25 px and rotated by 1 degree): the calibration is stale.
    moved = tmp_path / "moved.png"
    turn = cv2.getRotationMatrix2D((820.0, 616.0), 1.0, 1.0)
    turn[:, 2] += (25.0, -10.0)
    cv2.imwrite(str(moved), cv2.warpAffine(frames["a4-far"].image, turn, (1640, 1232)))
    assert main(["calibrate", str(moved), "--check", str(table)]) == 2
    assert "table.json no longer fits this frame" in capsys.readouterr().err
    # Another camera mode: refused with what to do.
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(frames["a4-far"].image, (1296, 972)))
    assert main(["calibrate", str(small), "--check", str(table)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "tableside calibrate: error: table.json was made for 1640x1232 frames but this frame is 1296x972: "
        "run `tableside calibrate` again for this camera mode\n"
    )
    # A corrupt calibration.
    broken = tmp_path / "broken.json"
    broken.write_text(table.read_text()[:200])
    assert main(["calibrate", str(frame), "--check", str(broken)]) == 2
    assert "broken.json is not a calibration file (bad JSON" in capsys.readouterr().err


def test_cli_on_a_table_without_the_sheet_writes_nothing(tmp_path, capsys):
    spec = CameraSpec(resolution=(820, 616), distance_mm=800, tilt_deg=10, target_mm=(150, 150))
    result = render(
        Scene(pieces=easy_slider_layout(easy_slider_board(rng=3), rng=3), sheet=None), spec, seed=3, quality="draft"
    )
    frame = tmp_path / "nosheet.jpg"
    cv2.imwrite(str(frame), result.image)
    assert main(["calibrate", str(frame), "--out", str(tmp_path / "table.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tableside calibrate: error: no calibration-sheet markers found") and err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == ["nosheet.jpg"]
