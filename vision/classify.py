"""Reading tiles and coins: which face, at which rotation, and how sure.

Each crop (see :mod:`vision.crops`) is turned into the profile's features (:mod:`calibration.profile`: von
Kries colour ratios, normalised) and correlated with every taught template:

* tiles at the four quarter turns (the fitted outline gives the rotation modulo 90 degrees; the face says
  which way is up), by permuting the feature vector's pixels, so all candidates x 4 rotations x 25 templates
  are one matrix product;
* coins at every rotation at once: their features are polar (rings x angles), so turning the coin is a
  circular shift of the angle axis and one FFT correlation gives all shifts.

The best label (over rotations) is trusted when its correlation reaches the profile's ``min_score`` and beats
the best *other* label by ``min_margin``; ``confidence`` grows with the margin. Otherwise the piece is
uncertain. When the correlation is low, the crop is split into cells and compared with the best template cell
by cell: cells that disagree far more than the rest are taken as covered (a hand, a die on a coin, glare); if
the remaining cells still match a template well, the piece is really there but partly hidden (uncertain,
reason "partly hidden"); if not, the candidate was not a piece at all (``status == "none"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from numba import njit

from calibration.profile import (
    _COIN_HIGH_PASS_PX,
    _COIN_R1,
    _TILE_HIGH_PASS_PX,
    COIN_ANGLES,
    COIN_CROP_MM,
    COIN_CROP_PX,
    COIN_RINGS,
    COIN_SHARPNESS_SHARE,
    MARK_CROP_PX,
    TILE_CROP_PX,
    ClassModel,
    PieceSetProfile,
    _byte_medians,
    _high_pass,
    _log_ratio,
    _masked_byte_medians,
    _opponent,
    _polar_maps,
    _polar_matrix,
    coin_correlations,
    coin_polar,
    coin_sharpness,
    mark_scores,
    tile_raw,
)
from rules.pieces import Suit
from vision import coin_shape, coin_twins, coin_values
from vision.coin_ink import (
    ACHROMATIC_MAX,
    MARK_COLOUR_PX_PER_MM,
    achromatic_suits,
    ink_chroma,
    rim_contradicts,
    rim_suit,
    suit_hues,
)
from vision.coin_ink_suit import ink_suit
from vision.coin_twins import TwinSizes, TwinVerdict

__all__ = ["Reading", "TileReader", "CoinReader", "MarkReader", "face_share"]

_CELLS = 5  # tiles: occlusion cells per side
_COVERED_SHARE = 0.6  # at most this share of cells may be covered for a "partly hidden" piece
# A back is trusted only where its middle (the printed grid's cross) shows: a square gap in a grid of tiles (Easy
# Slider's hole, a Slide Jam tile popped off) is framed by its neighbours' edges like a back's printed border, and
# the whole crop matched a classic or hand-made back surely (confidence up to 1.0). Measured on every back read in
# the tile-backs, Slide Jam, Done-check hole and Slides/Plans of Action frames of four editions: real backs' middles
# correlate 0.28 or more with the back's (under coins too), the gaps' 0.05 or less.
_BACK_MIDDLE_MIN = 0.15
_MIDDLE_SHARE_MIN = 0.2  # ... checked only where the back's middle carries a fifth of its print at least
# ... and only where the middle shows the back's print as strongly as the whole crop shows the back: a hole's blank
# middle is noise, which can correlate 0.15 with anything (a classic Slide Jam hole, white sheet between four tiles,
# read surely as a back: its outline alone matched at 0.64). The strength is the middle's least-squares amplitude
# on the template's middle over the whole crop's on the whole template. Measured on every back whose middle passed
# the correlation in bench_detect's frames (four editions, seed offsets 0 and 20; classic and bold at 40: 674
# backs): 0.70 or more; that hole 0.04.
_BACK_MIDDLE_STRENGTH = 0.3
# A null face is trusted only where its own mark (a dot, a ring, a slash) shows in its middle: glare that washes a
# bold tile's white numeral out leaves the corner symbols, and the whole crop matched the suit's null best (crowns
# 2 and 5 read surely as crowns 0, confidence 0.8). Measured on every sure null read in bench_conditions' frames
# and bench_detect's Easy Slider and Slide Jam boards (dev and held out) of four editions: real nulls' middles
# correlate 0.64 or more with the null's, the two washed-out faces' 0.0 or less.
_NULL_MIDDLE_MIN = 0.3
# A blank null (the default edition's: nothing printed in the middle) is trusted only where its middle is plain: a
# numeral washed faint still leaves more there. Measured on the default edition's faces at their true poses in 16
# frames under glare x2.5-x5 (458 faces) and on every sure null read as above: real blank nulls' middles carry 0.34
# of the crop's feature energy at most (0.2 in the benchmarks' frames), the washed-out faces that came nearest to
# their null 0.47 or more (none was read as a null: this is the guard of the next stronger glare).
_BLANK_MIDDLE_MAX = 0.4
_SIDE_MARGIN = 0.2  # coins: how far the best label of the other side must trail for the side to be sure
_SEARCH_FURTHER = 0.35  # tiles: a window pulled by the shared layout must correlate this much to search on
_RIM_RINGS = 3  # coins: the outer rings of the polar features (from 6.6 mm out: the printed rim)
_FIRST_LOOK = 0.35  # coins: correlation with the best face, unaligned, for a candidate to be read at all
SEARCH_MIN_SCORE = 0.25  # a tile crop correlating less with every label is not searched around
COVER_LOOK_MIN_SCORE = 0.35  # ... nor looked at cell by cell for a covered tile when below this: nothing is there
_BLANK_SUIT_MARGIN = 0.25  # how clearly a blank coin's rim must match one suit's for the suit to be given
_BLANK_RIM_MIN = 0.45  # correlation of a blank-looking coin's rim with a blank face's, for it to be one
_BLANK_RIM_SCORE = 0.3  # correlation of a blank coin's rim with the best blank face's, for its suit
_BLANK_INK = 0.5  # share of a coin's feature energy inside the rim: below, a blank face (numerals are at 0.9+)
_BLANK_SECTORS = 8  # a blank face judged by its printed rim alone: the rim must show in each of these sectors ...
_BLANK_SECTOR_MIN = 0.1  # ... correlating at least this much there with the blank face's rim (see _rim_all_round)
_SHARP_ENOUGH_MARGIN = 0.3  # coins: a reading this far ahead of every other label is not judged too blurred
# coins: a suit-side reading is held to this much more than its taught sharpness share: a numeral blurred to a blob
# reads as its suit's symbol (both soft, round), while a blurred symbol never passes for a numeral (held-out default
# blur 2 px 1782: an arms 4 read surely as arms' suit side at 0.802 of the symbol's taught sharpness, the gate 0.8).
# 0.825: midway to the least sharp right suit side it would doubt (an arms suit side at 0.849 in bench_conditions'
# default coin grid 1000 at 1 px/mm, lost at 0.85); only a reading short of full confidence, see CoinReader._gated
_SUIT_SIDE_SHARPER = 0.825 / 0.8
_RIVAL_GAP = 0.2  # tiles: labels this close to the best are read at their own best window before judging
_DEGRADED = 0.08  # tiles: a clear reading this far below the typical score is searched around all the same
_TWIN_LIKE = 0.8  # coins: a value-side ace whose template correlates this much with its suit side's is its twin
_FACE_INK = 0.3  # coins: a disc pixel this far (log colour ratio) from the disc's median colour is ink, not face ...
_FACE_SHARE_MIN = 0.5  # ... and a coin's face is the colour of at least this share of its disc (taught coins: 0.64+)
_COIN_DEGRADED = 0.05  # coins: a sure reading this far below its face's typical score is searched around first
# coins read at each label's own best window: the per-label margins teach raised apply at the reading's own window,
# rivals elsewhere need the model's margin (see CoinReader._judge_faces); a switch for A/B measurements
SPLIT_ALIGNED_MARGINS = True
# ... and a value read at its own window, over another value read only elsewhere, needs that rival behind by the
# label's margin without its low-score term (see CoinReader._leads_values_elsewhere); a switch for A/B measurements
VALUES_ELSEWHERE_LABEL_MARGIN = True
# An unclear value numeral read again among its ink colour's suit's faces alone (CoinReader._by_ink_suit). Module
# switch: the benchmarks' A/B runs set it False.
READ_BY_INK_SUIT = True


@dataclass(frozen=True)
class Reading:
    """What a crop shows.

    ``status``: "ok" (trusted), "unclear" (a piece, but the label is not sure), "hidden" (a piece, partly
    covered), "none" (not a piece of this set). ``angle_deg`` is the piece's rotation relative to the crop's
    up, clockwise (tiles: a quarter turn; coins: any angle, in steps of 360 / COIN_ANGLES degrees).
    """

    status: str
    side: str | None = None
    suit: Suit | None = None
    rank: int | None = None
    angle_deg: float = 0.0
    score: float = 0.0
    margin: float = 0.0
    confidence: float = 0.0
    reason: str | None = None
    covered: float = 0.0  # share of the crop judged covered
    could_be: tuple[tuple[Suit | None, int | None, str | None], ...] = ()  # unclear: (suit, rank, side) each
    close: tuple[int, ...] = ()  # tiles, unclear: the face labels (indices) a second look at the mark decides among


_CLOSE_MARGINS = 2.0  # tiles: faces within this many needed margins of the best are looked at again ...
_CLOSE_MOST = 12  # ... when there are at most this many (and every one a face)
# An unclear twin whose symbol the fit does not explain (a numeral or dot's residual) or explains only blurred beyond
# the bench's twins (coin_twins._MOST_BLUR_MM) names every face of its suit (CoinReader._suit_faces_could_be)
_TWINS_NOT_SHOWN = ("symbol not fitted", "symbol blurred")
_COULD_BE_MOST = 3  # an unclear reading narrowed to at most this many labels ...
_COULD_BE_GAP = 1.0  # ... each within the needed margin of the best, the rest trailing by this many margins more


def _could_be(per_label: np.ndarray, labels: list[tuple[str, Suit | None, int | None]], best: int,
              need: np.ndarray) -> tuple[tuple[Suit | None, int | None, str | None], ...]:
    """The labels an unclear crop fits about as well as the best, when it narrows to a few: every label within
    ``need`` (per label: the margin a sure reading of the best over it would need) of the best score, provided
    every other label trails by that plus ``_COULD_BE_GAP`` times as much again; else () (nothing narrowed).
    Labels are ``(side, suit, rank)``; the result holds ``(suit, rank, side)``, a back's suit and rank None."""
    score = float(per_label[best])
    close = per_label >= score - need
    close[best] = True
    count = int(close.sum())
    if count < 2 or count > _COULD_BE_MOST:
        return ()
    if np.any(per_label[~close] > score - (1.0 + _COULD_BE_GAP) * need[~close]):
        return ()
    order = np.argsort(-per_label)
    out = []
    for k in order[: count]:
        side, suit, rank = labels[int(k)]
        out.append((None, None, side) if side == "back" else (suit, rank, side))
    return tuple(out)


_ONE_SIDE_MOST = 8  # an unclear coin whose close labels all lie on one side names them, at most this many


def _one_side_could_be(per_label: np.ndarray, labels: list[tuple[str, Suit | None, int | None]], best: int,
                       need: np.ndarray) -> tuple[tuple[Suit | None, int | None, str | None], ...]:
    """When :func:`_could_be` narrows to nothing: every label within twice ``need`` of the best, when they all lie
    on the best's side (two to ``_ONE_SIDE_MOST``) and every label of the other side trails by twice its ``need``
    (``_SIDE_MARGIN`` at least); else (). The side is then known though the face is not: a game that needs only
    the side (Whack-a-Dummy with ``--grid``) settles it from these (bench_states' hand-made Whack-a-Dummy 100: a
    clear hand-made 4 that its A fits too, 0.754 / 0.713, and its 5 0.555 within twice the margin: not narrowed)."""
    score = float(per_label[best])
    close = per_label >= score - 2.0 * need
    close[best] = True
    side = labels[best][0]
    count = int(close.sum())
    if not 2 <= count <= _ONE_SIDE_MOST or any(labels[int(k)][0] != side for k in np.nonzero(close)[0]):
        # one label alone is no narrowing but a reading below its trusted score: never named as settled
        return ()
    other = np.array([lab[0] != side for lab in labels])
    if np.any(per_label[other] > score - 2.0 * need[other]):
        return ()
    order = np.argsort(-per_label)
    return tuple((labels[int(k)][1], labels[int(k)][2], labels[int(k)][0]) for k in order[:count])


def _confidence(score: float, margin: float, model_score: float, model_margin: float) -> float:
    """0..1: 0.5 exactly at the thresholds, 1 at twice the margin (and a score at threshold or above)."""
    if score < model_score or margin < model_margin:
        low = 0.5 * min(score / model_score, margin / max(model_margin, 1e-6))
        if type(low) is float:  # np.clip's result for a Python float (NaN stays NaN), without its ~5 us overhead
            return min(max(low, 0.0), 0.499)
        return float(np.clip(low, 0.0, 0.499))  # a numpy scalar: clipped in its own precision, as before
    return float(min(1.0, 0.5 + 0.5 * (margin - model_margin) / max(model_margin, 1e-6)))


