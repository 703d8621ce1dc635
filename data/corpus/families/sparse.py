"""Sparse matrix-vector products ``y = A x``: CSR scalar (row per work-item), CSR vector (TPR
work-items per row with a local reduction) and ELLPACK (column- or row-major slabs)."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, reduction_tol, render

CSR_SCALAR = """
__kernel void spmv_csr_scalar(const int M, __global const int* row_ptr, __global const int* col,
                              __global const $T* val, __global const $T* x, __global $T* y)
{
    const int row = get_global_id(0);
    $T acc = 0;
    for (int p = row_ptr[row]; p < row_ptr[row + 1]; ++p) {
        acc += val[p] * x[col[p]];
    }
    y[row] = acc;
}
"""

CSR_VECTOR = """
#define TPR $TPR
#define WG $WG
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void spmv_csr_vector(const int M, __global const int* row_ptr, __global const int* col,
                     __global const $T* val, __global const $T* x, __global $T* y)
{
    __local $T part[WG];
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int row = gid / TPR;
    const int lane = gid % TPR;
    $T acc = 0;
    for (int p = row_ptr[row] + lane; p < row_ptr[row + 1]; p += TPR) {
        acc += val[p] * x[col[p]];
    }
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = TPR / 2; s > 0; s >>= 1) {
        if (lane < s) {
            part[lid] += part[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0) {
        y[row] = part[lid];
    }
}
"""

# Padding entries carry col = -1; IDX is the slab layout.
ELL = """
__kernel void spmv_ell_$LAYOUT(const int M, const int R, __global const int* col,
                             __global const $T* val, __global const $T* x, __global $T* y)
{
    const int row = get_global_id(0);
    $T acc = 0;
    for (int k = 0; k < R; ++k) {
        const int c = col[$IDX];
        if (c >= 0) {
            acc += val[$IDX] * x[c];
        }
    }
    y[row] = acc;
}
"""

SIZES = {"M": pow2(10, 22, 2), "R": [4, 16, 64]}
#: Denser grids holding every SIZES point, same extremes (host-built CSR/ELL inputs stay affordable).
ROW_SIZES = {"M": dense_sizes(10, 22, 1, step=2), "R": [4, 8, 16, 32, 64]}
VECTOR_SIZES = {"M": dense_sizes(10, 22, 4, step=2), "R": [4, 8, 16, 32, 64]}
CHECK = {"M": 1024, "R": 16}


def _csr_inputs(prec: Precision):
    """A square CSR matrix: M*R entries scattered over rows (binomial row lengths) at uniform random
    columns, ascending within a row.

    The columns of a row of length L are the order statistics of L uniforms, drawn without a sort
    (normalised cumulative sums of L+1 exponential gaps), so inputs of 67M entries take seconds.
    """
    def make_inputs(rng, sizes):
        M, R = sizes["M"], sizes["R"]
        lengths = np.bincount(rng.integers(0, M, M * R), minlength=M)
        seg_ends = np.cumsum(lengths + 1) - 1            # last gap of each row's segment
        sums = np.cumsum(rng.exponential(size=int(seg_ends[-1]) + 1))
        before = np.concatenate(([0.0], sums[seg_ends[:-1]]))
        keep = np.ones(sums.size, bool)
        keep[seg_ends] = False
        frac = (sums[keep] - np.repeat(before, lengths)) / np.repeat(sums[seg_ends] - before, lengths)
        col = np.minimum((frac * M).astype(np.int64), M - 1)
        row_ptr = np.concatenate(([0], np.cumsum(lengths)))
        return {"row_ptr": row_ptr.astype(np.int32), "col": col.astype(np.int32),
                "val": rng.uniform(-1.0, 1.0, col.size).astype(prec.np)}
    return make_inputs


def _csr_ref(inp, sizes):
    M = sizes["M"]
    row_ptr = inp["row_ptr"].astype(np.int64)
    rows = np.repeat(np.arange(M), np.diff(row_ptr))
    y = np.zeros(M)
    np.add.at(y, rows, inp["val"].astype(np.float64) * inp["x"].astype(np.float64)[inp["col"]])
    return {"y": y}


def _csr_args(prec: Precision) -> list[Arg]:
    return [Arg("M", "scalar", "int32", "M"), Arg("row_ptr", "buffer", "int32", "M + 1"),
            Arg("col", "buffer", "int32", "M * R"), Arg("val", "buffer", prec.dtype, "M * R"),
            Arg("x", "buffer", prec.dtype, "M"), Arg("y", "buffer", prec.dtype, "M", "out")]


def _csr_scalar(prec: Precision) -> KernelSpec:
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("spmv_csr_scalar", prec.name), family="spmv_csr_scalar",
        variant={"precision": prec.name}, kernel_name="spmv_csr_scalar",
        source=render(CSR_SCALAR, prec), sizes=ROW_SIZES, check_sizes=CHECK, constraints=[],
        args=_csr_args(prec), global_size=["M"], local_sizes=LOCAL_1D,
        make_inputs=_csr_inputs(prec), reference=_csr_ref, rtol=rtol, atol=atol)


def _csr_vector(prec: Precision, tpr: int, wg: int = 128) -> KernelSpec:
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("spmv_csr_vector", f"tpr{tpr}", prec.name), family="spmv_csr_vector",
        variant={"threads_per_row": tpr, "work_group": wg, "precision": prec.name},
        kernel_name="spmv_csr_vector", source=render(CSR_VECTOR, prec, TPR=tpr, WG=wg),
        sizes=VECTOR_SIZES, check_sizes=CHECK, constraints=[f"(M * {tpr}) % {wg} == 0"],
        args=_csr_args(prec), global_size=[f"M * {tpr}"], local_sizes=[[wg]],
        make_inputs=_csr_inputs(prec), reference=_csr_ref, rtol=rtol, atol=atol)


def _ell(prec: Precision, layout: str) -> KernelSpec:
    def make_inputs(rng, sizes):
        M, R = sizes["M"], sizes["R"]
        lengths = rng.integers(R // 2, R + 1, M)
        col = rng.integers(0, M, (M, R))
        col[np.arange(R)[None, :] >= lengths[:, None]] = -1
        val = rng.uniform(-1.0, 1.0, (M, R))
        if layout == "cm":
            col, val = col.T, val.T
        return {"col": col.astype(np.int32), "val": val.astype(prec.np)}

    def reference(inp, sizes):
        M, R = sizes["M"], sizes["R"]
        col, val = inp["col"].reshape(-1), inp["val"].astype(np.float64).reshape(-1)
        col = col.reshape(M, R) if layout == "rm" else col.reshape(R, M).T
        val = val.reshape(M, R) if layout == "rm" else val.reshape(R, M).T
        x = inp["x"].astype(np.float64)
        return {"y": np.where(col >= 0, val * x[np.maximum(col, 0)], 0.0).sum(axis=1)}

    idx = "row * R + k" if layout == "rm" else "k * M + row"
    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("spmv_ell", layout, prec.name), family="spmv_ell",
        variant={"layout": layout, "precision": prec.name}, kernel_name=f"spmv_ell_{layout}",
        source=render(ELL, prec, LAYOUT=layout, IDX=idx), sizes=ROW_SIZES, check_sizes=CHECK,
        constraints=[],
        args=[Arg("M", "scalar", "int32", "M"), Arg("R", "scalar", "int32", "R"),
              Arg("col", "buffer", "int32", "M * R"), Arg("val", "buffer", prec.dtype, "M * R"),
              Arg("x", "buffer", prec.dtype, "M"), Arg("y", "buffer", prec.dtype, "M", "out")],
        global_size=["M"], local_sizes=LOCAL_1D, make_inputs=make_inputs, reference=reference,
        rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out.append(_csr_scalar(prec))
        out += [_csr_vector(prec, tpr) for tpr in (2, 4, 8, 16, 32)]
        out += [_ell(prec, lay) for lay in ("rm", "cm")]
    return out
