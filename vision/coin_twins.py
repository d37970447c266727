"""Telling a coin's symbol ace from its suit side where the two print the same symbol (classic, bold editions).

Some sets print a coin's value-side ace as its suit's symbol, a little smaller than on the suit side: the two are
"twins" (:class:`vision.classify.CoinReader`'s ``twin_of``) that the polar correlation cannot tell apart, so such a
coin is read "face unclear" with both in ``could_be``. The symbol's size can: teach fits the taught suit side's
symbol to its own ace and suit sides (``profile.taught["coin_twins"]``: per suit the symbol, the ace's fitted
scale and the suit sides'), and :class:`TwinSizes` fits it to an unclear coin
(:func:`calibration.profile.fit_coin_symbol`, whose tone-curve term keeps a frame's exposure out of the size).
The position of the coin's scale between the taught two, ``q = (scale - ace) / (suit - ace)``, decides, with an
"unclear" band between:

* measured on the twins of bench_detect's four offsets (classic and bold Easy Slider boards, coin grids and tile
  backs; 806 crops, the renderer drawing symbols at their exact size): per suit the aces fit at median
  q -0.12 to 0.15, the suit sides at 0.93 to 1.15, with a spread (sd) of 0.03-0.13 (moons, arms; bold crowns),
  but classic crowns at 0.34 and 1.19, sd 0.2 (the crown's thin points fit loosely: the blur it fits trades
  against its size), and the suns anywhere (their thin rays). (While the renderer drew symbols a whole number of
  texture pixels wide, game suit sides fitted below teach's, median q 0.7-0.9: ace/suit side 0.96 at the game
  frames' 4 px/mm textures, 0.947 at the teach photos' 3 px/mm.)
* so a twin is read as its suit side from ``MIDDLE`` + h, as its ace up to ``MIDDLE`` - h, where h is half of how
  unsteadily teach's augmented copies of that suit fitted (``unsteady``, the sd of q: 0.21-0.34), at least
  ``_LEAST_HALF_BAND``; between, it stays unclear naming both. A suit fitted more unsteadily than
  ``_MOST_UNSTEADY`` is not read by size (the suns; classic crowns, taught at 1.85). On the bench's crops every
  suit side fitted lies 0.36 or more above its ace threshold (over 3 of its suit's sds) and every sharp ace
  0.36 or more below its suit-side threshold (a blurred one, Easy Slider bold 540 at q 1.1, stays unclear by the
  sharpness gate: :meth:`vision.classify.CoinReader._by_size`).
* the fit must explain the crop (``residual``) and find the symbol near the crop's middle (``shift``), else the
  coin stays unclear (a hand over it, a coin half off its crop).

Where teach's copies fit a suit unsteadily only because some were blurred beyond what the game reads (classic
crowns; bold suns), the suit's suit sides are read from far beyond the farthest its read ace copies fitted, and its
ace not at all (READ_FAR: the game's aces of these suits fit well above teach's). The twins of those suits and the
suns are also read against the same frame's twins of their suit: as the suit side where another has less ink
(by_ink), or fits its symbol far smaller (by_larger: a frame's ace fits below every suit side of its suit there).

A twin read surely by the polar features is also checked against its size (:meth:`TwinVerdict.doubts`): off
centre the polar features read a twin as the other one surely, the fitted size does not move. A sure ace must fit
as small as the suit's ace (its band's lower edge): the polar features read the bench's classic moons twins
surely and wrongly 17 times in 46 crops, suit sides as aces at q 0.42-0.70 (a threshold of 0.5 let 0.42-0.50
through), the right aces at q -0.19 to -0.05. A sure suit side must fit from ``SUIT_DOWN_TO`` up (the wrong ones
-0.22 to -0.08, the right 0.42-0.80).

Profiles without ``coin_twins`` (taught before it, or a set without twins) read as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.profile import (
    COIN_CROP_MM,
    COIN_CROP_PX,
    SYMBOL_CROP_BLUR_MM,
    SYMBOL_SIZE_MOST_BLUR_MM,
    SYMBOL_SIZE_MOST_RESIDUAL,
    CoinSymbolFit,
    coin_symbol_template,
    fit_coin_symbol,
)
from rules.pieces import Suit

# Read unclear twins by the symbol's size (both ways); off: they stay unclear naming both. Measured (bench_detect
# dev classic 84.5 -> 90.7 %, bold 82.0 -> 91.0 %; held out 84.8 -> 88.8 %, 83.2 -> 93.9 %; 0 wrong, 0 extra).
# tests/vision/test_coins.py's could_be tests switch it off: they ask how the print alone names both twins.
READ_BY_SIZE = True
# The size is read only in frames of this scale or finer (pixels per table mm at the frame's centre): the band
# was measured on frames of 1.5-1.8 px/mm, and at 1 px/mm (an 820x616 preview stream) classic crowns suit
# sides fitted as aces (bench_conditions --coin-grids 6: 3 read surely and wrongly)
SIZE_FROM_PX_PER_MM = 1.4
# The middle of the band left unclear (q): midway between the taught ace (0) and suit side (1). It was 0.45 while the
# renderer drew game frames' symbols at 4 px/mm textures (ace/suit side 0.96) and teach photos' at 3 px/mm (0.947):
# game suit sides fitted below teach's. Drawn at their exact size (0.945-0.95 at every density), the bench's game
# twins fit about where teach's do (see above: the aces' median q -0.12 to 0.15, the suit sides' 0.93 to 1.15).
# Its half-width is half the suit's taught ``unsteady``, at least _LEAST_HALF_BAND: teach's augmented copies
# (moved, turned, blurred, lit otherwise) spread 2-3 times wider than the game frames do (unsteady 0.21-0.34; the
# bench's twins of one suit and side: sd of q 0.03-0.13). With the whole unsteady as half band
# the classic arms aces (q -0.09 to 0.34) were read only up to 0.11 and 37 of 68 stayed unclear; the suit sides
# lie from 0.66 (classic moons) up, 0.36 or more above the band's lower edge 0.3.
MIDDLE = 0.5
_LEAST_HALF_BAND = 0.2
_UNSTEADY_SHARE = 0.5
# A twin read surely as its suit side by the polar features must fit from SUIT_DOWN_TO up (see above)
SUIT_DOWN_TO = 0.4
# the fit explaining all but this share of the crop's ink ... (0.05 left the sharpest bold arms suit sides unclear,
# fitted at blur 0 and residual 0.050-0.061: crops sharper than teach's photo, the taught symbol's blur; a twin
# suit's 0, 2 and 4 fit its symbol at 0.14 or more)
_MOST_RESIDUAL = SYMBOL_SIZE_MOST_RESIDUAL  # 0.065 (teach measures its read copies by the same limits)
_MOST_SHIFT_MM = 1.5  # ... with the symbol this near the crop's middle
# ... and blurred by the fit this much at most: blur trades against size, most beyond it (a classic moons ace of coin
# grid 1087, blurred 0.8 mm, fitted q 0.77 at residual 0.054 and was read as its suit side; bold Easy Slider 540's
# arms ace, 0.79 mm, fitted q 1.1; 510 and 511's, 0.78-0.81 mm, -0.4 and -0.5, the bench's farthest off their
# side's size). The bench's twins of the suits read by size fit 0.7 mm or less but 7 of 535.
_MOST_BLUR_MM = SYMBOL_SIZE_MOST_BLUR_MM  # 0.7
_LEAST_GAP = 0.03  # teach's ace and suit side must differ by this much in scale for the size to tell them apart,
# and their sizes fit steadily in teach's augmented copies (``unsteady``, the standard deviation of q: classic and
# bold suns 1.1-3.5, whose game twins overlapped; the other suits 0.08-0.37)
_MOST_UNSTEADY = 0.6
# A suit fitted unsteadily (over _MOST_UNSTEADY) only through teach's copies blurred beyond what the game reads by
# size is read as its suit side, never as its ace, from FAR_READ_SDS of the steadiness of the copies the game would
# read (``read_unsteady``) beyond the farthest such copy of the ace (``ace_reach``), and no nearer than the band's
# usual edge. Why so far and one way: where teach's copies say crowns are steady (classic crowns read_unsteady
# 0.19, ace_reach 0.37: suit sides from q 0.92), the bench's game twins fit otherwise than teach's: classic crowns
# aces at q -0.04 to 0.63 (median 0.34: teach's own ace copies -0.2 to 0.37), suit sides 0.68 to 1.7 (sharper than
# 0.7 mm and fitted; 806 crops of twins-16); bold suns (0.28, 0.56: from 1.38) aces -0.71 to 0.31 and one at 0.99
# (coin grid 1003), suit sides 0.44 to 1.8. The ace's side is left alone: teach's ace lies 0.34 below the game's.
# A suit whose read copies also fit unsteadily (over _MOST_READ_UNSTEADY: classic suns 0.55-0.67, whose game suit
# sides fit anywhere from q -3.6 to 7.4) is not read by size at all.
READ_FAR = True
FAR_READ_SDS = 3.0
_MOST_READ_UNSTEADY = 0.45
_KEPT_VERDICTS = 256
# An unclear twin whose third reading is its suit's null (a bold sun's rays blur away, and what is left, its solid
# middle, passes for the null's dot): the null is ruled out where the suit's taught symbol fits the coin at
# NOT_A_DOT_SCALE of its size or more and explains it (residual up to NOT_A_DOT_RESIDUAL). A dot fits as the
# smallest symbol the fit tries (0.7: every bold null of bench_detect's four offsets, 71, fitted with the suns
# symbol and with its own suit's, at residuals down to 0.04; the renderer's nulls blurred 0.8 mm, down to 0.01:
# the residual does not tell a blurred dot from a sun, the scale does); the bold suns twins fit at 0.94-1.05,
# residual up to 0.066 (the renderer's, sharp: 0.91-0.97, residual up to 0.12). A moons null fits its own suit's
# symbol at 1.1-1.27, but residual 0.46-0.7. Then the twin names its two twins only, and is read against the
# frame's other twins as a twin named so is (by_ink, by_frame).
RULE_OUT_NULL = True
NOT_A_DOT_SCALE = 0.85
NOT_A_DOT_RESIDUAL = 0.2
# A frame's twins read against each other (by_frame). Within one frame the suit sides of a suit fit q within a sd
# of 0.03-0.06 of their median (classic moons 0.13, classic crowns 0.24), and its ace 0.45-1.0 below it (bench
# crops of twins-12): a twin left in its suit's unclear band is read by where it lies from the frame's sure twins
# of its suit (see by_frame), for suits whose taught half band is at most FRAME_MOST_HALF_BAND (not classic
# crowns: 0.45)
READ_BY_FRAME = True
FRAME_SUIT_WITHIN = 0.2
FRAME_ACE_BELOW = 0.4
FRAME_REFERENCE_SPREAD = 0.3
FRAME_MOST_HALF_BAND = 0.35
FRAME_CONFIDENCE = 0.5
# A frame's twins of a suit whose size the fit does not read (suns; classic crowns: FRAME_MOST_HALF_BAND) read
# against each other by their ink (by_ink). The fitted scale trades against the fitted blur on thin rays and points,
# but the amount of ink does not: the symbol's area (the square root of its ink, in mm) of an ace lies below every
# suit side of its frame by 0.13-0.15 mm at least (suns; classic crowns 0.04, median 0.3), measured two ways at once
# (its ink against its own ink colour, and against the face's brightness). A twin is read as the suit side where
# another twin of its suit in the same frame has less ink by INK_BELOW both ways: a set holds one ace of a suit and
# no suit side has less ink than it, so the twin with more ink is no ace. The ace itself is never read so (two suit
# sides of a frame differ by up to 0.2-0.4 both ways). 0.15, not the 0.1 measured safe on the benches: the classic
# crowns' closest ace lay only 0.04 below a suit side (a wrong reading 2.8 sds off at 0.1; at 0.15 it reads about
# a quarter fewer suit sides).
READ_BY_INK = True
INK_BELOW = 0.15
INK_RADIUS_MM = 7.0  # the ink counted: within this radius of the symbol's ink centre (the face ring lies beyond)
INK_CONFIDENCE = 0.5
_INK_FACE_RING_MM = (7.0, 7.6)
_INK_DISC_MM = 6.9
_INK_SHARE = 0.05
_INK_RING_KEPT = 70  # percent of the ring's pixels the face's plane is fitted to, the most face-like
_INK_MOST_SHIFT_MM = 1.5
_INK_RING_OUT_MM = 7.8
# The same suits' twins of one frame read against each other by their fitted size (by_larger). Where the size does
# not tell a twin from the taught sizes alone (the game's suns and classic crowns fit far from teach's and widely:
# classic suns aces q -1.6 to -0.3, suit sides -0.3 to 2.2), it does within a frame: over bench_detect's four offsets
# (twins-16's 806 crops, fits read as the size is: residual, shift and blur within the limits above) a frame's ace
# fitted below every suit side of its suit in that frame, by 0.25 or more (bold suns 0.25, classic crowns 0.33,
# classic suns 0.43; dev offsets 0/20 alone the same). A twin is read as its suit side where another twin of its
# suit in the frame fits LARGER_BY smaller: it is no ace (a set holds one ace of a suit, and it would have fitted
# LARGER_BY above a suit side, 0.85 beyond the worst seen). The ace itself is never read so.
READ_BY_LARGER = True
LARGER_BY = 0.6
LARGER_CONFIDENCE = 0.5


@dataclass(frozen=True)
class TwinVerdict:
    """What the symbol's size says of a twin coin: ``side`` "suit" or "value" (its ace) when sure, else None, and
    why."""

    side: str | None
    q: float  # (scale - taught ace) / (taught suit side - taught ace): 0 an ace's size, 1 a suit side's
    scale: float
    residual: float
    reason: str
    beyond: float = 0.0  # how far q lies past the threshold of the twin it says (0 when it says none)
    ace_to: float = MIDDLE - _LEAST_HALF_BAND  # the q up to which its suit's symbol is as small as the ace

    @property
    def confidence(self) -> float:
        """A reading by size: 0.5, up to 0.75 a third of the taught gap past its threshold (a size, not a
        picture)."""
        return 0.5 + 0.25 * float(np.clip(self.beyond / 0.3, 0.0, 1.0))

    def doubts(self, side: str) -> bool:
        """Whether the size doubts a twin read surely as ``side`` by the polar features: fitted, and an ace not
        as small as its suit's ace, or a suit side below ``SUIT_DOWN_TO``."""
        return self.fitted and (self.q > self.ace_to if side == "value" else self.q < SUIT_DOWN_TO)

    @property
    def fitted(self) -> bool:
        """Whether the symbol was fitted well enough for its size to say anything (wherever it lies)."""
        return self.reason in ("as large as the suit side", "as small as the ace", "size unclear",
                               "symbol off the middle", "symbol blurred")


