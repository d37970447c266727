"""The detector's speed steps that must not change what it finds: forced tile searches left out where they can
only land on a calibration marker the frame shows exactly as printed (vision.marker_check); a crop the tile reader
searches anyway is not first looked at cell by cell for a covered tile (TileReader.read_batch)."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np
from detect_scenes import board_frame, easy_slider_frame, score, searched_tile_batches, taught_profile
from tablescene import TilePiece

from calibration.profile import default_profile
from calibration.sheet import sheet_layout
from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import TILE_MM, Kind
from vision import Detector
from vision.classify import TileReader
from vision.crops import piece_axes
from vision.detect import _Pose
from vision.marker_check import markers_shown, sheet_markers


@lru_cache(maxsize=1)
def _frame_900():
    """Easy Slider frame 900 and its calibration from the sheet in it (shared by two tests)."""
    frame = easy_slider_frame(900)
    return frame, calibrate_from_sheet(frame.image)


def _covered(truth: list[dict], points_mm: np.ndarray) -> bool:
    """Whether a tile of the truth lies over any of the points (its square footprint) or a coin (its disc)."""
    for piece in truth:
        offsets = points_mm - np.array([piece["x_mm"], piece["y_mm"]])
        if piece["kind"] == "tile":
            right, down = piece_axes(piece.get("angle_deg", 0.0))
            if np.any((np.abs(offsets @ right) < TILE_MM / 2) & (np.abs(offsets @ down) < TILE_MM / 2)):
                return True
        elif piece["kind"] == "coin" and np.any(np.hypot(*offsets.T) < 19.05 / 2):
            return True
    return False


def _shown_ids(frame, calibration) -> set[int]:
    markers = sheet_markers(calibration)
    return {int(i) for i in markers.ids[markers_shown(frame.image[..., 1], markers)]}


def test_markers_shown_are_those_no_piece_lies_on():
    """Easy Slider frame 900 (A3 sheet, 20 markers): the board's tiles lie over the markers of the sheet's left
    and right edges; the top and bottom rows and the bottom-right one are bare. The check says so marker by
    marker, and a marker moved by half a cell (the pattern read at the wrong place) is not shown."""
    frame, calibration = _frame_900()
    layout = sheet_layout("a3")
    cell = layout.marker_mm / 6
    expected = {i for i, corners in layout.markers.items() if not _covered(frame.truth, _cells(corners))}
    assert len(expected) == 11 and len(layout.markers) - len(expected) == 9
    assert _shown_ids(frame, calibration) == expected
    markers = sheet_markers(calibration)
    points = markers.points_mm + np.array([cell / 2, 0.0])
    moved = replace(markers, points_mm=points, pixels=calibration.table_to_pixel(points).astype(np.float32))
    assert not markers_shown(frame.image[..., 1], moved).any()


def _cells(corners: np.ndarray) -> np.ndarray:
    """A marker's square sampled every 2 mm (what a piece lying on it would cover)."""
    steps = np.linspace(0.0, 1.0, 16)
    u, v = np.meshgrid(steps, steps)
    return corners[0] + u.reshape(-1, 1) * (corners[1] - corners[0]) + v.reshape(-1, 1) * (corners[3] - corners[0])


