"""render(scene, camera, seed) -> a camera frame of the table with exact ground truth.

Pipeline (every step in the supersampled, undistorted pinhole canvas; lens distortion is applied last by one
exact cv2.remap, so projected ground truth (cv2.projectPoints) and the picture agree to sub-pixel accuracy):

1. table: procedural surface textures and the calibration sheet, warped with the table-plane homography;
   lit per pixel by the lamp (falloff, glare on varnish) with soft shadows and contact shadows;
2. pieces: planar faces (textured tops, tessellated sides, pawns, dice) depth-tested, lit per face or per pixel;
3. hands: shaded capsules, depth-tested, optionally motion-blurred;
4. translucent pyramids, back to front: coloured filtering, scattered light, glare, darker rims;
5. box-filter down to the camera resolution, remap through the lens distortion;
6. the camera: uneven light, vignetting, exposure and white balance, lens blur, tone curve, sensor noise,
   sharpening, JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from time import perf_counter

import cv2
import numpy as np

from calibration.sheet import draw_sheet, sheet_layout, sheet_pixel_matrix

from . import surfaces
from .camera import Camera, CameraSpec
from .editions import edition as get_edition
from .geometry import Face, Solid, _box_faces, build_prop, build_solid
from .hands import draw_hands, hand_casters
from .lighting import Caster, LightModel, ShadowMaps
from .raster import BACKGROUND_ID, HAND_ID, PROP_ID, Canvas
from .scene import DiePiece, PawnPiece, PyramidPiece, Scene
from .truth import PieceTruth, RenderResult

__all__ = ["render", "QUALITIES"]

QUALITIES = ("draft", "normal", "high")
_TEX_PPM = (3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0)
_SHEET_PPM = (3.0, 4.0, 6.0, 8.0, 12.0)
_PAPER_BGR = np.array([238.0, 243.0, 245.0], np.float32)
_HIDDEN_AT = 0.5  # a piece is "hidden" when at least this fraction of it is covered


def _supersample(quality: str, cam: Camera) -> int:
    if quality not in QUALITIES:
        raise ValueError(f"quality must be one of {', '.join(QUALITIES)}, not {quality!r}")
    # keep the supersampled canvas under ~30 M pixels (memory: ~0.5 GB of float buffers)
    pixels = cam.width * cam.height
    wanted = {"draft": 1, "normal": 2, "high": 3}[quality]
    while wanted > 1 and pixels * wanted * wanted > 30e6:
        wanted -= 1
    return wanted


@dataclass(frozen=True)
class _CanvasGeometry:
    K: np.ndarray  # canvas intrinsics (supersampled, shifted)
    width: int
    height: int
    s: int
    offset: tuple[int, int]  # 1x canvas origin in undistorted pixel coordinates
    map_x: np.ndarray  # output pixel -> 1x canvas coordinates (float32)
    map_y: np.ndarray


def _camera_key(cam: Camera) -> tuple:
    return (cam.width, cam.height, tuple(np.round(cam.K.ravel(), 9)), tuple(np.round(cam.dist, 12)))


@lru_cache(maxsize=8)
def _canvas_geometry_cached(key: tuple, s: int) -> _CanvasGeometry:
    width, height, k_flat, dist = key
    K = np.array(k_flat).reshape(3, 3)
    probe = Camera(width, height, K, np.array(dist), np.eye(3), np.zeros(3))
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    norm = probe.undistort_normalized(np.stack([xs, ys], axis=-1))
    und_x = norm[..., 0] * K[0, 0] + K[0, 2]
    und_y = norm[..., 1] * K[1, 1] + K[1, 2]
    ox = int(math.floor(und_x.min())) - 3
    oy = int(math.floor(und_y.min())) - 3
    w1 = int(math.ceil(und_x.max())) - ox + 4
    h1 = int(math.ceil(und_y.max())) - oy + 4
    Ks = np.array([
        [s * K[0, 0], 0.0, s * (K[0, 2] - ox) + (s - 1) / 2.0],
        [0.0, s * K[1, 1], s * (K[1, 2] - oy) + (s - 1) / 2.0],
        [0.0, 0.0, 1.0],
    ])
    map_x = (und_x - ox).astype(np.float32)
    map_y = (und_y - oy).astype(np.float32)
    return _CanvasGeometry(Ks, w1 * s, h1 * s, s, (ox, oy), map_x, map_y)


def _canvas_geometry(cam: Camera, s: int) -> _CanvasGeometry:
    return _canvas_geometry_cached(_camera_key(cam), s)


def _bucket(value: float, choices: tuple[float, ...]) -> float:
    for c in choices:
        if c >= value * 0.9:
            return c
    return choices[-1]


# --------------------------------------------------------------------------------------------------------
# scene -> solids
def _contains(solid: Solid, x: float, y: float) -> bool:
    poly = solid.footprint.astype(np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0


_SUPPORTS = {
    "tile": ("tile",),
    "coin": ("tile", "coin"),
    "die": ("tile", "coin"),
    "pawn": ("tile", "coin"),
    "pyramid": ("tile", "coin", "pyramid"),
}


def _build_solids(scene: Scene, texture_ppm: float) -> tuple[list[Solid], dict[int, int | None]]:
    """Solids in list order; each rests on the highest earlier piece of a supporting kind under its centre."""
    solids: list[Solid] = []
    support: dict[int, int | None] = {}
    for index, piece in enumerate(scene.pieces):
        ed = get_edition(getattr(piece, "edition", None) or scene.edition)
        base, on = 0.0, None
        if piece.h_mm is not None:
            base = float(piece.h_mm)
        else:
            for other in solids:
                if other.piece.kind in _SUPPORTS[piece.kind] and other.top_h > base - 1e-6:
                    if not (isinstance(other.piece, PyramidPiece) and other.piece.pose == "flat") and _contains(
                        other, piece.x_mm, piece.y_mm
                    ):
                        base, on = other.top_h, other.index
        support[index] = on
        solids.append(build_solid(index, piece, ed, base, texture_ppm))
    return solids, support


_AO = {"tile": (1.6, 0.4), "coin": (1.2, 0.4), "die": (1.4, 0.5), "pawn": (2.5, 0.5), "pyramid": (2.5, 0.5)}


def _casters(solids: list[Solid]) -> list[Caster]:
    casters = []
    for solid in solids:
        if solid.piece is None:  # the table's own edge casts nothing we draw
            continue
        ao_radius, ao_strength = _AO.get(solid.piece.kind, (2.5, 0.45))  # props: like a pawn's
        casters.append(Caster(solid.casters, solid.tint if solid.translucent else (0.0, 0.0, 0.0), solid.footprint,
                              solid.base_h, ao_radius, ao_strength))
    return casters


# --------------------------------------------------------------------------------------------------------
def _visible_table_box(canvas: Canvas) -> tuple[float, float, float, float]:
    """Bounding box (mm) of the table plane seen by the canvas, limited to 3 m around the camera's target."""
    corners = np.array([[0, 0], [canvas.w, 0], [canvas.w, canvas.h], [0, canvas.h]], float)
    H = canvas.K @ np.column_stack([canvas.camera.R[:, 0], canvas.camera.R[:, 1], canvas.camera.t])
    q = np.column_stack([corners, np.ones(4)]) @ np.linalg.inv(H).T
    centre = canvas.camera.centre_mm[:2]
    if np.any(q[:, 2] <= 0):
        return centre[0] - 1500, centre[1] - 1500, centre[0] + 1500, centre[1] + 1500
    xy = q[:, :2] / q[:, 2:3]
    x0, y0 = np.maximum(xy.min(axis=0), centre - 1500)
    x1, y1 = np.minimum(xy.max(axis=0), centre + 1500)
    return float(x0), float(y0), float(x1), float(y1)


