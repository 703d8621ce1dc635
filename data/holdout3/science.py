"""Holdout3 kernels: scientific and ML kernels as application programmers write them (ODE integration,
reaction-diffusion, Monte Carlo, Metropolis sampling, batch-norm inference, cross-entropy)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, FP64, L2, SUMS, _f64, _spec, pow2, round_up

ISING_BETA = 0.44


def _inputs_lorenz(rng, sz):
    n = sz["n"]
    pts = np.stack([rng.uniform(-15.0, 15.0, n), rng.uniform(-20.0, 20.0, n), rng.uniform(5.0, 40.0, n)], axis=1)
    return {"state": pts.reshape(-1)}


def _ref_lorenz(inp, sz):
    s = _f64(inp["state"]).reshape(-1, 3)
    x, y, z = s[:, 0].copy(), s[:, 1].copy(), s[:, 2].copy()
    dt, sigma, rho, beta = (float(inp[k]) for k in ("dt", "sigma", "rho", "beta"))
    half = 0.5 * dt

    def rhs(a, b, c):
        return sigma * (b - a), a * (rho - c) - b, a * b - beta * c

    for _ in range(int(inp["steps"])):
        k1 = rhs(x, y, z)
        k2 = rhs(x + half * k1[0], y + half * k1[1], z + half * k1[2])
        k3 = rhs(x + half * k2[0], y + half * k2[1], z + half * k2[2])
        k4 = rhs(x + dt * k3[0], y + dt * k3[1], z + dt * k3[2])
        x = x + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0])
        y = y + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1])
        z = z + dt / 6.0 * (k1[2] + 2.0 * k2[2] + 2.0 * k3[2] + k4[2])
    return {"state": np.stack([x, y, z], axis=1)}


def lorenz_rk4_fp64() -> KernelSpec:
    return _spec(
        "lorenz_rk4_fp64", precision="fp64",
        idiom="RK4 of the Lorenz system per work-item, step loop, rhs helper with private out-pointers, fp64",
        sizes={"n": [1000, 4000, 16000, 64000, 256000, 1000000], "steps": [10, 100, 1000, 10000]},
        check={"n": 300, "steps": 200}, constraints=["n * steps <= 2**24"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("steps", "scalar", "int32", "steps"),
              Arg("dt", "scalar", "float64", "0.005"), Arg("sigma", "scalar", "float64", "10.0"),
              Arg("rho", "scalar", "float64", "28.0"), Arg("beta", "scalar", "float64", "2.6666666666666665"),
              Arg("state", "buffer", "float64", "3 * n", "inout")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_lorenz, make_inputs=_inputs_lorenz, tol=FP64)


def _inputs_gray_scott(rng, sz):
    cells = sz["W"] * sz["H"]
    return {"u": 1.0 - 0.5 * rng.random(cells), "v": 0.25 * rng.random(cells)}


def _ref_gray_scott(inp, sz):
    w, h = sz["W"], sz["H"]
    u, v = _f64(inp["u"]).reshape(h, w), _f64(inp["v"]).reshape(h, w)

    def lap(a):
        return np.roll(a, 1, 1) + np.roll(a, -1, 1) + np.roll(a, 1, 0) + np.roll(a, -1, 0) - 4.0 * a

    du, dv, feed, kill, dt = (float(inp[k]) for k in ("du", "dv", "feed", "kill", "dt"))
    uvv = u * v * v
    return {"u_next": u + dt * (du * lap(u) - uvv + feed * (1.0 - u)),
            "v_next": v + dt * (dv * lap(v) + uvv - (feed + kill) * v)}


def gray_scott_step() -> KernelSpec:
    return _spec(
        "gray_scott_step", idiom="Gray-Scott reaction-diffusion step: two fields in and out, periodic 5-point Laplacian",
        sizes={"W": [64, 250, 1000, 4000], "H": [64, 250, 1000, 4000]}, check={"W": 37, "H": 29},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("du", "scalar", "float32", "0.16"), Arg("dv", "scalar", "float32", "0.08"),
              Arg("feed", "scalar", "float32", "0.035"), Arg("kill", "scalar", "float32", "0.065"),
              Arg("dt", "scalar", "float32", "1.0"),
              Arg("u", "buffer", "float32", "W * H"), Arg("v", "buffer", "float32", "W * H"),
              Arg("u_next", "buffer", "float32", "W * H", "out"), Arg("v_next", "buffer", "float32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_gray_scott,
        make_inputs=_inputs_gray_scott, tol=ELEMWISE)


def _inputs_mc(rng, sz):
    return {"seeds": rng.integers(0, 2**32, sz["n"], dtype=np.uint32)}


def _ref_mc(inp, sz):
    state = inp["seeds"].astype(np.uint32).copy()
    a, c = np.uint32(1664525), np.uint32(1013904223)
    scale = np.float32(1.0 / 16777216.0)
    acc = np.zeros(state.size)
    for _ in range(int(inp["samples"])):
        state = state * a + c
        px = (state >> np.uint32(8)).astype(np.float32) * scale
        state = state * a + c
        py = (state >> np.uint32(8)).astype(np.float32) * scale
        r2 = px * px + py * py
        acc += np.where(r2 < np.float32(1.0), np.exp(-_f64(r2)), 0.0)
    return {"partial": acc.reshape(-1, 256).sum(axis=1) / (int(inp["samples"]) * 256.0)}


def mc_disc_lcg_local() -> KernelSpec:
    return _spec(
        "mc_disc_lcg_local", idiom="Monte Carlo integral: per-item uint LCG sample loop, disc test, __local tree sum",
        sizes={"n": pow2(8, 21), "S": [16, 256, 4096]}, check={"n": 1024, "S": 40},
        constraints=["n * S <= 2**25"],
        args=[Arg("samples", "scalar", "int32", "S"), Arg("seeds", "buffer", "uint32", "n"),
              Arg("partial", "buffer", "float32", "n // 256", "out")],
        gsize=["n"], local=[[256]], reference=_ref_mc, make_inputs=_inputs_mc, tol=SUMS)


def _inputs_bn(rng, sz):
    return {"var": rng.uniform(0.05, 2.0, sz["C"])}


def _ref_bn(inp, sz):
    c = sz["C"]
    x = _f64(inp["x"]).reshape(sz["N"], c, sz["HW"])
    scale = _f64(inp["gamma"]) / np.sqrt(_f64(inp["var"]) + float(inp["eps"]))
    shift = _f64(inp["beta"]) - _f64(inp["mean"]) * scale
    return {"y": np.maximum(x * scale[None, :, None] + shift[None, :, None], 0.0)}


def batchnorm_relu_nchw() -> KernelSpec:
    return _spec(
        "batchnorm_relu_nchw", idiom="batch-norm inference + ReLU on NCHW, 3-D NDRange (pixel, channel, image), size_t index",
        sizes={"HW": [196, 784, 3136, 12544], "C": [32, 256], "N": [1, 16]}, check={"HW": 50, "C": 6, "N": 3},
        args=[Arg("hw", "scalar", "int32", "HW"), Arg("channels", "scalar", "int32", "C"),
              Arg("eps", "scalar", "float32", "1e-5"), Arg("x", "buffer", "float32", "N * C * HW"),
              Arg("mean", "buffer", "float32", "C"), Arg("var", "buffer", "float32", "C"),
              Arg("gamma", "buffer", "float32", "C"), Arg("beta", "buffer", "float32", "C"),
              Arg("y", "buffer", "float32", "N * C * HW", "out")],
        gsize=[round_up("HW", 64), "C", "N"], local=[[64, 1, 1], [32, 4, 1]], reference=_ref_bn,
        make_inputs=_inputs_bn, tol=ELEMWISE)


def _inputs_ising(rng, sz):
    accept = np.exp(-np.array([4.0, 8.0]) * ISING_BETA)
    return {"accept": accept, "spin": np.where(rng.random(sz["W"] * sz["H"]) < 0.5, -1, 1)}


def _ref_ising(inp, sz):
    w, h = sz["W"], sz["H"]
    s = inp["spin"].astype(np.int64).reshape(h, w)
    nb = np.roll(s, 1, 1) + np.roll(s, -1, 1) + np.roll(s, 1, 0) + np.roll(s, -1, 0)
    de = 2 * s * nb
    yy, xx = np.mgrid[0:h, 0:w]
    mine = ((xx + yy + int(inp["color"])) & 1) == 0
    hsh = (yy * w + xx).astype(np.uint32) ^ np.uint32(inp["seed"])
    hsh ^= hsh >> np.uint32(16)
    hsh *= np.uint32(0x7FEB352D)
    hsh ^= hsh >> np.uint32(15)
    hsh *= np.uint32(0x846CA68B)
    hsh ^= hsh >> np.uint32(16)
    r = (hsh >> np.uint32(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    acc = inp["accept"].astype(np.float32)[np.clip(de // 4 - 1, 0, 1)]
    flip = mine & ((de <= 0) | (r < acc))
    return {"spin": np.where(flip, -s, s)}


def ising_checkerboard() -> KernelSpec:
    return _spec(
        "ising_checkerboard", precision="int32",
        idiom="Ising Metropolis half-sweep: checkerboard site from a half-width NDRange, hash RNG, __constant table",
        sizes={"W": [128, 512, 2048, 8192], "H": [128, 512, 2048, 8192]}, check={"W": 50, "H": 38},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("color", "scalar", "int32", "1"), Arg("seed", "scalar", "uint32", "2654435769"),
              Arg("accept", "buffer", "float32", "2"), Arg("spin", "buffer", "int32", "W * H", "inout")],
        gsize=[round_up("W // 2", 32), round_up("H", 16)], local=L2, reference=_ref_ising,
        make_inputs=_inputs_ising)


def _inputs_xent(rng, sz):
    r, c = sz["R"], sz["C"]
    return {"logits": rng.normal(0.0, 3.0, r * c), "labels": rng.integers(0, c, r, dtype=np.int32)}


def _ref_xent(inp, sz):
    z = _f64(inp["logits"]).reshape(sz["R"], sz["C"])
    m = z.max(axis=1)
    lse = m + np.log(np.exp(z - m[:, None]).sum(axis=1))
    return {"loss": lse - z[np.arange(sz["R"]), inp["labels"]]}


def xent_online_lse() -> KernelSpec:
    return _spec(
        "xent_online_lse", idiom="cross-entropy per row: one item a row, online log-sum-exp with rescale branch, label gather",
        sizes={"R": pow2(8, 20, 2), "C": [10, 100, 1000]}, check={"R": 300, "C": 37},
        constraints=["R * C <= 2**25"],
        args=[Arg("rows", "scalar", "int32", "R"), Arg("classes", "scalar", "int32", "C"),
              Arg("logits", "buffer", "float32", "R * C"), Arg("labels", "buffer", "int32", "R"),
              Arg("loss", "buffer", "float32", "R", "out")],
        gsize=[round_up("R")], local=[[256], [64]], reference=_ref_xent, make_inputs=_inputs_xent, tol=SUMS)


#: this group's builders, in the order of ``specs()``
BUILDERS = (lorenz_rk4_fp64, gray_scott_step, mc_disc_lcg_local, batchnorm_relu_nchw, ising_checkerboard,
            xent_online_lse)
