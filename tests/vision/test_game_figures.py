"""Pawns and dice in rendered game scenes (tests/state_scenes.py): never read surely and wrongly.

Each frame is a position the states tests read (1640x1232, A3 sheet, 70-90 cm, random room light), detected as
``tableside state`` does (calibrated from the sheet, the edition's taught profile, the game's kinds). Every pawn
or die reported surely must be a piece of that kind and suit within 3 mm of where one stands; a piece that is
unclear may be reported uncertain or missed, never guessed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from detect_scenes import taught_profile
from state_scenes import SHEET_CENTRE, TABLES, game_camera, state_case
from tablescene import Lighting, Scene, coin_grid
from tablescene.scene import DiePiece, PawnPiece

from calibration.table_calibration import calibrate_from_sheet
from rules.pieces import SUITS
from tableside.frame_input import GAME_KINDS
from vision.detect import detect_pieces


def _read(name: str, edition: str, seed: int):
    # Trampo-Land's frames as first measured (kids drawn from all coins): these tests were written on them; the
    # frames laid from one set are bench_states' and test_rendered_states' (a pawn on a trampoline of its own suit
    # is doubted there as a print on a coin: trampo-15's note)
    case = state_case(name, edition, seed, real_set=False)
    image = case.frame.image
    detection = detect_pieces(image, calibrate_from_sheet(image), taught_profile(edition), kinds=GAME_KINDS[name])
    truth = [t for t in case.frame.truth if t["kind"] in ("pawn", "die") and not t.get("hidden")]
    return detection, truth


def _sure_figures_right(detection, truth) -> list[str]:
    """What is wrong among the pawns and dice reported surely (empty: nothing)."""
    wrong = []
    for p in detection.pieces:
        if p.kind.value not in ("pawn", "die"):
            continue
        near = min(truth, key=lambda t: math.hypot(t["x_mm"] - p.x_mm, t["y_mm"] - p.y_mm), default=None)
        if near is None or math.hypot(near["x_mm"] - p.x_mm, near["y_mm"] - p.y_mm) > 3.0:
            wrong.append(f"a sure {p.kind.value} {p.suit} at ({p.x_mm:.0f}, {p.y_mm:.0f}) where none stands")
        elif (p.kind.value, p.suit.value if p.suit else None) != (near["kind"], near["suit"]):
            wrong.append(f"{near['kind']} {near['suit']} at ({near['x_mm']:.0f}, {near['y_mm']:.0f}) read surely as "
                         f"{p.kind.value} {p.suit}")
    return wrong


@pytest.mark.parametrize("name,seed", [("easy-slider", 2), ("trampo-land", 92)])
def test_a_light_blue_hand_made_pawn_is_arms_not_crowns(name, seed):
    """The hand-made edition's light blue (Arms) meeple: teach measured it nearly grey on the paper (its shadow
    counted), which left the blue pawns nearest to green Crowns; its die's colour is the suit's reference too.
    Where dice are looked for too (Trampo-Land), a meeple may be reported "a pawn or a die" (no meeple model: its
    plastic reaches beyond the peg pawn fitted), but its colour is read: Arms, never unclear."""
    detection, truth = _read(name, "hand-made", seed)
    assert _sure_figures_right(detection, truth) == []
    arms = [t for t in truth if t["kind"] == "pawn" and t["suit"] == "arms"]
    read = [p for p in detection.pieces + detection.uncertain if p.kind.value == "pawn" and p.suit is not None
            and p.suit.value == "arms" and (not p.uncertain or (name != "easy-slider" and "colour" not in p.reason))]
    assert arms and any(math.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]) < 3.0 for t in arms for p in read), \
        [(p.kind.value, p.suit, round(p.x_mm), round(p.y_mm), p.reason) for p in detection.pieces + detection.uncertain]


def test_a_gold_crown_on_a_kids_coin_is_not_a_crowns_pawn():
    """Trampo-Land, classic edition: a coin lying on a coin (a kid on a trampoline) shows a gold crown, the
    colour of the classic Crowns pawn; a pawn fitted there reaches far beyond the coins' region."""
    detection, truth = _read("trampo-land", "classic", 91)
    assert _sure_figures_right(detection, truth) == []
    # the four pawns standing on coins are still read
    pawns = [t for t in truth if t["kind"] == "pawn"]
    read = [p for p in detection.pieces if p.kind.value == "pawn"]
    assert sum(any(math.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]) < 3.0 for p in read) for t in pawns) >= 3


