"""Device input fill, binary build cache and on-device instrumented counts of the harness (PoCL)."""
from __future__ import annotations

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl")

from kgraph.data.harness.fill import DeviceFiller, buffer_key, reference_fill  # noqa: E402


def _lowbias32(x: int) -> int:
    """Independent pure-Python hash (the one the fill kernels use)."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


@pytest.fixture(scope="module")
def cl_env():
    from kgraph.data.harness.devices import pick_device

    try:
        device = pick_device("pocl").open()
    except Exception as exc:  # pragma: no cover - no PoCL here
        pytest.skip(str(exc))
    ctx = cl.Context([device])
    return ctx, cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def test_reference_fill_matches_pure_python_hash():
    key = buffer_key(7, "x")
    for i in (0, 1, 2, 12345):
        h = _lowbias32((_lowbias32(i ^ key) + key) & 0xFFFFFFFF)
        assert reference_fill("float32", i + 1, key)[i] == np.float32((h >> 8) / 2**23 - 1.0)
        assert reference_fill("float64", i + 1, key)[i] == h / 2**31 - 1.0
        assert reference_fill("int32", i + 1, key)[i] == h % 100
    f = reference_fill("float32", 100_000, key)
    assert f.min() >= -1.0 and f.max() < 1.0 and abs(float(f.mean())) < 0.01
    u = reference_fill("uint32", 100_000, key)
    assert u.min() == 0 and u.max() == 99 and u.dtype == np.uint32
    # streams differ by seed and by buffer name, and a prefix of a bigger fill equals the smaller fill
    assert buffer_key(7, "x") != buffer_key(8, "x") != buffer_key(7, "y")
    assert np.array_equal(reference_fill("float32", 10, key), f[:10])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32"])
def test_device_fill_equals_reference(cl_env, dtype):
    ctx, queue = cl_env
    filler = DeviceFiller(ctx, queue)
    n = 1000
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * np.dtype(dtype).itemsize)
    filler.fill(buf, dtype, n, buffer_key(3, "A"))
    got = np.empty(n, dtype)
    cl.enqueue_copy(queue, got, buf)
    assert np.array_equal(got, reference_fill(dtype, n, buffer_key(3, "A")))
    filler.zero(buf, n * np.dtype(dtype).itemsize)
    cl.enqueue_copy(queue, got, buf)
    assert not got.any()


def test_build_cache_miss_then_hit(cl_env, tmp_path, monkeypatch):
    from kgraph.data.harness.builds import build_program, cache_dir

    monkeypatch.setenv("KGRAPH_BUILD_CACHE", str(tmp_path / "cache"))
    ctx, queue = cl_env
    src = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }"
    _, hit = build_program(ctx, src)
    assert hit is False and len(list(cache_dir().glob("*.bin"))) == 1
    program, hit = build_program(ctx, src)
    assert hit is True
    x = np.arange(8, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    program.twice(queue, (8,), None, buf)
    cl.enqueue_copy(queue, x, buf)
    assert x.tolist() == [0, 2, 4, 6, 8, 10, 12, 14]


def _saxpy_spec():
    from kgraph.data.corpus import all_specs

    return next(s for s in all_specs() if s.kernel_id == "axpy.v1.c1.fp32")


def test_runner_counts_instrumented_on_its_own_buffers(cl_env, tmp_path, monkeypatch):
    """axpy y = a*x + y: per element 1 mul + 1 add, loads x and y, stores y (fp32)."""
    from kgraph.data.harness.counts import CountCache
    from kgraph.data.harness.runner import KernelRunner
    from kgraph.data.harness.sampling import LaunchConfig
    from kgraph.data.harness.timing import TimingPolicy

    monkeypatch.setenv("KGRAPH_BUILD_CACHE", str(tmp_path / "cache"))
    ctx, queue = cl_env
    spec = _saxpy_spec()
    n = 4096
    config = LaunchConfig(tuple(sorted({"n": n}.items())), tuple(spec.global_size_of({"n": n})), (64,))
    phases = {}
    runner = KernelRunner(ctx, queue, "pocl-test", spec, TimingPolicy(max_repeats=5, time_cap_s=0.01),
                          counts=CountCache("auto"), phases=phases)
    assert runner.build() == ("ok", "")
    row = next(iter(runner.measure([config])))
    assert row["status"] == "ok" and row["counts_source"] == "instrumented"
    assert (row["flops_fp32"], row["global_load_bytes"], row["global_store_bytes"]) == (2 * n, 8 * n, 4 * n)
    assert (row["footprint_bytes"], row["atomics"], row["flops_fp64"]) == (8 * n, 0, 0)
    assert {"build (from source)", "check", "inputs (device)", "timing", "counts (build)", "counts (run)"} <= set(phases)
    assert row["launches_per_sample"] >= 1 and row["repeats"] >= 3
    # the same launch with instrumentation capped out: no counts from the worker, static ones in the
    # supervisor (the footprint too, where the static analysis is exact: equal to the instrumented one)
    cache = CountCache("auto", max_instrumented_time_s=0.0)
    capped = KernelRunner(ctx, queue, "pocl-test", spec, TimingPolicy(max_repeats=5, time_cap_s=0.01), counts=cache)
    capped.build()
    row = next(iter(capped.measure([config])))
    assert row["counts_source"] is None and row["flops_fp32"] == -1
    values, source = cache.static(spec, config)
    assert source == "static" and values["footprint_bytes"] == 8 * n
    assert (values["flops_fp32"], values["global_load_bytes"], values["global_store_bytes"]) == (2 * n, 8 * n, 4 * n)


def test_static_analysis_is_parsed_once_per_kernel():
    from kgraph.data.harness.counts import _analysis_of, static_counts

    spec = _saxpy_spec()
    _analysis_of.cache_clear()
    for n in (256, 512, 1024):
        counts = static_counts(spec.source, spec.lang, spec.kernel_name,
                               {k: float(v) for k, v in spec.scalar_values({"n": n}).items()}, [n], [64])
        assert counts["global_store_bytes"] == 4 * n
    info = _analysis_of.cache_info()
    assert (info.misses, info.hits) == (1, 2)


def test_host_fallback_writes_the_device_fill_values(cl_env):
    """Without a fill program the runner uploads reference_fill: the same inputs either way."""
    from kgraph.data.harness.runner import KernelRunner

    ctx, queue = cl_env
    spec = _saxpy_spec()
    n = 777
    got = {}
    for filler in (DeviceFiller(ctx, queue), False):
        runner = KernelRunner(ctx, queue, "pocl-test", spec, filler=filler, seed=5)
        buffers = {name: cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * 4) for name in ("x", "y")}
        runner._fill_defaults(buffers, {"x": n, "y": n}, skip=())
        for name, buf in buffers.items():
            got[(name, bool(filler))] = np.empty(n, np.float32)
            cl.enqueue_copy(queue, got[(name, bool(filler))], buf)
    for name in ("x", "y"):
        assert np.array_equal(got[(name, True)], got[(name, False)])
        assert np.array_equal(got[(name, True)], reference_fill("float32", n, buffer_key(5, name)))
