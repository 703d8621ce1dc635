"""The hand-written holdout kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data), written once by hand in the style
of an ordinary user, not generated from a template. Sizes are chosen so that the set spans roughly
5 us to 100 ms on an H200 while the slowest launch of every kernel stays within a few seconds on
a two-core CPU through PoCL (the campaign's per-launch timeout is 60 s for warm-up + 3 repeats).
Where runtime does not grow with the product of the size parameters alone, a ``constraints``
bound (e.g. ``N * K * D <= 2**28``) keeps the largest point in check.
"""
from __future__ import annotations

from importlib import resources

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

PREFIX = "holdout"

#: Tolerances: element-wise float32 results, float32 sums over up to a few thousand terms,
#: and float64.
ELEMWISE = (1e-5, 1e-6)
SUMS = (1e-3, 1e-4)
FP64 = (1e-9, 1e-11)

L1 = [[256], [128], [64]]
L2 = [[16, 16], [32, 8], [64, 4]]


def source_of(name: str) -> str:
    """The text of ``cl/<name>.cl``."""
    return resources.files(__package__).joinpath("cl", f"{name}.cl").read_text(encoding="utf-8")


def pow2(lo: int, hi: int, step: int = 1) -> list[int]:
    return [2**e for e in range(lo, hi + 1, step)]


def _spec(name, *, sizes, check, args, gsize, local, reference, make_inputs=None, constraints=(),
          tol=ELEMWISE, precision="fp32", idiom="") -> KernelSpec:
    return KernelSpec(
        kernel_id=f"{PREFIX}.{name}", family=f"{PREFIX}.{name}",
        variant={"precision": precision, "idiom": idiom}, kernel_name=name, source=source_of(name),
        sizes=sizes, check_sizes=check, constraints=list(constraints), args=args, global_size=gsize,
        local_sizes=local, reference=reference, make_inputs=make_inputs, rtol=tol[0], atol=tol[1],
        tags=[PREFIX])


def _f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# dense linear algebra
def _ref_syrk(inp, sz):
    n, k = sz["N"], sz["K"]
    a = _f64(inp["a"]).reshape(k, n)
    full = a.T @ a
    rows, cols = np.tril_indices(n)
    return {"cp": float(inp["alpha"]) * full[rows, cols] + float(inp["beta"]) * _f64(inp["cp"])}


def syrk_packed_lower() -> KernelSpec:
    return _spec(
        "syrk_packed_lower", idiom="SYRK A^T A into packed lower storage, (i, j) from sqrt of the packed index",
        sizes={"N": [64, 128, 256, 512, 1024], "K": [16, 64, 256, 1024]}, check={"N": 72, "K": 40},
        constraints=["N * N * K <= 2**29"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("k", "scalar", "int32", "K"),
              Arg("alpha", "scalar", "float32", "1.5"), Arg("beta", "scalar", "float32", "0.5"),
              Arg("a", "buffer", "float32", "K * N"), Arg("cp", "buffer", "float32", "N * (N + 1) // 2", "inout")],
        gsize=["(N * (N + 1) // 2 + 255) // 256 * 256"], local=L1, reference=_ref_syrk, tol=SUMS)


def _inputs_trsm(rng, sz):
    n, r = sz["N"], sz["R"]
    low = np.tril(rng.uniform(-1.0, 1.0, (n, n)), -1) / n
    low[np.diag_indices(n)] = rng.uniform(1.0, 2.0, n)
    return {"L": low.T.reshape(-1), "B": rng.uniform(-1.0, 1.0, r * n)}  # column-major both


def _ref_trsm(inp, sz):
    n, r = sz["N"], sz["R"]
    low = inp["L"].reshape(n, n).T
    rhs = inp["B"].reshape(r, n).T
    return {"B": np.linalg.solve(low, rhs).T.reshape(-1)}


