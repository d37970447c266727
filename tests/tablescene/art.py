"""Piece artwork: suit symbols, numerals and the face textures of tiles, coins and dice, per edition.

Textures are BGRA uint8 images, row 0 at the piece's "top" (the -y side when ``angle_deg`` is 0), drawn at a
requested resolution in px per mm and cached. Shapes are polygons in unit coordinates (``[-0.5, 0.5]``, y down)
filled at 4x and box-filtered down, which anti-aliases them; numerals come from cv2's Hershey fonts or DejaVu
TrueType through Pillow.
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rules.pieces import COIN_MM, DIE_MM, TILE_MM, Suit

from .editions import Edition

__all__ = [
    "symbol_mask",
    "text_mask",
    "tile_texture",
    "coin_texture",
    "die_texture",
    "FONT_DIR",
]

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
_TTF = {
    "dejavu-sans-bold": "DejaVuSans-Bold.ttf",
    "dejavu-serif-bold": "DejaVuSerif-Bold.ttf",
    "dejavu-serif": "DejaVuSerif.ttf",
    "dejavu-sans-mono": "DejaVuSansMono-Bold.ttf",
    "dejavu-condensed-bold": "DejaVuSansCondensed-Bold.ttf",
}
_HERSHEY = {
    "hershey-simplex": (cv2.FONT_HERSHEY_SIMPLEX, 1.0),
    "hershey-duplex": (cv2.FONT_HERSHEY_DUPLEX, 1.0),
    "hershey-triplex": (cv2.FONT_HERSHEY_TRIPLEX, 1.0),
    "hershey-complex": (cv2.FONT_HERSHEY_COMPLEX, 1.0),
    "hershey-script": (cv2.FONT_HERSHEY_SCRIPT_COMPLEX, 1.0),
}
_SS = 4  # supersampling of shape masks


# --------------------------------------------------------------------------------------------------------
# small geometry helpers
def _chaikin(points: np.ndarray, rounds: int = 3, closed: bool = True) -> np.ndarray:
    """Corner-cutting smoothing of a polyline (turns a few control points into a smooth outline)."""
    pts = np.asarray(points, dtype=np.float64)
    for _ in range(rounds):
        nxt = np.roll(pts, -1, axis=0) if closed else pts[1:]
        cur = pts if closed else pts[:-1]
        q = 0.75 * cur + 0.25 * nxt
        r = 0.25 * cur + 0.75 * nxt
        out = np.empty((2 * len(cur), 2))
        out[0::2], out[1::2] = q, r
        pts = out if closed else np.vstack([pts[:1], out, pts[-1:]])
    return pts


def _circle(cx: float, cy: float, r: float, n: int = 64) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def _wobble(points: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Low-frequency hand wobble: a smooth random displacement field (sum of a few sines)."""
    if amount <= 0:
        return points
    out = points.copy()
    for axis in (0, 1):
        for _ in range(3):
            k = rng.uniform(3, 9)
            phase = rng.uniform(0, 2 * np.pi)
            direction = rng.normal(size=2)
            direction /= np.linalg.norm(direction)
            out[:, axis] += amount / 3 * np.sin(k * (points @ direction) * 2 * np.pi / 2 + phase)
    return out