@pytest.mark.parametrize("seed", [92, 100, 121])
def test_a_gold_crown_fitted_along_its_coins_outline_is_no_sure_pawn(seed):
    """Trampo-Land, classic edition: the gold crown on a kid's coin fitted as a Crowns pawn whose silhouette
    follows the coin's outline (0.50-0.65 outlined: no feature of the figure tells it from a real pawn) was sure.
    The coin's own printed face reads there (a real pawn hides the coin's centre): it is unclear, for that reason,
    or, where the coin itself is read surely (its face whole: nothing stands on it), not fitted at all; every pawn
    standing is still read surely."""
    detection, truth = _read("trampo-land", "classic", seed)
    assert _sure_figures_right(detection, truth) == []
    pawns = [t for t in truth if t["kind"] == "pawn"]
    phantoms = [p for p in detection.uncertain if p.kind.value == "pawn" and not any(
        math.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]) < 3.0 for t in pawns)]
    assert all("kind unclear" in (p.reason or "") for p in phantoms), [(p.x_mm, p.y_mm, p.reason) for p in phantoms]
    pawns = [t for t in truth if t["kind"] == "pawn"]
    read = [p for p in detection.pieces if p.kind.value == "pawn"]
    assert pawns and all(any(math.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]) < 3.0 for p in read) for t in pawns)


@pytest.mark.parametrize("name,seed", [("slides-of-action", 13), ("plans-of-action", 23)])
def test_the_prints_on_bold_coins_are_no_sure_pawns(name, seed):
    """Bold edition (white acrylic coins, a suit-coloured print filling each): with every kind looked for (``detect``
    without a game), the prints on the coins fitted as pawns, outlined up to 0.84, and six on Slides of Action seed
    13 (no figures there) were sure; under them the coins' readings were emptied. A pawn's silhouette is coloured
    plastic, or darker than the table (a black pawn); a print on a white coin is neither."""
    case = state_case(name, "bold", seed)
    image = case.frame.image
    detection = detect_pieces(image, calibrate_from_sheet(image), taught_profile("bold"))
    assert not [t for t in case.frame.truth if t["kind"] in ("pawn", "die")]  # no figure stands there
    assert _sure_figures_right(detection, []) == []
    # ... and they are said to be unclear for that reason (the rule, not the frame, keeps them from being sure)
    assert any("a print on a coin?" in (p.reason or "") for p in detection.uncertain if p.kind.value == "pawn")


def _dice_near(detection, truth, within_mm: float = 3.0) -> tuple[list, list]:
    """The dice reported (sure or uncertain) near a die that stands, and those where none does."""
    dice = [t for t in truth if t["kind"] == "die"]
    reported = [p for p in detection.pieces + detection.uncertain if p.kind.value == "die"]
    near = [p for p in reported if any(math.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]) < within_mm for t in dice)]
    return near, [p for p in reported if p not in near]


@pytest.mark.parametrize("name,seed", [("roll-out-the-barrels", 107), ("whack-a-dummy", 81), ("whack-a-dummy", 107)])
def test_a_crown_printed_on_a_classic_coin_is_no_die(name, seed):
    """Classic coin grids: the gold crowns printed on the coins fitted as dice (uncertain ones made the maze hold
    '3 dice'; on whack-a-dummy 107 one was sure, 15 mm from any cell). A 16 mm cube's sides show around its top
    face; a print's do not (its fitted silhouette is weakly outlined and lies mostly off the region seen)."""
    detection, truth = _read(name, "classic", seed)
    assert _sure_figures_right(detection, truth) == []
    near, phantoms = _dice_near(detection, truth)
    assert len(near) == 1 and phantoms == [], [(round(p.x_mm), round(p.y_mm), p.reason) for p in phantoms]


def test_a_real_die_weakly_outlined_is_still_reported():
    """Trampo-Land, hand-made edition: the die standing on a coin is outlined at 0.53 only (its dark sides against
    the coin's print) but its silhouette lies on the region seen (0.93): it is a die, not a print."""
    detection, truth = _read("trampo-land", "hand-made", 107)
    near, _ = _dice_near(detection, truth)
    assert len(near) == 1


