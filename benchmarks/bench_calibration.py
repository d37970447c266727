"""Calibration accuracy: table-position error of `calibrate_from_sheet` on rendered 1640x1232 frames.

    .venv/bin/python benchmarks/bench_calibration.py [--quick] [--json results.json]

Frames come from the test renderer (tests/tablescene: wood table, lighting, noise, JPEG) with known cameras; the
truth is exact, so the error is the calibration's alone. Tables printed (markdown):

1. Tilt x distance, A4 sheet in the middle of the frame, the renderer's default mild barrel (k1 -0.04, k2 0.01):
   RMS / max error over the sheet (the calibrated area), RMS over a 500 x 500 mm play area around it
   (extrapolation), and the footprint error of points 25.4 mm above the sheet after parallax correction.
2. Barrel distortion: no correction, k1 estimated from the sheet alone (the default), and a ChArUco lens
   calibration (10 photos of the same camera, rendered with the planar test camera); sheet in the middle and in a
   corner of the frame.
3. Time per calibration (marker detection + fit) on one 1640x1232 frame.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "calibration")]

from planar_camera import PinholeCamera, look_at, photograph  # noqa: E402
from tablescene import CameraSpec, Scene, render  # noqa: E402

from calibration.errors import CalibrationError  # noqa: E402
from calibration.lens import calibrate_lens, draw_charuco_sheet  # noqa: E402
from calibration.table_calibration import calibrate_from_sheet  # noqa: E402

SHEET = (210.0, 297.0)
SHEET_CENTRE = (105.0, 148.5)


def grid(x0: float, y0: float, x1: float, y1: float, step: float = 5.0) -> np.ndarray:
    xs = np.arange(x0, x1 + 1e-9, step)
    ys = np.arange(y0, y1 + 1e-9, step)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


SHEET_AREA = grid(0.0, 0.0, *SHEET)
PLAY_AREA = grid(SHEET_CENTRE[0] - 250, SHEET_CENTRE[1] - 250, SHEET_CENTRE[0] + 250, SHEET_CENTRE[1] + 250, 10.0)


def rms(errors: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.sum(errors**2, axis=-1))))


def in_frame(camera, points: np.ndarray) -> np.ndarray:
    px = camera.project(points, 0.0)
    return (px[:, 0] >= 0) & (px[:, 0] < camera.width) & (px[:, 1] >= 0) & (px[:, 1] < camera.height)


def measure(result, lens=None, sheet_distortion: bool = True) -> dict:
    camera = result.camera
    try:
        calibration = calibrate_from_sheet(result.image, lens=lens, sheet_distortion=sheet_distortion)
    except CalibrationError as err:
        return {"error": str(err)}
    sheet_px = camera.project(SHEET_AREA, 0.0)
    sheet_err = calibration.pixel_to_table(sheet_px) - SHEET_AREA
    play = PLAY_AREA[in_frame(camera, PLAY_AREA)]
    play_err = calibration.pixel_to_table(camera.project(play, 0.0)) - play
    raised_err = calibration.pixel_to_table(camera.project(SHEET_AREA, 25.4), 25.4) - SHEET_AREA
    raw_err = calibration.pixel_to_table(camera.project(SHEET_AREA, 25.4)) - SHEET_AREA
    return {
        "markers": len(calibration.report.marker_ids),
        "fit_rms_mm": calibration.report.rms_mm,
        "sheet_rms_mm": rms(sheet_err),
        "sheet_max_mm": float(np.linalg.norm(sheet_err, axis=1).max()),
        "play_rms_mm": rms(play_err),
        "play_covered": float(len(play) / len(PLAY_AREA)),
        "raised_rms_mm": rms(raised_err),
        "raised_uncorrected_rms_mm": rms(raw_err),
        "focal_source": calibration.camera.focal_source,
        "sheet_k1": float(calibration.lens.dist_coeffs[0]) if lens is None and calibration.lens is not None else None,
        "focal_error_pct": 100 * (calibration.camera.camera_matrix[0, 0] / camera.K[0, 0] - 1),
    }


def frame(spec: CameraSpec, seed: int):
    return render(Scene(pieces=[], table="wood", sheet="a4"), spec, seed=seed, quality="normal")


def tilt_distance_table(tilts, distances) -> list[dict]:
    rows = []
    for tilt in tilts:
        for distance in distances:
            spec = CameraSpec(distance_mm=distance, tilt_deg=tilt, yaw_deg=15.0, target_mm=SHEET_CENTRE)
            row = {"tilt_deg": tilt, "distance_mm": distance, **measure(frame(spec, seed=int(tilt + distance)))}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    return rows


def lens_from_board_photos(spec: CameraSpec, count: int = 10):
    """Calibrate the lens of ``spec``'s camera from ChArUco photos rendered with the planar test camera."""
    camera = spec.camera()
    page, px_per_mm = draw_charuco_sheet("a4", 5.0)
    rng = np.random.default_rng(7)
    photos = []
    for i in range(count):
        target = (rng.uniform(20, 190), rng.uniform(30, 270))
        pose = look_at(
            target,
            rng.uniform(330, 420),
            rng.uniform(0, 35),
            spec.resolution,
            60.0,
            rng.uniform(-180, 180),
            rng.uniform(-10, 10),
        )
        board_camera = PinholeCamera(camera.K, pose.rotation, pose.translation, spec.resolution, camera.dist)
        photos.append(photograph(board_camera, page, px_per_mm, seed=i))
    return calibrate_lens(photos).lens


