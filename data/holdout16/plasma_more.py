"""Holdout16 kernels, group plasma, continued (written by hand; see docs/HOLDOUT16.md): the Monte Carlo collision
step of a PIC-MCC code for an electron swarm in a gas, a work-item per electron over a runtime step count with a
per-electron 32-bit PCG state in a uint32 buffer: an electric-field kick, a null-collision test at the constant
rate nu_max, and for candidates a second draw against elastic, excitation and ionization frequencies from
linearly interpolated cross-section tables, real collisions losing their energy and scattering isotropically and
counted by atomic_inc into three uint32 counters; and the gyro-average of the potential on a periodic 2-D grid, a
node per work-item of a 2-D NDRange summing, over a runtime list of gyroradii with Gauss-Laguerre weights, ring
averages of bilinearly interpolated wrapped samples whose point count grows with the radius. Split from
:mod:`.plasma` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, round_up

NE = 256  # mcc_null_collision_swarm_u32: cross-section table entries
DE = 0.2  # mcc_null_collision_swarm_u32: table spacing (eV)
KICK = 0.05  # mcc_null_collision_swarm_u32: field acceleration per step (sqrt(eV))
NDT = 0.05  # mcc_null_collision_swarm_u32: gas density x dt (nu dt = NDT |v| sigma)
NU_MAX_DT = 0.6  # mcc_null_collision_swarm_u32: null-collision rate x dt
P_COLL = float(1.0 - np.exp(-NU_MAX_DT))
MFRAC = 2.7e-5  # mcc_null_collision_swarm_u32: elastic recoil fraction 2 m / M (argon)
EPS_EX, EPS_IZ = 11.6, 15.8  # mcc_null_collision_swarm_u32: thresholds (eV), on table nodes

RHO_TH = 1.5  # gyroavg_ring_bilerp_2d: thermal gyroradius (cells)


# --- null-collision Monte Carlo of an electron swarm, PCG per electron, atomic event counts ------------------------
def _inputs_mcc(rng, sz):
    """Argon-like cross sections on NE energies 0 .. 51 eV (elastic with a Ramsauer dip near 0.3 eV, excitation
    and ionization zero up to their thresholds and rising after); electrons with Maxwellian velocity components
    of about 1.2 sqrt(eV) (a few eV) and random PCG states."""
    e = np.arange(NE) * DE
    s_el = 0.25 + 0.6 * (1.0 - np.exp(-((e - 0.3) / 4.0) ** 2)) * np.exp(-e / 60.0) + 0.05 * np.exp(-e / 0.1)
    s_ex = np.where(e > EPS_EX, 0.3 * (1.0 - np.exp(-(e - EPS_EX) / 6.0)), 0.0)
    s_iz = np.where(e > EPS_IZ, 0.45 * (1.0 - np.exp(-(e - EPS_IZ) / 10.0)), 0.0)
    xs = np.stack([s_el, s_ex, s_iz], -1)
    npart = sz["P"]
    return {"xs": xs.reshape(-1), "vel": rng.normal(0.0, 1.2, 3 * npart),
            "rng": rng.integers(0, 2**32, npart, dtype=np.uint64).astype(np.uint32)}


def _pcg(st):
    """Advance the uint32 states in place; the uniforms in [0, 1) (24 bits), as the kernel's pcg_uniform."""
    st *= np.uint32(747796405)
    st += np.uint32(2891336453)
    w = ((st >> ((st >> np.uint32(28)) + np.uint32(4))) ^ st) * np.uint32(277803737)
    w = (w >> np.uint32(22)) ^ w
    return (w >> np.uint32(8)).astype(np.float64) / 16777216.0


def _ref_mcc(inp, sz):
    npart, ns, ne = int(inp["np"]), int(inp["nstep"]), int(inp["ne"])
    de, kick, ndt, pc, numax, mfrac, eex, eiz = (float(np.float32(inp[k])) for k in (
        "de", "kick", "ndt", "p_coll", "nu_max_dt", "mfrac", "eps_ex", "eps_iz"))
    xs = _f64(inp["xs"])[:3 * ne].reshape(ne, 3)
    v = _f64(inp["vel"])[:3 * npart].reshape(npart, 3).copy()
    st = np.asarray(inp["rng"], dtype=np.uint32)[:npart].copy()
    counts = np.zeros(3, dtype=np.int64)
    idx = np.arange(npart)
    for _ in range(ns):
        v[:, 2] += kick
        cand = idx[_pcg(st) < pc]
        sc = st[cand]
        vc = v[cand]
        eps = (vc * vc).sum(-1)
        speed = np.sqrt(eps)
        u = eps / de
        k = u.astype(np.int64)
        t = u - k
        top = k >= ne - 1
        k[top], t[top] = ne - 2, 1.0
        sig = xs[k] + t[:, None] * (xs[k + 1] - xs[k])
        r = _pcg(sc) * numax
        cum = np.cumsum(ndt * speed[:, None] * sig, axis=1)
        kind = np.where(r < cum[:, 0], 0, np.where(r < cum[:, 1], 1, np.where(r < cum[:, 2], 2, 3)))
        enew = np.select([kind == 0, kind == 1, kind == 2],
                         [eps * (1 - mfrac), np.maximum(eps - eex, 0.0), 0.5 * np.maximum(eps - eiz, 0.0)], 0.0)
        counts += np.bincount(kind, minlength=4)[:3]
        real = kind < 3
        sr = sc[real]
        mu = 1.0 - 2.0 * _pcg(sr)
        phi = 2.0 * np.pi * _pcg(sr)
        sn = np.sqrt(np.maximum(1.0 - mu * mu, 0.0))
        sp = np.sqrt(enew[real])
        sc[real] = sr
        st[cand] = sc
        v[cand[real]] = np.stack([sp * sn * np.cos(phi), sp * sn * np.sin(phi), sp * mu], -1)
    return {"vel": v.reshape(-1), "rng": st, "counts": counts}


