"""Holdout10 kernels, group cfd, continued (written by hand; see docs/HOLDOUT10.md): one step of the FHP-I lattice
gas on a periodic hexagonal lattice, multi-spin coded in uint32 bit planes (a word of 32 nodes per work-item: pull
streaming by shifts with carries, then head-on and triple collisions with a hashed chirality bit and bounce-back on
an obstacle mask), vorticity confinement of a 2-D flow on a (cell x, cell y) NDRange with uint32 cell flags (curl at
the cell and its four neighbours, normalised gradient of |curl|, solid and inflow cells left alone), and the
source-term stage of a low-Reynolds k-epsilon model in fp64 with Lam-Bremhorst damping, sub-cycled as often as the
cell's stiffness asks. None of these three uses atomics. Split from :mod:`.cfd` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, pow2, round_up

FHP_SEED = 20240601  # fhp_multispin_step_u32: the step's seed of the chirality hash
FHP_DENSITY = (3 / 8, 1 / 4, 3 / 16, 1 / 8, 3 / 16, 1 / 4)  # fhp_multispin_step_u32: occupation per direction

VC_FLAG_SOLID, VC_FLAG_INFLOW = 1, 2  # vort_confine_flags_2d: FLAG_SOLID, FLAG_INFLOW in the source

KE_CMU, KE_C1, KE_C2, KE_KMIN, KE_EMIN = 0.09, 1.44, 1.92, 1e-10, 1e-12  # keps_lambrem_subcycle_fp64's constants
KE_NU, KE_UTAU, KE_DT, KE_MAXSUB = 5e-5, 0.05, 0.5, 16  # keps_lambrem_subcycle_fp64: Re_tau 1000, local time step


# --- FHP-I lattice gas, multi-spin coded uint32 bit planes -----------------------------------------------------------
def _pack(bits):
    """bool (..., 32 nw) -> uint32 (..., nw), node x at bit x % 32 of word x // 32."""
    return np.packbits(bits, axis=-1, bitorder="little").view("<u4")


def _unpack(words):
    w = np.ascontiguousarray(words, dtype="<u4")
    return np.unpackbits(w.view(np.uint8), axis=-1, bitorder="little").astype(bool)


def _fhp_hash(i, seed):
    m = np.uint64(0xFFFFFFFF)
    h = ((i.astype(np.uint64) * np.uint64(0x9E3779B1)) & m) ^ np.uint64(seed)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return h.astype(np.uint32)


def _inputs_fhp(rng, sz):
    """A channel: solid rows at the top and bottom, three to five disc obstacles (radius min(H, 32 W) / 16 .. / 6)
    inside; the fluid nodes filled with FHP_DENSITY per direction (ands and ors of random words; a net flow east),
    the obstacles empty."""
    nw, ny = sz["W"], sz["H"]
    nx = 32 * nw
    solid = np.zeros((ny, nx), dtype=bool)
    solid[0], solid[-1] = True, True
    side = min(nx, ny)
    for _ in range(rng.integers(3, 6)):
        r = rng.uniform(side / 16, side / 6)
        cx, cy = rng.uniform(0, nx), rng.uniform(r + 1, ny - r - 1)
        for yy in range(max(int(np.ceil(cy - r)), 0), min(int(cy + r), ny - 1) + 1):
            half = np.sqrt(max(r * r - (yy - cy) ** 2, 0.0))
            solid[yy, np.arange(int(np.ceil(cx - half)), int(np.floor(cx + half)) + 1) % nx] = True
    obstacle = _pack(solid)
    rand = lambda: rng.integers(0, 2**32, (ny, nw), dtype=np.uint32)  # noqa: E731 - half the bits set
    planes = [rand() & (rand() | rand()), rand() & rand(), rand() & rand() & (rand() | rand()),
              rand() & rand() & rand(), rand() & rand() & (rand() | rand()), rand() & rand()]
    return {"state_in": np.stack([p & ~obstacle for p in planes]), "obstacle": obstacle}


