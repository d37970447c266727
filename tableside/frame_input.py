"""The frame a verb judges, and the pieces in it: shared by ``state``, ``check`` and ``score``.

Where the frame comes from (one of):

* ``IMAGE``: an image file;
* ``--source SPEC``: the first frame of a camera, video, folder or image (:func:`vision.sources.open_source`);
* ``--detections FILE``: the pieces themselves, as ``tableside detect --json`` prints them (no detection is run;
  give IMAGE too to draw ``--annotate`` on it).

How pixels become table millimetres: ``--calibration table.json`` (``tableside calibrate``), ``--px-per-mm N``
for a top-down scan, or, with neither, the calibration sheet's markers found in the frame itself. Which piece
set: ``--profile set.json`` (``tableside teach``), else the built-in default edition.

Every problem is one line and exit status 2 (:class:`~tableside.errors.UserError`,
:class:`~calibration.errors.CalibrationError`, :class:`~vision.errors.VisionError`), and nothing is written:
outputs go through :func:`write_image_atomic` after the work is done.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.table_calibration import Calibration
from rules.pieces import Kind, PyramidPose, PyramidSize, Suit
from tableside.errors import UserError
from vision.pieces import DetectedPiece, Detection

__all__ = [
    "GAME_KINDS",
    "FrameInput",
    "read_or_explain",
    "add_frame_arguments",
    "add_output_arguments",
    "load_frame",
    "detection_from_json",
    "write_image_atomic",
    "check_output_path",
    "speak",
]


#: The kinds of piece each game is read from (detecting figures costs seconds: only where they matter).
GAME_KINDS: dict[str, tuple[str, ...]] = {
    "easy-slider": ("tile", "coin", "pawn"),
    "slides-of-action": ("tile", "coin"),
    "plans-of-action": ("tile", "coin"),
    "martian-shuffleboard": ("pyramid",),
    "slide-jam": ("tile",),
    "magic-mirror": ("tile",),
    "catwalk": ("tile",),
    "roll-out-the-barrels": ("coin", "die"),
    "whack-a-dummy": ("coin", "die"),
    "trampo-land": ("coin", "pawn", "die"),
}


@dataclass
class FrameInput:
    """One frame and what was seen in it. ``image``/``calibration`` are None when only ``--detections`` was
    given; ``kinds`` the kinds of piece looked for (None: all)."""

    name: str
    image: np.ndarray | None
    calibration: Calibration | None
    detection: Detection
    profile: Any = None
    kinds: tuple[str, ...] | None = None

    def everything(self) -> Detection:
        """The frame's pieces of every kind (to say what a frame shows when it is not the game expected)."""
        if self.kinds is None or self.image is None or self.calibration is None:
            return self.detection
        from vision.detect import detect_pieces

        try:
            return detect_pieces(self.image, self.calibration, self.profile)
        except CalibrationError:  # no piece-set profile to read tiles and coins with: say what was seen
            return self.detection


def add_frame_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", nargs="?", metavar="IMAGE", help="a photo of the table (or use --source)")
    src = p.add_argument_group("frame")
    src.add_argument("--source", metavar="SPEC",
                     help="take one frame from a camera (picamera, 0, ...), a video, a folder or an image")
    src.add_argument("--calibration", metavar="TABLE_JSON",
                     help="the table calibration (tableside calibrate); default: the sheet's markers in the frame")
    src.add_argument("--px-per-mm", type=float, metavar="N", help="a top-down scan at N pixels per mm")
    src.add_argument("--profile", metavar="SET_JSON", help="the piece set (tableside teach); default: built-in")
    src.add_argument("--detections", metavar="JSON",
                     help="the pieces as `tableside detect --json` printed them (skips detection)")


def add_output_arguments(p: argparse.ArgumentParser, annotate: bool = True) -> None:
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    if annotate:
        p.add_argument("--annotate", metavar="PNG", help="write the frame with the result drawn on it")
    p.add_argument("--speak", action="store_true", help="say the result aloud")
    from tableside.announcer import add_speech_arguments

    add_speech_arguments(p)


def check_output_path(path: str | None) -> None:
    """Refuse an output path early (before any work): its folder must exist and it must be an image type."""
    if not path:
        return
    out = Path(path)
    if not out.parent.exists():
        raise UserError(f"folder {out.parent} does not exist (for {out.name})")
    if out.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"):
        raise UserError(f"{out.name}: write the annotated image as .png or .jpg")


