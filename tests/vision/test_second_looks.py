"""The tile finder's second looks made cheaper without changing what it finds (issue #5): an outline fitted from a
start already fitted that frame is not fitted again (Detector._fit_tiles)."""

from __future__ import annotations

import sys

import numpy as np
from detect_scenes import easy_slider_frame

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from vision import Detector


def test_an_outline_fit_is_the_same_made_alone_in_a_batch_or_remembered():
    """The second looks around a lattice place fit outlines from the same starts (Detector._refit_around, then
    _refit_around_corner): a fit is remembered by its start for the frame. A fit depends on its own start alone:
    made alone, in a batch with others, or given back from memory, it is the same bit for bit."""
    frame = easy_slider_frame(505)
    detector = Detector(calibrate_from_sheet(frame.image), default_profile())
    detection = detector.detect(frame.image, kinds=("tile", "coin"))
    assert detection.pieces
    gradients = detector._fitted_on
    assert gradients is not None and detector._fitted
    starts = np.array([[150.0, 200.0], [-25.0, 221.0], [262.0, 40.0], [100.5, 160.25]])
    angles = np.array([0.5, -0.7, 1.3, 90.5])
    remembered = detector._fit_tiles(gradients, starts, angles)
    batch = detector._fit_tiles_now(gradients, starts, angles, 3.0)
    alone = [detector._fit_tiles_now(gradients, starts[i : i + 1], angles[i : i + 1], 3.0)[0] for i in range(4)]
    again = detector._fit_tiles(gradients, starts[::-1], angles[::-1])[::-1]
    for (pose, fit), others in zip(remembered, zip(batch, alone, again, strict=True), strict=True):
        for other_pose, other_fit in others:
            assert pose.centre.tobytes() == other_pose.centre.tobytes() and pose.angle_deg == other_pose.angle_deg
            assert fit == other_fit
    assert all(a is b for a, b in zip(remembered, again, strict=True))  # given back, not fitted again


def test_the_corner_look_fits_nothing_again():
    """Default Easy Slider board 505: the corner look's starts are those of the look around the places, fitted
    there already; it fits no outline of its own."""
    frame = easy_slider_frame(505)
    detector = Detector(calibrate_from_sheet(frame.image), default_profile())
    made: list[tuple[str, int]] = []
    fit_now = detector._fit_tiles_now

    def recorded(gradients, centres, angles, reach_mm):
        made.append((sys._getframe(2).f_code.co_name, len(centres)))
        return fit_now(gradients, centres, angles, reach_mm)

    detector._fit_tiles_now = recorded
    detector.detect(frame.image, kinds=("tile", "coin"))
    around = [n for name, n in made if name == "_fits_around"]
    assert len(around) == 1 and around[0] >= 4  # the look around fitted them, the corner look none
