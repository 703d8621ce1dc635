"""Holdout kernels: streaming element-wise work, reductions, scans and normalisation."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2

# streaming, element-wise
def _ref_triad(inp, sz):
    return {"a": _f64(inp["b"]) + float(inp["q"]) * _f64(inp["c"])}


def stream_triad_float4() -> KernelSpec:
    return _spec(
        "stream_triad_float4", idiom="STREAM triad on float4 vectors, size_t index",
        sizes={"n": pow2(10, 24, 2)}, check={"n": 4096},
        args=[Arg("a", "buffer", "float32", "4 * n", "out"), Arg("b", "buffer", "float32", "4 * n"),
              Arg("c", "buffer", "float32", "4 * n"), Arg("q", "scalar", "float32", "3.0")],
        gsize=["n"], local=L1, reference=_ref_triad)


def _ref_saxpy(inp, sz):
    return {"y": float(inp["a"]) * _f64(inp["x"]) + _f64(inp["y"])}


def saxpy_gridstride() -> KernelSpec:
    return _spec(
        "saxpy_gridstride", idiom="SAXPY with a grid-stride loop over a capped NDRange",
        sizes={"n": pow2(10, 24, 2)}, check={"n": 70000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("a", "scalar", "float32", "2.0"),
              Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "inout")],
        gsize=["min(n // 512 * 512, 65536)"], local=[[256], [128], [512]], reference=_ref_saxpy,
        constraints=["n >= 512"])


def _ref_cmul(inp, sz):
    a = inp["a"][0::2] + 1j * _f64(inp["a"][1::2])
    b = inp["b"][0::2] + 1j * _f64(inp["b"][1::2])
    z = float(inp["scale"]) * a * np.conj(b)
    out = np.empty(2 * z.size)
    out[0::2], out[1::2] = z.real, z.imag
    return {"out": out}


def complex_conj_mul_float2() -> KernelSpec:
    return _spec(
        "complex_conj_mul_float2", idiom="complex a * conj(b) on float2 through a helper function",
        sizes={"n": pow2(10, 25, 3)}, check={"n": 4992},
        args=[Arg("scale", "scalar", "float32", "0.25"), Arg("a", "buffer", "float32", "2 * n"),
              Arg("b", "buffer", "float32", "2 * n"), Arg("out", "buffer", "float32", "2 * n", "out")],
        gsize=["n"], local=[[256], [128], [64]], reference=_ref_cmul,
        constraints=["n % 8 == 0"])


def _ref_conv3(inp, sz):
    x = _f64(inp["x"])
    w = _f64(inp["w"])
    pad = np.concatenate([[0.0], x, [0.0]])
    return {"y": w[0] * pad[:-2] + w[1] * pad[1:-1] + w[2] * pad[2:]}


def conv3_constant() -> KernelSpec:
    return _spec(
        "conv3_constant", idiom="3-tap 1-D convolution, taps in __constant memory, zero boundary",
        sizes={"n": pow2(10, 26, 2)}, check={"n": 4096},
        args=[Arg("n", "scalar", "int32", "n"), Arg("w", "buffer", "float32", "3"),
              Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "out")],
        gsize=["n"], local=L1, reference=_ref_conv3)


def _cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.39894228040143267794 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def _ref_bs(inp, sz):
    s, x, t = _f64(inp["spot"]), _f64(inp["strike"]), _f64(inp["years"])
    r, v = float(inp["rate"]), float(inp["vol"])
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    return {"call": s * _cnd(d1) - x * np.exp(-r * t) * _cnd(d2)}


def _inputs_bs(rng, sz):
    n = sz["n"]
    return {"spot": rng.uniform(5.0, 30.0, n), "strike": rng.uniform(1.0, 100.0, n),
            "years": rng.uniform(0.25, 10.0, n)}


def bs_call_poly_cnd() -> KernelSpec:
    return _spec(
        "bs_call_poly_cnd", idiom="Black-Scholes call, Abramowitz-Stegun polynomial CND helper with a branch",
        sizes={"n": pow2(10, 24, 2)}, check={"n": 4096},
        args=[Arg("n", "scalar", "int32", "n"), Arg("rate", "scalar", "float32", "0.02"),
              Arg("vol", "scalar", "float32", "0.30"), Arg("spot", "buffer", "float32", "n"),
              Arg("strike", "buffer", "float32", "n"), Arg("years", "buffer", "float32", "n"),
              Arg("call", "buffer", "float32", "n", "out")],
        gsize=["n"], local=L1, reference=_ref_bs, make_inputs=_inputs_bs, tol=(1e-4, 2e-4))


def _ref_horner(inp, sz):
    x = inp["x"]
    c = inp["coef"]
    acc = np.full_like(x, c[-1])
    for d in range(c.size - 2, -1, -1):
        acc = acc * x + c[d]
    return {"y": acc}


def _inputs_horner(rng, sz):
    d = sz["D"]
    return {"coef": rng.uniform(-1.0, 1.0, d + 1) / np.arange(1, d + 2)}


def horner_fp64() -> KernelSpec:
    return _spec(
        "horner_fp64", precision="fp64", idiom="Horner's rule with fma, fp64, coefficients in __constant",
        sizes={"n": pow2(10, 24, 2), "D": [4, 32, 256]}, check={"n": 4096, "D": 19},
        constraints=["n * D <= 2**28"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("degree", "scalar", "int32", "D"),
              Arg("coef", "buffer", "float64", "D + 1"), Arg("x", "buffer", "float64", "n"),
              Arg("y", "buffer", "float64", "n", "out")],
        gsize=["n"], local=L1, reference=_ref_horner, make_inputs=_inputs_horner, tol=FP64)


# ---------------------------------------------------------------------------------------------
# reductions, scans, normalisation
def _ref_reduce(inp, sz):
    return {"partial": _f64(inp["in"]).reshape(-1, 256).sum(axis=1)}


def reduce_interleaved_mod() -> KernelSpec:
    return _spec(
        "reduce_interleaved_mod", idiom="tree reduction, interleaved addressing with tid % (2s), fixed 256 block",
        sizes={"n": pow2(12, 26, 2)}, check={"n": 8192},
        args=[Arg("in", "buffer", "float32", "n"), Arg("partial", "buffer", "float32", "n // 256", "out")],
        gsize=["n"], local=[[256]], reference=_ref_reduce, tol=(1e-4, 1e-4))


def _ref_blelloch(inp, sz):
    blocks = inp["in"].astype(np.int64).reshape(-1, 256)
    incl = np.cumsum(blocks, axis=1)
    return {"out": incl - blocks, "sums": incl[:, -1]}


def scan_blelloch_cf_uint() -> KernelSpec:
    return _spec(
        "scan_blelloch_cf_uint", precision="uint32", idiom="Blelloch block scan, uint, bank-conflict-free padding macro",
        sizes={"n": pow2(12, 26, 2)}, check={"n": 4096},
        args=[Arg("in", "buffer", "uint32", "n"), Arg("out", "buffer", "uint32", "n", "out"),
              Arg("sums", "buffer", "uint32", "n // 256", "out")],
        gsize=["n // 2"], local=[[128]], reference=_ref_blelloch)


def _ref_scan1(inp, sz):
    return {"out": np.cumsum(inp["in"].astype(np.int64)) % 2**32}


def scan_single_workgroup() -> KernelSpec:
    return _spec(
        "scan_single_workgroup", precision="uint32", idiom="whole-array scan by one work-group, chunk loop with carry",
        sizes={"n": [2**10, 2**14, 2**18, 2**22, 2**24]}, check={"n": 5000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("in", "buffer", "uint32", "n"),
              Arg("out", "buffer", "uint32", "n", "out")],
        gsize=["256"], local=[[256]], reference=_ref_scan1)


def _ref_layernorm(inp, sz):
    rows, cols = sz["rows"], sz["cols"]
    x = _f64(inp["x"]).reshape(rows, cols)
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + float(inp["eps"]))
    return {"out": _f64(inp["gamma"]) * y + _f64(inp["beta"])}


def layernorm_welford_row() -> KernelSpec:
    return _spec(
        "layernorm_welford_row", idiom="layer norm, one work-item per row, single-pass Welford mean/variance",
        sizes={"rows": [256, 2048, 16384, 65536], "cols": [64, 512, 4096]}, check={"rows": 192, "cols": 300},
        constraints=["rows * cols <= 2**26"],
        args=[Arg("rows", "scalar", "int32", "rows"), Arg("cols", "scalar", "int32", "cols"),
              Arg("eps", "scalar", "float32", "0.00001"), Arg("x", "buffer", "float32", "rows * cols"),
              Arg("gamma", "buffer", "float32", "cols"), Arg("beta", "buffer", "float32", "cols"),
              Arg("out", "buffer", "float32", "rows * cols", "out")],
        gsize=["rows"], local=[[64], [128], [32]], reference=_ref_layernorm, tol=SUMS)


def _ref_softmax0(inp, sz):
    x = _f64(inp["logits"]).reshape(sz["rows"], sz["cols"])
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return {"prob": e / e.sum(axis=0, keepdims=True)}


def _inputs_softmax(rng, sz):
    return {"logits": 3.0 * rng.standard_normal(sz["rows"] * sz["cols"], dtype=np.float32)}


def softmax_axis0() -> KernelSpec:
    return _spec(
        "softmax_axis0", idiom="softmax down the columns, one work-item per column, max-subtraction, 3 passes",
        sizes={"rows": [16, 128, 1024, 8192], "cols": [256, 4096, 65536]}, check={"rows": 50, "cols": 384},
        constraints=["rows * cols <= 2**25"],
        args=[Arg("rows", "scalar", "int32", "rows"), Arg("cols", "scalar", "int32", "cols"),
              Arg("logits", "buffer", "float32", "rows * cols"), Arg("prob", "buffer", "float32", "rows * cols", "out")],
        gsize=["cols"], local=[[128], [256], [64]], reference=_ref_softmax0, make_inputs=_inputs_softmax,
        tol=(1e-4, 1e-6))