def _ref_fhp(inp, sz):
    nw, ny = sz["W"], sz["H"]
    b = _unpack(np.asarray(inp["state_in"]).reshape(6, ny, nw))
    solid = _unpack(np.asarray(inp["obstacle"]).reshape(ny, nw))
    odd = (np.arange(ny) % 2 == 1)[:, None]
    rx = lambda x, s: np.roll(x, s, axis=1)  # noqa: E731 - s = 1: the node to the left arrives
    ry = lambda x, s: np.roll(x, s, axis=0)  # noqa: E731 - s = 1: the row below arrives
    up1, up2, dn4, dn5 = ry(b[1], 1), ry(b[2], 1), ry(b[4], -1), ry(b[5], -1)
    a = [rx(b[0], 1), np.where(odd, up1, rx(up1, 1)), np.where(odd, rx(up2, -1), up2), rx(b[3], -1),
         np.where(odd, rx(dn4, -1), dn4), np.where(odd, dn5, rx(dn5, 1))]
    r = _unpack(_fhp_hash(np.arange(ny * nw), int(inp["seed"])).reshape(ny, nw))
    pair = [a[d] & a[d + 3] & ~(a[(d + 1) % 6] | a[(d + 2) % 6] | a[(d + 4) % 6] | a[(d + 5) % 6]) for d in range(3)]
    triple = (a[0] & a[2] & a[4] & ~(a[1] | a[3] | a[5])) | (a[1] & a[3] & a[5] & ~(a[0] | a[2] | a[4]))
    out = []
    for k in range(6):
        d = k % 3
        chg = triple | pair[d] | (r & pair[(d + 2) % 3]) | (~r & pair[(d + 1) % 3])
        out.append(np.where(solid, a[(k + 3) % 6], a[k] ^ chg))
    return {"state_out": _pack(np.stack(out))}


def fhp_multispin_step_u32() -> KernelSpec:
    return _spec(
        "fhp_multispin_step_u32", precision="uint32",
        idiom="FHP-I lattice gas, 32 nodes a uint32 word: parity-dependent shift-and-carry pull streaming of six "
              "bit planes, bitwise pair/triple collisions, hashed chirality, obstacle bounce-back",
        sizes={"W": [4, 32, 256], "H": pow2(6, 14, 2)}, check={"W": 3, "H": 18},
        constraints=["W * H <= 2**22"],
        args=[Arg("nw", "scalar", "int32", "W"), Arg("ny", "scalar", "int32", "H"),
              Arg("seed", "scalar", "uint32", str(FHP_SEED)), Arg("state_in", "buffer", "uint32", "6 * W * H"),
              Arg("obstacle", "buffer", "uint32", "W * H"), Arg("state_out", "buffer", "uint32", "6 * W * H", "out")],
        gsize=[round_up("W * H")], local=L1, reference=_ref_fhp, make_inputs=_inputs_fhp)


# --- vorticity confinement with cell flags, 2-D -----------------------------------------------------------------------
def _inputs_vc(rng, sz):
    """A channel of height 1 (h = 1 / NY): a uniform stream U = 1 plus random periodic turbulence (stream function
    of random phases, spectrum peaked at a 24-cell wavelength, velocity by central differences, rms 0.3), solid
    rows at the top and bottom and two disc obstacles (zero velocity), the first column an inflow (U, 0)."""
    nx, ny = sz["NX"], sz["NY"]
    h = 1.0 / ny
    kk = np.hypot(np.fft.fftfreq(ny)[:, None], np.fft.rfftfreq(nx)[None, :]) * 24.0
    spec = kk * np.exp(-kk * kk) * (rng.standard_normal(kk.shape) + 1j * rng.standard_normal(kk.shape))
    psi = np.fft.irfft2(spec, s=(ny, nx))
    u = (np.roll(psi, -1, 0) - np.roll(psi, 1, 0)) / (2 * h)
    v = (np.roll(psi, 1, 1) - np.roll(psi, -1, 1)) / (2 * h)
    scale = 0.3 / max(float(np.sqrt(np.mean(u * u + v * v))), 1e-30)
    u, v = 1.0 + scale * u, scale * v
    xc, yc = (np.arange(nx)[None, :] + 0.5) * h, (np.arange(ny)[:, None] + 0.5) * h
    solid = np.zeros((ny, nx), dtype=bool)
    solid[0], solid[-1] = True, True
    for _ in range(2):
        rad = rng.uniform(0.05, 0.15)
        solid |= (xc - rng.uniform(0.2, max(nx * h, 0.2))) ** 2 + (yc - rng.uniform(0.3, 0.7)) ** 2 <= rad * rad
    flags = np.where(solid, VC_FLAG_SOLID, 0)
    flags[:, 0] |= np.where(solid[:, 0], 0, VC_FLAG_INFLOW)
    u, v = np.where(solid, 0.0, u), np.where(solid, 0.0, v)
    u[:, 0], v[:, 0] = np.where(solid[:, 0], 0.0, 1.0), 0.0
    return {"u": u, "v": v, "flags": flags}


