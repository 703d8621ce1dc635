"""Holdout6 kernels: physical simulation and engineering codes as their authors write them: SPH density over a
sorted uniform cell list, a Boris pusher with sub-cycled light particles in a magnetic bottle, the E half-step of a
2-D FDTD solver with a convolutional PML, a Lax-Friedrichs shallow-water step through a __local tile with a
reflecting halo, asteroid close approaches by Newton on Kepler's equation in fp64, and P1 finite-element assembly
into a CSR matrix. The assembly's atomics add 16.16 fixed-point integers (exact, so independent of the order in
which triangles arrive); their contention is that of a mesh in row-major cell order (six triangles per node)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

NPML = 12  # fdtd_ez_cpml_2d: PML cells on every side
FIX_ONE = 65536.0  # fem_p1_assemble_fixed: 16.16 fixed point
GAUSS_K, EARTH_YEAR = 0.01720209895, 365.256363  # kepler_close_approach_fp64


# --- SPH density over a uniform cell list -------------------------------------------------------------------------
def _inputs_sph(rng, sz):
    """A dam of fluid filling x < 0.6, z < 0.7 of the unit box (96% of the particles) plus spray everywhere, sorted
    by cell (cells of one smoothing length h = 1 / G, cell of each particle computed in float32 as the kernel does);
    masses set so that the dam's density is the rest density 1000."""
    g, n = sz["G"], sz["P"] * sz["G"] ** 3
    n_dam = int(0.96 * n)
    p = np.concatenate([rng.random((n_dam, 3)) * np.array([0.6, 1.0, 0.7]), rng.random((n - n_dam, 3))])
    p = np.minimum(p, 1.0 - 1e-7).astype(np.float32)
    c = np.clip((p * np.float32(g)).astype(np.int32), 0, g - 1)
    cell = (c[:, 2].astype(np.int64) * g + c[:, 1]) * g + c[:, 0]
    order = np.argsort(cell, kind="stable")
    count = np.bincount(cell, minlength=g**3)
    mass = 1000.0 * 0.42 / n_dam
    pos = np.concatenate([p[order], np.full((n, 1), mass, np.float32)], axis=1)
    return {"pos": pos, "cell_start": np.cumsum(count) - count, "cell_count": count}


def _ref_sph(inp, sz):
    pos = _f64(inp["pos"]).reshape(-1, 4)
    h = float(inp["h"])
    h2 = h * h
    sums = np.empty(len(pos))
    for lo in range(0, len(pos), 512):
        d = pos[lo:lo + 512, None, :3] - pos[None, :, :3]
        w = np.maximum(h2 - (d * d).sum(axis=2), 0.0)
        sums[lo:lo + 512] = (pos[None, :, 3] * w**3).sum(axis=1)
    rho = sums * 315.0 / (64.0 * np.pi * h**9)
    return {"density": rho,
            "pressure": np.maximum(float(inp["stiffness"]) * ((rho / float(inp["rest_density"])) ** 7 - 1.0), 0.0)}


def sph_density_cellgrid() -> KernelSpec:
    return _spec(
        "sph_density_cellgrid", tol=SUMS,
        idiom="SPH poly6 density per particle: 27 neighbour cells of a sorted uint cell list, Tait pressure clamped",
        sizes={"G": [16, 24, 32, 48, 64], "P": [2, 4, 8, 16]}, check={"G": 6, "P": 8},
        constraints=["P * P * G**3 <= 2**20"],
        args=[Arg("nparticles", "scalar", "int32", "P * G**3"), Arg("grid_n", "scalar", "int32", "G"),
              Arg("inv_cell", "scalar", "float32", "G"), Arg("h", "scalar", "float32", "1.0 / G"),
              Arg("rest_density", "scalar", "float32", "1000.0"), Arg("stiffness", "scalar", "float32", "50.0"),
              Arg("pos", "buffer", "float32", "4 * P * G**3"), Arg("cell_start", "buffer", "uint32", "G**3"),
              Arg("cell_count", "buffer", "uint32", "G**3"), Arg("density", "buffer", "float32", "P * G**3", "out"),
              Arg("pressure", "buffer", "float32", "P * G**3", "out")],
        gsize=[round_up("P * G**3")], local=L1, reference=_ref_sph, make_inputs=_inputs_sph)