def _table_homography(canvas: Canvas, h_mm: float = 0.0) -> np.ndarray:
    R, t = canvas.camera.R, canvas.camera.t
    return canvas.K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * (-h_mm) + t])


def _sheet_image(paper: str, ppm: float) -> np.ndarray:
    return _sheet_image_cached(paper, ppm)


@lru_cache(maxsize=4)
def _sheet_image_cached(paper: str, ppm: float) -> np.ndarray:
    gray = draw_sheet(sheet_layout(paper), ppm).astype(np.float32) / 255.0
    # printer toner is not perfectly black, paper not perfectly white
    bgr = gray[..., None] * _PAPER_BGR + (1 - gray[..., None]) * np.array([28.0, 26.0, 26.0], np.float32)
    return bgr.astype(np.float32)


def _draw_table(canvas: Canvas, scene: Scene, light: LightModel, density: float) -> np.ndarray:
    """The lit table and sheet as a float32 BGR image of ``canvas``'s size (drawn at 1x: it is smooth)."""
    tex = surfaces.surface_textures(scene.table, scene.table_variant)
    H = _table_homography(canvas)
    size = (canvas.w, canvas.h)
    p = surfaces.COARSE_PX_PER_MM
    origin = 150.0 - surfaces.COARSE_MM / 2
    tex_to_table = np.array([[1 / p, 0, 0.5 / p + origin], [0, 1 / p, 0.5 / p + origin], [0, 0, 1]])
    coarse = cv2.warpPerspective(tex.coarse, H @ tex_to_table, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    texels = int(min(1024, max(128, round(surfaces.FINE_MM * density / 64.0) * 64)))
    fine = surfaces.fine_layer(scene.table, scene.table_variant, texels)
    pf = texels / surfaces.FINE_MM
    fine_to_table = np.array([[1 / pf, 0, 0.5 / pf], [0, 1 / pf, 0.5 / pf], [0, 0, 1]])
    detail = cv2.warpPerspective(fine, H @ fine_to_table, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    color = cv2.multiply(coarse.astype(np.float32), cv2.merge([detail, detail, detail]))
    gloss_map = None
    if scene.sheet:
        layout = sheet_layout(scene.sheet)
        sp = _bucket(density, _SHEET_PPM)
        sheet = _sheet_image(scene.sheet, sp)
        Hs = H @ np.linalg.inv(sheet_pixel_matrix(sp))
        corners = np.array([[0, 0, 0], [layout.width_mm, 0, 0], [layout.width_mm, layout.height_mm, 0],
                            [0, layout.height_mm, 0]], float)
        uv, _ = canvas.project(corners)
        box = canvas.roi(uv)
        if box is not None:
            x0, y0, x1, y1 = box
            T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
            warped = cv2.warpPerspective(sheet, T @ Hs, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE)
            # anti-aliased paper edge: coverage of a 4x supersampled polygon
            mask = _aa_polygon(uv - [x0, y0], (x1 - x0, y1 - y0))
            region = color[y0:y1, x0:x1]
            region[:] = region * (1 - mask[..., None]) + warped * mask[..., None]
            gloss_map = np.full((canvas.h // 4 + 1, canvas.w // 4 + 1), tex.gloss, np.float32)
            small = cv2.resize(mask, ((x1 - x0 + 3) // 4, (y1 - y0 + 3) // 4), interpolation=cv2.INTER_AREA)
            gy, gx = y0 // 4, x0 // 4
            sub = gloss_map[gy : gy + small.shape[0], gx : gx + small.shape[1]]
            sub[:] = sub * (1 - small[: sub.shape[0], : sub.shape[1]]) + 0.03 * small[: sub.shape[0], : sub.shape[1]]
    # lighting on a coarse grid, interpolated (light varies slowly; shadows are soft)
    step = 4
    gw, gh = canvas.w // step + 1, canvas.h // step + 1
    us = (np.arange(gw) + 0.5) * canvas.w / gw - 0.5
    vs = (np.arange(gh) + 0.5) * canvas.h / gh - 0.5
    uu, vv = np.meshgrid(us, vs)
    coef = canvas.plane_invz(np.zeros(3), np.array([0.0, 0.0, -1.0]))
    pts = canvas.points_on_plane(uu.ravel(), vv.ravel(), coef)
    mult, spec = light.shade(pts, np.array([0.0, 0.0, -1.0]), 1.0, tex.shininess, 0.0)
    spec = spec.reshape(gh, gw, 3)
    if gloss_map is not None:
        spec *= cv2.resize(gloss_map, (gw, gh), interpolation=cv2.INTER_LINEAR)[..., None]
    else:
        spec *= tex.gloss
    mult = cv2.resize(mult.reshape(gh, gw, 3), size, interpolation=cv2.INTER_LINEAR)
    spec = cv2.resize(spec, size, interpolation=cv2.INTER_LINEAR)
    lit = cv2.add(cv2.multiply(color, mult), spec)
    if scene.table_rect_mm is not None:
        lit = _beyond_the_table(canvas, scene, lit)
    return lit


_FLOOR_MM = 740.0  # the floor is this far below the table top
_TABLE_TOP_MM = 28.0  # thickness of the table top (its edge shows when the camera is beyond it)


def _table_edge(scene: Scene) -> Solid:
    """The edges of the table top, as a solid whose pixels count as table (BACKGROUND_ID)."""
    x0, y0, x1, y1 = scene.table_rect_mm
    tex = surfaces.surface_textures(scene.table, scene.table_variant)
    albedo = tuple(float(c) * 0.75 for c in tex.coarse.reshape(-1, 3)[::997].mean(axis=0))
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    faces = _box_faces(centre, (x1 - x0) / 2, (y1 - y0) / 2, -_TABLE_TOP_MM, 0.0, 0.0, albedo, 0.2, 20.0)
    return Solid(BACKGROUND_ID, None, faces, [], np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float),
                 -_TABLE_TOP_MM, 0.0)


def _clip_near(points: np.ndarray, canvas: Canvas, near: float = 10.0) -> np.ndarray:
    """Clip a world polygon to the part at least ``near`` mm in front of the camera (Sutherland-Hodgman)."""
    depth = (points @ canvas.camera.R.T + canvas.camera.t)[:, 2]
    out = []
    for i in range(len(points)):
        j = (i + 1) % len(points)
        a, b, da, db = points[i], points[j], depth[i], depth[j]
        if da >= near:
            out.append(a)
        if (da >= near) != (db >= near):
            out.append(a + (b - a) * (near - da) / (db - da))
    return np.array(out)


def _beyond_the_table(canvas: Canvas, scene: Scene, table: np.ndarray) -> np.ndarray:
    """Where the view goes past the table's edge: the floor, far below, dim and out of focus."""
    x0, y0, x1, y1 = scene.table_rect_mm
    rect = _clip_near(np.array([[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]]), canvas)
    if len(rect) < 3:
        return table
    uv, _ = canvas.project(rect)
    # clamp far-off vertices so the fill stays in integer range; the polygon edge inside the view is unchanged
    uv = np.clip(uv, -4.0 * canvas.w, 5.0 * canvas.w)
    coverage = _aa_polygon(uv, (canvas.w, canvas.h))
    if coverage.min() >= 1.0:
        return table
    floor_kind = "dark-wood" if scene.table != "dark-wood" else "laminate"
    tex = surfaces.surface_textures(floor_kind, 2)
    R, t = canvas.camera.R, canvas.camera.t
    H_floor = canvas.K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * _FLOOR_MM + t])
    p = surfaces.COARSE_PX_PER_MM / 2.0  # floor boards are bigger than the table's grain
    tex_to_floor = np.array([[1 / p, 0, 0.0], [0, 1 / p, 0.0], [0, 0, 1]])
    floor = cv2.warpPerspective(tex.coarse, H_floor @ tex_to_floor, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    depth_ratio = _FLOOR_MM / max(float(canvas.camera.centre_mm[2] * -1), 1.0)
    floor = cv2.GaussianBlur(floor, (0, 0), max(0.5, 2.0 * depth_ratio * canvas.K[0, 0] / 1400.0))
    floor *= 0.45  # far from the lamp, in the table's shadow
    return table * coverage[..., None] + floor * (1 - coverage[..., None])


def _aa_polygon(uv: np.ndarray, size: tuple[int, int], ss: int = 4) -> np.ndarray:
    """Coverage (float32 0..1) of a polygon, from a supersampled fill."""
    w, h = size
    big = np.zeros((h * ss, w * ss), np.uint8)
    pts = np.round((uv * ss + (ss - 1) / 2.0) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(big, [pts], 255, lineType=cv2.LINE_8, shift=4)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


# --------------------------------------------------------------------------------------------------------
def _is_top(face: Face) -> bool:
    return face.normal[2] < -0.99


def _face_light(light: LightModel, points: np.ndarray, face: Face, normals: np.ndarray, solid: Solid):
    """Shading of points on ``face``: a horizontal top takes shadows from all that stands higher; sides and
    slopes only from hands (a convex piece does not shadow itself; n.l already darkens its far side)."""
    if _is_top(face):
        return light.shade(points, normals, face.gloss, face.shininess, float(-face.verts[0, 2]), "all")
    level = float(-points[:, 2].mean()) if len(points) else solid.base_h
    return light.shade(points, normals, face.gloss, face.shininess, level, "hands")


def _grid_light(canvas: Canvas, face: Face, solid: Solid, box, light: LightModel):
    """Per-pixel (multiplier, specular) over ``box`` for a big face, from a coarse grid."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    step = 6
    gw, gh = max(2, w // step + 1), max(2, h // step + 1)
    us = x0 + (np.arange(gw) + 0.5) * w / gw - 0.5
    vs = y0 + (np.arange(gh) + 0.5) * h / gh - 0.5
    uu, vv = np.meshgrid(us, vs)
    coef = canvas.plane_invz(face.verts[0], face.normal)
    pts = canvas.points_on_plane(uu.ravel(), vv.ravel(), coef)
    mult, spec = _face_light(light, pts, face, face.normal, solid)
    mult = cv2.resize(mult.reshape(gh, gw, 3), (w, h), interpolation=cv2.INTER_LINEAR)
    spec = cv2.resize(spec.reshape(gh, gw, 3), (w, h), interpolation=cv2.INTER_LINEAR)
    return mult, spec


def _projections(canvas: Canvas, solid: Solid) -> list[tuple[np.ndarray, np.ndarray]]:
    """(uv, z) of every face of a solid, projected in one call (cached on the solid)."""
    proj = solid.extra.get("_proj")
    if proj is None:
        counts = [len(f.verts) for f in solid.faces]
        uv, z = canvas.project(np.vstack([f.verts for f in solid.faces]))
        bounds = np.cumsum([0, *counts])
        proj = [(uv[a:b], z[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        solid.extra["_proj"] = proj
    return proj


def _face_setup(canvas: Canvas, face: Face, projected: tuple[np.ndarray, np.ndarray]):
    uv, z = projected
    if (z <= 1.0).any():
        return None
    if face.cull and (canvas.camera.centre_mm - face.verts[0]) @ face.normal <= 0:
        return None
    box = canvas.roi(uv)
    if box is None:
        return None
    return uv, box


def _texture_albedo(canvas: Canvas, face: Face, box) -> np.ndarray:
    corner, du, dv = face.tex_frame
    R, t = canvas.camera.R, canvas.camera.t
    H = canvas.K @ np.column_stack([R @ du, R @ dv, R @ (corner + 0.5 * du + 0.5 * dv) + t])
    x0, y0, x1, y1 = box
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    # the face polygon is the outline (a coin's too): replicate the border so edge pixels keep their colour
    return cv2.warpPerspective(face.texture, T @ H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _draw_solid(canvas: Canvas, solid: Solid, light: LightModel) -> None:
    """Draw a solid's opaque faces; small faces are lit together at their centroids (one shading call)."""
    visible = []
    for face, projected in zip(solid.faces, _projections(canvas, solid), strict=True):
        if face.alpha < 1.0:
            continue
        setup = _face_setup(canvas, face, projected)
        if setup is not None:
            visible.append((face, *setup))
    small = [item for item in visible if not item[0].big]
    flat_colors = {}
    if small:
        groups: dict[tuple, list] = {}
        for item in small:
            face = item[0]
            groups.setdefault((_is_top(face), face.gloss, face.shininess), []).append(item)
        for (_, _, _), items in groups.items():
            pts = np.array([it[0].verts.mean(axis=0) for it in items])
            normals = np.array([it[0].normal for it in items])
            mult, spec = _face_light(light, pts, items[0][0], normals, solid)
            for k, it in enumerate(items):
                flat_colors[id(it[0])] = np.asarray(it[0].albedo, np.float32) * mult[k] + spec[k]
    for face, uv, box in visible:
        x0, y0, x1, y1 = box
        top = _is_top(face)
        mask = canvas.polygon_mask(uv, box)
        invz = canvas.invz_grid(canvas.plane_invz(face.verts[0], face.normal), box)
        # sides win depth ties against the top they share an edge with (a continuous edge line)
        bias = np.float32(1.0) if top else np.float32(1.0 - 2e-5)
        sel = mask & (invz > canvas.invz[y0:y1, x0:x1] * bias)
        if face.texture is not None:
            if not sel.any():
                continue
            albedo = _texture_albedo(canvas, face, box)[..., :3].astype(np.float32)
        elif not sel.any():
            continue
        else:
            albedo = np.asarray(face.albedo, np.float32)
        if face.big:
            mult, spec = _grid_light(canvas, face, solid, box, light)
            color = albedo * mult + spec
        else:
            color = flat_colors[id(face)]
        canvas.write(box, sel, np.asarray(color, np.float32), invz, solid.index)


def _draw_translucent(canvas: Canvas, face: Face, solid: Solid, light: LightModel) -> None:
    k = next(i for i, f in enumerate(solid.faces) if f is face)
    setup = _face_setup(canvas, face, _projections(canvas, solid)[k])
    if setup is None:
        return
    uv, box = setup
    x0, y0, x1, y1 = box
    mask = canvas.polygon_mask(uv, box)
    invz = canvas.invz_grid(canvas.plane_invz(face.verts[0], face.normal), box)
    sel = mask & (invz > canvas.invz[y0:y1, x0:x1])
    if not sel.any():
        return
    color = np.asarray(face.albedo, np.float32)
    a = face.alpha
    # thicker plastic near the edges (seen at a grazing angle through the wall): stronger colour
    dist = cv2.distanceTransform(mask.astype(np.uint8), cv2.DIST_L2, 3)
    depth = float(np.mean(canvas.project(face.verts)[1]))
    rim_px = max(1.5, 0.7 * canvas.K[0, 0] / depth)
    rim = np.exp(-dist / rim_px) * face.edge_tint
    alpha = np.clip(a + (1 - a) * rim, 0, 1)[sel][:, None]
    mult, spec = _grid_light(canvas, face, solid, box, light)
    # Fresnel: walls seen at a grazing angle reflect the bright room more
    to_eye = canvas.camera.centre_mm - face.verts.mean(axis=0)
    cos_view = abs(float(face.normal @ to_eye) / np.linalg.norm(to_eye))
    fresnel = 0.04 + 0.96 * (1 - cos_view) ** 5
    # a pure tint: the plastic passes its own colour fully and absorbs the others
    filt = color / max(float(color.max()), 1.0)
    region = canvas.color[y0:y1, x0:x1]
    below = region[sel]
    lit = mult[sel]
    # transmitted light is filtered by the plastic's colour; light scattered inside it shows the face's shading
    out = below * ((1 - alpha) + alpha * filt) * 0.93
    out += alpha * color * (0.15 + 0.6 * np.clip(lit - light.lighting.ambient * 0.8, 0, None))
    out += spec[sel] + 255.0 * 0.5 * fresnel * light.lighting.ambient
    region[sel] = out
    canvas.ids[y0:y1, x0:x1][sel] = solid.index


def _coverage(canvas: Canvas, solid: Solid) -> tuple[tuple[int, int, int, int] | None, np.ndarray | None]:
    """The union mask of a solid's faces (as if nothing else were there) in its bounding box."""
    polys = [uv for face, (uv, z) in zip(solid.faces, _projections(canvas, solid), strict=True)
             if _face_setup(canvas, face, (uv, z)) is not None]
    if not polys:
        return None, None
    box = canvas.roi(np.vstack(polys))
    if box is None:
        return None, None
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for uv in polys:
        pts = np.round((uv - [x0, y0]) * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(mask, [pts], 1, lineType=cv2.LINE_8, shift=4)
    return box, mask.view(bool)


@lru_cache(maxsize=4)
def _radius2(w: int, h: int) -> np.ndarray:
    """Squared distance from the image centre, 1 at the corners."""
    ys = ((np.arange(h, dtype=np.float32) - (h - 1) / 2) / ((w - 1) / 2)) ** 2
    xs = ((np.arange(w, dtype=np.float32) - (w - 1) / 2) / ((w - 1) / 2)) ** 2
    r2 = (ys[:, None] + xs[None, :]) / np.float32(1 + (h / w) ** 2)
    r2.setflags(write=False)
    return r2


@lru_cache(maxsize=8)
def _radial_maps(w: int, h: int, corner_px: float) -> tuple[np.ndarray, np.ndarray]:
    """remap maps that sample a channel ``corner_px`` further out (> 0) at the corners: its image shrinks
    (< 0: it grows), in proportion to the distance from the centre (lateral chromatic aberration)."""
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    scale = 1.0 + corner_px / np.hypot(cx, cy)
    xs = (np.arange(w, dtype=np.float32) - cx) * scale + cx
    ys = (np.arange(h, dtype=np.float32) - cy) * scale + cy
    return (np.broadcast_to(xs[None, :], (h, w)).astype(np.float32),
            np.broadcast_to(ys[:, None], (h, w)).astype(np.float32))


def _shake_kernel(shake: tuple[float, float]) -> np.ndarray:
    length = int(math.ceil(math.hypot(*shake)))
    kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
    c = length
    cv2.line(kernel, (int(round(c - shake[0] / 2)), int(round(c - shake[1] / 2))),
             (int(round(c + shake[0] / 2)), int(round(c + shake[1] / 2))), 1.0, 1, cv2.LINE_AA)
    return kernel / kernel.sum()


def _camera_effects(img: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """What the camera does to the light: uneven light, vignetting, exposure and white balance, lens blur,
    a soft highlight shoulder, sensor noise (shot + read, partly chroma), sharpening and JPEG."""
    lt = scene.lighting
    h, w = img.shape[:2]
    r2 = _radius2(w, h)
    gain = np.float32(1.0) - np.float32(lt.vignetting) * r2 * (np.float32(0.7) + np.float32(0.3) * r2)
    if lt.gradient > 0:
        field = cv2.resize(rng.standard_normal((3, 4), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        gain *= np.float32(1) + np.float32(lt.gradient * 0.5) * np.clip(field, -2, 2)
    gain *= np.float32(lt.exposure)
    wb = np.asarray(lt.white_balance, np.float32)
    img = cv2.multiply(img, cv2.merge([gain * wb[0], gain * wb[1], gain * wb[2]]))
    if lt.chromatic_px > 0.05:
        b, g, r = cv2.split(img)
        r = cv2.remap(r, *_radial_maps(w, h, -lt.chromatic_px), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        b = cv2.remap(b, *_radial_maps(w, h, lt.chromatic_px * 0.6), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
        img = cv2.merge([b, g, r])
    if math.hypot(*lt.shake_px) >= 0.5:
        img = cv2.filter2D(img, -1, _shake_kernel(tuple(float(v) for v in lt.shake_px)),
                           borderType=cv2.BORDER_REPLICATE)
    if lt.blur_px > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), lt.blur_px)
    # tone curve: linear to a knee, then a soft shoulder (x / (1 + x)) instead of hard clipping
    knee, room = np.float32(205.0), np.float32(50.0)
    over = np.maximum(img - knee, 0)
    img = np.minimum(img, knee) + over / (np.float32(1) + over / room)
    if lt.noise > 0:
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        sigma = np.float32(0.45 * lt.noise) * np.sqrt(np.float32(0.35) * np.clip(gray, 0, 255) + np.float32(2.0))
        luma = rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.8)
        chroma = cv2.resize(rng.standard_normal((h // 2, w // 2, 3), dtype=np.float32), (w, h),
                            interpolation=cv2.INTER_LINEAR) * np.float32(0.45)
        img = img + (chroma + luma[..., None]) * sigma[..., None]
    # the camera's own sharpening
    soft = cv2.GaussianBlur(img, (0, 0), 1.2)
    img = cv2.addWeighted(img, 1.25, soft, -0.25, 0.5)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if lt.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(lt.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def render(scene: Scene, camera: CameraSpec | Camera, seed: int = 0, quality: str = "normal") -> RenderResult:
    """Render ``scene`` as seen by ``camera``; the same inputs and seed give the same image, bit for bit."""
    start = perf_counter()
    timings: dict[str, float] = {}
    cam = camera if isinstance(camera, Camera) else Camera.from_spec(camera)
    rng = np.random.default_rng(seed)
    s = _supersample(quality, cam)
    geo = _canvas_geometry(cam, s)
    canvas = Canvas(cam, geo.K, geo.width, geo.height)
    distance = float(np.linalg.norm(cam.centre_mm))
    target = cam.centre_mm + cam.R[2] * (-cam.centre_mm[2] / max(cam.R[2, 2], 1e-6))
    density = geo.K[0, 0] / max(float(np.linalg.norm(cam.centre_mm - target)), 1.0)
    del distance
    solids, support = _build_solids(scene, _bucket(density, _TEX_PPM))
    props = [build_prop(PROP_ID, prop) for prop in scene.props]
    if scene.table_rect_mm is not None:
        props.append(_table_edge(scene))
    hand_parts = [Caster(hand_casters(hand)) for hand in scene.hands]
    casters = _casters(solids + props) + hand_parts
    table_box = _visible_table_box(canvas)
    if solids or props or scene.hands:
        pts = [s_.footprint for s_ in solids + props] + [np.array([[h.x_mm, h.y_mm]]) for h in scene.hands]
        allpts = np.vstack(pts)
        x0, y0 = allpts.min(axis=0) - 400
        x1, y1 = allpts.max(axis=0) + 400
        region = (max(x0, table_box[0]), max(y0, table_box[1]), min(x1, table_box[2]), min(y1, table_box[3]))
        if region[2] <= region[0] or region[3] <= region[1]:
            region = table_box
    else:
        region = table_box
    lt = scene.lighting
    lamp = np.array([lt.lamp_mm[0], lt.lamp_mm[1], -lt.lamp_mm[2]], float)
    tops: dict[float, list] = {}
    for solid in solids + props:
        for face in solid.faces:
            if _is_top(face):
                tops.setdefault(round(-float(face.verts[0, 2]), 1), []).append(face.verts[:, :2])
    level_regions = {}
    for level, polys in tops.items():
        pts = np.vstack(polys)
        level_regions[level] = (*(pts.min(axis=0) - 3), *(pts.max(axis=0) + 3))
    shadows = ShadowMaps(casters, lamp, lt.lamp_radius_mm, lt.shadow_strength, region, 2.0, level_regions)
    hand_shadows = ShadowMaps(hand_parts, lamp, lt.lamp_radius_mm, lt.shadow_strength, region, 1.0,
                              level_step=5.0)
    light = LightModel(lt, cam.centre_mm, shadows, hand_shadows)
    timings["setup"] = perf_counter() - start

    # the table at 1x (smooth), scaled up to the supersampled canvas
    K1 = np.linalg.inv(np.array([[s, 0, (s - 1) / 2.0], [0, s, (s - 1) / 2.0], [0, 0, 1]])) @ geo.K
    table_canvas = Canvas(cam, K1, geo.width // s, geo.height // s) if s > 1 else canvas
    table = _draw_table(table_canvas, scene, light, density / s)
    canvas.color[:] = cv2.resize(table, (canvas.w, canvas.h), interpolation=cv2.INTER_LINEAR) if s > 1 else table
    del table_canvas, table
    timings["table"] = perf_counter() - start
    translucent: list[tuple[float, int, Face, Solid]] = []
    eye = cam.centre_mm
    for solid in solids + props:
        _draw_solid(canvas, solid, light)
        for face in solid.faces:
            if face.alpha < 1.0:
                point = face.sort_point if face.sort_point is not None else face.verts.mean(axis=0)
                translucent.append((float(np.linalg.norm(point - eye)), face.layer, face, solid))
    timings["pieces"] = perf_counter() - start
    draw_hands(canvas, scene.hands, lamp, lt.ambient, lt.direct, lt.glare, s, rng)
    timings["hands"] = perf_counter() - start
    for _, _, face, solid in sorted(translucent, key=lambda item: (-item[0], item[1])):
        _draw_translucent(canvas, face, solid, light)
    timings["pyramids"] = perf_counter() - start

    # ground truth occlusion, counted in the supersampled canvas
    coverage = {}
    for solid in solids:
        box, mask = _coverage(canvas, solid)
        if box is None:
            coverage[solid.index] = (0, 0, 0, None)
            continue
        x0, y0, x1, y1 = box
        ids = canvas.ids[y0:y1, x0:x1][mask]
        total = int(mask.sum())
        coverage[solid.index] = (total, int((ids == solid.index).sum()), int((ids == HAND_ID).sum()), box)

    # down to the camera resolution, through the lens
    # the lens blurs before the sensor samples: a little optical blur on the supersampled canvas keeps thin edges
    # (a tile's side seen edge-on) continuous instead of stair-stepped
    if s > 1:
        optics = cv2.GaussianBlur(canvas.color, (0, 0), 0.45 * s)
        small = cv2.resize(optics, (geo.width // s, geo.height // s), interpolation=cv2.INTER_AREA)
    else:
        small = canvas.color
    image = cv2.remap(small, geo.map_x, geo.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ids_small = canvas.ids[s // 2 :: s, s // 2 :: s][: geo.height // s, : geo.width // s]
    labels = cv2.remap(ids_small.astype(np.float32), geo.map_x, geo.map_y, cv2.INTER_NEAREST,
                       borderMode=cv2.BORDER_REPLICATE).astype(np.int16)
    timings["lens"] = perf_counter() - start
    image = _camera_effects(image, scene, rng)
    timings["camera"] = perf_counter() - start

    truth = [_piece_truth(solid, support[solid.index], coverage[solid.index], cam, geo, scene) for solid in solids]
    return RenderResult(
        image=image,
        truth=truth,
        camera=cam,
        homography=cam.homography(0.0),
        scene=scene,
        seed=seed,
        quality=quality,
        labels=labels,
        timings=timings,
    )


def _canvas_to_image(points: np.ndarray, cam: Camera, geo: _CanvasGeometry) -> np.ndarray:
    """Supersampled canvas coordinates -> output pixels (through the lens distortion)."""
    s = geo.s
    und = (np.asarray(points, float) - (s - 1) / 2.0) / s + geo.offset
    norm = (und - cam.K[:2, 2]) / [cam.K[0, 0], cam.K[1, 1]]
    world = np.column_stack([norm, np.ones(len(norm))])
    pix, _ = cv2.projectPoints(world.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), cam.K, cam.dist)
    return pix.reshape(-1, 2)


def _piece_truth(solid: Solid, on, cov, cam: Camera, geo: _CanvasGeometry, scene: Scene) -> PieceTruth:
    piece = solid.piece
    total, visible, by_hand, box = cov
    centre = np.array([[piece.x_mm, piece.y_mm]])
    ed_name = None
    if not isinstance(piece, PyramidPiece):
        ed_name = get_edition(getattr(piece, "edition", None) or scene.edition).name
    bbox = None
    if box is not None:
        x0, y0, x1, y1 = box
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float) - 0.5
        img_corners = _canvas_to_image(corners, cam, geo)
        bbox = [float(v) for v in (*img_corners.min(axis=0), *img_corners.max(axis=0))]
    outline = solid.footprint
    if len(outline) > 24:  # round pieces: 24 points describe the outline well enough
        outline = outline[np.linspace(0, len(outline), 24, endpoint=False).astype(int)]
    centre_px = cam.project(centre, 0.0)[0]
    in_frame = bool(0 <= centre_px[0] <= cam.width - 1 and 0 <= centre_px[1] <= cam.height - 1)
    occluded = 1.0 - visible / total if total else 0.0  # out of view is in_frame=False, not "hidden"
    fields = dict(
        index=solid.index,
        kind=piece.kind,
        suit=getattr(piece, "suit", None) and str(piece.suit.value),
        rank=getattr(piece, "rank", None),
        side=getattr(piece, "side", None),
        edition=ed_name,
        x_mm=float(piece.x_mm),
        y_mm=float(piece.y_mm),
        angle_deg=float(piece.angle_deg) % 360.0,
        base_mm=float(solid.base_h),
        top_mm=float(solid.top_h),
        on=on,
        center_px=[float(v) for v in centre_px],
        top_center_px=[float(v) for v in cam.project(centre, solid.top_h)[0]],
        polygon_px=cam.project(outline, 0.0).tolist(),
        top_polygon_px=cam.project(outline, solid.top_h).tolist(),
        polygon_mm=outline.tolist(),
        bbox_px=bbox,
        area_px=float(total) / geo.s**2,
        visible_fraction=float(visible / total) if total else 0.0,
        occluded_fraction=float(occluded),
        hand_fraction=float(by_hand / total) if total else 0.0,
        hidden=bool(occluded >= _HIDDEN_AT),
        in_frame=in_frame,
    )
    if isinstance(piece, DiePiece):
        fields["rank"] = piece.top
        fields["top"] = piece.top
        fields["faces"] = solid.extra["faces"]
    if isinstance(piece, PyramidPiece):
        fields.update(color=piece.color, size=piece.size.value, pose=piece.pose)
        if piece.pose == "flat":
            fields["apex_deg"] = float(piece.angle_deg) % 360.0
            fields["apex_mm"] = solid.extra["apex_mm"]
    if isinstance(piece, (PawnPiece, DiePiece)):
        fields["side"] = None
    return PieceTruth(**fields)

