"""Numba kernels of the figure fit: projection through the calibration, convex hulls and overlaps, and the
model-based edge search with its Gauss-Newton step.

Why hand-written and compiled: the fit runs a few hundred small geometric problems per frame (a model of 5 to
170 points projected, its hull taken, a few dozen colour profiles read along the hull's normals, a 4 x 4 normal
equation solved), each far too small for numpy or OpenCV calls to pay off -- their per-call overhead was 90 %
of the time. Here one call does a whole fit. All functions are ``@njit(cache=True)``: compiled once per
machine, then loaded from ``__pycache__``.

Conventions: frame pixels with integer coordinates at pixel centres (as ``cv2.remap``); image crops (``roi``)
are float32 BGR with their top-left pixel at frame pixel ``origin``; table points ``(x, y, h)`` in mm.

Packed projection (``Projector.packed``, :mod:`vision.figure_projection`): ``[0:9]`` the table -> undistorted
pixel homography ``G0`` row by row, ``[9:12]`` the column ``K r3`` a height moves, ``[12]`` 1 when there is a
camera pose (heights count), ``[13]`` 1 when there is a lens model, ``[14:19]`` fx, fy, cx, cy, skew,
``[19:31]`` OpenCV's k1 k2 p1 p2 k3 k4 k5 k6 s1 s2 s3 s4 (as ``cv2.projectPoints``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

PACKED_LENGTH = 31


# ----------------------------------------------------------------------------------------------------- projection
@njit(cache=True)
def project_point(x, y, h, p):
    """Raw frame pixel of table point (x, y) at height h (see the module docstring for ``p``)."""
    hx = p[0] * x + p[1] * y + p[2]
    hy = p[3] * x + p[4] * y + p[5]
    hw = p[6] * x + p[7] * y + p[8]
    if p[12] > 0.0:
        hx -= h * p[9]
        hy -= h * p[10]
        hw -= h * p[11]
    ux = hx / hw
    uy = hy / hw
    if p[13] == 0.0:
        return ux, uy
    fx, fy, cx, cy, skew = p[14], p[15], p[16], p[17], p[18]
    ny = (uy - cy) / fy
    nx = (ux - cx - skew * ny) / fx
    r2 = nx * nx + ny * ny
    r4 = r2 * r2
    r6 = r4 * r2
    radial = (1.0 + p[19] * r2 + p[20] * r4 + p[23] * r6) / (1.0 + p[24] * r2 + p[25] * r4 + p[26] * r6)
    a1 = 2.0 * nx * ny
    xd = nx * radial + p[21] * a1 + p[22] * (r2 + 2.0 * nx * nx) + p[27] * r2 + p[28] * r4
    yd = ny * radial + p[21] * (r2 + 2.0 * ny * ny) + p[22] * a1 + p[29] * r2 + p[30] * r4
    return fx * xd + cx, fy * yd + cy


@njit(cache=True)
def project_points(xy, h, p):
    """(n, 2) table points at heights h (n,) -> (n, 2) raw pixels."""
    n = xy.shape[0]
    out = np.empty((n, 2))
    for i in range(n):
        out[i, 0], out[i, 1] = project_point(xy[i, 0], xy[i, 1], h[i], p)
    return out


@njit(cache=True)
def place_points(points, x, y, angle_deg, base_h):
    """Local model points (n, 3) -> table (x, y, h) at a pose (clockwise angle in the y-down frame)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    n = points.shape[0]
    out = np.empty((n, 3))
    for i in range(n):
        u, v = points[i, 0], points[i, 1]
        out[i, 0] = x + c * u - s * v
        out[i, 1] = y + s * u + c * v
        out[i, 2] = points[i, 2] + base_h
    return out


# ----------------------------------------------------------------------------------------------------- polygons
@njit(cache=True)
def _cross(pts, a, b, i):
    return (pts[b, 0] - pts[a, 0]) * (pts[i, 1] - pts[a, 1]) - (pts[b, 1] - pts[a, 1]) * (pts[i, 0] - pts[a, 0])