# --- Boris pusher in a magnetic bottle, light species sub-cycled -------------------------------------------------
def _inputs_boris(rng, sz):
    """Ions (q/m 10) and 30% electrons (q/m -50, sub-cycled 5x) in a column r < 0.4, |z| < 0.5; thermal
    perpendicular speeds 0.2 (ions) and 0.6 (electrons), gyroradii 0.02 and 0.012, pitch angles above 50 degrees so
    that every particle is trapped (turning points within |z| < 1.2)."""
    n = sz["N"]
    species = (rng.random(n) < 0.3).astype(np.int32)
    r, phi = 0.4 * np.sqrt(rng.random(n)), rng.uniform(0.0, 2 * np.pi, n)
    pos = np.stack([r * np.cos(phi), r * np.sin(phi), rng.uniform(-0.5, 0.5, n), np.zeros(n)], axis=1)
    vperp = np.where(species == 1, 0.6, 0.2) * np.sqrt(-2.0 * np.log1p(-rng.random(n)))
    gyro = rng.uniform(0.0, 2 * np.pi, n)
    vel = np.stack([vperp * np.cos(gyro), vperp * np.sin(gyro), rng.uniform(-0.8, 0.8, n) * vperp, np.zeros(n)],
                   axis=1)
    return {"species": species, "charge_mass": np.array([10.0, -50.0]), "subcycle": np.array([1, 5]),
            "pos": pos, "vel": vel}


def _ref_boris(inp, sz):
    s = inp["species"].astype(np.int64)
    nsub = inp["subcycle"][s].astype(np.int64)
    h = float(inp["dt"]) / nsub
    qmh = (0.5 * _f64(inp["charge_mass"])[s] * h)[:, None]
    b0, il2, e0 = float(inp["b0"]), float(inp["inv_len2"]), float(inp["e0"])
    x, v = _f64(inp["pos"]).reshape(-1, 4)[:, :3].copy(), _f64(inp["vel"]).reshape(-1, 4)[:, :3].copy()
    total = int(inp["nsteps"]) * nsub
    for step in range(total.max(initial=0)):
        live = (step < total)[:, None]
        f = 1.0 + x[:, 2] ** 2 * il2
        e = e0 * np.stack([x[:, 0] * f, x[:, 1] * f, (x[:, 0] ** 2 + x[:, 1] ** 2) * x[:, 2] * il2], axis=1)
        b = b0 * np.stack([-x[:, 0] * x[:, 2] * il2, -x[:, 1] * x[:, 2] * il2, 1.0 + x[:, 2] ** 2 * il2], axis=1)
        vm = v + qmh * e
        t = qmh * b
        sv = 2.0 * t / (1.0 + (t * t).sum(axis=1, keepdims=True))
        vp = vm + np.cross(vm + np.cross(vm, t), sv)
        v = np.where(live, vp + qmh * e, v)
        x = np.where(live, x + h[:, None] * v, x)
    pad = np.zeros((len(x), 1))
    return {"pos": np.concatenate([x, pad], axis=1), "vel": np.concatenate([v, pad], axis=1)}


