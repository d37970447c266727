"""Lengths: millimetres, inches and the Small height."""

import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.units import (
    DEFAULT_SMALL_HEIGHT_MM,
    SmallHeight,
    distance_mm,
    inches_to_mm,
    mm_to_inches,
    parse_length_mm,
)


def test_inches_and_millimetres():
    assert inches_to_mm(2.0) == pytest.approx(50.8)
    assert mm_to_inches(19.05) == pytest.approx(0.75)
    np.testing.assert_allclose(inches_to_mm(np.array([1.0, 0.5])), [25.4, 12.7])


@pytest.mark.parametrize(
    "text,mm", [("25.4", 25.4), ("25.4mm", 25.4), (" 2.5 cm ", 25.0), ("1in", 25.4), ('1"', 25.4), ("0.03m", 30.0)]
)
def test_parse_length(text, mm):
    assert parse_length_mm(text) == pytest.approx(mm)


@pytest.mark.parametrize("text", ["", "abc", "25 furlongs", "-3mm", "0"])
def test_parse_length_rejects_nonsense(text):
    with pytest.raises(CalibrationError):
        parse_length_mm(text)


def test_small_height_defaults_to_an_inch_and_converts_both_ways():
    small = SmallHeight()
    assert small.mm == DEFAULT_SMALL_HEIGHT_MM == 25.4
    assert small.to_smalls(50.8) == pytest.approx(2.0)
    assert small.to_mm(1.5) == pytest.approx(38.1)
    np.testing.assert_allclose(small.to_smalls(np.array([0.0, 12.7])), [0.0, 0.5])


def test_small_height_from_a_measured_small():
    assert SmallHeight.from_measured(24.6).mm == pytest.approx(24.6)
    assert SmallHeight.from_measured("2.46cm").mm == pytest.approx(24.6)
    assert SmallHeight.from_points_mm((100.0, 100.0), (115.0, 120.0)).mm == pytest.approx(25.0)
    with pytest.raises(CalibrationError, match="implausible"):
        SmallHeight.from_measured("45mm")  # a Large, not a Small
    with pytest.raises(CalibrationError, match="implausible"):
        SmallHeight(float("nan"))


def test_within_a_small_height_is_inclusive():
    small = SmallHeight(25.0)
    assert small.within(25.0)
    assert not small.within(25.01)
    assert small.within(49.0, smalls=2)
    np.testing.assert_array_equal(small.within(np.array([10.0, 30.0])), [True, False])


def test_distance_between_table_points():
    assert distance_mm((0, 0), (3, 4)) == pytest.approx(5.0)
    np.testing.assert_allclose(distance_mm(np.zeros((2, 2)), np.array([[6, 8], [0, 1]])), [10.0, 1.0])
