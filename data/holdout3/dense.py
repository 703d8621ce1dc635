"""Holdout3 kernels: small dense linear algebra as application code writes it (batched register-resident
factorisations, plane rotations, a symmetric triangle-only product, Kronecker products, three-term recurrences
and a Householder reflector applied column by column)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, pow2, round_up


# --- batched 4x4 LDL^T solve, fp64 -------------------------------------------------------------------
_TRIL4 = [(r, c) for r in range(4) for c in range(r + 1)]


def _inputs_ldlt4(rng, sz):
    n = sz["n"]
    g = rng.uniform(-1.0, 1.0, (n, 4, 4))
    a = 0.5 * (g + g.transpose(0, 2, 1))
    a[:, np.arange(4), np.arange(4)] = rng.choice([-1.0, 1.0], (n, 4)) * rng.uniform(4.0, 6.0, (n, 4))
    return {"ap": np.stack([a[:, r, c] for r, c in _TRIL4], axis=1)}


def _ref_ldlt4(inp, sz):
    n = sz["n"]
    p = _f64(inp["ap"]).reshape(n, 10)
    a = np.zeros((n, 4, 4))
    for q, (r, c) in enumerate(_TRIL4):
        a[:, r, c] = a[:, c, r] = p[:, q]
    lo, d = np.zeros((n, 4, 4)), np.zeros((n, 4))
    for j in range(4):
        d[:, j] = a[:, j, j] - (lo[:, j, :j] ** 2 * d[:, :j]).sum(axis=1)
        lo[:, j, j] = 1.0
        for r in range(j + 1, 4):
            lo[:, r, j] = (a[:, r, j] - (lo[:, r, :j] * lo[:, j, :j] * d[:, :j]).sum(axis=1)) / d[:, j]
    x = np.linalg.solve(a, _f64(inp["b"]).reshape(n, 4, 1))[..., 0]
    return {"x": x, "diag": d, "nneg": (d < 0).sum(axis=1).astype(np.int32)}


def ldlt4_solve_fp64() -> KernelSpec:
    return _spec(
        "ldlt4_solve_fp64", precision="fp64",
        idiom="batched 4x4 symmetric-indefinite LDL^T + solve per work-item in private 2-D arrays, packed input, inertia count",
        sizes={"n": pow2(8, 22, 2)}, check={"n": 1000},
        args=[Arg("nsys", "scalar", "int32", "n"), Arg("ap", "buffer", "float64", "10 * n"),
              Arg("b", "buffer", "float64", "4 * n"), Arg("x", "buffer", "float64", "4 * n", "out"),
              Arg("diag", "buffer", "float64", "4 * n", "out"), Arg("nneg", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_ldlt4, make_inputs=_inputs_ldlt4, tol=FP64)


# --- chain of Givens rotations down each column, batched, 2-D ---------------------------------------
def _inputs_givens(rng, sz):
    theta = rng.uniform(-np.pi, np.pi, sz["B"] * (sz["R"] - 1))
    return {"cs": np.stack([np.cos(theta), np.sin(theta)], axis=1)}


def _ref_givens(inp, sz):
    b, r, c = sz["B"], sz["R"], sz["C"]
    a = _f64(inp["mats"]).reshape(b, r, c).copy()
    g = _f64(inp["cs"]).reshape(b, r - 1, 2)
    for k in range(r - 1):
        cc, ss = g[:, k, 0:1], g[:, k, 1:2]
        top, bot = a[:, k, :].copy(), a[:, k + 1, :].copy()
        a[:, k, :] = cc * top + ss * bot
        a[:, k + 1, :] = cc * bot - ss * top
    return {"mats": a}


def givens_chain_cols() -> KernelSpec:
    return _spec(
        "givens_chain_cols",
        idiom="batched chain of Givens rotations on rows (k, k+1), 2-D (column, matrix), lower row carried in a register",
        sizes={"C": [32, 256, 1024], "R": [16, 128], "B": [16, 256, 4096]}, check={"C": 40, "R": 12, "B": 16},
        constraints=["B * R * C <= 2**26"],
        args=[Arg("nrows", "scalar", "int32", "R"), Arg("ncols", "scalar", "int32", "C"),
              Arg("cs", "buffer", "float32", "2 * B * (R - 1)"),
              Arg("mats", "buffer", "float32", "B * R * C", "inout")],
        gsize=[round_up("C", 32), "B"], local=L2 + [[32, 4]], reference=_ref_givens, make_inputs=_inputs_givens,
        tol=(1e-4, 1e-5))


# --- symmetric matrix-vector product from the lower triangle, x staged in __local ----------------------
def _inputs_symv(rng, sz):
    n = sz["n"]
    a = rng.uniform(-1.0, 1.0, (n, n))
    a[np.triu_indices(n, 1)] = 1000.0  # never read: the kernel takes A(i,c), c > i, from A(c,i)
    return {"a": a}


def _ref_symv(inp, sz):
    n = sz["n"]
    lo = np.tril(_f64(inp["a"]).reshape(n, n))
    full = lo + np.tril(lo, -1).T
    return {"y": float(inp["alpha"]) * (full @ _f64(inp["x"])) + float(inp["beta"]) * _f64(inp["y"])}


def symv_lower_local() -> KernelSpec:
    return _spec(
        "symv_lower_local",
        idiom="SYMV reading only the lower triangle (row or mirrored column per entry), x chunks staged in __local",
        sizes={"n": [256, 512, 1000, 1024, 2048, 3000, 4096, 8192, 12288, 16384]}, check={"n": 300},
        args=[Arg("n", "scalar", "int32", "n"), Arg("alpha", "scalar", "float32", "1.5"),
              Arg("beta", "scalar", "float32", "-0.5"), Arg("a", "buffer", "float32", "n * n"),
              Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "inout"),
              Arg("xs", "local", "float32", "l0")],
        gsize=[round_up("n")], local=L1, reference=_ref_symv, make_inputs=_inputs_symv, tol=SUMS)


# --- Kronecker product, 2-D ----------------------------------------------------------------------------
def _ref_kron(inp, sz):
    p, q = sz["P"], sz["Q"]
    return {"c": np.kron(_f64(inp["a"]).reshape(p, p), _f64(inp["b"]).reshape(q, q))}


def kron_product_2d() -> KernelSpec:
    return _spec(
        "kron_product_2d", idiom="Kronecker product A (x) B, one item per output element, runtime / and % split the indices",
        sizes={"P": [4, 16, 64], "Q": [8, 32, 128]}, check={"P": 5, "Q": 7}, constraints=["P * Q <= 8192"],
        args=[Arg("p", "scalar", "int32", "P"), Arg("q", "scalar", "int32", "Q"),
              Arg("a", "buffer", "float32", "P * P"), Arg("b", "buffer", "float32", "Q * Q"),
              Arg("c", "buffer", "float32", "P * P * Q * Q", "out")],
        gsize=[round_up("P * Q", 64), round_up("P * Q", 16)], local=L2 + [[64, 4]], reference=_ref_kron)


# --- Legendre table by the three-term recurrence, fp64 ------------------------------------------------
def _ref_legendre(inp, sz):
    x, kmax = _f64(inp["xs"]), sz["K"]
    table = np.polynomial.legendre.legvander(x, kmax).T
    return {"table": table, "series": np.polynomial.legendre.legval(x, _f64(inp["coef"]))}


def legendre_table_fp64() -> KernelSpec:
    return _spec(
        "legendre_table_fp64", precision="fp64",
        idiom="Bonnet three-term recurrence per point, fp64, a plane per order written plus a series sum",
        sizes={"n": pow2(10, 22, 2), "K": [8, 32, 128]}, check={"n": 3000, "K": 20},
        constraints=["n * K <= 2**25"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("kmax", "scalar", "int32", "K"),
              Arg("xs", "buffer", "float64", "n"), Arg("coef", "buffer", "float64", "K + 1"),
              Arg("table", "buffer", "float64", "(K + 1) * n", "out"), Arg("series", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_legendre, tol=FP64)


# --- Householder reflector applied to the columns of a column-major panel -----------------------------
def _inputs_householder(rng, sz):
    v = rng.normal(size=sz["M"])
    return {"v": v * (np.sqrt(2.0) / np.linalg.norm(v))}  # tau = 1: an exact reflector


def _ref_householder(inp, sz):
    m, n = sz["M"], sz["N"]
    lda = m + 16
    a = _f64(inp["a"]).reshape(n, lda).copy()  # column j is row j here
    v = _f64(inp["v"])
    a[:, :m] -= float(inp["tau"]) * np.outer(a[:, :m] @ v, v)
    return {"a": a}


def householder_cols_local() -> KernelSpec:
    return _spec(
        "householder_cols_local",
        idiom="Householder reflector on a column-major panel with lda > m: group per column, local-tree dot, then update",
        sizes={"M": [100, 1000, 8192, 32768, 131072], "N": [8, 32, 128, 512, 2048]}, check={"M": 300, "N": 6},
        constraints=["M * N <= 2**26"],
        args=[Arg("m", "scalar", "int32", "M"), Arg("lda", "scalar", "int32", "M + 16"),
              Arg("tau", "scalar", "float32", "1.0"), Arg("v", "buffer", "float32", "M"),
              Arg("a", "buffer", "float32", "(M + 16) * N", "inout")],
        gsize=["N * 128"], local=[[128]], reference=_ref_householder, make_inputs=_inputs_householder, tol=SUMS)


#: this group's builders, in the order of ``specs()``
BUILDERS = (ldlt4_solve_fp64, givens_chain_cols, symv_lower_local, kron_product_2d, legendre_table_fp64,
            householder_cols_local)
