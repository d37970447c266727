"""Editions: the art styles of real piecepacks, as data.

Real piecepacks differ: suit symbols are drawn differently, numerals use different fonts, the ace is an "A" or a
big suit symbol, the null is blank or a special mark, suit colours vary (Crowns green in one set, gold in
another; Moons black or dark purple), tiles are cardboard or thick wood. An :class:`Edition` holds all of that;
:mod:`tablescene.art` draws the pieces from it.

``DEFAULT_EDITION`` ("default") is the one the vision's built-in piece-set profile covers.
Colours are BGR tuples (OpenCV order), 0-255.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.pieces import Suit

__all__ = ["Edition", "EDITIONS", "DEFAULT_EDITION", "edition", "PYRAMID_BGR"]

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Edition:
    """How one piecepack looks. Lengths in mm."""

    name: str
    description: str
    # suit -> ink colour (BGR), in SUITS order: suns, moons, crowns, arms
    suit_colors: tuple[BGR, BGR, BGR, BGR]
    symbol_style: str  # "geometric", "heraldic" or "hand"
    numeral_font: str  # "dejavu-sans-bold", "dejavu-serif-bold", "dejavu-sans-mono", "hershey-triplex", ...
    ace: str  # "A" or "symbol"
    null: str  # "blank", "dot", "ring" or "slash"
    tile_face: BGR  # face background; ignored when face_in_suit_colour
    tile_back: BGR
    tile_back_lines: BGR
    tile_edge: BGR  # the colour of the tile's sides (wood, cardboard core...)
    tile_thickness_mm: float
    tile_border: BGR | None = None  # a printed frame around the face
    tile_corner_mm: float = 2.0  # radius of the tiles' rounded corners
    corner_symbols: int = 1  # suit symbols in 1 (top-left), 2 (TL + BR, the BR one turned) or 4 corners
    face_in_suit_colour: bool = False  # face background in the suit colour, ink in tile_face
    coin_face: BGR = (205, 222, 236)
    coin_value_ink: str = "suit"  # "suit" or "black"
    coin_edge: BGR = (150, 175, 195)
    coin_thickness_mm: float = 3.0
    coin_rim: bool = True  # a thin printed ring near the edge
    die_ink: BGR = (245, 245, 245)
    pawn_shape: str = "peg"  # "peg" (ball on a cone) or "meeple"
    pawn_height_mm: float = 28.0
    gloss: float = 0.35  # specular strength of faces (0 matte wood .. 1 laminated)
    shininess: float = 60.0
    wear: float = 0.0  # 0 crisp print .. 1 hand-made wobble and smudges
    texture_grain: float = 0.02  # amplitude of the surface's fibre/grain noise

    def color(self, suit: Suit | str) -> BGR:
        suit = suit if isinstance(suit, Suit) else Suit.parse(str(suit))
        return self.suit_colors[list(Suit).index(suit)]

    def but(self, **changes) -> Edition:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)


DEFAULT_EDITION = Edition(
    name="default",
    description="Print-and-play style: white laminated faces, geometric symbols, bold sans numerals, 'A' aces, "
    "blank nulls, red/black/green/blue suits; grey-blue backs with a white 2x2 grid; light wood coins.",
    suit_colors=((40, 40, 200), (35, 30, 30), (60, 140, 30), (170, 90, 20)),
    symbol_style="geometric",
    numeral_font="dejavu-sans-bold",
    ace="A",
    null="blank",
    tile_face=(242, 244, 245),
    tile_back=(120, 95, 70),
    tile_back_lines=(235, 235, 235),
    tile_edge=(190, 200, 205),
    tile_thickness_mm=3.0,
    tile_border=None,
    corner_symbols=2,
    coin_face=(196, 218, 235),
    coin_value_ink="suit",
    coin_edge=(140, 172, 200),
    coin_thickness_mm=3.2,
    gloss=0.5,
    shininess=250.0,
)

CLASSIC_EDITION = Edition(
    name="classic",
    description="Wooden heirloom set: thick birch tiles with printed serif numerals, heraldic symbols, big-symbol "
    "aces, a ring for null, gold Crowns and dark purple Moons, black coin values; burnt 2x2 grid on the backs.",
    suit_colors=((35, 35, 175), (80, 30, 60), (20, 160, 215), (150, 70, 25)),
    symbol_style="heraldic",
    numeral_font="hershey-triplex",
    ace="symbol",
    null="ring",
    tile_face=(170, 205, 230),
    tile_back=(150, 190, 220),
    tile_back_lines=(40, 60, 90),
    tile_edge=(120, 160, 200),
    tile_thickness_mm=6.0,
    tile_border=(60, 80, 110),
    tile_corner_mm=3.0,
    corner_symbols=4,
    coin_face=(150, 190, 220),
    coin_value_ink="black",
    coin_edge=(100, 140, 180),
    coin_thickness_mm=4.5,
    coin_rim=False,
    die_ink=(230, 240, 245),
    pawn_shape="peg",
    pawn_height_mm=25.4,
    gloss=0.12,
    shininess=20.0,
    texture_grain=0.06,
)

HANDMADE_EDITION = Edition(
    name="hand-made",
    description="Home-made: paper glued on grey board, marker-drawn wobbly symbols and script numerals, "
    "a slash for null, orange-red Suns, dark green Crowns, light blue Arms; kraft backs with a pen grid.",
    suit_colors=((30, 80, 225), (40, 35, 45), (40, 110, 25), (205, 140, 60)),
    symbol_style="hand",
    numeral_font="hershey-script",
    ace="A",
    null="slash",
    tile_face=(225, 235, 240),
    tile_back=(110, 150, 185),
    tile_back_lines=(50, 50, 60),
    tile_edge=(150, 150, 150),
    tile_thickness_mm=2.0,
    tile_border=None,
    tile_corner_mm=0.8,
    corner_symbols=1,
    coin_face=(215, 228, 235),
    coin_value_ink="black",
    coin_edge=(150, 150, 150),
    coin_thickness_mm=2.0,
    coin_rim=False,
    die_ink=(250, 250, 250),
    pawn_shape="meeple",
    pawn_height_mm=26.0,
    gloss=0.06,
    shininess=15.0,
    wear=1.0,
    texture_grain=0.05,
)

BOLD_EDITION = Edition(
    name="bold",
    description="Suit-coloured faces with white numerals and symbols (colour-printed set), dot for null, "
    "black backs with a grey grid, acrylic coins printed on both sides.",
    suit_colors=((45, 45, 210), (45, 40, 40), (50, 150, 50), (185, 110, 30)),
    symbol_style="geometric",
    numeral_font="dejavu-serif-bold",
    ace="symbol",
    null="dot",
    tile_face=(250, 250, 250),
    tile_back=(40, 38, 38),
    tile_back_lines=(150, 150, 150),
    tile_edge=(60, 60, 60),
    tile_thickness_mm=3.5,
    tile_border=(250, 250, 250),
    tile_corner_mm=2.5,
    corner_symbols=2,
    face_in_suit_colour=True,
    coin_face=(240, 240, 240),
    coin_value_ink="suit",
    coin_edge=(200, 200, 200),
    coin_thickness_mm=3.0,
    gloss=0.6,
    shininess=400.0,
)

EDITIONS: dict[str, Edition] = {e.name: e for e in (DEFAULT_EDITION, CLASSIC_EDITION, HANDMADE_EDITION, BOLD_EDITION)}

#: Icehouse pyramid colours (BGR) of the translucent plastic.
PYRAMID_BGR: dict[str, BGR] = {
    "red": (40, 30, 215),
    "yellow": (20, 210, 245),
    "green": (60, 175, 40),
    "blue": (200, 90, 25),
    "black": (35, 30, 30),
    "orange": (20, 120, 245),
    "purple": (150, 45, 120),
    "cyan": (210, 190, 40),
    "white": (235, 235, 235),
    "clear": (225, 230, 228),
}


def edition(name_or_edition: str | Edition | None) -> Edition:
    """Look an edition up by name (``None`` = the default edition)."""
    if name_or_edition is None:
        return DEFAULT_EDITION
    if isinstance(name_or_edition, Edition):
        return name_or_edition
    try:
        return EDITIONS[name_or_edition]
    except KeyError:
        raise ValueError(f"unknown edition {name_or_edition!r}: use one of {', '.join(EDITIONS)}") from None