def _ref_vc(inp, sz):
    nx, ny = sz["NX"], sz["NY"]
    h, conf, dt, neps = (float(inp[k]) for k in ("h", "conf", "dt", "nrm_eps"))
    u, v = _f64(inp["u"]).reshape(ny, nx), _f64(inp["v"]).reshape(ny, nx)
    flags = np.asarray(inp["flags"]).astype(np.int64).reshape(ny, nx)
    solid = (flags & VC_FLAG_SOLID) != 0
    us, vs = np.where(solid, 0.0, u), np.where(solid, 0.0, v)
    i, j = np.arange(nx), np.arange(ny)
    il, ir, jd, ju = np.maximum(i - 1, 0), np.minimum(i + 1, nx - 1), np.maximum(j - 1, 0), np.minimum(j + 1, ny - 1)
    w = ((vs[:, ir] - vs[:, il]) / (ir - il) - (us[ju, :] - us[jd, :]) / (ju - jd)[:, None]) / h
    aw = np.abs(w)
    ok_l = np.zeros((ny, nx), dtype=bool)
    ok_l[:, 1:] = ~solid[:, :-1]
    ok_r = np.zeros((ny, nx), dtype=bool)
    ok_r[:, :-1] = ~solid[:, 1:]
    ok_d = np.zeros((ny, nx), dtype=bool)
    ok_d[1:] = ~solid[:-1]
    ok_u = np.zeros((ny, nx), dtype=bool)
    ok_u[:-1] = ~solid[1:]
    wl, wr = np.where(ok_l, aw[:, il], aw), np.where(ok_r, aw[:, ir], aw)
    wd, wu = np.where(ok_d, aw[jd, :], aw), np.where(ok_u, aw[ju, :], aw)
    ex, ey = 0.5 * (wr - wl), 0.5 * (wu - wd)
    ln = np.sqrt(ex * ex + ey * ey) + neps
    keep = (flags & (VC_FLAG_SOLID | VC_FLAG_INFLOW)) != 0
    return {"u_out": np.where(keep, u, u + dt * conf * h * (ey / ln) * w),
            "v_out": np.where(keep, v, v - dt * conf * h * (ex / ln) * w)}


def vort_confine_flags_2d() -> KernelSpec:
    return _spec(
        "vort_confine_flags_2d",
        idiom="vorticity confinement, 2-D (x, y): curl at the cell and 4 neighbours with solid-flag masking, "
              "normalised grad |curl|, force added to the velocity; solid/inflow cells copied",
        sizes={"NX": pow2(7, 12), "NY": [64, 512, 2048]}, check={"NX": 100, "NY": 37},
        constraints=["NX * NY <= 2**22"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("h", "scalar", "float32", "1.0 / NY"), Arg("conf", "scalar", "float32", "0.4"),
              Arg("dt", "scalar", "float32", "0.5 / NY"), Arg("nrm_eps", "scalar", "float32", "1e-3 * NY"),
              Arg("u", "buffer", "float32", "NX * NY"), Arg("v", "buffer", "float32", "NX * NY"),
              Arg("flags", "buffer", "uint32", "NX * NY"), Arg("u_out", "buffer", "float32", "NX * NY", "out"),
              Arg("v_out", "buffer", "float32", "NX * NY", "out")],
        gsize=[round_up("NX", 32), round_up("NY", 16)], local=L2, reference=_ref_vc, make_inputs=_inputs_vc)


# --- low-Re k-epsilon source terms, Lam-Bremhorst damping, sub-cycled, fp64 -------------------------------------------
def _inputs_keps(rng, sz):
    """A plane channel of half-height 1 at Re_tau = 1000 on NX x NY cells (length 4, the top and bottom rows the
    walls, wall distance -1 there): Reichardt's mean profile with streaks and 2% noise, small v; k ramping up as
    (y+/10)^2 to u_tau^2 / sqrt(C_mu), eps the log-layer u_tau^3 / (kappa y) capped near the wall, both with
    lognormal scatter."""
    nx, ny = sz["NX"], sz["NY"]
    dy = 2.0 / (ny - 2)
    j = np.arange(ny)[:, None]
    y = (np.minimum(j, ny - 1 - j) - 0.5) * dy * np.ones((1, nx))
    yp = np.maximum(y, 0.0) * KE_UTAU / KE_NU
    kap = 0.41
    uplus = np.log1p(kap * yp) / kap + 7.8 * (1 - np.exp(-yp / 11) - yp / 11 * np.exp(-yp / 3))
    streak = 1 + 0.05 * np.sin(2 * np.pi * rng.integers(2, 9) * np.arange(nx) / nx + rng.uniform(0, 6.3))[None, :]
    u = KE_UTAU * uplus * streak * (1 + 0.02 * rng.standard_normal((ny, nx)))
    v = 0.02 * KE_UTAU * rng.standard_normal((ny, nx))
    k = KE_UTAU**2 / np.sqrt(KE_CMU) * np.minimum(1.0, (yp / 10) ** 2 + 0.01) * rng.lognormal(0, 0.3, (ny, nx))
    eps = KE_UTAU**3 / (kap * np.maximum(y, 5 * KE_NU / KE_UTAU)) * rng.lognormal(0, 0.3, (ny, nx))
    wall = y < 0
    y[wall] = -1.0
    return {"u": np.where(wall, 0.0, u), "v": np.where(wall, 0.0, v), "k_in": np.where(wall, KE_KMIN, k),
            "eps_in": np.where(wall, KE_EMIN, eps), "wall_dist": y}


