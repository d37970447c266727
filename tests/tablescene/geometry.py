"""3-D geometry of the pieces: planar faces (some textured) in table coordinates (x, y, z = -height).

Each piece becomes a :class:`Solid`: its faces, the convex parts that cast shadows, its footprint on the
surface it stands on and its top height. Curved pieces (coins, pawns) are tessellated finely enough that
facets are a pixel or two wide at working distances.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from rules.pieces import COIN_MM, DIE_MM, TILE_MM, PyramidSize

from . import art
from .editions import PYRAMID_BGR, Edition
from .scene import DIE_OPPOSITE, PROP_KINDS, CoinPiece, DiePiece, PawnPiece, Prop, PyramidPiece, TilePiece

__all__ = ["Face", "Solid", "build_solid", "build_prop", "rotation2d", "footprint_mm", "die_faces"]


@dataclass(eq=False)
class Face:
    """A planar polygon. ``texture`` (BGRA uint8) is mapped by ``tex_frame`` = (corner, du, dv): the world
    position of the texture's top-left corner and the world step per texel along columns and rows."""

    verts: np.ndarray  # (n, 3) world
    normal: np.ndarray  # (3,) unit, outward
    albedo: tuple[float, float, float] = (128.0, 128.0, 128.0)  # BGR when untextured
    texture: np.ndarray | None = None
    tex_frame: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    alpha: float = 1.0  # < 1: translucent (pyramids)
    gloss: float = 0.0
    shininess: float = 30.0
    cull: bool = True  # skip when facing away from the camera
    big: bool = False  # lit per pixel (large flat faces) instead of at its centroid
    edge_tint: float = 0.0  # translucent faces: darker, more saturated rim near edges
    sort_point: np.ndarray | None = None  # translucent faces: depth-sort by this point (a pip by its face's)
    layer: int = 0  # translucent faces with the same sort point: drawn in increasing layer


@dataclass(eq=False)
class Solid:
    index: int
    piece: object
    faces: list[Face]
    casters: list[np.ndarray]  # convex point sets (world) that cast shadows
    footprint: np.ndarray  # (n, 2) table polygon of the piece's outline seen from above
    base_h: float
    top_h: float
    translucent: bool = False
    tint: tuple[float, float, float] = (0.0, 0.0, 0.0)  # shadow colour transmission for translucent solids
    extra: dict = field(default_factory=dict)


