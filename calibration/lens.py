"""Lens calibration: intrinsics and distortion from photos of a printed ChArUco board.

Optional. Without it the table homography is fitted to raw pixels, which is exact for a distortion-free lens;
a wide lens bends straight lines (barrel distortion) and no homography can follow that. With a :class:`LensModel`,
points are undistorted (``cv2.undistortPoints``) before the homography and distorted again on the way back.

Undistorted pixel coordinates keep the camera matrix (``P = K``): they are in pixels of an ideal pinhole camera
with the same focal length and principal point, so the homography and all thresholds stay in pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw

from calibration.errors import CalibrationError
from calibration.sheet import PAPER_SIZES_MM, print_px_per_mm, sheet_layout, text_font

__all__ = [
    "LensModel",
    "LensCalibration",
    "CHARUCO_SQUARES",
    "CHARUCO_SQUARE_MM",
    "CHARUCO_MARKER_MM",
    "CHARUCO_DICTIONARY",
    "charuco_board",
    "charuco_origin_mm",
    "draw_charuco_sheet",
    "write_charuco_sheet",
    "detect_charuco",
    "calibrate_lens",
    "undistort_points",
    "undistort_raw",
    "distort_points",
]

# A 5 x 7 board of 35 mm squares (175 x 245 mm) fits on A4 and letter with printer margins to spare.
CHARUCO_SQUARES = (5, 7)  # columns, rows
CHARUCO_SQUARE_MM = 35.0
CHARUCO_MARKER_MM = 26.0
# A different dictionary from the table sheet's, so the two printouts are never confused.
CHARUCO_DICTIONARY = cv2.aruco.DICT_5X5_100
_MIN_CORNERS = 8  # per photo; fewer corners constrain the lens too little to be worth using
_MIN_PHOTOS = 3


@dataclass(frozen=True)
class LensModel:
    """Pinhole intrinsics and OpenCV distortion coefficients for one camera mode."""

    camera_matrix: np.ndarray  # (3, 3) pixels
    dist_coeffs: np.ndarray  # (k1, k2, p1, p2[, k3...])
    image_size: tuple[int, int]  # (width, height) pixels
    rms_px: float = 0.0  # reprojection RMS of the calibration, pixels
    photos: int = 0  # photos used
    source: str = "charuco"  # "charuco" (calibrate_lens) or "sheet" (k1 only, calibration.sheet_distortion)

    @property
    def focal_px(self) -> float:
        return float((self.camera_matrix[0, 0] + self.camera_matrix[1, 1]) / 2)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "lens",
            "image_size": list(self.image_size),
            "camera_matrix": np.asarray(self.camera_matrix, dtype=float).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs, dtype=float).ravel().tolist(),
            "rms_px": round(float(self.rms_px), 4),
            "photos": int(self.photos),
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LensModel:
        """Read the lens part of a calibration file; raises KeyError/ValueError/TypeError on bad content."""
        matrix = np.array(data["camera_matrix"], dtype=np.float64)
        coeffs = np.array(data["dist_coeffs"], dtype=np.float64).ravel()
        width, height = (int(v) for v in data["image_size"])
        if matrix.shape != (3, 3) or coeffs.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(matrix)):
            raise ValueError("bad lens matrix or distortion coefficients")
        source = str(data.get("source", "charuco"))
        return cls(matrix, coeffs, (width, height), float(data.get("rms_px", 0.0)), int(data.get("photos", 0)), source)


@dataclass(frozen=True)
class LensCalibration:
    """The result of :func:`calibrate_lens`: the model and how many board corners each photo gave."""

    lens: LensModel
    corners_per_photo: list[int]  # 0 for a photo where the board was not found (or too little of it)


def charuco_board() -> cv2.aruco.CharucoBoard:
    """The printed ChArUco board, in millimetres (board frame: origin at its top-left square corner)."""
    dictionary = cv2.aruco.getPredefinedDictionary(CHARUCO_DICTIONARY)
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM, dictionary)


def charuco_origin_mm(paper: str = "a4") -> tuple[float, float]:
    """Where the board's top-left corner is on the printed page (centred), mm."""
    width, height = PAPER_SIZES_MM[sheet_layout(paper).name]
    return (width - CHARUCO_SQUARES[0] * CHARUCO_SQUARE_MM) / 2, (height - CHARUCO_SQUARES[1] * CHARUCO_SQUARE_MM) / 2