class TwinSizes:
    """The taught symbols of a profile's twin suits (``taught["coin_twins"]``), ready to fit."""

    def __init__(self, taught: dict[str, Any]) -> None:
        self.suits: dict[Suit, tuple[np.ndarray, float, float, float]] = {}
        # every twin suit's taught symbol, its size read or not (suns: see not_a_dot)
        self.symbols: dict[Suit, np.ndarray] = {}
        for name, entry in (taught.get("coin_twins") or {}).items():
            self.symbols[Suit(name)] = coin_symbol_template(np.asarray(entry["symbol"], np.float32))
            ace, suit = float(entry["ace"]), float(entry["suit"])
            if suit - ace < _LEAST_GAP or float(entry.get("unsteady", float("inf"))) > _MOST_UNSTEADY:
                # teach could not tell its own twins apart by size, or not steadily (a profile taught before the
                # size's fit had its tone term has no "unsteady": its scales are another fit's, left unused)
                continue
            half_band = max(_LEAST_HALF_BAND, _UNSTEADY_SHARE * float(entry["unsteady"]))
            self.suits[Suit(name)] = (self.symbols[Suit(name)], ace, suit, half_band)
        # verdicts by crop: a coin read unclear is read again at its best windows, often the same crop (a fit is
        # 25-40 ms on an idle core)
        # suits read as their suit side only, far beyond their ace's reach (READ_FAR): symbol, ace, suit side, from q
        self.far: dict[Suit, tuple[np.ndarray, float, float, float]] = {}
        for name, entry in (taught.get("coin_twins") or {}).items():
            suit = Suit(name)
            if suit in self.suits or not READ_FAR or float(entry["suit"]) - float(entry["ace"]) < _LEAST_GAP \
                    or float(entry.get("read_unsteady", float("inf"))) > _MOST_READ_UNSTEADY:
                continue  # a profile taught before teach measured its read copies has no read_unsteady
            suit_from = max(MIDDLE + _LEAST_HALF_BAND,
                            float(entry["ace_reach"]) + FAR_READ_SDS * float(entry["read_unsteady"]))
            self.far[suit] = (self.symbols[suit], float(entry["ace"]), float(entry["suit"]), suit_from)
        # every twin suit's taught ace and suit-side scales, read by size or not (by_larger's q)
        self.scales: dict[Suit, tuple[float, float]] = {
            Suit(name): (float(entry["ace"]), float(entry["suit"]))
            for name, entry in (taught.get("coin_twins") or {}).items()
            if float(entry["suit"]) - float(entry["ace"]) >= _LEAST_GAP}
        self._verdicts: dict[tuple[Suit, bytes], TwinVerdict] = {}
        self._not_dots: dict[tuple[Suit, float | None, bytes], bool] = {}
        # fits by (suit, turn, crop): a far suit's twin (READ_FAR) is fitted for its verdict and for by_larger alike
        self._fits: dict[tuple[Suit, float | None, bytes], CoinSymbolFit] = {}

    def __bool__(self) -> bool:
        return bool(self.suits) or bool(self.far)

    def judge(self, crop: np.ndarray, suit: Suit, turn_deg: float | None = None, sure: bool = False) -> TwinVerdict:
        """Fit the taught symbol of ``suit`` to a coin crop (COIN_CROP_PX square, BGR) and say which twin it is,
        if surely. ``turn_deg``: the coin reader's turn of the coin, if known (the fit then searches the turn near
        it: :func:`calibration.profile.fit_coin_symbol`). ``sure``: the coin is read surely already, and only its
        doubts are asked (a suit read one way only, READ_FAR, doubts nothing: no fit)."""
        if suit not in self.suits and (sure or suit not in self.far):
            return TwinVerdict(None, float("nan"), float("nan"), float("nan"), "no taught size")
        key = (suit, np.ascontiguousarray(crop).tobytes())
        if key not in self._verdicts:
            if len(self._verdicts) >= _KEPT_VERDICTS:
                self._verdicts.clear()
            self._verdicts[key] = self._judge(crop, suit, turn_deg)
        return self._verdicts[key]

    def not_a_dot(self, crop: np.ndarray, suit: Suit, turn_deg: float | None = None) -> bool:
        """Whether a coin crop (COIN_CROP_PX square, BGR) read as one of ``suit``'s twins or its null shows the
        suit's symbol, not a null's dot: the taught symbol fits it at NOT_A_DOT_SCALE of its size or more, explaining
        it (see RULE_OUT_NULL). False where the suit has no taught symbol."""
        if not RULE_OUT_NULL or suit not in self.symbols:
            return False
        # kept by crop as the verdicts are (an unclear coin is read again at its best windows, often the same crop)
        key = (suit, turn_deg, np.ascontiguousarray(crop).tobytes())
        if key not in self._not_dots:
            if len(self._not_dots) >= _KEPT_VERDICTS:
                self._not_dots.clear()
            fit = fit_coin_symbol(crop, self.symbols[suit], crop_blur_mm=SYMBOL_CROP_BLUR_MM, turn_deg=turn_deg)
            self._not_dots[key] = fit.scale >= NOT_A_DOT_SCALE and fit.residual <= NOT_A_DOT_RESIDUAL \
                and max(abs(fit.shift_mm[0]), abs(fit.shift_mm[1])) <= _MOST_SHIFT_MM
        return self._not_dots[key]

    def read_in_frame(self, suit: Suit) -> bool:
        """Whether ``suit``'s twins are read against the frame's by their ink and their order of size (by_ink,
        by_larger), not by their size against the frame's sure twins (by_frame): no taught size band, or a wide one."""
        entry = self.suits.get(suit)
        return entry is None or entry[3] > FRAME_MOST_HALF_BAND

    def frame_size(self, crop: np.ndarray, suit: Suit, turn_deg: float | None = None) -> float | None:
        """The q (as :class:`TwinVerdict`'s) at which ``suit``'s taught symbol fits a coin crop (COIN_CROP_PX square,
        BGR), where the fit explains it as a read size must (residual, shift, blur: see ``_judge``), else None; for
        by_larger. None where the suit has no taught scales."""
        if not READ_BY_LARGER or suit not in self.scales:
            return None
        fit = self._fit(crop, suit, turn_deg)
        ace, suit_scale = self.scales[suit]
        if fit.residual <= _MOST_RESIDUAL and fit.sigma_mm <= _MOST_BLUR_MM \
                and max(abs(fit.shift_mm[0]), abs(fit.shift_mm[1])) <= _MOST_SHIFT_MM:
            return (fit.scale - ace) / (suit_scale - ace)
        return None

    def _fit(self, crop: np.ndarray, suit: Suit, turn_deg: float | None) -> CoinSymbolFit:
        key = (suit, turn_deg, np.ascontiguousarray(crop).tobytes())
        if key not in self._fits:
            if len(self._fits) >= _KEPT_VERDICTS:
                self._fits.clear()
            self._fits[key] = fit_coin_symbol(crop, self.symbols[suit], crop_blur_mm=SYMBOL_CROP_BLUR_MM,
                                              turn_deg=turn_deg)
        return self._fits[key]

    def _judge(self, crop: np.ndarray, suit: Suit, turn_deg: float | None) -> TwinVerdict:
        if suit in self.far:
            return self._judge_far(crop, suit, turn_deg)
        template, ace, suit_scale, half_band = self.suits[suit]
        fit = fit_coin_symbol(crop, template, crop_blur_mm=SYMBOL_CROP_BLUR_MM, turn_deg=turn_deg)
        q = (fit.scale - ace) / (suit_scale - ace)
        ace_to, suit_from = MIDDLE - half_band, MIDDLE + half_band
        side, beyond = None, 0.0
        if fit.residual > _MOST_RESIDUAL:
            reason = "symbol not fitted"
        elif max(abs(fit.shift_mm[0]), abs(fit.shift_mm[1])) > _MOST_SHIFT_MM:
            reason = "symbol off the middle"
        elif fit.sigma_mm > _MOST_BLUR_MM:
            reason = "symbol blurred"
        elif q >= suit_from:
            side, beyond, reason = "suit", q - suit_from, "as large as the suit side"
        elif q <= ace_to:
            side, beyond, reason = "value", ace_to - q, "as small as the ace"
        else:
            reason = "size unclear"
        return TwinVerdict(side, q, fit.scale, fit.residual, reason, beyond, ace_to)


    def _judge_far(self, crop: np.ndarray, suit: Suit, turn_deg: float | None) -> TwinVerdict:
        """A twin of a suit read as its suit side only (READ_FAR). Its verdict is never ``fitted``: its size doubts
        no sure twin and is no reference for the frame's (the ace's size is not known well enough for either)."""
        _, ace, suit_scale, suit_from = self.far[suit]
        fit = self._fit(crop, suit, turn_deg)
        q = (fit.scale - ace) / (suit_scale - ace)
        if fit.residual <= _MOST_RESIDUAL and max(abs(fit.shift_mm[0]), abs(fit.shift_mm[1])) <= _MOST_SHIFT_MM \
                and fit.sigma_mm <= _MOST_BLUR_MM and q >= suit_from:
            return TwinVerdict("suit", q, fit.scale, fit.residual, "far larger than the ace", q - suit_from)
        return TwinVerdict(None, q, fit.scale, fit.residual, "size not read this near the ace")


