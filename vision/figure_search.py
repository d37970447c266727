"""The figure detector behind :func:`vision.figures.detect_figures`: blobs -> fitted models -> pieces.

For every blob of foreground (:mod:`vision.figure_segmentation`):

1. each candidate model (pyramids of three sizes upright and flat, a die, a pawn) is placed on the blob's
   table-plane outline (coarse overlap fit, :func:`vision.figure_fit.coarse_pose`);
2. the best few are polished and fitted to the raw frame's edges (:func:`vision.figure_fit.refine_pose`); the
   model whose outline the edges support best wins -- sizes are told apart by calibrated geometry;
3. a blob no single model explains (two pieces touching) is cut at its notches or by colour and each part
   is explained on its own;
4. the winner's colour is read (pyramid plastic, pawn/die suit; a die's top face) and the piece reported, or
   reported uncertain with the reason (poorly supported outline, a hand or the frame edge next to it, an
   ambiguous size, colour or face).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.table_calibration import Calibration
from rules.pieces import COIN_MM, TILE_MM, Kind, PyramidPose, PyramidSize
from vision.figure_fit import CoarseFit, EdgeFit, FrameCrop, coarse_pose, frame_crop, polish_pose, refine_pose
from vision.figure_kernels import intersection_area
from vision.figure_models import (
    FigureModel,
    die_model,
    meeple_faces,
    meeple_model,
    pawn_model,
    place,
    silhouette_mm,
    to_table_plane,
)
from vision.figure_projection import Projector
from vision.figure_segmentation import (
    Blob,
    Support,
    TableView,
    blob_from_mask,
    segment,
    sheet_in_view,
    split_blob,
    split_by_colour,
    table_view,
)
from vision.pawns_dice import (
    PRINT_FACE_REASON,
    FaceVote,
    body_colour,
    chroma_differs,
    classify_suit,
    colourless,
    die_top_crop,
    read_die_face,
    suit_references,
)
from vision.pieces import DetectedPiece
from vision.pyramids import PYRAMID_MODELS, classify_pyramid_color, model_size_pose

__all__ = ["find_figures", "FigureSearch"]

_MIN_SUPPORT = 0.5  # share of the outline that must sit on edges for a confident piece
_SURE_SUPPORT = 0.8  # a fit this well supported is not questioned further
_SPLIT_IOU = 0.68  # below this overlap no single model explains a blob: try cutting it
_OBSTRUCTION_MM2 = 3000.0  # a blob bigger than any group of figures: a hand, an arm, a box
_NEAR_MM = 2.5
_NOISE_SUPPORT = 0.3  # below this (and nothing in front of it) a blob is not reported at all
_PRINT_SUPPORT = 0.6  # the same for a blob lying over the sheet's print
_FAINT_SUPPORT = 0.7  # a piece found by its edges alone must be outlined this well
_OTHER_COLOUR = 60.0  # BGR distance from a big region's own colours beyond which a pixel may be a figure's
_MIN_HIDDEN_MM2 = 40.0  # the smallest visible part of a figure under a hand worth reporting
_MIN_FIGURE_MM2 = 100.0  # a die's top face is 161 mm2, a Small's base 204 mm2: less is a scrap of something
_UNEXPLAINED_MM2 = 600.0  # a region this big that the fitted figures do not cover is something else
_GROW_FLOOR_PX = -0.2  # an outline seen this far inside the model's is still plausible (noise)
_SHRINK_PENALTY = 0.4  # score lost per pixel beyond that
_RIVAL_MARGIN = 0.15  # candidates scoring this close to the best get the full sub-pixel fit too
_MIN_MARGIN = 0.05  # the score the best model must lead its rival (size or pose) by
_SMALL_MARGIN = 0.15  # ... plus up to this for pieces only a few pixels across
_FEW_PX = 24.0  # a base narrower than this many pixels needs the extra margin
_DISAGREE_MM = 1.3  # the edge fit and the region's placement further apart than this: position unclear
_DISAGREE_PART_MM = 1.6  # ... for a part cut from a bigger region
_CLEAR_SUPPORT = 0.9  # a part outlined this completely is placed by its outline
_MIN_SEEN_SHARE = 0.75  # a fitted silhouette lying less than this on the region's foreground: size or pose unclear
_MIN_SEEN_SHARE_PAWN = 0.7  # the same for a weakly outlined pawn (a print on a coin fitted as one)
_WEAK_PAWN_SUPPORT = 0.65  # ... below this share of its outline found
# A pawn's silhouette is its plastic throughout: coloured, or (a colourless suit's black pawn) darker than the table.
# A print on a white coin (the bold edition's acrylic coins) fitted as a pawn lies mostly on the coin's white: the
# table's chromaticity and lighter than the table. A pawn whose fitted silhouette is less than
# _MIN_PAWN_COLOURED_SHARE coloured (see _coloured_share) and whose median brightness is _PALE_PAWN_LIGHTNESS of the
# table's or more is unclear. Measured (1640x1232 and 2304x1296 frames): phantoms on bold coins, Slides and Plans of
# Action seeds 13, 23, 53 (no figures there): 0.0-0.48 coloured, 1.13-4.7 the table's brightness, outlined up to
# 0.84. Real pawns (Easy Slider boards seed 2 on five tables, Easy Slider and Trampo-Land states frames):
# coloured ones 0.84-1.0 coloured (up to 1.49 the table's brightness on dark wood), black ones 0.30-0.99 coloured
# and 0.10-0.49 the table's brightness.
_MIN_PAWN_COLOURED_SHARE = 0.5
_PALE_PAWN_LIGHTNESS = 0.85
_PRINT_PAWN_REASON = "kind unclear: the pawn fitted is neither coloured nor darker than the table (a print on a coin?)"
# A sure pawn where a coin's printed face of the pawn's own suit reads well (see vision.detect's
# Detector._doubt_coin_prints, which knows the coin templates): the print itself was fitted as a pawn
COIN_PRINT_REASON = "kind unclear: a coin's printed face of its suit reads where the pawn stands (a print on a coin?)"
# A die standing on a coin can fit the pawn model better than the die model (its sides and the coin under it make
# a taller silhouette through a tilted camera). A pawn's top is no die face: where the die model fitted around the
# pawn's place shows a rank mark matching at _PAWN_TOP_FACE_SCORE or more (even if which rank is unclear), or a
# face read surely under a pawn outlined below _PAWN_FACE_SUPPORT, the kind is unclear. Dice scenes (my dev seeds
# 500-511, 4 editions) and Trampo-Land frames (90-93, 100-121): dice reported surely as pawns showed a mark at
# 0.82-1.0 (one classic ace at 0.74, missed); 134 real pawns' tops matched a mark at 0.75 at most (a pawn's plain
# top taken for a blank null) and never read surely under an outline below 0.7.
_PAWN_TOP_FACE_SCORE = 0.8
# ... and where that face is plain (read surely, a mark matched at _DIE_TOP_SURE_SCORE or more, not a blank null), the
# piece is the die: the die model refitted from the fit that showed the face and read as a die (outline, suit, face)
# must be sure, of the pawn's suit and show the same face (see _sure_die_on_top). Bench_dice dev seeds 600-611, every
# face read where a pawn was fitted (4 editions, recorded crops): of 37 dice fitted as pawns, 33 showed a face read
# surely at 0.87-0.99 (the right one every time; one more, a classic ring, at 0.65); the 10 real pawns (pegs, meeples)
# showed a mark read surely at 0.65 at most (a blank null, up to 1.0, is no mark: a peg's round head is as blank); a
# fit 1-3 mm off a die read a wrong face surely at 0.82 at most (a default A read as a 4).
_DIE_TOP_SURE_SCORE = 0.85
_PAWN_FACE_SUPPORT = 0.7
# ... not looked for on a pawn outlined this well (a die fitted as a pawn was outlined 0.79 at most on those frames;
# most real pawns 0.9-1.0): the search costs 27 quick die fits a pawn
# 0.93, not 0.88: with the background estimated off the coins (figure_segmentation._off_coins) the fits move a little,
# and a bold arms die on fresh dice scene 706 fitted the pawn model outlined 0.896 (0.875 before), its top reading a
# sure 5 (0.92) -- a sure pawn unquestioned, wrong
_PAWN_CLEAR_SUPPORT = 0.93
# A pawn's plastic lies inside the pawn fitted to it: the pawn model is a body of revolution fitted on the frame
# through the calibration, and a peg pawn fitted even weakly leaves none of its colour around it. A die taken for a
# pawn (its square top and sides are not the pawn's outline) shows its plastic beyond the pawn's silhouette (a corner
# of the top face): where dice are looked for too, a pawn with more than _PLASTIC_BEYOND of the pixels of its
# colour around it (within _PLASTIC_AROUND_MM, chromaticity within 0.2, brightness within 1.6x, not the table's
# chromaticity) outside its silhouette is "a pawn or a die". Dice scenes (dev seeds 500-511; default, classic):
# 0.000 on every real peg pawn asked (outlined 0.62-0.96); dice fitted as pawns 0.03-0.5 (the classic crowns die on
# seed 603, read surely as a pawn before: 0.18). A meeple (the hand-made pawn) is no body of revolution: 0.03-0.17.
_PLASTIC_BEYOND = 0.05
_PLASTIC_AROUND_MM = 5.0
_PLASTIC_BEYOND_REASON = "kind unclear: a pawn or a die (its plastic reaches beyond the pawn fitted)"
# ... unless the piece is a meeple (the hand-made set's flat pawn, no body of revolution): the meeple model fitted
# there (any turn) is outlined at _MEEPLE_SUPPORT or better, by _MEEPLE_OVER_PEG more than the peg pawn and by
# _MEEPLE_OVER_DIE more than the die model (its best fit from the region's placement and the usual starts around it),
# and its plastic lies inside its own outline (its faces: waist and neck left out) but for _MEEPLE_PLASTIC_BEYOND:
# then it is a pawn where the meeple stands. Dice scenes, dev seeds 500-511, every figure fitted with all three
# models (4 editions, 426 dice and 72 peg pawns; /tmp/figures12/allfeat.py): the 24 meeples outlined 0.75-1.0 (two
# fitted at a wrong turn: 0.41, 0.59) and 0.12-0.59 above the peg (all but one 0.25+), 0.10-0.44 above the die (18
# of them 0.2 or more), none of their plastic beyond; of the dice and pegs outlined 0.75+ as meeples, 0.2+ above
# the peg and with their plastic inside, the best led the die model by 0.18 (a bold arms die the die model had won),
# the next by 0.02.
_MEEPLE_SUPPORT = 0.75
_MEEPLE_OVER_PEG = 0.2
_MEEPLE_OVER_DIE = 0.2
_MEEPLE_PLASTIC_BEYOND = 0.02
# The same meeple test clears an uncertain peg pawn or die whose only doubts are these (or "die face unclear: a or
# b"), the meeple outlined _MEEPLE_DOUBTED_SUPPORT or better: a meeple seen through a tilted camera outlines a peg
# pawn weakly and, standing on a coin, can fit the die model better than the peg, its head and chest then read as a
# die's top with no face on it. Bench_dice seeds 600-623 (every uncertain pawn and die with the meeple fitted where
# it was, 4 editions): 17 hand-made meeples reported so, 15 outlined 0.89-1.0 as meeples (one 0.65), their plastic
# 0.005 beyond at most; of the 84 uncertain dice and phantoms so reported, none outlined as a meeple 0.75+ and 0.2
# over the die model's outline (the nearest: 0.85, 0.02 over the die, 0.22 of its plastic beyond; a phantom's best:
# 0.15 over the die, outlined 0.59), and only two 0.85+ (dice: the die model outlined them 0.83, 0.96). Not
# cleared: "the pawn fitted reaches beyond the region seen", the doubt of a print on a coin fitted as a pawn
# (classic phantoms there outlined 0.76-0.77 as meeples, 0.27-0.36 over the die, their plastic inside: only the
# peg's outline held them), and a die face read on its top.
# A pawn whose top shows a die's face only faintly (a mark under _DIE_TOP_SURE_SCORE, so no sure die) gets the strict
# meeple test of _MEEPLE_SUPPORT above (from the place, not around): hand-made dice scene 603's moons meeple, its head
# read as a 4 at 0.64, outlined 0.96 as a meeple (peg 0.62, die 0.67). Bench_dice dev 600-611, the other pieces that
# reached this test were two classic crowns dice (faces 0.84 unclear, 0.65) outlined 0.65 and 0.62 as meeples: kept.
_MEEPLE_DOUBTED_SUPPORT = 0.85
# A die fitted to a meeple can sit 3-4 mm off it (its square over the head and an arm): the meeple fitted from there
# stays near where it started, outlined 0.58-0.65 (hand-made dice scenes 604, 605, 608: pawns left "die face
# unreadable"), while from starts 3 mm around it, each refined, it finds the meeple, 0.92-0.96 within 0.2 mm of it.
# So for the doubted pieces above, a meeple outlined under _MEEPLE_DOUBTED_SUPPORT from the place is fitted from
# those starts too.
_MEEPLE_AROUND = tuple((dx, dy) for dx in (-3.0, 0.0, 3.0) for dy in (-3.0, 0.0, 3.0) if dx or dy)
_MEEPLE_DOUBTS = (
    "outline unclear (partly hidden?)",
    "die face unreadable",
    "die face unreadable: blank but not one colour",
)
# A black (colourless) die's top is darker than the table beside it: its body over the table's brightness was 0.15-0.48
# on the real black dice of rendered dice scenes (0.69 for the classic edition's purple Moons), while white paper or a
# coin between coins fitted as a die and read as a blank black one showed 1.07-1.33 (a shadow next to it took the
# place of the die's sides). A die read as the colourless suit whose top is this light is no black die.
_BLACK_DIE_MAX_LIGHTNESS = 0.85
_MIN_EXPLAINED_SHARE = 0.65  # a region as found less than this under the fitted silhouette: size unclear
# A die is a 16 mm cube: seen through a tilted camera its top face sits off its footprint and its sides fill the
# silhouette between them. A flat print (a gold crown on a classic coin) fitted as a die matches the top face's
# creases but neither the silhouette's edges nor its area: the sides the model adds lie on no edge and off the
# region seen. Both below these: no die stands there (see _flat_print). 0.66, not 0.6: with more coins read by
# the twins' size, a crown alone on the one unclear coin of Whack-a-Dummy classic 81 was outlined 0.63, lying 0.58
# on its region; the one real die outlined under 0.66 lay 0.93 on its region.
_DIE_SIDES_SUPPORT = 0.66
_DIE_SIDES_SEEN = 0.75
_SHRUNK_PX = -0.6  # an outline seen this far inside the model's: the piece is smaller than the model
_OVERLAP = 0.2  # footprints overlapping by this share of the smaller: one of the two readings is wrong
_TOUCH_PX = 3.0  # outlines this close (frame pixels) blur into each other: refit without the shared side
_IGNORE_GROW_PX = 2.5  # the neighbour's outline grown by this is where edges say nothing about a piece
# How much a pyramid's ridges (the creases from the apex to the base corners, seen inside its outline) pull the
# edge fit, against 1 for each outline sample. The base outline alone slips 2-3 px towards a translucent piece's
# coloured shadow or the sheet's paper edge on one side; the ridges meet at the apex, which stands above the
# footprint's centre, and no shadow lies inside the outline. Bench seeds 1-3 (851 pyramids): confidently wrong
# 5 -> 2 at 0.3 (0.2: 5, 0.5: 2 with 3.1 % missed, 1.0: 4 with size errors), close pairs' gap p95 0.92 -> 0.77 mm.
_RIDGE_WEIGHT = 0.3
# The outline alone placing an upright this far from outline and ridges together: position unclear. On bench seeds
# 1-3 the 663 confident uprights moved 0.73 mm or less, except the one confidently wrong there (1.81 mm; 2.2 off);
# those outlined at _SURE_SUPPORT or better (454) 0.69 or less: they are not refitted (a tenth of the frame's CPU).
_RIDGES_DISAGREE_MM = 1.0
# A coloured pyramid whose fitted silhouette is less than this share plastic-coloured (the rest the table's colour):
# size unclear. Correct confident pieces on bench seeds 1-3 (787) and 9-10 (522): 0.92 or more (green on green
# felt lowest, the others 0.97); the flat Small read Medium and Medium read Large (9-10): 0.85 and 0.88.
_MIN_COLOURED_SHARE = 0.9
_SHADOW_REASON = "size unclear: part of the piece fitted has the table's colour (its shadow?)"
_TABLE_LIKE_COLOURS = ("white", "clear", "black")  # colourless: their chromaticity is the table's
_RIDGES_REASON = "position unclear: its outline and its ridges disagree"
_CROP_MARGIN_MM = 12.0  # the frame read around a region: the edge search's reach and the multi-start offsets


@dataclass
class _Candidate:
    model: FigureModel
    kind: str  # "pyramid", "die", "pawn"
    coarse: CoarseFit
    fit: EdgeFit | None = None
    base_h: float = 0.0

    @property
    def score(self) -> float:
        """How well the model explains what is seen: edges on its outline, on the creases it shows inside
        (a die's top face, a pyramid's ridges; a pawn has none and counts its outline twice), the overlap; less
        when the outline seen lies inside the model's (a negative ``grow``: blur, rims and bevels only ever
        widen what is seen, so the model is too big -- the mistake that reads a Small as a Medium)."""
        if self.fit is None:
            return -1.0
        creases = self.fit.crease_support if self.model.faces else self.fit.support
        shrunk = max(0.0, _GROW_FLOOR_PX - self.fit.grow_px)
        return (self.fit.support + 0.5 * creases - 0.15 * min(self.fit.rms_px, 2.0) + 0.3 * self.coarse.iou
                - _SHRINK_PENALTY * shrunk)


@dataclass
class FigureSearch:
    """Everything one frame's search needs (kept together so the helpers stay small)."""

    image: np.ndarray
    calibration: Calibration
    camera_mm: np.ndarray | None
    view: TableView
    profile: Any
    kinds: tuple[str, ...]
    occupied: list[_Occupied]
    obstructions: list[np.ndarray]  # hulls (mm) of big non-piece regions
    pyramid_colors: tuple[str, ...] | None
    projector: Projector
    fitted: dict[int, _Candidate] = field(default_factory=dict)  # id(piece reported) -> the fit it came from

    def background_at(self, pixels: np.ndarray) -> np.ndarray:
        """The table's colour (without pieces) seen at frame pixels, from the view's background estimate."""
        q = np.asarray(pixels, np.float64).reshape(-1, 2)
        return self.view.background_at_mm(self.calibration.pixel_to_table(q))

    def crop_for(self, hull_mm: np.ndarray, margin_mm: float = _CROP_MARGIN_MM) -> FrameCrop:
        """The part of the frame a fit of the figures in a region reads (the region grown by ``margin_mm``:
        room for the edge search and the multi-start offsets)."""
        hull = np.asarray(hull_mm, np.float64).reshape(-1, 2)
        centre = hull.mean(axis=0)
        d = hull - centre
        norm = np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
        grown = hull + d / norm * margin_mm
        px = self.projector.project(grown, 0.0)
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 5
        return frame_crop(self.image, (x0, y0, x1, y1), self.background_at)