def draw_charuco_sheet(paper: str = "a4", px_per_mm: float | None = None) -> tuple[np.ndarray, float]:
    """The printable ChArUco page as a uint8 grayscale image, and the px_per_mm it was drawn at.

    The default resolution makes squares whole pixels (12 px/mm on A4; 300 dpi on letter is 11.81 px/mm,
    where the board is drawn by OpenCV to the nearest pixel, 0.04 mm).
    """
    layout = sheet_layout(paper)
    p = px_per_mm or print_px_per_mm(layout)
    page = np.full((round(layout.height_mm * p), round(layout.width_mm * p)), 255, dtype=np.uint8)
    x0, y0 = charuco_origin_mm(paper)
    board_w = round(CHARUCO_SQUARES[0] * CHARUCO_SQUARE_MM * p)
    board_h = round(CHARUCO_SQUARES[1] * CHARUCO_SQUARE_MM * p)
    board_image = charuco_board().generateImage((board_w, board_h), marginSize=0, borderBits=1)
    c0, r0 = round(x0 * p), round(y0 * p)
    page[r0 : r0 + board_h, c0 : c0 + board_w] = board_image.reshape(board_h, board_w)
    image = Image.fromarray(page, mode="L")
    draw = ImageDraw.Draw(image)
    font = text_font(max(6, round(3.2 * p)))
    text = (
        f"tableside lens board - {layout.name.upper()} - print at 100% - squares {CHARUCO_SQUARE_MM:g} mm; "
        "photograph it flat from many angles"
    )
    draw.text((layout.width_mm / 2 * p, (y0 / 2) * p), text, fill=0, font=font, anchor="mm")
    return np.asarray(image, dtype=np.uint8).copy(), p


def write_charuco_sheet(path: str | Path, paper: str = "a4") -> Path:
    """Write the printable ChArUco board as PDF or PNG at exact scale."""
    path = Path(path)
    page, p = draw_charuco_sheet(paper)
    image = Image.fromarray(page, mode="L")
    dpi = p * 25.4
    if path.suffix.lower() == ".pdf":
        image.save(path, "PDF", resolution=dpi, quality=95, title="tableside lens calibration board")
    elif path.suffix.lower() == ".png":
        image.save(path, "PNG", dpi=(dpi, dpi))
    else:
        raise CalibrationError(f"cannot write a board as {path.name}: use a .pdf or .png file name")
    return path


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    return image


