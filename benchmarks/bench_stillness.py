"""Stillness tracker speed: time per `StillnessTracker.update` by camera frame size and work width.

    .venv/bin/python benchmarks/bench_stillness.py [--quick] [--json results.json]

Frames are a synthetic textured table with a piece and sensor noise (the same kind as tests/vision/test_stillness.py),
alternating between a few noisy shots so every update does the full work (motion, change against the stable
frame, arm search). A second table times the steps of one update at the default work width (320 px). Medians
over the repetitions; the machine's load average is printed with the results since the figures depend on it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from vision.stillness import (  # noqa: E402
    StillnessParams,
    StillnessTracker,
    camera_motion,
    change_mask,
    downscale,
    fit_light,
    skin_mask,
    work_gray,
)

SIZES = [(640, 480), (1640, 1232), (1920, 1080), (2304, 1296)]
WORK_WIDTHS = [160, 240, 320, 480]


def synthetic_frames(size: tuple[int, int], count: int = 4, seed: int = 0) -> list[np.ndarray]:
    width, height = size
    rng = np.random.default_rng(seed)
    coarse = cv2.resize(rng.normal(0, 1, (60, 160)).astype(np.float32), size, interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.5)
    texture = 0.6 * coarse + 0.8 * fine
    table = np.stack([m + a * texture for m, a in ((70, 12), (110, 16), (150, 20))], axis=2)
    s = width // 16
    table[height // 3 : height // 3 + s, width // 2 : width // 2 + s] = (40, 40, 200)
    frames = []
    for _ in range(count):
        noisy = table + rng.normal(0, 3.0, table.shape)
        frames.append(np.clip(noisy, 0, 255).astype(np.uint8))
    return frames


def time_updates(size: tuple[int, int], work_width: int, repeats: int) -> float:
    frames = synthetic_frames(size)
    tracker = StillnessTracker(StillnessParams(work_width_px=work_width))
    for i in range(8):  # warm up; the table becomes still and gets its reference
        tracker.update(frames[i % len(frames)], i * 0.1)
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        tracker.update(frames[i % len(frames)], 1.0 + i * 0.1)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000.0


def time_steps(size: tuple[int, int], repeats: int) -> dict[str, float]:
    frames = synthetic_frames(size)
    params = StillnessParams()

    def median_ms(fn) -> float:
        out = []
        for i in range(repeats):
            start = time.perf_counter()
            fn(i)
            out.append(time.perf_counter() - start)
        return statistics.median(out) * 1000.0

    small = [downscale(f, params.work_width_px)[0] for f in frames]
    gray = [work_gray(s, params.blur_sigma_px) for s in small]
    residual = fit_light(gray[1], gray[0]).residual
    return {
        "downscale": median_ms(lambda i: downscale(frames[i % 4], params.work_width_px)),
        "grey + blur": median_ms(lambda i: work_gray(small[i % 4], params.blur_sigma_px)),
        "fit_light (x2 per update)": median_ms(lambda i: fit_light(gray[i % 4], gray[(i + 1) % 4])),
        "change_mask (x2 per update)": median_ms(lambda i: change_mask(residual, 10.0, 4.0)),
        "skin_mask": median_ms(lambda i: skin_mask(small[i % 4])),
        "camera_motion (on settling only)": median_ms(lambda i: camera_motion(gray[i % 4], gray[(i + 1) % 4])),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    repeats = 15 if args.quick else 60
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f}; OpenCV {cv2.__version__}, numpy {np.__version__}")
    print()
    print("In brackets: the work width actually used (the frame width divided by a whole factor).")
    print()
    print("ms per update (median) | " + " | ".join(f"work {w} px" for w in WORK_WIDTHS))
    print("---" + " | ---" * len(WORK_WIDTHS))
    results: dict = {"load_average": load, "updates_ms": {}, "steps_ms": {}}
    for size in SIZES:
        row = [time_updates(size, w, repeats) for w in WORK_WIDTHS]
        used = [size[0] // max(1, round(size[0] / w)) for w in WORK_WIDTHS]
        results["updates_ms"][f"{size[0]}x{size[1]}"] = {
            str(w): {"ms": v, "work_width": u} for w, v, u in zip(WORK_WIDTHS, row, used, strict=True)
        }
        print(f"{size[0]}x{size[1]} | " + " | ".join(f"{v:.1f} [{u}]" for v, u in zip(row, used, strict=True)))
    print()
    steps = time_steps((1640, 1232), repeats)
    results["steps_ms"] = steps
    print("step (1640x1232 frame, work 320 px) | ms (median)")
    print("--- | ---")
    for name, value in steps.items():
        print(f"{name} | {value:.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