@dataclass(frozen=True)
class _Occupied:
    """A tile or coin handed in by the tile/coin detector: footprint (mm), top height (mm), round or not."""

    polygon: np.ndarray
    top_h: float
    round: bool = False
    sure: bool = False  # read surely by the tile/coin detector: its whole face shows, nothing stands on it


def may_be_a_print(piece: DetectedPiece) -> bool:
    """Whether a figure reported is perhaps no figure but a coin's printed symbol fitted as a pawn (the reason
    ``_PRINT_PAWN_REASON`` or ``COIN_PRINT_REASON``): the coin under it is then not known to be covered."""
    reason = piece.reason or ""
    return piece.uncertain and (_PRINT_PAWN_REASON in reason or COIN_PRINT_REASON in reason)


def _occupied_list(occupied_mm: Sequence[Any] | None, profile: Any) -> list[_Occupied]:
    """The tile/coin footprints handed in (see :func:`vision.figures.detect_figures`)."""
    out = []
    for item in occupied_mm or ():
        if isinstance(item, DetectedPiece):
            if item.kind is Kind.TILE:
                thick = float(getattr(profile, "tile_thickness_mm", 0) or 3.0)
                half = TILE_MM / 2
                local = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
            elif item.kind is Kind.COIN:
                thick = float(getattr(profile, "coin_thickness_mm", 0) or 3.2)
                a = np.linspace(0, 2 * math.pi, 32, endpoint=False)
                local = np.column_stack([np.cos(a), np.sin(a)]) * COIN_MM / 2
            else:
                continue
            t = math.radians(item.angle_deg)
            rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
            out.append(_Occupied(local @ rot.T + (item.x_mm, item.y_mm), float(item.height_mm) + thick,
                                 item.kind is Kind.COIN, not item.uncertain))
        else:
            poly, top = item
            out.append(_Occupied(np.asarray(poly, np.float64).reshape(-1, 2), float(top)))
    return out


