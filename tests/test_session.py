"""The live loop on rendered videos: games recorded move for move, illegal moves announced, hands never judged,
camera trouble noticed, and a killed process resumed from its journal with nothing lost.

The videos are the committed test fixtures of ``tests/make_live_fixtures.py`` (320x240, rendered with ground
truth); the vision is stood in for by :class:`make_live_fixtures.TruthReader` (the renderer's truth read like a
careful detector), everything else is real: OpenCV decoding, the stillness tracker, the rules, the journal on
disk, espeak-ng speech rendered to WAVs, the calibration code re-locking after a bump.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from make_live_fixtures import TEST_GAME_VIDEO, TEST_HAND_BUMP_VIDEO, TruthReader, legal_moves_of, load_truth
from tablescene import Camera

from tableside.announcer import Announcer
from tableside.journal import Journal
from tableside.session import Session
from tableside.tracker import GameTracker, game_rules
from vision.errors import CameraLost
from vision.sources import FrameSource, open_source

ROOT = Path(__file__).resolve().parents[1]
GAME = load_truth(TEST_GAME_VIDEO.with_suffix(".json"))
HAND_BUMP = load_truth(TEST_HAND_BUMP_VIDEO.with_suffix(".json"))


def _still_frames(doc: dict) -> set[int]:
    return {i for s in doc["stills"] for i in range(s["start"], s["stop"])}


def _session(video: Path, doc: dict, **kwargs) -> tuple[Session, TruthReader]:
    reader = TruthReader("easy-slider", doc["frames"])
    source = kwargs.pop("source", None) or open_source(str(video))
    return Session(source, reader, GameTracker(game_rules("easy-slider")), **kwargs), reader


def _wav_rms(path: Path) -> tuple[float, float]:
    with wave.open(str(path)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64) / 32768.0
        return float(np.sqrt(np.mean(samples**2))), w.getnframes() / w.getframerate()


def test_a_whole_game_is_recorded_move_for_move_and_only_still_frames_are_judged(tmp_path):
    journal_path = tmp_path / "game.jsonl"
    session, reader = _session(TEST_GAME_VIDEO, GAME, journal_path=journal_path)
    report = session.run()
    truth = legal_moves_of_doc(GAME)
    assert report.moves == truth
    journal = Journal.load(journal_path)
    assert journal.moves == truth
    # the journal's set-up and positions rebuild the game
    rules = game_rules("easy-slider")
    assert rules.decode(journal.header.setup["state"]).to_dict() == GAME["start"]
    assert journal.entries[-1].state == rules.encode(report.state)
    # each move was judged on a frame of the still period right after it (never during a move)
    stills = _still_frames(GAME)
    assert set(reader.reads) <= stills and set(session.judged_frames) <= stills
    assert not set(session.judged_frames) & set(GAME["hand_frames"])
    move_stills = [s for s in GAME["stills"][1:]]
    recorded_at = [e.extra["frame"] for e in journal.entries]
    expected_stills = [s for s, m in zip(move_stills, GAME["moves"], strict=True) if not m.startswith("illegal")]
    for frame, still in zip(recorded_at, expected_stills, strict=True):
        assert still["start"] <= frame < still["stop"]


def legal_moves_of_doc(doc: dict) -> list[str]:
    return [m for m in doc["moves"] if not m.startswith("illegal")]


def test_an_illegal_move_is_announced_with_its_reason_and_the_fix_is_noticed(tmp_path):
    speech = tmp_path / "speech"
    announcer = Announcer(speak_to=speech, backend="espeak-ng")
    session, _ = _session(TEST_GAME_VIDEO, GAME, announcer=announcer)
    report = session.run()
    assert announcer.close(timeout=60)
    illegal = report.kinds("illegal")
    assert len(illegal) == 1 and "picked up" in illegal[0].text
    assert len(report.kinds("restored")) == 1
    said = [s for s in announcer.spoken if s.text.startswith("Illegal move")]
    assert len(said) == 1 and "not next to it" in said[0].text and said[0].error is None
    rms, seconds = _wav_rms(said[0].wav_path)
    assert rms > 0.02 and seconds > 2.0  # a real, audible sentence
    assert said[0].wav_path.parent == speech
    # the illegal move is not recorded; the slides around it are
    assert report.moves == legal_moves_of_doc(GAME)


def test_a_hand_resting_over_the_board_is_never_judged_and_camera_trouble_is_said(tmp_path):
    session, reader = _session(TEST_HAND_BUMP_VIDEO, HAND_BUMP)
    report = session.run()
    assert report.moves == legal_moves_of_doc(HAND_BUMP)
    rest = range(*HAND_BUMP["notes"]["hand_rest"])
    assert len(rest) >= 16
    assert not set(session.judged_frames) & set(HAND_BUMP["hand_frames"])
    assert not set(reader.reads) & set(rest)
    # the bumped camera: said, and re-locked from the sheet's markers in the new view
    moved = report.kinds("camera-moved")
    assert len(moved) == 1 and moved[0].frame >= HAND_BUMP["bumps"][0]
    assert [e.kind for e in report.events if e.frame == moved[0].frame][:4] == ["camera-moved", "say", "relocked",
                                                                                 "say"]
    assert len(reader.relocks) == 1
    bumped = Camera.from_spec(_bumped_camera())
    centre_mm = np.array([[148.5, 210.0]])
    seen_px = reader.relocks[0].table_to_pixel(centre_mm)[0]
    true_px = bumped.project(centre_mm, 0.0)[0]
    assert np.hypot(*(seen_px - true_px)) < 3.0  # the new homography is the bumped camera's
    # black frames: the camera is said to have stopped, then to be back
    said = [e.text for e in report.kinds("say")]
    assert "The camera stopped sending pictures" in said and "The camera is back: watching again" in said
    drop = report.kinds("dropout")[0]
    assert HAND_BUMP["blanks"][0][0] <= drop.frame < HAND_BUMP["blanks"][0][1]


def _bumped_camera():
    from make_live_fixtures import hand_bump_scenario

    scenario = hand_bump_scenario()
    return scenario.cameras[0][1]


class _DroppingCamera(FrameSource):
    """A live camera that stops delivering once (raises CameraLost) and comes back on reopen: the failure of
    a USB cable or the Pi camera's driver, played from a video's frames."""

    def __init__(self, video: Path, lose_at: int) -> None:
        super().__init__("camera (test)")
        self.live = True
        self._video = open_source(str(video))
        self._lose_at = lose_at
        self._lost = False
        self.reopened = 0

    def _next(self):
        if not self._lost and self._video.frames_read == self._lose_at:
            self._lost = True
            raise CameraLost("camera (test) stopped delivering frames")
        frame = self._video.read()
        return None if frame is None else (frame.image, frame.time_s, "camera (test)")

    def _open(self) -> None:
        self.reopened += 1

    def _release(self) -> None:
        pass


def test_a_camera_that_stops_is_reopened_and_the_game_goes_on(tmp_path):
    lose_at = GAME["stills"][2]["start"] - 3  # during the second slide
    camera = _DroppingCamera(TEST_GAME_VIDEO, lose_at)
    session, _ = _session(TEST_GAME_VIDEO, GAME, source=camera, reopen_delay_s=0.01)
    report = session.run()
    assert camera.reopened == 1
    kinds = [e.kind for e in report.events]
    assert kinds.index("camera-lost") < kinds.index("camera-back")
    said = [e.text for e in report.kinds("say")]
    assert "The camera stopped sending pictures" in said and "The camera is back: watching again" in said
    assert report.moves == legal_moves_of_doc(GAME)


_PLAYER = textwrap.dedent("""
    import sys, time
    sys.path[:0] = [{root!r}, {tests!r}]
    from make_live_fixtures import TruthReader, load_truth
    from tableside.journal import Journal
    from tableside.session import Session
    from tableside.tracker import GameTracker, game_rules
    from vision.sources import open_source

    video, journal_path, resume = sys.argv[1], sys.argv[2], sys.argv[3] == "resume"
    doc = load_truth(video[:-4] + ".json")
    rules = game_rules("easy-slider")
    source = open_source(video)
    if resume:
        journal = Journal.resume(journal_path)
        tracker = Session.resume_tracker(rules, journal)
        skip = journal.entries[-1].extra["frame"] + 1 if journal.entries else 0
        for _ in range(skip):  # the camera goes on while the process is down: those frames are never seen
            source.read()
        session = Session(source, TruthReader("easy-slider", doc["frames"]), tracker, journal=journal,
                          echo=sys.stdout)
    else:
        session = Session(source, TruthReader("easy-slider", doc["frames"]), GameTracker(rules),
                          journal_path=journal_path, echo=sys.stdout,
                          on_verdict=lambda verdict, frame: time.sleep(0.5))
    session.run()
    print("END", flush=True)
