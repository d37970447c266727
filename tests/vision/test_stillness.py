"""The stillness tracker on real frame sequences: synthesised here with numpy/cv2 (a textured table, a
skin-coloured hand on a sleeved arm, pieces moved, sensor noise, light drift, a bumped camera) and rendered
by the scene renderer (tests/tablescene: hands sliding pieces, written to a video and read back)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.stillness import (
    StillnessParams,
    StillnessState,
    StillnessTracker,
    camera_shift,
    change_mask,
    downscale,
    fit_light,
    is_blank,
    mask_boxes,
    skin_mask,
    work_gray,
)

W, H = 480, 360
FPS = 10.0
WOOD = ((70, 12), (110, 16), (150, 20))  # per channel (B, G, R): mean and texture amplitude
FELT = ((60, 6), (110, 8), (40, 6))
SKIN = (120, 150, 210)
SLEEVE = (110, 60, 40)


def table(surface=WOOD, seed: int = 0) -> np.ndarray:
    """A float32 BGR table: grain stretched along x, plus a white sheet with two black markers."""
    rng = np.random.default_rng(seed)
    coarse = cv2.resize(rng.normal(0, 1, (H // 8, W // 2)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 1.2)
    texture = 0.6 * coarse + 0.8 * fine
    image = np.stack([mean + amp * texture for mean, amp in surface], axis=2)
    image[40:150, 30:120] = 235
    image[50:72, 40:62] = 20
    image[120:142, 90:112] = 20
    return np.clip(image, 0, 255).astype(np.float32)


def with_piece(image: np.ndarray, x: int, y: int, size: int = 20, color=(40, 40, 200)) -> np.ndarray:
    """A square tile with a light centre (its print) at (x, y) top-left."""
    out = image.copy()
    out[y : y + size, x : x + size] = color
    q = size // 4
    out[y + q : y + size - q, x + q : x + size - q] = 240
    return out


def with_hand(image: np.ndarray, tip: tuple[int, int], skin=SKIN, sleeve=SLEEVE) -> np.ndarray:
    """A hand with fingers pointing up, its fingertips at ``tip``, on a sleeved arm from the bottom edge."""
    x, y = tip
    out = image.copy()
    cv2.line(out, (x, H + 20), (x, y + 50), sleeve, 36)
    cv2.ellipse(out, (x, y + 26), (19, 28), 0, 0, 360, skin, -1)
    for dx in (-11, -4, 3, 10):
        cv2.line(out, (x + dx, y + 16), (x + dx, y), skin, 6)
    return out


_NOISE_FIELD = np.random.default_rng(99).standard_normal((H + 64, W + 64, 3), dtype=np.float32)


def shot(image: np.ndarray, rng: np.random.Generator, noise: float = 3.0, gain=1.0) -> np.ndarray:
    """What the camera delivers: the scene times a light gain, plus sensor noise, as uint8.

    The noise of each frame is a window at a random offset in one big field of Gaussian noise: pixel by pixel
    as independent between frames as fresh noise, at a fraction of the cost of drawing it every time.
    """
    dy, dx = (int(v) for v in rng.integers(0, 64, 2))
    light = image * np.float32(gain) if np.isscalar(gain) else image * gain.astype(np.float32)
    noisy = light + np.float32(noise) * _NOISE_FIELD[dy : dy + H, dx : dx + W]
    return np.clip(noisy, 0, 255, out=noisy).astype(np.uint8)


def track(frames, params: StillnessParams | None = None, fps: float = FPS, **kw) -> list[StillnessState]:
    tracker = StillnessTracker(params or StillnessParams(), **kw)
    return [tracker.update(frame, i / fps) for i, frame in enumerate(frames)]


def pattern(states: list[StillnessState]) -> str:
    """One letter per frame: S still, . not still (h: a hand blocks), for readable failure messages."""
    return "".join("S" if s.still else ("h" if s.hand else ".") for s in states)


def box_contains(box, point) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


# ------------------------------------------------------------------------------------------------------------
# Still, then a hand moves a piece
# ------------------------------------------------------------------------------------------------------------
def test_a_quiet_noisy_table_becomes_still_once_and_stays_still():
    rng = np.random.default_rng(1)
    scene = with_piece(table(), 200, 150)
    states = track([shot(scene, rng, noise=4.0) for _ in range(20)])
    params = StillnessParams()
    first = next(i for i, s in enumerate(states) if s.still)
    # still after still_frames quiet frames lasting still_s: frames 0..4 at 10 fps (0.4 s)
    assert first == max(params.still_frames - 1, math.ceil(params.still_s * FPS)), pattern(states)
    assert all(s.still for s in states[first:]), pattern(states)
    assert [i for i, s in enumerate(states) if s.settled] == [first]
    assert states[-1].still_for_s == pytest.approx(1.9)
    assert all(s.motion_fraction < params.motion_fraction and not s.changed and s.event is None for s in states)
    assert states[first].has_reference and not states[first - 1].has_reference


def hand_moves_piece(surface=WOOD, seed: int = 2):
    """10 still frames, a hand comes up from the bottom, slides the piece 60 px right, leaves; 12 still frames.
    Returns the frames and per-frame labels ("still" or "hand")."""
    rng = np.random.default_rng(seed)
    base = table(surface)
    before = with_piece(base, 200, 150)
    frames, labels = [], []

    def add(image, label):
        frames.append(shot(image, rng))
        labels.append(label)

    for _ in range(10):
        add(before, "still")
    for k in range(8):  # reach
        add(with_hand(before, (210, H - int((H - 150) * (k + 1) / 8))), "hand")
    for k in range(6):  # slide, fingertips on the piece
        x = 200 + 10 * (k + 1)
        add(with_hand(with_piece(base, x, 150), (x + 10, 150)), "hand")
    after = with_piece(base, 260, 150)
    for k in range(7):  # leave
        add(with_hand(after, (270, 150 + int((H - 150 + 40) * (k + 1) / 7))), "hand")
    for _ in range(12):
        add(after, "still")
    return frames, labels


def test_never_still_while_a_hand_moves_a_piece_and_still_again_after():
    frames, labels = hand_moves_piece()
    states = track(frames)
    text = pattern(states)
    for state, label in zip(states, labels, strict=True):
        if label == "hand":
            assert not state.still, text
    end_of_move = labels.index("still", 10)
    settled = [i for i, s in enumerate(states) if s.settled]
    assert len(settled) == 2 and settled[0] < 10, text
    # latency after the hand left: the first still frame is compared with the last hand frame (motion),
    # then still_frames / still_s of quiet
    assert end_of_move <= settled[1] <= end_of_move + 6, text
    assert all(s.still for s in states[settled[1] :]), text

    judged = states[settled[1]]
    assert judged.changed and not judged.hand and judged.event is None
    # the boxes cover where the piece was and where it is now (pieces at 200 and 260, 20 px, y 150)
    old_centre, new_centre = (210, 160), (270, 160)
    assert any(box_contains(b, old_centre) for b in judged.changed_boxes), judged.changed_boxes
    assert any(box_contains(b, new_centre) for b in judged.changed_boxes), judged.changed_boxes
    for x, y, w, h in judged.changed_boxes:  # nothing else changed: no box far from the move
        assert 180 <= x + w / 2 <= 300 and 130 <= y + h / 2 <= 190, judged.changed_boxes
    # while the hand was in view, it was found as an arm touching the border
    assert any(s.hand and s.hand_boxes for s, lab in zip(states, labels, strict=True) if lab == "hand")


def test_accept_moves_the_reference_on():
    frames, _ = hand_moves_piece(seed=5)
    tracker = StillnessTracker()
    states = [tracker.update(f, i / FPS) for i, f in enumerate(frames)]
    assert states[-1].changed
    tracker.accept()
    rng = np.random.default_rng(9)
    after = shot(with_piece(table(), 260, 150), rng)
    state = tracker.update(after, len(frames) / FPS)
    assert state.still and not state.changed and state.changed_boxes == ()


def test_a_sliding_piece_without_a_hand_is_motion():
    rng = np.random.default_rng(3)
    base = table()
    frames = [shot(with_piece(base, 200, 150), rng) for _ in range(10)]
    frames += [shot(with_piece(base, 200 + 4 * (k + 1), 150), rng) for k in range(10)]  # a flicked piece slides
    frames += [shot(with_piece(base, 240, 150), rng) for _ in range(10)]
    states = track(frames)
    assert not any(s.still for s in states[10:20]), pattern(states)
    assert states[-1].still and states[-1].changed


# ------------------------------------------------------------------------------------------------------------
# Hands and things that stay
# ------------------------------------------------------------------------------------------------------------
def test_a_hand_resting_over_the_board_is_never_judged():
    rng = np.random.default_rng(4)
    scene = with_piece(table(FELT), 200, 150)
    frames = [shot(scene, rng) for _ in range(10)] + [shot(with_hand(scene, (215, 170)), rng) for _ in range(40)]
    states = track(frames)
    text = pattern(states)
    assert states[9].still, text
    assert not any(s.still for s in states[10:]), text  # 4 s with a motionless hand: never still
    assert all(s.hand and s.hand_boxes for s in states[10:]), text
    x, y, w, h = states[-1].hand_boxes[0]
    assert y + h == H and box_contains(states[-1].hand_boxes[0], (215, 200))  # reaches in from the bottom edge


def test_an_arm_resting_outside_the_play_region_does_not_block():
    rng = np.random.default_rng(5)
    scene = with_piece(table(FELT), 200, 150)
    resting = with_hand(scene, (400, 310))  # at the player's edge of the table, bottom right
    frames = [shot(scene, rng) for _ in range(10)] + [shot(resting, rng) for _ in range(30)]
    play = (150, 100, 200, 150)
    states = track(frames, play_region=play)
    text = pattern(states)
    assert all(s.still for s in states[15:]), text  # arrival at 10 is motion, then 4 quiet frames (0.4 s)
    assert states[-1].hand_boxes and not states[-1].hand
    # the same arm over the play region blocks
    over = track([shot(scene, rng) for _ in range(10)] + [shot(with_hand(scene, (220, 160)), rng)] * 30,
                 play_region=play)
    assert not any(s.still for s in over[10:]), pattern(over)


def test_something_without_skin_left_at_the_edge_blocks_only_for_a_while():
    rng = np.random.default_rng(6)
    scene = with_piece(table(), 200, 150)
    boxed = scene.copy()
    boxed[280:H, 360:W] = (70, 70, 75)  # a grey game box put down at the corner of the view
    frames = [shot(scene, rng) for _ in range(10)] + [shot(boxed, rng) for _ in range(25)]
    params = StillnessParams(intrusion_settle_s=1.0)
    states = track(frames, params)
    text = pattern(states)
    assert not any(s.still for s in states[10:21]), text  # motionless since frame 11: blocks for 1 s
    first = next(i for i in range(10, 35) if states[i].still)
    assert first == 11 + 10 + 4, text  # motionless from 11, blocks 1 s, then the usual 0.4 s of quiet
    assert states[first].settled and states[first].changed
    assert any(box_contains(b, (420, 320)) for b in states[first].changed_boxes)


# ------------------------------------------------------------------------------------------------------------
# Light, camera, dropouts, noise
# ------------------------------------------------------------------------------------------------------------
def test_slow_light_drift_is_not_motion_and_is_reported_as_light_changed():
    rng = np.random.default_rng(7)
    scene = with_piece(table(), 200, 150)
    frames = [shot(scene, rng, gain=1.0 - 0.02 * i) for i in range(25)]  # dimming to half over 2.5 s
    states = track(frames)
    assert all(s.still for s in states[4:]), pattern(states)
    assert not any(s.changed for s in states)
    events = [i for i, s in enumerate(states) if s.event == "light-changed"]
    # one report each time the light is more than 10 % off the last report (a few % overshoot per 2 % frame)
    ratios = [states[i].light_ratio for i in events]
    assert len(events) >= 5, ratios
    steps = np.array(ratios) / np.array([1.0, *ratios[:-1]])
    assert ((steps > 0.87) & (steps < 1 / 1.1)).all(), steps
    base = 1.0
    for state in states:  # never more than 10 % off the last report without a new report
        if state.event == "light-changed":
            base = state.light_ratio
        assert abs(math.log(state.light_ratio / base)) <= math.log(1.1), (state.light_ratio, base)
    assert states[-1].light_ratio == pytest.approx(0.52 / 0.92, abs=0.02)  # against the reference at frame 4


def test_a_lamp_switched_on_at_one_side_is_not_motion():
    rng = np.random.default_rng(8)
    scene = with_piece(table(), 200, 150)
    xx = np.linspace(0.0, 1.0, W, dtype=np.float32)[None, :, None]
    yy = np.linspace(0.0, 1.0, H, dtype=np.float32)[:, None, None]
    lamp = 0.7 + 0.25 * xx + 0.1 * (1 - yy) ** 2  # brighter to the right and the top: no saturation
    frames = [shot(scene, rng) for _ in range(10)] + [shot(scene * lamp, rng) for _ in range(10)]
    states = track(frames)
    assert all(s.still for s in states[4:]), pattern(states)
    assert [s.event for s in states].count("light-changed") == 1
    assert not any(s.changed for s in states), [s.changed_boxes for s in states if s.changed]


def test_brighter_light_through_the_cameras_highlight_shoulder_leaves_the_white_sheet_unchanged():
    rng = np.random.default_rng(14)
    scene = with_piece(table(), 200, 150, color=(40, 40, 120))

    def camera_tone(linear: np.ndarray) -> np.ndarray:  # linear to 180, then a soft shoulder toward 255
        over = np.maximum(linear - 180.0, 0.0)
        return np.minimum(linear, 180.0) + over / (1.0 + over / 75.0)

    frames = [shot(camera_tone(scene), rng) for _ in range(10)]
    frames += [shot(camera_tone(scene * 1.3), rng) for _ in range(10)]  # a second lamp switched on
    sheet_centre = (75, 95)
    states = track(frames)
    assert all(s.still for s in states[4:]), pattern(states)
    assert not any(box_contains(b, sheet_centre) for b in states[-1].changed_boxes), states[-1].changed_boxes
    # without the tone term, the white sheet (brightened less than the table) looks changed
    plain = track(frames, StillnessParams(tone_nodes=0))
    assert any(box_contains(b, sheet_centre) for b in plain[-1].changed_boxes), plain[-1].changed_boxes


def test_a_bumped_camera_is_reported_once_with_its_shift():
    rng = np.random.default_rng(9)
    scene = with_piece(table(), 200, 150)
    bumped = cv2.warpAffine(scene, np.float32([[1, 0, 6], [0, 1, -4]]), (W, H), borderMode=cv2.BORDER_REFLECT)
    frames = [shot(scene, rng) for _ in range(15)] + [shot(bumped, rng) for _ in range(20)]
    frames[15] = shot(cv2.GaussianBlur(bumped, (0, 0), 3), rng)  # the bump itself: a blurred frame
    states = track(frames)
    moved = [i for i, s in enumerate(states) if s.event == "camera-moved"]
    assert len(moved) == 1 and 16 <= moved[0] <= 22, pattern(states)
    state = states[moved[0]]
    assert state.still and state.settled and state.changed_boxes == ((0, 0, W, H),)
    assert state.shift_px == pytest.approx((6.0, -4.0), abs=1.0)
    assert not any(s.changed for s in states[moved[0] + 1 :])  # compared with the new view from then on


def test_a_turned_camera_is_reported_as_moved():
    rng = np.random.default_rng(10)
    scene = with_piece(table(), 200, 150)
    turn = cv2.getRotationMatrix2D((W / 2, H / 2), 4.0, 1.0)
    turned = cv2.warpAffine(scene, turn, (W, H), borderMode=cv2.BORDER_REFLECT)
    states = track([shot(scene, rng) for _ in range(10)] + [shot(turned, rng) for _ in range(10)])
    assert [s.event for s in states].count("camera-moved") == 1, pattern(states)


def test_dropouts_restart_the_still_count():
    rng = np.random.default_rng(11)
    scene = with_piece(table(), 200, 150)
    frames = [shot(scene, rng) for _ in range(22)]
    frames[15] = np.zeros((H, W, 3), np.uint8)  # a black glitch frame
    states = track(frames)
    assert states[15].event == "dropout" and not states[15].still
    assert not any(s.still for s in states[15:18]) and states[20].still, pattern(states)
    assert not any(s.changed for s in states)

    tracker = StillnessTracker()
    times = [0.1 * i for i in range(10)] + [5.0 + 0.1 * i for i in range(10)]  # 4 s without frames
    gap = [tracker.update(shot(scene, rng), t) for t in times]
    assert gap[10].event == "dropout" and gap[9].still and not gap[11].still and gap[-1].still

    small = cv2.resize(shot(scene, rng), (W // 2, H // 2))
    assert tracker.update(small, 7.0).event == "dropout"  # another resolution: start over
    assert not tracker.update(small, 7.1).has_reference


@pytest.mark.parametrize("noise", [8.0, 15.0])
def test_heavy_sensor_noise_is_not_motion(noise):
    rng = np.random.default_rng(12)
    scene = with_piece(table(), 200, 150)
    states = track([shot(scene, rng, noise=noise) for _ in range(15)])
    assert all(s.still for s in states[4:]) and not any(s.changed for s in states), pattern(states)
    # and a moved piece is still seen through that noise
    moved = track([shot(scene, rng, noise=noise) for _ in range(10)]
                  + [shot(with_piece(table(), 260, 150), rng, noise=noise) for _ in range(10)])
    assert moved[-1].still and moved[-1].changed
    assert any(box_contains(b, (270, 160)) for b in moved[-1].changed_boxes)


# ------------------------------------------------------------------------------------------------------------
# The plain functions
# ------------------------------------------------------------------------------------------------------------
def test_plain_functions():
    rng = np.random.default_rng(13)
    image = shot(table(), rng)
    small, scale = downscale(image, 240)
    assert small.shape == (180, 240, 3) and scale == pytest.approx(2.0)
    assert downscale(small, 320)[1] == 1.0  # never upscaled
    assert downscale(image, 200)[0].shape == (180, 240, 3)  # a whole factor (2) to about the width asked
    gray = work_gray(small, 1.0)
    assert gray.dtype == np.float32 and not is_blank(gray) and is_blank(np.full((10, 10), 7.0, np.float32))

    brighter = gray * np.float32(1.3)
    fit = fit_light(brighter, gray)
    assert fit.ratio == pytest.approx(1.3, abs=0.01)
    assert float(np.abs(fit.residual).mean()) < 1.0
    assert float(np.abs(fit_light(brighter, gray, light_nodes=0).residual).mean()) < 1.0

    changed = gray.copy()
    changed[50:60, 100:120] += 80
    mask, threshold = change_mask(changed - gray, min_pixel_change=10.0, noise_k=4.0)
    assert threshold == pytest.approx(10.0) and mask[50:60, 100:120].all() and mask.sum() == 200
    assert mask_boxes(mask, 2.0, (480, 360), min_area_px=6, pad_px=2) == ((196, 96, 48, 28),)
    assert mask_boxes(mask, 2.0, (480, 360), min_area_px=500) == ()

    shifted = np.roll(gray, (3, -5), axis=(0, 1))
    dx, dy, response = camera_shift(gray, shifted)
    assert (dx, dy) == pytest.approx((-5.0, 3.0), abs=0.3) and response > 0.3

    skin = np.zeros((4, 8, 3), np.uint8)
    skin[:, :4] = SKIN
    skin[:, 4:] = (200, 120, 60)  # blue
    assert skin_mask(skin)[:, :4].all() and not skin_mask(skin)[:, 4:].any()


def test_parameters_are_checked():
    with pytest.raises(ValueError):
        StillnessParams(work_width_px=8)
    with pytest.raises(ValueError):
        StillnessParams(light_nodes=2)
    with pytest.raises(ValueError):
        StillnessParams(still_frames=0)


# ------------------------------------------------------------------------------------------------------------
# The scene renderer's move sequence: hands sliding pieces, written to a video, read back through the sources
# ------------------------------------------------------------------------------------------------------------
def test_rendered_moves_still_exactly_between_moves(tmp_path):
    video = pytest.importorskip("tablescene.video")
    from tablescene.camera import CameraSpec
    from tablescene.hands import hand_capsules
    from tablescene.scene import CoinPiece, Lighting, Scene, TilePiece

    from vision.sources import open_source

    scene = Scene(
        pieces=(TilePiece("suns", 3, x_mm=80, y_mm=120), TilePiece("arms", 1, x_mm=150, y_mm=200),
                CoinPiece("moons", 2, x_mm=220, y_mm=100)),
        sheet="a4",
        lighting=Lighting(gradient=0.0),  # the room's light is steady from frame to frame
    )
    moves = [video.Slide(0, (140, 90)), video.Slide(2, (60, 230))]
    plan = video.plan_moves(scene, moves, fps=4.0, still_s=1.5, reach_s=1.0, slide_s=0.75, leave_s=1.0, rng=3)
    spec = CameraSpec(resolution=(320, 240), distance_mm=650, target_mm=(105, 150))
    camera = spec.camera()
    path = tmp_path / "moves.mp4"
    truths = video.render_plan(plan, spec, seed=1, quality="draft", video_path=path)

    def hand_in_view(frame_scene) -> bool:
        for hand in frame_scene.hands:
            for capsule in hand_capsules(hand):
                axis = np.array([capsule.p0 + (capsule.p1 - capsule.p0) * t for t in np.linspace(0, 1, 8)])
                pixels = camera.project(np.column_stack([axis[:, 0], axis[:, 1], -axis[:, 2]]))
                inside = (pixels[:, 0] > 0) & (pixels[:, 0] < 320) & (pixels[:, 1] > 0) & (pixels[:, 1] < 240)
                if inside.any():
                    return True
        return False

    tracker = StillnessTracker()
    states = []
    with open_source(str(path)) as source:
        assert source.resolution == (320, 240)
        for frame in source:
            assert frame.time_s == pytest.approx(frame.index / plan.fps, abs=1e-3)
            state = tracker.update(frame.image, frame.time_s)
            states.append(state)
            if state.settled:
                tracker.accept()  # as the live loop does once it has judged the position
    assert len(states) == len(plan.frames)
    text = pattern(states)

    hands = [hand_in_view(s) for s in plan.frames]
    assert sum(hands) >= 12, hands  # most move frames show the hand
    for i, state in enumerate(states):
        if hands[i]:
            assert not state.still, f"still with a hand in view at frame {i}: {text}"
    for segment in plan.stills:
        latency = 3  # the first frame may still differ from the last hand frame, then 3 quiet frames
        assert all(states[i].still for i in range(segment.start + latency, segment.stop)), (segment, text)

    # each move is judged once, after it, and the boxes hold where the moved piece was and is
    for (start, stop), move in zip(plan.move_frames, moves, strict=True):
        settled = [i for i in range(stop, len(states)) if states[i].settled]
        assert settled and settled[0] <= stop + latency, text
        judged = states[settled[0]]
        assert judged.changed and judged.event is None
        before = truths[start - 1][move.piece].center_px
        after = truths[settled[0]][move.piece].center_px
        assert any(box_contains(b, before) for b in judged.changed_boxes), (before, judged.changed_boxes)
        assert any(box_contains(b, after) for b in judged.changed_boxes), (after, judged.changed_boxes)
        assert not any(s.settled for s in states[start:stop]), text
