"""vision.grid and vision.grid_games: lattices fitted to noisy piece positions, every layout, any rotation.

Piece lists come from the scene renderer's layouts turned into detections with noise (``test_reading.seen``:
1.5 mm and 1.5 degree jitter unless a test says otherwise), so no frame is rendered here.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from tablescene import coin_grid, easy_slider_layout, tile_block
from tablescene.layouts import GridGeometry
from tablescene.scene import CoinPiece, DiePiece, PawnPiece, TilePiece
from test_reading import seen, solved_board

from rules.pieces import SUITS, TILE_MM, Kind
from vision.grid import (
    Lattice,
    angle_from_pieces,
    assign_cells,
    clusters,
    fit_coin_grid,
    fit_lattice,
    fit_tile_grid,
)
from vision.grid_games import (
    find_catwalk,
    find_coin_grid,
    find_easy_slider_boards,
    find_mirror_grids,
    find_tile_block,
    find_tile_grid,
    find_triangle,
)
from vision.pieces import DetectedPiece


def tiles_grid(cols: int, rows: int, gap=(6.0, 6.0), origin=(40.0, 60.0), holes=()) -> list[TilePiece]:
    out = []
    for r in range(rows):
        for c in range(cols):
            if (c, r) in holes:
                continue
            x = origin[0] + c * (TILE_MM + gap[0]) + TILE_MM / 2
            y = origin[1] + r * (TILE_MM + gap[1]) + TILE_MM / 2
            out.append(TilePiece(SUITS[(c + r) % 4], (c * rows + r) % 6, "face", x, y, 0.0))
    return out


# ----------------------------------------------------------------------------------------------- the lattice
def test_lattice_round_trips_and_turns():
    lat = Lattice((100.0, 50.0), 20.0, (57.0, 58.0))
    pts = lat.centre(np.array([0, 3, -2]), np.array([0, 1, 4]))
    assert np.allclose(lat.coords(pts), [[0, 0], [3, 1], [-2, 4]])
    cells, off = lat.nearest(pts + 3.0)
    assert cells.tolist() == [[0, 0], [3, 1], [-2, 4]] and np.allclose(off, math.hypot(3, 3))
    turned = lat.turned(1)
    assert np.allclose(turned.centre(1, 0), lat.centre(0, 1))  # turned a quarter clockwise: old "right" is "up"
    assert turned.turned(3) == lat
    shifted = lat.shifted(2, 1)
    assert np.allclose(shifted.centre(0, 0), lat.centre(2, 1))


def test_angle_from_pieces_is_modulo_90_and_robust_to_wrapping():
    angle, spread = angle_from_pieces([44.0, -44.0, 45.5, 134.0])
    assert abs(abs(angle) - 45.0) < 1.0 and spread < 1.5
    angle, spread = angle_from_pieces([0.0, 30.0, 60.0])
    assert spread > 10.0


@pytest.mark.parametrize("rotate", [0.0, 13.0, 44.0, -44.0, 90.0, 200.0])
@pytest.mark.parametrize("gap", [(1.0, 1.0), (6.0, 6.0), (14.0, 4.0)])
def test_tile_grid_at_any_rotation_and_gap_with_a_hole(rotate, gap):
    truth = tiles_grid(5, 5, gap, holes={(4, 4)})
    fit = fit_tile_grid(seen(truth, 1, rotate_deg=rotate))
    assert fit.ok, fit.problems
    assert fit.size == (5, 5) and len(fit.placed) == 24
    assert sorted(fit.lattice.pitch_mm) == pytest.approx(sorted(TILE_MM + g for g in gap), abs=1.0)
    assert abs(((fit.lattice.angle_deg - rotate + 45) % 90) - 45) < 1.0
    # neighbours stay neighbours: the four true neighbours of the middle tile are one cell away
    middle = min(fit.placed, key=lambda c: math.hypot(c.piece.x_mm - 150, c.piece.y_mm - 210))
    near = [c for c in fit.placed if 0 < math.hypot(c.piece.x_mm - middle.piece.x_mm,
                                                    c.piece.y_mm - middle.piece.y_mm) < TILE_MM + 16]
    assert all(abs(c.col - middle.col) + abs(c.row - middle.row) == 1 for c in near)
    assert max(c.off_centre for c in fit.placed) < 0.12


def test_nudged_piece_stays_on_its_cell_and_one_between_cells_is_reported():
    truth = tiles_grid(4, 4)
    truth[5] = truth[5].moved(x_mm=truth[5].x_mm + 9.0)
    fit = fit_tile_grid(seen(truth, 2, jitter_mm=0.5))
    assert fit.ok
    nudged = next(c for c in fit.placed
                  if abs(c.piece.x_mm - truth[5].x_mm) < 3 and abs(c.piece.y_mm - truth[5].y_mm) < 3)
    assert 0.1 < nudged.off_centre < 0.25
    truth[5] = truth[5].moved(x_mm=truth[5].x_mm + 20.0)  # 29 mm: half-way to the next cell
    fit = fit_tile_grid(seen(truth, 2, jitter_mm=0.5))
    assert [p.kind for p in fit.problems] == ["off-grid"]
    assert len(fit.off_grid) == 1 and fit.off_grid[0].off_centre > 0.3


def test_two_on_one_cell_turned_tile_and_misfit_are_problems():
    truth = tiles_grid(3, 3)
    truth.append(truth[4].moved(x_mm=truth[4].x_mm + 4.0))
    fit = fit_tile_grid(seen(truth, 3, jitter_mm=0.3))
    assert [p.kind for p in fit.problems] == ["shared-cell"]
    assert fit.problems[0].cells == ((1, 1),)
    truth = tiles_grid(3, 3)
    truth[2] = truth[2].moved(angle_deg=35.0)
    fit = fit_tile_grid(seen(truth, 4, turn_deg=0.5))
    assert [p.kind for p in fit.problems] == ["turned"]
    rng = np.random.default_rng(5)
    scatter = [DetectedPiece(Kind.TILE, float(x), float(y), 0.0) for x, y in rng.uniform(0, 400, (12, 2))]
    fit = fit_tile_grid(scatter)
    assert any(p.kind in ("misfit", "off-grid", "shared-cell") for p in fit.problems)


def test_fixed_pitch_and_single_piece():
    lat = fit_lattice(np.array([[10.0, 10.0]]), angle_deg=0.0, pitch_mm=25.4)
    assert lat.origin_mm == (10.0, 10.0) and lat.pitch_mm == (25.4, 25.4)
    fit = assign_cells([DetectedPiece(Kind.COIN, 10.0, 10.0)], lat)
    assert fit.ok and fit.placed[0].cell == (0, 0)


@pytest.mark.parametrize("rotate", [0.0, 31.0, -70.0])
def test_coin_grid_4x6_any_rotation(rotate):
    values = [(SUITS[i % 4], i % 6) for i in range(24)]
    coins = coin_grid(values, (60.0, 50.0), 4, rng=1)
    fit = fit_coin_grid(seen(coins, 6, rotate_deg=rotate, jitter_mm=1.0))
    assert fit.ok and len(fit.placed) == 24 and sorted(fit.size) == [4, 6]
    assert fit.lattice.pitch_mm == pytest.approx((25.4, 25.4), abs=0.6)


def test_clusters_split_boards():
    a = tiles_grid(3, 3, origin=(0.0, 0.0))
    b = tiles_grid(2, 2, origin=(400.0, 0.0))
    groups = clusters(seen(a + b, 7), 1.5 * TILE_MM)
    assert [len(g) for g in groups] == [9, 4]


# ----------------------------------------------------------------------------------------------- Easy Slider
@pytest.mark.parametrize("rotate", [0.0, 45.0, 90.0, 180.0, 250.0])
def test_easy_slider_board_oriented_by_pawns_and_coins(rotate):
    pieces = easy_slider_layout(solved_board(), rng=np.random.default_rng(1))
    [board] = find_easy_slider_boards(seen(pieces, 8, rotate_deg=rotate))
    assert board.ambiguous is None and not board.problems
    assert [p.suit.value for p in board.pawns] == ["moons", "suns", "arms", "crowns"]
    assert [c.rank for c in board.coins] == [2, 4, 5, 1, 3]
    top_left = board.cells[(0, 0)][0].piece
    assert (top_left.suit.value, top_left.rank) == ("moons", 2)
    assert (4, 4) not in board.cells and len(board.cells) == 24


def test_easy_slider_window_from_pawns_and_coins_when_an_edge_is_hidden():
    pieces = easy_slider_layout(solved_board(), rng=np.random.default_rng(2))
    first_column = [i for i, p in enumerate(pieces[:24]) if i % 5 == 0]  # tiles are in reading order (hole last)
    detections = seen(pieces, 9, rotate_deg=-30.0, missing=first_column)
    [board] = find_easy_slider_boards(detections)
    assert board.ambiguous is None
    assert all((0, r) not in board.cells for r in range(5)) and (1, 0) in board.cells
    # without pawns, coins and readable faces the window cannot be placed
    bare = [d for d in detections if d.kind is Kind.TILE]
    bare = [DetectedPiece(Kind.TILE, d.x_mm, d.y_mm, d.angle_deg % 90, side="face", uncertain=True) for d in bare]
    [board] = find_easy_slider_boards(bare)
    assert board.ambiguous is not None


def test_easy_slider_boards_in_reading_order_and_between_tiles():
    state = solved_board()
    origins = [(500.0, 60.0), (40.0, 80.0), (60.0, 480.0)]
    pieces = []
    for k, origin in enumerate(origins):
        pieces += easy_slider_layout(state, origin, rng=np.random.default_rng(k))
    boards = find_easy_slider_boards(seen(pieces, 10))
    assert [round(b.centre_mm[0] / 100) for b in boards] == [2, 6, 2]
    one = easy_slider_layout(state, rng=np.random.default_rng(4))
    one[19] = one[19].moved(y_mm=one[19].y_mm + 28.0)  # e2 half-way into the hole on e1
    [board] = find_easy_slider_boards(seen(one, 11))
    assert len(board.between) == 1 and set(board.between[0][1]) == {(4, 3), (4, 4)}


# ----------------------------------------------------------------------------------------------- tile blocks
@pytest.mark.parametrize("rotate", [0.0, 20.0, -40.0, 95.0])
def test_tile_block_2x2_with_coins_on_cells(rotate):
    coins = {(c, r): ("arms", 1) for c in range(4) for r in range(4) if (c, r) != (3, 3)}
    pieces = tile_block(2, (60.0, 60.0), coins, rng=2)
    block = find_tile_block(seen(pieces, 12, rotate_deg=rotate, jitter_mm=0.8))
    assert not block.problems
    # a square block is read with the side nearest the picture's top as its top: turned 95 degrees, the
    # true top-left cell is now top-right
    want = coins if rotate < 45 else {(3 - r, c): v for (c, r), v in coins.items()}
    assert block.tile_spaces == (2, 2) and sorted(block.coins) == sorted(want)


def test_tile_block_4x4_with_a_shifted_tile_and_a_coin_between_cells():
    coins = {(c, r): ("suns", 1) for c in range(2, 8) for r in range(2, 6)}
    pieces = tile_block(4, (30.0, 30.0), coins, gap_mm=1.0, rng=3)
    # move the top-right tile (with no coins on it) one tile-space right, off the block
    tr = pieces[3]
    pieces[3] = tr.moved(x_mm=tr.x_mm + TILE_MM + 1.0)
    block = find_tile_block(seen(pieces, 13, jitter_mm=0.8))
    assert not block.problems and block.tile_spaces == (5, 4) and len(block.tiles) == 16
    assert (3, 0) not in block.tiles and (4, 0) in block.tiles
    assert sorted(block.coins) == sorted(coins)
    coin = pieces[20]
    pieces[20] = coin.moved(x_mm=coin.x_mm + TILE_MM / 4)
    block = find_tile_block(seen(pieces, 13, jitter_mm=0.3))
    assert len(block.between) == 1 and any(p.kind == "off-grid" for p in block.problems)


# ----------------------------------------------------------------------------------------------- coin grids
def test_coin_grid_with_the_die_on_a_coin_and_orientation():
    values = [(SUITS[i % 4], i % 6) for i in range(24)]
    coins = coin_grid(values, (60.0, 50.0), 4, rng=3)
    die = DiePiece("suns", 3, coins[9].x_mm, coins[9].y_mm, 5.0)
    layout = find_coin_grid(seen(coins + [die], 14, rotate_deg=80.0))
    assert layout.ambiguous is None and not layout.problems
    assert len(layout.cells) == 24
    assert [d.cell for d in layout.dice] == [(1, 2)]
    # turned 80 degrees: the values read from the right, so that side is the grid's top
    assert layout.cells[(0, 0)][0].piece.rank == 0
    partial = find_coin_grid(seen(coins[:12], 15))
    assert partial.ambiguous is not None  # 4x3 coins in a 4x6 grid: where its edges lie is not known


@pytest.mark.parametrize("sure", [(0, 5), (2, 7, 21)])
def test_coin_grid_fitted_to_every_coin_when_few_are_read_surely(sure):
    """Face-down coins whose faces are unclear (seen on rendered classic and bold Whack-a-Dummy frames): the
    few sure coins alone gave a lattice turned 45 degrees; the coins are there all the same and place the grid."""
    coins = coin_grid([(SUITS[i % 4], i % 6) for i in range(24)], (60.0, 50.0), 4, side="suit", rng=5)
    pieces = seen(coins, 17, rotate_deg=12.0, jitter_mm=1.0, uncertain=[i for i in range(24) if i not in sure])
    layout = find_coin_grid(pieces)
    assert layout.ambiguous is None and len(layout.cells) == 24
    for (c, r), fits in layout.cells.items():
        assert fits[0].piece is pieces[r * 4 + c]


def test_coin_grid_orientation_from_every_coin_when_the_sure_ones_fit_either_way():
    """Bold Whack-a-Dummy (bench seed 100): the coins read surely fill a 4x4 patch and their values read turned
    60 degrees; the two rows of unclear face-down coins below make the grid 4 wide and 6 high, so only that
    orientation holds them all (the sure ones alone: turned a quarter, and where its edges lie unknown)."""
    from dataclasses import replace

    coins = coin_grid([(SUITS[i % 4], i % 6) for i in range(24)], (60.0, 50.0), 4, side="suit", rng=6)
    pieces = seen(coins, 18, jitter_mm=0.3, uncertain=range(16, 24))
    for i, rank in ((0, 4), (9, 0)):  # two values read, their faces pointing up-right
        pieces[i] = replace(pieces[i], side="value", rank=rank, angle_deg=60.0)
    layout = find_coin_grid(pieces)
    assert layout.ambiguous is None and len(layout.cells) == 24
    assert all(fits[0].piece is pieces[r * 4 + c] for (c, r), fits in layout.cells.items())


# ----------------------------------------------------------------------------------------------- Slide Jam
@pytest.mark.parametrize("rotate", [0.0, 90.0, 180.0, -90.0])
def test_slide_jam_grid_oriented_by_the_faces(rotate):
    truth = tiles_grid(4, 6, gap=(4.0, 4.0))
    layout = find_tile_grid(seen(truth, 16, rotate_deg=rotate))
    assert layout.ambiguous is None and not layout.problems
    first = layout.cells[(0, 0)][0].piece
    assert (first.suit, first.rank) == (truth[0].suit, truth[0].rank)
    packed = [t for t in truth if t.x_mm < 150 and t.y_mm > 150]
    layout = find_tile_grid(seen(packed, 17, rotate_deg=rotate))
    assert layout.ambiguous is not None and len(layout.cells) == len(packed)


# ----------------------------------------------------------------------------------------------- Magic Mirror
def test_mirror_grids_split_at_the_mirror():
    geometry = GridGeometry((40.0, 40.0), 5.0)
    pieces = []
    rows_kept = {0: 4, 1: 4, 2: 4, 3: 4, 4: 3, 5: 1}  # tiles per row (columns slid toward the mirror)
    for r in range(6):
        for c in range(4):
            x, y = geometry.centre(c, r)
            y += 40.0 if r >= 3 else 0.0
            keep = c < rows_kept[r] if r >= 3 else c < 4
            if keep:
                pieces.append(TilePiece(SUITS[c], r, "face", x, y, 0.0))
    # keep both sides equal: drop tiles from the top grid's back rows (columns slide toward the mirror)
    drop = [(0, 0), (1, 0), (2, 0), (3, 0)]
    geometry_drop = {geometry.centre(c, r) for c, r in drop}
    pieces = [p for p in pieces if (p.x_mm, p.y_mm) not in geometry_drop]
    layout = find_mirror_grids(seen(pieces, 18, rotate_deg=-6.0))
    assert not layout.problems and layout.ambiguous is None
    assert sorted(layout.cells) == sorted(
        [(c, r) for r in (1, 2) for c in range(4)] + [(c, 3) for c in range(4)] + [(c, 4) for c in range(3)]
        + [(0, 5)])
    assert layout.mirror_gap_mm == pytest.approx(40.0, abs=3.0)


@pytest.mark.parametrize("gap", [24.0, 30.0])
@pytest.mark.parametrize("rotate", [0.0, 7.0])
def test_mirror_grids_whatever_the_mirrors_gap_and_the_tiles_read(gap, rotate):
    """One lattice cannot fit both sides' rows when the mirror's gap is part of a pitch (30 mm of 60.8: the
    rows of one side lie half a pitch off the other's). It gave the columns only, but its own problems were
    kept: with one of 20 tiles unread (fitted without it), the lattice took the other phase and called six tiles
    "between cells" and the board "not a regular grid". Rows come from the tiles' rows, whatever the gap."""
    geometry = GridGeometry((40.0, 40.0), 5.0)
    holes = {(0, 0), (0, 1), (1, 5), (1, 4)}  # columns slid toward the mirror, 10 tiles a side
    pieces = []
    for r in range(6):
        for c in range(4):
            if (c, r) not in holes:
                x, y = geometry.centre(c, r)
                pieces.append(TilePiece(SUITS[c], r, "face", x, y + (gap if r >= 3 else 0.0), 0.0))
    truth = sorted((c, r) for r in range(6) for c in range(4) if (c, r) not in holes)
    for unread, noise in itertools.product((None, 5, 11), range(10)):  # before: 24 of 60 boards misfit at 30 mm
        shown = seen(pieces, noise, rotate_deg=rotate, jitter_mm=1.0)
        if unread is not None:
            shown[unread] = DetectedPiece(Kind.TILE, shown[unread].x_mm, shown[unread].y_mm, shown[unread].angle_deg,
                                          uncertain=True, reason="face unclear")
        layout = find_mirror_grids(shown)
        assert not layout.problems and layout.ambiguous is None, (unread, layout.problems)
        assert sorted(layout.cells) == truth


# ----------------------------------------------------------------------------------------------- Catwalk
def test_catwalk_cells_north_up():
    cells = [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0), (2, -1), (3, -1)]
    pitch = TILE_MM + 3.0
    pieces = [TilePiece(SUITS[i % 4], i % 6, "face", 100 + x * pitch, 300 - y * pitch, 0.0)
              for i, (x, y) in enumerate(cells)]
    layout = find_catwalk(seen(pieces, 19, rotate_deg=3.0))
    assert not layout.problems
    got = {cell: fits[0].piece.rank for cell, fits in layout.cells.items()}
    want = {(x, y + 1): i % 6 for i, (x, y) in enumerate(cells)}  # shifted so the lowest row is y = 0
    assert got == want


