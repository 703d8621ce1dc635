"""Holdout10 kernels, group gis (written by hand; see docs/HOLDOUT10.md): geographic information systems and spatial
epidemiology as application programmers write them: zone assignment of geocoded points to administrative polygons by
the even-odd ray crossing rule in integer micro-degrees (exact 64-bit cross products, polygons of varying vertex
counts through an offsets array, bounding boxes staged tile by tile in __local memory), the forward UTM projection of
GPS fixes in fp64 by Krueger's series with the zone rules of Norway and Svalbard, and inverse-distance-weighted
interpolation of rain gauges onto a raster on a 2-D NDRange, each pixel searching the gauge bins around its own. None
of these three uses atomics; the group's other three kernels are in :mod:`.gis_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, pow2, round_up

PIP_REGION = (-10_000_000, 35_000_000, 30_000_000, 60_000_000)  # pip_zone_tiles_local: x0, y0, x1, y1 (micro-deg)
PIP_VMEAN = 48  # pip_zone_tiles_local: vertices a polygon on average (exactly P * PIP_VMEAN in all)

UTM_A, UTM_F, UTM_K0 = 6378137.0, 1 / 298.257223563, 0.9996  # utm_forward_krueger_fp64: WGS84 and the UTM scale
UTM_ORDER = 6  # utm_forward_krueger_fp64: terms of the series

IDW_BIN = 16  # idw_binned_raster_2d: cells a bin side (bin in the source)
IDW_NODATA = -9999.0  # idw_binned_raster_2d: a pixel with no gauge in range


# --- point-in-polygon zones, integer micro-degrees, bounding boxes tiled in __local ----------------------------------
def _inputs_pip(rng, sz):
    """P star-shaped, spiky polygons (3 + a lognormal share of the rest of P * PIP_VMEAN vertices each) about the
    cells of a jittered grid over PIP_REGION, most about a cell wide, a tenth two to six cells wide (overlapping
    their neighbours); points: 65% scattered about a polygon's centre, 29% uniform over the region (a margin
    beyond it), 3% on a vertex and 3% level with one (the crossing rule's ties)."""
    n, p = sz["N"], sz["P"]
    x0, y0, x1, y1 = PIP_REGION
    g = int(np.ceil(np.sqrt(p)))
    cw, ch = (x1 - x0) / g, (y1 - y0) / g
    slot = rng.permutation(g * g)[:p]
    cx = x0 + (slot % g + 0.25 + 0.5 * rng.random(p)) * cw
    cy = y0 + (slot // g + 0.25 + 0.5 * rng.random(p)) * ch
    big = rng.random(p) < 0.1
    rad = np.where(big, rng.uniform(1.0, 3.0, p), rng.uniform(0.45, 0.75, p)) * min(cw, ch)
    w = rng.lognormal(0.0, 0.8, p)
    nv = 3 + rng.multinomial(p * (PIP_VMEAN - 3), w / w.sum())
    off = np.concatenate([[0], np.cumsum(nv)])
    owner = np.repeat(np.arange(p), nv)
    u = np.sort(owner + rng.random(owner.size)) - owner  # sorted angles within each polygon
    r = rad[owner] * rng.uniform(0.45, 1.0, owner.size)
    vx = np.rint(cx[owner] + r * np.cos(2 * np.pi * u)).astype(np.int64)
    vy = np.rint(cy[owner] + r * np.sin(2 * np.pi * u)).astype(np.int64)
    bbox = np.stack([np.minimum.reduceat(vx, off[:-1]), np.minimum.reduceat(vy, off[:-1]),
                     np.maximum.reduceat(vx, off[:-1]), np.maximum.reduceat(vy, off[:-1])], 1)
    kind = rng.random(n)
    q = rng.integers(0, p, n)
    px = cx[q] + rng.normal(0.0, 0.6, n) * rad[q]
    py = cy[q] + rng.normal(0.0, 0.6, n) * rad[q]
    uni = (kind >= 0.65) & (kind < 0.94)
    px[uni] = rng.uniform(x0 - 0.05 * (x1 - x0), x1 + 0.05 * (x1 - x0), int(uni.sum()))
    py[uni] = rng.uniform(y0 - 0.05 * (y1 - y0), y1 + 0.05 * (y1 - y0), int(uni.sum()))
    px, py = np.rint(px).astype(np.int64), np.rint(py).astype(np.int64)
    v = rng.integers(0, owner.size, n)
    onv, level = kind >= 0.97, (kind >= 0.94) & (kind < 0.97)
    px[onv], py[onv] = vx[v[onv]], vy[v[onv]]
    py[level] = vy[v[level]]
    return {"px": px, "py": py, "poly_off": off, "vx": vx, "vy": vy, "bbox": bbox.reshape(-1)}


def _ref_pip(inp, sz):
    """Polygon by polygon: the points in its box, the crossing parity over all its edges at once (int64)."""
    px, py = np.asarray(inp["px"]).astype(np.int64), np.asarray(inp["py"]).astype(np.int64)
    off = np.asarray(inp["poly_off"]).astype(np.int64)
    vx, vy = np.asarray(inp["vx"]).astype(np.int64), np.asarray(inp["vy"]).astype(np.int64)
    box = np.asarray(inp["bbox"]).astype(np.int64).reshape(-1, 4)
    zone = np.full(px.size, -1, dtype=np.int64)
    count = np.zeros(px.size, dtype=np.int64)
    for p in range(off.size - 1):
        cand = np.flatnonzero((px >= box[p, 0]) & (px <= box[p, 2]) & (py >= box[p, 1]) & (py <= box[p, 3]))
        if cand.size == 0:
            continue
        ax, ay = vx[off[p]:off[p + 1]], vy[off[p]:off[p + 1]]
        bx, by = np.roll(ax, 1), np.roll(ay, 1)
        x, y = px[cand][:, None], py[cand][:, None]
        cross = (ay > y) != (by > y)
        dy = by - ay
        lhs, rhs = (x - ax) * dy, (bx - ax) * (y - ay)
        hit = cross & np.where(dy > 0, lhs < rhs, lhs > rhs)
        inside = cand[(hit.sum(1) & 1) == 1]
        zone[inside] = np.where(zone[inside] < 0, p, zone[inside])
        count[inside] += 1
    return {"zone": zone, "nzone": count}


def pip_zone_tiles_local() -> KernelSpec:
    return _spec(
        "pip_zone_tiles_local",
        idiom="point-in-polygon zones: int micro-degree ray crossing by exact long cross products, ragged rings "
              "by offsets, bounding boxes tiled through __local",
        sizes={"N": pow2(12, 20, 2), "P": [64, 256, 1024]}, check={"N": 1500, "P": 70},
        constraints=["N * P <= 2**26"],
        args=[Arg("npts", "scalar", "int32", "N"), Arg("npoly", "scalar", "int32", "P"),
              Arg("px", "buffer", "int32", "N"), Arg("py", "buffer", "int32", "N"),
              Arg("poly_off", "buffer", "int32", "P + 1"), Arg("vx", "buffer", "int32", f"P * {PIP_VMEAN}"),
              Arg("vy", "buffer", "int32", f"P * {PIP_VMEAN}"), Arg("bbox", "buffer", "int32", "4 * P"),
              Arg("zone", "buffer", "int32", "N", "out"), Arg("nzone", "buffer", "int32", "N", "out"),
              Arg("lbox", "local", "int32", "4 * 256")],
        gsize=[round_up("N")], local=L1, reference=_ref_pip, make_inputs=_inputs_pip)


# --- forward UTM by Krueger's series, fp64 ---------------------------------------------------------------------------
def _utm_constants():
    """(e, k0 * A, alpha_1 .. alpha_6) of WGS84 (Karney 2011, eq. 35 and the series to n^6)."""
    n = UTM_F / (2 - UTM_F)
    e = np.sqrt(UTM_F * (2 - UTM_F))
    big_a = UTM_A / (1 + n) * (1 + n**2 / 4 + n**4 / 64 + n**6 / 256)
    alpha = [n / 2 - 2 * n**2 / 3 + 5 * n**3 / 16 + 41 * n**4 / 180 - 127 * n**5 / 288 + 7891 * n**6 / 37800,
             13 * n**2 / 48 - 3 * n**3 / 5 + 557 * n**4 / 1440 + 281 * n**5 / 630 - 1983433 * n**6 / 1935360,
             61 * n**3 / 240 - 103 * n**4 / 140 + 15061 * n**5 / 26880 + 167603 * n**6 / 181440,
             49561 * n**4 / 161280 - 179 * n**5 / 168 + 6601661 * n**6 / 7257600,
             34729 * n**5 / 80640 - 3418889 * n**6 / 1995840,
             212378941 * n**6 / 319334400]
    return float(e), float(UTM_K0 * big_a), np.array(alpha)


UTM_E, UTM_K0A, _ = _utm_constants()


def _inputs_utm(rng, sz):
    """GPS fixes: 55% uniform on the sphere, 25% over Scandinavia and Svalbard (50 .. 82 N, 5 W .. 45 E), 12% on or
    next to a zone border (6k - 180 degrees, a tenth exactly on it), 4% in the polar caps outside UTM, 4% at
    longitude 180 or -180."""
    n = sz["N"]
    lat = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n)))
    lon = rng.uniform(-180.0, 180.0, n)
    kind = rng.random(n)
    nordic = (kind >= 0.55) & (kind < 0.8)
    lat[nordic] = rng.uniform(50.0, 82.0, int(nordic.sum()))
    lon[nordic] = rng.uniform(-5.0, 45.0, int(nordic.sum()))
    border = (kind >= 0.8) & (kind < 0.92)
    nb = int(border.sum())
    lat[border] = rng.uniform(-79.9, 83.9, nb)
    lon[border] = 6.0 * rng.integers(1, 60, nb) - 180.0 + np.where(rng.random(nb) < 0.1, 0.0,
                                                                   rng.normal(0.0, 1e-3, nb))
    polar = (kind >= 0.92) & (kind < 0.96)
    lat[polar] = np.where(rng.random(int(polar.sum())) < 0.5, rng.uniform(-90.0, -80.0, int(polar.sum())),
                          rng.uniform(84.0, 90.0, int(polar.sum())))
    edge = kind >= 0.96
    lon[edge] = np.where(rng.random(int(edge.sum())) < 0.5, 180.0, -180.0)
    return {"lat": lat, "lon": lon, "alpha": _utm_constants()[2]}