def by_frame(twins: list[tuple[str | None, Suit, TwinVerdict]], sizes: TwinSizes) -> list[str | None]:
    """One frame's twins read against each other: each ``(side read surely or None, suit, verdict)``; for each, the
    side it is read as now ("suit", or "value" for the ace), or None. Only a twin left unclear with its size in its
    suit's unclear band ("size unclear") is read, against the same frame's twins of its suit read surely:
    * as the suit side from FRAME_SUIT_WITHIN below the sure suit sides' median q, or FRAME_ACE_BELOW above the
      sure ace's;
    * as the ace from FRAME_ACE_BELOW below every sure suit side, where the frame has no sure ace of its suit and
      no other twin of it is read as the ace (a set holds one);
    * never across the taught middle (a suit side from MIDDLE, an ace up to it), nor where the references disagree.
    Why not the taught sizes alone: a frame's scale, blur and light move every twin of it alike (bold moons suit
    sides: q's sd 0.12 across frames, 0.03 within one)."""
    if not READ_BY_FRAME:
        return [None] * len(twins)
    sure: dict[tuple[Suit, str], list[float]] = {}
    for side, suit, verdict in twins:
        if side is not None and verdict.fitted and np.isfinite(verdict.q):
            sure.setdefault((suit, side), []).append(verdict.q)
    out: list[str | None] = []
    for side, suit, verdict in twins:
        entry = sizes.suits.get(suit)
        if side is not None or verdict.reason != "size unclear" or entry is None or entry[3] > FRAME_MOST_HALF_BAND:
            out.append(None)
            continue
        suits, aces = sure.get((suit, "suit"), []), sure.get((suit, "value"), [])
        if suits and max(suits) - min(suits) > FRAME_REFERENCE_SPREAD:
            suits = []  # sure suit sides of one frame that disagree: no reference
        q = verdict.q
        says = set()
        if suits:
            if q >= float(np.median(suits)) - FRAME_SUIT_WITHIN:
                says.add("suit")
            elif q <= min(suits) - FRAME_ACE_BELOW:
                says.add("value")
            else:
                says.add(None)
        if aces:
            # a set has one ace of a suit: beside a sure one, a twin is read only as a suit side
            says.add("suit" if q >= max(aces) + FRAME_ACE_BELOW else None)
        said = says.pop() if len(says) == 1 else None
        if said == "suit" and q < MIDDLE or said == "value" and q > MIDDLE:
            said = None
        out.append(said)
    # nor are two twins of one suit read as its ace
    for suit in {suit for _, suit, _ in twins}:
        aces_read = [k for k, (said, (_, other, _)) in enumerate(zip(out, twins, strict=True))
                     if said == "value" and other == suit]
        if len(aces_read) > 1:
            for k in aces_read:
                out[k] = None
    return out


