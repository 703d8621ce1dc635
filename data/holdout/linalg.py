"""Holdout kernels: dense linear algebra, sparse/irregular and integer work."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2

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


