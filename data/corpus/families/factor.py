"""Dense tasks of a sparse direct solver: SYRK (lower), TRSM (forward/backward substitution) and
batched Cholesky / LU (no pivoting) of small diagonal tiles in local memory."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, LOCAL_2D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, reduction_tol, render

# C = alpha * A A^T + beta * C on the lower triangle; A is N x K row-major.
SYRK = """
__kernel void syrk_naive(const int N, const int K, const $T alpha, const $T beta,
                         __global const $T* A, __global $T* C)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (j > i) {
        return;
    }
    $T acc = 0;
    for (int k = 0; k < K; ++k) {
        acc += A[i * K + k] * A[j * K + k];
    }
    C[i * N + j] = alpha * acc + beta * C[i * N + j];
}
"""

# Tiles strictly above the diagonal leave as a whole work-group (before any barrier).
SYRK_TILED = """
#define TS $TS
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void syrk_tiled(const int N, const int K, const $T alpha, const $T beta,
                __global const $T* A, __global $T* C)
{
    __local $T Ai[TS][TS];
    __local $T Aj[TS][TS];
    if (get_group_id(0) > get_group_id(1)) {
        return;
    }
    const int tj = get_local_id(0);
    const int ti = get_local_id(1);
    const int i = get_global_id(1);
    const int j0 = get_group_id(0) * TS;
    const int j = get_global_id(0);
    $T acc = 0;
    for (int t = 0; t < K; t += TS) {
        Ai[ti][tj] = A[i * K + t + tj];
        Aj[ti][tj] = A[(j0 + ti) * K + t + tj];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) {
            acc += Ai[ti][k] * Aj[tj][k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (j <= i) {
        C[i * N + j] = alpha * acc + beta * C[i * N + j];
    }
}
"""

# Solves T X = alpha * B for X (overwrites B, N x R row-major); one work-item per column.
TRSM = """
__kernel void trsm_$NAME(const int N, const int R, const $T alpha, __global const $T* T,
                         __global $T* B)
{
    const int r = get_global_id(0);
    for (int s = 0; s < N; ++s) {
        const int i = $ROW;
        $T acc = alpha * B[i * R + r];
        for (int k = $KLO; k < $KHI; ++k) {
            acc -= T[i * N + k] * B[k * R + r];
        }
        B[i * R + r] = $DIVIDE;
    }
}
"""

POTRF = """
#define NB $NB
__kernel __attribute__((reqd_work_group_size(NB, 1, 1)))
void potrf_batched(const int batch, __global $T* A)
{
    __local $T a[NB][NB + 1];
    const int t = get_local_id(0);
    __global $T* tile = A + get_group_id(0) * NB * NB;
    for (int j = 0; j < NB; ++j) {
        a[j][t] = tile[j * NB + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < NB; ++k) {
        if (t == k) {
            a[k][k] = sqrt(a[k][k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t > k) {
            a[t][k] = a[t][k] / a[k][k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t > k) {
            for (int j = k + 1; j <= t; ++j) {
                a[t][j] -= a[t][k] * a[j][k];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int j = 0; j < NB; ++j) {
        tile[j * NB + t] = (t <= j) ? a[j][t] : 0;
    }
}
"""

GETRF = """
#define NB $NB
__kernel __attribute__((reqd_work_group_size(NB, 1, 1)))
void getrf_batched(const int batch, __global $T* A)
{
    __local $T a[NB][NB + 1];
    const int t = get_local_id(0);
    __global $T* tile = A + get_group_id(0) * NB * NB;
    for (int j = 0; j < NB; ++j) {
        a[j][t] = tile[j * NB + t];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < NB - 1; ++k) {
        if (t > k) {
            const $T l = a[t][k] / a[k][k];
            a[t][k] = l;
            for (int j = k + 1; j < NB; ++j) {
                a[t][j] -= l * a[k][j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int j = 0; j < NB; ++j) {
        tile[j * NB + t] = a[j][t];
    }
}
"""

SYRK_SIZES = {"N": pow2(5, 13), "K": pow2(5, 12)}
BATCH = pow2(2, 18, 2)
BATCH_DENSE = dense_sizes(2, 18, 16, step=2)  # holds every BATCH point
#: syrk_tiled's grid: SYRK_SIZES plus 1.5x points (syrk_naive keeps SYRK_SIZES).
SYRK_TILED_SIZES = {"N": dense_sizes(5, 13, 2), "K": dense_sizes(5, 12, 2)}


def _syrk_ref(inp, sizes):
    N, K = sizes["N"], sizes["K"]
    a = inp["A"].astype(np.float64).reshape(N, K)
    c = inp["C"].astype(np.float64).reshape(N, N).copy()
    low = np.tril_indices(N)
    c[low] = (float(inp["alpha"]) * (a @ a.T) + float(inp["beta"]) * c)[low]
    return {"C": c}


def _syrk(prec: Precision, ts: int | None) -> KernelSpec:
    family = "syrk_naive" if ts is None else "syrk_tiled"
    tiled = ts is not None
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id(family, *([f"t{ts}"] if tiled else []), prec.name), family=family,
        variant={**({"tile": ts} if tiled else {}), "precision": prec.name}, kernel_name=family,
        source=render(SYRK_TILED if tiled else SYRK, prec, **({"TS": ts} if tiled else {})),
        sizes=SYRK_TILED_SIZES if tiled else SYRK_SIZES, check_sizes={"N": 64, "K": 96},
        constraints=[f"N % {ts} == 0", f"K % {ts} == 0"] if tiled else [],
        args=[Arg("N", "scalar", "int32", "N"), Arg("K", "scalar", "int32", "K"),
              Arg("alpha", "scalar", prec.dtype, "0.75"), Arg("beta", "scalar", prec.dtype, "1.0"),
              Arg("A", "buffer", prec.dtype, "N * K"), Arg("C", "buffer", prec.dtype, "N * N", "inout")],
        global_size=["N", "N"], local_sizes=[[ts, ts]] if tiled else LOCAL_2D, reference=_syrk_ref,
        rtol=rtol, atol=atol)


def _triangular(rng, n: int, lower: bool, dtype) -> np.ndarray:
    """A diagonally dominant triangular matrix (well conditioned)."""
    t = rng.uniform(-1.0, 1.0, (n, n))
    t = np.tril(t) if lower else np.triu(t)
    np.fill_diagonal(t, 1.0 + np.abs(t).sum(axis=1))
    return t.astype(dtype)


def _trsm(prec: Precision, lower: bool, unit: bool) -> KernelSpec:
    name = ("lower" if lower else "upper") + ("_unit" if unit else "")
    row = "s" if lower else "N - 1 - s"
    klo, khi = ("0", "i") if lower else ("i + 1", "N")
    divide = "acc" if unit else "acc / T[i * N + i]"

    def make_inputs(rng, sizes):
        t = _triangular(rng, sizes["N"], lower, prec.np)
        if unit:
            np.fill_diagonal(t, 1.0)
            t = (t / np.maximum(1.0, np.abs(t).sum(axis=1, keepdims=True))).astype(prec.np)
            np.fill_diagonal(t, 1.0)
        return {"T": t}

    def reference(inp, sizes):
        N, R = sizes["N"], sizes["R"]
        t = inp["T"].astype(np.float64).reshape(N, N)
        if unit:
            np.fill_diagonal(t, 1.0)
        b = float(inp["alpha"]) * inp["B"].astype(np.float64).reshape(N, R)
        return {"B": np.linalg.solve(t, b)}

    rtol, atol = reduction_tol(prec, 100.0)
    return KernelSpec(
        kernel_id=kernel_id("trsm", name, prec.name), family="trsm",
        variant={"lower": lower, "unit_diagonal": unit, "precision": prec.name},
        kernel_name=f"trsm_{name}",
        source=render(TRSM, prec, NAME=name, ROW=row, KLO=klo, KHI=khi, DIVIDE=divide),
        sizes={"N": pow2(4, 12), "R": pow2(5, 15)}, check_sizes={"N": 48, "R": 256}, constraints=[],
        args=[Arg("N", "scalar", "int32", "N"), Arg("R", "scalar", "int32", "R"),
              Arg("alpha", "scalar", prec.dtype, "1.5"), Arg("T", "buffer", prec.dtype, "N * N"),
              Arg("B", "buffer", prec.dtype, "N * R", "inout")],
        global_size=["R"], local_sizes=LOCAL_1D, make_inputs=make_inputs, reference=reference,
        rtol=rtol, atol=atol)


def _spd_tiles(rng, batch: int, nb: int, dtype) -> np.ndarray:
    g = rng.uniform(-1.0, 1.0, (batch, nb, nb))
    return (g @ g.transpose(0, 2, 1) / nb + np.eye(nb)).astype(dtype)


def _lu_nopivot(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    for k in range(a.shape[1] - 1):
        a[:, k + 1:, k] /= a[:, k:k + 1, k]
        a[:, k + 1:, k + 1:] -= a[:, k + 1:, k:k + 1] * a[:, k:k + 1, k + 1:]
    return a


def _batched(prec: Precision, which: str, nb: int) -> KernelSpec:
    family = f"{which}_batched"

    def make_inputs(rng, sizes):
        tiles = _spd_tiles(rng, sizes["batch"], nb, prec.np)
        if which == "getrf":  # non-symmetric, diagonally dominant
            tiles = tiles + rng.uniform(-0.2, 0.2, tiles.shape).astype(prec.np)
        return {"A": tiles}

    def reference(inp, sizes):
        a = inp["A"].astype(np.float64).reshape(sizes["batch"], nb, nb)
        return {"A": np.linalg.cholesky(a) if which == "potrf" else _lu_nopivot(a)}

    rtol, atol = reduction_tol(prec, 100.0)
    return KernelSpec(
        kernel_id=kernel_id(family, f"nb{nb}", prec.name), family=family,
        variant={"tile": nb, "precision": prec.name}, kernel_name=family,
        source=render(POTRF if which == "potrf" else GETRF, prec, NB=nb),
        sizes={"batch": BATCH_DENSE}, check_sizes={"batch": 6}, constraints=[],
        args=[Arg("batch", "scalar", "int32", "batch"),
              Arg("A", "buffer", prec.dtype, f"batch * {nb * nb}", "inout")],
        global_size=[f"batch * {nb}"], local_sizes=[[nb]], make_inputs=make_inputs,
        reference=reference, rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_syrk(prec, None)] + [_syrk(prec, ts) for ts in (8, 16, 32)]
        out += [_trsm(prec, lower, unit) for lower in (True, False) for unit in (False, True)]
        out += [_batched(prec, which, nb) for which in ("potrf", "getrf") for nb in (8, 16, 32)]
    return out
