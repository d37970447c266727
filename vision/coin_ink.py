"""Whether a coin's ink shows colour, measured so that blur does not change the answer.

The coin reader's features are log colour ratios to the face: when blur mixes a few pixels of ink with the
light face (a numeral at 1 px/mm), a blue or green ink's log ratios shrink towards the lightness axis faster than
its darkness does, and a JPEG's colour planes (half the resolution of its lightness) blur the colour further.
A blurred "arms 2" then correlates better with the black suit's template than with its own (bench_conditions'
coin grids at 820x616: default 1 and bold 5 coins read surely as moons).

In LINEAR colour ratios to the face, ``x / face - 1``, a pixel that mixes a share ``a`` of ink with the face is
``a * (ink / face - 1)``: blur changes the length, never the direction. Blurring the crop by more than any
camera's colour planes are blurred (``INK_BLUR_MM``: a 4:2:0 JPEG's colour cell is 2 frame pixels, 2 mm at
1 px/mm) puts lightness and colour at one resolution, so the ink's direction is measured the same whatever the
frame's sharpness. :func:`ink_chroma` is that direction's colour over its darkness: about 0 for black ink on any
face and under any light (a ratio is the same in every channel), clearly more for coloured ink.

Why a measured rule and not the taught templates: the profile holds the inks only as normalised log features
(their linear length is lost), so what is taught is used for one thing: which suits print in an achromatic ink
(:func:`achromatic_suits`, from the templates' colour). The boundary ``ACHROMATIC_MAX`` is measured on the coins
of four editions' bench frames (1.5-1.8 px/mm) and coin grids at 1 px/mm (see the constant).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.profile import COIN_ANGLES, COIN_CROP_MM, COIN_RINGS

__all__ = ["INK_BLUR_MM", "ACHROMATIC_MAX", "MARK_COLOUR_PX_PER_MM", "ink_chroma", "achromatic_suits",
           "template_chroma", "frame_px_per_mm"]

INK_BLUR_MM = 1.0  # the crop is blurred this much first: more than a 4:2:0 JPEG's colour planes at 1 px/mm
# Ink whose colour over darkness (linear ratios, see ink_chroma) is at most this is black; more, coloured. Measured
# on every sure coin reading of the default and bold editions (whose values print in the suit's colour) in
# bench_detect's dev frames (1640x1232, 1.5-1.8 px/mm: 391 coins) and bench_conditions' coin grids at 820x616
# (1 px/mm: 98): black (moons) inks 0.004-0.26 (a null's dot the most: a few pixels of ink), coloured inks 0.39
# or more (green crowns the least; numerals 0.45 or more); the coins read surely in the wrong suit at 1 px/mm,
# blue arms numerals read as moons, 0.58-0.68.
ACHROMATIC_MAX = 0.3
# A null's mark (bold's dot, about 2.5 mm across) keeps its colour only where the frame's colour planes resolve it:
# a 4:2:0 JPEG (and a Bayer sensor) samples colour every 2 frame pixels, 2 mm at 1 px/mm. Measured on the bold coin
# grids (ink_chroma in the dot's middle): at 1.6-1.7 px/mm (colour cells of 1.2 mm) green crowns dots 0.32 or more
# and black ones 0.19 at most; at 1 px/mm (2 mm cells) the green dots faded to 0.07-0.10, among the black ones'
# 0.01-0.06. Below this scale a dot read as the black suit may be a coloured dot faded: its suit is not read.
MARK_COLOUR_PX_PER_MM = 1.25
_FACE_RING_MM = (6.6, 7.6)  # the face between the print and a printed rim (8.2 mm)
_INK_DISC_MM = 6.4  # the print lies inside this radius
_TEMPLATE_ACHROMATIC = 0.3  # a taught template whose colour over lightness (log features) is below this is black


def frame_px_per_mm(calibration) -> float:
    """The frame's scale (pixels per table mm) at the table point under the frame's centre: a camera's whole
    view is within a few tenths of it (a preview stream's 1 px/mm, a full frame's 1.5-1.8)."""
    centre = np.asarray(calibration.image_size, float).reshape(1, 2) / 2.0
    return float(calibration.px_per_mm_at(calibration.pixel_to_table(centre).reshape(2)))


@lru_cache(maxsize=2)
def _radius_mm(size: int) -> np.ndarray:
    centre = (size - 1) / 2.0
    yy, xx = np.mgrid[0:size, 0:size]
    return np.hypot(xx - centre, yy - centre) * COIN_CROP_MM / size


def ink_chroma(crop: np.ndarray) -> float:
    """A coin crop's (COIN_CROP_PX square, BGR, face-centred) ink colour over its darkness: the crop blurred by
    ``INK_BLUR_MM``, each pixel of the print's disc as linear ratios to the face's median colour minus 1, averaged
    weighted by the pixel's darkness (a matched filter of the ink), and that vector's spread across the three
    channels over its mean. 0 for black or grey ink, whatever the blur and the light; NaN where no ink is darker
    than the face."""
    x = np.asarray(crop, np.float32).reshape(crop.shape[0], crop.shape[1], -1)
    size = x.shape[0]
    sigma = INK_BLUR_MM * size / COIN_CROP_MM
    x = cv2.GaussianBlur(x, (0, 0), sigma).astype(np.float64)
    r = _radius_mm(size)
    face = np.median(x[(r > _FACE_RING_MM[0]) & (r < _FACE_RING_MM[1])], axis=0)
    ratios = x[r < _INK_DISC_MM] / np.maximum(face, 1.0) - 1.0
    dark = np.clip(-ratios.mean(axis=1), 0.0, None)
    weight = float((dark * dark).sum())
    if weight <= 1e-9:
        return float("nan")
    ink = (dark[:, None] * ratios).sum(axis=0) / weight
    lightness = float(ink.mean())
    if lightness >= 0.0:
        return float("nan")
    return float(np.linalg.norm(ink - lightness) / -lightness)


def template_chroma(template: np.ndarray) -> float:
    """A taught coin template's (3 * COIN_RINGS * COIN_ANGLES: lightness and two colour channels) colour over
    lightness along its print: the leading direction of its three channels' second moments."""
    channels = np.asarray(template, np.float64).reshape(3, COIN_RINGS * COIN_ANGLES)
    _, vectors = np.linalg.eigh(channels @ channels.T)
    lead = vectors[:, -1]
    return float(np.hypot(lead[1], lead[2]) / max(abs(lead[0]), 1e-9))


def achromatic_suits(labels: list[tuple[str, object, int | None]], templates: np.ndarray) -> frozenset:
    """The suits whose taught templates (``labels[i]`` = (side, suit, rank) for ``templates[i]``) print in an
    achromatic ink: the median colour over lightness of the suit's templates below ``_TEMPLATE_ACHROMATIC``
    (the taught editions' black moons 0.06-0.16, classic's purple moons 0.53; every coloured suit's templates 0.63
    or more, bold's green crowns the least)."""
    per_suit: dict[object, list[float]] = {}
    for (_, suit, _), template in zip(labels, templates, strict=True):
        if suit is not None:
            per_suit.setdefault(suit, []).append(template_chroma(template))
    return frozenset(s for s, values in per_suit.items() if float(np.median(values)) < _TEMPLATE_ACHROMATIC)

