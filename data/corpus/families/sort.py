"""Bitonic sorting: one global compare-exchange step (k, j) of the network, and a work-group
local sort of 2*WG-element chunks (the first phase of a bitonic merge sort)."""
from __future__ import annotations

import numpy as np

from kgraph.data.dtypes import OPENCL_TYPES

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, dense_sizes, kernel_id, pow2, render

STEP = """
__kernel void bitonic_step(const int n, const int k, const int j, __global $K* data)
{
    const int i = get_global_id(0);
    const int ixj = i ^ j;
    if (ixj > i) {
        const $K a = data[i];
        const $K b = data[ixj];
        const int up = (i & k) == 0;
        if ((up && a > b) || (!up && a < b)) {
            data[i] = b;
            data[ixj] = a;
        }
    }
}
"""

LOCAL = """
#define WG $WG
#define NB (2 * WG)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_local(const int n, __global $K* data)
{
    __local $K t[NB];
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * NB;
    t[lid] = data[base + lid];
    t[lid + WG] = data[base + lid + WG];
    for (int k = 2; k <= NB; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            const int i = 2 * lid - (lid & (j - 1));
            const int up = (i & k) == 0;
            const $K a = t[i];
            const $K b = t[i + j];
            if ((a > b) == up) {
                t[i] = b;
                t[i + j] = a;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    data[base + lid] = t[lid];
    data[base + lid + WG] = t[lid + WG];
}
"""

CTYPES = {name: OPENCL_TYPES[name] for name in ("float32", "float64", "int32", "uint32")}
FP64 = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
# (name, k expression, j expression): early, middle and final steps of the network
STAGES = (("k2j1", "2", "1"), ("mid", "n // 8", "n // 64"), ("last", "n", "1"), ("wide", "n", "n // 2"))


def _keys(dtype: str):
    def make_inputs(rng, sizes):
        n = sizes["n"]
        if dtype.startswith("float"):
            return {"data": rng.uniform(-1e3, 1e3, n).astype(dtype)}
        return {"data": rng.integers(0, 2**31 - 1, n).astype(dtype)}
    return make_inputs


def _step_ref(inp, sizes):
    data = inp["data"].copy()
    k, j = int(inp["k"]), int(inp["j"])
    i = np.arange(data.size)
    ixj = i ^ j
    lo = i[ixj > i]
    hi = ixj[ixj > i]
    up = (lo & k) == 0
    a, b = data[lo], data[hi]
    swap = np.where(up, a > b, a < b)
    data[lo[swap]], data[hi[swap]] = b[swap], a[swap]
    return {"data": data}


def _step(dtype: str, stage) -> KernelSpec:
    name, kexpr, jexpr = stage
    return KernelSpec(
        kernel_id=kernel_id("bitonic_step", name, dtype), family="bitonic_step",
        variant={"stage": name, "dtype": dtype}, kernel_name="bitonic_step",
        source=(FP64 if dtype == "float64" else "") + render(STEP, K=CTYPES[dtype]),
        sizes={"n": dense_sizes(10, 26, 4, step=2)}, check_sizes={"n": 4096}, constraints=[],
        args=[Arg("n", "scalar", "int32", "n"), Arg("k", "scalar", "int32", kexpr),
              Arg("j", "scalar", "int32", jexpr), Arg("data", "buffer", dtype, "n", "inout")],
        global_size=["n"], local_sizes=LOCAL_1D, make_inputs=_keys(dtype), reference=_step_ref,
        rtol=0.0, atol=0.0)


def _local(dtype: str, wg: int) -> KernelSpec:
    def reference(inp, sizes):
        return {"data": np.sort(inp["data"].reshape(-1, 2 * wg), axis=1)}

    return KernelSpec(
        kernel_id=kernel_id("bitonic_local", f"wg{wg}", dtype), family="bitonic_local",
        variant={"work_group": wg, "dtype": dtype}, kernel_name="bitonic_local",
        source=(FP64 if dtype == "float64" else "") + render(LOCAL, K=CTYPES[dtype], WG=wg),
        sizes={"n": dense_sizes(12, 26, 16, step=2)}, check_sizes={"n": 8192}, constraints=[f"n % {2 * wg} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("data", "buffer", dtype, "n", "inout")],
        global_size=[f"n // 2"], local_sizes=[[wg]], make_inputs=_keys(dtype), reference=reference,
        rtol=0.0, atol=0.0)


def specs() -> list[KernelSpec]:
    out = [_step(dt, st) for dt in ("float32", "int32", "uint32", "float64") for st in STAGES]
    out += [_local(dt, wg) for dt in ("float32", "int32", "float64") for wg in (64, 128, 256)]
    return out