def _ref_utm(inp, sz):
    lat, lon = _f64(inp["lat"]), _f64(inp["lon"]).copy()
    e, k0a, alpha, order = float(inp["e"]), float(inp["k0a"]), _f64(inp["alpha"]), int(inp["norder"])
    ok = (lat >= -80.0) & (lat < 84.0)
    lon = np.where(lon >= 180.0, lon - 360.0, lon)
    z = np.floor((lon + 180.0) / 6.0).astype(np.int64) + 1
    z = np.where((lat >= 56.0) & (lat < 64.0) & (lon >= 3.0) & (lon < 12.0), 32, z)
    sval = (lat >= 72.0) & (lon >= 0.0) & (lon < 42.0)
    z = np.where(sval, np.select([lon < 9.0, lon < 21.0, lon < 33.0], [31, 33, 35], 37), z)
    phi = np.radians(lat)
    lam = np.radians(lon - (6.0 * z - 183.0))
    s = np.sin(phi)
    with np.errstate(all="ignore"):
        t = np.sinh(np.arctanh(s) - e * np.arctanh(e * s))
    xi_p = np.arctan2(t, np.cos(lam))
    eta_p = np.arcsinh(np.sin(lam) / np.sqrt(t * t + np.cos(lam) ** 2))
    xi, eta = xi_p.copy(), eta_p.copy()
    for j in range(1, order + 1):
        xi += alpha[j - 1] * np.sin(2 * j * xi_p) * np.cosh(2 * j * eta_p)
        eta += alpha[j - 1] * np.cos(2 * j * xi_p) * np.sinh(2 * j * eta_p)
    east = np.where(ok, 500000.0 + k0a * eta, 0.0)
    north = np.where(ok, np.where(lat < 0.0, 10000000.0, 0.0) + k0a * xi, 0.0)
    return {"easting": east, "northing": north, "zone": np.where(ok, np.where(lat < 0.0, -z, z), 0)}


