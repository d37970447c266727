"""Live loop benchmark: frames per second, latency from a still table to the announcement, memory, start-up.

    .venv/bin/python benchmarks/bench_live.py [--resolution 1640x1232] [--cpu N] [--profile set.json]
                                              [--cache DIR] [--no-startup]

What it measures, on ONE core (the process is pinned to one CPU, OpenCV and numba use one thread):

* the Easy Slider demo round (``tests/make_live_fixtures.py``: the Caller's deal of seed 7, two slides, an
  illegal move put back, a slide; 4 fps, 1.5 s still after each move) rendered at ``--resolution`` (default
  1640x1232, the Pi camera v2's binned mode) into ``--cache`` (rendered once; about a minute of CPU);
* the real live loop on it (:class:`tableside.session.Session` with ``tableside watch``'s vision, the rules,
  a journal on disk and the text announcer): the cost of a frame that is only watched (the stillness tracker),
  of a frame that is judged (detection, reading, explain, journal, say), the resulting frames per second, and the
  latency from the moment the table is still (the first frame after the hand left) to the announcement =
  the time the stillness tracker waits (source time) + the judging time (wall time, one core);
* peak memory (max RSS) of the process;
* start-up of ``tableside watch`` until its first judgement (a subprocess watching the first frames),
  with an empty numba cache (cold: every jitted function compiled) and again with the cache filled (warm).

Figures go to BENCHMARKS.md (by the lead); quote the machine and the frame size with them.
"""

from __future__ import annotations

import os
import sys

# One core: set before numpy/OpenCV/numba start their thread pools.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import cv2  # noqa: E402

cv2.setNumThreads(1)

#: The video's board is the Caller's deal of this seed.
SEED = 7


def _pin(cpu: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})


def render_video(resolution: tuple[int, int], cache: Path) -> tuple[Path, dict]:
    """The demo round at ``resolution`` (rendered once into ``cache``) and its truth document."""
    from make_live_fixtures import DEMO_TIMING, _write_fixture, easy_camera, easy_slider_scenario, steady_lighting

    name = f"easy_slider_{resolution[0]}x{resolution[1]}.mp4"
    path = cache / name
    if not (path.exists() and path.with_suffix(".json").exists()):
        cache.mkdir(parents=True, exist_ok=True)
        slides = ["d1-e1", "d2-d1", ("b2", "d2"), ("d2", "b2"), "c2-d2"]
        scenario = easy_slider_scenario(seed=SEED, slides=slides, lighting=steady_lighting(noise=0.7),
                                        camera=easy_camera(resolution), **DEMO_TIMING)
        t0 = time.perf_counter()
        _write_fixture(scenario, path)
        print(f"rendered {path} in {time.perf_counter() - t0:.0f} s")
    return path, json.loads(path.with_suffix(".json").read_text())


def taught_profile(cache: Path) -> Path:
    """A profile taught from the committed teach photo (when the built-in one is missing)."""
    from calibration.profile import save_profile
    from calibration.table_calibration import calibrate_from_sheet
    from calibration.teach import build_profile
    from vision.detect import survey_teach_photo

    path = cache / "taught_default.json"
    image = cv2.imread(str(ROOT / "fixtures" / "scenes" / "teach_default.jpg"))
    surveyed = [survey_teach_photo(image, calibrate_from_sheet(image), name="teach_default.jpg")]
    cache.mkdir(parents=True, exist_ok=True)
    save_profile(build_profile(surveyed, name="default"), path)
    return path


def profile_path(args: argparse.Namespace) -> str | None:
    if args.profile:
        return args.profile
    from calibration.errors import CalibrationError
    from calibration.profile import default_profile

    try:
        default_profile()
        return None
    except CalibrationError:
        path = taught_profile(args.cache)
        print(f"(no built-in profile: taught {path} from fixtures/scenes/teach_default.jpg)")
        return str(path)