def write_image_atomic(image: np.ndarray, path: str | Path) -> Path:
    """Write an image through a temporary file in the same folder, so a failure leaves nothing half written."""
    out = Path(path)
    ok, data = cv2.imencode(out.suffix.lower() or ".png", image)
    if not ok:
        raise UserError(f"cannot encode {out.name}")
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=out.suffix, dir=str(out.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.tobytes())
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


# ------------------------------------------------------------------------------------------------- reading
def _read_frame(args: argparse.Namespace) -> tuple[np.ndarray | None, str]:
    from vision.errors import VisionError
    from vision.sources import open_source, read_image

    image_path = getattr(args, "image", None)
    source = getattr(args, "source", None)
    if image_path and source:
        raise UserError("give IMAGE or --source, not both")
    if source:
        with open_source(source) as src:
            frame = src.read()
        if frame is None:
            raise VisionError(f"--source {source} gave no frame")
        return frame.image, str(source)
    if image_path:
        path = Path(image_path)
        if not path.exists():
            raise UserError(f"no such image: {path}")
        if path.is_dir():
            raise UserError(f"{path} is a folder: give an image file (or --source {path} for its first image)")
        image = read_image(path)
        if image is None:
            raise UserError(f"{path.name} is not a readable image")
        return image, path.name
    return None, ""


def _calibration(args: argparse.Namespace, image: np.ndarray) -> Calibration:
    from calibration.calibration_file import load_calibration
    from calibration.table_calibration import calibrate_from_scale, calibrate_from_sheet

    size = (image.shape[1], image.shape[0])
    if getattr(args, "calibration", None) and getattr(args, "px_per_mm", None):
        raise UserError("give --calibration or --px-per-mm, not both")
    if getattr(args, "calibration", None):
        return load_calibration(args.calibration, size)
    if getattr(args, "px_per_mm", None):
        if not args.px_per_mm > 0:
            raise UserError("--px-per-mm must be positive")
        return calibrate_from_scale(args.px_per_mm, size)
    try:
        return calibrate_from_sheet(image)
    except CalibrationError as err:
        raise CalibrationError(f"no calibration: give --calibration table.json (made by tableside calibrate) or "
                               f"show the calibration sheet in the frame ({str(err).rstrip('.')})") from None


def load_frame(args: argparse.Namespace, kinds: tuple[str, ...] | None = None) -> FrameInput:
    """The frame, its calibration and the pieces seen in it, from the options of :func:`add_frame_arguments`;
    ``kinds``: look only for these kinds of piece (see :data:`GAME_KINDS`)."""
    image, name = _read_frame(args)
    detections_path = getattr(args, "detections", None)
    if detections_path:
        detection = detection_from_json(detections_path, image)
        calibration = None
        if image is not None and (getattr(args, "calibration", None) or getattr(args, "px_per_mm", None)
                                  or getattr(args, "annotate", None)):
            calibration = _calibration(args, image)
        return FrameInput(name or Path(detections_path).name, image, calibration, detection)
    if image is None:
        raise UserError("give an IMAGE, --source SPEC or --detections JSON")
    calibration = _calibration(args, image)
    profile = None
    if getattr(args, "profile", None):
        from calibration.profile import load_profile

        profile = load_profile(args.profile)
    detection = _detect(image, calibration, profile, kinds)
    return FrameInput(name, image, calibration, detection, profile, kinds)


def _detect(image: np.ndarray, calibration: Calibration, profile: Any, kinds: tuple[str, ...] | None) -> Detection:
    """The pieces of ``kinds`` in the frame. Pyramids alone need no piece-set profile (it describes a
    piecepack), so Martian Shuffleboard goes straight to the figure detector."""
    if kinds is not None and set(kinds) <= {"pyramid"} and profile is None:
        import time

        from vision.figures import detect_figures

        start = time.perf_counter()
        found = detect_figures(image, calibration, None, kinds=tuple(kinds))
        return Detection([p for p in found if not p.uncertain], [p for p in found if p.uncertain],
                         (image.shape[1], image.shape[0]), {"figures": (time.perf_counter() - start) * 1000.0})
    from vision.detect import detect_pieces

    return detect_pieces(image, calibration, profile, kinds=kinds)


