"""What the vision reports: one small dataclass per seen piece, and the whole frame's detection.

Every detector (tiles, coins, pawns, dice, pyramids) returns :class:`DetectedPiece` objects; positions are
footprint centres on the table plane in millimetres (x right, y down, the calibration sheet's frame), angles
clockwise in degrees as seen from above with 0 = the piece's top toward -y. The JSON form is the one the
``detect`` verb prints::

    {"kind", "suit", "rank", "side", "x_mm", "y_mm", "angle_deg", "confidence"}

with ``color``, ``size``, ``pose`` (and ``apex_deg`` for flat ones) instead of suit/rank/side for pyramids.
``suit`` or ``rank`` is None where the visible side does not show it (a tile back; a coin's value side in an
edition that prints values in black; a coin's suit side has no rank).

Uncertain pieces also carry ``"reason"``, and ``"could_be"`` when the reader narrowed the picture down to a few
readings: ``[{"suit", "rank", "side"}, ...]``, each a reading the picture fits about as well as the best (within
the margin a sure reading needs) while every other label of the set scores clearly lower (see
:attr:`DetectedPiece.could_be`). A classic coin whose value ace and suit side differ only by the symbol's size
(0.6 px at 1.7 px/mm) carries both; a bold tile whose 3 and 5 blur alike carries both ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.pieces import Kind, PyramidPose, PyramidSize, Suit

__all__ = ["DetectedPiece", "Detection"]


@dataclass(frozen=True)
class DetectedPiece:
    """One piece seen in a frame.

    ``confidence`` is in 0..1 (the classifier's margin turned into a probability-like score). ``uncertain``
    pieces are seen but not read reliably (partly hidden by a hand, rank unclear, glare): they are reported in
    ``Detection.uncertain`` with ``reason`` and must never be used to judge a move. ``outline_px`` is the
    footprint (or visible outline) polygon in frame pixels, for drawing.

    ``could_be`` (uncertain pieces only): the readings ``(suit, rank, side)`` the picture fits about equally
    well, when the reader narrowed it to a few (two or more) labels: each within the margin a sure reading needs
    of the best, and every other label of the set clearly below (a further margin as large); or, a coin not so
    narrowed, the labels within twice that margin when they all lie on one side (the other side far behind: the
    side is known, not the face; at most eight, see ``vision.classify._one_side_could_be``); or, a coin read surely
    but far blurrier than the taught coins ("too blurred"), every face of the suit it read, on either side (its
    colour holds where the side does not: ``vision.classify.CoinReader._blurred_could_be``). Empty when the
    reader cannot narrow it: a hand or a die over it, glare, no face matched well, a blurred black numeral.
    Fields are as for a sure reading (a back: suit and rank None; a suit side: rank None). Measured by
    ``benchmarks/bench_detect.py`` (column "truth in could_be"): the truth is among them; a reader of a game may
    use it to narrow what a move did, never to take one of them as read.
    """

    kind: Kind
    x_mm: float
    y_mm: float
    angle_deg: float = 0.0
    confidence: float = 1.0
    suit: Suit | None = None
    rank: int | None = None
    side: str | None = None  # tile "face"|"back", coin "value"|"suit"; dice: rank is the top face
    color: str | None = None  # pyramids
    size: PyramidSize | None = None
    pose: PyramidPose | None = None
    apex_deg: float | None = None  # flat pyramids: direction of the apex, clockwise from -y
    uncertain: bool = False
    reason: str | None = None
    outline_px: np.ndarray | None = field(default=None, compare=False, repr=False)
    height_mm: float = 0.0  # height of the surface it rests on (a coin on a tile: the tile's thickness)
    could_be: tuple[tuple[Suit | None, int | None, str | None], ...] = ()  # uncertain: (suit, rank, side) each

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value}
        if self.kind is Kind.PYRAMID:
            out["color"] = self.color
            out["size"] = self.size.value if self.size is not None else None
            out["pose"] = self.pose.value if self.pose is not None else None
            if self.pose is PyramidPose.FLAT:
                out["apex_deg"] = None if self.apex_deg is None else round(float(self.apex_deg), 1)
        else:
            out["suit"] = self.suit.value if self.suit is not None else None
            out["rank"] = self.rank
            out["side"] = self.side
        out["x_mm"] = round(float(self.x_mm), 2)
        out["y_mm"] = round(float(self.y_mm), 2)
        out["angle_deg"] = round(float(self.angle_deg) % 360.0, 1)
        out["confidence"] = round(float(self.confidence), 3)
        if self.uncertain:
            out["reason"] = self.reason
            if self.could_be:
                out["could_be"] = [{"suit": suit.value if suit is not None else None, "rank": rank, "side": side}
                                   for suit, rank, side in self.could_be]
        return out

    @property
    def label(self) -> str:
        """Short text for annotated images: ``5 arms``, ``back``, ``coin 4 arms``, ``coin 4`` (an edition that prints
        values in black shows no suit there), ``coin suns``, ``pawn suns``, ``L red``."""
        if self.kind is Kind.PYRAMID:
            size = self.size.value[0].upper() if self.size is not None else "?"
            pose = "" if self.pose is not PyramidPose.FLAT else " flat"
            return f"{size} {self.color or '?'}{pose}"
        rank = {None: "?", 0: "null", 1: "ace"}.get(self.rank, str(self.rank))
        suit = self.suit.value if self.suit is not None else "?"
        if self.kind is Kind.TILE:
            return "back" if self.side == "back" else f"{rank} {suit}"
        if self.kind is Kind.COIN:
            if self.side != "value":
                return f"coin {suit}"
            # the suit too where the value side shows it: a player checks the reading against the coin's colour
            return f"coin {rank}" if self.suit is None else f"coin {rank} {suit}"
        if self.kind is Kind.DIE:
            return f"die {rank} {suit}"
        return f"pawn {suit}"


@dataclass
class Detection:
    """All pieces seen in one frame: the reliable ones in ``pieces``, the unreadable ones in ``uncertain``."""

    pieces: list[DetectedPiece]
    uncertain: list[DetectedPiece]
    frame_size: tuple[int, int]  # (width, height) in pixels
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "pieces": [p.to_json() for p in self.pieces],
            "uncertain": [p.to_json() for p in self.uncertain],
        }

    def of_kind(self, kind: Kind | str) -> list[DetectedPiece]:
        k = Kind(kind)
        return [p for p in self.pieces if p.kind is k]