_PX_PER_MM = COIN_CROP_PX / COIN_CROP_MM
_YY, _XX = np.mgrid[0:COIN_CROP_PX, 0:COIN_CROP_PX].astype(np.float64)
_MIDDLE_PX = (COIN_CROP_PX - 1) / 2.0


def ink_sizes(crop: np.ndarray) -> tuple[float, ...]:
    """A coin crop's printed ink (COIN_CROP_PX square, BGR) as four sizes in mm, the square root of the ink's area
    within INK_RADIUS_MM of its centre. Each pixel's colour is projected on the line from the face's colour to the
    ink's (the disc's most unlike pixels), once as a share of that line (1: the ink's own colour) and once as a
    share of the face's brightness (a thin ray whose darkest pixel is paler than a solid one counts as less ink,
    but the face's light is the frame's); and the face's colour is taken two ways: the median of the ring round the
    symbol, and a plane fitted over that ring (a lamp to one side shades a coin: a flat face colour counts the
    shading as ink, the more the further the symbol's ink centre lies towards the darker side; the plane is noisier
    where the shading is slight, as on most of the bench's coins, 6 % across the crop). Written here, not a
    library's: after the projection it is a sum."""
    x = np.asarray(crop, np.float64).reshape(COIN_CROP_PX, COIN_CROP_PX, -1)
    r = np.hypot(_XX - _MIDDLE_PX, _YY - _MIDDLE_PX) / _PX_PER_MM
    ring = (r > _INK_FACE_RING_MM[0]) & (r < _INK_FACE_RING_MM[1])
    terms = np.stack([np.ones_like(_XX), (_XX - _MIDDLE_PX) / COIN_CROP_PX, (_YY - _MIDDLE_PX) / COIN_CROP_PX], -1)
    plane, *_ = np.linalg.lstsq(terms[ring], x[ring], rcond=None)
    for _ in range(2):  # again without the ring's pixels least like the plane (a ray's tip, a speck)
        off = np.linalg.norm(x[ring] - terms[ring] @ plane, axis=1)
        kept = off <= np.percentile(off, _INK_RING_KEPT)
        plane, *_ = np.linalg.lstsq(terms[ring][kept], x[ring][kept], rcond=None)
    sizes: list[float] = []
    for face in (np.broadcast_to(np.median(x[ring], axis=0), x.shape), terms @ plane):
        sizes += _ink_sizes(x, face, r)
    return tuple(sizes)


