"""Holdout5 kernels: geometry, graphics and spatial computing as application programmers write them: Moller-Trumbore
rays against a triangle soup streamed through __local tiles, linear blend skinning with UBYTE4 bone indices,
marching-squares segments on a 2-D NDRange, nearest facility by haversine in fp64, a depth-only integer rasteriser
with atomic_min and Bresenham line-of-sight queries on an occupancy grid. The rasteriser's atomics are integer
minima (independent of the work-items' order); its contention grows with the depth complexity of the scene."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, FP64, L1, SUMS, _f64, _spec, pow2, round_up

MT_EPS = 1e-7  # the ray kernel's determinant and t thresholds
EARTH_KM = 6371.0088


# --- rays vs a triangle soup, Moller-Trumbore, triangles streamed through __local tiles ---------------------------
def _inputs_rays(rng, sz):
    """A pinhole camera at z = -3 looking at triangles scattered through the cube [-1, 1]^3 (edges ~ 4 / sqrt(T))."""
    r, t = sz["R"], sz["T"]
    orig = np.array([0.0, 0.0, -3.0]) + rng.uniform(-0.01, 0.01, (r, 3))
    target = np.concatenate([rng.uniform(-1.2, 1.2, (r, 2)), np.zeros((r, 1))], axis=1)
    d = target - orig
    centre = rng.uniform(-1.0, 1.0, (t, 1, 3))
    tris = centre + rng.normal(0.0, 2.5 / np.sqrt(t), (t, 3, 3))
    return {"orig": orig, "dir": d / np.linalg.norm(d, axis=1, keepdims=True), "tris": tris}


def _ref_rays(inp, sz):
    o, d = _f64(inp["orig"]).reshape(-1, 1, 3), _f64(inp["dir"]).reshape(-1, 1, 3)
    tri = _f64(inp["tris"]).reshape(1, -1, 3, 3)
    v0, e1, e2 = tri[..., 0, :], tri[..., 1, :] - tri[..., 0, :], tri[..., 2, :] - tri[..., 0, :]
    p = np.cross(d, e2)
    det = (e1 * p).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = o - v0
        u = (s * p).sum(-1) * inv
        q = np.cross(s, e1)
        w = (d * q).sum(-1) * inv
        t = (e2 * q).sum(-1) * inv
    hit = (np.abs(det) >= MT_EPS) & (u >= 0) & (u <= 1) & (w >= 0) & (u + w <= 1) & (t > MT_EPS)
    t = np.where(hit, t, np.inf)
    best = np.argmin(t, axis=1)
    any_hit = hit.any(axis=1)
    return {"t_hit": np.where(any_hit, t.min(axis=1), -1.0), "tri_hit": np.where(any_hit, best, -1)}


def ray_mesh_nearest_mt() -> KernelSpec:
    return _spec(
        "ray_mesh_nearest_mt", tol=SUMS,
        idiom="Moller-Trumbore nearest hit, ray per item, triangle soup streamed through launch-sized __local tiles",
        sizes={"R": pow2(10, 20, 2), "T": [32, 512, 8192]}, check={"R": 500, "T": 150},
        constraints=["R * T <= 2**25"],
        args=[Arg("nrays", "scalar", "int32", "R"), Arg("ntris", "scalar", "int32", "T"),
              Arg("orig", "buffer", "float32", "3 * R"), Arg("dir", "buffer", "float32", "3 * R"),
              Arg("tris", "buffer", "float32", "9 * T"), Arg("t_hit", "buffer", "float32", "R", "out"),
              Arg("tri_hit", "buffer", "int32", "R", "out"), Arg("tile", "local", "float32", "9 * l0")],
        gsize=[round_up("R")], local=L1, reference=_ref_rays, make_inputs=_inputs_rays)


# --- linear blend skinning, 4 bones per vertex, UBYTE4-packed indices -----------------------------------------
def _inputs_skin(rng, sz):
    """1-4 influences per vertex (weights sorted, summing to one), bones: small rotations plus translations."""
    v, b = sz["V"], sz["B"]
    pos = np.concatenate([rng.uniform(-1.0, 1.0, (v, 3)), np.ones((v, 1))], axis=1)
    nrm = rng.normal(size=(v, 3))
    nrm = np.concatenate([nrm / np.linalg.norm(nrm, axis=1, keepdims=True), np.zeros((v, 1))], axis=1)
    idx = rng.integers(0, b, (v, 4)).astype(np.uint32)
    w = -np.sort(-rng.random((v, 4)), axis=1) * (np.arange(4)[None, :] < rng.integers(1, 5, (v, 1)))
    w /= w.sum(axis=1, keepdims=True)
    axis = rng.normal(size=(b, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    ang = rng.uniform(-0.6, 0.6, b)
    k = np.zeros((b, 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    k -= k.transpose(0, 2, 1)
    rot = np.eye(3) + np.sin(ang)[:, None, None] * k + (1 - np.cos(ang))[:, None, None] * (k @ k)  # Rodrigues
    bones = np.concatenate([rot, rng.uniform(-0.5, 0.5, (b, 3, 1))], axis=2)
    return {"pos": pos, "nrm": nrm, "weights": w, "bones": bones,
            "joints": idx[:, 0] | idx[:, 1] << 8 | idx[:, 2] << 16 | idx[:, 3] << 24}


def _ref_skin(inp, sz):
    packed = inp["joints"].astype(np.int64)
    idx = np.stack([(packed >> (8 * k)) & 0xFF for k in range(4)], axis=1)
    idx = np.where(idx < sz["B"], idx, 0)
    bones = _f64(inp["bones"]).reshape(-1, 3, 4)
    m = np.einsum("vk,vkrc->vrc", _f64(inp["weights"]).reshape(-1, 4), bones[idx])
    p = _f64(inp["pos"]).reshape(-1, 4).copy()
    p[:, 3] = 1.0
    n = np.einsum("vrc,vc->vr", m[:, :, :3], _f64(inp["nrm"]).reshape(-1, 4)[:, :3])
    v = packed.size
    return {"out_pos": np.concatenate([np.einsum("vrc,vc->vr", m, p), np.ones((v, 1))], axis=1),
            "out_nrm": np.concatenate([n / np.linalg.norm(n, axis=1, keepdims=True), np.zeros((v, 1))], axis=1)}


def skin_lbs_ubyte4() -> KernelSpec:
    return _spec(
        "skin_lbs_ubyte4", tol=SUMS,
        idiom="linear blend skinning: 4 bone indices unpacked from a uint, weighted 3x4 float4 rows, renormalised normal",
        sizes={"V": pow2(12, 22, 2), "B": [32, 256]}, check={"V": 1000, "B": 20},
        args=[Arg("nverts", "scalar", "int32", "V"), Arg("nbones", "scalar", "int32", "B"),
              Arg("pos", "buffer", "float32", "4 * V"), Arg("nrm", "buffer", "float32", "4 * V"),
              Arg("joints", "buffer", "uint32", "V"), Arg("weights", "buffer", "float32", "4 * V"),
              Arg("bones", "buffer", "float32", "12 * B"),
              Arg("out_pos", "buffer", "float32", "4 * V", "out"), Arg("out_nrm", "buffer", "float32", "4 * V", "out")],
        gsize=[round_up("V")], local=L1, reference=_ref_skin, make_inputs=_inputs_skin)


# --- marching squares: case index and interpolated segments per cell, 2-D ---------------------------------------
_MS_TABLE = np.array([[-1, -1, -1, -1], [3, 0, -1, -1], [0, 1, -1, -1], [3, 1, -1, -1],
                      [1, 2, -1, -1], [3, 0, 1, 2], [0, 2, -1, -1], [3, 2, -1, -1],
                      [2, 3, -1, -1], [2, 0, -1, -1], [0, 1, 2, 3], [2, 1, -1, -1],
                      [1, 3, -1, -1], [1, 0, -1, -1], [0, 3, -1, -1], [-1, -1, -1, -1]])


def _inputs_field(rng, sz):
    """A smooth field: six plane waves of wavelengths 16-128 nodes plus a little noise, level 0 crossing it often."""
    w, h = sz["W"], sz["H"]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    f = 0.05 * rng.standard_normal((h, w)).astype(np.float32)
    for _ in range(6):
        k = 2 * np.pi / rng.uniform(16, 128) * np.array([np.cos(a := rng.uniform(0, np.pi)), np.sin(a)])
        f += np.float32(rng.uniform(0.3, 1.0)) * np.sin(np.float32(k[0]) * x + np.float32(k[1]) * y
                                                       + np.float32(rng.uniform(0, 2 * np.pi)))
    return {"field": f}


def _ref_field(inp, sz):
    w, h, iso = sz["W"], sz["H"], float(inp["iso"])
    f = _f64(inp["field"]).reshape(h, w)
    fa, fb, fc, fd = f[:-1, :-1], f[:-1, 1:], f[1:, 1:], f[1:, :-1]
    code = (fa > iso) * 1 + (fb > iso) * 2 + (fc > iso) * 4 + (fd > iso) * 8
    swap = ((code == 5) | (code == 10)) & (0.25 * (fa + fb + fc + fd) > iso)
    edges = _MS_TABLE[np.where(swap, 15 - code, code)]
    y, x = np.mgrid[0:h - 1, 0:w - 1].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pts = np.stack([np.stack([x + (iso - fa) / (fb - fa), y], -1), np.stack([x + 1, y + (iso - fb) / (fc - fb)], -1),
                        np.stack([x + (iso - fd) / (fc - fd), y + 1], -1), np.stack([x, y + (iso - fa) / (fd - fa)], -1)],
                       axis=2)  # (h-1, w-1, edge, xy)
    ends = np.take_along_axis(pts, np.maximum(edges, 0)[..., None], axis=2)  # (h-1, w-1, 4 ends, xy)
    world = np.array([float(inp["origin_x"]), float(inp["origin_y"])]) + float(inp["spacing"]) * ends
    segs = np.where((edges >= 0)[..., None], world, 0.0)
    return {"cases": code, "segs": segs}


def march_squares_segments() -> KernelSpec:
    return _spec(
        "march_squares_segments",
        idiom="marching squares per cell, 2-D: 4-bit case, __constant edge table, saddle by centre, lerped segments",
        sizes={"W": [129, 513, 2049, 8193], "H": [65, 513, 2049]}, check={"W": 70, "H": 41},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("iso", "scalar", "float32", "0.0"), Arg("origin_x", "scalar", "float32", "-2.0"),
              Arg("origin_y", "scalar", "float32", "-1.0"), Arg("spacing", "scalar", "float32", "4.0 / (W - 1)"),
              Arg("field", "buffer", "float32", "W * H"), Arg("cases", "buffer", "uint8", "(W - 1) * (H - 1)", "out"),
              Arg("segs", "buffer", "float32", "8 * (W - 1) * (H - 1)", "out")],
        gsize=[round_up("W - 1", 64), round_up("H - 1", 16)], local=[[16, 16], [32, 8], [64, 4]],
        reference=_ref_field, make_inputs=_inputs_field)


# --- nearest facility on the sphere by haversine, fp64 ----------------------------------------------------------
def _inputs_geo(rng, sz):
    """Query points between 60 S and 70 N; centres spread over the sphere (uniform in area)."""
    p, k = sz["P"], sz["K"]
    pts = np.stack([rng.uniform(-60.0, 70.0, p), rng.uniform(-180.0, 180.0, p)], axis=1)
    cen = np.stack([np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, k))), rng.uniform(-180.0, 180.0, k)], axis=1)
    return {"points": pts, "centres": cen}


def _ref_geo(inp, sz):
    pts, cen = np.radians(_f64(inp["points"]).reshape(-1, 2)), np.radians(_f64(inp["centres"]).reshape(-1, 2))
    lat1, lon1 = pts[:, :1], pts[:, 1:]
    a = (np.sin(0.5 * (cen[None, :, 0] - lat1)) ** 2
         + np.cos(lat1) * np.cos(cen[None, :, 0]) * np.sin(0.5 * (cen[None, :, 1] - lon1)) ** 2)
    a_max = np.sin(0.5 * float(inp["radius_km"]) / EARTH_KM) ** 2
    best = np.argmin(a, axis=1)
    return {"nearest": best, "dist_km": 2.0 * EARTH_KM * np.arcsin(np.sqrt(np.minimum(a.min(axis=1), 1.0))),
            "within": (a <= a_max).sum(axis=1)}


def haversine_nearest_fp64() -> KernelSpec:
    return _spec(
        "haversine_nearest_fp64", precision="fp64", tol=FP64,
        idiom="nearest facility by haversine in fp64: loop over centres comparing the monotone term, radius count",
        sizes={"P": pow2(10, 20, 2), "K": [8, 64, 512]}, check={"P": 600, "K": 70},
        constraints=["P * K <= 2**22"],
        args=[Arg("npoints", "scalar", "int32", "P"), Arg("ncentres", "scalar", "int32", "K"),
              Arg("radius_km", "scalar", "float64", "1500.0"),
              Arg("points", "buffer", "float64", "2 * P"), Arg("centres", "buffer", "float64", "2 * K"),
              Arg("nearest", "buffer", "int32", "P", "out"), Arg("dist_km", "buffer", "float64", "P", "out"),
              Arg("within", "buffer", "int32", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_geo, make_inputs=_inputs_geo)


# --- depth-only integer rasteriser, atomic_min on 24-bit depths -------------------------------------------------
def _inputs_raster(rng, sz):
    """Triangles of circumradius P/3..P pixels centred over the viewport (and a little beyond), half of them wound
    clockwise (culled); 28.4 fixed-point vertices, a depth per vertex within 2^20 of the triangle's; depth cleared."""
    n, w, p = sz["N"], sz["W"], sz["P"]
    h = w * 9 // 16
    centre = np.stack([rng.uniform(-0.05, 1.05, n) * w, rng.uniform(-0.05, 1.05, n) * h], axis=1)
    ang = rng.uniform(0, 2 * np.pi, (n, 1)) + np.sort(rng.uniform(0, 2 * np.pi, (n, 3)), axis=1)
    ang = np.where(rng.random((n, 1)) < 0.5, ang, ang[:, ::-1])
    rad = rng.uniform(p / 3, p, (n, 3))
    xy = np.round(16 * (centre[:, None, :] + rad[..., None] * np.stack([np.cos(ang), np.sin(ang)], -1)))
    z = rng.integers(2**20, 2**24 - 2**20, (n, 1)) + rng.integers(-2**20, 2**20, (n, 3))
    return {"xy": xy.astype(np.int32), "z": z.astype(np.uint32), "depth": np.full(w * h, 0xFFFFFFFF, np.uint32)}


