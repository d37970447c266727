"""Games played in front of the renderer's camera, for the live loop: scenarios, truth readers, fixture videos.

Run ``.venv/bin/python tests/make_live_fixtures.py [easy-slider] [shuffleboard] [reveal] [tests]`` to
regenerate the committed fixture videos in ``fixtures/video/``:

* ``easy_slider_live.mp4`` (+ ``.json`` truth): an Easy Slider board (the Caller's deal of seed 7), two slides
  by a hand, a tile picked up over its neighbour into the hole (illegal) and put back, one more slide; steady
  light, 4 fps with 1.5 s of stillness after each move (what a camera over a still table sees), 820x616;
* ``shuffleboard_live.mp4`` (+ ``.json``): Martian Shuffleboard, red and blue: red places the Large, blue
  flicks the Small next to it, red flicks the Medium and pushes the blue Small away;
* ``easy_slider_reveal.mp4`` (+ ``.json``): the Caller revealing the deal of seed 7 (:func:`reveal_scenario`:
  pawns and coins put down one by one, the tiles flipped one by one along the first row, then five, five and
  nine at a time; a hand resting 3.5 s over the board), 820x616, 2 s still after each step;
* ``live_test_game.mp4`` and ``live_test_hand_bump.mp4`` (320x240, draft): the tests' games (three legal
  slides, an illegal one put back, one more; a hand resting over the board, a bumped camera, black frames).

The same builders make the tests' small videos (and the benchmark's 1640x1232 one), and :class:`TruthReader`
turns the renderer's per-frame ground truth into :class:`tableside.tracker.Reading` objects: the stand-in for
the vision in tests of the loop itself (the stillness tracking, the journal, the speech are all real).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tablescene import (  # noqa: E402
    EASY_SLIDER_ORIGIN_A3,
    CameraSpec,
    GridGeometry,
    Hand,
    Lighting,
    PyramidPiece,
    Scene,
    easy_slider_layout,
)
from tablescene.scene import SKIN_TONES  # noqa: E402
from tablescene.video import Plan, Slide, Still, plan_moves, render_plan  # noqa: E402

import rules.easy_slider as es  # noqa: E402
import rules.martian_shuffleboard as ms  # noqa: E402
from rules.base import LayoutError  # noqa: E402
from rules.pieces import TILE_MM  # noqa: E402
from tableside import phrases  # noqa: E402
from tableside.tracker import Reading  # noqa: E402

VIDEO = ROOT / "fixtures" / "video"

#: The committed live fixtures.
EASY_SLIDER_VIDEO = VIDEO / "easy_slider_live.mp4"
REVEAL_VIDEO = VIDEO / "easy_slider_reveal.mp4"
SHUFFLEBOARD_VIDEO = VIDEO / "shuffleboard_live.mp4"

#: Where the Easy Slider board lies (the renderer's A3 layout) and its cell pitch.
EASY_GRID = GridGeometry(EASY_SLIDER_ORIGIN_A3)
SHEET_CENTRE_MM = (148.5, 210.0)
#: Pieces "in hand" wait here, beyond the bottom of the picture, until they are slid into play.
HAND_Y_MM = 700.0


def steady_lighting(**overrides: Any) -> Lighting:
    """A room lamp that does not flicker: no per-frame light field (a real still table keeps its light)."""
    values = dict(lamp_mm=(420.0, -150.0, 1500.0), lamp_radius_mm=90.0, white_balance=(0.95, 1.0, 1.06),
                  exposure=1.02, noise=1.0, jpeg_quality=92, gradient=0.0)
    values.update(overrides)
    return Lighting(**values)


def easy_camera(resolution: tuple[int, int] = (820, 616), **overrides: Any) -> CameraSpec:
    """The camera over the Easy Slider board (as in the renderer's fixtures), at any resolution."""
    scale = resolution[0] / 1640.0
    values = dict(resolution=resolution, focal_px=1359.0 * scale, distance_mm=640.0, tilt_deg=12.0, yaw_deg=3.0,
                  target_mm=(150.0, 215.0), k1=-0.05, k2=0.012)
    values.update(overrides)
    return CameraSpec(**values)


def shuffleboard_camera(resolution: tuple[int, int] = (820, 616), **overrides: Any) -> CameraSpec:
    scale = resolution[0] / 1640.0
    values = dict(resolution=resolution, focal_px=1359.0 * scale, distance_mm=560.0, tilt_deg=10.0,
                  target_mm=(148.5, 215.0), k1=-0.04, k2=0.01)
    values.update(overrides)
    return CameraSpec(**values)


# ------------------------------------------------------------------------------------------------- scenarios


@dataclass
class Scenario:
    """A game played in front of the camera: the frames to render (``plan``), the camera, the true start
    position and the true moves (text), and the frame ranges where the table is still."""

    game: str
    plan: Plan
    camera: CameraSpec
    start: Any
    moves: list[str]
    players: tuple[str, ...] = ()
    notes: dict = field(default_factory=dict)
    cameras: list[tuple[int, CameraSpec]] = field(default_factory=list)  # (first frame, camera) after a bump
    blanks: list[tuple[int, int]] = field(default_factory=list)  # [start, stop) frames the camera sends black

    def camera_at(self, frame: int) -> CameraSpec:
        camera = self.camera
        for start, spec in self.cameras:
            if frame >= start:
                camera = spec
        return camera

    @property
    def stills(self) -> list[Still]:
        return self.plan.stills

    def hand_frames(self) -> set[int]:
        """Frames with a hand in the scene."""
        return {i for i, scene in enumerate(self.plan.frames) if scene.hands}


def random_slides(state: es.State, count: int, rng: int | np.random.Generator = 0) -> list[es.Move]:
    """``count`` legal slides from ``state``, never undoing the previous one (so every change is visible)."""
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    moves: list[es.Move] = []
    previous: es.Move | None = None
    for _ in range(count):
        options = [m for m in state.legal_moves() if previous is None or m.from_cell != previous.to_cell]
        move = options[int(rng.integers(len(options)))]
        moves.append(move)
        state = state.apply(move)
        previous = move
    return moves


def easy_slider_scenario(
    seed: int = 7,
    slides: Sequence[es.Move | str | tuple[str, str]] | int = 3,
    fps: float = 4.0,
    still_s: float = 1.5,
    reach_s: float = 0.75,
    slide_s: float = 0.75,
    leave_s: float = 0.75,
    camera: CameraSpec | None = None,
    hand: Hand | None = None,
    lighting: Lighting | None = None,
) -> Scenario:
    """The Caller's deal of ``seed`` on the A3 sheet and ``slides`` played on it by a hand.

    ``slides`` are moves (``"e2-e1"`` or ``(from, to)`` cell names; illegal ones are played all the same: the
    tile is put on the target cell), or a number of random legal slides. ``moves`` of the scenario lists the
    legal moves in order (an illegal slide, and the slide putting it back, are not moves of the game).
    """
    start = es.Setup.from_seed(seed).state()
    if isinstance(slides, int):
        slides = random_slides(start, slides, rng=seed)
    pieces = easy_slider_layout(start, rng=seed, nudge_mm=0.8, turn_deg=1.0)
    cell_piece: dict[es.Cell, int] = {}
    index = 0
    for cell in es.CELLS:
        if start.tile_at(cell) is not None:
            cell_piece[cell] = index
            index += 1
    plan_slides = []
    state = start
    legal: list[str] = []
    for item in slides:
        if isinstance(item, es.Move):
            frm, to = item.from_cell, item.to_cell
        elif isinstance(item, str):
            move = es.Move.parse(item)
            frm, to = move.from_cell, move.to_cell
        else:
            frm, to = es.Cell.parse(item[0]), es.Cell.parse(item[1])
        piece = cell_piece.pop(frm)
        cell_piece[to] = piece
        plan_slides.append(Slide(piece, EASY_GRID.centre(to.col - 1, to.row - 1)))
        move = es.Move(frm, to)
        if state.is_legal(move):
            state = state.apply(move)
            legal.append(str(move))
        else:
            legal.append(f"illegal {move}")
    scene = Scene(pieces=pieces, table="wood", table_variant=1, sheet="a3", lighting=lighting or steady_lighting())
    hand = hand or Hand(0.0, 0.0, pose="flat", skin=SKIN_TONES[1], sleeve=(60, 90, 140))
    plan = plan_moves(scene, plan_slides, fps=fps, still_s=still_s, reach_s=reach_s, slide_s=slide_s,
                      leave_s=leave_s, rng=seed, hand=hand)
    return Scenario("easy-slider", plan, camera or easy_camera(), start, legal, notes={"seed": seed})


def legal_moves_of(scenario: Scenario) -> list[str]:
    """The scenario's moves that are moves of the game (what the journal must hold)."""
    return [m for m in scenario.moves if not m.startswith("illegal")]


@dataclass(frozen=True)
class Flick:
    """One Martian Shuffleboard flick for a scenario: the piece slid (``color``, ``size``) to ``to_mm``, and
    the pieces it pushes: ``(color, size) -> (x, y)`` or ``"flat"``."""

    color: str
    size: str
    to_mm: tuple[float, float]
    crashes: tuple[tuple[tuple[str, str], tuple[float, float] | str], ...] = ()


#: The shuffleboard fixture's flicks (red places the Large; blue scores next to it; red pushes blue away).
SHUFFLEBOARD_FLICKS = (
    Flick("red", "large", (148.5, 230.0)),
    Flick("blue", "small", (176.0, 236.0)),
    Flick("red", "medium", (160.0, 262.0), crashes=((("blue", "small"), (214.0, 281.0)),)),
)


def shuffleboard_scenario(
    flicks: Sequence[Flick] = SHUFFLEBOARD_FLICKS,
    players: tuple[str, ...] = ("red", "blue"),
    fps: float = 4.0,
    still_s: float = 1.5,
    reach_s: float = 0.75,
    slide_s: float = 0.75,
    leave_s: float = 0.75,
    camera: CameraSpec | None = None,
) -> Scenario:
    """Martian Shuffleboard on the A3 sheet: every pyramid starts in its owner's hand (beyond the picture) and
    is slid in by a hand; crashes move the pieces hit while the flicked piece slides."""
    sizes = ("small", "medium", "large")
    pieces = []
    where: dict[tuple[str, str], int] = {}
    for p, color in enumerate(players):
        for s, size in enumerate(sizes):
            where[(color, size)] = len(pieces)
            pieces.append(PyramidPiece(color, size, "upright", 60.0 + 130.0 * p + 35.0 * s, HAND_Y_MM, 0.0))
    scene = Scene(pieces=tuple(pieces), table="felt", sheet="a3", lighting=steady_lighting(noise=0.7))
    slides = [Slide(where[(f.color, f.size)], f.to_mm) for f in flicks]
    hand = Hand(0.0, 0.0, pose="point", skin=SKIN_TONES[3], sleeve=(150, 40, 40))
    plan = plan_moves(scene, slides, fps=fps, still_s=still_s, reach_s=reach_s, slide_s=slide_s,
                      leave_s=leave_s, rng=3, hand=hand, enter_from_mm=(148.5, HAND_Y_MM + 250.0))
    # crashes: the pieces hit move (or fall flat) half-way through the flick's slide and stay there
    n_reach = max(1, int(round(reach_s * fps)))
    n_slide = max(1, int(round(slide_s * fps)))
    frames = list(plan.frames)
    stills = list(plan.stills)
    for f, (start, _stop) in zip(flicks, plan.move_frames, strict=True):
        for (color, size), outcome in f.crashes:
            i = where[(color, size)]
            hit = start + n_reach + n_slide // 2
            for k in range(hit, len(frames)):
                piece = frames[k].pieces[i]
                moved = (piece.moved(pose="flat") if outcome == "flat"
                         else piece.moved(float(outcome[0]), float(outcome[1])))
                frames[k] = frames[k].with_piece(i, moved)
    stills = [Still(s.start, s.stop, frames[s.start]) for s in stills]
    plan = Plan(frames, stills, plan.fps, plan.moves, plan.move_frames)
    state = ms.State.new(players)
    moves = []
    for f in flicks:
        crashes = tuple((ms.Piece(c, s), ms.Crash.FLAT if o == "flat" else ms.Placement(o[0], o[1], 0.0))
                        for (c, s), o in f.crashes)
        move = ms.Move(ms.Piece(f.color, f.size), ms.Placement(f.to_mm[0], f.to_mm[1], 0.0), crashes)
        state = state.apply(move)
        moves.append(str(move))
    return Scenario("martian-shuffleboard", plan, camera or shuffleboard_camera(), ms.State.new(players), moves,
                    players=tuple(players))


def render_scenario(scenario: Scenario, video_path: str | Path | None = None, quality: str = "draft",
                    seed: int = 100) -> list[list[Any]]:
    """Render the scenario (to a video if given: every camera segment, blank frames where the camera sent
    black); returns the per-frame truth (blank frames: no pieces seen)."""
    from tablescene.video import write_video

    starts = [0] + [start for start, _ in scenario.cameras] + [len(scenario.plan.frames)]
    images: list[np.ndarray] = []
    truths: list[list[Any]] = []
    for a, b in zip(starts, starts[1:], strict=False):
        if b <= a:
            continue
        part = Plan(scenario.plan.frames[a:b], [], scenario.plan.fps)
        truths += render_plan(part, scenario.camera_at(a), seed=seed + a, quality=quality,
                              on_frame=lambda i, result: images.append(result.image))
    for a, b in scenario.blanks:
        for i in range(a, b):
            images[i] = np.zeros_like(images[i])
            truths[i] = []
    if video_path is not None:
        write_video(video_path, images, scenario.plan.fps)
    return truths


def _hole_line_tile(state: es.State) -> tuple[es.Cell, es.Cell]:
    """A tile two cells from the hole in a straight line: "picked up" into the hole it is an illegal move."""
    hole = state.hole
    for dr, dc in ((0, -2), (0, 2), (-2, 0), (2, 0)):
        r, c = hole.row + dr, hole.col + dc
        if 1 <= r <= 5 and 1 <= c <= 5:
            return es.Cell(r, c), hole
    raise ValueError("no tile two cells from the hole")


def trial_game_scenario(resolution: tuple[int, int] = (320, 240), fps: float = 4.0) -> Scenario:
    """The tests' game: three legal slides, a tile picked up over another into the hole (illegal), put back,
    then one more legal slide. Short segments (1 s still, 0.5 s per phase) to keep the video small."""
    start = es.Setup.from_seed(7).state()
    legal = random_slides(start, 3, rng=11)
    state = start
    for m in legal:
        state = state.apply(m)
    frm, to = _hole_line_tile(state)
    last = random_slides(state, 1, rng=12)
    slides = [*legal, (frm.name, to.name), (to.name, frm.name), *last]
    return easy_slider_scenario(7, slides, fps=fps, still_s=1.0, reach_s=0.5, slide_s=0.5, leave_s=0.5,
                                camera=easy_camera(resolution))


def hand_bump_scenario(resolution: tuple[int, int] = (320, 240), fps: float = 4.0) -> Scenario:
    """A hand resting over the board for 4 s (nothing may be judged), a slide, the camera bumped while the table
    is still (the view jumps), a slide, the camera sending black frames for a second, and a last slide."""
    start = es.Setup.from_seed(8).state()
    moves = random_slides(start, 3, rng=8)
    n_still = int(round(1.25 * fps))
    base = easy_slider_scenario(8, moves, fps=fps, still_s=n_still / fps, reach_s=0.5, slide_s=0.5, leave_s=0.5,
                                camera=easy_camera(resolution), lighting=steady_lighting())
    plan = base.plan
    scene0 = plan.stills[0].scene
    frames: list = []
    stills: list[Still] = []
    move_frames: list[tuple[int, int]] = []

    def add_still(scene: Scene, n: int) -> None:
        first = len(frames)
        frames.extend([scene] * n)
        stills.append(Still(first, len(frames), scene))

    add_still(scene0, n_still)
    tip = EASY_GRID.centre(2, 2)
    skin, sleeve = SKIN_TONES[2], (50, 50, 160)
    approach = [scene0.but(hands=(Hand(tip[0], tip[1] + 110.0 * k, -5.0, 6.0 + 25.0 * k, "flat", skin, 1.0, 6.0,
                                       sleeve),)) for k in (2, 1)]
    frames += approach
    rest = (len(frames), len(frames) + int(round(4.0 * fps)))
    frames += [scene0.but(hands=(Hand(tip[0], tip[1], -5.0, 6.0, "flat", skin, 1.0, 6.0, sleeve),))] * (rest[1] -
                                                                                                  rest[0])
    frames += list(reversed(approach))
    add_still(scene0, n_still)
    bump_at = black = None
    for k, (a, b) in enumerate(plan.move_frames):
        first = len(frames)
        frames += plan.frames[a:b]
        move_frames.append((first, len(frames)))
        add_still(plan.stills[k + 1].scene, n_still + (int(round(1.5 * fps)) if k < 2 else 0))
        if k == 0:
            bump_at = stills[-1].start + 1
        elif k == 1:
            black = (stills[-1].start + 1, stills[-1].start + 1 + int(round(fps)))
    assert bump_at is not None and black is not None
    bumped = easy_camera(resolution, target_mm=(158.0, 209.0), yaw_deg=4.5)
    return Scenario("easy-slider", Plan(frames, stills, plan.fps, plan.moves, move_frames), base.camera,
                    base.start, base.moves, cameras=[(bump_at, bumped)], blanks=[black],
                    notes={"seed": 8, "hand_rest": rest, "bump": bump_at, "black": black})


# ------------------------------------------------------------------------------------------- the Caller's reveal


@dataclass
class RevealScenario:
    """The Caller revealing the deal of ``seed`` on the table (rules, Setup 1-5): the 24 tiles lie face down in
    the 5x5 board (hole bottom right); a hand puts the four pawns left of rows 1-4 in the order drawn, the five
    coins above columns 1-5, then flips the tiles in reading order. ``steps`` says what each step reveals (one
    piece, or several tiles flipped faster than the table settles); after each step the table is still.

    ``frames`` are per-frame scenes; frames showing the same scene as the previous frame are the same still
    table (rendered once; the camera's sensor noise differs per frame). ``hand_frames``: frames with a hand in
    view (never to be read); ``rest``: [start, stop) of the frames where the hand rests motionless over the
    board while flipping a tile."""

    setup: es.Setup
    frames: list[Scene]
    stills: list[Still]
    fps: float
    camera: CameraSpec
    steps: list[tuple[str, ...]]
    rest: tuple[int, int]

    @property
    def hand_frames(self) -> list[int]:
        return [i for i, scene in enumerate(self.frames) if scene.hands]


def reveal_scenario(seed: int = 7, flips: Sequence[int] = (1, 1, 1, 1, 1, 5, 5, 9), fps: float = 4.0,
                    still_s: float = 2.0, rest_s: float = 3.5, rest_at: int = 2,
                    camera: CameraSpec | None = None, table: str = "wood") -> RevealScenario:
    """The Caller's reveal of ``Setup.from_seed(seed)`` (see :class:`RevealScenario`). ``flips``: how many tiles
    each tile step turns over (24 in all). ``rest_at``: the tile step during which the hand rests ``rest_s``
    seconds over the board, motionless, before it leaves."""
    if sum(flips) != 24:
        raise ValueError("the flips must turn over the 24 tiles")
    setup = es.Setup.from_seed(seed)
    pieces = easy_slider_layout(setup.state(), rng=seed, nudge_mm=0.8, turn_deg=1.0)
    tiles = [p for p in pieces if p.kind == "tile"]
    pawns = [p for p in pieces if p.kind == "pawn"]
    coins = [p for p in pieces if p.kind == "coin"]
    n_still = max(1, int(round(still_s * fps)))
    skin, sleeve = SKIN_TONES[1], (60, 90, 140)
    frames: list[Scene] = []
    stills: list[Still] = []
    steps: list[tuple[str, ...]] = []
    rest = (0, 0)

    def scene(n_pawns: int, n_coins: int, n_faces: int, hand: Hand | None = None) -> Scene:
        shown = [t if i < n_faces else t.moved(side="back") for i, t in enumerate(tiles)]
        return Scene(pieces=tuple([*shown, *pawns[:n_pawns], *coins[:n_coins]]), table=table, table_variant=1,
                     sheet="a3", lighting=steady_lighting(noise=0.7), hands=(hand,) if hand else ())

    def still(current: Scene) -> None:
        first = len(frames)
        frames.extend([current] * n_still)
        stills.append(Still(first, len(frames), current))

    def hand_over(piece: Any, height_mm: float) -> Hand:
        # the hand comes from the Caller's side (the bottom of the picture), fingertips pinching the piece
        return Hand(piece.x_mm + 4.0, piece.y_mm + 6.0, -8.0, height_mm, "pinch", skin, 1.0, 6.0, sleeve)

    still(scene(0, 0, 0))
    for k in range(4):  # a pawn drawn from the bag, put beside its row
        frames.append(scene(k + 1, 0, 0, hand_over(pawns[k], 30.0)))
        still(scene(k + 1, 0, 0))
        steps.append((phrases.pawn_drawn(setup.pawns[k]),))
    for k in range(5):  # a coin drawn, put above its column
        frames.append(scene(4, k + 1, 0, hand_over(coins[k], 8.0)))
        still(scene(4, k + 1, 0))
        steps.append((phrases.coin_drawn(setup.coins[k]),))
    flipped = 0
    for step, count in enumerate(flips):  # tiles flipped in reading order
        # the hand over the first and the last tile of the step (the Caller flips faster than the table settles)
        for k in sorted({flipped, flipped + count - 1}):
            frames.append(scene(4, 5, k + 1, hand_over(tiles[k], 12.0)))
        if step == rest_at:
            rest = (len(frames), len(frames) + int(round(rest_s * fps)))
            frames.extend([frames[-1]] * (rest[1] - rest[0]))
        steps.append(tuple(phrases.tile_flipped(t.suit, t.rank) for t in setup.tiles[flipped:flipped + count]))
        flipped += count
        still(scene(4, 5, flipped))
    return RevealScenario(setup, frames, stills, fps, camera or reveal_camera(), steps, rest)


def reveal_camera(resolution: tuple[int, int] = (820, 616)) -> CameraSpec:
    """The camera over the Caller's board: as :func:`easy_camera`, a little closer (the whole A3 sheet still in
    view), so that the coins above the board are large enough to read at 820x616."""
    return easy_camera(resolution, distance_mm=540.0)


def render_reveal(scenario: RevealScenario, path: str | Path, quality: str = "normal", seed: int = 500,
                  noise: float = 2.0) -> Path:
    """The reveal as a video at ``path``, with its truth beside it (.json: the seed, the steps and what each
    says, the still periods, the frames with a hand in view, the hand's rest). Each distinct scene is rendered
    once; a frame repeating the previous frame's scene gets fresh sensor noise (Gaussian, ``noise`` grey
    levels) on that render, as a camera over a still table would give."""
    import os

    from tablescene import render
    from tablescene.video import write_video

    path = Path(path)
    cam = scenario.camera
    rng = np.random.default_rng(seed)
    images: list[np.ndarray] = []
    base: np.ndarray | None = None
    for i, frame_scene in enumerate(scenario.frames):
        if base is None or frame_scene is not scenario.frames[i - 1]:
            base = render(frame_scene, cam, seed=seed + i, quality=quality).image
            images.append(base)
            continue
        grain = rng.normal(0.0, noise, base.shape).astype(np.float32)
        images.append(np.clip(base.astype(np.float32) + grain, 0, 255).astype(np.uint8))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{os.getpid()}{path.suffix}")
    write_video(temporary, images, scenario.fps)
    os.replace(temporary, path)
    doc = {"video": path.name, "game": "easy-slider", "seed": scenario.setup.seed, "fps": scenario.fps,
           "image_size": list(cam.resolution), "steps": [list(step) for step in scenario.steps],
           "stills": [{"start": st.start, "stop": st.stop} for st in scenario.stills],
           "hand_frames": scenario.hand_frames, "rest": list(scenario.rest), "frames": len(scenario.frames)}
    path.with_suffix(".json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, {len(images)} frames)")
    return path


# ----------------------------------------------------------------------------------------------- truth reader


def _get(piece: Any, key: str, default: Any = None) -> Any:
    if isinstance(piece, dict):
        return piece.get(key, default)
    return getattr(piece, key, default)


class TruthReader:
    """Readings made from the renderer's ground truth of each frame (the stand-in for the vision in tests).

    It behaves like a careful vision: a tile more than ``max_off_cell`` of the pitch away from every cell
    centre (half-way through a slide) makes the frame unreadable; a piece covered by a hand for more than
    ``hand_unsure`` of its area is reported *uncertain* (its identity is only a guess); pieces outside the
    picture are not seen. ``unsure`` names cells to report uncertain anyway (to exercise the rules' help).
    ``relock`` re-finds the calibration sheet in the frame with the real calibration code.
    """

    def __init__(self, game: str, truths: Sequence[Sequence[Any]], players: Sequence[str] = (),
                 max_off_cell: float = 0.22, hand_unsure: float = 0.15,
                 unsure: Iterable[Any] = ()) -> None:
        self.game = game
        self.truths = truths
        self.players = tuple(players)
        self.max_off_cell = max_off_cell
        self.hand_unsure = hand_unsure
        self.unsure = frozenset(unsure)
        self.reads: list[int] = []
        self.relocks: list[Any] = []
        self.lens = None

    def read(self, frame: Any) -> Reading:
        self.reads.append(frame.index)
        pieces = [p for p in self.truths[frame.index] if _get(p, "in_frame", True)]
        if self.game == "easy-slider":
            return self._easy_slider(pieces)
        if self.game == "martian-shuffleboard":
            return self._shuffleboard(pieces)
        raise ValueError(f"no truth reader for {self.game}")

    def relock(self, frame: Any) -> str | None:
        from calibration.errors import CalibrationError
        from calibration.table_calibration import calibrate_from_sheet

        try:
            calibration = calibrate_from_sheet(frame.image)
        except CalibrationError as err:
            return f"the calibration sheet cannot be found: {err}"
        self.relocks.append(calibration)
        return None

    @staticmethod
    def _overlay(piece: Any, label: str, ok: bool) -> tuple:
        # the footprint outline when the truth has it, else the label at the piece's centre
        points = _get(piece, "polygon_px") or [_get(piece, "center_px") or [0.0, 0.0]]
        return (points, label, ok)

    def _easy_slider(self, pieces: list[Any]) -> Reading:
        from rules.pieces import Suit, Tile

        board: list[Tile | None] = [None] * 25
        uncertain = set(self.unsure)
        overlay = []
        for p in pieces:
            if _get(p, "kind") != "tile":
                continue
            col = (_get(p, "x_mm") - EASY_GRID.origin[0] - TILE_MM / 2) / EASY_GRID.pitch
            row = (_get(p, "y_mm") - EASY_GRID.origin[1] - TILE_MM / 2) / EASY_GRID.pitch
            c, r = int(round(col)), int(round(row))
            off = math.hypot(col - c, row - r)
            if off > self.max_off_cell or not (0 <= c < 5 and 0 <= r < 5):
                return Reading(None, reason=f"a tile is between cells near row {r + 1}, column {c + 1}")
            cell = es.Cell(r + 1, c + 1)
            if board[cell.index] is not None:
                return Reading(None, reason=f"two tiles are on {cell.name}")
            tile = Tile(Suit(_get(p, "suit")), int(_get(p, "rank")))
            board[cell.index] = tile
            unsure = float(_get(p, "hand_fraction", 0.0)) > self.hand_unsure
            if unsure:
                uncertain.add(cell)
            overlay.append(self._overlay(p, es.tile_token(tile), not unsure and cell not in self.unsure))
        pawns = sorted((p for p in pieces if _get(p, "kind") == "pawn"), key=lambda p: _get(p, "y_mm"))
        coins = sorted((p for p in pieces if _get(p, "kind") == "coin"), key=lambda p: _get(p, "x_mm"))
        try:
            state = es.State.from_layout(board, [Suit(_get(p, "suit")) for p in pawns],
                                         [int(_get(p, "rank")) for p in coins])
        except LayoutError as err:
            return Reading(None, reason=str(err), overlay=tuple(overlay))
        return Reading(state, frozenset(uncertain), overlay=tuple(overlay))

    def _shuffleboard(self, pieces: list[Any]) -> Reading:
        seen = []
        overlay = []
        for p in pieces:
            if _get(p, "kind") != "pyramid":
                continue
            if float(_get(p, "hand_fraction", 0.0)) > self.hand_unsure:
                return Reading(None, reason="a hand is over a pyramid")
            seen.append({"color": _get(p, "color"), "size": _get(p, "size"), "x_mm": _get(p, "x_mm"),
                         "y_mm": _get(p, "y_mm"), "angle_deg": _get(p, "angle_deg"), "pose": _get(p, "pose")})
            overlay.append(self._overlay(p, f"{str(_get(p, 'size'))[0].upper()} {_get(p, 'color')}", True))
        try:
            state = ms.State.from_layout(self.players, seen)
        except LayoutError as err:
            return Reading(None, reason=str(err))
        return Reading(state, overlay=tuple(overlay))


def load_truth(json_path: str | Path) -> dict:
    """A committed fixture's truth document (frames: per-frame compact truth; moves; stills; players)."""
    return json.loads(Path(json_path).read_text())


# ------------------------------------------------------------------------------------------ fixture videos

_KEEP = ("index", "kind", "suit", "rank", "side", "color", "size", "pose", "x_mm", "y_mm", "angle_deg", "center_px",
         "hand_fraction", "in_frame")


def _write_fixture(scenario: Scenario, path: Path, quality: str = "normal") -> None:
    truths = render_scenario(scenario, video_path=path, quality=quality, seed=300)
    if scenario.game == "easy-slider":
        _check_truth(scenario, truths)
    frames = [[{k: _round(getattr(t, k)) for k in _KEEP if getattr(t, k, None) is not None} for t in frame]
              for frame in truths]
    doc = {
        "video": path.name,
        "game": scenario.game,
        "fps": scenario.plan.fps,
        "image_size": list(scenario.camera.resolution),
        "players": list(scenario.players),
        "start": _start_json(scenario),
        "moves": scenario.moves,
        "stills": [{"start": s.start, "stop": s.stop} for s in scenario.plan.stills],
        "move_frames": [list(m) for m in scenario.plan.move_frames],
        "hand_frames": sorted(scenario.hand_frames()),
        "bumps": [start for start, _ in scenario.cameras],
        "blanks": [list(b) for b in scenario.blanks],
        "notes": {k: list(v) if isinstance(v, tuple) else v for k, v in scenario.notes.items()},
        "frames": frames,
    }
    path.with_suffix(".json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, {len(truths)} frames)")


def _start_json(scenario: Scenario) -> Any:
    if scenario.game == "easy-slider":
        return scenario.start.to_dict()
    return scenario.start.to_json()


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, list | tuple):
        return [_round(v) for v in value]
    return value


