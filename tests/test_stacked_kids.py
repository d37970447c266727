"""A coin found lying on another says so (``height_mm`` = the profile's coin thickness), and Trampo-Land reads a
coin lying on a trampoline as a kid whatever face it shows: the classic and bold kids' suit side and the ace's
value side differ only in the size of their symbol, and left the reading "face unclear" before."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from test_reading import taught_profile, trampo_seen

from rules.pieces import Kind, Suit
from tableside.reading import NotReadable, read_state

#: (suit, rank, side) readings a classic kid's face is left between
_TWINS = ((Suit.SUNS, 1, "value"), (Suit.SUNS, None, "suit"))


def _unclear(piece, height_mm: float):
    return replace(piece, uncertain=True, suit=None, rank=None, side="value", confidence=0.4,
                   reason="face unclear", could_be=_TWINS, height_mm=height_mm)


def _kid_on(visible, n_kid: int):
    """The ``n_kid``-th kid's coin (suit side up) of :func:`trampo_seen`'s detections, its index."""
    kids = [i for i, d in enumerate(visible) if d.kind is Kind.COIN and d.side == "suit"]
    return kids[n_kid]


def test_an_unclear_coin_lying_on_a_coin_is_a_kid():
    state, visible = trampo_seen()
    k = _kid_on(visible, 0)
    on_coin = list(visible)
    on_coin[k] = _unclear(visible[k], 3.0)
    reading = read_state(on_coin, "epic-funhouse", "trampo-land")
    assert reading.state == state
    kids = [s for s in reading.settled if s.reading == "a kid (suit side up)"]
    assert len(kids) == 1 and "lies on another coin" in kids[0].rule
    # the same face on the table (height 0: nothing says it lies on a coin) is still left unread
    on_table = list(visible)
    on_table[k] = _unclear(visible[k], 0.0)
    with pytest.raises(NotReadable, match="cannot be read: face unclear"):
        read_state(on_table, "epic-funhouse", "trampo-land")
    # nor is a coin reported higher than one coin's thickness (not a coin on a coin) taken for a kid
    high = list(visible)
    high[k] = _unclear(visible[k], 6.0)
    with pytest.raises(NotReadable, match="cannot be read: face unclear"):
        read_state(high, "epic-funhouse", "trampo-land")


def test_a_coin_lying_on_a_coin_is_a_kid_whatever_face_it_shows():
    state, visible = trampo_seen()
    k = _kid_on(visible, 1)
    shown = list(visible)
    shown[k] = replace(visible[k], side="value", rank=1, height_mm=3.0)  # its value side read surely
    reading = read_state(shown, "epic-funhouse", "trampo-land")
    assert reading.state == state
    assert [s.reading for s in reading.settled] == ["a kid (suit side up)"]
    # on the table, a value side up is a bare trampoline: the state differs
    flat = list(visible)
    flat[k] = replace(visible[k], side="value", rank=1, height_mm=0.0)
    assert read_state(flat, "epic-funhouse", "trampo-land").state != state


def _detect_case(edition: str, seed: int):
    import state_scenes as ss

    from calibration.profile import load_profile
    from calibration.table_calibration import calibrate_from_sheet
    from tableside.frame_input import GAME_KINDS, _detect

    case = ss.state_case("trampo-land", edition, seed, real_set=False)  # the frames these tests measured
    profile = load_profile(taught_profile(edition))
    detection = _detect(case.frame.image, calibrate_from_sheet(case.frame.image), profile,
                        GAME_KINDS["trampo-land"])
    truth = [t for t in case.frame.truth if t["kind"] == "coin"]
    coins = [p for p in list(detection.pieces) + list(detection.uncertain) if p.kind is Kind.COIN]
    return profile, truth, coins


def _under(truth, piece) -> dict | None:
    near = [t for t in truth if math.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm) < 6.0]
    return max(near, key=lambda t: t["base_mm"]) if near else None


def test_rendered_kids_found_off_their_trampolines_lie_on_a_coin():
    """Bold seed 100 (a bench_states frame): two kids found by the looks around (two rims 2-3.5 mm apart) are
    reported one coin thick, one of them the suns null whose face reads unclear (ace or suit side), which the
    reading now settles as a kid; no coin on the table is reported so."""
    profile, truth, coins = _detect_case("bold", 100)
    raised = [p for p in coins if p.height_mm > 0]
    assert len(raised) >= 2
    for p in raised:
        assert p.height_mm == pytest.approx(profile.coin_thickness_mm)
        assert _under(truth, p)["base_mm"] > 0  # a kid's coin, lying on its trampoline
    assert any(p.uncertain for p in raised)


def test_a_blurred_bare_trampoline_found_by_the_faint_look_stays_on_the_table():
    """Default seed 128 (held out): the blurred suns 3 trampoline at about (100, 237) mm is found by the faint
    look with its face read where its rim was fitted (0 mm off): one rim, not two; it is not said to lie on a
    coin (it would have been read as a kid, wrongly)."""
    _, truth, coins = _detect_case("default", 128)
    bare = [p for p in coins if math.hypot(p.x_mm - 100.5, p.y_mm - 236.8) < 4.0]
    assert len(bare) == 1 and _under(truth, bare[0])["base_mm"] == 0
    assert bare[0].height_mm == 0.0
    assert all(_under(truth, p) is not None and _under(truth, p)["base_mm"] > 0 for p in coins if p.height_mm > 0)