def _support_height(search: FigureSearch, x: float, y: float) -> float:
    """Height of the highest handed-in tile/coin top under a point (0: the table)."""
    best = 0.0
    for occ in search.occupied:
        if cv2.pointPolygonTest(occ.polygon.astype(np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0:
            best = max(best, occ.top_h)
    return best


def _supports(occupied: list[_Occupied], camera_mm: np.ndarray | None) -> list[Support]:
    """The tiles and coins as the camera sees them on the table plane: a prism whose top is displaced by
    parallax (all corners projected at once)."""
    if not occupied:
        return []
    pts = np.vstack([occ.polygon for occ in occupied])
    heights = np.concatenate([np.full(len(occ.polygon), occ.top_h) for occ in occupied])
    low = to_table_plane(np.column_stack([pts, np.zeros(len(pts))]), camera_mm)
    high = to_table_plane(np.column_stack([pts, heights]), camera_mm)
    out = []
    start = 0
    for occ in occupied:
        end = start + len(occ.polygon)
        both = np.vstack([low[start:end], high[start:end]]).astype(np.float32)
        seen = cv2.convexHull(both).reshape(-1, 2).astype(np.float64)
        out.append(Support(seen, high[start:end], occ.top_h, occ.round, bare=occ.round and occ.sure))
        start = end
    return out


def find_figures(
    image_bgr: np.ndarray,
    calibration: Calibration,
    profile: Any = None,
    *,
    kinds: Sequence[str] = ("pawn", "die", "pyramid"),
    rectified: Any = None,
    occupied_mm: Sequence[Any] | None = None,
    timings_ms: dict[str, float] | None = None,
) -> list[DetectedPiece]:
    """See :func:`vision.figures.detect_figures`."""
    start = time.process_time()
    image = np.asarray(image_bgr)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("detect_figures needs a BGR uint8 image (H x W x 3)")
    kinds = tuple(k.value if isinstance(k, Kind) else str(k) for k in kinds)
    unknown = set(kinds) - {"pawn", "die", "pyramid"}
    if unknown:
        raise ValueError(f"unknown figure kind(s) {', '.join(sorted(unknown))}: use pawn, die or pyramid")
    calibration.check_frame((image.shape[1], image.shape[0]))
    view = table_view(image, calibration, rectified)
    timings = view.extra.setdefault("timings_ms", {})
    timings["view"] = 1000.0 * (time.process_time() - start)
    occupied = _occupied_list(occupied_mm, profile)
    supports = _supports(occupied, calibration.camera_position_mm())
    sheet = sheet_in_view(view, calibration)
    timings["sheet check"] = 1000.0 * (time.process_time() - start) - timings["view"]
    blobs = segment(view, sheet=sheet, supports=supports, faint="pyramid" in kinds)
    fits_start = time.process_time()
    obstructions = [b.hull_mm for b in blobs if b.area_mm2 > _OBSTRUCTION_MM2]
    colours = getattr(profile, "pyramid_colors", None) if profile is not None else None
    search = FigureSearch(
        image=image,
        calibration=calibration,
        camera_mm=calibration.camera_position_mm(),
        view=view,
        profile=profile,
        kinds=kinds,
        occupied=occupied,
        obstructions=obstructions,
        pyramid_colors=tuple(colours) if colours else None,
        projector=Projector(calibration),
    )
    pieces: list[DetectedPiece] = []
    for blob in blobs:
        if blob.area_mm2 > _OBSTRUCTION_MM2:
            pieces.extend(_hidden_under(search, blob))
            continue
        if blob.area_mm2 < _MIN_FIGURE_MM2 and not _near_obstruction(search, blob.hull_mm):
            continue  # smaller than any whole figure seen from anywhere, and nothing hides the rest of it
        if blob.faint:
            found = _explain_faint(search, blob)
        else:
            found = _explain(search, blob, depth=0, crop=search.crop_for(blob.hull_mm))
        if blob.area_mm2 > _UNEXPLAINED_MM2 and _explained_share(search, blob, found) < 0.6:
            # Much of the region is no figure: something else lies there (fingertips, a box, a sleeve whose
            # colour the table shares elsewhere): whatever was fitted in or next to it cannot be trusted.
            search.obstructions.append(blob.hull_mm)
        pieces.extend(found)
    pieces = _refit_touching(search, pieces)
    pieces = _overlapping(search, pieces)
    # a region found to hide things late in the loop also concerns the figures found before it
    pieces = [_hidden_next_to(search, p) for p in pieces]
    timings["fits"] = 1000.0 * (time.process_time() - fits_start)
    timings["total"] = 1000.0 * (time.process_time() - start)
    if timings_ms is not None:
        timings_ms.update(timings)
    return pieces


def _explain_faint(search: FigureSearch, blob: Blob) -> list[DetectedPiece]:
    """A region found by its edges alone (see :func:`vision.figure_segmentation._faint_blobs`): a clear or white
    pyramid on a calm surface. A clearly outlined fit is reported as usual; otherwise the piece is reported
    uncertain rather than left out (a pyramid nobody sees would change the score)."""
    crop = search.crop_for(blob.hull_mm)
    cands = [c for c in _fit_candidates(search, blob, crop) if c.kind == "pyramid"]
    if not cands:
        return []
    best = cands[0]
    piece = _report(search, blob, best, cands[1:])
    if best.fit is not None and best.fit.support >= _FAINT_SUPPORT:
        return [piece]
    centre = blob.hull_mm.mean(axis=0)
    inside = best.fit is not None and math.hypot(piece.x_mm - centre[0], piece.y_mm - centre[1]) < 6.0
    reasons = [r for r in (piece.reason or "").split("; ") if r and "outline unclear" not in r]
    reasons.insert(0, "faint outline: a clear or white piece?")
    colour = piece.color if piece.color in ("white", "clear") else "clear"
    return [replace(piece, x_mm=piece.x_mm if inside else float(centre[0]),
                    y_mm=piece.y_mm if inside else float(centre[1]), color=colour, uncertain=True,
                    reason="; ".join(reasons), confidence=min(piece.confidence, 0.3))]


def _refit_touching(search: FigureSearch, pieces: list[DetectedPiece]) -> list[DetectedPiece]:
    """Pieces touching or nearly touching another (within ``_TOUCH_PX``) are fitted again without the edges
    next to their neighbour: across a gap of a pixel or two the two outlines blur into each other, and each
    side's edge is pulled toward the other piece's (the pair read ~0.3 mm apart each)."""
    fitted = [(k, p) for k, p in enumerate(pieces) if id(p) in search.fitted and p.outline_px is not None]
    out = list(pieces)
    for k, piece in fitted:
        own = piece.outline_px.astype(np.float32).reshape(-1, 1, 2)
        nearest, gap = None, _TOUCH_PX
        lo, hi = piece.outline_px.min(axis=0) - _TOUCH_PX, piece.outline_px.max(axis=0) + _TOUCH_PX
        for j, other in fitted:
            if j == k or np.any(other.outline_px.max(axis=0) < lo) or np.any(other.outline_px.min(axis=0) > hi):
                continue
            d = _polygon_gap(own, other.outline_px.astype(np.float32).reshape(-1, 1, 2))
            if d < gap:
                nearest, gap = other, d
        if nearest is None:
            continue
        cand = search.fitted[id(piece)]
        ignore = _grown(nearest.outline_px, _IGNORE_GROW_PX)
        crop = search.crop_for(search.calibration.pixel_to_table(piece.outline_px), margin_mm=6.0)
        fit = refine_pose(crop, search.projector, cand.model, cand.fit.pose, cand.base_h,
                          fixed_angle=cand.model.name == "pawn", inner_weight=_inner_weight(cand.kind),
                          contrast_share=0.2, max_per_edge=32, ignore_px=ignore)
        moved = math.hypot(fit.pose[0] - cand.fit.pose[0], fit.pose[1] - cand.fit.pose[1])
        if fit.support < _MIN_SUPPORT or moved > 1.0 or fit.samples < 8:
            continue  # too little left to fit: keep the first reading
        x, y, angle = fit.pose
        if piece.kind is Kind.PYRAMID and piece.pose is PyramidPose.FLAT:
            fields = dict(angle_deg=angle % 360.0, apex_deg=angle % 360.0)
        elif piece.kind is Kind.PAWN:
            fields = dict(angle_deg=0.0)
        else:
            fields = dict(angle_deg=angle % 90.0)
        out[k] = replace(piece, x_mm=float(x), y_mm=float(y), outline_px=fit.outline_px, **fields)
        search.fitted[id(out[k])] = cand
    return out


def _overlapping(search: FigureSearch, pieces: list[DetectedPiece]) -> list[DetectedPiece]:
    """Two figures cannot stand in one place: where two footprints overlap by more than ``_OVERLAP`` of the
    smaller, the less clearly outlined one is a fragment of the other's region (its shadow, a glint) or the
    two readings contradict each other: it is reported uncertain."""
    feet = []
    for piece in pieces:
        cand = search.fitted.get(id(piece))
        if cand is None or cand.fit is None or cand.model.base_polygon is None:
            feet.append(None)
            continue
        x, y, a = cand.fit.pose
        feet.append(np.ascontiguousarray(place(np.column_stack([cand.model.base_polygon,
                                                                np.zeros(len(cand.model.base_polygon))]),
                                               x, y, a)[:, :2]))
    out = list(pieces)
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            a, b = feet[i], feet[j]
            if a is None or b is None:
                continue
            if np.any(a.max(axis=0) < b.min(axis=0)) or np.any(b.max(axis=0) < a.min(axis=0)):
                continue
            smaller = min(abs(cv2.contourArea(a.astype(np.float32))), abs(cv2.contourArea(b.astype(np.float32))))
            if smaller <= 0 or intersection_area(a, b) < _OVERLAP * smaller:
                continue
            weaker = i if _outline_support(search.fitted[id(pieces[i])]) < _outline_support(
                search.fitted[id(pieces[j])]) else j
            piece = out[weaker]
            if "overlaps another" not in (piece.reason or ""):
                reasons = [r for r in (piece.reason or "").split("; ") if r] + ["overlaps another piece"]
                out[weaker] = replace(piece, uncertain=True, reason="; ".join(reasons),
                                      confidence=min(piece.confidence, 0.5))
                search.fitted[id(out[weaker])] = search.fitted[id(piece)]
    return out


def _polygon_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Distance between two convex polygons (0 when they overlap), pixels."""
    da = min(-cv2.pointPolygonTest(b, (float(x), float(y)), True) for x, y in a.reshape(-1, 2))
    db = min(-cv2.pointPolygonTest(a, (float(x), float(y)), True) for x, y in b.reshape(-1, 2))
    return max(0.0, min(da, db))


def _grown(polygon: np.ndarray, by: float) -> np.ndarray:
    """A convex polygon pushed out by about ``by`` (each vertex away from the centroid)."""
    poly = np.asarray(polygon, np.float64).reshape(-1, 2)
    centre = poly.mean(axis=0)
    d = poly - centre
    r = np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return centre + d * (1.0 + by / r)


def _explained_share(search: FigureSearch, blob: Blob, found: list[DetectedPiece]) -> float:
    """The share of a blob's area covered by the outlines of the figures fitted in it (table plane)."""
    if not found:
        return 0.0
    view = search.view
    x, y, w, h = blob.box
    cover = np.zeros((h, w), np.uint8)
    for piece in found:
        if piece.outline_px is None:
            continue
        outline_mm = search.calibration.pixel_to_table(piece.outline_px)
        q = view.to_px(outline_mm) - (x, y)
        cv2.fillPoly(cover, [np.round(q * 16).astype(np.int32).reshape(-1, 1, 2)], 1, cv2.LINE_8, 4)
    cover = cv2.dilate(cover, np.ones((3, 3), np.uint8))  # outlines on the table plane miss raised parts' rims
    mask = blob.mask.astype(bool)
    return float((cover.astype(bool) & mask).sum() / max(mask.sum(), 1))


def _on_print(search: FigureSearch, blob: Blob) -> float:
    """The share of a blob lying on or right next to the calibration sheet's print (0 without the sheet)."""
    return _on_band(search, blob, "ink_band")


def _on_band(search: FigureSearch, blob: Blob, band: str) -> float:
    """The share of a blob in one of the sheet's bands ("ink_band": along its print, "paper_band": along the
    paper's edge, where the region found is only as good as the sheet's registration); 0 without the sheet."""
    fields = search.view.fields
    if fields is None or fields.sheet is None or blob.mask is None:
        return 0.0
    x, y, w, h = blob.box
    near = getattr(fields.sheet, band)[y : y + h, x : x + w]
    mask = blob.mask[: near.shape[0], : near.shape[1]].astype(bool)
    return float((near[mask] > 0).mean()) if mask.any() else 0.0


def _hidden_next_to(search: FigureSearch, piece: DetectedPiece) -> DetectedPiece:
    reason = "partly hidden by a hand or another object"
    if piece.outline_px is None or (piece.reason and reason in piece.reason):
        return piece
    outline_mm = search.calibration.pixel_to_table(piece.outline_px)
    if not _near_obstruction(search, outline_mm):
        return piece
    reasons = [r for r in (piece.reason or "").split("; ") if r] + [reason]
    return replace(piece, uncertain=True, reason="; ".join(reasons), confidence=min(piece.confidence, 0.5))


# ----------------------------------------------------------------------------------------------------- models
def _models(search: FigureSearch) -> list[tuple[str, FigureModel]]:
    out: list[tuple[str, FigureModel]] = []
    if "pyramid" in search.kinds:
        out += [("pyramid", m) for m in PYRAMID_MODELS.values()]
    if "die" in search.kinds:
        out.append(("die", die_model()))
    if "pawn" in search.kinds:
        prof = search.profile
        out.append(("pawn", pawn_model(height_mm=getattr(prof, "pawn_height_mm", None) if prof else None,
                                       base_mm=getattr(prof, "pawn_base_mm", None) if prof else None)))
    return out


def _fit_candidates(search: FigureSearch, blob: Blob, crop: FrameCrop, top: int = 3) -> list[_Candidate]:
    cands = []
    for kind, model in _models(search):
        base_h = 0.0
        if kind in ("die", "pawn") and search.occupied:
            c = blob.hull_mm.mean(axis=0)
            base_h = _support_height(search, c[0], c[1])
        coarse = coarse_pose(blob.hull_mm, model, search.camera_mm, base_h)
        cands.append(_Candidate(model, kind, coarse, base_h=base_h))
    cands.sort(key=lambda c: -c.coarse.iou)
    best_iou = cands[0].coarse.iou if cands else 0.0
    chosen = [c for c in cands[:top] if c.coarse.iou >= best_iou - 0.15]
    for cand in chosen:
        cand.coarse = polish_pose(blob.hull_mm, cand.model, search.camera_mm, cand.coarse, cand.base_h)
        cand.fit = _refit(search, crop, cand, cand.coarse.pose, quick=True)
    # Small opaque pieces: their shadow joins the blob and can shift the coarse pose by a few mm, beyond the
    # edge search's reach (and turn a die's outline): start from around it too and keep the best supported fit.
    # Only worth it while no candidate is already clearly outlined.
    if chosen and max(_outline_support(c) for c in chosen) < _SURE_SUPPORT:
        for cand in chosen:
            if cand.kind == "die" or (cand.kind == "pawn" and _outline_support(cand) < 0.6):
                fits = [cand.fit] + [_refit(search, crop, cand, start, quick=True) for start in _starts(search, cand)]
                cand.fit = max(fits, key=lambda f: f.support + f.crease_support - 0.15 * min(f.rms_px, 2.0))
    # The pyramids that differ from the best by one size step or by the pose are its likeliest confusions (their
    # outlines overlap the blob nearly as well): always weigh them too
    if chosen and chosen[0].kind == "pyramid" or any(c.kind == "pyramid" for c in chosen):
        lead = max((c for c in chosen if c.kind == "pyramid"), key=lambda c: c.score)
        have = {c.model.name for c in chosen}
        lead_size, lead_pose = model_size_pose(lead.model)
        for model in _pyramid_neighbours(lead.model):
            if model.name in have:
                continue
            cand = next(c for c in cands if c.model.name == model.name)
            # another size in the same pose sits where the lead was fitted; the other pose starts from its own
            # coarse placement
            start = lead.fit.pose if model_size_pose(model)[1] is lead_pose else cand.coarse.pose
            cand.fit = _refit(search, crop, cand, start, quick=True)
            chosen.append(cand)
    # The sub-pixel fit (every edge sample, fine steps) for the best and the rivals close to it; the others were
    # ranked by a quick fit (a third of the samples, coarse steps)
    chosen.sort(key=lambda c: -c.score)
    if chosen:
        best = chosen[0]
        best.fit = _refit(search, crop, best, best.fit.pose)
        rival = next((c for c in chosen[1:] if c.kind != "pyramid" or best.kind != "pyramid"
                      or model_size_pose(c.model) != model_size_pose(best.model)), None)
        if rival is not None and rival.score >= best.score - _RIVAL_MARGIN:
            rival.fit = _refit(search, crop, rival, rival.fit.pose)
        chosen.sort(key=lambda c: -c.score)
    return chosen


def _beside(parts: list[DetectedPiece], single: _Candidate) -> bool:
    """Whether a piece read surely in a part of a blob lies mostly outside the outline of the one piece fitted to
    the whole blob (then the cut found a second piece, not a piece cut in two)."""
    if single.fit is None:
        return True
    outline = np.ascontiguousarray(single.fit.outline_px, np.float64)
    for piece in parts:
        if piece.uncertain or piece.outline_px is None:
            continue
        own = np.ascontiguousarray(piece.outline_px, np.float64)
        area = abs(cv2.contourArea(own.astype(np.float32)))
        if area > 0 and intersection_area(own, outline) < 0.5 * area:
            return True
    return False


def _clearly_better(parts: list[DetectedPiece], single: _Candidate, by: float = 0.05) -> bool:
    """Whether pieces found in the parts of a blob explain it clearly better than one piece does: two or more
    read surely, each outlined better than the single piece by ``by``."""
    sure = [p for p in parts if not p.uncertain]
    return len(sure) >= 2 and len(sure) == len(parts) and min(p.confidence for p in sure) > _outline_support(
        single) + by


def _pyramid_neighbours(model: FigureModel) -> list[FigureModel]:
    """The pyramid models one size step away (same pose) and of the same size in the other pose."""
    size, pose = model_size_pose(model)
    sizes = list(PyramidSize)
    k = sizes.index(size)
    out = [PYRAMID_MODELS[(sizes[j], pose)] for j in (k - 1, k + 1) if 0 <= j < len(sizes)]
    other = PyramidPose.FLAT if pose is PyramidPose.UPRIGHT else PyramidPose.UPRIGHT
    return out + [PYRAMID_MODELS[(size, other)]]


def _inner_weight(kind: str) -> float:
    """How much the creases seen inside the outline pull the edge fit: a die's top face as much as its outline,
    a pyramid's ridges :data:`_RIDGE_WEIGHT`, a pawn has none."""
    return 1.0 if kind == "die" else _RIDGE_WEIGHT if kind == "pyramid" else 0.0


def _refit(search: FigureSearch, crop: FrameCrop, cand: _Candidate, start, quick: bool = False) -> EdgeFit:
    """The edge fit of a candidate from a starting pose; ``quick``: fewer, wider spaced samples (ranking)."""
    kwargs = dict(fixed_angle=cand.model.name == "pawn", inner_weight=_inner_weight(cand.kind),
                  contrast_share=0.2)
    if quick:
        return refine_pose(crop, search.projector, cand.model, start, cand.base_h, max_per_edge=12, **kwargs)
    return refine_pose(crop, search.projector, cand.model, start, cand.base_h, max_per_edge=32, **kwargs)


def _starts(search: FigureSearch, cand: _Candidate) -> list[tuple[float, float, float]]:
    """Other starting poses around the coarse one (a shadow shifted it; a die may show its dark side first)."""
    x, y, a = cand.coarse.pose
    starts = [(x + dx, y + dy, a) for dx, dy in ((2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0))]
    if cand.kind == "die":
        starts += [(x, y, a + da) for da in (30.0, 60.0)]
        if search.camera_mm is not None:
            # a dark die on a light table may show only its dark side at first: its lit top lies beyond it,
            # away from the camera
            away = np.array([x, y]) - search.camera_mm[:2]
            away = away / max(float(np.linalg.norm(away)), 1e-9)
            starts += [(x + away[0] * k, y + away[1] * k, a) for k in (4.0, 8.0, -4.0)]
    return starts


def _explain(search: FigureSearch, blob: Blob, depth: int, crop: FrameCrop) -> list[DetectedPiece]:
    cands = _fit_candidates(search, blob, crop)
    if not cands:
        return []
    best = cands[0]
    good = _outline_support(best) >= _MIN_SUPPORT and best.coarse.iou >= _SPLIT_IOU
    if not good and depth < 2:
        parts = split_blob(search.view, blob, min_part_mm2=_MIN_FIGURE_MM2)
        if len(parts) < 2:
            parts = split_by_colour(search.view, blob, min_part_mm2=_MIN_FIGURE_MM2)
        out = []
        if len(parts) > 1:
            for part in parts:
                out.extend(_explain(search, part, depth + 1, crop))
            if (_outline_support(best) >= _MIN_SUPPORT and not _beside(out, best)
                    and not _clearly_better(out, best)):
                out = []  # one piece explains it passably and the cut found nothing beside it: a ragged blob
        if blob.area_mm2 > _UNEXPLAINED_MM2 and all(p.uncertain for p in out):
            # bigger than a few figures and still unexplained: a figure on something of another colour (a tile
            # nobody mentioned) shows as what is none of the region's main colours
            other = [p for part in _off_colour_parts(search, blob) if part.area_mm2 < blob.area_mm2 * 0.8
                     for p in _explain(search, part, 2, crop)]
            if any(not p.uncertain for p in other):
                out = other
        if out:
            return out
    elif good and depth < 2 and best.fit is not None and best.fit.support < _SURE_SUPPORT:
        # One model explains the blob passably; two pieces of different colours touching can too (a Large
        # over a Medium and a Small side by side). Explaining the colours apart must do clearly better to win
        # (a piece half over a printed marker also shows two colours).
        parts = split_by_colour(search.view, blob, min_part_mm2=_MIN_FIGURE_MM2)
        if len(parts) > 1:
            out = [p for part in parts for p in _explain(search, part, depth + 1, crop)]
            if _clearly_better(out, best, by=0.1):
                return out
    if best.coarse.iou < 0.45 and (best.fit is None or best.fit.support < _SURE_SUPPORT):
        # nothing like a figure (a scrap of shadow, a printed mark); a clearly outlined figure whose blob is only
        # part of it (a black die's grey-lit top on white paper is no foreground) is kept
        return []
    piece = _report(search, blob, best, cands[1:], whole=depth == 0)
    if piece.kind is Kind.DIE and _flat_print(search, blob, best, piece):
        return []
    top = (_die_face_where(search, blob, crop, best, cands[1:])
           if piece.kind is Kind.PAWN and not piece.uncertain else None)
    if top is not None and _die_face_on_top(top.face, best):
        die = _sure_die_on_top(search, blob, crop, piece, top, whole=depth == 0)
        meeple = (_meeple_instead(search, blob, crop, best, cands[1:])
                  if die is None and top.face.score < _DIE_TOP_SURE_SCORE else None)
        if die is not None:
            piece = die
        elif meeple is not None:
            piece = _as_meeple(search, piece, meeple)
        else:
            piece = replace(piece, uncertain=True, confidence=min(piece.confidence, 0.5),
                            reason="kind unclear: a pawn or a die (a die's face is seen on its top)")
    elif (piece.kind is Kind.PAWN and not piece.uncertain and "die" in search.kinds
          and _outline_support(best) < _PAWN_CLEAR_SUPPORT and _plastic_beyond(search, best) > _PLASTIC_BEYOND):
        meeple = _meeple_instead(search, blob, crop, best, cands[1:])
        if meeple is None:
            piece = replace(piece, uncertain=True, confidence=min(piece.confidence, 0.5),
                            reason=_PLASTIC_BEYOND_REASON)
        else:
            piece = _as_meeple(search, piece, meeple)
    elif (piece.uncertain and piece.kind in (Kind.PAWN, Kind.DIE) and {"pawn", "die"} <= set(search.kinds)
          and _meeple_may_explain(piece.reason)):
        # the hand-made meeple fitted as a weak peg pawn or as a die with no readable face
        peg = best if best.kind == "pawn" else next((c for c in cands if c.kind == "pawn" and c.fit), None)
        meeple = _meeple_instead(search, blob, crop, best, cands, _outline_support(peg) if peg else 0.0, around=True)
        if meeple is not None and meeple.fit.support >= _MEEPLE_DOUBTED_SUPPORT:
            piece = _meeple_pawn(search, piece, meeple)
    if piece.uncertain and piece.reason not in (_RIDGES_REASON, _SHADOW_REASON):  # (those are pieces: keep them)
        # Poorly outlined and colourless, or hardly outlined at all, with nothing in front of it: a streak of
        # wood grain, a glint or a printed mark rather than a piece.
        colourless = piece.color in ("white", "clear") or piece.kind is not Kind.PYRAMID and piece.suit is None
        support = _outline_support(best)
        if support < _NOISE_SUPPORT or (colourless and support < _MIN_SUPPORT):
            return []
        if support < _PRINT_SUPPORT and _on_print(search, blob) > 0.25:
            return []  # over the sheet's print and poorly outlined: print the prediction missed (text, a smudge)
    return [piece]


# ----------------------------------------------------------------------------------------------------- reporting
def _near_obstruction(search: FigureSearch, outline_mm: np.ndarray) -> bool:
    for hull in search.obstructions:
        poly = hull.astype(np.float32).reshape(-1, 1, 2)
        for p in outline_mm:
            if cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True) > -_NEAR_MM:
                return True
    return False


def _inside_pixels(image: np.ndarray, outline_px: np.ndarray, shrink: float = 0.6) -> np.ndarray:
    centre = outline_px.mean(axis=0)
    inner = centre + (outline_px - centre) * shrink
    x0, y0 = np.floor(inner.min(axis=0)).astype(int)
    x1, y1 = np.ceil(inner.max(axis=0)).astype(int) + 1
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((inner - (x0, y0)) * 16).astype(np.int32).reshape(-1, 1, 2), 1, cv2.LINE_8, 4)
    return image[y0:y1, x0:x1][mask.astype(bool)].astype(np.float32)