def boris_bottle_subcycle() -> KernelSpec:
    return _spec(
        "boris_bottle_subcycle", tol=SUMS,
        idiom="Boris push through a magnetic bottle, E normal to B, nsteps loop, light species sub-cycled by a table",
        sizes={"N": pow2(12, 20, 2), "S": [16, 64, 256]}, check={"N": 400, "S": 12},
        constraints=["N * S <= 2**22"],
        args=[Arg("nparticles", "scalar", "int32", "N"), Arg("nsteps", "scalar", "int32", "S"),
              Arg("dt", "scalar", "float32", "0.05"), Arg("b0", "scalar", "float32", "1.0"),
              Arg("inv_len2", "scalar", "float32", "1.0"), Arg("e0", "scalar", "float32", "0.3"),
              Arg("species", "buffer", "int32", "N"), Arg("charge_mass", "buffer", "float32", "2"),
              Arg("subcycle", "buffer", "int32", "2"), Arg("pos", "buffer", "float32", "4 * N", "inout"),
              Arg("vel", "buffer", "float32", "4 * N", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_boris, make_inputs=_inputs_boris)


# --- 2-D FDTD Ez update with a convolutional PML ----------------------------------------------------------------
_FDTD_CA = [1.0, 1.0, 0.6, 0.0]  # vacuum, glass (eps 2.25), lossy, metal
_FDTD_CB = [0.5, 0.5 / 2.25, 0.4, 0.0]


def _pml_profile(n):
    """CPML coefficients along one axis of n nodes: cubic sigma and kappa, linear alpha (Courant 0.5)."""
    d = np.zeros(n)
    idx = np.arange(n)
    d = np.maximum(np.maximum(NPML - idx, idx - (n - 1 - NPML)), 0) / NPML
    sigma, kappa, alpha = 0.8 * d**3, 1.0 + 4.0 * d**3, 0.05 * (1.0 - d)
    b = np.exp(-(sigma / kappa + alpha) * 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(sigma > 0, sigma / (sigma * kappa + kappa**2 * alpha) * (b - 1.0), 0.0)
    return kappa, np.where(d > 0, b, 0.0), c


def _inputs_fdtd(rng, sz):
    """A mid-run field (a few random plane waves) with scatterers: glass discs, a lossy slab and metal boxes."""
    nx, ny = sz["NX"], sz["NY"]
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float32)
    mat = np.zeros((ny, nx), np.uint8)
    for _ in range(8):
        cx, cy, r = rng.uniform(0, nx), rng.uniform(0, ny), rng.uniform(0.03, 0.12) * min(nx, ny)
        mat[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = 1
    mat[:, int(0.7 * nx):int(0.75 * nx)] = 2
    for _ in range(4):
        x0, y0 = rng.integers(0, nx), rng.integers(0, ny)
        mat[y0:y0 + ny // 10, x0:x0 + nx // 20] = 3
    fields = {}
    for name in ("ez", "hx", "hy"):
        f = np.zeros((ny, nx), np.float32)
        for _ in range(3):
            k = rng.uniform(0.05, 0.6, 2) * rng.choice([-1, 1], 2)
            f += np.float32(rng.uniform(0.2, 1.0)) * np.sin(np.float32(k[0]) * x + np.float32(k[1]) * y
                                                           + np.float32(rng.uniform(0, 2 * np.pi)))
        fields[name] = f
    kx, bx, cx_ = _pml_profile(nx)
    ky, by, cy_ = _pml_profile(ny)
    return {**fields, "material": mat, "ca": np.array(_FDTD_CA), "cb": np.array(_FDTD_CB),
            "kappa_x": kx, "b_x": bx, "c_x": cx_, "kappa_y": ky, "b_y": by, "c_y": cy_,
            "psi_ezx": 0.05 * rng.standard_normal(2 * NPML * ny), "psi_ezy": 0.05 * rng.standard_normal(2 * NPML * nx)}


def _ref_fdtd(inp, sz):
    nx, ny, npml = sz["NX"], sz["NY"], int(inp["npml"])
    ez, hx, hy = (_f64(inp[k]).reshape(ny, nx) for k in ("ez", "hx", "hy"))
    kx, bx, cx = (_f64(inp[k]) for k in ("kappa_x", "b_x", "c_x"))
    ky, by, cy = (_f64(inp[k]) for k in ("kappa_y", "b_y", "c_y"))
    psx, psy = _f64(inp["psi_ezx"]).reshape(ny, 2 * npml), _f64(inp["psi_ezy"]).reshape(2 * npml, nx)
    dhy = np.zeros((ny, nx))
    dhx = np.zeros((ny, nx))
    dhy[:, 1:] = hy[:, 1:] - hy[:, :-1]
    dhx[1:, :] = hx[1:, :] - hx[:-1, :]
    curl = dhy / kx[None, :] - dhx / ky[:, None]
    xcols = np.r_[0:npml, nx - npml:nx]  # the node columns of psi_ezx, rows of psi_ezy
    ycols = np.r_[0:npml, ny - npml:ny]
    psx_new = bx[xcols][None, :] * psx + cx[xcols][None, :] * dhy[:, xcols]
    psy_new = by[ycols][:, None] * psy + cy[ycols][:, None] * dhx[ycols, :]
    curl[:, xcols] += psx_new
    curl[ycols, :] -= psy_new
    m = inp["material"].reshape(ny, nx)
    new = _f64(inp["ca"])[m] * ez + _f64(inp["cb"])[m] * curl
    inner = np.zeros((ny, nx), bool)
    inner[1:-1, 1:-1] = True
    ez_out = np.where(inner, new, ez)
    psx_out = np.where(inner[:, xcols], psx_new, psx)
    psy_out = np.where(inner[ycols, :], psy_new, psy)
    return {"ez": ez_out, "psi_ezx": psx_out, "psi_ezy": psy_out}


def fdtd_ez_cpml_2d() -> KernelSpec:
    return _spec(
        "fdtd_ez_cpml_2d",
        idiom="2-D Yee E-update, TMz: curl H per node, per-cell material table, CPML psi slabs behind edge branches",
        sizes={"NX": [256, 1000, 4000, 8192], "NY": [200, 1500, 6000]}, check={"NX": 50, "NY": 40},
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("npml", "scalar", "int32", str(NPML)),
              Arg("ez", "buffer", "float32", "NX * NY", "inout"), Arg("hx", "buffer", "float32", "NX * NY"),
              Arg("hy", "buffer", "float32", "NX * NY"), Arg("material", "buffer", "uint8", "NX * NY"),
              Arg("ca", "buffer", "float32", "4"), Arg("cb", "buffer", "float32", "4"),
              Arg("kappa_x", "buffer", "float32", "NX"), Arg("b_x", "buffer", "float32", "NX"),
              Arg("c_x", "buffer", "float32", "NX"), Arg("kappa_y", "buffer", "float32", "NY"),
              Arg("b_y", "buffer", "float32", "NY"), Arg("c_y", "buffer", "float32", "NY"),
              Arg("psi_ezx", "buffer", "float32", f"{2 * NPML} * NY", "inout"),
              Arg("psi_ezy", "buffer", "float32", f"{2 * NPML} * NX", "inout")],
        gsize=[round_up("NX", 64), round_up("NY", 16)], local=[[16, 16], [32, 8], [64, 4]],
        reference=_ref_fdtd, make_inputs=_inputs_fdtd)


# --- shallow water, Lax-Friedrichs, __local tile with a reflecting halo --------------------------------------------
def _inputs_swe(rng, sz):
    """A basin of depth ~1 with a few Gaussian humps, dry islands (h = 0) and a shallow shelf along one side where
    depths straddle hdry; currents of ~0.1 in the wet cells."""
    nx, ny = sz["NX"], sz["NY"]
    y, x = np.mgrid[0:ny, 0:nx] / max(nx, ny)
    h = np.ones((ny, nx))
    for _ in range(5):
        cx, cy, w = rng.random(), rng.random(), rng.uniform(0.02, 0.1)
        h += rng.uniform(0.1, 0.4) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * w * w))
    for _ in range(4):
        cx, cy, r = rng.random(), rng.random(), rng.uniform(0.03, 0.08)
        h[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = 0.0
    shelf = x > 0.9 * x.max()
    h[shelf] = rng.uniform(0.0, 3e-3, shelf.sum())
    u, v = 0.1 * np.sin(7 * y + rng.random()), 0.1 * np.cos(5 * x + rng.random())
    return {"h": h, "hu": h * u, "hv": h * v}


def _ref_swe(inp, sz):
    nx, ny = sz["NX"], sz["NY"]
    g, hdry = 9.81, float(inp["hdry"])
    h, hu, hv = (_f64(inp[k]).reshape(ny, nx) for k in ("h", "hu", "hv"))
    hp = np.pad(h, 1, mode="edge")
    up = np.pad(hu, 1, mode="edge")
    vp = np.pad(hv, 1, mode="edge")
    up[:, 0], up[:, -1], vp[0, :], vp[-1, :] = -up[:, 0], -up[:, -1], -vp[0, :], -vp[-1, :]
    wet = hp >= hdry
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(wet, up / hp, 0.0)
        v = np.where(wet, vp / hp, 0.0)
    pres = 0.5 * g * hp * hp
    f = (np.where(wet, up, 0.0), up * u + pres, vp * u)
    gg = (np.where(wet, vp, 0.0), up * v, vp * v + pres)
    ax, ay = 0.5 * float(inp["dt_dx"]), 0.5 * float(inp["dt_dy"])
    out = {}
    for name, q, fq, gq in zip(("h_out", "hu_out", "hv_out"), (hp, up, vp), f, gg):
        avg = 0.25 * (q[1:-1, 2:] + q[1:-1, :-2] + q[2:, 1:-1] + q[:-2, 1:-1])
        out[name] = avg - ax * (fq[1:-1, 2:] - fq[1:-1, :-2]) - ay * (gq[2:, 1:-1] - gq[:-2, 1:-1])
    out["h_out"] = np.maximum(out["h_out"], 0.0)
    return out


def swe_lxf_local_tile() -> KernelSpec:
    return _spec(
        "swe_lxf_local_tile", tol=SUMS,
        idiom="shallow water Lax-Friedrichs, 2-D: h/hu/hv tile + mirrored halo in __local, wet/dry flux branch",
        sizes={"NX": [256, 1024, 4096], "NY": [256, 1024, 3072]}, check={"NX": 70, "NY": 45},
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("dt_dx", "scalar", "float32", "0.1"), Arg("dt_dy", "scalar", "float32", "0.1"),
              Arg("hdry", "scalar", "float32", "1e-3"),
              Arg("h", "buffer", "float32", "NX * NY"), Arg("hu", "buffer", "float32", "NX * NY"),
              Arg("hv", "buffer", "float32", "NX * NY"), Arg("h_out", "buffer", "float32", "NX * NY", "out"),
              Arg("hu_out", "buffer", "float32", "NX * NY", "out"),
              Arg("hv_out", "buffer", "float32", "NX * NY", "out"),
              Arg("t_h", "local", "float32", "(l0 + 2) * (l1 + 2)"),
              Arg("t_hu", "local", "float32", "(l0 + 2) * (l1 + 2)"),
              Arg("t_hv", "local", "float32", "(l0 + 2) * (l1 + 2)")],
        gsize=[round_up("NX", 64), round_up("NY", 16)], local=[[16, 16], [32, 8], [64, 4]],
        reference=_ref_swe, make_inputs=_inputs_swe)


# --- Kepler's equation by Newton, closest approach to the Earth, fp64 -----------------------------------------------
def _inputs_kepler(rng, sz):
    """Near-Earth-like orbits: a 0.6-3.5 au (log-uniform), e 0-0.97 (a fifth above 0.8), inclination up to ~35
    degrees, angles uniform."""
    n = sz["N"]
    a = np.exp(rng.uniform(np.log(0.6), np.log(3.5), n))
    e = np.where(rng.random(n) < 0.2, rng.uniform(0.8, 0.97, n), rng.uniform(0.0, 0.8, n))
    el = np.stack([a, e, rng.uniform(0.0, 0.6, n), rng.uniform(0, 2 * np.pi, n), rng.uniform(0, 2 * np.pi, n),
                   rng.uniform(-np.pi, np.pi, n)], axis=1)
    return {"elements": el}


def _ref_kepler(inp, sz):
    el = _f64(inp["elements"]).reshape(-1, 6)
    a, e, inc, node, peri, m0 = (el[:, k:k + 1] for k in range(6))
    t = float(inp["t0"]) + np.arange(int(inp["nsamples"]))[None, :] * float(inp["dt"])
    m = np.fmod(m0 + GAUSS_K / (a * np.sqrt(a)) * t, 2 * np.pi)
    m = np.where(m > np.pi, m - 2 * np.pi, np.where(m < -np.pi, m + 2 * np.pi, m))
    ea = np.where(e < 0.8, m, np.where(m < 0.0, -np.pi, np.pi))
    live = np.ones(ea.shape, bool)
    for _ in range(int(inp["max_iter"])):
        step = (ea - e * np.sin(ea) - m) / (1.0 - e * np.cos(ea))
        ea = np.where(live, ea - step, ea)
        live &= ~(np.abs(step) < float(inp["tol"]))
    xo, yo = a * (np.cos(ea) - e), a * np.sqrt(1.0 - e * e) * np.sin(ea)
    cw, sw, cn, sn, ci, si = np.cos(peri), np.sin(peri), np.cos(node), np.sin(node), np.cos(inc), np.sin(inc)
    lon = float(inp["earth_lon0"]) + 2 * np.pi * t / EARTH_YEAR
    dx = xo * (cw * cn - sw * sn * ci) + yo * (-sw * cn - cw * sn * ci) - np.cos(lon)
    dy = xo * (cw * sn + sw * cn * ci) + yo * (-sw * sn + cw * cn * ci) - np.sin(lon)
    dz = xo * sw * si + yo * cw * si
    d2 = dx * dx + dy * dy + dz * dz
    return {"min_dist": np.sqrt(d2.min(axis=1)), "min_epoch": d2.argmin(axis=1)}


def kepler_close_approach_fp64() -> KernelSpec:
    return _spec(
        "kepler_close_approach_fp64", precision="fp64", tol=FP64,
        idiom="orbit per item, fp64: Newton on Kepler's equation at each epoch, rotate to ecliptic, min Earth distance",
        sizes={"N": pow2(10, 16, 2), "T": [4, 24, 192]}, check={"N": 300, "T": 50},
        constraints=["N * T <= 800000"],
        args=[Arg("nbodies", "scalar", "int32", "N"), Arg("nsamples", "scalar", "int32", "T"),
              Arg("t0", "scalar", "float64", "0.0"), Arg("dt", "scalar", "float64", "3652.5 / T"),
              Arg("earth_lon0", "scalar", "float64", "1.75"), Arg("tol", "scalar", "float64", "1e-13"),
              Arg("max_iter", "scalar", "int32", "30"), Arg("elements", "buffer", "float64", "6 * N"),
              Arg("min_dist", "buffer", "float64", "N", "out"), Arg("min_epoch", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_kepler, make_inputs=_inputs_kepler)


# --- P1 finite-element assembly into CSR with fixed-point atomics ------------------------------------------------
def _fem_nnz(nx="NX", ny="NY"):
    return f"({nx} + 1) * ({ny} + 1) + 2 * ({nx} * ({ny} + 1) + ({nx} + 1) * {ny} + {nx} * {ny})"


def _inputs_fem(rng, sz):
    """A jittered NX x NY grid of unit cells, each split along a random diagonal (counter-clockwise triangles in
    row-major cell order); conductivity 1 with a few circular inclusions of 20; CSR pattern of the mesh's edges."""
    nx, ny = sz["NX"], sz["NY"]
    nn = (nx + 1) * (ny + 1)
    gy, gx = np.mgrid[0:ny + 1, 0:nx + 1].astype(np.float64)
    xy = np.stack([gx, gy], axis=-1) + rng.uniform(-0.2, 0.2, (ny + 1, nx + 1, 2))
    node = np.arange(nn).reshape(ny + 1, nx + 1)
    n00, n10, n01, n11 = node[:-1, :-1], node[:-1, 1:], node[1:, :-1], node[1:, 1:]
    diag = rng.random((ny, nx)) < 0.5
    t1 = np.where(diag[..., None], np.stack([n00, n10, n11], -1), np.stack([n00, n10, n01], -1))
    t2 = np.where(diag[..., None], np.stack([n00, n11, n01], -1), np.stack([n10, n11, n01], -1))
    tri = np.stack([t1, t2], axis=2).reshape(-1, 3)
    p = xy.reshape(-1, 2)
    centre = p[tri].mean(axis=1)
    kappa = np.ones(len(tri))
    for _ in range(6):
        c, r = rng.random(2) * [nx, ny], rng.uniform(0.05, 0.15) * min(nx, ny)
        kappa[((centre - c) ** 2).sum(axis=1) < r * r] = 20.0
    # the sparsity pattern: node i couples to itself and to every node it shares an edge with
    off = np.array([dy * (nx + 1) + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    mask = np.zeros((nn, 9), bool)
    for i in range(3):
        for j in range(3):
            mask[tri[:, i], np.searchsorted(off, tri[:, j] - tri[:, i])] = True
    cols = (np.arange(nn)[:, None] + off[None, :])[mask]
    row_ptr = np.concatenate([[0], np.cumsum(mask.sum(axis=1))])
    return {"xy": p, "tri": tri, "kappa": kappa, "row_ptr": row_ptr, "col_idx": cols}


def _ref_fem(inp, sz):
    p, tri = _f64(inp["xy"]).reshape(-1, 2), inp["tri"].astype(np.int64).reshape(-1, 3)
    row_ptr, cols = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    nn = len(row_ptr) - 1
    x, y = p[tri, 0], p[tri, 1]
    b = y[:, [1, 2, 0]] - y[:, [2, 0, 1]]
    c = x[:, [2, 0, 1]] - x[:, [1, 2, 0]]
    area2 = (x[:, 1] - x[:, 0]) * (y[:, 2] - y[:, 0]) - (x[:, 2] - x[:, 0]) * (y[:, 1] - y[:, 0])
    scale = _f64(inp["kappa"]) / (2.0 * area2)
    k = scale[:, None, None] * (b[:, :, None] * b[:, None, :] + c[:, :, None] * c[:, None, :])
    keys = np.repeat(np.arange(nn), np.diff(row_ptr)) * nn + cols  # globally sorted
    slot = np.searchsorted(keys, tri[:, :, None] * nn + tri[:, None, :])
    vals = np.zeros(len(cols), np.int64)
    np.add.at(vals, slot.reshape(-1), np.rint(k * FIX_ONE).astype(np.int64).reshape(-1))
    rhs = np.zeros(nn, np.int64)
    load = np.rint(float(inp["source"]) * area2 / 6.0 * FIX_ONE).astype(np.int64)
    np.add.at(rhs, tri.reshape(-1), np.repeat(load, 3))
    return {"vals": vals, "rhs": rhs}


def fem_p1_assemble_fixed() -> KernelSpec:
    return _spec(
        "fem_p1_assemble_fixed", precision="fp64",
        idiom="P1 triangle per item, fp64 element matrix, CSR slot by row search, 16.16 fixed-point atomic_add",
        sizes={"NX": [64, 256, 1024, 1536], "NY": [64, 512, 1024]}, check={"NX": 12, "NY": 9},
        args=[Arg("ntris", "scalar", "int32", "2 * NX * NY"), Arg("source", "scalar", "float64", "1.0"),
              Arg("xy", "buffer", "float64", "2 * (NX + 1) * (NY + 1)"), Arg("tri", "buffer", "int32", "6 * NX * NY"),
              Arg("kappa", "buffer", "float64", "2 * NX * NY"),
              Arg("row_ptr", "buffer", "int32", "(NX + 1) * (NY + 1) + 1"),
              Arg("col_idx", "buffer", "int32", _fem_nnz()), Arg("vals", "buffer", "int32", _fem_nnz(), "out"),
              Arg("rhs", "buffer", "int32", "(NX + 1) * (NY + 1)", "out")],
        gsize=[round_up("2 * NX * NY")], local=L1, reference=_ref_fem, make_inputs=_inputs_fem)


#: this group's builders, in the order of ``specs()``
BUILDERS = (sph_density_cellgrid, boris_bottle_subcycle, fdtd_ez_cpml_2d, swe_lxf_local_tile,
            kepler_close_approach_fp64, fem_p1_assemble_fixed)