def mcc_null_collision_swarm_u32() -> KernelSpec:
    return _spec(
        "mcc_null_collision_swarm_u32", tol=SUMS,
        idiom="PIC-MCC electron swarm, an electron per item over a runtime step count: uint32 PCG state, field "
              "kick, null-collision test, cross-section table lerp, elastic / excitation / ionization branch, "
              "isotropic rescatter, uint32 atomic_inc event counts",
        sizes={"P": [16384, 65536, 262144, 1048576], "S": [8, 24, 64]}, check={"P": 2500, "S": 10},
        constraints=["P * S <= 2**24"],
        args=[Arg("np", "scalar", "int32", "P"), Arg("nstep", "scalar", "int32", "S"),
              Arg("ne", "scalar", "int32", str(NE)), Arg("de", "scalar", "float32", str(DE)),
              Arg("kick", "scalar", "float32", str(KICK)), Arg("ndt", "scalar", "float32", str(NDT)),
              Arg("p_coll", "scalar", "float32", repr(P_COLL)),
              Arg("nu_max_dt", "scalar", "float32", str(NU_MAX_DT)), Arg("mfrac", "scalar", "float32", str(MFRAC)),
              Arg("eps_ex", "scalar", "float32", str(EPS_EX)), Arg("eps_iz", "scalar", "float32", str(EPS_IZ)),
              Arg("xs", "buffer", "float32", f"3 * {NE}"), Arg("vel", "buffer", "float32", "3 * P", "inout"),
              Arg("rng", "buffer", "uint32", "P", "inout"), Arg("counts", "buffer", "uint32", "3", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_mcc, make_inputs=_inputs_mcc)


# --- gyro-average over rings of bilinear samples, 2-D ------------------------------------------------------------
def _inputs_gyro(rng, sz):
    """A drift-wave-like potential (random Fourier modes with a k^-2 spectrum) on an N x N grid; K gyroradii
    RHO_TH sqrt(2 x_k) at the Gauss-Laguerre nodes x_k of the Maxwellian mu integral, weights w_k."""
    n, nk = sz["N"], sz["K"]
    xx, yy = np.meshgrid(np.arange(n), np.arange(n))
    phi = np.zeros((n, n))
    for _ in range(12):
        kx, ky = rng.integers(-12, 13, 2)
        k2 = max(kx * kx + ky * ky, 1)
        phi += np.cos(2 * np.pi * (kx * xx + ky * yy) / n + rng.uniform(0, 2 * np.pi)) / k2
    x, w = np.polynomial.laguerre.laggauss(nk)
    return {"phi": phi.reshape(-1), "rho": RHO_TH * np.sqrt(2.0 * x), "w": w}


def _ref_gyro(inp, sz):
    nx, ny, nk = int(inp["nx"]), int(inp["ny"]), int(inp["nrho"])
    phi = _f64(inp["phi"])[:nx * ny].reshape(ny, nx)
    rho, w = _f64(inp["rho"])[:nk], _f64(inp["w"])[:nk]
    yy, xx = np.mgrid[0:ny, 0:nx].astype(np.float64)
    acc = np.zeros((ny, nx))
    for r, wk in zip(rho, w):
        n = 4 * max(1, int(np.ceil(r)))
        ring = np.zeros((ny, nx))
        for p in range(n):
            th = 2.0 * np.pi * p / n
            px, py = xx + r * np.cos(th), yy + r * np.sin(th)
            fx, fy = np.floor(px), np.floor(py)
            ax, ay = px - fx, py - fy
            i0, j0 = fx.astype(np.int64) % nx, fy.astype(np.int64) % ny
            i1, j1 = (i0 + 1) % nx, (j0 + 1) % ny
            lo = phi[j0, i0] + ax * (phi[j0, i1] - phi[j0, i0])
            hi = phi[j1, i0] + ax * (phi[j1, i1] - phi[j1, i0])
            ring += lo + ay * (hi - lo)
        acc += wk * ring / n
    return {"phibar": acc.reshape(-1)}


def gyroavg_ring_bilerp_2d() -> KernelSpec:
    return _spec(
        "gyroavg_ring_bilerp_2d", tol=SUMS,
        idiom="gyrokinetic gyro-average, 2-D (x, y): runtime list of gyroradii with quadrature weights, ring of "
              "4 ceil(rho) points per radius walked by a sincos rotation, periodic bilinear samples of phi, weighted ring means",
        sizes={"N": [128, 256, 384, 512, 768, 1024], "K": [2, 4, 8]}, check={"N": 40, "K": 4},
        constraints=["N * N * K <= 2**21"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("nrho", "scalar", "int32", "K"), Arg("phi", "buffer", "float32", "N * N"),
              Arg("rho", "buffer", "float32", "K"), Arg("w", "buffer", "float32", "K"),
              Arg("phibar", "buffer", "float32", "N * N", "out")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_gyro, make_inputs=_inputs_gyro)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mcc_null_collision_swarm_u32, gyroavg_ring_bilerp_2d)