def _report(search: FigureSearch, blob: Blob, best: _Candidate, others: list[_Candidate],
            whole: bool = True) -> DetectedPiece:
    """The piece a fit describes, with what is unclear about it. ``whole``: the blob is one region as found (not
    a part cut from a bigger one, whose outline says little about where the piece is)."""
    fit = best.fit
    assert fit is not None
    x, y, angle = fit.pose
    reasons = []
    outline_mm = silhouette_mm(best.model, fit.pose, search.camera_mm, best.base_h)
    if blob.touches_edge:
        reasons.append("partly outside the picture")
    if _near_obstruction(search, outline_mm):
        reasons.append("partly hidden by a hand or another object")
    if _outline_support(best) < _MIN_SUPPORT:
        reasons.append("outline unclear (partly hidden?)")
    elif not blob.touches_edge and best.kind == "pyramid" and _disagree(search, blob, best, whole):
        # the outline's edges and the region seen place it differently: a shadow, the sheet's paper edge or a
        # neighbour's edge may have pulled the fit (the usual cause of a footprint millimetres off)
        reasons.append("position unclear: its outline and the region seen disagree")
    elif (best.kind == "pyramid" and model_size_pose(best.model)[1] is PyramidPose.UPRIGHT
          and _outline_support(best) < _SURE_SUPPORT and _ridges_disagree(search, best)):
        # the base outline alone places it elsewhere than outline and ridges together: one of them follows
        # something else (a coloured shadow, the sheet's paper edge, a marker under translucent plastic)
        reasons.append(_RIDGES_REASON)
    elif best.kind == "pyramid" and not blob.faint:
        on_region, of_region = _seen_shares(search, blob, outline_mm)
        if on_region < _MIN_SEEN_SHARE:
            # a piece seen whole fills its fitted outline (a correct fit: 89 % or more on 1025 rendered pieces);
            # one reaching well beyond the region is a model too big or in the wrong pose (a Small lying flat
            # read upright over the sheet's print)
            reasons.append("size or pose unclear: the piece fitted reaches beyond the region seen")
        elif whole and not blob.touches_edge and of_region < _MIN_EXPLAINED_SHARE:
            # ... and a region as found is mostly the piece (75 % or more of it under a correct fit on 868
            # rendered pieces, shadows included): much more is a bigger piece than the model, or another one
            reasons.append("size unclear: the region seen is bigger than the piece fitted")
    elif (best.kind == "pawn" and not blob.faint and _outline_support(best) < _WEAK_PAWN_SUPPORT
          and _seen_shares(search, blob, outline_mm)[0] < _MIN_SEEN_SHARE_PAWN):
        # a pawn stands 26-30 mm tall: its silhouette reaches well beyond a flat thing's region. One lying mostly
        # off the region seen whose outline is weakly found was fitted to a print (a gold crown on a kid's coin
        # read as a Crowns pawn: 0.60 on the region, outline 0.52). Correct pawns: 0.73 or more on the region on
        # 48 rendered Easy Slider pawns (seed 1) and 15 in game scenes; the one black pawn below 0.7 (0.61, its
        # dark shadow left out of the region) was outlined at 0.74 (seed 2 boards).
        reasons.append("kind unclear: the pawn fitted reaches beyond the region seen")
    if best.kind == "pawn" and _pale_print(search, fit.outline_px):
        reasons.append(_PRINT_PAWN_REASON)
    confidence = float(np.clip(_outline_support(best), 0.0, 1.0))
    fields: dict[str, Any] = {}
    if best.kind == "pyramid":
        size, pose = model_size_pose(best.model)
        rival = next((c for c in others if c.kind == "pyramid" and c.fit is not None
                      and model_size_pose(c.model) != (size, pose)), None)
        if rival is not None and rival.score > best.score - _rival_margin(search, best):
            r_size, r_pose = model_size_pose(rival.model)
            what = "size" if r_pose == pose else "pose" if r_size == size else "size and pose"
            reasons.append(f"{what} unclear: {size.value} {pose.value} or {r_size.value} {r_pose.value}")
        elif fit.grow_px < _SHRUNK_PX:
            reasons.append(f"size unclear: the outline seen is smaller than a {size.value}'s")
        seen = _inside_pixels(search.image, fit.outline_px)
        if len(seen):
            background = np.median(search.background_at(fit.outline_px), axis=0)
            vote = classify_pyramid_color(np.median(seen, axis=0), background, search.pyramid_colors)
            fields["color"] = vote.color
            if vote.ambiguous:
                reasons.append(vote.reason or "colour unclear")
            elif (not reasons and vote.color not in _TABLE_LIKE_COLOURS
                  and _coloured_share(search, fit.outline_px) < _MIN_COLOURED_SHARE):
                # a coloured piece's fitted silhouette is its plastic's colour throughout; a model reaching over
                # table-coloured pixels took its shadow for plastic (a Small flat read Medium flat)
                reasons.append(_SHADOW_REASON)
        else:
            reasons.append("colour unreadable")
        fields.update(size=size, pose=pose)
        if pose is PyramidPose.FLAT:
            fields["apex_deg"] = angle % 360.0
        else:
            angle = angle % 90.0
        kind = Kind.PYRAMID
    else:
        kind = Kind.PAWN if best.kind == "pawn" else Kind.DIE
        refs = suit_references(search.profile, best.kind)
        if kind is Kind.DIE:
            crop = die_top_crop(search.image, search.calibration, fit.pose, best.base_h + _die_side(best.model))
            body = body_colour(crop)
            vote = classify_suit(body, refs)
            if not vote.ambiguous and colourless(refs[vote.suit]) and float(np.mean(body)) >= (
                    _BLACK_DIE_MAX_LIGHTNESS * float(np.mean(np.median(search.background_at(fit.outline_px), axis=0)))):
                reasons.append("colour unclear: a black die's top as light as the table beside it")
            face = read_die_face(crop, search.profile, suit=None if vote.ambiguous else vote.suit)
            fields["rank"] = face.rank
            if face.ambiguous or face.rank is None:
                reasons.append(face.reason or "die face unclear")
            angle = angle % 90.0
        else:
            seen = _inside_pixels(search.image, fit.outline_px, 0.5)
            vote = classify_suit(np.median(seen, axis=0) if len(seen) else np.zeros(3), refs)
            angle = 0.0
        fields["suit"] = vote.suit
        if vote.ambiguous:
            reasons.append(vote.reason or "colour unclear")
    uncertain = bool(reasons)
    piece = DetectedPiece(
        kind=kind,
        x_mm=float(x),
        y_mm=float(y),
        angle_deg=float(angle),
        confidence=confidence if not uncertain else min(confidence, 0.5),
        uncertain=uncertain,
        reason="; ".join(reasons) if reasons else None,
        outline_px=fit.outline_px,
        height_mm=float(best.base_h),
        **fields,
    )
    search.fitted[id(piece)] = best
    return piece