def _check_truth(scenario: Scenario, truths: list[list[Any]]) -> None:
    """Every still frame of the fixture must read (from the truth) as a complete board: a fixture whose pieces
    were placed badly would test nothing."""
    reader = TruthReader(scenario.game, truths, players=scenario.players)
    for still in scenario.plan.stills:
        for i in still.frames:
            if not truths[i]:
                continue
            reading = reader.read(_FrameIndex(i))
            if reading.state is None or reading.uncertain:
                raise RuntimeError(f"still frame {i} does not read: {reading.reason or reading.uncertain}")


@dataclass(frozen=True)
class _FrameIndex:
    index: int


#: The tests' small videos (320x240, draft quality).
TEST_GAME_VIDEO = VIDEO / "live_test_game.mp4"
TEST_HAND_BUMP_VIDEO = VIDEO / "live_test_hand_bump.mp4"


def make_tests() -> None:
    VIDEO.mkdir(parents=True, exist_ok=True)
    _write_fixture(trial_game_scenario(), TEST_GAME_VIDEO, quality="draft")
    _write_fixture(hand_bump_scenario(), TEST_HAND_BUMP_VIDEO, quality="draft")


# The demo videos: 1.5 s of stillness after each move at 4 fps, quick hands (a few MB in all).
DEMO_TIMING = dict(fps=4.0, still_s=1.5, reach_s=0.5, slide_s=0.75, leave_s=0.5)


