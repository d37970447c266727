"""Speech and journal speed: what the live loop pays per announcement and per accepted move.

    .venv/bin/python benchmarks/bench_speech.py [--repeat N] [--out DIR]

Prints, for each speech backend (pyttsx3 and the espeak-ng program), the time ``say()`` takes to return
(what the camera loop pays), the time to render each announcement to a WAV, and how much faster than real
time that is; then the time of one journal ``append`` (write + fsync) on the output folder's file system.
Times are medians over the runs of one invocation; compare them with each other, not across machines.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import wave
from pathlib import Path

from rules.pieces import Suit, Tile
from tableside import phrases
from tableside.announcer import Announcer
from tableside.journal import Journal, MoveRecord

TEXTS = [
    phrases.slide_signal(),
    phrases.board_correct("Red"),
    phrases.tile_row([Tile(Suit.ARMS, 5), Tile(Suit.CROWNS, 0), Tile(Suit.CROWNS, 2), Tile(Suit.SUNS, 1)]),
    phrases.fumble(2, 3, Tile(Suit.MOONS, 4)),
    phrases.shuffleboard_result({"blue": 8, "red": 3, "green": 3}),
]


def bench_backend(backend: str, folder: Path, repeat: int) -> dict[str, float]:
    say_times, render_times, audio_seconds = [], [], 0.0
    with Announcer(speak_to=folder, backend=backend) as speaker:
        assert speaker.detect() == backend, f"{backend} did not start"
        for _ in range(repeat):
            for text in TEXTS:
                t0 = time.perf_counter()
                item = speaker.say(text)
                say_times.append(time.perf_counter() - t0)
                speaker.flush(timeout=60)
                render_times.append(time.perf_counter() - t0)
                with wave.open(str(item.wav_path), "rb") as wav:
                    audio_seconds += wav.getnframes() / wav.getframerate()
    return {
        "say_us": statistics.median(say_times) * 1e6,
        "render_ms": statistics.median(render_times) * 1e3,
        "realtime_x": audio_seconds / sum(render_times),
    }


def bench_journal(folder: Path, appends: int) -> float:
    with Journal.open(folder / "bench.jsonl", "easy-slider", setup={"players": ["Red"]}) as journal:
        times = []
        for i in range(appends):
            t0 = time.perf_counter()
            journal.append(MoveRecord(f"m{i}", who="Red", state={"hole": [5, 5], "moves": i}))
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=4, help="runs over the five phrases (default 4)")
    parser.add_argument("--out", type=Path, help="folder for the WAVs and the journal (default: a temp folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        print(f"{len(TEXTS)} phrases x {args.repeat} runs, WAVs in {folder}")
        for backend in ("pyttsx3", "espeak-ng"):
            r = bench_backend(backend, folder / backend, args.repeat)
            print(
                f"{backend:10s} say() {r['say_us']:7.1f} us   render to WAV {r['render_ms']:7.1f} ms"
                f"   {r['realtime_x']:6.1f}x real time"
            )
        print(f"journal    append (write + fsync) {bench_journal(folder, 200):.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
