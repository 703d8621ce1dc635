"""Holdout16 kernels, group terrain, continued (written by hand; see docs/HOLDOUT16.md): the warp of a UTM-gridded
DEM onto a geographic grid on a 2-D (longitude, latitude) NDRange in fp64, every work-item projecting its WGS84
point forward by Krueger's transverse Mercator series (atanh / sinh conformal latitude, atan2, a three-term loop
of sin-cosh and cos-sinh harmonics) and resampling the source bilinearly with nodata corners dropped and the
weights renormalised, nodata outside the grid; and one Jacobi pass of D8 flow accumulation on a 2-D NDRange,
every cell pulling the accumulated flow of those of its eight uint8-coded neighbours that drain into it, with
edge and nodata handling. Neither uses atomics or __local memory. Split from :mod:`.terrain` to keep each module
short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L2, SUMS, _f64, _spec, round_up
from .terrain import NODATA, _terrain

K0, FALSE_E, A_WGS, F_WGS = 0.9996, 500000.0, 6378137.0, 1.0 / 298.257223563
LON0 = 15.0  # utm_dem_to_geographic_fp64: UTM zone 33 central meridian (deg)
E0, N0 = 470000.0, 5300000.0  # utm_dem_to_geographic_fp64: centre of the source's top-left pixel (m)
EXTENT_M = 60000.0  # utm_dem_to_geographic_fp64: the source covers 60 km x 60 km
LAT_RANGE, LON_RANGE = (47.88, 47.25), (14.55, 15.45)  # output grid, north-up


# --- UTM -> geographic warp, Krueger series, bilinear with nodata, fp64 -------------------------------------------
def _inputs_warp(rng, sz):
    """An S x S source DEM with nodata lakes and a nodata strip (a missing swath); the output grid's latitudes
    (north to south) and longitudes, evenly spaced, reaching a little past the source's footprint."""
    s, n = sz["S"], sz["N"]
    z = _terrain(rng, s, s)
    yy, xx = np.ogrid[0:s, 0:s]
    yy, xx = yy / s, xx / s
    z[(xx - 0.6) ** 2 + (yy - 0.4) ** 2 < 0.006] = NODATA
    z[(np.abs(xx - 0.85 + 0.1 * yy) < 0.01) & (yy > 0.5)] = NODATA
    return {"lon": np.linspace(*LON_RANGE, n), "lat": np.linspace(*LAT_RANGE, n), "src": z.reshape(-1)}


def _tm_forward(lat_deg, lon_deg, lon0):
    n = F_WGS / (2.0 - F_WGS)
    big_a = A_WGS / (1.0 + n) * (1.0 + n * n / 4.0 + n**4 / 64.0)
    al = (n / 2.0 - 2.0 * n * n / 3.0 + 5.0 * n**3 / 16.0, 13.0 * n * n / 48.0 - 3.0 * n**3 / 5.0, 61.0 * n**3 / 240.0)
    c2 = 2.0 * np.sqrt(n) / (1.0 + n)
    sphi = np.sin(np.radians(lat_deg))
    dlam = np.radians(lon_deg - lon0)
    t = np.sinh(np.arctanh(sphi) - c2 * np.arctanh(c2 * sphi))
    xi_p = np.arctan2(t, np.cos(dlam))
    eta_p = np.arctanh(np.sin(dlam) / np.sqrt(1.0 + t * t))
    xi, eta = xi_p.copy(), eta_p.copy()
    for k in range(1, 4):
        xi = xi + al[k - 1] * np.sin(2 * k * xi_p) * np.cosh(2 * k * eta_p)
        eta = eta + al[k - 1] * np.cos(2 * k * xi_p) * np.sinh(2 * k * eta_p)
    return FALSE_E + K0 * big_a * eta, K0 * big_a * xi


def _ref_warp(inp, sz):
    nlon, nlat, sw, sh = (int(inp[k]) for k in ("nlon", "nlat", "sw", "sh"))
    e0, n0, res, lon0 = (float(inp[k]) for k in ("e0", "n0", "res", "lon0"))
    lat = _f64(inp["lat"])[:nlat][:, None]
    lon = _f64(inp["lon"])[:nlon][None, :]
    src = _f64(inp["src"])[:sw * sh].reshape(sh, sw)
    east, north = _tm_forward(lat, lon, lon0)
    cx, cy = (east - e0) / res, (n0 - north) / res
    inside = (cx >= 0) & (cy >= 0) & (cx <= sw - 1) & (cy <= sh - 1)
    cx, cy = np.where(inside, cx, 0.0), np.where(inside, cy, 0.0)
    x0 = np.minimum(cx.astype(np.int64), sw - 2)
    y0 = np.minimum(cy.astype(np.int64), sh - 2)
    fx, fy = cx - x0, cy - y0
    acc, wsum = np.zeros_like(cx), np.zeros_like(cx)
    for w, v in (((1 - fx) * (1 - fy), src[y0, x0]), (fx * (1 - fy), src[y0, x0 + 1]),
                 ((1 - fx) * fy, src[y0 + 1, x0]), (fx * fy, src[y0 + 1, x0 + 1])):
        ok = v != NODATA
        acc += np.where(ok, w * v, 0.0)
        wsum += np.where(ok, w, 0.0)
    good = inside & (wsum >= 0.25)
    return {"dst": np.where(good, acc / np.where(good, wsum, 1.0), NODATA).reshape(-1)}


