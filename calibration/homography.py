"""Pixels -> table millimetres on the table plane: find the sheet's markers, fit a homography.

All homographies here map (undistorted) pixel coordinates to table mm, in OpenCV's pixel convention (pixel
centres at integer coordinates).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.sheet import SheetLayout, aruco_dictionary, layout_for_marker_ids

__all__ = [
    "MarkerDetection",
    "HomographyFit",
    "detect_sheet_markers",
    "fit_homography",
    "rectangle_homography",
    "scale_homography",
    "apply_homography",
    "MIN_MARKERS",
]

MIN_MARKERS = 2  # one 30 mm marker extrapolated over a 300 mm table is too weak a lever
RANSAC_MM = 5.0  # a corner this far off is a misread or a bent sheet, not noise


@dataclass(frozen=True)
class MarkerDetection:
    """Sheet markers found in one image."""

    layout: SheetLayout
    ids: np.ndarray  # (n,) marker ids, sorted
    corners_px: np.ndarray  # (n, 4, 2) raw pixel corners: TL, TR, BR, BL of each marker

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """Corresponding ``(pixels (4n, 2), table mm (4n, 2))`` of all corners."""
        return self.corners_px.reshape(-1, 2), self.layout.corners_mm(self.ids)


@dataclass(frozen=True)
class HomographyFit:
    """A homography fitted to point pairs and its reprojection error in mm."""

    homography: np.ndarray  # (3, 3) pixels -> table mm
    inliers: np.ndarray  # (n,) bool
    residuals_mm: np.ndarray  # (n,) distance between mapped pixel and true table point, mm

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.residuals_mm[self.inliers] ** 2)))

    @property
    def max_mm(self) -> float:
        return float(self.residuals_mm[self.inliers].max())


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    return image


def _board(layout: SheetLayout) -> cv2.aruco.Board:
    ids = np.array(sorted(layout.markers), dtype=np.int32)
    object_points = [np.column_stack([layout.markers[int(i)], np.zeros(4)]).astype(np.float32) for i in ids]
    return cv2.aruco.Board(object_points, aruco_dictionary(layout), ids)


def detect_sheet_markers(image: np.ndarray, layout: SheetLayout | None = None) -> MarkerDetection:
    """Find the calibration sheet's markers (sub-pixel corners) in a BGR or gray image.

    ``layout``: the sheet on the table; by default the paper whose ids are seen most. Markers missed by the
    first pass are looked for again where the found ones say they must be (``refineDetectedMarkers``).
    Raises CalibrationError with fewer than ``MIN_MARKERS`` markers.
    """
    gray = _gray(image)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    dictionary = cv2.aruco.getPredefinedDictionary(layout.dictionary if layout else cv2.aruco.DICT_4X4_100)
    detector = cv2.aruco.ArucoDetector(dictionary, params)
    corners, ids, rejected = detector.detectMarkers(gray)
    if ids is None or len(ids) == 0:
        raise CalibrationError(
            "no calibration-sheet markers found: lay the printed sheet flat in view, lit evenly, "
            "or give --corners/--px-per-mm"
        )
    layout = layout or layout_for_marker_ids(ids)
    keep = [i for i, marker_id in enumerate(ids.ravel()) if int(marker_id) in layout.markers]
    corners = [corners[i] for i in keep]
    ids = ids.reshape(-1, 1)[keep]
    if 0 < len(keep) < len(layout.markers):
        corners, ids, _, _ = detector.refineDetectedMarkers(gray, _board(layout), corners, ids, rejected)
    ids = np.asarray(ids).reshape(-1).astype(np.int32) if ids is not None else np.zeros(0, np.int32)
    corners_px = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    # A marker id seen twice (a second printout, a reflection) is ambiguous: drop both.
    unique, counts = np.unique(ids, return_counts=True)
    ok = np.isin(ids, unique[counts == 1]) & np.isin(ids, list(layout.markers))
    ids, corners_px = ids[ok], corners_px[ok]
    if len(ids) < MIN_MARKERS:
        raise CalibrationError(
            f"only {len(ids)} marker of the {layout.name} calibration sheet found (need {MIN_MARKERS}+): "
            "uncover the sheet's border or move the camera so more of it is in view"
        )
    order = np.argsort(ids)
    return MarkerDetection(layout, ids[order], corners_px[order])


def apply_homography(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(..., 2)`` points through a 3x3 homography."""
    points = np.asarray(points, dtype=np.float64)
    flat = points.reshape(-1, 1, 2)
    if flat.shape[0] == 0:
        return points.copy()
    return cv2.perspectiveTransform(flat, np.asarray(homography, dtype=np.float64)).reshape(points.shape)


def fit_homography(points_px: np.ndarray, points_mm: np.ndarray, ransac_mm: float = RANSAC_MM) -> HomographyFit:
    """Pixels -> mm homography: RANSAC (threshold in mm) to drop misread corners, then least squares + LM
    refinement on the inliers. With exactly four points the fit is exact."""
    points_px = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    points_mm = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    if len(points_px) < 4:
        raise CalibrationError(f"{len(points_px)} points are too few for a homography (need 4)")
    inliers = np.ones(len(points_px), dtype=bool)
    if len(points_px) > 4:
        _, mask = cv2.findHomography(points_px, points_mm, cv2.RANSAC, ransac_mm, maxIters=2000, confidence=0.999)
        if mask is not None and mask.sum() >= 4:
            inliers = mask.reshape(-1).astype(bool)
    homography, _ = cv2.findHomography(points_px[inliers], points_mm[inliers], 0)
    if homography is None or not np.all(np.isfinite(homography)):
        raise CalibrationError("the points do not define a plane: are they all on one line?")
    homography = homography / homography[2, 2]
    residuals = np.linalg.norm(apply_homography(homography, points_px) - points_mm, axis=1)
    return HomographyFit(homography, inliers, residuals)


def rectangle_homography(
    corners_px: np.ndarray, size_mm: tuple[float, float], origin_mm: tuple[float, float] = (0.0, 0.0)
) -> np.ndarray:
    """Pixels -> mm from the four corners (clockwise from top left) of a known ``width x height`` rectangle
    whose top-left corner is at ``origin_mm``."""
    corners_px = np.asarray(corners_px, dtype=np.float64).reshape(4, 2)
    width, height = size_mm
    x0, y0 = origin_mm
    corners_mm = np.array([[x0, y0], [x0 + width, y0], [x0 + width, y0 + height], [x0, y0 + height]])
    # Seen from above the rectangle's clockwise corners are clockwise in the image too (a camera does not mirror);
    # anti-clockwise or crossed (bow-tie) clicks are a mistake.
    signs = []
    for i in range(4):
        a, b, c = corners_px[i], corners_px[(i + 1) % 4], corners_px[(i + 2) % 4]
        signs.append(np.sign((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])))
    if not all(s > 0 for s in signs):
        raise CalibrationError("the four corners must go clockwise from the top left, around a convex shape")
    return cv2.getPerspectiveTransform(corners_px.astype(np.float32), corners_mm.astype(np.float32)).astype(np.float64)


def scale_homography(px_per_mm: float) -> np.ndarray:
    """Pixels -> mm for a top-down scan at ``px_per_mm``: pixel (c, r) covers [c/p, (c+1)/p) mm, origin top left."""
    if not px_per_mm > 0:
        raise CalibrationError("--px-per-mm must be positive")
    s = 1.0 / px_per_mm
    return np.array([[s, 0.0, 0.5 * s], [0.0, s, 0.5 * s], [0.0, 0.0, 1.0]])
