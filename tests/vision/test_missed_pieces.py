"""Pieces the finder used to miss altogether (issues #5 and #6): each test names the frame, the piece and why it
was missed, and checks that it is found now with nothing read wrong or found where no piece lies."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from detect_scenes import coin_grid_frame, easy_slider_frame, score, slide_jam_frame, taught_profile, tile_block_frame
from state_scenes import state_case

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import Kind, Suit
from tableside.frame_input import GAME_KINDS
from tableside.reading import read_state
from vision import Detector, detect_pieces
from vision.pieces import DetectedPiece

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"


def _detect(frame, profile, kinds=("tile", "coin")):
    return Detector(calibrate_from_sheet(frame.image), profile).detect(frame.image, kinds=kinds)


@pytest.mark.parametrize("seed, nulls", [
    # a null beside its vote peak whose rim shows only half round (support 0.53, 0.59) though its signature fits
    # well (0.63, 0.74): the blank-face bar asked for a rim showing 0.7 round
    (1005, [(109, 140), (136, 217)]),
    # light nulls on white paper with no clear vote peak of their own: read at faint peaks, strictly (blank
    # readings were never taken there: empty paper is as blank), though their signatures fit 0.67 and 0.68
    # (support 0.53, 0.78; ink inside the rim 0.35, 0.29 of the crop's, under the blank face's 0.5)
    (1065, [(135, 242), (161, 268)]),
])
def test_blank_nulls_whose_rim_signature_fits_clearly_are_found(seed, nulls):
    """The default edition's null coin is a plain disc with a thin suit-coloured rim. Where the coin's radial
    signature fits 0.6 or more (empty table between and beside coins fits 0.5 at most: 2733 places measured), the
    null is found by its rim, with its value (the suit only when the thin rim shows it clearly)."""
    profile = taught_profile("default")
    frame = coin_grid_frame(seed, edition="default")
    detection = _detect(frame, profile)
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.missed == 0, result.notes
    nulls_found = [p for p in detection.pieces if p.kind is Kind.COIN and p.rank == 0 and p.side == "value"]
    for x, y in nulls:
        assert any(abs(p.x_mm - x) < 3 and abs(p.y_mm - y) < 3 for p in nulls_found), (x, y)


def _tiles_at(detection, x, y, within=4.0):
    return [p for p in detection.pieces
            if p.kind is Kind.TILE and abs(p.x_mm - x) < within and abs(p.y_mm - y) < within]


def test_a_bare_back_whose_candidate_lost_to_the_echo_beside_it_is_read():
    """Plans of Action, default edition, seed 100: the bare back at (226, 261) beside the sheet's marker. Its
    candidate came 4.5 degrees off and lost, by 0.14 of outline support, to the matched filter's echo half a tile
    off, between it and the back under coins; the echo read nothing and the back was never read ("Plans of Action
    uses all 16 tiles, but the layout has 15"). Outlines passed over beside one that read nothing are read after
    all, unless they lie halfway between two outlines (an echo: a back's printed grid repeats at half a tile, and
    the echo between two backs under coins read as a sure back, Slides of Action board 1101)."""
    profile = taught_profile("default")
    frame = state_case("plans-of-action", "default", 100).frame
    detection = _detect(frame, profile)
    assert len(_tiles_at(detection, 226, 261)) == 1
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
    block = tile_block_frame(1101, edition="default")
    result = score(_detect(block, profile), block, profile)
    assert result.wrong == 0 and result.extra == 0 and result.missed == 0, result.notes


def test_a_hole_framed_by_backs_looked_at_again_is_no_tile():
    """Plans of Action, classic edition, seed 100: the empty tile-space at (122, 157) framed by backs. Looked at
    again from around (a lattice place reading nothing), it read as an unclear back, and the state abstained
    ("Plans of Action uses all 16 tiles, but the layout has 17"): a second look keeps sure readings only."""
    profile = taught_profile("classic")
    case = state_case("plans-of-action", "classic", 100)
    detection = _detect(case.frame, profile)
    tiles = [p for p in detection.pieces + detection.uncertain if p.kind is Kind.TILE]
    assert not [t for t in tiles if abs(t.x_mm - 122) < 15 and abs(t.y_mm - 157) < 15]
    assert read_state(detection, "plans-of-action").text == case.text


@pytest.mark.parametrize("edition, make, seed, x, y", [
    # the grid's pitch put the place 5.4 mm above the arms ace beside the sheet's marker; its fit (reach 3 mm)
    # kept to the place with a side hardly showing: fitted again from starts 5 mm around, it is found
    ("default", easy_slider_frame, 501, 35, 221),
    # a classic null refitted 2.8 mm off the place read 0.23 at its window, 0.84 searched around
    ("classic", slide_jam_frame, 1204, 72, 240),
    # a hand-made null in the bottom row whose outline shows two sides under half: read searched
    ("hand-made", easy_slider_frame, 505, 92, 333),
])
def test_lattice_places_whose_outline_reads_nothing_are_looked_at_again(edition, make, seed, x, y):
    profile = taught_profile(edition)
    frame = make(seed, edition=edition)
    detection = _detect(frame, profile)
    assert len(_tiles_at(detection, x, y)) == 1
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0 and result.missed == 0, result.notes


def _fixture_truth(name):
    """The committed fixture's truth (fixtures/scenes/NAME.json): its pieces, as a perfect detector reports them."""
    truth = json.loads((SCENES / f"{name}.json").read_text())
    return [DetectedPiece(Kind(t["kind"]), t["x_mm"], t["y_mm"], t["angle_deg"] % 360.0, suit=Suit(t["suit"]),
                          rank=t.get("rank"), side=t.get("side")) for t in truth["pieces"]]


def test_the_readmes_photo_reads_every_piece_and_its_state():
    """The README's photo (fixtures/scenes/easy_slider.jpg, `tableside state ... --game easy-slider`). Its a3 suns 5
    lies white on the white sheet 9 mm from the sheet's edge (wood beyond it): the matched filter's candidate came
    5 mm towards that strong edge, the fit (reach 3 mm) took the sheet's edge for the tile's left side with its
    right side on nothing, and the crop, searched, was read "partly hidden": the state abstained. A tile left
    unsure with such a lopsided outline is fitted again farther, and kept where all four sides show and its face
    reads surely."""
    image = cv2.imread(str(SCENES / "easy_slider.jpg"))
    detection = detect_pieces(image, calibrate_from_sheet(image), None, kinds=GAME_KINDS["easy-slider"])
    truth = _fixture_truth("easy_slider")
    for t in truth:
        near = [p for p in detection.pieces + detection.uncertain
                if p.kind is t.kind and abs(p.x_mm - t.x_mm) < 3 and abs(p.y_mm - t.y_mm) < 3]
        assert len(near) == 1 and not near[0].uncertain, (t, near)
        assert (near[0].suit, near[0].rank, near[0].side) == (t.suit, t.rank, t.side), (t, near[0])
    expected = read_state(truth, "easy-slider")
    reading = read_state(detection, "easy-slider")
    assert reading.text == expected.text and reading.state == expected.state


def test_a_bottom_row_beside_the_markers_is_found_from_a_grid_of_faint_outlines():
    """Classic Easy Slider state 100: the bottom row's ace-side tiles (suns 5 at a1, arms 4 at b1) beside the
    sheet's markers and the hole fit badly as candidates (a1's came 6 degrees off, b1's bottom side on nothing)
    and are found only by the grid growing from the faint-edged tiles above them. Fitting every lopsided
    candidate farther (the first fix of the README photo) made those tiles' outlines complete, the grid no
    longer grew from them, and both were lost: a1 missed, b1 taken for an uncertain pawn."""
    profile = taught_profile("classic")
    case = state_case("easy-slider", "classic", 100)
    image = case.frame.image
    detection = detect_pieces(image, calibrate_from_sheet(image), profile, kinds=GAME_KINDS["easy-slider"])
    for x, y in ((35, 335), (90, 335)):
        assert len(_tiles_at(detection, x, y)) == 1, (x, y)
    assert read_state(detection, "easy-slider").text == case.text


@pytest.mark.parametrize("edition, seed, places", [
    # (261, 106), the moons 3: the candidate lay 8.5 mm right of it (towards a strong edge), its fit took that
    # edge for the right side with the left on nothing (support 0.14 / 0.86) and read nothing; the lattice's
    # place, 5 mm below the tile, was fitted 8 mm off: missed. (149, 220), the suns null: its candidate came
    # 6.8 degrees off the grid's turn (the fit turns 1.8 at most) and read "partly hidden"
    ("classic", 511, [(261, 106), (149, 220)]),
    # the arms null nudged 3.6 degrees, fitted 3.1 degrees off its turn: "partly hidden"
    ("hand-made", 511, [(260, 220)]),
])
def test_tiles_pulled_off_by_a_strong_edge_or_turned_off_are_fitted_again(edition, seed, places):
    """A clear outline read as nothing, on no tile found, or a tile left unsure, whose fit is lopsided (one side
    on an edge, the opposite one on hardly anything) is fitted again from a start 3 mm towards its weak side with
    twice the reach; a tile read "partly hidden" is fitted again turned 3 degrees either way (and at the grid's
    turn). Either is kept only where its face then reads surely and it lies on no other tile."""
    profile = taught_profile(edition)
    frame = easy_slider_frame(seed, edition=edition)
    detection = _detect(frame, profile)
    for x, y in places:
        assert len(_tiles_at(detection, x, y)) == 1, (x, y)
    result = score(detection, frame, profile)
    assert result.wrong == 0 and result.extra == 0, result.notes
