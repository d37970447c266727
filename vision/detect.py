"""Frames -> pieces: tiles and coins found, fitted and read; pawns, dice and pyramids from vision.figures.

Pipeline of :meth:`Detector.detect` (each step's reason in its own module):

1. :class:`vision.rectify.TableView`: the grey frame halved once and remapped to a top-down view of the table
   plane at half a pixel per millimetre (maps computed once per calibration, lens distortion included);
2. :mod:`vision.segment`: Sobel edges of the view; one pass for the coin-centre votes and the edges of each
   dominant direction; for each direction a matched filter for a tile's outline;
3. :mod:`vision.tiles`, :mod:`vision.coins`: the candidates fitted to their outline (tiles) or rim (coins) in the
   RAW grey frame, through the homography of each piece's top face (its height included: a coin on a tile is
   6 mm up); most false candidates fall here, cheaply;
4. :mod:`vision.crops`: canonical crops of the fitted pieces from the raw frame (one remap per kind);
5. :mod:`vision.classify`: all crops read at once against the profile's templates (side, suit, rank, rotation,
   confidence); the few not read clearly are searched for a better window; candidates that are no piece are
   dropped, pieces that cannot be read surely are *uncertain*;
6. grids grow from the tiles read into tiles whose outline hardly shows (touching white tiles on white paper);
   tiles under coins are read again without the coins;
7. :func:`vision.figures.detect_figures` for pawns, dice and pyramids, given the tiles and coins found;
   coins under a die become uncertain.

Positions are footprint centres on the table in mm. A :class:`Detector` keeps everything that depends only on
the calibration and the profile (the view's maps, the readers' templates), so following a game costs one
``detect`` per frame; :func:`detect_pieces` is the one-call convenience. Nothing is global.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numba import njit

from calibration.profile import (
    COIN_CROP_MM,
    COIN_CROP_PX,
    MARK_CROP_MM,
    MARK_CROP_PX,
    TILE_CROP_MM,
    TILE_CROP_PX,
    PieceSetProfile,
    coin_face_colour,
    default_profile,
)
from calibration.rectify import Rectified
from calibration.table_calibration import Calibration
from calibration.teach import (
    COIN_CONTEXT_MM,
    COIN_CONTEXT_PX,
    TILE_CONTEXT_MM,
    TILE_CONTEXT_PX,
    TeachFigure,
    TeachPhoto,
    TeachPiece,
    _blocks,
)
from rules.pieces import COIN_MM, TILE_MM, Kind
from vision.classify import COVER_LOOK_MIN_SCORE, SEARCH_MIN_SCORE, CoinReader, MarkReader, Reading, TileReader
from vision.coin_face_colour import FACE_CHROMA_MOST, WHITE_TILES_LEAST, off_coin_colour
from vision.coin_ink import (
    MARK_COLOUR_PX_PER_MM,
    frame_px_per_mm,
    frame_rim_suits,
    rim_colour,
    rim_face_colour,
    rim_lab,
)
from vision.coin_set import complete_suits
from vision.coins import fit_coins
from vision.crops import HalfFrame, oversampling, piece_axes, piece_homographies, sample_crops, sample_with
from vision.errors import VisionError
from vision.figure_search import COIN_PRINT_REASON, may_be_a_print
from vision.grid import angle_from_pieces
from vision.marker_check import markers_shown, sheet_markers, squares_hide_shown
from vision.pieces import DetectedPiece, Detection
from vision.rectify import TableView
from vision.segment import (
    EdgeMap,
    SideGrid,
    dominant_angles,
    edge_directions,
    edge_map,
    peaks,
    squared_distances,
    votes_and_sides,
)
from vision.set_colours import colour_distances, marker_paper, paper_beside, tile_colours
from vision.tiles import TileFit, fit_tiles, tile_candidates

__all__ = ["Detector", "Shapes", "ProfileMismatch", "detect_pieces", "survey_teach_photo", "ALL_KINDS"]


class ProfileMismatch(VisionError):
    """The frame shows tiles, but they do not look like the piece set of the profile."""


ALL_KINDS = ("tile", "coin", "pawn", "die", "pyramid")
_FIGURE_KINDS = ("pawn", "die", "pyramid")
_COLOUR_TILES_MIN = 4  # the tiles' colours are judged only where this many tiles read (vision.set_colours) ...
# ... and refuse the profile where their median distance from the taught colour (vision.set_colours) is above this.
# Measured: the right profile's tiles 0.094 at most (tile-backs 1204 hand-made, a lamp close above: the kraft backs'
# red near the camera's clipping); bench_detect offsets 0-60 0.060 at most, bench_states 0.065, bench_conditions
# 0.088 (glare x2.5 on the classic faces; 0.067-0.080 on its held-out seeds). Another set's tiles read as this set's:
# default <-> bold backs 0.117-0.20, classic faces read with the default or hand-made profile 0.12-0.16. Not told
# apart (left to the unread count, or judged): the classic and hand-made backs (0.05 at most: the same hue), the
# white faces of the default and hand-made sets (0.04), and the default and hand-made faces read with the classic
# profile (0.09-0.10: as far as the right classic faces under glare).
_COLOUR_REFUSE = 0.105
# A frame whose tiles lie this near the taught colours proves the profile (Detector.colours_once, the live loop):
# the right profile 0.060 at most on bench_detect 0-60 (0.001-0.047 on tile-backs 1001/1003/1204 and Easy Slider
# 500); another set's 0.09 at the least where colour tells the sets apart (the default and hand-made faces read with
# the classic profile 0.09-0.10, judged; Easy Slider 500's 0.092; the classic faces read with theirs 0.12-0.16).
# Sets colour does not tell apart (classic <-> hand-made backs 0.013-0.053, default <-> hand-made faces
# 0.006-0.041: tile-backs 1001-1204, Easy Slider 500-502, Slide Jam 1200/1201) prove it as they pass it. A right
# frame above it (glare: 0.088, 0.094) proves nothing: the next frame is judged again.
_COLOUR_PROOF = 0.075
_VIEW_PX_PER_MM = 0.5  # the view pieces are found in: a tile is 25 px, a coin 9.5
_COIN_VOTES_MIN = 4.0  # coin-centre votes (rim pixels of the view, each at most 1) for a candidate
_COIN_VOTES_FAINT = 3.0  # ... for a candidate that must read surely as a printed face (a light coin on paper)
_COIN_GRID_ROUNDS = 6  # coin grids grow from the coins read, this many rounds at most
_RIM_SUPPORT_MIN = 0.35  # share of rays finding a coin's rim for a coin to be there
_RIM_MATCH_MIN = 0.3  # how well the coins' radial signature must fit (true coins: 0.4 and up; texture: 0.2)
_BLANK_RIM_SUPPORT = 0.7  # ... where the face gives no evidence (blank) or could be print (on a tile)
_BACK_RIM_SUPPORT = 0.5  # ... on a tile's back (a coin as light as the back shows little more than its edge)
_RIM_POLARITY = 0.85  # ... and the share of those with the rim's majority polarity there
_BLANK_RIM_MATCH = 0.5  # a blank face: nothing printed to go by, the coin's radial signature must fit well
# A blank face on the table whose radial signature fits this well is a coin though its rim shows only this much of
# itself, and though no clear vote peak was there (grown from a coin grid, or a faint peak: a light null on white
# paper). Measured (default edition, 2733 places on the table with nothing printed inside, 17-25 mm from coins:
# the gaps of coin grids, beside Easy Slider coins, beside tile blocks): the signature fits 0.50 at most there;
# 101 of 129 blank nulls fit 0.6 or more (support 0.47 and up)
_CLEAR_BLANK_RIM_MATCH = 0.6
_CLEAR_BLANK_RIM_SUPPORT = 0.45
# ... and at a clear vote peak of its own (its rim voted), a blank face on the table is a coin where its signature
# fits this well and its rim shows this much (the paper's 0.50 still below), and its face is plainer than the blank
# bar asks: at most _PEAK_BLANK_INK of the crop's feature energy inside the rim. Light nulls on light paper in bright
# frames fit 0.57-0.59 with support 0.53-0.66, their faces 0.20-0.31, and were missed (default coin grids 1060's
# crowns and arms nulls, 1062's arms null, bench_detect offset 60). The blank nulls found over bench_detect's default
# coin grids and tile backs at offsets 0-120 are at 0.06-0.43, printed faces at 0.76 and up; peaks beside a hand
# over the board fitting so (bench_conditions 940, 960, 962) at 0.55-0.60 (/tmp/nulls-17/an/peakdbg.py, share.py).
_PEAK_BLANK_RIM_MATCH = 0.55
_PEAK_BLANK_RIM_SUPPORT = 0.5
_PEAK_BLANK_INK = 0.4
# ... and where its rim fits as plainly as a coin's does all round (the empty table fits 0.50 at most, see above),
# at a peak or grown from a coin grid, a blank face may show this much of its feature energy inside the rim (the
# usual bar, vision.classify._BLANK_INK, is 0.5): a near-white null on near-white paper has so faint a rim that the
# paper's grain inside it weighs as much (default coin grid 1004's moons null, bench_detect offset 0: rim match 0.72,
# support 0.72, face 0.51, missed); printed faces are at 0.76 and up (see above)
_PLAIN_RIM_MATCH = 0.7
_PLAIN_RIM_SUPPORT = 0.7
_PLAIN_RIM_BLANK_INK = 0.6
# a strong peak whose rim fits this plainly (match _PLAIN_RIM_MATCH and up, this support) and whose face correlates
# this much with the best face, though under the profile's floor, is a coin whose face was not read (see the fit)
_UNREAD_FACE_RIM_SUPPORT = 0.9
_UNREAD_FACE_SCORE = 0.6
_FINE_PX_PER_MM, _COARSE_PX_PER_MM = 1.5, 1.0  # faint peaks: frames between these resolutions ...
_COARSE_RIM_MATCH = 0.37  # ... are fitted from more starts, and need this match at the coarse end (see the fit)
_COIN_ALIGN_PX = 4  # coin crops: how far (crop pixels, 0.5 mm each) the printed face may pull the rim's centre
_FACE_ONLY_EXTRA = 0.15  # how much better than usual a face must match where no outline shows
_ALIGN_PX = 4  # tile crops: how far (crop pixels, ~1.2 mm each) the printed face may pull the fitted pose
_MARK_ALIGN_PX = 3  # rank marks (second look): how far (crop pixels, 0.6 mm each) the window is searched
_TILE_FIT_MM = TILE_MM + 10.0  # the square around a tile candidate its homography is exact on
_FIT_REACH_MM = 3.0  # how far a tile's outline fit moves from its start
_BACK_PULL_MM = 3.0  # how far off a tile back's outline is read again when its fit reads as nothing (see
# Detector._read_backs_pulled): a back reads within ~1.5 mm of its place, and its fit lands 2.5-4 mm off
_LOPSIDED_REACH_MM = 6.0  # ... when a tile not read surely is fitted again (see Detector._refit_lopsided)
_LOPSIDED = 0.5  # an outline whose opposite sides' support differs by this much is lopsided
_MARKER_RIM_MM = 3.0  # a coin read blank whose rim comes this close to two sheet markers is uncertain
_SHEET_LINE_MM = 3.0  # a lopsided outline's strong side this close to the sheet's edge (and along it) is that edge
_TURN_AGAIN_DEG = 3.0  # a tile not read surely is fitted again turned this much either way (see _turn_unsure)
_COIN_FIT_MM = COIN_MM + 8.0
# a faint peak on the table that read as no coin: its rim fitted again from these starts (mm; _faint_read_around)
_FAINT_STARTS_MM = ((4.0, 0.0), (-4.0, 0.0), (0.0, 4.0), (0.0, -4.0))
_GAP_RIM_MATCH, _GAP_RIM_SUPPORT = 0.4, 0.3  # ... and the bars its rims meet between two markers (see there)
_GAP_MARKER_MM = 5.0  # a coin whose rim comes this close to two sheet markers lies in the gap between them
_TEACH_SHRINK_MM = 7.0  # teach photos: the fit looks for any square outline this much smaller (a printed frame)
_FAINT_SEEDS = 12  # candidates without an outline read by their face alone, at most
_MARK_MM = 20.0  # the size of a tile's rank mark (a numeral, a symbol)
_WEAK_RIM_MATCH = 0.15  # a coin on the table whose rim shows all round (this support) but matches only this well ...
_WEAK_RIM_SUPPORT = 0.75  # ... is kept only if its face reads clearly as printed (texture: ~0.2, see _RIM_MATCH_MIN)
#   (three quarters round: a kid's rim doubled by its trampoline's, 1.4 mm off, showed on 0.81: Trampo-Land 114)
#: A refit of a grown coin's rim (``Detector._refit_converged``) is kept only this near its start: coin grid 1041's
#: suns 3 lay 4.4 mm off its grid proposal; held-out Whack-a-Dummy classic 128's proposal at the coin under the die
#: was refitted 6.6 mm off, onto paper read as an unclear coin 7.8 mm from any real one
_REFIT_MOST_MM = 5.5
_FAINT_WEAK_RIM_SUPPORT = 0.5  # ... a faint peak's rim under the faint floor (_BLANK_RIM_MATCH): half round
_WEAK_RIM_CONFIDENCE = 0.99  # ... with twice the margin a sure reading needs (confidence 1): a rim doubled by the
#   coin it lies on (a kid 2 mm off its trampoline, match 0.19) gave a crop read at confidence 0.5 as another face
_STACKED_SCORE = 0.4  # a coin crop read as no face but this close to one: its rim is fitted again around
_STACKED_LOOK_SCORE = 0.25  # ... and on the table, inside a rim this plain (match, support), from this close
# (0.35: Trampo-Land default seed 114's kid on trampoline 1, a plain crowns suit side 1.6 mm off its trampoline, had
#   its rim fitted between the two at match 0.38 and read no face at 0.396; around, it reads surely. Still above
#   any coin's floor, _RIM_MATCH_MIN, and only a sure face or a near one is reported from the look)
_STACKED_RIM_MATCH = 0.35
_STACKED_RIM_SUPPORT = 0.6
_STACKED_FAINT_SUPPORT = 0.5  # a faint peak's rim on the table showing this much is looked at around too
_STACKED_UNCLEAR_SCORE = 0.8  # a coin on another read unclear around at least this close to a face: uncertain
# a face found by the look around at least this far off the rim fitted first: two rims, the coin lies on another
# (Trampo-Land kids, four editions, seeds 100-135: 2.0-3.6 mm off; a blurred bare trampoline's 0.0, kids' 0.2-0.35)
_STACKED_APART_MM = 1.5
_BACK_MATCHED_RIM = 0.6  # a coin on a back whose rim matches this well needs only the table's rim support
_BACK_SHADOWED_RIM = 0.7  # a coin on a back whose rim's signature matches this well (see _polarity_needed) ...
_BACK_SHADOWED_POLARITY = 0.75  # ... needs only this share of its rim's rays with the majority polarity
_GRID_TURN_DEG = 2.0  # an unread outline turned farther off the grid's tiles is fitted again at their turn
_TRIED_MM = TILE_MM / 3  # a lattice place within this of one tried already is not proposed again
_AROUND_MM = 5.0  # a lattice place whose outline shows a side hardly at all is fitted again from starts this far off
_REFIT_DRIFT_MM = 3.0  # a lattice place's outline refitted farther off is read at the place itself too
_MARKER_HIDE_MARGIN_MM = 1.5  # a tile's outline within this of a sample point may leave it uncovered (pose error)
_SHEET_EDGE_MM = 8.0  # a square "open off the sheet" has a side within this of the sheet's edge (plus a half tile)
# A coin's printed symbol (the classic set's gold crown) can be fitted as a sure pawn whose silhouette follows the
# coin's outline: no feature of the figure alone tells it from a real pawn (outline support, share of the region,
# brightness, colour: all overlap). A real pawn standing on a coin hides the coin's centre; a print IS the centre.
# So where a sure pawn stands the coin reader reads a coin crop (at one and two coins' height, its window searched
# _PRINT_ALIGN_PX around); a face of the pawn's own suit matching _PRINT_FACE_SCORE or more there makes the pawn
# unclear. Measured (the best score of a label of the pawn's suit, over both heights): the 4 phantoms of
# Trampo-Land classic 92, 100, 121: 0.84-0.89; 212 real sure pawns (Trampo-Land 91, 92, 100, 107, 114, 121 and
# dice scenes 500-511, 600-611, all four editions): 0.77 at most (a bold crowns pawn, Trampo-Land 107; dice 0.75).
# Held out (dice scenes 612-623): a classic crown print scored 0.7997 (a sure phantom pawn at 0.81); over dice
# scenes 600-623, 160 real pawns score 0.775 at most and 14 phantoms 0.800 or more: 0.79 between them (a real pawn
# doubted is uncertain, never wrong). That bar sat on a knife edge; now it depends on the coin under the pawn:
_PRINT_ALIGN_PX = 8
# The coin under a print shows whole (it is flat): the coin reader reports it (surely or not) right where the pawn
# was fitted, while a real pawn standing on a coin hides its rim and no coin is reported under it. So a pawn with a
# coin reported within _PRINT_COIN_MM of it is doubted from _PRINT_FACE_NEAR_COIN already, one with none only from
# _PRINT_FACE_SCORE. Measured (sure pawns before the doubt, coins as reported): dice scenes 600-623 (4 editions) and
# Trampo-Land states 100-135 (4 editions, every 7th): every phantom (13, classic crowns prints scoring 0.79-0.93)
# had a coin 2.0-4.6 mm from it; no real pawn (194) had one nearer than 21 mm, and real pawns scored 0.81 at most
# (a default Trampo-Land kid on a trampoline of its own suit, seed 107, doubted at 0.79 before). A pawn doubted
# wrongly is uncertain, never wrong.
_PRINT_COIN_MM = 8.0
_PRINT_FACE_NEAR_COIN = 0.65
_PRINT_FACE_SCORE = 0.82


def _outline_usable(support: tuple[float, float, float, float]) -> bool:
    """Enough of a tile's outline to read it: two adjacent sides (they pin a corner) or three of four."""
    left, right, top, bottom = support
    corner = max(min(left, top), min(top, right), min(right, bottom), min(bottom, left))
    return corner >= 0.5 or sorted(support)[1] >= 0.4


@dataclass
class Shapes:
    """Tile and coin candidates of one frame, found in the view (no profile needed)."""

    grey: np.ndarray  # the raw frame, grey
    gradients: tuple[np.ndarray, np.ndarray]  # its Sobel gradients (int16): what the fits sample
    view: np.ndarray  # the grey top-down view (uint8)
    edges: EdgeMap
    sides: list[SideGrid]  # per dominant direction
    responses: list[tuple[np.ndarray, np.ndarray]]  # per direction: the matched filter's total and weakest side
    tile_candidates: np.ndarray  # (n, 4): x, y (view px), angle (degrees mod 90), matched-filter total
    coin_peaks: np.ndarray  # (n, 3) coin-centre vote peaks: x, y (view px), votes
    timings_ms: dict[str, float]
    noise: float = 0.0  # the view's edge noise (what ink marks must stand out of)
    edges_px_per_mm: float = 0.5  # the view's resolution
    _marks: np.ndarray | None = None

    @property
    def ink_marks(self) -> np.ndarray:
        """(n, 3) middles of ink marks of a tile's rank's size: x, y (view px), strength (made when first asked
        for: only faint grids need them)."""
        if self._marks is None:
            self._marks = _ink_marks(self.view, self.edges_px_per_mm, self.noise)
        return self._marks


def _ink_marks(view: np.ndarray, px_per_mm: float, noise: float) -> np.ndarray:
    """Blobs of a tile's rank mark's size (a difference of Gaussians, either polarity): where the middle of a
    tile whose outline does not show may be. (n, 3): x, y (view px), strength, strongest first."""
    image = view.astype(np.float32)
    small = cv2.GaussianBlur(image, (0, 0), _MARK_MM / 4 * px_per_mm)
    large = cv2.GaussianBlur(image, (0, 0), _MARK_MM / 2 * px_per_mm)
    dog = np.abs(small - large)
    return peaks(dog, TILE_MM / 2 * px_per_mm, noise / 8.0 * 3.0, limit=100)


def _tick(timings: dict[str, float], key: str, start: float) -> float:
    now = time.perf_counter()
    timings[key] = timings.get(key, 0.0) + 1000.0 * (now - start)
    return now


@dataclass(frozen=True)
class _Pose:
    """A piece's pose on the table: footprint centre (mm), rotation (degrees clockwise)."""

    centre: np.ndarray
    angle_deg: float


