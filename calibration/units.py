"""Lengths on the table: millimetres (the unit of the table frame), inches, and "Small heights".

Martian Shuffleboard scores a piece "within a Small height (laid flat)" of a larger piece: the yardstick is the
length of a Small Icehouse pyramid lying on its side, from the middle of its base edge to its apex. Sets differ
a little, so :class:`SmallHeight` defaults to one inch (25.4 mm) and can be set from a Small the user measured.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calibration.errors import CalibrationError

__all__ = [
    "MM_PER_INCH",
    "DEFAULT_SMALL_HEIGHT_MM",
    "SmallHeight",
    "inches_to_mm",
    "mm_to_inches",
    "parse_length_mm",
    "distance_mm",
]

MM_PER_INCH = 25.4
DEFAULT_SMALL_HEIGHT_MM = 25.4  # a Small laid flat is about one inch long
# A measured Small outside this range is a typo or a measurement of the wrong piece (a Large is ~45 mm).
_SMALL_RANGE_MM = (15.0, 40.0)

_UNIT_MM = {
    "mm": 1.0,
    "cm": 10.0,
    "m": 1000.0,
    "in": MM_PER_INCH,
    "inch": MM_PER_INCH,
    "inches": MM_PER_INCH,
    '"': MM_PER_INCH,
}
_LENGTH_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(mm|cm|m|in|inch|inches|\")?\s*$")


def inches_to_mm(inches: float | np.ndarray) -> float | np.ndarray:
    """Inches to millimetres."""
    return inches * MM_PER_INCH


def mm_to_inches(mm: float | np.ndarray) -> float | np.ndarray:
    """Millimetres to inches."""
    return mm / MM_PER_INCH


def parse_length_mm(text: str) -> float:
    """A length typed by a user ("25.4", "25.4 mm", "2.5cm", "1in", '1"') in millimetres (bare numbers are mm)."""
    match = _LENGTH_RE.match(text)
    if not match:
        raise CalibrationError(f"cannot read the length {text!r}: write a number with mm, cm or in, e.g. 25.4mm")
    value = float(match.group(1)) * _UNIT_MM[(match.group(2) or "mm").lower()]
    if not math.isfinite(value) or value <= 0:
        raise CalibrationError(f"the length {text!r} must be positive")
    return value


def distance_mm(a_mm: Sequence[float] | np.ndarray, b_mm: Sequence[float] | np.ndarray) -> float | np.ndarray:
    """Euclidean distance between table points (``(..., 2)`` arrays in mm)."""
    diff = np.asarray(a_mm, dtype=np.float64) - np.asarray(b_mm, dtype=np.float64)
    result = np.hypot(diff[..., 0], diff[..., 1])
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class SmallHeight:
    """The "Small height" yardstick of Martian Shuffleboard, in millimetres."""

    mm: float = DEFAULT_SMALL_HEIGHT_MM

    def __post_init__(self) -> None:
        low, high = _SMALL_RANGE_MM
        if not (math.isfinite(self.mm) and low <= self.mm <= high):
            raise CalibrationError(
                f"a Small height of {self.mm:g} mm is implausible: measure a Small laid flat "
                f"(base edge to apex, about 25 mm; accepted {low:g}-{high:g} mm)"
            )

    @classmethod
    def from_measured(cls, length: float | str) -> SmallHeight:
        """From the measured length of one Small laid flat: a number in mm or text such as "25mm" or "1in"."""
        return cls(parse_length_mm(length) if isinstance(length, str) else float(length))

    @classmethod
    def from_points_mm(cls, base_mm: Sequence[float], apex_mm: Sequence[float]) -> SmallHeight:
        """From two table points (mm) at the base edge and the apex of a Small laid flat, e.g. clicked in a
        calibrated image."""
        return cls(float(distance_mm(base_mm, apex_mm)))

    def to_smalls(self, mm: float | np.ndarray) -> float | np.ndarray:
        """Millimetres to Small heights."""
        return mm / self.mm

    def to_mm(self, smalls: float | np.ndarray) -> float | np.ndarray:
        """Small heights to millimetres."""
        return smalls * self.mm

    def within(self, distance: float | np.ndarray, smalls: float = 1.0) -> bool | np.ndarray:
        """Whether a distance in mm is within ``smalls`` Small heights (inclusive: touching the mark counts)."""
        result = np.asarray(distance) <= smalls * self.mm
        return bool(result) if result.ndim == 0 else result
