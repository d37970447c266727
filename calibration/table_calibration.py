"""The table calibration: camera pixels <-> table millimetres, for points on the table or raised above it.

A :class:`Calibration` holds the homography (undistorted pixels -> table mm on the table plane), the optional
lens model and the camera pose recovered from the homography (for parallax). Build one with
:func:`calibrate_from_sheet`, :func:`calibrate_from_rectangle` or :func:`calibrate_from_scale`; save and load
it with :mod:`calibration.calibration_file`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from calibration.errors import CalibrationError
from calibration.homography import (
    MarkerDetection,
    apply_homography,
    detect_sheet_markers,
    fit_homography,
    rectangle_homography,
    scale_homography,
)
from calibration.lens import LensModel, distort_points, undistort_points
from calibration.parallax import DEFAULT_HFOV_DEG, CameraPose, recover_camera
from calibration.sheet import SheetLayout
from calibration.sheet_distortion import estimate_k1

__all__ = [
    "FitReport",
    "Calibration",
    "calibrate_from_sheet",
    "calibrate_from_detection",
    "calibrate_from_rectangle",
    "calibrate_from_scale",
]


@dataclass(frozen=True)
class FitReport:
    """How a calibration was made and how well the homography fits its points (mm on the table)."""

    method: str  # "sheet", "corners" or "scale"
    rms_mm: float = 0.0
    max_mm: float = 0.0
    points: int = 0
    inliers: int = 0
    paper: str | None = None
    marker_ids: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"method": self.method}
        if self.method != "scale":
            data.update(
                rms_mm=round(self.rms_mm, 4), max_mm=round(self.max_mm, 4), points=self.points, inliers=self.inliers
            )
        if self.paper:
            data.update(paper=self.paper, marker_ids=list(self.marker_ids))
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FitReport:
        return cls(
            str(data["method"]),
            float(data.get("rms_mm", 0.0)),
            float(data.get("max_mm", 0.0)),
            int(data.get("points", 0)),
            int(data.get("inliers", 0)),
            data.get("paper"),
            tuple(int(i) for i in data.get("marker_ids", ())),
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@njit(cache=True, nogil=True, inline="always")
def _lens_model(ux, uy, camera, k):  # pragma: no cover - numba
    """Undistorted pixel (ux, uy) -> raw pixel: :func:`calibration.lens.distort_points`' normalisation, then
    ``cv2.projectPoints``' distortion (rotation and translation zero: the identity, exact) written out in its
    order of operations (no fastmath, no fused multiply-add: the same doubles; tests/vision/test_detect.py
    compares them over random lenses and points)."""
    fx = camera[0, 0]
    fy = camera[1, 1]
    cx = camera[0, 2]
    cy = camera[1, 2]
    y = (uy - cy) / fy
    x = (ux - cx - camera[0, 1] * y) / fx
    r2 = x * x + y * y
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
    icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
    xd = x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
    yd = y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
    return xd * fx + cx, yd * fy + cy


@njit(cache=True, nogil=True)
def _project_distorted(undistorted, camera, coeffs, out):  # pragma: no cover - numba
    """Undistorted pixels (n, 2) -> raw pixels into ``out`` (see :func:`_lens_model`)."""
    for i in range(undistorted.shape[0]):
        out[i, 0], out[i, 1] = _lens_model(undistorted[i, 0], undistorted[i, 1], camera, coeffs)


@njit(cache=True, nogil=True)
def _plane_to_raw(points, heights, g0, k_r3, camera, coeffs, out):  # pragma: no cover - numba
    """Table points (n, 2) mm, ``heights`` (n,) mm above the table -> raw pixels into ``out``: the plane's
    homography (G0 with its third column moved by h K r3, as ``Calibration._plane_matrices``) applied as
    ``np.einsum("nij,nj->ni")`` sums a row (its first and third products, then the second: measured bit for bit
    on numpy 2), divided by its third coordinate, then the lens (:func:`_lens_model`)."""
    for i in range(points.shape[0]):
        x = points[i, 0]
        y = points[i, 1]
        h = heights[i]
        u = (g0[0, 0] * x + (g0[0, 2] - h * k_r3[0])) + g0[0, 1] * y
        v = (g0[1, 0] * x + (g0[1, 2] - h * k_r3[1])) + g0[1, 1] * y
        w = (g0[2, 0] * x + (g0[2, 2] - h * k_r3[2])) + g0[2, 1] * y
        out[i, 0], out[i, 1] = _lens_model(u / w, v / w, camera, coeffs)


@dataclass(frozen=True)
class Calibration:
    """Camera pixels <-> table mm for one camera mode (``image_size``)."""

    kind: str  # "homography" (a camera) or "scale" (a top-down scan: orthographic)
    image_size: tuple[int, int]  # (width, height) of the frames it is for
    homography: np.ndarray  # (3, 3): undistorted pixels -> table mm on the table plane
    lens: LensModel | None = None
    camera: CameraPose | None = None
    report: FitReport | None = None
    created: str = field(default_factory=_now)

    # -- frames -----------------------------------------------------------------------------------------------
    def check_frame(self, frame_size: tuple[int, int], name: str = "the calibration") -> None:
        """Raise CalibrationError unless frames of ``(width, height)`` are the ones this calibration is for."""
        width, height = (int(v) for v in frame_size)
        if (width, height) != tuple(self.image_size):
            w0, h0 = self.image_size
            raise CalibrationError(
                f"{name} was made for {w0}x{h0} frames but this frame is {width}x{height}: "
                "run `tableside calibrate` again for this camera mode"
            )

    # -- mapping ------------------------------------------------------------------------------------------------
    def undistorted_pixels(self, points_px: np.ndarray) -> np.ndarray:
        """Raw pixels ``(..., 2)`` -> the undistorted pixels the homography applies to (the same without a lens)."""
        return undistort_points(points_px, self.lens) if self.lens is not None else np.asarray(points_px, float)

    def _distort(self, points_px: np.ndarray) -> np.ndarray:
        return distort_points(points_px, self.lens) if self.lens is not None else points_px

    @cached_property
    def _lens_arrays(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The lens for :func:`_project_distorted`: its camera matrix and its distortion coefficients padded to
        12 (None: no lens, or a tilted sensor's 14 coefficients, which only ``cv2.projectPoints`` models)."""
        if self.lens is None:
            return None
        coeffs = np.asarray(self.lens.dist_coeffs, dtype=np.float64).ravel()
        if len(coeffs) not in (4, 5, 8, 12, 14) or np.any(coeffs[12:] != 0):
            return None
        padded = np.zeros(12)
        padded[: min(len(coeffs), 12)] = coeffs[:12]
        return np.ascontiguousarray(self.lens.camera_matrix, dtype=np.float64), padded

    @cached_property
    def _inverse_homography(self) -> np.ndarray:
        """Table mm -> undistorted px on the table plane (computed once: the calibration is immutable and the
        vision maps points through it dozens of times per frame)."""
        return np.linalg.inv(self.homography)

    @cached_property
    def _table_to_undistorted(self) -> tuple[np.ndarray, np.ndarray | None]:
        """``G0`` (table mm on the table -> undistorted px) scaled like ``K [r1 r2 t]``, and ``K r3`` (or None)."""
        g0 = self._inverse_homography
        if self.camera is None:
            return g0, None
        pose_g = self.camera.plane_to_pixel(0.0)
        g0 = g0 * (np.sum(pose_g * g0) / np.sum(g0 * g0))  # same scale as the pose's homography
        return g0, self.camera.camera_matrix @ self.camera.rotation[:, 2]

    def _plane_matrices(self, height_mm: float | np.ndarray, count: int) -> np.ndarray:
        """(count, 3, 3) table-at-height -> undistorted px homographies: G0 with its third column moved by h K r3
        (the plane z = -h; see calibration.parallax). The fitted homography is kept exactly at h = 0."""
        g0, k_r3 = self._table_to_undistorted
        heights = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (count,))
        matrices = np.repeat(g0[None], count, axis=0)
        if k_r3 is not None:
            matrices[:, :, 2] -= heights[:, None] * k_r3[None, :]
        return matrices

    def pixel_to_table(self, points_px: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table position (mm) of the footprint of points seen at raw pixels ``(..., 2)``, each ``height_mm``
        above the table (a scalar or one per point). A "scale" calibration is orthographic: height is ignored."""
        points = np.asarray(points_px, dtype=np.float64)
        flat = self.undistorted_pixels(points.reshape(-1, 2))
        if self.camera is None or np.all(np.asarray(height_mm) == 0):
            return apply_homography(self.homography, flat).reshape(points.shape)
        matrices = self._plane_matrices(height_mm, len(flat))
        homogeneous = np.column_stack([flat, np.ones(len(flat))])
        table = np.linalg.solve(matrices, homogeneous[:, :, None])[:, :, 0]
        return (table[:, :2] / table[:, 2:3]).reshape(points.shape)

    def table_to_pixel(self, points_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Raw pixel where table points ``(..., 2)`` mm, ``height_mm`` above the table, are seen."""
        points = np.asarray(points_mm, dtype=np.float64)
        flat = points.reshape(-1, 2)
        lens = self._lens_arrays
        if self.camera is None or np.all(np.asarray(height_mm) == 0):
            undistorted = apply_homography(self._inverse_homography, flat)
            if lens is not None:  # the same arithmetic as distort_points, without its per-call overheads
                out = np.empty((len(flat), 2))
                _project_distorted(np.ascontiguousarray(undistorted, dtype=np.float64).reshape(-1, 2), *lens, out)
                return out.reshape(points.shape)
        elif lens is not None:
            # the plane's homography and the lens in one pass: bit for bit the numpy path below (see the kernel);
            # ~30 calls a frame, each 100-250 us in numpy and cv2.projectPoints (which also makes a Jacobian)
            heights = np.ascontiguousarray(np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(flat),)))
            g0, k_r3 = self._table_to_undistorted
            out = np.empty((len(flat), 2))
            _plane_to_raw(np.ascontiguousarray(flat), heights, g0, k_r3, *lens, out)
            return out.reshape(points.shape)
        else:
            matrices = self._plane_matrices(height_mm, len(flat))
            homogeneous = np.column_stack([flat, np.ones(len(flat))])
            image = np.einsum("nij,nj->ni", matrices, homogeneous)
            undistorted = image[:, :2] / image[:, 2:3]
        return self._distort(undistorted).reshape(points.shape)

    def camera_position_mm(self) -> np.ndarray | None:
        """``(x_mm, y_mm, h_mm)`` of the camera: over table point (x, y), h mm above the table; None for a scan."""
        return None if self.camera is None else self.camera.position_mm

    def px_per_mm_at(self, point_mm: np.ndarray) -> float:
        """Image scale (pixels per table mm, geometric mean of x and y) around a table point."""
        p = np.asarray(point_mm, dtype=np.float64).reshape(2)
        pts = np.array([p, p + [1.0, 0.0], p + [0.0, 1.0]])
        px = self.table_to_pixel(pts)
        return float(np.sqrt(np.linalg.norm(px[1] - px[0]) * np.linalg.norm(px[2] - px[0])))

    # -- JSON ---------------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        position = self.camera_position_mm()
        return {
            "version": 1,
            "kind": self.kind,
            "image_size": [int(v) for v in self.image_size],
            "homography": np.asarray(self.homography, float).tolist(),
            "lens": self.lens.to_json() if self.lens is not None else None,
            "camera": self.camera.to_json() if self.camera is not None else None,
            "camera_position_mm": [round(float(v), 2) for v in position] if position is not None else None,
            "fit": self.report.to_json() if self.report is not None else None,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """Build from the JSON dict (the version is checked by :mod:`calibration.calibration_file`).

        Raises KeyError, ValueError or TypeError on missing or malformed fields."""
        kind = data["kind"]
        if kind not in ("homography", "scale"):
            raise ValueError(f"unknown kind {kind!r}")
        width, height = (int(v) for v in data["image_size"])
        if width <= 0 or height <= 0:
            raise ValueError("bad image size")
        homography = np.array(data["homography"], dtype=np.float64)
        if homography.shape != (3, 3) or not np.all(np.isfinite(homography)) or abs(np.linalg.det(homography)) < 1e-15:
            raise ValueError("bad homography")
        lens = LensModel.from_json(data["lens"]) if data.get("lens") else None
        camera = CameraPose.from_json(data["camera"]) if data.get("camera") else None
        report = FitReport.from_json(data["fit"]) if data.get("fit") else None
        return cls(kind, (width, height), homography, lens, camera, report, str(data.get("created", "")))


def _check_lens(lens: LensModel | None, image_size: tuple[int, int]) -> None:
    if lens is not None and tuple(lens.image_size) != tuple(image_size):
        w0, h0 = lens.image_size
        raise CalibrationError(
            f"the lens calibration was made for {w0}x{h0} frames but this image is {image_size[0]}x{image_size[1]}: "
            "calibrate the lens again in this camera mode"
        )


def _sheet_lens(
    corners_px: np.ndarray, corners_mm: np.ndarray, image_size: tuple[int, int], hfov_deg: float
) -> LensModel | None:
    """A k1-only lens estimated from markers' corners ((n, 4, 2) raw pixels and mm), or None when the data do not
    ask for one."""
    camera = recover_camera(corners_mm.reshape(-1, 2), corners_px.reshape(-1, 2), image_size, None, hfov_deg)
    estimate = estimate_k1(corners_px, corners_mm, camera.camera_matrix)
    if not estimate.significant:
        return None
    rms_px = float(np.sqrt(estimate.rss_with / corners_px.reshape(-1, 2).shape[0]))
    coeffs = np.array([estimate.k1, 0.0, 0.0, 0.0, 0.0])
    return LensModel(camera.camera_matrix, coeffs, tuple(image_size), rms_px, 0, "sheet")


def calibrate_from_detection(
    detection: MarkerDetection,
    image_size: tuple[int, int],
    lens: LensModel | None = None,
    hfov_deg: float = DEFAULT_HFOV_DEG,
    sheet_distortion: bool = True,
) -> Calibration:
    """The calibration from sheet markers already found in a frame of ``image_size`` (width, height).

    Without ``lens``, and with ``sheet_distortion``, the lens's k1 is estimated from the sheet itself when the
    corners show it (see :mod:`calibration.sheet_distortion`)."""
    _check_lens(lens, image_size)
    raw_px, points_mm = detection.points()
    points_px = undistort_points(raw_px, lens) if lens is not None else raw_px
    fit = fit_homography(points_px, points_mm)
    whole_markers = fit.inliers.reshape(-1, 4).all(axis=1)  # markers with no outlying corner
    if lens is None and sheet_distortion and whole_markers.sum() >= 3:
        corners_px = raw_px.reshape(-1, 4, 2)[whole_markers]
        corners_mm = points_mm.reshape(-1, 4, 2)[whole_markers]
        lens = _sheet_lens(corners_px, corners_mm, image_size, hfov_deg)
        if lens is not None:
            points_px = undistort_points(raw_px, lens)
            fit = fit_homography(points_px, points_mm)
    inliers = fit.inliers
    lens_matrix = lens.camera_matrix if lens is not None and lens.source != "sheet" else None
    camera = recover_camera(points_mm[inliers], points_px[inliers], image_size, lens_matrix, hfov_deg)
    report = FitReport(
        "sheet",
        fit.rms_mm,
        fit.max_mm,
        len(points_px),
        int(inliers.sum()),
        detection.layout.name,
        tuple(int(i) for i in detection.ids),
    )
    return Calibration("homography", tuple(image_size), fit.homography, lens, camera, report)


def calibrate_from_sheet(
    image: np.ndarray,
    layout: SheetLayout | None = None,
    lens: LensModel | None = None,
    hfov_deg: float = DEFAULT_HFOV_DEG,
    sheet_distortion: bool = True,
) -> Calibration:
    """The calibration from a photo of the calibration sheet lying on the table (BGR or gray image)."""
    image_size = (image.shape[1], image.shape[0])
    _check_lens(lens, image_size)
    detection = detect_sheet_markers(image, layout)
    return calibrate_from_detection(detection, image_size, lens, hfov_deg, sheet_distortion)


def calibrate_from_rectangle(
    corners_px: np.ndarray,
    size_mm: tuple[float, float],
    image_size: tuple[int, int],
    lens: LensModel | None = None,
    origin_mm: tuple[float, float] = (0.0, 0.0),
    hfov_deg: float = DEFAULT_HFOV_DEG,
) -> Calibration:
    """The calibration from four clicked corners (clockwise from top left) of a known rectangle on the table."""
    _check_lens(lens, image_size)
    corners_px = np.asarray(corners_px, dtype=np.float64).reshape(4, 2)
    width, height = size_mm
    if not (width > 0 and height > 0):
        raise CalibrationError("the rectangle's size must be positive, e.g. --size-mm 210,297")
    undistorted = undistort_points(corners_px, lens) if lens is not None else corners_px
    homography = rectangle_homography(undistorted, size_mm, origin_mm)
    x0, y0 = origin_mm
    corners_mm = np.array([[x0, y0], [x0 + width, y0], [x0 + width, y0 + height], [x0, y0 + height]])
    camera = recover_camera(corners_mm, undistorted, image_size, lens.camera_matrix if lens else None, hfov_deg)
    residuals = np.linalg.norm(apply_homography(homography, undistorted) - corners_mm, axis=1)
    report = FitReport("corners", float(np.sqrt(np.mean(residuals**2))), float(residuals.max()), 4, 4)
    return Calibration("homography", tuple(image_size), homography, lens, camera, report)


def calibrate_from_scale(px_per_mm: float, image_size: tuple[int, int]) -> Calibration:
    """The calibration of a top-down scan or orthographic image: origin top left, y down, ``px_per_mm``."""
    return Calibration("scale", tuple(image_size), scale_homography(px_per_mm), None, None, FitReport("scale"))
