"""A fast top-down view of the table for finding pieces: one ``cv2.remap`` with maps precomputed per calibration.

:func:`calibration.rectify.rectify` makes a check image; it recomputes its maps on every call. Following a
game needs the same warp many times a second, so :class:`TableView` computes the maps once (lens distortion
included, as fixed-point maps that ``cv2.remap`` reads fastest) and applies them to every frame.

The view covers the table seen in the frame (limited to ``reach_mm`` around the frame centre's table point) at
``px_per_mm`` (1 px/mm by default: a tile is 51 px, a coin 19 px, plenty to find them; reading them uses the raw
frame, see :mod:`vision.crops`). When the frame has more than about 1.5 pixels per mm, the frame is first
halved with ``cv2.pyrDown`` (a proper low-pass) and the maps read the half-size frame: no aliasing, less memory
traffic. The output pixel convention is :func:`calibration.rectify.rectified_matrix`'s.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.rectify import Rectified, rectified_matrix, visible_bounds_mm
from calibration.table_calibration import Calibration

__all__ = ["TableView"]

_MAX_PIXELS = 1_300_000  # cap of the view's size: lower px_per_mm rather than slow down
_MAP_STEP = 8  # output pixels between exactly computed map points (bilinear in between: < 0.01 px error)


class TableView:
    """Precomputed warp from frames of one calibration to a top-down view of the table plane (height 0).

    ``bounds_mm`` (x0, y0, x1, y1) and ``px_per_mm`` describe the view; :meth:`rectify` warps a frame;
    :meth:`to_table` / :meth:`to_view` convert coordinates.
    """

    def __init__(
        self,
        calibration: Calibration,
        px_per_mm: float = 1.0,
        bounds_mm: tuple[float, float, float, float] | None = None,
        reach_mm: float = 900.0,
        max_pixels: int = _MAX_PIXELS,
    ) -> None:
        self.calibration = calibration
        width, height = calibration.image_size
        if bounds_mm is None:
            centre = calibration.pixel_to_table(np.array([(width - 1) / 2, (height - 1) / 2]))
            area = (centre[0] - 1, centre[1] - 1, centre[0] + 1, centre[1] + 1)
            x0, y0, x1, y1 = visible_bounds_mm(calibration, area)
            x0, x1 = max(x0, centre[0] - reach_mm), min(x1, centre[0] + reach_mm)
            y0, y1 = max(y0, centre[1] - reach_mm), min(y1, centre[1] + reach_mm)
            bounds_mm = (math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1))
        x0, y0, x1, y1 = bounds_mm
        area_mm2 = max(1.0, (x1 - x0) * (y1 - y0))
        px_per_mm = min(float(px_per_mm), math.sqrt(max_pixels / area_mm2))
        self.bounds_mm = (float(x0), float(y0), float(x1), float(y1))
        self.px_per_mm = px_per_mm
        self.width = max(1, int(math.ceil((x1 - x0) * px_per_mm)))
        self.height = max(1, int(math.ceil((y1 - y0) * px_per_mm)))
        self.matrix = rectified_matrix(self.bounds_mm, px_per_mm)  # table mm -> view px
        native = calibration.px_per_mm_at(np.array([(x0 + x1) / 2, (y0 + y1) / 2]))
        self.half = native > 1.5 * px_per_mm  # read a pyrDown'ed frame (once: more would blur seams away)
        self._map1, self._map2, self.valid = self._maps()

    def _maps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        step = _MAP_STEP
        cols = np.arange(0, self.width + step, step, dtype=np.float64)
        rows = np.arange(0, self.height + step, step, dtype=np.float64)
        grid_c, grid_r = np.meshgrid(cols, rows)
        table = self.to_table(np.column_stack([grid_c.ravel(), grid_r.ravel()]))
        source = self.calibration.table_to_pixel(table).reshape(len(rows), len(cols), 2)
        # Points beyond the horizon project from behind the camera (w < 0), and lens distortion folds points far
        # outside the frame back into it: both are caught by the sign of w and by a round trip.
        g0 = np.linalg.inv(self.calibration.homography)
        w = table @ g0[2, :2] + g0[2, 2]
        centre = self.calibration.pixel_to_table(np.array(self.calibration.image_size, float) / 2)
        w_centre = centre @ g0[2, :2] + g0[2, 2]
        back = self.calibration.pixel_to_table(source.reshape(-1, 2)).reshape(source.shape)
        bad = ~np.all(np.isfinite(source), axis=-1) | (np.linalg.norm(back - table.reshape(source.shape), axis=-1) > 1)
        bad |= (np.sign(w) != np.sign(w_centre)).reshape(bad.shape)
        source[bad] = -1000.0
        if self.half:
            source = source / 2.0  # pyrDown: output pixel i is centred on input pixel 2i
        source = source.astype(np.float32)
        map_c = np.broadcast_to((np.arange(self.width, dtype=np.float32) / step)[None], (self.height, self.width))
        map_r = np.broadcast_to((np.arange(self.height, dtype=np.float32) / step)[:, None], (self.height, self.width))
        full = cv2.remap(source, np.ascontiguousarray(map_c), np.ascontiguousarray(map_r), cv2.INTER_LINEAR)
        width, height = self.calibration.image_size
        if self.half:
            width, height = (width + 1) // 2, (height + 1) // 2
        valid = (full[..., 0] >= 0) & (full[..., 1] >= 0) & (full[..., 0] <= width - 1) & (full[..., 1] <= height - 1)
        # float maps: OpenCV's remap reads them faster than fixed-point ones for single-channel images
        return np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1]), valid

    # -- coordinates ------------------------------------------------------------------------------------------
    def to_table(self, view_px: np.ndarray) -> np.ndarray:
        """View pixel coordinates ``(..., 2)`` -> table mm."""
        p = np.asarray(view_px, dtype=np.float64)
        x0, y0 = self.bounds_mm[0], self.bounds_mm[1]
        return np.stack([x0 + (p[..., 0] + 0.5) / self.px_per_mm, y0 + (p[..., 1] + 0.5) / self.px_per_mm], axis=-1)

    def to_view(self, table_mm: np.ndarray) -> np.ndarray:
        """Table mm ``(..., 2)`` -> view pixel coordinates."""
        p = np.asarray(table_mm, dtype=np.float64)
        x0, y0 = self.bounds_mm[0], self.bounds_mm[1]
        return np.stack([(p[..., 0] - x0) * self.px_per_mm - 0.5, (p[..., 1] - y0) * self.px_per_mm - 0.5], axis=-1)

    # -- frames -----------------------------------------------------------------------------------------------
    def rectify(self, image: np.ndarray) -> Rectified:
        """The top-down view of ``image`` (a frame of the calibration's size; BGR or grey)."""
        source = cv2.pyrDown(image) if self.half else image
        out = cv2.remap(source, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return Rectified(out, self.bounds_mm, self.px_per_mm)

    def rectify_grey(self, grey: np.ndarray) -> np.ndarray:
        """The top-down view (uint8) of a grey frame: what finding pieces needs, a third of a colour view's cost."""
        return self.rectify(grey).image
