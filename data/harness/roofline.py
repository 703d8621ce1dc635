"""Roofline micro-benchmarks measured by the harness on the device itself.

* copy bandwidth: ``out[i] = in[i]`` over float4 buffers far larger than the last-level cache;
* fp32 / fp64 FMA peak: each work-item runs 8 independent chains of vector ``a * b + c``
  (OpenCL contracts it to the hardware FMA where there is one; ``fma()``/``mad()`` became slow
  library calls on PoCL's generic CPU target, and explicit vectors are needed there because PoCL
  does not vectorise this loop across work-items). The vectors are 16 lanes wide on CPUs and 8 on GPUs
  (:func:`fma_lanes`): with 8 lanes an AVX-512 Xeon under PoCL reached half its fp32 peak (the dev box's: 115
  against 209 GFLOP/s with 16; the GPU host's measured fp32 568–709 GFLOP/s, below its fp64), while a GPU
  scalarises vectors and 8 lanes already reach its peak (H200: 65.3 TFLOP/s);
* local-memory bandwidth: work-groups stream reads and writes through ``__local`` arrays;
* launch overhead: profiling-event duration of an empty kernel (``launch_overhead_us``) and
  host wall time per launch of back-to-back empty kernels (``launch_wall_us``).

Each figure is the best (minimum time) of several repeats, as peak numbers are.
"""
from __future__ import annotations

import time

import numpy as np

#: version of these micro-benchmarks on CPUs, written to ``device.json`` as ``roofline_method`` (a descriptor
#: without it is version 1): 2 measures the FMA peaks with 16-lane vectors on CPUs (:func:`fma_lanes`), 1 with 8
#: lanes, which gave half the fp32 peak of an AVX-512 Xeon. A device's measurements by an older version are
#: superseded (:func:`kgraph.data.device_descriptors.merge_descriptors`). GPUs run what version 1 ran, so their
#: descriptors say 1 (:func:`roofline_method`) and every campaign's measurement keeps counting in the median.
ROOFLINE_METHOD = 2
FMA_CHAINS = 8
FMA_ITERS = 256
LOCAL_ITERS = 64

_SOURCE = r"""
__kernel void copy4(__global const float4 *restrict src, __global float4 *restrict dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
__kernel void empty(void) { }
#define CAT(a, b) a##b
#define VEC(S, N) CAT(S, N)
#define SUM8(t) ((t).s0 + (t).s1 + (t).s2 + (t).s3 + (t).s4 + (t).s5 + (t).s6 + (t).s7)
#if LANES == 16
#define SUM_LANES(t) SUM8((t).lo + (t).hi)
#else
#define SUM_LANES(t) SUM8(t)
#endif
#define FMA_BODY(S, V) \
    V a0 = (V)((S)(gid) * (S)1e-7), a1 = a0 + (S)0.1, a2 = a0 + (S)0.2, a3 = a0 + (S)0.3, \
      a4 = a0 + (S)0.4, a5 = a0 + (S)0.5, a6 = a0 + (S)0.6, a7 = a0 + (S)0.7; \
    for (int it = 0; it < iters; ++it) { \
        a0 = a0 * b + c; a1 = a1 * b + c; a2 = a2 * b + c; a3 = a3 * b + c; \
        a4 = a4 * b + c; a5 = a5 * b + c; a6 = a6 * b + c; a7 = a7 * b + c; \
        a0 = a0 * b + c; a1 = a1 * b + c; a2 = a2 * b + c; a3 = a3 * b + c; \
        a4 = a4 * b + c; a5 = a5 * b + c; a6 = a6 * b + c; a7 = a7 * b + c; \
    } \
    V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7; \
    out[gid] = SUM_LANES(s);
__kernel void fma32(__global float *out, float b, float c, int iters) {
    size_t gid = get_global_id(0);
    FMA_BODY(float, VEC(float, LANES))
}
#ifdef HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void fma64(__global double *out, double b, double c, int iters) {
    size_t gid = get_global_id(0);
    FMA_BODY(double, VEC(double, LANES))
}
#endif
__kernel void local_rw(__global float *out, __local float *buf, int iters) {
    size_t lid = get_local_id(0), n = get_local_size(0);
    buf[lid] = (float)lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int it = 0; it < iters; ++it) {
        float v = buf[(lid + it) & (n - 1)];
        acc += v;
        buf[(lid + 2 * it + 1) & (n - 1)] = v + 1.0f;
    }
    out[get_global_id(0)] = acc;
}
"""


def fma_lanes(is_gpu: bool) -> int:
    """Vector lanes of the FMA chains: 8 on a GPU (vectors are scalarised), 16 on a CPU (two 256-bit or one
    512-bit register per chain, what an AVX-512 core needs to reach its fp32 peak under PoCL)."""
    return 8 if is_gpu else 16