class Detector:
    """Finds and reads the pieces in frames of one calibration with one piece-set profile.

    ``profile``: a :class:`calibration.profile.PieceSetProfile` (None: the built-in default edition).
    ``px_per_mm``: resolution of the top-down view pieces are found in (fitting and reading use the raw frame).
    ``check_profile``: raise :class:`ProfileMismatch` when clear tile outlines do not read as the profile's set.
    ``colours_once``: judge the tiles' colours (:meth:`_colours_refuse`, ~1.5-3.5 ms a frame) only until a frame's
    tiles have proven them the profile's (:attr:`colours_proven`); the live loop's detector, which sees one set
    all session long. Per-frame commands leave it False: every frame is checked.
    """

    def __init__(
        self,
        calibration: Calibration,
        profile: PieceSetProfile | None = None,
        *,
        px_per_mm: float = _VIEW_PX_PER_MM,
        check_profile: bool = True,
        colours_once: bool = False,
    ) -> None:
        self.calibration = calibration
        self.check_profile = check_profile
        self.colours_once = colours_once
        # a frame's tiles lay within _COLOUR_PROOF of the profile's colours: with colours_once, not judged again
        self.colours_proven = False
        self.profile = profile if profile is not None else default_profile()
        self.view = TableView(calibration, px_per_mm=px_per_mm)
        self.tile_reader = TileReader(self.profile)
        # the frame's scale: under 1.25 px/mm a null's small dot cannot show its colour (vision.coin_ink)
        self.coin_reader = CoinReader(self.profile, px_per_mm=frame_px_per_mm(calibration))
        self.mark_reader = MarkReader(self.profile, self.tile_reader.labels)
        self.markers_mm = _sheet_markers(calibration)
        self.sheet_mm = _sheet_rect(calibration)
        self._colour_view: TableView | None = None
        self._half: HalfFrame | None = None  # the frame halved where tile crops read it: see _sample_tiles
        self._markers = sheet_markers(calibration)
        # the frame's markers looked at so far (1 shown, 0 not, -1 not looked at): see _hiding_shown_markers
        self._marker_shown = np.full(0 if self._markers is None else len(self._markers.ids), -1, np.int8)
        self._grey: np.ndarray | None = None  # the frame's grey image, while it is detected
        # the frame's tile outline fits so far, by start (see _fit_tiles), and the gradients they were made on
        self._fitted: dict[tuple[bytes, bytes, float], tuple[_Pose, TileFit]] = {}
        self._fitted_on: tuple[np.ndarray, np.ndarray] | None = None

    # -- geometry --------------------------------------------------------------------------------------------
    def _lift(self, view_px: np.ndarray, heights_mm: np.ndarray | float) -> np.ndarray:
        """View pixels of points seen ``heights_mm`` above the table -> their footprints (table mm)."""
        table0 = self.view.to_table(view_px)
        if np.all(np.asarray(heights_mm) == 0):
            return table0
        pixels = self.calibration.table_to_pixel(table0)
        return self.calibration.pixel_to_table(pixels, heights_mm)

    def shapes(self, image: np.ndarray) -> Shapes:
        """Candidates for tiles and coins in ``image`` (see the module docstring, steps 1-2)."""
        self._check(image)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        view = self.view.rectify_grey(grey)
        gradients = cv2.spatialGradient(grey)
        start = _tick(timings, "view", start)
        p = self.view.px_per_mm
        edges = edge_map(view)
        angles = dominant_angles(edge_directions(edges, p))
        votes, sides = votes_and_sides(edges, COIN_MM * p, angles)
        start = _tick(timings, "edges", start)
        responses: list[tuple[np.ndarray, np.ndarray]] = []
        candidates = tile_candidates(sides, TILE_MM * p, responses=responses)
        coin_peaks = peaks(votes, COIN_MM * p * 0.4, _COIN_VOTES_FAINT)
        _tick(timings, "candidates", start)
        return Shapes(grey, gradients, view, edges, sides, responses, candidates, coin_peaks, timings,
                      noise=edges.noise, edges_px_per_mm=p)

    def _check(self, image: np.ndarray) -> None:
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            raise VisionError("the image is empty: give a camera frame of the table")
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise VisionError("the image must be an 8-bit colour (BGR) frame")
        self.calibration.check_frame((image.shape[1], image.shape[0]))

    # -- detection -------------------------------------------------------------------------------------------
    def detect(self, image: np.ndarray, kinds: Iterable[str] | None = None) -> Detection:
        """All pieces in ``image`` (a frame of the calibration's size). ``kinds``: which kinds to look for
        (default all: tile, coin, pawn, die, pyramid)."""
        wanted = set(ALL_KINDS if kinds is None else kinds)
        unknown = wanted - set(ALL_KINDS)
        if unknown:
            raise VisionError(f"unknown piece kind {sorted(unknown)[0]!r}: use {', '.join(ALL_KINDS)}")
        self._half = None  # a camera may reuse one buffer for every frame: nothing of a frame outlives detect
        self._fitted, self._fitted_on = {}, None
        self._marker_shown[:] = -1
        shapes = self.shapes(image)
        self._grey = shapes.grey
        timings = dict(shapes.timings_ms)
        start = time.perf_counter()
        tiles, unread = self._read_tiles(image, shapes) if wanted & {"tile", "coin"} else ([], [])
        start = _tick(timings, "tiles", start)
        # clear outlines not read as tiles may be tiles under coins (Plans of Action): coins on them are raised
        outlined = self._tile_pieces([f.pose for f in unread], [Reading("unclear", reason="unread")] * len(unread))
        # coins found only by fitting their rim again around (a kid lying off its trampoline) are looked for only
        # where the figures are too: a meeple's head seen from above read as a sure coin so (hand-made board 504)
        # and is dropped where a figure stands
        around: list[DetectedPiece] | None = [] if "coin" in wanted and wanted & {"pawn", "die"} else None
        # coins found only at strong peaks whose own fit failed (see _stacked_at_strong), looked for where dice are
        # too (the Funhouse rooms played on coins; not Easy Slider): no figure is looked for on them (on a kid's
        # stack the figure search fitted a die whose face reads nothing, Trampo-Land classic 100)
        no_figure_look: list[DetectedPiece] | None = [] if around is not None and "die" in wanted else None
        coins = self._read_coins(image, shapes, _coin_ground(tiles, outlined, wanted), around, no_figure_look) \
            if "coin" in wanted else []
        start = _tick(timings, "coins", start)
        if coins:
            tiles, unread = self._reread_tiles_under_coins(image, tiles, outlined, unread, coins)
            start = _tick(timings, "tiles", start)
            # an outline still unread under two coins or more cannot tell which set it is: what shows of a back
            # between the coins (its printed grid lines) correlates as well with another edition's back (measured
            # on the default Slides of Action backs under 3-4 coins, best masked correlation within 7 mm and 6 deg
            # of the outline: 0.54-0.64 with the default profile, 0.58-0.66 with the bold one). A back under one
            # coin still shows four fifths of itself: it is judged (the masked reread reads it in the right set)
            unread = [f for f in unread if sum(
                c.height_mm > 0 and _inside(_finding_piece(f), c.x_mm, c.y_mm) for c in coins) < 2]
        self._check_profile(image, tiles, unread, coins)
        tiles = _doubt_faces_read_twice(tiles)
        coins = _doubt_tile_corner_prints(coins, tiles)
        pieces = (list(tiles) if "tile" in wanted else []) + coins
        figure_kinds = [k for k in _FIGURE_KINDS if k in wanted]
        if figure_kinds:
            looked_on = [p for p in pieces if not any(p is q for q in no_figure_look or ())]
            figures = self._doubt_coin_prints(image, self._figures(image, looked_on, figure_kinds), coins)
            if around:
                pieces = [p for p in pieces if not (any(p is a for a in around) and any(
                    math.hypot(f.x_mm - p.x_mm, f.y_mm - p.y_mm) < COIN_MM / 2 for f in figures))]
            pieces = _mark_covered_coins(pieces, figures) + figures
            _tick(timings, "figures", start)
        sure = [p for p in pieces if not p.uncertain]
        unsure = [p for p in pieces if p.uncertain]
        self._fitted, self._fitted_on = {}, None  # (the frame's gradients are not kept until the next frame)
        return Detection(sure, unsure, (image.shape[1], image.shape[0]), timings)

    def colour_view(self, image: np.ndarray) -> Rectified:
        """A colour top-down view at 1 px/mm (what vision.figures searches), made on demand."""
        if self._colour_view is None:
            self._colour_view = TableView(self.calibration, px_per_mm=1.0)
        return self._colour_view.rectify(image)

    def _figures(self, image, pieces, kinds) -> list[DetectedPiece]:
        try:
            from vision.figures import detect_figures
        except ImportError:  # pragma: no cover - vision.figures is part of tableside
            return []
        try:
            return list(detect_figures(image, self.calibration, self.profile, kinds=kinds,
                                       rectified=self.colour_view(image), occupied_mm=pieces))
        except (ImportError, NotImplementedError):  # the figure detector is not there yet
            return []

    def _doubt_coin_prints(self, image: np.ndarray, figures: list[DetectedPiece],
                           coins: Iterable[DetectedPiece] = ()) -> list[DetectedPiece]:
        """Sure pawns where a coin's printed face of the pawn's suit reads well (see _PRINT_FACE_SCORE; less well
        where one of ``coins``, the coins reported, lies under the pawn): unclear, with ``COIN_PRINT_REASON``
        (``may_be_a_print`` then knows the coin under it is not covered)."""
        sure = [k for k, f in enumerate(figures) if f.kind is Kind.PAWN and not f.uncertain and f.suit is not None]
        if not sure:
            return figures
        coins = list(coins)
        thickness = self.profile.coin_thickness_mm
        at = np.array([[figures[k].x_mm, figures[k].y_mm] for k in sure for _ in (1, 2)], float)
        heights = np.array([h * thickness for _ in sure for h in (1, 2)], float)
        m, n = _PRINT_ALIGN_PX, COIN_CROP_PX
        size = COIN_CROP_MM * (n + 2 * m) / n
        homographies = piece_homographies(self.calibration, at, np.zeros(len(at)), heights, size)
        big = sample_with(image, homographies, size, n + 2 * m, oversampling(self.calibration, at[0], size, n + 2 * m))
        out = list(figures)
        for i, k in enumerate(sure):
            pawn = figures[k]
            on_coin = any(math.hypot(c.x_mm - pawn.x_mm, c.y_mm - pawn.y_mm) <= _PRINT_COIN_MM for c in coins)
            bar = _PRINT_FACE_NEAR_COIN if on_coin else _PRINT_FACE_SCORE
            for crop in big[2 * i : 2 * i + 2]:
                reading, _, (_, suit, _) = self.coin_reader.read_aligned_best(crop, m)
                if suit is pawn.suit and reading.score >= bar:
                    reason = f"{pawn.reason}; {COIN_PRINT_REASON}" if pawn.reason else COIN_PRINT_REASON
                    out[k] = replace(pawn, uncertain=True, confidence=min(pawn.confidence, 0.5), reason=reason)
                    break
        return out

    # -- tiles -----------------------------------------------------------------------------------------------
    def _fit_tiles(self, gradients: tuple[np.ndarray, np.ndarray], centres: np.ndarray,
                   angles: np.ndarray, reach_mm: float = _FIT_REACH_MM) -> list[tuple[_Pose, TileFit]]:
        """Each candidate's outline fitted in the raw frame (within ``reach_mm`` of it): its corrected pose and
        the fit. A fit depends on its own start alone (start, turn, reach: bit for bit, whatever else is fitted
        with it), so each is made once a frame: the second looks around a lattice place fit from the same
        starts (:meth:`_refit_around`, :meth:`_refit_around_corner`)."""
        centres = np.asarray(centres, float).reshape(-1, 2)
        angles = np.asarray(angles, float).reshape(-1)
        if self._fitted_on is not gradients:
            self._fitted_on, self._fitted = gradients, {}
        keys = [(centre.tobytes(), angle.tobytes(), float(reach_mm))
                for centre, angle in zip(centres, angles, strict=True)]
        todo = [i for i, key in enumerate(keys) if key not in self._fitted]
        if todo:
            made = self._fit_tiles_now(gradients, centres[todo], angles[todo], reach_mm)
            for i, item in zip(todo, made, strict=True):
                self._fitted.setdefault(keys[i], item)
        return [self._fitted[key] for key in keys]

    def _fit_tiles_now(self, gradients: tuple[np.ndarray, np.ndarray], centres: np.ndarray,
                       angles: np.ndarray, reach_mm: float) -> list[tuple[_Pose, TileFit]]:
        """:meth:`_fit_tiles` without its memory of the frame's fits."""
        height = self.profile.tile_thickness_mm
        homographies = piece_homographies(self.calibration, centres, angles, height, _TILE_FIT_MM + 2.0 * (
            reach_mm - _FIT_REACH_MM))
        fits = fit_tiles(gradients, homographies, TILE_MM, reach_mm=reach_mm,
                         shrink_mm=self.profile.tile_frame_mm + 1.0)
        rights, downs = piece_axes(np.asarray(angles, float).reshape(-1))
        # all poses at once: the same elementwise sums and products, in the same order, as one pose at a time
        shifts = np.array([[fit.du_mm, fit.dv_mm, fit.dangle_deg] for fit in fits]).reshape(-1, 3)
        moved = np.asarray(centres, float).reshape(-1, 2) + shifts[:, 0:1] * rights + shifts[:, 1:2] * downs
        turned = np.asarray(angles).reshape(-1) + shifts[:, 2]
        return [(_Pose(centre, float(angle)), fit) for centre, angle, fit in zip(moved, turned, fits, strict=True)]

    def _sample_tiles(self, image: np.ndarray, homographies: np.ndarray, centre: np.ndarray, size_mm: float,
                      out_px: int, window: tuple[int, int] | None = None, native: float | None = None) -> np.ndarray:
        """Tile crops (a tile crop has under 1 px/mm): sampled from the frame halved once (2 x 2 block means,
        made once per frame) where the frame has over 2 px/mm there, so that each crop pixel averages 4 samples
        of the half frame instead of 9 or 16 of the whole one (the crops differ by a hair; half the cost).
        ``native``: the frame's px/mm at ``centre`` when already known."""
        if native is None:
            native = self.calibration.px_per_mm_at(np.asarray(centre, float).reshape(2))
        if native * size_mm / out_px < 2.0:
            return sample_with(image, homographies, size_mm, out_px,
                               oversampling(self.calibration, centre, size_mm, out_px), window)
        if self._half is None or self._half.image is not image:  # (made again for every detect: see detect)
            # 2 x 2 block means (cv2.pyrDown's Gaussian would make the crops softer than teach's templates)
            self._half = HalfFrame(image)
        # pixel i of the half frame is centred on pixel 2 i + 0.5 of the frame
        to_half = np.array([[0.5, 0.0, -0.25], [0.0, 0.5, -0.25], [0.0, 0.0, 1.0]])
        oversample = max(2, min(4, int(math.ceil(native / 2 * size_mm / out_px + 0.25))))
        in_half = to_half @ homographies
        return sample_with(self._half.read_by(in_half, size_mm), in_half, size_mm, out_px, oversample, window)

    def _read_poses(self, image: np.ndarray, poses: list[_Pose], supports: list, face_only: list[bool],
                    search: np.ndarray | None = None) -> list[_TileFinding]:
        """Read the tiles at ``poses`` (one batch); where ``face_only`` (no outline: the grid says a tile should
        be there) the face alone must show it, clearly."""
        if not poses:
            return []
        hidden = self._hiding_shown_markers(poses)
        if hidden.any():
            # a place that would hide a marker the frame shows as printed holds no tile: read as nothing unread
            # (only the others are sampled and read, as one batch)
            rest = np.nonzero(~hidden)[0]
            read = iter(self._read_poses_all(image, [poses[i] for i in rest], [supports[i] for i in rest],
                                             [face_only[i] for i in rest],
                                             None if search is None else np.asarray(search)[rest]))
            return [next(read) if not hidden[i] else _TileFinding(poses[i], Reading("none", score=0.0), supports[i])
                    for i in range(len(poses))]
        return self._read_poses_all(image, poses, supports, face_only, search)

    def _read_poses_all(self, image: np.ndarray, poses: list[_Pose], supports: list, face_only: list[bool],
                        search: np.ndarray | None = None) -> list[_TileFinding]:
        """:meth:`_read_poses` of every pose (none left out)."""
        if not poses:
            return []
        m, n = _ALIGN_PX, TILE_CROP_PX
        centres = np.array([p.centre for p in poses])
        angles = np.array([p.angle_deg for p in poses])
        size = TILE_CROP_MM * (n + 2 * m) / n
        homographies = piece_homographies(self.calibration, centres, angles, self.profile.tile_thickness_mm, size)
        # every crop read at its fitted pose first (its middle window only, sampled as in the wide crop); only
        # those not read and on no tile read are searched around, in the wide crop sampled for them alone
        # (the matched filter's echoes between the tiles of a grid need no search; most squares are read at once)
        native = self.calibration.px_per_mm_at(centres[0])  # (both samplings below are scaled at the first pose)
        middle = self._sample_tiles(image, homographies, centres[0], size, n + 2 * m, window=(m, n), native=native)
        findings = []
        step_mm = TILE_CROP_MM / n
        computed: list = []
        # (the cell-by-cell look for a covered tile made below, for the crops not searched around: the search
        # reads the others again, and "hidden" or "none" alike are not clear)
        first = self.tile_reader.read_batch(middle, 0, align=np.zeros(len(poses), bool), features_out=computed,
                                            cover_looks=False)
        centres = np.array([p.centre for p in poses])
        clear = np.array([r.status == "ok" and not self.tile_reader.degraded(r) for r, _ in first])
        near = squared_distances(centres, centres) < (0.6 * TILE_MM) ** 2
        np.fill_diagonal(near, False)
        alone = ~np.any(near & clear[None, :], axis=1)  # on no other tile read clearly
        raw, per_label, turn = computed[0]
        # the reader searches only crops like a tile somewhere (or forced): the rest keep their first reading
        searched = per_label.max(axis=1) >= SEARCH_MIN_SCORE
        if search is not None:
            searched |= np.asarray(search, bool)
        redo = np.nonzero(alone & ~clear & searched)[0]
        readings = list(first)
        looked = np.ones(len(poses), bool)
        looked[redo] = False
        # only a reading of nothing matching some label that much may differ with the look: those of the crops
        # not searched judged again with it (bit for bit the first batch's judgement with the look: each crop's
        # scores and order the same)
        low = np.nonzero(looked & np.array([r.status == "none" and r.score >= COVER_LOOK_MIN_SCORE
                                            for r, _ in first]))[0]
        if len(low):
            for i, reading in zip(low, self.tile_reader.read_batch(
                    middle[low], 0, align=np.zeros(len(low), bool), features=(raw[low], per_label[low], turn[low])),
                    strict=True):
                readings[i] = reading
        if len(redo):
            big = self._sample_tiles(image, homographies[redo], centres[0], size, n + 2 * m, native=native)
            again = self.tile_reader.read_batch(big, m, None if search is None else search[redo],
                                                features=(raw[redo], per_label[redo], turn[redo]))
            for i, reading in zip(redo, again, strict=True):
                readings[i] = reading
        for pose, support, only, (reading, (dx, dy)) in zip(poses, supports, face_only, readings, strict=True):
            centre = pose.centre
            if dx or dy:
                right, down = piece_axes(pose.angle_deg)
                centre = centre + step_mm * (dx * right + dy * down)
            if only and reading.status != "none":
                # Where only the grid says a tile should be and its outline hardly shows (touching white tiles on
                # white paper), the face alone must show it, clearly: a pawn's head is no crown.
                side = reading.side or "face"
                if reading.score < self.tile_reader.min_score[side] + _FACE_ONLY_EXTRA:
                    reading = Reading("none", score=reading.score)
            findings.append(_TileFinding(_Pose(centre, pose.angle_deg), reading, support))
        return findings

    def _read_tiles(self, image: np.ndarray, shapes: Shapes) -> tuple[list[DetectedPiece], list[_TileFinding]]:
        candidates = shapes.tile_candidates
        if len(candidates) == 0:
            return [], []
        height = self.profile.tile_thickness_mm
        centres = self._lift(candidates[:, :2], height)
        fitted = self._fit_tiles(shapes.gradients, centres, candidates[:, 2])
        # best outlines first; a candidate on a better one is the matched filter's echo (it also peaks half a
        # tile off, between the tiles of a grid): not read
        usable = [(pose, fit) for pose, fit in fitted if _outline_usable(fit.support)]
        usable.sort(key=lambda item: -sum(item[1].support))
        picked = _apart([pose.centre for pose, _ in usable], 0.6 * TILE_MM)
        chosen = [usable[i] for i in picked]
        chosen = [(pose, fit) for pose, fit in chosen if not self._open_off_sheet(pose, fit.support)]
        findings = self._read_poses(image, [p for p, _ in chosen], [f.support for _, f in chosen],
                                    [False] * len(chosen))
        findings += self._read_passed_over(image, usable, set(picked), findings)
        if self.profile.tile_back is not None:
            # a clear outline that reads as nothing and lies on no tile read: perhaps a back, its fit pulled a
            # couple of millimetres off by its printed grid: searched around (a back is unlike itself off)
            read = [f.pose.centre for f in findings if f.reading.status != "none"]
            again = [i for i, f in enumerate(findings) if f.reading.status == "none" and min(f.support) >= 0.7
                     and not self._on_marker(f.pose.centre)
                     and all(np.hypot(*(f.pose.centre - c)) >= 0.6 * TILE_MM for c in read)]
            if again:
                redone = self._read_poses(image, [findings[i].pose for i in again],
                                          [findings[i].support for i in again], [False] * len(again),
                                          np.ones(len(again), bool))
                for i, f in zip(again, redone, strict=True):
                    findings[i] = f
                still = [i for i in again if findings[i].reading.status == "none"]
                for i, f in zip(still, self._read_backs_pulled(image, [findings[i] for i in still]), strict=True):
                    findings[i] = f
        findings = self._turn_to_grid(image, shapes, findings)
        # touching white tiles on white paper hardly show an outline: the strongest candidates without one are
        # read by their face alone (seeds for the grid to grow from)
        # tiles (white paper tiles on the white sheet) hardly show an outline: the strongest candidates without
        # one, and the middles of big ink marks (a tile's rank is printed in its middle), are read by their face
        # alone: seeds for the grid to grow from
        found = [f.pose.centre for f in findings if f.reading.status != "none"]
        angle = shapes.sides[0].angle_deg if shapes.sides else 0.0
        # a grid whose tiles show clear outlines leaves few tiles without one: fewer seeds are read then, and
        # none from ink marks (a tile with a clear outline was a candidate already)
        clear = sum(min(f.support) >= 0.5 for f in findings if f.reading.status == "ok")
        faint = [] if clear >= 6 else [_Pose(c, angle) for c in self._lift(shapes.ink_marks[:, :2], height)]
        faint += [pose for pose, fit in fitted if not _outline_usable(fit.support)]
        if faint and found:
            at = np.array([pose.centre for pose in faint])
            free = np.min(squared_distances(at, np.array(found)), axis=1) >= (0.6 * TILE_MM) ** 2
            faint = [pose for pose, ok in zip(faint, free, strict=True) if ok]
        faint = [pose for pose in faint if not self._near_marker(pose.centre)]
        if self.sheet_mm is not None:
            # those on the calibration sheet first (stable): the strongest ink marks of a bright frame are the
            # wood's grain and the table's edge far off the sheet, and they took every seed (hand-made board 511)
            x0, y0, x1, y1 = self.sheet_mm
            faint.sort(key=lambda pose: not (x0 < pose.centre[0] < x1 and y0 < pose.centre[1] < y1))
        seeds = _FAINT_SEEDS if clear < 6 else _FAINT_SEEDS // 3
        faint = [faint[i] for i in _apart([p.centre for p in faint], 0.6 * TILE_MM)][:seeds]
        findings += self._read_poses(image, faint, [(0.0, 0.0, 0.0, 0.0)] * len(faint), [True] * len(faint))
        proposed: list[np.ndarray] = []
        drifted: list[_Pose] = []
        unread_places: list[tuple[_Pose, tuple[float, float, float, float]]] = []
        # places proposed without a usable outline that read as nothing: looked around for a corner only (see
        # _refit_around_corner; _refit_around keeps to places with an outline, as it also keeps unclear faces)
        outline_less: list[tuple[_Pose, tuple[float, float, float, float]]] = []
        lattice: list[_TileFinding] = []
        for _round in range(10):  # lattice completion: grids grow from the tiles found into faint-edged ones
            tiles = _best_tiles(findings)
            proposals = _lattice_proposals(tiles, proposed, self.view)
            if len(proposals) == 0:
                break
            proposed += list(proposals[:, :2])
            refits = self._fit_tiles(shapes.gradients, proposals[:, :2], proposals[:, 2])
            poses = [pose if _outline_usable(fit.support) else _Pose(proposal[:2], float(proposal[2]))
                     for (pose, fit), proposal in zip(refits, proposals, strict=True)]
            kept = [k for k, (pose, (_, fit)) in enumerate(zip(poses, refits, strict=True))
                    if not (_outline_usable(fit.support) and self._open_off_sheet(pose, fit.support))]
            faint_place = np.array([not _outline_usable(refits[k][1].support) for k in kept], bool)
            # a place the lattice proposes without an outline is searched around whatever its first window
            # reads: the grid's pitch puts it within a few millimetres of the tile (its gaps are uneven), and a
            # window 4 mm off a white tile reads like nothing (hand-made board 511's right column)
            read = self._read_poses(image, [poses[k] for k in kept], [refits[k][1].support for k in kept],
                                    list(faint_place), faint_place)
            findings += read
            lattice += read
            # an outline refitted far off the lattice's place that reads as nothing: kept to look at again
            drifted += [_Pose(proposals[k, :2], float(proposals[k, 2])) for k, f in zip(kept, read, strict=True)
                        if f.reading.status == "none" and _outline_usable(refits[k][1].support)
                        and np.hypot(*(poses[k].centre - proposals[k, :2])) > _REFIT_DRIFT_MM]
            unread_places += [(poses[k], refits[k][1].support) for k, f in zip(kept, read, strict=True)
                              if f.reading.status == "none" and _outline_usable(refits[k][1].support)
                              and np.hypot(*(poses[k].centre - proposals[k, :2])) <= _REFIT_DRIFT_MM]
            outline_less += [(poses[k], (0.0, 0.0, 0.0, 0.0)) for k, f in zip(kept, read, strict=True)
                             if f.reading.status == "none" and not _outline_usable(refits[k][1].support)]
        # a set holds one tile of each face: where every face is read surely once already, no other tile of the
        # set lies on the table, and the looks for more tiles are not made (any tile they found would read as a
        # face read already, and one of the two would be doubted: see _doubt_faces_read_twice). On a full Easy
        # Slider board they search lattice places beside it, most off the sheet beside its edge (default boards
        # 500-511: 9 read every face first, and their looks read 29 places, none as a tile). A frame holding two
        # sets reads some face twice, or finds the second set's tiles only there, where they would be doubted
        complete = self._every_face_read(_best_tiles(findings))
        second: list[_TileFinding] = []
        if not complete:
            findings += self._turn_lattice_to_grid(image, shapes, lattice, findings)
            findings += self._read_drifted(image, drifted, findings)
            second = self._refit_around(image, shapes, unread_places, findings)
            second += self._refit_around_corner(image, shapes, unread_places + outline_less, findings + second)
            findings += second
        best = _best_tiles(findings)
        if not complete:
            best = self._refit_lopsided(image, shapes, best, findings)
        best = self._turn_unsure(image, shapes, best)
        best = self._snap_half_off(image, best)
        best = self._mark_look(image, best)
        if second:  # a second look's tile left unclear by its rank mark too: dropped (see _refit_around)
            looked = np.array([f.pose.centre for f in second])
            best = [f for f in best if f.reading.status == "ok"
                    or np.min(np.hypot(*(looked - f.pose.centre).T)) > 1e-6]
        pieces = self._tile_pieces([f.pose for f in best], [f.reading for f in best])
        outlines = sorted((f for f in findings if f.reading.status == "none" and min(f.support) >= 0.5
                           and not self._near_marker(f.pose.centre)), key=lambda f: -sum(f.support))
        kept = _apart([f.pose.centre for f in [*best, *outlines]], 0.8 * TILE_MM, first=len(best))
        unread = [outlines[i - len(best)] for i in kept if i >= len(best)]
        return pieces, unread

    def _read_backs_pulled(self, image: np.ndarray, findings: list[_TileFinding]) -> list[_TileFinding]:
        """Clear outlines that read as nothing even searched around, read again at poses ``_BACK_PULL_MM`` off
        each way (the eight around): where one reads as a back, the best such is taken. Touching backs show hardly
        any edge of their own (kraft on white paper: a grey step of 25) but strong printed frame lines 1.2-2.4 mm
        inside each edge, and the outline fit pairs one back's line with its neighbour's across the seam: 2.5-4 mm
        off on each axis (hand-made tile-backs 1161, 1204), where a back correlates ~0.1 with its template, too
        little for the search to take the back's layout (0.78 on the tile, 0.68 1.5 mm off). Only backs are taken
        from these poses: a face is not looked for off its outline."""
        out = list(findings)
        # the four diagonal poses first (a back touching others is pulled on both axes), the four along the axes
        # only for those still read as nothing: each pose is searched around (forced), the costly part
        for shifts in (((-1, -1), (1, -1), (-1, 1), (1, 1)), ((0, -1), (-1, 0), (1, 0), (0, 1))):
            todo = [k for k, f in enumerate(out) if f.reading.status == "none"]
            if not todo:
                break
            poses: list[_Pose] = []
            owners: list[int] = []
            for k in todo:
                right, down = piece_axes(out[k].pose.angle_deg)
                for dx, dy in shifts:
                    poses.append(_Pose(out[k].pose.centre + _BACK_PULL_MM * (dx * right + dy * down),
                                       out[k].pose.angle_deg))
                    owners.append(k)
            read = self._read_poses(image, poses, [out[k].support for k in owners], [False] * len(poses),
                                    np.ones(len(poses), bool))
            for k, found in zip(owners, read, strict=True):
                if found.reading.status in ("ok", "hidden") and found.reading.side == "back" \
                        and found.rank > out[k].rank:
                    out[k] = found
        return out

    def _every_face_read(self, tiles: list[_TileFinding]) -> bool:
        """Whether ``tiles`` (none overlapping another) hold a sure reading of every tile face the profile knows,
        each exactly once (a face read twice: one of them is wrong, or the frame holds more than one set)."""
        faces = {(suit, rank) for side, suit, rank in self.tile_reader.labels if side == "face"}
        read = [(f.reading.suit, f.reading.rank) for f in tiles
                if f.reading.status == "ok" and f.reading.side == "face"]
        return bool(faces) and len(read) == len(faces) and set(read) == faces

    def _read_passed_over(self, image: np.ndarray, usable: list, picked: set[int], findings: list[_TileFinding]
                          ) -> list[_TileFinding]:
        """Clear outlines passed over for a better one within 0.6 tiles that read as nothing, read after all
        where no tile was read within 0.6 tiles. The better outline can be the matched filter's echo half a tile
        off, between a tile under coins and a bare one (Plans of Action default seed 100: the bare back beside the
        sheet's marker, its candidate 4.5 degrees off, lost to the echo between it and the back under coins; the
        echo read nothing, and the back was never read). Those read nothing too are outlines like any other (turned
        to the grid, searched as backs)."""
        empty = [f.pose.centre for f in findings if f.reading.status == "none"]
        if not empty:
            return []
        read = [f.pose.centre for f in findings if f.reading.status != "none"]
        passed = [usable[i] for i in range(len(usable)) if i not in picked]
        if not passed:
            return []
        at = np.array([pose.centre for pose, _ in passed])
        near_empty = np.min(squared_distances(at, np.array(empty)), axis=1) < (0.6 * TILE_MM) ** 2
        free = (np.min(squared_distances(at, np.array(read)), axis=1) >= (0.6 * TILE_MM) ** 2 if read
                else np.ones(len(at), bool))
        outlines = np.array([pose.centre for pose, _ in usable])
        passed = [(pose, fit) for (pose, fit), a, b in zip(passed, near_empty, free, strict=True)
                  if a and b and not self._open_off_sheet(pose, fit.support) and not _between(pose.centre, outlines)]
        passed = [passed[i] for i in _apart([pose.centre for pose, _ in passed], 0.6 * TILE_MM)]
        looked = self._read_poses(image, [p for p, _ in passed], [f.support for _, f in passed], [False] * len(passed))
        # an unclear reading there is no tile found (a second look adds no doubts): an outline like the others
        return [f if f.reading.status != "unclear" else replace(f, reading=Reading("none", score=f.reading.score))
                for f in looked]

    def _turn_to_grid(self, image: np.ndarray, shapes: Shapes, findings: list[_TileFinding]) -> list[_TileFinding]:
        """Clear outlines read as nothing whose turn is off the grid's (the tiles read surely: their turns modulo
        90 degrees averaged on the circle) by over 2 degrees, fitted again at the grid's turn and read again
        there (searched around). A candidate's turn is its direction's in the view, which may be degrees off a
        tile's (Plans of Action classic seed 100: four backs beside the sheet's markers came 4.5 degrees off,
        read 0.34-0.51 there); the outline fit turns it by 1.8 degrees at most."""
        sure = [f for f in findings if f.reading.status == "ok"]
        if len(sure) < 2:
            return findings
        grid, _ = angle_from_pieces(f.pose.angle_deg for f in sure)
        off = [i for i, f in enumerate(findings) if f.reading.status == "none" and min(f.support) >= 0.5
               and abs((f.pose.angle_deg - grid + 45.0) % 90.0 - 45.0) > _GRID_TURN_DEG
               and not self._on_marker(f.pose.centre)]
        if not off:
            return findings
        refits = self._fit_tiles(shapes.gradients, np.array([findings[i].pose.centre for i in off]),
                                 np.full(len(off), grid))
        usable = [(i, pose, fit) for i, (pose, fit) in zip(off, refits, strict=True) if _outline_usable(fit.support)]
        if not usable:
            return findings
        again = self._read_poses(image, [pose for _, pose, _ in usable], [fit.support for _, _, fit in usable],
                                 [False] * len(usable), np.ones(len(usable), bool))
        out = list(findings)
        for (i, _, _), finding in zip(usable, again, strict=True):
            out[i] = finding  # the pose at the grid's turn, read or not (a back under coins is read again later)
        return out

    def _turn_lattice_to_grid(self, image: np.ndarray, shapes: Shapes, lattice: list[_TileFinding],
                              findings: list[_TileFinding]) -> list[_TileFinding]:
        """Lattice places whose outline shows every side half or more but reads as nothing, turned off the grid's
        turn (the tiles read surely, averaged on the circle) by over ``_GRID_TURN_DEG``, on no tile read: fitted
        again at the grid's turn and read there (searched around); only sure readings are kept. A place takes
        the turn of the tile it was grown from, and one turned tile turns its neighbours' places (hand-made
        Slide Jam board 1244: the arms null's place came at -6.1 degrees from a turned neighbour, the tile at
        -0.3; its outline refitted there read nothing). :meth:`_turn_to_grid` does this for the candidates'
        outlines, before the lattice grows."""
        sure = [f for f in findings if f.reading.status == "ok"]
        if len(sure) < 2:
            return []
        grid, _ = angle_from_pieces(f.pose.angle_deg for f in sure)
        read = [f.pose.centre for f in findings if f.reading.status != "none"]
        off = [f for f in lattice if f.reading.status == "none" and min(f.support) >= 0.5
               and abs((f.pose.angle_deg - grid + 45.0) % 90.0 - 45.0) > _GRID_TURN_DEG
               and not self._on_marker(f.pose.centre)
               and all(np.hypot(*(f.pose.centre - c)) >= 0.6 * TILE_MM for c in read)]
        if not off:
            return []
        # from the place and from the four starts of _refit_around around it: the place's outline, fitted at the
        # wrong turn, can lie 5 mm off the tile (1244: 4.4 mm left of it and 4.7 below)
        right, down = piece_axes(grid)
        starts = [f.pose.centre + step for f in off for step in (0.0, _AROUND_MM * right, -_AROUND_MM * right,
                                                                    _AROUND_MM * down, -_AROUND_MM * down)]
        refits = self._fit_tiles(shapes.gradients, np.array(starts).reshape(-1, 2), np.full(len(starts), grid))
        usable = [(pose, fit) for pose, fit in refits if _outline_usable(fit.support)
                  and not self._open_off_sheet(pose, fit.support) and not self._hides_shown_marker(pose)
                  and all(np.hypot(*(pose.centre - c)) >= 0.6 * TILE_MM for c in read)]
        if not usable:
            return []
        again = self._read_poses(image, [pose for pose, _ in usable], [fit.support for _, fit in usable],
                                 [False] * len(usable), np.ones(len(usable), bool))
        sure_again = sorted((f for f in again if f.reading.status == "ok"), key=lambda f: -f.reading.score)
        return [sure_again[i] for i in _apart([f.pose.centre for f in sure_again], 0.6 * TILE_MM)]

    def _fits_around(self, places: list[_Pose], shapes: Shapes) -> list[tuple[_Pose, TileFit]]:
        """The outlines fitted from four starts ``_AROUND_MM`` off each place along its axes (right, left, down,
        up), place after place."""
        if not places:
            return []
        starts, angles = [], []
        for place in places:
            right, down = piece_axes(place.angle_deg)
            for step in (right, -right, down, -down):
                starts.append(place.centre + _AROUND_MM * step)
                angles.append(place.angle_deg)
        return self._fit_tiles(shapes.gradients, np.array(starts).reshape(-1, 2), np.array(angles))

    def _refit_around(self, image: np.ndarray, shapes: Shapes,
                      places: list[tuple[_Pose, tuple[float, float, float, float]]], findings: list[_TileFinding]
                      ) -> list[_TileFinding]:
        """Lattice places whose outline, refitted near the place, reads as nothing, on no tile read since: read
        again searched around (a place with an outline was read at its window only: a classic null refitted 2.8 mm
        off read 0.23 there and 0.84 searched, Slide Jam board 1204); and where that outline shows a side hardly at
        all (under half), fitted again from four starts ``_AROUND_MM`` off along the place's axes (the fit reaches
        3 mm), each outline found there showing all four sides half or more read too. The grid's pitch can put a
        place 5 mm off a tile when the gaps are uneven (Easy Slider default board 501: the arms ace beside the
        sheet's marker, 5.4 mm below the place, whose fit kept to the place)."""
        read = _read_centres(findings)
        places = [item for item, ok in zip(places, _far_from([p.centre for p, _ in places], read, 0.6 * TILE_MM),
                                           strict=True) if ok]
        if not places:
            return []
        refits = self._fits_around([place for place, support in places if min(support) < 0.5], shapes)
        free = _far_from([pose.centre for pose, _ in refits], read, 0.6 * TILE_MM)
        found = [(pose, fit.support) for (pose, fit), ok in zip(refits, free, strict=True)
                 if min(fit.support) >= 0.5 and ok and not self._open_off_sheet(pose, fit.support)]
        found.sort(key=lambda item: -sum(item[1]))
        found = places + found
        found = [found[i] for i in _apart([pose.centre for pose, _ in found], 0.6 * TILE_MM, first=len(places))]
        # (after the spacing: a place left out so still keeps the outlines near it out, as when it was read)
        found = [(pose, support) for pose, support in found if not self._hides_shown_marker(pose)]
        # sure readings, and unclear faces whose rank mark may yet decide (see _read_tiles: those still unclear
        # after it are dropped): a second look that leaves a place unclear adds a doubt, not a tile (a hole of a
        # Plans of Action layout framed by backs, searched, read as an unclear back: "the layout has 17")
        return [f for f in self._read_poses(image, [p for p, _ in found], [f for _, f in found], [False] * len(found),
                                            np.ones(len(found), bool))
                if f.reading.status == "ok" or (f.reading.status == "unclear" and f.reading.close)]

    def _refit_around_corner(self, image: np.ndarray, shapes: Shapes,
                             places: list[tuple[_Pose, tuple[float, float, float, float]]],
                             findings: list[_TileFinding]) -> list[_TileFinding]:
        """Lattice places that read as nothing and whose outline shows a side hardly at all (or that had no usable
        outline: support 0 given), fitted again from the four starts of :meth:`_refit_around`: outlines found
        there that are usable (a corner or three sides show, :func:`_outline_usable`) but not all four sides half
        or more, on no tile read, read searched, kept only where they read surely. A tile turned 3 degrees off its
        neighbours in a grid with uneven gaps shows two of its sides faintly (Easy Slider board 567, default and
        hand-made: the moons null 8 mm off the lattice's place, refitted 2 mm off it with support (0.29, 1.0,
        0.57, 0.14), reads surely there; the place itself reads nothing; rendered with exact-size symbols, the
        place's own fit took a gap's edge, (1.0, 0, 0, 0.14), no usable outline, and it was looked around only
        since outline-less places are). :meth:`_refit_around` keeps complete outlines only, as it also keeps
        unclear faces."""
        read = _read_centres(findings)
        places = [place for place, support in places if min(support) < 0.5]
        places = [place for place, ok in zip(places, _far_from([p.centre for p in places], read, 0.6 * TILE_MM),
                                             strict=True) if ok]
        if not places:
            return []
        # (the fits of _refit_around's starts, made there already: see _fit_tiles)
        refits = self._fits_around(places, shapes)
        free = _far_from([pose.centre for pose, _ in refits], read, 0.6 * TILE_MM)
        found = [(pose, fit.support) for (pose, fit), ok in zip(refits, free, strict=True)
                 if _outline_usable(fit.support) and min(fit.support) < 0.5 and ok
                 and not self._open_off_sheet(pose, fit.support)]
        if not found:
            return []
        # each read (the fullest outline of a place can be the wrong one: 567's fit 7 mm off the other way showed
        # more of itself and read nothing), the surest of those within 0.6 tiles kept
        readings = self._read_poses(image, [p for p, _ in found], [f for _, f in found], [False] * len(found),
                                    np.ones(len(found), bool))
        sure = sorted((f for f in readings if f.reading.status == "ok"), key=lambda f: -f.reading.score)
        return [sure[i] for i in _apart([f.pose.centre for f in sure], 0.6 * TILE_MM)]

    def _refit_lopsided(self, image: np.ndarray, shapes: Shapes, best: list[_TileFinding],
                        findings: list[_TileFinding]) -> list[_TileFinding]:
        """Tiles not read surely, and clear outlines read as nothing on no tile found, whose outline is lopsided
        (one side on an edge, the opposite one on hardly anything): fitted again from a start moved towards the
        weak side, with twice the reach, and read again (searched around). A new pose is kept only where its
        outline shows all four sides half or more, it lies on no other tile found, and its face reads surely.
        The matched filter's candidate is pulled towards a strong edge nearby: on the README's photo
        (fixtures/scenes/easy_slider.jpg) the a3 suns 5, white on the white sheet, got its candidate 5 mm towards
        the sheet's edge (wood beyond it), and a 3 mm reach took that edge for its left side, its right side on
        nothing: the crop was read "partly hidden" (classic Easy Slider board 511's moons 3: 8 mm off, read as
        nothing). Only tiles left unsure are looked at, after the grid has grown: a tile read surely, and the
        grid's growth from tiles with a faint outline, are as before (fitting every lopsided candidate farther
        made classic Easy Slider state 100's faint-edged tiles complete, and the grid no longer grew from them to
        two bottom-row tiles beside the markers)."""
        unsure = [i for i, f in enumerate(best) if f.reading.status != "ok" and _lopsided(f.support)]
        tiles = np.array([f.pose.centre for f in best]).reshape(-1, 2)
        outlines = [f for f in findings if f.reading.status == "none" and _outline_usable(f.support)
                    and _lopsided(f.support)
                    # a side on the sheet's edge is no marker's (they lie 10 mm inside it), whatever lies under it
                    and (not self._on_marker(f.pose.centre) or self._pulled_to_sheet_edge(f.pose, f.support))
                    and (not len(tiles) or np.min(np.hypot(*(tiles - f.pose.centre).T)) >= 0.8 * TILE_MM)]
        outlines = [outlines[i] for i in _apart([f.pose.centre for f in outlines], 0.6 * TILE_MM)]
        todo = [best[i] for i in unsure] + outlines
        if not todo:
            return best
        starts = []
        for f in todo:
            right, down = piece_axes(f.pose.angle_deg)
            left_s, right_s, top_s, bottom_s = f.support
            shift = np.zeros(2)
            # a strong side that is the sheet's edge: started past it (beyond the new fit's reach), or the fit
            # takes that edge again (default Easy Slider held-out seed 550: the left column 8-10 mm inside the
            # sheet's edge, every outline fitted onto it, the right side on nothing: the whole column missed)
            edge = self._sheet_edge_sides(f.pose, f.support)
            if abs(left_s - right_s) >= _LOPSIDED:
                far = edge[0] if right_s < left_s else edge[1]
                step = _FIT_REACH_MM + _LOPSIDED_REACH_MM if far else _FIT_REACH_MM
                shift += step * (right if right_s < left_s else -right)
            if abs(top_s - bottom_s) >= _LOPSIDED:
                far = edge[2] if bottom_s < top_s else edge[3]
                step = _FIT_REACH_MM + _LOPSIDED_REACH_MM if far else _FIT_REACH_MM
                shift += step * (down if bottom_s < top_s else -down)
            starts.append(f.pose.centre + shift)
        refits = self._fit_tiles(shapes.gradients, np.array(starts), np.array([f.pose.angle_deg for f in todo]),
                                 reach_mm=_LOPSIDED_REACH_MM)
        owners = unsure + [-1] * len(outlines)
        keep = []
        for owner, (pose, fit) in zip(owners, refits, strict=True):
            if not _outline_usable(fit.support) or self._open_off_sheet(pose, fit.support):
                continue
            distances = np.hypot(*(tiles - pose.centre).T)
            if owner >= 0:
                distances[owner] = np.inf
            if np.min(distances, initial=np.inf) >= 0.8 * TILE_MM and all(
                    np.hypot(*(pose.centre - p.centre)) >= 0.8 * TILE_MM for _, p, _ in keep):
                keep.append((owner, pose, fit))
        # (after the spacing above: a pose left out so still keeps the others near it out, as when it was read)
        keep = [(owner, pose, fit) for owner, pose, fit in keep if not self._hides_shown_marker(pose)]
        if not keep:
            return best
        again = self._read_poses(image, [pose for _, pose, _ in keep], [fit.support for _, _, fit in keep],
                                 [False] * len(keep), np.ones(len(keep), bool))
        out = list(best)
        for (owner, _, _), finding in zip(keep, again, strict=True):
            if finding.reading.status != "ok":
                continue
            if owner >= 0:
                out[owner] = finding
            else:
                out.append(finding)
        return out

    def _turn_unsure(self, image: np.ndarray, shapes: Shapes, best: list[_TileFinding]) -> list[_TileFinding]:
        """Tiles read "partly hidden", fitted again turned (``_TURN_AGAIN_DEG`` either way, and at the grid's turn where
        theirs is off it by over 2 degrees: the tiles read surely, their turns modulo 90 degrees averaged on the
        circle) and read again there (searched around); the surest reading is kept only where it is sure and lies
        on no other tile. A candidate's turn is its direction's in the view and the outline fit turns it by 1.8
        degrees at most: classic Easy Slider board 511's suns null came 6.8 degrees off the grid and read "partly
        hidden", hand-made board 511's nudged arms null (3.6 degrees) 3.1 degrees off its own turn; both read
        surely turned. As :meth:`_turn_to_grid` does for outlines read as nothing."""
        # "partly hidden" only: a face left unclear is not read again at other turns until one reads surely (that
        # let a blurred bold arms 5 be read surely as a 3 at 1.5 degrees off, bench_conditions blur 1.2 px seed
        # 763, where its rank mark decided it right: see _mark_look)
        todo = [i for i, f in enumerate(best) if f.reading.status == "hidden"]
        if not todo:
            return best
        sure = [f for f in best if f.reading.status == "ok"]
        grid = angle_from_pieces(f.pose.angle_deg for f in sure)[0] if len(sure) >= 2 else None
        owners, centres, angles = [], [], []
        for i in todo:
            turns = [best[i].pose.angle_deg + _TURN_AGAIN_DEG, best[i].pose.angle_deg - _TURN_AGAIN_DEG]
            if grid is not None and abs((best[i].pose.angle_deg - grid + 45.0) % 90.0 - 45.0) > _GRID_TURN_DEG:
                turns.append(grid)
            for turn in turns:
                owners.append(i)
                centres.append(best[i].pose.centre)
                angles.append(turn)
        refits = self._fit_tiles(shapes.gradients, np.array(centres), np.array(angles))
        tiles = np.array([f.pose.centre for f in best])
        keep = []
        for i, (pose, fit) in zip(owners, refits, strict=True):
            distances = np.hypot(*(tiles - pose.centre).T)
            distances[i] = np.inf
            # (the fit stays within its 3 mm reach of the tile found: its outline need not show more than before)
            if np.min(distances) >= 0.8 * TILE_MM:
                keep.append((i, pose, fit))
        if not keep:
            return best
        again = self._read_poses(image, [pose for _, pose, _ in keep], [fit.support for _, _, fit in keep],
                                 [False] * len(keep), np.ones(len(keep), bool))
        out = list(best)
        for (i, _, _), finding in zip(keep, again, strict=True):
            if finding.reading.status == "ok" and (out[i].reading.status != "ok"
                                                   or finding.reading.score > out[i].reading.score):
                out[i] = finding
        return out

    def _read_drifted(self, image: np.ndarray, places: list[_Pose], findings: list[_TileFinding]
                      ) -> list[_TileFinding]:
        """Lattice places whose outline was refitted far off (pulled onto a calibration marker's black edge
        peeking out beside the tile: Easy Slider default seed 0, 4 mm off the place, 7 mm off the tile) and read
        as nothing, read by the face alone at the place itself, searched around: only holes in the grid grown
        (two tiles or more around, none on it; Easy Slider frame 900 has two such places off its board's edge)."""
        if not places:
            return []
        tiles = np.array([f.pose.centre for f in _best_tiles(findings)]).reshape(-1, 2)
        if len(tiles) < 2:
            return []
        distances = squared_distances(np.array([p.centre for p in places]), tiles)
        holes = [p for p, row in zip(places, distances, strict=True)
                 if np.sum(row < (TILE_MM + 15.0) ** 2) >= 2 and row.min() >= (0.6 * TILE_MM) ** 2]
        holes = [p for p in holes if not self._hides_shown_marker(p)]
        if not holes:
            return []
        return self._read_poses(image, holes, [(0.0, 0.0, 0.0, 0.0)] * len(holes), [True] * len(holes),
                                np.ones(len(holes), bool))

    def _snap_half_off(self, image: np.ndarray, best: list[_TileFinding]) -> list[_TileFinding]:
        """Tiles read half a tile off their neighbours' lattice, read again on it. A back's printed 2x2 grid
        looks like a back half a tile off too (its cross and the seam between two touching backs make a square
        of a tile's size, outlined as clearly as a tile): such a window is kept only if no window on the
        lattice reads as well."""
        moves = _half_off(best)
        if not moves:
            return best
        poses, owners = [], []
        for i, shifts in moves:
            for shift in shifts:
                poses.append(_Pose(best[i].pose.centre + shift, best[i].pose.angle_deg))
                owners.append(i)
        # the lattice's pitch pins the window better than a refit (the printed lines pull an outline off);
        # the window is searched around (a back is unlike itself a few millimetres off)
        again = self._read_poses(image, poses, [(0.5, 0.5, 0.5, 0.5)] * len(poses), [False] * len(poses),
                                 np.ones(len(poses), bool))
        out = list(best)
        more: list[_TileFinding] = []
        for i in sorted(set(owners)):
            # a sure reading keeps its side; an unclear one (a window between two tiles reads like neither) may
            # give way to a sure reading of either side on the lattice (Plans of Action hand-made seed 114)
            options = [f for f, o in zip(again, owners, strict=True) if o == i and f.reading.status == "ok"
                       and (f.reading.side == best[i].reading.side or best[i].reading.status != "ok")
                       and all(np.hypot(*(f.pose.centre - b.pose.centre)) >= 0.6 * TILE_MM
                               for j, b in enumerate([*best, *more]) if j != i)]
            if options:
                options.sort(key=lambda f: -f.reading.score)
                out[i] = options[0]
                # the window lay between two tiles (half of each): where both lattice places read surely, both
                # are tiles (the second was not looked for: it lay within 0.6 tiles of the half-off window)
                more += [f for f in options[1:]
                         if np.hypot(*(f.pose.centre - options[0].pose.centre)) >= 0.6 * TILE_MM]
        return out + more

    def _mark_look(self, image: np.ndarray, best: list[_TileFinding]) -> list[_TileFinding]:
        """Tiles whose whole face left two or more faces close, looked at again: their rank mark sampled at about
        the camera's own resolution (:class:`vision.classify.MarkReader`); a clear decision makes the reading
        sure, else it stays unclear. Only these few tiles are sampled again."""
        todo = [i for i, f in enumerate(best) if f.reading.status == "unclear" and f.reading.close]
        if not todo or self.mark_reader.model is None:
            return best
        m, n = _MARK_ALIGN_PX, MARK_CROP_PX
        size = MARK_CROP_MM * (n + 2 * m) / n
        centres = np.array([best[i].pose.centre for i in todo])
        angles = np.array([best[i].pose.angle_deg + best[i].reading.angle_deg for i in todo])
        homographies = piece_homographies(self.calibration, centres, angles, self.profile.tile_thickness_mm, size)
        wide = sample_with(image, homographies, size, n + 2 * m,
                           oversampling(self.calibration, centres[0], size, n + 2 * m))
        out = list(best)
        for k, i in enumerate(todo):
            finding = best[i]
            decided = self.mark_reader.read(wide[k], m, finding.reading.close)
            if decided is None:
                continue
            label, turn, score, lead, confidence = decided
            _, suit, rank = self.tile_reader.labels[label]
            reading = Reading("ok", "face", suit, rank, (finding.reading.angle_deg + 90.0 * turn) % 360.0, score,
                              lead, confidence)
            out[i] = _TileFinding(finding.pose, reading, finding.support)
        return out

    def _on_marker(self, point: np.ndarray) -> bool:
        """Whether ``point`` is within a few millimetres of the middle of one of the calibration sheet's markers
        (a marker's outline passes for a tile's to the matched filter)."""
        if self.markers_mm is None:
            return False
        x, y = float(point[0]), float(point[1])
        return any(abs(x - (x0 + x1) / 2) < 8.0 and abs(y - (y0 + y1) / 2) < 8.0 for x0, y0, x1, y1 in self.markers_mm)

    def _open_off_sheet(self, pose: _Pose, support: tuple[float, float, float, float]) -> bool:
        """Whether a square outline lacks a side altogether where that side lies out on the table, off the
        calibration sheet: the sheet's edge and a tile's edge beside it make a tile-sized square with three
        sides, its fourth out on the bare table. A tile there would show its edge against the table all round
        (on the sheet, white tiles on white paper may show no edge on a side: those squares are read)."""
        if self.sheet_mm is None or min(support) > 0.0:
            return False
        x0, y0, x1, y1 = self.sheet_mm
        # only a square along the sheet's edge can be made by it: one farther off is a tile whose edge fades
        # against the table on a side (white tiles on a white laminate table, lit from that side: Magic Mirror
        # seed 50, where 8 of 20 tiles 50 mm and more off the sheet lacked their right or bottom edge)
        reach = TILE_MM / 2 + _SHEET_EDGE_MM
        cx, cy = float(pose.centre[0]), float(pose.centre[1])
        if not (x0 - reach < cx < x1 + reach and y0 - reach < cy < y1 + reach):
            return False
        right, down = piece_axes(pose.angle_deg)
        half, margin = TILE_MM / 2, 2.0
        for normal, share in zip((-right, right, -down, down), support, strict=True):
            x, y = pose.centre + half * normal
            if share <= 0.0 and not (x0 - margin < x < x1 + margin and y0 - margin < y < y1 + margin):
                return True
        return False

    def _sheet_edge_sides(self, pose: _Pose, support: tuple[float, float, float, float]
                          ) -> tuple[bool, bool, bool, bool]:
        """Which sides of an outline (left, right, top, bottom) are shown (support half or more) and lie on the
        calibration sheet's edge: within ``_SHEET_LINE_MM`` of it, along it (turned 5 degrees at most), the
        outline inside the sheet. The sheet's edge against the table is a far stronger line than a white tile's
        edge on the white sheet, and a tile's outline fit within reach of it takes it for a side."""
        if self.sheet_mm is None:
            return (False, False, False, False)
        x0, y0, x1, y1 = self.sheet_mm
        cx, cy = float(pose.centre[0]), float(pose.centre[1])
        if not (x0 < cx < x1 and y0 < cy < y1):
            return (False, False, False, False)
        right, down = piece_axes(pose.angle_deg)
        along = math.cos(math.radians(5.0))
        edges = ((np.array([-1.0, 0.0]), x0, 0), (np.array([1.0, 0.0]), x1, 0),
                 (np.array([0.0, -1.0]), y0, 1), (np.array([0.0, 1.0]), y1, 1))
        out = []
        for normal, share in zip((-right, right, -down, down), support, strict=True):
            point = pose.centre + TILE_MM / 2 * normal
            out.append(share >= 0.5 and any(float(normal @ outward) >= along
                                            and abs(float(point[axis]) - line) < _SHEET_LINE_MM
                                            for outward, line, axis in edges))
        return tuple(out)

    def _pulled_to_sheet_edge(self, pose: _Pose, support: tuple[float, float, float, float]) -> bool:
        """Whether a lopsided outline's strong side lies on the sheet's edge (see ``_sheet_edge_sides``)."""
        edge = self._sheet_edge_sides(pose, support)
        return any(edge[i] and support[i] - support[i ^ 1] >= _LOPSIDED for i in range(4))

    def _near_marker(self, point: np.ndarray) -> bool:
        """Whether a tile-sized square at ``point`` would overlap one of the calibration sheet's markers (a
        marker and the sheet's edge make clear square outlines of their own)."""
        if self.markers_mm is None:
            return False
        x, y = float(point[0]), float(point[1])
        reach = TILE_MM / 2
        return any(x0 - reach < x < x1 + reach and y0 - reach < y < y1 + reach for x0, y0, x1, y1 in self.markers_mm)

    def _hides_shown_marker(self, pose: _Pose) -> bool:
        """Whether a tile found by a search around ``pose`` (its window moved up to ``_ALIGN_PX`` crop pixels
        each way) would hide samples of a calibration marker the frame shows exactly as printed: then no tile lies
        there, and the place is not worth reading (the sheet's markers make clear square outlines: candidates,
        lattice places and lopsided outlines land on them, and forced searches of them were about a tenth of Easy
        Slider frame 900's detection). A piece lying on a marker hides some of its bits: it is read as before.
        See :meth:`_hiding_shown_markers`."""
        return bool(self._hiding_shown_markers([pose])[0])

    def _hiding_shown_markers(self, poses: list[_Pose]) -> np.ndarray:
        """:meth:`_hides_shown_marker` of each pose (bool array). The markers are looked at only when a pose
        comes near one, each once a frame."""
        if self._markers is None or self._grey is None or not poses:
            return np.zeros(len(poses), bool)
        half = TILE_MM / 2 - _ALIGN_PX * TILE_CROP_MM / TILE_CROP_PX - _MARKER_HIDE_MARGIN_MM
        centres = np.array([p.centre for p in poses], np.float64).reshape(-1, 2)
        angles = np.array([p.angle_deg for p in poses], np.float64)
        out, needed = squares_hide_shown(centres, angles, half, self._markers, self._marker_shown)
        if needed.any():
            todo = np.nonzero(needed)[0]
            self._marker_shown[todo] = markers_shown(self._grey, self._markers, todo)
            out, _ = squares_hide_shown(centres, angles, half, self._markers, self._marker_shown)
        return out

    def _check_profile(self, image: np.ndarray, tiles: list[DetectedPiece], unread: list[_TileFinding],
                       coins: list[DetectedPiece]) -> None:
        """Refuse a frame whose tiles are not the profile's set (:class:`ProfileMismatch`): many clear outlines
        none of which reads (:meth:`_unread_refuses`), or tiles that read but show another set's colours
        (:meth:`_colours_refuse`). Judging such a frame would be guessing: another set's tiles read as this set's
        are read surely wrong."""
        if not self.check_profile:
            return
        if self._unread_refuses(image, tiles, unread):
            backs_note = "" if self.profile.tile_back is not None else " (its tile backs were not taught)"
            raise ProfileMismatch(
                f"the tiles in the photo do not look like the piece set of profile {self.profile.name!r}{backs_note}: "
                "give the profile of this set (--profile set.json) or teach it with `tableside teach`"
            )
        if self._colours_refuse(image, tiles, unread, coins):
            raise ProfileMismatch(
                f"the tiles in the photo do not look like the piece set of profile {self.profile.name!r} (their "
                "colours are another set's): give the profile of this set (--profile set.json) or teach it with "
                "`tableside teach`"
            )

    def _unread_refuses(self, image: np.ndarray, tiles: list[DetectedPiece], unread: list[_TileFinding]) -> bool:
        """Many clear tile outlines of which (almost) none reads as a face or back of the profile's set: the
        profile is of another set (or the backs were not taught).

        Before refusing, each unread outline is looked at 3 mm around for this set's back
        (:meth:`_read_backs_pulled`): one that reads so is this set's tile whose outline fit was pulled off (touching
        hand-made backs: their frame lines pull the fit 2.5-4 mm), not a sign of another set. Refusing the right
        profile loses the whole frame (``tableside detect`` exits "profile from another set"); this look is made
        only on that path, so no frame judged before is judged differently. Another set's backs read as nothing
        there too (all 4 x 3 wrong pairings of tile-backs 1001, 1003, 1204 and Easy Slider 500 refused before are
        refused still)."""
        if not self._refuses(len(tiles), len(unread)):
            return False
        if self.profile.tile_back is not None:
            again = self._read_backs_pulled(image, unread)
            backs = sum(f.reading.status != "none" for f in again)
            if not self._refuses(len(tiles) + backs, len(unread) - backs):
                return False
        return True

    def _colours_refuse(self, image: np.ndarray, tiles: list[DetectedPiece], unread: list[_TileFinding],
                        coins: list[DetectedPiece]) -> bool:
        """Tiles read, but most of them far from the colour the profile's set was taught in (vision.set_colours):
        the median distance of ``_COLOUR_TILES_MIN`` or more tiles above ``_COLOUR_REFUSE``. Says nothing where the
        profile has no taught colours, too few tiles read or the paper beside them is not seen."""
        if self.colours_once and self.colours_proven:
            return False
        taught = self.profile.taught.get("tile_colours")
        # tiles read surely: an uncertain one may be under a hand (its colour is the hand's)
        judged = [t for t in tiles if t.side in ("face", "back") and not t.uncertain]
        if not taught or len(judged) < _COLOUR_TILES_MIN:
            return False
        outlines = np.array([[t.x_mm, t.y_mm] for t in tiles] + [f.pose.centre for f in unread], np.float64)
        paper = paper_beside(image, self.calibration, outlines, np.array([[c.x_mm, c.y_mm] for c in coins]),
                             self.sheet_mm, self.markers_mm)
        if paper is None:
            return False
        colours = tile_colours(image, self.calibration, np.array([[t.x_mm, t.y_mm] for t in judged]),
                               np.array([t.angle_deg for t in judged]), self.profile.tile_thickness_mm)
        distances = colour_distances(colours / np.maximum(paper, 1.0), [str(t.side) for t in judged], taught)
        distances = distances[~np.isnan(distances)]
        if len(distances) < _COLOUR_TILES_MIN:
            return False
        median = float(np.median(distances))
        if median <= _COLOUR_PROOF:
            self.colours_proven = True
        return median > _COLOUR_REFUSE

    @staticmethod
    def _refuses(read: int, unread: int) -> bool:
        """Whether ``unread`` clear outlines beside ``read`` tiles say the profile is another set's: four or more,
        and at least four times as many as the tiles read."""
        return unread >= 4 and read <= 0.25 * unread

    def _tile_pieces(self, poses: list[_Pose], readings: list[Reading]) -> list[DetectedPiece]:
        """:meth:`_tile_piece` of many tiles, their outlines projected at once."""
        if not poses:
            return []
        from vision.crops import crop_corners_mm

        centres = np.array([p.centre for p in poses])
        angles = np.array([p.angle_deg + r.angle_deg for p, r in zip(poses, readings, strict=True)])
        corners = crop_corners_mm(centres, angles, TILE_MM)
        outlines = self.calibration.table_to_pixel(corners.reshape(-1, 2), self.profile.tile_thickness_mm)
        return [self._tile_piece(p, r, o) for p, r, o in zip(poses, readings, outlines.reshape(-1, 4, 2),
                                                               strict=True)]

    def _tile_piece(self, pose: _Pose, reading: Reading, outline: np.ndarray | None = None) -> DetectedPiece:
        uncertain = reading.status != "ok"
        angle = pose.angle_deg + reading.angle_deg
        if outline is None:
            outline = self._outline_px(pose.centre, angle, TILE_MM, self.profile.tile_thickness_mm)
        return DetectedPiece(
            Kind.TILE,
            float(pose.centre[0]),
            float(pose.centre[1]),
            angle_deg=float(angle % 360.0),
            confidence=reading.confidence,
            suit=None if uncertain else reading.suit,
            rank=None if uncertain else reading.rank,
            side=reading.side if reading.status in ("ok", "hidden", "unclear") else None,
            uncertain=uncertain,
            reason=reading.reason,
            outline_px=outline,
            could_be=reading.could_be if uncertain else (),
        )

    def _outline_px(self, centre: np.ndarray, angle: float, size: float, height: float) -> np.ndarray:
        from vision.crops import crop_corners_mm

        corners = crop_corners_mm(centre[None], np.array([angle]), size)[0]
        return self.calibration.table_to_pixel(corners, height)

    def _reread_tiles_under_coins(
        self,
        image: np.ndarray,
        tiles: list[DetectedPiece],
        outlined: list[DetectedPiece],
        unread: list[_TileFinding],
        coins: list[DetectedPiece],
    ) -> tuple[list[DetectedPiece], list[_TileFinding]]:
        """Tiles with coins on them read again without the coins' discs: those not read surely, and clear
        outlines not read at all (a back under four coins). Returns the tiles and the outlines still unread."""
        out: list[DetectedPiece] = []
        still: list[_TileFinding] = []
        candidates = [(t, None) for t in tiles] + list(zip(outlined, unread, strict=True))
        for tile, finding in candidates:
            on = [c for c in coins if c.height_mm > 0 and _inside(tile, c.x_mm, c.y_mm)]
            if not on or not tile.uncertain:
                if finding is None:
                    out.append(tile)
                else:
                    still.append(finding)
                continue
            base = math.floor(tile.angle_deg / 90.0) * 90.0
            angle = tile.angle_deg - base
            centre = np.array([tile.x_mm, tile.y_mm])
            # first put the window on the tile by its printed pattern (a back's grid lines), then read it
            # without the coins' discs
            m, n = _ALIGN_PX, TILE_CROP_PX
            big = sample_crops(image, self.calibration, centre[None], np.array([angle]),
                               self.profile.tile_thickness_mm, TILE_CROP_MM * (n + 2 * m) / n, n + 2 * m)[0]
            _, (dx, dy) = self.tile_reader.read_aligned(big, m)
            right, down = piece_axes(angle)
            centre = centre + TILE_CROP_MM / n * (dx * right + dy * down)
            tile = replace(tile, x_mm=float(centre[0]), y_mm=float(centre[1]))
            crop = big[None, m + dy : m + dy + n, m + dx : m + dx + n]
            mask = _coin_mask(tile, angle, on)
            reading = self.tile_reader.read(crop, mask[None])[0]
            if reading.status == "none":
                if finding is None:
                    out.append(tile)
                else:
                    still.append(finding)
                continue
            out.append(self._tile_piece(_Pose(np.array([tile.x_mm, tile.y_mm]), angle), reading))
        return out, still

    # -- coins -----------------------------------------------------------------------------------------------
    def _read_coins(self, image: np.ndarray, shapes: Shapes, tiles: list[DetectedPiece],
                    around: list[DetectedPiece] | None = None, no_figure_look: list[DetectedPiece] | None = None
                    ) -> list[DetectedPiece]:
        """Coins at the vote peaks that show a rim, read where the printed face fits best; then coin grids grow
        from the coins read into coins whose rims voted too faintly (a near-white coin on white paper). With
        ``around`` and ``no_figure_look`` (lists: dice are looked for too), strong peaks left with no coin near are
        looked at around last (:meth:`_stacked_at_strong`) and the coins found so added to both."""
        peaks_view = shapes.coin_peaks
        if len(peaks_view) and self.markers_mm is not None:
            # the calibration sheet's markers: a white bit of one framed in black passes for a blank coin
            at = self.view.to_table(peaks_view[:, :2])
            inside = np.zeros(len(peaks_view), bool)
            for x0, y0, x1, y1 in self.markers_mm:
                inside |= (at[:, 0] > x0) & (at[:, 0] < x1) & (at[:, 1] > y0) & (at[:, 1] < y1)
            peaks_view = peaks_view[~inside]
        if len(peaks_view) == 0:
            return []
        strong = peaks_view[:, 2] >= _COIN_VOTES_MIN
        # coins on others found only by the looks of _stacked_on_table, _unclear_off_rim and _stacked_at_faint
        # are reported but take no part in what follows (the faint peaks looked at, the coin grid's growth): a
        # triangle's lattice guessed with two more coins proposed a place 10 mm off a bare trampoline read before
        # (Trampo-Land default seed 128, trampoline 6)
        stacked: list[DetectedPiece] = []
        found = self._fit_and_read_coins(image, shapes, self.view.to_table(peaks_view[strong, :2]), tiles,
                                         seen_at_zero=True, around=around, stacked=stacked)
        faint = self.view.to_table(peaks_view[~strong, :2])
        before = [item for item in found if not any(item[2] is p for p in stacked)]
        if len(before) and len(faint):  # not on a coin found already (its rim's echo, a numeral's curve)
            taken = np.array([[piece.x_mm, piece.y_mm] for _, _, piece in before])
            faint = faint[np.min(squared_distances(faint, taken), axis=1) >= COIN_MM**2]
        if len(faint):
            # faint rims (a near-white coin on white paper): only coins that read surely as a printed face
            found += self._fit_and_read_coins(image, shapes, faint, tiles, seen_at_zero=True, strict=True,
                                              stacked_look=around is not None)
            if around is not None:
                more = self._stacked_at_faint(image, shapes, faint, tiles, found, around)
                stacked += [piece for _, _, piece in more]
                found += more
        seeds = [item for item in found if not any(item[2] is p for p in stacked)]
        tried = [c for _, c, _ in seeds]
        for _round in range(_COIN_GRID_ROUNDS):
            coins = _non_overlapping([(rank, piece) for rank, _, piece in seeds], 0.8 * COIN_MM)
            proposals = _coin_grid_proposals(coins, tried)
            if len(proposals) == 0:
                break
            tried += list(proposals)
            more = self._fit_and_read_coins(image, shapes, proposals, tiles)
            if not more:
                break
            found += more
            seeds += more
        # last, so that the coin grids grow as before: faint peaks left with no coin near, read around. Where the
        # figures are looked for too (a game on the table), so are strong peaks left with no coin near: a kid lying
        # 4 mm off its trampoline (Trampo-Land default seed 90, trampoline 4) pulls the votes between the two and
        # the rim fitted there matches neither (0.11), while the fits from 4 mm around find the kid's and read it
        looks = faint
        if around is not None and strong.any():
            looks = np.concatenate([faint.reshape(-1, 2), self.view.to_table(peaks_view[strong, :2])])
        more = self._faint_read_around(image, shapes, looks, tiles, found)
        if around is not None:  # dropped where a figure stands, as a meeple's head could pass for a coin
            around += [piece for _, _, piece in more]
        found += more
        if around is not None and no_figure_look is not None and strong.any():
            more = self._stacked_at_strong(image, shapes, self.view.to_table(peaks_view[strong, :2]), tiles, found)
            around += [piece for _, _, piece in more]
            no_figure_look += [piece for _, _, piece in more]
            found += more
        return self._name_nulls_by_frame(image, self._doubt_blank_by_colour(image, [
            self._doubt_blank_by_marker(piece)
            for piece in _non_overlapping([(rank, piece) for rank, _, piece in found], 0.8 * COIN_MM)], tiles))

    def _name_nulls_by_frame(self, image: np.ndarray, coins: list[DetectedPiece]) -> list[DetectedPiece]:
        """Sure blank nulls read without a suit given the suit the rims of the frame's sure suited coins show
        (:func:`vision.coin_ink.frame_rim_suits`: the same print, light and tone curve), where it is clear."""
        reader = self.coin_reader
        nulls = [k for k, c in enumerate(coins) if not c.uncertain and c.side == "value" and c.rank == 0
                 and c.suit is None]
        if not nulls or len(reader.blank) == 0 or (reader.px_per_mm or 0.0) < MARK_COLOUR_PX_PER_MM:
            return coins  # (a coarse frame's colour planes fade a line this thin, as rim_suit's rule says)
        refs = [k for k, c in enumerate(coins) if not c.uncertain and c.suit is not None
                and not (c.side == "value" and c.rank == 0)]
        at = nulls + refs
        centres = np.array([[coins[k].x_mm, coins[k].y_mm] for k in at])
        heights = np.array([coins[k].height_mm + self.profile.coin_thickness_mm for k in at])
        crops = sample_crops(image, self.calibration, centres, np.zeros(len(at)), heights, COIN_CROP_MM,
                             COIN_CROP_PX)
        colours = [rim_colour(crop) for crop in crops]
        suits = frozenset(reader.labels[i][1] for i in reader.blank) - {None}
        held = frozenset(c.suit for c in coins if not c.uncertain and c.side == "value" and c.rank == 0
                         and c.suit is not None)  # these suits' nulls are known: a set has one of each
        held |= complete_suits([(c.suit, c.side, c.rank) for c in coins if not c.uncertain])  # and these suits'
        faces = [rim_face_colour(crop) for crop in crops[: len(nulls)]]
        rings = [rim_lab(crop) for crop in crops]  # a suit side's symbol tints the face its ring is read against
        named = frame_rim_suits(colours[: len(nulls)], [(colours[len(nulls) + i], coins[k].suit)
                                                        for i, k in enumerate(refs)], suits, held,
                                [float(face.max()) for face in faces], faces, reader.achromatic,
                                rings[: len(nulls)], [(rings[len(nulls) + i], coins[k].suit)
                                                      for i, k in enumerate(refs) if coins[k].side == "value"])
        out = list(coins)
        for k, suit in zip(nulls, named, strict=True):
            if suit is not None:
                out[k] = replace(coins[k], suit=suit)
        return out

    def _doubt_blank_by_colour(self, image: np.ndarray, coins: list[DetectedPiece], tiles: list[DetectedPiece]
                               ) -> list[DetectedPiece]:
        """Sure blank faces (nulls of a set whose null is blank) whose colour is not the coins' (a fingertip's skin:
        :mod:`vision.coin_face_colour`): uncertain, naming nothing. Judged where the profile knows the coins' face
        colour and the frame's white is known from ``WHITE_TILES_LEAST`` face-up tiles read surely."""
        taught = self.profile.taught.get("coin_face_chroma")
        blank = [k for k, c in enumerate(coins) if not c.uncertain and c.side == "value" and c.rank == 0]
        faces = [t for t in tiles if not t.uncertain and t.kind is Kind.TILE and t.side == "face"]
        if taught is None or not blank or len(self.coin_reader.blank) == 0 or len(faces) < WHITE_TILES_LEAST:
            return coins
        tile_crops = sample_crops(image, self.calibration, np.array([[t.x_mm, t.y_mm] for t in faces]),
                                  np.array([t.angle_deg for t in faces]), self.profile.tile_thickness_mm,
                                  TILE_CROP_MM, TILE_CROP_PX)
        white = np.median(tile_crops.reshape(-1, 3), axis=0)  # as teach takes its photo's white: the faces' median
        at = np.array([[coins[k].x_mm, coins[k].y_mm] for k in blank])
        heights = np.array([coins[k].height_mm + self.profile.coin_thickness_mm for k in blank])
        crops = sample_crops(image, self.calibration, at, np.zeros(len(blank)), heights, COIN_CROP_MM, COIN_CROP_PX)
        out = list(coins)
        for k, crop in zip(blank, crops, strict=True):
            if off_coin_colour(coin_face_colour(crop, COIN_CROP_MM), white, taught) > FACE_CHROMA_MOST:
                out[k] = replace(coins[k], uncertain=True, suit=None, rank=None,
                                 confidence=min(coins[k].confidence, 0.5), could_be=(),
                                 reason="blank face not the coins' colour (a hand?)")
        return out

    def _doubt_blank_by_marker(self, coin: DetectedPiece) -> DetectedPiece:
        """A coin read as a blank face (the null's value side) whose rim reaches within ``_MARKER_RIM_MM`` of two
        of the calibration sheet's markers: uncertain. The white paper between two markers, framed by their
        black edges, has a rim and a blank face too (default tile-backs held-out seed 1143: a sure null coin read
        on the bare sheet between two of the left column's markers, 2 mm from each). A real null beside one
        marker is kept (tile-backs seed 1101: a crowns null whose rim touches a marker, in all four editions)."""
        if coin.uncertain or coin.side != "value" or coin.rank != 0 or self.markers_mm is None:
            return coin
        if self._markers_within(coin.x_mm, coin.y_mm, COIN_MM / 2 + _MARKER_RIM_MM) < 2:
            return coin
        return replace(coin, uncertain=True, suit=None, rank=None, confidence=min(coin.confidence, 0.5),
                       reason="blank face between sheet markers")

    def _fit_and_read_coins(self, image: np.ndarray, shapes: Shapes, points_mm: np.ndarray,
                            tiles: list[DetectedPiece], seen_at_zero: bool = False, strict: bool | None = None,
                            around: list[DetectedPiece] | None = None, stacked: list[DetectedPiece] | None = None,
                            stacked_look: bool = False) -> list[tuple[float, np.ndarray, DetectedPiece]]:
        """Rims fitted near ``points_mm`` (table mm; seen in the view at height 0 when ``seen_at_zero``: lifted
        to the coin top's height), the coins showing one read; (rank, where looked, piece) per coin. With
        ``around`` (a list), a crop near a face but read as none has its rim fitted again around
        (:meth:`_read_off_rim`) and the coins found so are added to ``around``; those found only by the looks
        below ``_STACKED_SCORE`` or read unclear around (:meth:`_unclear_off_rim`) also to ``stacked``. A coin found
        around ``_STACKED_APART_MM`` or more off its first rim lies on a coin: its ``height_mm`` says so. With
        ``stacked_look`` (faint peaks that :meth:`_stacked_at_faint` looks at next), a rim found only by its refit
        (:meth:`_refit_converged`) whose face reads unclear is left to that look."""
        inside = _inside_tiles(tiles, np.asarray(points_mm, float).reshape(-1, 2))  # (points, tiles)
        under = [[tiles[j] for j in np.nonzero(row)[0]] for row in inside]
        base = np.array([self.profile.tile_thickness_mm if on else 0.0 for on in under])
        # on a tile's face, printed marks could pass for a coin's rim and face: the rim must be plainer there;
        # a back (or an outline not read: a back under coins) prints no marks of a coin's size
        on_face = [any(t.side == "face" for t in on) for on in under]
        if strict and seen_at_zero:
            # a faint peak on a place of the tiles' grid where no tile was found, between tiles found: perhaps a
            # tile's corner symbol, the tile hidden by a hand (bench_conditions hand-made seeds 940, 943: a sun and
            # an arm read as sure coins): the rim must be as plain as on a face
            on_face = list(np.asarray(on_face, bool) | _inside_tiles(_grid_holes_of(tiles), points_mm).any(axis=1)
                           | _on_hidden_face_place(tiles, points_mm))
        heights = base + self.profile.coin_thickness_mm
        if seen_at_zero:
            centres = self.calibration.pixel_to_table(self.calibration.table_to_pixel(points_mm), heights)
        else:
            centres = np.asarray(points_mm, float).reshape(-1, 2)
        # a coin grown from the grid (no vote peak of its own), or at a faint peak, must read surely as a printed
        # face (``strict``, the default for grown ones): empty paper between coins is as blank as a blank null's
        grown = not seen_at_zero if strict is None else strict
        homographies = piece_homographies(self.calibration, centres, np.zeros(len(centres)), heights, _COIN_FIT_MM)
        # a faint peak in a coarse frame (about 1 px/mm: a camera's preview) lies up to 5 mm off its coin (the view's
        # votes are blurred), and the signature's edges, a millimetre apart, smear into each other there: its fit
        # starts from more places and its match floor is lower in proportion (a sure printed face is still needed)
        coarse = np.zeros(len(centres))
        if grown and seen_at_zero:
            native = _px_per_mm_above(self.calibration, centres, _FINE_PX_PER_MM)
            coarse = np.clip((_FINE_PX_PER_MM - native) / (_FINE_PX_PER_MM - _COARSE_PX_PER_MM), 0.0, 1.0)
        rims = fit_coins(shapes.gradients, homographies, self.profile.coin_rim_taps)
        if coarse.max(initial=0.0) > 0:
            # fitted from four more starts 3 mm around: the fit's radial profiles, taken around a start 5 mm off,
            # barely cover the rim, and where it ends up depends on the start's last millimetre; the best match wins
            for step in ((3.0, 0.0), (-3.0, 0.0), (0.0, 3.0), (0.0, -3.0)):
                start = centres + np.array(step)
                again = fit_coins(shapes.gradients, piece_homographies(self.calibration, start, np.zeros(len(start)),
                                                                       heights, _COIN_FIT_MM),
                                  self.profile.coin_rim_taps)
                rims = [replace(other, dx_mm=other.dx_mm + step[0], dy_mm=other.dy_mm + step[1])
                        if c > 0 and other.match > rim.match else rim
                        for rim, other, c in zip(rims, again, coarse, strict=True)]
        grown_match = _BLANK_RIM_MATCH + coarse * (_COARSE_RIM_MATCH - _BLANK_RIM_MATCH)
        first = rims
        if grown:
            rims = self._refit_converged(shapes, centres, heights, rims, grown_match)
        refitted = [rim is not was for rim, was in zip(rims, first, strict=True)]
        looked = centres
        centres = centres + np.array([[f.dx_mm, f.dy_mm] for f in rims]).reshape(-1, 2)
        # a rim fitted from a peak beside a tile into the tile's face is judged as one on a face (plainer rim): a
        # coin on the table cannot reach over a tile, and a coin on the tile has its peak on it. The print and the
        # gaps at a face's corner pass for a rim fitted there (hand-made held-out board 644, bench offset 140: a
        # faint peak 0.1 mm off the moons 2's edge, its rim fitted 4.6 mm inside it, support 0.47, read as a sure
        # null: the gap's line for the slash)
        fitted_on_face = _inside_tiles([t for t in tiles if t.side == "face"], centres).any(axis=1)
        on_face = [bool(a or b) for a, b in zip(on_face, fitted_on_face, strict=True)]
        # A coin shows a rim, darker or lighter than its face all round: it drops most vote peaks (numerals, wood
        # grain, marker corners) cheaply. On a tile, where printed marks could pass for a coin's face, the rim
        # must be plainer. Two peaks on one coin: the better rim.
        # A blurred frame smears the signature's edges, a millimetre apart, into each other (Whack-a-Dummy default
        # seed 80: the coins' matches 0.28-0.55 where a sharp frame's are 0.72-0.82): a vote peak on the table
        # whose rim shows three quarters round but matches only weakly is a coin only if its face reads clearly
        # A faint peak on the bare table whose rim shows half round and matches as any coin's, but under a faint
        # peak's floor (that floor is a blank face's, which has nothing printed to go by): likewise a coin only if
        # its face reads as clearly as a weak rim's must (Easy Slider bold 511: an arms 2 lying on the sheet's
        # printed line, whose edges cross its rim: match 0.44, support 0.69-0.78 as the fit's start moves). Its rim
        # fits as any coin's does, so its face is read at the rim as a faint peak's is (not looked for around)
        faint_peak = grown and seen_at_zero
        weak = np.array([base[k] == 0
                         and ((not grown and _WEAK_RIM_MATCH <= rim.match < _RIM_MATCH_MIN
                               and rim.support >= _WEAK_RIM_SUPPORT)
                              or (faint_peak and coarse[k] == 0 and not on_face[k]
                                  and _RIM_MATCH_MIN <= rim.match < grown_match[k]
                                  and rim.support >= _FAINT_WEAK_RIM_SUPPORT))
                         for k, rim in enumerate(rims)], bool)
        order = sorted(range(len(rims)), key=lambda k: -rims[k].match)
        keep: list[int] = []
        for k in order:
            rim = rims[k]
            least = _BLANK_RIM_SUPPORT if on_face[k] else _BACK_RIM_SUPPORT if base[k] > 0 else _RIM_SUPPORT_MIN
            if base[k] > 0 and not on_face[k] and rim.match >= _BACK_MATCHED_RIM:
                # on a back, a rim whose signature matches well is a coin's though it shows less of itself (its
                # neighbours' shadows over it: Plans of Action classic seed 114, match 0.71, support 0.47)
                least = _RIM_SUPPORT_MIN
            if (rim.match < (grown_match[k] if grown else _RIM_MATCH_MIN) and not weak[k]) or rim.support < least:
                continue
            if (base[k] > 0 or on_face[k]) and rim.polarity < _polarity_needed(rim, base[k] > 0 and not on_face[k]):
                continue
            if all(np.hypot(*(centres[k] - centres[j])) >= 0.6 * COIN_MM for j in keep):
                keep.append(k)
        if not keep:
            return []
        rims = [rims[k] for k in keep]
        centres, base, heights, looked, weak = centres[keep], base[keep], heights[keep], looked[keep], weak[keep]
        m, n = _COIN_ALIGN_PX, COIN_CROP_PX
        size = COIN_CROP_MM * (n + 2 * m) / n
        homographies = piece_homographies(self.calibration, centres, np.zeros(len(centres)), heights, size)
        big = sample_with(image, homographies, size, n + 2 * m,
                          oversampling(self.calibration, centres[0], size, n + 2 * m))
        found: list[tuple[float, np.ndarray, DetectedPiece]] = []
        for k, (reading, (dx, dy)) in enumerate(self.coin_reader.read_batch(big, m)):
            if weak[k] and not grown:
                # a weak rim pins the centre less well: the face is looked for around, as an unclear coin's is.
                # (Not so for every crop read as no face but close to one: a hand-made meeple's head seen from
                # above, looked at around, read as a sure suns coin (bench_detect hand-made board 504).)
                reading, (dx, dy) = self.coin_reader.read_aligned(big[k], m)
            centre = centres[k] + np.array([dx, dy]) * COIN_CROP_MM / n  # the crop is not turned
            clear_rim = bool(base[k] == 0 and rims[k].match >= _CLEAR_BLANK_RIM_MATCH
                             and rims[k].support >= _CLEAR_BLANK_RIM_SUPPORT)
            if reading.status != "ok" and len(self.coin_reader.blank) and (not grown or clear_rim):
                # a blank face gives the content nothing to align on: read it at its rim's centre
                # nothing printed to go by: the coin's radial signature must fit well all round
                rim_fits = clear_rim or (rims[k].support >= _BLANK_RIM_SUPPORT and rims[k].match >= _BLANK_RIM_MATCH)
                at_peak = not rim_fits and bool(not grown and base[k] == 0 and rims[k].match >= _PEAK_BLANK_RIM_MATCH
                                                and rims[k].support >= _PEAK_BLANK_RIM_SUPPORT)
                rim_fits = rim_fits or at_peak
                plain_rim = bool(base[k] == 0 and rims[k].match >= _PLAIN_RIM_MATCH
                                 and rims[k].support >= _PLAIN_RIM_SUPPORT)
                ink_most = _PEAK_BLANK_INK if at_peak else _PLAIN_RIM_BLANK_INK if plain_rim else None
                blank = self.coin_reader._blank_reading(big[k : k + 1, m : m + n, m : m + n],
                                                        rim_fits and len(self.profile.coin_rim_taps) > 1,
                                                        ink_most=ink_most)
                if blank is not None and rim_fits:
                    reading, centre = blank, centres[k]
            # a blank face read where the signature fits clearly (see _CLEAR_BLANK_RIM_MATCH), peak or not
            blank_by_rim = bool(clear_rim and reading.status == "ok" and reading.rank == 0
                                and len(self.coin_reader.blank) > 0)
            # (a faint peak's weak rim reading as a null: not clear enough either. Its mark is the least print of
            # all, as for a coarse frame's faint peaks below, and the weak rim adds little to go by)
            if weak[k] and (reading.status != "ok" or reading.confidence < _WEAK_RIM_CONFIDENCE
                            or ((len(self.coin_reader.blank) > 0 or grown) and reading.rank == 0)):
                reading = Reading("none", score=max(reading.score, _STACKED_SCORE))  # not clear enough: see below
            looked_around = fresh = on_coin = False
            if reading.status == "none" and not grown and around is not None and (
                    reading.score >= _STACKED_SCORE or self._stacked_on_table(reading, rims[k], float(base[k]))):
                # near a face but none: perhaps a coin lying on another, 1.5-3 mm off it (a kid on its
                # trampoline), whose two rims pulled the fit between them and the window off the face on top
                fresh = reading.score < _STACKED_SCORE
                again = self._read_off_rim(image, shapes, centres[k], float(heights[k]))
                if again is None:
                    again, fresh = self._unclear_off_rim(image, shapes, centres[k], float(heights[k])), True
                if again is not None:
                    (reading, centre), looked_around = again, True
                    on_coin = bool(np.hypot(*(centre - centres[k])) >= _STACKED_APART_MM)
            if coarse[k] > 0 and reading.status == "ok" and reading.side == "value" and reading.rank == 0 \
                    and not blank_by_rim:
                # a faint peak in a coarse frame read as a null: its mark, a few pixels at 1 px/mm, is the least
                # print of all, and the sheet's small print passed for it (hand-made 820x616 seed 922, confidence
                # 0.55): as a blank face's, not enough to report a coin where no clear peak was
                continue
            if (reading.status == "none" and not grown and not on_face[k] and not weak[k] and not looked_around
                    and rims[k].match >= _PLAIN_RIM_MATCH and rims[k].support >= _UNREAD_FACE_RIM_SUPPORT
                    and reading.score >= _UNREAD_FACE_SCORE):
                # a strong peak whose rim fits plainly all round, its face near one but under the profile's floor:
                # a coin whose print the blur washed out (Slides of Action bold seed 100: the crowns coin at
                # (134, 247), rim match 0.85, support 1.0, face 0.70, was left out and the board read 4 crowns).
                # Reported as a coin of a face not read (any face): the rules may settle it, never a sure face
                reading = Reading("unclear", score=reading.score, reason="face unclear")
            if reading.status == "none" or (grown and not (blank_by_rim or self._grown_coin(reading, rims[k]))):
                continue
            if stacked_look and refitted[k] and reading.status != "ok":
                # a faint peak whose first fit failed, refitted onto a face read unclear: what a kid lying 1.5-3 mm
                # off its trampoline shows (the two rims split the votes; the first fit takes one, the refit the
                # other). Reported here, at the refit alone, it would be said to lie on the table and hold the place
                # the stacked look judges from both rims (Trampo-Land bold seed 100: the suns kid at (180.5, 207.8),
                # first fit 2 mm off at match 0.43, refit 0.67, read unclear, reported on the table). That look
                # (_stacked_at_faint) reads it as it did before the refit; a sure reading is kept here as it is
                continue
            uncertain = reading.status != "ok"
            piece = DetectedPiece(
                Kind.COIN,
                float(centre[0]),
                float(centre[1]),
                angle_deg=float(reading.angle_deg % 360.0),
                confidence=reading.confidence,
                suit=None if uncertain else reading.suit,
                rank=None if uncertain else reading.rank,
                side=reading.side,
                uncertain=uncertain,
                reason=reading.reason,
                outline_px=self._circle_px(centre, heights[k]),
                # a face found by the look around well off the rim fitted first (two rims) lies on another coin (a
                # kid on its trampoline): it says so, so that a reading can tell a coin on a coin (Trampo-Land's kids)
                height_mm=float(base[k]) + (self.profile.coin_thickness_mm if on_coin else 0.0),
                could_be=reading.could_be if uncertain else (),
            )
            rank = {"ok": 3.0, "unclear": 1.0, "hidden": 2.0}[reading.status] + reading.score
            found.append((rank, looked[k], piece))
            if looked_around and around is not None:
                around.append(piece)
                if fresh and stacked is not None:
                    stacked.append(piece)
        return found

    def _refit_converged(self, shapes: Shapes, starts: np.ndarray, heights: np.ndarray, rims: list,
                         floors: np.ndarray) -> list:
        """Rims that fail their match floor (``floors``) or ``_RIM_SUPPORT_MIN`` fitted again from where their fit
        converged (``starts`` + their offsets); the refit is kept where its signature matches better. The fit's
        radial profiles are taken around its start, and a rim 4 mm off the start lies near their ends, where the
        coarse search reads little of it: the fit can settle on a texture between coins (coin grid default seed
        1041: a grid proposal 4.4 mm off a suns 3 stopped 2.4 mm on at match 0.13; fitted again from there, it
        reaches the coin at 0.74). A coin with no vote peak of its own (grown, faint) is otherwise found or lost by
        where its start happened to fall (Whack-a-Dummy bold 83's three face-down coins in column 2, fitted from 33
        starts 0-4 mm around: matches 0.15-0.71, centres 2-4 mm apart; refitted, 0.60-0.71, 0.2-0.4 mm). Rims that pass
        are left as fitted: refitted, a rim on the wood beside the sheet's edge that had read as nothing moved half
        a millimetre to a better match, where its crop read as a sure null (hand-made tile-backs seed 1122)."""
        failed = [k for k, rim in enumerate(rims) if rim.match < floors[k] or rim.support < _RIM_SUPPORT_MIN]
        if not failed:
            return rims
        shifts = np.array([[rims[k].dx_mm, rims[k].dy_mm] for k in failed]).reshape(-1, 2)
        at = np.asarray(starts, float).reshape(-1, 2)[failed] + shifts
        again = fit_coins(shapes.gradients, piece_homographies(self.calibration, at, np.zeros(len(at)),
                                                               np.asarray(heights)[failed], _COIN_FIT_MM),
                          self.profile.coin_rim_taps)
        out = list(rims)
        for k, other, shift in zip(failed, again, shifts, strict=True):
            total = math.hypot(other.dx_mm + shift[0], other.dy_mm + shift[1])
            if other.match > rims[k].match and total <= _REFIT_MOST_MM:
                out[k] = replace(other, dx_mm=other.dx_mm + shift[0], dy_mm=other.dy_mm + shift[1])
        return out

    def _faint_read_around(self, image: np.ndarray, shapes: Shapes, points_mm: np.ndarray,
                           tiles: list[DetectedPiece], found: list[tuple[float, np.ndarray, DetectedPiece]]
                           ) -> list[tuple[float, np.ndarray, DetectedPiece]]:
        """Faint vote peaks on the bare table (no coin found within a coin of them, on no tile nor grid place)
        whose rim is fitted again from ``_FAINT_STARTS_MM`` around: every rim that fits as a faint peak's must
        (``_BLANK_RIM_MATCH``, ``_RIM_SUPPORT_MIN``) is read, and the best sure reading of a printed face (not a
        null: its mark is the least print) is reported. A light coin in the gap between two of the sheet's markers
        (Easy Slider's coins above the outer columns) shows its rim along the gap only: the markers' straight
        edges smear its votes along the gap into peaks 4-8 mm to either side of it, where the fit from the peak
        takes the markers' edges and the coin's far side for a rim about as well as the coin's own (hand-made
        Easy Slider 567: 0.596 at 10 mm off, 0.596 on the coin; 542, default 567). Reading every such rim, as
        :meth:`_read_off_rim` does for a coin on another, finds the face; a sure printed face is still needed."""
        points = np.asarray(points_mm, float).reshape(-1, 2)
        if len(points) and found:
            taken = np.array([[piece.x_mm, piece.y_mm] for _, _, piece in found])
            points = points[np.min(squared_distances(points, taken), axis=1) >= COIN_MM**2]
        places = tiles + _grid_holes_of(tiles) if tiles else []
        if len(points) and places:
            points = points[~_inside_tiles(places, points).any(axis=1)]
        if not len(points):
            return []
        height = self.profile.coin_thickness_mm
        centres = self.calibration.pixel_to_table(self.calibration.table_to_pixel(points),
                                                  np.full(len(points), height))
        # a coarse frame's faint peaks have their own wider fit (see _fit_and_read_coins): not looked at again
        centres = centres[_px_per_mm_above(self.calibration, centres, _FINE_PX_PER_MM) >= _FINE_PX_PER_MM]
        if not len(centres):
            return []
        starts = (centres[:, None, :] + np.asarray(_FAINT_STARTS_MM, float)[None]).reshape(-1, 2)
        owner = np.repeat(np.arange(len(centres)), len(_FAINT_STARTS_MM))
        heights = np.full(len(starts), height)
        rims = fit_coins(shapes.gradients, piece_homographies(self.calibration, starts, np.zeros(len(starts)),
                                                              heights, _COIN_FIT_MM), self.profile.coin_rim_taps)
        at = starts + np.array([[rim.dx_mm, rim.dy_mm] for rim in rims]).reshape(-1, 2)
        # in the gap between two markers the rim shows along the gap only (its top and bottom are the markers'
        # edges): a lower bar there (_GAP_RIM_MATCH, _GAP_RIM_SUPPORT); a sure printed face is still needed
        gap = np.repeat([self._between_markers(c) for c in centres], len(_FAINT_STARTS_MM))
        fits = np.array([rim.match >= (_GAP_RIM_MATCH if g else _BLANK_RIM_MATCH)
                         and rim.support >= (_GAP_RIM_SUPPORT if g else _RIM_SUPPORT_MIN)
                         for rim, g in zip(rims, gap, strict=True)], bool)
        if places:
            fits &= ~_inside_tiles(places, at).any(axis=1)
        kept = [k for k in np.nonzero(fits)[0]]
        kept = [kept[i] for i in _apart([at[k] for k in kept], 0.5)] if kept else []
        if not kept:
            return []
        m, n = _COIN_ALIGN_PX, COIN_CROP_PX
        size = COIN_CROP_MM * (n + 2 * m) / n
        where = at[kept]
        homographies = piece_homographies(self.calibration, where, np.zeros(len(where)), heights[: len(where)], size)
        big = sample_with(image, homographies, size, n + 2 * m,
                          oversampling(self.calibration, where[0], size, n + 2 * m))
        best: dict[int, tuple[Reading, np.ndarray]] = {}
        for k, place, (reading, shift) in zip(kept, where, self.coin_reader.read_batch(big, m), strict=True):
            if reading.status != "ok" or reading.rank == 0:
                continue
            if owner[k] not in best or reading.score > best[owner[k]][0].score:
                best[owner[k]] = (reading, place + np.array(shift) * COIN_CROP_MM / n)
        out: list[tuple[float, np.ndarray, DetectedPiece]] = []
        for i, (reading, centre) in sorted(best.items(), key=lambda item: -item[1][0].score):
            if any(math.hypot(centre[0] - p.x_mm, centre[1] - p.y_mm) < 0.8 * COIN_MM for _, _, p in found + out):
                continue
            piece = DetectedPiece(Kind.COIN, float(centre[0]), float(centre[1]),
                                  angle_deg=float(reading.angle_deg % 360.0), confidence=reading.confidence,
                                  suit=reading.suit, rank=reading.rank, side=reading.side,
                                  outline_px=self._circle_px(centre, height), height_mm=0.0)
            out.append((3.0 + reading.score, centres[i], piece))
        return out

    def _between_markers(self, centre: np.ndarray) -> bool:
        """Whether a coin at ``centre`` (table mm) would come within ``_GAP_MARKER_MM`` of two of the calibration
        sheet's markers: in the gap between two of them (20 mm, about a coin's width), or a few millimetres off it
        (a faint peak seen at the table's height, lifted to the coin's top, moves 1-2 mm)."""
        if self.markers_mm is None:
            return False
        return self._markers_within(centre[0], centre[1], COIN_MM / 2 + _GAP_MARKER_MM) >= 2

    def _markers_within(self, x_mm: float, y_mm: float, reach_mm: float) -> int:
        """How many of the calibration sheet's markers come within ``reach_mm`` of a point (table mm)."""
        near = 0
        for x0, y0, x1, y1 in self.markers_mm:
            dx = max(x0 - x_mm, 0.0, x_mm - x1)
            dy = max(y0 - y_mm, 0.0, y_mm - y1)
            near += math.hypot(dx, dy) < reach_mm
        return near

    def _read_off_rim(self, image: np.ndarray, shapes: Shapes, centre: np.ndarray, height: float
                      ) -> tuple[Reading, np.ndarray] | None:
        """A coin's rim fitted again from four starts 2.5 mm around ``centre`` (table mm), reaching 2 mm: each
        rim found (as any coin's: matched, supported) at least 1 mm off ``centre`` read as any coin is; the best
        sure reading of a printed face (the reading, its centre), else None. Only the rims decide where the
        windows are (a window searched for the best match around a meeple's head read it as a sure coin)."""
        starts = np.asarray(centre, float) + np.array([[2.5, 0.0], [-2.5, 0.0], [0.0, 2.5], [0.0, -2.5]])
        heights = np.full(len(starts), height)
        homographies = piece_homographies(self.calibration, starts, np.zeros(len(starts)), heights, _COIN_FIT_MM)
        rims = fit_coins(shapes.gradients, homographies, self.profile.coin_rim_taps, reach_mm=2.0)
        places: list[np.ndarray] = []
        for start, rim in zip(starts, rims, strict=True):
            at = start + np.array([rim.dx_mm, rim.dy_mm])
            if (rim.match >= _RIM_MATCH_MIN and rim.support >= _RIM_SUPPORT_MIN and np.hypot(*(at - centre)) >= 1.0
                    and all(np.hypot(*(at - p)) >= 0.5 for p in places)):
                places.append(at)
        if not places:
            return None
        at = np.array(places)
        m, n = _COIN_ALIGN_PX, COIN_CROP_PX
        size = COIN_CROP_MM * (n + 2 * m) / n
        homographies = piece_homographies(self.calibration, at, np.zeros(len(at)), heights[: len(at)], size)
        big = sample_with(image, homographies, size, n + 2 * m, oversampling(self.calibration, at[0], size, n + 2 * m))
        sure = [(reading, place + np.array(shift) * COIN_CROP_MM / n)
                for (reading, shift), place in zip(self.coin_reader.read_batch(big, m), at, strict=True)
                if reading.status == "ok" and not (len(self.coin_reader.blank) and reading.rank == 0)]
        return max(sure, key=lambda item: item[0].score) if sure else None

    def _stacked_on_table(self, reading: Reading, rim, base: float) -> bool:
        """Whether a crop read as no face, less close to one than ``_STACKED_SCORE``, is still looked at around as
        a coin lying on another: on the table (not on a tile's print), inside a rim that fits as plainly as a
        coin's (``_STACKED_RIM_MATCH``, ``_STACKED_RIM_SUPPORT``). A kid 1.6 mm off its trampoline (Trampo-Land
        classic seed 100, trampoline 3: rim match 0.45, support 0.69) read at 0.29: the two rims pulled the window
        off the face on top, which reads surely 1.5 mm away (default seed 114, trampoline 1: match 0.38, 0.396)."""
        return (base == 0 and reading.score >= _STACKED_LOOK_SCORE and rim.match >= _STACKED_RIM_MATCH
                and rim.support >= _STACKED_RIM_SUPPORT)

    def _stacked_at_faint(self, image: np.ndarray, shapes: Shapes, points_mm: np.ndarray,
                          tiles: list[DetectedPiece], found: list[tuple[float, np.ndarray, DetectedPiece]],
                          around: list[DetectedPiece]) -> list[tuple[float, np.ndarray, DetectedPiece]]:
        """Coins lying on others at faint vote peaks on the table (no coin found near): the two rims, 1.5-3 mm
        apart, split the votes and the fit (Trampo-Land bold seed 100, trampoline 3: votes under
        ``_COIN_VOTES_MIN``, rim match 0.36, support 0.53, a kid reading surely 1.5 mm off). Where the rim fits as
        any coin's (``_RIM_MATCH_MIN``, ``_STACKED_FAINT_SUPPORT``) it is fitted again around
        (:meth:`_read_off_rim`); a sure printed face is reported, else a face read unclear
        (:meth:`_unclear_off_rim`) as an uncertain coin; either is added to ``around`` (dropped where a figure
        stands, as a meeple's head could pass for one), at the coin thickness (``height_mm``) where its face lies
        ``_STACKED_APART_MM`` or more off the rim fitted at the peak (two rims: it lies on a coin)."""
        points = _off_coins_and_tiles(points_mm, [piece for _, _, piece in found], tiles)
        if not len(points):
            return []
        height = self.profile.coin_thickness_mm
        heights = np.full(len(points), height)
        centres = self.calibration.pixel_to_table(self.calibration.table_to_pixel(points), heights)
        homographies = piece_homographies(self.calibration, centres, np.zeros(len(centres)), heights, _COIN_FIT_MM)
        rims = fit_coins(shapes.gradients, homographies, self.profile.coin_rim_taps)
        out: list[tuple[float, np.ndarray, DetectedPiece]] = []
        for looked, centre, rim in zip(points, centres, rims, strict=True):
            if rim.match < _RIM_MATCH_MIN or rim.support < _STACKED_FAINT_SUPPORT:
                continue
            at = centre + np.array([rim.dx_mm, rim.dy_mm])
            if any(math.hypot(at[0] - p.x_mm, at[1] - p.y_mm) < 0.6 * COIN_MM for _, _, p in out):
                continue
            again = self._read_off_rim(image, shapes, at, height) or self._unclear_off_rim(image, shapes, at, height)
            if again is None:
                continue
            reading, where = again
            piece = self._off_rim_piece(reading, where, at, height)
            out.append(((1.0 if piece.uncertain else 3.0) + reading.score, looked, piece))
            around.append(piece)
        return out

    def _stacked_at_strong(self, image: np.ndarray, shapes: Shapes, points_mm: np.ndarray,
                           tiles: list[DetectedPiece], found: list[tuple[float, np.ndarray, DetectedPiece]]
                           ) -> list[tuple[float, np.ndarray, DetectedPiece]]:
        """Coins lying on others at strong vote peaks on the table left with no coin near after every other look:
        the two rims of a kid on its trampoline can pull the fit from the peak off both (Trampo-Land classic seed
        100, trampoline 6: a suns kid, its peak's fit 3.5 mm off at match 0.07, so no rim and no reading), and a
        suns kid reads unclear (its ace or its suit side), which the look for a sure face around
        (:meth:`_faint_read_around`) does not report. Here the rim is fitted again around the peak itself
        (:meth:`_read_off_rim`, else :meth:`_unclear_off_rim`: rims that fit as any coin's, a face at least
        ``_STACKED_UNCLEAR_SCORE`` close) and a face found so is reported, an unclear one only where it names one
        suit's faces (a printed face of that suit); lying on a coin (``height_mm``) where that face lies
        ``_STACKED_APART_MM`` or more off the peak (two rims; classic 100's kid: 4.1 mm; classic 142's crowns kid,
        outside the bench's seeds, read surely on its trampoline so too), else on the table. Only where dice are
        looked for too (the rooms played on coins), so that a meeple's head passing for a coin is dropped where a
        figure stands; no figure is looked for on these coins (see :meth:`detect`)."""
        points = _off_coins_and_tiles(points_mm, [piece for _, _, piece in found], tiles)
        if not len(points):
            return []
        height = self.profile.coin_thickness_mm
        centres = self.calibration.pixel_to_table(self.calibration.table_to_pixel(points), np.full(len(points), height))
        out: list[tuple[float, np.ndarray, DetectedPiece]] = []
        for looked, centre in zip(points, centres, strict=True):
            again = self._read_off_rim(image, shapes, centre, height) or self._unclear_off_rim(
                image, shapes, centre, height)
            if again is None:
                continue
            reading, where = again
            uncertain = reading.status != "ok"
            if uncertain and len({suit for suit, _, _ in reading.could_be}) != 1:
                continue
            if any(math.hypot(where[0] - p.x_mm, where[1] - p.y_mm) < 0.8 * COIN_MM for _, _, p in found + out):
                continue
            piece = self._off_rim_piece(reading, where, centre, height)
            out.append(((1.0 if uncertain else 3.0) + reading.score, looked, piece))
        return out

    def _off_rim_piece(self, reading: Reading, where: np.ndarray, looked_from: np.ndarray, height: float
                       ) -> DetectedPiece:
        """The coin a look off its rim read at ``where`` (table mm); uncertain readings keep no suit or rank. Two
        rims apart (``where`` ``_STACKED_APART_MM`` or more off ``looked_from``) it lies on a coin (see
        _fit_and_read_coins), else as found."""
        uncertain = reading.status != "ok"
        return DetectedPiece(Kind.COIN, float(where[0]), float(where[1]),
                             angle_deg=float(reading.angle_deg % 360.0), confidence=reading.confidence,
                             suit=None if uncertain else reading.suit, rank=None if uncertain else reading.rank,
                             side=reading.side, uncertain=uncertain, reason=reading.reason,
                             outline_px=self._circle_px(where, height),
                             height_mm=height if np.hypot(*(where - looked_from)) >= _STACKED_APART_MM else 0.0,
                             could_be=reading.could_be if uncertain else ())

    def _unclear_off_rim(self, image: np.ndarray, shapes: Shapes, centre: np.ndarray, height: float
                         ) -> tuple[Reading, np.ndarray] | None:
        """A coin lying on another whose face reads surely nowhere around (:meth:`_read_off_rim` found none) but
        shows a printed face: the best *unclear* reading at the rims fitted around ``centre`` (it is reported
        uncertain, so that a state says which coin is unclear rather than that nothing is there), else None.
        Only readings at least ``_STACKED_UNCLEAR_SCORE`` close to a face, at rims that fit as any coin's."""
        starts = np.asarray(centre, float) + np.array([[2.5, 0.0], [-2.5, 0.0], [0.0, 2.5], [0.0, -2.5]])
        heights = np.full(len(starts), height)
        homographies = piece_homographies(self.calibration, starts, np.zeros(len(starts)), heights, _COIN_FIT_MM)
        rims = fit_coins(shapes.gradients, homographies, self.profile.coin_rim_taps, reach_mm=2.0)
        at = np.array([start + np.array([rim.dx_mm, rim.dy_mm]) for start, rim in zip(starts, rims, strict=True)
                       if rim.match >= _RIM_MATCH_MIN and rim.support >= _RIM_SUPPORT_MIN]).reshape(-1, 2)
        if not len(at):
            return None
        m, n = _COIN_ALIGN_PX, COIN_CROP_PX
        size = COIN_CROP_MM * (n + 2 * m) / n
        homographies = piece_homographies(self.calibration, at, np.zeros(len(at)), heights[: len(at)], size)
        big = sample_with(image, homographies, size, n + 2 * m, oversampling(self.calibration, at[0], size, n + 2 * m))
        unclear = [(reading, place + np.array(shift) * COIN_CROP_MM / n)
                   for (reading, shift), place in zip(self.coin_reader.read_batch(big, m), at, strict=True)
                   if reading.status == "unclear" and reading.score >= _STACKED_UNCLEAR_SCORE]
        return max(unclear, key=lambda item: item[0].score) if unclear else None

    def _grown_coin(self, reading: Reading, rim) -> bool:
        """Whether a coin where no clear vote peak was (grown from a grid, or a faint peak) is reported: read
        surely as a printed face, or (a set with no blank face) a face not read surely inside a rim that shows
        half round, or read as one of a few faces of one suit (``could_be``): reported uncertain. Empty paper is as
        blank as a blank face: blank readings never."""
        blank_set = len(self.coin_reader.blank) > 0
        if reading.status == "ok":
            return not (blank_set and reading.rank == 0)
        if reading.status != "unclear" or blank_set:
            return False
        # a face the reader narrows to one suit's few faces (a face-down suns coin: its ace or its suit side) is a
        # coin's printed face as surely as a sure reading's, whatever share of its rim shows. A light coin's rim
        # shows about half round, and the share moves by a ray or two with where its fit started: Whack-a-Dummy
        # bold 83's two face-down suns coins showed 13-16 of 32 rays from 33 starts 0-4 mm around, so a grid
        # proposal moved a fraction of a millimetre (a neighbour's centre read 1 mm nearer its truth) lost both
        return rim.support >= 0.5 or len({suit for suit, _, _ in reading.could_be}) == 1

    def _circle_px(self, centre: np.ndarray, height: float) -> np.ndarray:
        a = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        ring = centre[None] + COIN_MM / 2 * np.column_stack([np.cos(a), np.sin(a)])
        return self.calibration.table_to_pixel(ring, height)