def test_a_meeple_seen_from_above_is_no_sure_blank_die():
    """Trampo-Land, hand-made edition: the orange (suns) meeple standing on a coin fits the die model; where its
    top face would be there is no numeral, so it read as a sure null die. Its head and shaded shoulders are two
    colours: a die's blank face is one."""
    detection, truth = _read("trampo-land", "hand-made", 114)
    assert _sure_figures_right(detection, truth) == []
    near, _ = _dice_near(detection, truth)
    assert len(near) == 1 and not near[0].uncertain  # the real die (a 5) is still read


def test_a_hand_made_die_is_read_with_the_editions_own_numerals():
    """Trampo-Land, hand-made edition (the states tests' frame): the die's top face (a script "A") was compared
    with the default edition's bold sans numerals ("die face unclear"); the edition's own rank marks, which teach
    learned from its tiles, read it surely."""
    detection, truth = _read("trampo-land", "hand-made", 92)
    assert _sure_figures_right(detection, truth) == []
    die = next(t for t in truth if t["kind"] == "die")
    read = [p for p in detection.pieces if p.kind.value == "die"
            and math.hypot(p.x_mm - die["x_mm"], p.y_mm - die["y_mm"]) < 3.0]
    assert [p.rank for p in read] == [die["top"]], \
        [(p.rank, p.reason) for p in detection.pieces + detection.uncertain if p.kind.value == "die"]


def _dice_on_coins(edition: str, seed: int, pawns: int = 2):
    """A 6 x 8 coin grid on the A3 sheet (value or suit side up) with 12 figures standing on coins two cells apart
    (no two side by side, as in the games): ``pawns`` pawns, the rest dice with random tops and turns; the states
    tests' camera and room light. Its detection as ``detect`` reads it (coins, pawns and dice) and the truth."""
    from detect_scenes import rendered

    rng = np.random.default_rng([seed, 808])
    cols, rows = 6, 8
    grid = [(SUITS[int(rng.integers(4))], int(rng.integers(6))) for _ in range(cols * rows)]
    coins = coin_grid(grid, (SHEET_CENTRE[0] - 2.5 * 25.4, SHEET_CENTRE[1] - 3.5 * 25.4), cols, rng=rng)
    coins = [c if rng.random() < 0.7 else c.moved(side="suit") for c in coins]
    shift = rng.integers(2, size=2)
    cells = [r * cols + c for r in range(int(shift[0]), rows, 2) for c in range(int(shift[1]), cols, 2)]
    rng.shuffle(cells)
    figures = []
    for i, cell in enumerate(cells):
        x, y = coins[cell].x_mm + rng.normal(0, 0.6), coins[cell].y_mm + rng.normal(0, 0.6)
        if i >= pawns:
            suit, top = SUITS[int(rng.integers(4))], int(rng.integers(6))
            figures.append(DiePiece(suit, top, x, y, float(rng.uniform(-45, 45))))
        else:
            figures.append(PawnPiece(SUITS[int(rng.integers(4))], x, y, float(rng.uniform(-40, 40))))
    scene = Scene(pieces=coins + figures, table=TABLES[seed % 4], sheet="a3", edition=edition,
                  lighting=Lighting.random(rng))
    frame = rendered(scene, game_camera(seed), seed)
    detection = detect_pieces(frame.image, calibrate_from_sheet(frame.image), taught_profile(edition),
                              kinds=("coin", "pawn", "die"))
    return detection, [t for t in frame.truth if t["kind"] in ("pawn", "die") and not t.get("hidden")]


def test_a_die_on_a_coin_taken_for_a_pawn_is_not_sure():
    """Default edition, ten dice and two pawns on a coin grid (seed 500): the suns die (a null) standing on its coin
    at the grid's corner nearest the camera fitted the pawn model better than the die model and was reported surely
    as a pawn. The die model fitted where that pawn stands shows a die's face: a pawn's top is no die face, so the
    piece's kind is unclear. Every die read surely shows its top face."""
    detection, truth = _dice_on_coins("default", 500)
    assert _sure_figures_right(detection, truth) == []
    for p in detection.pieces:
        if p.kind.value == "die":
            near = min(truth, key=lambda t: math.hypot(t["x_mm"] - p.x_mm, t["y_mm"] - p.y_mm))
            assert p.rank == near["top"], (p.rank, near)


