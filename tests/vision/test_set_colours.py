"""A profile from another set is refused by its tiles' colours (vision.set_colours, Detector._colours_refuse).

Every edition's backs print a frame and a cross: the default and bold backs read as each other's, all of them
surely, and the reader's colour-ratio features cannot tell them apart. The profile check counted unread outlines
only, so it let these through (the 4 x 3 wrong pairings of tile-backs 1001, 1003, 1204 and Easy Slider 500: 17
of 48 not refused). The tiles' colour relative to the sheet's paper beside them tells the sets apart.
"""

from __future__ import annotations

import numpy as np
import pytest
from detect_scenes import easy_slider_frame, taught_profile, tile_block_frame

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import COIN_MM, TILE_MM
from vision.detect import _COLOUR_REFUSE, Detector, ProfileMismatch
from vision.set_colours import colour_distances, paper_beside, paper_points, tile_colours

_BY_COLOUR = "their colours are another set's"


def test_teach_records_the_tiles_colours_per_suit_and_for_the_backs():
    for profile in (taught_profile("bold"), default_profile()):
        colours = profile.taught["tile_colours"]
        assert set(colours) == {"suns", "moons", "crowns", "arms", "back"}
    bold = taught_profile("bold").taught["tile_colours"]
    # the bold faces are printed in their suit's colour (suns red: more red than blue), its backs near black
    assert bold["suns"][2] > 1.5 * bold["suns"][0] and max(bold["back"]) < 0.3
    default = default_profile().taught["tile_colours"]
    assert default["back"][0] > 1.4 * default["back"][2]  # grey-blue backs


@pytest.mark.parametrize(("seed", "edition", "other"), [(1001, "bold", "default"), (1001, "default", "bold"),
                                                        (1003, "bold", "default"), (1003, "default", "bold")])
def test_backs_of_another_set_that_read_as_this_sets_are_refused_by_their_colour(seed, edition, other):
    frame = tile_block_frame(seed, edition=edition)
    calibration = calibrate_from_sheet(frame.image)
    profile = default_profile() if other == "default" else taught_profile(other)
    # without the colours (a profile taught before they were recorded) the other set's backs read as this set's
    # and the frame is judged: the check has nothing to go by and says nothing
    blind = profile.but(taught={k: v for k, v in profile.taught.items() if k != "tile_colours"})
    detection = Detector(calibration, blind).detect(frame.image, kinds=("tile", "coin"))
    assert sum(p.side == "back" for p in detection.pieces) >= 10
    with pytest.raises(ProfileMismatch, match=f"profile '{other}' \\({_BY_COLOUR}\\)"):
        Detector(calibration, profile).detect(frame.image, kinds=("tile", "coin"))
    # the right profile reads the frame
    right = default_profile() if edition == "default" else taught_profile(edition)
    assert Detector(calibration, right).detect(frame.image, kinds=("tile", "coin")).pieces


def test_glare_on_glossy_backs_does_not_refuse_the_right_profile():
    """Tile-backs 1204: a lamp close above the 2 x 2 block glares on the glossy default and bold backs. Their colour
    relative to the paper rises a third to twice (a check of brightness or of colour ratios would refuse the right
    profile, losing the frame); the opponent pair the check compares cancels the light the glare adds."""
    for edition in ("default", "bold"):
        frame = tile_block_frame(1204, edition=edition)
        calibration = calibrate_from_sheet(frame.image)
        profile = default_profile() if edition == "default" else taught_profile(edition)
        detection = Detector(calibration, profile).detect(frame.image, kinds=("tile", "coin"))
        backs = [p for p in detection.pieces if p.side == "back"]
        assert len(backs) == 4
        centres = np.array([[p.x_mm, p.y_mm] for p in backs])
        coins = np.array([[p.x_mm, p.y_mm] for p in detection.pieces if p.kind.value == "coin"])
        detector = Detector(calibration, profile)
        paper = paper_beside(frame.image, calibration, centres, coins, detector.sheet_mm, detector.markers_mm)
        relative = tile_colours(frame.image, calibration, centres, np.array([p.angle_deg for p in backs]),
                                profile.tile_thickness_mm) / paper
        taught = np.array(profile.taught["tile_colours"]["back"])
        assert np.median(np.log(relative.mean(axis=1) / taught.mean())) > 0.3  # the glare: far lighter than taught
        # the opponent pair: 0.042 (default) and 0.056 (bold) from the taught one
        distances = colour_distances(relative, ["back"] * 4, profile.taught["tile_colours"])
        assert np.median(distances) < 0.6 * _COLOUR_REFUSE