def read_or_explain(frame: FrameInput, read: Any) -> Any:
    """``read(detection)``; when it finds no board of the game among the kinds looked for, the frame is looked at
    again for every kind so that the error says what it does show (e.g. pyramids: Martian Shuffleboard)."""
    from tableside.reading import NotReadable

    try:
        return read(frame.detection)
    except NotReadable as err:
        if not getattr(err, "no_board", False) or frame.kinds is None or frame.image is None:
            raise
        everything = frame.everything()
    return read(everything)


# ------------------------------------------------------------------------------------------------- JSON input
def _piece(data: dict[str, Any], uncertain: bool) -> DetectedPiece:
    kind = Kind(data["kind"])
    common = {"x_mm": float(data["x_mm"]), "y_mm": float(data["y_mm"]),
              "angle_deg": float(data.get("angle_deg", 0.0)), "confidence": float(data.get("confidence", 1.0)),
              "uncertain": uncertain or bool(data.get("uncertain", False)), "reason": data.get("reason"),
              "height_mm": float(data.get("height_mm", 0.0))}
    if kind is Kind.PYRAMID:
        return DetectedPiece(kind, color=data.get("color"),
                             size=PyramidSize(data["size"]) if data.get("size") else None,
                             pose=PyramidPose(data["pose"]) if data.get("pose") else None,
                             apex_deg=data.get("apex_deg"), **common)
    return DetectedPiece(kind, suit=_suit(data.get("suit")),
                         rank=int(data["rank"]) if data.get("rank") is not None else None,
                         side=data.get("side"), could_be=tuple(_reading(r) for r in data.get("could_be") or ()),
                         **common)


def _suit(name: str | None) -> Suit | None:
    return Suit.parse(name) if name else None


def _reading(data: dict[str, Any]) -> tuple[Suit | None, int | None, str | None]:
    """One of an uncertain piece's ``could_be`` readings, as ``detect --json`` prints it."""
    rank = data.get("rank")
    return _suit(data.get("suit")), int(rank) if rank is not None else None, data.get("side")


def detection_from_json(path: str | Path, image: np.ndarray | None = None) -> Detection:
    """A :class:`Detection` from the JSON the ``detect`` verb prints (``{"pieces": [...], "uncertain": [...]}``,
    or a bare list of pieces)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UserError(f"{path.name} is not JSON ({err})") from None
    if isinstance(data, list):
        data = {"pieces": data, "uncertain": []}
    try:
        pieces = [_piece(d, False) for d in data.get("pieces", [])]
        uncertain = [_piece(d, True) for d in data.get("uncertain", [])]
    except (KeyError, ValueError, TypeError, AttributeError) as err:
        raise UserError(f"{path.name} does not hold pieces as `tableside detect --json` prints them "
                        f"({type(err).__name__}: {err})") from None
    size = (image.shape[1], image.shape[0]) if image is not None else (0, 0)
    return Detection(pieces, uncertain, size)


# ------------------------------------------------------------------------------------------------- speech
def speak(args: argparse.Namespace, texts: list[str]) -> None:
    """Say ``texts`` when ``--speak`` (or ``--speak-to``) was given. ``--speak-to`` names a folder for numbered
    WAVs, or a ``.wav`` file that receives everything said, as one announcement."""
    speak_to = getattr(args, "speak_to", None)
    if not (getattr(args, "speak", False) or speak_to):
        return
    texts = [t for t in texts if t and t.strip()]
    if not texts:
        return
    from tableside.announcer import Announcer, announcer_from_args

    if speak_to and speak_to.lower().endswith(".wav"):
        out = Path(speak_to)
        if not out.parent.exists():
            raise UserError(f"folder {out.parent} does not exist (for {out.name})")
        folder = tempfile.mkdtemp(prefix=".speak-", dir=str(out.parent))
        try:
            speaker = Announcer(voice=getattr(args, "voice", None), rate=getattr(args, "rate", None),
                                speak_to=folder, backend=getattr(args, "speech", "auto"))
            speaker.say(". ".join(t.rstrip(". ") for t in texts) + ".")
            speaker.close()
            wavs = sorted(Path(folder).glob("*.wav"))
            if not wavs:
                raise UserError("no speech engine could write a WAV (install espeak-ng)")
            os.replace(wavs[-1], out)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    from tableside.announcer import VoiceError

    try:
        speaker = announcer_from_args(args)
    except VoiceError as err:
        raise UserError(str(err)) from None
    try:
        for text in texts:
            speaker.say(text)
    finally:
        speaker.close()
