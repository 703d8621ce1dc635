"""Timing samples (means of back-to-back launches) and the structured host-input cache."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kgraph.data.harness.inputs import HostInputCache, generator_key
from kgraph.data.harness.timing import Timing, TimingPolicy, launches_per_sample, time_launch


class _Event:
    def __init__(self, ns):
        self.ns = ns

    def get_profiling_info(self, what):
        import pyopencl as cl

        return {cl.profiling_info.START: 0, cl.profiling_info.END: self.ns}[what]

    def wait(self):
        pass


def _launcher(durations):
    """A fake enqueue whose events last ``durations`` in turn (the timing loop's only contact)."""
    it = iter(durations)
    return lambda queue: _Event(next(it))


def test_launches_per_sample_from_warmup():
    policy = TimingPolicy(sample_ns=50_000, max_launches_per_sample=256)
    assert launches_per_sample(2_000, policy) == 25       # ceil(50 us / 2 us)
    assert launches_per_sample(3_000, policy) == 17       # ceil(16.7)
    assert launches_per_sample(50_000, policy) == 1
    assert launches_per_sample(10, policy) == 256         # capped
    assert launches_per_sample(2_000, TimingPolicy(sample_ns=0)) == 1


def test_a_sample_is_the_mean_of_k_launches():
    # warm-up 10 us -> k = 5 with sample_ns 50 us; launches alternate 8 and 12 us: every sample of
    # 5 consecutive launches is 8,12,8,12,8 -> 9.6 or 12,8,12,8,12 -> 10.4 us
    policy = TimingPolicy(sample_ns=50_000, min_repeats=3, max_repeats=4, time_cap_s=1.0, target_cv=0.0,
                          extra_warmup_fast=0)
    durations = [10_000] + [8_000, 12_000] * 100
    t = time_launch(None, _launcher(durations), policy)
    assert t.launches_per_sample == 5
    assert t.repeats == 4
    np.testing.assert_allclose(t.times_ns, [9_600, 10_400, 9_600, 10_400])
    assert t.median_time_ns == pytest.approx(10_000)
    # the same launches one by one: CV 0.2 instead of ~0.045
    single = time_launch(None, _launcher(durations), TimingPolicy(sample_ns=0, max_repeats=4, target_cv=0.0,
                                                                  extra_warmup_fast=0))
    assert single.launches_per_sample == 1 and single.cv == pytest.approx(np.std([8e3, 12e3] * 2, ddof=1) / 1e4)
    assert t.cv < single.cv / 4


def test_k_comes_from_the_quickest_warmup_launch():
    # first launch 30 us (cold), then 9 and 10 us: k = ceil(50 / 9) = 6, not ceil(50 / 30) = 2
    policy = TimingPolicy(sample_ns=50_000, min_repeats=3, max_repeats=3, target_cv=0.0, extra_warmup_fast=2)
    t = time_launch(None, _launcher([30_000, 9_000, 10_000] + [10_000] * 100), policy)
    assert t.launches_per_sample == 6 and t.warmup_ns == 9_000 and t.repeats == 3


def test_slow_kernels_are_timed_one_launch_per_sample():
    policy = TimingPolicy(sample_ns=50_000, slow_launch_s=0.25)
    t = time_launch(None, _launcher([3e8] * 10), policy)
    assert t.launches_per_sample == 1 and t.repeats == policy.min_repeats


def test_slow_repeats_option_times_only_a_slow_launch_once():
    """``--slow-repeats 1``: a launch slower than ``slow_launch_s`` gets one timed repeat after its warm-up; a
    launch of 10 ms (one sample a repeat) still gets ``min_repeats`` (3), as every other launch does."""
    import argparse

    from kgraph.data.harness.campaign import add_arguments, options_from_args
    from kgraph.errors import UsageError

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    policy = options_from_args(parser.parse_args(["--slow-repeats", "1"])).policy
    assert (policy.slow_repeats, policy.min_repeats, policy.max_repeats, policy.target_cv) == (1, 3, 50, 0.02)
    policy = dataclasses.replace(policy, slow_launch_s=0.25)
    slow = time_launch(None, _launcher([3e8] * 10), policy)
    assert slow.repeats == 1 and slow.median_time_ns == 3e8
    mid = time_launch(None, _launcher([1e7] * 10), policy)  # CV 0 after one sample: min_repeats still holds
    assert mid.repeats == 3
    assert time_launch(None, _launcher([3e8] * 10), TimingPolicy(slow_launch_s=0.25)).repeats == 3  # default
    for bad, why in ((["--slow-repeats", "0"], "must be positive"), (["--slow-repeats", "60"], "more than --max-repeats")):
        with pytest.raises(UsageError, match=why):
            options_from_args(parser.parse_args(bad))


def _factory(scale):
    def make_inputs(rng, sizes):
        return {"a": rng.uniform(0, scale, sizes["n"]).astype(np.float32)}
    return make_inputs


class _Spec:
    def __init__(self, make_inputs):
        self.make_inputs = make_inputs


def test_host_inputs_are_seeded_by_sizes_shared_and_bounded():
    cache = HostInputCache(max_bytes=3 * 4 * 100)
    one, same_kind, other = _Spec(_factory(1.0)), _Spec(_factory(1.0)), _Spec(_factory(2.0))
    assert generator_key(one.make_inputs) == generator_key(same_kind.make_inputs)
    assert generator_key(one.make_inputs) != generator_key(other.make_inputs)
    a100 = cache.get(one, {"n": 100})
    a50 = cache.get(one, {"n": 50})
    # the values of a size do not depend on what was generated before
    fresh = HostInputCache().get(one, {"n": 50})
    np.testing.assert_array_equal(a50["a"], fresh["a"])
    assert cache.get(same_kind, {"n": 100}) is a100          # shared between equal generators
    assert (cache.hits, cache.misses) == (1, 2)
    assert not a100["a"].flags.writeable
    cache.get(other, {"n": 100})                              # 400 + 200 + 400 = 1000 <= 1200
    assert len(cache) == 3 and cache.bytes == 1000
    cache.get(other, {"n": 60})   # 1240 > 1200: the least recently used (n=50; n=100 was hit) goes
    assert len(cache) == 3 and cache.bytes == 1040
    cache.get(one, {"n": 100})
    assert (cache.hits, cache.misses) == (2, 4)
    cache.get(one, {"n": 50})
    assert cache.misses == 5


def test_prefetched_inputs_are_made_once_and_errors_reach_get():
    cache = HostInputCache()
    spec = _Spec(_factory(1.0))
    assert cache.prefetch(spec, {"n": 1000}) is True
    assert cache.prefetch(spec, {"n": 1000}) is False          # in flight or kept already
    arrays = cache.get(spec, {"n": 1000})
    assert cache.misses == 0 and cache.hits == 1
    assert cache.get(spec, {"n": 1000}) is arrays
    np.testing.assert_array_equal(arrays["a"], HostInputCache(prefetch_threads=0).get(spec, {"n": 1000})["a"])

    def broken(rng, sizes):
        raise ValueError(f"no inputs for n={sizes['n']}")
    bad = _Spec(broken)
    cache.prefetch(bad, {"n": 3})
    with pytest.raises(ValueError, match="no inputs for n=3"):
        cache.get(bad, {"n": 3})
    assert HostInputCache(prefetch_threads=0).prefetch(spec, {"n": 5}) is False
    cache.close()


def test_fast_profiling_reads_equal_the_profile_properties(pocl_context):
    """durations_ns reads the same end - start as pyopencl's ``event.profile`` on a real PoCL queue."""
    from kgraph.data.harness.timing import durations_ns

    cl, ctx = pocl_context
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    kernel = cl.Kernel(cl.Program(ctx, "__kernel void k(__global float *a) { a[get_global_id(0)] += 1.0f; }").build(), "k")
    buffer = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096)  # kept alive: PoCL crashes on a released argument
    kernel.set_args(buffer)
    events = [cl.enqueue_nd_range_kernel(queue, kernel, (64,), (64,)) for _ in range(20)]
    events[-1].wait()
    assert durations_ns(events).tolist() == [float(e.profile.end - e.profile.start) for e in events]
