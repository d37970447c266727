"""Hands and forearms over the table: tapered capsules drawn as shaded impostors with a depth test.

Each hand is a set of capsules (forearm or sleeve, palm, finger segments, thumb) in table coordinates. A capsule
is drawn per pixel of its screen box: the distance to its projected axis gives the surface height across it, so
the skin is shaded like a rounded limb (wrapped diffuse light for the softness of skin, a faint sheen, nails).
The same capsules cast soft shadows on the table and the pieces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .raster import HAND_ID, Canvas
from .scene import Hand

__all__ = ["Capsule", "hand_capsules", "hand_casters", "draw_hands"]


@dataclass
class Capsule:
    p0: np.ndarray  # world (x, y, z=-h)
    p1: np.ndarray
    r0: float  # half-width at p0 (mm)
    r1: float
    color: tuple[float, float, float]
    nail: bool = False  # a fingertip: draw a nail near p1
    cloth: bool = False  # a sleeve: matte, no skin sheen
    flat: float = 1.0  # thickness / width of the cross-section (the back of the hand is flat)


# Finger segment pitch angles (degrees below horizontal: proximal, distal) per pose and finger
# (index, middle, ring, little). Curled fingers fold under the palm.
_CURLED = (80.0, 200.0)
_PITCH = {
    "flat": ((8.0, 4.0), (8.0, 4.0), (8.0, 4.0), (8.0, 4.0)),
    "point": ((25.0, 15.0), _CURLED, _CURLED, _CURLED),
    "pinch": ((40.0, 70.0), (35.0, 75.0), (40.0, 95.0), (50.0, 110.0)),
}
_PALM_PITCH = {"flat": 10.0, "point": 18.0, "pinch": 22.0}
_FINGERS = (  # across offset at the knuckles, length, base and tip half-widths, fan multiplier
    (-25.0, 75.0, 9.0, 7.6, -1.3),
    (-8.5, 82.0, 9.3, 7.8, -0.4),
    (8.5, 77.0, 8.9, 7.4, 0.5),
    (24.0, 62.0, 8.0, 6.6, 1.4),
)


def hand_capsules(hand: Hand) -> list[Capsule]:
    """The capsules of a right hand reaching in ``angle_deg``, its working fingertip at (x, y) and h_mm.

    Built in a local frame (f forward along the fingers, r to the right, h up) from the knuckle line, then moved
    so the working fingertip (middle for "flat", index for "point", between index and thumb for "pinch")
    touches (x_mm, y_mm) with its underside at ``h_mm``.
    """
    a = math.radians(hand.angle_deg)
    forward = np.array([math.sin(a), -math.cos(a)])
    right = np.array([math.cos(a), math.sin(a)])
    s = hand.scale
    skin = tuple(float(c) for c in hand.skin)
    spread = math.radians(hand.spread_deg)

    def local(f: float, r: float, h: float) -> np.ndarray:
        return np.array([f, r, h], float)

    pieces: list[tuple[np.ndarray, np.ndarray, float, float, dict]] = []
    tips = []
    for i, (across, length, rb, rt, fan) in enumerate(_FINGERS):
        pitch1, pitch2 = (math.radians(p) for p in _PITCH[hand.pose][i])
        yaw = fan * spread
        d = np.array([math.cos(yaw), math.sin(yaw)])
        knuckle = local(0.0, across, 0.0)
        l1, l2 = 0.56 * length, 0.44 * length
        mid = knuckle + np.array([*(d * l1 * math.cos(pitch1)), -l1 * math.sin(pitch1)])
        tip = mid + np.array([*(d * l2 * math.cos(pitch2)), -l2 * math.sin(pitch2)])
        rm = (rb + rt) / 2
        pieces.append((knuckle, mid, rb, rm, {"flat": 0.85}))
        pieces.append((mid, tip, rm, rt, {"flat": 0.8, "nail": pitch2 < math.radians(50)}))
        tips.append((tip, rt))
    # the back of the hand: one broad, flat shape from behind the knuckles to the wrist
    palm_pitch = math.radians(_PALM_PITCH[hand.pose])
    palm_len = 88.0
    wrist = local(-palm_len * math.cos(palm_pitch), 0.0, palm_len * math.sin(palm_pitch))
    for across_k, across_w in ((-16.0, -11.0), (0.0, 0.0), (16.0, 11.0)):  # three bands: tendons between
        pieces.append((local(-9.0, across_k, 2.0), wrist + [14.0, across_w, -1.0], 17.0, 15.0, {"flat": 0.5}))
    # thumb: from the heel of the hand on the index side
    base = local(-62.0, -27.0, wrist[2] * 0.55 - 6.0)
    if hand.pose == "pinch":
        thumb_tip = tips[0][0] + [2.0, -9.0, 0.0]
    elif hand.pose == "point":
        thumb_tip = local(-8.0, -30.0, -16.0)
    else:
        thumb_tip = local(-10.0, -68.0, -12.0)
    thumb_mid = base + (thumb_tip - base) * 0.5 + [0.0, -4.0, -2.0]
    pieces.append((base, thumb_mid, 12.5, 10.0, {"flat": 0.8}))
    pieces.append((thumb_mid, thumb_tip, 10.0, 8.0, {"flat": 0.8, "nail": hand.pose != "pinch"}))
    # wrist and forearm, rising toward the player
    rise = math.radians({"flat": 16.0, "point": 20.0, "pinch": 24.0}[hand.pose])
    cuff = wrist + [-50.0 * math.cos(rise), 0.0, 50.0 * math.sin(rise)]
    elbow = wrist + [-420.0 * math.cos(rise), 0.0, 420.0 * math.sin(rise)]
    pieces.append((wrist + [-4.0, 0.0, 0.0], cuff, 25.0, 28.0, {"flat": 0.58}))
    sleeve = hand.sleeve is not None
    arm_color = tuple(float(c) for c in hand.sleeve) if sleeve else skin
    pieces.append((cuff, elbow, 34.0 if sleeve else 30.0, 46.0 if sleeve else 37.0,
                   {"flat": 0.8, "cloth": sleeve, "color": arm_color}))
    # the working tip: where (x, y, h) is
    if hand.pose == "point":
        target, radius = tips[0]
    elif hand.pose == "pinch":
        target, radius = (tips[0][0] + thumb_tip) / 2, tips[0][1]
    else:
        target, radius = tips[1]
    offset = -target + np.array([0.0, 0.0, radius * 0.8])
    lowest = min(min(p0[2] - r0 * 0.8, p1[2] - r1 * 0.8) for p0, p1, r0, r1, _ in pieces)
    offset[2] = max(offset[2], -lowest)  # no finger goes below the working fingertip's surface
    caps = []
    for p0, p1, r0, r1, opts in pieces:
        w0 = _to_world(p0 * [s, s, s] + offset * s, forward, right, hand)
        w1 = _to_world(p1 * [s, s, s] + offset * s, forward, right, hand)
        caps.append(Capsule(w0, w1, r0 * s, r1 * s, opts.get("color", skin), nail=opts.get("nail", False),
                            cloth=opts.get("cloth", False), flat=opts.get("flat", 1.0)))
    return caps


def _to_world(p: np.ndarray, forward: np.ndarray, right: np.ndarray, hand: Hand) -> np.ndarray:
    xy = np.array([hand.x_mm, hand.y_mm]) + forward * p[0] + right * p[1]
    return np.array([xy[0], xy[1], -(hand.h_mm + p[2])])


def hand_casters(hand: Hand) -> list[np.ndarray]:
    """Convex point sets (spheres at both ends of each capsule) that cast the hand's shadow."""
    ring = np.array([(math.cos(a), math.sin(a), 0.0) for a in np.linspace(0, 2 * math.pi, 10, endpoint=False)])
    ring = np.vstack([ring, [(0, 0, 1.0), (0, 0, -1.0)]])
    parts = []
    for cap in hand_capsules(hand):
        parts.append(np.vstack([cap.p0 + ring * cap.r0, cap.p1 + ring * cap.r1]))
    return parts


