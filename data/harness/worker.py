"""The measuring subprocess and its supervisor.

A long-lived worker process (multiprocessing ``spawn``) owns the OpenCL context and is fed one
kernel visit at a time over a pipe. It answers with messages::

    ("prepared", status, message)   after building and checking the kernel (status "ok" or a failure)
    ("start", key)                  before each launch: the supervisor knows which launch is in flight
    ("row", row)                    after each launch (timing and counts filled in)
    ("ceiling", work)               this kernel got too slow at this problem-size product
    ("done", phases)                end of the visit; phases: seconds per phase since the last "done"
    ("descriptor", dict)            answer to a ("descriptor",) request
    ("sized", extents, index_range, counts) ``kgraph measure`` (a ("foreign", request) message): after the sizing run
    ("error", kind, message)        ``kgraph measure``: the request cannot be measured (bad input, build error)

The supervisor waits with a timeout on each message; a silent worker is killed (status
``timeout``), a dead one (segfault in the driver) is reported as ``crash``; both are restarted on
the next visit.

The worker dies with its supervisor (:mod:`kgraph.data.harness.lifeline`), also while a kernel hangs.
"""
from __future__ import annotations

import importlib
import importlib.util
import math
import multiprocessing as mp
import os
import time
from pathlib import Path

from kgraph.errors import UsageError


def load_specs(provider: str) -> list:
    """The specs named by ``module:function`` or ``path/to/file.py:function`` (called with no args)."""
    target, _, attr = provider.rpartition(":")
    if not target:
        raise UsageError(f"--specs {provider!r}: expected MODULE:FUNCTION or FILE.py:FUNCTION")
    try:
        if target.endswith(".py"):
            path = Path(target)
            module_spec = importlib.util.spec_from_file_location(f"_kgraph_specs_{abs(hash(path))}", path)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
        return list(getattr(module, attr)())
    except (ImportError, FileNotFoundError, AttributeError) as exc:
        raise UsageError(f"--specs {provider!r}: cannot load ({exc})") from None


def work_of(sizes) -> float:
    """Problem-size product: the proxy for a launch's amount of work used by size ceilings."""
    values = sizes.values() if isinstance(sizes, dict) else [v for _, v in sizes]
    return float(math.prod(max(int(v), 1) for v in values))


def worker_main(conn, platform_index: int, device_index: int, device_id: str, provider: str,
                policy, seed: int, counts_mode: str, max_instrumented_time_s: float = 0.02,
                parent_pid: int | None = None) -> None:
    from .lifeline import die_with_parent

    die_with_parent(parent_pid)  # a supervisor killed while a kernel hangs takes this process with it
    import pyopencl as cl

    from .counts import CountCache
    from .fill import DeviceFiller
    from .inputs import HostInputCache
    from .runner import KernelRunner
    from .sampling import LaunchConfig

    device = cl.get_platforms()[platform_index].get_devices()[device_index]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    specs = {}
    runners, prepared = {}, {}
    counts = CountCache(counts_mode, max_instrumented_time_s)
    host_inputs = HostInputCache()
    phases: dict[str, float] = {}
    try:
        filler = DeviceFiller(ctx, queue)
    except cl.Error:  # the runners write the same values from the host
        filler = None
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg[0] == "stop":
            return
        if msg[0] == "descriptor":
            from .descriptor import measure_descriptor
            from .devices import list_devices

            info = next(d for d in list_devices()
                        if (d.platform_index, d.device_index) == (platform_index, device_index))
            conn.send(("descriptor", measure_descriptor(info, ctx, queue)))
            continue
        if msg[0] == "foreign":  # ("foreign", ForeignRequest): kgraph measure of a kernel without host code
            from .foreign import serve_foreign

            serve_foreign(conn, ctx, queue, device_id, policy, msg[1])
            continue
        if msg[0] == "prefetch":  # ("prefetch", [(kernel_id, [sizes, ...]), ...]): no reply
            if not specs:
                specs = {s.kernel_id: s for s in load_specs(provider)}
            for kernel_id, sizes_list in msg[1]:
                for sizes in sizes_list:
                    host_inputs.prefetch(specs[kernel_id], sizes, seed)
            continue
        _, kernel_id, config_json, ceiling, deadline, *flags = msg  # flags: "count_only" (fill-counts),
        expected = next((f["expected"] for f in flags if isinstance(f, dict)), None)  # {"expected": reference}
        if not specs:
            specs = {s.kernel_id: s for s in load_specs(provider)}
        spec = specs[kernel_id]
        if kernel_id not in prepared:
            runners[kernel_id] = KernelRunner(ctx, queue, device_id, spec, policy, seed, counts=counts,
                                              filler=filler, phases=phases, host_inputs=host_inputs)
            prepared[kernel_id] = runners[kernel_id].build(expected)
        conn.send(("prepared", *prepared[kernel_id]))
        if prepared[kernel_id][0] != "ok":
            conn.send(("done", _take(phases)))
            continue
        configs = sorted((LaunchConfig.from_json(c) for c in config_json), key=lambda c: work_of(c.sizes))
        state = {"ceiling": ceiling}

        def skip(config):
            return time.time() > deadline or (state["ceiling"] is not None
                                              and work_of(config.sizes) >= state["ceiling"])

        by_key = {c.key(device_id, kernel_id): c for c in configs}
        for row in runners[kernel_id].measure(configs, on_start=lambda key: conn.send(("start", key)), skip=skip,
                                              timed="count_only" not in flags):
            config = by_key[row["key"]]
            if row["message"] == "slow":
                work = work_of(config.sizes)
                state["ceiling"] = work if state["ceiling"] is None else min(state["ceiling"], work)
                conn.send(("ceiling", work))
            conn.send(("row", row))
        conn.send(("done", _take(phases)))


