"""``tableside check`` and ``tableside state``: verdicts, JSON, annotations, speech and bad input.

Pieces come from noisy ground truth (``--detections``, the ``detect`` verb's JSON) so these tests check the
verbs, not the detector; rendered frames through the detector are in tests/test_rendered_states.py.
"""

from __future__ import annotations

import json
import wave
from pathlib import Path

import cv2
import numpy as np
from test_reading import board_pieces, seen, solved_board, swapped, tile_index

from rules import easy_slider as es
from rules.pieces import Kind, Suit
from tableside.cli import main
from vision.pieces import DetectedPiece, Detection

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "fixtures" / "scenes"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_detections(path: Path, pieces: list[DetectedPiece]) -> Path:
    detection = Detection([p for p in pieces if not p.uncertain], [p for p in pieces if p.uncertain], (0, 0))
    path.write_text(json.dumps(detection.to_json()))
    return path


def truth_detections(name: str) -> list[DetectedPiece]:
    """The pieces of a rendered fixture as a perfect detector would report them (hidden ones uncertain)."""
    out = []
    for t in json.loads((SCENES / f"{name}.json").read_text())["pieces"]:
        kind = Kind(t["kind"])
        if kind is Kind.PYRAMID:
            continue
        hidden = t["hidden"] or t["hand_fraction"] > 0.2
        angle = t["angle_deg"] % 360 if t.get("side") in ("face", "value", None) else t["angle_deg"] % 90
        out.append(DetectedPiece(kind, t["x_mm"], t["y_mm"], angle, suit=Suit(t["suit"]) if t.get("suit") else None,
                                 rank=t.get("rank"), side=t.get("side"), uncertain=hidden,
                                 reason="hidden by a hand" if hidden else None))
    return out


