"""The domain vocabulary shared by every part of tableside: suits, ranks, kinds of piece, sides.

The same words are used in code, in JSON and in speech:

* kind ``tile | coin | pawn | die | pyramid``
* suit ``suns | moons | crowns | arms``, shown as the colours red, black, green, blue
* rank an int 0..5 (0 = null, 1 = ace)
* tile side ``face | back``; coin side ``value | suit``
* pyramid ``color``, ``size`` ``small | medium | large``, ``pose`` ``upright | flat``

This module is pure Python (no cv2) so that ``rules``, ``calibration``, ``vision`` and ``tableside``
can all import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "Suit",
    "SUITS",
    "RANKS",
    "Kind",
    "TileSide",
    "CoinSide",
    "PyramidSize",
    "PyramidPose",
    "PYRAMID_COLORS",
    "Tile",
    "Coin",
    "rank_name",
    "parse_rank",
    "spoken_name",
    "TILE_MM",
    "COIN_MM",
    "DIE_MM",
]

# Physical sizes of a standard piecepack (mm).
TILE_MM = 50.8  # 2 inch square tile
COIN_MM = 19.05  # 3/4 inch coin
DIE_MM = 12.7  # 1/2 inch die


class Suit(StrEnum):
    """A piecepack suit. The value is the JSON/code word; ``colour`` is what players say aloud."""

    SUNS = "suns"
    MOONS = "moons"
    CROWNS = "crowns"
    ARMS = "arms"

    @property
    def colour(self) -> str:
        return _COLOURS[self]

    @property
    def letter(self) -> str:
        """One-letter code used in PPN set-up strings (S, M, C, A)."""
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Accept a suit word ("suns"), its singular ("sun"), colour ("red") or letter ("S")."""
        key = text.strip().lower()
        try:
            return _PARSE[key]
        except KeyError:
            raise ValueError(f"unknown suit {text!r}: use suns, moons, crowns or arms") from None


_COLOURS = {Suit.SUNS: "red", Suit.MOONS: "black", Suit.CROWNS: "green", Suit.ARMS: "blue"}
_LETTERS = {Suit.SUNS: "S", Suit.MOONS: "M", Suit.CROWNS: "C", Suit.ARMS: "A"}
_PARSE: dict[str, Suit] = {}
for _s in Suit:
    _PARSE[_s.value] = _s
    _PARSE[_s.value[:-1]] = _s
    _PARSE[_COLOURS[_s]] = _s
    _PARSE[_LETTERS[_s].lower()] = _s

#: Suits in the canonical order (the teach layout's row order; Suns first).
SUITS: tuple[Suit, ...] = (Suit.SUNS, Suit.MOONS, Suit.CROWNS, Suit.ARMS)
#: Ranks: 0 = null, 1 = ace, then 2..5.
RANKS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)

_RANK_NAMES = {0: "Null", 1: "Ace", 2: "2", 3: "3", 4: "4", 5: "5"}
_RANK_PARSE = {"null": 0, "n": 0, "0": 0, "ace": 1, "a": 1, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}


def rank_name(rank: int) -> str:
    """Spoken name of a rank: ``Null``, ``Ace``, ``2`` .. ``5``."""
    try:
        return _RANK_NAMES[rank]
    except KeyError:
        raise ValueError(f"rank must be 0..5 (0 = null, 1 = ace), not {rank!r}") from None


def parse_rank(text: str | int) -> int:
    """Accept ``0``-``5``, ``null``/``n``, ``ace``/``a`` (any case)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text in _RANK_NAMES:
            return text
        raise ValueError(f"rank must be 0..5 (0 = null, 1 = ace), not {text!r}")
    try:
        return _RANK_PARSE[str(text).strip().lower()]
    except KeyError:
        raise ValueError(f"unknown rank {text!r}: use null, ace, 2, 3, 4 or 5") from None


def spoken_name(suit: Suit, rank: int) -> str:
    """How the Caller says a tile or coin: colour then rank, e.g. ``Blue 5``, ``Green Null``, ``Red Ace``."""
    return f"{suit.colour.capitalize()} {rank_name(rank)}"


class Kind(StrEnum):
    TILE = "tile"
    COIN = "coin"
    PAWN = "pawn"
    DIE = "die"
    PYRAMID = "pyramid"


class TileSide(StrEnum):
    FACE = "face"
    BACK = "back"


class CoinSide(StrEnum):
    VALUE = "value"
    SUIT = "suit"


class PyramidSize(StrEnum):
    """Looney pyramid sizes, with their point values (1, 2, 3) and real dimensions in mm."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"

    @property
    def points(self) -> int:
        return {"small": 1, "medium": 2, "large": 3}[self.value]

    @property
    def base_mm(self) -> float:
        return {"small": 14.3, "medium": 19.8, "large": 25.4}[self.value]

    @property
    def height_mm(self) -> float:
        return {"small": 25.4, "medium": 34.9, "large": 44.5}[self.value]


class PyramidPose(StrEnum):
    UPRIGHT = "upright"
    FLAT = "flat"


#: Icehouse colours (Rainbow and Xeno stashes). ``clear`` is the colourless translucent set.
PYRAMID_COLORS: tuple[str, ...] = (
    "red", "yellow", "green", "blue", "black",  # Rainbow / classic
    "orange", "purple", "cyan", "white", "clear",  # Xeno and others
)


@dataclass(frozen=True, order=True)
class Tile:
    """A piecepack tile seen face up: its suit and rank."""

    suit: Suit
    rank: int

    def __post_init__(self) -> None:
        if not isinstance(self.suit, Suit):
            object.__setattr__(self, "suit", Suit.parse(str(self.suit)))
        object.__setattr__(self, "rank", parse_rank(self.rank))

    def __str__(self) -> str:
        return f"{rank_name(self.rank).lower()} of {self.suit.value}"

    @property
    def spoken(self) -> str:
        return spoken_name(self.suit, self.rank)


@dataclass(frozen=True, order=True)
class Coin:
    """A piecepack coin: its suit (on the suit side) and rank (on the value side)."""

    suit: Suit
    rank: int

    def __post_init__(self) -> None:
        if not isinstance(self.suit, Suit):
            object.__setattr__(self, "suit", Suit.parse(str(self.suit)))
        object.__setattr__(self, "rank", parse_rank(self.rank))

    def __str__(self) -> str:
        return f"{rank_name(self.rank).lower()} coin of {self.suit.value}"

    @property
    def spoken(self) -> str:
        return spoken_name(self.suit, self.rank)
