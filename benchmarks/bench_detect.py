"""Tile and coin detection: accuracy per edition after teaching it, how it falls with worse pictures, and speed.

    .venv/bin/python benchmarks/bench_detect.py [--frames N] [--speed-runs N] [--json out.json]

Frames are rendered by tests/tablescene (cached on disk by tests/vision/detect_scenes.py): full Easy Slider
boards (24 tiles, 5 coins, 4 pawns) on an A3 sheet, a Pi camera v2 (1640x1232) 80 cm up and tilted 12 degrees,
random room light (lamp, white balance, exposure, noise, blur, JPEG). Each edition is taught from its own two
rendered teach photos (other frames than the ones scored). Every frame is calibrated from the sheet in it, as
``tableside detect`` does.

Accuracy (tiles and coins not covered by anything): a piece is *right* when kind, side, suit and rank all are;
*wrong* when read otherwise AND reported sure (the number that must stay 0); *uncertain* when reported uncertain;
*partial* when right but a field left None (a blank coin's suit); *missed* when not found; *extra* a sure find
where there is no piece. A board is *exact* when every piece is right and nothing is extra.

Speed: one core (cv2.setNumThreads(1), OpenBLAS and numba on one thread), a full board, the median of several
runs of ``Detector.detect`` (tiles and coins; and everything, with the figures of vision.figures), CPU time of
the process. The *floor* is one cv2.cvtColor (BGR to grey) and one cv2.GaussianBlur (5x5) of the same frame in
the same run; ratios are to it. Memory: the peak of Python/numpy allocations during a detect (tracemalloc).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "vision"), str(ROOT)]

import cv2  # noqa: E402
from detect_scenes import Score, easy_slider_frame, score, taught_profile  # noqa: E402
from tablescene import CameraSpec, Lighting  # noqa: E402

from calibration.profile import default_profile  # noqa: E402
from calibration.table_calibration import calibrate_from_sheet  # noqa: E402
from vision.detect import Detector  # noqa: E402

EDITIONS = ("default", "classic", "hand-made", "bold")
CONDITIONS: dict[str, dict] = {
    "reference (random light)": {},
    "tilt 25 deg": dict(camera=CameraSpec(distance_mm=760, tilt_deg=25, target_mm=(148, 215))),
    "tilt 35 deg": dict(camera=CameraSpec(distance_mm=720, tilt_deg=35, target_mm=(148, 215))),
    "blur 1.2 px": dict(lighting=Lighting(blur_px=1.2)),
    "blur 2.0 px": dict(lighting=Lighting(blur_px=2.0)),
    "noise x2.5": dict(lighting=Lighting(noise=2.5)),
    "noise x4": dict(lighting=Lighting(noise=4.0)),
    "JPEG q50": dict(lighting=Lighting(jpeg_quality=50)),
    "JPEG q30": dict(lighting=Lighting(jpeg_quality=30)),
    "glare x2.5": dict(lighting=Lighting(glare=2.5, lamp_mm=(150, 150, 900), direct=0.9)),
    "2304x1296 (Pi camera 3)": dict(camera=CameraSpec(resolution=(2304, 1296), distance_mm=800, tilt_deg=10,
                                                      target_mm=(148, 215))),
}


def _detect(frame, profile, kinds=("tile", "coin")):
    calibration = calibrate_from_sheet(frame.image)
    return Detector(calibration, profile).detect(frame.image, kinds=kinds)


def _row(name: str, total: Score, boards: int, exact: int) -> dict:
    return {
        "name": name,
        "pieces": total.visible,
        "right": total.correct,
        "accuracy": round(total.accuracy, 4),
        "wrong": total.wrong,
        "uncertain": total.uncertain,
        "partial": total.partial,
        "missed": total.missed,
        "extra": total.extra,
        "boards": boards,
        "boards_exact": exact,
    }


def accuracy(frames: int) -> list[dict]:
    rows = []
    for edition in EDITIONS:
        profile = taught_profile(edition)
        total, exact = Score(), 0
        for i in range(frames):
            frame = easy_slider_frame(500 + i, edition=edition)
            result = score(_detect(frame, profile), frame, profile)
            exact += int(result.correct == result.visible and result.extra == 0)
            total.add(result)
        rows.append(_row(f"edition {edition}", total, frames, exact))
        print(rows[-1], flush=True)
    return rows


def conditions(frames: int) -> list[dict]:
    rows = []
    profile = default_profile()
    for k, (name, options) in enumerate(CONDITIONS.items()):
        total, exact = Score(), 0
        for i in range(frames):
            frame = easy_slider_frame(700 + 20 * k + i, **options)
            result = score(_detect(frame, profile), frame, profile)
            exact += int(result.correct == result.visible and result.extra == 0)
            total.add(result)
        rows.append(_row(name, total, frames, exact))
        print(rows[-1], flush=True)
    return rows


def _cpu_ms(fn, runs: int) -> float:
    fn()  # warm (numba compiled and cached, maps built)
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(1000.0 * (time.process_time() - start))
    return statistics.median(times)


def speed(runs: int) -> list[dict]:
    cv2.setNumThreads(1)
    rows = []
    profile = default_profile()
    for name, camera in (("1640x1232", None),
                         ("2304x1296", CameraSpec(resolution=(2304, 1296), distance_mm=800, tilt_deg=10,
                                                  target_mm=(148, 215)))):
        frame = easy_slider_frame(900, **({"camera": camera} if camera else {}))
        calibration = calibrate_from_sheet(frame.image)
        detector = Detector(calibration, profile)
        image = frame.image

        def floor(image=image):
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            cv2.GaussianBlur(grey, (5, 5), 0)

        def tiles_coins(detector=detector, image=image):
            detector.detect(image, ("tile", "coin"))

        def everything(detector=detector, image=image):
            detector.detect(image)

        floor_ms = _cpu_ms(floor, max(20, runs * 4))
        tiles_coins_ms = _cpu_ms(tiles_coins, runs)
        everything_ms = _cpu_ms(everything, max(1, runs // 2))
        stages = detector.detect(image, ("tile", "coin")).timings_ms
        tracemalloc.start()
        floor()
        _, floor_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        detector.detect(image, ("tile", "coin"))
        _, detect_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        row = {
            "frame": name,
            "floor_ms": round(floor_ms, 2),
            "tiles_coins_ms": round(tiles_coins_ms, 1),
            "tiles_coins_x_floor": round(tiles_coins_ms / floor_ms, 1),
            "all_kinds_ms": round(everything_ms, 1),
            "all_kinds_x_floor": round(everything_ms / floor_ms, 1),
            "stages_wall_ms": {k: round(v, 1) for k, v in stages.items()},
            "peak_alloc_mb": round(detect_peak / 2**20, 1),
            "floor_peak_alloc_mb": round(floor_peak / 2**20, 2),
            "peak_x_floor": round(detect_peak / max(floor_peak, 1), 1),
        }
        rows.append(row)
        print(row, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8, help="frames per edition and per condition")
    parser.add_argument("--speed-runs", type=int, default=7, help="timed runs per frame size")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    out = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"}
    out["speed"] = speed(args.speed_runs)
    if not args.skip_accuracy:
        out["editions"] = accuracy(args.frames)
        out["conditions"] = conditions(max(2, args.frames // 2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
