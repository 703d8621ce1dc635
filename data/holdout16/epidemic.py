"""Holdout16 kernels, group epidemic (written by hand; see docs/HOLDOUT16.md): epidemiology and ecology. One
tau-leap of a stochastic SIRS metapopulation in fp64, a work-item per patch gathering the time-weighted prevalence
of the patches its residents visit from a CSR mobility list (uint32 S, I, R counts), then drawing infections,
recoveries and waning immunity as binomials from a counter-based hash, by inversion (a data-dependent search of
the cdf) when the mean is small and by a rounded Box-Muller normal otherwise; and an explicit Euler step of a
spatial Rosenzweig-MacArthur predator-prey model on a 2-D NDRange, every work-group staging both density fields'
tile and a replicated one-cell halo in __local memory behind a barrier, uninhabitable cells (K <= 0) leaving
early, the rest applying 5-point diffusion with logistic growth and a Holling type II functional response. Neither
uses atomics; the group's other two kernels are in :mod:`.epidemic_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up

SEED, STEP = 20240611, 17  # metapop_tau_leap_binv_fp64: the run's seed and this leap's number
BETA, GAMMA, OMEGA, TAU = 0.45, 0.2, 0.01, 0.5  # per day; a half-day leap
BINV_MAX_MEAN = 30.0

# rma_predprey_tile_local_2d: time step and parameters (per day, diffusion over the squared cell size)
RMA = {"dt": 0.05, "dn": 0.2, "dp": 0.5, "r": 1.0, "a": 4.0, "h": 0.8, "e": 0.6, "m": 0.35}

M32 = 0xFFFFFFFF


# --- SIRS tau-leap over a metapopulation with mobility, binomial draws, fp64 --------------------------------------
def _hash3(a, b, c):
    """The kernel's hash3 on uint64 arrays holding uint32 values."""
    a, b, c = (np.asarray(v, dtype=np.uint64) for v in (a, b, c))
    h = ((a * 0x9E3779B1) & M32) ^ ((b * 0x85EBCA77) & M32) ^ ((c * 0xC2B2AE3D) & M32)
    h ^= h >> 16
    h = (h * 0x7FEB352D) & M32
    h ^= h >> 15
    h = (h * 0x846CA68B) & M32
    h ^= h >> 16
    return h


def _unif(key, patch, ctr):
    return (_hash3(key, patch, ctr).astype(np.float64) + 0.5) * (1.0 / 4294967296.0)


def _binom(n, p, key, patch, ctr):
    n = n.astype(np.float64)
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), n.shape)
    out = np.zeros(n.shape)
    q = 1.0 - p
    mean = n * p
    live = (n > 0) & (p > 0)
    inv = live & (mean < BINV_MAX_MEAN)
    u = _unif(key, patch, ctr)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = p / q
        a = (n + 1) * s
        r = q ** n
        x = np.zeros(n.shape)
        act = inv & (u > r) & (x < n)
        while act.any():
            u = np.where(act, u - r, u)
            x = np.where(act, x + 1, x)
            r = np.where(act, r * (a / np.maximum(x, 1.0) - s), r)
            act = act & (u > r) & (x < n)
        out = np.where(inv, x, out)
        u1 = _unif(key, patch, ctr)
        u2 = _unif(key, patch, ctr + 1)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)
        xn = np.clip(np.rint(mean + z * np.sqrt(mean * q)), 0.0, n)
    out = np.where(live & ~inv, xn, out)
    return out.astype(np.int64)