def _ink_sizes(x: np.ndarray, face: np.ndarray, r: np.ndarray) -> list[float]:
    inside = r < _INK_DISC_MM
    far = np.linalg.norm((x - face)[inside], axis=1)
    line = np.median((face - x)[inside][np.argsort(-far)[: max(5, int(_INK_SHARE * int(inside.sum())))]], axis=0)
    along = (face - x) @ line
    images = (along / max(float(line @ line), 1e-9),
              along / np.maximum(float(np.linalg.norm(line)) * np.linalg.norm(face, axis=-1), 1e-9))
    # the symbol's centre: the ink's centroid, three times (a symbol printed a little off the coin's middle)
    cx = cy = _MIDDLE_PX
    for _ in range(3):
        rr = np.hypot(_XX - cx, _YY - cy) / _PX_PER_MM
        weight = np.clip(images[0] - np.median(images[0][(rr > _INK_FACE_RING_MM[0]) & (rr < _INK_RING_OUT_MM)]),
                         0.0, None) * (rr < INK_RADIUS_MM)
        total = float(weight.sum())
        if total <= 0:
            break
        cx, cy = float((weight * _XX).sum()) / total, float((weight * _YY).sum()) / total
        if np.hypot(cx - _MIDDLE_PX, cy - _MIDDLE_PX) / _PX_PER_MM > _INK_MOST_SHIFT_MM:
            cx = cy = _MIDDLE_PX
            break
    rr = np.hypot(_XX - cx, _YY - cy) / _PX_PER_MM
    ring, inside = (rr > _INK_FACE_RING_MM[0]) & (rr < _INK_RING_OUT_MM), rr < INK_RADIUS_MM
    return [float(np.sqrt(max(float((image[inside] - np.median(image[ring])).sum()), 0.0))) / _PX_PER_MM
            for image in images]