def utm_dem_to_geographic_fp64() -> KernelSpec:
    return _spec(
        "utm_dem_to_geographic_fp64", tol=SUMS, precision="fp64",
        idiom="UTM DEM warped to a lat/lon grid, 2-D, fp64: Krueger transverse Mercator forward (atanh, sinh, "
              "atan2, 3-term sin*cosh / cos*sinh loop), bilinear resample dropping nodata corners, renormalised",
        sizes={"N": [128, 256, 384, 512, 768, 1024], "S": [1024, 4096]}, check={"N": 83, "S": 200},
        args=[Arg("nlon", "scalar", "int32", "N"), Arg("nlat", "scalar", "int32", "N"),
              Arg("sw", "scalar", "int32", "S"), Arg("sh", "scalar", "int32", "S"),
              Arg("lon0", "scalar", "float64", str(LON0)), Arg("e0", "scalar", "float64", str(E0)),
              Arg("n0", "scalar", "float64", str(N0)), Arg("res", "scalar", "float64", f"{EXTENT_M} / S"),
              Arg("lon", "buffer", "float64", "N"), Arg("lat", "buffer", "float64", "N"),
              Arg("src", "buffer", "float32", "S * S"), Arg("dst", "buffer", "float32", "N * N", "out")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_warp, make_inputs=_inputs_warp)


# --- one pull pass of D8 flow accumulation --------------------------------------------------------------------------
_OFFS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))  # E SE S SW W NW N NE (dx, dy)
_CODES = (1, 2, 4, 8, 16, 32, 64, 128)


def _inputs_flow(rng, sz):
    """D8 codes of a synthetic H x W DEM (steepest drop, diagonals / sqrt 2, 0 where no neighbour is lower, 255 on
    a nodata lake), unit-ish runoff and a partly accumulated flow field (a few passes' worth)."""
    w, h = sz["W"], sz["H"]
    z = _terrain(rng, h, w)
    yy, xx = np.ogrid[0:h, 0:w]
    lake = (xx / w - 0.3) ** 2 + (yy / h - 0.6) ** 2 < 0.003
    zp = np.pad(z, 1, constant_values=np.inf)
    best = np.zeros((h, w), np.float32)
    code = np.zeros((h, w), np.uint8)
    for (dx, dy), c in zip(_OFFS, _CODES):
        drop = (z - zp[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]) * np.float32(1.0 if dx == 0 or dy == 0 else 0.70710678)
        better = drop > best
        best[better], code[better] = drop[better], c
    code[lake] = 255
    runoff = rng.uniform(0.5, 1.5, h * w).astype(np.float32)
    acc = (runoff * rng.integers(1, 6, h * w)).astype(np.float32)
    return {"dir": code.reshape(-1), "runoff": runoff, "acc_in": acc}


def _ref_flow(inp, sz):
    nx, ny = int(inp["nx"]), int(inp["ny"])
    d = np.asarray(inp["dir"])[:nx * ny].reshape(ny, nx)
    acc = _f64(inp["acc_in"])[:nx * ny].reshape(ny, nx)
    out = _f64(inp["runoff"])[:nx * ny].reshape(ny, nx).copy()
    dp = np.pad(d, 1, constant_values=0)
    ap = np.pad(acc, 1)
    for (dx, dy), c in zip(_OFFS, _CODES[4:] + _CODES[:4]):
        nd = dp[1 + dy:1 + dy + ny, 1 + dx:1 + dx + nx]
        out += np.where(nd == c, ap[1 + dy:1 + dy + ny, 1 + dx:1 + dx + nx], 0.0)
    return {"acc_out": np.where(d == 255, -1.0, out).reshape(-1)}


def flowacc_pull_d8_pass_2d() -> KernelSpec:
    return _spec(
        "flowacc_pull_d8_pass_2d", tol=SUMS,
        idiom="one D8 flow-accumulation pass by pulling, 2-D: eight uint8 neighbour codes compared with the "
              "direction back to the cell (private offset / code tables), edge and nodata skips, float sums",
        sizes={"W": [256, 512, 1024, 2048, 4096], "H": [256, 1024, 4096]}, check={"W": 77, "H": 61},
        args=[Arg("nx", "scalar", "int32", "W"), Arg("ny", "scalar", "int32", "H"),
              Arg("dir", "buffer", "uint8", "W * H"), Arg("runoff", "buffer", "float32", "W * H"),
              Arg("acc_in", "buffer", "float32", "W * H"), Arg("acc_out", "buffer", "float32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_flow, make_inputs=_inputs_flow)


#: this group's builders, in the order of ``specs()``
BUILDERS = (utm_dem_to_geographic_fp64, flowacc_pull_d8_pass_2d)