@dataclass(frozen=True)
class _TopFace:
    """A die's face read where a pawn was fitted (:func:`_die_face_where`): the reading, and the die model's fit
    whose top face showed it."""

    face: FaceVote
    die: _Candidate  # the die model, its ``fit`` the one whose top was read


def _die_face_where(search: FigureSearch, blob: Blob, crop: FrameCrop, pawn: _Candidate,
                    others: list[_Candidate]) -> _TopFace | None:
    """The clearest die face seen where a pawn was fitted: the die model fitted there from its own fit and from
    starts around the pawn's place (2 mm apart, three turns: the pawn's fit says nothing of a die's angle, and the
    die's own fit can follow its lower edges or the coin's, its top face then off the numeral), the top face read
    at each fit; the reading that matches a rank mark best, with the fit that showed it. None when no die is looked
    for (or the pawn is outlined clearly: _PAWN_CLEAR_SUPPORT) or no fit's top reads a rank."""
    if "die" not in search.kinds or pawn.fit is None or _outline_support(pawn) >= _PAWN_CLEAR_SUPPORT:
        return None
    die = next((c for c in others if c.kind == "die"), None)
    if die is None:  # the die model was not among the likeliest: fitted here all the same
        model = die_model()
        die = _Candidate(model, "die", coarse_pose(blob.hull_mm, model, search.camera_mm, pawn.base_h),
                         base_h=pawn.base_h)
    x, y, _ = pawn.fit.pose
    seen = _inside_pixels(search.image, pawn.fit.outline_px, 0.5)
    plastic = np.median(seen, axis=0) if len(seen) else np.zeros(3)
    fits = [(die.fit, True)] if die.fit is not None else []
    fits += [(_refit(search, crop, die, (x + dx, y + dy, a), quick=True), dx == dy == 0.0)
             for dx in (-2.0, 0.0, 2.0) for dy in (-2.0, 0.0, 2.0) for a in (0.0, 30.0, 60.0)]
    refs = suit_references(search.profile, "die")
    best = None
    for fit, centred in fits:
        top = die_top_crop(search.image, search.calibration, fit.pose, die.base_h + _die_side(die.model))
        colour = classify_suit(body_colour(top), refs)  # a die's ace is its suit's symbol in some editions
        face = read_die_face(top, search.profile, suit=None if colour.ambiguous else colour.suit)
        if face.rank is None or (best is not None and face.score <= best.face.score):
            continue
        # A blank null face shows nothing: a peg pawn's round head seen from above is as blank, and a top fitted
        # 2 mm off lands on it; only a blank null seen from the die's own fit or the pawn's place, in the pawn's
        # colour (not the paper's or a coin's beside it), counts. A null with a mark (a classic ring) is matched
        # like a numeral: it counts from any fit
        if face.rank == 0 and face.blank and not (centred and _same_plastic(body_colour(top), plastic)):
            continue
        best = _TopFace(face, _Candidate(die.model, "die", die.coarse, fit, die.base_h))
    return best


