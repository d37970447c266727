"""Teach learns every tile face upright: the survey of a teach photo gives each tile its true turn.

The tiles' candidate angles come from a coarse matched filter, and bold's moons 4 and arms 5 start 5.5 degrees
off (default's suns 5 and arms 2, 3 start 2.5 degrees off). One outline fit reaches 2 degrees, so those tiles
were cut out turned 2-3 degrees and their templates learned turned: in game frames the faces then scored best
read 4-5 degrees off their true turn (bold Magic Mirror lost a moons 4).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from calibration.table_calibration import calibrate_from_sheet
from vision.detect import survey_teach_photo

_VISION_TESTS = str(Path(__file__).resolve().parent.parent / "vision")
if _VISION_TESTS not in sys.path:  # the rendered teach photos live with the vision tests (tests/vision/detect_scenes)
    sys.path.insert(0, _VISION_TESTS)

from detect_scenes import teach_photos  # noqa: E402


def _turn_error(found_deg: float, truth_deg: float) -> float:
    """Degrees between two tile turns, modulo the quarter turn the survey leaves open."""
    return (found_deg - truth_deg + 45.0) % 90.0 - 45.0


@pytest.mark.parametrize("edition", ["bold", "default"])
def test_teach_photo_tiles_are_surveyed_at_their_true_turn(edition):
    photo = teach_photos(edition)[0]
    surveyed = survey_teach_photo(photo.image, calibrate_from_sheet(photo.image), name="photo 1")
    truth = [t for t in photo.truth if t["kind"] == "tile"]
    assert len(surveyed.tiles) == len(truth) == 24
    errors = {}
    for t in truth:
        nearest = min(surveyed.tiles, key=lambda p: (p.x_mm - t["x_mm"]) ** 2 + (p.y_mm - t["y_mm"]) ** 2)
        assert (nearest.x_mm - t["x_mm"]) ** 2 + (nearest.y_mm - t["y_mm"]) ** 2 < 5.0**2
        errors[(t["suit"], t["rank"])] = round(_turn_error(nearest.angle_deg, t["angle_deg"]), 2)
    off = {label: error for label, error in errors.items() if abs(error) > 1.3}
    assert not off, f"tiles surveyed turned off their true turn (degrees): {off}"
