"""What is on the table: piece dataclasses, hands, lighting and the Scene.

Positions are table millimetres in the sheet's frame (x right, y down, origin at the calibration sheet's
top-left corner); ``angle_deg`` turns a piece clockwise as seen from above, 0 = its top toward -y.
Heights are found automatically: a coin whose centre lies on a tile rests on it, a die on a coin or tile, a pawn
or pyramid on whatever is under its centre (``h_mm`` overrides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from rules.pieces import PYRAMID_COLORS, PyramidSize, Suit, parse_rank

__all__ = [
    "TilePiece",
    "CoinPiece",
    "PawnPiece",
    "DiePiece",
    "PyramidPiece",
    "Piece",
    "Hand",
    "Lighting",
    "Scene",
    "Prop",
    "PROP_KINDS",
    "DIE_OPPOSITE",
]

#: Opposite faces of a piecepack die (like a d6 whose opposite faces sum to 7: ranks sum to 5).
DIE_OPPOSITE = {0: 5, 5: 0, 1: 4, 4: 1, 2: 3, 3: 2}


def _suit(value) -> Suit:
    return value if isinstance(value, Suit) else Suit.parse(str(value))


@dataclass(frozen=True)
class _PieceBase:
    kind: ClassVar[str] = ""

    def moved(self, x_mm: float | None = None, y_mm: float | None = None, angle_deg: float | None = None, **kw):
        """A copy at a new position (any field can be changed by keyword)."""
        changes = dict(kw)
        if x_mm is not None:
            changes["x_mm"] = float(x_mm)
        if y_mm is not None:
            changes["y_mm"] = float(y_mm)
        if angle_deg is not None:
            changes["angle_deg"] = float(angle_deg)
        return replace(self, **changes)


@dataclass(frozen=True)
class TilePiece(_PieceBase):
    """A 2 in square tile: ``side`` "face" (rank and suit showing) or "back" (the 2x2 grid)."""

    suit: Suit | str
    rank: int
    side: str = "face"
    x_mm: float = 0.0
    y_mm: float = 0.0
    angle_deg: float = 0.0
    edition: str | None = None  # None: the scene's edition
    h_mm: float | None = None
    kind: ClassVar[str] = "tile"

    def __post_init__(self):
        object.__setattr__(self, "suit", _suit(self.suit))
        object.__setattr__(self, "rank", parse_rank(self.rank))
        if self.side not in ("face", "back"):
            raise ValueError(f"tile side must be face or back, not {self.side!r}")


@dataclass(frozen=True)
class CoinPiece(_PieceBase):
    """A 3/4 in coin: ``side`` "value" (rank) or "suit" (symbol) up."""

    suit: Suit | str
    rank: int
    side: str = "value"
    x_mm: float = 0.0
    y_mm: float = 0.0
    angle_deg: float = 0.0
    edition: str | None = None
    h_mm: float | None = None
    kind: ClassVar[str] = "coin"

    def __post_init__(self):
        object.__setattr__(self, "suit", _suit(self.suit))
        object.__setattr__(self, "rank", parse_rank(self.rank))
        if self.side not in ("value", "suit"):
            raise ValueError(f"coin side must be value or suit, not {self.side!r}")


@dataclass(frozen=True)
class PawnPiece(_PieceBase):
    """A pawn in its suit's colour, standing upright."""

    suit: Suit | str
    x_mm: float = 0.0
    y_mm: float = 0.0
    angle_deg: float = 0.0
    edition: str | None = None
    h_mm: float | None = None
    kind: ClassVar[str] = "pawn"

    def __post_init__(self):
        object.__setattr__(self, "suit", _suit(self.suit))


@dataclass(frozen=True)
class DiePiece(_PieceBase):
    """A 1/2 in piecepack die in its suit's colour: ``top`` is the rank on the top face; ``north`` the rank on
    the side facing the piece's up direction (-y at angle 0); None picks one."""

    suit: Suit | str
    top: int = 0
    x_mm: float = 0.0
    y_mm: float = 0.0
    angle_deg: float = 0.0
    north: int | None = None
    edition: str | None = None
    h_mm: float | None = None
    kind: ClassVar[str] = "die"

    def __post_init__(self):
        object.__setattr__(self, "suit", _suit(self.suit))
        object.__setattr__(self, "top", parse_rank(self.top))
        if self.north is not None:
            north = parse_rank(self.north)
            if north in (self.top, DIE_OPPOSITE[self.top]):
                raise ValueError(f"a die with {self.top} on top cannot show {north} on a side")
            object.__setattr__(self, "north", north)