@dataclass(frozen=True)
class _TileFinding:
    """A tile candidate fitted and read: its pose, the reading, the support of its outline's four sides."""

    pose: _Pose
    reading: Reading
    support: tuple[float, float, float, float]

    @property
    def rank(self) -> float:
        return {"ok": 3.0, "hidden": 2.0, "unclear": 1.0, "none": 0.0}[self.reading.status] + self.reading.score


def _px_per_mm_above(calibration: Calibration, points_mm: np.ndarray, fine: float) -> np.ndarray:
    """``calibration.px_per_mm_at`` of each point, exactly, except where it is clearly at least ``fine``: there
    ``fine`` itself (all a caller that clips below ``fine`` needs). One batched estimate for all points (one call
    of the calibration instead of one per point: 44 faint coin peaks a frame took 3 ms), then the exact per-point
    call only where the estimate is within 1e-6 of ``fine`` or below it (the batched and the per-point sums may
    differ in their last bits, some 1e-15 px/mm)."""
    points = np.asarray(points_mm, float).reshape(-1, 2)
    if len(points) == 0:
        return np.zeros(0)
    triples = points[:, None, :] + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])[None]
    px = calibration.table_to_pixel(triples.reshape(-1, 2)).reshape(-1, 3, 2)
    estimate = np.sqrt(np.hypot(*(px[:, 1] - px[:, 0]).T) * np.hypot(*(px[:, 2] - px[:, 0]).T))
    out = np.full(len(points), float(fine))
    for i in np.flatnonzero(~(estimate >= fine + 1e-6)):
        out[i] = calibration.px_per_mm_at(points[i])
    return out