# ----------------------------------------------------------------------------------------------- verdicts
def test_check_json_fumble_with_wrong_cells(tmp_path, capsys):
    state = swapped(solved_board(), "c4", "d4")
    path = write_detections(tmp_path / "d.json", seen(board_pieces(state, 1), 2, rotate_deg=15.0))
    code, out, err = run_cli(capsys, "check", "--detections", path, "--game", "easy-slider", "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert {"verdict", "wrong_cells", "reason", "boards", "unsure_cells"} <= set(report)
    assert report["verdict"] == "fumble" and len(report["boards"]) == 1
    assert [(w["cell"], w["found"], w["wanted"]) for w in report["wrong_cells"]] == [
        ("c4", str(state.tile_at("c4")), str(state.target("c4"))),
        ("d4", str(state.tile_at("d4")), str(state.target("d4")))]


def test_check_several_boards_text_and_json(tmp_path, capsys):
    a, b = solved_board(), swapped(solved_board("CAMS", "a2345"), "a1", "a4")
    pieces = board_pieces(a, 3, origin_mm=(40.0, 60.0)) + board_pieces(b, 4, origin_mm=(430.0, 60.0))
    hand = [tile_index(pieces, "b3", (40.0, 60.0))]  # a hand over the first board
    detections = seen(pieces, 5, uncertain=hand)
    path = write_detections(tmp_path / "d.json", detections)
    code, out, _ = run_cli(capsys, "check", "--detections", path, "--json")
    report = json.loads(out)
    assert [b["verdict"] for b in report["boards"]] == ["unsure", "fumble"]
    assert report["verdict"] == "unsure" and report["wrong_cells"] == []
    assert [c["cell"] for c in report["unsure_cells"]] == ["b3"]
    assert {w["cell"] for w in report["boards"][1]["wrong_cells"]} == {"a1", "a4"}
    code, out, _ = run_cli(capsys, "check", "--detections", path, "--players", "Ann,Bob")
    assert code == 0
    assert out.startswith("Ann: UNSURE") and "Bob: FUMBLE" in out and "a4 has the null of" in out


def test_state_prints_board_and_ppn_or_the_reason(tmp_path, capsys):
    state = solved_board("SMCA", "54321", "b1")
    path = write_detections(tmp_path / "d.json", seen(board_pieces(state, 6), 7, rotate_deg=-100.0))
    code, out, _ = run_cli(capsys, "state", "--detections", path, "--game", "easy-slider", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["state"] == state.to_dict()
    # not a deal (the hole is not bottom right): the PPN position drops every piece in a set-up move
    assert "GameType: Easy Slider" in report["ppn"] and "setup. tfS5^@(1,5) tfS4^@(2,5)" in report["ppn"]
    code, out, _ = run_cli(capsys, "state", "--detections", path, "--game", "easy-slider")
    assert out.splitlines()[0].split() == ["5", "4", "3", "2", "a"]
    dealt = es.Setup.from_seed(3).state()
    path = write_detections(tmp_path / "dealt.json", seen(board_pieces(dealt, 8), 9))
    code, out, _ = run_cli(capsys, "state", "--detections", path, "--game", "easy-slider", "--json")
    assert code == 0 and "Pawns: " + dealt.pawn_text() in json.loads(out)["ppn"]
    hidden = seen(board_pieces(state, 6), 7, missing=[0, 1])
    path = write_detections(tmp_path / "h.json", hidden)
    code, out, err = run_cli(capsys, "state", "--detections", path, "--game", "easy-slider")
    assert code == 2 and out == ""
    assert err.startswith("tableside state: error: cell ") and "cannot be read" in err and err.count("\n") == 1
    assert err.startswith("tableside state: error: cell a5 cannot be read: no tile is seen here")  # not a neighbour


# ----------------------------------------------------------------------------------------------- bad input
def test_bad_input_is_one_line_and_exit_2_and_nothing_written(tmp_path, capsys):
    out_png = tmp_path / "a.png"
    garbage = tmp_path / "x.jpg"
    garbage.write_bytes(b"not an image")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((120, 160, 3), 200, np.uint8))
    two = tmp_path / "two.json"
    a = solved_board()
    both = board_pieces(a, 1, origin_mm=(0.0, 60.0)) + board_pieces(a, 2, origin_mm=(420.0, 60.0))
    write_detections(two, seen(both, 3))
    pyramids = tmp_path / "p.json"
    write_detections(pyramids, [DetectedPiece(Kind.PYRAMID, 10.0 * i, 10.0, color="red") for i in range(3)])
    cases = [
        (["check", tmp_path / "missing.jpg"], "no such image"),
        (["check", garbage, "--annotate", out_png], "not a readable image"),
        (["check", blank, "--annotate", out_png], "no calibration"),
        (["check", blank, "--px-per-mm", "2", "--calibration", "x.json"], "not both"),
        (["check", "--detections", pyramids, "--annotate", out_png], "looks like Martian Shuffleboard"),
        (["check", "--detections", two, "--game", "slides-of-action"], "only Easy Slider has a Done check"),
        (["state", "--detections", two, "--game", "easy-slider"], "2 boards where one"),
        (["state", "--detections", two, "--game", "epic-funhouse"], "--room"),
        (["state", "--detections", two, "--game", "chess"], "unknown game"),
        (["check", "--detections", two, "--annotate", tmp_path / "nofolder" / "a.png"], "does not exist"),
        (["check"], "give an IMAGE"),
        (["check", "--detections", garbage], "not JSON"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, *argv)
        assert code == 2, (argv, err)
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert not out_png.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blank.png", "p.json", "two.json", "x.jpg"]


# ----------------------------------------------------------------------------------------------- annotation
def test_annotated_done_check_marks_wrong_cells_red_on_the_frame(tmp_path, capsys):
    image = SCENES / "easy_slider.jpg"
    detections = write_detections(tmp_path / "d.json", truth_detections("easy_slider"))
    out_png = tmp_path / "checked.png"
    code, out, _ = run_cli(capsys, "check", image, "--detections", detections, "--annotate", out_png, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["verdict"] == "fumble"  # the fixture is a freshly dealt board
    drawn = cv2.imread(str(out_png))
    raw = cv2.imread(str(image))
    assert drawn.shape == raw.shape
    # the frame's truth says where each wrong cell's tile is: the annotation tints it red there
    truth = json.loads((SCENES / "easy_slider.json").read_text())
    tiles = [t for t in truth["pieces"] if t["kind"] == "tile"]
    first = report["wrong_cells"][0]
    tile = min(tiles, key=lambda t: abs(t["x_mm"] - (9.5 + (first["col"] - 1) * 56.8 + 25.4))
               + abs(t["y_mm"] - (81.0 + (first["row"] - 1) * 56.8 + 25.4)))
    x, y = (int(v) for v in tile["top_center_px"])
    patch_drawn = drawn[y - 30:y + 30, x - 30:x + 30].astype(float).mean(axis=(0, 1))
    patch_raw = raw[y - 30:y + 30, x - 30:x + 30].astype(float).mean(axis=(0, 1))
    assert patch_drawn[2] - patch_drawn[1] > patch_raw[2] - patch_raw[1] + 15  # redder than before


def test_frame_from_source_folder(tmp_path, capsys):
    import shutil

    folder = tmp_path / "shots"
    folder.mkdir()
    shutil.copy(SCENES / "easy_slider.jpg", folder / "frame1.jpg")
    detections = write_detections(tmp_path / "d.json", truth_detections("easy_slider"))
    out_png = tmp_path / "a.png"
    code, out, err = run_cli(capsys, "check", "--source", folder, "--detections", detections, "--annotate", out_png)
    assert code == 0 and out.startswith("FUMBLE") and out_png.exists()
    code, out, err = run_cli(capsys, "check", SCENES / "easy_slider.jpg", "--source", folder)
    assert code == 2 and "not both" in err


# ----------------------------------------------------------------------------------------------- speech
def test_speak_to_a_wav_file_and_a_folder(tmp_path, capsys):
    path = write_detections(tmp_path / "d.json", seen(board_pieces(solved_board(), 8), 9))
    wav = tmp_path / "verdict.wav"
    code, _, _ = run_cli(capsys, "check", "--detections", path, "--speak-to", wav, "--players", "Ann")
    assert code == 0 and wav.exists()
    with wave.open(str(wav)) as w:
        assert w.getnframes() / w.getframerate() > 0.5  # "Ann's board is correct" takes about a second
    folder = tmp_path / "said"
    code, _, _ = run_cli(capsys, "check", "--detections", path, "--speak-to", folder)
    assert code == 0 and [p.suffix for p in folder.iterdir()] == [".wav"]
    assert "board-is-correct" in next(folder.iterdir()).name


# ----------------------------------------------------------------------------------------------- rendered frames
# End to end on rendered photos (every game, room and edition): tests/test_rendered_states.py.
def _frame_path(frame) -> Path:
    """The cached PNG of a rendered frame (tests/vision/detect_scenes.py)."""
    from test_reading import _scenes

    return _scenes().CACHE / f"{frame.key}.png"


def test_whack_a_dummy_state_needs_the_side_under_the_die(tmp_path, capsys):
    from tablescene import coin_grid
    from tablescene.scene import DiePiece
    from test_reading import _suited

    from rules.epic_funhouse import roll_out_the_barrels, whack_a_dummy

    grid = roll_out_the_barrels.build_maze([], list(range(6)) * 4, seed=5).grid
    up = {0, 3, 13}
    coins = [c if i in up else c.moved(side="suit") for i, c in enumerate(coin_grid(_suited(grid), (60.0, 50.0), 4,
                                                                                     rng=4))]
    die = DiePiece("arms", 2, coins[9].x_mm, coins[9].y_mm, 0.0)
    path = write_detections(tmp_path / "d.json", seen(coins + [die], 11, missing=[9]))  # the die hides its coin
    values = "".join("na2345"[v] for v in grid)
    argv = ["state", "--detections", path, "--game", "epic-funhouse", "--room", "whack-a-dummy", "--grid", values]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and "under the die on b4 cannot be seen" in err and "--die-coin" in err
    code, out, err = run_cli(capsys, *argv, "--die-coin", "down", "--json")
    assert code == 0, err
    assert json.loads(out)["text"] == whack_a_dummy.State.from_layout(grid, sorted(up), 9).render()
    code, out, err = run_cli(capsys, *argv, "--die-coin", "up", "--json")
    assert json.loads(out)["text"] == whack_a_dummy.State.from_layout(grid, sorted(up | {9}), 9).render()