def _plastic_beyond(search: FigureSearch, pawn: _Candidate, shape_px: Sequence[np.ndarray] = ()) -> float:
    """The share of the frame's pixels of a fitted pawn's plastic colour (the median of its silhouette's middle)
    around it (within ``_PLASTIC_AROUND_MM``) that lie outside its silhouette (see _PLASTIC_BEYOND); outside the
    union of the polygons ``shape_px`` (frame pixels) when given (a meeple's faces: its true outline)."""
    return _plastic_shares(search, pawn, shape_px)[0]


def _plastic_shares(search: FigureSearch, pawn: _Candidate, shape_px: Sequence[np.ndarray] = ()) -> tuple[float, float]:
    """:func:`_plastic_beyond`, and the share of the silhouette (or of the union of ``shape_px``) that is of the
    pawn's plastic colour."""
    outline = pawn.fit.outline_px
    seen = _inside_pixels(search.image, outline, 0.5)
    if len(seen) == 0:
        return 0.0, 0.0
    plastic = np.log(np.maximum(np.median(seen, axis=0).astype(np.float64), 4.0))
    x, y = pawn.fit.pose[:2]
    try:
        ppm = float(search.calibration.px_per_mm_at(np.array([x, y])))
    except (ValueError, np.linalg.LinAlgError):
        ppm = 2.0
    grow = int(math.ceil(_PLASTIC_AROUND_MM * ppm))
    h, w = search.image.shape[:2]
    x0, y0 = np.floor(outline.min(axis=0)).astype(int) - grow
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + grow
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0, 0.0
    logs = np.log(np.maximum(search.image[y0:y1, x0:x1].astype(np.float64), 4.0))
    ys, xs = np.mgrid[y0:y1, x0:x1]
    table = search.background_at(np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64))
    table = np.log(np.maximum(np.asarray(table, np.float64).reshape(logs.shape), 4.0))
    chroma = logs - logs.mean(axis=2, keepdims=True)
    same = ((np.linalg.norm(chroma - (plastic - plastic.mean()), axis=2) <= 0.2)
            & (np.abs(logs.mean(axis=2) - plastic.mean()) <= math.log(1.6))
            & (np.linalg.norm(chroma - (table - table.mean(axis=2, keepdims=True)), axis=2) > 0.12))
    inside = np.zeros(same.shape, np.uint8)
    for polygon in shape_px or (outline,):
        cv2.fillPoly(inside, [np.round((polygon - (x0, y0)) * 16).astype(np.int32).reshape(-1, 1, 2)], 1, cv2.LINE_8,
                     4)
    total = int(same.sum())
    fill = float((same & (inside > 0)).sum()) / max(int((inside > 0).sum()), 1)
    if total == 0:
        return 0.0, fill
    return float((same & (inside == 0)).sum()) / total, fill


