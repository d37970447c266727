"""Easy Slider's Caller: the deal read out in the seed's order, Done calls judged and scored through key presses,
standings, playoffs, the "Slide!" variant and the Caller's reveal read from the table."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rules.easy_slider as es
from rules.base import RulesError
from rules.pieces import Suit
from tableside.caller import Caller, parse_key, player_names, round_seed

HEADINGS = {"Coins", "Tiles", "Go!"}


def _caller(players, rounds=1, seed=5) -> Caller:
    return Caller(player_names(players), rounds, seed, say=lambda text: None)


def _calls(said: list[str]) -> list[str]:
    """The Caller's calls one by one (rows of tiles split), without the headings."""
    out = []
    for text in said:
        if text in HEADINGS or text.startswith("Round ") or text.startswith("Playoff"):
            continue
        out += text.split(", ")
    return out


@pytest.mark.parametrize("seed", [5, 42, "tuesday"])
def test_the_caller_reads_out_the_seeds_deal_in_its_order(seed):
    caller = _caller(2, seed=seed)
    setup = caller.deal()
    caller.read_out(setup)
    assert setup == es.Setup.from_seed(seed)
    assert _calls(caller.said) == es.Setup.from_seed(seed).script()  # pawns, coins, then tiles in flip order
    assert caller.said[0] == "Round 1. Pawns" and caller.said[-1] == "Go!"
    rows = [t for t in caller.said if t.count(", ") == 4 or (t.count(", ") == 3 and t is caller.said[-2])]
    assert len(rows) == 5  # one breath per row, as in the rules ("Blue 5, Green Null, Green 2, Red Ace...")


def test_later_rounds_deal_from_the_seed_plus_the_round():
    assert round_seed(7, 1) == 7 and round_seed(7, 3) == 9 and round_seed("x", 2) == "x:2"
    caller = _caller(2, rounds=2, seed=7)
    caller.read_out(caller.deal())
    caller.key("1 y")
    assert caller.start_next()
    assert caller.deal() == es.Setup.from_seed(8)


def test_done_calls_are_scored_by_the_rules_through_key_presses():
    # the rules' worked example: Ann correct, Bob fumble, Cy correct, Di correct, Ed left solving
    caller = _caller("Ann,Bob,Cy,Di,Ed")
    caller.read_out(caller.deal())
    assert caller.key("1 y") is None
    assert caller.key("bob fumble") is None
    question = caller.key("3")  # no camera: the Caller asks
    assert question == "Is Cy's board correct? (y or n)" and caller.asking == "Cy"
    assert caller.key("maybe") == question  # only y or n answers
    assert caller.key("y") is None and caller.asking is None
    assert caller.key("Di ok") is None
    assert caller.match.round_over
    assert caller.match.totals() == {"Ann": 5, "Bob": 0, "Cy": 3, "Di": 2, "Ed": 1}
    said = caller.said
    for line in ("Ann calls Done!", "Ann scores 4 points", "Bob scores 0 points", "Cy scores 2 points",
                 "Di scores 1 point", "Ed is the last one solving", "Ann gets 1 bonus point",
                 "Ed gets 1 bonus point", "Round 1 is over", "Standings: Ann 5, Cy 3, Di 2, Ed 1, Bob 0",
                 "Ann wins!"):
        assert line in said, line
    assert "Bob gets 1 bonus point" not in said  # fumblers get no bonus
    assert said.count("Cy calls Done!") == 1
    with pytest.raises(RulesError, match="round is over"):
        caller.key("5")


def test_done_is_judged_by_the_camera_when_the_board_is_seen():
    caller = _caller("Ann,Bob,Cy")
    setup = caller.deal()
    solved = es.State.solved(setup.pawns, setup.coins)
    wrong = solved.apply(solved.legal_moves()[0]).apply(solved.apply(solved.legal_moves()[0]).legal_moves()[0])
    boards = [wrong, solved, None]
    caller.key("2", boards)
    assert "Bob's board is correct" in caller.said and "Bob scores 2 points" in caller.said
    caller.key("1", boards)
    first_wrong = wrong.done_check().wrong_cells[0]
    fumble = [t for t in caller.said if t.startswith("Fumble")]
    assert fumble and f"row {first_wrong.cell.row}, column {first_wrong.cell.col}" in fumble[0]
    assert caller.match.totals() == {"Ann": 0, "Bob": 2 + 1, "Cy": 0 + 1}