def trsm_colwise() -> KernelSpec:
    return _spec(
        "trsm_colwise", precision="fp64", idiom="column-oriented forward substitution, one RHS per item, fp64 col-major",
        sizes={"N": [128, 512, 2048, 4096], "R": [16, 64, 256]}, check={"N": 96, "R": 32},
        constraints=["N * N * R <= 2**30"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("nrhs", "scalar", "int32", "R"),
              Arg("L", "buffer", "float64", "N * N"), Arg("B", "buffer", "float64", "N * R", "inout")],
        gsize=["R"], local=[[16], [32], [64]], reference=_ref_trsm, make_inputs=_inputs_trsm, tol=(1e-9, 1e-10))


def _ref_sgemm(inp, sz):
    m, n, k = sz["M"], sz["N"], sz["K"]
    return {"C": _f64(inp["A"]).reshape(m, k) @ _f64(inp["B"]).reshape(k, n)}


def sgemm_reg4x4() -> KernelSpec:
    return _spec(
        "sgemm_reg4x4", idiom="4x4 register-blocked SGEMM from global memory, float4 rows of B",
        sizes={"M": [64, 256, 1024, 2048], "N": [64, 256, 1024, 2048], "K": [64, 256, 1024]},
        check={"M": 128, "N": 64, "K": 48}, constraints=["M * N * K <= 2**31"],
        args=[Arg("M", "scalar", "int32", "M"), Arg("N", "scalar", "int32", "N"), Arg("K", "scalar", "int32", "K"),
              Arg("A", "buffer", "float32", "M * K"), Arg("B", "buffer", "float32", "K * N"),
              Arg("C", "buffer", "float32", "M * N", "out")],
        gsize=["N // 4", "M // 4"], local=[[16, 16], [8, 8], [16, 4]], reference=_ref_sgemm, tol=SUMS)


def _ref_lu(inp, sz):
    n = sz["N"]
    k = int(inp["k"])
    a = _f64(inp["a"]).reshape(n, n).copy()
    l = a[k + 1:, k] / a[k, k]
    a[k + 1:, k + 1:] -= np.outer(l, a[k, k + 1:])
    return {"a": a}


def _inputs_lu(rng, sz):
    n = sz["N"]
    a = rng.random((n, n), dtype=np.float32) * 2.0 - 1.0
    a[np.diag_indices(n)] += 4.0  # a usable pivot
    return {"a": a}


def lu_rank1_update() -> KernelSpec:
    return _spec(
        "lu_rank1_update", idiom="right-looking LU step k: guarded rank-1 update of the trailing block",
        sizes={"N": [128, 512, 2048, 8192]}, check={"N": 96},
        args=[Arg("n", "scalar", "int32", "N"), Arg("k", "scalar", "int32", "N // 3"),
              Arg("a", "buffer", "float32", "N * N", "inout")],
        gsize=["N", "N"], local=[[16, 16], [32, 8]], reference=_ref_lu, make_inputs=_inputs_lu, tol=(1e-5, 1e-5))


def _ref_dgemm(inp, sz):
    m, n, k = sz["M"], sz["N"], sz["K"]
    a = inp["A"].reshape(k, m).T  # column-major
    b = inp["B"].reshape(n, k).T
    c = inp["C"].reshape(n, m).T
    out = float(inp["alpha"]) * (a @ b) + float(inp["beta"]) * c
    return {"C": out.T.reshape(-1)}


def dgemm_colmajor_naive() -> KernelSpec:
    return _spec(
        "dgemm_colmajor_naive", precision="fp64", idiom="naive DGEMM, BLAS column-major, IDX macro",
        sizes={"M": [32, 128, 512, 1024], "N": [32, 128, 512, 1024], "K": [32, 128, 512, 1024]},
        check={"M": 64, "N": 48, "K": 40}, constraints=["M * N * K <= 2**27"],
        args=[Arg("m", "scalar", "int32", "M"), Arg("n", "scalar", "int32", "N"), Arg("k", "scalar", "int32", "K"),
              Arg("alpha", "scalar", "float64", "0.75"), Arg("beta", "scalar", "float64", "-0.5"),
              Arg("A", "buffer", "float64", "M * K"), Arg("B", "buffer", "float64", "K * N"),
              Arg("C", "buffer", "float64", "M * N", "inout")],
        gsize=["M", "N"], local=[[32, 4], [16, 16], [64, 1]], reference=_ref_dgemm, tol=FP64)


