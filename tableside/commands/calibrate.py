"""``tableside calibrate``: print the calibration sheet, calibrate the lens, calibrate the camera to the table."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.calibration_file import load_calibration, load_lens, save_calibration, save_lens, write_atomic
from calibration.errors import CalibrationError
from calibration.homography import detect_sheet_markers
from calibration.lens import calibrate_lens, write_charuco_sheet
from calibration.parallax import DEFAULT_HFOV_DEG
from calibration.rectify import draw_grid, rectify, visible_bounds_mm
from calibration.sheet import PAPER_SIZES_MM, sheet_layout, write_sheet
from calibration.table_calibration import (
    Calibration,
    calibrate_from_rectangle,
    calibrate_from_scale,
    calibrate_from_sheet,
)
from tableside.errors import UserError
from tableside.output import print_json

NAME = "calibrate"
ORDER = 20
HELP = "calibrate the camera to the table (and print the calibration sheet)"
DESCRIPTION = """\
Camera pixels -> table millimetres.

  tableside calibrate --sheet a4 --out sheet.pdf        print this sheet at 100% and lay it on the table
  tableside calibrate photo.jpg --out table.json       find the sheet's markers, write the calibration
  tableside calibrate photo.jpg --corners "x1,y1;x2,y2;x3,y3;x4,y4" --size-mm 210,297 --out table.json
                                                       four clicked corners of a known rectangle (clockwise
                                                       from top left)
  tableside calibrate scan.png --px-per-mm 4 --out table.json   a top-down scan (origin top left)
  tableside calibrate --charuco-board a4 --out board.pdf          the lens-calibration board
  tableside calibrate --lens board1.jpg board2.jpg ... --out lens.json   lens intrinsics and distortion
  tableside calibrate photo.jpg --lens lens.json --out table.json       use them
  tableside calibrate photo.jpg --check table.json      does table.json still fit (camera or sheet moved?)