def _apart(points: list[np.ndarray], distance: float, first: int = 0) -> list[int]:
    """Indices of the points kept greedily in order, each at least ``distance`` from every one kept before it;
    the ``first`` points are kept whatever (and count)."""
    if not points:
        return []
    xy = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    close = squared_distances(xy, xy) < distance * distance
    kept = np.zeros(len(xy), np.int64)
    return kept[: _greedy_apart(close, first, kept)].tolist()


@njit(cache=True, nogil=True)
def _greedy_apart(close, first, kept):  # pragma: no cover - numba
    """The greedy loop of :func:`_apart` over its ``close`` matrix: kept indices into ``kept``, their count. (A
    numba loop: in numpy, one masked test per point took a millisecond a frame over the lattice's 200 places.)"""
    n = close.shape[0]
    taken = np.zeros(n, np.bool_)
    count = 0
    for i in range(min(first, n)):
        taken[i] = True
        kept[count] = i
        count += 1
    for i in range(first, n):
        free = True
        for j in range(n):
            if taken[j] and close[i, j]:
                free = False
                break
        if free:
            taken[i] = True
            kept[count] = i
            count += 1
    return count


def _between(point: np.ndarray, outlines: np.ndarray) -> bool:
    """Whether ``point`` lies half a tile (0.35 to 0.65 tiles) from two outlines on opposite sides of it: the
    matched filter's echo between two tiles. A back's printed grid repeats at half a tile, so the echo between
    two backs reads as a back (Slides of Action board 1101: between two backs under coins, read at 1.0)."""
    offsets = outlines - np.asarray(point, float)[None]
    distance = np.hypot(offsets[:, 0], offsets[:, 1])
    half = offsets[(distance > 0.35 * TILE_MM) & (distance < 0.65 * TILE_MM)]
    if len(half) < 2:
        return False
    unit = half / np.hypot(half[:, 0], half[:, 1])[:, None]
    return bool(np.min(unit @ unit.T) < -0.9)  # two of them facing each other across the point


