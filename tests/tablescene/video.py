"""Sequences: a game played move by move as a short video with per-frame ground truth.

A move is a :class:`Slide`: a hand enters from the player's side, its fingertips come to rest on the piece,
piece and hand slide together to the target, the hand leaves, and the table stays still for a while. The plan
(:func:`plan_moves`) is a list of per-frame scenes plus the still segments (frame ranges where nothing moves and
no hand is in view, with the position shown); :func:`render_plan` renders it (optionally straight into a video
file) and returns the per-frame truth. Videos are written with cv2.VideoWriter ('mp4v' in .mp4, which this
OpenCV both writes and reads back; 'MJPG' for .avi).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from rules.pieces import COIN_MM, DIE_MM, TILE_MM

from .camera import Camera, CameraSpec
from .editions import edition as get_edition
from .render import render
from .scene import Hand, Scene
from .truth import PieceTruth

__all__ = ["Slide", "Still", "Plan", "plan_moves", "render_plan", "write_video", "read_video", "FOURCC"]

FOURCC = {".mp4": "mp4v", ".avi": "MJPG"}


@dataclass(frozen=True)
class Slide:
    """Slide piece ``piece`` (its index in the scene) to ``to_mm``, optionally turning it to ``angle_deg``;
    pieces resting on it (coins on a tile) travel with it."""

    piece: int
    to_mm: tuple[float, float]
    angle_deg: float | None = None


@dataclass(frozen=True)
class Still:
    """Frames ``start`` .. ``stop - 1`` show the table at rest (no hand in view) in position ``scene``."""

    start: int
    stop: int
    scene: Scene

    @property
    def frames(self) -> range:
        return range(self.start, self.stop)


@dataclass
class Plan:
    frames: list[Scene]
    stills: list[Still]
    fps: float
    moves: list[Slide] = field(default_factory=list)
    move_frames: list[tuple[int, int]] = field(default_factory=list)  # [start, stop) of each move


def _smooth(t: float) -> float:
    """Ease in and out (hands accelerate and brake)."""
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


def _riders(scene: Scene, index: int) -> list[int]:
    """Pieces standing on piece ``index`` (directly or on top of those): they move with it."""
    base = scene.pieces[index]
    half = {"tile": TILE_MM / 2, "coin": COIN_MM / 2, "die": DIE_MM / 2}.get(base.kind, 0.0)
    riders = []
    if half == 0.0:
        return riders
    a = math.radians(base.angle_deg)
    for j in range(index + 1, len(scene.pieces)):
        p = scene.pieces[j]
        dx, dy = p.x_mm - base.x_mm, p.y_mm - base.y_mm
        u = dx * math.cos(a) + dy * math.sin(a)
        v = -dx * math.sin(a) + dy * math.cos(a)
        inside = (abs(u) <= half and abs(v) <= half) if base.kind != "coin" else math.hypot(u, v) <= half
        if inside and p.kind in ("coin", "die", "pawn", "pyramid"):
            riders.append(j)
    return riders


def _top_height(scene: Scene, index: int) -> float:
    piece = scene.pieces[index]
    ed = get_edition(getattr(piece, "edition", None) or scene.edition)
    return {"tile": ed.tile_thickness_mm, "coin": ed.coin_thickness_mm, "die": DIE_MM,
            "pawn": ed.pawn_height_mm}.get(piece.kind, 20.0)


def plan_moves(
    scene: Scene,
    moves: Sequence[Slide],
    fps: float = 4.0,
    still_s: float = 2.0,
    reach_s: float = 1.0,
    slide_s: float = 1.0,
    leave_s: float = 1.0,
    rng=None,
    hand: Hand | None = None,
    enter_from_mm: tuple[float, float] | None = None,
) -> Plan:
    """Frames for playing ``moves`` one after the other, starting and ending with a still table.

    The hand (``hand`` gives skin, sleeve, scale; default: random per move) enters from ``enter_from_mm``
    (default: 450 mm beyond the bottom of the pieces, toward the player) and points its fingers at the piece.
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    frames: list[Scene] = []
    stills: list[Still] = []
    move_frames: list[tuple[int, int]] = []
    n_still = max(1, int(round(still_s * fps)))
    n_reach = max(1, int(round(reach_s * fps)))
    n_slide = max(1, int(round(slide_s * fps)))
    n_leave = max(1, int(round(leave_s * fps)))

    def still(current: Scene) -> None:
        start = len(frames)
        frames.extend([current] * n_still)
        stills.append(Still(start, len(frames), current))

    current = scene.but(hands=())
    still(current)
    ys = [p.y_mm for p in scene.pieces] or [0.0]
    for move in moves:
        start_frame = len(frames)
        piece = current.pieces[move.piece]
        riders = _riders(current, move.piece)
        x0, y0, a0 = piece.x_mm, piece.y_mm, piece.angle_deg
        x1, y1 = move.to_mm
        a1 = a0 if move.angle_deg is None else move.angle_deg
        touch_h = _top_height(current, move.piece) + (piece.h_mm or 0.0)
        for j in riders:
            touch_h = max(touch_h, _top_height(current, j) + touch_h)
        base_hand = hand or Hand(0.0, 0.0)
        if hand is None:
            from .scene import SKIN_TONES

            base_hand = Hand(0.0, 0.0, skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
                             sleeve=tuple(int(v) for v in rng.integers(30, 200, 3)) if rng.random() < 0.7 else None,
                             scale=float(rng.uniform(0.9, 1.08)), pose="flat" if rng.random() < 0.6 else "point")
        entry = np.array(enter_from_mm if enter_from_mm else (x0 + rng.normal(0, 60), max(ys) + 450.0))
        finger_dir = np.array([x0, y0]) - entry
        angle = math.degrees(math.atan2(finger_dir[0], -finger_dir[1]))  # clockwise from -y
        # flat fingers lie over the piece (tips past its centre); a pointing finger rests on its centre
        back = (-0.25 if base_hand.pose == "flat" else 0.0) * (TILE_MM if piece.kind == "tile" else 12.0)
        unit = finger_dir / (np.linalg.norm(finger_dir) or 1.0)

        def hand_at(tip: np.ndarray, h: float, motion: tuple[float, float], ang: float = angle,
                    like: Hand = base_hand) -> Hand:
            return Hand(float(tip[0]), float(tip[1]), ang, h, like.pose, like.skin, like.scale, like.spread_deg,
                        like.sleeve, motion)

        touch = np.array([x0, y0]) - unit * back
        lift = 35.0
        for k in range(n_reach):  # reach: from the entry point, descending onto the piece
            t = _smooth((k + 1) / n_reach)
            tip = entry + (touch - entry) * t
            frames.append(current.but(hands=(hand_at(tip, touch_h + lift * (1 - t) + 0.5, (0.0, 0.0)),)))
        for k in range(n_slide):  # slide: hand and piece (with its riders) together
            t = _smooth((k + 1) / n_slide)
            dx, dy = (x1 - x0) * t, (y1 - y0) * t
            da = (a1 - a0) * t
            moved = current
            for j in [move.piece, *riders]:
                p = moved.pieces[j]
                moved = moved.with_piece(j, p.moved(p.x_mm + dx, p.y_mm + dy, p.angle_deg + da))
            tip = touch + np.array([dx, dy])
            frames.append(moved.but(hands=(hand_at(tip, touch_h + 0.5, (0.0, 0.0)),)))
        final = current
        for j in [move.piece, *riders]:
            p = final.pieces[j]
            final = final.with_piece(j, p.moved(p.x_mm + x1 - x0, p.y_mm + y1 - y0, p.angle_deg + a1 - a0))
        tip_end = touch + np.array([x1 - x0, y1 - y0])
        for k in range(n_leave):  # leave: up and back toward the player
            t = _smooth((k + 1) / n_leave)
            tip = tip_end + (entry - tip_end) * t
            frames.append(final.but(hands=(hand_at(tip, touch_h + lift * t + 0.5, (0.0, 0.0)),)))
        current = final.but(hands=())
        move_frames.append((start_frame, len(frames)))
        still(current)
    return Plan(frames, stills, fps, list(moves), move_frames)