@njit(cache=True)
def convex_hull(pts):
    """Indices of the convex hull of (n, 2) points (Andrew's monotone chain), in order, no repeated point."""
    n = pts.shape[0]
    if n < 3:
        return np.arange(n)
    by_y = np.argsort(pts[:, 1], kind="mergesort")
    order = by_y[np.argsort(pts[by_y, 0], kind="mergesort")]
    hull = np.empty(2 * n, np.int64)
    k = 0
    for j in range(n):
        i = order[j]
        while k >= 2:
            a, b = hull[k - 2], hull[k - 1]
            if _cross(pts, a, b, i) > 1e-12:
                break
            k -= 1
        hull[k] = i
        k += 1
    low = k + 1
    for j in range(n - 2, -1, -1):
        i = order[j]
        while k >= low:
            a, b = hull[k - 2], hull[k - 1]
            if _cross(pts, a, b, i) > 1e-12:
                break
            k -= 1
        hull[k] = i
        k += 1
    return hull[: k - 1].copy()


@njit(cache=True)
def area_centroid(poly):
    """Signed area and centroid of a polygon (k, 2)."""
    k = poly.shape[0]
    a = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(k):
        j = (i + 1) % k
        cross = poly[i, 0] * poly[j, 1] - poly[j, 0] * poly[i, 1]
        a += cross
        cx += (poly[i, 0] + poly[j, 0]) * cross
        cy += (poly[i, 1] + poly[j, 1]) * cross
    a *= 0.5
    if abs(a) < 1e-12:
        return 0.0, poly[:, 0].mean(), poly[:, 1].mean()
    return a, cx / (6.0 * a), cy / (6.0 * a)


@njit(cache=True)
def _clip_area(subject, clip):
    """Area of the intersection of two convex polygons (Sutherland-Hodgman)."""
    sa, _, _ = area_centroid(clip)
    sign = 1.0 if sa >= 0 else -1.0
    cap = subject.shape[0] + clip.shape[0] + 4
    cur = np.empty((cap * 2, 2))
    nxt = np.empty((cap * 2, 2))
    m = subject.shape[0]
    cur[:m] = subject
    kc = clip.shape[0]
    for e in range(kc):
        ax, ay = clip[e, 0], clip[e, 1]
        bx, by = clip[(e + 1) % kc, 0], clip[(e + 1) % kc, 1]
        cnt = 0
        for i in range(m):
            px, py = cur[i, 0], cur[i, 1]
            qx, qy = cur[(i + 1) % m, 0], cur[(i + 1) % m, 1]
            dp = sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax))
            dq = sign * ((bx - ax) * (qy - ay) - (by - ay) * (qx - ax))
            if dp >= 0:
                nxt[cnt, 0], nxt[cnt, 1] = px, py
                cnt += 1
            if (dp >= 0) != (dq >= 0):
                t = dp / (dp - dq)
                nxt[cnt, 0] = px + t * (qx - px)
                nxt[cnt, 1] = py + t * (qy - py)
                cnt += 1
        m = cnt
        if m == 0:
            return 0.0
        tmp = cur
        cur = nxt
        nxt = tmp
    a, _, _ = area_centroid(cur[:m])
    return abs(a)


@njit(cache=True)
def intersection_area(a, b):
    """Area of the intersection of two convex polygons."""
    return _clip_area(a, b)


@njit(cache=True)
def convex_iou(a, b):
    """Intersection over union of two convex polygons."""
    area_a = abs(area_centroid(a)[0])
    area_b = abs(area_centroid(b)[0])
    inter = _clip_area(a, b)
    union = area_a + area_b - inter
    return inter / union if union > 0 else 0.0