def _read_centres(findings: list[_TileFinding]) -> np.ndarray:
    """(n, 2) centres (table mm) of the findings read as something (a tile, surely or not)."""
    return np.array([f.pose.centre for f in findings if f.reading.status != "none"], np.float64).reshape(-1, 2)


def _far_from(points: list[np.ndarray], others: np.ndarray, distance: float) -> np.ndarray:
    """Whether each point lies ``distance`` (mm) or farther from every one of ``others`` ((m, 2) mm): the same
    ``np.hypot`` of the same differences as one point and one other at a time."""
    xy = np.asarray(points, np.float64).reshape(-1, 2)
    if not len(others):
        return np.ones(len(xy), bool)
    offsets = xy[:, None, :] - np.asarray(others, np.float64)[None]
    return np.all(np.hypot(offsets[..., 0], offsets[..., 1]) >= distance, axis=1)


def _lopsided(support: tuple[float, float, float, float]) -> bool:
    """Whether an outline's support differs by ``_LOPSIDED`` or more between two opposite sides (left and right,
    top and bottom): one side on an edge, the other on hardly anything."""
    left, right, top, bottom = support
    return abs(left - right) >= _LOPSIDED or abs(top - bottom) >= _LOPSIDED


def _best_tiles(findings: list[_TileFinding]) -> list[_TileFinding]:
    """The findings that are tiles, best first, none overlapping another (tiles lie side by side)."""
    ordered = sorted((f for f in findings if f.reading.status != "none"), key=lambda f: -f.rank)
    return [ordered[i] for i in _apart([f.pose.centre for f in ordered], 0.8 * TILE_MM)]