@dataclass(frozen=True)
class PyramidPiece(_PieceBase):
    """A Looney (Icehouse) pyramid. Upright: ``angle_deg`` turns it about the vertical. Flat (lying on a side):
    ``angle_deg`` is the direction its apex points (clockwise from -y) and (x, y) the centre of its outline."""

    color: str
    size: PyramidSize | str
    pose: str = "upright"
    x_mm: float = 0.0
    y_mm: float = 0.0
    angle_deg: float = 0.0
    h_mm: float | None = None
    kind: ClassVar[str] = "pyramid"

    def __post_init__(self):
        if self.color not in PYRAMID_COLORS:
            raise ValueError(f"unknown pyramid colour {self.color!r}: use one of {', '.join(PYRAMID_COLORS)}")
        object.__setattr__(self, "size", PyramidSize(str(self.size).lower()))
        if self.pose not in ("upright", "flat"):
            raise ValueError(f"pyramid pose must be upright or flat, not {self.pose!r}")


Piece = TilePiece | CoinPiece | PawnPiece | DiePiece | PyramidPiece


@dataclass(frozen=True)
class Hand:
    """A hand (and forearm) over the table.

    ``(x_mm, y_mm)`` is where the fingertips are, ``h_mm`` their height above the table (a hand touching a tile
    has h_mm about the tile's thickness). ``angle_deg`` is the direction the fingers point (clockwise from -y):
    0 = a player sitting at the bottom of the picture reaching up; the forearm runs back toward the opposite
    side and rises. ``pose``: "flat" (fingers out), "point" (index finger) or "pinch" (fingertips together,
    holding a piece). ``skin`` is a BGR colour; ``scale`` 1 = an adult hand about 19 cm long.
    """

    x_mm: float
    y_mm: float
    angle_deg: float = 0.0
    h_mm: float = 8.0
    pose: str = "flat"
    skin: tuple[int, int, int] = (125, 155, 205)
    scale: float = 1.0
    spread_deg: float = 6.0
    sleeve: tuple[int, int, int] | None = (95, 70, 55)  # a sleeve over the forearm (None: bare arm)
    motion_px: tuple[float, float] = (0.0, 0.0)  # motion blur vector over the exposure, output pixels

    def __post_init__(self):
        if self.pose not in ("flat", "point", "pinch"):
            raise ValueError(f"hand pose must be flat, point or pinch, not {self.pose!r}")


#: Everyday things that lie on a game table (distractors for the vision): sizes in mm (width, length, height).
PROP_KINDS: dict[str, tuple[float, float, float]] = {
    "phone": (72.0, 150.0, 8.0),
    "notepad": (105.0, 148.0, 4.0),
    "pencil": (7.0, 175.0, 7.0),
    "mug": (82.0, 82.0, 95.0),
    "box": (80.0, 115.0, 45.0),
}


@dataclass(frozen=True)
class Prop:
    """Something else on the table: "phone", "notepad", "pencil", "mug" or "box" (a piecepack's box), centred at
    (x_mm, y_mm), turned by ``angle_deg``; ``color`` (BGR) overrides its usual colour. Props are not pieces:
    they have no truth entry but their pixels are labelled PROP_ID (-3) and they cast shadows."""

    kind: str
    x_mm: float
    y_mm: float
    angle_deg: float = 0.0
    color: tuple[int, int, int] | None = None

    def __post_init__(self):
        if self.kind not in PROP_KINDS:
            raise ValueError(f"unknown prop {self.kind!r}: use one of {', '.join(PROP_KINDS)}")


SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (150, 175, 225),
    (125, 155, 205),
    (105, 140, 190),
    (80, 115, 165),
    (60, 85, 125),
    (45, 60, 90),
)