def test_places_on_shown_markers_are_not_read_and_change_nothing():
    """Frame 900: the candidates on the bare markers (the markers' outlines pass for tiles' to the matched
    filter) and its two forced searches (a lattice place on the bottom-right marker, a lopsided outline around
    the top-right one) read nothing there: none of them is read now, and every piece found is the same as with
    every place read. (Frame 900 reads every face of the set before those looks, which are then not made at all:
    see test_second_looks; here they are made, as on a board missing a tile.)"""
    frame, calibration = _frame_900()
    detector = Detector(calibration)
    detector._every_face_read = lambda tiles: False
    read: list[tuple[str, list]] = []
    read_all = detector._read_poses_all

    def recorded(image, poses, *args, **kwargs):
        import sys

        read.append((sys._getframe(2).f_code.co_name, list(poses)))
        return read_all(image, poses, *args, **kwargs)

    detector._read_poses_all = recorded
    fast = detector.detect(frame.image, kinds=("tile", "coin"))
    fast_poses = [pose for _, poses in read for pose in poses]
    assert not detector._hiding_shown_markers(fast_poses).any()
    assert not [name for name, poses in read if name in ("_read_drifted", "_refit_lopsided")]
    read.clear()
    hiding = detector._hiding_shown_markers
    detector._hiding_shown_markers = lambda poses: np.zeros(len(poses), bool)  # every place read, as before
    full = detector.detect(frame.image, kinds=("tile", "coin"))
    full_poses = [pose for _, poses in read for pose in poses]
    assert np.count_nonzero(hiding(full_poses)) >= 10
    assert {name for name, _ in read} >= {"_read_drifted", "_refit_lopsided"}

    def rows(detection):
        return sorted((p.kind.value, str(p.suit), p.rank, p.side, round(p.x_mm, 6), round(p.y_mm, 6), p.uncertain,
                       p.reason) for p in [*detection.pieces, *detection.uncertain])

    assert len(fast.pieces) == 29 and rows(fast) == rows(full)


def test_a_tile_on_a_marker_is_still_searched_and_read():
    """A tile lying over half of the bottom-right marker (and one over a corner of the bottom-left one), beside
    a block of tiles: those markers are no longer shown, no search there is left out, and both tiles are read
    surely and right; the bare markers still are shown, and a search landing on them is left out."""
    layout = sheet_layout("a3")
    right_marker = layout.markers[49].mean(axis=0)  # (267, 330): bottom right, beside the board's last row
    left_marker = layout.markers[55].mean(axis=0)
    pieces = [TilePiece("arms", 3, "face", float(right_marker[0] - 8.0), float(right_marker[1] - 22.0), 1.0),
              TilePiece("suns", 0, "face", float(left_marker[0] + 34.0), float(left_marker[1] - 30.0), -0.5),
              TilePiece("moons", 5, "face", 150.0, 200.0, 0.5), TilePiece("crowns", 2, "face", 203.0, 200.0, 0.3),
              TilePiece("crowns", 4, "face", 150.0, 253.0, 0.2), TilePiece("moons", 1, "back", 203.0, 253.0, 0.0)]
    frame = board_frame(pieces, seed=1301)
    calibration = calibrate_from_sheet(frame.image)
    shown = _shown_ids(frame, calibration)
    assert 49 not in shown and 55 not in shown
    assert {40, 44, 50, 54} <= shown
    profile = taught_profile("default")
    detector = Detector(calibration, profile)
    detection = detector.detect(frame.image, kinds=("tile", "coin"))
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    for piece in pieces[:2]:
        found = [p for p in detection.pieces if p.kind is Kind.TILE
                 and math.hypot(p.x_mm - piece.x_mm, p.y_mm - piece.y_mm) < 6.0]
        assert [(p.suit.value, p.rank) for p in found] == [(piece.suit, piece.rank)], result.notes
        assert not detector._hides_shown_marker(_Pose(np.array([piece.x_mm, piece.y_mm]), piece.angle_deg))
    # a place right on a bare marker is left out; one where a tile would touch it (or overlap it by less than a
    # search's reach) is not
    bare = layout.markers[52]  # bottom row, middle: (128, 370) to (168, 410)
    middle = bare.mean(axis=0)
    assert detector._hides_shown_marker(_Pose(middle, 0.0))
    assert detector._hides_shown_marker(_Pose(middle + np.array([0.0, -20.0]), 15.0))
    for overlap in (0.0, 4.0):
        above = np.array([middle[0], bare[0, 1] - TILE_MM / 2 + overlap])
        assert not detector._hides_shown_marker(_Pose(above, 0.0)), overlap


class _LookingFirst(TileReader):
    """The tile reader as it was: every crop's first reading settles a low match cell by cell (covered or nothing)
    even where the crop is searched anyway."""

    def _judge(self, vector, per_label, turn, keep, order=None, occlusion=True):
        return super()._judge(vector, per_label, turn, keep, order)