def rotation2d(angle_deg: float) -> np.ndarray:
    """Rotation of local (u right, v down) into table (x, y) for an angle clockwise as seen from above."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _place(local: np.ndarray, x: float, y: float, angle_deg: float) -> np.ndarray:
    """Local (u, v, h) points -> world (x, y, z = -h)."""
    local = np.asarray(local, dtype=np.float64)
    xy = local[:, :2] @ rotation2d(angle_deg).T + [x, y]
    return np.column_stack([xy, -local[:, 2]])


def _world_dir(u: float, v: float, h: float, angle_deg: float) -> np.ndarray:
    d = np.array([u, v]) @ rotation2d(angle_deg).T
    return np.array([d[0], d[1], -h])


def _normal(verts: np.ndarray, outward_hint: np.ndarray) -> np.ndarray:
    n = np.cross(verts[1] - verts[0], verts[2] - verts[0])
    if np.linalg.norm(n) < 1e-12:
        n = np.cross(verts[2] - verts[0], verts[-1] - verts[0])
    n = n / np.linalg.norm(n)
    return n if n @ outward_hint >= 0 else -n


def _box_faces(centre, half_u, half_v, h0, h1, angle, side_albedo, gloss, shininess) -> list[Face]:
    faces = []
    corners = np.array([(-half_u, -half_v), (half_u, -half_v), (half_u, half_v), (-half_u, half_v)])
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        local = np.array([(a[0], a[1], h1), (b[0], b[1], h1), (b[0], b[1], h0), (a[0], a[1], h0)])
        verts = _place(local, centre[0], centre[1], angle)
        mid = (a + b) / 2
        out = _world_dir(mid[0], mid[1], 0, angle)
        faces.append(Face(verts, _normal(verts, out), side_albedo, gloss=gloss * 0.5, shininess=shininess))
    return faces


def _textured_top(centre, size, h, angle, texture) -> Face:
    half = size / 2
    local = np.array([(-half, -half, h), (half, -half, h), (half, half, h), (-half, half, h)])
    verts = _place(local, centre[0], centre[1], angle)
    n_tex = texture.shape[0]
    du = _world_dir(size / n_tex, 0, 0, angle)
    dv = _world_dir(0, size / n_tex, 0, angle)
    return Face(verts, np.array([0.0, 0.0, -1.0]), texture=texture, tex_frame=(verts[0], du, dv), big=True)


def _circle_local(radius: float, n: int, h: float) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([radius * np.cos(a), radius * np.sin(a), np.full(n, h)])


def footprint_mm(solid: Solid) -> np.ndarray:
    return solid.footprint


# ----------------------------------------------------------------------------------------------------------
def _rounded_square(half: float, radius: float, per_corner: int = 5) -> np.ndarray:
    """Outline (n, 2) of a square with rounded corners, clockwise from the top-left corner's arc (y down)."""
    if radius <= 0:
        return np.array([(-half, -half), (half, -half), (half, half), (-half, half)], float)
    pts = []
    for cx, cy, start in ((-1, -1, 180.0), (1, -1, 270.0), (1, 1, 0.0), (-1, 1, 90.0)):
        centre = np.array([cx * (half - radius), cy * (half - radius)])
        for a in np.radians(np.linspace(start, start + 90.0, per_corner)):
            pts.append(centre + radius * np.array([math.cos(a), math.sin(a)]))
    return np.array(pts)


def _tile(index, piece: TilePiece, ed: Edition, base_h: float, ppm: float) -> Solid:
    t = ed.tile_thickness_mm
    top = base_h + t
    tex = art.tile_texture(ed, piece.suit, piece.rank, piece.side, ppm)
    centre = (piece.x_mm, piece.y_mm)
    half = TILE_MM / 2
    # the top face: the texture's square cut to the tile's rounded corners
    top_face = _textured_top(centre, TILE_MM, top, piece.angle_deg, tex)
    outline = _rounded_square(half, ed.tile_corner_mm)
    ring_top = _place(np.column_stack([outline, np.full(len(outline), top)]), *centre, piece.angle_deg)
    ring_bot = _place(np.column_stack([outline, np.full(len(outline), base_h)]), *centre, piece.angle_deg)
    top_face.verts = ring_top
    top_face.gloss, top_face.shininess = ed.gloss, ed.shininess
    faces = [top_face]
    for i in range(len(outline)):
        j = (i + 1) % len(outline)
        verts = np.array([ring_top[i], ring_top[j], ring_bot[j], ring_bot[i]])
        mid = (ring_top[i] + ring_top[j]) / 2
        out = np.array([mid[0] - centre[0], mid[1] - centre[1], 0.0])
        faces.append(Face(verts, _normal(verts, out), ed.tile_edge, gloss=ed.gloss * 0.5, shininess=ed.shininess))
    box = np.array([(u, v, h) for u in (-half, half) for v in (-half, half) for h in (base_h, top)])
    caster = _place(box, *centre, piece.angle_deg)
    # the truth outline is the tile's square (the corners' rounding is a detail of the drawing)
    footprint = _place(np.array([(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0)]), *centre,
                       piece.angle_deg)[:, :2]
    return Solid(index, piece, faces, [caster], footprint, base_h, top)