def test_a_gold_crown_printed_just_under_the_print_bar_is_no_sure_pawn(monkeypatch):
    """Classic edition, dice and pawns on a coin grid (held-out seed 612): a crowns coin's gold crown, suit side
    up, with no figure on it, was fitted as a sure crowns pawn; read as a coin where the pawn stands, its crowns
    print scored 0.7997, under the 0.81 that made a pawn "a print on a coin?" (real pawns on coins, seeds 600-623:
    0.775 at most over 160; phantoms 0.800 or more over 14). At 0.79 it is doubted, and no sure figure is wrong.
    (The crowns coin's suit side is read surely by its size now, vision.coin_twins.READ_FAR, and no pawn is
    reported there at all: kept off here, where the print bar is the subject.)"""
    import vision.coin_twins

    monkeypatch.setattr(vision.coin_twins, "READ_FAR", False)
    detection, truth = _dice_on_coins("classic", 612)
    assert _sure_figures_right(detection, truth) == []
    doubted = [p for p in detection.uncertain if p.kind.value == "pawn" and math.hypot(p.x_mm - 210, p.y_mm - 301) < 3]
    assert doubted and all("a print on a coin?" in (p.reason or "") for p in doubted), doubted


def test_the_paper_between_coins_is_no_black_die():
    """Default edition, dice and pawns on a coin grid (seed 505): the paper between four coins, beside a pawn's
    shadow, fitted the die model, read blank and colourless: a sure black (Moons) null die where none stands. A
    black die's top is darker than the table beside it; that one was lighter (1.18 times)."""
    detection, truth = _dice_on_coins("default", 505)
    assert _sure_figures_right(detection, truth) == []


def test_a_classic_die_whose_top_is_a_ring_is_no_sure_pawn():
    """Classic edition, dice and pawns on a coin grid (seed 603): the moons die (a null: the classic null is a ring)
    standing on its coin fitted the pawn model better and was reported surely as a pawn. The die model fitted around
    it reads the ring (0.84), but only from fits off the pawn's centre, where a blank null does not count (a peg's
    round head looks as blank); a ring is a mark, matched like a numeral: it counts from any fit.
    The crowns die there (a dim ring, white on gold, on a beige coin) also fitted the pawn model better, and no face
    reads on its top: but its gold plastic reaches beyond the pawn fitted (a corner of its top face, 0.18 of the
    gold around it; real peg pawns 0.000), so it is "a pawn or a die", not a sure pawn."""
    detection, truth = _dice_on_coins("classic", 603)
    for suit in ("moons", "crowns"):
        die = next(t for t in truth if t["kind"] == "die" and t["suit"] == suit and t["top"] == 0)
        near = [p for p in detection.pieces + detection.uncertain
                if math.hypot(p.x_mm - die["x_mm"], p.y_mm - die["y_mm"]) < 3.0]
        assert near and all(p.uncertain or p.kind.value == "die" for p in near), [(p.kind, p.reason) for p in near]
    assert _sure_figures_right(detection, truth) == []


@pytest.mark.parametrize("seed,suit", [(502, "suns"), (510, "arms")])
def test_a_meeple_where_dice_may_stand_is_a_sure_pawn_where_it_stands(seed, suit):
    """Hand-made edition, dice and pawns on a coin grid (seeds 502, 510): the hand-made pawn is a meeple, no body of
    revolution; the peg pawn fitted to it leaves its arms and head outside (0.12 of its plastic), so where dice are
    looked for it was "a pawn or a die" and placed 1.6-2.2 mm off. The meeple model (fitted at any turn) outlines it
    at 0.96-0.98, far better than the peg (0.56-0.58) or the die (0.54-0.59), with all of its plastic inside: a sure
    pawn of its suit, within a millimetre of where it stands."""
    detection, truth = _dice_on_coins("hand-made", seed)
    assert _sure_figures_right(detection, truth) == []
    meeple = next(t for t in truth if t["kind"] == "pawn" and t["suit"] == suit)
    near = [p for p in detection.pieces + detection.uncertain
            if math.hypot(p.x_mm - meeple["x_mm"], p.y_mm - meeple["y_mm"]) < 5.0]
    sure = [p for p in near if not p.uncertain and p.kind.value == "pawn"
            and math.hypot(p.x_mm - meeple["x_mm"], p.y_mm - meeple["y_mm"]) < 1.0]
    assert len(sure) == 1 and sure[0].suit.value == suit, [
        (p.kind, p.suit, round(p.x_mm, 1), round(p.y_mm, 1), p.reason) for p in near]