def _fmu(k, e, y, nu):
    rt = k * k / (nu * e)
    g = 1.0 - np.exp(-0.0165 * (np.sqrt(k) * y / nu))
    return np.minimum(np.maximum(g * g * (1.0 + 20.5 / rt), 0.0025), 1.0)


def _ref_keps(inp, sz):
    nx, ny = sz["NX"], sz["NY"]
    maxs, dt, idx, idy, nu = (inp[k] for k in ("max_sub", "dt", "inv_dx", "inv_dy", "nu"))
    maxs, dt, idx, idy, nu = int(maxs), float(dt), float(idx), float(idy), float(nu)
    u, v = _f64(inp["u"]).reshape(ny, nx), _f64(inp["v"]).reshape(ny, nx)
    k, e, y = (_f64(inp[a]).reshape(ny, nx).copy() for a in ("k_in", "eps_in", "wall_dist"))
    i, j = np.arange(nx), np.arange(ny)
    il, ir, jd, ju = np.maximum(i - 1, 0), np.minimum(i + 1, nx - 1), np.maximum(j - 1, 0), np.minimum(j + 1, ny - 1)
    sx, sy = idx / (ir - il), (idy / (ju - jd))[:, None]
    ux, vx = (u[:, ir] - u[:, il]) * sx, (v[:, ir] - v[:, il]) * sx
    uy, vy = (u[ju, :] - u[jd, :]) * sy, (v[ju, :] - v[jd, :]) * sy
    s2 = 2.0 * (ux * ux + vy * vy) + (uy + vx) * (uy + vx)
    wall = y < 0
    y = np.where(wall, 1.0, y)
    stiff = dt * e / k * 2.0
    ns = np.where(stiff < maxs - 1, 1 + np.floor(np.minimum(stiff, maxs)).astype(np.int64), maxs)
    hs = dt / ns
    for s in range(maxs):
        act = s < ns
        fmu = _fmu(k, e, y, nu)
        rt = k * k / (nu * e)
        q = 0.05 / fmu
        f1, f2 = 1.0 + q * q * q, 1.0 - np.exp(-rt * rt)
        nut = KE_CMU * fmu * k * k / e
        prod = np.minimum(nut * s2, 10.0 * e)
        tinv = e / k
        kn = (k + hs * prod) / (1.0 + hs * tinv)
        en = (e + hs * KE_C1 * f1 * prod * tinv) / (1.0 + hs * KE_C2 * f2 * tinv)
        k, e = np.where(act, np.maximum(kn, KE_KMIN), k), np.where(act, np.maximum(en, KE_EMIN), e)
    nut = KE_CMU * _fmu(k, e, y, nu) * k * k / e
    return {"k_out": np.where(wall, KE_KMIN, k), "eps_out": np.where(wall, KE_EMIN, e),
            "nut_out": np.where(wall, 0.0, nut), "nsub_out": np.where(wall, 0, ns)}


def keps_lambrem_subcycle_fp64() -> KernelSpec:
    return _spec(
        "keps_lambrem_subcycle_fp64", tol=FP64, precision="fp64",
        idiom="low-Re k-epsilon source stage per cell in fp64: strain from clamped central differences, "
              "stiffness-sized sub-step loop with exp damping functions, Patankar updates, wall cells skipped",
        sizes={"NX": [256, 2048], "NY": pow2(5, 11)}, check={"NX": 24, "NY": 130},
        constraints=["NX * NY <= 2**21"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("max_sub", "scalar", "int32", str(KE_MAXSUB)), Arg("dt", "scalar", "float64", str(KE_DT)),
              Arg("inv_dx", "scalar", "float64", "NX / 4"), Arg("inv_dy", "scalar", "float64", "(NY - 2) / 2"),
              Arg("nu", "scalar", "float64", str(KE_NU)),
              *(Arg(a, "buffer", "float64", "NX * NY") for a in ("u", "v", "k_in", "eps_in", "wall_dist")),
              *(Arg(a, "buffer", "float64", "NX * NY", "out") for a in ("k_out", "eps_out", "nut_out")),
              Arg("nsub_out", "buffer", "int32", "NX * NY", "out")],
        gsize=[round_up("NX * NY")], local=L1, reference=_ref_keps, make_inputs=_inputs_keps)


#: this group's builders, in the order of ``specs()``
BUILDERS = (fhp_multispin_step_u32, vort_confine_flags_2d, keps_lambrem_subcycle_fp64)
