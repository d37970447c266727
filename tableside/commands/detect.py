"""``tableside detect``: the pieces in one photo of the table, with positions in millimetres."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from calibration.errors import CalibrationError
from calibration.table_calibration import Calibration
from tableside.errors import UserError
from tableside.output import print_json

NAME = "detect"
ORDER = 30
HELP = "find and read the pieces in a photo of the table"
DESCRIPTION = """\
Find the tiles, coins, pawns, dice and pyramids in a photo of the table and read them.

  tableside detect photo.jpg                           calibrate from the sheet's markers in the photo
  tableside detect photo.jpg --calibration table.json  a calibration made by `tableside calibrate`
  tableside detect scan.png --px-per-mm 4              a top-down scan
  tableside detect photo.jpg --profile set.json        a piece set taught with `tableside teach`
  tableside detect photo.jpg --json --annotate seen.png

--json prints {"pieces": [...], "uncertain": [...]}, each piece
  {"kind", "suit", "rank", "side", "x_mm", "y_mm", "angle_deg", "confidence"}
(pyramids: "color", "size", "pose" instead of suit, rank, side). Positions are the centres of the pieces'
footprints on the table in millimetres (x right, y down, the calibration sheet's frame); angle_deg is clockwise
as seen from above, 0 = the piece's top away from the player. suit or rank is null where the side showing does
not print it (a tile's back, a coin's suit side). Uncertain pieces (partly hidden, face unclear) carry a
"reason" and must not be trusted; --annotate draws them with an orange dashed outline.

A photo that cannot be read, no calibration, a calibration for another camera mode, a profile of another
piece set or a photo with no pieces: one line on stderr, exit status 2, nothing written.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", metavar="IMAGE", help="a photo of the table (JPEG, PNG ...)")
    p.add_argument("--calibration", metavar="TABLE_JSON", help="the table calibration (default: the sheet in IMAGE)")
    p.add_argument("--px-per-mm", type=float, metavar="N", help="IMAGE is a top-down scan at N pixels per mm")
    p.add_argument("--profile", metavar="SET_JSON", help="the piece set (tableside teach); default: built-in")
    p.add_argument("--kinds", metavar="K,K", help="only these kinds: tile, coin, pawn, die, pyramid")
    p.add_argument("--json", action="store_true", help="print the pieces as JSON")
    p.add_argument("--annotate", metavar="PNG", help="write IMAGE with the pieces drawn on it")


def read_frame(path: str) -> np.ndarray:
    """The image at ``path`` (BGR), or a one-line UserError."""
    from vision.sources import read_image

    file = Path(path)
    if not file.exists():
        raise UserError(f"no such image: {file}")
    if file.is_dir():
        raise UserError(f"{file} is a folder: give an image file")
    image = read_image(file)
    if image is None:
        raise UserError(f"{file.name} is not a readable image: give a JPEG or PNG photo of the table")
    if min(image.shape[:2]) < 32:
        raise UserError(f"{file.name} is only {image.shape[1]}x{image.shape[0]} pixels: give a camera photo")
    return image


def frame_calibration(args: argparse.Namespace, image: np.ndarray, say) -> Calibration:
    """``--calibration``, ``--px-per-mm``, or the sheet's markers in the frame (``say`` tells which)."""
    from calibration.calibration_file import load_calibration
    from calibration.table_calibration import calibrate_from_scale, calibrate_from_sheet

    size = (image.shape[1], image.shape[0])
    if args.calibration and args.px_per_mm:
        raise UserError("give --calibration or --px-per-mm, not both")
    if args.calibration:
        return load_calibration(args.calibration, size)
    if args.px_per_mm is not None:
        if not args.px_per_mm > 0:
            raise UserError("--px-per-mm must be positive")
        return calibrate_from_scale(args.px_per_mm, size)
    try:
        calibration = calibrate_from_sheet(image)
    except CalibrationError:
        raise UserError(
            "no calibration: the photo shows no calibration sheet; run `tableside calibrate` and give "
            "--calibration table.json (or --px-per-mm for a scan)"
        ) from None
    markers = len(calibration.report.marker_ids) if calibration.report else 0
    say(f"calibrated from the {calibration.report.paper if calibration.report else ''} sheet's markers in the "
        f"photo ({markers} markers)")
    return calibration


def _kinds(text: str | None) -> tuple[str, ...] | None:
    from vision.detect import ALL_KINDS

    if not text:
        return None
    kinds = tuple(k.strip().lower() for k in text.split(",") if k.strip())
    bad = [k for k in kinds if k not in ALL_KINDS]
    if bad or not kinds:
        raise UserError(f"unknown kind {bad[0] if bad else text!r}: use {', '.join(ALL_KINDS)}")
    return kinds


def run(args: argparse.Namespace) -> int:
    from calibration.profile import default_profile, load_profile
    from tableside.frame_input import check_output_path, write_image_atomic
    from vision.annotate import annotate
    from vision.detect import Detector, ProfileMismatch

    check_output_path(args.annotate)
    kinds = _kinds(args.kinds)
    image = read_frame(args.image)
    notes: list[str] = []
    calibration = frame_calibration(args, image, notes.append)
    profile = load_profile(args.profile) if args.profile else default_profile()
    detector = Detector(calibration, profile)
    try:
        detection = detector.detect(image, kinds)
    except ProfileMismatch as err:
        raise UserError(str(err)) from None
    if not detection.pieces and not detection.uncertain:
        raise UserError(f"no pieces found in {Path(args.image).name}: is the table in view and lit?")
    if args.annotate:
        write_image_atomic(annotate(image, detection, calibration), args.annotate)
    for note in notes:
        print(note, file=sys.stderr)
    if args.json:
        print_json(detection.to_json())
        return 0
    counts: dict[str, int] = {}
    for piece in detection.pieces:
        counts[piece.kind.value] = counts.get(piece.kind.value, 0) + 1
    summary = ", ".join(f"{n} {k}{'s' if n != 1 else ''}".replace("dies", "dice") for k, n in counts.items())
    print(f"{summary or 'no piece read surely'}; {len(detection.uncertain)} uncertain")
    for piece in detection.pieces:
        print(f"  {piece.label:<14} at ({piece.x_mm:7.1f}, {piece.y_mm:7.1f}) mm  {piece.angle_deg % 360:5.1f} deg"
              f"  confidence {piece.confidence:.2f}")
    for piece in detection.uncertain:
        print(f"  ? {piece.kind.value:<12} at ({piece.x_mm:7.1f}, {piece.y_mm:7.1f}) mm  {piece.reason}")
    return 0
