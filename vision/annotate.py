"""The annotated frame: what the vision saw, drawn over the camera picture, so a player can check it at a glance.

Every piece gets its outline and a short label (``5 arms``, ``back``, ``3 arms`` in a coin's circle, ``pawn
suns``); sure pieces in a colour per kind with a solid outline, uncertain ones with an orange dashed outline and
``? reason`` (``partly hidden``, ``face unclear``...) or the readings it is open between (``? suns / ace``). A line
at the top counts what was seen. Labels sit on a dark box so they stay legible on white tiles and dark tables alike,
and shrink to about their piece's width where pieces are small in the picture (a grid of coins), down to the
smallest legible size.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.table_calibration import Calibration
from rules.pieces import COIN_MM, DIE_MM, TILE_MM, Kind, Suit
from vision.pieces import DetectedPiece, Detection

__all__ = ["annotate", "label_scale", "KIND_COLOURS", "UNCERTAIN_COLOUR", "LABEL_WIDTH_OF_PIECE"]

#: BGR outline colours of sure pieces, by kind.
KIND_COLOURS = {
    Kind.TILE: (60, 200, 60),
    Kind.COIN: (230, 200, 30),
    Kind.PAWN: (220, 80, 220),
    Kind.DIE: (60, 220, 240),
    Kind.PYRAMID: (250, 120, 60),
}
UNCERTAIN_COLOUR = (0, 140, 255)  # orange
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def _outline(piece: DetectedPiece, calibration: Calibration | None) -> np.ndarray | None:
    """The piece's outline in frame pixels: its own, or a square/circle of its size through the calibration."""
    if piece.outline_px is not None and len(piece.outline_px) >= 3:
        return np.asarray(piece.outline_px, np.float64).reshape(-1, 2)
    if calibration is None:
        return None
    size = {Kind.TILE: TILE_MM, Kind.COIN: COIN_MM, Kind.DIE: DIE_MM}.get(piece.kind, 20.0)
    if piece.kind in (Kind.COIN, Kind.PAWN):
        a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        ring = np.column_stack([np.cos(a), np.sin(a)]) * size / 2
    else:
        ring = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * size / 2
        t = math.radians(piece.angle_deg)
        ring = ring @ np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
    return calibration.table_to_pixel(ring + [piece.x_mm, piece.y_mm], piece.height_mm)


def _dashed(image: np.ndarray, polygon: np.ndarray, colour, thickness: int, dash: float) -> None:
    points = np.vstack([polygon, polygon[:1]])
    for a, b in zip(points[:-1], points[1:], strict=True):
        length = float(np.linalg.norm(b - a))
        steps = max(1, int(length / dash))
        for k in range(0, steps, 2):
            p = a + (b - a) * (k / steps)
            q = a + (b - a) * (min(k + 1, steps) / steps)
            cv2.line(image, tuple(np.round(p).astype(int)), tuple(np.round(q).astype(int)), colour, thickness,
                     cv2.LINE_AA)


#: A label may be this many times its piece's width (a coin's "coin null" must not cover its neighbours in a grid
#: of coins 6 mm apart), and no smaller than this scale (smaller Hershey text stops being legible).
LABEL_WIDTH_OF_PIECE = 1.1
_SMALLEST_SCALE = 0.27


def label_scale(text: str, scale: float, max_width_px: float) -> float:
    """The largest text scale up to ``scale`` at which ``text`` is at most ``max_width_px`` wide (but not under
    ``_SMALLEST_SCALE``): labels follow the frame's size, and shrink where the piece is small in the picture."""
    (w, _), _ = cv2.getTextSize(text, _FONT, scale, max(1, int(round(scale * 2))))
    if w <= max_width_px or scale <= _SMALLEST_SCALE:
        return scale
    return max(_SMALLEST_SCALE, scale * max_width_px / w)