def _ref_gemv(inp, sz):
    m, n = sz["M"], sz["N"]
    y = float(inp["alpha"]) * (_f64(inp["A"]).reshape(m, n) @ _f64(inp["x"])) + float(inp["beta"]) * _f64(inp["y"])
    return {"y": y}


def gemv_group_row_vload4() -> KernelSpec:
    return _spec(
        "gemv_group_row_vload4", idiom="GEMV, one work-group per row, vload4 + dot, launch-sized __local buffer",
        sizes={"M": [256, 2048, 16384], "N": [256, 2048, 16384]}, check={"M": 24, "N": 1000},
        constraints=["N % 4 == 0"],
        args=[Arg("m", "scalar", "int32", "M"), Arg("n", "scalar", "int32", "N"),
              Arg("alpha", "scalar", "float32", "2.0"), Arg("beta", "scalar", "float32", "0.5"),
              Arg("A", "buffer", "float32", "M * N"), Arg("x", "buffer", "float32", "N"),
              Arg("y", "buffer", "float32", "M", "inout"), Arg("red", "local", "float32", "l0")],
        gsize=["M * 128"], local=[[128]], reference=_ref_gemv, tol=SUMS)


# ---------------------------------------------------------------------------------------------
# sparse, irregular, integer
def _inputs_csr(rng, sz):
    m, r = sz["M"], sz["R"]
    wobble = rng.integers(0, r // 2 + 1, m)
    lengths = r + wobble - np.roll(wobble, 1)  # between R/2 and 3R/2, summing to exactly M*R
    rowptr = np.zeros(m + 1, dtype=np.int32)
    np.cumsum(lengths, out=rowptr[1:])
    return {"rowptr": rowptr, "colidx": rng.integers(0, m, m * r, dtype=np.int32),
            "vals": rng.uniform(-1.0, 1.0, m * r).astype(np.float32)}


def _ref_csr(inp, sz):
    m = sz["M"]
    rows = np.repeat(np.arange(m), np.diff(inp["rowptr"]))
    prod = _f64(inp["vals"]) * _f64(inp["x"])[inp["colidx"]]
    return {"y": np.bincount(rows, weights=prod, minlength=m)}


def spmv_csr_group_row() -> KernelSpec:
    return _spec(
        "spmv_csr_group_row", idiom="CSR SpMV, one work-group per row, __local tree reduction sized at launch",
        sizes={"M": [1024, 8192, 65536, 262144], "R": [8, 32, 128]}, check={"M": 300, "R": 24},
        constraints=["M * R <= 2**24"],
        args=[Arg("nrows", "scalar", "int32", "M"), Arg("rowptr", "buffer", "int32", "M + 1"),
              Arg("colidx", "buffer", "int32", "M * R"), Arg("vals", "buffer", "float32", "M * R"),
              Arg("x", "buffer", "float32", "M"), Arg("y", "buffer", "float32", "M", "out"),
              Arg("scratch", "local", "float32", "l0")],
        gsize=["M * 64"], local=[[64]], reference=_ref_csr, make_inputs=_inputs_csr, tol=SUMS)


def _inputs_gather(rng, sz):
    n = sz["n"]
    return {"gather": rng.integers(0, n, n, dtype=np.int32), "dst": rng.permutation(n).astype(np.int32)}


def _ref_gather(inp, sz):
    out = np.zeros(sz["n"])
    out[inp["dst"]] = float(inp["scale"]) * _f64(inp["src"])[inp["gather"]]
    return {"out": out}


def gather_scatter_perm() -> KernelSpec:
    return _spec(
        "gather_scatter_perm", idiom="indirect gather through one index array, scatter through a permutation",
        sizes={"n": pow2(10, 24, 2)}, check={"n": 3000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("scale", "scalar", "float32", "0.5"),
              Arg("gather", "buffer", "int32", "n"), Arg("dst", "buffer", "int32", "n"),
              Arg("src", "buffer", "float32", "n"), Arg("out", "buffer", "float32", "n", "out")],
        gsize=["(n + 255) // 256 * 256"], local=[[256], [128]], reference=_ref_gather, make_inputs=_inputs_gather)


def _inputs_hist(rng, sz):
    # image-like bytes: skewed towards mid-grey, some saturation; a 4 MiB pattern repeated
    base = np.clip(rng.normal(110.0, 45.0, min(sz["n"], 2**22)), 0, 255).astype(np.uint8)
    return {"data": np.resize(base, sz["n"])}


def _ref_hist(inp, sz):
    return {"hist": np.bincount(inp["data"], minlength=256)}


def histogram256_uchar4() -> KernelSpec:
    return _spec(
        "histogram256_uchar4", precision="uint32", idiom="256-bin byte histogram, uchar4 reads, grid-stride, local atomics",
        sizes={"n": pow2(12, 26, 2)}, check={"n": 40000},
        constraints=["n % 4 == 0"],
        args=[Arg("n4", "scalar", "uint32", "n // 4"), Arg("data", "buffer", "uint8", "n"),
              Arg("hist", "buffer", "uint32", "256", "out")],
        gsize=["min((n // 4 + 255) // 256 * 256, 32768)"], local=L1, reference=_ref_hist,
        make_inputs=_inputs_hist)


def _bitonic_stage(keys, vals, k, j):
    keys, vals = keys.copy(), vals.copy()
    t = np.arange(keys.size // 2, dtype=np.int64)
    lo = 2 * j * (t // j) + t % j
    hi = lo + j
    asc = (lo & k) == 0
    klo, khi = keys[lo], keys[hi]
    swap = ((klo > khi) == asc) & (klo != khi)
    keys[lo[swap]], keys[hi[swap]] = khi[swap], klo[swap]
    vlo, vhi = vals[lo].copy(), vals[hi].copy()
    vals[lo[swap]], vals[hi[swap]] = vhi[swap], vlo[swap]
    return keys, vals


def _ref_bitonic(inp, sz):
    keys, vals = _bitonic_stage(inp["keys"], inp["vals"], int(inp["k"]), int(inp["j"]))
    return {"keys": keys, "vals": vals}


def _inputs_bitonic(rng, sz):
    n = sz["n"]
    return {"keys": rng.integers(0, 1000, n, dtype=np.uint32), "vals": np.arange(n, dtype=np.uint32)}


def bitonic_kv_halfcleaner() -> KernelSpec:
    return _spec(
        "bitonic_kv_halfcleaner", precision="uint32", idiom="bitonic stage on key/value pairs, pair index from t/j, t%j",
        sizes={"n": pow2(10, 26, 2)}, check={"n": 4096},
        args=[Arg("k", "scalar", "uint32", "n // 4"), Arg("j", "scalar", "uint32", "16"),
              Arg("keys", "buffer", "uint32", "n", "inout"), Arg("vals", "buffer", "uint32", "n", "inout")],
        gsize=["n // 2"], local=L1, reference=_ref_bitonic, make_inputs=_inputs_bitonic)


def _ref_xorshift(inp, sz):
    mask = np.uint64(0xFFFFFFFF)
    i = np.arange(inp["seed"].size, dtype=np.uint64)
    s = (inp["seed"].astype(np.uint64) ^ ((i * np.uint64(0x9E3779B9)) & mask)) & mask
    s[s == 0] = 0x6D2B79F5
    for r in range(int(inp["rounds"])):
        s ^= (s << np.uint64(13)) & mask
        s ^= s >> np.uint64(17)
        s ^= (s << np.uint64(5)) & mask
        s = (s * np.uint64(0x2C1B3C6D) + np.uint64(r)) & mask
    return {"out": s.astype(np.uint32)}


def xorshift_rounds() -> KernelSpec:
    return _spec(
        "xorshift_rounds", precision="uint32", idiom="integer hashing: xorshift32 rounds + multiplicative mix",
        sizes={"n": pow2(10, 24, 2), "R": [1, 16, 256]}, check={"n": 2048, "R": 37},
        constraints=["n * R <= 2**28"],
        args=[Arg("rounds", "scalar", "int32", "R"), Arg("seed", "buffer", "uint32", "n"),
              Arg("out", "buffer", "uint32", "n", "out")],
        gsize=["n"], local=L1, reference=_ref_xorshift)


def _inputs_collatz(rng, sz):
    return {"start": rng.integers(1, 2**20, sz["n"], dtype=np.uint32)}


def _ref_collatz(inp, sz):
    v = inp["start"].astype(np.uint64)
    steps = np.zeros(v.size, dtype=np.int64)
    live = v > 1
    while live.any():
        odd = (v & 1) == 1
        v = np.where(live & odd, 3 * v + 1, np.where(live, v >> np.uint64(1), v))
        steps += live
        live = (v > 1) & (steps < 10000)
    return {"steps": steps}


def collatz_steps() -> KernelSpec:
    return _spec(
        "collatz_steps", precision="uint32", idiom="data-dependent while loop (Collatz), 64-bit integers, divergence",
        sizes={"n": pow2(10, 22, 2)}, check={"n": 4096},
        args=[Arg("start", "buffer", "uint32", "n"), Arg("steps", "buffer", "uint32", "n", "out")],
        gsize=["n"], local=[[64], [128], [256]], reference=_ref_collatz, make_inputs=_inputs_collatz)


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
# images, grids, stencils
def _ref_sobel(inp, sz):
    w, h = sz["W"], sz["H"]
    img = np.pad(inp["src"].reshape(h, w).astype(np.int64), 1, mode="edge")
    p = lambda dy, dx: img[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]  # noqa: E731
    gx = -p(-1, -1) + p(-1, 1) - 2 * p(0, -1) + 2 * p(0, 1) - p(1, -1) + p(1, 1)
    gy = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1)
    return {"dst": np.minimum(np.abs(gx) + np.abs(gy), 255)}


def _inputs_image(rng, sz):
    h, w = sz["H"], sz["W"]
    rows = np.cos(np.arange(h, dtype=np.float32) / 11.0)
    cols = np.sin(np.arange(w, dtype=np.float32) / 7.0)
    img = 100.0 * np.outer(rows, cols) + 127.5
    img += 20.0 * rng.standard_normal((h, w), dtype=np.float32)
    return {"src": np.clip(img, 0, 255).astype(np.uint8)}


def sobel_l1_uchar() -> KernelSpec:
    return _spec(
        "sobel_l1_uchar", precision="uint8", idiom="Sobel |Gx|+|Gy| on uchar, clamp-to-edge pixel helper",
        sizes={"W": [64, 512, 2048, 8192], "H": [64, 512, 2048, 8192]}, check={"W": 96, "H": 80},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "uint8", "W * H"), Arg("dst", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_sobel, make_inputs=_inputs_image)


def _ref_gray(inp, sz):
    p = inp["rgba"].reshape(-1, 4).astype(np.int64)
    return {"gray": (77 * p[:, 0] + 150 * p[:, 1] + 29 * p[:, 2] + 128) >> 8}


def _inputs_rgba(rng, sz):
    return {"rgba": rng.integers(0, 256, 4 * sz["W"] * sz["H"], dtype=np.uint8)}


def rgba_to_gray_uchar4() -> KernelSpec:
    return _spec(
        "rgba_to_gray_uchar4", precision="uint8", idiom="RGBA uchar4 to luma with fixed-point integer weights",
        sizes={"W": [64, 512, 2048, 8192], "H": [64, 512, 2048, 8192]}, check={"W": 96, "H": 48},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("rgba", "buffer", "uint8", "4 * W * H"), Arg("gray", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_gray, make_inputs=_inputs_rgba)


def _ref_jacobi(inp, sz):
    nx, ny = sz["nx"], sz["ny"]
    u = _f64(inp["u"]).reshape(ny, nx)
    f = _f64(inp["f"]).reshape(ny, nx)
    out = u.copy()
    nb = u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1]
    out[1:-1, 1:-1] = 0.25 * (nb + float(inp["h2"]) * f[1:-1, 1:-1])
    return {"unew": out}


def jacobi5_poisson() -> KernelSpec:
    return _spec(
        "jacobi5_poisson", idiom="Jacobi sweep for 2-D Poisson, boundary items copy and leave",
        sizes={"nx": [64, 512, 4096, 8192], "ny": [64, 512, 4096, 8192]}, check={"nx": 96, "ny": 64},
        constraints=["nx * ny <= 2**26"],
        args=[Arg("nx", "scalar", "int32", "nx"), Arg("ny", "scalar", "int32", "ny"),
              Arg("h2", "scalar", "float32", "0.001"), Arg("u", "buffer", "float32", "nx * ny"),
              Arg("f", "buffer", "float32", "nx * ny"), Arg("unew", "buffer", "float32", "nx * ny", "out")],
        gsize=["nx", "ny"], local=[[16, 16], [32, 4], [64, 2]], reference=_ref_jacobi)


def _ref_gradient(inp, sz):
    nx, ny, nz = sz["X"], sz["Y"], sz["Z"]
    v = _f64(inp["vol"]).reshape(nz, ny, nx)
    gz, gy, gx = np.gradient(v)  # central inside, one-sided (unit step) on the faces
    return {"grad": float(inp["inv_h"]) * np.sqrt(gx * gx + gy * gy + gz * gz)}


def volume_gradient_3d() -> KernelSpec:
    return _spec(
        "volume_gradient_3d", idiom="3-D NDRange, central differences with clamped faces, gradient magnitude",
        sizes={"X": [16, 64, 256, 512], "Y": [16, 64, 256, 512], "Z": [16, 64, 256, 512]},
        check={"X": 32, "Y": 24, "Z": 20}, constraints=["X * Y * Z <= 2**26"],
        args=[Arg("nx", "scalar", "int32", "X"), Arg("ny", "scalar", "int32", "Y"), Arg("nz", "scalar", "int32", "Z"),
              Arg("inv_h", "scalar", "float32", "0.5"), Arg("vol", "buffer", "float32", "X * Y * Z"),
              Arg("grad", "buffer", "float32", "X * Y * Z", "out")],
        gsize=["X", "Y", "Z"], local=[[8, 8, 4], [16, 8, 2], [32, 4, 2]], reference=_ref_gradient, tol=(1e-5, 1e-5))


def _ref_transpose(inp, sz):
    return {"out": inp["in"].reshape(sz["R"], sz["C"]).T}


def transpose_tile32x8_uint() -> KernelSpec:
    return _spec(
        "transpose_tile32x8_uint", precision="uint32", idiom="32x32 tile with +1 padding moved by a 32x8 group, uint",
        sizes={"R": [64, 512, 2048, 8192], "C": [64, 512, 2048, 8192]}, check={"R": 96, "C": 64},
        constraints=["R % 32 == 0", "C % 32 == 0", "R * C <= 2**26"],
        args=[Arg("rows", "scalar", "int32", "R"), Arg("cols", "scalar", "int32", "C"),
              Arg("in", "buffer", "uint32", "R * C"), Arg("out", "buffer", "uint32", "R * C", "out")],
        gsize=["C", "R // 4"], local=[[32, 8]], reference=_ref_transpose)


# ---------------------------------------------------------------------------------------------
# particles, clustering, distances
def _inputs_nbody(rng, sz):
    n = sz["n"]
    pos = rng.uniform(-1.0, 1.0, (n, 4))
    pos[:, 3] = rng.uniform(0.5, 1.0, n) / n
    vel = rng.uniform(-0.1, 0.1, (n, 4))
    vel[:, 3] = 0.0
    return {"pos": pos.reshape(-1), "vel": vel.reshape(-1)}


def _ref_nbody(inp, sz):
    n = sz["n"]
    pos = _f64(inp["pos"]).reshape(n, 4)
    vel = _f64(inp["vel"]).reshape(n, 4)
    dt, eps2 = float(inp["dt"]), float(inp["eps2"])
    d = pos[None, :, :3] - pos[:, None, :3]
    inv = 1.0 / np.sqrt((d * d).sum(axis=2) + eps2)
    acc = (d * (pos[None, :, 3] * inv**3)[:, :, None]).sum(axis=1)
    v = vel.copy()
    v[:, :3] += acc * dt
    v[:, 3] = 0.0
    p = pos.copy()
    p[:, :3] += v[:, :3] * dt
    return {"pos_out": p, "vel_out": v}


def nbody_leapfrog_float4() -> KernelSpec:
    return _spec(
        "nbody_leapfrog_float4", idiom="all-pairs n-body on float4 with dot and rsqrt, kick-drift update",
        sizes={"n": [512, 1024, 2048, 4096, 8192]}, check={"n": 384},
        args=[Arg("n", "scalar", "int32", "n"), Arg("dt", "scalar", "float32", "0.01"),
              Arg("eps2", "scalar", "float32", "0.01"), Arg("pos", "buffer", "float32", "4 * n"),
              Arg("vel", "buffer", "float32", "4 * n"), Arg("pos_out", "buffer", "float32", "4 * n", "out"),
              Arg("vel_out", "buffer", "float32", "4 * n", "out")],
        gsize=["n"], local=[[128], [64], [256]], reference=_ref_nbody, make_inputs=_inputs_nbody, tol=(1e-4, 1e-5))


def _inputs_kmeans(rng, sz):
    n, k, d = sz["N"], sz["K"], sz["D"]
    centroids = rng.uniform(-10.0, 10.0, (k, d))
    label = rng.integers(0, k, n)
    points = centroids[label] + rng.normal(0.0, 0.01, (n, d))
    return {"points": points.reshape(-1), "centroids": centroids.reshape(-1)}


def _ref_kmeans(inp, sz):
    n, k, d = sz["N"], sz["K"], sz["D"]
    p = _f64(inp["points"]).reshape(n, 1, d)
    c = _f64(inp["centroids"]).reshape(1, k, d)
    return {"membership": ((p - c) ** 2).sum(axis=2).argmin(axis=1)}


def kmeans_assign() -> KernelSpec:
    return _spec(
        "kmeans_assign", precision="fp32", idiom="k-means assignment, runtime loops over K centroids and D dims, argmin",
        sizes={"N": [1024, 16384, 262144, 1048576], "K": [4, 16, 64], "D": [2, 8, 32]},
        check={"N": 2000, "K": 13, "D": 5}, constraints=["N * K * D <= 2**28"],
        args=[Arg("npoints", "scalar", "int32", "N"), Arg("nclusters", "scalar", "int32", "K"),
              Arg("dim", "scalar", "int32", "D"), Arg("points", "buffer", "float32", "N * D"),
              Arg("centroids", "buffer", "float32", "K * D"), Arg("membership", "buffer", "int32", "N", "out")],
        gsize=["(N + 127) // 128 * 128"], local=[[128], [256], [64]], reference=_ref_kmeans,
        make_inputs=_inputs_kmeans)


def _ref_total_distance(inp, sz):
    pts = np.stack([_f64(inp["px"]), _f64(inp["py"]), _f64(inp["pz"])], axis=1)
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
    return {"total": d.sum(axis=1)}


def total_distance_soa() -> KernelSpec:
    return _spec(
        "total_distance_soa", idiom="sum of Euclidean distances to all points, structure-of-arrays inputs",
        sizes={"n": [256, 1024, 4096, 8192, 16384]}, check={"n": 640},
        args=[Arg("n", "scalar", "int32", "n"), Arg("px", "buffer", "float32", "n"),
              Arg("py", "buffer", "float32", "n"), Arg("pz", "buffer", "float32", "n"),
              Arg("total", "buffer", "float32", "n", "out")],
        gsize=["n"], local=[[128], [256], [64]], reference=_ref_total_distance, tol=(1e-4, 1e-4))


#: The builders, in the order of ``specs()``.
BUILDERS = (
    syrk_packed_lower, trsm_colwise, sgemm_reg4x4, lu_rank1_update, dgemm_colmajor_naive,
    gemv_group_row_vload4, spmv_csr_group_row, gather_scatter_perm, histogram256_uchar4,
    bitonic_kv_halfcleaner, xorshift_rounds, collatz_steps, stream_triad_float4, saxpy_gridstride,
    complex_conj_mul_float2, conv3_constant, bs_call_poly_cnd, horner_fp64, reduce_interleaved_mod,
    scan_blelloch_cf_uint, scan_single_workgroup, layernorm_welford_row, softmax_axis0, sobel_l1_uchar,
    rgba_to_gray_uchar4, jacobi5_poisson, volume_gradient_3d, transpose_tile32x8_uint,
    nbody_leapfrog_float4, kmeans_assign, total_distance_soa,
)