class _MaskPainter:
    """Fills/strokes unit-coordinate shapes into a supersampled mask."""

    def __init__(self, size: int, extent: float | None = None, supersample: int = _SS):
        # ``extent``: the unit square's side in pixels (default the mask's ``size``). A symbol drawn at a size that is
        # not a whole number of texture pixels keeps its exact size in a mask one pixel larger: rounding the size
        # instead made a coin's ace 0.947 of its suit side at 3 px/mm but 0.960 at 4 px/mm (the teach photos' and the
        # game frames' texture densities), an artefact no printed set has.
        self.size = size
        self.extent = float(size if extent is None else extent)
        self.ss = supersample
        self.big = np.zeros((size * supersample, size * supersample), np.uint8)

    def _px(self, pts: np.ndarray) -> np.ndarray:
        px = (np.asarray(pts) * self.extent + self.size / 2) * self.ss
        return np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)

    def fill(self, pts: np.ndarray, value: int = 255) -> None:
        cv2.fillPoly(self.big, [self._px(pts)], value, lineType=cv2.LINE_8, shift=4)

    def stroke(self, pts: np.ndarray, width: float, closed: bool = False, value: int = 255) -> None:
        thickness = max(1, int(round(width * self.extent * self.ss)))
        cv2.polylines(self.big, [self._px(pts)], closed, value, thickness, lineType=cv2.LINE_8, shift=4)

    def circle(self, cx: float, cy: float, r: float, value: int = 255) -> None:
        self.fill(_circle(cx, cy, r, 96), value)

    def mask(self) -> np.ndarray:
        small = cv2.resize(self.big, (self.size, self.size), interpolation=cv2.INTER_AREA)
        return small.astype(np.float32) / 255.0


# --------------------------------------------------------------------------------------------------------
# suit symbols
def _sun(p: _MaskPainter, style: str, rng: np.random.Generator) -> None:
    if style == "hand":
        ring = _wobble(_circle(0, 0, 0.2, 40), rng, 0.02)
        p.fill(ring)
        for k in range(8):
            a = k * np.pi / 4 + rng.normal(0, 0.06)
            seg = np.array([[0.27 * np.cos(a), 0.27 * np.sin(a)], [0.45 * np.cos(a), 0.45 * np.sin(a)]])
            p.stroke(seg + rng.normal(0, 0.008, seg.shape), 0.055)
        return
    if style == "heraldic":
        p.circle(0, 0, 0.2)
        rays = 16
        for k in range(rays):
            a = k * 2 * np.pi / rays
            long = k % 2 == 0
            r_tip, half = (0.48, 0.11) if long else (0.38, 0.13)
            if long:
                tri = [
                    (0.23 * np.cos(a - half), 0.23 * np.sin(a - half)),
                    (r_tip * np.cos(a), r_tip * np.sin(a)),
                    (0.23 * np.cos(a + half), 0.23 * np.sin(a + half)),
                ]
                p.fill(np.array(tri))
            else:  # a wavy flame ray
                t = np.linspace(0, 1, 12)
                centre_r = 0.23 + t * (r_tip - 0.23)
                wave = 0.05 * np.sin(t * 2 * np.pi) * (1 - t)
                width = half * 0.9 * (1 - t)
                left = np.column_stack([centre_r * np.cos(a + wave + width), centre_r * np.sin(a + wave + width)])
                right = np.column_stack([centre_r * np.cos(a + wave - width), centre_r * np.sin(a + wave - width)])
                p.fill(np.vstack([left, right[::-1]]))
        p.circle(0, 0, 0.145, 0)  # a ring: the disc with a hollow band, then the centre again
        p.circle(0, 0, 0.11)
        return
    p.circle(0, 0, 0.22)
    rays = 12
    for k in range(rays):
        a = k * 2 * np.pi / rays + np.pi / rays
        half = 0.14
        tri = [
            (0.27 * np.cos(a - half), 0.27 * np.sin(a - half)),
            (0.47 * np.cos(a), 0.47 * np.sin(a)),
            (0.27 * np.cos(a + half), 0.27 * np.sin(a + half)),
        ]
        p.fill(np.array(tri))


def _moon(p: _MaskPainter, style: str, rng: np.random.Generator) -> None:
    if style == "heraldic":  # a crescent with its horns up ("increscent")
        p.circle(0, 0.06, 0.38)
        p.circle(0, -0.08, 0.31, 0)
        return
    outer = _circle(0, 0, 0.42, 96)
    inner = _circle(0.17, -0.11, 0.35, 96)
    if style == "hand":
        outer = _wobble(outer, rng, 0.02)
        inner = _wobble(inner, rng, 0.02) + rng.normal(0, 0.01, 2)
    p.fill(outer)
    p.fill(inner, 0)