def test_sure_coins_under_no_figure_leave_the_sheets_paper_to_the_background():
    """Hand-made edition, dice and pawns on a coin grid (seed 500): once the two script A's between the dice read
    surely, all but the dice's coins were sure, and the background (sure coins left out whole) was estimated from
    the few pixels left in the grid -- the dice's -- so the sheet's paper around them looked green and dark, a
    3600 mm2 region was taken for a hand and the dice beside it were "partly hidden by a hand" (5 of 12 figures
    sure). The background is estimated off every coin, from the paper between them: no hand, and the figures read."""
    detection, truth = _dice_on_coins("hand-made", 500)
    assert _sure_figures_right(detection, truth) == []
    figures = [p for p in detection.pieces + detection.uncertain if p.kind.value in ("pawn", "die")]
    assert not [p for p in figures if "hand" in (p.reason or "")], [(p.kind, p.reason) for p in figures]
    sure = [p for p in detection.pieces if p.kind.value in ("pawn", "die")]
    assert len(sure) >= 10, [(p.kind, p.suit, p.rank, round(p.x_mm), round(p.y_mm), p.reason) for p in figures]
    for p in sure:
        near = min(truth, key=lambda t: math.hypot(t["x_mm"] - p.x_mm, t["y_mm"] - p.y_mm))
        assert p.kind.value == "pawn" or p.rank == near["top"], (p.rank, near)


def test_meeples_read_as_a_weak_peg_or_a_faceless_die_are_sure_pawns():
    """Hand-made edition, dice and pawns on a coin grid (seed 600): the two meeples standing on coins were left
    uncertain, the crowns one fitted as a peg pawn outlined under half ("outline unclear"), the moons one as a die
    whose top (the meeple's head and chest) showed no face ("die face unclear: 4 or 3"). The meeple fitted in their
    place is outlined 0.92 and 0.98, far better than the die model, its plastic all inside: both are sure pawns of
    their suits, and no sure figure is wrong."""
    detection, truth = _dice_on_coins("hand-made", 600)
    assert _sure_figures_right(detection, truth) == []
    for pawn in (t for t in truth if t["kind"] == "pawn"):
        near = [p for p in detection.pieces if math.hypot(p.x_mm - pawn["x_mm"], p.y_mm - pawn["y_mm"]) < 3.0]
        assert [(p.kind.value, p.suit.value) for p in near] == [("pawn", pawn["suit"])], (pawn, near)


@pytest.mark.parametrize("seed,suit", [(604, "arms"), (605, "crowns"), (608, "moons")])
def test_a_meeple_a_die_was_fitted_beside_is_found_from_starts_around_it(seed, suit):
    """Hand-made dice scenes 604, 605 and 608: a meeple on a coin was fitted as a die 3-4 mm off it, its "top"
    showing no face ("die face unreadable"). The meeple fitted from that die's place stayed near where it started
    (outlined 0.61, 0.65, 0.58) and the piece was left uncertain; fitted from starts 3 mm around the place (each
    refined) it is outlined 0.92-0.96 within 0.2 mm of the meeple: a sure pawn of its suit, and no sure figure is
    wrong."""
    detection, truth = _dice_on_coins("hand-made", seed)
    assert _sure_figures_right(detection, truth) == []
    for pawn in (t for t in truth if t["kind"] == "pawn" and t["suit"] == suit):
        near = [p for p in detection.pieces if math.hypot(p.x_mm - pawn["x_mm"], p.y_mm - pawn["y_mm"]) < 3.0]
        assert [(p.kind.value, p.suit.value) for p in near] == [("pawn", suit)], (pawn, near)


def test_a_kid_on_a_trampoline_whose_suit_prints_under_it_is_a_sure_pawn():
    """Trampo-Land, default edition (seed 107): the Arms kid stands on a trampoline (a coin) whose face, seen around
    the kid's base, read as the Arms print at 0.81: over the 0.79 that doubted a pawn as a print on a coin. A print
    lies flat on a coin that the coin reader reports right under the pawn fitted to it (every phantom so far: 2-4.5
    mm); a kid hides its coin and none is reported under it: with none, a pawn is doubted from 0.82 only. It is
    read surely, as every kid there, and no sure figure is wrong. (The frame as bench_states lays it, from one set.)"""
    case = state_case("trampo-land", "default", 107)
    image = case.frame.image
    detection = detect_pieces(image, calibrate_from_sheet(image), taught_profile("default"),
                              kinds=GAME_KINDS["trampo-land"])
    truth = [t for t in case.frame.truth if t["kind"] in ("pawn", "die") and not t.get("hidden")]
    assert _sure_figures_right(detection, truth) == []
    for pawn in (t for t in truth if t["kind"] == "pawn"):
        near = [p for p in detection.pieces if math.hypot(p.x_mm - pawn["x_mm"], p.y_mm - pawn["y_mm"]) < 3.0]
        assert [(p.kind.value, p.suit.value) for p in near] == [("pawn", pawn["suit"])], (pawn, near)


