"""Game results drawn on the camera frame: Easy Slider Done checks and Martian Shuffleboard gaps.

Drawn with OpenCV in frame pixels through the calibration (:meth:`Calibration.table_to_pixel`, lens included),
so marks sit on the pieces even in a tilted, distorted view. Colours (BGR) say the same everywhere: red =
wrong, orange = cannot be judged surely, green = right / scores, grey = does not score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.table_calibration import Calibration
from rules.pieces import TILE_MM

__all__ = ["draw_done_check", "draw_shuffleboard", "RED", "ORANGE", "GREEN", "GREY"]

RED = (40, 40, 230)
ORANGE = (0, 150, 255)
GREEN = (60, 190, 60)
GREY = (170, 170, 170)
WHITE = (255, 255, 255)
_VERDICT_COLOURS = {"correct": GREEN, "fumble": RED, "unsure": ORANGE}
_PYRAMID_BGR = {"red": (40, 40, 220), "yellow": (40, 220, 240), "green": (60, 170, 40), "blue": (220, 110, 30),
                "black": (40, 40, 40), "orange": (30, 140, 250), "purple": (160, 50, 130), "cyan": (220, 220, 40),
                "white": (245, 245, 245), "clear": (200, 200, 200)}
_TILE_TOP_MM = 3.0  # draw cells at about a tile's thickness above the table, where its face is seen


def _scale(image: np.ndarray) -> float:
    return max(image.shape[0], image.shape[1]) / 1640.0


def _px(calibration: Calibration, points_mm: Sequence[Sequence[float]], h_mm: float = 0.0) -> np.ndarray:
    return np.rint(calibration.table_to_pixel(np.asarray(points_mm, dtype=np.float64).reshape(-1, 2), h_mm)
                   ).astype(np.int32).reshape(-1, 2)


def _text(image: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int], size: float = 0.7,
          box: bool = True) -> None:
    """Text with a dark box behind it so it reads on any table."""
    s = _scale(image)
    font_scale = size * s
    thickness = max(1, round(2 * s))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    x = int(min(max(org[0], 2), image.shape[1] - w - 4))
    y = int(min(max(org[1], h + 4), image.shape[0] - base - 2))
    if box:
        cv2.rectangle(image, (x - 3, y - h - 4), (x + w + 3, y + base + 2), (25, 25, 25), -1)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thickness, cv2.LINE_AA)


def _blend_polygon(image: np.ndarray, polygon: np.ndarray, colour: tuple[int, int, int], alpha: float) -> None:
    overlay = image.copy()
    cv2.fillPoly(overlay, [polygon.reshape(-1, 1, 2)], colour, cv2.LINE_AA)
    cv2.addWeighted(overlay, alpha, image, 1 - alpha, 0, dst=image)


# ------------------------------------------------------------------------------------------------ Done check
def draw_done_check(image: np.ndarray, calibration: Calibration, verdicts: Sequence[Any]) -> np.ndarray:
    """A copy of ``image`` with each board's wrong cells (red), unsure cells (orange), right cells (thin green)
    and its verdict. ``verdicts``: :class:`tableside.reading.BoardVerdict` objects (with their layouts)."""
    out = image.copy()
    s = _scale(out)
    for number, verdict in enumerate(verdicts, start=1):
        layout = verdict.layout
        if layout is None:
            continue
        u, v = layout.lattice.axes
        half = TILE_MM / 2
        for cell in verdict.cells:
            centre = layout.lattice.centre(cell.col - 1, cell.row - 1)
            corners = [centre + a * half * u + b * half * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            poly = _px(calibration, corners, _TILE_TOP_MM)
            if cell.status == "right":
                cv2.polylines(out, [poly.reshape(-1, 1, 2)], True, GREEN, max(1, round(1.5 * s)), cv2.LINE_AA)
                continue
            colour = RED if cell.status == "wrong" else ORANGE
            _blend_polygon(out, poly, colour, 0.3)
            cv2.polylines(out, [poly.reshape(-1, 1, 2)], True, colour, max(2, round(4 * s)), cv2.LINE_AA)
            label_at = _px(calibration, [centre], _TILE_TOP_MM)[0]
            _text(out, cell.name, (int(label_at[0]) - int(14 * s), int(label_at[1]) + int(8 * s)), WHITE, 0.6)
        corner = layout.lattice.centre(-0.5, -1.45)
        at = _px(calibration, [corner])[0]
        title = f"board {number}: {verdict.verdict.upper()}" if len(verdicts) > 1 else verdict.verdict.upper()
        _text(out, title, (int(at[0]), int(at[1])), _VERDICT_COLOURS.get(verdict.verdict, WHITE), 1.0)
    return out


# ------------------------------------------------------------------------------------------- Shuffleboard
def _ruler(image: np.ndarray, calibration: Calibration, a_mm: np.ndarray, b_mm: np.ndarray,
           colour: tuple[int, int, int]) -> None:
    """The gap drawn as a ruler: the line and a tick every 5 mm (longer every 10 mm)."""
    s = _scale(image)
    pa, pb = _px(calibration, [a_mm, b_mm])
    cv2.line(image, tuple(int(v) for v in pa), tuple(int(v) for v in pb), colour, max(2, round(3 * s)), cv2.LINE_AA)
    length = float(np.linalg.norm(b_mm - a_mm))
    if length < 1e-6:
        return
    d = (b_mm - a_mm) / length
    n = np.array([-d[1], d[0]])
    for k in range(0, int(length // 5) + 1):
        t = a_mm + d * (5.0 * k)
        tick = 2.5 if k % 2 else 4.0
        p, q = _px(calibration, [t - n * tick, t + n * tick])
        cv2.line(image, tuple(int(v) for v in p), tuple(int(v) for v in q), colour, max(1, round(2 * s)), cv2.LINE_AA)
    for end in (a_mm, b_mm):
        p, q = _px(calibration, [end - n * 5.0, end + n * 5.0])
        cv2.line(image, tuple(int(v) for v in p), tuple(int(v) for v in q), colour, max(2, round(3 * s)), cv2.LINE_AA)


def draw_shuffleboard(image: np.ndarray, calibration: Calibration, result: Any, max_small_heights: float = 1.6
                      ) -> np.ndarray:
    """A copy of ``image`` with every upright pyramid's footprint, the flat ones crossed out, and the gap of
    every pair closer than ``max_small_heights`` drawn as a ruler with its length in mm and Small heights
    (green: scores, grey: does not, orange: too close to call), and the scores in a corner.
    ``result``: :class:`tableside.reading.ShuffleboardScore`."""
    from rules import martian_shuffleboard as ms
    from rules.pieces import PyramidSize

    out = image.copy()
    s = _scale(out)
    for i, p in enumerate(result.pieces):
        colour = _PYRAMID_BGR.get(p.color or "", WHITE)
        if p.uncertain:
            at = _px(calibration, [(p.x_mm, p.y_mm)])[0]
            cv2.circle(out, (int(at[0]), int(at[1])), int(22 * s), ORANGE, max(2, round(3 * s)), cv2.LINE_AA)
            _text(out, f"[{i}] ?", (int(at[0]) + int(20 * s), int(at[1])), ORANGE, 0.55)
            continue
        if p.pose == "flat":
            at = _px(calibration, [(p.x_mm, p.y_mm)])[0]
            r, x, y, w = int(16 * s), int(at[0]), int(at[1]), max(2, round(3 * s))
            cv2.line(out, (x - r, y - r), (x + r, y + r), GREY, w, cv2.LINE_AA)
            cv2.line(out, (x - r, y + r), (x + r, y - r), GREY, w, cv2.LINE_AA)
            _text(out, f"[{i}] flat", (int(at[0]) + r, int(at[1]) - r), GREY, 0.5)
            continue
        side = PyramidSize(p.size).base_mm
        poly = _px(calibration, ms.footprint(p.x_mm, p.y_mm, p.angle_deg, side))
        cv2.polylines(out, [poly.reshape(-1, 1, 2)], True, colour, max(2, round(3 * s)), cv2.LINE_AA)
        cv2.polylines(out, [poly.reshape(-1, 1, 2)], True, WHITE, 1, cv2.LINE_AA)
        at = _px(calibration, [(p.x_mm + side / 2 + 2.0, p.y_mm - side / 2)])[0]
        _text(out, f"[{i}]", (int(at[0]), int(at[1])), WHITE, 0.45)
    for pair in result.pairs:
        if pair.gap_small_heights > max_small_heights:
            continue
        colour = ORANGE if pair.too_close_to_call else GREEN if pair.scores else GREY
        a, b = (np.asarray(pt, dtype=np.float64) for pt in pair.closest_mm)
        _ruler(out, calibration, a, b, colour)
        mid = _px(calibration, [(a + b) / 2])[0]
        label = f"{pair.gap_mm:.1f} mm = {pair.gap_small_heights:.2f} S"
        if pair.points:
            label += f" (+{pair.points})"
        _text(out, label, (int(mid[0]) + int(6 * s), int(mid[1]) - int(6 * s)), colour, 0.5)
    lines = ["score: " + ", ".join(f"{c} {n}" for c, n in sorted(result.scores.items(), key=lambda kv: -kv[1]))]
    if any(c["counted"] is not None for c in result.close_calls):
        lines.append("orange: too close to call")
    for k, line in enumerate(lines):
        _text(out, line, (int(12 * s), int((40 + 34 * k) * s)), WHITE, 0.8)
    return out