def _half_off(tiles: list[_TileFinding]) -> list[tuple[int, list[np.ndarray]]]:
    """Tiles whose neighbours (within 2.6 pitches, turned alike; two at least) all lie about half a pitch off the
    tile's own lattice along one of its axes: (index, the two shifts (mm) onto the neighbours' lattice) per such
    tile. Two pitches and more: a block of backs under coins shows few backs read surely, and the one read
    between two of them (their printed crosses and the seam make a back-like square) may have only one such
    neighbour within 1.6 pitches (Plans of Action hand-made seed 107); within 2.6 pitches a grid with 5 mm gaps
    is still well on the lattice of touching tiles (2 pitches: 0.15 of a pitch off, under the 0.3 asked)."""
    if len(tiles) < 3:
        return []
    centres = np.array([t.pose.centre for t in tiles])
    angles = np.array([t.pose.angle_deg for t in tiles])
    pitch = TILE_MM + 1.0
    out = []
    # every tile's neighbours at once (row i: the same elementwise differences as tile i alone)
    offsets = centres[None, :, :] - centres[:, None, :]
    turns = np.abs((angles[None, :] - angles[:, None] + 45.0) % 90.0 - 45.0)
    neighbours = (np.hypot(offsets[..., 0], offsets[..., 1]) < 2.6 * pitch) & (turns < 5.0)
    np.fill_diagonal(neighbours, False)
    # every tile's neighbours along its own two axes at once (a loop over the tiles, two small products each,
    # took 0.7 ms a board); the shifts are made from each tile's own axes, as before
    radians = [math.radians(a) for a in angles.tolist()]
    cos = np.array([math.cos(a) for a in radians])[:, None]
    sin = np.array([math.sin(a) for a in radians])[:, None]
    off = []
    for along in (offsets[..., 0] * cos + offsets[..., 1] * sin, offsets[..., 1] * cos - offsets[..., 0] * sin):
        residual = np.abs(along - pitch * np.round(along / pitch))
        off.append(np.all((residual > 0.3 * pitch) | ~neighbours, axis=1))  # every neighbour half a pitch off
    for i in np.flatnonzero(neighbours.sum(axis=1) >= 2).tolist():
        a = radians[i]
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        for axis, half_off in ((u, off[0][i]), (v, off[1][i])):
            if half_off:
                out.append((i, [axis * pitch / 2, -axis * pitch / 2]))
                break
    return out