@njit(cache=True)
def table_silhouette(points, x, y, angle_deg, base_h, camera, has_camera):
    """The model's outline on the table plane (its hull, (k, 2) mm): every point carried along the ray from the
    camera centre to the table (orthographic without a camera)."""
    placed = place_points(points, x, y, angle_deg, base_h)
    n = placed.shape[0]
    flat = np.empty((n, 2))
    for i in range(n):
        if has_camera:
            s = camera[2] / max(camera[2] - placed[i, 2], 1e-6)
            flat[i, 0] = camera[0] + (placed[i, 0] - camera[0]) * s
            flat[i, 1] = camera[1] + (placed[i, 1] - camera[1]) * s
        else:
            flat[i, 0] = placed[i, 0]
            flat[i, 1] = placed[i, 1]
    idx = convex_hull(flat)
    return flat[idx]


@njit(cache=True)
def coarse_pose(points, turn, span_deg, step_deg, camera, has_camera, base_h, target):
    """Best (x, y, angle, iou) on a grid of angles, each placed so that the silhouette's centroid matches the
    target's (see :func:`vision.figure_fit.coarse_pose`)."""
    _, tx, ty = area_centroid(target)
    count = int(math.ceil(span_deg / step_deg - 1e-9)) if turn else 1
    best = (tx, ty, 0.0, -1.0)
    for k in range(count):
        ang = k * step_deg
        x, y = tx, ty
        for _ in range(2):  # the silhouette's centroid moves with the pose almost one to one
            _, sx, sy = area_centroid(table_silhouette(points, x, y, ang, base_h, camera, has_camera))
            x += tx - sx
            y += ty - sy
        score = convex_iou(table_silhouette(points, x, y, ang, base_h, camera, has_camera), target)
        if score > best[3]:
            best = (x, y, ang, score)
    return best


@njit(cache=True)
def polish_pose(points, turn, camera, has_camera, base_h, target, x, y, angle, iou, scale, angle_step):
    """Compass search on (x, y, angle) maximising the overlap with ``target`` from a coarse pose."""
    pose = np.array([x, y, angle])
    steps = np.array([0.05 * scale, 0.05 * scale, angle_step / 2.0])
    dims = 3 if turn else 2
    best = iou
    evals = 0
    while evals < 300:
        improved = False
        for d in range(dims):
            for sgn in (1.0, -1.0):
                trial = pose.copy()
                trial[d] += sgn * steps[d]
                score = convex_iou(table_silhouette(points, trial[0], trial[1], trial[2], base_h, camera,
                                                    has_camera), target)
                evals += 1
                if score > best + 1e-7:
                    best = score
                    pose = trial
                    improved = True
                    break
        if not improved:
            steps *= 0.5
            if steps[0] < 0.01 and (not turn or steps[2] < 0.05):
                break
    return pose[0], pose[1], pose[2], best


# ----------------------------------------------------------------------------------------------------- sampling
@njit(cache=True)
def _bilinear(img, x, y, out):
    """Bilinear sample of a float32 (H, W, 3) image at (x, y), edges replicated."""
    h, w = img.shape[0], img.shape[1]
    if x < 0.0:
        x = 0.0
    elif x > w - 1:
        x = w - 1.0
    if y < 0.0:
        y = 0.0
    elif y > h - 1:
        y = h - 1.0
    x0 = int(x)
    y0 = int(y)
    x1 = min(x0 + 1, w - 1)
    y1 = min(y0 + 1, h - 1)
    fx = x - x0
    fy = y - y0
    for c in range(3):
        top = img[y0, x0, c] * (1.0 - fx) + img[y0, x1, c] * fx
        bot = img[y1, x0, c] * (1.0 - fx) + img[y1, x1, c] * fx
        out[c] = top * (1.0 - fy) + bot * fy