def test_tied_leaders_play_off_and_the_playoff_decides():
    caller = _caller("Ann,Bob", rounds=2, seed=3)
    caller.read_out(caller.deal())
    caller.key("1 y")  # Ann 1 - Bob 0
    assert caller.start_next()
    caller.read_out(caller.deal())
    caller.key("2 y")  # Bob 1: tied
    assert "Ann and Bob are tied: playoff round" in caller.said
    assert not caller.match.is_over()
    assert caller.start_next() and caller.playoff
    caller.read_out(caller.deal())
    assert "Playoff round. Pawns" in caller.said
    caller.key("Bob y")
    assert caller.match.is_over() and caller.match.winner() == "Bob"
    assert caller.said[-1] == "Bob wins!"
    assert not caller.start_next()


def test_slide_variant_flags_a_board_that_made_two_slides_or_none():
    caller = _caller("Ann,Bob,Cy")
    start = caller.deal().state()
    caller.read_out(caller.deal())
    assert caller.slide_call({"Ann": start, "Bob": start, "Cy": start}) == {}  # the first call: nothing to check
    one = start.apply(start.legal_moves()[0])
    m2 = next(m for m in one.legal_moves() if m != es.Move(start.legal_moves()[0].to_cell,
                                                             start.legal_moves()[0].from_cell))
    two = one.apply(m2)
    verdicts = caller.slide_call({"Ann": one, "Bob": two, "Cy": start})
    assert verdicts["Ann"].ok and verdicts["Ann"].move == start.legal_moves()[0]
    assert not verdicts["Bob"].ok and "2 tiles were slid" in verdicts["Bob"].reason
    assert not verdicts["Cy"].ok and "no tile was slid" in verdicts["Cy"].reason
    said = caller.said[-3:]
    assert said[0].startswith("Bob: 2 tiles were slid") and said[1].startswith("Cy: no tile was slid")
    assert said[2] == "Slide!"
    # the next call compares with these boards
    three = two.apply(next(m for m in two.legal_moves() if m.from_cell != m2.to_cell))
    verdicts = caller.slide_call({"Ann": one.apply(one.legal_moves()[-1]), "Bob": three, "Cy": None})
    assert verdicts["Bob"].ok and "Cy" not in verdicts  # an unreadable board is skipped, not accused


def test_the_reveal_is_read_out_in_the_rules_order_as_pieces_appear():
    setup = es.Setup.from_seed(11)
    caller = _caller(2, seed=11)
    pawns: list = [None] * 4
    coins: list = [None] * 5
    tiles: dict = {}
    pawns[0], pawns[1] = setup.pawns[0], setup.pawns[1]
    coins[0] = setup.coins[0]  # a coin seen before the last pawns: it waits for them
    assert not caller.reveal(pawns, coins, tiles)
    assert caller.said == [Suit(setup.pawns[0]).colour.capitalize(), Suit(setup.pawns[1]).colour.capitalize()]
    pawns = list(setup.pawns)
    coins = list(setup.coins)
    assert not caller.reveal(pawns, coins, tiles)
    for i in range(24):
        tiles[es.CELLS[i]] = setup.tiles[i]
        if i == 10:
            tiles[es.CELLS[12]] = setup.tiles[12]  # flipped out of order: said when its turn comes
        if i == 23:  # the last look misses a coin and a tile said before: they stay as said
            coins[2] = None
            del tiles[es.CELLS[3]]
        done = caller.reveal(pawns, coins, tiles)
        assert done == (i == 23)
    assert caller.said[:-1] == es.Setup.from_seed(11).script()
    assert caller.said[-1] == "Go!" and caller.revealed_state == setup.state()


def test_key_presses_name_players_by_number_or_name():
    players = ["Ann", "Bob"]
    assert parse_key("2", players).player == "Bob"
    assert parse_key("ann Y", players).correct is True
    assert parse_key("Bob fumble", players).correct is False
    with pytest.raises(RulesError, match="no player 3"):
        parse_key("3", players)
    with pytest.raises(RulesError, match="Zed"):
        parse_key("Zed", players)
    assert player_names(3) == ["Player 1", "Player 2", "Player 3"]
    assert player_names("Ann, Bob") == ["Ann", "Bob"]


