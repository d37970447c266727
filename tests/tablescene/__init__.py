"""tablescene: renders realistic camera frames of a table with piecepack and Icehouse pieces, with exact truth.

Test tooling for everything vision-related in tableside. Deterministic: the same scene, camera, seed and
quality give the same image bit for bit.

Quick start::

    import numpy as np
    from tablescene import *
    pieces = easy_slider_layout(easy_slider_board(rng=1), rng=1)
    scene = Scene(pieces=pieces, table="wood", sheet="a3", hands=[Hand(150, 200, angle_deg=-10)],
                  lighting=Lighting.random(np.random.default_rng(1)))
    result = render(scene, CameraSpec(distance_mm=650, tilt_deg=12, target_mm=(148, 210)), seed=1)
    result.image            # BGR uint8, e.g. 1232 x 1640
    result.truth            # list[PieceTruth]: kind, suit, rank, side, x_mm, y_mm, angle_deg, center_px,
                            #   polygon_px, top_center_px, bbox_px, occluded_fraction, hand_fraction, hidden...
    result.homography       # table mm (height 0) -> undistorted pixels (= image pixels when k1 = k2 = 0)
    result.project(xy_mm, h_mm)   # exact pixels (lens distortion included) of table points at a height
    result.labels           # int16 per pixel: piece index, -1 table/sheet, -2 hand, -3 prop
    result.save("frame.jpg")      # and frame.json with the truth

Frames and conventions (shared with calibration and vision): table millimetres in the calibration sheet's frame
(origin at its top-left corner, x right, y down, heights up); ``angle_deg`` clockwise as seen from above, 0 = the
piece's top toward -y.

Scene contents (:mod:`tablescene.scene`):
  ``TilePiece(suit, rank, side="face"|"back", x_mm, y_mm, angle_deg, edition=None)`` 50.8 mm square, a few mm thick;
  ``CoinPiece(suit, rank, side="value"|"suit", x_mm, y_mm, angle_deg)`` 19 mm; rests on a tile under its centre;
  ``PawnPiece(suit, x_mm, y_mm, angle_deg)`` ~25-28 mm tall (peg or meeple by edition);
  ``DiePiece(suit, top, x_mm, y_mm, angle_deg, north=None)`` 12.7 mm cube, faces null, ace, 2-5, suit-coloured;
  ``PyramidPiece(color, size, pose="upright"|"flat", x_mm, y_mm, angle_deg)`` translucent Looney pyramids; flat ones
  lie on a side with the apex toward ``angle_deg``.
  Pieces later in the list rest on earlier ones under their centre (coins on tiles, dice on coins).
  ``Hand(x_mm, y_mm, angle_deg, h_mm, pose="flat"|"point"|"pinch", skin, sleeve, motion_px)`` fingertips at (x, y).
  ``Lighting(lamp_mm, lamp_radius_mm, ambient, direct, shadow_strength, glare, white_balance, exposure, vignetting,
  noise, blur_px, jpeg_quality, gradient, chromatic_px, shake_px)`` or ``Lighting.random(rng)`` (the room's light
  and what the camera does to it).
  ``Prop(kind="phone"|"notepad"|"pencil"|"mug"|"box", x_mm, y_mm, angle_deg, color)``: distractors (no truth entry,
  pixels labelled PROP_ID = -3, they cast shadows).
  ``Scene(pieces, table="wood"|"dark-wood"|"felt"|"cloth"|"tablecloth"|"laminate", table_variant, sheet="a4"|"a3"|
  "letter"|None, edition="default", hands, lighting, props, table_rect_mm=None)``; with ``table_rect_mm`` the
  table top ends there and the floor shows beyond it.

Editions (:mod:`tablescene.editions`): ``EDITIONS`` "default" (the one vision's built-in profile covers),
"classic", "hand-made", "bold"; each an :class:`Edition` dataclass (suit colours, symbol style, numeral font,
ace/null style, tile/coin colours and thickness, gloss...).

Camera (:mod:`tablescene.camera`): ``CameraSpec(resolution=(1640, 1232), distance_mm, tilt_deg, yaw_deg,
target_mm, focal_px=None, k1, k2)``: a pinhole at ``distance_mm`` from ``target_mm`` (Pi camera field of view by
default), tilted back toward the player (+y) and turned by yaw; OpenCV radial distortion.

Layouts (:mod:`tablescene.layouts`): ``easy_slider_layout``, ``easy_slider_board``, ``coin_grid``,
``tile_block`` (2x2 / 4x4 blocks of tile backs with coins on cells), ``shuffleboard_scatter``, ``teach_layout``.

Sequences (:mod:`tablescene.video`): ``plan_moves(scene, [Slide(piece_index, to_mm), ...], fps)`` -> ``Plan``
(per-frame scenes, ``stills``: frame ranges at rest with their position); ``render_plan(plan, camera,
video_path=...)`` -> per-frame truth; ``write_video`` / ``read_video`` (.mp4 'mp4v' or .avi 'MJPG').

render(scene, camera, seed=0, quality="draft"|"normal"|"high") -> RenderResult (:mod:`tablescene.render`):
"normal" supersamples 2x, "high" 3x, "draft" not at all (less where the canvas would pass 30 M pixels:
4608x2592 frames are rendered at 1x). A 1640x1232 "normal" frame
takes about 0.9 CPU seconds (plus ~1 s once per process for textures and the lens map); 320x240 draft frames
are a few hundredths of a second for quick tests. ``result.timings`` has the cumulative time of each stage.
"""

from .camera import PI_RESOLUTIONS, Camera, CameraSpec
from .editions import DEFAULT_EDITION, EDITIONS, Edition, edition
from .layouts import (
    EASY_SLIDER_ORIGIN_A3,
    GridGeometry,
    coin_grid,
    easy_slider_board,
    easy_slider_layout,
    shuffleboard_scatter,
    teach_layout,
    tile_block,
)
from .raster import BACKGROUND_ID, HAND_ID, PROP_ID
from .render import QUALITIES, render
from .scene import (
    PROP_KINDS,
    SKIN_TONES,
    CoinPiece,
    DiePiece,
    Hand,
    Lighting,
    PawnPiece,
    Prop,
    PyramidPiece,
    Scene,
    TilePiece,
)
from .truth import PieceTruth, RenderResult, load_truth
from .video import Plan, Slide, Still, plan_moves, read_video, render_plan, write_video

__all__ = [
    "BACKGROUND_ID",
    "Camera",
    "CameraSpec",
    "CoinPiece",
    "DEFAULT_EDITION",
    "DiePiece",
    "EASY_SLIDER_ORIGIN_A3",
    "EDITIONS",
    "Edition",
    "GridGeometry",
    "HAND_ID",
    "Hand",
    "Lighting",
    "PI_RESOLUTIONS",
    "PawnPiece",
    "PieceTruth",
    "PROP_ID",
    "PROP_KINDS",
    "Prop",
    "Plan",
    "PyramidPiece",
    "QUALITIES",
    "RenderResult",
    "SKIN_TONES",
    "Scene",
    "Slide",
    "Still",
    "TilePiece",
    "coin_grid",
    "easy_slider_board",
    "easy_slider_layout",
    "edition",
    "load_truth",
    "plan_moves",
    "read_video",
    "render",
    "render_plan",
    "shuffleboard_scatter",
    "teach_layout",
    "tile_block",
    "write_video",
]