@njit(cache=True)
def inside_mean(img, origin, hull, shrink):
    """Mean colour of the crop's pixels inside a convex outline (frame pixels) shrunk toward its centre."""
    k = hull.shape[0]
    cx = hull[:, 0].mean()
    cy = hull[:, 1].mean()
    poly = np.empty((k, 2))
    for i in range(k):
        poly[i, 0] = cx + (hull[i, 0] - cx) * shrink - origin[0]
        poly[i, 1] = cy + (hull[i, 1] - cy) * shrink - origin[1]
    h, w = img.shape[0], img.shape[1]
    y0 = max(int(math.ceil(poly[:, 1].min())), 0)
    y1 = min(int(math.floor(poly[:, 1].max())), h - 1)
    acc = np.zeros(3)
    cnt = 0
    for yy in range(y0, y1 + 1):
        # a convex outline crosses a row in one span: from the edges that straddle the row
        lo = 1e18
        hi = -1e18
        for e in range(k):
            ax, ay = poly[e, 0], poly[e, 1]
            bx, by = poly[(e + 1) % k, 0], poly[(e + 1) % k, 1]
            if (ay <= yy <= by) or (by <= yy <= ay):
                if abs(by - ay) < 1e-12:
                    xa, xb = min(ax, bx), max(ax, bx)
                else:
                    xa = ax + (yy - ay) * (bx - ax) / (by - ay)
                    xb = xa
                lo = min(lo, xa)
                hi = max(hi, xb)
        xs = max(int(math.ceil(lo)), 0)
        xe = min(int(math.floor(hi)), w - 1)
        for xx in range(xs, xe + 1):
            for c in range(3):
                acc[c] += img[yy, xx, c]
            cnt += 1
    if cnt == 0:
        tmp = np.zeros(3)
        _bilinear(img, cx - origin[0], cy - origin[1], tmp)
        return tmp
    return acc / cnt


@njit(cache=True)
def _edge_offset(img, px, py, nx, ny, ux, uy, uz, signed, reach, step, prof):
    """Signed offset (pixels along the normal) of the strongest colour step within ``reach`` of (px, py), and
    its strength (colour difference per pixel, projected on (ux, uy, uz) when ``signed``)."""
    m = int(round(2.0 * (reach + 1.0) / step)) + 1
    lag = int(round(0.5 / step))
    col = np.empty(3)
    for j in range(m):
        d = -reach - 1.0 + j * step
        _bilinear(img, px + nx * d, py + ny * d, col)
        prof[j, 0], prof[j, 1], prof[j, 2] = col[0], col[1], col[2]
    best = -1e18
    kbest = lag
    count = m - 2 * lag
    strength = np.empty(count)
    for j in range(count):
        d0 = prof[j + 2 * lag, 0] - prof[j, 0]
        d1 = prof[j + 2 * lag, 1] - prof[j, 1]
        d2 = prof[j + 2 * lag, 2] - prof[j, 2]
        if signed:
            s = d0 * ux + d1 * uy + d2 * uz
        else:
            s = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        strength[j] = s
        centre = -reach - 1.0 + (j + lag) * step
        if abs(centre) <= reach + 1e-6 and s > best:
            best = s
            kbest = j
    kk = min(max(kbest, 1), count - 2)
    s0, s1, s2 = strength[kk - 1], strength[kk], strength[kk + 1]
    denom = s0 - 2.0 * s1 + s2
    frac = 0.0
    if abs(denom) > 1e-9:
        frac = min(max(0.5 * (s0 - s2) / denom, -0.5), 0.5)
    centre = -reach - 1.0 + (kk + lag) * step
    return centre + frac * step, s1


@njit(cache=True)
def _solve(a, b):
    """Solve a small dense system (Gaussian elimination, partial pivoting)."""
    n = b.shape[0]
    m = a.copy()
    v = b.copy()
    for i in range(n):
        p = i
        for r in range(i + 1, n):
            if abs(m[r, i]) > abs(m[p, i]):
                p = r
        if p != i:
            for c in range(n):
                m[i, c], m[p, c] = m[p, c], m[i, c]
            v[i], v[p] = v[p], v[i]
        piv = m[i, i] if abs(m[i, i]) > 1e-12 else 1e-12
        for r in range(i + 1, n):
            f = m[r, i] / piv
            for c in range(i, n):
                m[r, c] -= f * m[i, c]
            v[r] -= f * v[i]
    out = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = v[i]
        for c in range(i + 1, n):
            s -= m[i, c] * out[c]
        piv = m[i, i] if abs(m[i, i]) > 1e-12 else 1e-12
        out[i] = s / piv
    return out