def _inputs_metapop(rng, sz):
    """P patches of lognormal size (villages of ~100 to cities of ~10^6), prevalence from none to ~20 % and a
    quarter to a half recovered; mobility as a CSR list of on average D visited patches a patch (random cut
    points, so degrees vary), each visit a share of up to 0.3 / degree of the residents' time."""
    npch, d = sz["P"], sz["D"]
    nnz = npch * d
    size = np.minimum(np.exp(rng.normal(7.5, 2.0, npch)), 3e6).astype(np.int64) + 1
    prev = np.where(rng.random(npch) < 0.3, 0.0, rng.uniform(0.0, 0.2, npch) ** 2 * 5.0)
    inf = rng.binomial(size, np.minimum(prev, 1.0))
    rec = rng.binomial(size - inf, rng.uniform(0.25, 0.5, npch))
    state = np.stack([size - inf - rec, inf, rec], -1).astype(np.uint32)
    cuts = np.sort(rng.integers(0, nnz + 1, npch - 1))
    row_ptr = np.concatenate([[0], cuts, [nnz]]).astype(np.int32)
    deg = np.diff(row_ptr)
    w = rng.random(nnz) * 0.3 / np.repeat(np.maximum(deg, 1), deg)
    return {"row_ptr": row_ptr, "col": rng.integers(0, npch, nnz).astype(np.int32), "w": w,
            "state_in": state.reshape(-1)}


def _ref_metapop(inp, sz):
    npch = int(inp["npatch"])
    beta, gamma, omega, tau = (float(inp[k]) for k in ("beta", "gamma", "omega", "tau"))
    st = np.asarray(inp["state_in"])[:3 * npch].reshape(npch, 3).astype(np.int64)
    rp = np.asarray(inp["row_ptr"]).astype(np.int64)[:npch + 1]
    col = np.asarray(inp["col"]).astype(np.int64)[:rp[-1]]
    w = _f64(inp["w"])[:rp[-1]]
    s, i, r = st[:, 0], st[:, 1], st[:, 2]
    n = s + i + r
    frac = np.where(n > 0, i / np.maximum(n, 1), 0.0)
    row = np.repeat(np.arange(npch), np.diff(rp))
    away = np.bincount(row, weights=w, minlength=npch)
    prev = np.bincount(row, weights=w * frac[col], minlength=npch) + np.where(n > 0, (1.0 - away) * frac, 0.0)
    key = (int(inp["seed"]) + int(inp["step"])) & M32
    pid = np.arange(npch)
    inf = _binom(s, 1.0 - np.exp(-beta * prev * tau), key, pid, 0)
    rec = _binom(i, 1.0 - np.exp(-gamma * tau), key, pid, 2)
    wan = _binom(r, 1.0 - np.exp(-omega * tau), key, pid, 4)
    out = np.stack([s - inf + wan, i + inf - rec, r + rec - wan], -1)
    return {"state_out": out.reshape(-1).astype(np.uint32), "incid": inf.astype(np.uint32)}


