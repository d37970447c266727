"""The speech announcer and its phrases, with real speech: pyttsx3 and the espeak-ng program render real WAVs.

WAVs are checked as sound: valid RIFF/WAVE, a sane sample rate, not silent, and a length that grows with the
text and shrinks with the rate. Timing is only ever compared within one run (say() against rendering).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from rules.pieces import Suit, Tile
from tableside import phrases
from tableside.announcer import (
    Announcer,
    Voice,
    VoiceError,
    _SharedPyttsx3,
    auto_order,
    match_voice,
    wav_name,
)

FIRST = auto_order()[0]  # what backend="auto" uses here: the espeak-ng program on Linux
SHORT = phrases.slide_signal()  # "Slide!"
MEDIUM = phrases.board_correct("Red")  # "Red's board is correct"
LONG = phrases.fumble(2, 3, Tile(Suit.MOONS, 4))  # "Fumble: the tile in row 2, column 3 should be Black 4"


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Samples (float, -1..1) and sample rate of a WAV, after checking its RIFF/WAVE header."""
    head = path.read_bytes()[:12]
    assert head[:4] == b"RIFF" and head[8:12] == b"WAVE", f"{path} is not a RIFF/WAVE file"
    with wave.open(str(path), "rb") as wav:
        assert wav.getnchannels() == 1
        assert wav.getsampwidth() == 2
        rate = wav.getframerate()
        frames = wav.readframes(wav.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float64) / 32768.0, rate


