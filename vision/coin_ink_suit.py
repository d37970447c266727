"""A coin's suit from its print's ink colour, where a set prints each suit's values in the suit's colour.

The bold edition prints its numerals in the suit's colour on a white face, all suits in one font: the polar
templates of one numeral in two suits differ only by colour, and where the picture is a little soft or compressed
a blue "arms 3" correlates nearly as well with the black "moons 3" or the green "crowns 3" (bench_conditions' JPEG
q30/q50 frames: arms 2s, 3s and 5s "face unclear" with the moons numeral 0.07-0.11 behind; bench_detect's coin grid
1004: a crowns 3 with the arms 3 0.10 behind, the margin 0.14). The colour that the templates blur is plain to
measure: :func:`vision.coin_ink.ink_vector` (linear ratios to the face, whose direction blur does not turn).

Its hue against the taught suits' (the pawns' colours, :func:`vision.coin_ink.suit_hues`) names the suit where the
ink is clearly coloured (``COLOURED_LEAST``) and its hue lies near one coloured suit's and clearly nearer it than
any other's. Measured on every value 2-5 of the bold dev frames (Easy Slider 500-511, coin grids 1000-1005: the
ink at the true middle and moved up to 1 mm, blurred 0 or 1 px) and of bench_conditions' bold frames at offset 0
(Easy Slider under every condition, at the true middle and 0.5 mm off): arms 56-83 degrees (taught 72), crowns
132-156 (taught 162), suns -96 to -82 (taught -95); the black moons numerals' colour over darkness 0.27 at most,
the coloured ones' 0.44 or more. (In the coin grids at 1 px/mm, which the frame's scale leaves out, crowns reach
125 degrees and suns -57, with colour down to 0.28.)
"""

from __future__ import annotations

import numpy as np

from vision.coin_ink import _hue_deg, ink_vector

__all__ = ["COLOURED_LEAST", "HUE_WITHIN", "HUE_GAP", "ink_suit"]

# Colour over darkness of the ink (see vision.coin_ink.ink_chroma) at least this: coloured, not a black suit's ink
# (black numerals 0.27 at most, coloured ones at 1.5 px/mm or finer 0.44 or more)
COLOURED_LEAST = 0.4
# The ink's hue within this many degrees of its suit's taught hue (measured 30 at most at 1.5 px/mm or finer: the
# green crowns, whose pawn is bluer than its ink; 37 in the 1 px/mm grids) ...
HUE_WITHIN = 40.0
# ... and this many degrees nearer to it than to any other coloured suit's (the taught hues lie 90-166 degrees
# apart; the crowns ink 30 degrees off its pawn's lies 60 from the arms')
HUE_GAP = 30.0


def ink_suit(crop: np.ndarray, hues: dict) -> object | None:
    """The coloured suit (a key of ``hues``: suit -> taught hue in degrees, :func:`vision.coin_ink.suit_hues`)
    whose colour a coin crop's print (COIN_CROP_PX square, BGR, centred on the print) clearly shows, or None:
    no ink, ink too close to black (a black suit's, or faded), or a hue between suits."""
    ink = ink_vector(crop)
    if ink is None or not hues:
        return None
    lightness = float(ink.mean())
    if float(np.linalg.norm(ink - lightness)) / -lightness < COLOURED_LEAST:
        return None
    hue = _hue_deg(ink)
    apart = sorted(((abs((hue - h + 180.0) % 360.0 - 180.0), suit) for suit, h in hues.items()), key=lambda a: a[0])
    if apart[0][0] > HUE_WITHIN or (len(apart) > 1 and apart[1][0] < apart[0][0] + HUE_GAP):
        return None
    return apart[0][1]
