"""Pieces found surely where none lies on held-out boards (bench_detect seed offsets 80-140, which no rule was
tuned on; issue #5: a piece is never reported sure and wrong): each test names the frame, the place and why it
passed for a piece, and checks that nothing is found there now, with nothing else read wrong or found."""

from __future__ import annotations

from detect_scenes import easy_slider_frame, score, taught_profile

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Kind
from vision import Detector


def test_a_tiles_corner_beside_a_faint_peak_is_no_null_coin():
    """Hand-made Easy Slider seed 644 (bench offset 140): a faint coin peak 0.1 mm off the moons 2's left edge,
    by the gaps' crossing of four tiles. Its rim was fitted 4.6 mm into the tile (match 0.53, support 0.47) and,
    judged as a rim on the table, read as a sure null coin (confidence 0.51): the gap's line for the hand-made
    null's slash. A rim fitted into a tile's face is judged as one on a face (support 0.7 needed)."""
    profile = taught_profile("hand-made")
    frame = easy_slider_frame(644, edition="hand-made")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    assert not [p for p in detection.pieces + detection.uncertain
                if p.kind is Kind.COIN and abs(p.x_mm - 71) < 8 and abs(p.y_mm - 315) < 8]


def test_a_tiles_corner_print_reaching_over_its_edge_is_no_sure_coin():
    """Hand-made Easy Slider seed 640 (bench offset 140): the crowns 2's corner crown, with the corner's edges and
    the gaps beside it, was fitted as a coin's rim (match 0.63, 0.81 of the way round, polarity 0.885 where 0.85
    is needed on a face) and read as a sure crowns coin, suit side up, whose disc reached 1.6 mm over the tile's
    edge. A sure suit-side coin of a face tile's suit reaching over that tile's edge is doubted (kind unclear,
    naming nothing a game could settle it into)."""
    profile = taught_profile("hand-made")
    frame = easy_slider_frame(640, edition="hand-made")
    detection = Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    there = [p for p in detection.pieces + detection.uncertain
             if p.kind is Kind.COIN and abs(p.x_mm - 73) < 5 and abs(p.y_mm - 148) < 5]
    assert all(p.uncertain and not p.could_be for p in there)