def _label(image: np.ndarray, text: str, centre: tuple[int, int], colour, scale: float) -> None:
    thickness = max(1, int(round(scale * 2)))
    (w, h), base = cv2.getTextSize(text, _FONT, scale, thickness)
    x = int(centre[0] - w / 2)
    y = int(centre[1] + h / 2)
    x = min(max(x, 2), image.shape[1] - w - 2)
    y = min(max(y, h + 2), image.shape[0] - base - 2)
    cv2.rectangle(image, (x - 2, y - h - 3), (x + w + 2, y + base + 1), (20, 20, 20), -1)
    cv2.putText(image, text, (x, y), _FONT, scale, colour, thickness, cv2.LINE_AA)


def _summary(detection: Detection) -> str:
    counts: dict[str, int] = {}
    for piece in detection.pieces:
        counts[piece.kind.value] = counts.get(piece.kind.value, 0) + 1
    parts = [f"{n} {kind}{'s' if n != 1 else ''}".replace("dies", "dice") for kind, n in counts.items()]
    text = ", ".join(parts) if parts else "no pieces read"
    if detection.uncertain:
        text += f"; {len(detection.uncertain)} uncertain (orange)"
    return text


def _reading_text(kind: Kind, suit: Suit | None, rank: int | None, side: str | None) -> str:
    """One reading of an uncertain piece, short: ``suns`` (a coin's suit side), ``ace`` (a value side), ``back``."""
    name = {None: "?", 0: "null", 1: "ace"}.get(rank, str(rank))
    if side in ("suit", "back"):
        return suit.value if side == "suit" and suit is not None else side
    return name if kind is Kind.COIN or suit is None else f"{name} {suit.value}"


def annotate(image: np.ndarray, detection: Detection, calibration: Calibration | None = None) -> np.ndarray:
    """A copy of ``image`` (BGR) with every detected piece outlined and labelled (see the module docstring).

    ``calibration`` draws pieces that carry no outline (a square or circle of their size on the table)."""
    canvas = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    height, width = canvas.shape[:2]
    scale = max(0.3, min(1.0, width / 3600))
    thickness = max(1, int(round(width / 900)))
    for piece, uncertain in [(p, False) for p in detection.pieces] + [(p, True) for p in detection.uncertain]:
        polygon = _outline(piece, calibration)
        colour = UNCERTAIN_COLOUR if uncertain else KIND_COLOURS.get(piece.kind, (255, 255, 255))
        if polygon is not None:
            if uncertain:
                _dashed(canvas, polygon, colour, thickness + 1, dash=max(4.0, width / 250))
            else:
                cv2.polylines(canvas, [np.round(polygon).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)
            centre = polygon.mean(axis=0)
            piece_px = float(np.max(np.ptp(polygon, axis=0)))
        elif calibration is not None:
            centre = calibration.table_to_pixel(np.array([piece.x_mm, piece.y_mm]), piece.height_mm)
            piece_px = math.inf
        else:
            continue
        # a coin's circle already says "coin": its label keeps the room for the reading (a grid's coins are small)
        text = piece.label.removeprefix("coin ") if piece.kind is Kind.COIN else piece.label
        if uncertain and piece.could_be:  # the readings it is open between say more than "face unclear"
            text = "? " + " / ".join(_reading_text(piece.kind, *reading) for reading in piece.could_be)
        elif uncertain:
            reason = (piece.reason or "uncertain").split(";")[0].split("(")[0].strip()
            text = f"? {reason[:22]}" + ("..." if len(reason) > 22 else "")
        _label(canvas, text, (int(round(centre[0])), int(round(centre[1]))), colour,
               label_scale(text, scale, LABEL_WIDTH_OF_PIECE * piece_px))
    summary = _summary(detection)
    (w, h), base = cv2.getTextSize(summary, _FONT, scale * 1.2, thickness)
    cv2.rectangle(canvas, (0, 0), (w + 12, h + base + 12), (20, 20, 20), -1)
    cv2.putText(canvas, summary, (6, h + 6), _FONT, scale * 1.2, (255, 255, 255), thickness, cv2.LINE_AA)
    return canvas