def detect_charuco(image: np.ndarray, board: cv2.aruco.CharucoBoard | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ChArUco chessboard corners seen in ``image``: ``(corners (n, 2) px, ids (n,))``; empty when none."""
    board = board or charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(_gray(image))
    if ids is None or corners is None or len(ids) == 0:
        return np.zeros((0, 2), np.float32), np.zeros((0,), np.int32)
    return corners.reshape(-1, 2).astype(np.float32), ids.reshape(-1).astype(np.int32)


def calibrate_lens(images: Sequence[np.ndarray], board: cv2.aruco.CharucoBoard | None = None) -> LensCalibration:
    """Intrinsics and distortion (k1, k2, p1, p2, k3) from photos of the ChArUco board (``cv2.calibrateCamera``).

    All photos must have the same size. k3 is only fitted with 10 or more usable photos (with fewer it
    over-fits the edges). Raises CalibrationError when fewer than 3 photos show enough of the board.
    """
    if not images:
        raise CalibrationError("no photos for lens calibration: give 3 or more photos of the ChArUco board")
    board = board or charuco_board()
    sizes = {(im.shape[1], im.shape[0]) for im in images}
    if len(sizes) != 1:
        listed = ", ".join(f"{w}x{h}" for w, h in sorted(sizes))
        raise CalibrationError(f"lens photos have different sizes ({listed}): take them all in one camera mode")
    image_size = sizes.pop()
    object_points, image_points, counts = [], [], []
    for image in images:
        corners, ids = detect_charuco(image, board)
        if len(ids) < _MIN_CORNERS:
            counts.append(0)
            continue
        obj, img = board.matchImagePoints(corners.reshape(-1, 1, 2), ids.reshape(-1, 1))
        obj = obj.reshape(-1, 3).astype(np.float32)
        # Corners all on one line give no lens information (and make calibrateCamera fail).
        if np.linalg.matrix_rank(obj[:, :2] - obj[:, :2].mean(axis=0), tol=1e-3) < 2:
            counts.append(0)
            continue
        object_points.append(obj)
        image_points.append(img.reshape(-1, 2).astype(np.float32))
        counts.append(len(ids))
    usable = len(object_points)
    if usable < _MIN_PHOTOS:
        raise CalibrationError(
            f"only {usable} of {len(images)} photos show enough of the ChArUco board (need {_MIN_PHOTOS}+): "
            "photograph the whole board, flat, from several angles"
        )
    flags = 0 if usable >= 10 else cv2.CALIB_FIX_K3
    rms, matrix, coeffs, _, _ = cv2.calibrateCamera(object_points, image_points, image_size, None, None, flags=flags)
    lens = LensModel(matrix.astype(np.float64), coeffs.ravel().astype(np.float64), image_size, float(rms), usable)
    return LensCalibration(lens, counts)


def undistort_raw(
    points: np.ndarray, camera_matrix: np.ndarray, dist_coeffs: np.ndarray, new_matrix: np.ndarray | None = None
) -> np.ndarray:
    """``cv2.undistortPoints`` of ``(n, 1, 2)`` points with 50 iterations instead of the default 5 (strong barrel
    distortion at the frame corners needs them). ``new_matrix`` None gives normalised coordinates.

    OpenCV 4.x spells the variant with a stop criterion ``undistortPointsIter``; 5.x adds ``criteria`` to
    ``undistortPoints`` instead.
    """
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)
    if hasattr(cv2, "undistortPointsIter"):
        return cv2.undistortPointsIter(points, camera_matrix, dist_coeffs, None, new_matrix, criteria)
    return cv2.undistortPoints(points, camera_matrix, dist_coeffs, R=None, P=new_matrix, criteria=criteria)


def undistort_points(points_px: np.ndarray, lens: LensModel) -> np.ndarray:
    """Raw pixel coordinates ``(..., 2)`` -> undistorted pixel coordinates (same camera matrix)."""
    points = np.asarray(points_px, dtype=np.float64)
    flat = points.reshape(-1, 1, 2)
    if flat.shape[0] == 0:
        return points.copy()
    out = undistort_raw(flat, lens.camera_matrix, lens.dist_coeffs, lens.camera_matrix)
    return out.reshape(points.shape)


def distort_points(points_px: np.ndarray, lens: LensModel) -> np.ndarray:
    """Undistorted pixel coordinates ``(..., 2)`` -> raw pixel coordinates (the inverse of undistort_points)."""
    points = np.asarray(points_px, dtype=np.float64)
    flat = points.reshape(-1, 2)
    if flat.shape[0] == 0:
        return points.copy()
    k = lens.camera_matrix
    normalised = np.empty((flat.shape[0], 3))
    normalised[:, 1] = (flat[:, 1] - k[1, 2]) / k[1, 1]
    normalised[:, 0] = (flat[:, 0] - k[0, 2] - k[0, 1] * normalised[:, 1]) / k[0, 0]
    normalised[:, 2] = 1.0
    projected, _ = cv2.projectPoints(normalised, np.zeros(3), np.zeros(3), k, lens.dist_coeffs)
    return projected.reshape(points.shape)