_DEFAULT_GAP_MM = 0.5  # a lone tile: grow as a touching grid (a grid with gaps shows its tiles' outlines)


def _grid_axes(centres: np.ndarray, angles_deg: list[float]
               ) -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray]:
    """The tiles' grid from their centres (table mm) and turns: the gap between neighbours (mm, the median of
    the spacings near a tile's width), the pitch (mm), the turns in radians and each tile's two unit axes."""
    d = np.sqrt(squared_distances(centres, centres))
    near = d[(d > TILE_MM - 2.0) & (d < TILE_MM + 15.0)]
    gap = float(np.median(near - TILE_MM)) if len(near) else _DEFAULT_GAP_MM
    angles = np.radians(angles_deg)
    u = np.column_stack([np.cos(angles), np.sin(angles)])
    v = np.column_stack([-np.sin(angles), np.cos(angles)])
    return gap, TILE_MM + max(gap, 0.0), angles, u, v


def _lattice_proposals(tiles: list[_TileFinding], tried: list[np.ndarray], view: TableView) -> np.ndarray:
    """Where the neighbours of the tiles found would be (rows x, y mm, angle), at the grid's pitch, skipping
    places taken or already proposed (a candidate that failed there may have been a few millimetres off)."""
    if not tiles:
        return np.zeros((0, 3))
    centres = np.array([t.pose.centre for t in tiles])
    gap, pitch, angles, u, v = _grid_axes(centres, [t.pose.angle_deg for t in tiles])
    # the four neighbours, and the diagonal ones (a touching grid with holes: Slide Jam pops tiles out of it)
    steps = (u, -u, v, -v, u + v, u - v, -u + v, -u - v)
    spots = np.concatenate([centres + pitch * step for step in steps])
    spot_angles = np.tile(np.degrees(angles) % 90.0, len(steps))
    # a grid with gaps whose tiles show their outlines needs no growing outward (a tile there would have shown
    # its own); a hole inside it (two or more tiles around) is still looked at
    faint = np.tile([min(t.support) < 0.5 for t in tiles], len(steps))
    around = np.sum(squared_distances(spots, centres) < (pitch + 5.0) ** 2, axis=1)
    diagonal = np.repeat(np.arange(len(steps)) >= 4, len(tiles))
    keep = (faint | (around >= 2)) & ~diagonal if gap >= 2.0 else faint | ~diagonal
    spots, spot_angles = spots[keep], spot_angles[keep]
    x0, y0, x1, y1 = view.bounds_mm
    inside = (spots[:, 0] > x0 + 25) & (spots[:, 0] < x1 - 25) & (spots[:, 1] > y0 + 25) & (spots[:, 1] < y1 - 25)
    # a place tried before blocks only places within a third of a tile of it (its search reached them): one a
    # row's gap farther (Magic Mirror's mirror, 24 mm) is another place (default seed 114's tile under it)
    free = np.min(squared_distances(spots, centres), axis=1) >= (0.6 * TILE_MM) ** 2
    if tried:
        free &= np.min(squared_distances(spots, np.array(tried).reshape(-1, 2)), axis=1) >= (_TRIED_MM) ** 2
    spots, spot_angles = spots[inside & free], spot_angles[inside & free]
    kept = _apart(list(spots), 0.6 * TILE_MM)
    return np.column_stack([spots[kept], spot_angles[kept]]).reshape(-1, 3)


def _coin_grid_proposals(coins: list[DetectedPiece], tried: list[np.ndarray]) -> np.ndarray:
    """Where the neighbours of coins lying in a grid would be (rows x, y mm): the grid's two directions and
    pitch from the coins' nearest neighbours (a grid: at least two coins with a neighbour 1.1 to 2 coins away),
    skipping places taken or already looked at."""
    if len(coins) < 2:
        return np.zeros((0, 2))
    xy = np.array([[c.x_mm, c.y_mm] for c in coins])
    d = np.sqrt(squared_distances(xy, xy))
    np.fill_diagonal(d, np.inf)
    nearest = d.min(axis=1)
    paired = (nearest > 1.1 * COIN_MM) & (nearest < 2.0 * COIN_MM)
    if paired.sum() < 2:
        return np.zeros((0, 2))
    pitch = float(np.median(nearest[paired]))
    offsets = np.array([xy[j] - xy[i] for i in range(len(xy)) for j in range(len(xy))
                        if i != j and abs(d[i, j] - pitch) < 0.2 * pitch]).reshape(-1, 2)
    if not len(offsets):  # the median of an even count can lie between two spacings, near neither: no grid
        return np.zeros((0, 2))
    # the grid's turn: the directions modulo 90 degrees averaged on the circle (4 theta), as a median of angles
    # modulo 90 is not: a square grid's 0.5 and 89.5 degrees are one direction
    theta = np.arctan2(offsets[:, 1], offsets[:, 0])
    a = math.atan2(float(np.mean(np.sin(4 * theta))), float(np.mean(np.cos(4 * theta)))) / 4
    u, v = pitch * np.array([math.cos(a), math.sin(a)]), pitch * np.array([-math.sin(a), math.cos(a)])
    grid = xy[paired]
    spots = np.concatenate([grid + step for step in (u, -u, v, -v)])
    known = np.array([*tried, *xy]).reshape(-1, 2)
    free = np.min(squared_distances(spots, known), axis=1) >= (0.6 * COIN_MM) ** 2
    spots = spots[free]
    return spots[_apart(list(spots), 0.6 * COIN_MM)].reshape(-1, 2)


def _sheet_markers(calibration: Calibration) -> list[tuple[float, float, float, float]] | None:
    """The table rectangles (x0, y0, x1, y1 mm) of the calibration sheet's markers, when the calibration was made
    from a sheet (the sheet is then on the table, usually under the play area)."""
    report = calibration.report
    if report is None or not report.paper:
        return None
    from calibration.sheet import sheet_layout

    try:
        layout = sheet_layout(report.paper)
    except (KeyError, ValueError):
        return None
    return [(float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max()))
            for c in layout.markers.values()]


def _sheet_rect(calibration: Calibration) -> tuple[float, float, float, float] | None:
    """The table rectangle (x0, y0, x1, y1 mm) of the calibration sheet, when the calibration was made from one
    (the sheet's layout is in table millimetres: its top-left corner is the table's origin)."""
    report = calibration.report
    if report is None or not report.paper:
        return None
    from calibration.sheet import PAPER_SIZES_MM

    size = PAPER_SIZES_MM.get(report.paper.strip().lower())
    return None if size is None else (0.0, 0.0, float(size[0]), float(size[1]))


def _coin_ground(tiles: list[DetectedPiece], outlined: list[DetectedPiece], wanted: set[str]) -> list[DetectedPiece]:
    """The tiles coins may lie on (raised by a tile's thickness, their rims judged as on a face or a back). Where
    tiles are not looked for (a room of coins and figures: Trampo-Land, the barrels), only tiles read surely: a
    triangle of coins, kids on trampolines, was fitted as a tile read "partly hidden" (Trampo-Land hand-made seed
    114), and the coins on it needed a rim as plain as on a printed face, so a kid showing 0.44 of its rim was
    not seen. Tiles read surely are still the ground of coins whatever the kinds looked for."""
    if "tile" in wanted:
        return tiles + outlined
    return [t for t in tiles if not t.uncertain]


def _polarity_needed(rim, on_back: bool) -> float:
    """The share of a coin rim's rays that must show the rim's majority polarity where the coin lies on a tile
    (``on_back``: on a tile's back, or on an outline not read). On a back, a rim whose signature matches well
    (``_BACK_SHADOWED_RIM``) needs less (``_BACK_SHADOWED_POLARITY``): a light coin near the back's dark border
    and printed lines shows its own shadow darker than the back on one side, so some rays turn the other way
    (classic Plans of Action 121: an arms coin beside the back's edge, match 0.79, polarity 0.77; lost once the
    tile under it was read as a back, found while the tile was unread). Measured on every rim on a back that only
    the polarity turned away (bench_states Plans / Slides of Action and Magic Mirror seeds 100-135, bench_detect
    tile-backs 1100-1165, four editions): the 4 real coins matched 0.71-0.94 (polarity 0.77-0.84); the 10 rims
    22 mm or more from any coin matched 0.61-0.64 (and their faces read as none)."""
    if on_back and rim.match >= _BACK_SHADOWED_RIM:
        return _BACK_SHADOWED_POLARITY
    return _RIM_POLARITY


def _inside_tiles(tiles: list[DetectedPiece], points: np.ndarray) -> np.ndarray:
    """(points, tiles) bool: :func:`_inside` of every point (n, 2) mm in every tile, at once."""
    if not tiles or len(points) == 0:
        return np.zeros((len(points), len(tiles)), bool)
    centres = np.array([[t.x_mm, t.y_mm] for t in tiles])
    a = np.radians([t.angle_deg for t in tiles])
    d = points[:, None, :] - centres[None]
    u = d[..., 0] * np.cos(a) + d[..., 1] * np.sin(a)
    v = -d[..., 0] * np.sin(a) + d[..., 1] * np.cos(a)
    return (np.abs(u) <= TILE_MM / 2) & (np.abs(v) <= TILE_MM / 2)


def _grid_holes_of(tiles: list[DetectedPiece]) -> list[DetectedPiece]:
    """The places of the tiles' grid (their neighbours' at the grid's pitch, as :func:`_lattice_proposals` finds
    them) where no tile was found but two tiles or more are its neighbours: holes inside the grid, or tiles hidden
    there. Bare tile pieces (for :func:`_inside_tiles`)."""
    if len(tiles) < 2:
        return []
    centres = np.array([[t.x_mm, t.y_mm] for t in tiles])
    _, pitch, angles, u, v = _grid_axes(centres, [t.angle_deg for t in tiles])
    spots = np.concatenate([centres + pitch * step for step in (u, -u, v, -v)])
    distances = squared_distances(spots, centres)
    around = np.sum(distances < (pitch + 5.0) ** 2, axis=1)
    free = np.min(distances, axis=1) >= (0.6 * TILE_MM) ** 2
    degrees = np.tile(np.degrees(angles), 4)
    return [DetectedPiece(Kind.TILE, float(x), float(y), angle_deg=float(a % 360.0), uncertain=True)
            for (x, y), a in zip(spots[(around >= 2) & free], degrees[(around >= 2) & free], strict=True)]


def _off_coins_and_tiles(points_mm: np.ndarray, coins: list[DetectedPiece], tiles: list[DetectedPiece]) -> np.ndarray:
    """The points (table mm, N x 2) a coin's width or more from every coin found and on no tile nor hole of the
    tiles' grid: the peaks still to look at for coins lying on others."""
    points = np.asarray(points_mm, float).reshape(-1, 2)
    if len(points) and coins:
        taken = np.array([[piece.x_mm, piece.y_mm] for piece in coins])
        points = points[np.min(squared_distances(points, taken), axis=1) >= COIN_MM**2]
    if len(points) and tiles:
        points = points[~_inside_tiles(tiles + _grid_holes_of(tiles), points).any(axis=1)]
    return points


def _on_hidden_face_place(tiles: list[DetectedPiece], points: np.ndarray) -> np.ndarray:
    """(points,) bool: points on an outline not read (no side) that lies on a place of the grid of the faces read
    around it: a face tile hidden (by a hand) whose printed corner symbol may pass for a coin, as in a hole of the
    grid (see :func:`_grid_holes_of`). The outline takes its grid place from the holes, so the faces alone say
    where those are. Held-out hand-made "hand over the board" 1940 (bench_conditions ``--seed-offset 1000``): the
    crowns 2 half under a hand, outlined but not read, its corner crown (10 mm wide where a coin's is 12.6 mm) a
    faint peak read as a sure crowns coin whose rim showed 0.59 of the way round (match 0.57) while it was judged
    as on a back. A back read beside faces is a tile of the grid (no hole there); an outline not read among backs
    alone (a back under coins: Slides/Plans of Action) is judged as before."""
    points = np.asarray(points, float).reshape(-1, 2)
    unread = [t for t in tiles if t.side is None]
    if not unread or len(points) == 0:
        return np.zeros(len(points), bool)
    holes = _grid_holes_of([t for t in tiles if t.side == "face"])
    if not holes:
        return np.zeros(len(points), bool)
    # the outline at a hole: its middle within a third of a tile of the hole's (the hole's middle lies a few mm
    # off the real tile's: the grid's pitch is the faces' mean)
    hidden = [t for t in unread if any(math.hypot(t.x_mm - h.x_mm, t.y_mm - h.y_mm) < TILE_MM / 3 for h in holes)]
    return _inside_tiles(hidden, points).any(axis=1)