""")


def test_a_killed_process_resumes_from_its_journal_with_nothing_lost(tmp_path):
    script = tmp_path / "player.py"
    script.write_text(_PLAYER.format(root=str(ROOT), tests=str(ROOT / "tests")))
    journal_path = tmp_path / "game.jsonl"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, str(script), str(TEST_GAME_VIDEO), str(journal_path), "new"],
                            stdout=subprocess.PIPE, text=True, env=env)
    moves_seen = 0
    deadline = time.monotonic() + 60
    try:
        for line in proc.stdout:
            if "] move:" in line:
                moves_seen += 1
            if moves_seen == 2 or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL and moves_seen == 2
    truth = legal_moves_of_doc(GAME)
    recorded = Journal.load(journal_path).moves
    assert recorded == truth[: len(recorded)] and 2 <= len(recorded) < len(truth)  # killed mid-game
    # a power cut in the middle of writing the next line: half a line at the end of the file
    with open(journal_path, "ab") as f:
        f.write(b'{"game":"easy-slider","seq":99,"time":"2025-01-01T00:00')
    done = subprocess.run([sys.executable, str(script), str(TEST_GAME_VIDEO), str(journal_path), "resume"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "resumed" in done.stdout and "END" in done.stdout
    journal = Journal.load(journal_path)
    assert journal.moves == truth  # every move, once, in order
    assert [e.seq for e in journal.entries] == list(range(1, len(truth) + 1))
    assert Path(str(journal_path) + ".partial").read_bytes().startswith(b'{"game":"easy-slider","seq":99')


def test_resume_refuses_a_journal_of_another_game(tmp_path):
    from rules.base import RulesError

    path = tmp_path / "other.jsonl"
    Journal.open(path, "slides-of-action", setup={"state": {}}).close()
    with pytest.raises(RulesError, match="slides-of-action"):
        Session.resume_tracker(game_rules("easy-slider"), Journal.load(path))


def test_annotated_frames_show_what_was_seen(tmp_path):
    from tableside.session import Annotator

    out = tmp_path / "seen"
    session, _ = _session(TEST_GAME_VIDEO, GAME, annotator=Annotator(out, every=8))
    session.run()
    files = sorted(out.glob("frame_*.jpg"))
    judged = {f"frame_{i:06d}.jpg" for i in session.judged_frames}
    assert judged <= {f.name for f in files}  # every judged frame is kept
    assert len(files) < len(GAME["frames"])  # and not every frame
    import cv2

    image = cv2.imread(str(files[0]))
    assert image.shape[1] == GAME["image_size"][0]
    assert float(image[:20].mean()) < 80  # the dark status bar drawn at the top


def test_legal_moves_of_helper_matches_the_fixture():
    from make_live_fixtures import trial_game_scenario

    assert legal_moves_of(trial_game_scenario()) == legal_moves_of_doc(GAME)


# ------------------------------------------------------------------------------------------- what is said


def test_each_game_is_narrated_in_its_own_words():
    import random

    import rules.martian_shuffleboard as ms
    import rules.slides_of_action as soa
    from rules.epic_funhouse import slide_jam
    from tableside.session import narrator_for
    from tableside.tracker import Verdict

    # Slides of Action: the slide and who made it, whose turn it is now, slide backs, the winner
    narrator = narrator_for("slides-of-action")
    start = soa.State.initial(2)
    move = start.legal_moves()[0]
    after = start.apply(move)
    lines = narrator.moves(Verdict("moves", after, (move,), (after,)), start)
    assert lines == [f"Green: {move.describe()}", "Red's turn"]  # crowns (green) move first, then suns (red)
    back = Verdict("illegal", after, reason="no slide backs: the coins were slid back (x), undoing the previous slide")
    assert narrator.illegal(back) == ["No slide backs!"]
    won = soa.State.from_text("CCCC/CASS/AASS/SA.A", players=2, turn="suns")
    assert won.connected_suits() == (soa.Suit.CROWNS,)
    assert narrator.over(won) == ["Green wins: all five coins are connected"]
    # Martian Shuffleboard: crashes and returns, the score after the flick, who flicks next
    s = ms.State.new(["red", "blue"]).apply(ms.Move.parse("red-large>(150.0,200.0,0.0)"))
    flick = ms.Move.parse("blue-medium>(170.0,200.0,0.0) red-large>off")
    after = s.apply(flick)
    lines = narrator_for("martian-shuffleboard").moves(Verdict("moves", after, (flick,), (after,)), s)
    assert lines == ["Red Large fell off the table: back to Red", "Score: Red 0, Blue 0", "Red to flick"]
    # an Epic Funhouse room: the room's name, then the move count
    narrator = narrator_for("slide-jam")
    state = slide_jam.State.deal(random.Random(1))
    assert narrator.start(state, False) == ["Slide Jam"]
    move = state.legal_moves()[0]
    after = state.apply(move)
    assert narrator.moves(Verdict("moves", after, (move,), (after,)), state)[0] == "1 move"


def test_an_unsure_reading_is_read_again_and_the_player_asked_only_if_it_stays_unsure():
    from tableside.tracker import Reading

    class Glare(TruthReader):
        """The first look at each still period after the first move is spoiled (glare); later looks are not,
        except in the period ``blind`` (a piece that stays unreadable)."""

        def __init__(self, blind: int) -> None:
            super().__init__("easy-slider", GAME["frames"])
            self.blind = GAME["stills"][blind]
            self.periods: set[int] = set()

        def read(self, frame):
            period = next(i for i, s in enumerate(GAME["stills"]) if s["start"] <= frame.index < s["stop"] + 4)
            if frame.index in range(self.blind["start"], self.blind["stop"]) or (
                    period >= 1 and period not in self.periods):
                self.periods.add(period)
                super().read(frame)
                return Reading(None, reason="glare on c3")
            return super().read(frame)

    reader = Glare(blind=2)
    session = Session(open_source(str(TEST_GAME_VIDEO)), reader, GameTracker(game_rules("easy-slider")),
                      recheck_s=0.25)
    report = session.run()
    asks = [e for e in report.kinds("say") if e.text.startswith("I cannot see that clearly")]
    blind = GAME["stills"][2]
    assert len(asks) == 1 and blind["start"] <= asks[0].frame < blind["stop"]  # asked once, where it stayed unsure
    assert len(report.kinds("unreadable")) >= 5  # every spoiled look was noted, and read again
    assert report.moves == legal_moves_of_doc(GAME)  # the move behind the blind period was seen at the next one
    assert len(report.kinds("illegal")) == 1
