"""Frames -> pieces: tiles and coins found, fitted and read; pawns, dice and pyramids from vision.figures.

Pipeline of :meth:`Detector.detect` (each step's reason in its own module):

1. :class:`vision.rectify.TableView`: one remap to a 1 px/mm top-down view of the table plane (maps computed
   once per calibration, lens distortion included);
2. :mod:`vision.segment`: Sobel edges of the view; coin-centre votes and the histogram of edge directions;
   for each dominant direction a matched filter for a tile's outline;
3. :mod:`vision.tiles`, :mod:`vision.coins`: candidates fitted to their edges (pose and outline support);
4. :mod:`vision.crops`: a canonical crop of each candidate's top face from the raw frame, through the
   calibration at the face's height (parallax: a coin on a tile is 6 mm up);
5. :mod:`vision.classify`: each crop read against the profile's templates (side, suit, rank, rotation,
   confidence); candidates that are no piece are dropped, pieces that cannot be read surely are *uncertain*;
6. :func:`vision.figures.detect_figures` for pawns, dice and pyramids, given the tiles and coins found;
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

from calibration.profile import (
    COIN_CROP_MM,
    COIN_CROP_PX,
    TILE_CROP_MM,
    TILE_CROP_PX,
    PieceSetProfile,
    default_profile,
)
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
from vision.classify import CoinReader, Reading, TileReader
from vision.coins import CircleFit, coin_candidates, fit_circles, refine_coins
from vision.crops import sample_crops
from vision.errors import VisionError
from vision.pieces import DetectedPiece, Detection
from vision.rectify import TableView
from vision.segment import EdgeMap, coin_votes, edge_map
from vision.tiles import refine_tiles, tile_candidates

__all__ = ["Detector", "Shapes", "ProfileMismatch", "detect_pieces", "survey_teach_photo", "ALL_KINDS"]


class ProfileMismatch(VisionError):
    """The frame shows tiles, but they do not look like the piece set of the profile."""

ALL_KINDS = ("tile", "coin", "pawn", "die", "pyramid")
_FIGURE_KINDS = ("pawn", "die", "pyramid")
_COIN_VOTES_MIN = 4.5  # coin-centre votes (rim pixels, each at most 1) for a candidate
_RIM_SUPPORT_MIN = 0.35  # share of rays finding a coin's rim for a coin to be there
_BLANK_RIM_SUPPORT = 0.7  # ... where the face gives no evidence (blank) or could be print (on a tile)
_RIM_POLARITY = 0.85  # ... and the share of those with the rim's majority polarity there
_COIN_ALIGN_PX = 4  # coin crops: how far (crop pixels, 0.5 mm each) the printed face may pull the rim's centre
_FACE_ONLY_EXTRA = 0.15  # how much better than usual a face must match where no outline shows
_ALIGN_PX = 4  # tile crops: how far (crop pixels, ~1.2 mm each) the printed face may pull the fitted pose


def _outline_usable(support: tuple[float, float, float, float]) -> bool:
    """Enough of a tile's outline to read it: two adjacent sides (they pin a corner) or three of four."""
    left, right, top, bottom = support
    corner = max(min(left, top), min(top, right), min(right, bottom), min(bottom, left))
    return corner >= 0.5 or sorted(support)[1] >= 0.4
_COIN_SUPPORT_MIN = 0.6


@dataclass
class Shapes:
    """Tile and coin candidates of one frame, fitted in the view (no profile needed)."""

    view: object  # calibration.rectify.Rectified
    edges: EdgeMap
    hist: np.ndarray  # edge directions modulo 90 degrees (1-degree bins)
    coin_peaks: np.ndarray  # (n, 3) coin-centre vote peaks: x, y (view px), votes
    circles: list[CircleFit]
    timings_ms: dict[str, float]


def _tick(timings: dict[str, float], key: str, start: float) -> float:
    now = time.perf_counter()
    timings[key] = timings.get(key, 0.0) + 1000.0 * (now - start)
    return now