# ----------------------------------------------------------------------------------------------- Trampo-Land
@pytest.mark.parametrize("rotate", [0.0, 15.0, -20.0])
def test_triangle_of_trampolines(rotate):
    pieces = []
    for r in range(5):
        for i in range(r + 1):
            pieces.append(CoinPiece("suns", 1, "value", 150 + (i - r / 2) * 28.0, 80 + r * 25.0, 0.0))
    pieces.append(PawnPiece("arms", pieces[4].x_mm, pieces[4].y_mm, 0.0))
    layout = find_triangle(seen(pieces, 20, rotate_deg=rotate, jitter_mm=1.0))
    assert not layout.problems and sorted(layout.spots) == list(range(1, 16))
    assert [p.kind for p in layout.spots[5]] == [Kind.COIN, Kind.PAWN]
    assert layout.rms_mm < 2.0


def test_triangle_linked_through_unclear_pieces():
    """Rendered Trampo-Land frames: the pieces read surely (the apex's row, the base rows) lie apart, linked only
    through unclear kids and figures between them; every piece still finds its trampoline."""
    pieces = []
    for r in range(5):
        for i in range(r + 1):
            pieces.append(CoinPiece("suns", 1 + i, "value", 150 + (i - r / 2) * 32.0, 80 + r * 27.7, 0.0))
    middle = [k for k, p in enumerate(pieces) if 100 < p.y_mm < 150]  # rows 2 and 3: 55 mm between the others
    layout = find_triangle(seen(pieces, 21, jitter_mm=0.8, uncertain=middle))
    assert not layout.problems and sorted(layout.spots) == list(range(1, 16))