@dataclass(frozen=True)
class Lighting:
    """The room's light. A main lamp (point light with a size, for soft shadows and glare spots) plus ambient
    light; camera-side effects (white balance, exposure, vignetting, noise) also live here.

    ``lamp_mm`` is the lamp's position (x, y, height) in table mm.
    """

    lamp_mm: tuple[float, float, float] = (250.0, -300.0, 1400.0)
    lamp_radius_mm: float = 60.0  # bigger lamp -> softer shadows
    ambient: float = 0.5  # share of light from everywhere (shadows are never black)
    direct: float = 0.6
    shadow_strength: float = 1.0  # 1 = physical; less = fill light from other lamps
    glare: float = 1.0  # strength of specular highlights
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per-channel gains B, G, R
    exposure: float = 1.0
    vignetting: float = 0.25  # darkening at the corners (0 none)
    noise: float = 1.0  # sensor noise level (1 = a Pi camera in a lit room)
    blur_px: float = 0.4  # extra focus blur sigma in output pixels (on top of the lens' own ~0.45 px)
    jpeg_quality: int | None = 90  # None: no JPEG round trip
    gradient: float = 0.1  # extra low-frequency unevenness of the light (window light, second lamp)
    chromatic_px: float = 0.5  # lateral chromatic aberration at the image corners (red out, blue in), pixels
    shake_px: tuple[float, float] = (0.0, 0.0)  # camera shake during the exposure (motion blur of the frame)

    @classmethod
    def random(cls, rng: np.random.Generator, **overrides) -> Lighting:
        """Plausible room light: a lamp somewhere above, warm or cool white balance, some drift."""
        azimuth = rng.uniform(0, 2 * math.pi)
        height = rng.uniform(900, 2200)
        reach = rng.uniform(0, 900)
        lamp = (150 + reach * math.cos(azimuth), 150 + reach * math.sin(azimuth), height)
        warm = rng.uniform(-1, 1)
        jitter = rng.normal(0, 0.02, 3)
        wb = (1.0 - 0.12 * warm + jitter[0], 1.0 + jitter[1], 1.0 + 0.1 * warm + jitter[2])
        values = dict(
            lamp_mm=lamp,
            lamp_radius_mm=rng.uniform(20, 200),
            ambient=rng.uniform(0.35, 0.65),
            direct=rng.uniform(0.45, 0.75),
            shadow_strength=rng.uniform(0.6, 1.0),
            glare=rng.uniform(0.4, 1.2),
            white_balance=wb,
            exposure=rng.uniform(0.8, 1.15),
            vignetting=rng.uniform(0.1, 0.45),
            noise=rng.uniform(0.5, 1.8),
            blur_px=rng.uniform(0.1, 0.8),
            jpeg_quality=int(rng.integers(70, 96)),
            gradient=rng.uniform(0.0, 0.25),
            chromatic_px=rng.uniform(0.2, 1.0),
            shake_px=tuple(rng.normal(0, 1.5, 2)) if rng.random() < 0.15 else (0.0, 0.0),
        )
        values.update(overrides)
        return cls(**values)


@dataclass(frozen=True)
class Scene:
    """Everything on and over the table.

    ``table``: "wood", "dark-wood", "felt", "cloth", "tablecloth" or "laminate" (``table_variant`` picks its
    colour). ``sheet``: the calibration sheet's paper ("a4", "letter", "a3") lying at the origin, or None.
    ``edition``: the piecepack edition of pieces that do not name their own. ``props``: other things on the
    table (:class:`Prop`). ``table_rect_mm``: (x0, y0, x1, y1) of the table top; beyond it the camera sees the
    floor, 74 cm lower (None: the table goes on forever).
    """

    pieces: tuple = ()
    table: str = "wood"
    table_variant: int = 0
    sheet: str | None = "a4"
    edition: str = "default"
    hands: tuple = ()
    lighting: Lighting = field(default_factory=Lighting)
    props: tuple = ()
    table_rect_mm: tuple[float, float, float, float] | None = None

    def __post_init__(self):
        object.__setattr__(self, "pieces", tuple(self.pieces))
        object.__setattr__(self, "hands", tuple(self.hands))
        object.__setattr__(self, "props", tuple(self.props))

    def but(self, **changes) -> Scene:
        return replace(self, **changes)

    def with_piece(self, index: int, piece) -> Scene:
        pieces = list(self.pieces)
        pieces[index] = piece
        return replace(self, pieces=tuple(pieces))