def _motion_px(camera: Camera, a: Hand | None, b: Hand | None, exposure: float) -> tuple[float, float]:
    if a is None or b is None:
        return (0.0, 0.0)
    pa = camera.project(np.array([[a.x_mm, a.y_mm]]), a.h_mm)[0]
    pb = camera.project(np.array([[b.x_mm, b.y_mm]]), b.h_mm)[0]
    d = (pb - pa) * exposure
    return (float(d[0]), float(d[1]))


def render_plan(
    plan: Plan,
    camera: CameraSpec | Camera,
    seed: int = 0,
    quality: str = "draft",
    video_path: str | Path | None = None,
    exposure_s: float = 1 / 30,
    on_frame: Callable[[int, object], None] | None = None,
) -> list[list[PieceTruth]]:
    """Render every frame of ``plan`` (frame i with seed ``seed + i``), moving hands motion-blurred over the
    exposure time ``exposure_s``; write them to ``video_path`` if given; return the per-frame truth.
    ``on_frame(i, result)`` sees each RenderResult (e.g. to keep some images)."""
    cam = camera if isinstance(camera, Camera) else Camera.from_spec(camera)
    writer = None
    if video_path is not None:
        writer = _open_writer(video_path, plan.fps, (cam.width, cam.height))
    truths = []
    try:
        for i, scene in enumerate(plan.frames):
            if scene.hands:
                nxt = plan.frames[i + 1].hands[0] if i + 1 < len(plan.frames) and plan.frames[i + 1].hands else None
                prv = plan.frames[i - 1].hands[0] if i > 0 and plan.frames[i - 1].hands else None
                a, b = (scene.hands[0], nxt) if nxt is not None else (prv, scene.hands[0])
                motion = _motion_px(cam, a, b, min(1.0, exposure_s * plan.fps))
                scene = scene.but(hands=tuple(
                    Hand(h.x_mm, h.y_mm, h.angle_deg, h.h_mm, h.pose, h.skin, h.scale, h.spread_deg, h.sleeve, motion)
                    for h in scene.hands))
            result = render(scene, cam, seed=seed + i, quality=quality)
            truths.append(result.truth)
            if writer is not None:
                writer.write(result.image)
            if on_frame is not None:
                on_frame(i, result)
    finally:
        if writer is not None:
            writer.release()
    return truths


def _open_writer(path: str | Path, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    path = Path(path)
    fourcc = FOURCC.get(path.suffix.lower())
    if fourcc is None:
        raise ValueError(f"write videos as .mp4 or .avi, not {path.name}")
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), float(fps), size)
    if not writer.isOpened():
        raise OSError(f"OpenCV cannot write {path} with codec {fourcc}")
    return writer


def write_video(path: str | Path, frames: Sequence[np.ndarray], fps: float) -> Path:
    """Write BGR frames to an .mp4 ('mp4v') or .avi ('MJPG') file."""
    frames = list(frames)
    if not frames:
        raise ValueError("no frames to write")
    h, w = frames[0].shape[:2]
    writer = _open_writer(path, fps, (w, h))
    try:
        for frame in frames:
            writer.write(frame)
    finally:
        writer.release()
    return Path(path)


def read_video(path: str | Path) -> tuple[list[np.ndarray], float]:
    """All frames of a video file and its frame rate."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise OSError(f"cannot open video {path}")
    frames = []
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        cap.release()
    return frames, fps
