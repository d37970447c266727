"""Looney pyramids: which size and pose explains a blob, where its footprint is, and what colour its plastic is.

Sizes are told apart by the calibrated model fit, not by pixel counts: each of the six models (small, medium,
large; upright, flat) is fitted to the blob (:mod:`vision.figure_fit`) and the one whose projected outline is
best supported by edges in the frame wins. Upright: the footprint is the base square (centre and angle,
modulo 90 degrees); the apex, seen displaced away from the camera's nadir, is part of the model, so the
displacement *helps* locate the base instead of biasing it. Flat: the outline on the table (a triangle-like
kite of base width x slant height) with the apex direction ``apex_deg``.

Colour: the plastic is translucent, so what the camera sees is the table *filtered* by it. The transmission
``t = seen / background`` (per channel, the background from :mod:`vision.figure_segmentation`) is compared in
log-chromaticity (brightness removed: exposure and lamp strength cancel) with each candidate colour's expected
transmission; black is opaque (dark whatever lies below), clear and white pass the table's colour through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rules.pieces import PYRAMID_COLORS, PyramidPose, PyramidSize
from vision.figure_models import FigureModel, pyramid_model

__all__ = [
    "PYRAMID_REFERENCE_BGR",
    "PYRAMID_MODELS",
    "ColorVote",
    "classify_pyramid_color",
    "pyramid_models",
    "model_size_pose",
]

#: The plastic colours of the default (Rainbow / Xeno) stashes as BGR, the built-in reference when the
#: piece-set profile has none. Black is nearly opaque; clear and white are both colourless.
PYRAMID_REFERENCE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 30, 215),
    "yellow": (20, 210, 245),
    "green": (60, 175, 40),
    "blue": (200, 90, 25),
    "black": (35, 30, 30),
    "orange": (20, 120, 245),
    "purple": (150, 45, 120),
    "cyan": (210, 190, 40),
    "white": (235, 235, 235),
    "clear": (225, 230, 228),
}
# The transmission model t(colour, table) = ((1 - a) + a * c^0.8)^k + s * C / table + w / table, with c the
# plastic colour (0..1), C the same in 0..255 and the table colour in 0..255: light seen through a pyramid
# crosses two or more walls (the exponent k), each filtering a share a of it; light scattered inside the
# plastic adds its own colour (s), glare and reflections add white (w). The four constants were fitted (least
# squares in log-chromaticity) to 264 pyramids of ten colours on five table surfaces rendered by the test
# renderer under random lights; real plastic may want them refitted from teach frames.
_K, _ALPHA, _SCATTER, _WHITE = 4.52, 0.449, 0.247, 10.7
_BLACK_LEVEL = 24.0  # the black plastic seen under ordinary light (0..255): opaque, whatever lies below
_COLOURLESS = ("white", "clear")

PYRAMID_MODELS: dict[tuple[PyramidSize, PyramidPose], FigureModel] = {
    (size, pose): pyramid_model(size, pose.value) for size in PyramidSize for pose in PyramidPose
}


def pyramid_models() -> list[FigureModel]:
    return list(PYRAMID_MODELS.values())


def model_size_pose(model: FigureModel) -> tuple[PyramidSize, PyramidPose]:
    for key, value in PYRAMID_MODELS.items():
        if value is model or value.name == model.name:
            return key
    raise KeyError(model.name)


@dataclass(frozen=True)
class ColorVote:
    """The colour read from a pyramid's pixels: the best, the runner-up and how clear the choice is."""

    color: str
    second: str | None
    margin: float  # distance of the runner-up minus the best's (log-chromaticity units); bigger is clearer
    distance: float  # the best's distance
    ambiguous: bool
    reason: str | None = None


def _expected_transmission(bgr: tuple[int, int, int], background: np.ndarray) -> np.ndarray:
    col = np.asarray(bgr, np.float64) / 255.0
    bg = np.maximum(np.asarray(background, np.float64), 8.0)
    return ((1 - _ALPHA) + _ALPHA * col**0.8) ** _K + (_SCATTER * col * 255.0 + _WHITE) / bg


def _log_chroma(t: np.ndarray) -> np.ndarray:
    lt = np.log(np.maximum(t, 1e-3))
    return lt - lt.mean()


def classify_pyramid_color(seen_bgr: np.ndarray, background_bgr: np.ndarray,
                           colors: tuple[str, ...] | None = None,
                           reference: dict[str, tuple[int, int, int]] | None = None,
                           min_margin: float = 0.08) -> ColorVote:
    """The plastic colour from the median colour seen through the pyramid and the table's colour around it.

    ``colors``: the colours in play (default all of :data:`rules.pieces.PYRAMID_COLORS`); ``reference``: BGR of
    each (default :data:`PYRAMID_REFERENCE_BGR`). Ambiguous when the runner-up is within ``min_margin`` (and
    always between white and clear, which differ only in how much light they pass)."""
    reference = reference or PYRAMID_REFERENCE_BGR
    colors = tuple(c for c in (colors or PYRAMID_COLORS) if c in reference)
    seen = np.maximum(np.asarray(seen_bgr, np.float64), 1.0)
    bg = np.maximum(np.asarray(background_bgr, np.float64), 8.0)
    feat = _log_chroma(seen / bg)
    seen_level = float(seen.mean())
    seen_chroma = float(np.linalg.norm(_log_chroma(seen)))
    # every colour's expected transmission at once (rows), then its log-chromaticity
    refs = np.array([reference[name] for name in colors], np.float64) / 255.0
    expected = ((1 - _ALPHA) + _ALPHA * refs**0.8) ** _K + (_SCATTER * refs * 255.0 + _WHITE) / bg[None]
    logs = np.log(np.maximum(expected, 1e-3))
    logs -= logs.mean(axis=1, keepdims=True)
    dists = np.linalg.norm(feat[None] - logs, axis=1)
    scores = {}
    for name, d in zip(colors, dists, strict=True):
        if name == "black":
            # opaque: dark and colourless whatever the table (its transmission means nothing)
            d = 0.5 * max(0.0, math.log(seen_level / _BLACK_LEVEL)) + max(0.0, seen_chroma - 0.3)
        scores[name] = float(d)
    ranked = sorted(scores.items(), key=lambda kv: kv[1])
    best, d1 = ranked[0]
    second, d2 = ranked[1] if len(ranked) > 1 else (None, math.inf)
    margin = d2 - d1
    ambiguous = margin < min_margin
    reason = None
    if best in _COLOURLESS and second in _COLOURLESS and d2 - d1 < 0.2:
        ambiguous = True
        reason = "white or clear: these look alike"
    elif ambiguous:
        reason = f"colour unclear: {best} or {second}"
    return ColorVote(best, second, float(margin), float(d1), ambiguous, reason)