def test_searched_crops_skip_the_occlusion_look_and_read_the_same():
    """Easy Slider board 505 (default set): its tile batches searched around (wide crops) hold crops that match
    a tile weakly; the first reading of those no longer looks cell by cell for a covered tile (1-2 ms a crop), as
    the search reads them anyway. Every batch reads exactly as before (label, score, window), with fewer looks."""
    profile = default_profile()
    batches = searched_tile_batches()
    assert batches
    looks = {"new": 0, "old": 0}
    readings = {}
    for name, reader in (("new", TileReader(profile)), ("old", _LookingFirst(profile))):
        real_look = reader._occlusion

        def counted(*args, name=name, real_look=real_look):
            looks[name] += 1
            return real_look(*args)

        reader._occlusion = counted
        readings[name] = [reader.read_batch(big, margin, *args, **kwargs) for big, margin, args, kwargs in batches]
    assert readings["new"] == readings["old"]
    assert looks["new"] < looks["old"]


class _AlwaysLookingFirst(TileReader):
    """The tile reader as the detector used it before: a batch's first reading always looks at a low match cell
    by cell, whether or not the detector then searches that crop."""

    def read_batch(self, big, margin, *args, cover_looks=True, **kwargs):
        return super().read_batch(big, margin, *args, **kwargs)


def _counting_looks(reader: TileReader) -> list[int]:
    looks = [0]
    real_look = reader._occlusion

    def counted(*args):
        looks[0] += 1
        return real_look(*args)

    reader._occlusion = counted
    return looks


def test_first_readings_skip_the_cover_look_only_for_crops_searched_after():
    """Detector._read_poses_all judges a batch's first readings without the cell-by-cell look for a covered tile,
    then judges again with it the crops reading nothing that it does not search around (the search reads the rest
    anew): Easy Slider boards 501 and 505 read exactly as with every first reading looked at, with fewer looks."""
    profile = default_profile()
    fewer = 0
    for seed in (501, 505):
        image = easy_slider_frame(seed).image
        calibration = calibrate_from_sheet(image)
        found, looks = {}, {}
        for name, reader in (("new", TileReader(profile)), ("old", _AlwaysLookingFirst(profile))):
            detector = Detector(calibration, profile)
            detector.tile_reader = reader
            looks[name] = _counting_looks(reader)
            found[name] = detector.detect(image, kinds=("tile",))
        assert found["new"].pieces == found["old"].pieces
        assert looks["new"][0] <= looks["old"][0]
        fewer += looks["old"][0] - looks["new"][0]
    assert fewer > 0


def test_the_half_frame_made_where_crops_read_it_samples_as_the_whole_halving():
    """Detector._sample_tiles samples tile crops from the frame halved only where they read it (crops.HalfFrame):
    every crop of Easy Slider board 502's detect (default set) is what the whole frame's halving gives, and most
    of the half frame is never made."""
    import cv2

    from vision import detect as detect_module
    from vision.crops import HalfFrame, sample_with

    frame = easy_slider_frame(502)
    image = frame.image
    detector = Detector(calibrate_from_sheet(image), default_profile())
    sampled = []
    real = HalfFrame.read_by

    def spy(self, homographies, size_mm):
        sampled.append((homographies.copy(), size_mm))
        return real(self, homographies, size_mm)

    calls = []
    real_sample = detect_module.sample_with

    def recording(source, homographies, size_mm, out_px, oversample=1, window=None):
        crops = real_sample(source, homographies, size_mm, out_px, oversample, window)
        calls.append((homographies.copy(), size_mm, out_px, oversample, window, crops))
        return crops

    HalfFrame.read_by = spy
    detect_module.sample_with = recording
    try:
        detector.detect(image, kinds=("tile",))
    finally:
        HalfFrame.read_by = real
        detect_module.sample_with = real_sample
    assert len(sampled) >= 3
    whole = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
    in_half = [homographies.tobytes() for homographies, _ in sampled]
    compared = 0
    for homographies, size_mm, out_px, oversample, window, crops in calls:
        if homographies.tobytes() in in_half:
            assert np.array_equal(crops, sample_with(whole, homographies, size_mm, out_px, oversample, window))
            compared += 1
    assert compared == len(sampled)
    assert detector._half is not None and detector._half._made.mean() < 0.5
