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
    r0: float
    r1: float
    color: tuple[float, float, float]
    nail: bool = False  # a fingertip: draw a nail near p1
    cloth: bool = False  # a sleeve: matte, no skin sheen


def _frame(hand: Hand):
    a = math.radians(hand.angle_deg)
    forward = np.array([math.sin(a), -math.cos(a)])  # the fingers' direction on the table
    right = np.array([math.cos(a), math.sin(a)])
    tip = np.array([hand.x_mm, hand.y_mm])

    def world(f: float, r: float, h: float) -> np.ndarray:
        xy = tip + forward * f * hand.scale + right * r * hand.scale
        return np.array([xy[0], xy[1], -(hand.h_mm + h * hand.scale)])

    return world


def hand_capsules(hand: Hand) -> list[Capsule]:
    """The capsules of a right hand reaching in ``angle_deg`` with its fingertips at (x, y, h)."""
    w = _frame(hand)
    skin = tuple(float(c) for c in hand.skin)
    s = hand.scale
    caps: list[Capsule] = []
    spread = math.radians(hand.spread_deg)
    # fingers: (across offset at the knuckles, length, base radius, tip radius, fan angle multiplier)
    fingers = [(-23.0, 72.0, 9.2, 7.6, -1.5), (-7.5, 80.0, 9.6, 7.8, -0.5), (7.5, 75.0, 9.2, 7.4, 0.5),
               (21.0, 60.0, 8.2, 6.6, 1.5)]
    knuckle_f = -80.0  # the knuckle line is 80 mm behind the middle fingertip
    if hand.pose == "pinch":
        knuckle_h, wrist_h = 48.0, 62.0
    elif hand.pose == "point":
        knuckle_h, wrist_h = 30.0, 42.0
    else:
        knuckle_h, wrist_h = 16.0, 30.0
    for i, (across, length, rb, rt, fan) in enumerate(fingers):
        base = w(knuckle_f, across, knuckle_h)
        ang = fan * spread
        extended = hand.pose == "flat" or (hand.pose == "point" and i == 0)
        if extended:
            reach = length * (0.93 if i != 1 else 1.0)
            tip_f = knuckle_f + reach * math.cos(ang)
            tip_r = across + reach * math.sin(ang)
            mid = w(knuckle_f + 0.55 * (tip_f - knuckle_f), across + 0.55 * (tip_r - across),
                    knuckle_h * 0.45 + rt * 0.5)
            tip = w(tip_f, tip_r, rt * 0.9)
        elif hand.pose == "pinch" and i in (0, 1):
            # index and middle reach down to the held piece
            tip = w(-4.0 + 6.0 * i, -4.0 + 9.0 * i, rt * 0.9)
            mid = w(knuckle_f + 0.6 * length, across * 0.6, knuckle_h * 0.75)
        else:  # curled under the palm
            mid = w(knuckle_f + 0.45 * length, across, knuckle_h - 0.35 * length)
            tip = w(knuckle_f + 0.25 * length, across, max(rt, knuckle_h - 0.55 * length))
        caps.append(Capsule(base, mid, rb * s, (rb + rt) / 2 * s, skin))
        caps.append(Capsule(mid, tip, (rb + rt) / 2 * s, rt * s, skin, nail=True))
    # palm: three broad capsules from the knuckle line to the wrist
    wrist_f = knuckle_f - 92.0
    for across_k, across_w in ((-18.0, -14.0), (0.0, 0.0), (17.0, 14.0)):
        caps.append(Capsule(w(knuckle_f + 4, across_k, knuckle_h + 2), w(wrist_f + 12, across_w, wrist_h),
                            14.0 * s, 16.0 * s, skin))
    # thumb: from the wrist side of the palm forward and out to the index side
    if hand.pose == "pinch":
        thumb_tip = w(-6.0, -18.0, 9.0)
    elif hand.pose == "point":
        thumb_tip = w(knuckle_f - 5.0, -30.0, knuckle_h - 8.0)
    else:
        thumb_tip = w(knuckle_f + 5.0, -62.0, 7.0)
    thumb_base = w(wrist_f + 25.0, -26.0, wrist_h - 4.0)
    thumb_mid = (thumb_base + thumb_tip) / 2 + np.array([0.0, 0.0, -4.0 * s])
    caps.append(Capsule(thumb_base, thumb_mid, 13.0 * s, 10.5 * s, skin))
    caps.append(Capsule(thumb_mid, thumb_tip, 10.5 * s, 8.5 * s, skin, nail=True))
    # wrist and forearm, rising toward the player at ~25 degrees
    cuff = w(wrist_f - 45.0, 0.0, wrist_h + 45.0 * math.tan(math.radians(25)))
    elbow = w(wrist_f - 420.0, 0.0, wrist_h + 420.0 * math.tan(math.radians(25)))
    caps.append(Capsule(w(wrist_f + 15.0, 0.0, wrist_h), cuff, 26.0 * s, 28.0 * s, skin))
    arm_color = tuple(float(c) for c in hand.sleeve) if hand.sleeve is not None else skin
    caps.append(Capsule(cuff, elbow, 33.0 * s if hand.sleeve else 29.0 * s, 45.0 * s if hand.sleeve else 36.0 * s,
                        arm_color, cloth=hand.sleeve is not None))
    # put the working fingertip exactly at (x, y): the middle finger of a flat hand, the index finger of a
    # pointing one, between index and thumb for a pinch
    if hand.pose == "point":
        tip = caps[1].p1
    elif hand.pose == "pinch":
        tip = (caps[1].p1 + caps[-3].p1) / 2
    else:
        tip = caps[3].p1
    shift = np.array([hand.x_mm - tip[0], hand.y_mm - tip[1], 0.0])
    for cap in caps:
        cap.p0 = cap.p0 + shift
        cap.p1 = cap.p1 + shift
    return caps


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
    color *= (1 + 0.035 * noise)[..., None]
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
        radius = np.float32(cap.r0) + t * np.float32(cap.r1 - cap.r0)
        depth = np.float32(z[0]) + t * np.float32(z[1] - z[0]) - eta * radius
        invz = np.float32(1) / depth
        sub = (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox))
        region_invz = layer_invz[sub]
        sel = inside & (invz > region_invz)
        region_alpha = layer_alpha[sub]
        np.maximum(region_alpha, cover, out=region_alpha)
        if not sel.any():
            continue
        nx = ox_ / rho
        ny = oy_ / rho
        nz = -eta
        ndl = nx * l_cam[0] + ny * l_cam[1] + nz * l_cam[2]
        wrap = np.clip((ndl + np.float32(0.4)) / np.float32(1.4), 0, 1)
        base = np.asarray(cap.color, np.float32)
        light = ambient * (np.float32(0.55) + np.float32(0.45) * eta) + direct * wrap
        col = base * light[..., None]
        if not cap.cloth:
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