def by_ink(twins: list[tuple[str | None, Suit, tuple[float, ...]]], sizes: TwinSizes) -> list[str | None]:
    """One frame's twins of the suits whose size the fit does not read (no taught size, or a taught half band over
    FRAME_MOST_HALF_BAND) read against each other by their ink: each ``(side read surely or None, suit,``
    :func:`ink_sizes` ``)``; for each, "suit" where it is unclear and another twin of its suit in the frame has less
    ink by INK_BELOW every way (then it is no ace: see READ_BY_INK), else None."""
    if not READ_BY_INK:
        return [None] * len(twins)
    out: list[str | None] = []
    for k, (side, suit, own) in enumerate(twins):
        entry = sizes.suits.get(suit)
        if side is not None or (entry is not None and entry[3] <= FRAME_MOST_HALF_BAND):
            out.append(None)
            continue
        below = any(j != k and other == suit and all(o <= m - INK_BELOW for o, m in zip(ink, own, strict=True))
                    for j, (_, other, ink) in enumerate(twins))
        out.append("suit" if below else None)
    return out


def by_larger(twins: list[tuple[str | None, Suit, float | None]]) -> list[str | None]:
    """One frame's twins of the suits read in the frame (:meth:`TwinSizes.read_in_frame`) read against each other by
    their fitted size: each ``(side read surely or None, suit, q from`` :meth:`TwinSizes.frame_size` ``or None)``; for
    each, "suit" where it is unclear and another twin of its suit in the frame fits LARGER_BY smaller (then it is no
    ace: see READ_BY_LARGER), else None."""
    if not READ_BY_LARGER:
        return [None] * len(twins)
    out: list[str | None] = []
    for k, (side, suit, q) in enumerate(twins):
        smaller = side is None and q is not None and any(
            j != k and other == suit and size is not None and size <= q - LARGER_BY
            for j, (_, other, size) in enumerate(twins))
        out.append("suit" if smaller else None)
    return out