A check image (the table seen from above with a 50 mm grid) is written next to --out unless --no-rectified.
"""

_IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", nargs="?", metavar="IMAGE", help="a camera frame showing the calibration sheet")
    p.add_argument("--out", "-o", help="file to write (.json calibration, or .pdf/.png sheet)")
    p.add_argument("--check", metavar="TABLE_JSON", help="check that a calibration still fits IMAGE (writes nothing)")
    p.add_argument("--sheet", metavar="PAPER", choices=sorted(PAPER_SIZES_MM), help="write the printable sheet")
    p.add_argument("--charuco-board", metavar="PAPER", choices=["a4", "letter"], help="write the lens board")
    p.add_argument(
        "--lens",
        nargs="+",
        metavar="FILE",
        help="photos of the ChArUco board (calibrate the lens), or lens.json (use it)",
    )
    p.add_argument("--paper", choices=sorted(PAPER_SIZES_MM), help="the sheet on the table (default: from ids)")
    p.add_argument("--corners", metavar="X,Y;X,Y;X,Y;X,Y", help="four pixel corners of a known rectangle")
    p.add_argument("--size-mm", metavar="W,H", help="the rectangle's size for --corners, mm")
    p.add_argument("--origin-mm", metavar="X,Y", default="0,0", help="table position of its top-left corner")
    p.add_argument("--px-per-mm", type=float, metavar="N", help="a top-down scan at N pixels per mm")
    p.add_argument("--image-size", metavar="WxH", help="frame size for --px-per-mm without IMAGE")
    p.add_argument("--rectified", metavar="PNG", help="where to write the top-down check image")
    p.add_argument("--no-rectified", action="store_true", help="do not write the check image")
    p.add_argument(
        "--hfov-deg",
        type=float,
        default=DEFAULT_HFOV_DEG,
        help="horizontal field of view assumed when the view is too straight down to measure it "
        f"(default {DEFAULT_HFOV_DEG:g})",
    )
    p.add_argument(
        "--no-sheet-distortion",
        action="store_true",
        help="do not estimate the lens's barrel distortion (k1) from the sheet when there is no --lens",
    )
    p.add_argument("--max-rms-mm", type=float, default=2.0, help="refuse a fit worse than this (default 2)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    if args.check:
        return _check(args)
    if not args.out:
        raise UserError("give --out FILE (or --check table.json to check a calibration)")
    out = Path(args.out)
    if not out.parent.exists():
        raise UserError(f"folder {out.parent} does not exist")
    if args.sheet:
        return _write_sheet(args, out)
    if args.charuco_board:
        return _write_board(args, out)
    lens_file, lens_photos = _split_lens_args(args)
    if lens_photos:
        return _calibrate_lens(args, out, lens_photos)
    if out.suffix.lower() != ".json":
        raise UserError(f"--out {out.name}: a calibration is written as .json")
    return _calibrate_table(args, out, lens_file)


# -- printable sheets ---------------------------------------------------------------------------------------------
def _write_sheet(args: argparse.Namespace, out: Path) -> int:
    if out.suffix.lower() not in (".pdf", ".png"):
        raise UserError(f"--out {out.name}: the sheet is written as .pdf or .png")
    layout = sheet_layout(args.sheet)
    write_sheet(layout, out)
    report = {
        "sheet": layout.name,
        "out": str(out),
        "width_mm": layout.width_mm,
        "height_mm": layout.height_mm,
        "markers": len(layout.markers),
        "marker_mm": layout.marker_mm,
    }
    if args.json:
        print_json(report)
    else:
        print(
            f"{out}: {layout.name} calibration sheet ({layout.width_mm:g} x {layout.height_mm:g} mm, "
            f"{len(layout.markers)} markers of {layout.marker_mm:g} mm). Print it at 100% scale and check the "
            "100 mm bar with a ruler."
        )
    return 0


def _write_board(args: argparse.Namespace, out: Path) -> int:
    if out.suffix.lower() not in (".pdf", ".png"):
        raise UserError(f"--out {out.name}: the board is written as .pdf or .png")
    write_charuco_sheet(out, args.charuco_board)
    if args.json:
        print_json({"board": "charuco", "paper": args.charuco_board, "out": str(out)})
    else:
        print(
            f"{out}: ChArUco lens board on {args.charuco_board}. Print it at 100%, lay it flat and photograph it "
            "from 10-20 angles filling the frame's corners, then: tableside calibrate --lens PHOTOS... --out lens.json"
        )
    return 0


# -- lens -----------------------------------------------------------------------------------------------------
def _split_lens_args(args: argparse.Namespace) -> tuple[Path | None, list[Path]]:
    """``--lens`` is either lens.json (to use) or photos (to calibrate); argparse may also have swallowed IMAGE."""
    if not args.lens:
        return None, []
    files = [Path(f) for f in args.lens]
    jsons = [f for f in files if f.suffix.lower() == ".json"]
    if not jsons:
        if args.image:
            raise UserError("give either lens photos (to calibrate the lens) or IMAGE with --lens lens.json")
        return None, files
    if len(jsons) > 1:
        raise UserError("--lens takes one lens.json")
    others = [f for f in files if f not in jsons]
    if len(others) > 1 or (others and args.image):
        raise UserError("--lens lens.json takes one IMAGE")
    if others:
        args.image = str(others[0])
    return jsons[0], []


def _calibrate_lens(args: argparse.Namespace, out: Path, photos: list[Path]) -> int:
    if out.suffix.lower() != ".json":
        raise UserError(f"--out {out.name}: a lens calibration is written as .json")
    images = [_read_image(p) for p in photos]
    result = calibrate_lens(images)
    lens = result.lens
    save_lens(lens, out)
    report = {
        "lens": str(out),
        "image_size": list(lens.image_size),
        "photos": len(photos),
        "photos_used": lens.photos,
        "corners_per_photo": {str(p): n for p, n in zip(photos, result.corners_per_photo, strict=True)},
        "rms_px": round(lens.rms_px, 4),
        "focal_px": round(lens.focal_px, 2),
        "hfov_deg": round(math.degrees(2 * math.atan(lens.image_size[0] / 2 / lens.camera_matrix[0, 0])), 2),
        "dist_coeffs": [round(float(v), 6) for v in lens.dist_coeffs],
    }
    if args.json:
        print_json(report)
    else:
        print(
            f"{out}: lens of {lens.image_size[0]}x{lens.image_size[1]} frames from {lens.photos} of {len(photos)} "
            f"photos; reprojection RMS {lens.rms_px:.3f} px, focal {lens.focal_px:.1f} px "
            f"({report['hfov_deg']:.1f} deg across), k1 {lens.dist_coeffs[0]:+.4f}"
        )
        unused = [str(p) for p, n in zip(photos, result.corners_per_photo, strict=True) if n == 0]
        if unused:
            print(f"not used (board not found or too little of it): {', '.join(unused)}")
    return 0


# -- table -----------------------------------------------------------------------------------------------------
def _read_image(path: Path) -> np.ndarray:
    if not path.exists():
        raise UserError(f"image not found: {path}")
    if path.is_dir():
        raise UserError(f"{path} is a folder, not an image")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UserError(f"cannot read {path} as an image")
    return image


def _floats(text: str, count: int, option: str, example: str) -> list[float]:
    try:
        values = [float(v) for v in text.replace("x", ",").split(",")]
    except ValueError:
        values = []
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise UserError(f"{option} {text!r}: write {count} numbers like {example}")
    return values


def _parse_corners(text: str) -> np.ndarray:
    parts = [p for p in text.split(";") if p.strip()]
    if len(parts) != 4:
        raise UserError(f'--corners {text!r}: give four corners "x1,y1;x2,y2;x3,y3;x4,y4" clockwise from top left')
    return np.array([_floats(p, 2, "--corners", '"100,80;900,90;920,700;80,690"') for p in parts])


def _parse_size(text: str) -> tuple[int, int]:
    values = _floats(text.lower(), 2, "--image-size", "1640x1232")
    if not all(v > 0 and v == int(v) for v in values):
        raise UserError(f"--image-size {text!r}: write whole pixels like 1640x1232")
    return int(values[0]), int(values[1])


def _calibrate_table(args: argparse.Namespace, out: Path, lens_file: Path | None) -> int:
    image = _read_image(Path(args.image)) if args.image else None
    if args.px_per_mm is not None:
        if args.corners or lens_file:
            raise UserError("--px-per-mm is for a top-down scan: it takes no --corners or --lens")
        if image is not None:
            size = (image.shape[1], image.shape[0])
        elif args.image_size:
            size = _parse_size(args.image_size)
        else:
            raise UserError("--px-per-mm needs IMAGE or --image-size WxH")
        calibration = calibrate_from_scale(args.px_per_mm, size)
        area = (0.0, 0.0, size[0] / args.px_per_mm, size[1] / args.px_per_mm)
    else:
        if image is None:
            raise UserError("give IMAGE (a frame showing the calibration sheet), or --sheet PAPER to print one")
        size = (image.shape[1], image.shape[0])
        lens = load_lens(lens_file, size) if lens_file else None
        if args.corners:
            corners = _parse_corners(args.corners)
            if not args.size_mm:
                raise UserError("--corners needs --size-mm W,H (the rectangle's size in mm)")
            width, height = _floats(args.size_mm, 2, "--size-mm", "210,297")
            origin = tuple(_floats(args.origin_mm, 2, "--origin-mm", "0,0"))
            calibration = calibrate_from_rectangle(corners, (width, height), size, lens, origin, args.hfov_deg)
            area = (origin[0], origin[1], origin[0] + width, origin[1] + height)
        else:
            layout = sheet_layout(args.paper) if args.paper else None
            calibration = calibrate_from_sheet(image, layout, lens, args.hfov_deg, not args.no_sheet_distortion)
            paper = sheet_layout(calibration.report.paper)
            area = (0.0, 0.0, paper.width_mm, paper.height_mm)
            if calibration.report.rms_mm > args.max_rms_mm:
                raise CalibrationError(
                    f"the markers fit a plane only to {calibration.report.rms_mm:.2f} mm RMS "
                    f"(limit {args.max_rms_mm:g}): flatten the sheet, or calibrate the lens (--lens)"
                )
    rectified_path = None
    rectified_png = None
    rectified_scale = None
    if image is not None and not args.no_rectified:
        rectified_path = Path(args.rectified) if args.rectified else out.with_name(f"{out.stem}-rectified.png")
        if rectified_path.suffix.lower() != ".png":
            raise UserError(f"--rectified {rectified_path.name}: the check image is written as .png")
        rectified = rectify(image, calibration, visible_bounds_mm(calibration, area))
        rectified_scale = rectified.px_per_mm
        ok, buffer = cv2.imencode(".png", draw_grid(rectified, 50.0, outline_mm=area))
        if not ok:
            raise UserError("could not encode the rectified image")
        rectified_png = buffer.tobytes()
    # Everything is computed: now write, the calibration last, so a failure leaves no calibration behind.
    if rectified_png is not None:
        write_atomic(rectified_path, rectified_png)
    try:
        save_calibration(calibration, out)
    except OSError:
        if rectified_path is not None:
            rectified_path.unlink(missing_ok=True)
        raise
    report = _report(calibration, out, lens_file, rectified_path, rectified_scale)
    if args.json:
        print_json(report)
    else:
        _print_report(report)
    return 0


def _check(args: argparse.Namespace) -> int:
    if args.out:
        raise UserError("--check writes nothing: leave out --out")
    if not args.image:
        raise UserError("--check needs IMAGE, a current frame showing the calibration sheet")
    image = _read_image(Path(args.image))
    path = Path(args.check)
    calibration = load_calibration(path, (image.shape[1], image.shape[0]))
    report: dict[str, Any] = {"calibration": str(path), "image": args.image, "fits": True}
    if calibration.kind == "scale":
        report["markers"] = 0
        if args.json:
            print_json(report)
        else:
            print(f"{path.name} fits {image.shape[1]}x{image.shape[0]} frames (a scan: no markers to measure)")
        return 0
    paper = calibration.report.paper if calibration.report and calibration.report.paper else None
    detection = detect_sheet_markers(image, sheet_layout(paper) if paper else None)
    pixels, truth = detection.points()
    errors = np.linalg.norm(calibration.pixel_to_table(pixels) - truth, axis=1)
    rms_mm, max_mm = float(np.sqrt(np.mean(errors**2))), float(errors.max())
    if rms_mm > args.max_rms_mm:
        raise CalibrationError(
            f"{path.name} no longer fits this frame: the sheet's markers are {rms_mm:.1f} mm off (RMS; limit "
            f"{args.max_rms_mm:g}): the camera or the sheet moved; run `tableside calibrate` again"
        )
    report.update(markers=len(detection.ids), rms_mm=round(rms_mm, 3), max_mm=round(max_mm, 3))
    if args.json:
        print_json(report)
    else:
        print(
            f"{path.name} fits this frame: {len(detection.ids)} markers within {rms_mm:.2f} mm RMS, {max_mm:.2f} mm max"
        )
    return 0


def _report(
    calibration: Calibration,
    out: Path,
    lens_file: Path | None,
    rectified_path: Path | None,
    rectified_scale: float | None,
) -> dict[str, Any]:
    fit = calibration.report
    report: dict[str, Any] = {
        "calibration": str(out),
        "kind": calibration.kind,
        "method": fit.method if fit else None,
        "image_size": list(calibration.image_size),
    }
    if fit and fit.method == "sheet":
        layout = sheet_layout(fit.paper)
        report.update(paper=fit.paper, markers_found=len(fit.marker_ids), markers_total=len(layout.markers))
    if fit and fit.method != "scale":
        report.update(points=fit.points, inliers=fit.inliers, rms_mm=round(fit.rms_mm, 3), max_mm=round(fit.max_mm, 3))
    camera = calibration.camera
    if camera is not None:
        report.update(
            camera_position_mm=[round(float(v), 1) for v in camera.position_mm],
            tilt_deg=round(camera.tilt_deg, 1),
            focal_px=round(float(camera.camera_matrix[0, 0]), 1),
            focal_source=camera.focal_source,
        )
    else:
        report.update(px_per_mm=round(1.0 / calibration.homography[0, 0], 6))
    lens = calibration.lens
    report.update(
        lens=str(lens_file) if lens_file else None,
        sheet_k1=round(float(lens.dist_coeffs[0]), 4) if lens is not None and lens.source == "sheet" else None,
        rectified=str(rectified_path) if rectified_path else None,
        rectified_px_per_mm=rectified_scale,
    )
    return report


def _print_report(report: dict[str, Any]) -> None:
    w, h = report["image_size"]
    method = report["method"]
    if method == "sheet":
        source = f"the {report['paper']} sheet ({report['markers_found']} of {report['markers_total']} markers)"
    elif method == "corners":
        source = "four clicked corners"
    else:
        source = f"a top-down scan at {report['px_per_mm']:g} px/mm"
    print(f"{report['calibration']}: {w}x{h} frames calibrated from {source}")
    if method == "sheet":
        print(
            f"reprojection error: RMS {report['rms_mm']:.2f} mm, max {report['max_mm']:.2f} mm over "
            f"{report['inliers']} marker corners"
            + (
                f" ({report['points'] - report['inliers']} outliers dropped)"
                if report["points"] > report["inliers"]
                else ""
            )
        )
    if "camera_position_mm" in report:
        x, y, z = report["camera_position_mm"]
        source_text = {
            "lens": "lens calibration",
            "homography": "measured from the sheet",
            "default-fov": "assumed field of view",
        }[report["focal_source"]]
        print(
            f"camera: {z:.0f} mm above the table over ({x:.0f}, {y:.0f}) mm, tilted {report['tilt_deg']:.1f} deg, "
            f"focal {report['focal_px']:.0f} px ({source_text})"
        )
    if report.get("sheet_k1") is not None:
        print(
            f"lens: barrel distortion k1 {report['sheet_k1']:+.3f} estimated from the sheet (--lens for a full model)"
        )
    if report["rectified"]:
        print(f"check image: {report['rectified']} (top-down, {report['rectified_px_per_mm']:g} px/mm, 50 mm grid)")
