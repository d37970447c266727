"""Game layouts found among the pieces of a frame: which piece is on which cell of which board.

Geometry only, over :class:`vision.pieces.DetectedPiece` lists in table mm (reliable and uncertain pieces
alike: a piece that cannot be read still occupies its cell). What a cell's piece means for a game is
:mod:`tableside.reading`'s business. Every finder reports what it could not place instead of guessing:
``problems`` (:class:`vision.grid.GridProblem`) and, where the layout leaves it open, ``ambiguous``.

Layouts (all indices 0-based, column from the left, row from the top of the board as its player sees it):

* :func:`find_easy_slider_boards`: 5x5 boards of face-up tiles with four pawns left of rows 1-4 and five
  coins above columns 1-5, any number per frame, in reading order (top to bottom, left to right). The pawns and
  coins fix each board's orientation and where its 5x5 window lies even when tiles are hidden; the tiles'
  faces fix it when they are missing.
* :func:`find_tile_block`: tile backs in a block (Slides of Action 2x2, Plans of Action 4x4 and wherever its
  tiles were shifted) with coins on the 2x2 cells of each tile.
* :func:`find_coin_grid`: coins in a grid (Roll Out the Barrels, Whack-a-Dummy: 4 wide, 6 high) and the die
  standing on one of them.
* :func:`find_tile_grid`: face-up tiles in one grid (Slide Jam 4x6), oriented by the tiles' faces.
* :func:`find_mirror_grids`: Magic Mirror's two 4x3 grids, one above the other, the mirror a wider gap.
* :func:`find_catwalk`: a winding track of tiles on a square grid (north = the top of the picture).
* :func:`find_triangle`: Trampo-Land's fifteen trampolines in a triangle of rows 1-5.

A board's "up" is decided in this order: the game's own marks (Easy Slider's pawns and coins), the way the
tiles' faces read (players lay them readable), the shape (4 wide, 6 high), then the top of the picture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rules.pieces import COIN_MM, TILE_MM, Kind
from vision.grid import (
    CellFit,
    GridFit,
    GridProblem,
    Lattice,
    assign_cells,
    clusters,
    fit_coin_grid,
    fit_tile_grid,
    positions,
)

__all__ = [
    "faces_up_deg",
    "orient",
    "EasySliderLayout",
    "find_easy_slider_boards",
    "BlockLayout",
    "find_tile_block",
    "CoinGridLayout",
    "find_coin_grid",
    "TileGridLayout",
    "find_tile_grid",
    "MirrorLayout",
    "find_mirror_grids",
    "CatwalkLayout",
    "find_catwalk",
    "TriangleLayout",
    "find_triangle",
    "BOARD_LINK_MM",
]

#: Tiles of one board are chained by neighbours closer than this (centre to centre, mm): orthogonal
#: neighbours with gaps up to about 25 mm, but not two boards laid a hand's width apart.
BOARD_LINK_MM = 1.5 * TILE_MM
_MIN_BOARD_TILES = 8
# Where Easy Slider's pawns and coins stand, in pitches from the board's outer cell centres (the rules'
# diagram: pawns "to the left of rows 1 through 4", coins "above columns 1 through 5"); generous bands.
_SLOT_BAND = (-1.6, -0.35)
_SLOT_ALONG = 0.38


def _kind(piece: Any) -> Kind:
    return Kind(getattr(piece, "kind", "tile"))


def _of(pieces: Sequence[Any], *kinds: Kind) -> list[Any]:
    return [p for p in pieces if _kind(p) in kinds]


def _placed(p: Any) -> bool:
    """Whether a piece surely lies where it is reported: read surely, or uncertain only about which of a few
    readings it is (``could_be``: the picture matched two or three labels of the set well, every other one
    clearly worse - a piece, not a phantom or a half-hidden one, with its face unclear)."""
    return not getattr(p, "uncertain", False) or bool(getattr(p, "could_be", None))


def _sure(pieces: Sequence[Any]) -> list[Any]:
    """The pieces surely placed (:func:`_placed`; the grid is fitted to those: a phantom or half-hidden piece
    must not bend it); all of them when fewer than two are."""
    sure = [p for p in pieces if _placed(p)]
    return sure if len(sure) >= 2 else list(pieces)


def _groups(pieces: Sequence[Any], link_mm: float) -> list[list[Any]]:
    """Clusters of the surely placed pieces (:func:`_placed`; largest first), each joined by the other pieces
    lying within ``link_mm`` of one of its members; those near no sure one are left out (nothing to anchor
    them: usually not a piece at all)."""
    sure = [p for p in pieces if _placed(p)]
    unsure = [p for p in pieces if not _placed(p)]
    if not sure:
        return clusters(list(pieces), link_mm)
    groups = clusters(sure, link_mm)
    if unsure and groups:
        for u in unsure:
            best, dist = None, link_mm
            for g in groups:
                d = float(np.min(np.hypot(*(positions(g) - [u.x_mm, u.y_mm]).T)))
                if d <= dist:
                    best, dist = g, d
            if best is not None:
                best.append(u)
    return groups


def faces_up_deg(pieces: Sequence[Any]) -> tuple[float, float] | None:
    """The direction the read faces' tops point (clockwise from the table's -y, degrees) and how well they
    agree (0..1): face-up tiles and coins value side up, read surely; None when there is none."""
    angles = [math.radians(float(t.angle_deg)) for t in pieces
              if getattr(t, "side", None) in ("face", "value") and not getattr(t, "uncertain", False)
              and t.rank is not None]
    if not angles:
        return None
    c = float(np.mean(np.cos(angles)))
    s = float(np.mean(np.sin(angles)))
    return math.degrees(math.atan2(s, c)) % 360.0, math.hypot(c, s)


def orient(lattice: Lattice, up_deg: float) -> Lattice:
    """The lattice turned by quarter turns so that its "up" (decreasing rows) is nearest ``up_deg``."""
    best = min(range(4), key=lambda k: abs(_diff(lattice.angle_deg + 90.0 * k, up_deg)))
    return lattice.turned(best)


def _diff(a: float, b: float) -> float:
    """Signed difference of two angles in degrees, in (-180, 180]."""
    d = math.fmod(a - b, 360.0)
    if d <= -180.0:
        d += 360.0
    elif d > 180.0:
        d -= 360.0
    return d


def _reading_order(items: list[Any], centre_of) -> list[Any]:
    """Top to bottom, then left to right: items whose centres are within half a board of each other
    vertically share a row."""
    rest = sorted(items, key=lambda it: centre_of(it)[1])
    rows: list[list[Any]] = []
    for it in rest:
        if rows and abs(centre_of(it)[1] - centre_of(rows[-1][0])[1]) < 2.5 * TILE_MM:
            rows[-1].append(it)
        else:
            rows.append([it])
    return [it for row in rows for it in sorted(row, key=lambda it: centre_of(it)[0])]


def _touching_cells(lattice: Lattice, piece: Any, reach: float = 0.8) -> tuple[tuple[int, int], ...]:
    """Cells whose centre is within ``reach`` pitches of a piece (the cells a piece between cells may be on)."""
    cf = lattice.coords(positions([piece]))[0]
    out = []
    for c in range(math.floor(cf[0]) - 1, math.floor(cf[0]) + 3):
        for r in range(math.floor(cf[1]) - 1, math.floor(cf[1]) + 3):
            if math.hypot((cf[0] - c) * lattice.pitch_mm[0], (cf[1] - r) * lattice.pitch_mm[1]) \
                    <= reach * lattice.mean_pitch_mm:
                out.append((c, r))
    return tuple(out)


# ------------------------------------------------------------------------------------------------ Easy Slider
@dataclass
class EasySliderLayout:
    """One Easy Slider board as laid on the table.

    ``lattice``: the board's grid, cell (0, 0) its top-left cell, "up" its top; ``cells``: (col, row) -> the
    tiles placed on it (usually one; several is a ``shared-cell`` problem); ``between``: tiles lying between
    cells, with the cells they may be on (``touching``); ``outside``: tiles of this board beyond its 5x5 window;
    ``pawns``: rows 0-3 -> the pawn beside it (None: none seen); ``coins``: columns 0-4 -> the coin above it;
    ``slot_problems``: pawns/coins that could not be told apart (two in one slot); ``ambiguous``: why the
    board's orientation or window could not be fixed (None when it could).
    """

    lattice: Lattice
    cells: dict[tuple[int, int], list[CellFit]]
    between: list[tuple[CellFit, tuple[tuple[int, int], ...]]]
    outside: list[CellFit]
    pawns: list[Any | None]
    coins: list[Any | None]
    problems: list[GridProblem]
    ambiguous: str | None = None
    tiles: list[Any] = field(default_factory=list, repr=False)

    @property
    def centre_mm(self) -> tuple[float, float]:
        c = self.lattice.centre(2, 2)
        return float(c[0]), float(c[1])

    def to_json(self) -> dict[str, Any]:
        return {"lattice": self.lattice.to_json(), "centre_mm": [round(v, 1) for v in self.centre_mm],
                "problems": [p.to_json() for p in self.problems], "ambiguous": self.ambiguous}


def _within(fit: GridFit, cols: int, rows: int) -> GridFit:
    """The fit without the uncertain pieces that lie outside the ``cols`` x ``rows`` window (phantoms and
    neighbours' pieces; a surely read piece outside stays, and is reported by the caller)."""
    def keep(c: CellFit) -> bool:
        return _placed(c.piece) or (0 <= c.col < cols and 0 <= c.row < rows)

    dropped = {id(c.piece) for c in fit.placed + fit.off_grid if not keep(c)}
    problems = [p for p in fit.problems if not (p.pieces and all(id(q) in dropped for q in p.pieces))]
    return GridFit(fit.lattice, [c for c in fit.placed if keep(c)], [c for c in fit.off_grid if keep(c)],
                   problems, fit.rms_mm)


def _slot_matches(lattice: Lattice, figures: Sequence[Any], along_axis: int, count: int) -> list[list[Any]]:
    """For each of ``count`` slots beside the board (``along_axis`` 0: above columns, 1: left of rows), the
    figures standing in it."""
    out: list[list[Any]] = [[] for _ in range(count)]
    if not figures:
        return out
    cf = lattice.coords(positions(figures))
    for fig, (c, r) in zip(figures, cf, strict=True):
        along, across = (c, r) if along_axis == 0 else (r, c)
        k = round(along)
        if 0 <= k < count and abs(along - k) <= _SLOT_ALONG and _SLOT_BAND[0] <= across <= _SLOT_BAND[1]:
            out[k].append(fig)
    return out


def _window_score(lattice: Lattice, pawns: Sequence[Any], coins: Sequence[Any], faces: tuple[float, float] | None
                  ) -> float:
    pawn_slots = _slot_matches(lattice, pawns, 1, 4)
    coin_slots = _slot_matches(lattice, coins, 0, 5)
    score = float(sum(1 for s in pawn_slots if s) + sum(1 for s in coin_slots if s))
    if faces is not None:
        up, agreement = faces
        score += 3.0 * agreement * math.cos(math.radians(_diff(lattice.angle_deg, up)))
    return score


def find_easy_slider_boards(pieces: Sequence[Any], min_tiles: int = _MIN_BOARD_TILES) -> list[EasySliderLayout]:
    """Every Easy Slider board among ``pieces`` (reliable and uncertain alike), in reading order.

    A board is a cluster of at least ``min_tiles`` tiles (see :data:`BOARD_LINK_MM`). Its orientation and its
    5x5 window are chosen to put the most pawns left of rows 1-4 and coins above columns 1-5, the tiles' faces
    reading upright breaking ties; when two choices explain the pieces equally well (e.g. a whole edge hidden
    and no pawns or coins to say where it was), ``ambiguous`` says so.
    """
    tiles = _of(pieces, Kind.TILE)
    pawns_left = _of(pieces, Kind.PAWN)
    coins_left = _of(pieces, Kind.COIN)
    boards = []
    for group in _groups(tiles, BOARD_LINK_MM):
        if len(_sure(group)) < min_tiles:
            continue
        boards.append(_easy_slider_board(group, pawns_left, coins_left))
        taken = {id(p) for p in boards[-1].pawns if p is not None} | {id(c) for c in boards[-1].coins if c is not None}
        pawns_left = [p for p in pawns_left if id(p) not in taken]
        coins_left = [c for c in coins_left if id(c) not in taken]
    return _reading_order(boards, lambda b: b.centre_mm)


def _easy_slider_board(tiles: list[Any], pawns: list[Any], coins: list[Any]) -> EasySliderLayout:
    fit = fit_tile_grid(_sure(tiles))
    faces = faces_up_deg(tiles)
    candidates = []
    for k in range(4):
        lat = fit.lattice.turned(k)
        cells = np.rint(lat.coords(positions([c.piece for c in fit.placed]))).astype(int) if fit.placed else None
        if cells is None:
            continue
        cmin, rmin = cells.min(axis=0)
        cmax, rmax = cells.max(axis=0)
        if cmax - cmin > 4 or rmax - rmin > 4:
            continue
        for c0 in range(cmax - 4, cmin + 1):
            for r0 in range(rmax - 4, rmin + 1):
                window = lat.shifted(int(c0), int(r0))
                candidates.append((_window_score(window, pawns, coins, faces), k, c0, r0, window))
    problems = list(fit.problems)
    if not candidates:  # more than 5 columns or rows of tiles: not one board (two touching, or stray tiles)
        lat = fit.lattice
        problems.append(GridProblem("misfit", "the tiles span more than 5 columns or rows: this is not one Easy "
                                    "Slider board (two boards touching?)", ()))
        return _board_from(lat, tiles, pawns, coins, problems, "the tiles do not fit a 5x5 board")
    candidates.sort(key=lambda c: -c[0])
    best = candidates[0]
    ambiguous = None
    rivals = [c for c in candidates[1:] if c[0] >= best[0] - 0.25 and (c[2], c[3], c[1]) != (best[2], best[3], best[1])]
    if rivals:
        ambiguous = ("the board's edge or orientation cannot be told: tiles are missing along an edge and no pawn, "
                     "coin or readable face says where the board lies")
    return _board_from(best[4], tiles, pawns, coins, problems, ambiguous)


def _board_from(lattice: Lattice, tiles: list[Any], pawns: list[Any], coins: list[Any],
                problems: list[GridProblem], ambiguous: str | None) -> EasySliderLayout:
    fit = _within(assign_cells(tiles, lattice, normalise=False, max_turn_deg=20.0), 5, 5)
    problems = [p for p in problems if p.kind not in ("off-grid", "shared-cell", "turned")] + fit.problems
    cells: dict[tuple[int, int], list[CellFit]] = {}
    outside = []
    for c in fit.placed:
        if 0 <= c.col < 5 and 0 <= c.row < 5:
            cells.setdefault(c.cell, []).append(c)
        else:
            outside.append(c)
    between = [(c, tuple(t for t in _touching_cells(lattice, c.piece) if 0 <= t[0] < 5 and 0 <= t[1] < 5))
               for c in fit.off_grid]
    pawn_slots = _slot_matches(lattice, pawns, 1, 4)
    coin_slots = _slot_matches(lattice, coins, 0, 5)
    for k, slot in enumerate(pawn_slots):
        if len(slot) > 1:
            problems.append(GridProblem("shared-cell", f"{len(slot)} pawns stand beside row {k + 1}", ((-1, k),),
                                        tuple(slot)))
    for k, slot in enumerate(coin_slots):
        if len(slot) > 1:
            problems.append(GridProblem("shared-cell", f"{len(slot)} coins lie above column {k + 1}", ((k, -1),),
                                        tuple(slot)))
    return EasySliderLayout(lattice, cells, between, outside,
                            [s[0] if len(s) == 1 else None for s in pawn_slots],
                            [s[0] if len(s) == 1 else None for s in coin_slots],
                            problems, ambiguous, list(tiles))


# ------------------------------------------------------------------------------------------ blocks of tiles
@dataclass
class BlockLayout:
    """Tile backs in a block with coins on their 2x2 cells (Slides of Action, Plans of Action).

    ``tiles``: tile-space (col, row) -> the tiles on it, tile-spaces counted from the block's top-left;
    ``coins``: cell (col, row) -> coins on it, cells counted from the top-left cell of that same tile-space
    (a tile-space (tc, tr) holds the cells (2tc..2tc+1, 2tr..2tr+1)); ``between``: coins not clearly on one
    cell (between cells, or on the seam of two tiles), with the cells they may be on; ``off_tiles``: coins on a
    tile-space with no tile (a coin lies only on tiles); ``inferred``: tile-spaces whose tile was not seen but
    holds coins (its entry in ``tiles`` is an empty list).
    """

    lattice: Lattice  # of the tile-spaces
    tiles: dict[tuple[int, int], list[CellFit]]
    coins: dict[tuple[int, int], list[Any]]
    between: list[tuple[Any, tuple[tuple[int, int], ...]]]
    off_tiles: list[tuple[Any, tuple[int, int]]]
    problems: list[GridProblem]
    inferred: list[tuple[int, int]] = field(default_factory=list)

    @property
    def tile_spaces(self) -> tuple[int, int]:
        """(columns, rows) of tile-spaces spanned by the tiles."""
        if not self.tiles:
            return (0, 0)
        cols = [c for c, _ in self.tiles]
        rows = [r for _, r in self.tiles]
        return (max(cols) - min(cols) + 1, max(rows) - min(rows) + 1)


def find_tile_block(pieces: Sequence[Any], *, max_off_cell_mm: float = 0.3 * TILE_MM / 2,
                    infer_tiles_from: int = 2) -> BlockLayout | None:
    """The largest block of tiles among ``pieces`` and the coins on its cells; None without tiles or coins.

    The block is square, so its orientation is the quarter turn nearest the top of the picture. Each coin is
    put on the 2x2 cell of the tile under it (half a tile's width apart, 12.7 mm from the tile's centre each
    way); one farther than ``max_off_cell_mm`` from every cell centre lies ``between`` cells. Coins lie only on
    tiles, so a tile-space holding at least ``infer_tiles_from`` coins holds a tile even when the tile was not
    seen under them (``inferred``); a lone coin where no tile is seen is reported in ``off_tiles``. With no tile
    seen at all, the block is found from the coins alone (their cells are half a tile apart).
    """
    if not _of(pieces, Kind.TILE, Kind.COIN):
        return None
    # tiles and coins together: a tile hidden under its coins still links its neighbours through the coins
    groups = _groups(_of(pieces, Kind.TILE, Kind.COIN), BOARD_LINK_MM)
    block = max(groups, key=lambda g: (len(_sure(_of(g, Kind.TILE))), len(g)))
    tiles = _of(block, Kind.TILE)
    near = _of(block, Kind.COIN)
    if tiles:
        fit = fit_tile_grid(_sure(tiles))
        lattice = fit.lattice.shifted(*fit.bounds()[:2]) if fit.placed else fit.lattice
        lattice = _block_lattice_from_coins(lattice, _sure(tiles), _sure(near) if near else [])
        fit = assign_cells(tiles, lattice, normalise=False, max_turn_deg=20.0)
        problems = list(fit.problems)
    else:
        coin_fit = fit_coin_grid(_sure(near), pitch_range=(0.4 * TILE_MM, 0.64 * TILE_MM))
        c0, r0, _, _ = coin_fit.bounds()
        centre = coin_fit.lattice.centre(c0 + 0.5, r0 + 0.5)
        pitch = tuple(2.0 * p for p in coin_fit.lattice.pitch_mm)
        lattice = Lattice((float(centre[0]), float(centre[1])), coin_fit.lattice.angle_deg, pitch)
        fit = GridFit(lattice, [], [], [], 0.0)
        problems = [p for p in coin_fit.problems if p.kind == "misfit"]
    tile_cells: dict[tuple[int, int], list[CellFit]] = {}
    for c in fit.placed:
        tile_cells.setdefault(c.cell, []).append(c)
    u, v = lattice.axes
    half = TILE_MM / 4.0
    placed: list[tuple[Any, tuple[int, int], tuple[int, int]]] = []
    between: list[tuple[Any, tuple[tuple[int, int], ...]]] = []
    for coin in near:
        cf = lattice.coords(positions([coin]))[0]
        space = (round(cf[0]), round(cf[1]))
        centre = lattice.centre(*space)
        d = np.array([coin.x_mm, coin.y_mm]) - centre
        du, dv = float(d @ u), float(d @ v)
        sub = (int(du > 0), int(dv > 0))
        cell = (2 * space[0] + sub[0], 2 * space[1] + sub[1])
        off = math.hypot(abs(du) - half, abs(dv) - half)
        if off > max_off_cell_mm:
            cands = []
            for sc in (0, 1):
                for sr in (0, 1):
                    if math.hypot(du - (2 * sc - 1) * half, dv - (2 * sr - 1) * half) <= half * 1.6:
                        cands.append((2 * space[0] + sc, 2 * space[1] + sr))
            between.append((coin, tuple(cands) or (cell,)))
            problems.append(GridProblem("off-grid", f"a coin lies {off:.0f} mm from the nearest cell centre: it is "
                                        "between cells", (cell,), (coin,)))
            continue
        placed.append((coin, space, cell))
    per_space: dict[tuple[int, int], int] = {}
    for _coin, space, _cell in placed:
        per_space[space] = per_space.get(space, 0) + 1
    inferred = sorted((s for s, n in per_space.items() if s not in tile_cells and n >= infer_tiles_from),
                      key=lambda s: (s[1], s[0]))
    for space in inferred:
        tile_cells[space] = []
    coins_at: dict[tuple[int, int], list[Any]] = {}
    off_tiles: list[tuple[Any, tuple[int, int]]] = []
    for coin, space, cell in placed:
        if space not in tile_cells:
            off_tiles.append((coin, space))
            problems.append(GridProblem("off-grid", "a coin lies where no tile was seen", (cell,), (coin,)))
            continue
        coins_at.setdefault(cell, []).append(coin)
    for cell, cs in coins_at.items():
        if len(cs) > 1:
            problems.append(GridProblem("shared-cell", f"{len(cs)} coins are on one cell", (cell,), tuple(cs)))
    # index from the block's top-left tile-space
    if tile_cells:
        tc0 = min(c for c, _ in tile_cells)
        tr0 = min(r for _, r in tile_cells)
        if (tc0, tr0) != (0, 0):
            lattice = lattice.shifted(tc0, tr0)
            tile_cells = {(c - tc0, r - tr0): [CellFit(f.piece, f.col - tc0, f.row - tr0, f.offset_mm, f.off_centre)
                                                for f in fs] for (c, r), fs in tile_cells.items()}
            coins_at = {(c - 2 * tc0, r - 2 * tr0): cs for (c, r), cs in coins_at.items()}
            between = [(coin, tuple((c - 2 * tc0, r - 2 * tr0) for c, r in cells)) for coin, cells in between]
            off_tiles = [(coin, (c - tc0, r - tr0)) for coin, (c, r) in off_tiles]
            inferred = [(c - tc0, r - tr0) for c, r in inferred]
    return BlockLayout(lattice, tile_cells, coins_at, between, off_tiles, problems, inferred)


def _block_lattice_from_coins(lattice: Lattice, tiles: Sequence[Any], coins: Sequence[Any]) -> Lattice:
    """The block's lattice of tile-spaces refitted to the tiles and the coins on them together.

    A block's tiles are fitted from the tiles read surely, but backs under coins show little of themselves: with
    one tile read, its pitch is a default (a whole tile's gap off per tile), and backs under coins are found a
    few mm off. The coins lie on the tiles' 2x2 cells, a quarter tile each way from their tile's centre, so
    every coin (and tile) read is one observation of a linear model: position - the coin's cell offset =
    origin + col * A + row * B, solved by least squares (``numpy.linalg.lstsq``) for the origin and the two
    step vectors A and B (pitch and angle), three times with the cells assigned afresh. Kept only when the
    pieces span two tile-spaces both ways and the result is plausible (pitch a tile -3..+25 mm, turned
    less than 8 degrees); else the lattice as it was."""
    if len(coins) < 3:
        return lattice
    h = TILE_MM / 4.0
    best = lattice
    for _ in range(3):
        u, v = best.axes
        rows, rhs, spaces = [], [], []
        for piece, on_cell in [(t, False) for t in tiles] + [(c, True) for c in coins]:
            xy = np.array([float(piece.x_mm), float(piece.y_mm)])
            cf = best.coords(xy[None])[0]
            i, j = int(round(cf[0])), int(round(cf[1]))
            if on_cell:
                d = xy - best.centre(i, j)
                xy = xy - (h if float(d @ u) > 0 else -h) * u - (h if float(d @ v) > 0 else -h) * v
            spaces.append((i, j))
            rows += [[1.0, 0.0, i, 0.0, j, 0.0], [0.0, 1.0, 0.0, i, 0.0, j]]
            rhs += [xy[0], xy[1]]
        if len({i for i, _ in spaces}) < 2 or len({j for _, j in spaces}) < 2:
            return lattice
        sol = np.linalg.lstsq(np.asarray(rows), np.asarray(rhs), rcond=None)[0]
        step_a, step_b = sol[2:4], sol[4:6]
        angle_a = math.degrees(math.atan2(step_a[1], step_a[0]))
        angle_b = math.degrees(math.atan2(step_b[1], step_b[0])) - 90.0
        angle = angle_a + _diff(angle_b, angle_a) / 2.0
        pitch = (float(np.linalg.norm(step_a)), float(np.linalg.norm(step_b)))
        if (abs(_diff(angle, lattice.angle_deg)) > 8.0
                or not all(TILE_MM - 3.0 <= p <= TILE_MM + 25.0 for p in pitch)):
            return lattice
        best = Lattice((float(sol[0]), float(sol[1])), angle, pitch)
    return best


# ----------------------------------------------------------------------------------------------- coin grids
@dataclass
class CoinGridLayout:
    """Coins in a grid (``cols`` x ``rows``) and dice standing on them.

    ``cells``: (col, row) -> the coins on it; ``dice``: the dice with their cells; ``ambiguous``: why the
    window or orientation could not be fixed."""

    lattice: Lattice
    cells: dict[tuple[int, int], list[CellFit]]
    dice: list[CellFit]
    outside: list[CellFit]
    problems: list[GridProblem]
    ambiguous: str | None = None


def _oriented_window(fit: GridFit, cols: int, rows: int, faces: tuple[float, float] | None,
                     unsure: Sequence[Any] = ()) -> tuple[Lattice, str | None] | None:
    """The orientation (quarter turns) and window that hold every placed piece in a ``cols`` x ``rows`` grid,
    preferring the faces' "up", then the top of the picture; None when nothing fits.

    The lattice is fitted to the surely read pieces only; when several windows hold them all (a whole row of
    face-down coins not read surely), the ``unsure`` pieces lying on the lattice (within 0.3 pitch of a cell
    centre) narrow the choice to the orientations and windows that hold them too. A piece is a piece even when
    its face is unclear; a phantom among them can only leave no such window (then the choice stays ambiguous)
    or push real unsure pieces out of the window, which empties their cells: the readings abstain on an empty
    cell."""
    options = []
    for k in range(4):
        lat = fit.lattice.turned(k)
        pts = positions([c.piece for c in fit.placed])
        if not len(pts):
            return None
        cells = np.rint(lat.coords(pts)).astype(int)
        cmin, rmin = cells.min(axis=0)
        cmax, rmax = cells.max(axis=0)
        if cmax - cmin >= cols or rmax - rmin >= rows:
            continue
        up = faces[0] if faces is not None and faces[1] > 0.5 else 0.0
        turn_cost = abs(_diff(lat.angle_deg, up))
        windows = [(c0, r0) for c0 in range(cmax - cols + 1, cmin + 1) for r0 in range(rmax - rows + 1, rmin + 1)]
        holds_all = True
        if len(unsure):
            uc = lat.coords(positions(unsure))
            on = np.abs(uc - np.rint(uc)).max(axis=1) <= 0.3
            ucells = np.rint(uc[on]).astype(int)
            held = [(c0, r0) for c0, r0 in windows
                    if all(c0 <= c < c0 + cols and r0 <= r < r0 + rows for c, r in ucells.tolist())]
            holds_all = bool(held)
            if held:
                windows = held
        options.append((turn_cost, k, lat, windows, holds_all))
    if not options:
        return None
    if any(o[4] for o in options):  # the orientations whose grid holds the unsure pieces too (4 wide, 6 high)
        options = [o for o in options if o[4]]
    options.sort(key=lambda o: o[0])
    cost, _, lat, windows, _ = options[0]
    ambiguous = None
    if len(windows) > 1:
        # anchor at the top-left of the pieces; the reading says where the grid's edges lie is not known
        ambiguous = f"the pieces fill less than the {cols}x{rows} grid, so where its edges lie cannot be told"
        cells = np.rint(lat.coords(positions([c.piece for c in fit.placed]))).astype(int)
        c0, r0 = cells.min(axis=0)
    else:
        c0, r0 = windows[0]
    if ambiguous is None and len(options) > 1 and options[1][0] - cost < 30.0:
        ambiguous = "the grid's orientation cannot be told (it is turned about 45 degrees to the picture)"
    return lat.shifted(int(c0), int(r0)), ambiguous


def _on_cells(lattice: Lattice, pieces: Sequence[Any], tolerance: float = 0.25) -> int:
    """How many pieces lie within ``tolerance`` pitch of a cell centre of ``lattice``."""
    cf = lattice.coords(positions(pieces))
    return int(np.sum(np.abs(cf - np.rint(cf)).max(axis=1) <= tolerance))


def find_coin_grid(pieces: Sequence[Any], cols: int = 4, rows: int = 6) -> CoinGridLayout | None:
    """The coins in a ``cols`` x ``rows`` grid among ``pieces`` and any die standing on one; None without coins.

    The grid is fitted to the coins and dice (a die stands on a coin's centre); its long side runs down the
    picture when ``rows > cols``; of the two such orientations the one nearer the way the values read (else the
    top of the picture) is taken.
    """
    coins = _of(pieces, Kind.COIN)
    dice = _of(pieces, Kind.DIE)
    if not coins:
        return None
    # the grid's coins touch their neighbours: one cluster of every coin and die (a face-down coin read unclear
    # is still a coin), the one holding the most pieces placed surely
    group = max(clusters(coins + dice, 2.2 * COIN_MM), key=lambda g: (sum(1 for p in g if _placed(p)), len(g)))
    fit = fit_coin_grid(_sure(group))
    if len(_sure(group)) < len(group):
        # few pieces placed surely (face-down coins unread in some editions) can give a lattice turned 45
        # degrees with most coins between its cells; fitted to every coin of the group, the lattice that puts
        # clearly more of them on cell centres is the grid
        every = fit_coin_grid(group)
        if _on_cells(every.lattice, group) > _on_cells(fit.lattice, group) + 2:
            fit = every
    unsure = [p for p in group if not _placed(p) and _kind(p) is Kind.COIN]
    found = _oriented_window(fit, cols, rows, faces_up_deg(group), unsure)
    problems = list(fit.problems)
    if found is None:
        lattice, ambiguous = fit.lattice, f"the coins do not fit a {cols}x{rows} grid"
    else:
        lattice, ambiguous = found
    fit = _within(assign_cells(group, lattice, normalise=False), cols, rows)
    problems = [p for p in problems if p.kind == "misfit"] + fit.problems
    cells: dict[tuple[int, int], list[CellFit]] = {}
    on_dice, outside = [], []
    for c in fit.placed:
        if not (0 <= c.col < cols and 0 <= c.row < rows):
            outside.append(c)
        elif _kind(c.piece) is Kind.DIE:
            on_dice.append(c)
        else:
            cells.setdefault(c.cell, []).append(c)
    # a die on a coin shares its cell by design: drop those shared-cell problems
    die_cells = {d.cell for d in on_dice}
    problems = [p for p in problems if not (p.kind == "shared-cell" and set(p.cells) <= die_cells
                                            and sum(1 for q in p.pieces if _kind(q) is not Kind.DIE) <= 1)]
    return CoinGridLayout(lattice, cells, on_dice, outside, problems, ambiguous)


# ------------------------------------------------------------------------------------------------ tile grids
@dataclass
class TileGridLayout:
    """Face-up tiles in a ``cols`` x ``rows`` grid (Slide Jam): ``cells`` (col, row) -> tiles on it."""

    lattice: Lattice
    cells: dict[tuple[int, int], list[CellFit]]
    between: list[tuple[CellFit, tuple[tuple[int, int], ...]]]
    outside: list[CellFit]
    problems: list[GridProblem]
    ambiguous: str | None = None


def find_tile_grid(pieces: Sequence[Any], cols: int = 4, rows: int = 6) -> TileGridLayout | None:
    """The largest group of tiles as a ``cols`` x ``rows`` grid, oriented by the tiles' faces (then the shape,
    then the top of the picture); None without tiles. With fewer tiles than the grid holds, the tiles are
    placed from its top-left corner and ``ambiguous`` says that their place in the grid is not known."""
    tiles = _of(pieces, Kind.TILE)
    if not tiles:
        return None
    groups = _groups(tiles, BOARD_LINK_MM)
    group = groups[0]
    fit = fit_tile_grid(_sure(group))
    group = _with_broken_off_parts(group, groups[1:], fit.lattice, cols, rows)
    if len(group) > len(groups[0]):
        fit = fit_tile_grid(_sure(group))
    faces = faces_up_deg(group)
    found = _oriented_window(fit, cols, rows, faces)
    if found is None:
        lattice, ambiguous = fit.lattice, f"the tiles do not fit a {cols}x{rows} grid"
    else:
        lattice, ambiguous = found
    fit = _within(assign_cells(group, lattice, normalise=False, max_turn_deg=20.0), cols, rows)
    cells: dict[tuple[int, int], list[CellFit]] = {}
    outside = []
    for c in fit.placed:
        if 0 <= c.col < cols and 0 <= c.row < rows:
            cells.setdefault(c.cell, []).append(c)
        else:
            outside.append(c)
    between = [(c, _touching_cells(lattice, c.piece)) for c in fit.off_grid]
    return TileGridLayout(lattice, cells, between, outside, list(fit.problems), ambiguous)


def _with_broken_off_parts(group: list[Any], others: Sequence[list[Any]], lattice: Lattice, cols: int,
                           rows: int) -> list[Any]:
    """``group`` joined by the other tile groups lying on its lattice within one ``cols`` x ``rows`` window: a
    Slide Jam board can break into pieces with empty rows or columns between them (the rules allow it), and
    they are one board. A group off the lattice (more than 0.3 pitch from cell centres) or beyond the window
    (the stacks of removed families beside the board, another game) stays out."""
    merged = list(group)
    for other in others:
        candidate = merged + list(other)
        xy = positions(_sure(candidate))
        coords = lattice.coords(xy)
        off = np.abs(coords - np.rint(coords)).max() if len(coords) else 1.0
        span = sorted((np.rint(coords).max(axis=0) - np.rint(coords).min(axis=0) + 1).astype(int).tolist())
        fits = span[0] <= min(cols, rows) and span[1] <= max(cols, rows)
        if off <= 0.3 and fits and any(_kind(p) is Kind.TILE and not getattr(p, "uncertain", False) for p in other):
            merged = candidate
    return merged


# ------------------------------------------------------------------------------------------------ Magic Mirror
@dataclass
class MirrorLayout:
    """Magic Mirror's board: ``cells`` (col, row) -> tiles, rows 0-2 the top grid (row 2 its front row, next to
    the mirror) and rows 3-5 the bottom grid (row 3 its front row)."""

    lattice: Lattice  # the top grid's lattice (row pitch within a grid)
    cells: dict[tuple[int, int], list[CellFit]]
    between: list[tuple[CellFit, tuple[tuple[int, int], ...]]]
    problems: list[GridProblem]
    mirror_gap_mm: float | None
    ambiguous: str | None = None


def find_mirror_grids(pieces: Sequence[Any], cols: int = 4, side_rows: int = 3) -> MirrorLayout | None:
    """Magic Mirror's two grids among ``pieces``; None without tiles.

    Columns come from one lattice over all tiles; rows are grouped by their distance along the columns, and
    the mirror is the widest gap between consecutive rows that leaves as many tiles above it as below it (every
    pair takes one tile from each side). Columns slide toward the mirror, so each grid's rows are counted from
    its front row.
    """
    tiles = _of(pieces, Kind.TILE)
    if not tiles:
        return None
    # the mirror's gap may be wider than a board link: group generously, then keep the main group
    group = _groups(tiles, 2.6 * TILE_MM)[0]
    fit = fit_tile_grid(_sure(group), max_off_centre=0.45)
    faces = faces_up_deg(group)
    lattice = orient(fit.lattice, faces[0] if faces is not None and faces[1] > 0.5 else 0.0)
    u, v = lattice.axes
    pts = positions(group)
    along = pts @ v
    across = pts @ u
    col_f = (across - float(np.asarray(lattice.origin_mm) @ u)) / lattice.pitch_mm[0]
    cols_i = np.rint(col_f).astype(int)
    # rows: sort positions along v and split where consecutive tiles are more than half a tile apart
    order = np.argsort(along)
    row_of = np.zeros(len(group), int)
    row_pos: list[list[float]] = [[float(along[order[0]])]]
    for a, b in zip(order, order[1:], strict=False):
        if along[b] - along[a] > 0.5 * TILE_MM:
            row_pos.append([])
        row_pos[-1].append(float(along[b]))
        row_of[b] = len(row_pos) - 1
    centres = [float(np.mean(r)) for r in row_pos]
    counts = [int(np.sum(row_of == i)) for i in range(len(centres))]
    # The lattice gives the columns (and the turn) only: its rows cannot fit both grids at once (the mirror's gap
    # is a fraction of a pitch: the rows of one side lie off the other's), so its own problems say nothing here.
    # Rows are found above; tiles off their row or column are "between" below; tiles not in columns at all:
    col_rms = float(np.sqrt(np.mean(((col_f - cols_i) * lattice.pitch_mm[0]) ** 2)))
    problems = []
    if col_rms > 0.2 * lattice.pitch_mm[0]:
        problems.append(GridProblem("misfit", f"the tiles do not lie in columns (they are {col_rms:.0f} mm off "
                                    "the column centres on average)", ()))
    gaps = [(centres[i + 1] - centres[i], i) for i in range(len(centres) - 1)]
    splits = [(g, i) for g, i in gaps if sum(counts[: i + 1]) == sum(counts[i + 1:])]
    ambiguous = None
    if not splits:
        if len(centres) == 1:
            return MirrorLayout(lattice, {}, [], problems + [GridProblem(
                "misfit", "all the tiles are in one row: the mirror cannot be found", ())], None,
                "the mirror cannot be found")
        ambiguous = "no gap leaves the same number of tiles on both sides of the mirror"
        splits = gaps
    gap, split = max(splits)
    within = [centres[i + 1] - centres[i] for i in range(len(centres) - 1) if i != split]
    pitch_rows = float(np.median(within)) if within else lattice.pitch_mm[0]
    if within and len(splits) > 1 and sorted(s[0] for s in splits)[-2] > gap - 0.3 * pitch_rows:
        ambiguous = "two gaps could be the mirror"
    row_index = {}
    for i in range(len(centres)):
        if i <= split:
            row_index[i] = side_rows - 1 - round((centres[split] - centres[i]) / pitch_rows)
        else:
            row_index[i] = side_rows + round((centres[i] - centres[split + 1]) / pitch_rows)
    c0 = int(cols_i.min())
    if int(cols_i.max()) - c0 >= cols:
        problems.append(GridProblem("misfit", f"the tiles span more than {cols} columns", ()))
    elif int(cols_i.max()) - c0 < cols - 1:
        ambiguous = ambiguous or "a whole column is empty, so which columns the tiles are in cannot be told"
    cells: dict[tuple[int, int], list[CellFit]] = {}
    between = []
    for k, piece in enumerate(group):
        col, row = int(cols_i[k]) - c0, row_index[int(row_of[k])]
        centre_along = centres[int(row_of[k])]
        off = math.hypot((col_f[k] - cols_i[k]) * lattice.pitch_mm[0], along[k] - centre_along)
        fitc = CellFit(piece, col, row, off, off / lattice.mean_pitch_mm)
        if not (0 <= row < 2 * side_rows):
            problems.append(GridProblem("misfit", "a row of tiles lies beyond the two 4x3 grids", ((col, row),)))
            continue
        if fitc.off_centre > 0.3:
            between.append((fitc, ((col, row),)))
            problems.append(GridProblem("off-grid", f"a tile lies {off:.0f} mm from its cell", ((col, row),),
                                        (piece,)))
            continue
        cells.setdefault((col, row), []).append(fitc)
    for cell, fs in cells.items():
        if len(fs) > 1:
            problems.append(GridProblem("shared-cell", f"{len(fs)} tiles are on one cell", (cell,),
                                        tuple(f.piece for f in fs)))
    shifted = lattice.shifted(c0, 0)
    return MirrorLayout(shifted, cells, between, problems, gap - pitch_rows, ambiguous)


# ------------------------------------------------------------------------------------------------ Catwalk
@dataclass
class CatwalkLayout:
    """Tiles on a square grid, north up: ``cells`` (x east, y north, Catwalk's convention) -> tiles."""

    lattice: Lattice
    cells: dict[tuple[int, int], list[CellFit]]
    problems: list[GridProblem]


def find_catwalk(pieces: Sequence[Any], max_off_centre: float = 0.4) -> CatwalkLayout | None:
    """The catwalk's tiles on a grid whose north is the top of the picture (the Catwalk compass is the
    table's). Staggered switchback tiles sit a few mm off their cell, hence the looser ``max_off_centre``."""
    tiles = _of(pieces, Kind.TILE)
    if not tiles:
        return None
    group = _groups(tiles, BOARD_LINK_MM)[0]
    fit = fit_tile_grid(_sure(group), max_off_centre=max_off_centre)
    lattice = orient(fit.lattice, 0.0)
    fit = assign_cells(group, lattice, max_off_centre=max_off_centre, max_turn_deg=20.0)
    cells: dict[tuple[int, int], list[CellFit]] = {}
    _, _, _, r1 = fit.bounds()
    for c in fit.placed:
        cells.setdefault((c.col, r1 - c.row), []).append(c)
    return CatwalkLayout(fit.lattice, cells, list(fit.problems))


# ------------------------------------------------------------------------------------------------ Trampo-Land
@dataclass
class TriangleLayout:
    """Fifteen spots in a triangle of rows 1..5 (Trampo-Land), numbered 1..15 in reading order.

    ``spots``: number -> the pieces standing there (the trampoline coin and what is on it); ``corners_mm``:
    the centres of trampolines 1, 11 and 15; ``problems`` as for grids."""

    spots: dict[int, list[Any]]
    corners_mm: np.ndarray
    rms_mm: float
    problems: list[GridProblem]
    ambiguous: str | None = None


def _spot_number(r: int, i: int) -> int:
    return r * (r + 1) // 2 + i + 1


def _triangle_fit(pts: np.ndarray, corners: np.ndarray, rows: int, max_off: float = 0.3
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, float] | None:
    """The triangle lattice (origin = trampoline 1, ``a`` one row down, ``b`` one place right, in mm) from three
    corner guesses, refined by least squares over the pieces it places (three rounds), with each piece's
    (row, place), the number of pieces within ``max_off`` of a spacing from their spot and their rms offset.
    None when the corners are degenerate."""
    apex = max(range(3), key=lambda k: float(np.mean([corners[j][1] for j in range(3) if j != k])))
    others = [j for j in range(3) if j != apex]
    left, right = sorted(others, key=lambda j: float(corners[j][0]))
    p1, p11, p15 = corners[apex], corners[left], corners[right]
    steps = rows - 1
    a = (p11 - p1) / steps  # one row down, first place
    b = (p15 - p11) / steps  # one place right
    origin = p1
    indices = None
    for _ in range(3):
        m = np.column_stack([a, b])
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        rc = np.linalg.solve(m, (pts - origin).T).T
        indices = np.rint(rc).astype(int)
        valid = (indices[:, 0] >= 0) & (indices[:, 0] < rows) & (indices[:, 1] >= 0) & (indices[:, 1] <= indices[:, 0])
        if valid.sum() >= 3:
            design = np.column_stack([np.ones(int(valid.sum())), indices[valid]])
            coef, *_ = np.linalg.lstsq(design, pts[valid], rcond=None)
            origin, a, b = coef[0], coef[1], coef[2]
    assert indices is not None
    spacing = float(np.linalg.norm(b))
    if spacing < 1e-6:
        return None
    offsets = np.hypot(*(pts - (origin + indices[:, :1] * a + indices[:, 1:] * b)).T)
    inside = (indices[:, 0] >= 0) & (indices[:, 0] < rows) & (indices[:, 1] >= 0) & (indices[:, 1] <= indices[:, 0])
    placed = inside & (offsets <= max_off * spacing)
    rms = float(math.sqrt(np.mean(offsets[placed] ** 2))) if placed.any() else math.inf
    return origin, a, b, indices, int(placed.sum()), rms


def find_triangle(pieces: Sequence[Any], rows: int = 5, max_off: float = 0.3) -> TriangleLayout | None:
    """The trampolines of Trampo-Land among ``pieces`` (coins, pawns and dice); None with fewer than 3 pieces.

    The three corners come from OpenCV's minimum enclosing triangle of the piece centres, each moved to the
    nearest piece or not (a corner trampoline may not be seen: the start whose fit places most pieces wins); the
    apex (trampoline 1) is the corner whose opposite side lies lowest in the picture.
    Every piece is then given its row and place by an affine fit through the corners (refined by least squares
    over all pieces); pieces farther than ``max_off`` of a spacing from every spot are ``off-grid``.
    """
    figures = [p for p in pieces if _kind(p) in (Kind.COIN, Kind.PAWN, Kind.DIE)]
    if len(figures) < 3:
        return None
    group = max(clusters(figures, 2.6 * COIN_MM), key=lambda g: (sum(1 for p in g if _placed(p)), len(g)))
    pts = positions(group)
    if len(pts) < 3:
        return None
    _, tri = cv2.minEnclosingTriangle(pts.astype(np.float32).reshape(-1, 1, 2))
    raw = tri.reshape(-1, 2).astype(np.float64)
    snapped = np.array([pts[int(np.argmin(np.hypot(*(pts - c).T)))] for c in raw])
    # Each corner starts moved onto the nearest piece (exact when the corner trampoline is seen) or where the
    # enclosing triangle has it (a corner trampoline not seen: the nearest piece is the next one along a side, a
    # row off, and the whole fit with it; the sides through the other pieces still meet near the missing one).
    # Of the eight starts, the fit placing more pieces on spots, then closer, is kept.
    starts = [np.array([snapped[k] if (m >> k) & 1 else raw[k] for k in range(3)]) for m in (7, 6, 5, 3, 4, 2, 1, 0)]
    fits = [f for f in (_triangle_fit(pts, corners, rows, max_off) for corners in starts) if f is not None]
    if not fits:
        return None
    origin, a, b, indices = max(fits, key=lambda f: (f[4], -f[5]))[:4]
    steps = rows - 1
    problems: list[GridProblem] = []
    spacing = float(np.linalg.norm(b))
    predicted = origin + indices[:, :1] * a + indices[:, 1:] * b
    offsets = np.hypot(*(pts - predicted).T)
    spots: dict[int, list[Any]] = {}
    for piece, (r, i), off in zip(group, indices, offsets, strict=True):
        if not (0 <= r < rows and 0 <= i <= r) or off > max_off * spacing:
            problems.append(GridProblem("off-grid", f"a {_kind(piece).value} lies off the triangle of trampolines",
                                        (), (piece,)))
            continue
        spots.setdefault(_spot_number(int(r), int(i)), []).append(piece)
    ok = offsets[offsets <= max_off * spacing]
    rms = float(math.sqrt(np.mean(ok ** 2))) if len(ok) else 0.0
    corners_mm = np.array([origin, origin + steps * a, origin + steps * a + steps * b])
    return TriangleLayout(spots, corners_mm, rms, problems)
