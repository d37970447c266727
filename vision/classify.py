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

from dataclasses import dataclass

import numpy as np

from calibration.profile import (
    COIN_ANGLES,
    COIN_RINGS,
    TILE_CROP_PX,
    ClassModel,
    PieceSetProfile,
    _log_ratio,
    _opponent,
    coin_polar,
)
from rules.pieces import Suit

__all__ = ["Reading", "TileReader", "CoinReader"]

_CELLS = 5  # tiles: occlusion cells per side
_COVERED_SHARE = 0.6  # at most this share of cells may be covered for a "partly hidden" piece


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


def _confidence(score: float, margin: float, model_score: float, model_margin: float) -> float:
    """0..1: 0.5 exactly at the thresholds, 1 at twice the margin (and a score at threshold or above)."""
    if score < model_score or margin < model_margin:
        return float(np.clip(0.5 * min(score / model_score, margin / max(model_margin, 1e-6)), 0.0, 0.499))
    return float(min(1.0, 0.5 + 0.5 * (margin - model_margin) / max(model_margin, 1e-6)))


def _label_best(scores: np.ndarray, label_of: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """scores (n, t) over templates -> best per label (n, n_labels)."""
    out = np.full((scores.shape[0], n_labels), -1.0, np.float32)
    for t in range(scores.shape[1]):
        np.maximum(out[:, label_of[t]], scores[:, t], out=out[:, label_of[t]])
    return out, np.argsort(-out, axis=1)[:, :2]


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
        n = TILE_CROP_PX
        index = np.arange(n * n * 3).reshape(n, n, 3)
        # A crop of a tile turned k quarter turns clockwise shows the upright face turned: undo with rot90(k).
        self.perms = [np.rot90(index, k, axes=(0, 1)).reshape(-1) for k in range(4)]
        self.min_score = {side: m.min_score for side, m in models}
        self.min_margin = {side: m.min_margin for side, m in models}

    def raw(self, crops: np.ndarray) -> np.ndarray:
        """Unnormalised log-ratio features (n, n_px, 3) of the crops."""
        return _opponent(_log_ratio(crops)).reshape(len(crops), -1, 3)

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
        out = np.empty((4, len(self.templates)), np.float32)
        for k, perm in enumerate(self.perms):
            x = vector[perm]
            templates = self.templates
            if keep is not None:
                turned_keep = keep[perm]  # template pixel i is the turned crop's pixel i: own pixel perm[i]
                x = x[turned_keep]
                templates = templates[:, turned_keep]
                templates = templates - templates.mean(axis=1, keepdims=True)
                templates = templates / np.maximum(np.linalg.norm(templates, axis=1, keepdims=True), 1e-6)
            x = x - x.mean()
            x = x / max(float(np.linalg.norm(x)), 1e-6)
            out[k] = templates @ x
        return out

    def _decide(self, scores: np.ndarray) -> tuple[int, int, float, float]:
        """best label, its quarter turn, score, margin over the best other label."""
        per_label = np.full(len(self.labels), -1.0)
        turn = np.zeros(len(self.labels), int)
        for t in range(scores.shape[1]):
            label = self.label_of[t]
            k = int(np.argmax(scores[:, t]))
            if scores[k, t] > per_label[label]:
                per_label[label] = scores[k, t]
                turn[label] = k
        order = np.argsort(-per_label)
        best, second = int(order[0]), int(order[1]) if len(order) > 1 else int(order[0])
        margin = float(per_label[best] - per_label[second]) if second != best else 1.0
        return best, int(turn[best]), float(per_label[best]), margin

    def _read_one(self, vector: np.ndarray, keep: np.ndarray | None) -> Reading:
        scores = self._scores(vector, keep)
        best, turn, score, margin = self._decide(scores)
        side, suit, rank = self.labels[best]
        min_score, min_margin = self.min_score[side], self.min_margin[side]
        confidence = _confidence(score, margin, min_score, min_margin)
        angle = 90.0 * turn
        if side == "back":
            suit, rank = None, None
        if score >= min_score and margin >= min_margin:
            return Reading("ok", side, suit, rank, angle, score, margin, confidence)
        if score >= min_score:
            return Reading("unclear", side, None, None, angle, score, margin, confidence, "face unclear")
        # Low correlation: covered, or not a tile. Compare cell by cell with the best template.
        covered, masked_score = self._occlusion(vector, best, turn, keep)
        if masked_score >= min_score and 0 < covered <= _COVERED_SHARE:
            return Reading("hidden", side, None, None, angle, masked_score, margin, confidence, "partly hidden",
                           covered)
        if score >= 0.75 * min_score:
            return Reading("unclear", side, None, None, angle, score, margin, confidence, "face unclear")
        return Reading("none", score=score, margin=margin, confidence=confidence, covered=covered)

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
        mask = np.kron(bad, np.ones((cell, cell), bool))
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


class CoinReader:
    """Reads coin crops (n, COIN_CROP_PX, COIN_CROP_PX, 3) against a profile's value and suit sides."""

    def __init__(self, profile: PieceSetProfile) -> None:
        self.labels: list[tuple[str, Suit | None, int | None]] = []
        rows = []
        self.min_score: dict[str, float] = {}
        self.min_margin: dict[str, float] = {}
        for side, model in (("value", profile.coin_values), ("suit", profile.coin_suits)):
            for label, template in zip(model.labels, model.templates, strict=True):
                self.labels.append((side, label[0], label[1]))
                rows.append(template)
            self.min_score[side] = model.min_score
            self.min_margin[side] = model.min_margin
        templates = np.asarray(rows, np.float32).reshape(len(rows), 3 * COIN_RINGS, COIN_ANGLES)
        self.templates = templates
        self.spectra = np.conj(np.fft.rfft(templates, axis=-1))  # (t, 3R, A/2+1)

    def correlations(self, crops: np.ndarray) -> np.ndarray:
        """(n, t, COIN_ANGLES): correlation of each crop turned by every angle step with every template."""
        polar = coin_polar(crops).reshape(len(crops), -1)
        polar = polar - polar.mean(axis=1, keepdims=True)
        polar /= np.maximum(np.linalg.norm(polar, axis=1, keepdims=True), 1e-6)
        spectrum = np.fft.rfft(polar.reshape(len(crops), 3 * COIN_RINGS, COIN_ANGLES), axis=-1)
        product = np.einsum("nrf,trf->ntf", spectrum, self.spectra)
        return np.fft.irfft(product, n=COIN_ANGLES, axis=-1)

    def read(self, crops: np.ndarray) -> list[Reading]:
        if len(crops) == 0:
            return []
        corr = self.correlations(crops)
        readings = []
        for i in range(len(crops)):
            per_label = corr[i].max(axis=1)
            order = np.argsort(-per_label)
            best, second = int(order[0]), int(order[1])
            score = float(per_label[best])
            margin = float(score - per_label[second])
            side, suit, rank = self.labels[best]
            shift = int(np.argmax(corr[i, best]))
            angle = shift * 360.0 / COIN_ANGLES
            min_score, min_margin = self.min_score[side], self.min_margin[side]
            confidence = _confidence(score, margin, min_score, min_margin)
            if score >= min_score and margin >= min_margin:
                readings.append(Reading("ok", side, suit, rank, angle, score, margin, confidence))
            elif score >= min_score:
                readings.append(Reading("unclear", side, None, None, angle, score, margin, confidence, "face unclear"))
            elif score >= 0.6 * min_score:
                readings.append(
                    Reading("hidden", side, None, None, angle, score, margin, confidence, "partly hidden or unclear")
                )
            else:
                readings.append(Reading("none", score=score, margin=margin, confidence=confidence))
        return readings