# ----------------------------------------------------------------------------------------------------- edge fit
@njit(cache=True)
def refine_pose(img, background, origin, points, revolution, creases, pose0, base_h, p, n_params, inner_weight,
                iterations, reach_px, spacing_px, min_strength, max_grow_px, ignore, max_per_edge, contrast_share,
                grow_centre, grow_weight):
    """The sub-pixel pose from the silhouette edges (see :func:`vision.figure_fit.refine_pose`).

    ``img`` / ``background``: float32 crops (the lightly smoothed frame, and the table's colour without pieces
    seen there) with their top-left at frame pixel ``origin``. ``points``: the model's local points;
    ``revolution``: a body of revolution (only the ends of an outline edge joining rings at different heights
    lie on it); ``creases`` (m, 2): point pairs of the creases seen inside the outline. ``ignore`` (k, 2) frame
    pixels: a convex polygon (a touching neighbour's outline, grown a little) where edges say nothing about this
    piece; empty for none. ``max_per_edge``: at most this many samples on one edge (a big piece seen close
    up is located as well by a few dozen well spread samples as by hundreds). ``contrast_share``: where the
    piece's colour differs from the table's by less than ``min_strength / contrast_share``, a step of that
    share of the difference per pixel already counts as an edge (a faint or blurred piece), but never less
    than 4. ``grow_centre`` / ``grow_weight``: a prior on the even outline offset (pixels; its weight as a
    share of the edges' total weight).

    Returns ``(pose (3,), stats (6,) = support, rms, count, converged, grow, crease_support, outline (k, 2))``.
    """
    pose = pose0.copy()
    grow = grow_centre
    converged = False
    reach = reach_px
    n_cre = creases.shape[0]
    prof = np.empty((int(round(2.0 * (reach_px + 1.0) / 0.25)) + 2, 3))
    col = np.empty(3)
    eps = 0.05
    support = 0.0
    crease_support = 0.0
    rms = np.inf
    count = 0
    hull_px = np.zeros((0, 2))
    inside = np.zeros(3)
    n_ign = ignore.shape[0]
    ign_sign = 1.0
    if n_ign >= 3:
        ia, _, _ = area_centroid(ignore)
        ign_sign = 1.0 if ia >= 0 else -1.0
    for it in range(iterations + 1):
        placed = place_points(points, pose[0], pose[1], pose[2], base_h)
        pixels = project_points(placed[:, :2], placed[:, 2], p)
        hidx = convex_hull(pixels)
        nh = hidx.shape[0]
        hull_px = pixels[hidx].copy()
        cxp = pixels[:, 0].mean()
        cyp = pixels[:, 1].mean()
        # the edges: the outline's, then the creases long enough to say something
        n_edges = nh + n_cre
        ea = np.empty(n_edges, np.int64)
        eb = np.empty(n_edges, np.int64)
        einner = np.zeros(n_edges, np.bool_)
        for e in range(nh):
            ea[e] = hidx[e]
            eb[e] = hidx[(e + 1) % nh]
        for e in range(n_cre):
            ea[nh + e] = creases[e, 0]
            eb[nh + e] = creases[e, 1]
            einner[nh + e] = True
        # sample positions
        total = 0
        counts = np.zeros(n_edges, np.int64)
        for e in range(n_edges):
            dx = pixels[eb[e], 0] - pixels[ea[e], 0]
            dy = pixels[eb[e], 1] - pixels[ea[e], 1]
            length = math.sqrt(dx * dx + dy * dy)
            if einner[e] and length < 4.0:
                continue
            counts[e] = min(max(2, int(length / spacing_px)), max_per_edge)
            total += counts[e]
        sx = np.empty(total)
        sy = np.empty(total)
        sh = np.empty(total)
        snx = np.empty(total)
        sny = np.empty(total)
        screase = np.zeros(total, np.bool_)
        keep = np.ones(total, np.bool_)
        k = 0
        for e in range(n_edges):
            nsamp = counts[e]
            if nsamp == 0:
                continue
            a, b = ea[e], eb[e]
            dx = pixels[b, 0] - pixels[a, 0]
            dy = pixels[b, 1] - pixels[a, 1]
            nx, ny = dy, -dx
            nn = math.sqrt(nx * nx + ny * ny)
            nn = nn if nn > 1e-9 else 1e-9
            nx /= nn
            ny /= nn
            mx = 0.5 * (pixels[a, 0] + pixels[b, 0]) - cxp
            my = 0.5 * (pixels[a, 1] + pixels[b, 1]) - cyp
            if mx * nx + my * ny < 0:
                nx, ny = -nx, -ny
            tangent = revolution and abs(placed[a, 2] - placed[b, 2]) > 2.0
            for j in range(nsamp):
                t = 0.1 + 0.8 * (j + 0.5) / nsamp  # off the corners, where two edges mix
                if tangent and 0.25 <= t <= 0.75:
                    keep[k] = False  # a tangent spanning a waist: only its ends lie on the piece
                sx[k] = placed[a, 0] * (1 - t) + placed[b, 0] * t
                sy[k] = placed[a, 1] * (1 - t) + placed[b, 1] * t
                sh[k] = placed[a, 2] * (1 - t) + placed[b, 2] * t
                snx[k] = nx
                sny[k] = ny
                screase[k] = einner[e]
                k += 1
        offsets = np.zeros(total)
        strength = np.zeros(total)
        threshold = np.full(total, min_strength)
        jac = np.zeros((total, 4))
        outline_w = np.zeros(total)
        if it == 0 or it == 2:  # the colour inside: it only sets the polarity, and hardly moves with the pose
            inside = inside_mean(img, origin, hull_px, 0.7)
        step = 0.5 if reach > 2.5 else 0.25
        for i in range(total):
            if not keep[i]:
                continue
            qx, qy = project_point(sx[i], sy[i], sh[i], p)
            x1, y1 = project_point(sx[i] + eps, sy[i], sh[i], p)
            x2, y2 = project_point(sx[i], sy[i] + eps, sh[i], p)
            ddx = ((x1 - qx) / eps, (y1 - qy) / eps)
            ddy = ((x2 - qx) / eps, (y2 - qy) / eps)
            rx = sx[i] - pose[0]
            ry = sy[i] - pose[1]
            kdeg = math.pi / 180.0
            dth = ((-ry * ddx[0] + rx * ddy[0]) * kdeg, (-ry * ddx[1] + rx * ddy[1]) * kdeg)
            nx, ny = snx[i], sny[i]
            if n_ign >= 3:
                hit = True
                for e in range(n_ign):
                    ax, ay = ignore[e, 0], ignore[e, 1]
                    bx, by = ignore[(e + 1) % n_ign, 0], ignore[(e + 1) % n_ign, 1]
                    if ign_sign * ((bx - ax) * (qy - ay) - (by - ay) * (qx - ax)) < 0:
                        hit = False
                        break
                if hit:
                    keep[i] = False
                    continue
            jac[i, 0] = nx * ddx[0] + ny * ddx[1]
            jac[i, 1] = nx * ddy[0] + ny * ddy[1]
            jac[i, 2] = nx * dth[0] + ny * dth[1]
            is_outline = not screase[i]
            if is_outline:
                jac[i, n_params] = 1.0
                outline_w[i] = 1.0
            # the table's colour beyond the edge: the expected polarity of the step (piece -> table)
            _bilinear(background, qx + nx * (reach + 2.0) - origin[0], qy + ny * (reach + 2.0) - origin[1], col)
            c0, c1, c2 = col[0] - inside[0], col[1] - inside[1], col[2] - inside[2]
            cn = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
            signed = cn >= 8.0 and is_outline
            if signed and contrast_share > 0:
                threshold[i] = min(min_strength, max(4.0, contrast_share * cn))
            g = grow if is_outline else 0.0
            cn = cn if cn > 1e-6 else 1e-6
            off, st = _edge_offset(img, qx + nx * g - origin[0], qy + ny * g - origin[1], nx, ny, c0 / cn,
                                   c1 / cn, c2 / cn, signed, reach, step, prof)
            offsets[i] = off
            strength[i] = st
        # support: the share of the outline (and of the creases) with a clear edge where the model says
        n_out = 0
        n_in = 0
        inl = 0
        inl_c = 0
        sq = 0.0
        for i in range(total):
            good = keep[i] and strength[i] >= threshold[i] and abs(offsets[i]) < 1.0
            if screase[i]:
                if keep[i]:
                    n_in += 1
                if good:
                    inl_c += 1
            else:
                if keep[i]:
                    n_out += 1
                if good:
                    inl += 1
                    sq += offsets[i] * offsets[i]
        count = n_out
        support = inl / n_out if n_out > 0 else 0.0
        crease_support = inl_c / n_in if n_in > 0 else 0.0
        rms = math.sqrt(sq / inl) if inl > 0 else np.inf
        if it == iterations or converged:
            break
        # Tukey-weighted Gauss-Newton on the pose and the even outline offset ``grow``
        c = max(1.0, reach * 0.6)
        npar = n_params + 1
        ata = np.zeros((npar, npar))
        atb = np.zeros(npar)
        wsum = 0.0
        for i in range(total):
            if not keep[i] or strength[i] < threshold[i]:
                continue
            u = offsets[i] / c
            if abs(u) >= 1.0:
                continue
            w = (1.0 - u * u) ** 2
            if screase[i]:
                w *= inner_weight
            if w <= 0.0:
                continue
            wsum += w
            for r in range(npar):
                jr = jac[i, r] if r < n_params else outline_w[i]
                atb[r] += w * jr * offsets[i]
                for q in range(npar):
                    jq = jac[i, q] if q < n_params else outline_w[i]
                    ata[r, q] += w * jr * jq
        if wsum < n_params * 3:
            break
        prior = grow_weight * wsum  # keeps ``grow`` near its expected value when few edges are seen
        ata[npar - 1, npar - 1] += prior
        atb[npar - 1] -= prior * (grow - grow_centre)
        for r in range(npar):
            ata[r, r] += 1e-6
        delta = _solve(ata, atb)
        for r in range(n_params):
            pose[r] += delta[r]
        grow = min(max(grow + delta[npar - 1], -max_grow_px), max_grow_px)
        reach = max(1.5, reach * 0.7)
        small = abs(delta[0]) < 0.005 and abs(delta[1]) < 0.005 and (n_params < 3 or abs(delta[2]) < 0.02)
        if small and it >= 1:
            converged = True
    stats = np.array([support, rms, float(count), 1.0 if converged else 0.0, grow, crease_support])
    return pose, stats, hull_px


