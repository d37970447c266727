"""A known pinhole camera photographing a flat table with the calibration sheet on it (test/benchmark helper).

Ground truth for the calibration tests: the true table point of every pixel is known. The scene is a flat
textured table with a sheet image lying at the table origin; the photo is rendered by inverse mapping (each
output sub-pixel is traced to the table and sampled there, with 2x2 supersampling), optionally with OpenCV
lens distortion, then blurred, noised and JPEG-compressed like a real camera frame.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.lens import undistort_raw

PI_FRAME = (1640, 1232)  # Raspberry Pi camera v2 full-field binned mode
PI_HFOV_DEG = 62.2


@dataclass(frozen=True)
class PinholeCamera:
    """K, table->camera pose and distortion; table frame x right, y down, z into the table."""

    camera_matrix: np.ndarray
    rotation: np.ndarray
    translation: np.ndarray
    image_size: tuple[int, int]
    dist_coeffs: np.ndarray = field(default_factory=lambda: np.zeros(5))

    @property
    def position_mm(self) -> np.ndarray:
        """(x, y, h above the table)."""
        c = -self.rotation.T @ self.translation
        return np.array([c[0], c[1], -c[2]])

    def project(self, points_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Raw (distorted) pixels of table points ``(n, 2)`` at ``height_mm`` above the table."""
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(points),))
        xyz = np.column_stack([points, z])
        rvec, _ = cv2.Rodrigues(self.rotation)
        px, _ = cv2.projectPoints(xyz, rvec, self.translation, self.camera_matrix, self.dist_coeffs)
        return px.reshape(-1, 2)

    def pixels_to_table(self, pixels: np.ndarray) -> np.ndarray:
        """True table points (z = 0) seen at raw pixels ``(n, 2)``; NaN where the ray misses the table."""
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        norm = undistort_raw(pts, self.camera_matrix, self.dist_coeffs).reshape(-1, 2)
        rays = self.rotation.T @ np.column_stack([norm, np.ones(len(norm))]).T  # (3, n) in table frame
        centre = -self.rotation.T @ self.translation
        scale = -centre[2] / rays[2]
        table = centre[:2, None] + rays[:2] * scale
        table[:, scale <= 0] = np.nan
        return table.T


def look_at(
    target_mm: tuple[float, float],
    distance_mm: float,
    tilt_deg: float,
    image_size: tuple[int, int] = PI_FRAME,
    hfov_deg: float = PI_HFOV_DEG,
    azimuth_deg: float = 0.0,
    roll_deg: float = 0.0,
    dist_coeffs: np.ndarray | None = None,
    principal_offset_px: tuple[float, float] = (0.0, 0.0),
) -> PinholeCamera:
    """A camera ``distance_mm`` from a table point, tilted ``tilt_deg`` from straight down.

    At azimuth 0 the camera leans back towards +y (the player's side): the table's top is at the top of the
    frame. ``roll_deg`` turns the camera about its optical axis.
    """
    width, height = image_size
    focal = width / 2 / math.tan(math.radians(hfov_deg) / 2)
    k = np.array(
        [
            [focal, 0, (width - 1) / 2 + principal_offset_px[0]],
            [0, focal, (height - 1) / 2 + principal_offset_px[1]],
            [0, 0, 1],
        ]
    )
    tilt, azimuth = math.radians(tilt_deg), math.radians(azimuth_deg)
    back = np.array([math.sin(azimuth) * math.sin(tilt), math.cos(azimuth) * math.sin(tilt), -math.cos(tilt)])
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target + distance_mm * back
    forward = -back
    down_hint = np.array([math.sin(azimuth), math.cos(azimuth), 0.0]) if tilt_deg > 0 else np.array([0.0, 1, 0])
    y_cam = down_hint - forward * (down_hint @ forward)
    y_cam /= np.linalg.norm(y_cam)
    x_cam = np.cross(y_cam, forward)
    rotation = np.vstack([x_cam, y_cam, forward])
    roll = math.radians(roll_deg)
    roll_matrix = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]])
    rotation = roll_matrix @ rotation
    translation = -rotation @ centre
    coeffs = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, dtype=np.float64)
    return PinholeCamera(k, rotation, translation, image_size, coeffs)