@pytest.mark.parametrize("missing", [0, 10, 14])
@pytest.mark.parametrize("rotate", [0.0, 17.0])
def test_triangle_with_a_corner_trampoline_not_seen(missing, rotate):
    """Rendered Trampo-Land frames (classic and bold seed 114): the kid on trampoline 1 and its coin were not
    found. The corner moved onto the nearest piece was trampoline 2, a row off, and the whole triangle with it
    (the pawn on 3 and the coin on 6 "off the triangle", the rest on the wrong spots). The spots are still
    numbered from the true apex; the corner's spot is simply empty."""
    pieces = []
    for r in range(5):
        for i in range(r + 1):
            pieces.append(CoinPiece("suns", 1 + i, "value", 150 + (i - r / 2) * 32.0, 80 + r * 27.7, 0.0))
    pieces.append(PawnPiece("arms", pieces[2].x_mm, pieces[2].y_mm, 0.0))  # an adult on trampoline 3
    shown = [p for k, p in enumerate(pieces) if k != missing]
    layout = find_triangle(seen(shown, 22, rotate_deg=rotate, jitter_mm=0.8))
    assert not layout.problems
    assert sorted(layout.spots) == [n for n in range(1, 16) if n != missing + 1]
    assert [p.kind for p in layout.spots[3]] == [Kind.COIN, Kind.PAWN]
    assert layout.rms_mm < 2.0
