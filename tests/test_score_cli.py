"""``tableside score``: Martian Shuffleboard in Small heights, the solitaire rooms and Plans of Action, from the
pieces a detector reports (``--detections``), annotations and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tablescene import coin_grid, shuffleboard_scatter
from tablescene.scene import DiePiece, PyramidPiece
from test_check_cli import run_cli, write_detections
from test_reading import _grid_tiles, _suited, seen

from rules import martian_shuffleboard as ms
from rules.epic_funhouse import roll_out_the_barrels, slide_jam
from rules.pieces import Kind, PyramidPose, PyramidSize
from vision.pieces import DetectedPiece

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "fixtures" / "scenes"


def fixture_pyramids() -> list[DetectedPiece]:
    truth = json.loads((SCENES / "martian_shuffleboard.json").read_text())["pieces"]
    return [DetectedPiece(Kind.PYRAMID, t["x_mm"], t["y_mm"], t["angle_deg"], color=t["color"],
                          size=PyramidSize(t["size"]), pose=PyramidPose(t["pose"]))
            for t in truth if t["kind"] == "pyramid"]


def test_shuffleboard_json_matches_the_rules_engine(tmp_path, capsys):
    for seed in (1, 2):
        pieces = shuffleboard_scatter(rng=seed, touching=3)
        path = write_detections(tmp_path / f"{seed}.json", seen(pieces, seed, jitter_mm=0.0, turn_deg=0.0))
        code, out, err = run_cli(capsys, "score", "--detections", path, "--game", "martian-shuffleboard", "--json")
        assert code == 0 and err == ""
        report = json.loads(out)
        assert {"pieces", "pairs", "scores"} <= set(report)
        assert set(report["pieces"][0]) >= {"color", "size", "pose", "x_mm", "y_mm", "angle_deg"}
        truth = ms.score_positions([vars(p) | {"kind": "pyramid"} for p in pieces])
        assert report["scores"] == truth.points
        upright = [p for p in report["pieces"] if p["pose"] == "upright"]
        assert len(report["pairs"]) == len(upright) * (len(upright) - 1) // 2
        for pair in report["pairs"]:
            assert set(pair) >= {"a", "b", "gap_mm", "gap_small_heights", "scores", "too_close_to_call"}
            assert pair["gap_small_heights"] == pytest.approx(pair["gap_mm"] / 25.4, abs=3e-3)
            assert report["pieces"][pair["a"]]["pose"] == "upright"


def test_shuffleboard_small_height_variant_and_close_calls(tmp_path, capsys):
    large = PyramidPiece("red", "large", "upright", 100.0, 100.0, 0.0)
    small = PyramidPiece("blue", "small", "upright", 100.0 + 12.7 + 26.0 + 7.15, 100.0, 0.0)  # 26.0 mm apart
    path = write_detections(tmp_path / "d.json", seen([large, small], 0, jitter_mm=0.0, turn_deg=0.0))
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "martian-shuffleboard", "--json")
    report = json.loads(out)
    assert report["scores"] == {"red": 0, "blue": 0}
    [pair] = report["pairs"]
    assert pair["too_close_to_call"] and not pair["scores"]
    assert report["close_calls"] == [{"pair": 0, "color": "blue", "points": 3, "counted": False}]
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "martian-shuffleboard", "--json",
                           "--small-height-mm", "26.5")
    report = json.loads(out)
    assert report["scores"] == {"red": 0, "blue": 3} and report["sure_scores"] == {"red": 0, "blue": 0}
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "martian-shuffleboard", "--json",
                           "--small-height-mm", "30", "--variant", "any/larger-on-smaller")
    report = json.loads(out)
    assert report["scores"] == {"red": 1, "blue": 0} and not report["pairs"][0]["too_close_to_call"]
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "martian-shuffleboard")
    assert "26.0 mm = 1.02 Small heights (no score, too close to call)" in out


def test_shuffleboard_annotation_draws_rulers(tmp_path, capsys):
    path = write_detections(tmp_path / "d.json", fixture_pyramids())
    out_png = tmp_path / "gaps.png"
    code, out, _ = run_cli(capsys, "score", SCENES / "martian_shuffleboard.jpg", "--detections", path,
                           "--game", "martian-shuffleboard", "--annotate", out_png, "--json")
    assert code == 0
    report = json.loads(out)
    truth = ms.score_positions([{"color": p.color, "size": p.size, "pose": p.pose, "x_mm": p.x_mm, "y_mm": p.y_mm,
                                 "angle_deg": p.angle_deg} for p in fixture_pyramids()])
    assert report["scores"] == truth.points
    drawn, raw = cv2.imread(str(out_png)), cv2.imread(str(SCENES / "martian_shuffleboard.jpg"))
    assert drawn.shape == raw.shape
    changed = np.any(np.abs(drawn.astype(int) - raw.astype(int)) > 40, axis=2)
    assert 0.002 < changed.mean() < 0.2  # footprints, rulers and labels drawn, the frame still visible


def test_room_scores(tmp_path, capsys):
    import random

    state = slide_jam.State.deal(random.Random(9))
    for _ in range(6):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.apply(moves[0])
    path = write_detections(tmp_path / "jam.json", seen(_grid_tiles(state.board), 1, rotate_deg=3.0))
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "epic-funhouse", "--room", "slide-jam",
                           "--json")
    report = json.loads(out)
    assert code == 0 and report["score"] == state.score() and report["game"] == "slide-jam"
    grid = roll_out_the_barrels.build_maze([], list(range(6)) * 4, seed=2).grid
    coins = coin_grid(_suited(grid), (60.0, 50.0), 4, rng=3)
    die = DiePiece("suns", 5, coins[22].x_mm, coins[22].y_mm, 0.0)
    path = write_detections(tmp_path / "maze.json", seen(coins + [die], 2, missing=[22]))
    code, out, _ = run_cli(capsys, "score", "--detections", path, "--game", "roll-out-the-barrels")
    assert code == 0
    assert out.splitlines()[0] == f"Roll Out the Barrels score: {grid[23]}"
    assert "die on c1; path d1" in out


def test_score_bad_input(tmp_path, capsys):
    path = write_detections(tmp_path / "d.json", seen(shuffleboard_scatter(rng=1), 1))
    cases = [
        (["score", "--detections", path, "--game", "martian-shuffleboard", "--small-height-mm", "3"], "implausible"),
        (["score", "--detections", path, "--game", "epic-funhouse", "--room", "slide-jam"], "Martian Shuffleboard"),
        (["score", "--detections", path, "--game", "epic-funhouse", "--room", "catwalk"], "not Catwalk"),
        (["score", "--detections", path, "--game", "epic-funhouse", "--room", "slide-jam", "--annotate",
          tmp_path / "a.png"], "rooms are not drawn"),
        (["score", "--detections", path, "--game", "martian-shuffleboard", "--variant", "sideways"], "unknown variant"),
        (["score", "--detections", path, "--game", "martian-shuffleboard", "--annotate", tmp_path / "a.png"],
         "needs the IMAGE"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and message in err and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "a.png").exists()


def test_shuffleboard_on_a_photo_of_another_game_is_refused(tmp_path, capsys):
    """An Easy Slider photo scored as Martian Shuffleboard: its numerals and pawns are fitted as pyramids, mostly
    unreadable (a red 4 even as a sure flat Small). tableside looks at everything in the frame and refuses it
    (exit 2, one line, nothing drawn) instead of scoring pyramids that are not there; a Shuffleboard photo with a
    few unread pyramids is still scored."""
    out_png = tmp_path / "gaps.png"
    code, out, err = run_cli(capsys, "score", SCENES / "easy_slider.jpg", "--game", "martian-shuffleboard",
                             "--annotate", out_png)
    assert code == 2 and err.count("\n") == 1, err
    assert "no Martian Shuffleboard here" in err and "looks like Easy Slider" in err, err
    assert not out_png.exists()
    code, out, err = run_cli(capsys, "score", SCENES / "martian_shuffleboard.jpg", "--game", "martian-shuffleboard",
                             "--json")
    assert code == 0, err
    assert json.loads(out)["pieces"]
