"""A coin's "4" told from its "A" by the shape of its ink, whatever way up the coin lies.

The polar templates leave some clear 4s "face unclear": where a 4 is printed, its suit's "A" fits a pixel or two
off the 4's window only 0.07-0.08 behind (the hand-made script 4 and A, the default sans 4 and A: they share the
slanted stroke and a closed counter), and the margin teach raised for the pair asks 0.078-0.084. Those 4s read
as clearly as any to the eye: the A is a triangle whose ink runs along its two legs, the 4 a stem with a crossbar.

The measure here is independent of the templates and of the reading's turn (the A's and 4's templates do not
agree on which way is up: on the same crop the hand-made 4 fits 3 angle steps from the A, the default 4 3 to 29,
so a crop turned upright by either label's turn is tilted for the other). It is taken on the numeral's ink (the
largest connected blob of pixels whose colour stands out from the face's), from three measures a turn does not
change:

- ``ink_off``: how far the ink's centroid lies from its convex hull's centroid (over the hull's size). An A's ink
  runs evenly up its legs while its hull, a triangle, is heaviest at its base: 0.024-0.080. A 4's ink fills its
  hull more evenly: 0.001-0.047.
- ``hu3``: the third Hu moment invariant (log), which grows with the ink's lopsidedness: A 1.9-2.6, 4 2.2-2.9.
- ``solidity``: ink area over hull area. A blurred A fills its counter and its notch; a blurred 4 fills too.

Their linear discriminant (``FOUR_SHAPE_WEIGHTS``, fitted on both fonts together) is the cue. Fitted on the
hand-made coins alone it reads the default ones with every A below -0.2 and the 4s' median at 16; fitted on the
default coins alone, it reads the hand-made ones with every A below -4.2: the cue is the letter's shape, not a
font's.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import COIN_CROP_MM

__all__ = ["FOUR_SHAPE_BAR", "MIN_COUNTER_PX", "SHAPE_FROM_PX_PER_MM", "ink_blob", "shape_measures", "counter_area",
           "reads_as_four", "four_not_ace"]

# The cue's measures (ink_off, hu3, solidity) as the discriminant reads them: (value - centre) / scale, weighted.
# Fitted (Fisher's discriminant) on every truth "A" and "4" of the default and hand-made dev frames (coin grids
# 1000-1005 and 1020-1025, Easy Slider 500-511 and 520-531, tile backs 1100-1105 and 1120-1125) read at their
# middle moved 1 mm (9 positions) and blurred 0 or 1.2 px, the crop at the best label's own window: 4179 crops.
FOUR_SHAPE_CENTRE = (0.0357, 2.3911, 0.9086)
FOUR_SHAPE_SCALE = (0.0193, 0.2119, 0.0566)
FOUR_SHAPE_WEIGHTS = (-6.089, 6.428, -4.202)
# A 4 the templates leave unclear against its A alone is read as a 4 where the cue is at least this and its counter
# shows. On the fitting crops every true A whose best label was its 4 (12, all "face unclear") scored -0.35 or
# less; the true 4s left unclear scored 1.4 (default) and 2.6 (hand-made) or more for 95 % of them, medians 10.8
# and 6.6. Blur is what brings an A up: its counter and the notch between its legs fill in, and a filled triangle
# is nearer a 4. Every truth A and 4 of the same frames and of coin grids 1040-1045 and 1060-1065, Easy Slider
# 540-551 and 560-571, tile backs 1140-1145 and 1160-1165 read at their middle moved 0.5 mm and blurred 0, 1.6,
# 2.0 and 2.5 crop px (0.5 mm a pixel), 13,000 crops: the As scored up to 10 blurred 2-2.5 px (up to 2.3 at 1.6),
# always with no counter left, except these: with a counter, 2.3 at most (default, blurred 1.6 px), 0.3 (hand-made).
# 4s with a counter and at least this, blurred 1.6 px or less: default 1948 of 2214, hand-made 1317 of 2214 (its
# script 4's counter is small and blurs shut first).
FOUR_SHAPE_BAR = 4.0
# ... and the counter's area at least this (crop pixels, 0.25 mm^2 each): a counter that shows at all
MIN_COUNTER_PX = 2.0
# Only in frames of this scale or finer (pixels per table mm at the frame's centre), as the crops measured
# (1.5-1.8 px/mm): at 1 px/mm an A's counter and notch blur shut, and a filled triangle is nearer a 4
SHAPE_FROM_PX_PER_MM = 1.4
# The numeral lies within this many mm of the crop's middle (its own window's): the rim (9.5 mm out) and anything
# beside the coin are left out
_INK_RADIUS_MM = 7.0
_MIN_INK_PX = 40  # fewer ink pixels than this: no numeral to measure (a hand-made 4 or A is 140-190 at 2 px/mm)


def ink_blob(crop: np.ndarray) -> np.ndarray | None:
    """The numeral's ink in a coin crop (h, w, 3): a bool mask of the largest 8-connected blob of pixels whose
    colour stands out from the face's (Otsu's split of each pixel's colour distance from the disc's median colour:
    the inks are dark, coloured or both), within ``_INK_RADIUS_MM``; None where there is too little ink."""
    n = crop.shape[0]
    yy, xx = np.mgrid[:n, :n]
    disc = (xx - (n - 1) / 2) ** 2 + (yy - (n - 1) / 2) ** 2 <= (_INK_RADIUS_MM * n / COIN_CROP_MM) ** 2
    pixels = crop.astype(np.float32)
    face = np.median(pixels[disc], axis=0)
    distance = np.clip(np.sqrt(((pixels - face) ** 2).sum(axis=2)), 0, 255).astype(np.uint8)
    level, _ = cv2.threshold(distance[disc], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = ((distance > level) & disc).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if count < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < _MIN_INK_PX:
        return None
    return labels == largest


def shape_measures(blob: np.ndarray) -> tuple[float, float, float]:
    """``(ink_off, hu3, solidity)`` of an ink blob (see the module's docstring)."""
    mask = blob.astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    hull_area = max(cv2.contourArea(hull), 1.0)
    of_hull = cv2.moments(hull)
    of_ink = cv2.moments(mask, binaryImage=True)
    off = np.hypot(of_ink["m10"] / of_ink["m00"] - of_hull["m10"] / max(of_hull["m00"], 1e-9),
                   of_ink["m01"] / of_ink["m00"] - of_hull["m01"] / max(of_hull["m00"], 1e-9))
    hu = float(cv2.HuMoments(of_ink)[2, 0])
    hu3 = -np.sign(hu) * np.log10(abs(hu) + 1e-30)
    return float(off / np.sqrt(hull_area)), float(hu3), float(mask.sum()) / hull_area


def counter_area(blob: np.ndarray) -> float:
    """The area (pixels) of the ink blob's largest counter (a hole in it: the A's above its crossbar, the 4's
    closed triangle), 0 where none shows."""
    contours, hierarchy = cv2.findContours(blob.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    return max((cv2.contourArea(c) for c, h in zip(contours, hierarchy[0], strict=True) if h[3] >= 0), default=0.0)


def reads_as_four(crop: np.ndarray) -> bool:
    """Whether the crop's numeral is shaped as a 4, not an A: its counter shows (``MIN_COUNTER_PX``) and the cue
    (:func:`four_not_ace`) is ``FOUR_SHAPE_BAR`` or more."""
    blob = ink_blob(crop)
    return blob is not None and counter_area(blob) >= MIN_COUNTER_PX and _cue(blob) >= FOUR_SHAPE_BAR


def _cue(blob: np.ndarray) -> float:
    return float(sum(w * (v - c) / s for v, c, s, w in zip(shape_measures(blob), FOUR_SHAPE_CENTRE,
                                                             FOUR_SHAPE_SCALE, FOUR_SHAPE_WEIGHTS, strict=True)))


def four_not_ace(crop: np.ndarray) -> float:
    """The cue: positive where the crop's numeral is shaped as a 4, negative as an A (NaN: no ink to measure)."""
    blob = ink_blob(crop)
    return float("nan") if blob is None else _cue(blob)