def draw_hands(canvas: Canvas, hands: tuple[Hand, ...], lamp: np.ndarray, ambient: float, direct: float,
               glare: float, supersample: int, rng: np.random.Generator) -> None:
    """Draw hands into the canvas, depth-tested against what is there, with optional motion blur.

    Hands are smooth, so they are shaded at 1x with analytic anti-aliased edges and scaled up to the
    supersampled canvas (4x fewer pixels to shade than drawing them at the canvas resolution)."""
    if not hands:
        return
    s = supersample
    up = np.array([[s, 0, (s - 1) / 2.0], [0, s, (s - 1) / 2.0], [0, 0, 1]])
    K1 = np.linalg.inv(up) @ canvas.K
    w1, h1 = canvas.w // s, canvas.h // s
    low = Canvas.__new__(Canvas)
    low.camera, low.K, low.w, low.h = canvas.camera, K1, w1, h1
    caps_per_hand = [(hand, hand_capsules(hand)) for hand in hands]
    boxes = [b for _, caps in caps_per_hand for b in (_capsule_box(low, c) for c in caps) if b is not None]
    if not boxes:
        return
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    color = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    invz = np.zeros((y1 - y0, x1 - x0), np.float32)
    alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
    for _hand, caps in caps_per_hand:
        _draw_hand(low, caps, (x0, y0), color, invz, alpha, lamp, ambient, direct, glare)
    # skin is never a flat colour: a faint blotchy variation
    noise = cv2.resize(rng.standard_normal((max(2, (y1 - y0) // 12), max(2, (x1 - x0) // 12)), dtype=np.float32),
                       (x1 - x0, y1 - y0), interpolation=cv2.INTER_CUBIC)
    color *= (1 + 0.012 * noise)[..., None]
    pores = rng.standard_normal((y1 - y0, x1 - x0), dtype=np.float32)
    color *= (1 + 0.02 * cv2.GaussianBlur(pores, (0, 0), 0.7))[..., None]
    # contact shadows between fingers and where a finger lies over the palm: darken what lies deeper than
    # the nearest surface around it
    depth = np.where(invz > 0, 1.0 / np.maximum(invz, 1e-9), 0).astype(np.float32)
    radius = max(3, int(0.012 * low.K[0, 0]))
    nearest = cv2.dilate(invz, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)))
    near_depth = np.where(nearest > 0, 1.0 / np.maximum(nearest, 1e-9), 0).astype(np.float32)
    cavity = np.clip((depth - near_depth) / 14.0, 0, 1) * (invz > 0)
    cavity = cv2.GaussianBlur(cavity, (0, 0), radius / 2)
    color *= (1 - 0.6 * cavity)[..., None]
    color = cv2.GaussianBlur(color, (0, 0), 0.8)  # soften the seams between capsules
    motion = np.array(max((h.motion_px for h in hands), key=lambda m: math.hypot(*m)), float)
    if math.hypot(*motion) >= 1.0:
        kernel = _line_kernel(motion)
        premult = cv2.filter2D(color * alpha[..., None], -1, kernel, borderType=cv2.BORDER_CONSTANT)
        alpha = cv2.filter2D(alpha, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        color = premult / np.maximum(alpha, 1e-6)[..., None]
    # depth for compositing: spread to the anti-aliased rim so the edge is tested like the inside
    invz = cv2.dilate(invz, np.ones((5, 5), np.uint8)) if motion.any() else cv2.dilate(invz, np.ones((3, 3), np.uint8))
    X0, Y0 = x0 * s, y0 * s
    X1, Y1 = min(x1 * s, canvas.w), min(y1 * s, canvas.h)
    size = (X1 - X0, Y1 - Y0)
    if s > 1:
        full = ((x1 - x0) * s, (y1 - y0) * s)
        color = cv2.resize(color, full, interpolation=cv2.INTER_LINEAR)[: size[1], : size[0]]
        alpha = cv2.resize(alpha, full, interpolation=cv2.INTER_LINEAR)[: size[1], : size[0]]
        invz = cv2.resize(invz, full, interpolation=cv2.INTER_NEAREST)[: size[1], : size[0]]
    in_front = invz > canvas.invz[Y0:Y1, X0:X1]
    alpha = alpha * in_front
    region = canvas.color[Y0:Y1, X0:X1]
    region[:] = region * (1 - alpha[..., None]) + color * alpha[..., None]
    solid = alpha > 0.5
    canvas.ids[Y0:Y1, X0:X1][solid] = HAND_ID
    canvas.invz[Y0:Y1, X0:X1][solid] = invz[solid]


def _line_kernel(motion: np.ndarray) -> np.ndarray:
    length = int(math.ceil(math.hypot(*motion)))
    size = 2 * length + 1
    kernel = np.zeros((size, size), np.float32)
    c = length
    cv2.line(kernel, (int(round(c - motion[0] / 2)), int(round(c - motion[1] / 2))),
             (int(round(c + motion[0] / 2)), int(round(c + motion[1] / 2))), 1.0, 1, cv2.LINE_AA)
    return kernel / kernel.sum()


def _capsule_box(low: Canvas, cap: Capsule):
    (u0, u1), z = low.project(np.vstack([cap.p0, cap.p1]))
    if (z <= 1).any():
        return None
    f = low.K[0, 0]
    pad = max(f * cap.r0 / z[0], f * cap.r1 / z[1]) + 2
    x0 = max(int(min(u0[0], u1[0]) - pad), 0)
    y0 = max(int(min(u0[1], u1[1]) - pad), 0)
    x1 = min(int(max(u0[0], u1[0]) + pad) + 1, low.w)
    y1 = min(int(max(u0[1], u1[1]) + pad) + 1, low.h)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _draw_hand(low, caps, origin, layer_color, layer_invz, layer_alpha, lamp, ambient, direct, glare):
    R = low.camera.R
    f = low.K[0, 0]
    ox, oy = origin
    centre = np.mean([c.p0 for c in caps[:10]], axis=0)
    to_lamp = lamp - centre
    l_cam = (R @ (to_lamp / np.linalg.norm(to_lamp))).astype(np.float32)
    half = l_cam + np.array([0.0, 0.0, -1.0], np.float32)
    half /= np.linalg.norm(half)
    ambient, direct, glare = np.float32(ambient), np.float32(direct), np.float32(glare)
    for cap in caps:
        box = _capsule_box(low, cap)
        if box is None:
            continue
        (u0, u1), z = low.project(np.vstack([cap.p0, cap.p1]))
        rho0, rho1 = np.float32(f * cap.r0 / z[0]), np.float32(f * cap.r1 / z[1])
        x0, y0, x1, y1 = box
        xs = np.arange(x0, x1, dtype=np.float32)[None, :] - np.float32(u0[0])
        ys = np.arange(y0, y1, dtype=np.float32)[:, None] - np.float32(u0[1])
        seg = (u1 - u0).astype(np.float32)
        seg_len2 = np.float32(max(float(seg @ seg), 1e-6))
        t = np.clip((xs * seg[0] + ys * seg[1]) / seg_len2, np.float32(0), np.float32(1))
        ox_ = xs - t * seg[0]
        oy_ = ys - t * seg[1]
        rho = rho0 + t * (rho1 - rho0)
        dist = np.sqrt(ox_ * ox_ + oy_ * oy_)
        cover = np.clip(rho - dist + np.float32(0.5), 0, 1)
        inside = cover > 0
        if not inside.any():
            continue
        q = np.minimum(dist / rho, np.float32(1))
        eta = np.sqrt(np.float32(1) - q * q)
        radius = (np.float32(cap.r0) + t * np.float32(cap.r1 - cap.r0)) * np.float32(cap.flat)
        depth = np.float32(z[0]) + t * np.float32(z[1] - z[0]) - eta * radius
        invz = np.float32(1) / depth
        sub = (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox))
        region_invz = layer_invz[sub]
        sel = inside & (invz > region_invz)
        region_alpha = layer_alpha[sub]
        np.maximum(region_alpha, cover, out=region_alpha)
        if not sel.any():
            continue
        # normal of an elliptic cross-section (width rho, thickness flat * rho)
        flat = np.float32(cap.flat)
        nx = ox_ / rho * flat
        ny = oy_ / rho * flat
        nz = -eta
        norm = np.sqrt(nx * nx + ny * ny + nz * nz) + np.float32(1e-6)
        nx, ny, nz = nx / norm, ny / norm, nz / norm
        ndl = nx * l_cam[0] + ny * l_cam[1] + nz * l_cam[2]
        wrap = np.clip((ndl + np.float32(0.4)) / np.float32(1.4), 0, 1)
        base = np.asarray(cap.color, np.float32)
        light = ambient * (np.float32(0.55) + np.float32(0.45) * eta) + direct * wrap
        col = base * light[..., None]
        if not cap.cloth:
            # skin is redder where blood is close to it: fingertips and the joints; a crease across each joint
            flush = np.float32(0.0)
            if cap.nail:
                flush = np.clip((t - np.float32(0.55)) * np.float32(2.2), 0, 1) * np.float32(0.5)
                crease = np.exp(-((t * np.float32(seg_len2**0.5)) / np.float32(max(1.0, 0.08 * rho0))) ** 2)
                col *= (np.float32(1) - np.float32(0.22) * crease * eta)[..., None]
            elif cap.flat > 0.8:  # a proximal finger segment: flushed at the knuckle
                flush = np.clip(np.float32(0.3) - t, 0, 1) * np.float32(1.2)
            col *= (np.float32(1) + np.asarray([-0.05, -0.04, 0.05], np.float32) * flush[..., None]
                    if np.ndim(flush) else np.float32(1))
            # subsurface warmth where the light turns away, and a soft sheen
            warm = np.clip(np.float32(0.5) - ndl, 0, 1) * np.float32(0.1) * direct
            col += warm[..., None] * np.array([0.0, 8.0, 40.0], np.float32)
            ndh = np.clip(nx * half[0] + ny * half[1] + nz * half[2], 0, 1)
            col += (glare * np.float32(25.5) * ndh**14)[..., None]
            if cap.nail:
                nail = (t > 0.62) & (eta > 0.55) & (np.abs(nx) < 0.55)
                if nail.any():
                    nail_col = np.array([200.0, 205.0, 235.0], np.float32) * light[..., None]
                    nail_col += (glare * np.float32(76.0) * ndh**30)[..., None]
                    col = np.where(nail[..., None], 0.55 * col + 0.45 * nail_col, col)
        else:
            # cloth: folds as slow light variation along the sleeve
            col *= (np.float32(0.92) + np.float32(0.08) * np.sin(t * np.float32(9.0) + nx * np.float32(2.0)))[..., None]
        layer_color[sub][sel] = col[sel]
        region_invz[sel] = invz[sel]