def bench_loop(video: Path, doc: dict, profile: str | None) -> dict:
    from calibration.profile import load_profile
    from tableside.announcer import Announcer
    from tableside.commands.watch import VisionReader, start_state
    from tableside.session import Session
    from tableside.tracker import GameTracker, game_rules
    from vision.sources import open_source

    reader = VisionReader("easy-slider", profile=load_profile(profile) if profile else None)
    announcer = Announcer(backend="text", stream=open(os.devnull, "w"))  # noqa: SIM115 - closed with the run
    steps: list[tuple[int, float, bool, float]] = []  # frame, wall s, judged, CPU s
    with tempfile.TemporaryDirectory() as tmp, open_source(str(video)) as source:
        # the game starts from the Caller's deal (as ``tableside watch --seed 7`` and the demo do): the video's
        # board is seed 7's deal, so an unsure first reading can still be resolved with the rules
        start = start_state("easy-slider", {}, str(SEED))
        session = Session(source, reader, GameTracker(game_rules("easy-slider"), start), announcer=announcer,
                          journal_path=Path(tmp) / "game.jsonl")
        wall = cpu = 0.0
        while True:
            frame = source.read()  # decoding is the camera's work, not the loop's: outside the timers
            if frame is None:
                break
            c0, t0 = time.process_time(), time.perf_counter()
            verdict = session.step(frame)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            wall, cpu = wall + dt, cpu + dc
            steps.append((frame.index, dt, verdict is not None, dc))
        moves = [str(m) for m in session.tracker.moves]
        said = {e.frame: e.text for e in session.events if e.kind == "say"}
    announcer.close()
    fps = float(doc["fps"])
    watched = [dt for _, dt, judged, _ in steps if not judged]
    judged = [(i, dt) for i, dt, j, _ in steps if j]
    judged_cpu = [dc for i, _, j, dc in steps if j and i > doc["stills"][0]["stop"]]
    # still periods after each move: from the first still frame to the judged frame (source time)
    waits = []
    for still in doc["stills"][1:]:
        hits = [i for i, _ in judged if still["start"] <= i < still["stop"]]
        if hits:
            waits.append((hits[0] - still["start"]) / fps)
    judge_times = [dt for i, dt in judged if i > doc["stills"][0]["stop"]]  # the first: calibration + JIT
    truth = [m for m in doc["moves"] if not m.startswith("illegal")]
    return {
        "frames": len(steps), "wall_s": wall, "cpu_s": cpu,
        "watch_ms_median": 1000 * statistics.median(watched), "watch_ms_max": 1000 * max(watched),
        "judge_s_median": statistics.median(judge_times) if judge_times else float("nan"),
        "judge_s_max": max(judge_times) if judge_times else float("nan"),
        "first_judge_s": judged[0][1] if judged else float("nan"),
        "judge_cpu_s_median": statistics.median(judged_cpu) if judged_cpu else float("nan"),
        "fps_watching": 1000.0 / statistics.median([1000 * w for w in watched]),
        "fps_overall": len(steps) / wall,
        "still_wait_s": statistics.median(waits) if waits else float("nan"),
        "moves_ok": moves == truth, "moves": moves, "truth": truth, "said": len(said),
        "judged": len(judged), "stills": len(doc["stills"]), "kinds": reader.kinds,
        "judged_in_motion": sum(1 for i, _ in judged if not any(s["start"] <= i < s["stop"] for s in doc["stills"])),
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def bench_startup(video: Path, profile: str | None, cpu: int) -> dict:
    """Wall time of ``tableside watch --seed 7`` watching the first 4 frames (its first judgement included), with
    a cold and then a warm numba cache."""
    results = {}
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
        cmd = ["taskset", "-c", str(cpu)] if _has("taskset") else []
        cmd += [sys.executable, "-m", "tableside", "watch", "--game", "easy-slider", "--source", str(video),
                "--max-frames", "4", "--quiet", "--speech", "text", "--seed", str(SEED)]
        if profile:
            cmd += ["--profile", profile]
        for label in ("cold", "warm", "warm again"):
            t0, c0 = time.perf_counter(), _children_cpu()
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
            results[label] = time.perf_counter() - t0
            results[label + " cpu"] = _children_cpu() - c0
            if done.returncode != 0:
                print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed", file=sys.stderr)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tableside", "--help"], env=env, capture_output=True, cwd=ROOT)
        results["cli_help"] = time.perf_counter() - t0
    return results


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _has(program: str) -> bool:
    from shutil import which

    return which(program) is not None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--resolution", default="1640x1232", help="WxH of the rendered video (default 1640x1232)")
    p.add_argument("--cpu", type=int, default=0, help="the core to pin to (default 0)")
    p.add_argument("--profile", help="the piece-set profile (default: built-in, else taught from the fixture)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "tableside-bench-live",
                   help="where the rendered video is kept")
    p.add_argument("--no-startup", action="store_true", help="skip the start-up measurement")
    args = p.parse_args(argv)
    w, h = (int(v) for v in args.resolution.lower().split("x"))
    _pin(args.cpu)
    video, doc = render_video((w, h), args.cache)
    profile = profile_path(args)
    r = bench_loop(video, doc, profile)
    print(f"\nlive loop, Easy Slider round at {w}x{h}, {r['frames']} frames at {doc['fps']:g} fps, one core "
          f"(cpu {args.cpu}), load average {os.getloadavg()[0]:.1f}:")
    print(f"  watching a frame (stillness): median {r['watch_ms_median']:.1f} ms, max {r['watch_ms_max']:.1f} ms "
          f"-> {r['fps_watching']:.0f} fps while nothing is judged")
    print(f"  judging a settled frame (detect, read, explain, journal, say): median {r['judge_s_median']:.2f} s "
          f"wall ({r['judge_cpu_s_median']:.2f} s CPU), max {r['judge_s_max']:.2f} s; the first one (calibration, "
          f"JIT) {r['first_judge_s']:.2f} s")
    print(f"  whole video: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['fps_overall']:.2f} fps overall")
    print(f"  still table -> announcement: the stillness wait {r['still_wait_s']:.2f} s (source time) + judging "
          f"{r['judge_s_median']:.2f} s = {r['still_wait_s'] + r['judge_s_median']:.2f} s")
    print(f"  detections: {r['judged']} frames judged of {r['frames']} ({r['stills']} still periods; "
          f"{r['judged_in_motion']} judged outside them), kinds asked for {r['kinds']}")
    print(f"  moves recorded {r['moves']} ({'= truth' if r['moves_ok'] else 'truth: ' + str(r['truth'])})")
    print(f"  peak memory (max RSS): {r['max_rss_mb']:.0f} MB")
    if not args.no_startup:
        s = bench_startup(video, profile, args.cpu)
        print(f"  start-up to the first judgement (tableside watch, 4 frames): cold numba cache {s['cold']:.1f} s "
              f"({s['cold cpu']:.1f} s CPU), warm {s['warm']:.1f} s ({s['warm cpu']:.1f} s CPU) / "
              f"{s['warm again']:.1f} s ({s['warm again cpu']:.1f} s CPU); `tableside --help` {s['cli_help']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