def _label_best(scores: np.ndarray, label_of: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """scores (n, t) over templates -> best per label (n, n_labels)."""
    out = np.full((scores.shape[0], n_labels), -1.0, np.float32)
    for t in range(scores.shape[1]):
        np.maximum(out[:, label_of[t]], scores[:, t], out=out[:, label_of[t]])
    return out, np.argsort(-out, axis=1)[:, :2]


def _wide_coin_features(big: np.ndarray, margin: int) -> np.ndarray:
    """The coin features' log-ratio opponent images, high-passed, of crops (n, h, w, 3) ``margin`` pixels wider on
    each side than a coin crop: colour reference from each middle window's disc, low-pass cells as a coin crop's.
    The crops at once where a step is per pixel or per crop (the same values as one crop at a time, bit for bit):
    fewer calls per coin (a coin grid has 24)."""
    n = COIN_CROP_PX
    _, _, disc = _polar_maps(n, COIN_CROP_MM)
    if big.dtype != np.uint8:  # (crops are bytes; anything else is computed as bytes were before)
        x = big.astype(np.float32) + 6.0
        inside = np.sort(x[:, margin : margin + n : 2, margin : margin + n : 2][:, disc[::2, ::2]], axis=1)
        k = inside.shape[1]  # the median per crop and channel (np.median: ten times the cost of this sort)
        ref = 0.5 * (inside[:, (k - 1) // 2] + inside[:, k // 2])
        logs = np.clip(np.log(x / ref[:, None, None, :]), -2.5, 1.2)
    else:
        # the same medians plus 6 (every other pixel of the middle window's disc), counted over the 256 byte values;
        # log((pixel + 6) / ref), clipped, for each byte value per crop and channel (the same float32 quotient and
        # np.log: see TileReader._big_features), looked up for each pixel
        ref = np.empty((len(big), 3), np.float32)
        _masked_byte_medians(np.ascontiguousarray(big[:, margin : margin + n, margin : margin + n]),
                             np.ascontiguousarray(disc[::2, ::2]), ref)
        logs = np.empty(big.shape, np.float32)
        for image, reference, out in zip(big, ref, logs, strict=True):
            table = np.clip(np.log(_BYTES_PLUS_OFFSET[:, None] / reference), -2.5, 1.2)
            _lookup_per_channel(np.ascontiguousarray(image), np.ascontiguousarray(table), out)
    # the opponent transform crop by crop: cv2.transform computes a row's last pixels apart from the rest (its
    # SIMD width), so one long batch would round a few pixels of each crop differently
    return _high_pass(np.stack([_opponent(image) for image in logs]), _COIN_HIGH_PASS_PX)


@lru_cache(maxsize=4)
def _polar_taps(size: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The bilinear taps of :func:`calibration.profile._polar_matrix` (the polar samples of a ``size`` pixel
    coin window): per sample (COIN_RINGS * COIN_ANGLES) the flat index of each tap's pixel in an image ``width``
    pixels wide (the window's corner at 0) and its weight, in the sparse matrix's order; missing taps weigh 0."""
    matrix = _polar_matrix(size, COIN_CROP_MM)
    taps = int(np.diff(matrix.indptr).max())
    index = np.zeros((matrix.shape[0], taps), np.int64)
    weight = np.zeros((matrix.shape[0], taps), np.float32)
    for row in range(matrix.shape[0]):
        start, stop = matrix.indptr[row], matrix.indptr[row + 1]
        columns = matrix.indices[start:stop]
        index[row, : stop - start] = columns // size * width + columns % size
        weight[row, : stop - start] = matrix.data[start:stop]
    return index, weight


@njit(cache=True)
def _sample_polar(features, offsets, index, weight, out):  # pragma: no cover - numba
    # out[i, j, c, p] = sum over taps q, in order, of weight[p, q] * features[i, offsets[j] + index[p, q], c] for
    # the 3 channels c, accumulated in float32 from 0 as scipy's csr_matvecs does (no fastmath: no reordering, no
    # fused multiply-add); the three channels side by side, as they lie in memory
    for i in range(features.shape[0]):
        for j in range(offsets.shape[0]):
            base = offsets[j]
            for p in range(index.shape[0]):
                first, second, third = np.float32(0.0), np.float32(0.0), np.float32(0.0)
                for q in range(index.shape[1]):
                    w = weight[p, q]
                    k = base + index[p, q]
                    first += w * features[i, k, 0]
                    second += w * features[i, k, 1]
                    third += w * features[i, k, 2]
                out[i, j, 0, p] = first
                out[i, j, 1, p] = second
                out[i, j, 2, p] = third


def _polar_of_windows(features: np.ndarray, margin: int, shifts: list[tuple[int, int]]) -> np.ndarray:
    """Polar samples (n * len(shifts), 3, COIN_RINGS, COIN_ANGLES) of the coin-crop-sized windows at ``shifts``
    (dx, dy pixels from the middle) of feature images (n, h, w, 3) ``margin`` pixels wider on each side than a coin
    crop: bit for bit the sparse polar matrix times each window's pixels (the product teach's features use), read
    straight from the feature images (no copy of each window: 45 windows a frame at least, 200 in a coin grid)."""
    count, height, width, _ = features.shape
    index, weight = _polar_taps(COIN_CROP_PX, width)
    offsets = np.array([(margin + dy) * width + margin + dx for dx, dy in shifts], np.int64)
    flat = np.ascontiguousarray(features, dtype=np.float32).reshape(count, height * width, 3)
    out = np.empty((count, len(shifts), 3, len(index)), np.float32)
    _sample_polar(flat, offsets, index, weight, out)
    return out.reshape(count * len(shifts), 3, COIN_RINGS, COIN_ANGLES)


# The tile search's template match (TileReader._match): cv2.matchTemplate's TM_CCORR_NORMED, written out. OpenCV
# takes each call's correlation through DFTs of both the 48 x 48 feature image and the template (~80 us of a crop's
# ~1 ms search, four calls a crop); the 81 dot products of 4800 terms directly cost half that. Here in float64 (the
# products of float32 are exact, the sums carry 53 bits) and rounded once to float32: within one float32 rounding
# of OpenCV's values (5.96e-8 on the benchmark boards' crops), the same best window (see the tests).
@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot64(a, b):  # pragma: no cover - numba
    total = 0.0
    for i in range(a.shape[0]):
        total += np.float64(a[i]) * np.float64(b[i])
    return total


@njit(cache=True)
def _match_normed(features, template, out):  # pragma: no cover - numba
    # out[dy, dx] = <window at (dy, dx), template> / (|window| |template|) over all channels, as OpenCV's
    # TM_CCORR_NORMED (1 or -1 just past the bound, 0 beyond: its guard against rounding)
    height, width, channels = features.shape
    rows, span = template.shape[0], template.shape[1] * channels
    image = features.reshape(height, width * channels)
    flat = template.reshape(rows, span)
    norm = 0.0
    for r in range(rows):
        norm += _dot64(flat[r], flat[r])
    norm = np.sqrt(norm)
    energy = np.empty((height, out.shape[1]))  # each image row's sum of squares under each window
    for y in range(height):
        for dx in range(out.shape[1]):
            row = image[y, dx * channels : dx * channels + span]
            energy[y, dx] = _dot64(row, row)
    for dy in range(out.shape[0]):
        for dx in range(out.shape[1]):
            correlation = 0.0
            squares = 0.0
            for r in range(rows):
                correlation += _dot64(image[dy + r, dx * channels : dx * channels + span], flat[r])
                squares += energy[dy + r, dx]
            bound = np.sqrt(max(squares, 0.0)) * norm
            if abs(correlation) < bound:
                out[dy, dx] = correlation / bound
            elif abs(correlation) < bound * 1.125:
                out[dy, dx] = 1.0 if correlation > 0 else -1.0
            else:
                out[dy, dx] = 0.0


_BYTES_PLUS_OFFSET = np.arange(256, dtype=np.float32) + np.float32(6.0)  # a byte pixel's value in the features' logs


@njit(cache=True, nogil=True)
def _lookup_per_channel(image, table, out):  # pragma: no cover - numba
    # out[y, x, c] = table[image[y, x, c], c]: a per-channel table of the 256 byte values applied to a colour image
    for y in range(image.shape[0]):
        for x in range(image.shape[1]):
            for c in range(image.shape[2]):
                out[y, x, c] = table[image[y, x, c], c]


@lru_cache(maxsize=2)
def _face_disc(size: int) -> np.ndarray:
    centre = (size - 1) / 2.0
    yy, xx = np.mgrid[0:size, 0:size]
    return np.hypot(xx - centre, yy - centre) <= _COIN_R1 * size / COIN_CROP_MM


def face_share(crop: np.ndarray) -> float:
    """The share of a coin crop's disc (the polar features' reach, 8.4 mm) whose colour is within ``_FACE_INK``
    (log colour ratio) of the disc's median colour: a coin's face around its print. Every coin crop of the four
    taught editions read on the benchmark's boards (1518: numerals, symbols, blank nulls, in every light) showed
    0.64 or more; a meeple's orange head half over wood 0.21 (neither colour is the median: the channels' medians
    mix them)."""
    disc = _face_disc(crop.shape[0])
    logs = _log_ratio(crop[None], disc)[0][disc]
    return float(np.mean(np.einsum("ij,ij->i", logs, logs) <= _FACE_INK * _FACE_INK))


class TileReader:
    """Reads tile crops (n, TILE_CROP_PX, TILE_CROP_PX, 3) against a profile's tile faces and back."""

    def __init__(self, profile: PieceSetProfile) -> None:
        models: list[tuple[str, ClassModel]] = [("face", profile.tile_faces)]
        if profile.tile_back is not None:
            models.append(("back", profile.tile_back))
        self.models = models
        self.labels: list[tuple[str, Suit | None, int | None]] = []
        rows = []
        owner = []
        for side, model in models:
            for label, template in zip(model.labels, model.templates, strict=True):
                self.labels.append((side, label[0], label[1]))
                rows.append(template)
                owner.append(len(self.labels) - 1)
        self.templates = np.asarray(rows, np.float32)  # (t, d)
        self.label_of = np.asarray(owner)
        self.one_template_each = bool(np.array_equal(self.label_of, np.arange(len(self.labels))))
        n = TILE_CROP_PX
        index = np.arange(n * n * 3).reshape(n, n, 3)
        # A crop of a tile turned k quarter turns clockwise shows the upright face turned: undo with rot90(k).
        self.perms = [np.rot90(index, k, axes=(0, 1)).reshape(-1) for k in range(4)]
        # templates turned instead of crops: one matrix product scores a crop at all four turns
        self.turned = np.ascontiguousarray(np.concatenate([self.templates[:, np.argsort(perm)] for perm in self.perms]))
        self.turned_squared = self.turned * self.turned
        faces = self.templates[: len(profile.tile_faces.labels)]
        self.mean_face = faces.mean(axis=0)  # what every face shares: frame, corner symbols, layout
        self.layouts = [self.mean_face] + list(self.templates[len(profile.tile_faces.labels) :])  # and the back
        self._turned_templates: dict[tuple[int, int], np.ndarray] = {}  # cache of templates at quarter turns
        self.min_score = {side: m.min_score for side, m in models}
        self.min_margin = {side: m.min_margin for side, m in models}
        self._typical = {side: m.typical_score if m.typical_score is not None else 1.0 for side, m in models}
        # the model and index of each label: the margin a reading needs depends on both (and on its score)
        self.label_model = [(m, i) for _, m in models for i in range(len(m.labels))]
        self._middles: dict[int, tuple] = {}  # label -> its template's middle and their norms (see _middle)

    def _middle(self, label: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """A label's first template (n, n, 3), centred on its mean; that template's middle half, centred on its
        own mean; and whether the middle carries ``_MIDDLE_SHARE_MIN`` of the print at least: computed once per
        label (what _middle_shows and _null_shows computed at every call, the same values)."""
        if label not in self._middles:
            n = TILE_CROP_PX
            lo, hi = n // 4, n - n // 4
            template = self.templates[int(np.nonzero(self.label_of == label)[0][0])].reshape(n, n, 3)
            middle = template[lo:hi, lo:hi] - template[lo:hi, lo:hi].mean()
            centred = template - template.mean()
            marked = bool(np.linalg.norm(middle) >= _MIDDLE_SHARE_MIN * np.linalg.norm(centred))
            self._middles[label] = (centred, middle, marked)
        return self._middles[label]

    def _big_features(self, big: np.ndarray, margin: int) -> np.ndarray:
        """Features of a wide crop, relative to its middle tile-sized window's colour (for :meth:`_align_label`)."""
        n = TILE_CROP_PX
        if big.dtype != np.uint8:  # (crops are bytes; anything else is computed as bytes were before)
            centre = big[margin : margin + n, margin : margin + n].astype(np.float32) + 6.0
            k = n * n  # np.median per channel, bit for bit: the two middle values picked by a partition
            inside = np.partition(centre.reshape(-1, 3).T, ((k - 1) // 2, k // 2), axis=1)
            ref = 0.5 * (inside[:, (k - 1) // 2] + inside[:, k // 2])
            logs = np.clip(np.log((big.astype(np.float32) + 6.0) / ref), -2.5, 1.2)
            return _high_pass(_opponent(logs)[None].astype(np.float32), _TILE_HIGH_PASS_PX)[0]
        # np.median per channel of the middle window's pixels plus 6, bit for bit (the middle two's float32 sum
        # halved), counted over the 256 byte values (a partition of each channel cost 6 times as much)
        ref = np.empty((1, 3), np.float32)
        _byte_medians(np.ascontiguousarray(big[None, margin : margin + n, margin : margin + n]), 1, ref)
        # log((pixel + 6) / ref), clipped: the same float32 quotient and np.log (the same at every position of an
        # array: see the tests) for each of the 256 byte values per channel, looked up for each pixel
        table = np.clip(np.log(_BYTES_PLUS_OFFSET[:, None] / ref), -2.5, 1.2)
        logs = np.empty(big.shape, np.float32)
        _lookup_per_channel(np.ascontiguousarray(big), np.ascontiguousarray(table), logs)
        return _high_pass(_opponent(logs)[None].astype(np.float32), _TILE_HIGH_PASS_PX)[0]

    def _align_label(self, features: np.ndarray, label: int, turn: int, margin: int) -> tuple[tuple[int, int], float]:
        """Where (dx, dy crop pixels from the centre) a label's template at a quarter turn fits best in a wide
        crop's features: the printed face pins the tile's position even where its outline is too faint to fit
        (white tiles on white paper in bright light) or ambiguous (a printed margin)."""
        t_row = int(np.nonzero(self.label_of == label)[0][0])
        key = (t_row, turn)
        if key not in self._turned_templates:
            n = TILE_CROP_PX
            self._turned_templates[key] = np.ascontiguousarray(
                np.rot90(self.templates[t_row].reshape(n, n, 3), -turn), dtype=np.float32)
        return self._match(features, self._turned_templates[key], margin)

    def _turned_layout(self, index: int, turn: int) -> np.ndarray:
        key = (-1 - index, turn)
        if key not in self._turned_templates:
            n = TILE_CROP_PX
            self._turned_templates[key] = np.ascontiguousarray(
                np.rot90(self.layouts[index].reshape(n, n, 3), -turn), dtype=np.float32)
        return self._turned_templates[key]

    @staticmethod
    def _match(features: np.ndarray, template: np.ndarray, margin: int) -> tuple[tuple[int, int], float]:
        """Where (dx, dy pixels from the middle) a template (h, w, 3) fits best in feature images ``margin`` pixels
        wider on each side, by normalised cross-correlation (cv2.matchTemplate's TM_CCORR_NORMED, see
        _match_normed), and that correlation; the first such window in row order where several tie."""
        features = np.ascontiguousarray(features, dtype=np.float32)
        template = np.ascontiguousarray(template, dtype=np.float32)
        result = np.empty((features.shape[0] - template.shape[0] + 1, features.shape[1] - template.shape[1] + 1),
                          np.float32)
        _match_normed(features, template, result)
        by, bx = divmod(int(np.argmax(result)), result.shape[1])
        return (bx - margin, by - margin), float(result[by, bx])

    def raw(self, crops: np.ndarray) -> np.ndarray:
        """Unnormalised log-ratio features (n, n_px, 3) of the crops."""
        return tile_raw(crops).reshape(len(crops), -1, 3)

    def per_label_batch(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unnormalised feature vectors (n, d), the best correlation of each label over the quarter turns (n,
        labels) and that turn, for a batch of tile crops: one matrix product for all crops, turns and templates."""
        raw = self.raw(crops).reshape(len(crops), -1)
        x = raw - raw.mean(axis=1, keepdims=True)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)
        # (turned templates) @ x.T, transposed back: bit for bit x @ turned.T (the same sgemm products, checked
        # on every batch size 1-60), and 1.3-2.3x faster for batches of 4-34 crops (OpenBLAS takes another path)
        scores = (self.turned @ x.T).T.reshape(len(crops), 4, len(self.templates))  # (n, turn, template)
        per_template = scores.max(axis=1)
        turn_of = scores.argmax(axis=1)
        if self.one_template_each:
            return raw, per_template, turn_of
        per_label = np.full((len(crops), len(self.labels)), -1.0, np.float32)
        turn = np.zeros((len(crops), len(self.labels)), int)
        for t, label in enumerate(self.label_of):
            better = per_template[:, t] > per_label[:, label]
            per_label[better, label] = per_template[better, t]
            turn[better, label] = turn_of[better, t]
        return raw, per_label, turn

    def degraded(self, reading: Reading) -> bool:
        """A clear reading well below what the face typically scores: its rivals, read where they fit, may come
        closer than they did at this window (a window a couple of millimetres off)."""
        return reading.status == "ok" and reading.score < self._typical[reading.side] - _DEGRADED

    def read_batch(self, big: np.ndarray, margin: int, search: np.ndarray | None = None,
                   align: np.ndarray | None = None, features: tuple | None = None,
                   features_out: list | None = None, cover_looks: bool = True) -> list[tuple[Reading, tuple[int, int]]]:
        """Read tile crops ``margin`` pixels wider on each side than a tile crop (n, TILE_CROP_PX + 2 margin,
        ...): each at its middle window first, all at once; only those not read clearly there are searched for
        a better window (:meth:`read_aligned`): a fitted outline puts the window within a pixel or two. Where
        ``search`` is set (a clear outline: surely a tile), a crop that matches nothing is searched too (a back's
        printed grid can pull the outline's fit a couple of millimetres off, and a back is unlike itself then).
        ``align``: which crops may be searched at all (default all). ``features``: the middle windows'
        :meth:`per_label_batch` when already computed; ``features_out``, a list, receives them. Without
        ``cover_looks``, a crop not searched that matches low reads as nothing without the cell-by-cell look for a
        covered tile ("hidden"): only a reading of "none" can differ from the one with the look (for a caller that
        reads some crops again anyway, and judges the rest again with the look: see vision.detect)."""
        if len(big) == 0:
            return []
        n, m = TILE_CROP_PX, margin
        raw, per_label, turn = features if features is not None else self.per_label_batch(big[:, m : m + n, m : m + n])
        if features_out is not None:
            features_out.append((raw, per_label, turn))
        # every crop's labels best first at once: numpy sorts each row as it sorts one crop's alone (ties too)
        orders = np.argsort(-per_label, axis=1)
        out = []
        for i in range(len(big)):
            forced = search is not None and bool(search[i])
            allowed = align is None or bool(align[i])
            searchable = m > 0 and allowed and (per_label[i].max() >= SEARCH_MIN_SCORE or forced)
            # a crop searched unless it reads clearly here: whether a low match is a covered tile or nothing is
            # left to the search's own reading (either is searched; the cell-by-cell look cost 1-2 ms a crop)
            reading = self._judge(raw[i], per_label[i], turn[i], None, orders[i],
                                  occlusion=cover_looks and not searchable)
            # a clear reading well below what the face typically scores is checked too: its rivals, read where
            # they fit, may come closer than they do at this window
            if (reading.status != "ok" or self.degraded(reading)) and searchable:
                out.append(self.read_aligned(big[i], m, first=(raw[i], per_label[i], turn[i]), force=forced))
            else:
                out.append((reading, (0, 0)))
        return out

    def read(self, crops: np.ndarray, masks: np.ndarray | None = None) -> list[Reading]:
        """One Reading per crop. ``masks`` (n, TILE_CROP_PX, TILE_CROP_PX) bool marks pixels known to be covered
        by another piece (a coin on the tile): they are left out of the comparison."""
        if len(crops) == 0:
            return []
        raw = self.raw(crops).reshape(len(crops), -1)
        readings = []
        for i in range(len(crops)):
            keep = None if masks is None or not masks[i].any() else ~np.repeat(masks[i].reshape(-1), 3)
            readings.append(self._read_one(raw[i], keep))
        return readings

    def _scores(self, vector: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
        """(4, t) correlations of the crop at each quarter turn with every template (over ``keep`` only)."""
        x = np.asarray(vector, np.float32)
        if keep is None:
            x = x - x.mean()
            x = x / np.float32(max(float(np.linalg.norm(x)), 1e-6))  # float32 all through: BLAS, not a loop
            return (self.turned @ x).reshape(4, len(self.templates))
        # over the kept entries only, every template at every turn at once: the masked normalised correlation
        # from masked sums, each a matrix-vector product with the turned templates
        k = keep.astype(np.float32)
        kx = k * x
        count = float(k.sum())
        s_x, s_xx = float(kx.sum()), float((kx * x).sum())
        s_xt = self.turned @ kx
        s_t = self.turned @ k
        s_tt = self.turned_squared @ k
        numerator = s_xt - s_x * s_t / count
        denominator = np.sqrt(np.maximum((s_xx - s_x * s_x / count) * (s_tt - s_t * s_t / count), 1e-12))
        return (numerator / denominator).reshape(4, len(self.templates))

    def _per_label(self, vector: np.ndarray, keep: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Best correlation of each label over the quarter turns, and that turn."""
        scores = self._scores(vector, keep)
        best, where = scores.max(axis=0), scores.argmax(axis=0)  # per template: the element argmax points at
        per_label = np.full(len(self.labels), -1.0)
        turn = np.zeros(len(self.labels), int)
        if self.one_template_each:  # each label once: the loop below in one step
            better = best > per_label
            per_label[better] = best[better]
            turn[better] = where[better]
            return per_label, turn
        for t, label in enumerate(self.label_of):
            if best[t] > per_label[label]:
                per_label[label] = best[t]
                turn[label] = where[t]
        return per_label, turn

    def _read_one(self, vector: np.ndarray, keep: np.ndarray | None) -> Reading:
        per_label, turn = self._per_label(vector, keep)
        return self._judge(vector, per_label, turn, keep)

    def _judge(self, vector: np.ndarray, per_label: np.ndarray, turn: np.ndarray, keep: np.ndarray | None,
               order: np.ndarray | None = None, occlusion: bool = True) -> Reading:
        """The reading from every label's best correlation and turn (``order``: ``np.argsort(-per_label)``, when
        already sorted with a batch). Without ``occlusion``, a low match reads as nothing without the cell-by-cell
        look for a covered tile (``hidden``): for a crop that either outcome sends to a search."""
        if order is None:
            order = np.argsort(-per_label)
        best = int(order[0])
        margin = float(per_label[best] - per_label[int(order[1])]) if len(order) > 1 else 1.0
        score = float(per_label[best])
        side, suit, rank = self.labels[best]
        model, index = self.label_model[best]
        min_score, min_margin = self.min_score[side], model.margin_for(index, score)
        confidence = _confidence(score, margin, min_score, min_margin)
        angle = 90.0 * int(turn[best])
        if side == "back":
            suit, rank = None, None
        if score >= model.trusted_score and margin >= min_margin:
            if side == "back" and not self._middle_shows(vector, best, int(turn[best]),
                                                         strength=_BACK_MIDDLE_STRENGTH, keep=keep):
                return Reading("none", score=score, margin=margin, confidence=confidence,
                               reason="a back's frame without its middle (a gap between tiles?)")
            if side == "face" and rank == 0 and keep is None and not self._null_shows(vector, best, int(turn[best])):
                return Reading("unclear", side, None, None, angle, score, margin, confidence,
                               "face unclear (its null mark does not show: washed out?)")
            return Reading("ok", side, suit, rank, angle, score, margin, confidence)
        if score >= min_score:
            could_be = _could_be(per_label, self.labels, best, np.full(len(per_label), min_margin))
            # the faces within twice the needed margin: a second look at the rank mark may tell them apart
            close = np.nonzero(per_label >= score - _CLOSE_MARGINS * min_margin)[0]
            faces = tuple(int(k) for k in close if self.labels[int(k)][0] == "face")
            if side != "face" or len(faces) != len(close) or not 2 <= len(faces) <= _CLOSE_MOST:
                faces = ()
            return Reading("unclear", side, None, None, angle, score, margin, confidence, "face unclear",
                           could_be=could_be, close=faces)
        # Low correlation: covered, or not a tile. Compare cell by cell with the best template (unless nothing
        # matches at all: wood, paper, a marker).
        if score < COVER_LOOK_MIN_SCORE or not occlusion:
            return Reading("none", score=score, margin=margin, confidence=confidence)
        covered, masked_score = self._occlusion(vector, best, int(turn[best]), keep)
        if masked_score >= min_score + 0.1 and 0 < covered <= _COVERED_SHARE:
            return Reading("hidden", side, None, None, angle, masked_score, margin, confidence, "partly hidden",
                           covered)
        return Reading("none", score=score, margin=margin, confidence=confidence, covered=covered)

    def _middle_shows(self, vector: np.ndarray, label: int, turn: int, least: float = _BACK_MIDDLE_MIN,
                      strength: float | None = None, keep: np.ndarray | None = None) -> bool:
        """Whether the middle half of a crop read as ``label`` (a back; a null face) at quarter turn ``turn``
        matches that template's middle (correlates ``least`` at least: see ``_BACK_MIDDLE_MIN``,
        ``_NULL_MIDDLE_MIN``; and, where ``strength`` is given, shows it that strongly relative to the whole crop:
        see ``_BACK_MIDDLE_STRENGTH``); True where the template's middle is plain."""
        n = TILE_CROP_PX
        lo, hi = n // 4, n - n // 4
        centred, middle, marked = self._middle(label)
        if not marked:
            return True
        whole = vector[self.perms[turn]].reshape(n, n, 3)
        x = whole[lo:hi, lo:hi]
        x = x - x.mean()
        correlation = float((x * middle).sum()) / (float(np.linalg.norm(x) * np.linalg.norm(middle)) + 1e-9)
        if correlation < least:
            return False
        if strength is None:
            return True
        # over the pixels not known to be covered (a coin on the back) only
        seen = np.ones((n, n, 3), np.float32) if keep is None else keep[self.perms[turn]].reshape(n, n, 3)
        amplitude = float(((whole - whole.mean()) * centred * seen).sum()) / max(
            float((centred * centred * seen).sum()), 1e-12)
        seen = seen[lo:hi, lo:hi]
        middle_amplitude = float((x * middle * seen).sum()) / max(float((middle * middle * seen).sum()), 1e-12)
        return amplitude > 0 and middle_amplitude >= strength * amplitude

    def _null_shows(self, vector: np.ndarray, label: int, turn: int) -> bool:
        """Whether a crop read as a null face (``label``) at quarter turn ``turn`` shows the null's middle: its
        own mark where it prints one (see ``_NULL_MIDDLE_MIN``), a plain middle where it is blank (see
        ``_BLANK_MIDDLE_MAX``)."""
        if not self._middle_shows(vector, label, turn, _NULL_MIDDLE_MIN):
            return False
        n = TILE_CROP_PX
        lo, hi = n // 4, n - n // 4
        if self._middle(label)[2]:
            return True  # a mark of its own, and it showed
        x = vector[self.perms[turn]].reshape(n, n, 3)
        middle = x[lo:hi, lo:hi]
        return float(np.linalg.norm(middle - middle.mean())) <= _BLANK_MIDDLE_MAX * float(np.linalg.norm(x - x.mean()))

    def read_aligned(self, big: np.ndarray, margin: int, candidates: int = 2,
                     first: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                     force: bool = False) -> tuple[Reading, tuple[int, int]]:
        """Read a crop ``margin`` pixels wider on each side than a tile crop, letting each of the
        ``candidates`` best labels pull the window to where its template fits best (see :meth:`align`): a
        label is judged at its own best position, so a pose a couple of millimetres off (a printed margin's
        inner edge taken for the outline) neither loses the right label nor lends a wrong one a window.
        ``first``: the middle window's (features, per-label scores, turns) when already computed."""
        n, m = TILE_CROP_PX, margin
        windows: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        if first is not None:
            windows[(0, 0)] = first

        def window(dx: int, dy: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            if (dx, dy) not in windows:
                vector = self.raw(big[None, m + dy : m + dy + n, m + dx : m + dx + n])[0].reshape(-1)
                windows[(dx, dy)] = (vector, *self._per_label(vector, None))
            return windows[(dx, dy)]

        _, per_label, turn = window(0, 0)
        if per_label.max() < SEARCH_MIN_SCORE and not force:  # nothing like a tile here: do not search
            return self._judge(windows[(0, 0)][0], per_label, turn, None), (0, 0)
        features = self._big_features(big, m)
        # first the layout every face shares (frame, corner symbols; or the back's pattern) at the likeliest
        # label's quarter turn and the next: it brings a window a few millimetres off onto the tile whatever its
        # rank; then each likely label at its best turn
        best_fit = -1.0
        likeliest = int(np.argmax(per_label))
        start = int(turn[likeliest])
        index = 1 if self.labels[likeliest][0] == "back" and len(self.layouts) > 1 else 0
        for quarter in (start, (start + 1) % 4):
            (dx, dy), fit = self._match(features, self._turned_layout(index, quarter), m)
            if fit > best_fit:
                best_fit, shift = fit, (dx, dy)
        _, per_label2, turn2 = window(*shift)
        if max(per_label.max(), per_label2.max()) < _SEARCH_FURTHER:
            # nothing near a face even with the layout's window (the last tile here was below 0.4 on the
            # benchmark's boards): not worth each label's own search
            where = shift if per_label2.max() > per_label.max() else (0, 0)
            return self._judge(windows[where][0], windows[where][1], windows[where][2], None), where
        likely = np.argsort(-np.maximum(per_label, per_label2))[:candidates]
        aligned: set[int] = set()
        probes: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # windows of one label each
        own: dict[int, list[tuple[int, int]]] = {}  # label -> the probe windows it is scored at

        def align(label: int) -> None:
            scores = [(windows[w][1][label], windows[w][2][label]) for w in windows]
            best_turn = int(max(scores)[1])
            (dx, dy), _ = self._align_label(features, label, best_turn, m)
            window(dx, dy)
            aligned.add(label)

        def align_turned(label: int) -> None:
            # at the half turn from the label's best: a face's corner symbols sit on a diagonal, so a window a
            # couple of millimetres off can score a label best upside down (a bold arms 4 best at 0.51 turned,
            # 0.47 upright, while the ace turned took the window at 0.68: the 4 upright, at its own window 2 px
            # off, fits 0.76). That window counts for this label alone: every window lends each rival another
            # chance (bold moons 4s went unclear, a rival upright at a window 4 px off that only a rival's half
            # turn had found)
            scores = [(windows[w][1][label], windows[w][2][label]) for w in windows]
            best_turn = int(max(scores)[1])
            (dx, dy), _ = self._align_label(features, label, (best_turn + 2) % 4, m)
            if (dx, dy) not in windows:
                if (dx, dy) not in probes:
                    vector = self.raw(big[None, m + dy : m + dy + n, m + dx : m + dx + n])[0].reshape(-1)
                    probes[(dx, dy)] = (vector, *self._per_label(vector, None))
                own.setdefault(label, []).append((dx, dy))

        def summary() -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
            best_score = np.full(len(self.labels), -1.0)
            best_turn = np.zeros(len(self.labels), int)
            best_where = [(0, 0)] * len(self.labels)
            for where, (_, per, turns) in windows.items():
                better = per > best_score
                best_score[better] = per[better]
                best_turn[better] = turns[better]
                for label in np.nonzero(better)[0]:
                    best_where[label] = where
            for label, wheres in own.items():
                for where in wheres:
                    _, per, turns = probes[where]
                    if per[label] > best_score[label]:
                        best_score[label], best_turn[label], best_where[label] = per[label], turns[label], where
            return best_score, best_turn, best_where

        for label in likely:
            align(int(label))
        best_score, best_turn, best_where = summary()
        # every label that comes near the winner is read at its own best window too: a window a couple of
        # millimetres off (a neighbour's border in a touching grid) must not lend the winner a margin that the
        # right label, read where it fits, would not leave it
        rivals = [int(k) for k in np.nonzero(best_score >= best_score.max() - _RIVAL_GAP)[0] if int(k) not in aligned]
        if rivals:
            for label in rivals[:4]:
                align(label)
            best_score, best_turn, best_where = summary()
        top = int(np.argmax(best_score))
        # only where some label already reads as a face or back (an unclear one at least): a crop that matches
        # nothing is left as it was, window and all, for the finder to fit again (a lopsided outline beside the
        # sheet's edge, read at a half-turn window, was fitted again from there and lost: 2 boards' tiles)
        if best_score[top] >= self.min_score[self.labels[top][0]]:
            for label in sorted(aligned):
                align_turned(label)
            best_score, best_turn, best_where = summary()
            top = int(np.argmax(best_score))
        where = best_where[top]
        while where not in windows:
            # the winner's half-turn window: every label is read there too, so no rival the winner meets there is
            # left out of its margin (a bold crowns 5 at its own window beat the 3, never read there, surely)
            windows[where] = probes[where]
            best_score, best_turn, best_where = summary()
            top = int(np.argmax(best_score))
            where = best_where[top]
        return self._judge(windows[where][0], best_score, best_turn, None), where

    def _occlusion(self, vector: np.ndarray, label: int, turn: int, keep: np.ndarray | None) -> tuple[float, float]:
        """Share of cells that disagree with the best template, and the correlation without them."""
        n = TILE_CROP_PX
        x = vector[self.perms[turn]].reshape(n, n, 3)
        t_index = int(np.nonzero(self.label_of == label)[0][0])
        template = self.templates[t_index].reshape(n, n, 3)
        # scale the template to the crop (the template is unit-norm; the crop's contrast is its own)
        xc = x - x.mean()
        scale = float((xc * template).sum()) / max(float((template * template).sum()), 1e-6)
        residual = ((xc - max(scale, 0.0) * template) ** 2).sum(axis=2)
        cell = n // _CELLS
        cells = residual[: cell * _CELLS, : cell * _CELLS].reshape(_CELLS, cell, _CELLS, cell).mean(axis=(1, 3))
        typical = float(np.median(cells))
        bad = cells > max(4.0 * typical, 0.02)
        covered = float(bad.mean())
        if not bad.any():
            return 0.0, -1.0
        mask = bad.repeat(cell, axis=0).repeat(cell, axis=1)  # np.kron(bad, ones((cell, cell))): the same, 10x faster
        full = np.zeros((n, n), bool)
        full[: mask.shape[0], : mask.shape[1]] = mask
        # the mask is in the turned crop's frame; bring it back to the crop's own frame
        full = np.rot90(full, -turn)
        keep_cells = ~np.repeat(full.reshape(-1), 3)
        if keep is not None:
            keep_cells &= keep
        scores = self._scores(vector, keep_cells)
        per_template = scores.max(axis=0)
        return covered, float(per_template.max())


class MarkReader:
    """A second look at the rank mark of a tile whose whole face left two or more ranks close (a bold 3 and 5,
    whose serifs the tile crop's 0.85 px/mm blurs alike): the middle of the face at about the camera's own
    resolution (``profile.tile_marks``), read only against those close faces. Returns None when the profile has
    no mark model (taught before it) or the look does not decide clearly."""

    def __init__(self, profile: PieceSetProfile, tile_labels: list[tuple[str, Suit | None, int | None]]) -> None:
        model = profile.tile_marks
        self.model = model
        index = {} if model is None else {label: i for i, label in enumerate(model.labels)}
        # the tile reader's label index -> the mark model's
        self.of_tile_label = {k: index[(suit, rank)] for k, (side, suit, rank) in enumerate(tile_labels)
                              if side == "face" and (suit, rank) in index}

    def read(self, wide: np.ndarray, margin: int,
             close: tuple[int, ...]) -> tuple[int, int, float, float, float] | None:
        """``wide``: a mark crop ``margin`` pixels wider on each side than MARK_CROP_PX, turned as the tile's
        reading says it is; ``close``: the tile reader's labels to decide among. (label, quarter turns clockwise
        from the crop's up, score, margin, confidence) of a clear decision, else None. Every label is read at its
        own best window within ``margin`` and quarter turn, as teach measured the margins it needs."""
        if self.model is None or any(k not in self.of_tile_label for k in close) or len(close) < 2:
            return None
        n, m = MARK_CROP_PX, margin
        windows = np.stack([wide[dy : dy + n, dx : dx + n] for dy in range(2 * m + 1) for dx in range(2 * m + 1)])
        rows = [self.of_tile_label[k] for k in close]
        per, turn = mark_scores(windows, self.model.templates[rows])  # (windows, close)
        best_window = per.argmax(axis=0)
        scores = per.max(axis=0)
        order = np.argsort(-scores)
        top = int(order[0])
        score, lead = float(scores[top]), float(scores[top] - scores[int(order[1])])
        need = self.model.margin_for(rows[top], score)
        if score < self.model.trusted_score or lead < need:
            return None
        confidence = _confidence(score, lead, self.model.min_score, need)
        return close[top], int(turn[best_window[top], top]), score, lead, confidence


class CoinReader:
    """Reads coin crops (n, COIN_CROP_PX, COIN_CROP_PX, 3) against a profile's value and suit sides."""

    def __init__(self, profile: PieceSetProfile, px_per_mm: float | None = None) -> None:
        """``px_per_mm``: the frame's scale (see :func:`vision.coin_ink.frame_px_per_mm`), or None (unknown):
        below ``MARK_COLOUR_PX_PER_MM`` a null's mark read in a black suit is read without its suit, and below
        ``vision.coin_twins.SIZE_FROM_PX_PER_MM`` coin twins are not read by their symbol's size."""
        self.px_per_mm = px_per_mm
        self.labels: list[tuple[str, Suit | None, int | None]] = []
        rows = []
        self.min_score: dict[str, float] = {}
        self.min_margin: dict[str, float] = {}
        self.label_model = []  # (model, index) per label (see TileReader)
        for side, model in (("value", profile.coin_values), ("suit", profile.coin_suits)):
            for i, (label, template) in enumerate(zip(model.labels, model.templates, strict=True)):
                self.labels.append((side, label[0], label[1]))
                rows.append(template)
                self.label_model.append((model, i))
            self.min_score[side] = model.min_score
            self.min_margin[side] = model.min_margin
        templates = np.asarray(rows, np.float32).reshape(len(rows), 3 * COIN_RINGS, COIN_ANGLES)
        self.templates = templates
        self.spectra = np.conj(np.fft.rfft(templates, axis=-1))  # (t, 3R, A/2+1)
        self.spectra_by_frequency = np.ascontiguousarray(self.spectra.transpose(2, 1, 0))  # (A/2+1, 3R, t)
        per_ring = templates.reshape(len(rows), 3, COIN_RINGS, COIN_ANGLES)
        self.sum_spectra = np.conj(np.fft.rfft(per_ring.sum(axis=1), axis=-1))  # (t, R, A/2+1): masked sums
        self.square_spectra = np.conj(np.fft.rfft((per_ring**2).sum(axis=1), axis=-1))
        # each template's power, as _occlusion scales a template to a crop (once here, not once per crop)
        self.template_power = [float((t * t).sum()) for t in per_ring]
        # Blank faces (a null printed as nothing but the rim): their templates hold nearly no ink inside the
        # rim, and a correlation over the whole coin is then mostly noise. A blank coin is read by its rim alone.
        rings = templates.reshape(len(rows), 3, COIN_RINGS, COIN_ANGLES)
        self.inner_rings = COIN_RINGS - _RIM_RINGS
        inner = (rings[:, :, : self.inner_rings] ** 2).sum(axis=(1, 2, 3)) / np.maximum((rings**2).sum(axis=(1, 2, 3)),
                                                                                           1e-9)
        self.blank = np.nonzero(inner < _BLANK_INK)[0]
        self.blank_set = frozenset(int(k) for k in self.blank)
        outer = rings[:, :, self.inner_rings :].reshape(len(rows), -1, COIN_ANGLES)
        outer = outer - outer.mean(axis=(1, 2), keepdims=True)
        outer /= np.maximum(np.sqrt((outer**2).sum(axis=(1, 2), keepdims=True)), 1e-9)
        self.rim_spectra = np.conj(np.fft.rfft(outer, axis=-1))
        # each side against its own taught sharpness (a symbol's soft curves are less sharp than a numeral's)
        taught = profile.taught.get("coin_sharpness")
        self.min_sharpness = {"value": COIN_SHARPNESS_SHARE * float(taught) if taught else 0.0}
        taught = profile.taught.get("coin_suit_sharpness", taught)
        self.min_sharpness["suit"] = COIN_SHARPNESS_SHARE * float(taught) if taught else 0.0
        self.label_sharpness = {k: COIN_SHARPNESS_SHARE * float(v)
                                for k, v in profile.taught.get("coin_label_sharpness", {}).items()}
        # Twins: a value-side ace printed as its suit's symbol (classic, bold), the suit side's symbol a little
        # larger. Their templates correlate 0.89-1.0 (classic, bold); an "A" ace and its suit's symbol 0.12-0.28.
        flat = templates.reshape(len(rows), -1)
        self.twin_of: dict[int, int] = {}
        for i, (side, suit, rank) in enumerate(self.labels):
            if side != "value" or rank != 1 or suit is None:
                continue
            for j, (other_side, other_suit, _) in enumerate(self.labels):
                if other_side == "suit" and other_suit == suit \
                        and float(coin_correlations(flat[i : i + 1], flat[j : j + 1]).max()) >= _TWIN_LIKE:
                    self.twin_of[i], self.twin_of[j] = j, i
        # the symbol's size, taught per twin suit (profiles taught before it have none: twins stay unclear)
        self.twin_sizes = TwinSizes(profile.taught) if self.twin_of else None
        # while a batch is read (read_batch): each twin judged by size, by the id of the reading it gave, with that
        # reading, its verdict and its crop (the frame's twins are then read against each other: _by_frame)
        self._twins_seen: dict[int, tuple[Reading, TwinVerdict, np.ndarray]] | None = None
        # the suits printed in black ink (moons in the default and bold editions): see _by_ink
        self.achromatic = achromatic_suits(self.labels, templates.reshape(len(rows), -1))
        # per side, the model without its per-label margins (those teach raised where copies passed for a face):
        # what a rival read at its own window elsewhere must trail by (see _judge_faces)
        self.base_models = {"value": replace(profile.coin_values, label_margins=None),
                            "suit": replace(profile.coin_suits, label_margins=None)}
        # the coloured suits' hues (the taught pawns'), for a blank null's rim colour: see _blank_reading
        self.rim_hues = suit_hues(profile.suit_colors, self.achromatic)
        # the value labels an unclear coin may be judged as in place of a best label fitting off the rim (see
        # _aligned, coin_values.at_rim_instead and RUNNER_UP_RANKS)
        # each value 4 whose ace of the same suit is a letter "A" (not a symbol: no twin), with that ace: the pairs
        # the ink's shape tells apart where the templates do not (see _by_shape)
        self.ace_of_four = {
            k: a for k, (side, suit, rank) in enumerate(self.labels) if side == "value" and rank == 4
            for a, (other, other_suit, other_rank) in enumerate(self.labels)
            if other == "value" and other_rank == 1 and other_suit == suit and a not in self.twin_of
            and a not in self.blank_set}
        self.rim_rank_labels = frozenset(
            k for k, (side, _, rank) in enumerate(self.labels)
            if side == "value" and rank in coin_values.RUNNER_UP_RANKS and k not in self.blank_set
            and k not in self.twin_of)

    def read_aligned(self, big: np.ndarray, margin: int) -> tuple[Reading, tuple[int, int]]:
        """Read a crop ``margin`` pixels wider on each side than a coin crop at each likely label's own best window
        (see :meth:`_aligned`): the reading and its window."""
        reading, where, _ = self._aligned(big, margin)
        return reading, where

    def read_aligned_best(self, big: np.ndarray, margin: int
                          ) -> tuple[Reading, tuple[int, int], tuple[str, Suit | None, int | None]]:
        """As :meth:`read_aligned`, and the label ``(side, suit, rank)`` that scored best, whatever the reading
        (sure, unclear or none): what the crop looks most like."""
        reading, where, top = self._aligned(big, margin)
        return reading, where, self.labels[top]

    def _aligned(self, big: np.ndarray, margin: int) -> tuple[Reading, tuple[int, int], int]:
        """Read a crop ``margin`` pixels wider on each side than a coin crop, moving the window (coarse to fine)
        to where each likely label's template correlates most: the polar features need the centre to a fraction
        of a millimetre, and a coin's rim can be too faint (a light coin on white paper) to fit that well. Each
        label is judged at its own best window, so a blurred numeral is not read as a symbol that happens to fit
        better a millimetre off.

        The search reads every window from ONE feature image of the whole wide crop (its colour reference and
        low-pass shared: a window's own differ by a hair); the chosen window is then read exactly as teach read
        the templates, and the other labels keep the better of their own best window's score and their score
        there (the margin can only shrink)."""
        n, m = COIN_CROP_PX, margin
        features = _wide_coin_features(big[None], m)[0]
        scores: dict[tuple[int, int], np.ndarray] = {}  # window -> (labels, angles)

        def look(shifts: list[tuple[int, int]]) -> None:
            new = [w for w in shifts if w not in scores and abs(w[0]) <= m and abs(w[1]) <= m]
            if not new:
                return
            polar = _polar_of_windows(features[None], m, new)
            for w, corr in zip(new, self.correlations(None, polar), strict=True):
                scores[w] = corr

        step = max(1, m // 2)
        look([(dx, dy) for dx in (-step, 0, step) for dy in (-step, 0, step)])
        while step > 1:  # halve the step around each likely label's best window
            step //= 2
            windows = list(scores)
            per_window = np.stack([scores[w].max(axis=1) for w in windows])  # (windows, labels)
            around = []  # the likeliest labels' neighbourhoods read in one batch (one FFT and product)
            for label in np.argsort(-per_window.max(axis=0))[:3]:
                bx, by = windows[int(np.argmax(per_window[:, label]))]
                around += [(bx + dx, by + dy) for dx in (-step, 0, step) for dy in (-step, 0, step)]
            look(list(dict.fromkeys(around)))
        windows = list(scores)
        stack = np.stack([scores[w] for w in windows])  # (windows, labels, angles)
        per_label = stack.max(axis=2)  # (windows, labels)
        best_window = per_label.argmax(axis=0)  # per label
        # the likeliest labels' own best windows, read exactly as teach read the templates: every label is
        # judged by the best of these (its own window among them), the winner at its own
        likely = np.argsort(-per_label.max(axis=0))[:3]
        chosen = list(dict.fromkeys(windows[int(best_window[label])] for label in likely))
        crops = np.stack([big[m + dy : m + dy + n, m + dx : m + dx + n] for dx, dy in chosen])
        exact = self.correlations(crops)  # (chosen windows, labels, angles)
        per_exact = exact.max(axis=2)
        reading, where, top = self._judge_aligned(per_exact, exact, crops, chosen)
        if reading.status == "unclear" and reading.reason == "face unclear":
            by_ink = self._by_ink_suit(per_exact, exact, crops, chosen, frozenset(int(k) for k in likely))
            if by_ink is not None:
                reading, where = by_ink
        return reading, where, top

    def _judge_aligned(self, per_exact: np.ndarray, exact: np.ndarray, crops: np.ndarray,
                       chosen: list[tuple[int, int]]) -> tuple[Reading, tuple[int, int], int]:
        """:meth:`_aligned`'s judgement of the chosen windows (``crops``; ``exact``: every label's correlation at
        each, per turn; ``per_exact`` its best over the turns): the reading, its window and the best label."""
        best = per_exact.max(axis=0)
        top = int(np.argmax(best))
        k = int(np.argmax(per_exact[:, top]))
        where = chosen[k]
        reading = self._gated(self._judge(best, top, int(np.argmax(exact[k, top])), crops[k : k + 1],
                                          here=per_exact[k]), crops[k])
        if coin_values.READ_BY_WINDOW and reading.status == "unclear" and reading.reason == "face unclear":
            own = np.argmax(per_exact, axis=0)  # each label's own best window (its index in chosen)
            windows = [chosen[int(j)] for j in own]
            # the numeral judged by where it fits: the best label, or a 2, 3 or 5 at the rim's centre a hair behind
            # a rival that fits only off it (a bold 3 whose 4 fits 1-1.5 mm off, 0.002 ahead: Easy Slider 509)
            label = coin_values.at_rim_instead(top, best, windows, self.rim_rank_labels)
            j = k if label == top else int(own[label])
            reading = self._by_window(reading, best, label, int(np.argmax(exact[j, label])), crops[j : j + 1],
                                      per_exact[j], windows)
            if reading.status == "ok":
                where = chosen[j]  # the print's own window
            elif reading.status == "unclear" and reading.reason == "face unclear":
                # a 4 whose A alone comes within the margin: the ink's shape tells them apart
                reading = self._by_shape(reading, best, top, int(np.argmax(exact[k, top])), crops[k : k + 1],
                                         per_exact[k], windows)
        return reading, where, top

    def _by_ink_suit(self, per_exact: np.ndarray, exact: np.ndarray, crops: np.ndarray,
                     chosen: list[tuple[int, int]], likely: frozenset[int]) -> tuple[Reading, tuple[int, int]] | None:
        """An unclear value numeral (2-5) read again with the faces of every other suit set aside, where its ink's
        colour clearly names one coloured suit (:func:`vision.coin_ink_suit.ink_suit`, measured at the best label's
        own window): in a set that prints values in the suit's colour, a numeral's templates in two suits differ by
        colour alone, which blur and compression soften in the features but not in the ink's linear ratios. The
        faces of the named suit are judged as :meth:`_aligned` judges every face (margins, where each fits); the
        reading is kept only where it is sure, a value numeral of that suit, and its label was among the
        ``likely`` labels (whose own windows were searched). Only where the frame's scale is known and its colour
        planes resolve a numeral's strokes (``MARK_COLOUR_PX_PER_MM``); None otherwise."""
        if not READ_BY_INK_SUIT or self.px_per_mm is None or self.px_per_mm < MARK_COLOUR_PX_PER_MM \
                or not self.rim_hues:
            return None
        best = per_exact.max(axis=0)
        top = int(np.argmax(best))
        if self.labels[top][0] != "value" or self.labels[top][2] not in coin_values.RANKS:
            return None
        suit = ink_suit(crops[int(np.argmax(per_exact[:, top]))], self.rim_hues)
        if suit is None:
            return None
        elsewhere = np.array([lab[1] is not None and lab[1] != suit for lab in self.labels])
        if not elsewhere.any():
            return None
        per_suit = np.where(elsewhere[None, :], -1.0, per_exact)
        label = int(np.argmax(per_suit.max(axis=0)))
        if label not in likely:
            return None
        reading, where, label = self._judge_aligned(per_suit, exact, crops, chosen)
        if reading.status != "ok" or reading.side != "value" or reading.suit != suit \
                or reading.rank not in coin_values.RANKS:
            return None
        return reading, where

    def read_batch(self, big: np.ndarray, margin: int) -> list[tuple[Reading, tuple[int, int]]]:
        """Read coin crops ``margin`` pixels wider on each side than a coin crop, all at once: each label at
        its own best window among the nine within a pixel (half a millimetre) of the fitted centre, the likeliest
        two read exactly there; those not read clearly are searched further (:meth:`read_aligned`); those that
        look like no face of the set at all are "none"."""
        if len(big) == 0:
            return []
        n, m = COIN_CROP_PX, margin
        count = len(big)
        shifts = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        features = _wide_coin_features(big, m)
        polar = _polar_of_windows(features, m, shifts)  # coin-major: (coin, shift) pairs
        corr = self.correlations(None, polar)  # (count * 9, labels, angles)
        per = corr.max(axis=2).reshape(count, len(shifts), -1)  # (coins, windows, labels)
        middle = shifts.index((0, 0))
        maybe = self._maybe_coin(polar[middle :: len(shifts)], corr[middle :: len(shifts)])
        chosen: list[list[tuple[int, int]]] = []
        crops = []
        for i in range(count):
            likely = np.argsort(-per[i].max(axis=0))[:2]
            where = list(dict.fromkeys(shifts[int(np.argmax(per[i, :, label]))] for label in likely))
            chosen.append(where)
            crops += [big[i, m + dy : m + dy + n, m + dx : m + dx + n] for dx, dy in where]
        exact = self.correlations(np.stack(crops))  # (all chosen windows, labels, angles)
        out: list[tuple[Reading, tuple[int, int]]] = []
        self._twins_seen = {} if self.twin_sizes else None
        k = 0
        for i in range(count):
            these = exact[k : k + len(chosen[i])]
            k += len(chosen[i])
            if not maybe[i]:
                out.append((Reading("none", score=float(per[i].max())), (0, 0)))
                continue
            # every label at the better of the windows read (the likeliest two labels' own best)
            per_exact = these.max(axis=2)
            best = per_exact.max(axis=0)
            top = int(np.argmax(best))
            j = int(np.argmax(per_exact[:, top]))
            dx, dy = chosen[i][j]
            crop = big[i : i + 1, m + dy : m + dy + n, m + dx : m + dx + n]
            reading = self._gated(self._judge(best, top, int(np.argmax(these[j, top])), crop), crop[0])
            if m > 0 and reading.status in ("unclear", "hidden") and reading.reason != "too blurred":
                # a coin, but not clear: look further around (too blurred stays so wherever it is looked at)
                out.append(self.read_aligned(big[i], m))
            elif m > 0 and self._degraded(reading, top):
                # sure, but perhaps at a window off the coin: each label read at its own best window must agree
                # on the label (then this reading stands: a rival at a window a millimetre or two off the rim's
                # centre is no reason to doubt it); where another label wins there, that reading is taken
                again, where, label = self._aligned(big[i], m)
                out.append((reading, (dx, dy)) if label == top else (again, where))
            else:
                out.append((reading, (dx, dy)))
        seen, self._twins_seen = self._twins_seen, None
        return self._by_frame(out, seen) if seen else out

    def _by_frame(self, out: list[tuple[Reading, tuple[int, int]]],
                  seen: dict[int, tuple[Reading, TwinVerdict, np.ndarray]]) -> list[tuple[Reading, tuple[int, int]]]:
        """A frame's twins read against each other (:func:`vision.coin_twins.by_frame`): an unclear twin whose
        symbol's size fell in its suit's unclear band is read by where it lies from the same frame's sure twins of
        its suit (the frame's scale, blur and light are theirs too); an unclear twin of a suit whose size the fit
        does not read (suns, classic crowns) is read as the suit side where another twin of its suit has less ink
        (:func:`vision.coin_twins.by_ink`), or fits its symbol far larger (:func:`vision.coin_twins.by_larger`).
        ``seen``: the twins judged by size while the batch was read
        (``_twins_seen``)."""
        twins = []
        for k, (reading, _) in enumerate(out):
            entry = seen.get(id(reading))
            if entry is None or entry[0] is not reading:
                continue
            if reading.status == "ok":
                twins.append((k, reading.side, reading.suit, entry[1]))
            elif reading.could_be:
                twins.append((k, None, reading.could_be[0][0], entry[1]))
        decided = coin_twins.by_frame([(side, suit, verdict) for _, side, suit, verdict in twins], self.twin_sizes)
        # the twins of suits the fit does not read (suns, classic crowns), against each other by their ink
        inked = coin_twins.by_ink([(side, suit, coin_twins.ink_sizes(seen[id(out[k][0])][2]))
                                   for k, side, suit, _ in twins], self.twin_sizes)
        # ... and by their order of size (a twin fitting far larger than another of its suit is no ace): fitted only
        # where the frame has another twin of the suit beside an unclear one (a fit is 25-40 ms on an idle core)
        suits = [suit for _, _, suit, _ in twins]
        asked = {suit for _, side, suit, _ in twins if side is None and suits.count(suit) > 1
                 and self.twin_sizes.read_in_frame(suit)}
        larger = coin_twins.by_larger([
            (side, suit, self.twin_sizes.frame_size(seen[id(out[k][0])][2], suit, out[k][0].angle_deg)
             if suit in asked else None) for k, side, suit, _ in twins])
        out = list(out)
        for (k, _, suit, _), by_size, by_ink, by_larger in zip(twins, decided, inked, larger, strict=True):
            side = by_size or by_ink or by_larger
            if side is None:
                continue
            reading, where = out[k]
            crop = seen[id(reading)][2]
            sized = Reading("ok", side, suit, None if side == "suit" else 1, reading.angle_deg, reading.score,
                            reading.margin, coin_twins.FRAME_CONFIDENCE if by_size else
                            coin_twins.INK_CONFIDENCE if by_ink else coin_twins.LARGER_CONFIDENCE)
            if self._gated(sized, crop).status == "ok":  # as _by_size: a far blurrier crop stays unclear
                out[k] = (sized, where)
        return out

    def _degraded(self, reading: Reading, label: int) -> bool:
        """Whether a sure reading of ``label`` is well below what its face typically scores: the window may be
        off its coin (a rim fitted 1-2 mm off: a kid on its trampoline, Trampo-Land default 90, read as an arms
        4 at 0.63 where its suit side reads 0.87 centred). Off centre, the polar features of the right face fall
        apart faster than some other face's: every coin of the coin grids 1000-1001 of the four editions read
        through rims 1, 1.5 and 2 mm off its centre (8 directions each) gave 38 sure and wrong readings (a default
        moons 4 as its ace at confidence 1.0); with a reading this far below its face's typical score checked at
        each label's own best window, 13: twins (a classic or bold symbol ace and its suit side, which differ only
        by the symbol's size: the window off centre changes it) and 2 mm off (the edge of the search's reach). The
        benchmark's boards read exactly as before."""
        if reading.status != "ok" or label in self.blank_set:
            return False  # a blank face's score is its rim's, not comparable
        model, _ = self.label_model[label]
        return model.typical_score is not None and reading.score < model.typical_score - _COIN_DEGRADED

    def _gated(self, reading: Reading, crop: np.ndarray) -> Reading:
        if reading.status != "ok" or (reading.rank == 0 and not self._suit_from_mark(reading)
                                      and not self._printed_null(reading)):
            return reading
        suit = reading.suit.value if reading.suit else "-"
        key = f"{reading.side}:{suit}:{'-' if reading.rank is None else reading.rank}"
        least = self.label_sharpness.get(key, self.min_sharpness.get(reading.side or "value", 0.0))
        suit_side = ("suit", reading.suit, None)
        if reading.side == "suit" and reading.confidence < 1.0 \
                and not (suit_side in self.labels and self.labels.index(suit_side) in self.twin_of):
            # only a reading short of twice its face's margin (the blob's arms 4 rival 0.17 behind, confidence
            # 0.54): right suit sides as blurred lead by their margin twice over (default tile-backs 1144, coin grid
            # 1060: 0.24-0.28, confidence 1.0, were lost otherwise). A suit side with a twin ace is told from it by
            # the symbol's size, whose fit judges its own blur (held sharper, classic's coin grid 1003 lost one).
            least *= _SUIT_SIDE_SHARPER
        if reading.margin >= _SHARP_ENOUGH_MARGIN:
            # every other face, the other side's included, far behind: not a blob passing for another face (a
            # sun's rays in a washed-out frame lose edge contrast, the sharpness's measure, not their shape)
            return reading
        if coin_sharpness(crop) < least:
            # far blurrier than the taught coins: a numeral and a symbol are blobs alike (a null stays blank)
            return Reading("unclear", reading.side, None, None, reading.angle_deg, reading.score, reading.margin,
                           min(reading.confidence, 0.49), "too blurred", could_be=self._blurred_could_be(reading))
        return reading

    def _blurred_could_be(self, reading: Reading) -> tuple[tuple[Suit | None, int | None, str | None], ...]:
        """What a coin too blurred to read its face is open between: every face of the suit its sure reading had,
        on either side (the reading first; a value side printed in black, no suit, counts for every suit). The
        gate doubts the face (a blurred numeral is a blob, and so is a symbol), and the side with it: in
        bench_conditions' frames blurred 2 px a default arms 4 read surely as arms' suit side, three times. Its
        colour held: over every coin the gate stopped in bench_states' blurred frames (blur 0.6-0.8 px: default 86
        coins in 72 frames of seeds 163-338, bold 33 in 24 of seeds 191-303) and bench_conditions' blurred and 1
        px/mm frames, the suit read was the truth's every time (states-16's handoff). Slides and Plans of Action,
        whose coins lie suit side up, need only that; Roll Out the Barrels counts it. A reading with no suit (a
        black numeral) names nothing: any coin could show it."""
        if reading.suit is None:
            return ()
        faces = [k for k, (side, suit, _) in enumerate(self.labels)
                 if side in ("value", "suit") and (suit == reading.suit or (side == "value" and suit is None))]
        if (reading.side, reading.suit, reading.rank) in self.labels:
            best = self.labels.index((reading.side, reading.suit, reading.rank))
            faces = [best] + [k for k in faces if k != best]
        return tuple((suit, rank, side) for side, suit, rank in (self.labels[k] for k in faces))

    def _suit_from_mark(self, reading: Reading) -> bool:
        """Whether a null reading's suit comes from a printed mark's colour (a dot, ring or slash in the suit's ink:
        bold): a mark of a few pixels whose colour blur and a JPEG's half-resolution colour fade towards black (a
        bold crowns or suns null at 1 px/mm read surely as moons 0 though its dot still showed the null). Such a
        reading is held to its face's taught sharpness as a numeral's is; a blank null (its suit from the printed
        rim) is not; a null of a black-printed value side (no suit) is, by :meth:`_printed_null`."""
        if reading.suit is None:
            return False
        label = self.labels.index((reading.side, reading.suit, reading.rank))
        return label not in self.blank_set

    def _printed_null(self, reading: Reading) -> bool:
        """Whether a null reading with no suit is a printed mark of the set's black value side (hand-made's slash,
        classic's): a numeral blurred to a stroke passes for it (held-out hand-made blur 2 px 1780: a 3 read surely
        as the null below its taught sharpness), so it is held to the gate as a numeral is. A blank null (read by
        its rim) stays blank however blurred, and a coloured null read suitless in a coarse frame is not a label."""
        label = (reading.side, None, reading.rank)
        return reading.suit is None and label in self.labels and self.labels.index(label) not in self.blank_set

    def _maybe_coin(self, polar: np.ndarray, corr: np.ndarray) -> np.ndarray:
        best = corr.max(axis=(1, 2))
        if len(self.blank) == 0:
            return best >= _FIRST_LOOK
        centred = polar - polar.mean(axis=(1, 2, 3), keepdims=True)
        inner = (centred[:, :, : self.inner_rings] ** 2).sum(axis=(1, 2, 3))
        share = inner / np.maximum((centred**2).sum(axis=(1, 2, 3)), 1e-9)
        return (best >= _FIRST_LOOK) | (share < _BLANK_INK + 0.2)  # the window may be off by a millimetre or two

    def first_look(self, crops: np.ndarray) -> np.ndarray:
        """Whether each crop may be a coin of the set, cheaply: it correlates a little with some face, or it is
        blank inside the rim like a blank face (noise correlates with nothing)."""
        polar = coin_polar(crops)
        return self._maybe_coin(polar, self.correlations(crops, polar))

    def correlations(self, crops: np.ndarray | None, polar: np.ndarray | None = None) -> np.ndarray:
        """(n, t, COIN_ANGLES): correlation of each crop turned by every angle step with every template (``polar``:
        the crops' polar features when already sampled; then ``crops`` may be None)."""
        polar = coin_polar(crops) if polar is None else polar
        polar = polar.reshape(len(polar), -1)
        polar = polar - polar.mean(axis=1, keepdims=True)
        polar /= np.maximum(np.linalg.norm(polar, axis=1, keepdims=True), 1e-6)
        # numpy 2's rfft of float32 runs its double loop through the ufunc's casting buffer (rfft's ``fct=1``
        # picks 'dd->D'): the same transform cast up front is bit for bit the same and ~1.5x faster here
        spectrum = np.fft.rfft(polar.reshape(len(polar), 3 * COIN_RINGS, COIN_ANGLES).astype(np.float64), axis=-1)
        spectrum = spectrum.astype(np.result_type(polar.dtype, np.complex64))
        # per frequency a (crops x rings) @ (rings x templates) product: BLAS, where einsum would loop
        product = np.matmul(spectrum.transpose(2, 0, 1), self.spectra_by_frequency).transpose(1, 2, 0)
        return np.fft.irfft(product, n=COIN_ANGLES, axis=-1)

    def read(self, crops: np.ndarray) -> list[Reading]:
        if len(crops) == 0:
            return []
        corr = self.correlations(crops)
        readings = []
        for i in range(len(crops)):
            per_label = corr[i].max(axis=1)
            best = int(np.argmax(per_label))
            readings.append(self._judge(per_label, best, int(np.argmax(corr[i, best])), crops[i : i + 1]))
        return readings

    def _blank_reading(self, crop: np.ndarray, rim_fits: bool = False,
                       polar: Callable[[], np.ndarray] | None = None, ink_most: float | None = None
                       ) -> Reading | None:
        """The reading of a coin whose face is blank inside the rim, by the rim alone (None: not blank, or the
        set has no blank face). ``rim_fits``: the coin's radial signature (its printed ring and rim) fitted well
        where it was found: then the printed rim need not match a blank face's at this crop's resolution.
        ``polar``: gives the crop's polar features (``coin_polar(crop)[0]``) where the caller has them.
        ``ink_most``: the share of the crop's feature energy inside the rim below which the face is blank (by
        default ``_BLANK_INK``)."""
        if len(self.blank) == 0:
            return None
        polar = coin_polar(crop)[0] if polar is None else polar()
        centred = polar - polar.mean()
        inner_share = float((centred[:, : self.inner_rings] ** 2).sum()) / max(float((centred**2).sum()), 1e-9)
        if inner_share >= (_BLANK_INK if ink_most is None else ink_most):
            return None
        rim = polar[:, self.inner_rings :].reshape(-1, COIN_ANGLES)
        rim = rim - rim.mean()
        rim /= max(float(np.sqrt((rim**2).sum())), 1e-9)
        corr = np.fft.irfft(np.fft.rfft(rim, axis=-1)[None] * self.rim_spectra[self.blank], n=COIN_ANGLES, axis=-1)
        per_label = corr.sum(axis=1).max(axis=1)  # (blank labels,)
        order = np.argsort(-per_label)
        best = int(self.blank[order[0]])
        score = float(per_label[order[0]])
        margin = float(score - per_label[order[1]]) if len(order) > 1 else 1.0
        side, suit, rank = self.labels[best]
        if not rim_fits and (score < _BLANK_RIM_MIN  # no printed rim where a blank face has one: a pawn's base
                             or not self._rim_all_round(rim, best, int(np.argmax(corr[order[0]].sum(axis=0))))):
            return None
        # Blank inside the rim: the side and the rank are sure (no other face is blank). The suit is only the
        # rim's colour, a line a third of a millimetre wide, a fraction of a pixel from a Pi camera: it is given
        # when it stands out clearly, else left None (the value, which the games need, stays known).
        suits = {self.labels[i][1] for i in self.blank}
        confidence = _confidence(max(score, _BLANK_RIM_SCORE), max(margin, _BLANK_SUIT_MARGIN), _BLANK_RIM_SCORE,
                                 self.min_margin[side])
        if len(suits) > 1 and not (score >= _BLANK_RIM_SCORE and margin >= _BLANK_SUIT_MARGIN):
            # the rim's features (mostly its darkness, alike in every suit) do not tell: its colour may, as a player
            # reads it (vision.coin_ink.rim_suit: linear ratios, clear all round), where the frame's colour planes
            # resolve a line that thin (a coarse frame's fade a coloured line as they fade a null's dot)
            coarse = self.px_per_mm is not None and self.px_per_mm < MARK_COLOUR_PX_PER_MM
            suit = None if coarse else rim_suit(crop[0] if crop.ndim == 4 else crop, self.rim_hues, self.achromatic,
                                                frozenset(s for s in suits if s is not None))
        elif len(suits) > 1 and rim_contradicts(crop[0] if crop.ndim == 4 else crop, suit, self.achromatic):
            suit = None  # the rim's features named a suit whose ink (black or coloured) its colour clearly is not
        return Reading("ok", side, suit, rank, 0.0, score, margin, confidence)

    def _rim_all_round(self, rim: np.ndarray, label: int, shift: int) -> bool:
        """Whether a crop's outer rings (``rim``: (3 * rings, angles), centred) show blank face ``label``'s printed
        rim at turn ``shift`` in every sector. A blank face judged by its rim alone claims a coin centred in the
        crop; blank paper beside a coin also correlates with the rim as a whole when the coin's own edge crosses
        one side of the crop (an 820x616 frame, 1 px/mm: paper 14 mm beside a "2" read as a sure null, whose
        window then hid the coin's own vote peak). A coin's rim is round: it shows all round."""
        turned = np.roll(rim, -shift, axis=-1).reshape(-1, _BLANK_SECTORS, COIN_ANGLES // _BLANK_SECTORS)
        template = self.templates[label].reshape(3, COIN_RINGS, COIN_ANGLES)[:, self.inner_rings :]
        template = template.reshape(-1, _BLANK_SECTORS, COIN_ANGLES // _BLANK_SECTORS)
        x = turned - turned.mean(axis=(0, 2), keepdims=True)
        t = template - template.mean(axis=(0, 2), keepdims=True)
        per_sector = (x * t).sum(axis=(0, 2)) / np.sqrt(np.maximum((x**2).sum(axis=(0, 2)) * (t**2).sum(axis=(0, 2)),
                                                                   1e-12))
        return bool(per_sector.min() >= _BLANK_SECTOR_MIN)

    def _judge(self, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
               here: np.ndarray | None = None) -> Reading:
        """The reading from every label's correlation, the best label and its turn (in angle steps); ``here``:
        every label's correlation at the best label's own window, where each label was read at its own best
        window (see :meth:`_judge_faces`)."""
        # the crop's polar features, sampled at most once: a crop read as no face needs them twice (the occlusion
        # check, then the blank face's rim), and sampling them is most of either's cost (a closure, not
        # functools.cache: making that wrapper costs more than a sure reading's whole judging)
        sampled: list[np.ndarray] = []

        def polar() -> np.ndarray:
            if not sampled:
                sampled.append(coin_polar(crop)[0])
            return sampled[0]

        reading = self._judge_faces(per_label, best, shift, crop, here, polar)
        if self.twin_sizes:
            reading = self._by_size(reading, per_label, best, crop)
        if self.achromatic:
            reading = self._by_ink(reading, per_label, crop)
        if reading.status == "ok" and face_share(crop[0] if crop.ndim == 4 else crop) < _FACE_SHARE_MIN:
            # no face colour around the print: not a coin (a hand-made meeple's orange head over wood read as a
            # sure suns coin at confidence 1.0 for its orange middle, Easy Slider hand-made 504)
            return Reading("none", score=reading.score, margin=reading.margin, reason="no coin face")
        if reading.status == "ok" or (best not in self.blank_set and reading.status != "none"):
            return reading
        blank = self._blank_reading(crop, polar=polar)  # a blank face is judged by its rim, not by correlating noise
        return blank if blank is not None else reading

    def _by_window(self, reading: Reading, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
                   here: np.ndarray, windows: list[tuple[int, int]]) -> Reading:
        """An unclear value numeral read by where it and its close rivals fit (:mod:`vision.coin_values`): sure
        when it fits at the fitted rim's centre, every face read at its own window trails it there by the full
        margin, and every face that comes within the margin (read at its own best window), or scores better (where
        ``best`` is a runner-up: :func:`vision.coin_values.at_rim_instead`), is a value face fitting only farther
        off the rim's centre, or the other side's symbol fitting farther still. Then checked as every sure reading
        is (ink, face colour, sharpness). ``per_label``: every label's best score; ``here``: every label's score at
        ``best``'s own window, ``crop`` and ``shift`` (its turn) its own; ``windows``: each label's own window."""
        side, suit, rank = self.labels[best]
        if side != "value" or rank not in coin_values.RANKS or best in self.blank_set or best in self.twin_of:
            return reading
        model, index = self.label_model[best]
        if not coin_values.judged_by_window(rank, model.margin_for(index)):
            return reading
        within = self._unclear_by_margin(per_label, best, shift, crop, here)
        if within is None:
            return reading
        score, need, close = within
        # the other side (its symbol fits a millimetre or two off a numeral) held to the model's plain margin too,
        # unless it fits only farther off still (coin_values.OTHER_SIDE_OFF_PX: bold arms' symbol 1.5 mm off a 3)
        if any(self.labels[k][0] != side and score - float(per_label[k]) < model.min_margin
               and coin_values.window_distance(windows[k]) < coin_values.OTHER_SIDE_OFF_PX for k in close) \
                or not coin_values.fits_at_rim(best, close, windows, coin_values.apart_for(rank)):
            return reading
        return self._sure_over_close(reading, per_label, best, shift, crop, score, need, close)

    def _by_shape(self, reading: Reading, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
                  here: np.ndarray, windows: list[tuple[int, int]]) -> Reading:
        """An unclear value 4 read surely by its ink's shape (:mod:`vision.coin_shape`) where the only face within
        the margin is its suit's "A" (the other side's symbol let off as in :meth:`_by_window`: held to the model's
        plain margin unless it fits farther off than a print centred on the coin could put it), every face read at
        the 4's own window trails it there by the full margin, and the ink is shaped as a 4 with its counter
        showing (:func:`vision.coin_shape.reads_as_four`). Then checked as every sure reading is (ink, face
        colour, sharpness). Only where the frame's scale is known and as fine as the crops the cue was measured
        on (``SHAPE_FROM_PX_PER_MM``). Arguments as :meth:`_by_window`'s, ``best`` the best label."""
        ace = self.ace_of_four.get(best)
        if ace is None or self.px_per_mm is None or self.px_per_mm < coin_shape.SHAPE_FROM_PX_PER_MM:
            return reading
        side = self.labels[best][0]
        model = self.label_model[best][0]
        within = self._unclear_by_margin(per_label, best, shift, crop, here)
        if within is None:
            return reading
        score, need, close = within
        if any(k != ace and (self.labels[k][0] == side or (
                score - float(per_label[k]) < model.min_margin
                and coin_values.window_distance(windows[k]) < coin_values.OTHER_SIDE_OFF_PX)) for k in close):
            return reading
        if not coin_shape.reads_as_four(crop[0]):
            return reading
        return self._sure_over_close(reading, per_label, best, shift, crop, score, need, close)

    def _unclear_by_margin(self, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
                           here: np.ndarray) -> tuple[float, float, list[int]] | None:
        """For :meth:`_by_window` and :meth:`_by_shape`: ``best``'s score, the margin it needs and the labels
        within that margin (the other side's held to ``_SIDE_MARGIN`` at least), where ``best`` is trusted, leads
        every face read at its own window (``here``) by the margin, and is unclear only for a face within the
        margin; else None."""
        side = self.labels[best][0]
        model, index = self.label_model[best]
        score = float(per_label[best])
        need = model.margin_for(index, score)
        if score < model.trusted_score or score - float(np.max(np.delete(here, best), initial=-1.0)) < need:
            return None
        if self._judge_faces(per_label, best, shift, crop, here).status != "unclear":
            return None  # unclear for another reason than a face within the margin (ink, twins' size)
        needs = np.array([need if lab[0] == side else max(need, _SIDE_MARGIN) for lab in self.labels])
        return score, need, coin_values.close_rivals(per_label, best, needs)

    def _sure_over_close(self, reading: Reading, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
                         score: float, need: float, close: list[int]) -> Reading:
        """``best`` read surely over its ``close`` rivals (its margin over the closest), then checked as every sure
        reading is (ink, face colour, sharpness); ``reading`` where a check refuses it."""
        side, suit, rank = self.labels[best]
        margin = float(score - max(float(per_label[k]) for k in close)) if close else need
        sure = Reading("ok", side, suit, rank, shift * 360.0 / COIN_ANGLES, score, margin, 0.5)
        if self.achromatic:
            sure = self._by_ink(sure, per_label, crop)
        if sure.status != "ok" or face_share(crop[0]) < _FACE_SHARE_MIN:
            return reading
        sure = self._gated(sure, crop[0])
        return sure if sure.status == "ok" else reading

    def _twins_could_be(self, per_label: np.ndarray) -> tuple[tuple[Suit | None, int | None, str | None], ...]:
        """The readings of an unclear coin whose best two labels are twins (a value-side ace printed as its suit's
        symbol, about 5 % smaller than the suit side's: 0.7 mm, a pixel at the camera): those two, and a third
        label within ``_SIDE_MARGIN`` of the best (a bold sun's rays blur into its null's dot), provided every
        other label trails by that margin; else (). The twins' closeness is the print's, not a degraded picture's,
        so the other labels are held to the side margin once, not twice as in :func:`_could_be` (whose rule left a
        bold suit side's could_be empty whenever a numeral of the other side came within 0.4). Measured on 310
        twin-topped readings (bold and classic coin grids, tile backs, Easy Slider boards, bench seeds and held-out
        ones): the truth was one of the twins every time."""
        if not self.twin_of or len(per_label) < 3:
            return ()
        order = np.argsort(-per_label)
        first, second = int(order[0]), int(order[1])
        if self.twin_of.get(first) != second:
            return ()
        floor = float(per_label[first]) - _SIDE_MARGIN
        count = 3 if per_label[int(order[2])] > floor else 2
        if len(order) > count and per_label[int(order[count])] > floor:
            return ()
        return tuple((suit, rank, side) for side, suit, rank in (self.labels[int(k)] for k in order[:count]))

    def _suit_faces_could_be(self, could_be: tuple[tuple[Suit | None, int | None, str | None], ...]
                             ) -> tuple[tuple[Suit | None, int | None, str | None], ...]:
        """An unclear twin's readings widened to every face of its suit printed in the suit's colour (the readings
        named first, in their order), where the symbol's fit says the crop is no sharp twin (``_TWINS_NOT_SHOWN``):
        the twins rule (:meth:`_twins_could_be`) was measured on crops a twin's symbol explains, and blur makes a
        numeral a blob that the symbol fits as well as a twin (bench_conditions bold blur 2.0 px 780: an arms 3,
        fitted at residual 0.13 and the fit's most blur, named its ace, suit side and 4 only). Faces in no suit's
        colour (classic's black numerals) are left out: they would name a second "suit", and a grown coin is kept
        only where its readings name one (:meth:`vision.detect.Detector._grown_coin`); the suit is what Slides and
        Plans of Action take from the coin."""
        suit = could_be[0][0]
        faces = [(s, rank, side) for side, s, rank in self.labels if side in ("value", "suit") and s == suit]
        return tuple(could_be) + tuple(face for face in faces if face not in could_be)

    def _by_size(self, reading: Reading, per_label: np.ndarray, best: int, crop: np.ndarray) -> Reading:
        """A twin's reading (a symbol ace or its suit side) checked by the printed symbol's size
        (:mod:`vision.coin_twins`): an unclear coin that could be the two twins is read as the suit side when its
        symbol is as large as the taught suit side's, as the ace when as small as the taught ace's (an "unclear"
        band between); a sure twin whose size doubts it (:meth:`vision.coin_twins.TwinVerdict.doubts`: the polar
        features read classic moons suit sides as sure aces, and off centre too) becomes unclear, naming both.
        The twins may be followed by a third reading, another value of their suit (a bold suit side blurred towards
        its null's dot or its 4): a symbol fitted that well (``coin_twins``' residual) is no numeral or dot (the
        bench's 0, 2 and 4 of the twin suits fit their symbol at residual 0.14 or more, the twins at 0.05 or
        less). A twin whose size is not read (suns) and whose third reading is its null loses the null where its
        symbol fits as no dot does (:meth:`vision.coin_twins.TwinSizes.not_a_dot`): it then names its twins only,
        and is read against the frame's twins (:meth:`_by_frame`)."""
        if reading.status == "unclear":
            if not coin_twins.READ_BY_SIZE or (self.px_per_mm is not None
                                               and self.px_per_mm < coin_twins.SIZE_FROM_PX_PER_MM):
                return reading
            could_be = reading.could_be
            if could_be and len({suit for suit, _, _ in could_be}) == 1 and could_be[0][0] in self.twin_sizes.suits \
                    and {(1, "value"), (None, "suit")} <= {(rank, side) for _, rank, side in could_be}:
                # readings naming both twins, wherever they stand among them: the twins rule holds only where the
                # symbol shows as a sharp twin's (_TWINS_NOT_SHOWN)
                verdict = self.twin_sizes.judge(crop[0] if crop.ndim == 4 else crop, could_be[0][0],
                                                reading.angle_deg)
                if verdict.reason in _TWINS_NOT_SHOWN:
                    return replace(reading, could_be=self._suit_faces_could_be(could_be))
            if len(could_be) not in (2, 3) or len({suit for suit, _, _ in could_be}) != 1 \
                    or {(rank, side) for _, rank, side in could_be[:2]} != {(1, "value"), (None, "suit")} \
                    or (len(could_be) == 3 and (could_be[2][2] != "value" or could_be[2][1] in (1, None))):
                return reading
            suit = could_be[0][0]
            verdict = self.twin_sizes.judge(crop[0] if crop.ndim == 4 else crop, suit, reading.angle_deg)
            sized = None
            if verdict.side is not None:
                rank = None if verdict.side == "suit" else 1
                sized = Reading("ok", verdict.side, suit, rank, reading.angle_deg, reading.score, reading.margin,
                                verdict.confidence)
                # a crop far blurrier than the taught coins stays unclear naming both (the sharpness gate would call
                # it "too blurred" and drop the twins a game's rules can choose between: bold Slides of Action 1, 2,2)
                if self._gated(sized, crop[0] if crop.ndim == 4 else crop).status != "ok":
                    if suit not in self.twin_sizes.far:
                        return reading
                    # a suit read one way only (coin_twins.READ_FAR) stays as it was before its size was read: its
                    # null ruled out by the dot's fit, read against the frame's twins (bold suns: 3 blurred suit
                    # sides of the bench named the null again otherwise)
                    sized = None
            if sized is None:
                if len(could_be) == 3 and could_be[2][1] == 0 \
                        and self.twin_sizes.not_a_dot(crop[0] if crop.ndim == 4 else crop, suit, reading.angle_deg):
                    # the third reading, the null, ruled out by its own mark (a dot: coin_twins.RULE_OUT_NULL)
                    reading = replace(reading, could_be=could_be[:2])
                    could_be = reading.could_be
                # a third reading left (another value of the suit) where the symbol fitted as closely as a twin's
                # (its size unclear: residual _MOST_RESIDUAL or less) is no numeral or dot, as above: the frame reads it
                if self._twins_seen is not None and (len(could_be) == 2 or verdict.reason == "size unclear"):
                    self._twins_seen[id(reading)] = (reading, verdict, crop[0] if crop.ndim == 4 else crop)
                return reading
            if self._twins_seen is not None:
                self._twins_seen[id(sized)] = (sized, verdict, crop[0] if crop.ndim == 4 else crop)
            return sized
        if reading.status != "ok" or best not in self.twin_of:
            return reading
        verdict = self.twin_sizes.judge(crop[0] if crop.ndim == 4 else crop, reading.suit, reading.angle_deg,
                                        sure=True)
        if not verdict.doubts(reading.side):
            if self._twins_seen is not None:
                self._twins_seen[id(reading)] = (reading, verdict, crop[0] if crop.ndim == 4 else crop)
            return reading
        twin = self.twin_of[best]
        order = sorted((best, twin), key=lambda k: -per_label[k])
        could_be = tuple((suit, rank, side) for side, suit, rank in (self.labels[k] for k in order))
        return Reading("unclear", reading.side, None, None, reading.angle_deg, reading.score, reading.margin,
                       min(reading.confidence, 0.49), "face unclear", could_be=could_be)

    def _by_ink(self, reading: Reading, per_label: np.ndarray, crop: np.ndarray) -> Reading:
        """A sure reading in a suit printed in black ink must show black ink (:mod:`vision.coin_ink`): blur mixes a
        coloured numeral with the light face, its log colour ratios fade towards black, and at 1 px/mm a blue
        "arms 2" correlated best with "moons 2" (bench_conditions' coin grids at 820x616: default 1 and bold 5
        sure and wrong). The ink's colour measured in linear ratios to the face, which blur shortens but does not
        turn, tells it: a reading of a black suit whose ink shows colour becomes "face unclear", naming the same
        face in every suit (the black one too: see below). A null's mark (bold's dot) is too small for that in a
        frame coarser than ``MARK_COLOUR_PX_PER_MM`` (its colour planes fade a coloured dot to black): where the
        reader knows the frame's scale, such a null is read without its suit."""
        if reading.status != "ok" or reading.suit not in self.achromatic:
            return reading
        if reading.rank == 0 and self.px_per_mm is not None and self.px_per_mm < MARK_COLOUR_PX_PER_MM \
                and self._suit_from_mark(reading):
            # a null's mark (a dot) in a coarse frame: its colour faded towards black there (bold crowns and suns
            # nulls read as moons 0 at 1 px/mm, black as a black dot's): the null is sure, its suit is not
            return Reading("ok", reading.side, None, 0, reading.angle_deg, reading.score, reading.margin,
                           reading.confidence)
        chroma = ink_chroma(crop[0] if crop.ndim == 4 else crop)
        if not chroma > ACHROMATIC_MAX:  # black ink, or no ink darker than the face to measure (NaN)
            return reading
        # the same face in every suit, the black suit read too: glare washes a black numeral's ink towards the lamp's
        # colour as blur fades a coloured one towards black (held-out bench_states default barrels 128: a moons 2
        # and a moons 5 named the 2 and 5 of suns, crowns and arms only). The value holds either way (the
        # numeral's shape read surely), the suit does not: no one suit is named
        same = [k for k, (side, suit, rank) in enumerate(self.labels)
                if side == reading.side and rank == reading.rank and suit is not None]
        same.sort(key=lambda k: -per_label[k])
        could_be = tuple((suit, rank, side) for side, suit, rank in (self.labels[k] for k in same))
        return Reading("unclear", reading.side, None, None, reading.angle_deg, reading.score, reading.margin,
                       min(reading.confidence, 0.49), "face unclear", could_be=could_be if len(could_be) >= 2 else ())

    def _judge_faces(self, per_label: np.ndarray, best: int, shift: int, crop: np.ndarray,
                     here: np.ndarray | None = None, polar: Callable[[], np.ndarray] | None = None) -> Reading:
        """The reading by the faces' correlations alone (see :meth:`_judge`); ``polar``: gives the crop's polar
        features where the caller has them (the occlusion check's)."""
        order = np.argsort(-per_label)
        score = float(per_label[best])
        margin = float(score - per_label[int(order[1])]) if len(order) > 1 else 1.0
        side, suit, rank = self.labels[best]
        # Which side is up decides games (a coin turned over in Whack-a-Dummy): the best label of the other side
        # must be clearly behind, or the side is unclear (a blurred numeral is a blob, and so is a symbol).
        other = max((float(v) for v, lab in zip(per_label, self.labels, strict=True) if lab[0] != side), default=-1)
        if score - other < _SIDE_MARGIN:
            margin = min(margin, score - other)
        angle = shift * 360.0 / COIN_ANGLES
        model, index = self.label_model[best]
        min_score, min_margin = self.min_score[side], model.margin_for(index, score)
        confidence = _confidence(score, margin, min_score, min_margin)
        if score >= model.trusted_score and margin >= min_margin:
            return Reading("ok", side, suit, rank, angle, score, margin, confidence)
        base_margin = self.base_models[side].margin_for(index, score)
        if here is not None and SPLIT_ALIGNED_MARGINS and rank != 0 and score >= model.trusted_score \
                and (margin >= base_margin or self._leads_values_elsewhere(per_label, here, best, base_margin)) \
                and score - float(np.max(np.delete(here, best), initial=-1.0)) >= min_margin:
            # Each label read at its own best window (the aligned search): a label's own margin, raised where
            # teach's copies of another face passed for it, was measured as teach reads a copy (every label at
            # the windows within a pixel of its middle): it is held against the labels read at this reading's own
            # window. A rival fitting better 1-3 mm away, where the print would have to be off the coin to be it,
            # is held to the model's margin, as every face is that no copy passed for (teach never read a copy
            # that way). The hand-made "A": teach's blurred copies of the script 4 passed for it by up to 0.19
            # (its margin 0.21), so every A was unclear; in game frames the 4 fits an A 0.5-1 mm off its middle
            # 0.03-0.2 below it, while at the A's window every other face trails by 0.25 or more. Every truth
            # coin of bench_detect's hand-made frames (dev and held out), blurred 0-1.6 px and moved 1 mm: the A
            # led a true 4 by 0.018 at most (needed now: 0.08), and only there. Not for a null: its mark, one
            # stroke, is what clutter passes for wherever it is read (a hand-made meeple's edge beside the board,
            # bench_conditions tilt 35 degrees, read as a sure slash null when its rivals elsewhere were let off).
            return Reading("ok", side, suit, rank, angle, score, margin,
                           min(0.75, _confidence(score, margin, min_score, base_margin)))
        if score >= min_score:
            # the labels within the margin that made it unclear: the other side's within _SIDE_MARGIN
            need = np.array([min_margin if lab[0] == side else max(min_margin, _SIDE_MARGIN) for lab in self.labels])
            could_be = (_could_be(per_label, self.labels, best, need) or self._twins_could_be(per_label)
                        or _one_side_could_be(per_label, self.labels, best, need))
            return Reading("unclear", side, None, None, angle, score, margin, confidence, "face unclear",
                           could_be=could_be)
        if score < 0.3:
            return Reading("none", score=score, margin=margin, confidence=confidence)
        covered, masked = self._occlusion(coin_polar(crop)[0] if polar is None else polar(), best, shift)
        if masked >= min_score + 0.1 and 0 < covered <= _COVERED_SHARE:
            return Reading("hidden", side, None, None, angle, masked, margin, confidence, "partly hidden", covered)
        return Reading("none", score=score, margin=margin, confidence=confidence, covered=covered)

    def _leads_values_elsewhere(self, per_label: np.ndarray, here: np.ndarray, best: int, base_margin: float) -> bool:
        """Whether value label ``best``, read at its own window (``here``: every label's score there), leads every
        other label by ``base_margin``, except the values that score better only at a window elsewhere
        (``per_label``: every label's best): those need the label's own margin without the term that grows as
        the score falls below the typical one (``margin_for`` without a score: the model's ``min_margin``, or more
        where teach saw copies of another face pass for this one).

        Why: the default "4" and "A" share the triangle. Where a 4 is printed the A fits half a millimetre to two
        off its middle, 0.07 behind the 4; at the 4's own window it trails by 0.12 or more. Game 4s score
        0.74-0.79 (the model's typical score 0.85), so the low-score term asked 0.08-0.11 of a rival that is not
        at the 4's place, and the default barrels' 4s were "face unclear". That term guards a degraded crop,
        where other faces come close at the same window: the rivals at the reading's own window still need it
        (the caller's test). Teach's per-label raise is kept: it is evidence that a particular other face passes
        for this one (bold: a 3 for its arms 4 by 0.113, and in a blurred bold Easy Slider 540 a 3 fitted 0.7 mm
        off its 4's window only 0.078 behind it, read surely wrong by the plain margin, which fours-13's rule
        asked). The default 4s' raises (0.025-0.029) are under the model's 0.05. Not for the suit side: a blurred
        value coin read as its suit side led its value elsewhere by up to 0.10 (the suit model's margin 0.116)."""
        if not VALUES_ELSEWHERE_LABEL_MARGIN or self.labels[best][0] != "value":
            return False
        model, index = self.label_model[best]
        score, own = float(per_label[best]), model.margin_for(index)
        for k, (side, _, _) in enumerate(self.labels):
            if k == best:
                continue
            elsewhere = side == "value" and float(here[k]) < float(per_label[k])
            if score - float(per_label[k]) < (own if elsewhere else base_margin):
                return False
        return True

    def _occlusion(self, polar: np.ndarray, template: int, shift: int) -> tuple[float, float]:
        """Share of the coin (8 sectors, plus the middle) unlike the best template at its best turn, and the
        correlation over the rest."""
        x = np.roll(polar.reshape(3, COIN_RINGS, COIN_ANGLES), -shift, axis=-1)
        t = self.templates[template].reshape(3, COIN_RINGS, COIN_ANGLES)
        xc = x - x.mean()
        scale = max(float((xc * t).sum()) / max(self.template_power[template], 1e-6), 0.0)
        residual = ((xc - scale * t) ** 2).sum(axis=0)  # (rings, angles)
        inner = COIN_RINGS // 3
        cells = [residual[:inner].mean()] + [
            residual[inner:, k * COIN_ANGLES // 8 : (k + 1) * COIN_ANGLES // 8].mean() for k in range(8)
        ]
        cells = np.array(cells)
        typical = float(np.sort(cells)[len(cells) // 2])  # np.median of the nine (the middle one), a tenth the cost
        bad = cells > max(4.0 * typical, 0.02)
        if not bad.any():
            return 0.0, -1.0
        keep = np.ones((COIN_RINGS, COIN_ANGLES), bool)
        if bad[0]:
            keep[:inner] = False
        for k in range(8):
            if bad[k + 1]:
                keep[inner:, k * COIN_ANGLES // 8 : (k + 1) * COIN_ANGLES // 8] = False
        covered = 1.0 - float(keep.mean())
        # every template at every turn over the kept part, at once: the masked sums are circular correlations
        # along the angles (FFT), so the masked normalised correlation needs no loop over templates or turns
        k = keep.astype(np.float64)
        kx = x * k[None]
        count = 3.0 * k.sum()
        s_x, s_xx = float(kx.sum()), float((kx * x).sum())
        spec_k = np.fft.rfft(k, axis=-1)  # (rings, freq)
        s_xt = np.fft.irfft(np.einsum("rf,trf->tf", np.fft.rfft(kx.reshape(-1, COIN_ANGLES), axis=-1),
                                      self.spectra), n=COIN_ANGLES, axis=-1)  # (templates, turns)
        s_t = np.fft.irfft(np.einsum("rf,trf->tf", spec_k, self.sum_spectra), n=COIN_ANGLES, axis=-1)
        s_tt = np.fft.irfft(np.einsum("rf,trf->tf", spec_k, self.square_spectra), n=COIN_ANGLES, axis=-1)
        numerator = s_xt - s_x * s_t / count
        denominator = np.sqrt(np.maximum((s_xx - s_x * s_x / count) * (s_tt - s_t * s_t / count), 1e-12))
        return covered, float((numerator / denominator).max())
