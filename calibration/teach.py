"""Teaching tableside a piece set: from the pieces found in photos of the teach layout to a profile.

The teach layout (see docs/teach-layout.jpg), blocks from top to bottom:

* T: the 24 tiles face up, 4 rows (suns, moons, crowns, arms) x 6 columns (null, ace, 2, 3, 4, 5);
* V: the 24 coins value side up in the same order;
* S: the 24 coins suit side up in the same order (to the right of V, or in V's place in a second photo: a set
  has one coin of each, so a real photo shows either V or S);
* P: the 4 pawns in suit order, and D: the 4 dice in suit order (any face up) to the right of P;
* optionally, in a second photo, the 24 tiles back side up in T's place.

This module does not look at images: :func:`vision.teach.survey_teach_photo` finds the pieces (by their
shape only, no profile needed) and hands over :class:`TeachPhoto` objects, so that ``calibration`` stays free
of ``vision`` (imports flow tableside -> vision -> calibration). Here the blocks are recognised by size and
position (which block is which follows from what it holds: 24 tiles that all look alike are backs, a coin
block whose rows hold six alike coins is S), put in row/column order, checked (complete, suits in rows,
nulls first, pawns and dice in the tiles' suit order) and learned: one template per face from the taught crop
and augmented copies of it (small shifts, turns and scale changes, blur, noise, JPEG, changes of light colour
and brightness), and thresholds from how augmented copies score against all templates. The tiles' rank marks
are learned a second time at about the camera's own resolution (``tile_marks``: the detector's second look at
a tile whose whole face leaves two ranks close).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.profile import (
    COIN_ANGLES,
    COIN_CROP_MM,
    COIN_CROP_PX,
    COIN_SHARPNESS_SHARE,
    MARK_CROP_MM,
    MARK_CROP_PX,
    SYMBOL_CROP_BLUR_MM,
    SYMBOL_SIZE_MOST_BLUR_MM,
    SYMBOL_SIZE_MOST_RESIDUAL,
    TILE_CROP_MM,
    TILE_CROP_PX,
    ClassModel,
    PieceSetProfile,
    _log_ratio,
    _normalise,
    coin_correlations,
    coin_face_colour,
    coin_features,
    coin_sharpness,
    coin_symbol_level,
    coin_symbol_template,
    face_chroma,
    fit_coin_symbol,
    mark_features,
    mark_scores,
    tile_features,
    tile_scores,
)
from rules.pieces import COIN_MM, RANKS, SUITS, TILE_MM, Suit

__all__ = [
    "TILE_CONTEXT_MM",
    "TILE_CONTEXT_PX",
    "COIN_CONTEXT_MM",
    "COIN_CONTEXT_PX",
    "TeachPiece",
    "TeachFigure",
    "TeachPhoto",
    "build_profile",
    "augment",
]

# Context crops: larger than the canonical crops (room to shift and turn them) at twice their resolution.
TILE_CONTEXT_MM = TILE_CROP_MM + 8.0
TILE_CONTEXT_PX = 2 * int(round(TILE_CROP_PX * TILE_CONTEXT_MM / TILE_CROP_MM))
COIN_CONTEXT_MM = COIN_CROP_MM + 6.0
COIN_CONTEXT_PX = 2 * int(round(COIN_CROP_PX * COIN_CONTEXT_MM / COIN_CROP_MM))

_AUGMENT = 24  # augmented copies per taught crop
_ROWS, _COLS = 4, 6


@dataclass(frozen=True)
class TeachPiece:
    """A tile or coin found in a teach photo: table position (mm), rotation, and its context crop (BGR, the
    piece's up toward the crop's top as far as the outline tells: tiles modulo a quarter turn)."""

    x_mm: float
    y_mm: float
    angle_deg: float
    context: np.ndarray
    outline_mm: float = TILE_MM  # tiles: the side of the strongest square outline found (a printed frame's)
    colour_bgr: tuple[float, float, float] | None = None  # tiles: the median colour of its middle (vision.set_colours)


@dataclass(frozen=True)
class TeachFigure:
    """A standing piece (pawn or die) found below the coins: where, how big, its colour (BGR, 0-255) and, for
    dice, a crop of its top face (grey, up = the table's -y)."""

    x_mm: float
    y_mm: float
    area_mm2: float
    color_bgr: tuple[float, float, float]
    squareness: float  # 1 for a square footprint (die), less for a pawn
    top_crop: np.ndarray | None = None


@dataclass
class TeachPhoto:
    """What :func:`vision.teach.survey_teach_photo` found in one teach photo."""

    name: str
    tiles: list[TeachPiece]
    coins: list[TeachPiece]
    figures: list[TeachFigure]
    white_bgr: tuple[float, float, float]
    px_per_mm: float
    image_size: tuple[int, int]
    notes: list[str] = field(default_factory=list)
    paper_bgr: tuple[float, float, float] | None = None  # the sheet's paper (None: no sheet seen plainly)


# ------------------------------------------------------------------------------------------------------------
# Augmentation
# ------------------------------------------------------------------------------------------------------------
def augment(
    context: np.ndarray,
    count: int,
    rng: np.random.Generator,
    context_mm: float,
    crop_mm: float,
    out_px: int,
    shift_mm: float,
    turn_deg: float,
    strength: float = 1.0,
    blur_px: float = 1.1,
) -> np.ndarray:
    """``count`` canonical crops (count, out_px, out_px, 3) cut from a context crop with random small moves
    and camera/light changes. The first copy is the plain crop. ``strength`` scales the photometric changes."""
    size = context.shape[0]
    p_context = size / context_mm
    big = 2 * out_px
    p_big = big / crop_mm
    out = np.empty((count, out_px, out_px, 3), np.uint8)
    centre_c = (size - 1) / 2
    centre_b = (big - 1) / 2
    for i in range(count):
        plain = i == 0
        angle = 0.0 if plain else rng.uniform(-turn_deg, turn_deg)
        scale = 1.0 if plain else rng.uniform(0.98, 1.02)
        dx, dy = (0.0, 0.0) if plain else rng.uniform(-shift_mm, shift_mm, 2)
        # big crop pixel -> context pixel: around the centre, turned, scaled, shifted (all in mm)
        a = math.radians(angle)
        k = p_context / p_big * scale
        m = np.array(
            [
                [k * math.cos(a), -k * math.sin(a), 0.0],
                [k * math.sin(a), k * math.cos(a), 0.0],
            ]
        )
        m[:, 2] = np.array([centre_c + dx * p_context, centre_c + dy * p_context]) - m[:, :2] @ [centre_b, centre_b]
        crop = cv2.warpAffine(context, m, (big, big), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
        crop = cv2.resize(crop, (out_px, out_px), interpolation=cv2.INTER_AREA)
        if not plain:
            crop = _photometric(crop, rng, strength, blur_px)
        out[i] = crop
    return out


def _photometric(crop: np.ndarray, rng: np.random.Generator, strength: float, blur_px: float) -> np.ndarray:
    image = crop.astype(np.float32)
    sigma = rng.uniform(0.0, blur_px * strength)
    if sigma > 0.2:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    gains = rng.uniform(1 - 0.15 * strength, 1 + 0.15 * strength, 3) * rng.uniform(1 - 0.35 * strength, 1 + 0.15)
    image = image * gains[None, None, :]
    # uneven light across the piece (a lamp to one side)
    h, w = image.shape[:2]
    gx, gy = rng.uniform(-0.12, 0.12, 2) * strength
    ramp = 1 + gx * np.linspace(-1, 1, w)[None, :] + gy * np.linspace(-1, 1, h)[:, None]
    image = image * ramp[:, :, None]
    image += rng.normal(0, rng.uniform(0, 5 * strength), image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(60, 95))
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return image


def _tile_augment(piece: TeachPiece, count: int, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    return augment(piece.context, count, rng, TILE_CONTEXT_MM, TILE_CROP_MM, TILE_CROP_PX, 1.2, 1.5, strength)


def _coin_augment(piece: TeachPiece, count: int, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    # coin crops have about twice the camera's resolution: its blur spans twice as many crop pixels
    return augment(piece.context, count, rng, COIN_CONTEXT_MM, COIN_CROP_MM, COIN_CROP_PX, 0.5, 180.0, strength,
                   blur_px=2.2)


# ------------------------------------------------------------------------------------------------------------
# Blocks
# ------------------------------------------------------------------------------------------------------------
def _blocks(pieces: list[TeachPiece], size_mm: float) -> list[list[TeachPiece]]:
    """Pieces grouped into blocks: neighbours are 1 to 1.6 sizes apart, side by side along their own axes.
    Stray finds next to a block (a marker, the sheet's corner) touch it at most once and are pruned."""
    n = len(pieces)
    if n == 0:
        return []
    xy = np.array([[p.x_mm, p.y_mm] for p in pieces])
    angles = np.radians([p.angle_deg for p in pieces])
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        d = xy - xy[i]
        dist = np.linalg.norm(d, axis=1)
        # direction of each other piece in this piece's frame, folded to the nearest axis
        local = np.degrees(np.arctan2(d[:, 1], d[:, 0]) - angles[i]) % 90.0
        off_axis = np.minimum(local, 90.0 - local)
        for j in np.nonzero((dist > 0.95 * size_mm) & (dist < 1.6 * size_mm) & (off_axis < 12.0))[0]:
            neighbours[i].add(int(j))
            neighbours[int(j)].add(i)
    alive = set(range(n))
    changed = True
    while changed:  # prune leaves: in a 4 x 6 block every piece has 2 neighbours or more
        changed = False
        for i in list(alive):
            if len(neighbours[i] & alive) <= 1:
                alive.discard(i)
                changed = True
    blocks = []
    seen: set[int] = set()
    for start in sorted(alive):
        if start in seen:
            continue
        stack, block = [start], []
        seen.add(start)
        while stack:
            i = stack.pop()
            block.append(i)
            for j in neighbours[i] & alive:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        blocks.append([pieces[i] for i in block])
    return sorted(blocks, key=len, reverse=True)


def _grid(pieces: list[TeachPiece], what: str, photo: str, pitch_mm: float) -> list[list[TeachPiece]]:
    """Pieces of one block in 4 rows of 6, top row first, left to right (in the block's own frame)."""
    count = _ROWS * _COLS
    if len(pieces) != count:
        raise CalibrationError(
            f"{photo}: found {len(pieces)} {what} where the teach layout has {count} (4 rows of 6): "
            "lay them all out, apart from each other and fully in view, and take the photo again"
        )
    xy = np.array([[p.x_mm, p.y_mm] for p in pieces])
    # the block's rotation from its outline's principal axes (rows run along the longer one)
    centred = xy - xy.mean(axis=0)
    angle = 0.5 * math.atan2(2 * (centred[:, 0] * centred[:, 1]).mean(),
                             (centred[:, 0] ** 2).mean() - (centred[:, 1] ** 2).mean())
    c, s = math.cos(angle), math.sin(angle)
    local = centred @ np.array([[c, -s], [s, c]])
    order = np.argsort(local[:, 1])
    rows = [order[r * _COLS : (r + 1) * _COLS] for r in range(_ROWS)]
    # rows must be separated: the gap between consecutive rows (by y) is much larger than the spread in a row
    for r in range(_ROWS):
        spread = np.ptp(local[rows[r], 1])
        if spread > 0.45 * pitch_mm:
            raise CalibrationError(
                f"{photo}: the {what} are not in 4 straight rows of 6: lay each suit's {what} in one row "
                "(suns, moons, crowns, arms from top to bottom)"
            )
    out = []
    for r in range(_ROWS):
        row = rows[r][np.argsort(local[rows[r], 0])]
        out.append([pieces[i] for i in row])
    return out


def _mean_pair_correlation(vectors: np.ndarray) -> float:
    if len(vectors) < 2:
        return 1.0
    gram = vectors @ vectors.T
    n = len(vectors)
    return float((gram.sum() - np.trace(gram)) / (n * (n - 1)))


def _tile_sameness(pieces: list[TeachPiece]) -> float:
    """How alike a block's tiles are (backs: all alike), over their best quarter turns."""
    crops = np.stack([_tile_augment(p, 1, np.random.default_rng(0))[0] for p in pieces])
    features = tile_features(crops)
    scores = tile_scores(features, features).max(axis=1)  # (n, n) best turn
    n = len(pieces)
    return float((scores.sum() - np.trace(scores)) / (n * (n - 1)))


def _coin_row_sameness(rows: list[list[TeachPiece]]) -> float:
    """How alike the coins within each row are, at their best rotation (suit sides: six alike coins)."""
    values = []
    for row in rows:
        crops = np.stack([_coin_augment(p, 1, np.random.default_rng(0))[0] for p in row])
        features = coin_features(crops)
        corr = coin_correlations(features, features).max(axis=2)
        n = len(row)
        values.append((corr.sum() - np.trace(corr)) / (n * (n - 1)))
    return float(np.mean(values))


def _disc(size: int) -> np.ndarray:
    """The pixels of a coin crop inside the printed area (the rest is what the coin lies on)."""
    centre = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size]
    return np.hypot(xx - centre, yy - centre) <= 0.44 * COIN_MM * size / COIN_CROP_MM


def _ink(crop: np.ndarray) -> tuple[np.ndarray, float]:
    """Mean log colour ratio of a crop's ink (pixels unlike the face's own colour) and the ink's share; coin
    crops (COIN_CROP_PX square) count only their disc."""
    if crop.shape[0] == COIN_CROP_PX:
        disc = _disc(COIN_CROP_PX)
        logs = _log_ratio(crop[None], disc)[0][disc]
    else:
        logs = _log_ratio(crop[None])[0].reshape(-1, 3)
    strength = np.linalg.norm(logs, axis=1)
    ink = strength > 0.3
    if ink.sum() < 3:
        return np.zeros(3), 0.0
    return logs[ink].mean(axis=0), float(ink.mean())


def _centre_ink(crop: np.ndarray) -> float:
    """Ink share in the middle third of a crop: where ranks are printed (least for the null)."""
    n = crop.shape[0]
    mask = _disc(n) if n == COIN_CROP_PX else None
    logs = _log_ratio(crop[None], mask)[0][n // 3 : n - n // 3, n // 3 : n - n // 3]
    return float((np.linalg.norm(logs, axis=2) > 0.3).mean())


def _check_suit_rows(crops: list[list[np.ndarray]], what: str, photo: str, first: int = 0) -> np.ndarray:
    """Every piece's ink colour is nearest its own row's: the rows are suits. Returns the row colours (4, 3).
    ``first``: the first column to check (1 skips coin nulls, whose only ink may be a thin rim)."""
    inks = np.array([[_ink(c)[0] for c in row[first:]] for row in crops])  # (4, columns, 3)
    # compare directions (the hue of the ink relative to the face): faint ink (a null's small symbols, blur)
    # has the same direction as bold ink of the same colour
    units = inks / np.maximum(np.linalg.norm(inks, axis=2, keepdims=True), 1e-6)
    centres = units.mean(axis=1)
    centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-6)
    for r in range(_ROWS):
        for c in range(units.shape[1]):
            similarity = centres @ units[r, c]
            if int(np.argmax(similarity)) != r and similarity[r] < 0.97:
                raise CalibrationError(
                    f"{photo}: {what} row {r + 1} has a piece of another suit (column {c + first + 1}): "
                    "lay one suit per row, suns, moons, crowns, arms from top to bottom"
                )
    return centres


def _check_rank_order(crops: list[list[np.ndarray]], what: str, photo: str) -> None:
    """Nulls first (less ink in the middle than any numeral; an ace may be a small symbol), and the numerals
    2-5 in the same columns in every row (each one's mark is most like its own column's in the other rows)."""
    order = "lay each row null, ace, 2, 3, 4, 5 from left to right"
    for r in range(_ROWS):
        inks = [_centre_ink(c) for c in crops[r]]
        if inks[0] >= min(inks[2:]):
            raise CalibrationError(f"{photo}: {what} row {r + 1} does not start with the null: {order}")
    n = crops[0][0].shape[0]
    mask = _disc(n) if n == COIN_CROP_PX else None
    def mark(crop: np.ndarray) -> np.ndarray:
        ink = np.linalg.norm(_log_ratio(crop[None], mask)[0], axis=2).astype(np.float32)
        ink = cv2.GaussianBlur(ink, (0, 0), 0.06 * n)  # tolerate the crops' small misalignments
        return ink[n // 4 : n - n // 4, n // 4 : n - n // 4].ravel()

    marks = np.array([[mark(c) for c in row[2:]] for row in crops])  # (rows, 4 numerals, pixels)
    marks = marks - marks.mean(axis=2, keepdims=True)
    marks /= np.maximum(np.linalg.norm(marks, axis=2, keepdims=True), 1e-6)
    for r in range(_ROWS):
        others = np.delete(marks, r, axis=0).mean(axis=0)  # (4, pixels)
        for c in range(4):
            similarity = others @ marks[r, c]
            if int(np.argmax(similarity)) != c and similarity.max() - similarity[c] > 0.05:
                raise CalibrationError(
                    f"{photo}: {what} row {r + 1}, column {c + 3} does not match the other rows' {c + 2}s: {order}"
                )


def _align_tiles(grid: list[list[TeachPiece]]) -> list[list[TeachPiece]]:
    """Shift every tile's context so that the block's tiles line up with each other.

    A tile's outline can be fitted a margin's width off (a printed light frame has an inner and an outer edge,
    both strong); the block's tiles share their frame, corner symbols and layout, so each is moved to best
    match the mean of all the others' ink (three rounds), and the block's mean position is kept. Templates made
    from aligned crops are sharp, and the detector aligns what it reads to them."""
    pieces = [p for row in grid for p in row]
    size = TILE_CONTEXT_PX
    window = int(round(TILE_CROP_PX * 2))  # the crop's extent at the context's resolution
    lo = (size - window) // 2

    def ink(context: np.ndarray) -> np.ndarray:
        centre = context[lo : lo + window, lo : lo + window].reshape(-1, 3).astype(np.float32) + 6.0
        logs = np.log((context.astype(np.float32) + 6.0) / np.median(centre, axis=0))
        strength = np.linalg.norm(np.clip(logs, -2.5, 1.2), axis=2).astype(np.float32)
        return cv2.GaussianBlur(strength, (0, 0), 1.0)

    inks = [ink(p.context) for p in pieces]
    offsets = np.zeros((len(pieces), 2))
    for _ in range(3):
        windows = []
        for k, image in enumerate(inks):
            m = np.float32([[1, 0, offsets[k, 0]], [0, 1, offsets[k, 1]]])
            moved = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
            windows.append(moved[lo : lo + window, lo : lo + window])
        total = np.sum(windows, axis=0)
        for k, image in enumerate(inks):
            template = (total - windows[k]) / (len(windows) - 1)
            result = cv2.matchTemplate(image, template.astype(np.float32), cv2.TM_CCOEFF_NORMED)
            _, _, _, (bx, by) = cv2.minMaxLoc(result)
            dx, dy = float(bx), float(by)
            if 0 < bx < result.shape[1] - 1:
                a, b, c = result[by, bx - 1], result[by, bx], result[by, bx + 1]
                dx += 0.5 * (a - c) / min(a - 2 * b + c, -1e-6)
            if 0 < by < result.shape[0] - 1:
                a, b, c = result[by - 1, bx], result[by, bx], result[by + 1, bx]
                dy += 0.5 * (a - c) / min(a - 2 * b + c, -1e-6)
            offsets[k] = [dx - lo, dy - lo]
        offsets -= offsets.mean(axis=0)
    out = []
    for k, piece in enumerate(pieces):
        m = np.float32([[1, 0, offsets[k, 0]], [0, 1, offsets[k, 1]]])
        context = cv2.warpAffine(piece.context, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_REPLICATE)
        scale = TILE_CONTEXT_MM / size
        a = math.radians(piece.angle_deg)
        du, dv = offsets[k] * scale
        out.append(TeachPiece(piece.x_mm + du * math.cos(a) - dv * math.sin(a),
                              piece.y_mm + du * math.sin(a) + dv * math.cos(a), piece.angle_deg, context,
                              piece.outline_mm, piece.colour_bgr))
    return [out[r * _COLS : (r + 1) * _COLS] for r in range(_ROWS)]


# ------------------------------------------------------------------------------------------------------------
# Models
# ------------------------------------------------------------------------------------------------------------
def _tile_model(samples: dict[Any, list[np.ndarray]], labels: list[Any]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Unit templates (one per label) from augmented crops; returns templates and the features per label."""
    templates = []
    features = []
    for label in labels:
        f = tile_features(np.concatenate(samples[label]))
        features.append(f)
        templates.append(f.mean(axis=0))
    return _normalise(np.asarray(templates)), features


def _align_coin_features(features: np.ndarray) -> np.ndarray:
    """Turn each coin feature vector to best match the first (their mean is then a sharp template)."""
    corr = coin_correlations(features, features[:1])[:, 0, :]  # (n, A)
    shifts = np.argmax(corr, axis=1)
    rings = features.reshape(len(features), -1, COIN_ANGLES)
    aligned = np.stack([np.roll(rings[i], -int(shifts[i]), axis=-1) for i in range(len(features))])
    return aligned.reshape(len(features), -1)


def _thresholds(correct: np.ndarray, margins: np.ndarray) -> tuple[float, float]:
    """min_score and min_margin from augmented copies' correct scores and margins over the best other label.

    Real frames are harsher than augmentation (other light, other camera angle, glare): the score threshold sits
    well below what almost every copy reaches, and the margin threshold is a share of the typical margin, floored
    so that two nearly equal labels never pass."""
    score = float(np.clip(np.percentile(correct, 2) - 0.05, 0.6, 0.75))
    margin = float(np.clip(0.3 * np.median(margins), 0.05, 0.15))
    return score, margin


def _score_tiles(templates: np.ndarray, labels_of_templates: np.ndarray, features: np.ndarray,
                 truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Correct-label score and margin of each augmented copy (tiles: best quarter turn per label)."""
    scores = tile_scores(features, templates).max(axis=1)  # (n, t)
    n_labels = int(labels_of_templates.max()) + 1
    per_label = np.full((len(features), n_labels), -1.0)
    for t, label in enumerate(labels_of_templates):
        per_label[:, label] = np.maximum(per_label[:, label], scores[:, t])
    correct = per_label[np.arange(len(features)), truth]
    others = per_label.copy()
    others[np.arange(len(features)), truth] = -np.inf
    return correct, correct - others.max(axis=1)


def _tile_colours(face_photo: TeachPhoto, face_grid: list[list[TeachPiece]],
                  backs: tuple[TeachPhoto, list[list[TeachPiece]]] | None) -> dict[str, list[float]] | None:
    """The tiles' colours relative to the paper of their photo's sheet, for the detector to refuse a frame whose
    tiles are another set's colours (vision.set_colours): per suit the median of its faces (the bold faces are
    printed in their suit's colour), and the backs' median (BGR ratios); None when a photo showed no sheet
    plainly or a tile's colour is not known."""
    pieces = [p for row in face_grid for p in row] + ([p for row in backs[1] for p in row] if backs else [])
    if face_photo.paper_bgr is None or any(p.colour_bgr is None for p in pieces):
        return None

    def relative(tiles: list[TeachPiece], paper: tuple[float, float, float]) -> list[float]:
        median = np.median(np.array([p.colour_bgr for p in tiles], np.float64), axis=0)
        return [round(float(v), 4) for v in median / np.asarray(paper, np.float64)]

    out = {suit.value: relative(row, face_photo.paper_bgr) for suit, row in zip(SUITS, face_grid, strict=True)}
    if backs is not None and backs[0].paper_bgr is not None:
        out["back"] = relative([p for row in backs[1] for p in row], backs[0].paper_bgr)
    return out


def build_profile(photos: Sequence[TeachPhoto], name: str = "taught", seed: int = 0) -> PieceSetProfile:
    """The profile of the set shown in the teach photos (see the module docstring); CalibrationError with a
    one-line message when a block is missing, incomplete or out of order."""
    if not photos:
        raise CalibrationError("give the teach photos: tableside teach PHOTO1 PHOTO2 --out set.json")
    rng = np.random.default_rng(seed)
    faces = backs = values = suits_block = None
    figures: tuple[TeachPhoto, list[TeachFigure]] | None = None
    white = np.array(photos[0].white_bgr, float)
    for photo in photos:
        tile_blocks = [b for b in _blocks(photo.tiles, TILE_MM) if len(b) >= _COLS]
        if len(tile_blocks) > 1:
            raise CalibrationError(
                f"{photo.name}: the tiles form {len(tile_blocks)} blocks: lay the 24 tiles in one block of 4 rows of 6"
            )
        if tile_blocks:
            grid = _grid(tile_blocks[0], "tiles", photo.name, TILE_MM + 6.0)
            flat = [p for row in grid for p in row]
            alike = _tile_sameness(flat)
            if alike > 0.5:
                if backs is not None:
                    raise CalibrationError(f"{photo.name}: a second block of tile backs: show them once")
                backs = (photo, grid)
            else:
                if faces is not None:
                    raise CalibrationError(f"{photo.name}: a second block of tile faces: show them once")
                faces = (photo, grid)
                white = np.array(photo.white_bgr, float)
        coin_blocks = _coin_blocks(photo)
        for block in coin_blocks:
            grid = _grid(block, "coins", photo.name, COIN_MM + 6.0)
            alike = _coin_row_sameness(grid)
            kind = "suit" if alike > 0.85 else "value"
            if kind == "suit":
                if suits_block is not None:
                    raise CalibrationError(f"{photo.name}: a second block of coins suit side up: show them once")
                suits_block = (photo, grid, alike)
            else:
                if values is not None:
                    raise CalibrationError(f"{photo.name}: a second block of coins value side up: show them once")
                values = (photo, grid, alike)
        if photo.figures:
            if len(photo.figures) != 8:
                raise CalibrationError(
                    f"{photo.name}: found {len(photo.figures)} pawns and dice below the coins where the teach layout "
                    "has 8 (4 pawns, then 4 dice, in suit order): set them apart from each other"
                )
            if figures is None:
                figures = (photo, photo.figures)
    missing = [what for what, got in (("the tiles face up (T)", faces), ("the coins value side up (V)", values),
                                      ("the coins suit side up (S)", suits_block)) if got is None]
    if missing:
        raise CalibrationError(
            "the teach photos do not show " + " and ".join(missing) + ": take one photo with T, V, P and D, "
            "and one with S in V's place (see docs/teach-layout.jpg)"
        )
    if figures is None:
        raise CalibrationError(
            "the teach photos show no pawns and dice below the coins: put the 4 pawns and then the 4 dice "
            "in suit order under the coins"
        )
    assert faces is not None and values is not None and suits_block is not None

    # --- tiles -------------------------------------------------------------------------------------------------
    face_photo, face_grid = faces
    face_grid = _align_tiles(face_grid)
    if backs is not None:
        backs = (backs[0], _align_tiles(backs[1]))
    plain = [[_tile_augment(p, 1, rng)[0] for p in row] for row in face_grid]
    _check_rank_order(plain, "tile", face_photo.name)
    tile_inks = _check_suit_rows(plain, "tile", face_photo.name)
    face_labels = [(suit, rank) for suit in SUITS for rank in RANKS]
    samples = {
        (SUITS[r], RANKS[c]): [_tile_augment(face_grid[r][c], _AUGMENT, rng)]
        for r in range(_ROWS)
        for c in range(_COLS)
    }
    templates, _ = _tile_model(samples, face_labels)
    back_templates = None
    if backs is not None:
        back_crops = np.concatenate([_tile_augment(p, 4, rng) for row in backs[1] for p in row])
        back_features = tile_features(back_crops)
        # align every back to the first at its best quarter turn (backs have printed patterns too)
        turns = tile_scores(back_features, back_features[:1])[:, :, 0].argmax(axis=1)
        from calibration.profile import turned_tile_features

        aligned = turned_tile_features(back_features)[np.arange(len(back_features)), turns]
        back_templates = _normalise(aligned.mean(axis=0, keepdims=True))
    # thresholds from fresh augmented copies scored against every template
    all_templates = templates if back_templates is None else np.vstack([templates, back_templates])
    owner = np.arange(len(all_templates))
    test_features, truth = [], []
    for i, label in enumerate(face_labels):
        r, c = SUITS.index(label[0]), RANKS.index(label[1])
        test_features.append(tile_features(_tile_augment(face_grid[r][c], 8, rng, strength=1.3)[1:]))
        truth += [i] * 7
    face_scores, face_margins = _score_tiles(all_templates, owner, np.concatenate(test_features), np.array(truth))
    min_score, min_margin = _thresholds(face_scores, face_margins)
    # which faces other faces can pass for, read as the detector reads (best window, best turn), in hard copies
    impostor_pieces = [(i, face_grid[SUITS.index(label[0])][RANKS.index(label[1])])
                       for i, label in enumerate(face_labels)]
    if backs is not None:
        impostor_pieces += [(len(face_labels), p) for row in backs[1] for p in row[:2]]
    tile_margins = _tile_impostors(impostor_pieces, all_templates, len(all_templates), rng)
    tile_faces = ClassModel(tuple(face_labels), templates, min_score, min_margin,
                            tuple(float(m) for m in tile_margins[: len(face_labels)]), float(np.median(face_scores)))
    tile_back = None
    if back_templates is not None and backs is not None:
        crops = np.concatenate([_tile_augment(p, 3, rng, strength=1.3)[1:] for row in backs[1] for p in row])
        back_scores, back_margins = _score_tiles(all_templates, owner, tile_features(crops),
                                                 np.full(len(crops), len(face_labels)))
        b_score, b_margin = _thresholds(back_scores, back_margins)
        tile_back = ClassModel(((None, None),), back_templates, b_score, b_margin,
                               (float(tile_margins[len(face_labels)]),), float(np.median(back_scores)))

    # its own random stream: the rest of the profile stays what it was before the marks were learned
    tile_marks = _mark_model(face_grid, face_labels, np.random.default_rng([seed, 5]))

    # --- coins -------------------------------------------------------------------------------------------------
    value_photo, value_grid, _ = values
    suit_photo, suit_grid, _ = suits_block
    value_plain = [[_coin_augment(p, 1, rng)[0] for p in row] for row in value_grid]
    suit_plain = [[_coin_augment(p, 1, rng)[0] for p in row] for row in suit_grid]
    _check_rank_order(value_plain, "coin (value side)", value_photo.name)
    _check_suit_rows(suit_plain, "coin (suit side)", suit_photo.name)
    shows_suit = _rows_differ(value_plain)
    # Per rank: an edition printing values in black may still print the ace as the suit's symbol in colour.
    suit_shown = [shows_suit or (c > 0 and _column_differs(value_plain, c)) for c in range(_COLS)]
    if shows_suit:
        _check_suit_rows(value_plain, "coin (value side)", value_photo.name, first=1)
    value_samples: dict[Any, list[np.ndarray]] = {}
    for r in range(_ROWS):
        for c in range(_COLS):
            key = (SUITS[r], RANKS[c]) if suit_shown[c] else (None, RANKS[c])
            value_samples.setdefault(key, []).append(
                coin_features(_coin_augment(value_grid[r][c], _AUGMENT, rng)))
    suit_samples: dict[Any, list[np.ndarray]] = {}
    for r in range(_ROWS):
        for c in range(_COLS):
            suit_samples.setdefault((SUITS[r], None), []).append(
                coin_features(_coin_augment(suit_grid[r][c], _AUGMENT // 2, rng)))
    value_labels = list(value_samples)
    suit_labels = list(suit_samples)
    value_templates = np.vstack([_coin_template(value_samples[k]) for k in value_labels])
    suit_templates = np.vstack([_coin_template(suit_samples[k]) for k in suit_labels])
    coin_templates = np.vstack([value_templates, suit_templates])
    # thresholds
    v_feats, v_truth, s_feats, s_truth = [], [], [], []
    for r in range(_ROWS):
        for c in range(_COLS):
            key = (SUITS[r], RANKS[c]) if suit_shown[c] else (None, RANKS[c])
            v_feats.append(coin_features(_coin_augment(value_grid[r][c], 6, rng, strength=1.3)[1:]))
            v_truth += [value_labels.index(key)] * 5
            s_feats.append(coin_features(_coin_augment(suit_grid[r][c], 4, rng, strength=1.3)[1:]))
            s_truth += [len(value_labels) + suit_labels.index((SUITS[r], None))] * 3
    owner = np.arange(len(coin_templates))
    v_right = _score_coins(coin_templates, np.concatenate(v_feats), np.array(v_truth))
    s_right = _score_coins(coin_templates, np.concatenate(s_feats), np.array(s_truth))
    v_score, v_margin = _thresholds(*v_right)
    s_score, s_margin = _thresholds(*s_right)
    del owner
    coin_pieces = []
    for r in range(_ROWS):
        for c in range(_COLS):
            key = (SUITS[r], RANKS[c]) if suit_shown[c] else (None, RANKS[c])
            coin_pieces.append((value_labels.index(key), value_grid[r][c]))
            coin_pieces.append((len(value_labels) + r, suit_grid[r][c]))
    label_sharpness = _label_sharpness(value_plain, suit_plain, suit_shown)
    least = np.array([COIN_SHARPNESS_SHARE * label_sharpness[_coin_key("value", s_, r_)] if r_ != 0 else 0.0
                      for s_, r_ in value_labels]
                     + [COIN_SHARPNESS_SHARE * label_sharpness[_coin_key("suit", s_, None)] for s_, _ in suit_labels])
    coin_margins = _coin_impostors(coin_pieces, coin_templates, rng, least)
    # its own random stream (the twins' steadiness copies): the rest of the profile stays what it was
    twins = _coin_twins(value_plain, suit_plain, value_labels, value_templates, suit_templates, value_grid,
                        suit_grid, np.random.default_rng([seed, 11]), np.random.default_rng([seed, 12]))
    coin_values = ClassModel(tuple(value_labels), value_templates, v_score, v_margin,
                             tuple(float(m) for m in coin_margins[: len(value_labels)]), float(np.median(v_right[0])))
    rim_taps = _coin_rim_taps([p for grid in (value_grid, suit_grid) for row in grid for p in row])
    coin_suits = ClassModel(tuple(suit_labels), suit_templates, s_score, s_margin,
                            tuple(float(m) for m in coin_margins[len(value_labels) :]), float(np.median(s_right[0])))

    # --- pawns and dice ----------------------------------------------------------------------------------------
    figure_photo, found = figures
    ordered = sorted(found, key=lambda f: f.x_mm)
    pawns, dice = ordered[:4], ordered[4:]  # the layout's order (pawns and dice look too alike from above)
    pawn_colors = {SUITS[i]: tuple(int(round(v)) for v in pawns[i].color_bgr) for i in range(4)}
    die_colors = {SUITS[i]: tuple(int(round(v)) for v in dice[i].color_bgr) for i in range(4)}
    _check_figure_order(pawn_colors, "pawns", figure_photo.name)
    _check_figure_order(die_colors, "dice", figure_photo.name)
    die_templates: dict[int, np.ndarray] = {}
    rank_templates = _rank_templates(plain)
    # the faces' strongest square outline: the edge, or a printed frame inside it (the detector's fit looks for
    # squares down to that size, and no smaller: a marker or a numeral's strokes must not pass for a tile)
    outline = float(np.median([p.outline_mm for row in face_grid for p in row]))
    frame = TILE_MM - outline if TILE_MM - outline >= 1.0 else 0.0
    del tile_inks

    taught = {
        "photos": [p.name for p in photos],
        "image_size": list(photos[0].image_size),
        "px_per_mm": round(float(np.mean([p.px_per_mm for p in photos])), 3),
        "coin_values_show_suit": bool(shows_suit),
        "coin_value_ranks_showing_suit": [RANKS[c] for c in range(_COLS) if suit_shown[c]],
        "coin_sharpness": round(float(np.median([coin_sharpness(c) for row in value_plain for c in row[1:]])), 4),
        "coin_suit_sharpness": round(float(np.median([coin_sharpness(c) for row in suit_plain for c in row])), 4),
        # per face (a sun's thin rays are sharper than a moon's crescent): what blur makes unreadable differs
        "coin_label_sharpness": label_sharpness,
        # the coins' face colour relative to the photo's white, its tiles' faces (vision.coin_face_colour: a blank
        # face read in a frame must be the coins' colour, not a fingertip's); only where the photo's white is its
        # tiles' faces', as the frame's is taken (another photo's white is its brightest pixels')
        **({"coin_face_chroma": [round(float(v), 4) for v in _coin_face_chroma(value_photo, value_grid)]}
           if value_photo is face_photo else {}),
        "tile_backs": backs is not None,
        # per suit whose value-side ace prints its symbol (twins): the symbol and the ace's and suit sides' sizes
        **({"coin_twins": twins} if twins else {}),
        "scores": {
            "tile_faces": [round(float(np.median(face_scores)), 3), round(float(np.median(face_margins)), 3)],
        },
    }
    colours = _tile_colours(face_photo, face_grid, backs)
    if colours is not None:
        taught["tile_colours"] = colours
    return PieceSetProfile(
        name=name,
        tile_faces=tile_faces,
        coin_values=coin_values,
        coin_suits=coin_suits,
        tile_back=tile_back,
        tile_marks=tile_marks,
        tile_frame_mm=round(frame, 2),
        coin_rim_taps=rim_taps,
        suit_colors=dict(pawn_colors),
        pawn_colors=pawn_colors,
        die_colors=die_colors,
        white_bgr=tuple(int(round(v)) for v in white),  # type: ignore[arg-type]
        die_templates=die_templates,
        rank_templates=rank_templates,
        taught=taught,
    )


_TWIN_LIKE = 0.8  # a value-side ace whose template correlates this much with its suit side's is its twin (the reader's)
_TWIN_TEMPLATES = 2  # the first suit sides of a row tried as the symbol: the one its row's others fit most alike
_TWIN_COPIES = 6  # augmented copies of the ace, and of two other suit sides, fitted to see how steady the size is
# ... and as many copies of each again fitted to see how steady it is where the game reads it (the fits it would read:
# SYMBOL_SIZE_MOST_BLUR_MM, SYMBOL_SIZE_MOST_RESIDUAL), and how far the ace's size reaches there. 24, not 6: about
# half the copies are blurred beyond the game's limit, and the farthest of a few is a loose measure
_TWIN_READ_COPIES = 24


def _coin_twins(value_plain: list[list[np.ndarray]], suit_plain: list[list[np.ndarray]], value_labels: list,
                value_templates: np.ndarray, suit_templates: np.ndarray, value_grid: list[list[TeachPiece]],
                suit_grid: list[list[TeachPiece]], rng: np.random.Generator,
                read_rng: np.random.Generator) -> dict[str, dict[str, Any]]:
    """Per suit whose value-side ace is its suit side's twin (a symbol ace: the two templates correlate >= 0.8),
    the size references that tell them apart (:mod:`vision.coin_twins`): the suit side's symbol
    (:func:`coin_symbol_level` of one of the S block's six coins: the one the others fit most alike), the other
    suit sides' median fitted scale against it, and the ace's (V block). Measured from the photos, not assumed:
    a set's ace may be printed at any size. And how steady the size is: ``unsteady``, the larger standard
    deviation of q (0 at the ace's scale, 1 at the suit sides') over augmented copies (moved, turned, blurred,
    lit otherwise) of the ace and of two other suit sides. A sun's thin rays fit loosely: classic and bold suns
    1.1-3.5, the other suits 0.08-0.37; the game frames' suns overlapped (classic aces fitted up to q 0.83, suit
    sides down to -1.1). ``rng`` is the copies' own stream (the rest of the profile is unchanged).

    Most of that unsteadiness is copies blurred beyond what the game reads by size (the fit's blur over
    SYMBOL_SIZE_MOST_BLUR_MM): classic crowns' ace copies fitted q 3.98 and -2.23 at blur 1.4 and 2.0 mm, the
    other four -0.25 to 0.32, so crowns taught 1.85. So also, over _TWIN_READ_COPIES further copies (``read_rng``,
    their own stream: ``unsteady`` stays what it was) of the ace and of the two suit sides, counting only the fits
    the game would read: ``read_unsteady``, the larger standard deviation of q there (classic crowns 0.2, suns
    0.3-0.9), and ``ace_reach``, the largest q a read copy of the ace fitted."""
    out: dict[str, dict[str, Any]] = {}
    for r, suit in enumerate(SUITS):
        key = (suit, 1)
        if key not in value_labels:
            continue
        ace_template = value_templates[value_labels.index(key)]
        if float(coin_correlations(ace_template[None], suit_templates[r : r + 1]).max()) < _TWIN_LIKE:
            continue
        row = suit_plain[r]
        best = None
        for k in range(min(_TWIN_TEMPLATES, len(row))):
            level = coin_symbol_level(row[k])
            template = coin_symbol_template(level)
            scales = [fit_coin_symbol(row[j], template, crop_blur_mm=SYMBOL_CROP_BLUR_MM).scale
                      for j in range(len(row)) if j != k]
            if best is None or float(np.std(scales)) < best[0]:
                best = (float(np.std(scales)), level, template, float(np.median(scales)))
        spread, level, template, suit_scale = best
        ace = fit_coin_symbol(value_plain[r][1], template, crop_blur_mm=SYMBOL_CROP_BLUR_MM).scale
        gap = suit_scale - ace
        aces = _coin_augment(value_grid[r][1], _TWIN_COPIES + 1, rng)[1:]
        sides = np.concatenate([_coin_augment(p, _TWIN_COPIES // 2 + 1, rng)[1:] for p in suit_grid[r][2:4]])
        unsteady = float("inf")
        if gap > 0:
            q = [[(fit_coin_symbol(c, template, crop_blur_mm=SYMBOL_CROP_BLUR_MM).scale - ace) / gap for c in copies]
                 for copies in (aces, sides)]
            unsteady = max(float(np.std(q[0])), float(np.std(q[1])))
        read_unsteady, ace_reach = float("inf"), float("inf")
        if gap > 0:
            read_aces = _coin_augment(value_grid[r][1], _TWIN_READ_COPIES + 1, read_rng)[1:]
            read_sides = np.concatenate([_coin_augment(p, _TWIN_READ_COPIES // 2 + 1, read_rng)[1:]
                                         for p in suit_grid[r][2:4]])
            read_q = [_read_q(copies, template, ace, gap) for copies in (read_aces, read_sides)]
            if all(len(q_) >= 2 for q_ in read_q):
                read_unsteady = max(float(np.std(read_q[0])), float(np.std(read_q[1])))
                ace_reach = float(np.max(read_q[0]))
        out[suit.value] = {"ace": round(ace, 4), "suit": round(suit_scale, 4), "spread": round(spread, 4),
                           "unsteady": round(min(unsteady, 99.0), 3),
                           "read_unsteady": round(min(read_unsteady, 99.0), 3),
                           "ace_reach": round(min(ace_reach, 99.0), 3), "symbol": np.round(level, 3).tolist()}
    return out


def _read_q(copies: np.ndarray, template: np.ndarray, ace: float, gap: float) -> list[float]:
    """q (0 at the taught ace's scale, 1 at the suit sides') of the copies whose fit the game would read by size."""
    fits = [fit_coin_symbol(c, template, crop_blur_mm=SYMBOL_CROP_BLUR_MM) for c in copies]
    return [(f.scale - ace) / gap for f in fits
            if f.sigma_mm <= SYMBOL_SIZE_MOST_BLUR_MM and f.residual <= SYMBOL_SIZE_MOST_RESIDUAL]


_MARK_SEARCH_PX = 3  # the detector reads a rank mark at every window within this many pixels (1.8 mm) ...
_MARK_IMPOSTOR_COPIES = 6  # ... and teach reads this many hard copies of each face so, to learn its margins


def _mark_augment(piece: TeachPiece, count: int, rng: np.random.Generator, strength: float = 1.0,
                  wide: int = MARK_CROP_PX, shift_mm: float = 0.8, turn_deg: float = 1.5,
                  blur_px: float = 2.2) -> np.ndarray:
    """Copies of a tile's rank mark (the middle ``MARK_CROP_MM`` of the face, ``wide`` pixels at MARK_CROP_PX's
    scale): the context crop holds the teach photo's own resolution (1.5 px/mm), about the mark crop's."""
    return augment(piece.context, count, rng, TILE_CONTEXT_MM, MARK_CROP_MM * wide / MARK_CROP_PX, wide, shift_mm,
                   turn_deg, strength, blur_px=blur_px)


def _mark_model(face_grid: list[list[TeachPiece]], labels: list[Any], rng: np.random.Generator) -> ClassModel:
    """The faces' rank marks at the camera's resolution: one template per face from augmented copies, thresholds
    from fresh copies, and per face the margin by which it ever beat the right face in hard copies read as the
    detector reads them (every window within _MARK_SEARCH_PX, every quarter turn)."""
    pieces = [face_grid[SUITS.index(suit)][RANKS.index(rank)] for suit, rank in labels]
    templates = _normalise(np.stack([mark_features(_mark_augment(p, _AUGMENT, rng)).mean(axis=0) for p in pieces]))
    tests = np.concatenate([_mark_augment(p, 8, rng, strength=1.3)[1:] for p in pieces])
    truth = np.repeat(np.arange(len(pieces)), 7)
    per_label, _ = mark_scores(tests, templates)
    correct = per_label[np.arange(len(tests)), truth]
    others = per_label.copy()
    others[np.arange(len(tests)), truth] = -np.inf
    min_score, min_margin = _thresholds(correct, correct - others.max(axis=1))
    wide = MARK_CROP_PX + 2 * _MARK_SEARCH_PX
    scores = []
    for piece in pieces:
        copies = _mark_augment(piece, _MARK_IMPOSTOR_COPIES, rng, 1.6, wide, 1.5, 3.0, blur_px=3.5)
        windows = _windows(copies, MARK_CROP_PX).reshape(-1, MARK_CROP_PX, MARK_CROP_PX, 3)
        per, _ = mark_scores(windows, templates)
        scores.append(per.reshape(len(copies), -1, len(templates)).max(axis=1))
    margins = _impostor_margins(np.concatenate(scores), np.repeat(np.arange(len(pieces)), _MARK_IMPOSTOR_COPIES),
                                len(templates))
    return ClassModel(tuple(labels), templates, min_score, min_margin, tuple(float(m) for m in margins),
                      float(np.median(correct)))


def _coin_template(samples: list[np.ndarray]) -> np.ndarray:
    features = np.concatenate(samples)
    return _normalise(_align_coin_features(features).mean(axis=0, keepdims=True))


def _score_coins(templates: np.ndarray, features: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    per_label = coin_correlations(features, templates).max(axis=2)  # (n, t)
    correct = per_label[np.arange(len(features)), truth]
    others = per_label.copy()
    others[np.arange(len(features)), truth] = -np.inf
    return correct, correct - others.max(axis=1)


def _rows_differ(crops: list[list[np.ndarray]]) -> bool:
    """Whether the coins' value sides show the suit: ink colours differ from row to row far more than within."""
    inks = np.array([[_ink(c)[0] for c in row[1:]] for row in crops])  # skip the nulls (little ink)
    units = inks / np.maximum(np.linalg.norm(inks, axis=2, keepdims=True), 1e-6)
    centres = units.mean(axis=1)
    centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-6)
    within = float(np.mean(1.0 - np.einsum("rcx,rx->rc", units, centres)))
    between = float(np.mean([1.0 - centres[i] @ centres[j] for i in range(4) for j in range(i + 1, 4)]))
    return between > 4.0 * within and between > 0.03


def _column_differs(crops: list[list[np.ndarray]], column: int) -> bool:
    """Whether one column's four coins (one per suit) have inks of clearly different colours."""
    inks = np.array([_ink(row[column])[0] for row in crops])
    units = inks / np.maximum(np.linalg.norm(inks, axis=1, keepdims=True), 1e-6)
    others = np.array([[_ink(c)[0] for c in row[1:]] for row in crops]).reshape(-1, 3)
    others /= np.maximum(np.linalg.norm(others, axis=1, keepdims=True), 1e-6)
    spread_column = float(np.mean([1.0 - units[i] @ units[j] for i in range(4) for j in range(i + 1, 4)]))
    spread_all = float(np.mean(1.0 - others @ others.mean(axis=0) / np.linalg.norm(others.mean(axis=0))))
    return spread_column > 0.03 and spread_column > 4.0 * spread_all


_IMPOSTOR_COPIES = 8  # hard augmented copies per taught face, to see which other faces can pass for it
_COIN_IMPOSTOR_COPIES = 24  # coins: one taught coin per face (a blurred 3 and 4 come close only now and then)
_IMPOSTOR_SAFETY = 0.02  # added to the largest margin an impostor won by


def _windows(crops: np.ndarray, inner: int) -> np.ndarray:
    """Every ``inner`` x ``inner`` window of each crop (n, w, w, 3) -> (n, windows, inner, inner, 3): the shifts
    the detector's alignment may read a piece at."""
    size = crops.shape[1]
    reach = size - inner
    return np.stack([crops[:, dy : dy + inner, dx : dx + inner] for dy in range(reach + 1)
                     for dx in range(reach + 1)], axis=1)


def _impostor_margins(per_label_scores: np.ndarray, truth: np.ndarray, n_labels: int) -> np.ndarray:
    """Per label: the largest margin by which it came out on top of a copy of ANOTHER face (0 if it never did),
    plus a little. ``per_label_scores`` (copies, labels): each label's best score over the windows and turns
    of a copy, as the detector's reading would find it; ``truth`` (copies,) the face each copy is."""
    margins = np.zeros(n_labels)
    order = np.argsort(-per_label_scores, axis=1)
    top, second = order[:, 0], order[:, 1]
    won = per_label_scores[np.arange(len(top)), top] - per_label_scores[np.arange(len(top)), second]
    for label, margin, face in zip(top, won, truth, strict=True):
        if label != face:
            margins[label] = max(margins[label], margin + _IMPOSTOR_SAFETY)
    return margins


def _tile_impostors(pieces: list[tuple[int, TeachPiece]], templates: np.ndarray, n_labels: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Per-label margins for tiles (:func:`_impostor_margins`): hard copies of every taught face (shifted up to
    2 mm, turned 3 degrees, blurred up to 2 px, harsher light), each read at every window within 2 px and
    every quarter turn, as the detector's alignment does."""
    wide = TILE_CROP_PX + 4
    scores, truth = [], []
    for label, piece in pieces:
        copies = augment(piece.context, _IMPOSTOR_COPIES, rng, TILE_CONTEXT_MM, TILE_CROP_MM * wide / TILE_CROP_PX,
                         wide, 2.0, 3.0, 1.6, blur_px=2.0)
        windows = _windows(copies, TILE_CROP_PX).reshape(-1, TILE_CROP_PX, TILE_CROP_PX, 3)
        per = tile_scores(tile_features(windows), templates).max(axis=1)  # (copies * windows, labels)
        scores.append(per.reshape(len(copies), -1, per.shape[1]).max(axis=1))
        truth += [label] * len(copies)
    return _impostor_margins(np.concatenate(scores), np.array(truth), n_labels)


def _coin_impostors(pieces: list[tuple[int, TeachPiece]], templates: np.ndarray, rng: np.random.Generator,
                    least_sharpness: np.ndarray) -> np.ndarray:
    """Per-label margins for coins (:func:`_impostor_margins`): hard copies of every taught coin (shifted up to
    a millimetre, any turn, blurred up to 4 crop pixels, harsher light), each read at the windows within a
    pixel and every turn, as the detector does. A copy whose winner the detector would call too blurred
    (sharper than ``least_sharpness[label]`` it must be) teaches nothing: it would not be read."""
    wide = COIN_CROP_PX + 2
    scores, truth, sharp = [], [], []
    for label, piece in pieces:
        copies = augment(piece.context, _COIN_IMPOSTOR_COPIES, rng, COIN_CONTEXT_MM,
                         COIN_CROP_MM * wide / COIN_CROP_PX, wide, 1.0, 180.0, 1.6, blur_px=2.5)
        windows = _windows(copies, COIN_CROP_PX).reshape(-1, COIN_CROP_PX, COIN_CROP_PX, 3)
        per = coin_correlations(coin_features(windows), templates).max(axis=2)
        scores.append(per.reshape(len(copies), -1, per.shape[1]).max(axis=1))
        truth += [label] * len(copies)
        sharp += [coin_sharpness(c[1:-1, 1:-1]) for c in copies]
    scores = np.concatenate(scores)
    winners = scores.argmax(axis=1)
    read = np.array(sharp) >= least_sharpness[winners]
    return _impostor_margins(scores[read], np.array(truth)[read], len(templates))


def _coin_key(side: str, suit: Suit | None, rank: int | None) -> str:
    """The text key of a coin face (side, suit, rank) in the profile's ``taught`` records."""
    return f"{side}:{suit.value if suit else '-'}:{'-' if rank is None else rank}"


def _label_sharpness(value_plain: list[list[np.ndarray]], suit_plain: list[list[np.ndarray]],
                     suit_shown: list[bool]) -> dict[str, float]:
    """Median sharpness (:func:`calibration.profile.coin_sharpness`) of the taught coins of each face."""
    found: dict[str, list[float]] = {}
    for r in range(_ROWS):
        for c in range(_COLS):
            value = _coin_key("value", SUITS[r] if suit_shown[c] else None, RANKS[c])
            found.setdefault(value, []).append(coin_sharpness(value_plain[r][c]))
            found.setdefault(_coin_key("suit", SUITS[r], None), []).append(coin_sharpness(suit_plain[r][c]))
    return {key: round(float(np.median(v)), 4) for key, v in found.items()}


def _radial_derivatives(context: np.ndarray, shifts: np.ndarray, radii: np.ndarray, rays: int = 48) -> np.ndarray:
    """Brightness derivative outward (grey levels per mm) along ``rays`` rays at ``radii`` (mm) around centres
    shifted by ``shifts`` (k, 2 mm) from a coin context crop's middle: (k, rays, radii)."""
    size = context.shape[0]
    p = size / COIN_CONTEXT_MM
    grey = cv2.cvtColor(context, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=0.125 * p)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=0.125 * p)
    a = np.arange(rays) * 2 * math.pi / rays
    c, s = np.cos(a)[:, None], np.sin(a)[:, None]
    out = np.empty((len(shifts), rays, len(radii)), np.float32)
    centre = (size - 1) / 2
    for i, (dx, dy) in enumerate(shifts):
        map_x = (centre + (dx + radii[None] * c) * p).astype(np.float32)
        map_y = (centre + (dy + radii[None] * s) * p).astype(np.float32)
        ex = cv2.remap(gx, map_x, map_y, cv2.INTER_LINEAR)
        ey = cv2.remap(gy, map_x, map_y, cv2.INTER_LINEAR)
        out[i] = ex * c + ey * s
    return out


def _coin_face_chroma(photo: TeachPhoto, grid: list[list[TeachPiece]]) -> np.ndarray:
    """The value side's coins' face colour (the median of each coin's face between its print and its rim) as
    :func:`calibration.profile.face_chroma` relative to the photo's white."""
    faces = [coin_face_colour(p.context, COIN_CONTEXT_MM, ring=True) for row in grid for p in row]
    return face_chroma(np.median(faces, axis=0), np.array(photo.white_bgr, float))


def _coin_rim_taps(pieces: list[TeachPiece]) -> tuple[tuple[float, float], ...]:
    """The coins' radial signature: the concentric edges every coin of the set shows going outward from its
    centre (a printed ring, the rim), as (radius mm, weight) with weight < 0 where the brightness falls outward,
    strongest 1. Measured on the teach coins (each re-centred on the signature once: the survey's centres are a
    few tenths of a millimetre off), inside the rim only: what lies beyond (the coin's side, its shadow) changes
    with the camera's angle."""
    rim = COIN_MM / 2
    radii = np.arange(6.5, rim + 0.5, 0.25)  # outside the numerals and symbols: a ring, the rim
    zero = np.zeros((1, 2))
    profiles = np.stack([_radial_derivatives(p.context, zero, radii)[0] for p in pieces])  # (coins, rays, radii)
    shifts = np.array([(dx, dy) for dx in np.arange(-1.0, 1.01, 0.25) for dy in np.arange(-1.0, 1.01, 0.25)
                       if dx * dx + dy * dy <= 1.0])
    for _ in range(2):
        signature = profiles.mean(axis=(0, 1))
        signature /= max(float(np.abs(signature).max()), 1e-6)
        recentred = []
        for p in pieces:
            candidates = _radial_derivatives(p.context, shifts, radii)  # (shifts, rays, radii)
            fit = np.clip(candidates * signature[None, None], -60, 60).sum(axis=(1, 2))
            recentred.append(candidates[int(np.argmax(fit))])
        profiles = np.stack(recentred)
    signature = profiles.mean(axis=(0, 1))
    signature /= max(float(np.abs(signature).max()), 1e-6)
    taps: list[tuple[float, float]] = []
    for j in np.argsort(-np.abs(signature)):
        if abs(signature[j]) < 0.3 or len(taps) >= 4:
            break
        if 0 < j < len(radii) - 1 and abs(signature[j]) < max(abs(signature[j - 1]), abs(signature[j + 1])):
            continue  # not a peak
        if all(abs(radii[j] - r) >= 0.6 for r, _ in taps):
            taps.append((round(float(radii[j]), 2), round(float(signature[j]), 3)))
    if not any(abs(r - rim) <= 0.75 for r, _ in taps):
        taps.append((round(rim, 2), -0.5))  # the rim is always an edge, if fainter than the print
    return tuple(sorted(taps))


def _check_figure_order(colors: dict[Suit, tuple[int, int, int]], what: str, photo: str) -> None:
    """Pawns or dice must be four different colours (the order itself is the user's word: suit order)."""
    values = np.array([colors[s] for s in SUITS], float)
    for i in range(4):
        for j in range(i + 1, 4):
            if np.linalg.norm(values[i] - values[j]) < 12:
                raise CalibrationError(
                    f"{photo}: two of the {what} look the same colour: lay one of each suit, in suit order"
                )


def _rank_templates(plain: list[list[np.ndarray]]) -> dict[int, np.ndarray]:
    """Grey 'ink' images of each rank mark (the middle of the tiles, averaged over the suits; 255 = ink)."""
    out = {}
    n = TILE_CROP_PX
    for c, rank in enumerate(RANKS):
        stack = []
        for r in range(_ROWS):
            logs = _log_ratio(plain[r][c][None])[0]
            stack.append(np.linalg.norm(logs, axis=2))
        ink = np.clip(np.mean(stack, axis=0) / 1.5, 0, 1)
        out[rank] = (ink[n // 5 : n - n // 5, n // 5 : n - n // 5] * 255).astype(np.uint8)
    return out


def _coin_blocks(photo: TeachPhoto) -> list[list[TeachPiece]]:
    """The coin blocks of a photo (one, or V and S side by side), left to right."""
    blocks = [b for b in _blocks(photo.coins, COIN_MM) if len(b) >= _COLS]
    if len(blocks) > 2:
        raise CalibrationError(
            f"{photo.name}: the coins form {len(blocks)} blocks: lay them in one block of 4 rows of 6 (or V and S "
            "side by side)"
        )
    return sorted(blocks, key=lambda b: min(p.x_mm for p in b))
