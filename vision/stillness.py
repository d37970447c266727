"""Knowing when the table is still: a change is judged only once hands are gone and nothing moves.

The live loop feeds every frame to a :class:`StillnessTracker`; it answers with a :class:`StillnessState`:
is the table still (and for how long), how much moved since the previous frame, did anything change since
the last stable frame (and where, as boxes in frame pixels), is a hand or arm in view, and did something
happen to the picture as a whole (``event``: the light changed, the camera moved, a frame dropped out).

How (all on small grey frames, ``work_width_px`` wide, so the cost does not depend on the camera):

* frames are downscaled by a whole factor with area averaging and blurred, which removes most sensor noise
  and JPEG blocks;
* two frames are compared after **light compensation**: the brightness ratio between them is fitted as a
  smooth spline surface in log space plus a function of grey level (the camera's tone curve compresses
  highlights), robustly, ignoring pixels that changed, so a lamp switched on at one side, an auto-exposure
  step or slow daylight drift is not motion; the fit's median is the global
  ``light_ratio`` and a step beyond ``light_change_ratio`` is reported once as ``"light-changed"``;
* a pixel changed when its compensated difference exceeds ``max(min_pixel_change, noise_k * sigma)`` where
  sigma is the frame pair's own robust noise level (median absolute deviation), so noisy cameras and
  dark rooms adapt by themselves;
* **motion** = changed fraction against the previous frame; the table is **still** when motion stays below
  ``motion_fraction`` for ``still_frames`` frames and ``still_s`` seconds, with no hand or arm in view;
* a **hand or arm** is a large changed region (against the stable frame, or moving) touching the frame
  border, where arms come from. If it is skin-coloured where the table was not, it blocks stillness for as
  long as it stays (a hand resting over the board is never judged); otherwise (a sleeve, a box put down at
  the edge, a hand over a wooden table, whose colour skin shares) only until it has been motionless for
  ``intrusion_settle_s``, so that nothing left at the edge can block the loop forever. Give the tracker a
  ``play_region`` (frame pixels) and arms that do not reach into it (resting at the table's edge) never block;
* when the table settles, the stable frame and the current one are compared as a whole (corners tracked by
  Lucas-Kanade and a RANSAC similarity; phase correlation where the table lacks texture): a view that moved
  by more than ``camera_shift_px`` anywhere means the camera was bumped (``"camera-moved"``; the tracker then
  starts over from the current frame, and the loop should re-calibrate); so does a settled picture of which
  more than ``camera_moved_fraction`` changed (the camera turned, or the view is another one);
* a blank frame, a change of frame size or a gap in time longer than ``max_gap_s`` is a ``"dropout"``: the
  still count starts again (nothing can be said about what happened unseen).

The stable reference frame is taken automatically the first time the table is still, and afterwards moved
on only by :meth:`StillnessTracker.accept` (the loop judged the change) or by a camera move. Small blobs
below ``min_box_area_px`` are ignored. Colour is used only for the skin hint: a piece replaced by one of
another colour but the same grey level is not seen as a change (piecepack pieces differ in pattern too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

__all__ = [
    "Box",
    "StillnessParams",
    "StillnessState",
    "LightFit",
    "StillnessTracker",
    "downscale",
    "work_gray",
    "fit_light",
    "light_nodes_for",
    "change_mask",
    "mask_boxes",
    "camera_shift",
    "CameraMotion",
    "camera_motion",
    "skin_mask",
    "is_blank",
    "EVENTS",
]

Box = tuple[int, int, int, int]  # x, y, width, height in pixels of the full frame

EVENTS = ("light-changed", "camera-moved", "dropout")


@dataclass(frozen=True)
class StillnessParams:
    """Parameters of the tracker; sizes in *work* pixels unless said otherwise, times in seconds."""

    work_width_px: int = 320  # frames are area-downscaled by a whole factor to about this width (never up)
    blur_sigma_px: float = 1.0  # Gaussian blur on the work frame
    min_pixel_change: float = 10.0  # grey levels (0..255): a smaller compensated difference is never a change
    noise_k: float = 4.0  # ... nor one below noise_k times the frame pair's robust noise sigma
    motion_fraction: float = 0.001  # fraction of work pixels changed frame-to-frame above which it is motion
    still_frames: int = 3  # quiet frames in a row needed to call the table still ...
    still_s: float = 0.4  # ... and quiet for at least this long (both must hold)
    change_fraction: float = 0.0002  # fraction of work pixels changed against the stable frame: "changed"
    min_box_area_px: int = 6  # changed blobs smaller than this (work pixels) are noise
    box_pad_px: int = 2  # boxes are grown by this margin (work pixels) before scaling to the frame
    light_change_ratio: float = 0.10  # a global brightness change beyond +-10 % is reported once
    light_nodes: int = 6  # smoothness of the light model: spline functions across the width (0: one global gain)
    tone_nodes: int = 6  # grey-level nodes of the camera's tone response in the light model (0: none)
    camera_shift_px: float = 2.0  # FULL-frame pixels: a view moved more than this (at any corner) = camera moved
    camera_shift_response: float = 0.15  # phase-correlation peak needed to trust a shift without features (0..1)
    camera_moved_fraction: float = 0.5  # more of the picture than this changed when settling: the camera moved
    arm_min_fraction: float = 0.004  # a border-touching changed region this big (fraction of frame) is an arm
    skin_min_fraction: float = 0.15  # ... a hand if this fraction of it is newly skin-coloured
    intrusion_settle_s: float = 3.0  # an arm region without new skin, motionless this long, no longer blocks
    max_gap_s: float = 2.0  # a longer gap between frames is a dropout
    blank_std: float = 2.0  # a work frame with a grey standard deviation below this is blank (a dropout)

    def __post_init__(self) -> None:
        if self.work_width_px < 32:
            raise ValueError("work_width_px must be at least 32")
        if self.still_frames < 1 or self.still_s < 0:
            raise ValueError("still_frames must be >= 1 and still_s >= 0")
        if self.light_nodes != 0 and self.light_nodes < 4:
            raise ValueError("light_nodes must be 0 (one global gain) or at least 4")


@dataclass(frozen=True)
class StillnessState:
    """What the tracker says about one frame.

    ``still``: the table has been quiet long enough and no hand is in view. ``settled``: this is the first
    still frame after motion (or after start): the moment to judge. ``still_for_s``: how long it has been
    quiet (0 while moving). ``motion_fraction``: fraction of work pixels changed since the previous frame.
    ``changed``/``changed_fraction``/``changed_boxes``: difference from the stable reference frame, boxes
    (x, y, w, h) in full-frame pixels, largest first. ``hand``: a hand or arm blocks stillness;
    ``hand_boxes``: every arm-like region in view (blocking or not), frame pixels. ``light_ratio``:
    brightness now / in the stable frame. ``shift_px``: how far the view's centre moved (dx, dy, full-frame
    pixels) since the stable frame, measured when the table settles (None otherwise). ``event``: None,
    ``"light-changed"``, ``"camera-moved"`` or ``"dropout"`` (then ``motion_fraction`` is 1.0: unknown).
    """

    still: bool
    still_for_s: float
    motion_fraction: float
    changed: bool = False
    changed_fraction: float = 0.0
    changed_boxes: tuple[Box, ...] = ()
    event: str | None = None
    settled: bool = False
    hand: bool = False
    hand_boxes: tuple[Box, ...] = ()
    light_ratio: float = 1.0
    shift_px: tuple[float, float] | None = None
    has_reference: bool = False
    time_s: float = 0.0


# ------------------------------------------------------------------------------------------------------------
# Plain functions
# ------------------------------------------------------------------------------------------------------------
def downscale(image: np.ndarray, work_width_px: int) -> tuple[np.ndarray, float]:
    """Area-average ``image`` down by the whole factor k = round(width / work_width_px) (never up).

    Returns the small image (about ``work_width_px`` wide) and the scale k (frame pixels per work pixel).
    A whole factor passed as ``fx = fy = 1/k`` takes OpenCV's fast path for INTER_AREA (about 3x faster
    than an arbitrary size on a 1640x1232 frame).
    """
    factor = max(1, int(round(image.shape[1] / float(work_width_px))))
    if factor == 1:
        return image, 1.0
    inverse = 1.0 / factor
    return cv2.resize(image, None, fx=inverse, fy=inverse, interpolation=cv2.INTER_AREA), float(factor)


def work_gray(small: np.ndarray, blur_sigma_px: float) -> np.ndarray:
    """Grey float32 (0..255) of a small BGR (or grey) frame, blurred by ``blur_sigma_px``."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    gray = gray.astype(np.float32)
    if blur_sigma_px > 0:
        gray = cv2.GaussianBlur(gray, (0, 0), blur_sigma_px)
    return gray