def metapop_tau_leap_binv_fp64() -> KernelSpec:
    return _spec(
        "metapop_tau_leap_binv_fp64", tol=FP64, precision="fp64",
        idiom="SIRS tau-leap per metapopulation patch in fp64: CSR mobility gather of visited patches' prevalence "
              "(uint32 S, I, R), three hashed binomial draws, cdf inversion loop for small means, Box-Muller normal "
              "otherwise",
        sizes={"P": [4096, 16384, 65536, 262144, 1048576], "D": [4, 16]}, check={"P": 3000, "D": 6},
        args=[Arg("npatch", "scalar", "int32", "P"), Arg("seed", "scalar", "uint32", str(SEED)),
              Arg("step", "scalar", "int32", str(STEP)), Arg("beta", "scalar", "float64", str(BETA)),
              Arg("gamma", "scalar", "float64", str(GAMMA)), Arg("omega", "scalar", "float64", str(OMEGA)),
              Arg("tau", "scalar", "float64", str(TAU)),
              Arg("row_ptr", "buffer", "int32", "P + 1"), Arg("col", "buffer", "int32", "P * D"),
              Arg("w", "buffer", "float64", "P * D"), Arg("state_in", "buffer", "uint32", "3 * P"),
              Arg("state_out", "buffer", "uint32", "3 * P", "out"), Arg("incid", "buffer", "uint32", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_metapop, make_inputs=_inputs_metapop)


# --- Rosenzweig-MacArthur predator-prey reaction-diffusion, tiles through __local --------------------------------
def _inputs_rma(rng, sz):
    """A landscape of smooth habitat quality (K 0.3 .. 1.5 from a few random sinusoids) cut by a river and
    scattered lakes (K = 0); prey near K with noise, predators in patches."""
    nx, ny = sz["X"], sz["Y"]
    xx, yy = np.arange(nx, dtype=np.float32)[None, :], np.arange(ny, dtype=np.float32)[:, None]
    k = np.full((ny, nx), 0.9, np.float32)
    for _ in range(4):  # 0.15 sin(fx x + fy y + ph), separated
        fx, fy, ph = rng.uniform(0.002, 0.03), rng.uniform(0.002, 0.03), rng.uniform(0, 6.3)
        k += np.float32(0.15) * (np.sin(fx * xx + ph) * np.cos(fy * yy) + np.cos(fx * xx + ph) * np.sin(fy * yy))
    river = np.abs(yy - ny * 0.5 - 0.1 * ny * np.sin(xx * 6.0 / nx)) < max(2.0, ny / 200.0)
    lakes = rng.random((ny, nx), dtype=np.float32) < 0.01
    k[river | lakes] = 0.0
    prey = k * rng.uniform(0.5, 1.0, (ny, nx)).astype(np.float32)
    patch = (np.sin(xx * 0.05) * np.cos(yy * 0.04) > 0.3) & (k > 0)
    pred = np.where(patch, rng.random((ny, nx), dtype=np.float32) * np.float32(0.4), np.float32(0.0))
    return {"K": k.reshape(-1), "prey_in": prey.reshape(-1), "pred_in": pred.reshape(-1)}


def _ref_rma(inp, sz):
    nx, ny = int(inp["nx"]), int(inp["ny"])
    c = {key: float(np.float32(inp[key])) for key in RMA}
    k = _f64(inp["K"])[:nx * ny].reshape(ny, nx)
    n = _f64(inp["prey_in"])[:nx * ny].reshape(ny, nx)
    p = _f64(inp["pred_in"])[:nx * ny].reshape(ny, nx)

    def lap(f):
        g = np.pad(f, 1, mode="edge")
        return g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4.0 * f

    feed = c["a"] * n * p / (1.0 + c["a"] * c["h"] * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        dn = c["r"] * n * (1.0 - n / k) - feed + c["dn"] * lap(n)
    dp = c["e"] * feed - c["m"] * p + c["dp"] * lap(p)
    hab = k > 0
    prey = np.where(hab, np.maximum(n + c["dt"] * dn, 0.0), 0.0)
    pred = np.where(hab, np.maximum(p + c["dt"] * dp, 0.0), 0.0)
    return {"prey_out": prey.reshape(-1), "pred_out": pred.reshape(-1)}


def rma_predprey_tile_local_2d() -> KernelSpec:
    return _spec(
        "rma_predprey_tile_local_2d", tol=SUMS,
        idiom="Rosenzweig-MacArthur predator-prey Euler step, 2-D: both fields' tile + clamped halo in __local behind "
              "a barrier, early exit on uninhabitable cells, 5-point Laplacians, logistic growth and Holling II "
              "feeding",
        sizes={"X": [256, 1024, 4096], "Y": [256, 1024, 2048, 4096]}, check={"X": 90, "Y": 70},
        constraints=["X * Y <= 2**24"],
        args=[Arg("nx", "scalar", "int32", "X"), Arg("ny", "scalar", "int32", "Y"),
              *(Arg(key, "scalar", "float32", str(val)) for key, val in RMA.items()),
              Arg("K", "buffer", "float32", "X * Y"), Arg("prey_in", "buffer", "float32", "X * Y"),
              Arg("pred_in", "buffer", "float32", "X * Y"),
              Arg("prey_out", "buffer", "float32", "X * Y", "out"), Arg("pred_out", "buffer", "float32", "X * Y", "out"),
              Arg("tn", "local", "float32", "(l0 + 2) * (l1 + 2)"),
              Arg("tp", "local", "float32", "(l0 + 2) * (l1 + 2)")],
        gsize=[round_up("X", 32), round_up("Y", 16)], local=L2, reference=_ref_rma, make_inputs=_inputs_rma)


#: this group's builders, in the order of ``specs()``
BUILDERS = (metapop_tau_leap_binv_fp64, rma_predprey_tile_local_2d)