# ----------------------------------------------------------------------------------------------------- evidence
@njit(cache=True)
def _chroma_light(b, g, r, bb, bg, br):
    """Chromaticity distance and log lightness ratio of a pixel against a background colour (see
    :mod:`vision.figure_segmentation`)."""
    s_img = b + g + r + 3.0
    s_bg = bb + bg + br + 3.0
    floor = max(s_img, 200.0)
    k = s_img / s_bg
    d0 = (b - bb * k) / floor
    d1 = (g - bg * k) / floor
    d2 = (r - br * k) / floor
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2), math.log(s_img / s_bg)


@njit(cache=True)
def evidence(img, table, paper, ink_c, ink, cover, ink_band, paper_band, has_sheet, chroma_min, darker_log,
             brighter_log, chroma_out, light_out):
    """Chromaticity distance and log lightness ratio of every pixel of ``img`` (uint8 BGR) against the
    background there: the table's colour ``table`` (float32, same size), and with the calibration sheet
    (``has_sheet``) the paper's colour ``paper``, the ink colour ``ink_c`` and the printed ``ink`` / ``cover``
    maps (0..1). In the bands along printed edges (``ink_band``) and the paper's edge (``paper_band``) the
    background on the other side of the edge is tried too and the likelier one kept (the print is registered
    only as well as the calibration)."""
    h, w = img.shape[0], img.shape[1]
    for y in range(h):
        for x in range(w):
            b = float(img[y, x, 0])
            g = float(img[y, x, 1])
            r = float(img[y, x, 2])
            t0, t1, t2 = table[y, x, 0], table[y, x, 1], table[y, x, 2]
            if not has_sheet:
                c, li = _chroma_light(b, g, r, t0, t1, t2)
                chroma_out[y, x] = c
                light_out[y, x] = li
                continue
            p0, p1, p2 = paper[y, x, 0], paper[y, x, 1], paper[y, x, 2]
            best_c = 0.0
            best_l = 0.0
            best_bad = 1e18
            for variant in range(3):
                ik = ink[y, x]
                cv = cover[y, x]
                if variant == 1:
                    if not ink_band[y, x]:
                        continue
                    ik = 1.0 - ik
                elif variant == 2:
                    if not paper_band[y, x]:
                        continue
                    cv = 1.0 - cv
                q0 = t0 * (1.0 - cv) + cv * (p0 * (1.0 - ik) + ink_c[0] * ik)
                q1 = t1 * (1.0 - cv) + cv * (p1 * (1.0 - ik) + ink_c[1] * ik)
                q2 = t2 * (1.0 - cv) + cv * (p2 * (1.0 - ik) + ink_c[2] * ik)
                c, li = _chroma_light(b, g, r, q0, q1, q2)
                bad = max(c / chroma_min, li / darker_log, li / brighter_log)
                if bad < best_bad:
                    best_bad = bad
                    best_c = c
                    best_l = li
            chroma_out[y, x] = best_c
            light_out[y, x] = best_l