def _meeple_shape_px(search: FigureSearch, meeple: _Candidate) -> list[np.ndarray]:
    """A fitted meeple's faces in frame pixels (see :func:`vision.figure_models.meeple_faces`)."""
    prof = search.profile
    out = []
    for face in meeple_faces(getattr(prof, "pawn_height_mm", None) if prof else None):
        placed = place(face, *meeple.fit.pose, meeple.base_h)
        out.append(search.projector.project(placed[:, :2], placed[:, 2]))
    return out


def _meeple_fit(search: FigureSearch, pawn: _Candidate, around: bool = False) -> _Candidate:
    """The meeple model (:func:`vision.figure_models.meeple_model`, at the profile's pawn height) fitted where a
    pawn was: from the pawn's place at six turns (the pawn's fit says nothing of a meeple's), the best outlined
    quick fit refined with every sample. ``around``: when that quick fit is outlined under
    _MEEPLE_DOUBTED_SUPPORT, also from starts _MEEPLE_AROUND_MM around the place (see there)."""
    prof = search.profile
    model = meeple_model(getattr(prof, "pawn_height_mm", None) if prof else None)
    x, y, _ = pawn.fit.pose
    cand = _Candidate(model, "pawn", CoarseFit((x, y, 0.0), 0.0), base_h=pawn.base_h)

    def crop_at(cx: float, cy: float) -> FrameCrop:
        return search.crop_for(silhouette_mm(model, (cx, cy, 0.0), search.camera_mm, pawn.base_h))

    def outlined(fit: EdgeFit) -> float:
        return fit.support - 0.15 * min(fit.rms_px, 2.0)

    crop = crop_at(x, y)
    fits = [_refit(search, crop, cand, (x, y, a), quick=True) for a in (0.0, 30.0, 60.0, 90.0, 120.0, 150.0)]
    cand.fit = max(fits, key=outlined)
    cand.fit = _refit(search, crop, cand, cand.fit.pose)
    if around and cand.fit.support < _MEEPLE_DOUBTED_SUPPORT:
        for dx, dy in _MEEPLE_AROUND:
            there = crop_at(x + dx, y + dy)
            start = max((_refit(search, there, cand, (x + dx, y + dy, a), quick=True) for a in (0.0, 60.0, 120.0)),
                        key=outlined)
            # each start refined before they are compared: a quick fit from 3 mm off can outline the meeple worse
            # than the quick fit from the place and still refine to it (hand-made scene 604: 0.61 -> 0.92)
            refined = _refit(search, there, cand, start.pose)
            if outlined(refined) > outlined(cand.fit):
                cand.fit = refined
    return cand


def _meeple_instead(search: FigureSearch, blob: Blob, crop: FrameCrop, pawn: _Candidate,
                    others: list[_Candidate], peg_support: float | None = None, around: bool = False
                    ) -> _Candidate | None:
    """The meeple fitted where a pawn was (:func:`_meeple_fit`, ``around`` passed on) when it explains the piece
    clearly better than the peg pawn and a die (see _MEEPLE_SUPPORT) and the plastic around it lies inside its own
    outline; else None. ``pawn``: the figure fitted there (a peg pawn, or a die); ``peg_support``: how well the peg
    pawn is outlined there (default: ``pawn``'s outline)."""
    meeple = _meeple_fit(search, pawn, around)
    support = meeple.fit.support
    peg = _outline_support(pawn) if peg_support is None else peg_support
    if support < _MEEPLE_SUPPORT or support < peg + _MEEPLE_OVER_PEG:
        return None
    if support < _die_support(search, blob, crop, pawn, others) + _MEEPLE_OVER_DIE:
        return None
    if _plastic_beyond(search, meeple, _meeple_shape_px(search, meeple)) > _MEEPLE_PLASTIC_BEYOND:
        return None
    return meeple


def _die_support(search: FigureSearch, blob: Blob, crop: FrameCrop, pawn: _Candidate,
                 others: list[_Candidate]) -> float:
    """How well the die model is outlined where a pawn was fitted: its own fit among the candidates, and the die
    fitted from the region's coarse placement and from starts around it (as the search does for a weak fit)."""
    model = die_model()
    die = _Candidate(model, "die", coarse_pose(blob.hull_mm, model, search.camera_mm, pawn.base_h), base_h=pawn.base_h)
    fits = [c.fit for c in others if c.kind == "die" and c.fit is not None]
    fits += [_refit(search, crop, die, start, quick=True) for start in [die.coarse.pose] + _starts(search, die)]
    return max(f.support for f in fits)


def _as_meeple(search: FigureSearch, piece: DetectedPiece, meeple: _Candidate) -> DetectedPiece:
    """The pawn reported where the meeple fitted to it stands, with its outline."""
    x, y, _ = meeple.fit.pose
    out = replace(piece, x_mm=float(x), y_mm=float(y), outline_px=meeple.fit.outline_px,
                  confidence=float(np.clip(meeple.fit.support, 0.0, 1.0)))
    search.fitted[id(out)] = meeple
    return out


def _meeple_may_explain(reason: str | None) -> bool:
    """Whether every doubt about an uncertain pawn or die is one a meeple fitted there clears (see
    _MEEPLE_DOUBTS): not a hand, the picture's edge, a print's look or its colour."""
    doubts = [r for r in (reason or "").split("; ") if r]
    return bool(doubts) and all(r in _MEEPLE_DOUBTS or (r.startswith("die face unclear: ")) for r in doubts)


def _meeple_pawn(search: FigureSearch, piece: DetectedPiece, meeple: _Candidate) -> DetectedPiece:
    """A pawn where the meeple fitted in place of an uncertain pawn or die stands: its suit read from the meeple's
    own middle (a die's top face or a peg's silhouette held other pixels); uncertain if that colour is unclear."""
    seen = _inside_pixels(search.image, meeple.fit.outline_px, 0.5)
    vote = classify_suit(np.median(seen, axis=0) if len(seen) else np.zeros(3), suit_references(search.profile))
    x, y, _ = meeple.fit.pose
    support = float(np.clip(meeple.fit.support, 0.0, 1.0))
    reason = (vote.reason or "colour unclear") if vote.ambiguous else None
    out = replace(piece, kind=Kind.PAWN, x_mm=float(x), y_mm=float(y), angle_deg=0.0, rank=None, suit=vote.suit,
                  outline_px=meeple.fit.outline_px, uncertain=vote.ambiguous, reason=reason,
                  confidence=min(support, 0.5) if vote.ambiguous else support)
    search.fitted[id(out)] = meeple
    return out


def _same_plastic(a: np.ndarray, b: np.ndarray, max_chroma: float = 0.2, max_ratio: float = 1.6) -> bool:
    """Whether two colours (BGR) can be one plastic seen twice: log-chromaticities within ``max_chroma`` and
    brightness within a factor ``max_ratio`` (a lit top and a shaded side differ by that much at most)."""
    la, lb = np.log(np.maximum(np.asarray(a, np.float64), 4.0)), np.log(np.maximum(np.asarray(b, np.float64), 4.0))
    chroma = float(np.linalg.norm((la - la.mean()) - (lb - lb.mean())))
    return chroma <= max_chroma and abs(float(la.mean() - lb.mean())) <= math.log(max_ratio)


def _sure_die_on_top(search: FigureSearch, blob: Blob, crop: FrameCrop, pawn: DetectedPiece, top: _TopFace,
                     whole: bool) -> DetectedPiece | None:
    """The die a piece fitted as a sure pawn is, where its top shows a die's face plainly (see _DIE_TOP_SURE_SCORE):
    the die model refitted in full from the fit whose top showed the face, reported as a sure die of the pawn's
    suit showing that face; None where any of that disagrees or is unclear (the piece is then "a pawn or a die")."""
    face = top.face
    if face.ambiguous or face.blank or face.rank is None or face.score < _DIE_TOP_SURE_SCORE:
        return None
    die = replace(top.die, fit=_refit(search, crop, top.die, top.die.fit.pose))
    piece = _report(search, blob, die, [], whole=whole)
    if piece.uncertain or piece.rank != face.rank or piece.suit != pawn.suit or _flat_print(search, blob, die, piece):
        search.fitted.pop(id(piece), None)
        return None
    return piece


def _die_face_on_top(face, pawn: _Candidate) -> bool:
    """Whether a face read where a pawn was fitted (:func:`_die_face_where`) is a die's (see
    _PAWN_TOP_FACE_SCORE)."""
    if face is None or face.rank is None:
        return False
    return face.score >= _PAWN_TOP_FACE_SCORE or (not face.ambiguous and _outline_support(pawn) < _PAWN_FACE_SUPPORT)