def test_tableside_detect_refuses_the_built_in_profile_on_bold_backs_in_one_line(capsys, tmp_path):
    """``tableside detect`` with the built-in profile (the default set) on the bold set's backs: one line, exit 2,
    nothing written (issue #5: "a profile from another set: a clear message, exit code 2, nothing written")."""
    import cv2

    from tableside.cli import main

    frame = tile_block_frame(1001, edition="bold")
    path, out = tmp_path / "backs.png", tmp_path / "never.png"
    cv2.imwrite(str(path), frame.image)
    assert main(["detect", str(path), "--annotate", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert _BY_COLOUR in err and "\n" not in err and "Traceback" not in err, err
    assert not out.exists()


def test_the_paper_points_are_those_off_every_tile_coin_and_marker_on_the_sheet():
    """paper_points' masks over all points at once keep exactly the points a plain look at each point against each
    tile, coin, the sheet and each marker keeps (Easy Slider 500: 24 tiles, 5 coins, points near markers)."""
    frame = easy_slider_frame(500)
    calibration = calibrate_from_sheet(frame.image)
    detector = Detector(calibration, default_profile())
    detection = detector.detect(frame.image, kinds=("tile", "coin"))
    tiles = np.array([[p.x_mm, p.y_mm] for p in detection.pieces if p.kind.value == "tile"])
    coins = np.array([[p.x_mm, p.y_mm] for p in detection.pieces if p.kind.value == "coin"])
    assert len(tiles) == 24 and len(coins) == 5
    sheet, markers = detector.sheet_mm, detector.markers_mm
    turns = np.radians(np.arange(16) * 22.5)
    expected, off_for = [], {"tile": 0, "coin": 0, "sheet": 0, "marker": 0}
    for centre in tiles:
        for ring in (TILE_MM / 2 + 5.0, TILE_MM / 2 + 10.0):
            for x, y in centre + ring * np.stack([np.cos(turns), np.sin(turns)], axis=1):
                reasons = {
                    "tile": any(max(abs(x - tx), abs(y - ty)) <= TILE_MM / 2 + 3.0 for tx, ty in tiles),
                    "coin": any(np.hypot(x - cx, y - cy) <= COIN_MM / 2 + 3.0 for cx, cy in coins),
                    "sheet": not (sheet[0] + 5.0 < x < sheet[2] - 5.0 and sheet[1] + 5.0 < y < sheet[3] - 5.0),
                    "marker": any(x0 - 5.0 < x < x1 + 5.0 and y0 - 5.0 < y < y1 + 5.0 for x0, y0, x1, y1 in markers),
                }
                for reason, off in reasons.items():
                    off_for[reason] += off
                if not any(reasons.values()):
                    expected.append((x, y))
    assert all(count > 0 for count in off_for.values()), off_for
    points = paper_points(tiles, coins, sheet, markers)
    assert points.shape == (len(expected), 2) and len(expected) >= 16  # 23 of 768
    assert np.allclose(points, np.array(expected), atol=1e-9)
    assert paper_points(tiles, coins, None, markers).shape == (0, 2)
    assert paper_points(np.zeros((0, 2)), coins, sheet, markers).shape == (0, 2)


def test_a_detector_that_judges_colours_once_skips_them_only_after_a_frame_proved_the_profile():
    """``colours_once`` (the live loop's detector): the tiles' colours are judged until one frame's lie near the
    profile's; another set's never do, so a wrong profile is refused on every frame, as a per-frame command's."""
    frame = tile_block_frame(1003, edition="bold")
    calibration = calibrate_from_sheet(frame.image)
    wrong = Detector(calibration, default_profile(), colours_once=True)
    for _ in range(2):
        with pytest.raises(ProfileMismatch, match=_BY_COLOUR):
            wrong.detect(frame.image, kinds=("tile", "coin"))
        assert not wrong.colours_proven
    right = Detector(calibration, taught_profile("bold"), colours_once=True)
    first = right.detect(frame.image, kinds=("tile", "coin"))
    assert right.colours_proven
    # proven: the next frame is read without the colour check (here the same frame: the same pieces)
    again = right.detect(frame.image, kinds=("tile", "coin"))
    assert [p.to_json() for p in again.pieces] == [p.to_json() for p in first.pieces]
    # a per-frame command's detector judges every frame: a wrong profile is refused though it proved nothing
    per_frame = Detector(calibration, taught_profile("bold"))
    per_frame.detect(frame.image, kinds=("tile", "coin"))
    per_frame.profile = default_profile()
    with pytest.raises(ProfileMismatch, match=_BY_COLOUR):
        per_frame.detect(frame.image, kinds=("tile", "coin"))


def test_the_live_loop_refuses_another_sets_profile_on_every_judged_frame(tmp_path):
    """``tableside watch`` with the built-in profile (the default set) over the bold set's backs (Slides of
    Action's block): every frame it judges is unreadable as another set's, none proves the profile, no move is
    recorded; with the bold profile the first judged frame proves it."""
    import cv2

    from tableside.commands.watch import VisionReader
    from tableside.session import Session
    from tableside.tracker import GameTracker, game_rules
    from vision.sources import open_source

    frame = tile_block_frame(1001, edition="bold")
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(8):  # one frame a second (a folder's pace): the table is still, judged and judged again
        cv2.imwrite(str(folder / f"{i:02d}.png"), frame.image)
    for profile, refused in ((default_profile(), True), (taught_profile("bold"), False)):
        reader = VisionReader("slides-of-action", profile=profile)
        with open_source(str(folder)) as source:
            session = Session(source, reader, GameTracker(game_rules("slides-of-action")))
            session.run()
        assert len(session.judged_frames) >= 2, session.events
        another = [e for e in session.events if e.kind == "unreadable" and _BY_COLOUR in e.text]
        if refused:
            assert [e.frame for e in another] == session.judged_frames, session.events
            assert not reader._detector.colours_proven and not session.tracker.moves
        else:
            assert not another and reader._detector.colours_proven