class Detector:
    """Finds and reads the pieces in frames of one calibration with one piece-set profile.

    ``profile``: a :class:`calibration.profile.PieceSetProfile` (None: the built-in default edition).
    ``px_per_mm``: resolution of the top-down view pieces are found in (reading always uses the raw frame).
    ``check_profile``: raise :class:`ProfileMismatch` when clear tile outlines do not read as the profile's set.
    """

    def __init__(
        self,
        calibration: Calibration,
        profile: PieceSetProfile | None = None,
        *,
        px_per_mm: float = 1.0,
        check_profile: bool = True,
    ) -> None:
        self.calibration = calibration
        self.check_profile = check_profile
        self.profile = profile if profile is not None else default_profile()
        self.view = TableView(calibration, px_per_mm=px_per_mm)
        self.tile_reader = TileReader(self.profile)
        self.coin_reader = CoinReader(self.profile)
        self.markers_mm = _sheet_markers(calibration)

    fit_coin_rims = False  # the view-level rim fit: only the profile-free teach survey needs it

    # -- geometry --------------------------------------------------------------------------------------------
    def _lift(self, view_px: np.ndarray, heights_mm: np.ndarray | float) -> np.ndarray:
        """View pixels of points seen ``heights_mm`` above the table -> their footprints (table mm)."""
        table0 = self.view.to_table(view_px)
        if np.all(np.asarray(heights_mm) == 0):
            return table0
        pixels = self.calibration.table_to_pixel(table0)
        return self.calibration.pixel_to_table(pixels, heights_mm)

    def shapes(self, image: np.ndarray) -> Shapes:
        """Candidates for tiles and coins in ``image`` (see the module docstring, steps 1-3)."""
        self._check(image)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        view = self.view.rectify(image)
        start = _tick(timings, "rectify", start)
        gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
        edges = edge_map(gray)
        p = self.view.px_per_mm
        votes, hist = coin_votes(edges, COIN_MM * p)
        coin_peaks = coin_candidates(votes, COIN_MM * p, _COIN_VOTES_MIN)
        start = _tick(timings, "edges", start)
        circles = fit_circles(edges, coin_peaks, COIN_MM * p) if self.fit_coin_rims else []
        _tick(timings, "coins", start)
        return Shapes(view, edges, hist, coin_peaks, circles, timings)

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
        shapes = self.shapes(image)
        timings = dict(shapes.timings_ms)
        start = time.perf_counter()
        tiles, unread = self._read_tiles(image, shapes) if wanted & {"tile", "coin"} else ([], [])
        start = _tick(timings, "read tiles", start)
        # clear outlines not read as tiles may be tiles under coins (Plans of Action): coins on them are raised
        outlined = [self._tile_piece(f.centre, f.angle_deg, Reading("unclear", reason="unread"), f.support)
                    for f in unread]
        coins = self._read_coins(image, shapes, tiles + outlined) if "coin" in wanted else []
        start = _tick(timings, "read coins", start)
        if coins:
            tiles, unread = self._reread_tiles_under_coins(image, tiles, outlined, unread, coins)
            start = _tick(timings, "read tiles", start)
        self._check_profile(tiles, unread)
        pieces = ([t for t in tiles] if "tile" in wanted else []) + coins
        figure_kinds = [k for k in _FIGURE_KINDS if k in wanted]
        if figure_kinds:
            figures = self._figures(image, shapes, pieces, figure_kinds)
            pieces = _mark_covered_coins(pieces, figures) + figures
            _tick(timings, "figures", start)
        sure = [p for p in pieces if not p.uncertain]
        unsure = [p for p in pieces if p.uncertain]
        return Detection(sure, unsure, (image.shape[1], image.shape[0]), timings)

    def _figures(self, image, shapes: Shapes, pieces, kinds) -> list[DetectedPiece]:
        try:
            from vision.figures import detect_figures
        except ImportError:  # pragma: no cover - vision.figures is part of tableside
            return []
        try:
            return list(detect_figures(image, self.calibration, self.profile, kinds=kinds, rectified=shapes.view,
                                       occupied_mm=pieces))
        except (ImportError, NotImplementedError):  # the figure detector is not there yet
            return []

    # -- tiles -----------------------------------------------------------------------------------------------
    def _examine_tiles(
        self, image: np.ndarray, centres: np.ndarray, angles: np.ndarray, need_outline: bool = True
    ) -> list[_TileFinding]:
        """Fit each tile candidate in the raw frame and read it; candidates with no outline are dropped unless
        ``need_outline`` is False (where the grid says a tile should be: its face alone may show it)."""
        height = self.profile.tile_thickness_mm
        fine = refine_tiles(image, self.calibration, centres, angles, height)
        keep = [i for i, f in enumerate(fine) if not need_outline or _outline_usable(f.support)]
        if not keep:
            return []
        centres = np.array([centres[i] + [fine[i].dx_mm, fine[i].dy_mm] for i in keep])
        angles = np.array([angles[i] + fine[i].dangle_deg for i in keep])
        m, n = _ALIGN_PX, TILE_CROP_PX
        big = sample_crops(image, self.calibration, centres, angles, height, TILE_CROP_MM * (n + 2 * m) / n, n + 2 * m)
        findings = []
        for k, (i, centre, angle) in enumerate(zip(keep, centres, angles, strict=True)):
            reading, (dx, dy) = self.tile_reader.read_aligned(big[k], m)
            if dx or dy:
                a = math.radians(angle)
                mm = TILE_CROP_MM / n
                step = np.array([dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)])
                centre = centre + mm * step
            if not need_outline and not _outline_usable(fine[i].support) and reading.status != "none":
                # Where only the grid says a tile should be and its outline hardly shows (touching white tiles on
                # white paper), the face alone must show it, clearly: a pawn's head is no crown.
                side = reading.side or "face"
                if reading.score < self.tile_reader.min_score[side] + _FACE_ONLY_EXTRA:
                    reading = Reading("none", score=reading.score)
            findings.append(_TileFinding(centre, float(angle), reading, fine[i].support))
        return findings

    def _read_tiles(self, image: np.ndarray, shapes: Shapes) -> list[DetectedPiece]:
        p = self.view.px_per_mm
        candidates = tile_candidates(shapes.edges, shapes.hist, TILE_MM * p)
        centres = self._lift(candidates[:, :2], self.profile.tile_thickness_mm) if len(candidates) else np.zeros((0, 2))
        findings: list[_TileFinding] = []
        accepted: list[np.ndarray] = []
        # strongest candidates first, in small batches; a candidate on a tile already read is not read again
        # (the matched filter also peaks half a tile off, between tiles of a grid)
        order = list(range(len(candidates)))
        empty = 0
        while order and empty < 3:  # three batches in a row with no tile: the rest is clutter (grids get completed)
            batch = [i for i in order[:6] if not accepted or
                     np.min(np.linalg.norm(np.array(accepted) - centres[i], axis=1)) >= 0.6 * TILE_MM]
            order = order[6:]
            if not batch:
                continue
            found = self._examine_tiles(image, centres[batch], candidates[batch, 2])
            findings += found
            read = [f.centre for f in found if f.reading.status == "ok"]
            accepted += read
            empty = 0 if read or not accepted else empty + 1
        proposed: list[np.ndarray] = []
        for _round in range(6):  # lattice completion: grids grow from the tiles found into faint-edged ones
            tiles = _best_tiles(findings)
            proposals = _lattice_proposals(tiles, proposed, self.view)
            if len(proposals) == 0:
                break
            proposed += list(proposals[:, :2])
            findings += self._examine_tiles(image, proposals[:, :2], proposals[:, 2], need_outline=False)
        best = _best_tiles(findings)
        pieces = [self._tile_piece(f.centre, f.angle_deg, f.reading, f.support) for f in best]
        unread: list[_TileFinding] = []
        for f in sorted(findings, key=lambda f: -sum(f.support)):
            if f.reading.status != "none" or min(f.support) < 0.5 or self._near_marker(f.centre):
                continue
            if all(np.hypot(*(f.centre - k.centre)) >= 0.8 * TILE_MM for k in [*best, *unread]):
                unread.append(f)
        return pieces, unread

    def _near_marker(self, point: np.ndarray) -> bool:
        """Whether a tile-sized square at ``point`` would overlap one of the calibration sheet's markers (a
        marker and the sheet's edge make clear square outlines of their own)."""
        if self.markers_mm is None:
            return False
        x, y = float(point[0]), float(point[1])
        reach = TILE_MM / 2
        return any(x0 - reach < x < x1 + reach and y0 - reach < y < y1 + reach for x0, y0, x1, y1 in self.markers_mm)

    def _check_profile(self, tiles: list[DetectedPiece], unread: list[_TileFinding]) -> None:
        """Many clear tile outlines of which (almost) none reads as a face or back of the profile's set: the
        profile is of another set (or the backs were not taught). Judging such a frame would be guessing."""
        if not self.check_profile:
            return
        if len(unread) >= 4 and len(tiles) <= 0.25 * len(unread):
            backs = "" if self.profile.tile_back is not None else " (its tile backs were not taught)"
            raise ProfileMismatch(
                f"the tiles in the photo do not look like the piece set of profile {self.profile.name!r}{backs}: "
                "give the profile of this set (--profile set.json) or teach it with `tableside teach`"
            )

    def _tile_piece(self, centre: np.ndarray, angle: float, reading: Reading, support) -> DetectedPiece:
        uncertain = reading.status != "ok"
        reason = reading.reason
        outline = self._outline_px(centre, angle + reading.angle_deg, TILE_MM, self.profile.tile_thickness_mm)
        return DetectedPiece(
            Kind.TILE,
            float(centre[0]),
            float(centre[1]),
            angle_deg=float((angle + reading.angle_deg) % 360.0),
            confidence=reading.confidence,
            suit=None if uncertain else reading.suit,
            rank=None if uncertain else reading.rank,
            side=reading.side if reading.status in ("ok", "hidden", "unclear") else None,
            uncertain=uncertain,
            reason=reason,
            outline_px=outline,
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
            a = math.radians(angle)
            centre = centre + TILE_CROP_MM / n * np.array([dx * math.cos(a) - dy * math.sin(a),
                                                            dx * math.sin(a) + dy * math.cos(a)])
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
            out.append(self._tile_piece(np.array([tile.x_mm, tile.y_mm]), angle, reading, None))
        return out, still

    # -- coins -----------------------------------------------------------------------------------------------
    def _read_coins(self, image: np.ndarray, shapes: Shapes, tiles: list[DetectedPiece]) -> list[DetectedPiece]:
        """Coins at the vote peaks that show a rim, read where the printed face fits best (the face pins the
        centre to half a millimetre; a light coin on white paper has a faint rim)."""
        peaks = shapes.coin_peaks
        if len(peaks) and self.markers_mm is not None:
            # the calibration sheet's markers: a white bit of one framed in black passes for a blank coin
            at = self.view.to_table(peaks[:, :2])
            inside = np.zeros(len(peaks), bool)
            for x0, y0, x1, y1 in self.markers_mm:
                inside |= (at[:, 0] > x0) & (at[:, 0] < x1) & (at[:, 1] > y0) & (at[:, 1] < y1)
            peaks = peaks[~inside]
        if len(peaks) == 0:
            return []
        seen = self.view.to_table(peaks[:, :2])
        base = np.array([self.profile.tile_thickness_mm if any(_inside(t, x, y) for t in tiles) else 0.0
                         for x, y in seen])
        heights = base + self.profile.coin_thickness_mm
        centres = self._lift(peaks[:, :2], heights)
        # A coin shows a rim (its top face's edge, darker outside): fitted first, it drops most vote peaks
        # (numerals, wood grain, marker corners) cheaply, and centres the rest to a millimetre. On a tile, where
        # printed marks could pass for a coin's face, the rim must be plainer.
        rims = refine_coins(image, self.calibration, centres, heights)
        keep = [k for k, rim in enumerate(rims)
                if abs(rim.radius_mm - COIN_MM / 2) <= 0.6
                and rim.support >= (_BLANK_RIM_SUPPORT if base[k] > 0 else _RIM_SUPPORT_MIN)
                and (base[k] == 0 or rim.polarity >= _RIM_POLARITY)]
        if not keep:
            return []
        rims = [rims[k] for k in keep]
        centres = np.array([centres[k] + [rims[j].dx_mm, rims[j].dy_mm] for j, k in enumerate(keep)])
        base, heights = base[keep], heights[keep]
        m, n = _COIN_ALIGN_PX, COIN_CROP_PX
        big = sample_crops(image, self.calibration, centres, np.zeros(len(centres)), heights,
                           COIN_CROP_MM * (n + 2 * m) / n, n + 2 * m)
        looks = self.coin_reader.first_look(big[:, m : m + n, m : m + n])
        readings, kept_centres, kept = [], [], []
        for k in np.nonzero(looks)[0]:
            reading, (dx, dy) = self.coin_reader.read_aligned(big[k], m)
            centre = centres[k] + np.array([dx, dy]) * COIN_CROP_MM / n  # the crop is not turned
            if reading.status != "ok" and len(self.coin_reader.blank):
                # a blank face gives the content nothing to align on: read it at its rim's centre
                blank = self.coin_reader._blank_reading(big[k : k + 1, m : m + n, m : m + n])
                # nothing printed to go by: the rim must be plain, darker or lighter than the face all round
                if blank is not None and rims[k].support >= _BLANK_RIM_SUPPORT and rims[k].polarity >= _RIM_POLARITY:
                    reading, centre = blank, centres[k]
            kept_centres.append(centre)
            readings.append(reading)
            kept.append(k)
        keep = kept
        centres, base, heights = np.array(kept_centres).reshape(-1, 2), base[keep], heights[keep]
        found: list[tuple[float, DetectedPiece]] = []
        for centre, h0, h, reading in zip(centres, base, heights, readings, strict=True):
            if reading.status == "none":
                continue
            uncertain = reading.status != "ok"
            reason = reading.reason
            outline = self._circle_px(centre, h)
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
                reason=reason,
                outline_px=outline,
                height_mm=float(h0),
            )
            rank = {"ok": 3.0, "unclear": 1.0, "hidden": 2.0}[reading.status] + reading.score
            found.append((rank, piece))
        return _non_overlapping(found, 0.8 * COIN_MM)

    def _circle_px(self, centre: np.ndarray, height: float) -> np.ndarray:
        a = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        ring = centre[None] + COIN_MM / 2 * np.column_stack([np.cos(a), np.sin(a)])
        return self.calibration.table_to_pixel(ring, height)