def _ref_raster(inp, sz):
    w = sz["W"]
    h = w * 9 // 16
    depth = inp["depth"].astype(np.int64)
    xy, zs = inp["xy"].astype(np.int64).reshape(-1, 3, 2), inp["z"].astype(np.int64).reshape(-1, 3)

    def edge(a, b, px, py):
        return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])

    def top_left(a, b):
        return (a[1] == b[1] and b[0] < a[0]) or b[1] < a[1]

    for (v0, v1, v2), z in zip(xy, zs):
        area = edge(v0, v1, *v2)
        if area <= 0:
            continue
        xs, ys = (v0[0], v1[0], v2[0]), (v0[1], v1[1], v2[1])
        px = np.arange(max(min(xs), 0) >> 4, min(max(xs) >> 4, w - 1) + 1)
        py = np.arange(max(min(ys), 0) >> 4, min(max(ys) >> 4, h - 1) + 1)
        if not px.size or not py.size:
            continue
        sx, sy = np.meshgrid(16 * px + 8, 16 * py + 8)
        ws = [edge(v1, v2, sx, sy), edge(v2, v0, sx, sy), edge(v0, v1, sx, sy)]
        inside = np.ones(sx.shape, bool)
        for e, (a, b) in zip(ws, ((v1, v2), (v2, v0), (v0, v1))):
            inside &= e + (0 if top_left(a, b) else -1) >= 0
        d = (ws[0] * z[0] + ws[1] * z[1] + ws[2] * z[2]) // area
        gx, gy = np.meshgrid(px, py)
        np.minimum.at(depth, (gy * w + gx)[inside], d[inside])
    return {"depth": depth}


