"""Holdout4 kernels: ML, physics and finance kernels as application programmers write them (LSTM cell, depthwise
conv, row-per-group attention, binomial-tree American put, Morse forces from a Verlet list, Heston Monte Carlo)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, FP64, L1, SUMS, _f64, _spec, round_up


# --- LSTM cell, gates already computed, 2-D (unit, batch row) -----------------------------------------
def _inputs_lstm(rng, sz):
    return {"gates": rng.normal(0.0, 2.0, 4 * sz["H"] * sz["B"]), "c_prev": rng.normal(0.0, 1.5, sz["H"] * sz["B"])}


def _ref_lstm(inp, sz):
    g = _f64(inp["gates"]).reshape(sz["B"], 4, sz["H"])
    sig = lambda a: 1.0 / (1.0 + np.exp(-a))  # noqa: E731
    c = sig(g[:, 1] + float(inp["forget_bias"])) * _f64(inp["c_prev"]).reshape(sz["B"], -1)
    c = np.clip(c + sig(g[:, 0]) * np.tanh(g[:, 2]), -inp["cell_clip"], inp["cell_clip"])
    return {"c_out": c, "h_out": sig(g[:, 3]) * np.tanh(c)}


def lstm_cell_update() -> KernelSpec:
    return _spec(
        "lstm_cell_update", idiom="LSTM cell update from precomputed gates: sigmoid/tanh, forget bias, cell clip, 2-D",
        sizes={"H": [256, 1024, 4096], "B": [1, 16, 128, 1024]}, check={"H": 70, "B": 5},
        args=[Arg("hidden", "scalar", "int32", "H"), Arg("batch", "scalar", "int32", "B"),
              Arg("forget_bias", "scalar", "float32", "1.0"), Arg("cell_clip", "scalar", "float32", "2.5"),
              Arg("gates", "buffer", "float32", "4 * H * B"), Arg("c_prev", "buffer", "float32", "H * B"),
              Arg("c_out", "buffer", "float32", "H * B", "out"), Arg("h_out", "buffer", "float32", "H * B", "out")],
        gsize=[round_up("H", 128), round_up("B", 8)], local=[[32, 8], [64, 4], [128, 1]], reference=_ref_lstm,
        make_inputs=_inputs_lstm, tol=ELEMWISE)


# --- depthwise 3x3 convolution on NHWC, bias + ReLU6, 2-D (channel, pixel) -----------------------------
def _inputs_dw(rng, sz):
    return {"x": rng.normal(0.0, 2.0, sz["N"] * sz["S"] * sz["S"] * sz["C"])}


def _ref_dw(inp, sz):
    n, s, c = sz["N"], sz["S"], sz["C"]
    x = np.pad(_f64(inp["x"]).reshape(n, s, s, c), ((0, 0), (1, 1), (1, 1), (0, 0)))
    acc = np.broadcast_to(_f64(inp["bias"]), (n, s, s, c)).copy()
    for ky in range(3):
        for kx in range(3):
            acc += x[:, ky:ky + s, kx:kx + s, :] * _f64(inp["w"]).reshape(3, 3, c)[ky, kx]
    return {"y": np.clip(acc, 0.0, 6.0)}


def depthwise3x3_nhwc() -> KernelSpec:
    return _spec(
        "depthwise3x3_nhwc", idiom="depthwise 3x3 conv on NHWC, zero padding, bias + ReLU6, 2-D (channel, pixel)",
        sizes={"N": [1, 8], "S": [14, 56, 112], "C": [32, 144, 384]}, check={"N": 2, "S": 9, "C": 20},
        constraints=["N * S * S * C <= 2**24"],
        args=[Arg("images", "scalar", "int32", "N"), Arg("height", "scalar", "int32", "S"),
              Arg("width", "scalar", "int32", "S"), Arg("channels", "scalar", "int32", "C"),
              Arg("x", "buffer", "float32", "N * S * S * C"), Arg("w", "buffer", "float32", "9 * C"),
              Arg("bias", "buffer", "float32", "C"), Arg("y", "buffer", "float32", "N * S * S * C", "out")],
        gsize=[round_up("C", 32), round_up("N * S * S", 16)], local=[[32, 8], [16, 16]], reference=_ref_dw,
        make_inputs=_inputs_dw, tol=SUMS)


# --- attention, one query row per work-group, softmax reduced in __local -------------------------------
def _ref_attn(inp, sz):
    d = sz["D"]
    q, k, v = (_f64(inp[n]).reshape(-1, d) for n in "qkv")
    s = (q @ k.T) * float(inp["scale"])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return {"out": (p @ v) / p.sum(axis=1, keepdims=True)}


def attn_row_local() -> KernelSpec:
    return _spec(
        "attn_row_local", idiom="attention, a query row per work-group at a time: __local scores, max/sum softmax, P V",
        sizes={"Q": [64, 512, 4096], "L": [128, 1024, 4096], "D": [64, 128]},
        check={"Q": 7, "L": 300, "D": 40}, constraints=["Q * L * D <= 2**27"],
        args=[Arg("nrows", "scalar", "int32", "Q"), Arg("nkeys", "scalar", "int32", "L"),
              Arg("dim", "scalar", "int32", "D"), Arg("scale", "scalar", "float32", "1.0 / D ** 0.5"),
              Arg("q", "buffer", "float32", "Q * D"), Arg("k", "buffer", "float32", "L * D"),
              Arg("v", "buffer", "float32", "L * D"),
              Arg("out", "buffer", "float32", "Q * D", "out"), Arg("scores", "local", "float32", "L")],
        gsize=[round_up("Q * 64")], local=[[256], [128], [64]], reference=_ref_attn, tol=SUMS)


# --- American put on a CRR binomial tree, one option per work-item, fp64 --------------------------------
def _inputs_binomial(rng, sz):
    n = sz["n"]
    return {"spot": rng.uniform(80.0, 120.0, n), "strike": rng.uniform(90.0, 110.0, n),
            "expiry": rng.uniform(0.25, 2.0, n)}


def _ref_binomial(inp, sz):
    steps, r, vol = sz["T"], float(inp["rate"]), float(inp["vol"])
    s0, k = _f64(inp["spot"])[:, None], _f64(inp["strike"])[:, None]
    dt = _f64(inp["expiry"])[:, None] / steps
    u = np.exp(vol * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    pu, pd = np.exp(-r * dt) * p, np.exp(-r * dt) * (1.0 - p)
    j = np.arange(steps + 1)[None, :]
    val = np.maximum(k - s0 * d ** steps * u ** (2 * j), 0.0)
    for t in range(steps - 1, -1, -1):
        hold = pu * val[:, 1:t + 2] + pd * val[:, :t + 1]
        val = np.maximum(hold, k - s0 * d ** t * u ** (2 * j[:, :t + 1]))
    return {"price": val[:, 0]}


def binomial_american_fp64() -> KernelSpec:
    return _spec(
        "binomial_american_fp64", precision="fp64",
        idiom="CRR binomial-tree American put per work-item, private array rolled back a runtime step count, fp64",
        sizes={"n": [256, 1024, 4096, 16384, 65536], "T": [32, 128, 512]}, check={"n": 300, "T": 50},
        constraints=["n * T * T <= 2**27"],
        args=[Arg("nopt", "scalar", "int32", "n"), Arg("steps", "scalar", "int32", "T"),
              Arg("rate", "scalar", "float64", "0.03"), Arg("vol", "scalar", "float64", "0.25"),
              Arg("spot", "buffer", "float64", "n"), Arg("strike", "buffer", "float64", "n"),
              Arg("expiry", "buffer", "float64", "n"), Arg("price", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_binomial, make_inputs=_inputs_binomial, tol=FP64)


# --- Morse forces from a column-major Verlet list on a jittered lattice ---------------------------------
_OFFSETS = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)])
MAX_NBR = 32


def _inputs_morse(rng, sz):
    m = sz["M"]
    cell = np.stack(np.meshgrid(*(np.arange(m),) * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    pos = np.concatenate([cell + rng.uniform(-0.1, 0.1, (m ** 3, 3)), np.ones((m ** 3, 1))], axis=1)  # w: mass
    other = cell[:, None, :] + _OFFSETS[None, :, :]
    ok = ((other >= 0) & (other < m)).all(axis=2)
    ids = np.where(ok, (other[..., 0] * m + other[..., 1]) * m + other[..., 2], -1)
    order = np.argsort(~ok, axis=1, kind="stable")  # listed neighbours first
    nbr = np.full((m ** 3, MAX_NBR), -1)
    nbr[:, :26] = np.take_along_axis(ids, order, axis=1)
    return {"pos": pos, "nbr": nbr.T, "nnbr": ok.sum(axis=1)}


def _ref_morse(inp, sz):
    n = sz["M"] ** 3
    pos, nbr = _f64(inp["pos"]).reshape(n, 4), inp["nbr"].reshape(MAX_NBR, n)
    depth, alpha, r0, rc = (float(inp[k]) for k in ("depth", "alpha", "r0", "rcut"))
    dvdr = lambda r: 2.0 * depth * alpha * np.exp(alpha * (r0 - r)) * (1.0 - np.exp(alpha * (r0 - r)))  # noqa: E731
    energy = lambda r: depth * (1.0 - np.exp(alpha * (r0 - r))) ** 2  # noqa: E731
    out = np.zeros((n, 4))
    for k in range(MAX_NBR):
        live = (k < inp["nnbr"]) & (nbr[k] >= 0)
        d = pos[:, :3] - pos[np.where(live, nbr[k], 0), :3]
        r = np.sqrt((d * d).sum(axis=1))
        use = live & (r < rc)
        r = np.where(use, r, rc)
        out[:, :3] -= np.where(use, (dvdr(r) - dvdr(rc)) / r, 0.0)[:, None] * d
        out[:, 3] += np.where(use, 0.5 * (energy(r) - energy(rc) - (r - rc) * dvdr(rc)), 0.0)
    return {"force": out}


def morse_verlet_list() -> KernelSpec:
    return _spec(
        "morse_verlet_list", idiom="shifted Morse forces from a column-major Verlet list, float4 positions, cutoff",
        sizes={"M": [12, 16, 24, 32, 48, 64, 96, 128]}, check={"M": 7},
        args=[Arg("natoms", "scalar", "int32", "M * M * M"), Arg("max_nbr", "scalar", "int32", str(MAX_NBR)),
              Arg("depth", "scalar", "float32", "0.5"), Arg("alpha", "scalar", "float32", "2.0"),
              Arg("r0", "scalar", "float32", "1.05"), Arg("rcut", "scalar", "float32", "1.5"),
              Arg("pos", "buffer", "float32", "4 * M * M * M"), Arg("nbr", "buffer", "int32", f"{MAX_NBR} * M * M * M"),
              Arg("nnbr", "buffer", "int32", "M * M * M"), Arg("force", "buffer", "float32", "4 * M * M * M", "out")],
        gsize=[round_up("M * M * M")], local=L1, reference=_ref_morse, make_inputs=_inputs_morse, tol=SUMS)


# --- Heston paths, full-truncation Euler, counter-based hash RNG ----------------------------------------
def _pcg_hash(x):
    state = x * np.uint32(747796405) + np.uint32(2891336453)
    word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
    return (word >> np.uint32(22)) ^ word


def _ref_heston(inp, sz):
    rate, kappa, theta, xi, rho, expiry = (float(inp[k]) for k in ("rate", "kappa", "theta", "xi", "rho", "expiry"))
    n, steps, dt = sz["P"], sz["T"], expiry / sz["T"]
    key = _pcg_hash(np.uint32(inp["seed"]) ^ np.arange(n, dtype=np.uint32))
    log_s, v = np.full(n, np.log(float(inp["s0"]))), np.full(n, float(inp["v0"]))
    for t in range(steps):
        u1, u2 = ((_f64(_pcg_hash(key + np.uint32(2 * t + o)) >> np.uint32(8)) + 0.5) / 16777216.0 for o in (0, 1))
        z1, z2 = (np.sqrt(-2.0 * np.log(u1)) * f(2.0 * np.pi * u2) for f in (np.cos, np.sin))
        vp = np.maximum(v, 0.0)
        log_s += (rate - 0.5 * vp) * dt + np.sqrt(vp * dt) * z1
        v += kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * (rho * z1 + np.sqrt(1.0 - rho * rho) * z2)
    return {"payoff": np.exp(-rate * expiry) * np.maximum(np.exp(log_s) - float(inp["strike"]), 0.0)}


def heston_euler_hash() -> KernelSpec:
    return _spec(
        "heston_euler_hash", idiom="Heston full-truncation Euler path per item, PCG-hash counter RNG, Box-Muller",
        sizes={"P": [4096, 16384, 65536, 262144, 1048576], "T": [16, 64, 256, 1024]}, check={"P": 1000, "T": 64},
        constraints=["P * T <= 2**23"],
        args=[Arg("npaths", "scalar", "int32", "P"), Arg("steps", "scalar", "int32", "T"),
              Arg("seed", "scalar", "uint32", "20240611"), Arg("s0", "scalar", "float32", "1.0"),
              Arg("v0", "scalar", "float32", "0.04"), Arg("rate", "scalar", "float32", "0.02"),
              Arg("kappa", "scalar", "float32", "2.0"), Arg("theta", "scalar", "float32", "0.04"),
              Arg("xi", "scalar", "float32", "0.3"), Arg("rho", "scalar", "float32", "-0.7"),
              Arg("strike", "scalar", "float32", "1.05"), Arg("expiry", "scalar", "float32", "1.0"),
              Arg("payoff", "buffer", "float32", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_heston, tol=SUMS)


#: this group's builders, in the order of ``specs()``
BUILDERS = (lstm_cell_update, depthwise3x3_nhwc, attn_row_local, binomial_american_fp64, morse_verlet_list,
            heston_euler_hash)
