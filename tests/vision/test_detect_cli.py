"""``tableside detect``: JSON and annotated image on a rendered board; one-line errors with exit status 2 and
nothing written for an unreadable or empty image, a frame without pieces, no calibration, a calibration for
another camera mode, and a profile of another piece set."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from detect_scenes import GAME_CAMERA, easy_slider_frame, rendered, taught_profile_path
from tablescene import Lighting, Scene

from calibration.calibration_file import save_calibration
from calibration.table_calibration import calibrate_from_scale, calibrate_from_sheet
from tableside.cli import main


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("detect")
    frame = easy_slider_frame(101)
    path = folder / "board.jpg"
    cv2.imwrite(str(path), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return folder, path, frame


def test_json_and_annotated_image(board, capsys):
    folder, path, frame = board
    out = folder / "seen.png"
    assert main(["detect", str(path), "--json", "--kinds", "tile,coin", "--annotate", str(out)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "calibrated from the a3 sheet" in captured.err
    tiles = [p for p in data["pieces"] if p["kind"] == "tile"]
    assert len(tiles) >= 23
    for piece in data["pieces"]:
        assert set(piece) == {"kind", "suit", "rank", "side", "x_mm", "y_mm", "angle_deg", "confidence"}
        assert 0.0 <= piece["confidence"] <= 1.0
    annotated = cv2.imread(str(out))
    assert annotated is not None and annotated.shape == frame.image.shape
    assert np.mean(np.abs(annotated.astype(int) - frame.image.astype(int))) > 1.0  # something was drawn


def test_with_a_calibration_file_and_text_output(board, capsys):
    folder, path, frame = board
    table = folder / "table.json"
    save_calibration(calibrate_from_sheet(frame.image), table)
    assert main(["detect", str(path), "--calibration", str(table), "--kinds", "tile"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("24 tiles") or out.splitlines()[0].startswith("23 tiles")
    assert "mm" in out


def _fails(argv, capsys, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err, err


def test_bad_input_is_one_line_exit_2_and_writes_nothing(board, capsys, tmp_path):
    folder, path, frame = board
    out = tmp_path / "never.png"
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not a jpeg")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    _fails(["detect", str(broken), "--annotate", str(out)], capsys, "not a readable image")
    _fails(["detect", str(empty), "--annotate", str(out)], capsys, "not a readable image")
    _fails(["detect", str(tmp_path / "missing.jpg")], capsys, "no such image")
    # no sheet in the frame and no calibration given
    table_only = rendered(Scene(pieces=[], table="wood", sheet=None, lighting=Lighting()), GAME_CAMERA, 5)
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), table_only.image)
    _fails(["detect", str(plain), "--annotate", str(out)], capsys, "no calibration")
    # a calibration for another camera mode
    other = tmp_path / "other.json"
    save_calibration(calibrate_from_scale(2.0, (2304, 1296)), other)
    _fails(["detect", str(path), "--calibration", str(other), "--annotate", str(out)], capsys, "2304x1296")
    # a frame with no pieces (the sheet alone)
    sheet_only = rendered(Scene(pieces=[], table="wood", sheet="a3", lighting=Lighting()), GAME_CAMERA, 6)
    bare = tmp_path / "bare.png"
    cv2.imwrite(str(bare), sheet_only.image)
    _fails(["detect", str(bare), "--kinds", "tile,coin", "--annotate", str(out)], capsys, "no pieces found")
    # a profile of another piece set: the bold edition's coloured faces are not these white tiles
    _fails(["detect", str(path), "--kinds", "tile", "--profile", str(taught_profile_path("bold")),
            "--annotate", str(out)], capsys, "do not look like the piece set")
    # a calibration file given as the profile
    table = tmp_path / "table.json"
    save_calibration(calibrate_from_sheet(frame.image), table)
    _fails(["detect", str(path), "--profile", str(table)], capsys, "not a piece-set profile")
    _fails(["detect", str(path), "--kinds", "meeple"], capsys, "unknown kind")
    assert not out.exists()
