"""GEMM ``C = alpha * op(A) @ op(B) + beta * C`` (row-major): naive, local-memory tiled,
register-blocked and vectorised, with transposed-operand layouts."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_2D, PRECISIONS, Precision, kernel_id, pow2, reduction_tol, render, vec_type

NAIVE = """
__kernel void gemm_naive(const int M, const int N, const int K, const $T alpha, const $T beta,
                         __global const $T* A, __global const $T* B, __global $T* C)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    $T acc = 0;
    for (int k = 0; k < K; ++k) {
        acc += A[$A_IDX] * B[$B_IDX];
    }
    C[i * N + j] = alpha * acc + beta * C[i * N + j];
}
"""

TILED = """
#define TS $TS
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void gemm_tiled(const int M, const int N, const int K, const $T alpha, const $T beta,
                __global const $T* A, __global const $T* B, __global $T* C)
{
    __local $T Asub[TS][TS];
    __local $T Bsub[TS][TS];
    const int tj = get_local_id(0);
    const int ti = get_local_id(1);
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    $T acc = 0;
    for (int t = 0; t < K; t += TS) {
        Asub[ti][tj] = A[$A_IDX];
        Bsub[ti][tj] = B[$B_IDX];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) {
            acc += Asub[ti][k] * Bsub[k][tj];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[i * N + j] = alpha * acc + beta * C[i * N + j];
}
"""

# Each work-item computes WPT rows of the TS x TS tile (rows ti, ti + RTS, ...), keeping its
# WPT accumulators in registers and reusing one B value from local memory WPT times.
REGBLOCK = """
#define TS $TS
#define WPT $WPT
#define RTS $RTS
__kernel __attribute__((reqd_work_group_size(TS, RTS, 1)))
void gemm_regblock(const int M, const int N, const int K, const $T alpha, const $T beta,
                   __global const $T* A, __global const $T* B, __global $T* C)
{
    __local $T Asub[TS][TS];
    __local $T Bsub[TS][TS];
    const int tj = get_local_id(0);
    const int ti = get_local_id(1);
    const int j = get_group_id(0) * TS + tj;
    const int i0 = get_group_id(1) * TS + ti;
    $T acc[WPT];
    for (int w = 0; w < WPT; ++w) {
        acc[w] = 0;
    }
    for (int t = 0; t < K; t += TS) {
        for (int w = 0; w < WPT; ++w) {
            const int r = ti + w * RTS;
            Asub[r][tj] = A[(i0 + w * RTS) * K + t + tj];
            Bsub[r][tj] = B[(t + r) * N + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) {
            const $T b = Bsub[k][tj];
            for (int w = 0; w < WPT; ++w) {
                acc[w] += Asub[ti + w * RTS][k] * b;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < WPT; ++w) {
        const int i = i0 + w * RTS;
        C[i * N + j] = alpha * acc[w] + beta * C[i * N + j];
    }
}
"""

# Each work-item computes W consecutive columns with vector loads of B and C; the k loop is
# unrolled U times by the template.
VEC = """
__kernel void gemm_vec(const int M, const int N, const int K, const $T alpha, const $T beta,
                       __global const $T* A, __global const $V* B, __global $V* C)
{
    const int jv = get_global_id(0);
    const int i = get_global_id(1);
    const int NV = N / $W;
    $V acc = ($V)(0.0$F);
    for (int k = 0; k < K; k += $U) {
$BODY
    }
    C[i * NV + jv] = alpha * acc + beta * C[i * NV + jv];
}
"""

SIZES = {"M": pow2(5, 12), "N": pow2(5, 12), "K": pow2(5, 12)}
CHECK = {"M": 96, "N": 128, "K": 64}
NAIVE_IDX = {"n": ("i * K + k", "k * N + j"), "t": ("k * M + i", "j * K + k")}
TILED_IDX = {"n": ("i * K + t + tj", "(t + ti) * N + j"), "t": ("(t + tj) * M + i", "j * K + t + ti")}


def _args(prec: Precision) -> list[Arg]:
    return [Arg("M", "scalar", "int32", "M"), Arg("N", "scalar", "int32", "N"),
            Arg("K", "scalar", "int32", "K"), Arg("alpha", "scalar", prec.dtype, "1.25"),
            Arg("beta", "scalar", prec.dtype, "0.5"), Arg("A", "buffer", prec.dtype, "M * K"),
            Arg("B", "buffer", prec.dtype, "K * N"), Arg("C", "buffer", prec.dtype, "M * N", "inout")]


def _reference(layout: str):
    def reference(inp, sizes):
        M, N, K = sizes["M"], sizes["N"], sizes["K"]
        a = inp["A"].astype(np.float64)
        b = inp["B"].astype(np.float64)
        a = a.reshape(M, K) if layout[0] == "n" else a.reshape(K, M).T
        b = b.reshape(K, N) if layout[1] == "n" else b.reshape(N, K).T
        return {"C": float(inp["alpha"]) * (a @ b) + float(inp["beta"]) * inp["C"].reshape(M, N)}
    return reference


def _spec(family, parts, variant, name, source, prec, constraints, gsize, local, layout="nn"):
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id(family, *parts, prec.name), family=family,
        variant={**variant, "precision": prec.name}, kernel_name=name, source=source,
        sizes=SIZES, check_sizes=CHECK, constraints=constraints, args=_args(prec),
        global_size=gsize, local_sizes=local, reference=_reference(layout), rtol=rtol, atol=atol)


def _naive(prec: Precision, layout: str) -> KernelSpec:
    a_idx, b_idx = NAIVE_IDX[layout[0]][0], NAIVE_IDX[layout[1]][1]
    return _spec("gemm_naive", [layout], {"layout": layout}, "gemm_naive",
                 render(NAIVE, prec, A_IDX=a_idx, B_IDX=b_idx), prec, [], ["N", "M"], LOCAL_2D, layout)


def _tiled(prec: Precision, ts: int, layout: str) -> KernelSpec:
    a_idx, b_idx = TILED_IDX[layout[0]][0], TILED_IDX[layout[1]][1]
    return _spec("gemm_tiled", [f"t{ts}", layout], {"tile": ts, "layout": layout}, "gemm_tiled",
                 render(TILED, prec, TS=ts, A_IDX=a_idx, B_IDX=b_idx), prec,
                 [f"M % {ts} == 0", f"N % {ts} == 0", f"K % {ts} == 0"], ["N", "M"], [[ts, ts]], layout)


def _regblock(prec: Precision, ts: int, wpt: int) -> KernelSpec:
    return _spec("gemm_regblock", [f"t{ts}", f"w{wpt}"], {"tile": ts, "work_per_item": wpt},
                 "gemm_regblock", render(REGBLOCK, prec, TS=ts, WPT=wpt, RTS=ts // wpt), prec,
                 [f"M % {ts} == 0", f"N % {ts} == 0", f"K % {ts} == 0"], ["N", f"M // {wpt}"],
                 [[ts, ts // wpt]])


def _vec(prec: Precision, width: int, unroll: int) -> KernelSpec:
    body = "\n".join(f"        acc += A[i * K + k + {u}] * B[(k + {u}) * NV + jv];" for u in range(unroll))
    return _spec("gemm_vec", [f"v{width}", f"u{unroll}"], {"vector_width": width, "unroll": unroll},
                 "gemm_vec", render(VEC, prec, V=vec_type(prec, width), W=width, U=unroll, BODY=body),
                 prec, [f"N % {width} == 0", f"K % {unroll} == 0"], [f"N // {width}", "M"], LOCAL_2D)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_naive(prec, lay) for lay in ("nn", "nt", "tn", "tt")]
        out += [_tiled(prec, ts, lay) for ts in (8, 16, 32) for lay in ("nn", "tn", "nt")]
        out += [_regblock(prec, ts, w) for ts in (16, 32) for w in (2, 4, 8)]
        out += [_vec(prec, w, u) for w in (2, 4, 8) for u in (1, 4)]
    return out