def _crown(p: _MaskPainter, style: str, rng: np.random.Generator) -> None:
    if style == "heraldic":
        body = np.array(
            [(-0.38, 0.2), (-0.44, -0.2), (-0.27, 0.0), (-0.18, -0.3), (-0.09, -0.02), (0.0, -0.36),
             (0.09, -0.02), (0.18, -0.3), (0.27, 0.0), (0.44, -0.2), (0.38, 0.2)]
        )
        p.fill(body)
        p.fill(np.array([(-0.4, 0.24), (0.4, 0.24), (0.4, 0.38), (-0.4, 0.38)]))
        for x, y in [(-0.44, -0.2), (-0.18, -0.3), (0.0, -0.36), (0.18, -0.3), (0.44, -0.2)]:
            p.circle(x, y - 0.04, 0.055)
        for x in (-0.22, 0.0, 0.22):  # jewels in the band, left unpainted
            p.circle(x, 0.31, 0.035, 0)
        return
    body = np.array(
        [(-0.36, 0.28), (0.36, 0.28), (0.36, 0.1), (0.42, -0.28), (0.2, -0.02), (0.0, -0.36),
         (-0.2, -0.02), (-0.42, -0.28), (-0.36, 0.1)]
    )
    if style == "hand":
        body = _wobble(body, rng, 0.025)
        p.fill(body)
        p.stroke(np.vstack([body, body[:1]]), 0.04)
        return
    p.fill(body)
    for x, y in [(0.42, -0.28), (0.0, -0.36), (-0.42, -0.28)]:
        p.circle(x, y - 0.03, 0.06)
    p.fill(np.array([(-0.36, 0.14), (0.36, 0.14), (0.36, 0.18), (-0.36, 0.18)]), 0)


def _arms(p: _MaskPainter, style: str, rng: np.random.Generator) -> None:
    """A fleur-de-lis: a central petal, two curling side petals, a band and a short foot."""
    curl = 1.15 if style == "heraldic" else 1.0
    t = np.linspace(0, 1, 40)
    width = 0.15 * np.sin(np.pi * t) ** 0.75
    y = -0.47 + 0.55 * t
    centre = np.vstack([np.column_stack([width, y]), np.column_stack([-width[::-1], y[::-1]])])
    right = np.array(
        [(0.07, 0.05), (0.1, -0.12), (0.2, -0.23), (0.33, -0.22), (0.42 * curl, -0.12), (0.43 * curl, 0.02),
         (0.36, 0.12), (0.35, 0.02), (0.31, -0.07), (0.24, -0.09), (0.17, -0.04), (0.15, 0.06)]
    )
    right = _chaikin(right, 3)
    left = right * [-1, 1]
    band = np.array([(-0.26, 0.05), (0.26, 0.05), (0.26, 0.14), (-0.26, 0.14)])
    foot = _chaikin(np.array([(-0.07, 0.14), (0.07, 0.14), (0.12, 0.27), (0.22, 0.34), (0.0, 0.3), (-0.22, 0.34),
                              (-0.12, 0.27)]), 2)
    shapes = [centre, right, left, band, foot]
    if style == "hand":
        for shape in shapes:
            wob = _wobble(shape, rng, 0.02)
            p.fill(wob)
            p.stroke(np.vstack([wob, wob[:1]]), 0.03)
        return
    for shape in shapes:
        p.fill(shape)
    if style == "heraldic":  # the band's edges engraved
        p.stroke(np.array([(-0.26, 0.05), (0.26, 0.05)]), 0.015, value=0)
        p.stroke(np.array([(-0.26, 0.14), (0.26, 0.14)]), 0.015, value=0)


_SYMBOLS = {Suit.SUNS: _sun, Suit.MOONS: _moon, Suit.CROWNS: _crown, Suit.ARMS: _arms}


