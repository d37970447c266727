"""Standing pieces: pawns, dice and Looney pyramids, located by their footprints on the table.

Public API (what ``vision.detect`` calls)::

    detect_figures(image_bgr, calibration, profile=None, *, kinds=("pawn", "die", "pyramid"),
                   rectified=None, occupied_mm=None, timings_ms=None) -> list[DetectedPiece]

* ``image_bgr``: the camera frame (H x W x 3 uint8, BGR), raw (lens distortion is the calibration's business).
* ``calibration``: :class:`calibration.table_calibration.Calibration` for this frame size. Its camera position
  (``camera_position_mm()``) is what corrects the height parallax: the top of a 28 mm pawn or the apex of a
  44.5 mm pyramid is seen displaced away from the camera's nadir; every figure is fitted as a 3-D model
  projected through the calibration, so the reported position is its base on the table.
* ``profile``: the piece-set profile (:mod:`calibration.profile`, written by teach) or None for the built-in
  defaults matching the default edition. Read attributes (all optional): ``suit_colors`` (suit -> BGR of the
  pawns, and of the dice without ``die_colors``), ``die_colors``, ``die_templates`` (rank -> grey crop of a
  die's top face, any size, top = the crop's top), ``pawn_height_mm``, ``pawn_base_mm``,
  ``tile_thickness_mm``, ``coin_thickness_mm``, ``pyramid_colors`` (the colours in play; None: all).
* ``kinds``: which figures may be on the table (any of "pawn", "die", "pyramid"; Martian Shuffleboard: pyramids
  only). Only these are looked for: a die on the table during a pawns-only search may be read as a pawn.
* ``rectified``: an already rectified top-down view of the table plane (height 0), to save the work:
  any object with ``image`` (BGR), ``bounds_mm`` (x0, y0, x1, y1) and ``px_per_mm`` as
  :class:`calibration.rectify.Rectified` (output pixel column c covers table x in [x0 + c/p, x0 + (c+1)/p)).
  Detection runs on it (1-3 px/mm is plenty); sub-pixel fitting always uses the raw frame.
* ``occupied_mm``: what the tile/coin detector found, so that those are not mistaken for figures and a die
  resting on a coin gets its base height: a sequence of :class:`vision.pieces.DetectedPiece` (tiles and coins:
  footprint from x/y/angle and the piece size, top at ``height_mm`` + thickness) or of
  ``(polygon_mm (n, 2), top_height_mm)`` pairs. A coin read surely (``uncertain`` False) shows its whole face:
  nothing stands on it, and it is not looked at. Tile faces are not searched for figures (their print would be
  taken for them; no supported game stands a figure on a bare tile) except around the coins lying on them.
* ``timings_ms``: a dict to receive the CPU time of each stage (ms; "view", "sheet check", "background",
  "first look", "closer look", "fits", "total"): what the benchmarks report.

Returns one :class:`DetectedPiece` per figure: ``x_mm, y_mm`` the footprint centre (upright pyramid: centre of
the base square; flat pyramid: centre of its outline on the table; pawn: centre of its base; die: centre of its
bottom face), ``angle_deg`` (clockwise, modulo 90 for squares), pyramids with ``color``/``size``/``pose`` and
``apex_deg`` when flat, pawns/dice with ``suit`` (and ``rank`` = a die's top face), ``height_mm`` the height of
what it stands on. A figure partly hidden (by a hand, another piece or the frame edge) or whose size, colour,
pose or face is ambiguous comes back with ``uncertain=True`` and a ``reason``: never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from calibration.table_calibration import Calibration
from vision.pieces import DetectedPiece

__all__ = ["detect_figures", "FIGURE_KINDS"]

FIGURE_KINDS = ("pawn", "die", "pyramid")


def detect_figures(
    image_bgr: np.ndarray,
    calibration: Calibration,
    profile: Any = None,
    *,
    kinds: Sequence[str] = FIGURE_KINDS,
    rectified: Any = None,
    occupied_mm: Sequence[Any] | None = None,
    timings_ms: dict[str, float] | None = None,
) -> list[DetectedPiece]:
    """Pawns, dice and pyramids in ``image_bgr``, located on the table (see the module docstring)."""
    from vision.figure_search import find_figures

    return find_figures(image_bgr, calibration, profile, kinds=kinds, rectified=rectified, occupied_mm=occupied_mm,
                        timings_ms=timings_ms)
