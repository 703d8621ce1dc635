"""Holdout7 kernels, group climate (written by hand; see docs/HOLDOUT7.md): weather, climate and earth-science
codes. Implicit vertical diffusion by the Thomas algorithm per column, a two-stream adding-method sweep in fp64,
quasi-monotone semi-Lagrangian advection with bicubic interpolation on a 2-D grid, a Newton saturation adjustment
with uint flags, a 4th-order 3-D acoustic (seismic) step marching in z through a __local x-y plane, and
super-observation binning to the great-circle nearest grid node. The binning's atomics add 1/1024 fixed-point
integers and counts (exact, so independent of arrival order); their contention is that of observations 70% of
which sit in 40 clustered station networks."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, pow2, round_up

LV_CP = 2.501e6 / 1004.64  # satadj_newton_flags: L / cp


# --- implicit vertical diffusion, Thomas algorithm per column -------------------------------------------------------
def _inputs_vdiff(rng, sz):
    """A stretched column (layers 20 m thick at the ground to ~900 m aloft, level 0 at the top), temperatures
    of a 6.5 K/km lapse rate plus noise, an eddy diffusivity of 5-150 m2/s in a boundary layer of 4-12 levels
    above the ground that decays to 0.1 aloft, and surface kinematic heat fluxes of -0.05 to 0.3 K m/s."""
    nc, nl = sz["NCOL"], sz["NLEV"]
    dz = np.geomspace(900.0, 20.0, nl)
    zmid = np.cumsum(dz[::-1])[::-1] - 0.5 * dz  # height of each level's centre
    t = 288.0 - 6.5e-3 * zmid[:, None] + rng.normal(0.0, 0.5, (nl, nc))
    pbl = rng.integers(4, 13, nc)
    kmax = rng.uniform(5.0, 150.0, nc)
    above = (nl - np.arange(nl + 1))[:, None]  # interfaces counted from the ground
    kd = np.where(above <= pbl[None, :], kmax[None, :] * (1.0 - 0.5 * above / pbl[None, :]), 0.1)
    kd[0], kd[-1] = 0.0, 0.0
    return {"t": t, "kdiff": kd, "dz": dz, "sfc_flux": rng.uniform(-0.05, 0.3, nc)}


def _ref_vdiff(inp, sz):
    nc, nl, dt = sz["NCOL"], sz["NLEV"], float(inp["dt"])
    t, kd, dz = _f64(inp["t"]).reshape(nl, nc), _f64(inp["kdiff"]).reshape(nl + 1, nc), _f64(inp["dz"])
    cp, dp = np.zeros((nl, nc)), np.zeros((nl, nc))
    cprev, dprev = np.zeros(nc), np.zeros(nc)
    for k in range(nl):
        a = dt * kd[k] / (dz[k] * 0.5 * (dz[k - 1] + dz[k])) if k > 0 else np.zeros(nc)
        c = dt * kd[k + 1] / (dz[k] * 0.5 * (dz[k] + dz[k + 1])) if k < nl - 1 else np.zeros(nc)
        rhs = t[k] + (dt * _f64(inp["sfc_flux"]) / dz[k] if k == nl - 1 else 0.0)
        m = 1.0 + a + c + a * cprev
        cp[k], dp[k] = -c / m, (rhs + a * dprev) / m
        cprev, dprev = cp[k], dp[k]
    x = dp.copy()
    for k in range(nl - 2, -1, -1):
        x[k] = dp[k] - cp[k] * x[k + 1]
    return {"t_new": x, "cprime": cp}


def thomas_vdiff_column() -> KernelSpec:
    return _spec(
        "thomas_vdiff_column", tol=SUMS,
        idiom="column per item, level-major fields: implicit vertical diffusion, Thomas forward sweep and back solve",
        sizes={"NCOL": pow2(10, 20, 2), "NLEV": [20, 60, 137]}, check={"NCOL": 300, "NLEV": 30},
        constraints=["NCOL * NLEV <= 2**24"],
        args=[Arg("ncol", "scalar", "int32", "NCOL"), Arg("nlev", "scalar", "int32", "NLEV"),
              Arg("dt", "scalar", "float32", "600.0"), Arg("t", "buffer", "float32", "NLEV * NCOL"),
              Arg("kdiff", "buffer", "float32", "(NLEV + 1) * NCOL"), Arg("dz", "buffer", "float32", "NLEV"),
              Arg("sfc_flux", "buffer", "float32", "NCOL"), Arg("t_new", "buffer", "float32", "NLEV * NCOL", "out"),
              Arg("cprime", "buffer", "float32", "NLEV * NCOL", "out")],
        gsize=[round_up("NCOL")], local=L1, reference=_ref_vdiff, make_inputs=_inputs_vdiff)


# --- two-stream shortwave, adding method, fp64 --------------------------------------------------------------------
def _inputs_twostream(rng, sz):
    """Columns of NLAY layers: the top fifth empty (tau 0), clear air of tau 0.002-0.05 (ssa ~1, g ~0.1 aerosol
    and Rayleigh), and in three columns out of four a cloud deck of 1-8 layers of tau 1-30 (ssa 0.99-0.99999,
    g 0.85); surface albedos 0.05 (sea) to 0.8 (snow)."""
    nc, nl = sz["NCOL"], sz["NLAY"]
    tau = rng.uniform(0.002, 0.05, (nc, nl))
    tau[:, : nl // 5] = 0.0
    ssa = rng.uniform(0.9, 0.9999, (nc, nl))
    g = rng.uniform(0.0, 0.2, (nc, nl))
    top = rng.integers(nl // 5, nl - 1, nc)
    depth = rng.integers(1, 9, nc)
    cloudy = rng.random(nc) < 0.75
    k = np.arange(nl)[None, :]
    cloud = cloudy[:, None] & (k >= top[:, None]) & (k < (top + depth)[:, None])
    tau = np.where(cloud, rng.uniform(1.0, 30.0, (nc, nl)), tau)
    ssa = np.where(cloud, 1.0 - 10.0 ** rng.uniform(-5, -2, (nc, nl)), ssa)
    g = np.where(cloud, 0.85, g)
    return {"tau": tau, "ssa": ssa, "asym": g, "sfc_albedo": rng.uniform(0.05, 0.8, nc)}


def _ref_twostream(inp, sz):
    nc, nl = sz["NCOL"], sz["NLAY"]
    tau, w, g = (_f64(inp[k]).reshape(nc, nl) for k in ("tau", "ssa", "asym"))
    g1, g2 = 2.0 - w * (1.0 + g), w * (1.0 - g)
    lam = np.sqrt((g1 - g2) * (g1 + g2))
    e1 = np.exp(-lam * tau)
    den = (lam + g1) + (lam - g1) * e1 * e1
    thin = tau < 1e-6
    r = np.where(thin, 0.0, g2 * (1.0 - e1 * e1) / den)
    tr = np.where(thin, 1.0, 2.0 * lam * e1 / den)
    rb = np.zeros((nc, nl + 1))
    rb[:, nl] = _f64(inp["sfc_albedo"])
    for k in range(nl - 1, -1, -1):
        rb[:, k] = r[:, k] + tr[:, k] ** 2 * rb[:, k + 1] / (1.0 - r[:, k] * rb[:, k + 1])
    dn = np.zeros((nc, nl + 1))
    dn[:, 0] = float(inp["flux_top"])
    for k in range(nl):
        dn[:, k + 1] = tr[:, k] * dn[:, k] / (1.0 - r[:, k] * rb[:, k + 1])
    return {"flux_up": rb * dn, "flux_dn": dn}


def two_stream_adding_fp64() -> KernelSpec:
    return _spec(
        "two_stream_adding_fp64", precision="fp64", tol=FP64,
        idiom="column per item, fp64: layer R/T from two-stream exp, upward adding sweep, downward flux sweep",
        sizes={"NCOL": pow2(10, 18, 2), "NLAY": [16, 48, 90]}, check={"NCOL": 200, "NLAY": 40},
        constraints=["NLAY <= 96", "NCOL * NLAY <= 2**23"],
        args=[Arg("ncol", "scalar", "int32", "NCOL"), Arg("nlay", "scalar", "int32", "NLAY"),
              Arg("flux_top", "scalar", "float64", "1361.0 * 0.6"),
              Arg("tau", "buffer", "float64", "NCOL * NLAY"), Arg("ssa", "buffer", "float64", "NCOL * NLAY"),
              Arg("asym", "buffer", "float64", "NCOL * NLAY"), Arg("sfc_albedo", "buffer", "float64", "NCOL"),
              Arg("flux_up", "buffer", "float64", "NCOL * (NLAY + 1)", "out"),
              Arg("flux_dn", "buffer", "float64", "NCOL * (NLAY + 1)", "out")],
        gsize=[round_up("NCOL")], local=L1, reference=_ref_twostream, make_inputs=_inputs_twostream)


# --- semi-Lagrangian advection, bicubic, quasi-monotone -----------------------------------------------------------
def _inputs_semilag(rng, sz):
    """A smooth solid-body-plus-shear wind of up to ~3 cells per step, and a tracer of smooth waves plus a few
    sharp-edged plumes (values 0-2)."""
    nx, ny = sz["NX"], sz["NY"]
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float64)
    sx, sy = 2 * np.pi * x / nx, np.pi * y / max(ny - 1, 1)
    u = 2.5 * np.sin(sy) + 0.5 * np.cos(2 * sx + rng.random() * 6) * np.sin(sy)
    v = 1.5 * np.sin(sx + rng.random() * 6) * np.sin(sy) ** 2
    q = 0.5 + 0.3 * np.sin(3 * sx) * np.cos(2 * sy)
    for _ in range(6):
        cx, cy, r = rng.uniform(0, nx), rng.uniform(0, ny), rng.uniform(0.03, 0.1) * min(nx, ny)
        q[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = rng.uniform(1.2, 2.0)
    return {"u": u, "v": v, "q": q}


def _ref_semilag(inp, sz):
    nx, ny = sz["NX"], sz["NY"]
    u, v, q = (_f64(inp[k]).reshape(ny, nx) for k in ("u", "v", "q"))
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float64)

    def bilinear(f, px, py):
        fx, fy = np.floor(px), np.floor(py)
        ax, ay = px - fx, py - fy
        i0, i1 = fx.astype(np.int64) % nx, (fx.astype(np.int64) + 1) % nx
        j0, j1 = np.clip(fy.astype(np.int64), 0, ny - 1), np.clip(fy.astype(np.int64) + 1, 0, ny - 1)
        lo = f[j0, i0] + ax * (f[j0, i1] - f[j0, i0])
        hi = f[j1, i0] + ax * (f[j1, i1] - f[j1, i0])
        return lo + ay * (hi - lo)

    dx, dy = u.copy(), v.copy()
    for _ in range(2):
        xm, ym = x - 0.5 * dx, y - 0.5 * dy
        dx, dy = bilinear(u, xm, ym), bilinear(v, xm, ym)
    xd, yd = x - dx, y - dy
    fx, fy = np.floor(xd), np.floor(yd)

    def lag(s):
        return [-s * (s - 1) * (s - 2) / 6, (s + 1) * (s - 1) * (s - 2) / 2, -(s + 1) * s * (s - 2) / 2,
                (s + 1) * s * (s - 1) / 6]

    wx, wy = lag(xd - fx), lag(yd - fy)
    ib, jb = fx.astype(np.int64), fy.astype(np.int64)
    total = np.zeros((ny, nx))
    inner = []
    for b in range(4):
        row = np.clip(jb - 1 + b, 0, ny - 1)
        for a in range(4):
            val = q[row, (ib - 1 + a) % nx]
            total += wy[b] * wx[a] * val
            if a in (1, 2) and b in (1, 2):
                inner.append(val)
    inner = np.stack(inner)
    return {"q_new": np.clip(total, inner.min(axis=0), inner.max(axis=0))}


def semilag_bicubic_2d() -> KernelSpec:
    return _spec(
        "semilag_bicubic_2d", tol=SUMS,
        idiom="2-D semi-Lagrangian step: midpoint departure iterations on bilinear wind, 4x4 cubic Lagrange, clipped",
        sizes={"NX": [128, 512, 2048, 4096], "NY": [64, 256, 1024, 2048]}, check={"NX": 70, "NY": 37},
        constraints=["NX * NY <= 2**22"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("u", "buffer", "float32", "NX * NY"), Arg("v", "buffer", "float32", "NX * NY"),
              Arg("q", "buffer", "float32", "NX * NY"), Arg("q_new", "buffer", "float32", "NX * NY", "out")],
        gsize=[round_up("NX", 32), round_up("NY", 16)], local=L2, reference=_ref_semilag, make_inputs=_inputs_semilag)


# --- saturation adjustment by Newton, uint flags ----------------------------------------------------------------
def _qsat(t, p):
    es = 611.2 * np.exp(17.67 * (t - 273.15) / (t - 29.65))
    den = p - 0.378 * es
    des = es * 17.67 * 243.5 / (t - 29.65) ** 2
    return 0.622 * es / den, 0.622 * des * p / den**2


def _inputs_satadj(rng, sz):
    """A troposphere of pressures 250-1013 hPa with temperatures following them (215-305 K, +-3 K); C percent of
    the cells are in cloud (relative humidity 0.98-1.04, cloud water up to 2 g/kg, some of it too little to
    survive), the rest clear (relative humidity 0.2-0.99, no cloud water)."""
    n = sz["N"]
    p = rng.uniform(25000.0, 101325.0, n)
    t = 305.0 - 90.0 * (101325.0 - p) / 76325.0 + rng.normal(0.0, 3.0, n)
    qs, _ = _qsat(t, p)
    cloudy = rng.random(n) < sz["C"] / 100.0
    rh = np.where(cloudy, rng.uniform(0.98, 1.04, n), rng.uniform(0.2, 0.99, n))
    qc = np.where(cloudy, rng.uniform(0.0, 2e-3, n) * (rng.random(n) < 0.8), 0.0)
    return {"pres": p, "temp": t, "qv": rh * qs, "qc": qc}


def _ref_satadj(inp, sz):
    p, t0, v0, c0 = (_f64(inp[k]) for k in ("pres", "temp", "qv", "qc"))
    qs0, _ = _qsat(t0, p)
    act = (v0 > qs0) | (c0 > 0.0)
    t, live = t0.copy(), act.copy()
    for _ in range(int(inp["max_iter"])):
        qs, dq = _qsat(t, p)
        step = (t - t0 - LV_CP * (v0 - qs)) / (1.0 + LV_CP * dq)
        t = np.where(live, t - step, t)
        live &= ~(np.abs(step) < float(inp["tol"]))
    qs, _ = _qsat(t, p)
    qt = v0 + c0
    cnew = qt - qs
    evap = act & (cnew < 0.0)
    t = np.where(evap, t0 - LV_CP * c0, t)
    cnew = np.where(evap, 0.0, cnew)
    flags = (v0 > qs0).astype(np.int64) | (evap.astype(np.int64) << 1) | (act.astype(np.int64) << 2)
    return {"temp": np.where(act, t, t0), "qv": np.where(act, qt - cnew, v0), "qc": np.where(act, cnew, c0),
            "flags": flags}


def satadj_newton_flags() -> KernelSpec:
    return _spec(
        "satadj_newton_flags", tol=SUMS,
        idiom="cell per item: early exit if subsaturated, Newton on latent-heat balance with Bolton es, uint flag bits",
        sizes={"N": pow2(11, 23, 2), "C": [10, 70]}, check={"N": 3000, "C": 50},
        args=[Arg("ncell", "scalar", "int32", "N"), Arg("max_iter", "scalar", "int32", "10"),
              Arg("tol", "scalar", "float32", "1e-3"), Arg("pres", "buffer", "float32", "N"),
              Arg("temp", "buffer", "float32", "N", "inout"), Arg("qv", "buffer", "float32", "N", "inout"),
              Arg("qc", "buffer", "float32", "N", "inout"), Arg("flags", "buffer", "uint32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_satadj, make_inputs=_inputs_satadj)


# --- 3-D acoustic wave step, 4th order, z-march through a __local plane ----------------------------------------------
def _inputs_acoustic(rng, sz):
    """A layered earth (velocity 1500-4500 m/s increasing with depth z, a tilted interface and a salt-like
    high-velocity body) at Courant (v dt / h) up to 0.45, and two consecutive wavefields of a few expanding
    Ricker-like shells."""
    nx, ny, nz = sz["NX"], sz["NY"], sz["NZ"]
    z, y, x = np.ogrid[0:nz, 0:ny, 0:nx]
    zf = z / max(nz - 1, 1)
    vel = 1500.0 + 2500.0 * zf + 300.0 * (z > 0.4 * nz + 0.1 * x * nz / nx)
    body = ((x - 0.5 * nx) / (0.2 * nx)) ** 2 + ((y - 0.5 * ny) / (0.25 * ny)) ** 2 + ((zf - 0.6) / 0.15) ** 2 < 1
    vel = np.where(body, 4500.0, vel)
    vdt2 = ((0.45 / 4500.0) * vel) ** 2
    fields = []
    centres = rng.uniform(0.2, 0.8, (3, 3))
    for lag in (0.0, 1.0):
        f = np.zeros((nz, ny, nx), np.float32)
        for cx, cy, cz in centres:
            r = np.sqrt(np.float32((x - cx * nx) ** 2) + np.float32((y - cy * ny) ** 2)
                        + np.float32((z - cz * nz) ** 2))
            a = ((r - 6.0 - lag * 0.4) / 2.5) ** 2
            f += (1.0 - 2.0 * a) * np.exp(-a)
        fields.append(f)
    return {"p_prev": fields[0], "p_cur": fields[1], "vdt2": vdt2}


def _sponge(n, nsp):
    i = np.arange(n)
    d = np.minimum(i, n - 1 - i)
    return np.where(d >= nsp, 1.0, np.exp(-(0.015 * (nsp - d)) ** 2))


def _ref_acoustic(inp, sz):
    nx, ny, nz, nsp = sz["NX"], sz["NY"], sz["NZ"], int(inp["nsponge"])
    pp, pc, c = (_f64(inp[k]).reshape(nz, ny, nx) for k in ("p_prev", "p_cur", "vdt2"))
    s = slice(2, -2)
    lap = -7.5 * pc[s, s, s]
    for ax in range(3):
        for off, w in ((1, 4.0 / 3.0), (2, -1.0 / 12.0)):
            lap = lap + w * (np.roll(pc, off, axis=ax) + np.roll(pc, -off, axis=ax))[s, s, s]
    damp = (_sponge(nz, nsp)[:, None, None] * _sponge(ny, nsp)[None, :, None] * _sponge(nx, nsp)[None, None, :])
    d = damp[s, s, s]
    out = np.zeros((nz, ny, nx))
    out[s, s, s] = d * (2.0 * pc[s, s, s] - d * pp[s, s, s] + c[s, s, s] * lap)
    return {"p_next": out}


def acoustic3d_o4_zmarch() -> KernelSpec:
    return _spec(
        "acoustic3d_o4_zmarch", tol=SUMS,
        idiom="3-D acoustic leapfrog, 4th order: 2-D NDRange marches z, z taps in registers, x-y plane in __local",
        sizes={"NX": [96, 512], "NY": [64, 256, 512], "NZ": [32, 128, 320]}, check={"NX": 40, "NY": 23, "NZ": 17},
        constraints=["NX * NY * NZ <= 2**24"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"), Arg("nz", "scalar", "int32", "NZ"),
              Arg("nsponge", "scalar", "int32", "20"),
              Arg("p_prev", "buffer", "float32", "NX * NY * NZ"), Arg("p_cur", "buffer", "float32", "NX * NY * NZ"),
              Arg("vdt2", "buffer", "float32", "NX * NY * NZ"),
              Arg("p_next", "buffer", "float32", "NX * NY * NZ", "out"),
              Arg("tile", "local", "float32", "(l0 + 4) * (l1 + 4)")],
        gsize=[round_up("NX", 64), round_up("NY", 16)], local=[[16, 16], [32, 8], [64, 4]],
        reference=_ref_acoustic, make_inputs=_inputs_acoustic)


#: this group's builders, in the order of ``specs()``


# --- super-observations: great-circle nearest node, fixed-point atomics --------------------------------------------
def _superob_lats(nlat):
    """Equal-area latitudes, north to south (spacing widest near the equator)."""
    return np.degrees(np.arcsin(np.cos(np.pi * (np.arange(nlat) + 0.5) / nlat)))


def _inputs_superob(rng, sz):
    """Observations: 70% in 40 station networks (Gaussian clusters of 1-6 degrees, dense over a few nodes), 30%
    uniform on the sphere; longitudes in -180..180; values (temperature anomalies, K) of sd 3 with 2% gross errors
    of 20-60 K."""
    n = sz["NOBS"]
    nc = int(0.7 * n)
    centre = rng.integers(0, 40, nc)
    clat, clon, cw = rng.uniform(-70, 75, 40), rng.uniform(-180, 180, 40), rng.uniform(1.0, 6.0, 40)
    lat = np.concatenate([np.clip(clat[centre] + cw[centre] * rng.standard_normal(nc), -89.9, 89.9),
                          np.degrees(np.arcsin(rng.uniform(-1, 1, n - nc)))])
    lon = np.concatenate([(clon[centre] + cw[centre] * rng.standard_normal(nc) + 180.0) % 360.0 - 180.0,
                          rng.uniform(-180, 180, n - nc)])
    val = 3.0 * rng.standard_normal(n)
    bad = rng.random(n) < 0.02
    val[bad] = rng.uniform(20, 60, bad.sum()) * rng.choice([-1, 1], bad.sum())
    return {"obs_lat": lat, "obs_lon": lon, "obs_val": val, "lat_grid": _superob_lats(sz["NLON"] // 2)}


def _ref_superob(inp, sz):
    nlon = sz["NLON"]
    nlat = nlon // 2
    la32, lg32 = inp["obs_lat"].astype(np.float32), inp["lat_grid"].astype(np.float32)
    val = inp["obs_val"].astype(np.float32)
    lo = inp["obs_lon"].astype(np.float32)
    lo = _f64(np.where(lo < 0.0, lo + np.float32(360.0), lo))
    jlo = np.clip(nlat - np.searchsorted(lg32[::-1], la32, side="left") - 1, 0, nlat - 2)
    dlon = 360.0 / nlon
    i0 = np.floor(lo / dlon).astype(np.int64) % nlon
    phi = np.radians(_f64(la32))
    best, node = np.full(len(lo), np.inf), np.full(len(lo), -1)
    for dj in range(2):
        j = jlo + dj
        phj = np.radians(_f64(lg32)[j])
        for di in range(2):
            i = (i0 + di) % nlon
            h = np.sin(0.5 * (phj - phi)) ** 2 + np.cos(phi) * np.cos(phj) * np.sin(0.5 * np.radians(i * dlon - lo)) ** 2
            d = 2.0 * 6371.0 * np.arcsin(np.sqrt(np.minimum(h, 1.0)))
            closer = d < best
            best, node = np.where(closer, d, best), np.where(closer, j * nlon + i, node)
    keep = (np.abs(val) <= float(inp["qc_max"])) & (best <= float(inp["max_dist_km"]))
    sums, counts = np.zeros(nlat * nlon, np.int64), np.zeros(nlat * nlon, np.int64)
    np.add.at(sums, node[keep], np.rint(_f64(val[keep]) * 1024.0).astype(np.int64))
    np.add.at(counts, node[keep], 1)
    return {"sum_fx": sums, "count": counts}


def superob_gc_nearest() -> KernelSpec:
    return _spec(
        "superob_gc_nearest",
        idiom="obs per item: gross-error check, bisect latitudes, haversine nearest of 4 nodes, fixed-point atomics",
        sizes={"NOBS": pow2(11, 21, 2), "NLON": [180, 720]}, check={"NOBS": 3000, "NLON": 72},
        args=[Arg("nobs", "scalar", "int32", "NOBS"), Arg("nlat", "scalar", "int32", "NLON // 2"),
              Arg("nlon", "scalar", "int32", "NLON"), Arg("max_dist_km", "scalar", "float32", "40000.0 / NLON"),
              Arg("qc_max", "scalar", "float32", "15.0"), Arg("obs_lat", "buffer", "float32", "NOBS"),
              Arg("obs_lon", "buffer", "float32", "NOBS"), Arg("obs_val", "buffer", "float32", "NOBS"),
              Arg("lat_grid", "buffer", "float32", "NLON // 2"),
              Arg("sum_fx", "buffer", "int32", "NLON // 2 * NLON", "out"),
              Arg("count", "buffer", "uint32", "NLON // 2 * NLON", "out")],
        gsize=[round_up("NOBS")], local=L1, reference=_ref_superob, make_inputs=_inputs_superob)


#: this group's builders, in the order of ``specs()``
BUILDERS = (thomas_vdiff_column, two_stream_adding_fp64, semilag_bicubic_2d, satadj_newton_flags,
            acoustic3d_o4_zmarch, superob_gc_nearest)
