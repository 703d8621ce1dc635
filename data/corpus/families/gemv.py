"""BLAS level 2: GEMV ``y = alpha * A @ x`` (row- or column-major, one row per work-item or per
work-group with a local reduction) and the rank-1 update GER ``A += alpha * x y^T``."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, LOCAL_2D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, reduction_tol, render

# One row per work-item; A_IDX is row-major (A[i*N+k], strided across items) or column-major
# (A[k*M+i], coalesced); the k loop is unrolled U times.
ROWTHREAD = """
__kernel void gemv_$LAYOUT(const int M, const int N, const $T alpha, __global const $T* A,
                         __global const $T* x, __global $T* y)
{
    const int i = get_global_id(0);
    $T acc = 0;
    for (int k = 0; k < N; k += $U) {
$BODY
    }
    y[i] = alpha * acc;
}
"""

LOCAL = """
#define WG $WG
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void gemv_local(const int M, const int N, const $T alpha, __global const $T* A,
                __global const $T* x, __global $T* y)
{
    __local $T part[WG];
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    $T acc = 0;
    for (int k = lid; k < N; k += WG) {
        acc += A[row * N + k] * x[k];
    }
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            part[lid] += part[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        y[row] = alpha * part[0];
    }
}
"""

GER = """
#define COARSEN $C
__kernel void ger(const int M, const int N, const $T alpha, __global const $T* x,
                  __global const $T* y, __global $T* A)
{
    const int j0 = get_global_id(0);
    const int i = get_global_id(1);
    const int stride = get_global_size(0);
    const $T xi = alpha * x[i];
    for (int c = 0; c < COARSEN; ++c) {
        const int j = j0 + c * stride;
        A[i * N + j] += xi * y[j];
    }
}
"""

SIZES = {"M": pow2(7, 14), "N": pow2(7, 14)}
LOCAL_SIZES_MN = {"M": dense_sizes(7, 14, 2), "N": dense_sizes(7, 14, 2)}  # gemv_local; holds SIZES
CHECK = {"M": 256, "N": 96}


def _gemv_ref(layout: str):
    def reference(inp, sizes):
        M, N = sizes["M"], sizes["N"]
        a = inp["A"].astype(np.float64)
        a = a.reshape(M, N) if layout == "rm" else a.reshape(N, M).T
        return {"y": float(inp["alpha"]) * (a @ inp["x"].astype(np.float64))}
    return reference


def _gemv_args(prec: Precision) -> list[Arg]:
    return [Arg("M", "scalar", "int32", "M"), Arg("N", "scalar", "int32", "N"),
            Arg("alpha", "scalar", prec.dtype, "2.0"), Arg("A", "buffer", prec.dtype, "M * N"),
            Arg("x", "buffer", prec.dtype, "N"), Arg("y", "buffer", prec.dtype, "M", "out")]


def _rowthread(prec: Precision, layout: str, unroll: int) -> KernelSpec:
    idx = "i * N + k + {u}" if layout == "rm" else "(k + {u}) * M + i"
    body = "\n".join(f"        acc += A[{idx.format(u=u)}] * x[k + {u}];" for u in range(unroll))
    family = f"gemv_{layout}"
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id(family, f"u{unroll}", prec.name), family=family,
        variant={"layout": layout, "unroll": unroll, "precision": prec.name}, kernel_name=family,
        source=render(ROWTHREAD, prec, LAYOUT=layout, U=unroll, BODY=body),
        sizes=SIZES, check_sizes=CHECK, constraints=[f"N % {unroll} == 0"], args=_gemv_args(prec),
        global_size=["M"], local_sizes=LOCAL_1D, reference=_gemv_ref(layout), rtol=rtol, atol=atol)


def _local(prec: Precision, wg: int) -> KernelSpec:
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("gemv_local", f"wg{wg}", prec.name), family="gemv_local",
        variant={"work_group": wg, "precision": prec.name}, kernel_name="gemv_local",
        source=render(LOCAL, prec, WG=wg), sizes=LOCAL_SIZES_MN, check_sizes=CHECK, constraints=[],
        args=_gemv_args(prec), global_size=[f"M * {wg}"], local_sizes=[[wg]],
        reference=_gemv_ref("rm"), rtol=rtol, atol=atol)


def _ger(prec: Precision, coarsen: int) -> KernelSpec:
    def reference(inp, sizes):
        a = inp["A"].reshape(sizes["M"], sizes["N"]).astype(np.float64)
        return {"A": a + float(inp["alpha"]) * np.outer(inp["x"], inp["y"])}

    return KernelSpec(
        kernel_id=kernel_id("ger", f"c{coarsen}", prec.name), family="ger",
        variant={"coarsen": coarsen, "precision": prec.name}, kernel_name="ger",
        source=render(GER, prec, C=coarsen), sizes=SIZES, check_sizes=CHECK,
        constraints=[f"N % {coarsen} == 0"],
        args=[Arg("M", "scalar", "int32", "M"), Arg("N", "scalar", "int32", "N"),
              Arg("alpha", "scalar", prec.dtype, "-0.5"), Arg("x", "buffer", prec.dtype, "M"),
              Arg("y", "buffer", prec.dtype, "N"), Arg("A", "buffer", prec.dtype, "M * N", "inout")],
        global_size=[f"N // {coarsen}", "M"], local_sizes=LOCAL_2D, reference=reference,
        rtol=prec.rtol, atol=prec.atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_rowthread(prec, lay, u) for lay in ("rm", "cm") for u in (1, 4, 8)]
        out += [_local(prec, wg) for wg in (32, 64, 128, 256)]
        out += [_ger(prec, c) for c in (1, 2, 4)]
    return out