def _signal_name(number: int) -> str:
    """`` (SIGSEGV)`` for 11, "" for a number that names no signal."""
    import signal

    try:
        return f" ({signal.Signals(number).name})"
    except ValueError:
        return ""


def _take(phases: dict) -> dict:
    """The accumulated phase seconds, and reset them."""
    out = dict(phases)
    phases.clear()
    return out


class WorkerDied(Exception):
    """The worker process exited (``exitcode`` < 0: killed by that signal)."""


class WorkerTimeout(Exception):
    """The worker sent nothing within the timeout and was killed."""


class Worker:
    """Supervisor side of one worker process (started lazily, restarted after a failure).

    Args:
        info: the ``DeviceInfo`` to measure; provider: where the specs come from;
        policy: ``TimingPolicy``; counts_mode: one of ``counts.COUNT_MODES``.
    """

    def __init__(self, info, provider: str, policy, seed: int = 0, counts_mode: str = "auto",
                 startup_timeout_s: float = 120.0, max_instrumented_time_s: float = 0.02):
        self.startup_timeout_s = startup_timeout_s
        self.max_instrumented_time_s = max_instrumented_time_s
        self.info, self.provider, self.policy, self.seed, self.counts_mode = info, provider, policy, seed, counts_mode
        self.process = None
        self.conn = None
        self.restarts = 0

    def ensure_started(self) -> None:
        if self.process is not None and self.process.is_alive():
            return
        if self.process is not None:
            self.restarts += 1
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=worker_main, daemon=True,
            args=(child, self.info.platform_index, self.info.device_index, self.info.device_id,
                  self.provider, self.policy, self.seed, self.counts_mode, self.max_instrumented_time_s,
                  os.getpid()))
        self.process.start()
        child.close()
        if self.recv(self.startup_timeout_s)[0] != "ready":
            raise WorkerDied("worker did not start")

    def send(self, msg) -> None:
        self.ensure_started()
        self.conn.send(msg)

    def recv(self, timeout_s: float):
        """The next message; raises WorkerTimeout (worker killed) or WorkerDied."""
        if self.process is None:
            raise WorkerDied("worker process is not running")
        if not self.conn.poll(timeout_s):
            self.kill()
            raise WorkerTimeout(f"no answer within {timeout_s:g} s; worker killed")
        try:
            return self.conn.recv()
        except (EOFError, ConnectionResetError, OSError):
            self.process.join(5)
            code = self.process.exitcode
            self.process = None
            how = f"killed by signal {-code}{_signal_name(-code)}" if code is not None and code < 0 \
                else f"exit status {code}"
            raise WorkerDied(f"worker process died ({how})") from None

    def kill(self) -> None:
        if self.process is not None:
            if self.process.pid is not None:  # a process that failed to start has nothing to kill
                self.process.kill()
                self.process.join(5)
            self.process = None

    def close(self) -> None:
        if self.process is not None and self.process.is_alive():
            try:
                self.conn.send(("stop",))
                self.process.join(5)
            except (OSError, BrokenPipeError):
                pass
        self.kill()
