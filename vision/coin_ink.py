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

from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

import cv2
import numpy as np

from calibration.profile import COIN_ANGLES, COIN_CROP_MM, COIN_RINGS

__all__ = ["INK_BLUR_MM", "ACHROMATIC_MAX", "MARK_COLOUR_PX_PER_MM", "ink_vector", "ink_chroma", "achromatic_suits",
           "template_chroma", "frame_px_per_mm", "RimInk", "rim_ink", "suit_hues", "rim_suit",
           "rim_contradicts", "rim_colour", "rim_face_colour", "rim_face_level", "grey_hue", "frame_rim_suits",
           "rim_lab"]

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


def ink_vector(crop: np.ndarray) -> np.ndarray | None:
    """A coin crop's (COIN_CROP_PX square, BGR, face-centred) ink: the crop blurred by ``INK_BLUR_MM``, each pixel
    of the print's disc as linear ratios to the face's median colour minus 1, averaged weighted by the pixel's
    darkness (a matched filter of the ink): a BGR vector, negative where the ink is darker than the face. None where
    no ink is darker than the face."""
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
        return None
    ink = (dark[:, None] * ratios).sum(axis=0) / weight
    return ink if float(ink.mean()) < 0.0 else None


def ink_chroma(crop: np.ndarray) -> float:
    """A coin crop's ink colour over its darkness: the spread of :func:`ink_vector` across the three channels over
    its mean. 0 for black or grey ink, whatever the blur and the light; NaN where no ink is darker than the face."""
    ink = ink_vector(crop)
    if ink is None:
        return float("nan")
    lightness = float(ink.mean())
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



# --------------------------------------------------------------------------------------------------------------
# A blank null's suit from its printed rim's colour
# --------------------------------------------------------------------------------------------------------------
# The default edition prints nothing for the null: the coin's only mark is a thin rim (a third of a millimetre wide,
# 8.2 mm out) in the suit's colour, a fraction of a pixel at a Pi camera's 1.5-1.8 px/mm. Its colour is read as the
# ink's above: in linear ratios to the face, which blur and a JPEG's half-resolution colour shorten but do not turn.
# Measured on every default coin in bench_detect's coin-grid, tile-backs and Easy Slider frames (dev and
# ``--seed-offset 20``: 35 blank nulls and 360 numerals and suit sides in plain view, whose rims are printed alike,
# cropped at their true places), with the face taken from a ring between the print and the rim (RIM_FACE_MM) so
# that a numeral's ink does not tint it:
# * the rim's colour spreads over 1-1.5 mm (the JPEG's colour cells, the camera's chroma noise) while its darkness
#   stays 0.5 mm wide: the band RIM_BAND_MM averages both, and the face ring stays clear of it;
# * a face brighter than RIM_FACE_MOST in any channel lies in the camera's highlight shoulder, which shrinks that
#   channel's contrast (a black rim then looked red, a green one yellow): no colour is read there;
# * a lens's lateral chromatic aberration and the coin's wooden edge (a brown that looks like the suns' red) tint
#   one side of the band: the colour must be read alike in RIM_SECTORS_AGREE of RIM_SECTORS sectors.
# With these rules the numerals' and suit sides' rims: 0 read in a wrong suit, 31 right (the rest unsure: bright
# frames, faint rims, sectors disagreeing); the blank nulls 0 wrong, 6 right. Without the shoulder rule 3 coins of
# coin grids 1000, 1001, 1003, 1005 were read in a wrong suit, without the sectors' agreement 9 (test_coins).
RIM_BAND_MM = (7.0, 8.25)  # the band averaged for the rim's ink (the rim at 8.2 mm, the coin's edge at 9.5 mm)
RIM_FACE_MM = (5.6, 6.4)  # the face, between a numeral (out to 5.3 mm) and the rim's spread colour
RIM_FACE_MOST = 200.0  # a face channel brighter than this (of 255) may be compressed by the camera's tone curve
RIM_LEAST_DARKNESS = 0.04  # a rim fainter than this (mean linear ratio below the face) shows no colour to read
RIM_BLACK_MOST = 0.1  # colour over darkness at most this: black ink (measured black rims 0.02-0.10) ...
RIM_COLOUR_LEAST = 0.2  # ... at least this: coloured ink (coloured rims 0.22-0.75); between, unsure
RIM_HUE_WITHIN = 35.0  # a coloured rim's hue within this many degrees of its suit's (measured 2-22) ...
RIM_HUE_GAP = 20.0  # ... and this many degrees nearer to it than to any other suit's
RIM_SECTORS = 8
RIM_SECTORS_AGREE = 6  # sectors of the rim that must read the same suit (a wrong suit agreed in 4 at most)

# the chroma plane (colours orthogonal to grey) of BGR vectors: two orthonormal axes
_CHROMA_AXES = np.array([[1.0, -1.0, 0.0], [1.0, 1.0, -2.0]]) / np.array([[np.sqrt(2.0)], [np.sqrt(6.0)]])


@dataclass(frozen=True)
class RimInk:
    """A coin's printed rim measured (see :func:`rim_ink`): ``ink`` the linear ratios to the face minus 1 (BGR)
    over the whole band, ``sectors`` the same per sector (RIM_SECTORS, 3), ``face`` the face's colour (BGR)."""

    ink: np.ndarray
    sectors: np.ndarray
    face: np.ndarray


