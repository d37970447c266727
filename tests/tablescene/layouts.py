"""Game positions laid out on the table: piece lists for Scene(pieces=...).

All positions are table millimetres (the calibration sheet's frame). ``nudge_mm`` is the standard deviation of the
random offset of every piece from its ideal spot and ``turn_deg`` that of its rotation: real players never put
pieces exactly on a grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rules.pieces import COIN_MM, SUITS, TILE_MM, Suit

from .scene import CoinPiece, DiePiece, PawnPiece, PyramidPiece, TilePiece

__all__ = [
    "GridGeometry",
    "easy_slider_layout",
    "easy_slider_board",
    "coin_grid",
    "tile_block",
    "shuffleboard_scatter",
    "teach_layout",
    "EASY_SLIDER_ORIGIN_A3",
]

#: Top-left corner of an Easy Slider board centred on an A3 calibration sheet (portrait, 297 x 420 mm):
#: the board hides the side columns of markers, the top and bottom rows stay in view.
EASY_SLIDER_ORIGIN_A3 = (9.5, 81.0)


class GridGeometry:
    """Cell centres of a grid of tiles: ``origin_mm`` is the top-left corner of the top-left tile."""

    def __init__(self, origin_mm: tuple[float, float], gap_mm: float = 6.0, size_mm: float = TILE_MM):
        self.origin = np.asarray(origin_mm, float)
        self.gap = gap_mm
        self.size = size_mm
        self.pitch = size_mm + gap_mm

    def centre(self, col: float, row: float) -> tuple[float, float]:
        return (float(self.origin[0] + col * self.pitch + self.size / 2),
                float(self.origin[1] + row * self.pitch + self.size / 2))


def _rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _jitter(rng: np.random.Generator, nudge_mm: float, turn_deg: float) -> tuple[float, float, float]:
    dx, dy = rng.normal(0, nudge_mm, 2) if nudge_mm else (0.0, 0.0)
    return float(dx), float(dy), float(rng.normal(0, turn_deg)) if turn_deg else 0.0


def _cell(value):
    """(suit, rank) from a cell: None, a (suit, rank) pair, a rules Tile, or a text like "S3" / "3 of suns"."""
    if value is None:
        return None
    if hasattr(value, "suit") and hasattr(value, "rank"):
        return Suit(value.suit), int(value.rank)
    if isinstance(value, str):
        text = value.strip()
        if text in ("", ".", "-", "hole"):
            return None
        return Suit.parse(text[0]), int({"n": 0, "a": 1}.get(text[1:].lower(), text[1:] or 0))
    suit, rank = value
    return Suit.parse(str(suit)) if not isinstance(suit, Suit) else suit, int(rank)


def easy_slider_board(rng=None) -> list[list]:
    """A random Easy Slider board: 24 tiles shuffled into a 5x5 grid with the hole at the bottom right."""
    rng = _rng(rng)
    tiles = [(s, r) for s in SUITS for r in range(6)]
    order = rng.permutation(len(tiles))
    cells = [tiles[i] for i in order] + [None]
    return [cells[r * 5 : r * 5 + 5] for r in range(5)]


def easy_slider_layout(
    state_or_board,
    origin_mm: tuple[float, float] = EASY_SLIDER_ORIGIN_A3,
    gap_mm: float = 6.0,
    nudge_mm: float = 1.0,
    rng=None,
    pawns: Sequence | None = None,
    coins: Sequence[int] | None = None,
    coin_suit: Suit | str = Suit.ARMS,
    turn_deg: float = 1.5,
    edition: str | None = None,
) -> list:
    """An Easy Slider board: 24 tiles face up in a 5x5 grid with one hole, 4 pawns left of rows 1-4 (in the
    order ``pawns``), 5 coins value up above columns 1-5 (values ``coins``, of ``coin_suit``).

    ``state_or_board`` is a 5x5 list of rows (top row first) or 25 cells in reading order, each None (the hole),
    a (suit, rank) pair, a rules ``Tile`` or text like "S3"; or a ``rules.easy_slider.State`` (any object with a
    ``board`` attribute holding that; its ``pawns`` and ``coins`` are used unless given). Tiles come first in the
    returned list (reading order), then pawns, then coins.
    """
    board = state_or_board
    if pawns is None:
        pawns = getattr(state_or_board, "pawns", SUITS)
    if coins is None:
        coins = getattr(state_or_board, "coins", (1, 2, 3, 4, 5))
    for attr in ("board", "grid", "rows", "cells"):
        if hasattr(board, attr) and not isinstance(board, (list, tuple)):
            board = getattr(board, attr)
            break
    flat = [c for r in board for c in (r if isinstance(r, (list, tuple)) else [r])]
    if len(flat) != 25:
        raise ValueError("an Easy Slider board is 5 rows of 5 cells (or 25 cells in reading order)")
    rows = [flat[i * 5 : i * 5 + 5] for i in range(5)]
    rng = _rng(rng)
    grid = GridGeometry(origin_mm, gap_mm)
    pieces: list = []
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            cell = _cell(value)
            if cell is None:
                continue
            x, y = grid.centre(c, r)
            dx, dy, da = _jitter(rng, nudge_mm, turn_deg)
            pieces.append(TilePiece(cell[0], cell[1], "face", x + dx, y + dy, da, edition))
    for r, suit in enumerate(pawns):
        x, y = grid.centre(0, r)
        dx, dy, da = _jitter(rng, nudge_mm * 1.5, 20)
        pieces.append(PawnPiece(suit, float(grid.origin[0] - 24.0 + dx), y + dy, da, edition))
    for c, rank in enumerate(coins):
        x, y = grid.centre(c, 0)
        dx, dy, da = _jitter(rng, nudge_mm * 1.5, 12)
        pieces.append(CoinPiece(coin_suit, rank, "value", x + dx, float(grid.origin[1] - 19.0 + dy), da, edition))
    return pieces


def coin_grid(
    coins: Sequence,
    origin_mm: tuple[float, float],
    cols: int,
    pitch_mm: float = 25.4,
    side: str = "value",
    nudge_mm: float = 0.8,
    rng=None,
    turn_deg: float = 10.0,
    edition: str | None = None,
) -> list:
    """Coins in reading order on a grid: ``coins`` are (suit, rank) pairs (None leaves a cell empty);
    ``origin_mm`` is the centre of the first cell."""
    rng = _rng(rng)
    pieces = []
    for i, value in enumerate(coins):
        cell = _cell(value)
        if cell is None:
            continue
        r, c = divmod(i, cols)
        dx, dy, da = _jitter(rng, nudge_mm, turn_deg)
        pieces.append(CoinPiece(cell[0], cell[1], side, origin_mm[0] + c * pitch_mm + dx,
                                origin_mm[1] + r * pitch_mm + dy, da, edition))
    return pieces


def tile_block(
    tiles_across: int,
    origin_mm: tuple[float, float],
    coins: dict[tuple[int, int], tuple] | None = None,
    gap_mm: float = 1.0,
    nudge_mm: float = 0.5,
    rng=None,
    tiles: Sequence | None = None,
    turn_deg: float = 0.8,
    edition: str | None = None,
) -> list:
    """A square block of tiles grid side up (``tiles_across`` = 2 or 4 for Slides / Plans of Action), each
    tile a 2x2 grid of 25.4 mm cells, with coins on cells.

    ``coins`` maps cell (col, row), counted from the top-left cell, to (suit, rank) or (suit, rank, side)
    (side "suit" by default: Plans of Action's coins lie colour side up). ``tiles`` optionally gives the
    (suit, rank) of each tile (hidden under its back). Tiles come first in the returned list.
    """
    rng = _rng(rng)
    grid = GridGeometry(origin_mm, gap_mm)
    pieces: list = []
    n = tiles_across
    default_tiles = [(s, r) for s in SUITS for r in range(6)]
    for i in range(n * n):
        r, c = divmod(i, n)
        suit, rank = _cell(tiles[i]) if tiles is not None else default_tiles[i % 24]
        x, y = grid.centre(c, r)
        dx, dy, da = _jitter(rng, nudge_mm, turn_deg)
        pieces.append(TilePiece(suit, rank, "back", x + dx, y + dy, da, edition))
    for (col, row), value in sorted((coins or {}).items()):
        suit, rank = _cell(value[:2])
        side = value[2] if len(value) > 2 else "suit"
        tile_c, sub_c = divmod(col, 2)
        tile_r, sub_r = divmod(row, 2)
        x, y = grid.centre(tile_c, tile_r)
        x += (sub_c - 0.5) * TILE_MM / 2
        y += (sub_r - 0.5) * TILE_MM / 2
        dx, dy, da = _jitter(rng, nudge_mm * 1.2, 15)
        pieces.append(CoinPiece(suit, rank, side, x + dx, y + dy, da, edition))
    return pieces


def shuffleboard_scatter(
    rng=None,
    colors: Sequence[str] = ("red", "yellow", "green", "blue"),
    centre_mm: tuple[float, float] = (148.5, 210.0),
    radius_mm: float = 160.0,
    flat_fraction: float = 0.15,
    touching: int = 2,
) -> list:
    """A Martian Shuffleboard position: each player's Small, Medium and Large scattered around the centre,
    some lying flat (crashed), ``touching`` pairs placed base to base; no two pieces overlap."""
    from rules.pieces import PyramidSize

    rng = _rng(rng)
    placed: list[tuple[float, float, float]] = []  # x, y, radius
    pieces: list = []

    def free(x, y, r):
        return all(math.hypot(x - px, y - py) >= r + pr + 0.5 for px, py, pr in placed)

    wanted = [(c, s) for c in colors for s in (PyramidSize.SMALL, PyramidSize.MEDIUM, PyramidSize.LARGE)]
    order = rng.permutation(len(wanted))
    touch_left = touching
    for i in order:
        color, size = wanted[i]
        flat = rng.random() < flat_fraction
        reach = (size.height_mm * 0.62 if flat else size.base_mm * 0.72) + 1.0
        for _attempt in range(200):
            if touch_left and placed and not flat and rng.random() < 0.6:
                px, py, pr = placed[int(rng.integers(len(placed)))]
                ang = rng.uniform(0, 2 * math.pi)
                dist = pr + size.base_mm / 2 + 0.6
                x, y = px + dist * math.cos(ang), py + dist * math.sin(ang)
            else:
                ang = rng.uniform(0, 2 * math.pi)
                rad = radius_mm * math.sqrt(rng.random())
                x, y = centre_mm[0] + rad * math.cos(ang), centre_mm[1] + rad * math.sin(ang)
            r_use = size.base_mm / 2 + 0.2 if not flat else reach
            if free(x, y, r_use):
                if touch_left and placed and not flat:
                    touch_left -= 1 if any(
                        math.hypot(x - px, y - py) < r_use + pr + 2.0 for px, py, pr in placed) else 0
                placed.append((x, y, r_use if not flat else reach))
                angle = float(rng.uniform(0, 360))
                pieces.append(PyramidPiece(color, size, "flat" if flat else "upright", x, y, angle))
                break
    return pieces


def teach_layout(
    origin_mm: tuple[float, float] = (0.0, 0.0),
    gap_mm: float = 6.0,
    nudge_mm: float = 0.6,
    rng=None,
    edition: str | None = None,
    die_top: int = 1,
    turn_deg: float = 1.0,
) -> list:
    """The teach layout, blocks from top to bottom:

    T: 24 tiles face up, 4 rows (suns, moons, crowns, arms) x 6 columns (null .. 5);
    V: 24 coins value up in the same order, and S: the 24 coins suit up to the right of V;
    P: the 4 pawns in suit order, and D: the 4 dice (``die_top`` up) to the right of P.
    ``origin_mm`` is the top-left corner of block T.
    """
    rng = _rng(rng)
    pieces: list = []
    grid = GridGeometry(origin_mm, gap_mm)
    for r, suit in enumerate(SUITS):
        for c in range(6):
            x, y = grid.centre(c, r)
            dx, dy, da = _jitter(rng, nudge_mm, turn_deg)
            pieces.append(TilePiece(suit, c, "face", x + dx, y + dy, da, edition))
    coin_pitch = COIN_MM + 6.0
    top_v = origin_mm[1] + 4 * TILE_MM + 3 * gap_mm + 22.0
    for side, x_start in (("value", origin_mm[0] + COIN_MM / 2),
                          ("suit", origin_mm[0] + COIN_MM / 2 + 6 * coin_pitch + 20.0)):
        for r, suit in enumerate(SUITS):
            for c in range(6):
                dx, dy, da = _jitter(rng, nudge_mm, 6 * turn_deg)
                pieces.append(CoinPiece(suit, c, side, x_start + c * coin_pitch + dx,
                                        top_v + COIN_MM / 2 + r * coin_pitch + dy, da, edition))
    top_p = top_v + 4 * coin_pitch + 18.0
    for i, suit in enumerate(SUITS):
        dx, dy, da = _jitter(rng, nudge_mm, 20)
        pieces.append(PawnPiece(suit, origin_mm[0] + 12.0 + i * 26.0 + dx, top_p + 12.0 + dy, da, edition))
    for i, suit in enumerate(SUITS):
        dx, dy, da = _jitter(rng, nudge_mm, 8)
        pieces.append(DiePiece(suit, die_top, origin_mm[0] + 4 * 26.0 + 30.0 + i * 24.0 + dx, top_p + 12.0 + dy,
                               da, edition=edition))
    return pieces
