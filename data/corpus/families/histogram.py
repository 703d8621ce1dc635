"""Histograms with atomics: global atomic increments, or per-work-group local bins merged with
global atomic adds; each work-item bins ITEMS values (strided for coalescing)."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import dense_sizes, kernel_id, pow2, render

GLOBAL = """
#define BINS $BINS
#define ITEMS $ITEMS
__kernel void histogram_global(const int n, __global const uint* data, __global uint* hist)
{
    const int gid = get_global_id(0);
    const int stride = get_global_size(0);
    for (int k = 0; k < ITEMS; ++k) {
        const uint v = data[gid + k * stride];
        atomic_inc(&hist[v % BINS]);
    }
}
"""

LOCAL = """
#define BINS $BINS
#define ITEMS $ITEMS
__kernel void histogram_local(const int n, __global const uint* data, __global uint* hist)
{
    __local uint bins[BINS];
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    for (int b = lid; b < BINS; b += lsz) {
        bins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int gid = get_global_id(0);
    const int stride = get_global_size(0);
    for (int k = 0; k < ITEMS; ++k) {
        const uint v = data[gid + k * stride];
        atomic_inc(&bins[v % BINS]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < BINS; b += lsz) {
        const uint c = bins[b];
        if (c > 0) {
            atomic_add(&hist[b], c);
        }
    }
}
"""


def _make_inputs(bins: int, skew: bool):
    def make_inputs(rng, sizes):
        n = sizes["n"]
        if skew:  # a peaked distribution: heavy contention on a few bins
            v = np.abs(rng.normal(0.0, bins / 16.0, n)).astype(np.int64) % bins
        else:
            v = rng.integers(0, bins, n)
        return {"data": v.astype(np.uint32)}
    return make_inputs


def _spec(kind: str, bins: int, items: int, skew: bool) -> KernelSpec:
    family = f"histogram_{kind}"

    def reference(inp, sizes):
        return {"hist": np.bincount(inp["data"].astype(np.int64) % bins, minlength=bins)}

    return KernelSpec(
        kernel_id=kernel_id(family, f"b{bins}", f"i{items}", "skew" if skew else "uniform"),
        family=family, variant={"bins": bins, "items_per_work_item": items, "skewed": skew},
        kernel_name=family, source=render(GLOBAL if kind == "global" else LOCAL, BINS=bins, ITEMS=items),
        sizes={"n": dense_sizes(12, 26, 4, step=2)}, check_sizes={"n": 65536}, constraints=[f"n % {items} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("data", "buffer", "uint32", "n"),
              Arg("hist", "buffer", "uint32", str(bins), "out")],
        global_size=[f"n // {items}"], local_sizes=[[256], [128], [64], [512], [1024]],
        make_inputs=_make_inputs(bins, skew), reference=reference, rtol=0.0, atol=0.0)


def specs() -> list[KernelSpec]:
    out = []
    for kind in ("global", "local"):
        for bins in (16, 256, 4096):
            for items in (1, 16):
                for skew in (False, True):
                    out.append(_spec(kind, bins, items, skew))
    return out
