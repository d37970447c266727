"""A coin's value numeral told from a close rival by where each fits: at the coin's rim centre, or off it.

The polar coin features (:func:`calibration.profile.coin_polar`) are sampled around a centre; a millimetre off
the print's own centre, another numeral's template can fit the same print about as well. The bold edition's
serif "3" and "4" (and "3" and its suit's ace or null dot) are such pairs: at the 3's own window the 4 trails
by 0.2-0.4, at a window 1-1.5 mm off the 3's the 4 scores within 0.01-0.06 of the 3 at its own, so the aligned
search (each label read at its own best window) left 40 bold 3s "face unclear" over bench_detect's four seed
offsets. At its own window each face leads its rival on the very cells where the two differ, so neither the
scores nor a masked correlation on those cells tells which window is the print's (measured: the wrong winners
led there by more than the right ones).

What does tell is the coin's rim. The detector's rim fit (vision/coins.py) lay within 1.3 crop pixels (0.65 mm)
of the truth for 99 % of bench_detect's bold coins (median 0.3 px; default median 0.45 px), and a coin's print is
centred on it. A numeral that fits at the rim's centre while each close rival fits only farther off is that
numeral; so may be one a hair behind a rival that fits only off the rim's centre (a bold 3 whose 4 fits 1.1 mm
off, 0.002 ahead: :func:`at_rim_instead`). (Classic's rim fit lies 0.65 mm off the truth
in one direction, systematically: there the rule read nothing differently at any of bench_detect's seed offsets.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# The winner's own window must lie within this many crop pixels (COIN_CROP_MM / COIN_CROP_PX: 0.5 mm a pixel) of
# the fitted rim centre (the rim fit's error on bench_detect's bold coins: 1.3 px or less for 99 % of them)
NEAR_RIM_PX = 1.5
# ... and every close rival's own window at least this much farther from the rim centre than the winner's. On the
# crop's pixel grid 0.8 admits one case more than 1.0: a winner one diagonal pixel off the centre, (1, 1), against
# a rival at a window sqrt(5) px off the centre ((2, 1), a pixel straight outward, among them), 0.83 px farther (a
# winner at (1, 0) or (0, 0) gains nothing: other windows lie 0.41, or 1.0 or more, farther than those). That is
# where a bold arms 3 read at its middle puts its 4: bold Easy Slider 506's 3 at (1, 1), its 4 at (2, 1) 0.013
# behind, "face unclear" at 1.0 (the dev frames' only such 3; held-out 543's and 567's 3s and 540's 5 show the
# same). Every truth value coin of the bold dev frames (Easy Slider 500-519, coin grids 1000-1013, tile backs
# 1100-1111) read at its middle moved up to 1 mm (9 positions) and blurred 0 or 1 px, 9072 crops: 4 more arms 3s
# read right at 0.8 than at 1.0, none wrong (threes-19).
FARTHER_PX = 0.8
# ... and at least this far from the winner's window. A pixel straight apart is apart when the rival also fits a
# pixel farther from the rim's centre (FARTHER_PX, which this then adds nothing to): on the exact-size renders a bold
# arms 3 read at its true middle fits at (1, 0), half a millimetre off, with its 4 a pixel farther out at (2, 0),
# 0.02-0.05 behind (Easy Slider 502-568: "face unclear" at 1.4, the bench's most common bold loss). Every truth coin
# of the bold dev frames (coin grids 1000-1065, Easy Slider 500-571, tile backs 1100-1165) read at its middle moved
# up to 1 mm (9 positions) and blurred 0 or 1 px: 22 more read right at 1.0 than at 1.4, none wrong; the default
# and hand-made frames the same, moved 0.35-1 mm and blurred up to 1.6 px: 3 more right, none wrong (fours-17).
# (Was 1.4, threes-15: bold Easy Slider 510's 3 half a millimetre off the rim's centre, its 4 a diagonal pixel
# farther, 0.003 behind.)
APART_PX = 1.0

# The ranks read so. Module switch READ_BY_WINDOW: the benchmarks' A/B runs set it False.
RANKS = frozenset({2, 3, 4, 5})
# ... the 4 with its close rivals this far apart (crop pixels), not APART_PX: the 4 and its ace share a triangle,
# and an ace's "4" fits a diagonal pixel off the ace's own window (a default arms ace cropped 0.5 mm off its middle
# and blurred 1.6 px, Easy Slider 546, read as a 4 at the crop's centre 0.019 ahead of its ace a diagonal pixel off).
# The 4 was left out of RANKS on the renders before symbols were drawn at their exact size (a hand-made "A" so
# blurred read as a sure 4: fours-13); on the exact-size renders every truth coin of the default, hand-made and bold
# dev frames (coin grids 1000-1065, Easy Slider 500-571, tile backs 1100-1165) read at its middle moved 0.35-1 mm
# and blurred 0-1.6 px gave that one ace read as a 4 with APART_PX, none with this (fours-17).
FOUR_APART_PX = 2.0
# ... and only where teach did not raise the 4's own margin this high (copies of another face passed for it by
# nearly as much): bold's arms 4 (raised to 0.114: its 3s passed for it) read a bold arms 3 blurred 1.2 px as a
# sure 4 at the rim's centre, the 3 0.15 behind (bench_conditions "blur 1.2 px", Easy Slider 760; a 3 washed out to
# its stem is a 4). The hand-made 4 (0.078: its A) and the default 4s (the model's 0.05) are read so (fours-17).
FOUR_RAISED_MARGIN = 0.1
# The numerals at_rim_instead may judge in place of a best label that fits off the rim: RANKS but the 4. A 4 that
# fits off the rim's centre is the rival a bold 3 there is judged against (Easy Slider 509, coin grid 1022: the 4 a
# millimetre off, 0.002 ahead); were it a candidate, at_rim_instead would keep it as the label judged, and the 3
# would go back to "face unclear" (both did at bench_detect's seed offsets 0 and 20 with RANKS alone: fours-17).
RUNNER_UP_RANKS = RANKS - {4}
READ_BY_WINDOW = True
# The other side's best label within the model's plain margin of the numeral is let off only where it fits at
# least this far (crop pixels) from the rim's centre: a bold arms or crowns symbol (and its ace) fits 1.5-2 mm off a
# 3 (bold Easy Slider 521: 0.029 behind, 3 px off), where no print centred on the coin could put it
OTHER_SIDE_OFF_PX = 2.5
# A numeral of RANKS at the rim's centre is judged (at_rim_instead) where the best label fits only off it and leads
# by this much at most (bold Easy Slider 509 and coin grid 1005: a 3 at the rim's centre, its 4 1.1-1.4 mm off and
# 0.002-0.003 ahead; a print whose rival leads by more is left to the scores). Negative: off. (A 3 so read reports
# its centre at its print's window: Whack-a-Dummy bold 83's crowns 3 moved 1 mm nearer its truth, the coin grid's
# proposals moved a fraction of a millimetre, and two face-down coins whose rims show about half round lost a ray
# and were dropped, until vision.detect's _grown_coin took a face read as one suit's few faces as a coin's.)
RUNNER_UP_BEHIND = 0.02


def window_distance(window: tuple[int, int]) -> float:
    """Distance in crop pixels of a window ``(dx, dy)`` from the crop's centre (the fitted rim centre)."""
    return math.hypot(window[0], window[1])