@functools.lru_cache(maxsize=2)
def table_texture(seed: int = 0) -> tuple[np.ndarray, float, tuple[float, float]]:
    """A wood-brown table top (BGR) at 1 px/mm covering -1500..1500 mm: image, px_per_mm, origin_mm."""
    rng = np.random.default_rng(seed)
    px_per_mm, half = 1.0, 1500.0
    size = int(2 * half * px_per_mm)
    grain = cv2.resize(rng.normal(0, 1, (size // 40, size // 4)).astype(np.float32), (size, size))
    grain = cv2.GaussianBlur(grain, (0, 0), 1.5)
    base = np.array([60, 95, 140], np.float32)  # BGR wood
    texture = base[None, None, :] * (1 + 0.12 * grain[:, :, None])
    return np.clip(texture, 0, 255).astype(np.uint8), px_per_mm, (-half, -half)


def _sample_grid(camera: PinholeCamera, supersample: int, step: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Table mm (map_x, map_y) for every supersampled output pixel, by interpolating an exact coarse grid."""
    width, height = camera.image_size
    sw, sh = width * supersample, height * supersample
    cols = np.arange(0, sw + step, step, dtype=np.float64)
    rows = np.arange(0, sh + step, step, dtype=np.float64)
    grid_c, grid_r = np.meshgrid(cols, rows)
    pixels = np.column_stack([(grid_c.ravel() + 0.5) / supersample - 0.5, (grid_r.ravel() + 0.5) / supersample - 0.5])
    table = camera.pixels_to_table(pixels).reshape(len(rows), len(cols), 2).astype(np.float32)
    # Linear interpolation of the coarse grid to every sub-pixel (the mapping is smooth at 8-sub-pixel scale).
    map_c = np.broadcast_to((np.arange(sw, dtype=np.float32) / step)[None, :], (sh, sw))
    map_r = np.broadcast_to((np.arange(sh, dtype=np.float32) / step)[:, None], (sh, sw))
    full = cv2.remap(table, np.ascontiguousarray(map_c), np.ascontiguousarray(map_r), cv2.INTER_LINEAR)
    return full[:, :, 0], full[:, :, 1]


def photograph(
    camera: PinholeCamera,
    sheet_gray: np.ndarray,
    sheet_px_per_mm: float,
    sheet_origin_mm: tuple[float, float] = (0.0, 0.0),
    seed: int = 0,
    noise_sigma: float = 2.0,
    blur_sigma: float = 0.6,
    jpeg_quality: int | None = 90,
    supersample: int = 2,
    occluders_mm: list[tuple[float, float, float, float]] | None = None,
) -> np.ndarray:
    """A BGR camera frame of the table with the sheet (uint8 gray, at ``sheet_px_per_mm``) at ``sheet_origin_mm``.

    ``occluders_mm``: axis-aligned rectangles (x0, y0, x1, y1) on the table painted dark green (e.g. a board).
    """
    map_x_mm, map_y_mm = _sample_grid(camera, supersample)
    np.nan_to_num(map_x_mm, copy=False, nan=-1e5)
    np.nan_to_num(map_y_mm, copy=False, nan=-1e5)
    texture, tex_ppm, (tx0, ty0) = table_texture(0)
    image = cv2.remap(
        texture,
        ((map_x_mm - tx0) * tex_ppm - 0.5).astype(np.float32),
        ((map_y_mm - ty0) * tex_ppm - 0.5).astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(40, 40, 40),
    )
    # Paper is not perfectly white in a photo: 255 -> 230, 0 -> 35. The fourth channel marks the paper.
    paper = (35 + sheet_gray.astype(np.float32) * (195 / 255)).astype(np.uint8)
    sheet_bgra = cv2.merge([paper, paper, paper, np.full_like(paper, 255)])
    sx = ((map_x_mm - sheet_origin_mm[0]) * sheet_px_per_mm - 0.5).astype(np.float32)
    sy = ((map_y_mm - sheet_origin_mm[1]) * sheet_px_per_mm - 0.5).astype(np.float32)
    sheet_img = cv2.remap(sheet_bgra, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    on_paper = sheet_img[:, :, 3] > 127  # supersampling anti-aliases the paper's edge
    image[on_paper] = sheet_img[:, :, :3][on_paper]
    for x0, y0, x1, y1 in occluders_mm or []:
        inside = (map_x_mm >= x0) & (map_x_mm <= x1) & (map_y_mm >= y0) & (map_y_mm <= y1)
        image[inside] = (40, 90, 50)
    width, height = camera.image_size
    image = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    # Uneven light: brighter near one corner.
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    light = 0.85 + 0.25 * (1 - (xx / width + yy / height) / 2)
    image *= light[:, :, None]
    if blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), blur_sigma)
    rng = np.random.default_rng(seed + 1)
    if noise_sigma > 0:
        image += rng.normal(0, noise_sigma, image.shape).astype(np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    if jpeg_quality:
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        assert ok
        image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    return image


@functools.lru_cache(maxsize=4)
def _sheet_image(paper: str, px_per_mm: float) -> np.ndarray:
    from calibration.sheet import draw_sheet, sheet_layout

    return draw_sheet(sheet_layout(paper), px_per_mm)


@functools.lru_cache(maxsize=24)
def sheet_photo(
    paper: str = "a4",
    distance_mm: float = 800.0,
    tilt_deg: float = 20.0,
    azimuth_deg: float = 0.0,
    roll_deg: float = 0.0,
    seed: int = 0,
    image_size: tuple[int, int] = PI_FRAME,
    dist_coeffs: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    occluders_mm: tuple[tuple[float, float, float, float], ...] = (),
    target_mm: tuple[float, float] | None = None,
    hfov_deg: float = PI_HFOV_DEG,
) -> tuple[PinholeCamera, np.ndarray]:
    """A (cached, read-only) photo of the calibration sheet lying at the table origin, and its camera.

    The camera looks at ``target_mm`` (default: the sheet's centre)."""
    from calibration.sheet import PAPER_SIZES_MM

    width, height = PAPER_SIZES_MM[paper]
    target = target_mm or (width / 2, height / 2)
    camera = look_at(
        target,
        distance_mm,
        tilt_deg,
        image_size,
        hfov_deg,
        azimuth_deg,
        roll_deg,
        np.array(dist_coeffs, dtype=np.float64),
    )
    sheet_ppm = 5.0
    image = photograph(camera, _sheet_image(paper, sheet_ppm), sheet_ppm, seed=seed, occluders_mm=list(occluders_mm))
    image.setflags(write=False)
    return camera, image


def sheet_area_grid(paper: str = "a4", step_mm: float = 10.0) -> np.ndarray:
    """(n, 2) table points covering the whole sheet (the calibrated area), mm."""
    from calibration.sheet import PAPER_SIZES_MM

    width, height = PAPER_SIZES_MM[paper]
    xs = np.linspace(0.0, width, int(round(width / step_mm)) + 1)
    ys = np.linspace(0.0, height, int(round(height / step_mm)) + 1)
    grid_x, grid_y = np.meshgrid(xs, ys)
    return np.column_stack([grid_x.ravel(), grid_y.ravel()])


def rms(errors: np.ndarray) -> float:
    """Root mean square of distances (..., 2) or of scalars."""
    errors = np.asarray(errors, dtype=np.float64)
    if errors.ndim > 1 and errors.shape[-1] == 2:
        errors = np.linalg.norm(errors, axis=-1)
    return float(np.sqrt(np.mean(errors**2)))