@lru_cache(maxsize=2)
def _rim_masks(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = _radius_mm(size)
    centre = (size - 1) / 2.0
    yy, xx = np.mgrid[0:size, 0:size]
    sector = ((np.arctan2(yy - centre, xx - centre) + np.pi) / (2 * np.pi) * RIM_SECTORS).astype(int) % RIM_SECTORS
    band = (r >= RIM_BAND_MM[0]) & (r < RIM_BAND_MM[1])
    face = (r >= RIM_FACE_MM[0]) & (r < RIM_FACE_MM[1])
    return band, face, sector


def rim_ink(crop: np.ndarray) -> RimInk:
    """The printed rim's ink of a coin crop (COIN_CROP_PX square, BGR, centred on the coin): each pixel of the band
    ``RIM_BAND_MM`` as linear ratios to the face's median colour (the ring ``RIM_FACE_MM``) minus 1, averaged over
    the band and per sector."""
    x = np.asarray(crop, np.float64).reshape(crop.shape[0], crop.shape[1], -1)
    band, face_ring, sector = _rim_masks(x.shape[0])
    face = np.median(x[face_ring], axis=0)
    ratios = x[band] / np.maximum(face, 1.0) - 1.0
    where = sector[band]
    sectors = np.stack([ratios[where == k].mean(axis=0) for k in range(RIM_SECTORS)])
    return RimInk(ratios.mean(axis=0), sectors, face)


def _hue_deg(vector: np.ndarray) -> float:
    chroma = _CHROMA_AXES @ (vector - vector.mean())
    return float(np.degrees(np.arctan2(chroma[1], chroma[0])))


def suit_hues(colors: dict, achromatic: frozenset) -> dict:
    """suit -> hue (degrees in the chroma plane of log BGR) of each coloured suit's taught colour (the profile's
    ``suit_colors``: the suits' pawns in the teach photo), for suits not in ``achromatic``. The measured rims' hues
    lay 2-22 degrees from their pawns' (default edition: suns -95, crowns 132, arms 72)."""
    out = {}
    for suit, bgr in colors.items():
        if suit not in achromatic:
            out[suit] = _hue_deg(np.log(np.maximum(np.asarray(bgr, np.float64), 1.0)))
    return out


def _ink_suit(ink: np.ndarray, hues: dict, black):
    """The suit one rim ink vector shows: ``black`` (the one achromatic suit, or None) for black ink, the nearest
    hue's suit for a clearly coloured one, else None."""
    darkness = -float(ink.mean())
    if darkness < RIM_LEAST_DARKNESS:
        return None
    colour = float(np.linalg.norm(ink - ink.mean())) / darkness
    if colour <= RIM_BLACK_MOST:
        return black
    if colour < RIM_COLOUR_LEAST or not hues:
        return None
    hue = _hue_deg(ink)
    apart = sorted((abs((hue - h + 180.0) % 360.0 - 180.0), i) for i, h in enumerate(hues.values()))
    if apart[0][0] > RIM_HUE_WITHIN or (len(apart) > 1 and apart[1][0] < apart[0][0] + RIM_HUE_GAP):
        return None
    return list(hues)[apart[0][1]]


def rim_suit(crop: np.ndarray, hues: dict, achromatic: frozenset, suits: frozenset):
    """The suit among ``suits`` whose colour a coin's printed rim clearly shows (a blank null's only mark), or None
    (unsure: a bright face, a faint rim, a colour between black and coloured or between two suits' hues, or sectors
    that disagree). ``hues``: :func:`suit_hues`; ``achromatic``: the suits printed in black ink (one at most is
    read: two black suits cannot be told apart)."""
    black = [s for s in suits if s in achromatic]
    black_suit = black[0] if len(black) == 1 else None
    hues = {s: h for s, h in hues.items() if s in suits}
    measured = rim_ink(crop)
    if float(measured.face.max()) > RIM_FACE_MOST:
        return None
    suit = _ink_suit(measured.ink, hues, black_suit)
    if suit is None:
        return None
    agree = sum(_ink_suit(ink, hues, black_suit) == suit for ink in measured.sectors)
    return suit if agree >= RIM_SECTORS_AGREE else None


def rim_contradicts(crop: np.ndarray, suit, achromatic: frozenset) -> bool:
    """Whether a coin's printed rim clearly shows the other kind of ink than ``suit``'s: coloured for a suit in
    ``achromatic`` (black), black for a coloured one, measured as :func:`rim_suit` does (not where the face is in the
    highlight shoulder or the rim too faint). A blank null whose rim's features named a suit is checked by it: an
    arms null blurred 1 px (bench_detect's held-out coin grid 1025) correlated with the moons rim by the margin
    a suit needs, its rim's colour 0.32 over its darkness."""
    measured = rim_ink(crop)
    darkness = -float(measured.ink.mean())
    if float(measured.face.max()) > RIM_FACE_MOST or darkness < RIM_LEAST_DARKNESS:
        return False
    colour = float(np.linalg.norm(measured.ink - measured.ink.mean())) / darkness
    return colour >= RIM_COLOUR_LEAST if suit in achromatic else colour <= RIM_BLACK_MOST


# --------------------------------------------------------------------------------------------------------------
# A blank null's suit from the rims of the other coins in the same frame
# --------------------------------------------------------------------------------------------------------------
# rim_suit reads no colour where a coin's face is in the camera's highlight shoulder (any channel > 200): there the
# tone curve turns colours (a black rim looks red). Every other coin in the same frame has a rim printed the same
# way, in its suit's ink, seen under the same light through the same tone curve: the coins read surely in a suit
# are references, and a blank null is given the suit whose references' rims its own rim is clearly nearest to. No
# tone curve is needed, and the hues taught from the pawns are not used.
# The feature (rim_colour): over the face and the rim (FRAME_RIM_MM), each pixel's linear ratios to the face minus 1,
# its colour (the chroma plane) regressed on its darkness. The slope is the rim ink's colour per unit of darkness:
# the face's own tint (gloss, the light's colour, a lighter or darker side) is the regression's constant and drops
# out, which a band's mean over a face ring (rim_ink) keeps. Measured by leaving each sure coin out of its frame and
# reading it from the others (bench_detect's default coin-grid, tile-backs and Easy Slider frames, offsets 0, 20,
# 40, 60: 707 suited coins and 54 nulls left suitless), /tmp/nulls13/loo*.py:
# * the references of one suit spread by 0.03-0.2, and the suits' centres lie 0.1-0.5 apart; in the brightest
#   frames the faintest rims (darkness 0.02) of every suit look colourless alike;
# * the rule below (3 references per suit at least, nearest within 1.5 spreads, every other suit 1.75 spreads
#   farther, the frame's references read right among themselves) read 130 suited coins and 15 nulls right and
#   none wrong (/tmp/nulls13/validate.py). Without the frame's check, one step looser in either bound (2.5 spreads
#   within, or 1.25 farther) read 1-2 wrong; with it, 2.5 spreads within still read a crowns 3 as moons (1020).
FRAME_RIM_MM = (6.0, 8.9)  # the face between the print (5.3 mm) and the rim (8.2 mm), and the rim, short of the edge
FRAME_FACE_MM = (5.6, 6.4)  # the face the ratios are taken to (as rim_ink's)
FRAME_RIM_REFERENCES = 3  # sure coins of EVERY suit that must be in the frame
FRAME_RIM_WITHIN = 1.5  # the null's rim within this many of its suit's spreads of their centre ...
FRAME_RIM_APART = 1.75  # ... and every other suit's centre this many spreads (the larger of the two) farther
FRAME_RIM_LEAST_SPREAD = 0.03  # a spread below this is taken as this (three rims alike by chance)


def rim_colour(crop: np.ndarray) -> np.ndarray:
    """A coin crop's (COIN_CROP_PX square, BGR, centred on the coin) printed rim's colour per unit of darkness: over
    the radii ``FRAME_RIM_MM``, each pixel's linear ratios to the face's median (``FRAME_FACE_MM``) minus 1, its
    chroma (two axes orthogonal to grey) regressed on its darkness (the ratios' mean, negated); the slope (2,).
    Black ink gives about (0, 0); coloured ink points its hue's way, as long as the frame's tone curve shows it."""
    x = np.asarray(crop, np.float64).reshape(crop.shape[0], crop.shape[1], -1)
    r = _radius_mm(x.shape[0])
    face = np.median(x[(r >= FRAME_FACE_MM[0]) & (r < FRAME_FACE_MM[1])], axis=0)
    ratios = x[(r >= FRAME_RIM_MM[0]) & (r < FRAME_RIM_MM[1])] / np.maximum(face, 1.0) - 1.0
    darkness = -ratios.mean(axis=1)
    chroma = (ratios + darkness[:, None]) @ _CHROMA_AXES.T
    darkness = darkness - darkness.mean()
    chroma = chroma - chroma.mean(axis=0)
    return (darkness[:, None] * chroma).sum(axis=0) / max(float((darkness * darkness).sum()), 1e-12)


def _suit_centres(references: list[tuple[np.ndarray, object]], suits: frozenset) -> dict | None:
    """Each suit's references' rim colours: their median and spread (at least FRAME_RIM_LEAST_SPREAD), or None where
    a suit has fewer than FRAME_RIM_REFERENCES references."""
    centres = {}
    for suit in suits:
        of_suit = np.array([c for c, s in references if s == suit]).reshape(-1, 2)
        if len(of_suit) < FRAME_RIM_REFERENCES:
            return None
        centre = np.median(of_suit, axis=0)
        spread = float(np.sqrt(((of_suit - centre) ** 2).sum(axis=1).mean()))
        centres[suit] = (centre, max(spread, FRAME_RIM_LEAST_SPREAD))
    return centres


def _nearest_suit(colour: np.ndarray, references: list[tuple[np.ndarray, object]], suits: frozenset,
                  among: frozenset | None = None):
    """The suit among ``among`` (default: all ``suits``) whose references' rim colours ``colour`` is clearly nearest
    to (see the constants above), or None: a suit of ``suits`` with fewer than FRAME_RIM_REFERENCES references, or no
    clear nearest."""
    centres = _suit_centres(references, suits)
    if centres is None:
        return None
    if among is not None:
        centres = {suit: centres[suit] for suit in suits if suit in among}
    if not centres:
        return None
    apart = {suit: float(np.linalg.norm(colour - centre)) for suit, (centre, _) in centres.items()}
    best = min(apart, key=apart.get)
    if apart[best] > FRAME_RIM_WITHIN * centres[best][1]:
        return None
    for suit, (_, spread) in centres.items():
        if suit != best and apart[suit] < apart[best] + FRAME_RIM_APART * max(spread, centres[best][1]):
            return None
    return best


def rim_face_colour(crop: np.ndarray) -> np.ndarray:
    """A coin crop's face colour (BGR, the median) between the print and the rim (``FRAME_FACE_MM``)."""
    x = np.asarray(crop, np.float64).reshape(crop.shape[0], crop.shape[1], -1)
    r = _radius_mm(x.shape[0])
    return np.median(x[(r >= FRAME_FACE_MM[0]) & (r < FRAME_FACE_MM[1])], axis=0)


def rim_face_level(crop: np.ndarray) -> float:
    """The brightest channel (0-255) of a coin crop's face between the print and the rim (``FRAME_FACE_MM``, the
    median): above about 205 the camera's tone curve shrinks that channel's contrast (see RIM_FACE_MOST)."""
    return float(rim_face_colour(crop).max())


def _references_agree(references: list[tuple[np.ndarray, object]], suits: frozenset) -> bool:
    """Whether every reference, left out in turn, is read in its own suit or not at all by the others."""
    for k, (colour, suit) in enumerate(references):
        read = _nearest_suit(colour, references[:k] + references[k + 1 :], suits)
        if read is not None and read != suit:
            return False
    return True


def frame_rim_suits(nulls: list[np.ndarray], references: list[tuple[np.ndarray, object]], suits: frozenset,
                    held: frozenset = frozenset(), faces: list[float] | None = None,
                    face_colours: list[np.ndarray] | None = None, achromatic: frozenset = frozenset(),
                    lab_nulls: list[np.ndarray] | None = None,
                    lab_references: list[tuple[np.ndarray, object]] | None = None) -> list:
    """The suit of each blank null (``nulls``: :func:`rim_colour` of each) read from the rims of the coins read
    surely in the same frame (``references``: (rim_colour, suit)), among ``suits``, or None where unsure. Nothing is
    read unless every reference, left out in turn, is read in its own suit or not at all by the others (the frame's
    rims tell the suits apart), and no two nulls are given the same suit (a set has one null of each).

    A set has one null of each suit, so a suit whose null is already known is no longer a null's to take:
    ``held``, the suits of the frame's nulls already read in a suit (by their marks or rim_suit), and each suit named
    here, are left out of the choice for the nulls still unnamed, in rounds until no more is named. A null is still
    named only where it is clearly nearest to a suit left and within that suit's spreads (see _nearest_suit):
    measured on bench_detect's default frames at offsets 0-60 (/tmp/nulls14/t4.py), 15 -> 19 nulls right, 0 wrong,
    and 0 wrong still with 2.0 spreads within or 1.5 apart.

    A null not named so is named by its hue where it clearly shows a coloured suit's (see :func:`_hue_suit`;
    ``face_colours``: :func:`rim_face_colour` of each null, ``achromatic``: the suits printed in black ink).

    A null still not named is named by its ring's colour in Lab against the frame's value sides' rings, where that
    clearly shows a coloured suit's (see :class:`_LabFrame`; ``lab_nulls``: :func:`rim_lab` of each null,
    ``lab_references``: (rim_lab, suit) of the frame's sure suited value sides; this runs also where the rims
    above do not tell the suits apart).

    A null still not named is named in the black suit where its ring is clearly darker than every coloured suit's
    value side's ring in the frame and colourless like the black suit's (see :class:`_DarkFrame`).

    Last, where as many nulls are left unnamed as suits are left, those nulls ARE those suits' (see
    :func:`_named_by_elimination`; ``faces``: :func:`rim_face_level` of each null)."""
    suits = frozenset(suits)
    if not nulls or len(suits) < 2:
        return [None] * len(nulls)
    agree = _references_agree(references, suits)
    named: list = [None] * len(nulls)
    taken = set(held)
    hues = _HueFrame.of(references, suits, achromatic) if agree and face_colours is not None else None
    labs = (_LabFrame.of(lab_references, suits, achromatic)
            if lab_nulls is not None and lab_references is not None and face_colours is not None else None)
    darks = _DarkFrame.of(lab_references, suits, achromatic) if lab_nulls is not None and lab_references else None
    while agree or labs is not None or darks is not None:
        left = suits - taken
        read = [_nearest_suit(colour, references, suits, left) if named[i] is None and agree else None
                for i, colour in enumerate(nulls)]
        if hues is not None:
            read = [suit if suit is not None or named[i] is not None else hues.suit(nulls[i], face_colours[i], left)
                    for i, suit in enumerate(read)]
        if labs is not None:
            read = [suit if suit is not None or named[i] is not None else labs.suit(lab_nulls[i], face_colours[i], left)
                    for i, suit in enumerate(read)]
        if darks is not None:
            read = [suit if suit is not None or named[i] is not None else darks.suit(lab_nulls[i], left)
                    for i, suit in enumerate(read)]
        new = [(i, s) for i, s in enumerate(read) if s is not None and read.count(s) == 1]
        if not new:
            break
        for i, suit in new:
            named[i] = suit
            taken.add(suit)
    return _named_by_elimination(nulls, named, references, suits, frozenset(taken), faces if agree else None)


# Where k nulls of a frame are still unnamed and exactly k suits are left (the frame's other nulls read in the other
# suits), the k nulls are those k suits' nulls: a set has one null of each. One left is the last suit's, without its
# colour. Two or more: only which null is which is open, and their rims are compared with each other through the
# references (each assignment's summed squared distances to its suits' centres, in spreads), which cancels what
# all blank nulls share and references do not (no numeral's ink beside the rim; the wooden edge weighs more): the
# best assignment is taken when every other is FRAME_ORDER_MARGIN worse and no null's face is in the camera's
# highlight shoulder (FRAME_ORDER_FACE_MOST: in the brightest frames two coloured suits' rims look alike).
# Measured (/tmp/nulls15/verify3.py) on bench_detect's default coin-grid and tile-backs frames, every sure coin
# cropped as the detector does: real nulls at offsets 0-60 20 -> 23 read right (the order's margin 36-49), at
# 80-120 7 -> 8 (one left), none wrong. Suited coins of distinct suits left out together and read as nulls with the
# other suits held (4,700 groups at 0-60, 3,000 at 80-120): with a margin of 16 two pairs at 80-120 (1083, 1102,
# suit sides) were swapped, with 25 or 36 none; what is still wrong follows a wrong reading of the rule above (a
# crowns coin read as moons at 1100 leaves its moons partner the crowns), as before. Faces up to 235: 2-10 wrong.
FRAME_ORDER_MARGIN = 25.0  # squared spreads: the best assignment 5 spreads clear of every other
FRAME_ORDER_FACE_MOST = 230.0  # a null's face channel brighter than this: its colour is not compared


def _named_by_elimination(nulls: list[np.ndarray], named: list, references: list[tuple[np.ndarray, object]],
                          suits: frozenset, taken: frozenset, faces: list[float] | None) -> list:
    """``named`` completed where the nulls left unnamed are as many as the suits left (see above); ``faces``: each
    null's :func:`rim_face_level`, or None where the frame's rims do not tell the suits apart (only one null left
    is then named)."""
    todo = [i for i, suit in enumerate(named) if suit is None]
    left = sorted(suits - taken, key=str)
    if not todo or len(todo) != len(left):
        return named
    out = list(named)
    if len(todo) == 1:
        out[todo[0]] = left[0]
        return out
    if faces is None or any(faces[i] > FRAME_ORDER_FACE_MOST for i in todo):
        return out
    centres = _suit_centres(references, suits)
    if centres is None:
        return out
    cost = np.array([[float(((nulls[i] - centres[s][0]) ** 2).sum()) / centres[s][1] ** 2 for s in left]
                     for i in todo])
    options = sorted((float(sum(cost[a, p[a]] for a in range(len(todo)))), p)
                     for p in permutations(range(len(left))))
    if options[1][0] - options[0][0] < FRAME_ORDER_MARGIN:
        return out
    for a, i in enumerate(todo):
        out[i] = left[options[0][1][a]]
    return out


# A blank null's rim by its hue. rim_colour measured from the frame's black suit's centre points the way of the rim's
# ink, shortened on a blank null: its suit's references are read through their numerals' and symbols' ink beside
# the rim, a blank null's through more of the coin's shadow and the table beyond its edge. That shadow is a
# colourless darkening, and against the cream face a colourless darkening points blue (grey_hue): a black null's rim
# lies up to 0.10 from its suit's centre that way (held-out coin grid 1104), as far as the faintest blue (arms)
# nulls' (0.04-0.08). No rim is read by its hue that way. A null is read in a coloured suit where its colour is
# clearly coloured (FRAME_HUE_LEAST of the black suit's spreads from its centre), points within FRAME_HUE_WITHIN
# degrees of that suit's centre, FRAME_HUE_APART degrees nearer to it than to any other coloured suit's and to
# grey_hue, and the frame's references show each coloured suit's hue: its centre FRAME_HUE_SUIT_LEAST of the black
# spreads out, and at most FRAME_HUE_ASTRAY of its references fainter than FRAME_HUE_LEAST or more than
# FRAME_HUE_REF_WITHIN degrees off. A coloured suit whose references do not show its hue so is one whose ink looks
# grey in the frame's light (the blue arms' in most frames where one does not): where its centre still points within
# FRAME_HUE_GREY_WITHIN degrees of grey_hue, its nulls lie the grey way too, where nothing is read, and the other
# suits' nulls are read (its centre's direction one more to be FRAME_HUE_APART nearer than); elsewhere nothing is.
# Not where the null's face is in the highlight shoulder (FRAME_HUE_FACE_MOST, below: in the brightest frames an arms
# rim at 1005 pointed the suns' way, its suit's centre 170 degrees from grey_hue).
# Measured on bench_detect's default coin-grid and tile-backs frames, every sure coin cropped as the detector does
# (nulls-15's captures, /tmp/nulls-16/an/h4.py): real nulls at offsets 0-60 23 -> 28 right, at 80-120 8 -> 12, none
# wrong (a grey-looking suit's frames: 1023, 1100, 1122's suns, suns and crowns nulls); suited coins left out in turn
# and read as nulls 138 -> 182 right at 0-60 and 60 -> 93 at 80-120, and in groups of distinct suits 4,700 and 3,000
# times, with no wrong reading added to the rule above's (1083, 1084, 1122 at 80-120). At 2.0 spreads a suit-side
# arms coin of held-out coin grid 1083 (0.07 out at -63 degrees) was read as suns; 30 degrees within (20 apart) read a
# crowns 3 of coin grid 1001 as arms.
FRAME_HUE_LEAST = 2.5  # the null's colour this many of the black suit's spreads from its centre at least
FRAME_HUE_WITHIN = 20.0  # degrees: the null's colour's direction from the black centre within this of its suit's ...
FRAME_HUE_APART = 45.0  # ... and this much nearer to it than to every other coloured suit's and to grey_hue
FRAME_HUE_SUIT_LEAST = 3.0  # a coloured suit's centre this many of the black suit's spreads from the black centre
FRAME_HUE_REF_WITHIN = 45.0  # a coloured suit's reference more than this many degrees off its centre's is astray
FRAME_HUE_ASTRAY = 1.0 / 3.0  # the share of a coloured suit's references that may be astray
FRAME_HUE_GREY_WITHIN = 45.0  # degrees: a suit whose references show no hue, its centre this near grey_hue: grey ink
# The highlight shoulder for the hue reading: a null's face up to FRAME_HUE_FACE_MOST. Measured as above
# (/tmp/nulls-17/an/sweep2.py, captures of the current renderer): real nulls at 0-60 28 -> 29 right (coin grid 1000's
# crowns null, face 234), at 80-120 13 -> 15, suited coins left out in turn 192 -> 206 and 109 -> 120 right, none
# wrong, in groups none added. At 242 held-out coin grid 1080's arms 3 (face 240), its rim pointing the crowns' way
# (the blue numeral's ink in its face ring), was read as crowns.
FRAME_HUE_FACE_MOST = 235.0  # a null's face channel brighter than this: not read by its hue


def _deg(vector: np.ndarray) -> float:
    return float(np.degrees(np.arctan2(vector[1], vector[0])))


def _deg_apart(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def grey_hue(face: np.ndarray) -> float:
    """The direction (degrees in rim_colour's plane) a colourless darkening (a shadow, a grey table) mixed into a
    face of colour ``face`` (BGR) points: each channel's ratio to the face falls as one over the face's channel, so
    the face's tint inverted (blue on a cream face)."""
    return _deg(_CHROMA_AXES @ (1.0 / np.maximum(np.asarray(face, np.float64), 1.0)))


@dataclass(frozen=True)
class _HueFrame:
    """A frame's references seen as hues around its black suit's centre (see the constants above)."""

    black: np.ndarray  # the black suit's centre
    least: float  # FRAME_HUE_LEAST of the black suit's spreads
    hues: dict  # coloured suit whose references show its hue -> its centre's direction (degrees)
    greyish: dict  # coloured suit whose references do not -> its centre's direction (degrees)

    @staticmethod
    def of(references: list[tuple[np.ndarray, object]], suits: frozenset, achromatic: frozenset):
        """The frame's hues, or None where there is no single black suit or its references are too few."""
        black = [suit for suit in suits if suit in achromatic]
        centres = _suit_centres(references, suits)
        if len(black) != 1 or centres is None:
            return None
        origin, spread = centres[black[0]]
        least = FRAME_HUE_LEAST * spread
        hues, greyish = {}, {}
        for suit in suits - {black[0]}:
            direction = centres[suit][0] - origin
            hue = _deg(direction)
            own = [colour - origin for colour, of in references if of == suit]
            astray = sum(float(np.linalg.norm(c)) < least or _deg_apart(_deg(c), hue) > FRAME_HUE_REF_WITHIN
                         for c in own)
            shows = float(np.linalg.norm(direction)) >= FRAME_HUE_SUIT_LEAST * spread
            if shows and astray <= FRAME_HUE_ASTRAY * len(own):
                hues[suit] = hue
            else:
                greyish[suit] = hue
        return _HueFrame(origin, least, hues, greyish)

    def suit(self, colour: np.ndarray, face: np.ndarray, among: frozenset):
        """The coloured suit among ``among`` whose hue a null's rim (``colour``, its face ``face``) clearly shows,
        or None."""
        if float(np.max(face)) > FRAME_HUE_FACE_MOST or not self.hues:
            return None
        offset = colour - self.black
        if float(np.linalg.norm(offset)) < self.least:
            return None
        grey = grey_hue(face)
        if any(_deg_apart(h, grey) > FRAME_HUE_GREY_WITHIN for h in self.greyish.values()):
            return None  # a suit whose rims show no hue, and not as grey ink: its nulls may point anywhere
        hue = _deg(offset)
        apart = {suit: _deg_apart(hue, h) for suit, h in self.hues.items()}
        best = min(apart, key=apart.get)
        if best not in among or apart[best] > FRAME_HUE_WITHIN:
            return None
        others = [a for suit, a in apart.items() if suit != best] + [_deg_apart(hue, grey)]
        others += [_deg_apart(hue, h) for h in self.greyish.values()]
        return best if min(others) >= apart[best] + FRAME_HUE_APART else None


# A blank null's printed ring in Lab, against the rings of its frame's value sides. The ring (the texture's radius
# 0.43, 8.2 mm out, a third of a millimetre wide) shows in the crop's mean lightness as a dip 7.75-8.5 mm out, even
# where its colour does not reach rim_colour's regression; rim_lab is that ring's difference from the face just
# inside it (6.5-7.0 mm: clear of a numeral, out to 5.3 mm, and of the ring's blur), its a* and b* over its darkness.
# Against the coin's own face the light's colour drops out, and the ring is read where it is, not with the coin's
# shadow and the table beyond its edge (rim_colour's band reaches 8.9 mm): measured on nulls-17's captures of
# bench_detect's default coin-grid and tile-backs frames (offsets 0-60, /tmp/nulls-18/an/rel.py), the black moons
# rings of a frame lie within 0.02-0.06 of each other, the blue arms rings 0.3-0.6 from them the -b* way, the red suns
# +a*, the green crowns -a* (its direction turning with the light: blue-ward in coin grid 1003's, where the arms and
# crowns nulls read alike). A suit side's symbol (out to 6.3 mm) tints that face in the suit's colour, which shifts its
# ring away from the suit (suit-side crowns rings at coin grids 1022 and 1063 read blue, as arms), so only value sides
# are references. Absolute colours do not separate the suits (a crowns null of 1003 among the arms nulls, a moons
# null of 1024 among the suns): the rule is the frame's, as _HueFrame's is: a null is read in a coloured suit where
# its ring is dark enough to measure (LAB_LEAST_DARKNESS), points LAB_HUE_LEAST out from the black suit's centre,
# within FRAME_HUE_WITHIN degrees of a coloured suit's centre's direction and FRAME_HUE_APART nearer to it than to
# every other's, and where every coloured suit's references show their hue (their centre FRAME_HUE_SUIT_LEAST of the
# black spreads out, at most FRAME_HUE_ASTRAY of them astray); not where the face is in the highlight shoulder
# (FRAME_HUE_FACE_MOST). Measured on the captures (/tmp/nulls-18/an/hue2.py): real nulls the frame's other rules
# leave unnamed at offsets 0-60 1 right (coin grid 1045's arms), at 80-120 5, none wrong; value sides left out in
# turn and in groups of distinct suits read as nulls 301 and 147 times right, none wrong. Looser bounds (30 degrees
# within and apart, 1.5 spreads to show a hue, half astray, 1 value side per suit) added no wrong one; with no frame
# check (any share astray, no hue needed) a faint arms value side of held-out coin grid 1100 (4.2 L*, pointing +b*)
# was read as crowns. The frame check is what stops most frames (their crowns value sides look grey); a ring fainter
# than LAB_LEAST_DARKNESS is unread (arms nulls of the brightest frames, 1.2-2.7 L*). With the face bar at 240
# coin grid 1041's moons null (face 239, the frame's rings all pointing +b*) was read as arms. With suit sides as
# references, 2 suit-side crowns coins left out were read as arms.
LAB_FACE_MM = (6.5, 7.0)  # the face just inside the ring
LAB_RING_MM = (7.75, 8.5)  # the ring's dip in lightness
LAB_LEAST_DARKNESS = 4.0  # L* the ring lies below the face at least: fainter, its colour is not read
LAB_REFERENCES = 2  # value sides of every suit that must be in the frame
LAB_LEAST_SPREAD = 0.03  # the black suit's spread below this is taken as this (two rings alike by chance)
# The null's ring this far (a*, b* over darkness) from the black centre at least, and FRAME_HUE_LEAST of the black
# suit's spreads. At 0.1 a crowns value side of coin grid 1024 (0.15 out the arms' way) was read as arms when left
# out (at 0.08 also a moons one of 1022); 0.2 keeps twice that margin (held out at 80-120: 7 -> 5 real nulls read).
LAB_HUE_LEAST = 0.2


def rim_lab(crop: np.ndarray) -> np.ndarray:
    """A coin crop's (COIN_CROP_PX square, BGR, centred on the coin) printed ring in Lab against the face just inside
    it: (dL, da / -dL, db / -dL) of the means over ``LAB_RING_MM`` minus ``LAB_FACE_MM`` (dL < 0 for a ring darker
    than the face). OpenCV's Lab (L* 0-100) of the crop as float."""
    x = np.asarray(crop, np.float32).reshape(crop.shape[0], crop.shape[1], -1)
    lab = cv2.cvtColor(x / 255.0, cv2.COLOR_BGR2Lab)
    r = _radius_mm(x.shape[0])
    face = lab[(r >= LAB_FACE_MM[0]) & (r < LAB_FACE_MM[1])].mean(axis=0)
    ring = lab[(r >= LAB_RING_MM[0]) & (r < LAB_RING_MM[1])].mean(axis=0)
    d = (ring - face).astype(np.float64)
    darkness = max(-float(d[0]), 0.5)
    return np.array([d[0], d[1] / darkness, d[2] / darkness])


@dataclass(frozen=True)
class _LabFrame:
    """A frame's value sides' rings (rim_lab) seen as hues around its black suit's centre (see the constants above)."""

    black: np.ndarray  # the black suit's centre (a*, b* over darkness)
    least: float  # how far from it a null's ring must be
    hues: dict  # coloured suit -> its centre's direction from the black centre (degrees)

    @staticmethod
    def of(references: list[tuple[np.ndarray, object]], suits: frozenset, achromatic: frozenset):
        """The frame's hues, or None: no single black suit, too few references of a suit, or a coloured suit whose
        references do not show its hue."""
        black = [suit for suit in suits if suit in achromatic]
        if len(black) != 1:
            return None
        by_suit = {suit: np.array([c[1:] for c, of in references if of == suit]).reshape(-1, 2) for suit in suits}
        if any(len(of_suit) < LAB_REFERENCES for of_suit in by_suit.values()):
            return None
        origin = np.median(by_suit[black[0]], axis=0)
        spread = max(float(np.sqrt(((by_suit[black[0]] - origin) ** 2).sum(axis=1).mean())), LAB_LEAST_SPREAD)
        least = max(FRAME_HUE_LEAST * spread, LAB_HUE_LEAST)
        hues = {}
        for suit in suits - {black[0]}:
            direction = np.median(by_suit[suit], axis=0) - origin
            hue = _deg(direction)
            own = by_suit[suit] - origin
            astray = sum(float(np.linalg.norm(c)) < least or _deg_apart(_deg(c), hue) > FRAME_HUE_REF_WITHIN
                         for c in own)
            if float(np.linalg.norm(direction)) < FRAME_HUE_SUIT_LEAST * spread or astray > FRAME_HUE_ASTRAY * len(own):
                return None
            hues[suit] = hue
        return _LabFrame(origin, least, hues)

    def suit(self, ring: np.ndarray, face: np.ndarray, among: frozenset):
        """The coloured suit among ``among`` whose hue a null's ring (``ring``: rim_lab; ``face``: its face's colour,
        BGR) clearly shows, or None."""
        if float(np.max(face)) > FRAME_HUE_FACE_MOST or -float(ring[0]) < LAB_LEAST_DARKNESS:
            return None
        offset = ring[1:] - self.black
        if float(np.linalg.norm(offset)) < self.least:
            return None
        apart = {suit: _deg_apart(_deg(offset), h) for suit, h in self.hues.items()}
        best = min(apart, key=apart.get)
        if best not in among or apart[best] > FRAME_HUE_WITHIN:
            return None
        others = [a for suit, a in apart.items() if suit != best]
        return best if not others or min(others) >= apart[best] + FRAME_HUE_APART else None


# A blank null of the black suit by its ring's darkness. Black ink darkens the printed ring more than the coloured
# inks do, and the frame's tone curve compresses every ring of the frame alike, so within one frame the black ring is
# the darkest (L*, rim_lab's dL) even where the highlight shoulder leaves no hue to read. Measured on nulls-22's
# captures of bench_detect's default coin-grid and tile-backs frames (/tmp/nulls-an/loo3.py, loo4.py), each value
# side read as a null against the frame's other value sides: at offsets 0-60 the coloured suits' rings reach at most
# 1.07 times the darkest other coloured ring (crowns 1.03, arms 1.07), the red suns' up to 1.61 in the faintest
# frames (1041, 1060: but then clearly red, 0.52-0.80 from the black centre); the black nulls 1.08-1.39 times, within
# 0.12 of their value sides' centre. At 80-120 an arms value side of coin grid 1120 reached 1.35 times, 0.21 from the
# black centre (the only coloured ring over 1.2 times there): hence 0.15, not 0.2. A null is named the black suit
# where its ring is BLACK_DARKER times as dark as every coloured value side's ring of the frame (each coloured suit
# with LAB_REFERENCES of them), LAB_LEAST_DARKNESS at least, and within BLACK_COLOURLESS of the black value sides'
# centre. Real nulls right at offsets 0-60 30 -> 35 (with complete_suits), 80-120 20 -> 25, and at 140-160, looked
# at only after these bounds were set, 13 -> 16; none wrong. Measured and not used: comparing with the coloured suits
# still left only (a suit whose null is known dropped): where crowns was the only one left, crowns value sides of coin
# grids 1001, 1020 and 1123 (1.3 times their suit's other rings, colourless) were read as black.
BLACK_DARKER = 1.2
BLACK_COLOURLESS = 0.15


@dataclass(frozen=True)
class _DarkFrame:
    """A frame's value sides' rings (rim_lab): the black suit's colour and the darkest coloured ring (see above)."""

    black: object  # the black suit
    centre: np.ndarray  # its value sides' rings' colour (a*, b* over darkness), the median
    darkest: float  # L* below the face: the darkest ring of the coloured suits' value sides

    @staticmethod
    def of(references: list[tuple[np.ndarray, object]], suits: frozenset, achromatic: frozenset):
        """The frame's darkness, or None: no single black suit, or too few value sides of a suit."""
        black = [suit for suit in suits if suit in achromatic]
        if len(black) != 1:
            return None
        by_suit = {suit: np.array([c for c, of in references if of == suit]).reshape(-1, 3) for suit in suits}
        if any(len(of_suit) < LAB_REFERENCES for of_suit in by_suit.values()):
            return None
        darkest = max(-float(of_suit[:, 0].min()) for suit, of_suit in by_suit.items() if suit != black[0])
        return _DarkFrame(black[0], np.median(by_suit[black[0]][:, 1:], axis=0), darkest)

    def suit(self, ring: np.ndarray, among: frozenset):
        """The black suit, where it is among ``among`` and a null's ring (``ring``: rim_lab) is clearly the black
        suit's by its darkness and lack of colour, or None."""
        darkness = -float(ring[0])
        if self.black not in among or darkness < max(LAB_LEAST_DARKNESS, BLACK_DARKER * self.darkest):
            return None
        return self.black if float(np.linalg.norm(ring[1:] - self.centre)) <= BLACK_COLOURLESS else None
