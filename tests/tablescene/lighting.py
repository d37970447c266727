"""Light: a lamp (point light with a radius) plus ambient light, soft shadows, contact shadows and glare.

Shadows are rasterised per receiving height ("level": the table, the tops of tiles, coins...) in table
millimetres: every caster part higher than the level is projected from the lamp onto the level's plane, filled
as a convex polygon and blurred by its penumbra (lamp radius x height above the level / height below the lamp).
Translucent casters (pyramids) transmit their colour. Contact shadows (ambient occlusion) darken the surface
just around each piece's foot.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .scene import Lighting

__all__ = ["Caster", "ShadowMaps", "LightModel"]


@dataclass
class Caster:
    parts: list[np.ndarray]  # convex point sets, world (x, y, z = -h)
    tint: tuple[float, float, float] = (0.0, 0.0, 0.0)  # light transmitted (0 = opaque)
    footprint: np.ndarray | None = None  # (n, 2) for contact shadows
    base_h: float = 0.0
    ao_radius_mm: float = 1.5
    ao_strength: float = 0.45


class ShadowMaps:
    """Light transmission and ambient occlusion maps per receiving level, built lazily."""

    def __init__(self, casters: list[Caster], lamp: np.ndarray, lamp_radius: float, strength: float,
                 region: tuple[float, float, float, float], px_per_mm: float = 2.0,
                 level_regions: dict[float, tuple[float, float, float, float]] | None = None,
                 level_step: float = 0.1):
        """``region`` bounds every map (mm); ``level_regions`` optionally bounds the map of a level to where its
        receivers are (the tops of tiles...); levels are rounded to ``level_step`` mm."""
        self.casters = casters
        self.level_regions = level_regions or {}
        self.level_step = level_step
        self.lamp = lamp  # world (x, y, z=-h)
        self.lamp_h = -float(lamp[2])
        self.lamp_radius = lamp_radius
        self._bounds = [self._caster_bounds(c) for c in casters]
        self.strength = strength
        self.p = px_per_mm
        self.region = region
        self._levels: dict[float, tuple] = {}

    def _caster_bounds(self, caster: Caster) -> tuple[float, float, float, float]:
        """A generous table box that holds the caster's shadow on any level below it."""
        pts = np.vstack(caster.parts) if caster.parts else np.zeros((1, 3))
        h = np.clip(-pts[:, 2], 0, self.lamp_h - 1)
        k = self.lamp_h / (self.lamp_h - h)
        xy = self.lamp[:2] + (pts[:, :2] - self.lamp[:2]) * k[:, None]
        xy = np.vstack([xy, pts[:, :2]] + ([caster.footprint] if caster.footprint is not None else []))
        blur = self.lamp_radius * float(h.max()) / max(self.lamp_h - float(h.max()), 1.0) * 1.5 + 6
        return (float(xy[:, 0].min()) - blur, float(xy[:, 1].min()) - blur, float(xy[:, 0].max()) + blur,
                float(xy[:, 1].max()) + blur)

    def _to_px(self, xy: np.ndarray, origin) -> np.ndarray:
        return (xy - origin) * self.p - 0.5

    def _key(self, level: float) -> float:
        return round(round(level / self.level_step) * self.level_step, 3)

    def _level(self, level: float):
        key = self._key(level)
        if key in self._levels:
            return self._levels[key]
        x0, y0, x1, y1 = self.region
        if key in self.level_regions:
            rx0, ry0, rx1, ry1 = self.level_regions[key]
            x0, y0, x1, y1 = max(x0, rx0), max(y0, ry0), min(x1, rx1), min(y1, ry1)
        relevant = []
        for caster, (bx0, by0, bx1, by1) in zip(self.casters, self._bounds, strict=True):
            if bx1 < x0 or bx0 > x1 or by1 < y0 or by0 > y1:
                continue
            if any((-part[:, 2] > key + 0.15).any() for part in caster.parts) or (
                caster.footprint is not None and abs(caster.base_h - key) < 0.3
            ):
                relevant.append(caster)
        if not relevant or x1 <= x0 or y1 <= y0:
            self._levels[key] = None
            return None
        origin = np.array([x0, y0])
        w = max(2, int(np.ceil((x1 - x0) * self.p)))
        h = max(2, int(np.ceil((y1 - y0) * self.p)))
        trans = np.ones((h, w, 3), np.float32)
        ao = np.zeros((h, w), np.float32)
        for caster in relevant:
            for part in caster.parts:
                heights = -part[:, 2]
                # points on the receiving plane shadow themselves; points below it cannot shadow it
                use = heights > key - 0.01
                if (heights[use] > key + 0.15).sum() < 1 or use.sum() < 3 or self.lamp_h <= heights.max() + 1:
                    continue
                pts = part[use]
                h = heights[use]
                k = (self.lamp_h - key) / (self.lamp_h - h)
                xy = self.lamp[:2] + (pts[:, :2] - self.lamp[:2]) * k[:, None]
                h_mean = float(h[h > key + 0.15].mean()) - key
                sigma = self.lamp_radius * h_mean / max(self.lamp_h - h_mean, 1.0) * 0.5 * self.p
                self._stamp(trans, ao, origin, xy, sigma, caster.tint, shadow=True)
            if caster.footprint is not None and abs(caster.base_h - key) < 0.3:
                sigma = caster.ao_radius_mm * self.p
                self._stamp(trans, ao, origin, caster.footprint, sigma, None, shadow=False,
                            strength=caster.ao_strength)
        self._levels[key] = (trans, ao, origin)
        return self._levels[key]

    def _stamp(self, trans, ao, origin, xy, sigma, tint, shadow: bool, strength: float = 1.0) -> None:
        px = self._to_px(np.asarray(xy, np.float64), origin)
        self_h, self_w = ao.shape
        pad = int(np.ceil(3 * sigma)) + 2
        x0 = int(np.floor(px[:, 0].min())) - pad
        y0 = int(np.floor(px[:, 1].min())) - pad
        x1 = int(np.ceil(px[:, 0].max())) + pad + 1
        y1 = int(np.ceil(px[:, 1].max())) + pad + 1
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, self_w), min(y1, self_h)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        hull = cv2.convexHull(((px - [x0, y0]) * 16).round().astype(np.int32).reshape(-1, 1, 2))
        cv2.fillConvexPoly(mask, hull, 1.0, lineType=cv2.LINE_AA, shift=4)
        if sigma > 0.4:  # below that the anti-aliased fill is already as soft
            mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        mask = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
        if shadow:
            block = 1.0 - np.asarray(tint, np.float32)  # how much of each channel the caster blocks
            region = trans[cy0:cy1, cx0:cx1]
            np.minimum(region, 1.0 - self.strength * mask[..., None] * block, out=region)
        else:
            region = ao[cy0:cy1, cx0:cx1]
            np.maximum(region, strength * np.minimum(mask * 1.6, 1.0), out=region)

    def sample(self, points: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
        """(transmission (N, 3), ambient occlusion (N,)) at world points on the plane of ``level``."""
        maps = self._level(level)
        n = len(points)
        if maps is None:
            return np.ones((n, 3), np.float32), np.zeros(n, np.float32)
        trans, ao, origin = maps
        px = self._to_px(points[:, :2], origin).astype(np.float32)
        width = 4096  # cv2.remap wants maps under 32767 columns: sample as rows of 4096 points
        rows = max(1, -(-n // width))
        padded = np.zeros((rows * width, 2), np.float32)
        padded[:n] = px
        mx = padded[:, 0].reshape(rows, width)
        my = padded[:, 1].reshape(rows, width)
        t = cv2.remap(trans, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(1, 1, 1))
        a = cv2.remap(ao, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        return t.reshape(-1, 3)[:n], a.reshape(-1)[:n]


class LightModel:
    """Blinn-Phong shading under the lamp with soft shadows; colours stay in 0-255 units."""

    def __init__(self, lighting: Lighting, camera_centre: np.ndarray, shadows: ShadowMaps,
                 hand_shadows: ShadowMaps | None = None):
        self.lighting = lighting
        self.hand_shadows = hand_shadows
        lx, ly, lh = lighting.lamp_mm
        self.lamp = np.array([lx, ly, -lh], float)
        self.lamp_h = lh
        self.eye = np.asarray(camera_centre, float)
        self.shadows = shadows

    def shade(self, points: np.ndarray, normal: np.ndarray, gloss: float, shininess: float, level: float,
              shadows: str = "all") -> tuple[np.ndarray, np.ndarray]:
        """(multiplier (N, 3) for the albedo, additive specular (N, 3)) at world points with ``normal``.

        ``shadows``: "all" (cast by everything higher than ``level``: for horizontal tops), "hands" (only
        hands: for the sides of a piece, which would otherwise be shadowed by the piece itself) or "none".
        """
        lt = self.lighting
        points = np.asarray(points, float).reshape(-1, 3)
        n = np.broadcast_to(np.asarray(normal, float).reshape(-1, 3), points.shape)
        to_lamp = self.lamp - points
        dist = np.linalg.norm(to_lamp, axis=1)
        l_dir = to_lamp / dist[:, None]
        ndl = np.clip((n * l_dir).sum(axis=1), 0.0, None)
        fall = (self.lamp_h / dist) ** 2
        maps = {"all": self.shadows, "hands": self.hand_shadows}.get(shadows)
        if maps is not None:
            trans, ao = maps.sample(points, level)
            if shadows == "hands":
                ao = np.zeros_like(ao)
        else:
            trans, ao = np.ones((len(points), 3), np.float32), np.zeros(len(points), np.float32)
        direct = (lt.direct * ndl * fall)[:, None] * trans
        light = lt.ambient * (1.0 - ao)[:, None] + direct
        spec = np.zeros_like(light)
        if gloss > 0 and lt.glare > 0:
            to_eye = self.eye - points
            v_dir = to_eye / np.linalg.norm(to_eye, axis=1)[:, None]
            half = l_dir + v_dir
            half /= np.linalg.norm(half, axis=1)[:, None]
            ndh = np.clip((n * half).sum(axis=1), 0.0, None)
            s = lt.glare * gloss * fall * ndh**shininess * (ndl > 0)
            spec = 255.0 * s[:, None] * trans
        return light.astype(np.float32), spec.astype(np.float32)