@dataclass(frozen=True)
class LightFit:
    """Result of :func:`fit_light`: ``residual`` = current - gain * reference (grey levels, float32),
    ``ratio`` the median brightness ratio current / reference."""

    residual: np.ndarray
    ratio: float


def _cubic_bspline_basis(positions: np.ndarray, n_functions: int) -> np.ndarray:
    """(len(positions), n_functions) uniform cubic B-spline basis over [0, 1] (rows sum to 1)."""
    t = np.clip(positions, 0.0, 1.0)[:, None]
    spacing = 1.0 / (n_functions - 3)
    centres = (np.arange(n_functions)[None, :] - 1) * spacing
    x = np.abs((t - centres) / spacing)
    inner = (4.0 - 6.0 * x**2 + 3.0 * x**3) / 6.0
    outer = (2.0 - x) ** 3 / 6.0
    return np.where(x < 1.0, inner, np.where(x < 2.0, outer, 0.0))


_SURFACE_CELL_PX = 8  # the smooth gain surface is evaluated every 8 px and interpolated (it is that smooth)


@lru_cache(maxsize=8)
def _light_basis(height: int, width: int, nodes_x: int, nodes_y: int, step: int) -> tuple[np.ndarray, ...]:
    """Bases on a coarse grid (for evaluating the surface) and the design matrix of the sampled pixels.

    Cached: the frame shape does not change while a camera runs.
    """
    coarse_w, coarse_h = -(-width // _SURFACE_CELL_PX), -(-height // _SURFACE_CELL_PX)
    # where cv2.resize (INTER_LINEAR) takes coarse sample j from: pixel (j + 0.5) * width / coarse_w - 0.5
    at_x = ((np.arange(coarse_w) + 0.5) * width / coarse_w - 0.5) / max(width - 1, 1)
    at_y = ((np.arange(coarse_h) + 0.5) * height / coarse_h - 0.5) / max(height - 1, 1)
    coarse_x = _cubic_bspline_basis(at_x, nodes_x)
    coarse_y = _cubic_bspline_basis(at_y, nodes_y)
    sample_x = _cubic_bspline_basis(np.arange(0, width, step) / max(width - 1, 1), nodes_x)
    sample_y = _cubic_bspline_basis(np.arange(0, height, step) / max(height - 1, 1), nodes_y)
    design = (sample_y[:, None, :, None] * sample_x[None, :, None, :]).reshape(-1, nodes_y * nodes_x)
    return coarse_x, coarse_y, np.ascontiguousarray(design)


def light_nodes_for(shape: tuple[int, int], light_nodes: int) -> tuple[int, int]:
    """Spline functions across x and y for ``light_nodes`` across the width (rows by aspect, at least 4)."""
    height, width = shape
    return light_nodes, max(4, int(round(light_nodes * height / width)))


def _tone_basis(intensity: np.ndarray, tone_nodes: int) -> np.ndarray:
    """Piecewise-linear 'hat' functions of grey level (0..255) with ``tone_nodes`` evenly spaced nodes."""
    nodes = np.linspace(0.0, 255.0, tone_nodes)
    spacing = nodes[1] - nodes[0]
    return np.clip(1.0 - np.abs(intensity[:, None] - nodes[None, :]) / spacing, 0.0, None)


def fit_light(
    current: np.ndarray,
    reference: np.ndarray,
    light_nodes: int = 6,
    tone_nodes: int = 6,
    max_samples: int = 2500,
) -> LightFit:
    """Explain the brightness difference of two grey frames by a smooth change of light; return what is left.

    log(current / reference) is fitted as G(x, y) + T(reference grey level):

    * G, a smooth surface: a tensor cubic B-spline with ``light_nodes`` functions across the width (0: one
      global gain), which follows a lamp at one side, uneven light and vignetting, but not the sharp outline
      of a hand or a piece;
    * T, a piecewise-linear function of the grey level with ``tone_nodes`` nodes (0: none): cameras compress
      the highlights (tone curve shoulder), so white paper and tiles brighten less than the table when the
      light goes up; without T they would look changed.

    The fit is robust: only pixels neither too dark nor saturated and near the median log ratio are used, then
    only those near the first fit (changed objects are outliers); a small ridge term pulls unsupported parts
    toward the global ratio. About ``max_samples`` pixels on a regular grid are used. Written here because no
    library offers this small robust fit.
    """
    height, width = current.shape
    step = max(2, int(math.ceil(math.sqrt(height * width / max_samples))))
    cur_s = current[::step, ::step]
    ref_s = reference[::step, ::step]
    usable = ((cur_s > 8) & (ref_s > 8) & (cur_s < 250) & (ref_s < 250)).ravel()
    if usable.sum() < 20:
        return LightFit(cv2.subtract(current, reference, dtype=cv2.CV_32F), 1.0)
    ref_values = ref_s.ravel()[usable]
    log_ratio = np.log(cur_s.ravel()[usable]) - np.log(ref_values)
    median = float(np.median(log_ratio))
    if light_nodes < 4:
        gain = math.exp(median)
        return LightFit((current - np.float32(gain) * reference).astype(np.float32), gain)
    nodes_x, nodes_y = light_nodes_for((height, width), light_nodes)
    coarse_x, coarse_y, design_all = _light_basis(height, width, nodes_x, nodes_y, step)
    design = design_all[usable]
    n_space = design.shape[1]
    if tone_nodes >= 2:
        design = np.hstack([design, _tone_basis(ref_values.astype(np.float64), tone_nodes)])
    n_coef = design.shape[1]
    ridge = 1e-3 * len(log_ratio) / n_coef
    prior = np.zeros(n_coef)
    prior[:n_space] = median  # the surface toward the global ratio, the tone terms toward 0
    coef = prior.copy()
    inliers = np.abs(log_ratio - median) < 0.25
    for tolerance in (0.1, 0.06):
        if inliers.sum() < 3 * n_coef:
            break
        chosen = design[inliers]
        # normal equations with a ridge toward the prior: a small solve, well posed where data is thin
        normal = chosen.T @ chosen + ridge * np.eye(n_coef)
        coef = np.linalg.solve(normal, chosen.T @ log_ratio[inliers] + ridge * prior)
        inliers = np.abs(design @ coef - log_ratio) < tolerance
    log_gain = coarse_y @ coef[:n_space].reshape(nodes_y, nodes_x) @ coarse_x.T
    gain = cv2.resize(np.exp(log_gain).astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
    if tone_nodes >= 2:
        tone_table = np.exp(_tone_basis(np.arange(256, dtype=np.float64), tone_nodes) @ coef[n_space:])
        levels = np.clip(reference, 0, 255).astype(np.uint8)
        gain = gain * tone_table.astype(np.float32)[levels]
    residual = current - gain * reference
    return LightFit(residual.astype(np.float32, copy=False), math.exp(median))


def change_mask(residual: np.ndarray, min_pixel_change: float, noise_k: float) -> tuple[np.ndarray, float]:
    """Pixels whose |residual| exceeds max(min_pixel_change, noise_k * robust sigma); isolated pixels removed.

    Returns the uint8 mask (0/1) and the threshold used (grey levels).
    """
    sample = residual[::3, ::3]  # the noise level from a ninth of the pixels is as good and much cheaper
    centre = float(np.median(sample))
    sigma = 1.4826 * float(np.median(np.abs(sample - centre)))
    deviation = np.abs(residual - centre)
    threshold = max(float(min_pixel_change), noise_k * sigma)
    mask = (deviation > threshold).astype(np.uint8)
    # opening by a 2x2 square (anchors chosen so that nothing shifts): drops isolated pixels, keeps thin lines
    square = np.ones((2, 2), np.uint8)
    mask = cv2.dilate(cv2.erode(mask, square, anchor=(0, 0)), square, anchor=(1, 1))
    return mask, threshold


def mask_boxes(
    mask: np.ndarray,
    scale: float,
    frame_size: tuple[int, int],
    min_area_px: int = 6,
    pad_px: int = 2,
) -> tuple[Box, ...]:
    """Bounding boxes (x, y, w, h) in frame pixels of the mask's blobs, largest first.

    Nearby fragments are joined (closing 5x5) so one moved piece gives one box; blobs with fewer than
    ``min_area_px`` set work pixels are dropped; boxes grow by ``pad_px`` work pixels and are clipped to the
    frame (``frame_size`` = width, height).
    """
    joined = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    areas = np.bincount(labels.ravel(), weights=mask.ravel().astype(np.float64), minlength=count)
    width, height = frame_size
    boxes: list[tuple[float, Box]] = []
    for label in range(1, count):
        if areas[label] < min_area_px:
            continue
        x, y, w, h = (int(v) for v in stats[label, :4])
        x0 = max(0, int(math.floor((x - pad_px) * scale)))
        y0 = max(0, int(math.floor((y - pad_px) * scale)))
        x1 = min(width, int(math.ceil((x + w + pad_px) * scale)))
        y1 = min(height, int(math.ceil((y + h + pad_px) * scale)))
        boxes.append((float(areas[label]), (x0, y0, x1 - x0, y1 - y0)))
    boxes.sort(key=lambda item: -item[0])
    return tuple(box for _, box in boxes)


def camera_shift(reference: np.ndarray, current: np.ndarray) -> tuple[float, float, float]:
    """Global translation (dx, dy) of ``current`` against ``reference`` in work pixels, and the peak response.

    OpenCV's phase correlation with a Hann window (edges do not dominate); the response (about 0..1) says how
    clear the peak is: a textured table shifted as a whole gives a high one, local changes a low one.
    """
    window = cv2.createHanningWindow((reference.shape[1], reference.shape[0]), cv2.CV_32F)
    ref = reference.astype(np.float32) - float(reference.mean())
    cur = current.astype(np.float32) - float(current.mean())
    (dx, dy), response = cv2.phaseCorrelate(ref, cur, window)
    return float(dx), float(dy), float(response)


@dataclass(frozen=True)
class CameraMotion:
    """How the view moved between two work frames (work pixels).

    ``shift`` is the displacement (dx, dy) of the frame centre, ``max_displacement`` the largest displacement
    of a frame corner (a turn moves the corners even when the centre stays), ``method`` "features" (corners
    tracked by pyramidal Lucas-Kanade and a RANSAC similarity: shift, turn and zoom) or "phase" (phase
    correlation, shift only: when the table has too little texture for corners), ``confidence`` the inlier
    share or the phase peak.
    """

    shift: tuple[float, float]
    max_displacement: float
    method: str
    confidence: float


def camera_motion(reference: np.ndarray, current: np.ndarray, min_inliers: int = 12) -> CameraMotion:
    """Estimate how the camera moved between two grey work frames.

    Corners of the reference (``cv2.goodFeaturesToTrack``) are followed into the current frame with
    pyramidal Lucas-Kanade (sub-pixel, up to about 40 work pixels of motion) and a similarity transform is
    fitted with RANSAC (``cv2.estimateAffinePartial2D``): moved pieces are outliers, the table, the sheet and
    the other pieces agree. With fewer than ``min_inliers`` agreeing corners, phase correlation
    (:func:`camera_shift`) gives the shift alone.
    """
    height, width = reference.shape
    ref8 = np.clip(reference, 0, 255).astype(np.uint8)
    cur8 = np.clip(current, 0, 255).astype(np.uint8)
    corners = cv2.goodFeaturesToTrack(ref8, maxCorners=300, qualityLevel=0.01, minDistance=7, blockSize=7)
    if corners is not None and len(corners) >= min_inliers:
        corners = corners.reshape(-1, 1, 2).astype(np.float32)
        tracked, status, _ = cv2.calcOpticalFlowPyrLK(ref8, cur8, corners, None, winSize=(21, 21), maxLevel=3)
        found = status.reshape(-1) == 1
        if int(found.sum()) >= min_inliers:
            matrix, inliers = cv2.estimateAffinePartial2D(
                corners[found], tracked[found], method=cv2.RANSAC, ransacReprojThreshold=1.0
            )
            count = 0 if inliers is None else int(np.asarray(inliers).sum())
            if matrix is not None and count >= min_inliers:
                frame = np.float64([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1],
                                    [(width - 1) / 2, (height - 1) / 2]])
                moved = frame @ matrix[:, :2].T + matrix[:, 2]
                displacement = np.linalg.norm(moved - frame, axis=1)
                centre = moved[4] - frame[4]
                return CameraMotion((float(centre[0]), float(centre[1])), float(displacement.max()), "features",
                                    count / int(found.sum()))
    dx, dy, response = camera_shift(reference, current)
    return CameraMotion((dx, dy), math.hypot(dx, dy), "phase", response)


def skin_mask(small_bgr: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (uint8 0/1): the common YCrCb box Cr 133-173, Cb 77-127, not too dark.

    A hint only: wood and some red or orange pieces fall in it too, so it is used only on changed pixels.
    """
    ycrcb = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2YCrCb)
    inside = cv2.inRange(ycrcb, (40, 133, 77), (255, 173, 127))
    return (inside > 0).astype(np.uint8)


def is_blank(gray: np.ndarray, min_std: float = 2.0) -> bool:
    """A frame with (almost) no contrast: a black or white glitch frame, a covered lens."""
    return float(gray.std()) < min_std


def _touches_border(stats_row: np.ndarray, width: int, height: int) -> bool:
    x, y, w, h = (int(v) for v in stats_row[:4])
    return x == 0 or y == 0 or x + w >= width or y + h >= height


# ------------------------------------------------------------------------------------------------------------
# The tracker
# ------------------------------------------------------------------------------------------------------------
@dataclass
class _Work:
    small: np.ndarray  # BGR work frame
    gray: np.ndarray  # blurred grey float32
    scale: float
    frame_size: tuple[int, int]  # full frame (width, height)


@dataclass
class StillnessTracker:
    """Feed every frame with :meth:`update`; call :meth:`accept` after judging a still frame.

    ``play_region`` (x, y, w, h in frame pixels, optional) is where the pieces are: an arm that does not reach
    into it does not block stillness. State kept: the previous work frame, the stable reference frame, the
    start of the current quiet run and the light level last reported. No hidden global state; :meth:`reset`
    forgets everything.
    """

    params: StillnessParams = field(default_factory=StillnessParams)
    play_region: Box | None = None

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget all frames: the next still moment becomes the new reference."""
        self._previous: _Work | None = None
        self._previous_time: float | None = None
        self._reference: _Work | None = None
        self._reference_skin: np.ndarray | None = None
        self._quiet_since: float | None = None
        self._quiet_count = 0
        self._motionless_since: float | None = None
        self._was_still = False
        self._light_base = 1.0

    @property
    def reference_gray(self) -> np.ndarray | None:
        """The stable reference work frame (grey), or None before the table was first still."""
        return None if self._reference is None else self._reference.gray

    def accept(self) -> None:
        """Make the last frame the stable reference (the loop has judged it): changes are measured from here."""
        if self._previous is not None:
            self._set_reference(self._previous)

    def _set_reference(self, work: _Work) -> None:
        self._reference = work
        self._reference_skin = skin_mask(work.small)
        self._light_base = 1.0

    # --- one frame ------------------------------------------------------------------------------------------
    def update(self, image: np.ndarray, time_s: float) -> StillnessState:
        """Take one BGR (or grey) frame captured at ``time_s`` seconds; say whether the table is still."""
        p = self.params
        small, scale = downscale(image, p.work_width_px)
        work = _Work(small, work_gray(small, p.blur_sigma_px), scale, (image.shape[1], image.shape[0]))

        blank = is_blank(work.gray, p.blank_std)
        dropout = blank
        if self._previous is not None and self._previous.frame_size != work.frame_size:
            self.reset()  # another camera or resolution: nothing compares any more
            dropout = True
        if self._previous_time is not None and not (0.0 <= time_s - self._previous_time <= p.max_gap_s):
            dropout = True
        if dropout:
            self._quiet_since, self._quiet_count, self._motionless_since = None, 0, None
            self._was_still = False
            if not blank:  # keep a real frame after a gap: the next one is compared with it
                self._previous, self._previous_time = work, time_s
            return StillnessState(
                still=False, still_for_s=0.0, motion_fraction=1.0, event="dropout",
                has_reference=self._reference is not None, time_s=float(time_s),
            )

        # motion: against the previous frame
        if self._previous is None:
            motion_mask = np.zeros(work.gray.shape, np.uint8)
        else:
            fit = fit_light(work.gray, self._previous.gray, p.light_nodes, p.tone_nodes)
            motion_mask, _ = change_mask(fit.residual, p.min_pixel_change, p.noise_k)
        motion_fraction = float(motion_mask.mean())
        moving = motion_fraction >= p.motion_fraction
        self._previous, self._previous_time = work, time_s
        if moving:
            self._motionless_since = None
        elif self._motionless_since is None:
            self._motionless_since = time_s

        # change: against the stable reference
        event: str | None = None
        light_ratio = 1.0
        changed_mask: np.ndarray | None = None
        if self._reference is not None:
            fit = fit_light(work.gray, self._reference.gray, p.light_nodes, p.tone_nodes)
            light_ratio = fit.ratio
            changed_mask, _ = change_mask(fit.residual, p.min_pixel_change, p.noise_k)
            if abs(math.log(max(light_ratio, 1e-6) / self._light_base)) > math.log1p(p.light_change_ratio):
                event = "light-changed"
                self._light_base = light_ratio

        hand, hand_boxes = self._arms(work, motion_mask, changed_mask, time_s)
        quiet = not moving and not hand
        if quiet:
            if self._quiet_since is None:
                self._quiet_since = time_s
            self._quiet_count += 1
        else:
            self._quiet_since, self._quiet_count = None, 0
        still_for_s = time_s - self._quiet_since if self._quiet_since is not None else 0.0
        still = quiet and self._quiet_count >= p.still_frames and still_for_s >= p.still_s - 1e-9
        settled = still and not self._was_still
        self._was_still = still

        shift_px: tuple[float, float] | None = None
        if settled and self._reference is None:
            self._set_reference(work)  # the first still moment is the first reference
            changed_mask = np.zeros(work.gray.shape, np.uint8)
        elif settled and self._reference is not None:
            motion = camera_motion(self._reference.gray, work.gray)
            shift_px = (motion.shift[0] * work.scale, motion.shift[1] * work.scale)
            trusted = motion.method == "features" or motion.confidence >= p.camera_shift_response
            shifted = trusted and motion.max_displacement * work.scale > p.camera_shift_px
            # turned or tilted (no clean shift), or a view so different nothing compares: also start over
            overturned = changed_mask is not None and float(changed_mask.mean()) > p.camera_moved_fraction
            if shifted or overturned:
                self._set_reference(work)  # start over: every comparison with the old view is meaningless
                width, height = work.frame_size
                return StillnessState(
                    still=True, still_for_s=float(still_for_s), motion_fraction=motion_fraction, changed=True,
                    changed_fraction=1.0, changed_boxes=((0, 0, width, height),), event="camera-moved",
                    settled=True, light_ratio=float(light_ratio), shift_px=shift_px, has_reference=True,
                    time_s=float(time_s),
                )

        changed_fraction = 0.0
        boxes: tuple[Box, ...] = ()
        if changed_mask is not None:
            changed_fraction = float(changed_mask.mean())
            if changed_fraction >= p.change_fraction:
                boxes = mask_boxes(changed_mask, work.scale, work.frame_size, p.min_box_area_px, p.box_pad_px)
        return StillnessState(
            still=still,
            still_for_s=float(still_for_s),
            motion_fraction=motion_fraction,
            changed=bool(boxes),
            changed_fraction=changed_fraction,
            changed_boxes=boxes,
            event=event,
            settled=settled,
            hand=hand,
            hand_boxes=hand_boxes,
            light_ratio=float(light_ratio),
            shift_px=shift_px,
            has_reference=self._reference is not None,
            time_s=float(time_s),
        )

    def _arms(
        self, work: _Work, motion_mask: np.ndarray, changed_mask: np.ndarray | None, time_s: float
    ) -> tuple[bool, tuple[Box, ...]]:
        """Arm-like regions (large, touching the border) and whether any of them blocks stillness."""
        p = self.params
        region_mask = motion_mask if changed_mask is None else (changed_mask | motion_mask)
        joined = cv2.morphologyEx(region_mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
        height, width = joined.shape
        min_area = p.arm_min_fraction * joined.size
        candidates = [
            label for label in range(1, count)
            if stats[label, cv2.CC_STAT_AREA] >= min_area and _touches_border(stats[label], width, height)
        ]
        if not candidates:
            return False, ()
        new_skin = skin_mask(work.small)
        if self._reference_skin is not None:
            new_skin &= 1 - self._reference_skin  # skin-coloured now where the table was not
        play = self._play_slice(work)
        motionless_for = time_s - self._motionless_since if self._motionless_since is not None else 0.0
        blocking = False
        boxes: list[Box] = []
        for label in candidates:
            inside = labels == label
            x, y, w, h = (int(v) for v in stats[label, :4])
            s = work.scale
            x0, y0 = int(x * s), int(y * s)
            boxes.append((x0, y0, min(work.frame_size[0], int(math.ceil((x + w) * s))) - x0,
                          min(work.frame_size[1], int(math.ceil((y + h) * s))) - y0))
            if play is not None and not inside[play].any():
                continue  # resting at the edge of the table, not over the play area
            if float(new_skin[inside].mean()) >= p.skin_min_fraction or motionless_for < p.intrusion_settle_s:
                blocking = True
        return blocking, tuple(boxes)

    def _play_slice(self, work: _Work) -> tuple[slice, slice] | None:
        if self.play_region is None:
            return None
        x, y, w, h = self.play_region
        s = work.scale
        return (slice(max(0, int(y / s)), max(1, int(math.ceil((y + h) / s)))),
                slice(max(0, int(x / s)), max(1, int(math.ceil((x + w) / s)))))
