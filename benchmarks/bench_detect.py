"""Tile and coin detection: accuracy per taught edition and per kind of scene, how it falls with worse pictures,
and speed and memory against the floor of any per-frame work.

    .venv/bin/python benchmarks/bench_detect.py [--boards N] [--frames N] [--speed-runs N] [--json out.json]
                                                [--skip-accuracy] [--skip-conditions] [--skip-speed]

Frames are rendered by tests/tablescene (cached on disk by tests/vision/detect_scenes.py; the first run renders
them, 1-3 s each): a Pi camera v2 (1640x1232) 80 cm up and tilted 12 degrees, random room light (lamp, white
balance, exposure, noise, blur, JPEG), an A3 calibration sheet under the pieces. Scene families:

* ``easy-slider``: full Easy Slider boards (24 tiles with 5 mm gaps, 5 coins above, 4 pawns beside);
* ``coin-grid``: Roll Out the Barrels / Whack-a-Dummy: 24 coins 4 wide by 6 high, a third suit side up, the die on
  one of them (no tiles);
* ``tile-backs``: Slides / Plans of Action: 2x2 or 4x4 tiles back side up, coins on some of their cells;
* ``slide-jam``: 4 x 6 tiles face up touching (white on the white sheet), a few popped off.

Each edition is taught from its own two rendered teach photos (other frames than those scored). Every frame is
calibrated from the sheet in it, as ``tableside detect`` does.

Accuracy (tiles and coins not covered by anything): a piece is *right* when kind, side, suit and rank all are;
*wrong* when read otherwise AND reported sure (the number that must stay 0); *uncertain* when reported uncertain;
*partial* when right but a field left None (a blank coin's suit); *missed* when not found; *extra* a sure find
where there is no piece; *truth in could_be*: of the uncertain pieces that name the few readings they could be
(``DetectedPiece.could_be``), how many have the truth among them (it must be all). A board is *exact* when every
piece is right and nothing is extra. Pieces under a die or a hand are not counted (they must not be wrong either:
``covered wrong``).

Speed: one core (cv2.setNumThreads(1), OpenBLAS and numba on one thread), a full Easy Slider board (frame 900,
one of the cheapest; and the median over boards 500.., each against its own floor), the median of several runs
of ``Detector.detect`` (tiles and coins; and everything, with the figures of vision.figures), CPU time of the
process. The *floor* is one cv2.cvtColor (BGR to grey) and one cv2.GaussianBlur (5x5) of the same
frame in the same run; ratios are to it. Memory: the peak of Python/numpy allocations during a detect
(tracemalloc; OpenCV's own buffers are numpy arrays and counted).
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
from detect_scenes import (  # noqa: E402
    Score,
    coin_grid_frame,
    easy_slider_frame,
    score,
    slide_jam_frame,
    taught_profile,
    tile_block_frame,
)
from tablescene import CameraSpec, Lighting  # noqa: E402

from calibration.profile import default_profile  # noqa: E402
from calibration.table_calibration import calibrate_from_sheet  # noqa: E402
from vision.detect import Detector  # noqa: E402

EDITIONS = ("default", "classic", "hand-made", "bold")
#: family -> (frame function, first seed, share of --boards)
FAMILIES = {
    "easy-slider": (easy_slider_frame, 500, 1.0),
    "coin-grid": (coin_grid_frame, 1000, 0.5),
    "tile-backs": (tile_block_frame, 1100, 0.5),
    "slide-jam": (slide_jam_frame, 1200, 0.5),
}
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
    # a live preview stream: 1 px/mm at the board (the live fixtures' camera, tests/make_live_fixtures.py)
    "820x616 (1 px/mm)": dict(camera=CameraSpec(resolution=(820, 616), focal_px=1359.0 / 2, distance_mm=640.0,
                                                tilt_deg=12.0, yaw_deg=3.0, target_mm=(150.0, 215.0), k1=-0.05,
                                                k2=0.012)),
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
        "covered": total.covered,
        "covered_wrong": total.covered_wrong,
        "boards": boards,
        "boards_exact": exact,
        "could_be": total.could_be,
        "could_be_true": total.could_be_true,
    }


def _scored(frames, profile, verbose: bool) -> tuple[Score, int]:
    total, exact = Score(), 0
    for name, frame in frames:
        result = score(_detect(frame, profile), frame, profile)
        board_exact = result.correct == result.visible and result.extra == 0
        exact += int(board_exact)
        total.add(result)
        if verbose and (result.wrong or result.covered_wrong or not board_exact):
            print(f"  {name}: " + "; ".join(result.notes), flush=True)
    return total, exact


def accuracy(boards: int, verbose: bool, offset: int = 0, editions: tuple[str, ...] = EDITIONS) -> list[dict]:
    """Per edition and scene family; ``offset`` shifts every family's seeds (held-out boards: a rule tuned on the
    benchmark's seeds is checked on others)."""
    rows = []
    for edition in editions:
        profile = taught_profile(edition)
        everything, all_exact, all_boards = Score(), 0, 0
        for family, (make, first, share) in FAMILIES.items():
            count = max(1, round(boards * share))
            seeds = [first + offset + i for i in range(count)]
            frames = ((f"{family} {seed}", make(seed, edition=edition)) for seed in seeds)
            total, exact = _scored(frames, profile, verbose)
            rows.append(_row(f"{edition} / {family}", total, count, exact))
            print(rows[-1], flush=True)
            everything.add(total)
            all_exact += exact
            all_boards += count
        rows.append(_row(f"{edition} / all", everything, all_boards, all_exact))
        print(rows[-1], flush=True)
    return rows


