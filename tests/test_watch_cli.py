"""``tableside watch`` end to end on a committed fixture video with the real vision, resumed from its journal,
and its bad input (one line, exit 2)."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import cv2
import numpy as np
import pytest
from make_live_fixtures import SHUFFLEBOARD_VIDEO, load_truth

from rules import ppn
from rules.ppn.games import replay
from tableside.cli import main
from tableside.commands.demo import _same_flicks
from tableside.journal import Journal

ROOT = Path(__file__).resolve().parents[1]
TRUTH = load_truth(SHUFFLEBOARD_VIDEO.with_suffix(".json"))


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> list[str]:
    """``--profile`` options: none when the built-in profile is installed, else one taught from the committed
    teach photo (what ``tableside teach`` does)."""
    from calibration.errors import CalibrationError
    from calibration.profile import default_profile, save_profile
    from calibration.table_calibration import calibrate_from_sheet
    from calibration.teach import build_profile
    from vision.detect import survey_teach_photo

    try:
        default_profile()
        return []
    except CalibrationError:
        image = cv2.imread(str(ROOT / "fixtures" / "scenes" / "teach_default.jpg"))
        path = tmp_path_factory.mktemp("profile") / "set.json"
        save_profile(build_profile([survey_teach_photo(image, calibrate_from_sheet(image), "teach")], "default"),
                     path)
        return ["--profile", str(path)]


@pytest.fixture(scope="module")
def frame_folders(tmp_path_factory) -> tuple[Path, Path]:
    """The shuffleboard video as two folders of frames: up to the end of the first flick's still period, and
    the rest (the camera after a restart)."""
    base = tmp_path_factory.mktemp("frames")
    first, rest = base / "first", base / "rest"
    first.mkdir()
    rest.mkdir()
    cut = TRUTH["stills"][1]["stop"]
    cap = cv2.VideoCapture(str(SHUFFLEBOARD_VIDEO))
    i = 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        cv2.imwrite(str((first if i < cut else rest) / f"{i:04d}.png"), image)
        i += 1
    cap.release()
    return first, rest


def _wav_ok(path: Path) -> bool:
    with wave.open(str(path)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64) / 32768.0
    return float(np.sqrt(np.mean(samples**2))) > 0.02


def test_watch_a_shuffleboard_turn_with_the_real_vision_stopped_and_resumed(capsys, tmp_path, profile,
                                                                             frame_folders):
    """The first flick watched, tableside stopped (the camera's frames go on), restarted with --resume: the
    journal holds every flick once, the scores were said after each, the record replays."""
    first, rest = frame_folders
    journal, seen, record = tmp_path / "game.jsonl", tmp_path / "seen.mp4", tmp_path / "game.ppn"
    game = ["watch", "--game", "martian-shuffleboard", "--players", "red,blue", *profile]
    code, out, err = run_cli(capsys, *game, "--source", str(first), "--journal", str(journal), "--json",
                             "--speak-to", str(tmp_path / "said1"), "--speech", "espeak-ng")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    assert len(events[-1]["summary"]["moves"]) == 1 and len(Journal.load(journal).moves) == 1, out
    said = [e["text"] for e in events[:-1] if e.get("kind") == "say"]
    assert said == ["Martian Shuffleboard: Red to flick", "Score: Red 0, Blue 0", "Blue to flick"]
    wavs = sorted((tmp_path / "said1").glob("*.wav"))
    assert len(wavs) == 3 and all(_wav_ok(w) for w in wavs)
    # starting again on the same journal without --resume must not touch the game
    code, _, err = run_cli(capsys, *game, "--source", str(rest), "--journal", str(journal), "--speech", "text")
    assert code == 2 and "--resume" in err and err.count("\n") == 1
    code, out, err = run_cli(capsys, *game, "--source", str(rest), "--resume", str(journal), "--json",
                             "--annotate-to", str(seen), "--export-ppn", str(record), "--speech", "text")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [e.get("kind") for e in events[:-1]]
    assert kinds.count("move") == 2 and "illegal" not in kinds and "unreadable" not in kinds
    assert events[0]["kind"] == "start" and events[0]["text"] == "resumed"
    said = [e["text"] for e in events[:-1] if e.get("kind") == "say"]
    assert said[0] == "Resumed: Blue to flick"
    assert [t for t in said if t.startswith("Score")] == ["Score: Blue 3, Red 0", "Score: Red 3, Blue 0"]
    moves = Journal.load(journal).moves
    assert _same_flicks(moves, TRUTH["moves"]), moves
    cap = cv2.VideoCapture(str(seen))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == len(list(rest.glob("*.png")))
    cap.release()
    result = replay(ppn.read(record)[0])
    assert result.illegal is None and [str(m) for m in result.moves] == moves


@pytest.mark.parametrize("args, message", [
    (["--game", "chess", "--source", "x"], "unknown game 'chess'"),
    (["--game", "martian-shuffleboard", "--source", "x"], "--players red,blue"),
    (["--game", "epic-funhouse", "--source", "x"], "one Epic Funhouse room at a time"),
    (["--game", "easy-slider", "--source", "/no/such/video.mp4", "--speech", "text"], "no such file"),
    (["--game", "easy-slider", "--journal", "a", "--resume", "b"], "not both"),
    (["--game", "easy-slider", "--annotate-every", "0", "--source", "x"], "--annotate-every"),
    (["--game", "whack-a-dummy", "--source", "x"], "give the maze's 24 values with --grid"),
    (["--game", "whack-a-dummy", "--grid", "n23a/45", "--source", "x"], "cannot read --grid"),
    (["--game", "easy-slider", "--die-coin", "up", "--source", "x"], "are for --game whack-a-dummy"),
    (["--game", "whack-a-dummy", "--grid", "n23a45n2a3452n5a342na534", "--die-coin", "up", "--resume", "j"],
     "a resumed game knows the coin under the die"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run_cli(capsys, "watch", *args)
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""


def test_resume_of_a_file_that_is_not_a_journal(capsys, tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("hello\n")
    code, _, err = run_cli(capsys, "watch", "--game", "easy-slider", "--resume", str(bogus), "--source", "x",
                           "--speech", "text")
    assert code == 2 and "not a tableside journal" in err


def test_demo_watches_the_fixture_video_live(capsys, tmp_path, profile, monkeypatch):
    """``tableside demo`` (here on the Martian Shuffleboard video alone, to keep the test short): the live loop
    with the real vision, the announcements as WAVs (this machine has no sound device), the annotated video, the
    journal and the PPN record, the moves compared with the video's truth; then the example records."""
    import shutil

    from tableside.commands import demo

    videos = tmp_path / "videos"
    videos.mkdir()
    for suffix in (".mp4", ".json"):
        shutil.copy(SHUFFLEBOARD_VIDEO.with_suffix(suffix), videos / SHUFFLEBOARD_VIDEO.with_suffix(suffix).name)
    monkeypatch.setattr(demo, "has_sound_device", lambda: False)
    out_dir = tmp_path / "demo"
    code, out, err = run_cli(capsys, "demo", "--videos", str(videos), "--out", str(out_dir), *profile)
    assert code == 0, out + err
    assert "3 move(s) recorded; the video's true moves: 3; all recorded as played" in out
    assert "== the example records, replayed by the rules ==" in out and "illegal_slide_back.ppn" in out
    wavs = sorted((out_dir / "said").glob("*.wav"))
    assert len(wavs) == out.count("] say: ") and all(_wav_ok(w) for w in wavs)
    assert wavs[1].name.endswith("score-red-0-blue-0.wav")
    assert _same_flicks(Journal.load(out_dir / "shuffleboard.jsonl").moves, TRUTH["moves"])
    assert replay(ppn.read(out_dir / "shuffleboard.ppn")[0]).illegal is None
    cap = cv2.VideoCapture(str(out_dir / "shuffleboard_seen.mp4"))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == len(TRUTH["frames"])
    cap.release()


def test_demo_watches_the_easy_slider_round_live(capsys, tmp_path, profile, monkeypatch):
    """The demo's Easy Slider video with the real vision: the Caller's deal of seed 7, two slides, a tile picked
    up over its neighbour into the hole (said illegal, with the rules' reason), put back, one more slide: the
    three moves recorded as played, nothing else."""
    import shutil

    from make_live_fixtures import EASY_SLIDER_VIDEO

    from tableside.commands import demo

    videos = tmp_path / "videos"
    videos.mkdir()
    for suffix in (".mp4", ".json"):
        shutil.copy(EASY_SLIDER_VIDEO.with_suffix(suffix), videos / EASY_SLIDER_VIDEO.with_suffix(suffix).name)
    monkeypatch.setattr(demo, "has_sound_device", lambda: False)
    out_dir = tmp_path / "demo"
    code, out, err = run_cli(capsys, "demo", "--videos", str(videos), "--out", str(out_dir), "--speech", "text",
                             *profile)
    assert code == 0, out + err
    truth = load_truth(EASY_SLIDER_VIDEO.with_suffix(".json"))
    assert "3 move(s) recorded; the video's true moves: 3; all recorded as played" in out
    recorded = Journal.load(out_dir / "easy_slider.jsonl").moves
    assert recorded == [m for m in truth["moves"] if not m.startswith("illegal")]
    assert out.count("] say: Illegal move: a tile was picked up: ") == 1, out
    assert out.count("] restored: ") == 1


def test_a_camera_with_red_and_blue_swapped_is_noticed_on_the_callers_pawns_and_fixed(tmp_path):
    """The Pi camera's colour order is checked once against pieces of known colour: the Caller's pawns (the
    deal's seed says which suit stands beside which row). A camera that swaps red and blue
    (raspberrypi/picamera2#1325) is switched to swapping back, and the frame is read again, right."""
    from make_live_fixtures import EASY_SLIDER_VIDEO

    from rules.easy_slider import Setup
    from tableside.commands.watch import ChannelCheckingReader, VisionReader, pawn_references
    from vision.sources import Frame, open_source, swap_red_blue

    cap = cv2.VideoCapture(str(EASY_SLIDER_VIDEO))
    ok, image = cap.read()
    cap.release()
    assert ok
    cv2.imwrite(str(tmp_path / "0000.png"), image)
    pawns = Setup.from_seed(7).pawns  # the video's board is the Caller's deal of seed 7
    notes: list[str] = []
    for shown, swapped in ((swap_red_blue(image), True), (image, False)):
        with open_source(str(tmp_path)) as camera:
            camera.swap_red_blue = False
            reader = ChannelCheckingReader(VisionReader("easy-slider"), camera,
                                           lambda detection: pawn_references(detection, pawns), notes.append)
            reading = reader.read(Frame(shown, 0, 0.0, "camera"))
            assert reader.checked and camera.swap_red_blue is swapped, notes
            assert ("swapped" in notes[-1]) is swapped
            if reading.state is not None:
                assert reading.state.pawns == tuple(pawns)


def test_whack_a_dummy_options_reach_the_reader_and_the_tracker():
    """--grid is parsed for the reader (and kept in the journal's options); without --die-coin the game is watched
    from the rules' set-up, with it from the first reading (a game under way)."""
    import argparse

    from rules.epic_funhouse import whack_a_dummy as wad
    from tableside.commands import watch
    from tableside.errors import UserError

    parser = argparse.ArgumentParser()
    watch.add_arguments(parser)
    args = parser.parse_args(["--game", "whack-a-dummy", "--grid", "n23a/45n2/a345/2n5a/342n/a534"])
    options = watch.whack_options(args, "whack-a-dummy")
    assert options == {"grid": [0, 2, 3, 1, 4, 5, 0, 2, 1, 3, 4, 5, 2, 0, 5, 1, 3, 4, 2, 0, 1, 5, 3, 4]}
    assert watch.start_state("whack-a-dummy", options, None) == wad.setup(options["grid"])
    assert watch.start_state("whack-a-dummy", options, None, die_coin="down") is None
    with pytest.raises(SystemExit):  # argparse: only up or down
        parser.parse_args(["--game", "whack-a-dummy", "--die-coin", "sideways"])
    # --resume: the journal's game has the grid; a different --grid is refused
    resumed = wad.setup(options["grid"]).apply("start b4")
    bare = parser.parse_args(["--game", "whack-a-dummy"])
    assert watch.whack_options(bare, "whack-a-dummy", resumed) == options
    other = parser.parse_args(["--game", "whack-a-dummy", "--grid", "23an/45n2/a345/2n5a/342n/a534"])
    with pytest.raises(UserError, match="differs from the grid of the game in the journal"):
        watch.whack_options(other, "whack-a-dummy", resumed)


def test_whack_a_dummy_read_live_follows_the_die_coin_from_the_pieces_seen():
    """The live reader on detector-like pieces (tests/test_reading.seen: no rendering) with the real reading and
    rules: the coin under the die is never read, the tracker puts the rules' side there move after move."""
    from tablescene import coin_grid
    from tablescene.scene import CoinPiece, DiePiece
    from test_reading import _suited, seen

    from rules.epic_funhouse import whack_a_dummy as wad
    from tableside.commands.watch import VisionReader
    from tableside.tracker import GameTracker, game_rules
    from vision.errors import VisionError

    grid = [0, 2, 3, 1, 4, 5, 0, 2, 1, 3, 4, 5, 2, 0, 5, 1, 3, 4, 2, 0, 1, 5, 3, 4]
    laid = coin_grid(_suited(grid), (60.0, 50.0), 4, rng=4)

    def pieces(state: wad.State) -> list:
        # the coin under the die shows its back here whatever its side: the reader must not use it
        coins = [c if state.is_up(i) and i != state.cell else CoinPiece(c.suit, c.rank, "suit", c.x_mm, c.y_mm, 0.0)
                 for i, c in enumerate(laid)]
        return seen(coins + [DiePiece("arms", 2, laid[state.cell].x_mm, laid[state.cell].y_mm, 0.0)], 11)

    reader = VisionReader("epic-funhouse", "whack-a-dummy", {"grid": "".join("na2345"[v] for v in grid)})
    tracker = GameTracker(game_rules("whack-a-dummy"), wad.setup(grid))
    truth = wad.setup(grid).apply("start c3")
    ups = 0
    for step in range(6):
        reading = reader._whack(pieces(truth))
        assert reading.uncertain == {"abcd"[truth.cell % 4] + str(6 - truth.cell // 4)}
        verdict = tracker.observe(reading)
        assert verdict.kind == "moves" and tracker.state == truth, (step, verdict)
        ups += truth.is_up(truth.cell)
        truth = truth.apply(truth.legal_moves()[step % len(truth.legal_moves())])
    assert ups >= 2  # the coin under the die was face up (unseen) several times
    # the die lifted off mid-game (some coins up): said as such, not as an impossible position
    no_die = [p for p in pieces(truth) if p.kind.value != "die"]
    with pytest.raises(VisionError, match="the die is not seen on the board"):
        reader._whack(no_die)
