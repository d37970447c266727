"""Rendered frames of every game and Epic Funhouse room, with the position's truth as its rules engine states it.

Used by tests/test_rendered_states.py and benchmarks/bench_states.py. Each position is built through the rules
engine (``State.from_layout`` of the game or room, ``Track.from_layout`` for the catwalk), laid out on the table
as a player would (tablescene pieces, nudged and turned a little), on an A3 calibration sheet, under random room
light, and rendered through the vision tests' disk cache (tests/vision/detect_scenes.py): a Pi camera frame
(1640x1232, 70-90 cm up, tilted 8-14 degrees, JPEG-compressed by the renderer).

:func:`state_case` returns the frame, the truth and what ``tableside state`` must print for it (``text`` and
``state`` of its ``--json``, computed from the truth by the same functions the verb uses) and the verb's
arguments (``--game``, ``--room``, ``--grid``...).
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tablescene import CameraSpec, Lighting, Scene, coin_grid, easy_slider_layout, shuffleboard_scatter, tile_block
from tablescene.layouts import GridGeometry
from tablescene.scene import CoinPiece, DiePiece, PawnPiece, TilePiece

from rules import easy_slider as es
from rules import plans_of_action as poa
from rules import slides_of_action as soa
from rules.epic_funhouse import catwalk, magic_mirror, roll_out_the_barrels, slide_jam, trampo_land, whack_a_dummy
from rules.epic_funhouse.common import ALL_TILES
from rules.epic_funhouse.die import COUNTER
from rules.pieces import SUITS, TILE_MM, Suit

EDITIONS = ("default", "classic", "hand-made", "bold")
#: Every game and room whose state a photo shows (Epic Funhouse rooms by their own names).
STATE_GAMES = ("easy-slider", "slides-of-action", "plans-of-action", "martian-shuffleboard", "slide-jam",
               "magic-mirror", "catwalk", "roll-out-the-barrels", "whack-a-dummy", "trampo-land")
ROOMS = ("slide-jam", "magic-mirror", "catwalk", "roll-out-the-barrels", "whack-a-dummy", "trampo-land")
TABLES = ("wood", "felt", "laminate", "dark-wood")
#: The A3 sheet's centre: small layouts are centred on it; tile grids larger than its printed border lie on the
#: table right of it (white tiles on white paper covering the sheet's markers is not how anyone plays).
SHEET_CENTRE = (148.5, 210.0)


def _beside_sheet(width_mm: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """(layout centre, camera target) for a layout ``width_mm`` wide on the table right of the sheet."""
    centre = (297.0 + 25.0 + width_mm / 2, 210.0)
    return centre, ((297.0 + 25.0 + width_mm) / 2, 210.0)


def _scenes():
    folder = str(Path(__file__).resolve().parent / "vision")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import detect_scenes

    return detect_scenes


def game_camera(seed: int, target_mm: tuple[float, float] = (148.0, 215.0)) -> CameraSpec:
    """A Pi camera (1640x1232 binned mode) 70-90 cm above the layout, tilted 8-14 degrees, turned a little."""
    rng = np.random.default_rng([seed, 23])
    return CameraSpec(distance_mm=float(rng.uniform(700, 900)), tilt_deg=float(rng.uniform(8, 14)),
                      yaw_deg=float(rng.uniform(-8, 8)), target_mm=target_mm)


@dataclass
class StateCase:
    """A rendered position: ``argv`` for ``tableside state`` (after the image), the truth and what the verb
    prints for it (``text`` and ``state`` of ``--json``)."""

    name: str
    edition: str
    seed: int
    frame: Any
    truth: Any
    argv: list[str]
    text: str | None
    state: Any
    notes: list[str] = field(default_factory=list)
    #: the room's score as played, where the board alone does not show all of it (Magic Mirror: the pairs
    #: removed score by their kinship, and ``truth``, built from the board, knows nothing of them); else None
    played_score: int | None = None

    @property
    def image_path(self) -> Path:
        return _scenes().CACHE / f"{self.frame.key}.png"


def state_json(state: Any) -> Any:
    from tableside.commands.state import _state_json

    return _state_json(state)


# ----------------------------------------------------------------------------------------------- layouts
def _jitter(rng: np.random.Generator, nudge_mm: float = 1.0, turn_deg: float = 1.5) -> tuple[float, float, float]:
    dx, dy = rng.normal(0, nudge_mm, 2)
    return float(dx), float(dy), float(rng.normal(0, turn_deg))


def tile_rows_layout(rows, origin_mm: tuple[float, float], gap_mm: float, rng: np.random.Generator,
                     row_gap: dict[int, float] | None = None) -> list:
    """Tiles face up on a grid: ``rows`` top first, each a list of rules Tiles or None (no tile)."""
    geometry = GridGeometry(origin_mm, gap_mm)
    out = []
    for r, row in enumerate(rows):
        extra = sum(v for k, v in (row_gap or {}).items() if r >= k)
        for c, tile in enumerate(row):
            if tile is not None:
                x, y = geometry.centre(c, r)
                dx, dy, da = _jitter(rng)
                out.append(TilePiece(tile.suit, tile.rank, "face", x + dx, y + extra + dy, da))
    return out


def suited(values) -> list[tuple[Suit, int]]:
    """Coin values with a suit each, as one piecepack has them (one coin of each value per suit)."""
    used: dict[int, int] = {}
    out = []
    for v in values:
        out.append((SUITS[used.get(v, 0)], v))
        used[v] = used.get(v, 0) + 1
    return out


def trampo_layout(state: trampo_land.State, centre_mm: tuple[float, float], rng: np.random.Generator,
                  spacing_mm: float = 32.0) -> list:
    """The Trampo-Land triangle laid from one set, as the rules lay it: a suit set aside (drawn from ``rng``);
    the trampolines are the ace to 5 of the three other suits (15 coins value up, each once, shuffled; 1 at the
    apex, rows of 1..5); the kids are the set-aside suit's six coins and the other suits' three nulls (suit side
    up) lying on theirs; adults (the set's pawns, one per suit) and you (the die) stand on theirs."""
    pieces: list = []
    on_top: list = []
    shuffle = random.Random(int(rng.integers(1 << 30)))
    aside = SUITS[int(rng.integers(4))]
    others = [s for s in SUITS if s is not aside]
    trampolines = [(s, v) for s in others for v in (1, 2, 3, 4, 5)]
    shuffle.shuffle(trampolines)
    kid_coins = [(aside, r) for r in range(6)] + [(s, 0) for s in others]
    shuffle.shuffle(kid_coins)
    pawns = list(SUITS)
    shuffle.shuffle(pawns)
    rise = spacing_mm * math.sqrt(3) / 2
    n = 0
    for r in range(5):
        for i in range(r + 1):
            x = centre_mm[0] + (i - r / 2) * spacing_mm
            y = centre_mm[1] + (r - 2) * rise
            dx, dy, da = _jitter(rng, 0.8, 20)
            suit, value = trampolines[n]
            pieces.append(CoinPiece(suit, value, "value", x + dx, y + dy, da))
            what = state.board[n]
            dx, dy, da = _jitter(rng, 0.8, 20)
            if what == "k":
                suit, rank = kid_coins.pop()
                on_top.append(CoinPiece(suit, rank, "suit", x + dx, y + dy, da))
            elif what == "a":
                on_top.append(PawnPiece(pawns.pop(), x + dx, y + dy, da))
            elif what == "y":
                on_top.append(DiePiece(SUITS[3], int(rng.integers(6)), x + dx, y + dy, da))
            n += 1
    return pieces + on_top  # later pieces rest on earlier ones


def _trampo_layout_by_position(state: trampo_land.State, centre_mm: tuple[float, float], rng: np.random.Generator,
                               spacing_mm: float = 32.0) -> list:
    """The triangle as the earlier scenes laid it, not from one set (trampolines' suits by position, values
    shuffled so that a suit may show two 3s; kids drawn from all 24 coins): kept for the vision tests pinned to
    those frames (tests/test_rendered_states.py, tests/test_stacked_kids.py), whose coins' rims and faces they
    measured. Its state's rules cannot be checked on it."""
    pieces: list = []
    on_top: list = []
    values = [v for v in (1, 2, 3, 4, 5) for _ in range(3)]
    rng_values = random.Random(int(rng.integers(1 << 30)))
    rng_values.shuffle(values)
    kid_coins = [(s, r) for s in SUITS for r in range(6)]
    rng_values.shuffle(kid_coins)
    rise = spacing_mm * math.sqrt(3) / 2
    n = 0
    for r in range(5):
        for i in range(r + 1):
            x = centre_mm[0] + (i - r / 2) * spacing_mm
            y = centre_mm[1] + (r - 2) * rise
            dx, dy, da = _jitter(rng, 0.8, 20)
            pieces.append(CoinPiece(SUITS[n % 3], values[n], "value", x + dx, y + dy, da))
            what = state.board[n]
            dx, dy, da = _jitter(rng, 0.8, 20)
            if what == "k":
                suit, rank = kid_coins.pop()
                on_top.append(CoinPiece(suit, rank, "suit", x + dx, y + dy, da))
            elif what == "a":
                on_top.append(PawnPiece(SUITS[(n + 1) % 4], x + dx, y + dy, da))
            elif what == "y":
                on_top.append(DiePiece(SUITS[3], int(rng.integers(6)), x + dx, y + dy, da))
            n += 1
    return pieces + on_top


def catwalk_layout(track: catwalk.Track, centre_mm: tuple[float, float], rng: np.random.Generator,
                   gap_mm: float = 5.0) -> list:
    """A catwalk's tiles face up on their cells (x east, y north = the top of the picture)."""
    pitch = TILE_MM + gap_mm
    xs = [x for x, _ in track.cells]
    ys = [y for _, y in track.cells]
    x0 = centre_mm[0] - (max(xs) - min(xs)) * pitch / 2
    y0 = centre_mm[1] - (max(ys) - min(ys)) * pitch / 2
    out = []
    for tile, (x, y) in zip(track.tiles, track.cells, strict=True):
        dx, dy, da = _jitter(rng)
        out.append(TilePiece(tile.suit, tile.rank, "face", x0 + (x - min(xs)) * pitch + dx,
                             y0 + (max(ys) - y) * pitch + dy, da))
    return out


def plans_layout(state: poa.State, origin_mm: tuple[float, float], rng: np.random.Generator,
                 gap_mm: float = 1.0) -> list:
    """Plans of Action tiles (back up) on their tile-spaces and coins (suit up) on their cells; ``origin_mm``
    is the top-left corner of the tiles' bounding box."""
    x0, _, _, y1 = state.bounds()
    pitch = TILE_MM + gap_mm
    pieces: list = []
    for cx, cy in sorted(state.tiles):
        col, row = (cx - x0) // 2, (y1 - cy - 1) // 2
        dx, dy, da = _jitter(rng, 0.5, 0.8)
        suit, rank = (SUITS[len(pieces) % 4], len(pieces) % 6)
        pieces.append(TilePiece(suit, rank, "back", origin_mm[0] + col * pitch + TILE_MM / 2 + dx,
                                origin_mm[1] + row * pitch + TILE_MM / 2 + dy, da))
    for n, ((x, y), suit) in enumerate(sorted(state.coin_map().items())):
        col, sub_c = divmod(x - x0, 2)
        row, sub_r = divmod(y1 - y, 2)
        cx = origin_mm[0] + col * pitch + TILE_MM / 4 + sub_c * TILE_MM / 2
        cy = origin_mm[1] + row * pitch + TILE_MM / 4 + sub_r * TILE_MM / 2
        dx, dy, da = _jitter(rng, 0.6, 15)
        pieces.append(CoinPiece(suit, n % 6, "suit", cx + dx, cy + dy, da))
    return pieces


# ----------------------------------------------------------------------------------------------- positions
def _play(state: Any, moves: int, rng: np.random.Generator) -> Any:
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(legal[int(rng.integers(len(legal)))])
    return state


def _top_left(board) -> list[list]:
    """A partly cleared Slide Jam board moved to the top-left of its rectangle (how the reading shows it: where
    a packed board sits in the imaginary 4x6 rectangle cannot be seen)."""
    rows, cols = len(board), len(board[0])
    r0 = min(r for r in range(rows) if any(board[r]))
    c0 = min(c for c in range(cols) if any(board[r][c] for r in range(rows)))
    out = [[None] * cols for _ in range(rows)]
    for r in range(r0, rows):
        for c in range(c0, cols):
            out[r - r0][c - c0] = board[r][c]
    return out


def position(name: str, seed: int, real_set: bool = True) -> tuple[list, Any, list[str], tuple[float, float]]:
    """(scene pieces, rules state, extra verb arguments, camera target) of a position of ``name`` (a game or
    room), random with ``seed``, built through the rules engine's ``from_layout``. ``real_set`` False: Trampo-Land
    as the earlier scenes laid it (:func:`_trampo_layout_by_position`)."""
    rng = np.random.default_rng([seed, 31])
    target = (148.0, 215.0)
    if name == "easy-slider":
        dealt = es.Setup.from_seed(seed).state()
        state = es.State.from_layout(_play(dealt, 6, rng).board, dealt.pawns, dealt.coins)
        return easy_slider_layout(state, rng=rng), state, ["--game", "easy-slider"], target
    if name == "slides-of-action":
        start = _play(soa.State.initial(), int(rng.integers(2, 6)), rng)
        state = soa.State.from_layout(start.coins())
        coins = {(x - 1, 4 - y): (suit.value, int(rng.integers(6))) for (x, y), suit in state.coins().items()}
        pieces = tile_block(2, (SHEET_CENTRE[0] - 51.8, SHEET_CENTRE[1] - 51.8), coins, rng=rng)
        return pieces, state, ["--game", "slides-of-action"], target
    if name == "plans-of-action":
        start = _play(poa.State.initial(poa.random_coins(seed)), int(rng.integers(2, 5)), rng)
        state = poa.State.from_layout(start.coin_map(), tiles=start.tile_centres())
        x0, y0, x1, y1 = state.bounds()
        w, h = (x1 - x0 + 1) // 2 * (TILE_MM + 1.0), (y1 - y0 + 1) // 2 * (TILE_MM + 1.0)
        pieces = plans_layout(state, (SHEET_CENTRE[0] - w / 2, SHEET_CENTRE[1] - h / 2), rng)
        return pieces, state, ["--game", "plans-of-action"], target
    if name == "martian-shuffleboard":
        pieces = shuffleboard_scatter(rng=rng, radius_mm=120.0, centre_mm=SHEET_CENTRE,
                                      touching=int(rng.integers(1, 4)))
        return pieces, pieces, ["--game", "martian-shuffleboard"], target
    room = ["--game", "epic-funhouse", "--room", name]
    if name == "slide-jam":
        played = _play(slide_jam.State.deal(random.Random(seed)), int(rng.integers(1, 5)), rng)
        state = slide_jam.State.from_layout(_top_left(played.board))
        centre, target = _beside_sheet(4 * 55.8)
        pieces = tile_rows_layout(played.board, (centre[0] - 2 * 55.8, centre[1] - 3 * 55.8), 5.0, rng)
        return pieces, state, room, target
    if name == "magic-mirror":
        tiles = list(ALL_TILES)
        random.Random(seed).shuffle(tiles)
        played = _play(magic_mirror.State.from_stacks(tiles[:12], tiles[12:]), int(rng.integers(1, 5)), rng)
        state = magic_mirror.State.from_layout(played.board)
        centre, target = _beside_sheet(4 * 55.8)
        pieces = tile_rows_layout(state.board, (centre[0] - 2 * 55.8, centre[1] - 3 * 55.8 - 12.0), 5.0, rng,
                                  row_gap={3: 24.0})
        return pieces, state, room, target
    if name == "catwalk":
        laid = _catwalk_laid(seed)
        track = catwalk.Track.from_layout(laid.tiles, laid.cells)
        xs = [x for x, _ in track.cells]
        centre, target = _beside_sheet((max(xs) - min(xs) + 1) * (TILE_MM + 5.0))
        return catwalk_layout(track, centre, rng), track, room, target
    if name == "roll-out-the-barrels":
        grid = roll_out_the_barrels.build_maze([], list(range(6)) * 4, seed=seed).grid
        pieces = coin_grid(suited(grid), (SHEET_CENTRE[0] - 1.5 * 25.4, SHEET_CENTRE[1] - 2.5 * 25.4), 4, rng=rng)
        cell = int(rng.integers(24))
        top = int(rng.integers(6))
        pieces.append(DiePiece(SUITS[seed % 4], top, pieces[cell].x_mm, pieces[cell].y_mm,
                               float(rng.uniform(-10, 10))))
        die = next(d for d in COUNTER.orientations() if d.top == top)
        state = roll_out_the_barrels.State.from_layout(grid, roll_out_the_barrels.cell_name(cell), die)
        return pieces, state, room, target
    if name == "whack-a-dummy":
        grid = roll_out_the_barrels.build_maze([], list(range(6)) * 4, seed=seed).grid
        up = sorted(int(i) for i in rng.choice(24, int(rng.integers(3, 9)), replace=False))
        cell = int(rng.integers(24))  # the die started on a central coin and has moved on since
        state = whack_a_dummy.State.from_layout(grid, up, cell)
        coins = coin_grid(suited(grid), (SHEET_CENTRE[0] - 1.5 * 25.4, SHEET_CENTRE[1] - 2.5 * 25.4), 4, rng=rng)
        coins = [c if i in up else c.moved(side="suit") for i, c in enumerate(coins)]
        die = DiePiece(SUITS[seed % 4], int(rng.integers(6)), coins[cell].x_mm, coins[cell].y_mm,
                       float(rng.uniform(-10, 10)))
        values = "".join("na2345"[v] for v in grid)
        side = "up" if cell in up else "down"
        return coins + [die], state, room + ["--grid", values, "--die-coin", side], target
    if name == "trampo-land":
        layout = trampo_land.State.from_layout(_trampo_board(rng))
        laid = trampo_layout if real_set else _trampo_layout_by_position
        return laid(layout, SHEET_CENTRE, rng), layout, room, target
    raise ValueError(f"no rendered position for {name!r}")


def magic_mirror_played(seed: int) -> magic_mirror.State:
    """The Magic Mirror game of :func:`position` ``("magic-mirror", seed)`` as played (its stacks of removed
    pairs included): the same draws as there (``position`` goes on drawing from its generator for the layout)."""
    rng = np.random.default_rng([seed, 31])
    tiles = list(ALL_TILES)
    random.Random(seed).shuffle(tiles)
    return _play(magic_mirror.State.from_stacks(tiles[:12], tiles[12:]), int(rng.integers(1, 5)), rng)


def _catwalk_laid(seed: int, max_cells: int = 8) -> catwalk.Track:
    """A catwalk laid by the rules from a shuffled set; the first from ``seed``, ``seed + 1000``... that fits in
    ``max_cells`` x ``max_cells`` tiles (the camera's view beside the sheet)."""
    for k in range(seed, seed + 100_000, 1000):
        tiles = list(ALL_TILES)
        random.Random(k).shuffle(tiles)
        laid = catwalk.lay_catwalk([tiles[:6], tiles[6:12], tiles[12:18], tiles[18:]], random.Random(k))
        xs = [x for x, _ in laid.cells]
        ys = [y for _, y in laid.cells]
        if max(xs) - min(xs) < max_cells and max(ys) - min(ys) < max_cells:
            return laid
    raise ValueError("no catwalk fits")


def _trampo_board(rng: np.random.Generator) -> str:
    """A Trampo-Land position after a few bounces: you, some adults, kids and empty trampolines."""
    letters = ["y"] + ["a"] * int(rng.integers(2, 5)) + ["k"] * int(rng.integers(5, 10))
    letters += ["."] * (15 - len(letters))
    order = rng.permutation(15)
    return "".join(letters[i] for i in order)


def state_case(name: str, edition: str = "default", seed: int = 0, real_set: bool = True) -> StateCase:
    """A position of ``name`` (a game or room) rendered in ``edition``; the truth and what ``state`` prints
    (``real_set``: see :func:`position`)."""
    ds = _scenes()
    pieces, truth, argv, target = position(name, seed, real_set)
    rng = np.random.default_rng([seed, 37])
    scene = Scene(pieces=pieces, table=TABLES[seed % 4], sheet="a3", edition=edition, lighting=Lighting.random(rng))
    frame = ds.rendered(scene, game_camera(seed, target), seed)
    if name == "martian-shuffleboard":
        return StateCase(name, edition, seed, frame, truth, argv, None, None)
    text = truth.diagram() if hasattr(truth, "diagram") else truth.render()
    played = magic_mirror_played(seed).score() if name == "magic-mirror" else None
    return StateCase(name, edition, seed, frame, truth, argv, text, state_json(truth), played_score=played)
