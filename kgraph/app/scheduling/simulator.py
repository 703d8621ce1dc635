"""Discrete-event replay of dmda (StarPU's deque-model-data-aware) list scheduling.

When a task becomes ready, the scheduler pushes it to the worker with the smallest *expected*
completion time: ``max(now, expected end of the worker's queue) + transfer of the tiles it lacks +
belief(kind, tile, worker device)``. If some device has no estimate yet (an uncalibrated model),
the task goes to the least-loaded worker of such a device, as StarPU does to calibrate. Workers run
their queues in order; what actually happens uses the truth (measured medians, optionally with
log-normal noise) and real data movement between the host and the GPU memory node. After each
task, the belief is told the true time (history and regression models learn online, as in StarPU).
"""
from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field

from kgraph.app.scheduling.dag import Task
from kgraph.app.scheduling.time_table import TimeTable


@dataclass
class Platform:
    """Workers and the bus.

    Args:
        workers: ``(worker name, device)`` pairs, e.g. ``[("gpu0", "gpu"), ("cpu0", "cpu"), ...]``.
        node_of_device: memory node of each device (default: ``"cpu"`` → host, others their own).
        bus_gbs: host↔device bandwidth in GB/s; bus_latency_us: per-transfer latency.
        elem_bytes: bytes per matrix element (8: double).
    """

    workers: list[tuple[str, str]]
    node_of_device: dict[str, str] = field(default_factory=dict)
    bus_gbs: float = 25.0
    bus_latency_us: float = 10.0
    elem_bytes: int = 8

    @classmethod
    def gpu_and_cpus(cls, n_cpus: int, gpu: str = "gpu", cpu: str = "cpu", **kw) -> "Platform":
        return cls([(f"{gpu}0", gpu)] + [(f"{cpu}{i}", cpu) for i in range(n_cpus)], **kw)

    def node(self, device: str) -> str:
        return self.node_of_device.get(device, "host" if device == "cpu" else device)

    def transfer_us(self, tile: int) -> float:
        return self.bus_latency_us + tile * tile * self.elem_bytes / (self.bus_gbs * 1e3)


@dataclass
class SimResult:
    """Outcome of one replay.

    ``makespan_us``; ``per_device`` tasks run per device; ``abs_log_errors`` |ln(belief/truth)| of every
    task whose belief had an estimate; ``uncalibrated`` tasks placed without one; ``schedule``
    ``(task id, worker, start, end)``.
    """

    model: str
    makespan_us: float
    per_device: dict[str, int]
    abs_log_errors: list[float]
    uncalibrated: int
    schedule: list[tuple[int, str, float, float]]

    @property
    def median_abs_log_error(self) -> float:
        e = sorted(self.abs_log_errors)
        return e[len(e) // 2] if e else float("nan")


def simulate(tasks: list[Task], truth: TimeTable, belief, platform: Platform,
             noise_sigma: float = 0.0, seed: int = 0) -> SimResult:
    """Replay ``tasks`` on ``platform`` with ``belief`` as the scheduler's cost model."""
    rng = random.Random(seed)
    n = len(tasks)
    remaining = [len(t.deps) for t in tasks]
    children: list[list[int]] = [[] for _ in range(n)]
    for t in tasks:
        for d in t.deps:
            children[d].append(t.id)
    workers = [w for w, _ in platform.workers]
    device = dict(platform.workers)
    expected_free = {w: 0.0 for w in workers}   # scheduler's view
    actual_free = {w: 0.0 for w in workers}     # reality
    queued_belief = {w: [] for w in workers}
    location: dict[tuple[int, int], set[str]] = {}  # tile -> memory nodes holding a valid copy
    per_device = {d: 0 for d in set(device.values())}
    errors, uncalibrated, schedule = [], 0, []
    events: list[tuple[float, int, int, str]] = []  # (end time, seq, task, worker)
    seq = 0
    started: dict[int, float] = {}

    def missing_tiles(task: Task, node: str) -> int:
        return sum(1 for t in (*task.reads, *task.writes) if node not in location.get(t, {"host"}))

    def place(task: Task, now: float) -> None:
        nonlocal seq, uncalibrated
        beliefs = {d: belief.predict(task.kind, task.tile, d) for d in per_device}
        unknown = [d for d, b in beliefs.items() if b is None]
        truth_us = None
        if unknown:  # calibrate: least-loaded worker of an uncalibrated device
            uncalibrated += 1
            worker = min((w for w in workers if device[w] in unknown), key=lambda w: (max(now, expected_free[w]), w))
            cost = 0.0
        else:
            def completion(w):
                xfer = missing_tiles(task, platform.node(device[w])) * platform.transfer_us(task.tile)
                return max(now, expected_free[w]) + xfer + beliefs[device[w]]
            worker = min(workers, key=lambda w: (completion(w), w))
            cost = beliefs[device[worker]]
            truth_us = truth.time_us(task.kind, task.tile, device[worker])
            errors.append(abs(math.log(cost / truth_us)))
        expected_free[worker] = max(now, expected_free[worker]) + cost
        queued_belief[worker].append(cost)
        # reality: the worker runs its queue in order; inputs it lacks cross the bus first
        node = platform.node(device[worker])
        start = max(now + missing_tiles(task, node) * platform.transfer_us(task.tile), actual_free[worker])
        duration = truth_us if truth_us is not None else truth.time_us(task.kind, task.tile, device[worker])
        if noise_sigma > 0:
            duration *= math.exp(rng.gauss(0.0, noise_sigma))
        end = start + duration
        for t in task.reads:
            location.setdefault(t, {"host"}).add(node)
        for t in task.writes:
            location[t] = {node}
        actual_free[worker] = end
        per_device[device[worker]] += 1
        schedule.append((task.id, worker, start, end))
        started[task.id] = start
        heapq.heappush(events, (end, seq, task.id, worker))
        seq += 1

    for t in tasks:
        if remaining[t.id] == 0:
            place(t, 0.0)
    makespan = 0.0
    while events:
        now, _, tid, worker = heapq.heappop(events)
        makespan = max(makespan, now)
        task = tasks[tid]
        belief.observe(task.kind, task.tile, device[worker], now - started[tid])
        queued_belief[worker].pop(0)
        expected_free[worker] = now + sum(queued_belief[worker])  # StarPU resyncs on task end
        for c in children[tid]:
            remaining[c] -= 1
            if remaining[c] == 0:
                place(tasks[c], now)
    if any(remaining):
        raise RuntimeError("task graph has a cycle or an unknown dependency")
    return SimResult(getattr(belief, "name", type(belief).__name__), makespan, per_device, errors,
                     uncalibrated, schedule)
