"""Holdout2 kernels: sparse and graph steps, small dense solves, iterative solvers and ML building blocks."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, pow2, round_up

INF = 0x3FFFFFFF


def _inputs_dia(rng, sz):
    others = rng.choice(np.r_[-1024:0, 1:1025], sz["D"] - 1, replace=False)
    return {"offsets": np.sort(np.r_[others, 0]).astype(np.int32)}


def _ref_dia(inp, sz):
    n = sz["n"]
    data = _f64(inp["data"]).reshape(sz["D"], n)
    x = _f64(inp["x"])
    y = np.zeros(n)
    rows = np.arange(n)
    for d, off in enumerate(inp["offsets"]):
        col = rows + int(off)
        ok = (col >= 0) & (col < n)
        y[ok] += data[d, ok] * x[col[ok]]
    return {"y": y}


def dia_spmv() -> KernelSpec:
    return _spec(
        "dia_spmv", idiom="SpMV in DIA format: runtime loop over diagonals, offset array, bounds test per entry",
        sizes={"n": pow2(12, 24, 2), "D": [3, 9, 27]}, check={"n": 3000, "D": 7}, constraints=["n * D <= 2**26"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("ndiag", "scalar", "int32", "D"),
              Arg("offsets", "buffer", "int32", "D"), Arg("data", "buffer", "float32", "D * n"),
              Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_dia, make_inputs=_inputs_dia, tol=SUMS)


def _inputs_graph(rng, sz):
    n = sz["n"]
    dist = np.where(rng.random((n, n)) < 0.3, rng.integers(1, 100, (n, n)), INF)
    np.fill_diagonal(dist, 0)
    return {"dist": dist.astype(np.int32)}


def _ref_floyd(inp, sz):
    n, k = sz["n"], int(inp["k"])
    d = inp["dist"].reshape(n, n).astype(np.int64)
    dik, dkj = d[:, k:k + 1], d[k:k + 1, :]
    through = dik + dkj
    return {"dist": np.where((dik < INF) & (dkj < INF) & (through < d), through, d)}


def floyd_warshall_k() -> KernelSpec:
    return _spec(
        "floyd_warshall_k", precision="int32", idiom="Floyd-Warshall step k in place, int32 with an INF sentinel",
        sizes={"n": pow2(6, 13)}, check={"n": 48},
        args=[Arg("n", "scalar", "int32", "n"), Arg("k", "scalar", "int32", "n // 3"),
              Arg("dist", "buffer", "int32", "n * n", "inout")],
        gsize=["n", "n"], local=L2 + [[64, 4]], reference=_ref_floyd, make_inputs=_inputs_graph)


def _inputs_mat3(rng, sz):
    a = np.eye(3) * 3.0 + rng.uniform(-1.0, 1.0, (sz["n"], 3, 3))
    sing = rng.random(sz["n"]) < 0.125
    a[sing, 2] = a[sing, 0] + a[sing, 1]  # exactly dependent rows
    return {"a": a.reshape(-1)}


def _ref_mat3(inp, sz):
    s = inp["a"].reshape(-1, 9).T
    c00, c01, c02 = s[4] * s[8] - s[5] * s[7], s[5] * s[6] - s[3] * s[8], s[3] * s[7] - s[4] * s[6]
    det = s[0] * c00 + s[1] * c01 + s[2] * c02
    sing = np.abs(det) < float(inp["eps"])
    r = 1.0 / np.where(sing, 1.0, det)
    inv = np.stack([c00, s[2] * s[7] - s[1] * s[8], s[1] * s[5] - s[2] * s[4],
                    c01, s[0] * s[8] - s[2] * s[6], s[2] * s[3] - s[0] * s[5],
                    c02, s[1] * s[6] - s[0] * s[7], s[0] * s[4] - s[1] * s[3]]) * r
    return {"inv": np.where(sing, 0.0, inv).T, "singular": sing.astype(np.int32)}


def mat3x3_inverse_fp64() -> KernelSpec:
    return _spec(
        "mat3x3_inverse_fp64", precision="fp64", idiom="batched 3x3 inverse by cofactors, pointer offsets, singular branch",
        sizes={"n": pow2(8, 22, 2)}, check={"n": 1000},
        args=[Arg("nmat", "scalar", "int32", "n"), Arg("eps", "scalar", "float64", "1e-9"),
              Arg("a", "buffer", "float64", "9 * n"), Arg("inv", "buffer", "float64", "9 * n", "out"),
              Arg("singular", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_mat3, make_inputs=_inputs_mat3, tol=FP64)


def _inputs_cubic(rng, sz):
    n = sz["n"]
    return {"p": 10.0 ** rng.uniform(-6.0, 0.0, n), "q": rng.uniform(-1000.0, 1000.0, n)}


def _ref_newton(inp, sz):
    p, q, tol = inp["p"], inp["q"], float(inp["tol"])
    x = np.zeros_like(p)
    it = np.zeros(p.size, dtype=np.int64)
    live = np.ones(p.size, dtype=bool)
    for _ in range(int(inp["max_iter"])):
        if not live.any():
            break
        step = ((x * x + p) * x + q) / (3.0 * x * x + p)
        x = np.where(live, x - step, x)
        it += live
        live &= ~(np.abs(step) <= tol * (1.0 + np.abs(x)))
    return {"root": x, "iters": it}


def newton_cubic_fp64() -> KernelSpec:
    return _spec(
        "newton_cubic_fp64", precision="fp64", idiom="Newton iterations, do-while exit on data-dependent convergence, fp64",
        sizes={"n": pow2(10, 22, 2), "M": [8, 100]}, check={"n": 4096, "M": 100},
        args=[Arg("n", "scalar", "int32", "n"), Arg("max_iter", "scalar", "int32", "M"),
              Arg("tol", "scalar", "float64", "1e-12"), Arg("p", "buffer", "float64", "n"),
              Arg("q", "buffer", "float64", "n"), Arg("root", "buffer", "float64", "n", "out"),
              Arg("iters", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_newton, make_inputs=_inputs_cubic, tol=FP64)


def _inputs_tridiag(rng, sz):
    m = sz["S"] * sz["N"]
    return {"a": rng.uniform(-1.0, 1.0, m), "b": 4.0 + rng.random(m), "c": rng.uniform(-1.0, 1.0, m)}


def _ref_tridiag(inp, sz):
    s, n = sz["S"], sz["N"]
    a, b, c, d = (_f64(inp[k]).reshape(s, n) for k in "abcd")
    cp, dp, x = np.zeros((s, n)), np.zeros((s, n)), np.zeros((s, n))
    cp[:, 0], dp[:, 0] = c[:, 0] / b[:, 0], d[:, 0] / b[:, 0]
    for i in range(1, n):  # Thomas algorithm, all systems at once
        m = b[:, i] - a[:, i] * cp[:, i - 1]
        cp[:, i], dp[:, i] = c[:, i] / m, (d[:, i] - a[:, i] * dp[:, i - 1]) / m
    x[:, -1] = dp[:, -1]
    for i in range(n - 2, -1, -1):
        x[:, i] = dp[:, i] - cp[:, i] * x[:, i + 1]
    return {"x": x}


def pcr_tridiag_local() -> KernelSpec:
    return _spec(
        "pcr_tridiag_local", idiom="parallel cyclic reduction, systems side by side in 4 launch-sized __local arrays",
        sizes={"N": [32, 64, 128, 256], "S": [4, 64, 1024, 16384, 131072]}, check={"N": 32, "S": 24},
        constraints=["l0 % N == 0", "S * N <= 2**24"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("a", "buffer", "float32", "S * N"),
              Arg("b", "buffer", "float32", "S * N"), Arg("c", "buffer", "float32", "S * N"),
              Arg("d", "buffer", "float32", "S * N"), Arg("x", "buffer", "float32", "S * N", "out"),
              Arg("la", "local", "float32", "l0"), Arg("lb", "local", "float32", "l0"),
              Arg("lc", "local", "float32", "l0"), Arg("ld", "local", "float32", "l0")],
        gsize=["S * N"], local=[[256], [128], [64]], reference=_ref_tridiag, make_inputs=_inputs_tridiag,
        tol=(1e-4, 1e-5))


def _inputs_bags(rng, sz):
    return {"indices": rng.integers(0, sz["V"], sz["B"] * sz["L"], dtype=np.int32)}


def _ref_bags(inp, sz):
    table = _f64(inp["table"]).reshape(sz["V"], sz["D"])
    return {"out": table[inp["indices"].reshape(sz["B"], sz["L"])].sum(axis=1)}


def embedding_bag_sum() -> KernelSpec:
    return _spec(
        "embedding_bag_sum", idiom="embedding-bag sum: table rows gathered through an index list, bag-length loop",
        sizes={"D": [16, 64, 256], "B": [64, 1024, 16384], "L": [4, 32, 128], "V": [65536]},
        check={"D": 16, "B": 32, "L": 9, "V": 1000}, constraints=["B * L * D <= 2**26"],
        args=[Arg("dim", "scalar", "int32", "D"), Arg("bag_len", "scalar", "int32", "L"),
              Arg("indices", "buffer", "int32", "B * L"), Arg("table", "buffer", "float32", "V * D"),
              Arg("out", "buffer", "float32", "B * D", "out")],
        gsize=["D", "B"], local=[[16, 16], [64, 4]], reference=_ref_bags, make_inputs=_inputs_bags, tol=SUMS)


def _inputs_adam(rng, sz):
    n = sz["n"]
    return {"m": rng.uniform(-0.1, 0.1, n), "v": rng.uniform(0.0, 0.01, n)}


def _ref_adam(inp, sz):
    g = _f64(inp["grad"])
    b1, b2 = float(inp["beta1"]), float(inp["beta2"])
    m = b1 * _f64(inp["m"]) + (1.0 - b1) * g
    v = b2 * _f64(inp["v"]) + (1.0 - b2) * g * g
    step = float(inp["lr"]) * (m / float(inp["bc1"])) / (np.sqrt(v / float(inp["bc2"])) + float(inp["eps"]))
    return {"param": _f64(inp["param"]) - step, "m": m, "v": v}


def adam_step() -> KernelSpec:
    return _spec(
        "adam_step", idiom="Adam optimiser step: three in-place streams, one read-only, sqrt and divisions",
        sizes={"n": pow2(10, 24, 2) + [2**25]}, check={"n": 5000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("lr", "scalar", "float32", "0.001"),
              Arg("beta1", "scalar", "float32", "0.9"), Arg("beta2", "scalar", "float32", "0.999"),
              Arg("eps", "scalar", "float32", "1e-8"), Arg("bc1", "scalar", "float32", "0.6513215599"),
              Arg("bc2", "scalar", "float32", "0.00995511979"), Arg("param", "buffer", "float32", "n", "inout"),
              Arg("grad", "buffer", "float32", "n"), Arg("m", "buffer", "float32", "n", "inout"),
              Arg("v", "buffer", "float32", "n", "inout")],
        gsize=[round_up("n")], local=L1, reference=_ref_adam, make_inputs=_inputs_adam, tol=(1e-5, 1e-6))


def _ref_rope(inp, sz):
    half, rows = sz["P"], sz["R"]
    x = _f64(inp["x"]).reshape(rows, half, 2)
    pos = (np.arange(rows) % int(inp["seq_len"]))[:, None]
    angle = pos * np.exp(-float(inp["log_base"]) * (2.0 * np.arange(half)) / (2.0 * half))[None, :]
    c, s = np.cos(angle), np.sin(angle)
    return {"x": np.stack([x[..., 0] * c - x[..., 1] * s, x[..., 0] * s + x[..., 1] * c], axis=-1)}


def rope_rotary() -> KernelSpec:
    return _spec(
        "rope_rotary", idiom="rotary position embedding in place on float2 pairs, exp/cos/sin per item, row % seq_len",
        sizes={"P": [16, 32, 64], "R": [64, 1024, 16384, 131072, 262144, 524288]}, check={"P": 16, "R": 48},
        constraints=["P * R <= 2**24"],
        args=[Arg("half_dim", "scalar", "int32", "P"), Arg("seq_len", "scalar", "int32", "2048"),
              Arg("log_base", "scalar", "float32", "9.210340372"), Arg("x", "buffer", "float32", "2 * P * R", "inout")],
        gsize=["P", "R"], local=L2, reference=_ref_rope, tol=(1e-4, 1e-5))


def _ref_im2col(inp, sz):
    s, c, k = sz["S"], sz["C"], sz["K"]
    pad = int(inp["pad"])
    img = np.pad(_f64(inp["img"]).reshape(c, s, s), ((0, 0), (pad, pad), (pad, pad)))
    cols = np.stack([img[:, ky:ky + s, kx:kx + s] for ky in range(k) for kx in range(k)], axis=1)
    return {"cols": cols}


def im2col_pad() -> KernelSpec:
    return _spec(
        "im2col_pad", idiom="im2col with zero padding on a 3-D NDRange (x, y, channel), k*k scattered writes per item",
        sizes={"S": [16, 64, 256, 512], "C": [4, 16, 64], "K": [3, 5]}, check={"S": 24, "C": 4, "K": 3},
        constraints=["C * K * K * S * S <= 2**26"],
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "S"),
              Arg("ksize", "scalar", "int32", "K"), Arg("pad", "scalar", "int32", "K // 2"),
              Arg("img", "buffer", "float32", "C * S * S"),
              Arg("cols", "buffer", "float32", "C * K * K * S * S", "out")],
        gsize=["S", "S", "C"], local=[[16, 16, 1], [8, 8, 4]], reference=_ref_im2col)
