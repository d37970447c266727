"""Calibration files: versioned JSON for the table calibration (table.json) and the lens model (lens.json).

Every problem with a file is a CalibrationError whose one-line message says what to do. Files are written
atomically (a temporary file renamed into place), so a failed run never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationError
from calibration.lens import LensModel
from calibration.table_calibration import Calibration

__all__ = ["FILE_VERSION", "save_calibration", "load_calibration", "save_lens", "load_lens", "write_atomic"]

FILE_VERSION = 1
_REDO = "run `tableside calibrate` again"


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` all at once (temporary file in the same folder, then rename)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _dump(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, indent=2) + "\n").encode("utf-8")


def save_calibration(calibration: Calibration, path: str | Path) -> Path:
    """Write ``calibration`` as JSON (see :meth:`Calibration.to_json` for the fields)."""
    return write_atomic(path, _dump(calibration.to_json()))


def save_lens(lens: LensModel, path: str | Path) -> Path:
    """Write a lens model as JSON: ``{"version": 1, "kind": "lens", "image_size", "camera_matrix", ...}``."""
    return write_atomic(path, _dump({"version": FILE_VERSION, **lens.to_json()}))


def _read(path: Path, what: str, how: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"{path.name} not found ({path}): {how}") from None
    except IsADirectoryError:
        raise CalibrationError(f"{path} is a folder, not a {what} file") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{path.name} is not a {what} file (not text): {how}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{path.name} is not a {what} file (bad JSON at line {err.lineno}): {how}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{path.name} is not a {what} file (no JSON object): {how}")
    version = data.get("version")
    if version != FILE_VERSION:
        raise CalibrationError(
            f"{path.name} is a version {version} {what} file; this tableside reads version {FILE_VERSION}: {how}"
        )
    return data


def load_calibration(path: str | Path, frame_size: tuple[int, int] | None = None) -> Calibration:
    """Read a table calibration; with ``frame_size`` (width, height), also check it is for such frames."""
    path = Path(path)
    how = f"{_REDO} (tableside calibrate IMAGE --out {path.name})"
    data = _read(path, "calibration", how)
    if data.get("kind") == "lens":
        raise CalibrationError(f"{path.name} is a lens calibration, not a table calibration: give it with --lens")
    try:
        calibration = Calibration.from_json(data)
    except (KeyError, ValueError, TypeError, IndexError) as err:
        raise CalibrationError(f"{path.name} is a damaged calibration file ({_what(err)}): {how}") from None
    if frame_size is not None:
        calibration.check_frame(frame_size, path.name)
    return calibration


def load_lens(path: str | Path, frame_size: tuple[int, int] | None = None) -> LensModel:
    """Read a lens model; with ``frame_size`` (width, height), also check it is for such frames."""
    path = Path(path)
    how = "run `tableside calibrate --lens PHOTOS... --out lens.json` again"
    data = _read(path, "lens calibration", how)
    if data.get("kind") != "lens":
        raise CalibrationError(f"{path.name} is not a lens calibration (kind {data.get('kind')!r}): {how}")
    try:
        lens = LensModel.from_json(data)
    except (KeyError, ValueError, TypeError, IndexError) as err:
        raise CalibrationError(f"{path.name} is a damaged lens calibration ({_what(err)}): {how}") from None
    if frame_size is not None and tuple(lens.image_size) != tuple(frame_size):
        w0, h0 = lens.image_size
        raise CalibrationError(
            f"{path.name} was made for {w0}x{h0} frames but this frame is {frame_size[0]}x{frame_size[1]}: "
            "calibrate the lens again in this camera mode"
        )
    return lens


def _what(err: Exception) -> str:
    if isinstance(err, KeyError):
        return f"no {err.args[0]!r}"
    return str(err).splitlines()[0] if str(err) else type(err).__name__