def _coin(index, piece: CoinPiece, ed: Edition, base_h: float, ppm: float) -> Solid:
    t = ed.coin_thickness_mm
    top = base_h + t
    r = COIN_MM / 2
    n = 48
    tex = art.coin_texture(ed, piece.suit, piece.rank, piece.side, ppm)
    centre = (piece.x_mm, piece.y_mm)
    ring_top = _place(_circle_local(r, n, top), *centre, piece.angle_deg)
    ring_bot = _place(_circle_local(r, n, base_h), *centre, piece.angle_deg)
    n_tex = tex.shape[0]
    corner = _place(np.array([(-r, -r, top)]), *centre, piece.angle_deg)[0]
    du = _world_dir(COIN_MM / n_tex, 0, 0, piece.angle_deg)
    dv = _world_dir(0, COIN_MM / n_tex, 0, piece.angle_deg)
    top_face = Face(ring_top, np.array([0.0, 0.0, -1.0]), texture=tex, tex_frame=(corner, du, dv), big=True,
                    gloss=ed.gloss, shininess=ed.shininess)
    faces = [top_face]
    for i in range(n):
        j = (i + 1) % n
        verts = np.array([ring_top[i], ring_top[j], ring_bot[j], ring_bot[i]])
        mid = (ring_top[i] + ring_top[j]) / 2
        out = np.array([mid[0] - centre[0], mid[1] - centre[1], 0.0])
        faces.append(Face(verts, out / np.linalg.norm(out), ed.coin_edge, gloss=ed.gloss * 0.5,
                          shininess=ed.shininess))
    caster = np.vstack([ring_top[::4], ring_bot[::4]])
    return Solid(index, piece, faces, [caster], ring_bot[:, :2].copy(), base_h, top)