def _finding_piece(finding: _TileFinding) -> DetectedPiece:
    """A bare tile piece at a finding's pose (for :func:`_inside`)."""
    return DetectedPiece(Kind.TILE, float(finding.pose.centre[0]), float(finding.pose.centre[1]),
                         angle_deg=float(finding.pose.angle_deg % 360.0), uncertain=True)


def _from_tile_middle(tile: DetectedPiece, x: float, y: float) -> tuple[float, float]:
    """How far a table point (mm) lies from a tile's middle along the tile's own two axes (both >= 0)."""
    a = math.radians(tile.angle_deg)
    dx, dy = x - tile.x_mm, y - tile.y_mm
    return abs(dx * math.cos(a) + dy * math.sin(a)), abs(-dx * math.sin(a) + dy * math.cos(a))


def _inside(tile: DetectedPiece, x: float, y: float, margin: float = 0.0) -> bool:
    return max(_from_tile_middle(tile, x, y)) <= TILE_MM / 2 + margin


def _coin_mask(tile: DetectedPiece, angle: float, coins: list[DetectedPiece]) -> np.ndarray:
    """Pixels of a tile's crop (sampled at ``angle``) under the coins lying on it."""
    n = TILE_CROP_PX
    p = n / TILE_CROP_MM
    mask = np.zeros((n, n), np.uint8)
    a = math.radians(angle)
    for coin in coins:
        dx, dy = coin.x_mm - tile.x_mm, coin.y_mm - tile.y_mm
        u = dx * math.cos(a) + dy * math.sin(a)
        v = -dx * math.sin(a) + dy * math.cos(a)
        centre = (int(round((u + TILE_CROP_MM / 2) * p - 0.5)), int(round((v + TILE_CROP_MM / 2) * p - 0.5)))
        cv2.circle(mask, centre, int(math.ceil((COIN_MM / 2 + 1.5) * p)), 1, -1)
    return mask.astype(bool)


def _non_overlapping(found: list[tuple[float, DetectedPiece]], min_distance: float) -> list[DetectedPiece]:
    """Best-ranked first, dropping any piece closer than ``min_distance`` to one kept."""
    kept: list[DetectedPiece] = []
    for _, piece in sorted(found, key=lambda item: -item[0]):
        if all(math.hypot(piece.x_mm - k.x_mm, piece.y_mm - k.y_mm) >= min_distance for k in kept):
            kept.append(piece)
    return kept


def _doubt_faces_read_twice(tiles: list[DetectedPiece]) -> list[DetectedPiece]:
    """Tiles read surely as the same face (suit and rank) are doubted: a piecepack holds one tile of each, so in a
    frame of one set one of them is wrong. Where one of them reads at full confidence the others are made
    uncertain; where none does, all of them (two at full confidence are left: nothing tells which). Frames
    holding several sets (an Easy Slider board per player) lose such a tile to "uncertain", never to a wrong
    reading. Bold Slide Jam seed 1260 (bench_detect's boards at
    ``--seed-offset 60``) read an arms 4 surely as the arms ace at confidence 0.96 beside the real ace at 1.0."""
    groups: dict[tuple, list[int]] = {}
    for k, tile in enumerate(tiles):
        if not tile.uncertain and tile.side == "face" and tile.suit is not None and tile.rank is not None:
            groups.setdefault((tile.suit, tile.rank), []).append(k)
    doubted: set[int] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        best = max(tiles[k].confidence for k in members)
        doubted.update(k for k in members if best < 1.0 or tiles[k].confidence < best)
    if not doubted:
        return tiles
    reason = "face unclear: another tile reads as the same face (a set holds one of each)"
    return [replace(t, uncertain=True, suit=None, rank=None, confidence=min(t.confidence, 0.5), reason=reason)
            if k in doubted else t for k, t in enumerate(tiles)]


#: A coin whose centre lies this much less than its radius from the edge of the face tile under it reaches over
#: that edge (a flat coin on a tile lies within it; the corner print of a tile does not care)
_CORNER_PRINT_OVERHANG_MM = 0.5


def _doubt_tile_corner_prints(coins: list[DetectedPiece], tiles: list[DetectedPiece]) -> list[DetectedPiece]:
    """Sure suit-side coins of a face tile's own suit, lying on that tile and reaching over its edge, are doubted:
    a tile prints its suit's symbol in its corners, and the symbol with the corner's two edges and the gaps beside
    them can pass for a coin's face and rim. Held-out hand-made Easy Slider 640 (bench_detect ``--seed-offset
    140``): the crowns 2's corner crown was read as a sure crowns coin (rim match 0.63, shown 0.81 of the way
    round, polarity 0.885 where 0.85 is needed on a face) whose disc reached 1.6 mm over the tile's edge. A real
    coin of that suit placed so is reported uncertain (never wrong); the benchmarks' coins on tiles lie on backs
    (Slides/Plans of Action) or inside faces, and none is changed."""
    faces = [t for t in tiles if not t.uncertain and t.side == "face" and t.suit is not None]
    if not faces:
        return coins
    out = []
    reach = COIN_MM / 2 - _CORNER_PRINT_OVERHANG_MM
    for coin in coins:
        if coin.uncertain or coin.side != "suit" or coin.suit is None:
            out.append(coin)
            continue
        # on a tile of its suit, its centre nearer that tile's edge than its own radius: it reaches over the edge
        doubted = any(tile.suit == coin.suit
                      and TILE_MM / 2 - reach < max(_from_tile_middle(tile, coin.x_mm, coin.y_mm)) < TILE_MM / 2
                      for tile in faces)
        # no could_be: it may be no coin at all (a game's rules must not settle it into one)
        out.append(replace(coin, uncertain=True, suit=None, rank=None, confidence=min(coin.confidence, 0.5),
                           reason="kind unclear: a tile's corner print of its suit reads where the coin lies "
                                  "(reaching over the tile's edge)") if doubted else coin)
    return out


def _mark_covered_coins(pieces: list[DetectedPiece], figures: list[DetectedPiece]) -> list[DetectedPiece]:
    """A coin with a die (or a pawn) standing on it cannot be read: uncertain, whatever the classifier said.

    A sure coin under a figure that may be only its print (``vision.figure_search.may_be_a_print``) is made
    uncertain all the same (a pawn wrongly called a print would hide it), but an unclear coin's ``could_be`` is
    kept under such a figure: the reader narrowed it from the coin itself."""
    out = []
    for piece in pieces:
        if piece.kind is Kind.COIN:
            on = [f for f in figures if math.hypot(f.x_mm - piece.x_mm, f.y_mm - piece.y_mm) < COIN_MM / 2]
            if on and not piece.uncertain:
                piece = replace(piece, uncertain=True, suit=None, rank=None,
                                reason=f"under a {on[0].kind.value}", could_be=())
            elif on and not all(may_be_a_print(f) for f in on):  # what shows of it beside a die narrows nothing
                piece = replace(piece, could_be=())
            # (a "pawn" that may be the coin's own print fitted as one hides nothing: the coin's could_be, read
            # from the whole coin, stands)
        out.append(piece)
    return out


def detect_pieces(
    image: np.ndarray,
    calibration: Calibration,
    profile: PieceSetProfile | None = None,
    *,
    kinds: Iterable[str] | None = None,
) -> Detection:
    """The pieces in one frame: ``Detector(calibration, profile).detect(image, kinds)``.

    ``image``: BGR uint8 frame of the calibration's size; ``profile``: the piece set (None: built-in default
    edition); ``kinds``: which kinds to look for (default all). To follow a game, keep a :class:`Detector`.
    """
    return Detector(calibration, profile).detect(image, kinds)


# ------------------------------------------------------------------------------------------------------------
# Teach photos
# ------------------------------------------------------------------------------------------------------------
def survey_teach_photo(image: np.ndarray, calibration: Calibration, name: str = "photo") -> TeachPhoto:
    """The tiles, coins, pawns and dice of a teach photo, found by shape alone, with context crops for
    :func:`calibration.teach.build_profile`."""
    detector = _ShapeOnly(calibration)
    shapes = detector.shapes(image)
    tiles_thick, coin_thick = 3.0, 3.0
    # coins first: rims fitted at every vote peak, the rim alone as their signature (teach measures the rest)
    peaks_view = shapes.coin_peaks
    if len(peaks_view):
        heights = np.full(len(peaks_view), coin_thick)
        centres = detector._lift(peaks_view[:, :2], heights)
        homographies = piece_homographies(calibration, centres, np.zeros(len(centres)), heights, _COIN_FIT_MM)
        fits_c = fit_coins(shapes.gradients, homographies)
    else:
        centres, fits_c = np.zeros((0, 2)), []
    good = [(c + [f.dx_mm, f.dy_mm], f) for c, f in zip(centres, fits_c, strict=True)
            if f.match >= 0.7 and f.support >= 0.75]
    good.sort(key=lambda item: -item[1].match)
    rims: list[np.ndarray] = []
    for c, _ in good:
        if all(math.hypot(*(c - k)) >= 0.8 * COIN_MM for k in rims):
            rims.append(c)
    # tiles: an outline with two adjacent sides or three of four (the layout has gaps), best first, no overlaps;
    # not the calibration sheet's markers, nor a square of four coins
    candidates = shapes.tile_candidates
    centres = detector._lift(candidates[:, :2], tiles_thick) if len(candidates) else np.zeros((0, 2))
    # "up" is the quarter turn nearest the table's up (the layout is laid square to the table)
    angles = ((candidates[:, 2] + 45.0) % 90.0) - 45.0 if len(candidates) else np.zeros(0)
    fits, poses = _teach_tile_fits(shapes.gradients, calibration, centres, angles, tiles_thick)

    def plausible(i: int) -> bool:
        centre, angle = poses[i]
        square = DetectedPiece(Kind.TILE, float(centre[0]), float(centre[1]), angle_deg=float(angle))
        coins_inside = sum(_inside(square, float(c[0]), float(c[1])) for c in rims)
        return fits[i].complete >= 0.4 and coins_inside < 2 and not detector._near_marker(centre)

    order = sorted((i for i in range(len(fits)) if plausible(i)), key=lambda i: -sum(fits[i].support))
    kept = [order[i] for i in _apart([poses[i][0] for i in order], 0.8 * TILE_MM)]
    tile_centres = np.array([poses[i][0] for i in kept]).reshape(-1, 2)
    tile_angles = np.array([poses[i][1] for i in kept])
    # the layout is a grid: a tile the matched filter missed is looked for where its neighbours say it is
    holes = _grid_holes(tile_centres, tile_angles)
    if len(holes):
        refits = fit_tiles(shapes.gradients, piece_homographies(calibration, holes[:, :2], holes[:, 2], tiles_thick,
                                                                _TILE_FIT_MM), TILE_MM)
        for hole, fit in zip(holes, refits, strict=True):
            right, down = piece_axes(hole[2])
            centre = hole[:2] + fit.du_mm * right + fit.dv_mm * down
            if fit.complete >= 0.25 and not detector._near_marker(centre):
                tile_centres = np.vstack([tile_centres, centre])
                tile_angles = np.append(tile_angles, hole[2] + fit.dangle_deg)
    # the strongest square outline of each tile found: its edge, or a printed frame inside it (the detector's
    # fit is told how small to look; here the tiles are found first, with their edges, on their own)
    frames = fit_tiles(shapes.gradients, piece_homographies(calibration, tile_centres, tile_angles, tiles_thick,
                                                             _TILE_FIT_MM), TILE_MM, shrink_mm=_TEACH_SHRINK_MM)
    tile_context = sample_crops(image, calibration, tile_centres, tile_angles, tiles_thick, TILE_CONTEXT_MM,
                                TILE_CONTEXT_PX)
    colours = tile_colours(image, calibration, tile_centres, tile_angles, tiles_thick)
    tiles = [TeachPiece(float(c[0]), float(c[1]), float(a), crop, frame.size_mm, tuple(float(v) for v in colour))
             for c, a, crop, frame, colour in zip(tile_centres, tile_angles, tile_context, frames, colours,
                                                  strict=True)]
    # the layout's tiles lie in a block: a square that four coins or a marker and the sheet's edge make alone
    # is no tile (and must not hide the coins under it)
    tiles = [t for block in _blocks(tiles, TILE_MM) if len(block) >= 6 for t in block]
    # coins on a tile are not part of the teach layout
    kept_c = [c for c in rims
              if not any(abs(c[0] - t.x_mm) < TILE_MM / 2 and abs(c[1] - t.y_mm) < TILE_MM / 2 for t in tiles)]
    coin_centres = np.array(kept_c).reshape(-1, 2)
    coin_centres = _coin_coloured(image, calibration, coin_centres, coin_thick)
    coin_context = sample_crops(image, calibration, coin_centres, np.zeros(len(coin_centres)), coin_thick,
                                COIN_CONTEXT_MM, COIN_CONTEXT_PX)
    coins = [TeachPiece(float(c[0]), float(c[1]), 0.0, crop) for c, crop in zip(coin_centres, coin_context,
                                                                                 strict=True)]
    figures = _teach_figures(image, detector.colour_view(image), coins)
    if tiles:
        white = np.median(np.concatenate([t.context.reshape(-1, 3) for t in tiles]), axis=0)
    else:
        white = np.percentile(detector.colour_view(image).image.reshape(-1, 3), 95, axis=0)
    # the paper the tiles' colours are taught against (vision.set_colours): the layout lies beside the sheet
    markers = sheet_markers(calibration)
    paper = None if markers is None else marker_paper(image, markers, markers_shown(shapes.grey, markers))
    return TeachPhoto(name, tiles, coins, figures, tuple(float(v) for v in white), float(
        calibration.px_per_mm_at(tile_centres.mean(axis=0) if len(tiles) else np.zeros(2))),
        (image.shape[1], image.shape[0]), paper_bgr=None if paper is None else tuple(float(v) for v in paper))


_TEACH_FIT_TURN_DEG = 1.9  # a fit turns a tile by 2 degrees at most (vision.tiles._fit_tiles): one that turned
_TEACH_FIT_AGAIN = 3  # ... this far stopped at its reach, not at the outline, and is fitted again (this often)


def _teach_tile_fits(gradients: tuple[np.ndarray, np.ndarray], calibration: Calibration, centres: np.ndarray,
                     angles: np.ndarray, height_mm: float) -> tuple[list[TileFit], list[tuple[np.ndarray, float]]]:
    """Each teach tile candidate's outline fit and its pose (centre mm, angle degrees). The candidates' angles
    come from a coarse matched filter: bold's moons 4 and arms 5 start 5.5 degrees off (their bold print pulls
    it), and one fit reaches 2 degrees, so they stopped 3 degrees off and teach learned those faces turned
    (read 4-5 degrees off their true turn in game frames). A fit that turned as far as it can is fitted again
    from where it stopped until its turn settles: the outline, not the search's reach, gives the turn."""
    fits = fit_tiles(gradients, piece_homographies(calibration, centres, angles, height_mm, _TILE_FIT_MM + 4.0),
                     TILE_MM, reach_mm=5.0)
    poses = []
    for centre, angle, fit in zip(centres, angles, fits, strict=True):
        right, down = piece_axes(angle)
        poses.append((centre + fit.du_mm * right + fit.dv_mm * down, float(angle + fit.dangle_deg)))
    for _ in range(_TEACH_FIT_AGAIN):
        again = [i for i, fit in enumerate(fits) if abs(fit.dangle_deg) >= _TEACH_FIT_TURN_DEG]
        if not again:
            break
        refits = fit_tiles(gradients, piece_homographies(calibration, np.array([poses[i][0] for i in again]),
                                                         np.array([poses[i][1] for i in again]), height_mm,
                                                         _TILE_FIT_MM + 4.0), TILE_MM, reach_mm=5.0)
        for i, fit in zip(again, refits, strict=True):
            centre, angle = poses[i]
            right, down = piece_axes(angle)
            poses[i] = (centre + fit.du_mm * right + fit.dv_mm * down, angle + fit.dangle_deg)
            fits[i] = fit
    return fits, poses


def _grid_holes(centres: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Places (rows x, y mm, angle) inside a grid of tiles (within the grid's extent along its own axes) where a
    tile's neighbours say one should be and none was found."""
    if len(centres) < 4:
        return np.zeros((0, 3))
    d = np.sqrt(squared_distances(centres, centres))
    near = d[(d > TILE_MM - 2.0) & (d < 1.4 * TILE_MM)]
    if len(near) == 0:
        return np.zeros((0, 3))
    pitch = float(np.median(near))
    angle = float(np.median(angles))
    a = math.radians(angle)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    local = np.column_stack([centres @ u, centres @ v])
    spots = np.concatenate([centres + pitch * step for step in (u, -u, v, -v)])
    spots_local = np.column_stack([spots @ u, spots @ v])
    inside = np.all((spots_local >= local.min(axis=0) - 5.0) & (spots_local <= local.max(axis=0) + 5.0), axis=1)
    free = np.min(squared_distances(spots, centres), axis=1) >= (0.6 * TILE_MM) ** 2
    spots = spots[inside & free]
    kept = _apart(list(spots), 0.6 * TILE_MM)
    return np.column_stack([spots[kept], np.full(len(kept), angle)]).reshape(-1, 3)


def _coin_coloured(image: np.ndarray, calibration: Calibration, centres: np.ndarray, height: float) -> np.ndarray:
    """The candidates whose face has the colour most candidates share (the set's coin face): drops pawn heads,
    dice and marker corners that are round enough to pass for a coin."""
    if len(centres) < 3:
        return centres
    size = 20
    crops = sample_crops(image, calibration, centres, np.zeros(len(centres)), height, 20.0, size)
    lab = cv2.cvtColor(crops.reshape(-1, size, 3), cv2.COLOR_BGR2Lab).reshape(len(centres), size, size, 3)
    yy, xx = np.mgrid[0:size, 0:size]
    radius = np.hypot(xx - (size - 1) / 2, yy - (size - 1) / 2)
    ring = (radius >= 5.5) & (radius <= 8.5)  # mm (1 px/mm): the face around the print, inside the rim
    colours = np.median(lab[:, ring].astype(float), axis=1)
    typical = np.median(colours, axis=0)
    distance = np.linalg.norm((colours - typical) * [0.5, 1.0, 1.0], axis=1)  # lightness varies with the light
    return centres[distance < 20.0]


class _ShapeOnly(Detector):
    """A detector without a profile: shapes only (teach)."""

    def __init__(self, calibration: Calibration) -> None:  # noqa: D107 - no readers without a profile
        self.calibration = calibration
        self.view = TableView(calibration, px_per_mm=_VIEW_PX_PER_MM)
        self.profile = None  # type: ignore[assignment]
        self.check_profile = False
        self.markers_mm = _sheet_markers(calibration)
        self.sheet_mm = _sheet_rect(calibration)
        self._colour_view = None
        self._half = None


def _teach_figures(image: np.ndarray, view: Rectified, coins: list[TeachPiece]) -> list[TeachFigure]:
    """Pawns and dice: blobs unlike their surroundings in a row below the leftmost coin block."""
    blocks = [b for b in _blocks(coins, COIN_MM) if len(b) >= 6]
    if not blocks:
        return []
    block = min(blocks, key=lambda b: min(c.x_mm for c in b))
    xs = np.array([c.x_mm for c in block])
    ys = np.array([c.y_mm for c in block])
    left = xs.min() - COIN_MM / 2
    top = ys.max() + COIN_MM / 2 + 3.0
    bottom = top + 60.0
    x0, x1 = left - 15.0, left + 250.0
    p = view.px_per_mm
    bx0, by0 = view.bounds_mm[0], view.bounds_mm[1]
    c0, r0 = int(round((x0 - bx0) * p - 0.5)), int(round((top - by0) * p - 0.5))
    c1, r1 = int(round((x1 - bx0) * p - 0.5)), int(round((bottom - by0) * p - 0.5))
    h, w = view.image.shape[:2]
    c0, r0, c1, r1 = max(c0, 0), max(r0, 0), min(c1, w), min(r1, h)
    if c1 - c0 < 20 or r1 - r0 < 10:
        return []
    band = view.image[r0:r1, c0:c1]
    k = int(round(45 * p)) | 1
    padded = cv2.copyMakeBorder(band, k, k, k, k, cv2.BORDER_REFLECT)
    background = cv2.medianBlur(padded, k)[k:-k, k:-k]
    lab = cv2.cvtColor(band, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab_bg = cv2.cvtColor(background, cv2.COLOR_BGR2Lab).astype(np.float32)
    distance = np.linalg.norm(lab - lab_bg, axis=2)
    mask = (distance > 28).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    found = []
    bh, bw = mask.shape
    for i in range(1, count):
        x, y, cw, ch, area_px = stats[i]
        area = area_px / (p * p)
        if not 60 <= area <= 900 or y == 0 or x == 0 or y + ch >= bh or x + cw >= bw:
            continue  # too small or big for a pawn or a die, or cut by the band's edge (a marker, a tile)
        ys_i, xs_i = np.nonzero(labels == i)
        points = np.column_stack([xs_i, ys_i]).astype(np.float32)
        (_, _), (rw, rh), _ = cv2.minAreaRect(points)
        squareness = float(area_px / max(rw * rh, 1.0)) * min(rw, rh) / max(rw, rh, 1.0)
        pixels = band[ys_i, xs_i].astype(np.float32)
        strength = distance[ys_i, xs_i]
        strong = pixels[strength >= np.median(strength)]
        colour = tuple(float(v) for v in np.median(strong, axis=0))
        cx = bx0 + (centroids[i][0] + c0 + 0.5) / p
        cy = by0 + (centroids[i][1] + r0 + 0.5) / p
        found.append(TeachFigure(float(cx), float(cy), float(area), colour, squareness))
    if not found:
        return []
    row_y = float(np.median([f.y_mm for f in found]))
    return [f for f in found if abs(f.y_mm - row_y) <= 12.0]
