"""The harness on a real GPU (skipped elsewhere): device fill, binary cache, exact counts on the GPU's
own context, and a short campaign whose rows carry instrumented counts. Run on the GPU host with

    python -m pytest -q -m gpu tests/test_harness_gpu.py
"""
from __future__ import annotations

import json

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl")

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu():
    from kgraph.data.harness.devices import list_devices

    found = [d for d in list_devices() if d.type == "GPU"]
    if not found:
        pytest.skip("no OpenCL GPU")
    info = found[0]
    ctx = cl.Context([info.open()])
    return info, ctx, cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def test_fill_and_build_cache_on_gpu(gpu, tmp_path, monkeypatch):
    from kgraph.data.harness.builds import build_program
    from kgraph.data.harness.fill import DeviceFiller, buffer_key, reference_fill

    info, ctx, queue = gpu
    n = 1 << 20
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * 8)
    filler = DeviceFiller(ctx, queue)
    for dtype in ("float32", "float64", "int32"):
        filler.fill(buf, dtype, n, buffer_key(0, "x"))
        got = np.empty(n, dtype)
        cl.enqueue_copy(queue, got, buf)
        assert np.array_equal(got, reference_fill(dtype, n, buffer_key(0, "x")))
    monkeypatch.setenv("KGRAPH_BUILD_CACHE", str(tmp_path))
    src = "__kernel void k(__global float *x) { x[get_global_id(0)] += 1.0f; }"
    assert build_program(ctx, src)[1] is False
    assert build_program(ctx, src)[1] is True


def test_exact_counts_on_the_gpu_context(gpu, tmp_path, monkeypatch):
    """axpy at n = 2^22: 2 FLOPs, 8 bytes loaded, 4 stored, 8 bytes touched per element."""
    from kgraph.data.corpus import all_specs
    from kgraph.data.harness.counts import CountCache
    from kgraph.data.harness.runner import KernelRunner
    from kgraph.data.harness.sampling import LaunchConfig
    from kgraph.data.harness.timing import TimingPolicy

    monkeypatch.setenv("KGRAPH_BUILD_CACHE", str(tmp_path))
    info, ctx, queue = gpu
    spec = next(s for s in all_specs() if s.kernel_id == "axpy.v1.c1.fp32")
    n = 1 << 22
    config = LaunchConfig((("n", n),), (n,), (256,))
    runner = KernelRunner(ctx, queue, info.device_id, spec, TimingPolicy(), counts=CountCache("auto"))
    assert runner.build() == ("ok", "")
    row = next(iter(runner.measure([config])))
    assert row["status"] == "ok" and row["counts_source"] == "instrumented"
    assert (row["flops_fp32"], row["global_load_bytes"], row["global_store_bytes"]) == (2 * n, 8 * n, 4 * n)
    assert row["footprint_bytes"] == 8 * n and row["median_time_ns"] < 1e6


def test_short_gpu_campaign(gpu, tmp_path, monkeypatch):
    from kgraph.data.harness.campaign import CampaignOptions, run_campaign
    from kgraph.data.harness.store import read_launches

    monkeypatch.setenv("KGRAPH_BUILD_CACHE", str(tmp_path / "cache"))
    info, _, _ = gpu
    out = tmp_path / "ds"
    summary = run_campaign(CampaignOptions(device=info.device_id, out=str(out), families=["axpy", "gemm_tiled"],
                                           max_per_kernel=6, budget_s=60, progress=False))
    df = read_launches(out)
    ok = df[df.status == "ok"]
    assert len(ok) >= 0.9 * len(df) and len(df) >= 100
    assert (ok.counts_source == "instrumented").mean() > 0.5
    assert (ok[ok.counts_source == "instrumented"].footprint_bytes > 0).all()
    gemm = ok[ok.family == "gemm_tiled"].iloc[0]
    sizes = json.loads(gemm.sizes)
    assert gemm.flops_fp32 >= 2 * sizes["M"] * sizes["N"] * sizes["K"]
    assert {"timing", "counts", "check"} <= set(summary.phases)