def _silhouette_pixels(search: FigureSearch, outline_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A few thousand of the frame's BGR pixels inside a fitted silhouette (frame pixels) and the table's estimated
    colour at each (two (n, 3) float arrays; empty when the silhouette lies off the frame)."""
    x0, y0 = np.floor(outline_px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(outline_px.max(axis=0)).astype(int) + 1
    h, w = search.image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3)), np.zeros((0, 3))
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((outline_px - (x0, y0)) * 16).astype(np.int32).reshape(-1, 1, 2), 1,
                       cv2.LINE_8, 4)
    ys, xs = np.nonzero(mask)
    step = max(1, len(xs) // 2000)  # a few thousand pixels tell shares and medians well enough
    ys, xs = ys[::step], xs[::step]
    seen = search.image[y0:y1, x0:x1][ys, xs].astype(np.float64)
    table = search.background_at(np.column_stack([xs + x0, ys + y0]).astype(np.float64)).astype(np.float64)
    return seen, table


def _coloured_share(search: FigureSearch, outline_px: np.ndarray, min_chroma: float = 0.12) -> float:
    """The share of a fitted silhouette (frame pixels) whose chromaticity differs from the table's there by more
    than ``min_chroma`` (log-chromaticity distance): plastic rather than table or shadow (a shadow darkens the
    table without changing its chromaticity much)."""
    return _chroma_share(*_silhouette_pixels(search, outline_px), min_chroma)


def _chroma_share(seen: np.ndarray, table: np.ndarray, min_chroma: float) -> float:
    if len(seen) == 0:
        return 1.0
    return float(chroma_differs(seen, table, min_chroma).mean())


def _pale_print(search: FigureSearch, outline_px: np.ndarray) -> bool:
    """Whether a pawn's fitted silhouette (frame pixels) is neither coloured nor darker than the table: a print on
    a light coin rather than plastic (see _PALE_PAWN_LIGHTNESS)."""
    seen, table = _silhouette_pixels(search, outline_px)
    if len(seen) == 0 or _chroma_share(seen, table, 0.12) >= _MIN_PAWN_COLOURED_SHARE:
        return False
    lightness = np.median(seen.mean(axis=1) / np.maximum(table.mean(axis=1), 1.0))
    return bool(lightness >= _PALE_PAWN_LIGHTNESS)


def _seen_shares(search: FigureSearch, blob: Blob, outline_mm: np.ndarray) -> tuple[float, float]:
    """How a fitted silhouette (table mm) and the region's own foreground overlap: the share of the silhouette
    on the region, and the share of the region under the silhouette ((1, 1) without a mask)."""
    if blob.mask is None:
        return 1.0, 1.0
    x, y, w, h = blob.box
    pad = 16
    inside = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    poly = (search.view.to_px(outline_mm) - (x - pad, y - pad)) * 16
    cv2.fillPoly(inside, [np.round(poly).astype(np.int32).reshape(-1, 1, 2)], 1, cv2.LINE_8, 4)
    mask = blob.mask > 0
    area, region = int(inside.sum()), int(mask.sum())
    if area == 0 or region == 0:
        return 1.0, 1.0
    both = float((inside[pad : pad + h, pad : pad + w].astype(bool) & mask).sum())
    return both / area, both / region


def _flat_print(search: FigureSearch, blob: Blob, best: _Candidate, piece: DetectedPiece) -> bool:
    """Whether a die fitted to a blob is a flat thing (a print on a coin) rather than a standing cube: its
    silhouette's outline weakly found (under ``_DIE_SIDES_SUPPORT``) *and* the silhouette lying mostly off the
    region seen (under ``_DIE_SIDES_SEEN``). On rendered coin grids (bench_states seeds 100-121 and the states
    tests' frames, four editions) the crown prints of classic coins gave outline 0.23-0.54 and 0.35-0.74 on the
    region; real dice standing on coins 0.53 or more outlined, and the one under 0.66 lay 0.93 on its region.
    A die next to a hand or at the picture's edge is left to the uncertain report (its sides may be hidden).

    A weakly outlined die whose top reads as a print (its mark darker than the face: a die's ink is light) is a
    print too, wherever its silhouette lies: a crown on an unclear coin among coins read surely (left out of the
    regions) is a region of its own, the silhouette of a die on that coin lying on it (0.85: Whack-a-Dummy classic
    107). On the rooms' frames (Roll Out the Barrels, Whack-a-Dummy, Trampo-Land, seeds 100-121) and the dice
    scenes (seeds 500-511), four editions: phantom dice on coins reading a print were outlined 0.34-0.54, real dice
    0.66 or more, and no real die reads a print (see the handoff dice-11)."""
    if blob.touches_edge or blob.faint or best.fit is None or best.fit.support >= _DIE_SIDES_SUPPORT:
        return False
    outline_mm = silhouette_mm(best.model, best.fit.pose, search.camera_mm, best.base_h)
    if _near_obstruction(search, outline_mm):
        return False
    return PRINT_FACE_REASON in (piece.reason or "") or _seen_shares(search, blob, outline_mm)[0] < _DIE_SIDES_SEEN


def _disagree(search: FigureSearch, blob: Blob, best: _Candidate, whole: bool) -> bool:
    """Whether the edge fit and the region's placement (the coarse pose) are too far apart to trust the
    position. A region as found: more than ``_DISAGREE_MM``, except next to the sheet's paper edge (whose own
    strong edge shifts the region). A part cut from a bigger region (its outline is partly the cut's): more than
    ``_DISAGREE_PART_MM`` unless the outline is all but complete (then the outline places it)."""
    moved = math.hypot(best.fit.pose[0] - best.coarse.pose[0], best.fit.pose[1] - best.coarse.pose[1])
    if not whole:
        return moved > _DISAGREE_PART_MM and _outline_support(best) < _CLEAR_SUPPORT
    return moved > _DISAGREE_MM and _on_band(search, blob, "paper_band") < 0.05


def _ridges_disagree(search: FigureSearch, best: _Candidate) -> bool:
    """Whether the base outline alone (the ridges not pulling) fits more than ``_RIDGES_DISAGREE_MM`` away from
    the pose outline and ridges found together."""
    fit = best.fit
    crop = search.crop_for(search.calibration.pixel_to_table(fit.outline_px), margin_mm=8.0)
    alone = refine_pose(crop, search.projector, best.model, fit.pose, best.base_h, contrast_share=0.2,
                        max_per_edge=16, inner_weight=0.0, iterations=4)
    return math.hypot(alone.pose[0] - fit.pose[0], alone.pose[1] - fit.pose[1]) > _RIDGES_DISAGREE_MM


def _rival_margin(search: FigureSearch, best: _Candidate) -> float:
    """How much better than the runner-up (another size or pose) the best must score to be sure: more for a
    piece only a few pixels across (a Small far away), where one pixel of outline is a size step."""
    x, y = best.fit.pose[:2]
    try:
        ppm = search.calibration.px_per_mm_at(np.array([x, y]))
    except (ValueError, np.linalg.LinAlgError):
        ppm = 2.0
    base_px = model_size_pose(best.model)[0].base_mm * ppm
    return _MIN_MARGIN + _SMALL_MARGIN * float(np.clip((_FEW_PX - base_px) / 10.0, 0.0, 1.0))


def _outline_support(cand: _Candidate) -> float:
    """The share of the expected edges found: a die's top-face creases count as much as its outline (its
    outline often runs along its own shadow; the top face's edges are crisp)."""
    fit = cand.fit
    if fit is None:
        return 0.0
    return 0.5 * (fit.support + fit.crease_support) if cand.kind == "die" else fit.support


def _die_side(model: FigureModel) -> float:
    return float(model.points[:, 2].max())


def _hidden_under(search: FigureSearch, blob: Blob) -> list[DetectedPiece]:
    """Figures merged into a big region (a hand or an arm over the table, a box): see :func:`_off_colour_parts`.
    Everything found there is reported uncertain (``_report`` sees the obstruction next to it)."""
    out: list[DetectedPiece] = []
    for part in _off_colour_parts(search, blob):
        if part.area_mm2 < _OBSTRUCTION_MM2:
            out.extend(_explain(search, part, depth=2, crop=search.crop_for(part.hull_mm)))
    return out


def _off_colour_parts(search: FigureSearch, blob: Blob) -> list[Blob]:
    """The parts of a region whose colour is none of its few dominant colours (k-means clusters holding a fifth of
    it or more): a figure on a tile nobody said was there, a figure held in a hand."""
    view = search.view
    x, y, w, h = blob.box
    mask = blob.mask.astype(bool)
    pixels = view.image[y : y + h, x : x + w][mask].astype(np.float32)
    if len(pixels) < 50:
        return []
    k = 3
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, labels, centres = cv2.kmeans(pixels, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    dominant = centres[share >= 0.2]
    if len(dominant) == 0:
        return []
    crop = view.image[y : y + h, x : x + w].astype(np.float32)
    dist = np.min(np.linalg.norm(crop[:, :, None, :] - dominant[None, None, :, :], axis=3), axis=2)
    other = (mask & (dist > _OTHER_COLOUR)).astype(np.uint8)
    other = cv2.morphologyEx(other, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    count, comp, stats, _ = cv2.connectedComponentsWithStats(other, connectivity=8)
    parts = []
    for label in range(1, count):
        bx, by, bw, bh, area = (int(v) for v in stats[label])
        if area / view.px_per_mm**2 < _MIN_HIDDEN_MM2:
            continue
        sub = (comp[by : by + bh, bx : bx + bw] == label).astype(np.uint8)
        part = blob_from_mask(view, blob.label, sub, x + bx, y + by, blob.touches_edge)
        if part is not None:
            parts.append(part)
    return parts
