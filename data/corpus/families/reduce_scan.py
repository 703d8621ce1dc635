"""Reductions and scans within work-groups: sum and max (one partial per group) and inclusive
(Hillis-Steele) and exclusive (Blelloch, two elements per item) block scans."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import PRECISIONS, Precision, dense_sizes, kernel_id, pow2, reduction_tol, render

REDUCE = """
#define WG $WG
#define COARSEN $C
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_$OP(const int n, __global const $T* in, __global $T* partial)
{
    __local $T buf[WG];
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * WG * COARSEN + lid;
    $T acc = in[base];
    for (int c = 1; c < COARSEN; ++c) {
        acc = $COMBINE(acc, in[base + c * WG]);
    }
    buf[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            buf[lid] = $COMBINE(buf[lid], buf[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = buf[0];
    }
}
"""

ADD = """
$T add_op($T a, $T b)
{
    return a + b;
}
"""

HILLIS = """
#define WG $WG
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_hillis(const int n, __global const $T* in, __global $T* out)
{
    __local $T a[WG];
    __local $T b[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    a[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local $T* src = a;
    __local $T* dst = b;
    for (int off = 1; off < WG; off <<= 1) {
        dst[lid] = (lid >= off) ? src[lid] + src[lid - off] : src[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        __local $T* tmp = src;
        src = dst;
        dst = tmp;
    }
    out[gid] = src[lid];
}
"""

BLELLOCH = """
#define WG $WG
#define NB (2 * WG)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_blelloch(const int n, __global const $T* in, __global $T* out, __global $T* sums)
{
    __local $T t[NB];
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * NB;
    t[lid] = in[base + lid];
    t[lid + WG] = in[base + lid + WG];
    int off = 1;
    for (int d = WG; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const int ai = off * (2 * lid + 1) - 1;
            const int bi = off * (2 * lid + 2) - 1;
            t[bi] += t[ai];
        }
        off <<= 1;
    }
    if (lid == 0) {
        sums[get_group_id(0)] = t[NB - 1];
        t[NB - 1] = 0;
    }
    for (int d = 1; d < NB; d <<= 1) {
        off >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const int ai = off * (2 * lid + 1) - 1;
            const int bi = off * (2 * lid + 2) - 1;
            const $T v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + lid] = t[lid];
    out[base + lid + WG] = t[lid + WG];
}
"""

SIZES = {"n": dense_sizes(12, 26, 16, step=2)}  # holds every pow2(12, 26, 2) point


def _reduce(prec: Precision, op: str, wg: int, coarsen: int) -> KernelSpec:
    combine = "add_op" if op == "sum" else "fmax"
    source = render((ADD if op == "sum" else "") + REDUCE, prec, WG=wg, C=coarsen, OP=op,
                    COMBINE=combine)

    def reference(inp, sizes):
        blocks = inp["in"].astype(np.float64).reshape(-1, wg * coarsen)
        return {"partial": blocks.sum(axis=1) if op == "sum" else blocks.max(axis=1)}

    rtol, atol = reduction_tol(prec) if op == "sum" else (0.0, 0.0)
    per_group = wg * coarsen
    return KernelSpec(
        kernel_id=kernel_id(f"reduce_{op}", f"wg{wg}", f"c{coarsen}", prec.name),
        family=f"reduce_{op}", variant={"work_group": wg, "coarsen": coarsen, "precision": prec.name},
        kernel_name=f"reduce_{op}", source=source, sizes=SIZES, check_sizes={"n": 16384},
        constraints=[f"n % {per_group} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("in", "buffer", prec.dtype, "n"),
              Arg("partial", "buffer", prec.dtype, f"n // {per_group}", "out")],
        global_size=[f"n // {coarsen}"], local_sizes=[[wg]], reference=reference, rtol=rtol, atol=atol)


def _hillis(prec: Precision, wg: int) -> KernelSpec:
    def reference(inp, sizes):
        return {"out": np.cumsum(inp["in"].astype(np.float64).reshape(-1, wg), axis=1)}

    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("scan_hillis", f"wg{wg}", prec.name), family="scan_hillis",
        variant={"work_group": wg, "precision": prec.name}, kernel_name="scan_hillis",
        source=render(HILLIS, prec, WG=wg), sizes=SIZES, check_sizes={"n": 16384},
        constraints=[f"n % {wg} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("in", "buffer", prec.dtype, "n"),
              Arg("out", "buffer", prec.dtype, "n", "out")],
        global_size=["n"], local_sizes=[[wg]], reference=reference, rtol=rtol, atol=atol)


def _blelloch(prec: Precision, wg: int) -> KernelSpec:
    def reference(inp, sizes):
        blocks = inp["in"].astype(np.float64).reshape(-1, 2 * wg)
        incl = np.cumsum(blocks, axis=1)
        return {"out": incl - blocks, "sums": incl[:, -1]}

    rtol, atol = reduction_tol(prec)
    return KernelSpec(
        kernel_id=kernel_id("scan_blelloch", f"wg{wg}", prec.name), family="scan_blelloch",
        variant={"work_group": wg, "precision": prec.name}, kernel_name="scan_blelloch",
        source=render(BLELLOCH, prec, WG=wg), sizes=SIZES, check_sizes={"n": 16384},
        constraints=[f"n % {2 * wg} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("in", "buffer", prec.dtype, "n"),
              Arg("out", "buffer", prec.dtype, "n", "out"),
              Arg("sums", "buffer", prec.dtype, f"n // {2 * wg}", "out")],
        global_size=[f"n // 2"], local_sizes=[[wg]], reference=reference, rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_reduce(prec, "sum", wg, c) for wg in (64, 128, 256) for c in (1, 4, 16)]
        out += [_reduce(prec, "max", wg, c) for wg in (64, 128, 256) for c in (1, 8)]
        out += [_hillis(prec, wg) for wg in (64, 128, 256, 512)]
        out += [_blelloch(prec, wg) for wg in (64, 128, 256, 512)]
    return out
