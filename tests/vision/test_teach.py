"""Teaching a piece set: every edition from its own two rendered teach photos, refusals of incomplete or
out-of-order layouts, and the profile file (versioned JSON; one-line errors for missing, damaged, foreign ones).

Each edition's profile is taught once and cached on disk (detect_scenes.taught_profile), so the detection tests
use the same profiles; frames are cached there too.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from detect_scenes import (
    first_teach_pieces,
    score,
    taught_profile,
    taught_profile_path,
    teach_frame,
    teach_photos,
)

from calibration.errors import CalibrationError
from calibration.profile import PROFILE_VERSION, load_profile, save_profile
from calibration.table_calibration import calibrate_from_sheet
from calibration.teach import build_profile
from rules.pieces import SUITS
from tableside.cli import main
from vision.detect import Detector, survey_teach_photo

EDITIONS = ("default", "classic", "hand-made", "bold")
#: Which coin values print the suit (in its colour): all in the default and bold editions, none in the
#: hand-made one (black ink), only the ace in the classic one (its ace is the suit's symbol).
VALUES_SHOWING_SUIT = {"default": [0, 1, 2, 3, 4, 5], "bold": [0, 1, 2, 3, 4, 5], "hand-made": [], "classic": [1]}


@pytest.mark.parametrize("edition", EDITIONS)
def test_each_edition_is_learned_from_its_two_photos(edition):
    profile = taught_profile(edition)
    assert [label for label in profile.tile_faces.labels] == [(s, r) for s in SUITS for r in range(6)]
    assert profile.tile_back is not None
    assert profile.taught["coin_value_ranks_showing_suit"] == VALUES_SHOWING_SUIT[edition]
    assert len(profile.coin_suits.labels) == 4
    # pawns in suit order: suns red (most red), arms blue (most blue), moons the darkest
    pawns = {s: np.array(profile.pawn_colors[s], float) for s in SUITS}
    assert max(SUITS, key=lambda s: pawns[s][2] - pawns[s][0]) is SUITS[0]
    assert max(SUITS, key=lambda s: pawns[s][0] - pawns[s][2]) is SUITS[3]
    assert min(SUITS, key=lambda s: pawns[s].sum()) is SUITS[1]
    assert set(profile.die_colors) == set(SUITS)
    # the profile reads the teach photo's own tiles and coins back: none wrong, none missed; where an edition
    # prints the value side's ace as the suit's symbol (classic, bold) the ace may be taken for the suit side,
    # so it may be uncertain
    photo = teach_photos(edition)[0]
    detection = Detector(calibrate_from_sheet(photo.image), profile).detect(photo.image, kinds=("tile", "coin"))
    result = score(detection, photo, profile)
    # (tiles and coins only: a die of the D block may pass for a blank coin when dice are not looked for)
    assert result.wrong == 0 and result.missed == 0 and result.extra <= 1, result.notes
    assert result.correct >= 42 and result.correct + result.uncertain == 48, result.notes


def test_teach_refuses_a_block_with_a_tile_missing():
    pieces = first_teach_pieces()
    del pieces[9]  # a moons tile
    frame = teach_frame(pieces)
    photo = survey_teach_photo(frame.image, calibrate_from_sheet(frame.image), name="photo 1")
    second = teach_photos()[1]
    other = survey_teach_photo(second.image, calibrate_from_sheet(second.image), name="photo 2")
    with pytest.raises(CalibrationError, match="found 23 tiles where the teach layout has 24"):
        build_profile([photo, other])


def test_teach_refuses_suits_out_of_order():
    pieces = first_teach_pieces()
    a, b = pieces[2], pieces[14]  # suns 2 and crowns 2 swap places
    pieces[2], pieces[14] = a.moved(x_mm=b.x_mm, y_mm=b.y_mm), b.moved(x_mm=a.x_mm, y_mm=a.y_mm)
    frame = teach_frame(pieces)
    photo = survey_teach_photo(frame.image, calibrate_from_sheet(frame.image), name="photo 1")
    second = teach_photos()[1]
    other = survey_teach_photo(second.image, calibrate_from_sheet(second.image), name="photo 2")
    with pytest.raises(CalibrationError, match="another suit"):
        build_profile([photo, other])


def test_teach_needs_the_coins_both_ways_up():
    first = teach_photos()[0]
    photo = survey_teach_photo(first.image, calibrate_from_sheet(first.image), name="photo 1")
    with pytest.raises(CalibrationError, match=r"suit side up \(S\)"):
        build_profile([photo])


def test_profile_file_round_trip(tmp_path):
    profile = taught_profile("default")
    path = save_profile(profile, tmp_path / "set.json")
    again = load_profile(path)
    assert again.name == profile.name and again.tile_faces.labels == profile.tile_faces.labels
    np.testing.assert_allclose(again.tile_faces.templates, profile.tile_faces.templates, atol=2e-3)
    np.testing.assert_allclose(again.coin_values.templates, profile.coin_values.templates, atol=2e-3)
    assert again.pawn_colors == profile.pawn_colors and again.die_colors == profile.die_colors
    assert sorted(again.rank_templates) == [0, 1, 2, 3, 4, 5]
    assert again.tile_marks is not None and again.tile_marks.labels == profile.tile_faces.labels
    np.testing.assert_allclose(again.tile_marks.templates, profile.tile_marks.templates, atol=2e-3)
    # a profile taught before the rank marks were (no "tile_marks" model) still loads, without them
    data = json.loads(path.read_text())
    del data["models"]["tile_marks"]
    (tmp_path / "older.json").write_text(json.dumps(data))
    older = load_profile(tmp_path / "older.json")
    assert older.tile_marks is None and older.tile_faces.labels == profile.tile_faces.labels


def test_bad_profile_files_are_one_line_errors(tmp_path):
    good = json.loads(taught_profile_path("default").read_text())
    cases = {
        "missing.json": None,
        "text.json": "not json at all",
        "calibration.json": json.dumps({"version": 1, "kind": "homography", "homography": [[1, 0, 0]] * 3}),
        "future.json": json.dumps({**good, "version": PROFILE_VERSION + 1}),
        "features.json": json.dumps({**good, "features": "something-else"}),
        "damaged.json": json.dumps({**good, "arrays": good["arrays"][:-40] + "!!"}),
        "no-models.json": json.dumps({k: v for k, v in good.items() if k != "models"}),
    }
    expected = {
        "missing.json": "not found",
        "text.json": "bad JSON",
        "calibration.json": "give it with --calibration",
        "future.json": f"version {PROFILE_VERSION + 1}",
        "features.json": "other features",
        "damaged.json": "damaged",
        "no-models.json": "damaged",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        with pytest.raises(CalibrationError) as err:
            load_profile(path)
        message = str(err.value)
        assert expected[name] in message and "\n" not in message, message


def test_teach_cli_writes_the_profile_and_refuses_bad_input(tmp_path, capsys):
    photos = teach_photos()
    paths = []
    for i, photo in enumerate(photos, start=1):
        path = tmp_path / f"teach-{i}.png"
        cv2.imwrite(str(path), photo.image)
        paths.append(str(path))
    out = tmp_path / "set.json"
    assert main(["teach", *paths, "--out", str(out), "--name", "my set", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tile_backs"] is True and report["name"] == "my set"
    assert load_profile(out).name == "my set"
    # one photo only: no suit sides -> exit 2, one line, nothing written
    again = tmp_path / "again.json"
    assert main(["teach", paths[0], "--out", str(again)]) == 2
    err = capsys.readouterr().err.strip()
    assert "suit side up" in err and "\n" not in err and not again.exists()
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG not really")
    assert main(["teach", str(broken), paths[1], "--out", str(again)]) == 2
    assert "not a readable image" in capsys.readouterr().err and not again.exists()