def fits_at_rim(winner: int, close: Sequence[int], windows: Sequence[tuple[int, int]],
                apart: float = APART_PX) -> bool:
    """Whether label ``winner`` fits at the rim's centre and each label in ``close`` (its rivals within the margin)
    only farther off, and at least ``apart`` crop pixels from the winner's window. ``windows``: each label's own
    best window ``(dx, dy)`` in crop pixels from the rim centre."""
    own = windows[winner]
    near = window_distance(own)
    if near > NEAR_RIM_PX:
        return False
    for k in close:
        there = windows[k]
        if window_distance(there) < near + FARTHER_PX \
                or math.hypot(there[0] - own[0], there[1] - own[1]) < apart:
            return False
    return True


def judged_by_window(rank: int, own_margin: float) -> bool:
    """Whether an unclear numeral of ``rank`` whose label's own margin (teach's, without the low-score term) is
    ``own_margin`` may be read by where it fits: a rank of RANKS, and not a 4 raised past FOUR_RAISED_MARGIN."""
    return rank in RANKS and not (rank == 4 and own_margin >= FOUR_RAISED_MARGIN)


def apart_for(rank: int) -> float:
    """How far apart (crop pixels) a numeral of ``rank`` and its close rivals must fit: see FOUR_APART_PX."""
    return FOUR_APART_PX if rank == 4 else APART_PX


def close_rivals(best: np.ndarray, winner: int, need: np.ndarray) -> list[int]:
    """The labels whose best score comes within ``need`` (per label) of the winner's."""
    gap = float(best[winner]) - best
    return [int(k) for k in np.nonzero(gap < need)[0] if int(k) != winner]


def at_rim_instead(top: int, best: np.ndarray, windows: Sequence[tuple[int, int]], candidates: frozenset[int]) -> int:
    """The label an unclear coin is judged as by where it fits: ``top`` (the best label), or where ``top`` is no
    label of ``candidates`` (the value numerals read so), the best of them whose own window lies within
    ``NEAR_RIM_PX`` of the rim's centre and which trails ``top`` by ``RUNNER_UP_BEHIND`` at most. ``best``: every
    label's best score; ``windows``: each label's own best window ``(dx, dy)`` in crop pixels from the rim centre.
    The label returned is then held to :func:`fits_at_rim` against every label close to it or ahead of it (``top``
    must fit a pixel farther off than it, and apart)."""
    if top in candidates or RUNNER_UP_BEHIND < 0:
        return top
    near = [k for k in candidates if float(best[top]) - float(best[k]) <= RUNNER_UP_BEHIND
            and window_distance(windows[k]) <= NEAR_RIM_PX]
    if not near:
        return top
    return max(near, key=lambda k: float(best[k]))