def distortion_table(coefficients) -> list[dict]:
    rows = []
    for k1, k2 in coefficients:
        base = {"k1": k1, "k2": k2}
        lens = lens_from_board_photos(CameraSpec(distance_mm=800, k1=k1, k2=k2)) if k1 or k2 else None
        # Middle: the sheet under the frame's centre. Corner: the camera aims 260 mm away, the sheet is off-centre.
        for place, target in (("middle", SHEET_CENTRE), ("corner", (SHEET_CENTRE[0] + 260, SHEET_CENTRE[1] + 160))):
            spec = CameraSpec(distance_mm=800, tilt_deg=20, yaw_deg=15.0, target_mm=target, k1=k1, k2=k2)
            result = frame(spec, seed=11)
            for label, model, from_sheet in (("none", None, False), ("sheet k1", None, True), ("ChArUco", lens, False)):
                if label == "ChArUco" and model is None:
                    continue
                row = {**base, "sheet_in_frame": place, "lens_calibration": label, **measure(result, model, from_sheet)}
                if model is not None:
                    row["lens_rms_px"] = model.rms_px
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    return rows


def timing(repeats: int = 5) -> dict:
    result = frame(CameraSpec(distance_mm=800, tilt_deg=20, target_mm=SHEET_CENTRE), seed=3)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        calibrate_from_sheet(result.image)
        times.append(time.perf_counter() - start)
    return {"frame": "1640x1232", "median_s": float(np.median(times)), "min_s": float(np.min(times))}


def fmt(row: dict, key: str, digits: int = 2) -> str:
    return "-" if key not in row else f"{row[key]:.{digits}f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer poses (a smoke run)")
    parser.add_argument("--json", help="also write all figures to this JSON file")
    args = parser.parse_args()
    tilts = [0, 30] if args.quick else [0, 10, 20, 30]
    distances = [400, 1200] if args.quick else [400, 600, 800, 1000, 1200]
    barrels = [(0.0, 0.0), (-0.25, 0.08)] if args.quick else [(0.0, 0.0), (-0.1, 0.02), (-0.25, 0.08)]

    grid_rows = tilt_distance_table(tilts, distances)
    distortion_rows = distortion_table(barrels)
    speed = timing()

    print("## Calibration accuracy (1640x1232 rendered frames, A4 sheet, renderer's mild barrel k1 -0.04)\n")
    print(
        "| tilt | distance | markers | sheet RMS mm | sheet max mm | 500 mm area RMS mm (covered) | "
        "25.4 mm high: corrected / raw RMS mm | focal | k1 from sheet |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in grid_rows:
        if "error" in r:
            print(f"| {r['tilt_deg']} | {r['distance_mm']} | {r['error']} ||||||")
            continue
        print(
            f"| {r['tilt_deg']}° | {r['distance_mm']:.0f} mm | {r['markers']} | {fmt(r, 'sheet_rms_mm')} | "
            f"{fmt(r, 'sheet_max_mm')} | {fmt(r, 'play_rms_mm')} ({100 * r['play_covered']:.0f} %) | "
            f"{fmt(r, 'raised_rms_mm')} / {fmt(r, 'raised_uncorrected_rms_mm', 1)} | "
            f"{r['focal_source']} {r['focal_error_pct']:+.1f} % | "
            f"{'-' if r['sheet_k1'] is None else format(r['sheet_k1'], '+.3f')} |"
        )
    print("\n## Barrel distortion: none corrected, k1 from the sheet, ChArUco lens calibration (800 mm, tilt 20°)\n")
    print(
        "| k1, k2 | sheet in frame | correction | sheet RMS mm | sheet max mm | 500 mm area RMS mm | "
        "25.4 mm high RMS mm |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in distortion_rows:
        print(
            f"| {r['k1']:g}, {r['k2']:g} | {r['sheet_in_frame']} | {r['lens_calibration']} | "
            f"{fmt(r, 'sheet_rms_mm')} | {fmt(r, 'sheet_max_mm')} | {fmt(r, 'play_rms_mm')} | "
            f"{fmt(r, 'raised_rms_mm')} |"
        )
    print(
        f"\nCalibration time per 1640x1232 frame: median {speed['median_s'] * 1000:.0f} ms "
        f"(min {speed['min_s'] * 1000:.0f} ms)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"grid": grid_rows, "distortion": distortion_rows, "timing": speed}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
