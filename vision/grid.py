"""Lattice fitting: which grid cell each piece lies on, and how surely, from piece positions on the table.

Pure geometry over lists of :class:`vision.pieces.DetectedPiece` (or anything with ``x_mm``, ``y_mm`` and
``angle_deg``) in table millimetres; no pixels, no game rules. Modelled on scikit-image: plain functions with
explicit parameters in documented units, small dataclasses for results.

A :class:`Lattice` is a grid of cells on the table: ``origin_mm`` is the centre of cell (0, 0), ``angle_deg``
the direction of its rows (the column axis, turned clockwise from the table's +x, as every angle in tableside:
y runs down), ``pitch_mm`` the centre-to-centre spacing between columns and between rows (they may differ:
players leave different gaps). Column indices grow along the row direction, row indices along the axis turned
90 degrees clockwise from it (down the picture when ``angle_deg`` is 0).

Fitting (:func:`fit_lattice`):

1. the rotation, modulo 90 degrees: from the pieces' own angles when they are squares with a measured angle
   (tiles, :func:`angle_from_pieces`), else from the directions between neighbouring pieces
   (:func:`angle_from_neighbours`); both average ``4 * angle`` on the circle, so 89 and 1 degree agree;
2. the pitch along each axis: the median length of the neighbour steps along that axis, within
   ``pitch_range``;
3. the phase (where cell centres lie): the circular mean of every piece's fractional cell coordinate;
4. refinement: least squares of the affine lattice over the pieces' rounded cells, made square again (one
   rotation, two pitches), pieces far off their cell left out; repeated until the cells stop changing.

Then :func:`assign_cells` puts each piece on its nearest cell and reports, never silently snapping:

* ``off-grid``: a piece farther than ``max_off_centre`` (a fraction of the pitch) from every cell centre,
  e.g. a tile half-way through a slide;
* ``shared-cell``: two pieces on one cell (one of them is misplaced, or a piece was seen twice);
* ``turned``: a square piece not square with the grid (``max_turn_deg``);
* ``misfit``: the pieces do not lie on any grid (RMS distance to their cells above ``max_rms_fraction``).

Hand-written rather than borrowed: OpenCV's and scikit-image's grid finders (``findChessboardCorners``,
``findCirclesGrid``) need a complete, known-size pattern in pixels; here cells may be empty (the hole, pieces
taken off), pieces are nudged, the grid size is what we want to learn, and everything is already in mm.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.pieces import COIN_MM, TILE_MM

__all__ = [
    "Lattice",
    "CellFit",
    "GridProblem",
    "GridFit",
    "positions",
    "angle_from_pieces",
    "angle_from_neighbours",
    "fit_lattice",
    "assign_cells",
    "fit_tile_grid",
    "fit_coin_grid",
    "clusters",
    "TILE_PITCH_RANGE",
    "COIN_PITCH_RANGE",
]

#: Centre-to-centre spacing of tiles laid in a grid: touching (50.8 mm) to a generous 20 mm gap.
TILE_PITCH_RANGE = (TILE_MM * 0.97, TILE_MM + 20.0)
#: Spacing of coins in a coin grid (Roll Out the Barrels, Whack-a-Dummy): touching (19.05 mm) to 40 mm.
COIN_PITCH_RANGE = (COIN_MM * 0.97, 40.0)
_DEFAULT_TILE_PITCH = TILE_MM + 6.0  # the Easy Slider rules' quarter-inch gap
_DEFAULT_COIN_PITCH = 25.4


# ----------------------------------------------------------------------------------------------------- lattice
@dataclass(frozen=True)
class Lattice:
    """A rectangular grid of cells on the table (see the module help for the conventions)."""

    origin_mm: tuple[float, float]
    angle_deg: float
    pitch_mm: tuple[float, float]

    @property
    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors (table mm) of increasing column and increasing row."""
        a = math.radians(self.angle_deg)
        return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    @property
    def mean_pitch_mm(self) -> float:
        return float(math.sqrt(self.pitch_mm[0] * self.pitch_mm[1]))

    def centre(self, col: float | np.ndarray, row: float | np.ndarray) -> np.ndarray:
        """Table position (mm) of cell centres; ``col``/``row`` may be arrays (then ``(n, 2)``)."""
        u, v = self.axes
        col = np.asarray(col, dtype=np.float64)
        row = np.asarray(row, dtype=np.float64)
        out = (np.asarray(self.origin_mm)[None, :] + (col.reshape(-1, 1) * self.pitch_mm[0]) * u
               + (row.reshape(-1, 1) * self.pitch_mm[1]) * v)
        return out[0] if col.ndim == 0 and row.ndim == 0 else out

    def coords(self, points_mm: np.ndarray) -> np.ndarray:
        """Fractional (col, row) of table points ``(n, 2)``."""
        u, v = self.axes
        d = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2) - np.asarray(self.origin_mm)
        return np.column_stack([d @ u / self.pitch_mm[0], d @ v / self.pitch_mm[1]])

    def nearest(self, points_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The nearest cell (int ``(n, 2)`` col, row) of each point and the distance to its centre (mm)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        cells = np.rint(self.coords(pts)).astype(int)
        centres = self.centre(cells[:, 0], cells[:, 1]).reshape(-1, 2)
        return cells, np.hypot(*(pts - centres).T)

    def shifted(self, col: int, row: int) -> Lattice:
        """The same grid indexed so that the old cell (col, row) is the new (0, 0)."""
        return Lattice(tuple(float(v) for v in self.centre(col, row)), self.angle_deg, self.pitch_mm)

    def turned(self, quarter_turns: int) -> Lattice:
        """The same grid with its index axes turned clockwise by ``quarter_turns`` x 90 degrees (the same cell
        centres; a board whose top is to the right of the picture is read with ``turned(-1)``...)."""
        k = quarter_turns % 4
        pitch = self.pitch_mm if k % 2 == 0 else (self.pitch_mm[1], self.pitch_mm[0])
        return Lattice(self.origin_mm, _wrap180(self.angle_deg + 90.0 * k), pitch)

    def up_deg(self) -> float:
        """The direction of decreasing row (the grid's "up"), clockwise from the table's -y, in [0, 360)."""
        return self.angle_deg % 360.0

    def to_json(self) -> dict[str, Any]:
        return {"origin_mm": [round(self.origin_mm[0], 2), round(self.origin_mm[1], 2)],
                "angle_deg": round(self.angle_deg, 2),
                "pitch_mm": [round(self.pitch_mm[0], 2), round(self.pitch_mm[1], 2)]}


def _wrap180(angle: float) -> float:
    """Angle in (-180, 180]."""
    a = math.fmod(angle, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


def _wrap45(angle: float) -> float:
    """Angle modulo 90 in (-45, 45]."""
    a = math.fmod(angle, 90.0)
    if a <= -45.0:
        a += 90.0
    elif a > 45.0:
        a -= 90.0
    return a


# ----------------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class CellFit:
    """One piece on its nearest cell. ``offset_mm`` is the distance from the cell's centre and ``off_centre``
    the same as a fraction of the (mean) pitch: 0 is dead centre, 0.5 half-way to the next cell."""

    piece: Any
    col: int
    row: int
    offset_mm: float
    off_centre: float

    @property
    def cell(self) -> tuple[int, int]:
        return (self.col, self.row)


@dataclass(frozen=True)
class GridProblem:
    """Something that keeps a grid reading from being trusted: ``kind`` is ``off-grid``, ``shared-cell``,
    ``turned`` or ``misfit``; ``cells`` the cells concerned (nearest cells for off-grid pieces)."""

    kind: str
    message: str
    cells: tuple[tuple[int, int], ...] = ()
    pieces: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "cells": [list(c) for c in self.cells]}


@dataclass
class GridFit:
    """Pieces assigned to the cells of a fitted lattice.

    ``placed``: pieces within ``max_off_centre`` of a cell centre (a cell may hold several: see ``problems``);
    ``off_grid``: the others, with their nearest cell; ``rms_mm``: RMS distance of the placed pieces to their
    cell centres; ``problems``: what was found wrong (empty when the reading can be trusted).
    """

    lattice: Lattice
    placed: list[CellFit]
    off_grid: list[CellFit]
    problems: list[GridProblem]
    rms_mm: float

    def at(self, col: int, row: int) -> list[CellFit]:
        """Pieces placed on a cell."""
        return [c for c in self.placed if c.col == col and c.row == row]

    def occupied(self) -> dict[tuple[int, int], list[CellFit]]:
        out: dict[tuple[int, int], list[CellFit]] = {}
        for c in self.placed:
            out.setdefault(c.cell, []).append(c)
        return out

    def bounds(self) -> tuple[int, int, int, int]:
        """``(col_min, row_min, col_max, row_max)`` of the placed pieces (zeros when none)."""
        if not self.placed:
            return (0, 0, 0, 0)
        cols = [c.col for c in self.placed]
        rows = [c.row for c in self.placed]
        return (min(cols), min(rows), max(cols), max(rows))

    @property
    def size(self) -> tuple[int, int]:
        """(columns, rows) spanned by the placed pieces."""
        c0, r0, c1, r1 = self.bounds()
        return (c1 - c0 + 1, r1 - r0 + 1) if self.placed else (0, 0)

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem_cells(self) -> set[tuple[int, int]]:
        return {c for p in self.problems for c in p.cells}

    def reindexed(self, lattice: Lattice, max_off_centre: float = 0.3, max_turn_deg: float | None = None) -> GridFit:
        """The same pieces assigned to ``lattice`` (e.g. turned or shifted to the game's orientation)."""
        pieces = [c.piece for c in self.placed] + [c.piece for c in self.off_grid]
        return assign_cells(pieces, lattice, max_off_centre=max_off_centre, max_turn_deg=max_turn_deg,
                            normalise=False)

    def to_json(self) -> dict[str, Any]:
        return {"lattice": self.lattice.to_json(), "rms_mm": round(self.rms_mm, 2),
                "cells": [{"col": c.col, "row": c.row, "offset_mm": round(c.offset_mm, 2),
                           "off_centre": round(c.off_centre, 3)} for c in self.placed],
                "problems": [p.to_json() for p in self.problems]}


# ----------------------------------------------------------------------------------------------------- helpers
def positions(pieces: Sequence[Any]) -> np.ndarray:
    """``(n, 2)`` table positions (mm) of pieces with ``x_mm``/``y_mm``."""
    return np.array([[float(p.x_mm), float(p.y_mm)] for p in pieces], dtype=np.float64).reshape(-1, 2)


def _circular_mean(angles_rad: np.ndarray, weights: np.ndarray | None = None) -> tuple[float, float]:
    """Mean direction (radians) and resultant length (0..1: 1 = all agree)."""
    w = np.ones(len(angles_rad)) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(angles_rad) == 0 or w.sum() <= 0:
        return 0.0, 0.0
    c = float(np.sum(w * np.cos(angles_rad)) / w.sum())
    s = float(np.sum(w * np.sin(angles_rad)) / w.sum())
    return math.atan2(s, c), math.hypot(c, s)


def angle_from_pieces(angles_deg: Iterable[float], weights: Iterable[float] | None = None) -> tuple[float, float]:
    """The common rotation modulo 90 degrees of square pieces (in (-45, 45]) and its spread in degrees
    (circular standard deviation; 0 = all alike)."""
    a = np.radians(np.asarray(list(angles_deg), dtype=np.float64)) * 4.0
    w = None if weights is None else np.asarray(list(weights), dtype=np.float64)
    mean, r = _circular_mean(a, w)
    spread = math.degrees(math.sqrt(max(-2.0 * math.log(max(r, 1e-12)), 0.0))) / 4.0
    return _wrap45(math.degrees(mean) / 4.0), spread


def _neighbour_steps(points: np.ndarray, pitch_range: tuple[float, float]) -> np.ndarray:
    """Vectors from each point to the others at a distance within ``pitch_range`` (each pair once)."""
    if len(points) < 2:
        return np.zeros((0, 2))
    d = points[None, :, :] - points[:, None, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    lo, hi = pitch_range
    i, j = np.nonzero(np.triu((dist >= lo) & (dist <= hi), 1))
    return d[i, j]


def angle_from_neighbours(points_mm: np.ndarray, pitch_range: tuple[float, float]) -> tuple[float, float, int]:
    """Grid rotation modulo 90 degrees (in (-45, 45]) from the steps between neighbouring points, its spread
    (degrees) and the number of steps used. Steps as long as a diagonal (sqrt 2 pitches) fall outside any
    sensible ``pitch_range``, so only orthogonal neighbours vote."""
    steps = _neighbour_steps(np.asarray(points_mm, dtype=np.float64).reshape(-1, 2), pitch_range)
    if len(steps) == 0:
        return 0.0, 90.0, 0
    angles = np.degrees(np.arctan2(steps[:, 1], steps[:, 0]))
    mean, spread = angle_from_pieces(angles)
    return mean, spread, len(steps)


def _axis_pitch(steps: np.ndarray, u: np.ndarray, v: np.ndarray, pitch_range: tuple[float, float]) -> float | None:
    """Median length of the steps along ``u`` (within 15 degrees), None when there are none."""
    if len(steps) == 0:
        return None
    a = steps @ u
    b = steps @ v
    along = np.abs(b) <= 0.27 * np.abs(a)
    lengths = np.abs(a[along])
    lengths = lengths[(lengths >= pitch_range[0]) & (lengths <= pitch_range[1])]
    return float(np.median(lengths)) if len(lengths) else None


def _phase(points: np.ndarray, lattice: Lattice) -> Lattice:
    """The lattice moved so that cell centres best match the points (circular mean of fractional cells)."""
    s = lattice.coords(points)
    frac = s - np.rint(s)
    shift = []
    for k in range(2):
        mean, _ = _circular_mean(2 * math.pi * frac[:, k])
        shift.append(mean / (2 * math.pi))
    origin = lattice.centre(shift[0], shift[1])
    return Lattice((float(origin[0]), float(origin[1])), lattice.angle_deg, lattice.pitch_mm)


def _refine(points: np.ndarray, lattice: Lattice, inlier: float) -> Lattice:
    """Least-squares lattice over the points' nearest cells (outliers beyond ``inlier`` pitches left out)."""
    cells, offsets = lattice.nearest(points)
    keep = offsets <= inlier * lattice.mean_pitch_mm
    if keep.sum() < 2:
        return lattice
    pts, idx = points[keep], cells[keep].astype(np.float64)
    cols_vary = len(np.unique(idx[:, 0])) > 1
    rows_vary = len(np.unique(idx[:, 1])) > 1
    u, v = lattice.axes
    pu, pv = lattice.pitch_mm
    angle = lattice.angle_deg
    if cols_vary and rows_vary and len(pts) >= 3:
        design = np.column_stack([np.ones(len(pts)), idx[:, 0], idx[:, 1]])
        coef, *_ = np.linalg.lstsq(design, pts, rcond=None)
        a_vec, b_vec = coef[1], coef[2]
        # make it square again: one rotation (the mean of both axes' directions), two pitches
        ta = math.atan2(a_vec[1], a_vec[0])
        tb = math.atan2(b_vec[1], b_vec[0]) - math.pi / 2
        mean, _ = _circular_mean(np.array([ta, tb]), np.array([np.linalg.norm(a_vec), np.linalg.norm(b_vec)]))
        angle = _wrap180(math.degrees(mean))
        u = np.array([math.cos(mean), math.sin(mean)])
        v = np.array([-math.sin(mean), math.cos(mean)])
        pu, pv = float(np.linalg.norm(a_vec)), float(np.linalg.norm(b_vec))
    elif cols_vary:
        design = np.column_stack([np.ones(len(pts)), idx[:, 0]])
        coef, *_ = np.linalg.lstsq(design, pts, rcond=None)
        a_vec = coef[1]
        t = math.atan2(a_vec[1], a_vec[0])
        angle = _wrap180(math.degrees(t))
        u = np.array([math.cos(t), math.sin(t)])
        v = np.array([-math.sin(t), math.cos(t)])
        pu = float(np.linalg.norm(a_vec))
    elif rows_vary:
        design = np.column_stack([np.ones(len(pts)), idx[:, 1]])
        coef, *_ = np.linalg.lstsq(design, pts, rcond=None)
        b_vec = coef[1]
        t = math.atan2(b_vec[1], b_vec[0]) - math.pi / 2
        angle = _wrap180(math.degrees(t))
        u = np.array([math.cos(t), math.sin(t)])
        v = np.array([-math.sin(t), math.cos(t)])
        pv = float(np.linalg.norm(b_vec))
    origin = np.mean(pts - (idx[:, :1] * pu) * u - (idx[:, 1:] * pv) * v, axis=0)
    return Lattice((float(origin[0]), float(origin[1])), angle, (pu, pv))


def _with_origin(points: np.ndarray, lattice: Lattice, inlier: float) -> Lattice:
    """The lattice moved (rotation and pitch kept) to the least-squares origin over the points' cells."""
    cells, offsets = lattice.nearest(points)
    keep = offsets <= inlier * lattice.mean_pitch_mm
    if not keep.any():
        return lattice
    centres = lattice.centre(cells[keep, 0], cells[keep, 1]).reshape(-1, 2)
    shift = np.mean(points[keep] - centres, axis=0)
    return Lattice((lattice.origin_mm[0] + float(shift[0]), lattice.origin_mm[1] + float(shift[1])),
                   lattice.angle_deg, lattice.pitch_mm)


# ----------------------------------------------------------------------------------------------------- fitting
def fit_lattice(
    points_mm: np.ndarray,
    *,
    angle_deg: float | None = None,
    pitch_mm: float | tuple[float, float] | None = None,
    pitch_range: tuple[float, float] = TILE_PITCH_RANGE,
    default_pitch_mm: float = _DEFAULT_TILE_PITCH,
    refine: bool = True,
    inlier: float = 0.3,
) -> Lattice:
    """The lattice through ``points_mm`` (``(n, 2)`` table mm).

    ``angle_deg``: the rotation modulo 90 when known (e.g. from the tiles' angles), else measured from
    neighbour steps. ``pitch_mm``: fixed spacing (one value or (columns, rows)), else measured within
    ``pitch_range`` (mm), falling back to ``default_pitch_mm`` along an axis with no neighbours.
    ``refine``: least-squares refinement (rotation and pitch too, unless given); ``inlier``: pieces farther
    than this fraction of the pitch from their cell are left out of the refinement. Cell (0, 0) is the first
    point's cell; the returned angle is in (-45, 45] (turn it with :meth:`Lattice.turned` to orient a board).
    """
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        raise ValueError("no points to fit a grid to")
    steps = _neighbour_steps(pts, pitch_range)
    if angle_deg is None:
        angle, _, _ = angle_from_neighbours(pts, pitch_range) if len(steps) else (0.0, 90.0, 0)
    else:
        angle = float(angle_deg)
    fixed_pitch = pitch_mm is not None
    if fixed_pitch:
        pitch = (float(pitch_mm), float(pitch_mm)) if np.isscalar(pitch_mm) else tuple(float(p) for p in pitch_mm)
    else:
        probe = Lattice((0.0, 0.0), angle, (1.0, 1.0))
        u, v = probe.axes
        pu = _axis_pitch(steps, u, v, pitch_range)
        pv = _axis_pitch(steps, v, u, pitch_range)
        pitch = (pu or pv or default_pitch_mm, pv or pu or default_pitch_mm)
    lattice = _phase(pts, Lattice((float(pts[0, 0]), float(pts[0, 1])), angle, pitch))  # type: ignore[arg-type]
    if refine and len(pts) >= 2:
        for _ in range(4):
            before = lattice.nearest(pts)[0]
            new = _refine(pts, lattice, inlier)
            if fixed_pitch:
                new = _with_origin(pts, Lattice(new.origin_mm, new.angle_deg, lattice.pitch_mm), inlier)
            lattice = new
            if np.array_equal(before, lattice.nearest(pts)[0]):
                break
    # angle in (-45, 45] (a quarter turn only re-indexes the cells), cell (0, 0) at the first point
    turns = round((lattice.angle_deg - _wrap45(lattice.angle_deg)) / 90.0)
    if turns:
        lattice = lattice.turned(-turns)
    first = lattice.nearest(pts[:1])[0][0]
    return lattice.shifted(int(first[0]), int(first[1]))


def assign_cells(
    pieces: Sequence[Any],
    lattice: Lattice,
    *,
    max_off_centre: float = 0.3,
    max_turn_deg: float | None = None,
    max_rms_fraction: float = 0.12,
    normalise: bool = True,
) -> GridFit:
    """Put each piece on its nearest cell of ``lattice`` and report problems (see the module help).

    ``max_off_centre``: farther than this fraction of the pitch from every cell centre is ``off-grid``;
    ``max_turn_deg``: square pieces turned more than this from the grid are ``turned`` (None: not checked);
    ``max_rms_fraction``: an RMS offset above this fraction of the pitch is a ``misfit``; ``normalise``:
    re-index so that the placed pieces' top-left cell is (0, 0).
    """
    pts = positions(pieces)
    pitch = lattice.mean_pitch_mm
    if len(pts):
        cells, offsets = lattice.nearest(pts)
    else:
        cells, offsets = np.zeros((0, 2), int), np.zeros(0)
    on = offsets <= max_off_centre * pitch
    if normalise and on.any():
        c0, r0 = cells[on].min(axis=0)
        lattice = lattice.shifted(int(c0), int(r0))
        cells = cells - np.array([c0, r0])
    placed, off = [], []
    for piece, cell, offset, inside in zip(pieces, cells, offsets, on, strict=True):
        fit = CellFit(piece, int(cell[0]), int(cell[1]), float(offset), float(offset / pitch))
        (placed if inside else off).append(fit)
    problems: list[GridProblem] = []
    for fit in off:
        problems.append(GridProblem(
            "off-grid", f"a {_what(fit.piece)} lies {fit.offset_mm:.0f} mm from the nearest cell centre "
            f"(column {fit.col + 1}, row {fit.row + 1}): it is between cells", (fit.cell,), (fit.piece,)))
    by_cell: dict[tuple[int, int], list[CellFit]] = {}
    for fit in placed:
        by_cell.setdefault(fit.cell, []).append(fit)
    for cell, fits in sorted(by_cell.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if len(fits) > 1:
            what = " and ".join(_what(f.piece) for f in fits)
            problems.append(GridProblem("shared-cell", f"{what} are both on column {cell[0] + 1}, row {cell[1] + 1}",
                                        (cell,), tuple(f.piece for f in fits)))
    if max_turn_deg is not None:
        for fit in placed:
            turn = abs(_wrap45(float(getattr(fit.piece, "angle_deg", 0.0)) - lattice.angle_deg))
            if turn > max_turn_deg:
                problems.append(GridProblem("turned", f"the {_what(fit.piece)} on column {fit.col + 1}, row "
                                            f"{fit.row + 1} is turned {turn:.0f} degrees from the grid",
                                            (fit.cell,), (fit.piece,)))
    rms = float(math.sqrt(np.mean([f.offset_mm ** 2 for f in placed]))) if placed else 0.0
    if placed and rms > max_rms_fraction * pitch:
        problems.append(GridProblem("misfit", f"the pieces do not lie on a regular grid (they are {rms:.0f} mm "
                                    "from the cell centres on average)", tuple(sorted(by_cell)), ()))
    return GridFit(lattice, placed, off, problems, rms)


def _what(piece: Any) -> str:
    label = getattr(piece, "label", None)
    if isinstance(label, str) and label:
        return label if not label.startswith("back") else "tile"
    kind = getattr(piece, "kind", None)
    return str(getattr(kind, "value", kind or "piece"))


def fit_tile_grid(
    tiles: Sequence[Any],
    *,
    pitch_range: tuple[float, float] = TILE_PITCH_RANGE,
    pitch_mm: float | tuple[float, float] | None = None,
    max_off_centre: float = 0.3,
    max_turn_deg: float = 20.0,
) -> GridFit:
    """Fit a grid to tiles (their positions and their own angles) and assign each to a cell.

    The rotation comes from the tiles' angles (modulo 90) when they agree, else from neighbour steps; cell
    (0, 0) is the top-left cell of the tiles' bounding box in the lattice's frame (angle in (-45, 45]).
    """
    if not tiles:
        raise ValueError("no tiles to fit a grid to")
    pts = positions(tiles)
    angle, spread = angle_from_pieces([float(t.angle_deg) for t in tiles],
                                      [max(float(getattr(t, "confidence", 1.0)), 0.05) for t in tiles])
    if spread > 8.0 and len(tiles) >= 3:
        measured, m_spread, n = angle_from_neighbours(pts, pitch_range)
        if n:
            angle = measured
    lattice = fit_lattice(pts, angle_deg=angle, pitch_mm=pitch_mm, pitch_range=pitch_range,
                          default_pitch_mm=_DEFAULT_TILE_PITCH)
    return assign_cells(tiles, lattice, max_off_centre=max_off_centre, max_turn_deg=max_turn_deg)


def fit_coin_grid(
    coins: Sequence[Any],
    *,
    pitch_range: tuple[float, float] = COIN_PITCH_RANGE,
    pitch_mm: float | tuple[float, float] | None = None,
    max_off_centre: float = 0.3,
) -> GridFit:
    """Fit a grid to coins (round: the rotation comes from neighbour steps alone) and assign each to a cell."""
    if not coins:
        raise ValueError("no coins to fit a grid to")
    lattice = fit_lattice(positions(coins), pitch_mm=pitch_mm, pitch_range=pitch_range,
                          default_pitch_mm=_DEFAULT_COIN_PITCH)
    return assign_cells(coins, lattice, max_off_centre=max_off_centre)


def clusters(pieces: Sequence[Any], link_mm: float) -> list[list[Any]]:
    """Groups of pieces linked by chains of neighbours closer than ``link_mm`` (single linkage), largest first;
    used to tell several boards in one frame apart."""
    pts = positions(pieces)
    n = len(pts)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if n > 1:
        d = np.hypot(*(pts[None, :, :] - pts[:, None, :]).transpose(2, 0, 1))
        for i, j in zip(*np.nonzero(np.triu(d <= link_mm, 1)), strict=True):
            ri, rj = root(int(i)), root(int(j))
            if ri != rj:
                parent[ri] = rj
    groups: dict[int, list[Any]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(pieces[i])
    return sorted(groups.values(), key=len, reverse=True)