@lru_cache(maxsize=16)
def _revolve_local(profile_key: tuple, segments: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Local (u, v, h) polygons and (u, v, h) normals of a body of revolution; ``profile_key`` rows are
    (radius, height) from bottom to top. Cached: every pawn of a shape shares it."""
    profile = np.array(profile_key)
    polys, normals = [], []
    a = np.linspace(0, 2 * np.pi, segments + 1)
    for k in range(len(profile) - 1):
        (r0, h0), (r1, h1) = profile[k], profile[k + 1]
        dr, dh = r1 - r0, h1 - h0  # the smooth normal of the band is perpendicular to its slope
        for i in range(segments):
            a0, a1 = a[i], a[i + 1]
            quad = np.array([
                (r1 * math.cos(a0), r1 * math.sin(a0), h1),
                (r1 * math.cos(a1), r1 * math.sin(a1), h1),
                (r0 * math.cos(a1), r0 * math.sin(a1), h0),
                (r0 * math.cos(a0), r0 * math.sin(a0), h0),
            ])
            if r1 < 1e-6:
                quad = quad[[0, 2, 3]]
            elif r0 < 1e-6:
                quad = quad[[0, 1, 2]]
            am = (a0 + a1) / 2
            n = np.array([math.cos(am) * dh, math.sin(am) * dh, -dr])
            polys.append(quad)
            normals.append(n / np.linalg.norm(n))
    r_top, h_top = profile[-1]
    if r_top > 1e-6:
        polys.append(_circle_local(r_top, segments, h_top))
        normals.append(np.array([0.0, 0.0, 1.0]))
    return polys, np.array(normals)


def _revolve(profile: np.ndarray, segments: int, centre, base_h, angle, albedo, gloss, shininess) -> list[Face]:
    """Faces of a body of revolution standing at ``centre`` on height ``base_h``."""
    polys, normals = _revolve_local(tuple(map(tuple, np.round(profile, 6))), segments)
    counts = [len(p) for p in polys]
    local = np.vstack(polys)
    local = local + [0.0, 0.0, base_h]
    world = _place(local, centre[0], centre[1], angle)
    rot = rotation2d(angle)
    n_xy = normals[:, :2] @ rot.T
    n_world = np.column_stack([n_xy, -normals[:, 2]])
    faces = []
    start = 0
    for count, n in zip(counts, n_world, strict=True):
        faces.append(Face(world[start : start + count], n, albedo, gloss=gloss, shininess=shininess))
        start += count
    return faces


def _peg_profile(height: float) -> np.ndarray:
    """A classic game pawn: a domed foot, a cone, a collar and a ball (radius, height) for a 28 mm pawn."""
    pts = [(0.0, 0.0), (7.4, 0.0), (7.7, 0.8), (7.5, 2.0), (6.6, 3.2), (5.6, 5.0), (4.4, 10.0), (3.5, 15.0),
           (3.2, 16.6), (4.8, 17.3), (4.9, 18.2), (3.6, 18.9), (3.2, 19.4)]
    centre, radius = 23.3, 4.8
    start = math.asin((19.4 - centre) / radius)
    for ang in np.linspace(start, math.pi / 2, 8)[1:]:
        pts.append((radius * math.cos(ang), centre + radius * math.sin(ang)))
    prof = np.array(pts)
    prof[:, 1] *= height / 28.1
    prof[:, 0] *= min(1.0, 0.9 + 0.1 * height / 28.1)
    prof[-1, 0] = 0.0
    return prof


def _meeple_outline(height: float) -> np.ndarray:
    """The front outline of a meeple, (u, h) with u across, for a pawn ``height`` mm tall."""
    pts = np.array([
        (-9.0, 0.0), (-3.0, 0.0), (0.0, 5.0), (3.0, 0.0), (9.0, 0.0), (7.5, 4.0), (5.0, 10.0), (5.5, 13.0),
        (10.5, 15.0), (12.0, 17.5), (10.0, 19.5), (5.0, 19.0), (4.5, 21.0), (5.5, 24.0), (3.5, 27.0),
        (0.0, 28.0), (-3.5, 27.0), (-5.5, 24.0), (-4.5, 21.0), (-5.0, 19.0), (-10.0, 19.5), (-12.0, 17.5),
        (-10.5, 15.0), (-5.5, 13.0), (-5.0, 10.0), (-7.5, 4.0),
    ])
    pts[:, 1] *= height / 28.0
    pts[:, 0] *= 0.75
    return pts


def _pawn(index, piece: PawnPiece, ed: Edition, base_h: float) -> Solid:
    color = ed.color(piece.suit)
    centre = (piece.x_mm, piece.y_mm)
    gloss = max(ed.gloss, 0.25)
    if ed.pawn_shape == "meeple":
        outline = _meeple_outline(ed.pawn_height_mm)
        depth = 5.0
        faces = []
        for sign in (-1, 1):
            local = np.array([(u, sign * depth, base_h + h) for u, h in outline])
            verts = _place(local, *centre, piece.angle_deg)
            faces.append(Face(verts, _world_dir(0, sign, 0, piece.angle_deg), color, gloss=gloss * 0.6,
                              shininess=20))
        for i in range(len(outline)):
            (u0, h0), (u1, h1) = outline[i], outline[(i + 1) % len(outline)]
            local = np.array([(u0, -depth, base_h + h0), (u1, -depth, base_h + h1), (u1, depth, base_h + h1),
                              (u0, depth, base_h + h0)])
            verts = _place(local, *centre, piece.angle_deg)
            # outward normal of the outline edge (the outline runs counter-clockwise in (u, h))
            nu, nh = (h1 - h0), -(u1 - u0)
            norm = math.hypot(nu, nh) or 1.0
            out = _world_dir(nu / norm, 0, nh / norm, piece.angle_deg)
            if h0 < 0.01 and h1 < 0.01:
                continue  # the bottom
            faces.append(Face(verts, _normal(verts, out), color, gloss=gloss * 0.6, shininess=20))
        body = np.array([(u, v, base_h + h) for u, h in outline[::2] for v in (-depth, depth)])
        casters = [_place(body, *centre, piece.angle_deg)]
        foot = np.array([(u, v, 0) for u, v in ((-9 * 0.75, -depth), (9 * 0.75, -depth), (9 * 0.75, depth),
                                                 (-9 * 0.75, depth))])
        footprint = _place(foot, *centre, piece.angle_deg)[:, :2]
        top = base_h + ed.pawn_height_mm
    else:
        prof = _peg_profile(ed.pawn_height_mm)
        faces = _revolve(prof, 24, centre, base_h, piece.angle_deg, color, gloss, 40.0)
        casters = []
        for lo, hi in ((0, 7), (6, len(prof))):  # foot+cone, then neck+ball: sharper shadow near the base
            part = np.vstack([_circle_local(max(r, 0.3), 12, base_h + h) for r, h in prof[lo:hi]])
            casters.append(_place(part, *centre, piece.angle_deg))
        footprint = _place(_circle_local(float(prof[:, 0].max()), 32, 0), *centre, piece.angle_deg)[:, :2]
        top = base_h + float(prof[-1, 1])
    return Solid(index, piece, faces, casters, footprint, base_h, top)


def die_faces(top: int, north: int | None) -> dict[str, int]:
    """Ranks on the faces of a piecepack die with ``top`` up: keys top, bottom, north, south, east, west.

    Opposite faces sum to 5 (null-5, ace-4, 2-3). The die is right-handed: looking down at the top with
    north up, the faces (top, north, east) run clockwise in the order null/ace/2 of the standard layout.
    """
    bottom = DIE_OPPOSITE[top]
    free = [r for r in range(6) if r not in (top, bottom)]
    if north is None:
        north = min(free)
    south = DIE_OPPOSITE[north]
    rest = [r for r in free if r not in (north, south)]
    # chirality: fix east by a parity rule so the same (top, north) always gives the same die
    east = rest[0] if (top + north) % 2 == 0 else rest[1]
    west = DIE_OPPOSITE[east]
    return {"top": top, "bottom": bottom, "north": north, "south": south, "east": east, "west": west}


def _die(index, piece: DiePiece, ed: Edition, base_h: float, ppm: float) -> Solid:
    s = DIE_MM
    half = s / 2
    top_h = base_h + s
    ranks = die_faces(piece.top, piece.north)
    centre = (piece.x_mm, piece.y_mm)
    faces = []
    gloss = max(ed.gloss, 0.3)
    # top: texture rows run north -> south
    tex = art.die_texture(ed, piece.suit, ranks["top"], ppm)
    f = _textured_top(centre, s, top_h, piece.angle_deg, tex)
    f.gloss, f.shininess = gloss, 50.0
    faces.append(f)
    # sides: texture top row at the top edge; columns run left -> right as seen from outside
    sides = {
        "north": ((-half, -half), (half, -half)),
        "east": ((half, -half), (half, half)),
        "south": ((half, half), (-half, half)),
        "west": ((-half, half), (-half, -half)),
    }
    for name, (a, b) in sides.items():
        tex = art.die_texture(ed, piece.suit, ranks[name], ppm)
        n_tex = tex.shape[0]
        local = np.array([(a[0], a[1], top_h), (b[0], b[1], top_h), (b[0], b[1], base_h), (a[0], a[1], base_h)])
        verts = _place(local, *centre, piece.angle_deg)
        du = (verts[1] - verts[0]) / n_tex
        dv = (verts[3] - verts[0]) / n_tex
        mid = (np.array(a) + np.array(b)) / 2
        out = _world_dir(mid[0], mid[1], 0, piece.angle_deg)
        faces.append(Face(verts, _normal(verts, out), texture=tex, tex_frame=(verts[0], du, dv), gloss=gloss,
                          shininess=50.0, big=True))
    box = np.array([(u, v, h) for u in (-half, half) for v in (-half, half) for h in (base_h, top_h)])
    caster = _place(box, *centre, piece.angle_deg)
    footprint = _place(np.array([(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0)]), *centre,
                       piece.angle_deg)[:, :2]
    return Solid(index, piece, faces, [caster], footprint, base_h, top_h, extra={"faces": ranks})


def pyramid_local(size: PyramidSize, pose: str) -> tuple[np.ndarray, list[list[int]]]:
    """Vertices (u, v, h) and faces (vertex indices) of a pyramid at the origin, apex toward -v when flat.

    Upright: base square centred at the origin. Flat: lying on one side face with its apex pointing to -v,
    shifted so that the centroid of its outline seen from above is at the origin.
    """
    b, height = size.base_mm, size.height_mm
    half = b / 2
    verts = np.array([(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0), (0, 0, height)], float)
    faces = [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [3, 2, 1, 0]]
    if pose == "flat":
        # Tip over the -v base edge: rotate about the u axis through (v=-half, h=0) until the -v face is down.
        beta = math.atan2(half, height)
        psi = math.pi / 2 + beta
        c, s = math.cos(psi), math.sin(psi)
        v = verts[:, 1] + half
        h = verts[:, 2]
        verts = np.column_stack([verts[:, 0], v * c - h * s - half, v * s + h * c])
        verts[:, 2] -= verts[:, 2].min()
        hull = _convex_hull(verts[:, :2])
        cx, cy = _polygon_centroid(hull)
        verts[:, 0] -= cx
        verts[:, 1] -= cy
    return verts, faces


def _convex_hull(points: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.convexHull(np.asarray(points, np.float32)).reshape(-1, 2).astype(np.float64)


def _polygon_centroid(poly: np.ndarray) -> tuple[float, float]:
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1e-9:
        return float(x.mean()), float(y.mean())
    return float(((x + xn) * cross).sum() / (6 * area)), float(((y + yn) * cross).sum() / (6 * area))


def _pyramid(index, piece: PyramidPiece, base_h: float) -> Solid:
    local, face_idx = pyramid_local(piece.size, piece.pose)
    local[:, 2] += base_h
    world = _place(local, piece.x_mm, piece.y_mm, piece.angle_deg)
    centroid = world.mean(axis=0)
    color = PYRAMID_BGR[piece.color]
    opaque = piece.color == "black"  # the black Rainbow pyramid is (nearly) opaque
    alpha = 1.0 if opaque else 0.55
    faces = []
    pips = piece.size.points
    pip_color = (70.0, 70.0, 70.0) if opaque else tuple(0.35 * c for c in color)
    for idx in face_idx:
        verts = world[idx]
        out = verts.mean(axis=0) - centroid
        normal = _normal(verts, out)
        face = Face(verts, normal, color, alpha=alpha, gloss=0.9, shininess=120.0, cull=opaque, big=True,
                    edge_tint=0.6)
        faces.append(face)
        if len(idx) == 3:  # a side: its pips (1, 2 or 3 dots in a row near the base), slightly proud of it
            b0, b1, apex = verts
            along = (b1 - b0) / np.linalg.norm(b1 - b0)
            mid = (b0 + b1) / 2
            up = apex - mid
            up_len = np.linalg.norm(up)
            up /= up_len
            radius = 0.06 * piece.size.base_mm
            spacing = 0.2 * piece.size.base_mm
            for k in range(pips):
                centre = mid + (k - (pips - 1) / 2) * spacing * along + 0.16 * up_len * up + 0.06 * normal
                ring = np.array([centre + radius * (math.cos(a) * along + math.sin(a) * up)
                                 for a in np.linspace(0, 2 * math.pi, 10, endpoint=False)])
                faces.append(Face(ring, normal, pip_color, alpha=1.0 if opaque else 0.85, gloss=0.3, shininess=30.0,
                                  cull=True, big=False, sort_point=verts.mean(axis=0), layer=1))
    footprint = _convex_hull(world[:, :2])
    tint = tuple(0.0 if opaque else 0.85 * c / 255.0 for c in color)
    extra = {}
    if piece.pose == "flat":
        extra["apex_mm"] = world[4, :2].tolist()
    return Solid(index, piece, faces, [world], footprint, base_h, float(local[:, 2].max()),
                 translucent=not opaque, tint=tint, extra=extra)


def build_solid(index: int, piece, ed: Edition, base_h: float, ppm: float) -> Solid:
    if isinstance(piece, TilePiece):
        return _tile(index, piece, ed, base_h, ppm)
    if isinstance(piece, CoinPiece):
        return _coin(index, piece, ed, base_h, ppm)
    if isinstance(piece, PawnPiece):
        return _pawn(index, piece, ed, base_h)
    if isinstance(piece, DiePiece):
        return _die(index, piece, ed, base_h, ppm)
    if isinstance(piece, PyramidPiece):
        return _pyramid(index, piece, base_h)
    raise TypeError(f"not a piece: {piece!r}")


def support_footprint(piece) -> tuple[float, float]:
    """(half-size, kind) helper for stacking: a tile supports within its square, a coin within its disc."""
    return (TILE_MM / 2, 0) if isinstance(piece, TilePiece) else (COIN_MM / 2, 1)


# ----------------------------------------------------------------------------------------------------------
# props: everyday things on the table
def _box_solid_faces(centre, w, l, h0, h1, angle, top_albedo, side_albedo, gloss=0.1, shininess=30.0,
                     texture=None) -> list[Face]:
    """A box (w across, l along the prop's length = local v) from height h0 to h1; optional top texture whose
    rows run along -v -> +v."""
    half_u, half_v = w / 2, l / 2
    local = np.array([(-half_u, -half_v, h1), (half_u, -half_v, h1), (half_u, half_v, h1), (-half_u, half_v, h1)])
    verts = _place(local, centre[0], centre[1], angle)
    if texture is not None:
        rows, cols = texture.shape[:2]
        du = _world_dir(w / cols, 0, 0, angle)
        dv = _world_dir(0, l / rows, 0, angle)
        top = Face(verts, np.array([0.0, 0.0, -1.0]), texture=texture, tex_frame=(verts[0], du, dv), big=True,
                   gloss=gloss, shininess=shininess)
    else:
        top = Face(verts, np.array([0.0, 0.0, -1.0]), top_albedo, gloss=gloss, shininess=shininess, big=True)
    return [top] + _box_faces(centre, half_u, half_v, h0, h1, angle, side_albedo, gloss, shininess)


@lru_cache(maxsize=8)
def _prop_texture(kind: str, color: tuple) -> np.ndarray:
    """Top textures of props at 4 px/mm (BGRA)."""
    import cv2

    w, l, _ = PROP_KINDS[kind]
    p = 4.0
    cols, rows = int(w * p), int(l * p)
    img = np.zeros((rows, cols, 4), np.uint8)
    img[..., 3] = 255
    if kind == "phone":
        img[..., :3] = (22, 22, 24)
        inset = int(4 * p)
        cv2.rectangle(img, (inset, int(12 * p)), (cols - inset, rows - int(12 * p)), (45, 38, 34, 255), -1)
        cv2.circle(img, (cols // 2, int(6 * p)), int(1.5 * p), (60, 60, 60, 255), -1)
    elif kind == "notepad":
        img[..., :3] = color
        for y in np.arange(25.0, l - 4, 7.0):
            cv2.line(img, (0, int(y * p)), (cols, int(y * p)), (190, 140, 110, 255), 1, cv2.LINE_AA)
        cv2.line(img, (int(18 * p), 0), (int(18 * p), rows), (110, 110, 220, 255), 1, cv2.LINE_AA)
        noise = np.random.default_rng(3).normal(0, 3, (rows, cols, 1))
        img[..., :3] = np.clip(img[..., :3] + noise, 0, 255).astype(np.uint8)
    elif kind == "box":
        img[..., :3] = color
        label = (int(10 * p), int(30 * p), cols - int(10 * p), rows - int(30 * p))
        cv2.rectangle(img, label[:2], label[2:], (235, 240, 240, 255), -1)
        scale = (label[2] - label[0]) / 260.0
        cv2.putText(img, "piecepack", (label[0] + int(6 * scale), (label[1] + label[3]) // 2 + int(8 * scale)),
                    cv2.FONT_HERSHEY_DUPLEX, scale, (30, 30, 30, 255), max(1, int(2 * scale)), cv2.LINE_AA)
    img.setflags(write=False)
    return img


_PROP_COLORS = {"phone": (30, 30, 32), "notepad": (170, 235, 245), "pencil": (30, 190, 235), "mug": (225, 225, 220),
                "box": (40, 40, 130)}


def build_prop(index: int, prop: Prop) -> Solid:
    """A prop as a Solid standing on the table (its ``index`` is the id its pixels get)."""
    w, l, h = PROP_KINDS[prop.kind]
    color = tuple(float(c) for c in (prop.color or _PROP_COLORS[prop.kind]))
    centre = (prop.x_mm, prop.y_mm)
    angle = prop.angle_deg
    if prop.kind == "mug":
        r = w / 2
        n = 48
        ring_top = _place(_circle_local(r, n, h), *centre, angle)
        ring_bot = _place(_circle_local(r, n, 0.0), *centre, angle)
        faces = [Face(ring_top, np.array([0.0, 0.0, -1.0]), color, gloss=0.5, shininess=80.0, big=True),
                 Face(_place(_circle_local(r - 4.0, n, h + 0.05), *centre, angle), np.array([0.0, 0.0, -1.0]),
                      (25.0, 45.0, 70.0), gloss=0.9, shininess=200.0, big=True)]  # coffee
        for i in range(n):
            j = (i + 1) % n
            verts = np.array([ring_top[i], ring_top[j], ring_bot[j], ring_bot[i]])
            mid = (ring_top[i] + ring_top[j]) / 2
            out = np.array([mid[0] - centre[0], mid[1] - centre[1], 0.0])
            faces.append(Face(verts, out / np.linalg.norm(out), color, gloss=0.5, shininess=80.0))
        handle_centre = _place(np.array([(r + 10.0, 0.0, 0.0)]), *centre, angle)[0, :2]
        faces += _box_solid_faces(handle_centre, 20.0, 12.0, 25.0, 75.0, angle + 90.0, color, color, 0.5, 80.0)
        casters = [np.vstack([ring_top[::4], ring_bot[::4]])]
        footprint = ring_bot[:, :2].copy()
    elif prop.kind == "pencil":
        faces = _box_solid_faces(centre, w, l - 25.0, 0.0, h, angle, color, color, 0.4, 60.0)
        tip = _place(np.array([(0.0, -(l - 25.0) / 2 - 9.0, 0.0)]), *centre, angle)[0, :2]
        faces += _box_solid_faces(tip, w * 0.7, 18.0, 0.5, h - 1.0, angle, (120, 170, 210), (120, 170, 210))
        eraser = _place(np.array([(0.0, (l - 25.0) / 2 + 4.0, 0.0)]), *centre, angle)[0, :2]
        faces += _box_solid_faces(eraser, w, 8.0, 0.0, h, angle, (150, 140, 230), (150, 140, 230))
        corners = np.array([(u, v, z) for u in (-w / 2, w / 2) for v in (-l / 2, l / 2) for z in (0.0, h)])
        casters = [_place(corners, *centre, angle)]
        footprint = _place(np.array([(-w / 2, -l / 2, 0), (w / 2, -l / 2, 0), (w / 2, l / 2, 0), (-w / 2, l / 2, 0)]),
                           *centre, angle)[:, :2]
    else:
        texture = _prop_texture(prop.kind, tuple(int(c) for c in color))
        gloss, shininess = {"phone": (1.0, 400.0), "notepad": (0.03, 10.0), "box": (0.2, 40.0)}[prop.kind]
        side = (45.0, 45.0, 50.0) if prop.kind == "phone" else tuple(0.8 * c for c in color)
        faces = _box_solid_faces(centre, w, l, 0.0, h, angle, color, side, gloss, shininess, texture)
        corners = np.array([(u, v, z) for u in (-w / 2, w / 2) for v in (-l / 2, l / 2) for z in (0.0, h)])
        casters = [_place(corners, *centre, angle)]
        footprint = _place(np.array([(-w / 2, -l / 2, 0), (w / 2, -l / 2, 0), (w / 2, l / 2, 0), (-w / 2, l / 2, 0)]),
                           *centre, angle)[:, :2]
    return Solid(index, prop, faces, casters, footprint, 0.0, h)
