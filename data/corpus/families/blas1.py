"""BLAS level 1: AXPY, SCAL, DOT and NRM2 (partial sums per work-group with a local reduction)."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, reduction_tol, render, vec_type

AXPY = """
#define COARSEN $C
__kernel void axpy(const int n, const $T alpha, __global const $V* x, __global $V* y)
{
    const int gid = get_global_id(0);
    const int stride = get_global_size(0);
    for (int c = 0; c < COARSEN; ++c) {
        const int i = gid + c * stride;
        y[i] = alpha * x[i] + y[i];
    }
}
"""

SCAL = """
__kernel void scal(const int n, const $T alpha, __global $V* x)
{
    const int i = get_global_id(0);
    x[i] = alpha * x[i];
}
"""

# Each work-item sums COARSEN products (strided by the NDRange for coalescing), then a tree
# reduction in local memory; item 0 writes the group's partial sum.
DOT = """
#define WG $WG
#define COARSEN $C
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void dot_partial(const int n, __global const $T* x, __global const $T* y, __global $T* partial)
{
    __local $T scratch[WG];
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int stride = get_global_size(0);
    $T acc = 0;
    for (int c = 0; c < COARSEN; ++c) {
        const int i = gid + c * stride;
        acc += x[i] * y[i];
    }
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            scratch[lid] += scratch[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
"""

# Sum of squares per work-group; the local scratch is a __local argument sized by the launcher.
NRM2 = """
#define COARSEN $C
__kernel void nrm2_partial(const int n, __global const $T* x, __global $T* partial,
                           __local $T* scratch)
{
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int stride = get_global_size(0);
    $T acc = 0;
    for (int c = 0; c < COARSEN; ++c) {
        const $T v = x[gid + c * stride];
        acc += v * v;
    }
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsz / 2; s > 0; s >>= 1) {
        if (lid < s) {
            scratch[lid] += scratch[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
"""

N_SIZES = pow2(10, 26, 2)
RED_SIZES = pow2(12, 26, 2)
#: Denser grids holding every point of the pow2 ones above (measured datasets stay on the grid).
N_DENSE = dense_sizes(10, 26, 4, step=2)
RED_DENSE = dense_sizes(12, 26, 16, step=2)


def _axpy(prec: Precision, width: int, coarsen: int) -> KernelSpec:
    def reference(inp, sizes):
        return {"y": inp["alpha"] * inp["x"] + inp["y"]}

    per_item = width * coarsen
    return KernelSpec(
        kernel_id=kernel_id("axpy", f"v{width}", f"c{coarsen}", prec.name), family="axpy",
        variant={"vector_width": width, "coarsen": coarsen, "precision": prec.name},
        kernel_name="axpy",
        source=render(AXPY, prec, V=vec_type(prec, width), C=coarsen),
        sizes={"n": N_DENSE}, check_sizes={"n": 8192}, constraints=[f"n % {per_item} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("alpha", "scalar", prec.dtype, "1.5"),
              Arg("x", "buffer", prec.dtype, "n"), Arg("y", "buffer", prec.dtype, "n", "inout")],
        global_size=[f"n // {per_item}"], local_sizes=LOCAL_1D, reference=reference,
        rtol=prec.rtol, atol=prec.atol)


def _scal(prec: Precision, width: int) -> KernelSpec:
    def reference(inp, sizes):
        return {"x": inp["alpha"] * inp["x"]}

    return KernelSpec(
        kernel_id=kernel_id("scal", f"v{width}", prec.name), family="scal",
        variant={"vector_width": width, "precision": prec.name}, kernel_name="scal",
        source=render(SCAL, prec, V=vec_type(prec, width)),
        sizes={"n": N_DENSE}, check_sizes={"n": 8192}, constraints=[f"n % {width} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("alpha", "scalar", prec.dtype, "-0.75"),
              Arg("x", "buffer", prec.dtype, "n", "inout")],
        global_size=[f"n // {width}"], local_sizes=LOCAL_1D, reference=reference,
        rtol=prec.rtol, atol=prec.atol)


def _group_sums(values: np.ndarray, coarsen: int, wg: int) -> np.ndarray:
    """Partial sums as the kernels form them: item i sums values[i + c*stride], groups of wg items."""
    per_item = values.reshape(coarsen, -1).sum(axis=0)
    return per_item.reshape(-1, wg).sum(axis=1)


def _dot(prec: Precision, wg: int, coarsen: int) -> KernelSpec:
    def reference(inp, sizes):
        prod = inp["x"].astype(np.float64) * inp["y"].astype(np.float64)
        return {"partial": _group_sums(prod, coarsen, wg)}

    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("dot", f"wg{wg}", f"c{coarsen}", prec.name), family="dot",
        variant={"work_group": wg, "coarsen": coarsen, "precision": prec.name},
        kernel_name="dot_partial", source=render(DOT, prec, WG=wg, C=coarsen),
        sizes={"n": RED_DENSE}, check_sizes={"n": 16384}, constraints=[f"n % {wg * coarsen} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("x", "buffer", prec.dtype, "n"),
              Arg("y", "buffer", prec.dtype, "n"),
              Arg("partial", "buffer", prec.dtype, f"n // {wg * coarsen}", "out")],
        global_size=[f"n // {coarsen}"], local_sizes=[[wg]], reference=reference,
        rtol=rtol, atol=atol)


def _nrm2(prec: Precision, wg: int, coarsen: int) -> KernelSpec:
    def reference(inp, sizes):
        x = inp["x"].astype(np.float64)
        return {"partial": _group_sums(x * x, coarsen, wg)}

    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("nrm2", f"wg{wg}", f"c{coarsen}", prec.name), family="nrm2",
        variant={"work_group": wg, "coarsen": coarsen, "precision": prec.name},
        kernel_name="nrm2_partial",
        source=render(NRM2, prec, C=coarsen),
        sizes={"n": RED_DENSE}, check_sizes={"n": 16384},
        constraints=[f"n % {wg * coarsen} == 0", f"l0 == {wg}"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("x", "buffer", prec.dtype, "n"),
              Arg("partial", "buffer", prec.dtype, f"n // {wg * coarsen}", "out"),
              Arg("scratch", "local", prec.dtype, "l0")],
        global_size=[f"n // {coarsen}"], local_sizes=[[wg]], reference=reference,
        rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_axpy(prec, w, c) for w in (1, 2, 4, 8) for c in (1, 4)]
        out += [_scal(prec, w) for w in (1, 2, 4, 8)]
        out += [_dot(prec, wg, c) for wg in (64, 128, 256) for c in (1, 8)]
        out += [_nrm2(prec, wg, c) for wg in (128, 256) for c in (1, 4)]
    return out
