"""Holdout9 kernels, group graphics, continued (written by hand; see docs/HOLDOUT9.md): baking a sky-view lookup
table by single scattering in fp64 (2-D: view ray marched to the top of the atmosphere or the ground, each
sample's sun ray tested for the planet's shadow and marched for its optical depth, Rayleigh and Mie phases); the
fine stage of a binned triangle rasterizer (2-D: a work-group inside one 32x32 bin stages the triangle setup of
the bin's list in __local, every pixel evaluates 64-bit fixed-point edge functions with a tie rule and keeps the
nearest depth and its triangle id); and one Loop subdivision step of a triangle mesh (new even vertices from the
CSR one-ring with the valence-dependent beta, new odd vertices from each edge's two or four points, boundary
rules). None of these three uses atomics. Split from :mod:`.graphics` to keep each module short; :mod:`.catalog`
lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, pow2, round_up

SKY_RG, SKY_RT = 6360.0, 6420.0  # sky_view_scatter_fp64: ground and top-of-atmosphere radii (km)
SKY_SUN_ELEV = 3.0  # sky_view_scatter_fp64: the sun's elevation (degrees): a low sun, samples far off in shadow


# --- sky-view LUT by single scattering in fp64, 2-D --------------------------------------------------------------
def _inputs_sky(rng, sz):
    """Earth-like Rayleigh (5.8, 13.5, 33.1 per 1000 km) and Mie (4.0 scattering, 4.4 extinction per 1000 km)
    coefficients, each scaled by 0.9 .. 1.1 (a slightly hazy or clear day); the sun 3 degrees above the horizon."""
    e = np.radians(SKY_SUN_ELEV)
    beta = np.array([5.802e-3, 13.558e-3, 33.1e-3, 3.996e-3, 4.40e-3]) * rng.uniform(0.9, 1.1, 5)
    return {"atmos": np.concatenate([beta, [np.cos(e), np.sin(e), 0.0]])}


def _ref_sky(inp, sz):
    nu, nv, ns, nl = (int(inp[k]) for k in ("nu", "nv", "nview", "nlight"))
    rg, rt, alt, hr, hm, g = (float(inp[k]) for k in ("r_ground", "r_top", "alt", "hr", "hm", "mie_g"))
    a = _f64(inp["atmos"])
    beta_r, beta_ms, beta_me, sun = a[0:3], a[3], a[4], a[5:8]
    r = rg + alt
    horizon = np.arccos(np.sqrt(r * r - rg * rg) / r)
    zh = np.pi - horizon
    fv = (np.arange(nv) + 0.5) / nv
    zen = np.where(fv < 0.5, zh * (1.0 - (1.0 - 2.0 * fv) ** 2), zh + horizon * (2.0 * fv - 1.0) ** 2)
    phi = 2.0 * np.pi * (np.arange(nu) + 0.5) / nu
    zen, phi = np.meshgrid(zen, phi, indexing="ij")
    d = np.stack([np.sin(zen) * np.cos(phi), np.cos(zen), np.sin(zen) * np.sin(phi)], -1).reshape(-1, 3)
    org = np.array([0.0, r, 0.0])
    b = d @ org
    t_end = -b + np.sqrt(b * b - (org @ org - rt * rt))
    disc = b * b - (org @ org - rg * rg)
    tg = -b - np.sqrt(np.maximum(disc, 0.0))
    t_end = np.where((disc >= 0) & (tg > 0), tg, t_end)
    ds = t_end / ns
    od_r, od_m = np.zeros(len(d)), np.zeros(len(d))
    sum_r, sum_m = np.zeros((len(d), 3)), np.zeros((len(d), 3))
    for i in range(ns):
        p = org + ((i + 0.5) * ds)[:, None] * d
        h = np.linalg.norm(p, axis=1) - rg
        dr, dm = np.exp(-h / hr) * ds, np.exp(-h / hm) * ds
        od_r += dr
        od_m += dm
        bl = p @ sun
        pp = (p * p).sum(1)
        dl_g = bl * bl - (pp - rg * rg)
        lit = ~((dl_g >= 0) & (-bl - np.sqrt(np.maximum(dl_g, 0.0)) > 0))
        dl = (-bl + np.sqrt(bl * bl - (pp - rt * rt))) / nl
        odl_r, odl_m = np.zeros(len(d)), np.zeros(len(d))
        for j in range(nl):
            hl = np.linalg.norm(p + ((j + 0.5) * dl)[:, None] * sun, axis=1) - rg
            odl_r += np.exp(-hl / hr)
            odl_m += np.exp(-hl / hm)
        tau = beta_r[None, :] * (od_r + odl_r * dl)[:, None] + beta_me * (od_m + odl_m * dl)[:, None]
        att = np.exp(-tau)
        sum_r += np.where(lit[:, None], att * dr[:, None], 0.0)
        sum_m += np.where(lit[:, None], att * dm[:, None], 0.0)
    mu = d @ sun
    phase_r = 3.0 / (16.0 * np.pi) * (1.0 + mu * mu)
    phase_m = (3.0 / (8.0 * np.pi) * ((1.0 - g * g) * (1.0 + mu * mu))
               / ((2.0 + g * g) * (1.0 + g * g - 2.0 * g * mu) ** 1.5))
    return {"lut": sum_r * beta_r[None, :] * phase_r[:, None] + sum_m * (beta_ms * phase_m)[:, None]}


def sky_view_scatter_fp64() -> KernelSpec:
    # H = 9 W / 16 is even at every size (the check's too), so no texel centre looks exactly along the horizon
    return _spec(
        "sky_view_scatter_fp64", precision="fp64", tol=FP64,
        idiom="sky-view LUT by single scattering in fp64, 2-D: view ray marched to top or ground, sun ray shadow test "
              "then optical-depth march, two phases",
        sizes={"W": [64, 128, 256, 512, 1024], "NS": [16, 40], "NL": [4, 12]}, check={"W": 32, "NS": 8, "NL": 4},
        constraints=["W * W * NS * NL <= 2**26"],
        args=[Arg("nu", "scalar", "int32", "W"), Arg("nv", "scalar", "int32", "W * 9 // 16"),
              Arg("nview", "scalar", "int32", "NS"), Arg("nlight", "scalar", "int32", "NL"),
              Arg("r_ground", "scalar", "float64", str(SKY_RG)), Arg("r_top", "scalar", "float64", str(SKY_RT)),
              Arg("alt", "scalar", "float64", "0.2"), Arg("hr", "scalar", "float64", "8.0"),
              Arg("hm", "scalar", "float64", "1.2"), Arg("mie_g", "scalar", "float64", "0.8"),
              Arg("atmos", "buffer", "float64", "8"),
              Arg("lut", "buffer", "float64", "3 * W * (W * 9 // 16)", "out")],
        gsize=[round_up("W", 32), round_up("W * 9 // 16", 16)], local=L2, reference=_ref_sky, make_inputs=_inputs_sky)



# --- fine rasterization of binned triangles, batch setup in __local, 64-bit edge functions, 2-D ---------------------
RAS_MESH = 24  # tile_bin_raster_local: cell of the background grid mesh (pixels)
RAS_TRIS = "W * (W * 3 // 4) * D // 200 + 2 * ((W + 23) // 24) * ((W * 3 // 4 + 23) // 24)"


def _inputs_ras(rng, sz):
    """A background grid mesh (24-pixel cells split along alternating diagonals, so neighbours share edges that
    pass through pixel centres; 15% of its quads collapsed to points, i.e. degenerate and culled) at depths
    0.9 .. 0.99, in front of it W * H * D / 200 loose triangles of 3 .. 32 pixel radius (vertices clipped to
    +-32 pixels of the centre), a fifth of them back-facing, centres out to 16 pixels beyond the screen; each
    loose triangle has its own depth band (a random order), so none intersects another. Vertices snapped to
    1/16 pixel. Binned by pixel bounding box into 32x32 bins, each bin's list in triangle order, the list
    padded with -1 to 9 entries a triangle."""
    w = sz["W"]
    h = w * 3 // 4
    nr = w * h * sz["D"] // 200
    ncx, ncy = (w + RAS_MESH - 1) // RAS_MESH, (h + RAS_MESH - 1) // RAS_MESH
    gx = np.arange(ncx + 1) * RAS_MESH * 16 + 8
    gy = np.arange(ncy + 1) * RAS_MESH * 16 + 8
    gz = 0.9 + 0.045 * (1.0 + np.sin(gx[None, :] / 900.0 + 0.5) * np.cos(gy[:, None] / 700.0))
    i, j = np.meshgrid(np.arange(ncx), np.arange(ncy))
    i, j = i.reshape(-1), j.reshape(-1)
    corner = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
    flip = ((i + j) % 2 == 1)
    tris = []  # two triangles a quad, corners in the quad's positive turn (area > 0 in y-down coordinates)
    for k in (0, 1):
        tris.append([np.where(flip, corner[(q + 2 * k + 1) % 4][c], corner[(q + 2 * k) % 4][c])
                     for q in (0, 1, 2) for c in (0, 1)])
    mesh_xy = np.stack([np.concatenate([tris[0][m], tris[1][m]]) for m in range(6)], 1)
    mesh_xy = np.stack([gx[mesh_xy[:, 0]], gy[mesh_xy[:, 1]], gx[mesh_xy[:, 2]], gy[mesh_xy[:, 3]],
                        gx[mesh_xy[:, 4]], gy[mesh_xy[:, 5]]], 1)
    mesh_z = np.stack([gz[(mesh_xy[:, 2 * q + 1] - 8) // (RAS_MESH * 16), (mesh_xy[:, 2 * q] - 8) // (RAS_MESH * 16)]
                       for q in range(3)], 1)
    hole = rng.random(len(i)) < 0.15
    hole = np.concatenate([hole, hole])
    mesh_xy[hole] = mesh_xy[hole][:, [0, 1, 0, 1, 0, 1]]
    c = np.stack([rng.uniform(-16, w + 16, nr), rng.uniform(-16, h + 16, nr)], 1)
    rad = np.clip(np.exp(rng.normal(np.log(10.0), 0.5, nr)), 3.0, 32.0)
    ang = rng.uniform(0, 2 * np.pi, nr)[:, None] + np.array([0.0, 2.1, 4.2])[None, :] + rng.uniform(-0.4, 0.4, (nr, 3))
    r3 = rad[:, None] * rng.uniform(0.6, 1.0, (nr, 3))
    vx = np.rint((c[:, :1] + np.clip(r3 * np.cos(ang), -32, 32)) * 16).astype(np.int64)
    vy = np.rint((c[:, 1:] + np.clip(r3 * np.sin(ang), -32, 32)) * 16).astype(np.int64)
    back = rng.random(nr) < 0.2
    vx[back] = vx[back][:, [0, 2, 1]]
    vy[back] = vy[back][:, [0, 2, 1]]
    loose_xy = np.stack([vx[:, 0], vy[:, 0], vx[:, 1], vy[:, 1], vx[:, 2], vy[:, 2]], 1)
    band = rng.permutation(nr)[:, None]
    loose_z = 0.9 * (band + rng.uniform(0.1, 0.9, (nr, 3))) / max(nr, 1)
    xy = np.concatenate([mesh_xy, loose_xy]).astype(np.int64)
    z = np.concatenate([mesh_z, loose_z])
    nt = len(xy)
    # coarse binning by the pixel bounding box, clipped to the screen
    nbx, nby = (w + 31) // 32, (h + 31) // 32
    bx0 = np.clip(xy[:, 0::2].min(1) >> 4, 0, w - 1) // 32
    bx1 = np.clip(xy[:, 0::2].max(1) >> 4, 0, w - 1) // 32
    by0 = np.clip(xy[:, 1::2].min(1) >> 4, 0, h - 1) // 32
    by1 = np.clip(xy[:, 1::2].max(1) >> 4, 0, h - 1) // 32
    onscreen = ((xy[:, 0::2].max(1) >> 4) >= 0) & ((xy[:, 0::2].min(1) >> 4) < w)
    onscreen &= ((xy[:, 1::2].max(1) >> 4) >= 0) & ((xy[:, 1::2].min(1) >> 4) < h)
    bins, owners = [], []
    for oy in range(3):
        for ox in range(3):
            ok = onscreen & (bx0 + ox <= bx1) & (by0 + oy <= by1)
            bins.append(((by0 + oy) * nbx + bx0 + ox)[ok])
            owners.append(np.nonzero(ok)[0])
    bins, owners = np.concatenate(bins), np.concatenate(owners)
    order = np.argsort(bins * nt + owners, kind="stable")
    start = np.concatenate([[0], np.cumsum(np.bincount(bins, minlength=nbx * nby))])
    lists = np.full(9 * nt, -1, dtype=np.int64)
    lists[:len(order)] = owners[order]
    return {"tri_xy": xy, "tri_z": z, "bin_start": start, "bin_tris": lists}


def _ref_ras(inp, sz):
    w, h = int(inp["width"]), int(inp["height"])
    xy = np.asarray(inp["tri_xy"]).astype(np.int64).reshape(-1, 6)
    z = _f64(inp["tri_z"]).reshape(-1, 3)
    zbuf, ids = np.ones((h, w)), np.full((h, w), -1, dtype=np.int64)

    def edge(ax, ay, bx, by, px, py):
        return (bx - ax) * (py - ay) - (by - ay) * (px - ax)

    def owned(e, ax, ay, bx, by):
        return (e > 0) | ((e == 0) & ((by > ay) | ((by == ay) & (bx < ax))))

    for t, (x0, y0, x1, y1, x2, y2) in enumerate(xy):
        area = edge(x0, y0, x1, y1, x2, y2)
        if area <= 0:
            continue
        i0, i1 = max(min(x0, x1, x2) >> 4, 0), min(max(x0, x1, x2) >> 4, w - 1)
        j0, j1 = max(min(y0, y1, y2) >> 4, 0), min(max(y0, y1, y2) >> 4, h - 1)
        if i0 > i1 or j0 > j1:
            continue
        px, py = np.meshgrid(np.arange(i0, i1 + 1) * 16 + 8, np.arange(j0, j1 + 1) * 16 + 8)
        w0, w1, w2 = edge(x1, y1, x2, y2, px, py), edge(x2, y2, x0, y0, px, py), edge(x0, y0, x1, y1, px, py)
        inside = owned(w0, x1, y1, x2, y2) & owned(w1, x2, y2, x0, y0) & owned(w2, x0, y0, x1, y1)
        zz = (w0 * z[t, 0] + w1 * z[t, 1] + w2 * z[t, 2]) / area
        win = (slice(j0, j1 + 1), slice(i0, i1 + 1))
        take = inside & (zz < zbuf[win])
        zbuf[win] = np.where(take, zz, zbuf[win])
        ids[win] = np.where(take, t, ids[win])
    return {"zbuf": zbuf, "idbuf": ids}


def tile_bin_raster_local() -> KernelSpec:
    return _spec(
        "tile_bin_raster_local",
        idiom="binned rasterizer fine stage, 2-D: group in one 32x32 bin sets up batches of its list in __local, "
              "int64 edge functions, edge-owner tie rule, z-test",
        sizes={"W": [256, 512, 1024, 2048], "D": [1, 2, 4, 8, 16, 32]}, check={"W": 96, "D": 2},
        constraints=["W * W * D <= 2**25"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "W * 3 // 4"),
              Arg("nbx", "scalar", "int32", "(W + 31) // 32"), Arg("ntri", "scalar", "int32", RAS_TRIS),
              Arg("tri_xy", "buffer", "int32", f"6 * ({RAS_TRIS})"),
              Arg("tri_z", "buffer", "float32", f"3 * ({RAS_TRIS})"),
              Arg("bin_start", "buffer", "int32", "(W + 31) // 32 * ((W * 3 // 4 + 31) // 32) + 1"),
              Arg("bin_tris", "buffer", "int32", f"9 * ({RAS_TRIS})"),
              Arg("zbuf", "buffer", "float32", "W * (W * 3 // 4)", "out"),
              Arg("idbuf", "buffer", "int32", "W * (W * 3 // 4)", "out")],
        gsize=[round_up("W", 32), round_up("W * 3 // 4", 32)], local=L2, reference=_ref_ras, make_inputs=_inputs_ras)



# --- one Loop subdivision step: even vertices from the CSR one-ring, odd vertices from the edges, border rules ------
LOOP_E = "(NX - 1) * NY + NX * (NY - 1) + (NX - 1) * (NY - 1)"  # loop_subdiv_even_odd: edges of the grid mesh


def _inputs_loop(rng, sz):
    """A terrain patch: an NX x NY grid of vertices (spacing h, jittered by up to 0.3 h, heights of a few waves
    plus noise), each quad split along a random diagonal, so interior valences run from 4 to 8; the border is
    open. One-rings in CSR, a border vertex's two border neighbours first; edges (a, b, c, d), in the order
    horizontal, vertical, diagonal, with d = -1 on the border."""
    nx, ny = sz["NX"], sz["NY"]
    h = 1.0 / max(nx, ny)
    jj, ii = np.divmod(np.arange(nx * ny), nx)
    x = ii * h + rng.uniform(-0.3, 0.3, nx * ny) * h
    y = jj * h + rng.uniform(-0.3, 0.3, nx * ny) * h
    zt = 0.05 * np.sin(7.0 * x + 1.0) * np.cos(5.0 * y) + 0.02 * np.sin(23.0 * (x + y)) + 0.2 * h * rng.random(nx * ny)
    diag = rng.integers(0, 2, (ny - 1, nx - 1))  # 0: (i, j)-(i+1, j+1); 1: (i+1, j)-(i, j+1)

    def vid(i, j):
        return j * nx + i

    # horizontal edges (i, j)-(i+1, j): the quad above (i, j) and the quad below (i, j-1)
    hj, hi = np.divmod(np.arange((nx - 1) * ny), nx - 1)
    up = np.where(diag[np.minimum(hj, ny - 2), hi] == 0, vid(hi + 1, hj + 1), vid(hi, hj + 1))
    dn = np.where(diag[np.maximum(hj - 1, 0), hi] == 0, vid(hi, hj - 1), vid(hi + 1, hj - 1))
    hc = np.where(hj < ny - 1, up, dn)
    hd = np.where((hj < ny - 1) & (hj > 0), dn, -1)
    horiz = np.stack([vid(hi, hj), vid(hi + 1, hj), hc, hd], 1)
    # vertical edges (i, j)-(i, j+1): the quad right (i, j) and the quad left (i-1, j)
    vj, vi = np.divmod(np.arange(nx * (ny - 1)), nx)
    rt = np.where(diag[vj, np.minimum(vi, nx - 2)] == 0, vid(vi + 1, vj + 1), vid(vi + 1, vj))
    lf = np.where(diag[vj, np.maximum(vi - 1, 0)] == 0, vid(vi - 1, vj), vid(vi - 1, vj + 1))
    vc = np.where(vi < nx - 1, rt, lf)
    vd = np.where((vi < nx - 1) & (vi > 0), lf, -1)
    vert = np.stack([vid(vi, vj), vid(vi, vj + 1), vc, vd], 1)
    # diagonals, each inside one quad
    qj, qi = np.divmod(np.arange((nx - 1) * (ny - 1)), nx - 1)
    d0 = diag.reshape(-1) == 0
    dg = np.stack([np.where(d0, vid(qi, qj), vid(qi + 1, qj)), np.where(d0, vid(qi + 1, qj + 1), vid(qi, qj + 1)),
                   np.where(d0, vid(qi + 1, qj), vid(qi, qj)), np.where(d0, vid(qi, qj + 1), vid(qi + 1, qj + 1))], 1)
    edges = np.concatenate([horiz, vert, dg])
    # one-rings: E, NE, N, NW, W, SW, S, SE
    dpad = np.full((ny + 1, nx + 1), -1)
    dpad[1:ny, 1:nx] = diag  # dpad[j + 1, i + 1] is quad (i, j)
    cand = np.stack([vid(ii + 1, jj), vid(ii + 1, jj + 1), vid(ii, jj + 1), vid(ii - 1, jj + 1),
                     vid(ii - 1, jj), vid(ii - 1, jj - 1), vid(ii, jj - 1), vid(ii + 1, jj - 1)], 1)
    valid = np.stack([ii < nx - 1, dpad[jj + 1, ii + 1] == 0, jj < ny - 1, dpad[jj + 1, ii] == 1,
                      ii > 0, dpad[jj, ii] == 0, jj > 0, dpad[jj, ii + 1] == 1], 1)
    border = (ii == 0) | (ii == nx - 1) | (jj == 0) | (jj == ny - 1)
    bi = np.nonzero(border)[0]
    ci, cj = cand[bi] % nx, cand[bi] // nx
    same = (((ci == 0) & (ii[bi, None] == 0)) | ((ci == nx - 1) & (ii[bi, None] == nx - 1))
            | ((cj == 0) & (jj[bi, None] == 0)) | ((cj == ny - 1) & (jj[bi, None] == ny - 1)))
    along = same & valid[bi] & (np.arange(8)[None, :] % 2 == 0)  # axis neighbours on the same border line
    order = np.argsort(np.where(along, 0, 1 + np.arange(8)[None, :]), axis=1, kind="stable")
    cand[bi] = np.take_along_axis(cand[bi], order, 1)
    valid[bi] = np.take_along_axis(valid[bi], order, 1)
    start = np.concatenate([[0], np.cumsum(valid.sum(1))])
    return {"pos": np.stack([x, y, zt], 1), "ring_start": start, "ring": cand[valid],
            "on_border": border.astype(np.uint8), "edges": edges}


def _ref_loop(inp, sz):
    p = _f64(inp["pos"]).reshape(-1, 3)
    start = np.asarray(inp["ring_start"]).astype(np.int64)
    ring = np.asarray(inp["ring"]).astype(np.int64)
    border = np.asarray(inp["on_border"]).astype(bool)
    e = np.asarray(inp["edges"]).astype(np.int64).reshape(-1, 4)
    n = np.diff(start)
    ssum = np.add.reduceat(p[ring], start[:-1], axis=0)
    c = 0.375 + 0.25 * np.cos(2.0 * np.pi / n)
    beta = (0.625 - c * c) / n
    even = (1.0 - n * beta)[:, None] * p + beta[:, None] * ssum
    rb = ring[np.minimum(start[:-1] + 1, len(ring) - 1)]
    even = np.where(border[:, None], 0.75 * p + 0.125 * (p[ring[start[:-1]]] + p[rb]), even)
    odd = np.where((e[:, 3] < 0)[:, None], 0.5 * (p[e[:, 0]] + p[e[:, 1]]),
                   0.375 * (p[e[:, 0]] + p[e[:, 1]]) + 0.125 * (p[e[:, 2]] + p[np.maximum(e[:, 3], 0)]))
    return {"new_pos": np.concatenate([even, odd])}


def loop_subdiv_even_odd() -> KernelSpec:
    return _spec(
        "loop_subdiv_even_odd",
        idiom="Loop subdivision step: even vertices from the CSR one-ring with valence beta, odd from edge stencils, "
              "border rules",
        sizes={"NX": pow2(6, 11), "NY": [96, 1024]}, check={"NX": 40, "NY": 24},
        constraints=["NX * NY <= 2**21"],
        args=[Arg("nvert", "scalar", "int32", "NX * NY"), Arg("nedge", "scalar", "int32", LOOP_E),
              Arg("pos", "buffer", "float32", "3 * NX * NY"), Arg("ring_start", "buffer", "int32", "NX * NY + 1"),
              Arg("ring", "buffer", "int32", f"2 * ({LOOP_E})"), Arg("on_border", "buffer", "uint8", "NX * NY"),
              Arg("edges", "buffer", "int32", f"4 * ({LOOP_E})"),
              Arg("new_pos", "buffer", "float32", f"3 * (NX * NY + {LOOP_E})", "out")],
        gsize=[round_up(f"NX * NY + {LOOP_E}")], local=L1, reference=_ref_loop, make_inputs=_inputs_loop)


#: this group's builders, in the order of ``specs()``
BUILDERS = (sky_view_scatter_fp64, tile_bin_raster_local, loop_subdiv_even_odd)