def assert_speech(path: Path) -> float:
    """The WAV holds speech: sane rate, loud enough, sound in many 20 ms windows. Returns its duration (s)."""
    samples, rate = read_wav(path)
    assert 8000 <= rate <= 48000, rate
    duration = len(samples) / rate
    assert duration > 0.3, f"{path.name}: only {duration:.2f} s"
    rms = float(np.sqrt(np.mean(samples**2)))
    assert rms > 0.02, f"{path.name}: RMS {rms:.4f} is near silence"
    window = rate // 50
    windows = samples[: len(samples) // window * window].reshape(-1, window)
    loud = np.sqrt(np.mean(windows**2, axis=1)) > 0.01
    assert loud.mean() > 0.3, f"{path.name}: sound in only {loud.mean():.0%} of 20 ms windows"
    return duration


def render(tmp_path: Path, texts: list[str], **options) -> list[Path]:
    with Announcer(speak_to=tmp_path, **options) as speaker:
        for text in texts:
            speaker.say(text)
        assert speaker.flush(timeout=60)
        spoken = speaker.spoken
        backend = speaker.backend
    assert [s.text for s in spoken] == texts
    expected = options.get("backend", "auto")
    assert backend == (FIRST if expected == "auto" else expected), [s.error for s in spoken]
    assert all(s.error is None and s.backend == backend for s in spoken), spoken
    return [s.wav_path for s in spoken]


# ---------------------------------------------------------------------------------------- real WAVs


@pytest.mark.parametrize("backend", ["pyttsx3", "espeak-ng"])
def test_each_engine_renders_speech_proportional_to_the_text(tmp_path, backend):
    paths = render(tmp_path, [SHORT, MEDIUM, LONG], backend=backend)
    durations = [assert_speech(p) for p in paths]
    assert durations[0] < durations[1] < durations[2]
    # Roughly proportional: seconds per character of the two longer texts agree within 35 %.
    per_char = [d / len(t) for d, t in zip(durations[1:], [MEDIUM, LONG], strict=True)]
    assert max(per_char) / min(per_char) < 1.35, per_char
    assert 0.03 < per_char[1] < 0.2, per_char  # about 170 words per minute


def test_first_utterance_of_a_fresh_process_is_complete(tmp_path):
    # pyttsx3's runAndWait() returns before libespeak-ng's first synthesis of a process has finished; the
    # announcer waits for "finished-utterance". A fresh interpreter is the case where the race shows.
    script = (
        "import sys\n"
        "from tableside.announcer import Announcer\n"
        f"a = Announcer(speak_to={str(tmp_path)!r}, rate=120, backend='pyttsx3')\n"
        f"a.say({LONG!r})\n"
        "a.close()\n"
        "print(a.spoken[0].backend, a.spoken[0].error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pyttsx3 None", done.stderr
    (wav,) = tmp_path.glob("0001-*.wav")
    assert assert_speech(wav) > 3.0


def test_auto_order():
    assert auto_order("linux") == ["espeak-ng", "pyttsx3", "text"]
    assert auto_order("win32") == auto_order("darwin") == ["pyttsx3", "espeak-ng", "text"]
    assert FIRST == auto_order(sys.platform)[0]


def test_pyttsx3_keeps_stdout_clean(tmp_path, capfd):
    paths = render(tmp_path, [MEDIUM, SHORT], backend="pyttsx3")
    assert_speech(paths[0])
    out, _err = capfd.readouterr()
    assert "Audio saved" not in out and out == ""  # pyttsx3's driver print is routed to the log


def test_both_engines_agree_on_length(tmp_path):
    (a,) = render(tmp_path / "a", [LONG], backend="pyttsx3")
    (b,) = render(tmp_path / "b", [LONG], backend="espeak-ng")
    da, db = assert_speech(a), assert_speech(b)
    assert abs(da - db) / max(da, db) < 0.3, (da, db)


@pytest.mark.parametrize("backend", ["pyttsx3", "espeak-ng"])
def test_faster_rate_gives_shorter_wav(tmp_path, backend):
    (slow,) = render(tmp_path / "slow", [LONG], rate=100, backend=backend)
    (fast,) = render(tmp_path / "fast", [LONG], rate=300, backend=backend)
    (again,) = render(tmp_path / "again", [LONG], backend=backend)  # back to the default rate
    d_slow, d_fast, d_default = assert_speech(slow), assert_speech(fast), assert_speech(again)
    assert d_slow / d_fast > 1.8, (d_slow, d_fast)
    assert d_fast < d_default < d_slow, (d_fast, d_default, d_slow)


def test_voice_choice_changes_the_sound(tmp_path):
    with Announcer(speak_to=tmp_path / "us", voice="en-us") as us:
        assert us.detect() == FIRST
        assert us.voice is not None and us.voice.id.lower().endswith("en-us")
        us.say(LONG)
    with Announcer(speak_to=tmp_path / "scot", voice="scotland") as scot:  # a part of "English (Scotland)"
        assert scot.detect() == FIRST
        assert scot.voice is not None and "Scotland" in scot.voice.name
        scot.say(LONG)
    (a,) = (tmp_path / "us").glob("*.wav")
    (b,) = (tmp_path / "scot").glob("*.wav")
    assert_speech(a), assert_speech(b)
    sa, sb = read_wav(a)[0], read_wav(b)[0]
    assert len(sa) != len(sb) or not np.array_equal(sa, sb)


def test_unknown_voice_is_reported_and_the_default_voice_is_used(tmp_path):
    speaker = Announcer(speak_to=tmp_path, voice="no-such-voice-xyz")
    with pytest.raises(VoiceError, match="no-such-voice-xyz"):
        speaker.detect()
    speaker.say(MEDIUM)
    assert speaker.close(timeout=30)
    assert speaker.voice is None
    assert speaker.spoken[0].backend == FIRST
    assert_speech(speaker.spoken[0].wav_path)


def test_voices_are_listed_and_matched():
    with Announcer(backend="espeak-ng") as speaker:
        voices = speaker.voices()
    assert len(voices) > 10
    assert match_voice("en-us", voices).languages == ("en-us",)
    with Announcer(backend="pyttsx3") as speaker:
        assert any("America" in v.name for v in speaker.voices())


# ------------------------------------------------------------------------------------------ the queue


def test_say_returns_before_the_wav_exists(tmp_path):
    # Relative timing only: say() must be far quicker than rendering what it queued.
    long_text = " ".join(phrases.fumble(r, c, Tile(Suit.MOONS, 4)) for r in range(1, 6) for c in range(1, 6)) * 3
    speaker = Announcer(speak_to=tmp_path)
    assert speaker.detect() == FIRST
    t0 = time.perf_counter()
    queued = speaker.say(long_text)
    t_say = time.perf_counter() - t0
    existed_at_return = queued.wav_path.exists()
    drained_at_once = speaker.flush(timeout=0)
    assert speaker.flush(timeout=60)
    t_render = time.perf_counter() - t0
    speaker.close()
    assert not existed_at_return
    assert not drained_at_once
    assert t_say * 20 < t_render, (t_say, t_render)
    assert_speech(queued.wav_path)


def test_say_does_not_wait_for_a_busy_engine(tmp_path):
    # pyttsx3's engine is one per process: while another announcer holds it, say() still returns at once.
    speaker = Announcer(speak_to=tmp_path, backend="pyttsx3")
    assert speaker.detect() == "pyttsx3"
    with _SharedPyttsx3.lock:
        first = speaker.say(MEDIUM)
        second = speaker.say(SHORT)
        assert not speaker.flush(timeout=0.3)
        assert speaker.pending == 2
        assert not first.wav_path.exists()
    assert speaker.close(timeout=30)
    assert [s.seq for s in speaker.spoken] == [first.seq, second.seq]
    assert_speech(first.wav_path), assert_speech(second.wav_path)


def test_two_announcers_at_once_keep_their_utterances_apart(tmp_path):
    # Both share pyttsx3's one engine: each WAV must hold its own announcement.
    a = Announcer(speak_to=tmp_path / "a", backend="pyttsx3")
    b = Announcer(speak_to=tmp_path / "b", backend="pyttsx3")
    threads = [
        threading.Thread(target=lambda: [a.say(SHORT) for _ in range(3)]),
        threading.Thread(target=lambda: [b.say(LONG) for _ in range(3)]),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a.close(timeout=60) and b.close(timeout=60)
    short = [assert_speech(s.wav_path) for s in a.spoken]
    long = [assert_speech(s.wav_path) for s in b.spoken]
    assert len(short) == len(long) == 3
    assert max(short) < 1.2 < 3.0 < min(long), (short, long)


def test_close_with_no_time_left_drops_the_rest_and_reports_it(tmp_path):
    speaker = Announcer(speak_to=tmp_path, backend="pyttsx3")
    assert speaker.detect() == "pyttsx3"
    with _SharedPyttsx3.lock:
        for _ in range(5):
            speaker.say(LONG)
        closed_cleanly = speaker.close(timeout=0.05)
    assert not closed_cleanly
    assert speaker.say(SHORT) is None  # closed: nothing more is queued
    speaker._worker.join(timeout=30)
    assert len(speaker.spoken) < 5


# ------------------------------------------------------------------------------- files and fallbacks


def test_speak_to_names_and_numbers_the_files(tmp_path):
    (tmp_path / "0007-old-announcement.wav").write_bytes(b"")  # a previous session's file is never overwritten
    with Announcer(speak_to=tmp_path) as speaker:
        first = speaker.say(phrases.tile_flipped(Suit.ARMS, 5))
        second = speaker.say(MEDIUM)
    assert first.wav_path.name == "0008-blue-5.wav"
    assert second.wav_path.name == "0009-reds-board-is-correct.wav"
    assert_speech(first.wav_path)
    assert wav_name(1, "Blue 5") == "0001-blue-5.wav"
    assert wav_name(12, "  !!! ") == "0012-announcement.wav"
    name = wav_name(3, "Fumble: the tile in row 2, column 3 should be Black 4")
    assert name.startswith("0003-fumble-the-tile-in-row-2") and len(name) <= 4 + 1 + 40 + 4


def test_text_backend_prints_say_lines(tmp_path):
    stream = io.StringIO()
    with Announcer(backend="text", stream=stream, speak_to=tmp_path) as speaker:
        speaker.say(MEDIUM)
        speaker.say("   ")  # nothing to say: not queued
        speaker.say(SHORT)
    assert stream.getvalue() == "[say] Red's board is correct\n[say] Slide!\n"
    assert speaker.backend == "text"
    assert list(tmp_path.iterdir()) == []


def test_echo_prints_what_the_engine_says(tmp_path):
    stream = io.StringIO()
    with Announcer(speak_to=tmp_path, stream=stream, echo=True) as speaker:
        speaker.say(SHORT)
    assert stream.getvalue() == "[say] Slide!\n"
    assert speaker.spoken[0].backend == FIRST


def test_without_any_speech_engine_the_text_fallback_is_used(tmp_path):
    # A fresh interpreter where pyttsx3 cannot be imported and no espeak program is on PATH.
    script = (
        "import sys; sys.modules['pyttsx3'] = None\n"
        "from tableside.announcer import Announcer, available_backends\n"
        f"a = Announcer(speak_to={str(tmp_path)!r})\n"
        "a.say(\"Red's board is correct\")\n"
        "print(a.detect(), available_backends(), a.close())\n"
    )
    env = dict(os.environ, PATH=str(tmp_path / "no-bin"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "text ['text'] True"
    assert "[say] Red's board is correct" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_engine_error_never_reaches_the_caller(tmp_path):
    stream = io.StringIO()
    folder = tmp_path / "wavs"
    speaker = Announcer(speak_to=folder, stream=stream)
    assert speaker.detect() == FIRST
    folder.rmdir()  # the WAV cannot be written: this announcement falls back to text
    speaker.say(MEDIUM)
    assert speaker.flush(timeout=30)
    folder.mkdir()  # the engine itself is fine and is used again
    speaker.say(SHORT)
    assert speaker.close(timeout=30)
    broken, fine = speaker.spoken
    assert broken.backend == "text" and "cannot write" in broken.error
    assert stream.getvalue() == "[say] Red's board is correct\n"
    assert fine.backend == FIRST and fine.error is None
    assert_speech(fine.wav_path)


def test_bad_options_are_refused_at_once(tmp_path):
    with pytest.raises(ValueError, match="80..450"):
        Announcer(rate=20)
    with pytest.raises(ValueError, match="unknown speech backend"):
        Announcer(backend="festival")


def test_match_voice_prefers_exact_then_partial():
    voices = [
        Voice("mb/mb-us1", "us-mbrola-1", ("en-us",)),
        Voice("gmw/en", "English (Great Britain)", ("en-gb",)),
        Voice("gmw/en-US", "English (America)", ("en-us",)),
        Voice("gmw/en-GB-scotland", "English (Scotland)", ("en-gb-scotland",)),
    ]
    assert match_voice(None, voices) is None
    assert match_voice("gmw/en", voices).name == "English (Great Britain)"
    assert match_voice("EN-US", voices).id == "gmw/en-US"  # last part of the id before the language code
    assert match_voice("english_(america)", voices).id == "gmw/en-US"
    assert match_voice("scot", voices).id == "gmw/en-GB-scotland"
    assert match_voice("us", voices).id == "gmw/en-US"  # MBROLA voices last among partial matches
    with pytest.raises(VoiceError, match="klingon"):
        match_voice("klingon", voices)


# ----------------------------------------------------------------------------------------- phrases


def test_caller_phrases_use_the_rules_words():
    row = [Tile(Suit.ARMS, 5), Tile(Suit.CROWNS, 0), Tile(Suit.CROWNS, 2), Tile(Suit.SUNS, 1)]
    assert phrases.tile_row(row) == "Blue 5, Green Null, Green 2, Red Ace"
    assert phrases.tile_row([(Suit.MOONS, 4)]) == "Black 4"
    assert [phrases.pawn_drawn(s) for s in (Suit.SUNS, Suit.ARMS, "moons")] == ["Red", "Blue", "Black"]
    assert [phrases.coin_drawn(r) for r in (1, 3)] == ["Ace", "3"]
    assert phrases.tile_flipped("crowns", 0) == "Green Null"
    assert phrases.slide_signal() == "Slide!"
    assert phrases.board_correct("Red") == "Red's board is correct"
    assert phrases.fumble(2, 3, Tile(Suit.MOONS, 4)) == "Fumble: the tile in row 2, column 3 should be Black 4"
    assert phrases.fumble(5, 1, "a Null tile") == "Fumble: the tile in row 5, column 1 should be a Null tile"


def test_scores_and_results_read_naturally():
    assert phrases.points_awarded("Anna", 1) == "Anna scores 1 point"
    assert phrases.points_awarded(Suit.ARMS, 4) == "Blue scores 4 points"
    assert phrases.standings({"Bo": 3, "Anna": 5, "Cy": 3}) == "Standings: Anna 5, Bo 3, Cy 3"
    assert phrases.winner(["Anna"]) == "Anna wins!"
    assert phrases.winner(["Anna", "Bo", "Cy"]) == "Anna, Bo and Cy tie"
    assert phrases.playoff(["Anna", "Bo"]) == "Anna and Bo are tied: playoff round"
    assert phrases.illegal_move("that tile is not next to the hole.") == (
        "Illegal move: that tile is not next to the hole"
    )
    assert phrases.turn(Suit.ARMS) == "Blue's turn"
    assert phrases.slides_winner(Suit.SUNS) == "Red wins: all five coins are connected"
    assert phrases.slides_winner(Suit.SUNS, [Suit.ARMS, Suit.SUNS]) == (
        "Blue and Red are all connected; Red moved, so Red wins"
    )
    assert phrases.flick_scores({"red": 3, "blue": 5}) == "Score: Blue 5, Red 3"
    assert phrases.knocked_flat("blue", "medium") == "Blue Medium knocked flat: back to Blue"
    assert phrases.fell_off("red", "large", own_turn=True) == "Red Large fell off the table: out of the game"
    assert phrases.fell_off("blue", "small", own_turn=False) == "Blue Small fell off the table: back to Blue"
    assert phrases.shuffleboard_result({"red": 3, "blue": 8}) == "Final score: Blue 8, Red 3. Blue wins!"
    assert phrases.shuffleboard_result({"red": 5, "blue": 5}) == (
        "Final score: Red 5, Blue 5. Red and Blue tie with 5 points"
    )
    assert phrases.room_score("roll-out-the-barrels", 7) == "Roll Out the Barrels score: 7"
    assert phrases.room_score("slide-jam", 0) == "Slide Jam: zero, a perfect score!"
    assert phrases.next_room("whack-a-dummy") == "Next room: Whack-a-Dummy"
    assert phrases.room_moves(1) == "1 move" and phrases.room_moves(12) == "12 moves"
