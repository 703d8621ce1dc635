"""Holdout16 kernels, group terrain (written by hand; see docs/HOLDOUT16.md): GIS terrain analysis. A radial
viewshed from one observer, a work-item per ray marching a runtime number of unit steps over the DEM with
bilinear samples, the earth-curvature and refraction drop and the maximum-slope sight-line test, leaving the
march when the ray leaves the raster and skipping nodata samples, writing each step's visibility margin and the
ray's horizon angle; and zonal hypsometry of a DEM per uint32 zone label, every work-group walking the raster by
a grid stride into private per-zone elevation-band counts and centimetre extrema in __local memory (local
atomics between barriers) and merging them with integer global atomics. The group's other two kernels are in
:mod:`.terrain_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f32, _f64, _spec, round_up

NODATA = -9999.0
NO_SAMPLE = -1.0e4  # viewshed_ray_march_horizon: step off the DEM or on nodata
EARTH_R = 6371000.0
K_REFR = 0.13
CELL_M = 30.0  # viewshed_ray_march_horizon: DEM cell size (m)
OBS_H = 10.0  # viewshed_ray_march_horizon: observer's eye above ground (m)
TGT_H = 2.0  # viewshed_ray_march_horizon: target above ground (m)

ZLO = 200.0  # zonal_hypsometry_local_u32: lowest band's floor (m)
BAND_M = 100.0  # zonal_hypsometry_local_u32: band width (m)


def _terrain(rng, ny, nx, relief=800.0):
    """A rough DEM (m), float32, about 200 .. 1800 m: six random long waves and a hill (separable, so one matrix
    product builds the grid) plus fine noise."""
    y = np.linspace(0.0, 1.0, ny)[:, None]
    x = np.linspace(0.0, 1.0, nx)[:, None]
    k = rng.uniform(1.0, 9.0, (2, 6))
    amp = relief / 6.0 * rng.uniform(0.5, 1.5, 6)
    ph = rng.uniform(0.0, 6.3, 6)
    # sin(kx x + ky y + ph) = sin(kx x + ph) cos(ky y) + cos(kx x + ph) sin(ky y)
    rows = np.hstack([np.cos(k[1] * y), np.sin(k[1] * y), np.exp(-((y - 0.6) ** 2) / 0.05)])
    cols = np.hstack([amp * np.sin(k[0] * x + ph), amp * np.cos(k[0] * x + ph),
                      relief * 0.5 * np.exp(-((x - 0.3) ** 2) / 0.02)])
    z = rows.astype(np.float32) @ cols.astype(np.float32).T
    z += rng.standard_normal((ny, nx), dtype=np.float32) * np.float32(3.0)
    z += np.float32(1000.0)
    return z


# --- radial viewshed, max-slope line of sight ---------------------------------------------------------------------
def _inputs_view(rng, sz):
    """An N x N DEM (30 m cells) with two nodata lakes, away from the observer at the centre."""
    n = sz["N"]
    z = _terrain(rng, n, n)
    yy, xx = np.ogrid[0:n, 0:n]
    yy, xx = yy / n, xx / n
    z[(xx - 0.2) ** 2 + (yy - 0.7) ** 2 < 0.01] = NODATA
    z[(xx - 0.75) ** 2 + (yy - 0.25) ** 2 < 0.004] = NODATA
    return {"dem": z.reshape(-1)}


def _bilin(dem, x, y):
    ny, nx = dem.shape
    x0 = np.minimum(x.astype(np.int64), nx - 2)
    y0 = np.minimum(y.astype(np.int64), ny - 2)
    fx, fy = x - x0, y - y0
    a, b, c, d = dem[y0, x0], dem[y0, x0 + 1], dem[y0 + 1, x0], dem[y0 + 1, x0 + 1]
    ok = (a != NODATA) & (b != NODATA) & (c != NODATA) & (d != NODATA)
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy, ok


def _ref_view(inp, sz):
    nx, ny, nr, ns = (int(inp[k]) for k in ("nx", "ny", "nray", "nstep"))
    ox, oy = float(np.float32(inp["ox"])), float(np.float32(inp["oy"]))
    obs_h, tgt_h, cell = (float(np.float32(inp[k])) for k in ("obs_h", "tgt_h", "cell"))
    dem = _f64(inp["dem"])[:nx * ny].reshape(ny, nx)
    ang = (np.float32(6.2831853) * np.arange(nr, dtype=np.float32) / np.float32(nr)).astype(np.float64)
    dx, dy = np.cos(ang), np.sin(ang)
    z0 = _bilin(dem, np.array([ox]), np.array([oy]))[0][0] + obs_h
    smax = np.full(nr, -1000.0)
    alive = np.ones(nr, bool)
    out = np.full((nr, ns), NO_SAMPLE)
    for k in range(1, ns + 1):
        x, y = ox + k * dx, oy + k * dy
        alive &= (x >= 0) & (y >= 0) & (x <= nx - 1) & (y <= ny - 1)
        xs, ys = np.where(alive, x, 0.0), np.where(alive, y, 0.0)
        z, ok = _bilin(dem, xs, ys)
        ok &= alive
        d = k * cell
        drop = d * d * (1.0 - K_REFR) / (2.0 * EARTH_R)
        ground = (z - drop - z0) / d
        target = (z + tgt_h - drop - z0) / d
        out[:, k - 1] = np.where(ok, target - smax, NO_SAMPLE)
        smax = np.where(ok, np.maximum(smax, ground), smax)
    return {"margin": out.reshape(-1), "horizon": np.degrees(np.arctan(smax))}


def viewshed_ray_march_horizon() -> KernelSpec:
    return _spec(
        "viewshed_ray_march_horizon", tol=SUMS,
        idiom="radial viewshed, a ray per item: runtime-length march of bilinear DEM samples, curvature drop, "
              "max-slope sight-line margin per step, exit on leaving the raster, nodata skips, horizon by atan",
        sizes={"N": [256, 1024, 4096], "R": [1024, 4096, 16384]}, check={"N": 96, "R": 256},
        constraints=["R * N <= 2**26"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("nray", "scalar", "int32", "R"), Arg("nstep", "scalar", "int32", "N"),
              Arg("ox", "scalar", "float32", "0.5 * N + 0.3"), Arg("oy", "scalar", "float32", "0.5 * N - 0.2"),
              Arg("obs_h", "scalar", "float32", str(OBS_H)), Arg("tgt_h", "scalar", "float32", str(TGT_H)),
              Arg("cell", "scalar", "float32", str(CELL_M)), Arg("dem", "buffer", "float32", "N * N"),
              Arg("margin", "buffer", "float32", "R * N", "out"), Arg("horizon", "buffer", "float32", "R", "out")],
        gsize=[round_up("R")], local=L1, reference=_ref_view, make_inputs=_inputs_view)


# --- zonal hypsometry with __local tables and integer atomics ------------------------------------------------------
def _inputs_zonal(rng, sz):
    """A DEM of N cells (a 1024-wide raster, rows as many as fit) with nodata specks, and zone labels in blocky
    catchment-like patches (a coarse random label grid upsampled, some cells outside every zone)."""
    n, nz = sz["N"], sz["Z"]
    w = min(n, 1024)
    h = -(-n // w)
    z = _terrain(rng, h, w).reshape(-1)[:n]
    z[rng.random(n) < 0.01] = NODATA
    coarse = rng.integers(0, nz + nz // 8 + 1, (-(-h // 32), -(-w // 32)))
    lab = np.repeat(np.repeat(coarse, 32, 0), 32, 1)[:h, :w]
    lab = lab.reshape(-1)[:n].astype(np.uint32)
    lab[lab >= nz] = 0xFFFFFFFF
    imax, imin = np.iinfo(np.int32).max, np.iinfo(np.int32).min
    return {"zone": lab, "dem": z, "zmin_cm": np.full(nz, imax, np.int32), "zmax_cm": np.full(nz, imin, np.int32)}


def _ref_zonal(inp, sz):
    n, nz, nb = int(inp["n"]), int(inp["nzone"]), int(inp["nband"])
    zlo, inv = np.float32(inp["zlo"]), np.float32(inp["inv_bw"])
    lab = np.asarray(inp["zone"])[:n].astype(np.int64)
    h = _f32(inp["dem"])[:n]
    keep = (lab < nz) & (h != np.float32(NODATA))
    lab, h = lab[keep], h[keep]
    band = np.clip(np.floor(((h - zlo) * inv).astype(np.float32)).astype(np.int64), 0, nb - 1)
    hist = np.bincount(lab * nb + band, minlength=nz * nb)[:nz * nb]
    cm = np.rint((h * np.float32(100.0)).astype(np.float32)).astype(np.int64)
    zmin = np.asarray(inp["zmin_cm"]).astype(np.int64).copy()
    zmax = np.asarray(inp["zmax_cm"]).astype(np.int64).copy()
    np.minimum.at(zmin, lab, cm)
    np.maximum.at(zmax, lab, cm)
    return {"hist": hist, "zmin_cm": zmin, "zmax_cm": zmax}


def zonal_hypsometry_local_u32() -> KernelSpec:
    return _spec(
        "zonal_hypsometry_local_u32",
        idiom="zonal hypsometry per uint32 zone label, grid-stride groups: elevation-band counts and cm extrema in "
              "__local via local atomic_inc / min / max between barriers, non-empty bins merged by global atomics",
        sizes={"N": [2**15, 2**17, 2**19, 2**21, 2**23], "Z": [16, 256], "B": [24]},
        check={"N": 50000, "Z": 16, "B": 24},
        args=[Arg("n", "scalar", "int32", "N"), Arg("nzone", "scalar", "int32", "Z"),
              Arg("nband", "scalar", "int32", "B"), Arg("zlo", "scalar", "float32", str(ZLO)),
              Arg("inv_bw", "scalar", "float32", str(1.0 / BAND_M)), Arg("zone", "buffer", "uint32", "N"),
              Arg("dem", "buffer", "float32", "N"), Arg("hist", "buffer", "uint32", "Z * B", "out"),
              Arg("zmin_cm", "buffer", "int32", "Z", "inout"), Arg("zmax_cm", "buffer", "int32", "Z", "inout"),
              Arg("lhist", "local", "uint32", "Z * B"), Arg("lext", "local", "int32", "2 * Z")],
        gsize=[round_up("min(N // 16, 2**14)")], local=L1, reference=_ref_zonal, make_inputs=_inputs_zonal)


#: this group's builders, in the order of ``specs()``
BUILDERS = (viewshed_ray_march_horizon, zonal_hypsometry_local_u32)