def utm_forward_krueger_fp64() -> KernelSpec:
    return _spec(
        "utm_forward_krueger_fp64", tol=FP64, precision="fp64",
        idiom="forward UTM in fp64: zone from longitude with Norway/Svalbard exceptions, conformal latitude, "
              "Krueger series sin*cosh / cos*sinh loop to a scalar order",
        sizes={"N": pow2(10, 19)}, check={"N": 3000},
        args=[Arg("npts", "scalar", "int32", "N"), Arg("norder", "scalar", "int32", str(UTM_ORDER)),
              Arg("e", "scalar", "float64", repr(UTM_E)), Arg("k0a", "scalar", "float64", repr(UTM_K0A)),
              Arg("lat", "buffer", "float64", "N"), Arg("lon", "buffer", "float64", "N"),
              Arg("alpha", "buffer", "float64", "6"), Arg("easting", "buffer", "float64", "N", "out"),
              Arg("northing", "buffer", "float64", "N", "out"), Arg("zone", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_utm, make_inputs=_inputs_utm)


# --- IDW of binned rain gauges onto a raster, 2-D --------------------------------------------------------------------
def _inputs_idw(rng, sz):
    """K gauges a bin on average over a G x G raster, 60% uniform and 40% about a dozen towns, at distinct places
    on a 1/64-cell lattice (so squared distances are exact in float32), 5% right on a pixel centre; readings gamma
    distributed (mm of rain) on a smooth trend; counting-sorted by bin."""
    g, k = sz["G"], sz["K"]
    nb = (g + IDW_BIN - 1) // IDW_BIN
    ng = nb * nb * k
    towns = rng.uniform(0.1 * g, 0.9 * g, (12, 2))
    keys = np.zeros(0, dtype=np.int64)
    while keys.size < ng:
        m = ng + ng // 8 + 16
        xy = rng.uniform(0.0, g, (m, 2))
        near = rng.random(m) < 0.4
        t = towns[rng.integers(0, 12, m)]
        xy[near] = t[near] + rng.normal(0.0, 0.04 * g, (int(near.sum()), 2))
        q = np.clip(np.floor(xy * 64), 0, g * 64 - 1).astype(np.int64)
        snap = rng.random(m) < 0.05
        q[snap] = q[snap] // 64 * 64 + 32
        cand = q[:, 0] * (g * 64) + q[:, 1]
        keys = np.concatenate([keys, cand])
        _, first = np.unique(keys, return_index=True)
        keys = keys[np.sort(first)]
    keys = keys[:ng]
    gx, gy = (keys // (g * 64)) / 64.0, (keys % (g * 64)) / 64.0
    val = rng.gamma(0.8, 8.0, ng) + 5.0 * (1.0 + np.sin(gx / g * 3.0) * np.cos(gy / g * 2.0))
    b = (gy // IDW_BIN).astype(np.int64) * nb + (gx // IDW_BIN).astype(np.int64)
    order = np.argsort(b, kind="stable")
    start = np.concatenate([[0], np.cumsum(np.bincount(b, minlength=nb * nb))])
    return {"bin_start": start, "gx": gx[order], "gy": gy[order], "gval": val[order]}


def _ref_idw(inp, sz):
    """Every pixel against every gauge (no bins), in float64, rows of pixels at a time."""
    w, h, r = int(inp["width"]), int(inp["height"]), float(inp["search"] * inp["bin"])
    gx, gy, gv = _f64(inp["gx"]), _f64(inp["gy"]), _f64(inp["gval"])
    raster = np.empty((h, w))
    used = np.empty((h, w), dtype=np.int64)
    cx = np.arange(w) + 0.5
    for y in range(h):
        d2 = (gx[None, :] - cx[:, None]) ** 2 + (gy[None, :] - (y + 0.5)) ** 2
        near = d2 < r * r
        with np.errstate(divide="ignore"):
            wt = np.where(near & (d2 > 0), 1.0 / d2, 0.0)
        on = near & (d2 == 0)
        n = near.sum(1)
        with np.errstate(invalid="ignore"):
            val = np.where(n > 0, (wt * gv).sum(1) / wt.sum(1), float(inp["nodata"]))
        val = np.where(on.any(1), (on * gv).sum(1), val)
        raster[y], used[y] = val, n
    return {"raster": raster, "nused": used}


def idw_binned_raster_2d() -> KernelSpec:
    nb = f"((G + {IDW_BIN - 1}) // {IDW_BIN})"
    return _spec(
        "idw_binned_raster_2d", tol=SUMS,
        idiom="IDW power-2 rain-gauge interpolation, 2-D over pixels: counting-sorted gauge bins, (2s+1)^2 bin "
              "search, radius cut, exact-hit and nodata branches",
        sizes={"G": pow2(8, 12), "K": [1, 4], "S": [1, 2]}, check={"G": 200, "K": 1, "S": 1},
        constraints=["G * G * K * (2 * S + 1)**2 <= 2**28"],
        args=[Arg("width", "scalar", "int32", "G"), Arg("height", "scalar", "int32", "G"),
              Arg("nbx", "scalar", "int32", nb), Arg("nby", "scalar", "int32", nb),
              Arg("bin", "scalar", "int32", str(IDW_BIN)), Arg("search", "scalar", "int32", "S"),
              Arg("nodata", "scalar", "float32", str(IDW_NODATA)),
              Arg("bin_start", "buffer", "int32", f"{nb} * {nb} + 1"),
              Arg("gx", "buffer", "float32", f"{nb} * {nb} * K"), Arg("gy", "buffer", "float32", f"{nb} * {nb} * K"),
              Arg("gval", "buffer", "float32", f"{nb} * {nb} * K"),
              Arg("raster", "buffer", "float32", "G * G", "out"), Arg("nused", "buffer", "int32", "G * G", "out")],
        gsize=[round_up("G", 32), round_up("G", 16)], local=L2, reference=_ref_idw, make_inputs=_inputs_idw)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pip_zone_tiles_local, utm_forward_krueger_fp64, idw_binned_raster_2d)
