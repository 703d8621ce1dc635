"""Kernel timing from OpenCL profiling events: warm-up, then batches of back-to-back repeats
until the coefficient of variation is small enough or a cap is reached.

Repeats are enqueued in batches without waiting in between; the events are read after the batch's
last one completes, so the host never sits between two launches of a batch.

A *sample* is the mean event duration (end - start, the kernel's own time: gaps between launches
are not in it) of ``k`` consecutive launches, with ``k = ceil(sample_ns / warm-up time)`` (1 for
kernels of ``sample_ns`` or more). Single events of microsecond kernels carry the profiling
clock's granularity and launch jitter (CV ~0.13 for 1-10 us kernels on the H200 with k = 1);
the mean over ``k`` launches is the same quantity with that noise averaged out. Median, min, max
and CV are over samples.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TimingPolicy:
    """When to stop repeating a launch.

    Args:
        target_cv: stop as soon as the CV of the repeats is at most this (0.02 = 2%).
        min_repeats / max_repeats: bounds on the number of timed repeats.
        warmup: untimed launches before the first timed one.
        time_cap_s: stop after this much summed kernel time (at least ``min_repeats`` repeats).
        slow_launch_s: a warm-up launch slower than this gets only ``slow_repeats`` repeats.
        slow_repeats: the timed repeats of such a launch (``min_repeats`` by default).
        sample_ns: a timed sample averages ``ceil(sample_ns / warm-up time)`` launches (at most
            ``max_launches_per_sample``); 0 times every launch on its own.
        extra_warmup_fast: more untimed launches for a kernel faster than ``sample_ns`` (the
            first launch after new arguments is often slower); the quickest one sets ``k``.
    """

    target_cv: float = 0.02
    min_repeats: int = 3
    max_repeats: int = 50
    warmup: int = 1
    time_cap_s: float = 0.2
    slow_launch_s: float = 0.25
    sample_ns: float = 200_000.0
    max_launches_per_sample: int = 512
    extra_warmup_fast: int = 2
    slow_repeats: int | None = None


@dataclass(frozen=True)
class Timing:
    """Statistics of the timed repeats of one launch, in nanoseconds.

    Shapes:
        times_ns: float64[repeats], samples in enqueue order: each the mean event duration
            (end - start) of ``launches_per_sample`` back-to-back launches.
    """

    times_ns: np.ndarray
    warmup_ns: float
    wall_s: float
    launches_per_sample: int = 1

    @property
    def repeats(self) -> int:
        return int(self.times_ns.size)

    @property
    def median_time_ns(self) -> float:
        return float(np.median(self.times_ns))

    @property
    def min_time_ns(self) -> float:
        return float(self.times_ns.min())

    @property
    def max_time_ns(self) -> float:
        return float(self.times_ns.max())

    @property
    def cv(self) -> float:
        return coefficient_of_variation(self.times_ns)


def coefficient_of_variation(times: np.ndarray) -> float:
    """Sample standard deviation over mean (ddof=1); 0.0 for fewer than two samples."""
    if times.size < 2:
        return 0.0
    mean = float(times.mean())
    return float(times.std(ddof=1) / mean) if mean > 0 else 0.0


def event_duration_ns(event) -> float:
    """end - start of one profiling event, in ns."""
    return float(durations_ns([event])[0])


def durations_ns(events) -> np.ndarray:
    """end - start of each profiling event, in ns (float64[len(events)]).

    ``get_profiling_info`` directly: the same two clGetEventProfilingInfo calls as ``event.profile.end``
    without a ``ProfilingInfoGetter`` object per read (0.12 against 1.7 us per event with pyopencl
    2026.1 on PoCL here, more than the enqueue itself costs).
    """
    import pyopencl as cl

    start, end = cl.profiling_info.START, cl.profiling_info.END
    return np.fromiter((e.get_profiling_info(end) - e.get_profiling_info(start) for e in events),
                       dtype=np.float64, count=len(events))


def launches_per_sample(warmup_ns: float, policy: TimingPolicy) -> int:
    """How many launches one sample averages, from the warm-up launch's duration."""
    if policy.sample_ns <= 0 or warmup_ns >= policy.sample_ns:
        return 1
    return int(min(policy.max_launches_per_sample, math.ceil(policy.sample_ns / max(warmup_ns, 1.0))))


def time_launch(queue, launch, policy: TimingPolicy = TimingPolicy()) -> Timing:
    """Time ``launch(queue) -> pyopencl.Event`` (one enqueue of the kernel) under ``policy``.

    The queue must have profiling enabled. Raises the driver's error (e.g. out of resources)
    unchanged, so the caller can turn it into a status.
    """
    start_wall = time.perf_counter()
    warm_events = [launch(queue) for _ in range(max(policy.warmup, 1))]
    warm_events[-1].wait()
    warmup_ns = event_duration_ns(warm_events[-1])
    if warmup_ns < policy.sample_ns:  # a fast kernel: k from the quickest of a few more launches
        extra = [launch(queue) for _ in range(policy.extra_warmup_fast)]
        if extra:
            extra[-1].wait()
            warmup_ns = min([warmup_ns] + durations_ns(extra).tolist())
    k = launches_per_sample(warmup_ns, policy)
    sample_guess_ns = max(warmup_ns, 1.0) * k
    times: list[float] = []
    spent_ns = 0.0
    if warmup_ns > policy.slow_launch_s * 1e9:
        batch = max_repeats = policy.min_repeats if policy.slow_repeats is None else policy.slow_repeats
    else:
        # first batch: enough for the minimum, and about 5 ms of kernel time for fast kernels
        batch = max(policy.min_repeats, min(policy.max_repeats, int(5e6 // sample_guess_ns)))
        batch = min(batch, max(policy.min_repeats, int(policy.time_cap_s * 1e9 // sample_guess_ns)))
        max_repeats = policy.max_repeats
    while True:
        events = [launch(queue) for _ in range(batch * k)]
        events[-1].wait()
        durations = durations_ns(events)
        new = durations.reshape(batch, k).mean(axis=1)
        times.extend(new.tolist())
        spent_ns += float(durations.sum())
        arr = np.asarray(times)
        if len(times) >= policy.min_repeats and coefficient_of_variation(arr) <= policy.target_cv:
            break
        if len(times) >= max_repeats or spent_ns >= policy.time_cap_s * 1e9:
            break
        mean = spent_ns / len(times)
        left_by_time = int(math.ceil((policy.time_cap_s * 1e9 - spent_ns) / max(mean, 1.0)))
        batch = max(1, min(max_repeats - len(times), len(times), left_by_time))
    return Timing(times_ns=np.asarray(times, dtype=np.float64), warmup_ns=warmup_ns,
                  wall_s=time.perf_counter() - start_wall, launches_per_sample=k)