def roofline_method(is_gpu: bool) -> int:
    """The version of the micro-benchmarks a device of this kind runs: :data:`ROOFLINE_METHOD` on a CPU, 1 on a
    GPU (whose procedure version 2 left as it was)."""
    return 1 if is_gpu else ROOFLINE_METHOD


def flops_per_item_per_iter(lanes: int) -> int:
    """FLOPs per work-item and loop iteration of fma32/fma64: 2 per multiply-add, 2 x 8 chains of ``lanes``."""
    return 2 * 2 * FMA_CHAINS * lanes


def measure_roofline(ctx, queue, device, repeats: int = 5) -> dict:
    """All roofline figures of ``device`` as a dict (keys of ``device.json``'s ``roofline``)."""
    import pyopencl as cl

    has_fp64 = bool(getattr(device, "double_fp_config", 0))
    is_gpu = bool(device.type & cl.device_type.GPU)
    lanes = fma_lanes(is_gpu)
    program = cl.Program(ctx, _SOURCE).build(options=[f"-DLANES={lanes}"] + (["-DHAS_FP64"] if has_fp64 else []))
    result = {
        "copy_bw_gbs": _copy_bw(ctx, queue, program, device, is_gpu, repeats),
        "fp32_gflops": _fma_peak(ctx, queue, cl.Kernel(program, "fma32"), np.float32, device, is_gpu, repeats),
        "fp64_gflops": (_fma_peak(ctx, queue, cl.Kernel(program, "fma64"), np.float64, device, is_gpu, repeats)
                        if has_fp64 else 0.0),
        "local_bw_gbs": _local_bw(ctx, queue, program, device, is_gpu, repeats),
    }
    result.update(_launch_overhead(queue, program))
    return {k: round(float(v), 4) for k, v in result.items()}


def _best_ns(queue, launch, repeats: int) -> float:
    launch(queue).wait()  # warm-up
    events = [launch(queue) for _ in range(repeats)]
    events[-1].wait()
    return min(float(e.profile.end - e.profile.start) for e in events)


def _copy_bw(ctx, queue, program, device, is_gpu, repeats) -> float:
    import pyopencl as cl

    cache = max(int(device.global_mem_cache_size), 1 << 20)
    target = (1 << 30) if is_gpu else max(64 << 20, 8 * cache)
    nbytes = min(target, int(device.max_mem_alloc_size) // 2, int(device.global_mem_size) // 8)
    nbytes -= nbytes % (16 * 1024)
    src = cl.Buffer(ctx, cl.mem_flags.READ_ONLY, nbytes)
    dst = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, nbytes)
    cl.enqueue_fill_buffer(queue, src, np.float32(1.0), 0, nbytes).wait()
    n = nbytes // 16
    kernel = cl.Kernel(program, "copy4")
    ns = _best_ns(queue, lambda q: kernel(q, (n,), None, src, dst), repeats)
    return 2 * nbytes / ns


def _fma_peak(ctx, queue, kernel, dtype, device, is_gpu, repeats) -> float:
    import pyopencl as cl

    items = int(device.max_compute_units) * (2048 if is_gpu else 256)
    iters = FMA_ITERS * (4 if is_gpu else 1)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, items * np.dtype(dtype).itemsize)
    b, c = dtype(0.999999), dtype(1e-6)
    wg = min(128, int(device.max_work_group_size))
    ns = _best_ns(queue, lambda q: kernel(q, (items,), (wg,), out, b, c, np.int32(iters)), repeats)
    return items * iters * flops_per_item_per_iter(fma_lanes(is_gpu)) / ns


def _local_bw(ctx, queue, program, device, is_gpu, repeats) -> float:
    import pyopencl as cl

    wg = 1 << (min(256, int(device.max_work_group_size)).bit_length() - 1)  # a power of two
    items = int(device.max_compute_units) * wg * (64 if is_gpu else 8)
    iters = LOCAL_ITERS * (4 if is_gpu else 1)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, items * 4)
    local = cl.LocalMemory(wg * 4)
    kernel = cl.Kernel(program, "local_rw")
    ns = _best_ns(queue, lambda q: kernel(q, (items,), (wg,), out, local, np.int32(iters)), repeats)
    return items * iters * 8 / ns  # one 4-byte read and one 4-byte write per iteration


def _launch_overhead(queue, program, launches: int = 200) -> dict:
    import pyopencl as cl

    kernel = cl.Kernel(program, "empty")
    kernel(queue, (1,), None).wait()
    events = [kernel(queue, (1,), None) for _ in range(launches)]
    events[-1].wait()
    event_us = float(np.median([e.profile.end - e.profile.start for e in events])) / 1e3
    start = time.perf_counter()
    events = [kernel(queue, (1,), None) for _ in range(launches)]
    events[-1].wait()
    wall_us = (time.perf_counter() - start) / launches * 1e6
    return {"launch_overhead_us": event_us, "launch_wall_us": wall_us}
