"""Procedural table surfaces: wood, felt, linen, gingham tablecloth, laminate.

A surface is two textures in table millimetres: a COARSE colour layer (``COARSE_MM`` square at
``COARSE_PX_PER_MM``; planks, mottling, checks) that is mirror-tiled, and a FINE multiplicative detail layer
(weave, fibres, grain streaks) that is exactly periodic (``FINE_MM``) so it wraps without seams, generated at the
resolution the camera needs (a mip level) so it neither blurs nor shimmers. Both are cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

__all__ = ["TABLES", "SurfaceTextures", "surface_textures", "fine_layer"]

COARSE_MM = 1024.0
COARSE_PX_PER_MM = 2.0
FINE_MM = 64.0

#: table kinds with their base colours (BGR) to pick from by variant
TABLES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "wood": ((95, 140, 190), (70, 115, 165), (110, 155, 200), (60, 95, 140)),
    "dark-wood": ((40, 62, 95), (35, 50, 75), (50, 75, 110)),
    "felt": ((45, 105, 35), (110, 70, 30), (45, 40, 120), (80, 80, 80)),
    "cloth": ((200, 215, 225), (175, 185, 195), (150, 170, 180), (215, 220, 222)),
    "tablecloth": ((40, 40, 190), (150, 80, 30), (40, 120, 40), (60, 60, 60)),
    "laminate": ((222, 225, 226), (200, 205, 208), (185, 200, 215)),
}


@dataclass(frozen=True)
class SurfaceTextures:
    kind: str
    coarse: np.ndarray  # uint8 BGR, COARSE_MM square at COARSE_PX_PER_MM
    gloss: float  # specular strength of the surface (varnished wood shines, felt does not)
    shininess: float


def _value_noise(shape: tuple[int, int], cell_px: float, rng: np.random.Generator, wrap: bool = False) -> np.ndarray:
    """Smooth noise with features about ``cell_px`` apart; exactly periodic over the image if ``wrap``."""
    h, w = shape
    gh, gw = max(2, int(round(h / cell_px))), max(2, int(round(w / cell_px)))
    grid = rng.normal(size=(gh, gw)).astype(np.float32)
    if not wrap:
        return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
    ys = (np.arange(h, dtype=np.float32) + 0.5) * gh / h - 0.5
    xs = (np.arange(w, dtype=np.float32) + 0.5) * gw / w - 0.5
    map_x = np.broadcast_to(xs[None, :], (h, w)).astype(np.float32)
    map_y = np.broadcast_to(ys[:, None], (h, w)).astype(np.float32)
    return cv2.remap(grid, map_x, map_y, cv2.INTER_CUBIC, borderMode=cv2.BORDER_WRAP)


def _fbm(shape, cell_px, rng, octaves=4, wrap=False) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for i in range(octaves):
        out += amp * _value_noise(shape, max(1.5, cell_px / 2**i), rng, wrap)
        total += amp
        amp *= 0.5
    return out / total


def _stretched_noise(n: int, cell_x: float, cell_y: float, rng) -> np.ndarray:
    """Noise with features ``cell_x`` by ``cell_y`` px: long along x, like wood fibres."""
    grid = rng.normal(size=(max(2, int(n / cell_y)), max(2, int(n / cell_x)))).astype(np.float32)
    return cv2.resize(grid, (n, n), interpolation=cv2.INTER_CUBIC)


def _wood_coarse(n, p, base, rng):
    """Planks along x with grain lines (gently waving, varying density), each plank its own tone; seams."""
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) / p
    img = np.empty((n, n, 3), np.float32)
    plank_w = rng.uniform(90, 150)
    plank = np.floor(ys / plank_w)
    idx = (plank - plank.min()).astype(int)
    count = int(idx.max()) + 1
    tone = rng.normal(0, 0.07, count)
    shift = rng.uniform(0, 400, count)
    local_y = ys - plank * plank_w
    warp = _stretched_noise(n, 300 * p, 60 * p, rng) * 10 + _stretched_noise(n, 80 * p, 15 * p, rng) * 2.0
    density = 1 + 0.35 * _stretched_noise(n, 400 * p, 50 * p, rng)
    phase = (local_y + warp + shift[idx] * 0.01) * density / rng.uniform(3.0, 5.5)
    grain = (0.5 + 0.5 * np.sin(2 * np.pi * phase)) ** 4  # thin dark late-wood lines
    streak = _stretched_noise(n, 120 * p, 1.5 * p, rng)
    mottle = _stretched_noise(n, 200 * p, 40 * p, rng)
    factor = (1 + tone[idx]) * (1 - 0.16 * grain) * (1 + 0.04 * streak + 0.05 * mottle)
    seam = np.abs(local_y - plank_w / 2) > plank_w / 2 - 0.5
    factor = np.where(seam, factor * 0.6, factor)
    img[:] = np.asarray(base, np.float32)
    img *= factor[..., None]
    img[..., 0] *= 1 - 0.05 * grain  # late wood is a little redder
    return img, 0.35, 25.0


def _felt_coarse(n, p, base, rng):
    img = np.empty((n, n, 3), np.float32)
    img[:] = np.asarray(base, np.float32)
    mottle = _fbm((n, n), 30 * p, rng, 4)
    img *= (1 + 0.07 * mottle)[..., None]
    return img, 0.0, 1.0


def _cloth_coarse(n, p, base, rng):
    img = np.empty((n, n, 3), np.float32)
    img[:] = np.asarray(base, np.float32)
    folds = _fbm((n, n), 150 * p, rng, 3)
    mottle = _fbm((n, n), 20 * p, rng, 3)
    img *= (1 + 0.06 * folds + 0.03 * mottle)[..., None]
    return img, 0.02, 4.0


def _tablecloth_coarse(n, p, base, rng):
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) / p
    check = rng.uniform(12, 25)
    stripe_x = (np.floor(xs / check) % 2) == 0
    stripe_y = (np.floor(ys / check) % 2) == 0
    white = np.array((225, 232, 235), np.float32)
    colour = np.asarray(base, np.float32)
    amount = 0.5 * stripe_x.astype(np.float32) + 0.5 * stripe_y.astype(np.float32)
    img = white * (1 - amount[..., None]) + colour * amount[..., None]
    img = cv2.GaussianBlur(img, (0, 0), 0.35 * p)
    folds = _fbm((n, n), 150 * p, rng, 3)
    img *= (1 + 0.06 * folds)[..., None]
    return img, 0.02, 4.0


def _laminate_coarse(n, p, base, rng):
    img = np.empty((n, n, 3), np.float32)
    img[:] = np.asarray(base, np.float32)
    mottle = _fbm((n, n), 50 * p, rng, 3)
    img *= (1 + 0.025 * mottle)[..., None]
    return img, 0.5, 40.0


_COARSE = {
    "wood": _wood_coarse,
    "dark-wood": _wood_coarse,
    "felt": _felt_coarse,
    "cloth": _cloth_coarse,
    "tablecloth": _tablecloth_coarse,
    "laminate": _laminate_coarse,
}


@lru_cache(maxsize=4)
def surface_textures(kind: str, variant: int = 0) -> SurfaceTextures:
    """The coarse layer of a table kind (see ``TABLES``); ``variant`` picks colour and randomness."""
    if kind not in TABLES:
        raise ValueError(f"unknown table {kind!r}: use one of {', '.join(TABLES)}")
    rng = np.random.default_rng([list(TABLES).index(kind), variant, 5])
    colours = TABLES[kind]
    base = np.asarray(colours[variant % len(colours)], np.float32) * rng.uniform(0.95, 1.05, 3)
    n = int(COARSE_MM * COARSE_PX_PER_MM)
    img, gloss, shininess = _COARSE[kind](n, COARSE_PX_PER_MM, base, rng)
    coarse = np.clip(img, 0, 255).astype(np.uint8)
    coarse.setflags(write=False)
    return SurfaceTextures(kind, coarse, gloss, shininess)


@lru_cache(maxsize=16)
def fine_layer(kind: str, variant: int, texels: int) -> np.ndarray:
    """The fine multiplicative detail (float32, mean ~1) of a table kind, ``texels`` square over FINE_MM.

    Evaluated at 2x and box-filtered: a mip level that matches the camera's sampling.
    """
    rng = np.random.default_rng([list(TABLES).index(kind), variant, 9])
    n = texels * 2
    p = n / FINE_MM  # px per mm of the supersampled evaluation
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) / p
    if kind in ("wood", "dark-wood"):
        # grain streaks: noise stretched along x (periodic)
        rows = max(8, int(FINE_MM * 1.6))
        grid = rng.normal(size=(rows, 6)).astype(np.float32)
        mx = np.broadcast_to((np.arange(n, dtype=np.float32) + 0.5)[None, :] * 6 / n - 0.5, (n, n))
        my = np.broadcast_to((np.arange(n, dtype=np.float32) + 0.5)[:, None] * rows / n - 0.5, (n, n))
        streak = cv2.remap(grid, mx.astype(np.float32), my.astype(np.float32), cv2.INTER_CUBIC,
                           borderMode=cv2.BORDER_WRAP)
        pores = _value_noise((n, n), max(1.5, 0.25 * p), rng, wrap=True)
        detail = 1 + 0.05 * streak + 0.025 * pores
    elif kind == "felt":
        fibres = _value_noise((n, n), max(1.5, 0.3 * p), rng, wrap=True)
        clumps = _value_noise((n, n), max(1.5, 1.5 * p), rng, wrap=True)
        detail = 1 + 0.06 * fibres + 0.04 * clumps
    elif kind in ("cloth", "tablecloth"):
        pitch = 0.8 if kind == "cloth" else 0.6  # mm per thread
        count = int(round(FINE_MM / pitch))
        pitch = FINE_MM / count
        u, v = xs / pitch, ys / pitch
        over = ((np.floor(u) + np.floor(v)) % 2).astype(np.float32)
        warp_thread = np.abs(np.sin(np.pi * v))  # bright across a horizontal thread's middle
        weft_thread = np.abs(np.sin(np.pi * u))
        weave = over * warp_thread + (1 - over) * weft_thread
        slub = _value_noise((n, n), max(1.5, 3 * p), rng, wrap=True)
        detail = 0.9 + 0.16 * weave + 0.03 * slub
    else:  # laminate: fine speckle
        speckle = _value_noise((n, n), max(1.5, 0.4 * p), rng, wrap=True)
        detail = 1 + 0.015 * speckle
    detail = cv2.resize(detail.astype(np.float32), (texels, texels), interpolation=cv2.INTER_AREA)
    detail /= float(detail.mean())
    detail.setflags(write=False)
    return detail
