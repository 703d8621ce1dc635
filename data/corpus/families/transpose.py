"""Matrix transpose ``B = A^T`` (A is R x C row-major): naive with coalesced reads or writes,
local-memory tiled (with or without padding against bank conflicts) and a 3D batched one."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_2D, LOCAL_3D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render

# coalesced reads: dim 0 walks A's columns; coalesced writes: dim 0 walks B's columns.
NAIVE = """
__kernel void transpose_naive(const int R, const int C, __global const $T* A, __global $T* B)
{
    const int $D0 = get_global_id(0);
    const int $D1 = get_global_id(1);
    B[c * R + r] = A[r * C + c];
}
"""

TILED = """
#define TS $TS
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void transpose_tiled(const int R, const int C, __global const $T* A, __global $T* B)
{
    __local $T tile[TS][TS + $PAD];
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int c = get_group_id(0) * TS + tx;
    const int r = get_group_id(1) * TS + ty;
    tile[ty][tx] = A[r * C + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int rb = get_group_id(0) * TS + ty;
    const int cb = get_group_id(1) * TS + tx;
    B[rb * R + cb] = tile[tx][ty];
}
"""

# A batch of S matrices, each R x C: B[s] = A[s]^T, 3D NDRange (c, r, s).
BATCHED = """
__kernel void transpose_batched(const int S, const int R, const int C, __global const $T* A,
                                __global $T* B)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    const int s = get_global_id(2);
    const int base = s * R * C;
    B[base + c * R + r] = A[base + r * C + c];
}
"""

SIZES = {"R": pow2(6, 14), "C": pow2(6, 14)}
TILED_SIZES = {"R": dense_sizes(6, 14, 2), "C": dense_sizes(6, 14, 2)}  # transpose_tiled; holds SIZES
CHECK = {"R": 64, "C": 96}


def _reference(inp, sizes):
    return {"B": inp["A"].reshape(sizes["R"], sizes["C"]).T}


def _args(prec: Precision) -> list[Arg]:
    return [Arg("R", "scalar", "int32", "R"), Arg("C", "scalar", "int32", "C"),
            Arg("A", "buffer", prec.dtype, "R * C"), Arg("B", "buffer", prec.dtype, "R * C", "out")]


def _naive(prec: Precision, coalesce: str) -> KernelSpec:
    d0, d1 = ("c", "r") if coalesce == "read" else ("r", "c")
    return KernelSpec(
        kernel_id=kernel_id("transpose_naive", coalesce, prec.name), family="transpose_naive",
        variant={"coalesced": coalesce, "precision": prec.name}, kernel_name="transpose_naive",
        source=render(NAIVE, prec, D0=d0, D1=d1), sizes=SIZES, check_sizes=CHECK, constraints=[],
        args=_args(prec), global_size=["C", "R"] if coalesce == "read" else ["R", "C"],
        local_sizes=LOCAL_2D, reference=_reference, rtol=0.0, atol=0.0)


def _tiled(prec: Precision, ts: int, pad: int) -> KernelSpec:
    return KernelSpec(
        kernel_id=kernel_id("transpose_tiled", f"t{ts}", f"p{pad}", prec.name),
        family="transpose_tiled", variant={"tile": ts, "pad": pad, "precision": prec.name},
        kernel_name="transpose_tiled", source=render(TILED, prec, TS=ts, PAD=pad), sizes=TILED_SIZES,
        check_sizes=CHECK, constraints=[f"R % {ts} == 0", f"C % {ts} == 0"], args=_args(prec),
        global_size=["C", "R"], local_sizes=[[ts, ts]], reference=_reference, rtol=0.0, atol=0.0)


def _batched(prec: Precision) -> KernelSpec:
    def reference(inp, sizes):
        return {"B": inp["A"].reshape(sizes["S"], sizes["R"], sizes["C"]).transpose(0, 2, 1)}

    return KernelSpec(
        kernel_id=kernel_id("transpose_batched", prec.name), family="transpose_batched",
        variant={"precision": prec.name}, kernel_name="transpose_batched",
        source=render(BATCHED, prec),
        sizes={"S": pow2(0, 10, 2), "R": pow2(4, 12, 2), "C": pow2(4, 12, 2)},
        check_sizes={"S": 8, "R": 16, "C": 32}, constraints=[],
        args=[Arg("S", "scalar", "int32", "S"), Arg("R", "scalar", "int32", "R"),
              Arg("C", "scalar", "int32", "C"), Arg("A", "buffer", prec.dtype, "S * R * C"),
              Arg("B", "buffer", prec.dtype, "S * R * C", "out")],
        global_size=["C", "R", "S"], local_sizes=LOCAL_3D, reference=reference, rtol=0.0, atol=0.0)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_naive(prec, co) for co in ("read", "write")]
        out += [_tiled(prec, ts, pad) for ts in (8, 16, 32) for pad in (0, 1)]
        out.append(_batched(prec))
    return out