def _assert_dice_read_surely(edition: str, seed: int, suit: str, tops: tuple[int, ...]) -> None:
    """On the dice-on-coins scene of ``edition`` and ``seed``: the dice of ``suit`` showing ``tops`` are each one
    sure die of that suit showing that face where they stand, no sure figure is wrong, and every sure die shows the
    face of the die nearest it."""
    detection, truth = _dice_on_coins(edition, seed)
    assert _sure_figures_right(detection, truth) == []
    for top in tops:
        die = next(t for t in truth if t["kind"] == "die" and t["suit"] == suit and t["top"] == top)
        near = [p for p in detection.pieces + detection.uncertain
                if math.hypot(p.x_mm - die["x_mm"], p.y_mm - die["y_mm"]) < 3.0]
        assert [(p.kind.value, p.suit.value, p.rank, p.uncertain) for p in near] == [("die", suit, top, False)], [
            (p.kind, p.suit, p.rank, p.reason) for p in near]
    for p in detection.pieces:
        if p.kind.value == "die":
            near = min(truth, key=lambda t: math.hypot(t["x_mm"] - p.x_mm, t["y_mm"] - p.y_mm))
            assert p.rank == near["top"], (p.rank, near)


def test_a_die_fitted_as_a_pawn_whose_top_shows_its_face_plainly_is_that_die():
    """Default edition, dice and pawns on a coin grid (seed 601): the suns 4 and the suns 2, each on its coin, fitted
    the pawn model better than the die model; the die model fitted around them shows their faces plainly (read surely,
    0.92-0.94), so they were "a pawn or a die". A pawn's top shows no such mark (real pawns' best: 0.68): the die
    model refitted from the fit that showed the face reads the same face surely, so each is a sure suns die showing its
    face where it stands, and no sure figure is wrong."""
    _assert_dice_read_surely("default", 601, "suns", (4, 2))


def test_a_numeral_on_a_gold_crowns_die_is_told_from_the_crown_ace():
    """Classic edition, dice and pawns on a coin grid (seed 604): the crowns 3 and 2 (white numerals on gold) are plain
    to see, but the crowns ace, recovered from the tiles as a blurred blob, matched them nearly as well as their own
    numerals ("die face unclear: 3 or 1", "2 or 1"). Each numeral matches its drawing well (0.88-0.90) and its ink
    follows it where it and the crown differ (0.39): both are read surely, and no sure die shows a wrong face."""
    _assert_dice_read_surely("classic", 604, "crowns", (3, 2))


def test_a_meeple_whose_head_reads_faintly_as_a_die_face_is_a_pawn():
    """Hand-made edition, dice and meeples on a coin grid (seed 603): the moons meeple fitted the peg pawn weakly
    (0.62), and the die model fitted around it read its head as a 4 at 0.64, so it was "a pawn or a die (a die's face
    is seen on its top)". That face is no plain one (dice fitted as pawns show theirs at 0.87+): the meeple model
    fitted there outlines it at 0.96, far over the peg and the die (0.67), its plastic inside, so it is a sure moons
    pawn; no sure figure is wrong."""
    detection, truth = _dice_on_coins("hand-made", 603)
    assert _sure_figures_right(detection, truth) == []
    pawn = next(t for t in truth if t["kind"] == "pawn" and t["suit"] == "moons")
    near = [p for p in detection.pieces + detection.uncertain
            if math.hypot(p.x_mm - pawn["x_mm"], p.y_mm - pawn["y_mm"]) < 3.0]
    assert [(p.kind.value, p.suit.value, p.uncertain) for p in near] == [("pawn", "moons", False)], [
        (p.kind, p.suit, p.rank, p.reason) for p in near]