@lru_cache(maxsize=512)
def symbol_mask(suit: Suit, style: str, size_px: float, variant: int = 0) -> np.ndarray:
    """Coverage mask (float32 0..1) of a suit symbol in a style, ``size_px`` (not rounded) across, in a square
    mask of the next whole number of pixels."""
    rng = np.random.default_rng([list(Suit).index(suit), variant, 77])
    size_px = max(4.0, float(size_px))
    # 16x supersampled: stroke widths are whole supersampled pixels, and at 4x a sun's rays were as thick on the
    # ace as on the (5 % larger) suit side
    painter = _MaskPainter(int(np.ceil(size_px - 1e-6)), extent=size_px, supersample=16)
    _SYMBOLS[Suit(suit)](painter, style, rng)
    mask = painter.mask()
    mask.setflags(write=False)
    return mask


# --------------------------------------------------------------------------------------------------------
# numerals
@lru_cache(maxsize=256)
def _text_master(text: str, font: str) -> np.ndarray:
    """A large (about 240 px tall) tight-cropped coverage mask of ``text``."""
    if font in _TTF:
        pil_font = ImageFont.truetype(f"{FONT_DIR}/{_TTF[font]}", 300)
        image = Image.new("L", (400 * max(1, len(text)), 480), 0)
        ImageDraw.Draw(image).text((20, 20), text, fill=255, font=pil_font)
        mask = np.asarray(image)
    else:
        face, _ = _HERSHEY.get(font, (cv2.FONT_HERSHEY_DUPLEX, 1.0))
        scale, thickness = 8.0, 22
        (w, h), base = cv2.getTextSize(text, face, scale, thickness)
        mask = np.zeros((h + base + 120, w + 120), np.uint8)
        cv2.putText(mask, text, (60, h + 60), face, scale, 255, thickness, cv2.LINE_AA)
    ys, xs = np.nonzero(mask > 20)
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return crop.astype(np.float32) / 255.0


def text_mask(text: str, font: str, height_px: float) -> np.ndarray:
    """Coverage mask of ``text`` scaled so its ink is ``height_px`` tall (aspect kept)."""
    master = _text_master(text, font)
    scale = height_px / master.shape[0]
    w = max(1, int(round(master.shape[1] * scale)))
    h = max(1, int(round(height_px)))
    return cv2.resize(master, (w, h), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------------------------------------
# compositing helpers
def _paste(canvas: np.ndarray, mask: np.ndarray, centre: tuple[float, float], color, opacity: float = 1.0) -> None:
    """Blend ``color`` through ``mask`` into the BGR float canvas, centred at ``centre`` (px)."""
    h, w = mask.shape
    x0 = int(round(centre[0] - w / 2))
    y0 = int(round(centre[1] - h / 2))
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx1 <= cx0 or cy1 <= cy0:
        return
    m = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None] * opacity
    region = canvas[cy0:cy1, cx0:cx1]
    region[:] = region * (1 - m) + np.asarray(color, np.float32) * m