@njit(cache=True)
def visible_creases(placed, faces, face_sizes, edges, edge_faces, camera, has_camera):
    """The edges between two faces that both face the camera (creases seen inside the outline), as (m, 2)
    point pairs. ``faces`` (F, 4) point indices padded with -1 (``face_sizes`` their counts), ``edges`` (E, 2)
    the edges shared by two faces and ``edge_faces`` (E, 2) those faces."""
    cx = placed[:, 0].mean()
    cy = placed[:, 1].mean()
    cz = placed[:, 2].mean()
    nf = faces.shape[0]
    front = np.zeros(nf, np.bool_)
    for f in range(nf):
        a, b, c = faces[f, 0], faces[f, 1], faces[f, 2]
        ux, uy, uz = placed[b, 0] - placed[a, 0], placed[b, 1] - placed[a, 1], placed[b, 2] - placed[a, 2]
        vx, vy, vz = placed[c, 0] - placed[a, 0], placed[c, 1] - placed[a, 1], placed[c, 2] - placed[a, 2]
        nx = uy * vz - uz * vy
        ny = uz * vx - ux * vz
        nz = ux * vy - uy * vx
        mx = 0.0
        my = 0.0
        mz = 0.0
        k = face_sizes[f]
        for i in range(k):
            mx += placed[faces[f, i], 0]
            my += placed[faces[f, i], 1]
            mz += placed[faces[f, i], 2]
        mx /= k
        my /= k
        mz /= k
        if nx * (mx - cx) + ny * (my - cy) + nz * (mz - cz) < 0:
            nx, ny, nz = -nx, -ny, -nz
        if has_camera:
            front[f] = nx * (camera[0] - mx) + ny * (camera[1] - my) + nz * (camera[2] - mz) > 1e-9
        else:
            front[f] = nz > 1e-9
    count = 0
    for e in range(edges.shape[0]):
        if front[edge_faces[e, 0]] and front[edge_faces[e, 1]]:
            count += 1
    out = np.empty((count, 2), np.int64)
    k = 0
    for e in range(edges.shape[0]):
        if front[edge_faces[e, 0]] and front[edge_faces[e, 1]]:
            out[k, 0] = edges[e, 0]
            out[k, 1] = edges[e, 1]
            k += 1
    return out
