"""A blank coin face must be the colour of the set's coins: a fingertip's skin is not.

A blank null (the default edition's: nothing printed inside the rim) is read by its rim alone, so anything round
and plain can pass for one: a motion-blurred fingertip over a tile showed its rounded end as a rim and plain skin
as the face (held-out bench_conditions "hand moving (motion blur)" 1962: a sure null of no suit, confidence 1.0,
lying on a tile where no coin was). A player sees at once that skin is not the coins' wood. Teach measures the
value side's face colour (``profile.taught["coin_face_chroma"]``: :func:`calibration.profile.face_chroma` of the
face relative to the teach photo's white, its tiles' faces); a sure blank face read in a frame is compared with it
relative to the frame's white, measured the same way (the sure face-up tiles' median colour). Relative to the
white, the light's colour and the face's brightness cancel (the von Kries model of the features).

A face may be paler than taught but not of another colour: near the camera's white clipping (bright light, glare)
a coin's face loses its colour towards the white's, so the taught colour is the far end of a segment from the
white (chroma 0) and a face is judged by its distance from that segment. Measured (fingertip-18, default
edition): 85 real blank nulls read in bench_detect's coin grids and tile-backs (offsets 0-60), bench_states' games
(seeds 100-121) and bench_conditions' coin grids at 820x616 lie within 0.094 of it (white: the frame's 95th
percentile, no face-up tile there); 68 read on and beside face-up tiles under random light (20 rendered Easy
Slider boards whose coins are nulls, three more on tiles; white: the tiles') within 0.085, 0.017 on average. The
fingertip of 1962 lies 0.261 off; coin-sized patches of the four skins over the 24 boards of bench_conditions'
hand rows (offsets 0, 1000, 2000; the tiles' white) lie 0.25-0.74 off at their median per board, 0.16-0.71 at
their 5th percentile (the lightest skin in a light as warm as the coins' is the nearest).

Where fewer than ``WHITE_TILES_LEAST`` face-up tiles are read the frame's white is not known well enough (the
95th percentile of a frame mixes the table's wood into the white's red, and the fingertip above measured 0.07
off against it): no blank face is judged then. Such a face is reported uncertain, not dropped: a hand over the
board makes what lies under it uncertain, and a real coin's face under a hand's coloured shadow is not ruled out.
"""

from __future__ import annotations

import numpy as np

from calibration.profile import face_chroma

__all__ = ["FACE_CHROMA_MOST", "WHITE_TILES_LEAST", "off_coin_colour"]

#: how far (log chromaticity, from the segment between the white and the taught face colour) a blank face may lie
#: and still be a coin's face (see the module docstring for the measurements it lies between)
FACE_CHROMA_MOST = 0.17
#: face-up tiles read surely that a frame's white is taken from
WHITE_TILES_LEAST = 4


def off_coin_colour(face_bgr: np.ndarray, white_bgr: np.ndarray, taught: tuple[float, float]) -> float:
    """How far (log chromaticity) a face colour lies from any colour a coin's face can show in this frame: the
    segment from the white (0) to the taught face colour ``taught`` (both relative to the white)."""
    chroma = face_chroma(face_bgr, white_bgr)
    end = np.asarray(taught, np.float64)
    along = float(np.clip(np.dot(chroma, end) / max(float(np.dot(end, end)), 1e-12), 0.0, 1.0))
    return float(np.hypot(*(chroma - along * end)))