def conditions(frames: int, verbose: bool) -> list[dict]:
    rows = []
    profile = default_profile()
    for k, (name, options) in enumerate(CONDITIONS.items()):
        scenes = ((f"{name} {700 + 20 * k + i}", easy_slider_frame(700 + 20 * k + i, **options))
                  for i in range(frames))
        total, exact = _scored(scenes, profile, verbose)
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


def speed(runs: int, boards: int = 6) -> list[dict]:
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

        # interleaved, so that a change of the machine's load hits floor and detector alike
        floor_ms, tiles_coins_ms = [], []
        for _ in range(3):
            floor_ms.append(_cpu_ms(floor, max(20, runs * 4)))
            tiles_coins_ms.append(_cpu_ms(tiles_coins, runs))
        floor_ms, tiles_coins_ms = min(floor_ms), min(tiles_coins_ms)
        everything_ms = _cpu_ms(everything, max(1, runs // 2))
        stages = {}
        for _ in range(runs):
            for key, value in detector.detect(image, ("tile", "coin")).timings_ms.items():
                stages.setdefault(key, []).append(value)
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
            "stages_wall_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
            "peak_alloc_mb": round(detect_peak / 2**20, 1),
            "floor_peak_alloc_mb": round(floor_peak / 2**20, 2),
            "peak_x_floor": round(detect_peak / max(floor_peak, 1), 1),
        }
        rows.append(row)
        print(row, flush=True)
    if boards:
        rows.append(_speed_over_boards(runs, boards))
        print(rows[-1], flush=True)
    return rows


def _speed_over_boards(runs: int, boards: int) -> dict:
    """Tiles + coins on several Easy Slider boards at 1640x1232, each against its own floor.

    Frame 900 above is one of the cheapest boards: most boards make the finder look again (turned tiles, uneven
    gaps, a coin beside a marker), which costs more. The median over boards 500.. is the figure a player meets."""
    profile = default_profile()
    ms, ratios = [], []
    for seed in range(500, 500 + boards):
        image = easy_slider_frame(seed).image
        detector = Detector(calibrate_from_sheet(image), profile)
        def floor(image=image):
            cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)

        def tiles_coins(detector=detector, image=image):
            detector.detect(image, ("tile", "coin"))

        grey_floor = min(_cpu_ms(floor, max(20, runs * 4)) for _ in range(2))
        board_ms = _cpu_ms(tiles_coins, max(1, runs // 2))
        ms.append(board_ms)
        ratios.append(board_ms / grey_floor)
    return {
        "frame": f"1640x1232, boards 500-{499 + boards}",
        "tiles_coins_ms_median": round(statistics.median(ms), 1),
        "tiles_coins_ms_range": [round(min(ms), 1), round(max(ms), 1)],
        "tiles_coins_x_floor_median": round(statistics.median(ratios), 1),
        "tiles_coins_x_floor_range": [round(min(ratios), 1), round(max(ratios), 1)],
    }


def _markdown(out: dict) -> str:
    lines = []
    if "speed" in out:
        lines += ["| frame | floor | tiles+coins | x floor | all kinds | x floor | peak alloc (x floor) |",
                  "|---|---|---|---|---|---|---|"]
        for r in out["speed"]:
            if "tiles_coins_ms_median" in r:
                lo, hi = r["tiles_coins_x_floor_range"]
                lines.append(f"| {r['frame']} (median) | | {r['tiles_coins_ms_median']} ms | "
                             f"{r['tiles_coins_x_floor_median']} ({lo}-{hi}) | | | |")
                continue
            lines.append(f"| {r['frame']} | {r['floor_ms']} ms | {r['tiles_coins_ms']} ms | "
                         f"{r['tiles_coins_x_floor']} | {r['all_kinds_ms']} ms | {r['all_kinds_x_floor']} | "
                         f"{r['peak_alloc_mb']} MB ({r['peak_x_floor']}x) |")
        lines.append("")
    for key in ("editions", "conditions"):
        if key not in out:
            continue
        lines += ["| scenes | boards | pieces | right | wrong | uncertain | partial | missed | extra | boards exact "
                  "| truth in could_be |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in out[key]:
            lines.append(f"| {r['name']} | {r['boards']} | {r['pieces']} | {100 * r['accuracy']:.1f} % | {r['wrong']} "
                         f"| {r['uncertain']} | {r['partial']} | {r['missed']} | {r['extra']} | "
                         f"{r['boards_exact']}/{r['boards']} | {r['could_be_true']}/{r['could_be']} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=20, help="Easy Slider boards per edition (other families: half)")
    parser.add_argument("--frames", type=int, default=6, help="frames per condition")
    parser.add_argument("--speed-runs", type=int, default=7, help="timed runs per frame size")
    parser.add_argument("--speed-boards", type=int, default=6,
                        help="Easy Slider boards 500.. timed besides frame 900 (0: none)")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-conditions", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--seed-offset", type=int, default=0,
                        help="shift every scene family's seeds by this much (held-out boards; default 0)")
    parser.add_argument("--editions", default=",".join(EDITIONS), help="comma-separated editions to measure")
    parser.add_argument("--verbose", action="store_true", help="print what went wrong on every board not exact")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    out: dict = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"}
    if not args.skip_speed:
        out["speed"] = speed(args.speed_runs, args.speed_boards)
    if not args.skip_accuracy:
        editions = tuple(e.strip() for e in args.editions.split(",") if e.strip())
        unknown = [e for e in editions if e not in EDITIONS]
        if unknown:
            parser.error(f"unknown edition {unknown[0]!r}: choose from {', '.join(EDITIONS)}")
        out["editions"] = accuracy(args.boards, args.verbose, args.seed_offset, editions)
    if not args.skip_conditions:
        out["conditions"] = conditions(args.frames, args.verbose)
    print(_markdown(out))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