@dataclass(frozen=True)
class _TileFinding:
    """A tile candidate fitted and read: footprint centre (mm), rotation of the crop, the reading."""

    centre: np.ndarray
    angle_deg: float
    reading: Reading
    support: tuple[float, float, float, float]

    @property
    def rank(self) -> float:
        return {"ok": 3.0, "hidden": 2.0, "unclear": 1.0, "none": 0.0}[self.reading.status] + self.reading.score


def _best_tiles(findings: list[_TileFinding]) -> list[_TileFinding]:
    """The findings that are tiles, best first, none overlapping another (tiles lie side by side)."""
    kept: list[_TileFinding] = []
    for f in sorted((f for f in findings if f.reading.status != "none"), key=lambda f: -f.rank):
        if all(np.hypot(*(f.centre - k.centre)) >= 0.8 * TILE_MM for k in kept):
            kept.append(f)
    return kept


_DEFAULT_GAP_MM = 3.0  # between the touching grids of Slide Jam and Easy Slider's 5 mm: fits reach both


def _lattice_proposals(tiles: list[_TileFinding], tried: list[np.ndarray], view: TableView) -> np.ndarray:
    """Where the neighbours of the tiles found would be (rows x, y mm, angle), at the grid's pitch, skipping
    places taken or already proposed (a candidate that failed there may have been a few millimetres off)."""
    if not tiles:
        return np.zeros((0, 3))
    centres = np.array([t.centre for t in tiles])
    gaps = []
    for t in tiles:
        d = np.linalg.norm(centres - t.centre, axis=1)
        near = d[(d > TILE_MM - 2.0) & (d < TILE_MM + 15.0)]
        gaps += list(near - TILE_MM)
    gap = float(np.median(gaps)) if gaps else _DEFAULT_GAP_MM
    pitch = TILE_MM + max(gap, 0.0)
    known = np.array([*tried, *centres]) if tried else centres
    out = []
    x0, y0, x1, y1 = view.bounds_mm
    for t in tiles:
        a = math.radians(t.angle_deg)
        u = np.array([math.cos(a), math.sin(a)])
        v = np.array([-math.sin(a), math.cos(a)])
        for step in (u, -u, v, -v):
            spot = t.centre + pitch * step
            if not (x0 + 25 < spot[0] < x1 - 25 and y0 + 25 < spot[1] < y1 - 25):
                continue
            if np.min(np.linalg.norm(known - spot, axis=1)) < 0.6 * TILE_MM:
                continue
            if out and np.min(np.linalg.norm(np.array(out)[:, :2] - spot, axis=1)) < 0.6 * TILE_MM:
                continue
            out.append([spot[0], spot[1], t.angle_deg % 90.0])
    return np.array(out).reshape(-1, 3)


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