def make_easy_slider() -> None:
    VIDEO.mkdir(parents=True, exist_ok=True)
    # two slides, a tile picked up over its neighbour into the hole (illegal), put back, and a legal slide
    slides = ["d1-e1", "d2-d1", ("b2", "d2"), ("d2", "b2"), "c2-d2"]
    _write_fixture(easy_slider_scenario(seed=7, slides=slides, lighting=steady_lighting(noise=0.7), **DEMO_TIMING),
                   EASY_SLIDER_VIDEO)


def make_shuffleboard() -> None:
    VIDEO.mkdir(parents=True, exist_ok=True)
    _write_fixture(shuffleboard_scenario(**DEMO_TIMING), SHUFFLEBOARD_VIDEO)


def make_reveal() -> None:
    VIDEO.mkdir(parents=True, exist_ok=True)
    render_reveal(reveal_scenario(), REVEAL_VIDEO)


def main(argv: list[str]) -> int:
    parts = argv or ["easy-slider", "shuffleboard", "reveal", "tests"]
    makers = {"easy-slider": make_easy_slider, "shuffleboard": make_shuffleboard, "reveal": make_reveal,
              "tests": make_tests}
    for part in parts:
        if part not in makers:
            print(f"unknown part {part!r}: use easy-slider, shuffleboard, reveal or tests", file=sys.stderr)
            return 2
        makers[part]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