def raster_tri_depth_fixed() -> KernelSpec:
    return _spec(
        "raster_tri_depth_fixed", precision="uint32",
        idiom="triangle per item: clipped bbox walk, incremental int64 edge functions, top-left rule, atomic_min depth",
        sizes={"N": pow2(13, 22, 3), "P": [4, 16, 64], "W": [640, 1920]}, check={"N": 300, "W": 160, "P": 10},
        constraints=["N * P * P <= 2**27"],
        args=[Arg("ntris", "scalar", "int32", "N"), Arg("width", "scalar", "int32", "W"),
              Arg("height", "scalar", "int32", "W * 9 // 16"),
              Arg("xy", "buffer", "int32", "6 * N"), Arg("z", "buffer", "uint32", "3 * N"),
              Arg("depth", "buffer", "uint32", "W * (W * 9 // 16)", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_raster, make_inputs=_inputs_raster)


# --- Bresenham line of sight on an occupancy grid ----------------------------------------------------------------
def _inputs_grid(rng, sz):
    """A G x G map of random boxes (2-24 cells, ~5% of the area); queries from free cells, aimed at random
    directions 0.25-1.5 max_steps away (ends may lie off the map)."""
    g, q, m = sz["G"], sz["Q"], sz["M"]
    occ = np.zeros((g, g), np.uint8)
    nbox = max(1, int(0.05 * g * g / 130))
    corner, size = rng.integers(0, g, (nbox, 2)), rng.integers(2, 25, (nbox, 2))
    for (y, x), (hy, hx) in zip(corner, size):
        occ[y:y + hy, x:x + hx] = 1
    free = np.flatnonzero(occ.reshape(-1) == 0)
    start = free[rng.integers(0, free.size, q)]
    sx, sy = start % g, start // g
    ang, dist = rng.uniform(0, 2 * np.pi, q), rng.uniform(0.25, 1.5, q) * m
    ex, ey = np.round(sx + dist * np.cos(ang)), np.round(sy + dist * np.sin(ang))
    return {"occ": occ, "queries": np.stack([sx, sy, ex, ey], axis=1).astype(np.int32)}


def _ref_grid(inp, sz):
    g, m = sz["G"], int(inp["max_steps"])
    occ = inp["occ"].reshape(-1)
    x0, y0, x1, y1 = inp["queries"].astype(np.int64).reshape(-1, 4).T
    x, y = x0.copy(), y0.copy()
    dx, dy = np.abs(x1 - x0), -np.abs(y1 - y0)
    sx, sy = np.where(x0 < x1, 1, -1), np.where(y0 < y1, 1, -1)
    err = dx + dy
    hit, n = np.full(x.size, -1), np.zeros(x.size, np.int64)
    live = np.ones(x.size, bool)
    for _ in range(m):
        inside = (x >= 0) & (x < g) & (y >= 0) & (y < g)
        live &= inside
        cell = np.where(inside, y * g + x, 0)
        blocked = live & (occ[cell] != 0)
        hit[blocked] = cell[blocked]
        live &= ~blocked & ~((x == x1) & (y == y1))
        if not live.any():
            break
        e2 = 2 * err
        step_x, step_y = live & (e2 >= dy), live & (e2 <= dx)
        err += np.where(step_x, dy, 0) + np.where(step_y, dx, 0)
        x += np.where(step_x, sx, 0)
        y += np.where(step_y, sy, 0)
        n += live
    return {"hit_cell": hit, "steps_taken": n}


def grid_los_bresenham() -> KernelSpec:
    return _spec(
        "grid_los_bresenham", precision="int32",
        idiom="line of sight per item: Bresenham walk over a uchar occupancy grid, exits on hit, end, edge or max_steps",
        sizes={"Q": [4096, 32768, 262144, 524288], "G": [512, 4096], "M": [64, 1024]},
        check={"Q": 2000, "G": 128, "M": 100},
        args=[Arg("nqueries", "scalar", "int32", "Q"), Arg("width", "scalar", "int32", "G"),
              Arg("height", "scalar", "int32", "G"), Arg("max_steps", "scalar", "int32", "M"),
              Arg("queries", "buffer", "int32", "4 * Q"), Arg("occ", "buffer", "uint8", "G * G"),
              Arg("hit_cell", "buffer", "int32", "Q", "out"), Arg("steps_taken", "buffer", "int32", "Q", "out")],
        gsize=[round_up("Q")], local=L1, reference=_ref_grid, make_inputs=_inputs_grid)


#: this group's builders, in the order of ``specs()``
BUILDERS = (ray_mesh_nearest_mt, skin_lbs_ubyte4, march_squares_segments, haversine_nearest_fp64,
            raster_tri_depth_fixed, grid_los_bresenham)