def _inside(tile: DetectedPiece, x: float, y: float, margin: float = 0.0) -> bool:
    a = math.radians(tile.angle_deg)
    dx, dy = x - tile.x_mm, y - tile.y_mm
    u = dx * math.cos(a) + dy * math.sin(a)
    v = -dx * math.sin(a) + dy * math.cos(a)
    half = TILE_MM / 2 + margin
    return abs(u) <= half and abs(v) <= half


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


def _mark_covered_coins(pieces: list[DetectedPiece], figures: list[DetectedPiece]) -> list[DetectedPiece]:
    """A coin with a die (or a pawn) standing on it cannot be read: uncertain, whatever the classifier said."""
    from dataclasses import replace

    out = []
    for piece in pieces:
        if piece.kind is Kind.COIN:
            on = [f for f in figures if math.hypot(f.x_mm - piece.x_mm, f.y_mm - piece.y_mm) < COIN_MM / 2]
            if on and not piece.uncertain:
                piece = replace(piece, uncertain=True, suit=None, rank=None,
                                reason=f"under a {on[0].kind.value}")
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
    p = detector.view.px_per_mm
    tiles_thick, coin_thick = 3.0, 3.0
    # tiles: complete outlines only (the layout has gaps), best first, no overlaps
    candidates = tile_candidates(shapes.edges, shapes.hist, TILE_MM * p)
    centres = detector._lift(candidates[:, :2], tiles_thick) if len(candidates) else np.zeros((0, 2))
    # "up" is the quarter turn nearest the table's up (the layout is laid square to the table)
    angles = ((candidates[:, 2] + 45.0) % 90.0) - 45.0 if len(candidates) else np.zeros(0)
    fine = refine_tiles(image, calibration, centres, angles, tiles_thick)
    order = sorted((i for i, f in enumerate(fine) if f.complete >= 0.4), key=lambda i: -sum(fine[i].support))
    kept: list[int] = []
    for i in order:
        here = centres[i] + [fine[i].dx_mm, fine[i].dy_mm]
        if all(np.hypot(*(here - centres[k] - [fine[k].dx_mm, fine[k].dy_mm])) >= 0.8 * TILE_MM for k in kept):
            kept.append(i)
    tile_centres = np.array([centres[i] + [fine[i].dx_mm, fine[i].dy_mm] for i in kept]).reshape(-1, 2)
    tile_angles = np.array([angles[i] + fine[i].dangle_deg for i in kept])
    tile_context = sample_crops(image, calibration, tile_centres, tile_angles, tiles_thick, TILE_CONTEXT_MM,
                                TILE_CONTEXT_PX)
    tiles = [TeachPiece(float(c[0]), float(c[1]), float(a), crop)
             for c, a, crop in zip(tile_centres, tile_angles, tile_context, strict=True)]
    circles = [c for c in shapes.circles if c.support >= _COIN_SUPPORT_MIN]
    centres = detector._lift(np.array([[c.x, c.y] for c in circles]).reshape(-1, 2), coin_thick)
    fits = refine_coins(image, calibration, centres, np.full(len(circles), coin_thick))
    good = [(c + [f.dx_mm, f.dy_mm], f) for c, f in zip(centres, fits, strict=True)
            if f.support >= 0.5 and f.polarity >= 0.8 and abs(f.radius_mm - COIN_MM / 2) < 0.6]
    good.sort(key=lambda item: -item[1].support * item[1].strength)
    kept_c: list[np.ndarray] = []
    for c, _ in good:
        if all(math.hypot(*(c - k)) >= 0.8 * COIN_MM for k in kept_c):
            kept_c.append(c)
    # coins on a tile are not part of the teach layout
    kept_c = [c for c in kept_c
              if not any(abs(c[0] - t.x_mm) < TILE_MM / 2 and abs(c[1] - t.y_mm) < TILE_MM / 2 for t in tiles)]
    coin_centres = np.array(kept_c).reshape(-1, 2)
    coin_centres = _coin_coloured(image, calibration, coin_centres, coin_thick)
    coin_context = sample_crops(image, calibration, coin_centres, np.zeros(len(coin_centres)), coin_thick,
                                COIN_CONTEXT_MM, COIN_CONTEXT_PX)
    coins = [TeachPiece(float(c[0]), float(c[1]), 0.0, crop) for c, crop in zip(coin_centres, coin_context,
                                                                                 strict=True)]
    figures = _teach_figures(shapes, detector.view, coins, tiles)
    if tiles:
        white = np.median(np.concatenate([t.context.reshape(-1, 3) for t in tiles]), axis=0)
    else:
        white = np.percentile(shapes.view.image.reshape(-1, 3), 95, axis=0)
    return TeachPhoto(name, tiles, coins, figures, tuple(float(v) for v in white), float(
        calibration.px_per_mm_at(tile_centres.mean(axis=0) if len(tiles) else np.zeros(2))),
        (image.shape[1], image.shape[0]))


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
        self.view = TableView(calibration, px_per_mm=1.0)
        self.profile = None  # type: ignore[assignment]
        self.check_profile = False

    fit_coin_rims = True


def _teach_figures(shapes: Shapes, view: TableView, coins: list[TeachPiece],
                   tiles: list[TeachPiece]) -> list[TeachFigure]:
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
    image = shapes.view.image
    p = view.px_per_mm
    (c0, r0), (c1, r1) = view.to_view(np.array([[x0, top], [x1, bottom]])).round().astype(int)
    h, w = image.shape[:2]
    c0, r0, c1, r1 = max(c0, 0), max(r0, 0), min(c1, w), min(r1, h)
    if c1 - c0 < 20 or r1 - r0 < 10:
        return []
    band = image[r0:r1, c0:c1]
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
        centre = view.to_table(np.array([centroids[i][0] + c0, centroids[i][1] + r0]))
        found.append(TeachFigure(float(centre[0]), float(centre[1]), float(area), colour, squareness))
    if not found:
        return []
    row_y = float(np.median([f.y_mm for f in found]))
    return [f for f in found if abs(f.y_mm - row_y) <= 12.0]