def _call(capsys, monkeypatch, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``tableside call easy-slider ARGS`` run in this process with ``stdin`` as the key presses."""
    from tableside.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["call", "easy-slider", *args])
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out.out, out.err)


def test_call_command_scripted_match_with_json_result(capsys, monkeypatch):
    done = _call(capsys, monkeypatch, "--players", "Ann,Bob,Cy", "--rounds", "1", "--seed", "5", "--pace", "0",
                 "--speech", "text", "--json", stdin="1\ny\n3 n\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "seed 5"
    calls = [ln[len("caller: "):] for ln in lines if ln.startswith("caller: ")]
    assert _calls(calls[: calls.index("Go!") + 1]) == es.Setup.from_seed(5).script()
    assert "Is Ann's board correct? (y or n)" in lines
    result = json.loads(done.stdout[done.stdout.index("{"):])
    assert result["totals"] == {"Ann": 3, "Bob": 1, "Cy": 0} and result["winner"] == "Ann" and result["over"]
    assert "[say] Go!" in done.stderr  # --speech text: said as text


def test_call_command_deal_only_and_bad_input(capsys, monkeypatch):
    done = _call(capsys, monkeypatch, "--seed", "9", "--deal-only", "--pace", "0", "--speech", "text")
    assert done.returncode == 0 and "caller: Go!" in done.stdout
    bad = _call(capsys, monkeypatch, "--players", "Ann,Ann", "--speech", "text")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Ann" in bad.stderr
    bad = _call(capsys, monkeypatch, "--reveal", "--speech", "text")
    assert bad.returncode == 2 and "--source" in bad.stderr
    bad = _call(capsys, monkeypatch, "--slide-every", "0", "--speech", "text")
    assert bad.returncode == 2 and "--slide-every" in bad.stderr


def test_the_callers_camera_reads_the_board_for_slide_and_done_checks():
    """``tableside call --source``'s eyes (BoardsWatcher) on a rendered game, the boards read from the renderer's
    truth: a "Slide!" call after every settled change flags the tile picked up and its putting back, and the
    Done call is judged by the board seen."""
    from make_live_fixtures import TEST_GAME_VIDEO, TruthReader, load_truth

    from tableside.commands.watch import BoardsWatcher
    from vision.sources import open_source

    doc = load_truth(TEST_GAME_VIDEO.with_suffix(".json"))

    class TruthBoards:
        def __init__(self) -> None:
            self.truth = TruthReader("easy-slider", doc["frames"])

        def detect(self, frame):
            return frame

        def read_boards(self, frame):
            return [self.truth.read(frame)]

        def relock(self, frame):
            return None

    watcher = BoardsWatcher(open_source(str(TEST_GAME_VIDEO)), TruthBoards())
    caller = _caller("Ann", seed=7)  # the fixture's board is the Caller's deal of seed 7
    caller.read_out(caller.deal())
    verdicts = []
    seen = None
    while not watcher.ended:
        watcher.step(caller, auto_done=False)
        board = watcher.board_states(caller.players)["Ann"] if watcher.latest else None
        if board is not None and board != seen:
            seen = board
            verdicts.append(caller.slide_call({"Ann": board}).get("Ann"))
    watcher.close()
    assert seen is not None and verdicts[0] is None  # the first call: the dealt board, nothing to check yet
    assert watcher.latest[0].state == caller.deals[0].state().apply(es.Move.parse(doc["moves"][0])) \
        .apply(es.Move.parse(doc["moves"][1])).apply(es.Move.parse(doc["moves"][2])) \
        .apply(es.Move.parse(doc["moves"][5]))
    oks = [v.ok for v in verdicts[1:]]
    assert oks == [True, True, True, False, False, True]
    assert "picked up" in verdicts[4].reason
    assert any(t.startswith("Ann: a tile was picked up") for t in caller.said)
    caller.key("1", watcher.boards(caller.players))
    assert any(t.startswith("Fumble: the tile in row") for t in caller.said)
    assert caller.match.round_over


@pytest.fixture(scope="module")
def profile_args(tmp_path_factory) -> list[str]:
    """``--profile`` options: none when the built-in profile is installed, else one taught from the committed
    teach photo (what ``tableside teach`` does)."""
    import cv2

    from calibration.errors import CalibrationError
    from calibration.profile import default_profile, save_profile
    from calibration.table_calibration import calibrate_from_sheet
    from calibration.teach import build_profile
    from vision.detect import survey_teach_photo

    try:
        default_profile()
        return []
    except CalibrationError:
        root = Path(__file__).resolve().parents[1]
        image = cv2.imread(str(root / "fixtures" / "scenes" / "teach_default.jpg"))
        path = tmp_path_factory.mktemp("profile") / "set.json"
        save_profile(build_profile([survey_teach_photo(image, calibrate_from_sheet(image), "teach")], "default"),
                     path)
        return ["--profile", str(path)]


def _loud_wav(path: Path) -> bool:
    import wave

    import numpy as np

    with wave.open(str(path)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64) / 32768.0
        seconds = w.getnframes() / w.getframerate()
    return seconds > 0.2 and float(np.sqrt(np.mean(samples**2))) > 0.02


def test_the_callers_reveal_is_read_out_from_the_camera_with_the_real_vision(capsys, monkeypatch, tmp_path,
                                                                             profile_args):
    """``tableside call easy-slider --reveal`` on the rendered video of the Caller revealing the deal of seed 7
    (fixtures/video/easy_slider_reveal.mp4, tests/make_live_fixtures.py: the tiles face down, a hand putting the
    pawns and coins one by one and flipping the first row's tiles one by one, then the rest five, five and nine
    at a time; the hand resting 3.5 s over the board during a flip), with the real calibration from the sheet
    and the real detector: every pawn, coin and tile is said in the rules' order, each once the camera has seen
    it on a still table, never from a frame with a hand in view, each as a spoken WAV; then "Go!"."""
    from make_live_fixtures import REVEAL_VIDEO

    doc = json.loads(REVEAL_VIDEO.with_suffix(".json").read_text())
    said_dir = tmp_path / "said"
    done = _call(capsys, monkeypatch, "--players", "1", "--source", str(REVEAL_VIDEO), "--reveal", "--deal-only",
                 "--pace", "0", "--speak-to", str(said_dir), *profile_args)
    assert done.returncode == 0, done.stdout + done.stderr
    read_frames: list[int] = []
    calls: list[tuple[str, int]] = []  # what the Caller said, and the last frame read before it
    for line in done.stdout.splitlines():
        if line.startswith("camera: frame ") and ": read " in line:
            read_frames.append(int(line.split()[2].rstrip(":")))
        elif line.startswith("caller: "):
            calls.append((line[len("caller: "):], read_frames[-1] if read_frames else -1))
    script = es.Setup.from_seed(doc["seed"]).script()  # the deal on the table, in the rules' order
    assert [text for text, _ in calls] == ["Round 1: reveal the board", *script, "Go!"]
    assert [t for step in doc["steps"] for t in step] == script
    hands = set(doc["hand_frames"])
    assert read_frames and not hands & set(read_frames), "a frame with a hand in view was read"
    assert not any(doc["rest"][0] <= i < doc["rest"][1] for i in read_frames)
    # each piece is said once the table is still after the step that revealed it (not before it was there)
    said = iter(calls[1:-1])
    for step, texts in enumerate(doc["steps"]):
        revealed_at = doc["stills"][step + 1]["start"]
        for text in texts:
            got, frame = next(said)
            assert got == text and frame >= revealed_at, (text, frame, revealed_at)
    wavs = sorted(said_dir.glob("*.wav"))
    assert len(wavs) == len(calls) and all(_loud_wav(w) for w in wavs)
    assert wavs[-1].name.endswith("-go.wav")


def test_the_reveal_waits_for_the_tiles_face_down_before_reading_anything_out(profile_args):
    """The previous round's board is still face up when the reveal begins (the camera's first still frames):
    nothing is read out from it; once the Caller has turned the tiles face down, the new reveal is followed
    (the reveal fixture, played after a second of the finished board)."""
    import cv2
    from make_live_fixtures import REVEAL_VIDEO

    from calibration.profile import load_profile
    from tableside.commands.watch import BoardsWatcher, VisionReader
    from tableside.session import one_blas_thread
    from vision.sources import Frame

    doc = json.loads(REVEAL_VIDEO.with_suffix(".json").read_text())
    cap = cv2.VideoCapture(str(REVEAL_VIDEO))
    images = []
    while True:
        ok, image = cap.read()
        if not ok:
            break
        images.append(image)
    cap.release()
    shown = [images[-1]] * 6 + images  # the finished board, then the Caller turning the tiles face down

    class Played:
        def __init__(self) -> None:
            self.frames = iter(enumerate(shown))

        def read(self) -> Frame | None:
            i, image = next(self.frames, (None, None))
            return None if i is None else Frame(image, i, i / doc["fps"], "played")

        def close(self) -> None:
            pass

    echo = io.StringIO()
    profile = load_profile(profile_args[1]) if profile_args else None
    watcher = BoardsWatcher(Played(), VisionReader("easy-slider", profile=profile), echo=echo)
    heard: list[tuple[str, int]] = []  # what was said, and the frame read just before
    caller = Caller(["Ann"], 1, 99, say=lambda text: heard.append((text, (watcher.read_frames or [-1])[-1])))
    with one_blas_thread():
        watcher.reveal(caller)
    assert caller.said == ["Round 1: reveal the board", *es.Setup.from_seed(doc["seed"]).script(), "Go!"]
    assert watcher.read_frames[0] < 6 and "waiting for the tiles to be laid face down" in echo.getvalue()
    # the first pawn is said from the new reveal (its first step's still period), not from the old board
    assert heard[1] == (caller.said[1], heard[1][1]) and heard[1][1] >= 6 + doc["stills"][1]["start"]
    assert caller.revealed_state == es.Setup.from_seed(doc["seed"]).state()