def _noise(shape: tuple[int, int], rng: np.random.Generator, cells: float) -> np.ndarray:
    """Smooth value noise in [-1, 1]-ish with about ``cells`` features across the image."""
    h, w = shape
    gh, gw = max(2, int(h / max(1.0, h / cells)) + 2), max(2, int(w / max(1.0, w / cells)) + 2)
    grid = rng.normal(size=(gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _surface(size: tuple[int, int], color, grain: float, rng: np.random.Generator) -> np.ndarray:
    """A flat colour with fibre grain and a little mottling (multiplicative), as float32 BGR."""
    h, w = size
    base = np.empty((h, w, 3), np.float32)
    base[:] = np.asarray(color, np.float32)
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.7)
    mottle = _noise((h, w), rng, 5)
    factor = 1 + grain * (0.6 * fine + 0.5 * mottle)
    return base * factor[..., None]


def _rotated(mask: np.ndarray, quarter_turns: int) -> np.ndarray:
    return np.rot90(mask, -quarter_turns).copy()


def _to_bgra(img: np.ndarray, alpha: np.ndarray | None = None) -> np.ndarray:
    out = np.empty(img.shape[:2] + (4,), np.uint8)
    out[..., :3] = np.clip(img, 0, 255).astype(np.uint8)
    out[..., 3] = 255 if alpha is None else np.clip(alpha * 255, 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


def _key_rng(*parts) -> np.random.Generator:
    # zlib.crc32, not hash(): str hashes change from process to process (PYTHONHASHSEED)
    seed = [zlib.crc32(str(p).encode()) for p in parts]
    return np.random.default_rng(seed)


def _rank_mark(
    canvas: np.ndarray, ed: Edition, suit: Suit, rank: int, centre, height: float, ink, rng, symbol_ink=None
) -> None:
    """The centre of a face: numeral, ace or null in the edition's style."""
    wobble = ed.wear
    jitter = np.array(centre, float) + (rng.normal(0, 0.015 * height, 2) if wobble else 0)
    opacity = 1.0 - 0.12 * wobble * rng.random()
    if rank == 0:
        if ed.null == "blank":
            return
        mark = _MaskPainter(int(height))
        if ed.null == "dot":
            mark.circle(0, 0, 0.14)
        elif ed.null == "ring":
            mark.stroke(_circle(0, 0, 0.3, 64), 0.07, closed=True)
        elif ed.null == "slash":
            mark.stroke(_wobble(np.array([(-0.22, 0.32), (0.22, -0.32)]), rng, 0.02 * wobble), 0.09)
        _paste(canvas, mark.mask(), jitter, ink, opacity)
        return
    if rank == 1 and ed.ace == "symbol":
        _paste(canvas, symbol_mask(suit, ed.symbol_style, height * 1.25, 1), jitter, symbol_ink or ink, opacity)
        return
    text = "A" if rank == 1 else str(rank)
    _paste(canvas, text_mask(text, ed.numeral_font, height), jitter, ink, opacity)


# --------------------------------------------------------------------------------------------------------
# textures
def texture_size_px(length_mm: float, px_per_mm: float) -> int:
    return max(8, int(round(length_mm * px_per_mm)))


@lru_cache(maxsize=256)
def tile_texture(ed: Edition, suit: Suit | None, rank: int | None, side: str, px_per_mm: float) -> np.ndarray:
    """BGRA texture of a tile face (``side="face"``: rank + suit symbols) or back (2x2 grid)."""
    size = texture_size_px(TILE_MM, px_per_mm)
    rng = _key_rng("tile", ed.name, suit, rank, side, px_per_mm)
    if side == "back":
        img = _surface((size, size), ed.tile_back, ed.texture_grain, rng)
        lines = _MaskPainter(size)
        inset, width = 0.035, 0.022
        frame = np.array([(-0.5 + inset, -0.5 + inset), (0.5 - inset, -0.5 + inset), (0.5 - inset, 0.5 - inset),
                          (-0.5 + inset, 0.5 - inset)])
        cross_v = np.array([(0.0, -0.5 + inset), (0.0, 0.5 - inset)])
        cross_h = np.array([(-0.5 + inset, 0.0), (0.5 - inset, 0.0)])
        if ed.wear:
            frame, cross_v, cross_h = (_wobble(a, rng, 0.006 * ed.wear) for a in (frame, cross_v, cross_h))
        lines.stroke(np.vstack([frame, frame[:1]]), width)
        lines.stroke(cross_v, width)
        lines.stroke(cross_h, width)
        _paste(img, lines.mask(), (size / 2, size / 2), ed.tile_back_lines, 0.95)
        return _to_bgra(img)
    suit = Suit(suit)
    ink = ed.color(suit)
    background = ed.tile_face
    if ed.face_in_suit_colour:
        background, ink = ink, ed.tile_face
    img = _surface((size, size), background, ed.texture_grain, rng)
    if ed.face_in_suit_colour:  # a light margin like a full-bleed print trimmed slightly off
        margin = max(1, int(round(1.2 * px_per_mm)))
        frame = np.zeros((size, size), np.float32)
        frame[:margin, :], frame[-margin:, :], frame[:, :margin], frame[:, -margin:] = 1, 1, 1, 1
        _paste(img, frame, (size / 2, size / 2), ed.tile_face, 0.9)
    if ed.tile_border is not None and not ed.face_in_suit_colour:
        border = _MaskPainter(size)
        inset = 0.045
        sq = np.array([(-0.5 + inset, -0.5 + inset), (0.5 - inset, -0.5 + inset), (0.5 - inset, 0.5 - inset),
                       (-0.5 + inset, 0.5 - inset), (-0.5 + inset, -0.5 + inset)])
        border.stroke(sq, 0.012)
        _paste(img, border.mask(), (size / 2, size / 2), ed.tile_border, 0.9)
    sym_size = int(round(0.2 * size))
    sym = symbol_mask(suit, ed.symbol_style, sym_size, 0)
    corners = {1: [(0.16, 0.16, 0)], 2: [(0.16, 0.16, 0), (0.84, 0.84, 2)],
               4: [(0.16, 0.16, 0), (0.84, 0.16, 0), (0.84, 0.84, 2), (0.16, 0.84, 2)]}[ed.corner_symbols]
    for fx, fy, turns in corners:
        jitter = rng.normal(0, 0.01 * size, 2) * ed.wear
        _paste(img, _rotated(sym, turns), (fx * size + jitter[0], fy * size + jitter[1]), ink)
    _rank_mark(img, ed, suit, int(rank), (size / 2, size / 2), 0.42 * size, ink, rng)
    if ed.wear:  # smudges of ink and dirt
        for _ in range(3):
            smudge = _MaskPainter(size)
            smudge.circle(*rng.uniform(-0.4, 0.4, 2), rng.uniform(0.02, 0.06))
            _paste(img, cv2.GaussianBlur(smudge.mask(), (0, 0), 0.02 * size), (size / 2, size / 2),
                   (90, 100, 110), 0.12)
    return _to_bgra(img)


@lru_cache(maxsize=256)
def coin_texture(ed: Edition, suit: Suit, rank: int, side: str, px_per_mm: float) -> np.ndarray:
    """BGRA texture of a coin's top: the value side (rank) or the suit side (symbol); alpha is the disc."""
    size = texture_size_px(COIN_MM, px_per_mm)
    suit = Suit(suit)
    rng = _key_rng("coin", ed.name, suit, rank, side, px_per_mm)
    img = _surface((size, size), ed.coin_face, ed.texture_grain * 1.2, rng)
    disc = _MaskPainter(size)
    disc.circle(0, 0, 0.5)
    alpha = disc.mask()
    ink = ed.color(suit)
    if side == "value":
        value_ink = ink if ed.coin_value_ink == "suit" else (30, 30, 30)
        _rank_mark(img, ed, suit, int(rank), (size / 2, size / 2), 0.5 * size, value_ink, rng, symbol_ink=ink)
        rim_ink = value_ink
    else:
        sym = symbol_mask(suit, ed.symbol_style, 0.66 * size, 2)
        _paste(img, sym, (size / 2, size / 2), ink)
        rim_ink = ink
    if ed.coin_rim:
        rim = _MaskPainter(size)
        rim.stroke(_circle(0, 0, 0.43, 96), 0.018, closed=True)
        _paste(img, rim.mask(), (size / 2, size / 2), rim_ink, 0.8)
    return _to_bgra(img, alpha)


@lru_cache(maxsize=256)
def die_texture(ed: Edition, suit: Suit, rank: int, px_per_mm: float) -> np.ndarray:
    """BGRA texture of one die face: the suit colour with the rank in ``die_ink``; corners rounded."""
    size = texture_size_px(DIE_MM, px_per_mm)
    suit = Suit(suit)
    rng = _key_rng("die", ed.name, suit, rank, px_per_mm)
    img = _surface((size, size), ed.color(suit), 0.03, rng)
    _rank_mark(img, ed, suit, int(rank), (size / 2, size / 2), 0.55 * size, ed.die_ink, rng)
    return _to_bgra(img)

