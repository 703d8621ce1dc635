"""Measures one corpus kernel in the current process: build once (binary cache), check against the
numpy reference at the check sizes, then time launch configurations reusing device buffers, and
count each launch's work with an instrumented run on the same buffers when affordable
(:meth:`~kgraph.data.harness.counts.CountCache.instrumented`; the supervisor fills static counts otherwise).

Buffers are allocated once per visit for the largest element count any of its configurations
needs. Inputs are written before timing (never inside the timed loop): default random inputs are
generated on the device by a seeded hash (:mod:`kgraph.data.harness.fill`) once per visit; structured
inputs (``spec.make_inputs``, e.g. CSR index arrays) are made on the host once per problem size and
generator, seeded by the sizes, and kept across visits (:mod:`kgraph.data.harness.inputs`); a visit's
configurations are measured grouped by problem size, so each size is uploaded once per visit.
Time spent per phase (build, check, inputs (host/device), timing, counts (build/run)) accumulates in
``phases``.
"""
from __future__ import annotations

import datetime as _dt
import json
import time
from contextlib import contextmanager

import numpy as np

from .columns import empty_row
from .fill import FILL_DTYPES, buffer_key, reference_fill
from .timing import TimingPolicy, time_launch

# OpenCL error codes that mean "the launch needs more than the device has".
_RESOURCE_CODES = {-4, -5, -6, -61}  # MEM_OBJECT_ALLOCATION_FAILURE, OUT_OF_RESOURCES, OUT_OF_HOST_MEMORY, INVALID_BUFFER_SIZE


def status_of_cl_error(err) -> str:
    code = getattr(getattr(err, "code", None), "__int__", lambda: None)()
    if code is None and err.args and hasattr(err.args[0], "code"):
        code = err.args[0].code
    return "out_of_resources" if code in _RESOURCE_CODES else "launch_error"


def base_row(device_id: str, spec, config, source_id: str) -> dict:
    row = empty_row()
    g, l = list(config.global_size) + [1, 1], list(config.local_size) + [1, 1]
    row.update(key=config.key(device_id, spec.kernel_id), device_id=device_id, kernel_id=spec.kernel_id,
               family=spec.family, source_id=source_id, kernel_name=spec.kernel_name,
               sizes=json.dumps(config.sizes_dict, sort_keys=True),
               args=json.dumps({k: v.item() for k, v in spec.scalar_values(config.sizes_dict).items()},
                               sort_keys=True),
               dims=len(config.global_size), g0=g[0], g1=g[1], g2=g[2], l0=l[0], l1=l[1], l2=l[2],
               timestamp=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    return row


class KernelRunner:
    """Build, check, time and count one spec on an OpenCL context.

    Args:
        ctx, queue: pyopencl context and a queue with profiling enabled.
        device_id: the slug written into rows; spec: a ``KernelSpec``; seed: input seed.
        counts: a ``CountCache`` (None: count columns stay unknown).
        filler: a ``DeviceFiller`` on ``ctx`` (None: one is made when needed).
        phases: dict accumulating seconds per phase (shared across runners).
        host_inputs: a ``HostInputCache`` shared across runners (None: a private one).
    """

    def __init__(self, ctx, queue, device_id: str, spec, policy: TimingPolicy = TimingPolicy(),
                 seed: int = 0, program=None, counts=None, filler=None, phases: dict | None = None,
                 host_inputs=None):
        from .inputs import HostInputCache

        self.ctx, self.queue, self.device_id, self.spec = ctx, queue, device_id, spec
        self.policy, self.seed = policy, seed
        self.program = program
        self.counts, self.filler = counts, filler
        self.host_inputs = host_inputs if host_inputs is not None else HostInputCache()
        self.phases = phases if phases is not None else {}
        self.cache_hit = None
        from .columns import source_id_of

        self.source_id = source_id_of(spec.source)

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - start

    def build(self, expected=None) -> tuple[str, str]:
        """Build (once) and check the kernel; returns (status, message), status "ok" when usable.
        ``expected``: the check's reference outputs made ahead (``check.expected_outputs``) or None."""
        import pyopencl as cl

        from kgraph.data.corpus.check import check_spec
        from kgraph.errors import MeasurementError

        from .builds import build_program

        if self.program is None:
            start = time.perf_counter()
            try:
                self.program, self.cache_hit = build_program(self.ctx, self.spec.source)
            except cl.Error as err:
                return "build_error", _clip(str(err))
            finally:
                name = "build (cache hit)" if self.cache_hit else "build (from source)"
                self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - start
        try:
            with self.phase("check"):
                ok, max_err = check_spec(self.spec, self.ctx, self.queue, seed=self.seed, program=self.program,
                                         expected=expected)
        except MeasurementError as err:
            return ("out_of_resources" if "OUT_OF_RESOURCES" in str(err) else "launch_error"), _clip(str(err))
        if not ok:
            return "wrong_result", (f"differs from the numpy reference at {self.spec.check_sizes}: "
                                    f"max abs error {max_err:.3g} (rtol {self.spec.rtol}, atol {self.spec.atol})")
        return "ok", ""

    def measure(self, configs, on_start=None, skip=None, timed: bool = True):
        """Time (and count) each config; yields one row dict per config (``skip(config) -> bool``
        to leave one out). A launch error ends the visit after its row (the context may be unusable).
        ``timed=False`` only counts (``kgraph dataset fill-counts``): the same buffers, inputs and
        instrumented run, no timing columns; a config that could not be counted gets the reason in
        ``message``."""
        import pyopencl as cl

        spec = self.spec
        if spec.make_inputs is not None:  # one upload per problem size (stable within a size)
            first = {}
            for i, c in enumerate(configs):
                first.setdefault(c.sizes, i)
            configs = sorted(configs, key=lambda c: first[c.sizes])
        counts = [spec.buffer_counts(c.sizes_dict, list(c.local_size)) for c in configs]
        buffer_args = [a for a in spec.args if a.kind == "buffer"]
        capacity = {a.name: max(max(c[a.name] for c in counts), 1) for a in buffer_args}
        buffers = {}
        try:
            for a in buffer_args:
                buffers[a.name] = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE,
                                            capacity[a.name] * np.dtype(a.dtype).itemsize)
        except cl.Error as err:  # more than the device can allocate: the biggest launch says so
            for buf in buffers.values():
                buf.release()
            yield self._unallocated_row(configs, counts, skip, err)
            return
        kernel = cl.Kernel(self.program, spec.kernel_name)
        static_local = self._static_local_bytes(kernel)  # before set_args: the kernel's own __local only
        uploaded_for = None
        try:
            if spec.make_inputs is None and configs:
                with self.phase("inputs (device)"):
                    self._fill_defaults(buffers, capacity, skip=())
                uploaded_for = "all"
            for config in configs:
                if skip is not None and skip(config):
                    continue
                row = base_row(self.device_id, spec, config, self.source_id)
                if on_start is not None:
                    on_start(row["key"])
                too_much = self._local_memory_excess(static_local, config)
                if too_much:
                    row.update(status="out_of_resources", message=too_much)
                    yield row
                    return
                try:
                    if uploaded_for != "all" and uploaded_for != config.sizes:
                        self._upload_structured(buffers, config.sizes_dict)
                        uploaded_for = config.sizes
                    args = self._args(buffers, config)
                    kernel.set_args(*args)
                    gsize, lsize = tuple(config.global_size), tuple(config.local_size)
                    timing = None
                    if timed:
                        with self.phase("timing"):
                            timing = time_launch(self.queue, lambda q: cl.enqueue_nd_range_kernel(q, kernel, gsize, lsize),
                                                 self.policy)
                except cl.Error as err:
                    row.update(status=status_of_cl_error(err), message=_clip(str(err)))
                    yield row
                    return
                row.update(status="ok", message="")
                if timing is not None:
                    row.update(median_time_ns=timing.median_time_ns, min_time_ns=timing.min_time_ns,
                               max_time_ns=timing.max_time_ns, cv=timing.cv, repeats=timing.repeats,
                               launches_per_sample=timing.launches_per_sample)
                    if timing.warmup_ns > self.policy.slow_launch_s * 1e9:
                        row["message"] = "slow"
                if self.counts is not None:
                    built_s = self.counts.build_s
                    with self.phase("counts (run)"):
                        launch = DeviceLaunch(self.queue, args, gsize, lsize, self._nbytes(config))
                        counted = self.counts.instrumented(spec, config, launch,
                                                           timing.median_time_ns if timing is not None else None)
                    if self.counts.build_s > built_s:  # the instrumented program was built just now
                        spent = self.counts.build_s - built_s
                        self.phases["counts (run)"] -= spent
                        self.phases["counts (build)"] = self.phases.get("counts (build)", 0.0) + spent
                    if counted is not None:
                        row.update(counted[0])
                        row["counts_source"] = counted[1]
                    elif not timed:
                        row["message"] = _clip(self.counts.last_error or "not counted")
                yield row
        finally:
            for buf in buffers.values():
                buf.release()

    def _unallocated_row(self, configs, counts, skip, err) -> dict:
        """The row of the launch needing the most global memory, when a visit's buffers cannot be allocated.

        Args:
            configs: the visit's configurations; counts: their buffer element counts (same order);
            skip: ``skip(config) -> bool`` or None; err: the driver's ``pyopencl.Error``.
        """
        nbytes = [sum(c[a.name] * np.dtype(a.dtype).itemsize for a in self.spec.args if a.kind == "buffer")
                  for c in counts]
        order = sorted(range(len(configs)), key=lambda i: -nbytes[i])
        index = next((i for i in order if skip is None or not skip(configs[i])), order[0])
        row = base_row(self.device_id, self.spec, configs[index], self.source_id)
        row.update(status=status_of_cl_error(err),
                   message=_clip(f"cannot allocate {nbytes[index]} bytes of buffers: {err}"))
        return row

    def _static_local_bytes(self, kernel) -> int:
        """Bytes of the kernel's own ``__local`` variables (0 when the driver does not say); call it
        before any ``set_args``, after which drivers add the ``__local`` arguments."""
        import pyopencl as cl

        try:
            return int(kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, self.queue.device))
        except cl.Error:
            return 0

    def _local_memory_excess(self, static: int, config) -> str:
        """Why ``config`` needs more local memory per work-group than the device has ("" when it fits).

        Drivers differ here (PoCL accepts any ``__local`` argument size and may crash at run time), so
        the limit is checked before the launch: the kernel's own ``__local`` variables plus the
        ``__local`` arguments at this configuration.

        Args:
            static: bytes of the kernel's own ``__local`` variables; config: the ``LaunchConfig``.
        """
        local_args = [a for a in self.spec.args if a.kind == "local"]
        if not local_args and static == 0:
            return ""
        counts = self.spec.buffer_counts(config.sizes_dict, list(config.local_size))
        dynamic = sum(counts[a.name] * np.dtype(a.dtype).itemsize for a in local_args)
        limit = int(self.queue.device.local_mem_size)
        if static + dynamic <= limit:
            return ""
        return (f"needs {static + dynamic} bytes of local memory per work-group ({dynamic} in __local "
                f"arguments, {static} in the kernel), the device has {limit}")

    def _fill_defaults(self, buffers, capacity, skip) -> None:
        """Device-generated default inputs for every buffer not in ``skip`` (zeros for ``out``)."""
        import pyopencl as cl

        from .fill import DeviceFiller

        if self.filler is None:
            try:
                self.filler = DeviceFiller(self.ctx, self.queue)
            except cl.Error:
                self.filler = False  # no fill program on this device: same values from the host
        for arg in self.spec.args:
            if arg.kind != "buffer" or arg.name in skip:
                continue
            count, key = capacity[arg.name], buffer_key(self.seed, arg.name)
            if count <= 0:
                continue
            if arg.role == "out":
                cl.enqueue_fill_buffer(self.queue, buffers[arg.name], np.uint8(0), 0,
                                       count * np.dtype(arg.dtype).itemsize)
            elif self.filler and arg.dtype in self.filler.dtypes:
                self.filler.fill(buffers[arg.name], arg.dtype, count, key)
            elif arg.dtype in FILL_DTYPES:  # the device's values, computed on the host
                cl.enqueue_copy(self.queue, buffers[arg.name], reference_fill(arg.dtype, count, key))
            else:  # a dtype the fill kernels do not cover: the host's seeded defaults
                rng = np.random.default_rng([self.seed, key])
                host = (rng.uniform(-1.0, 1.0, count) if np.dtype(arg.dtype).kind == "f"
                        else rng.integers(0, 100, count)).astype(arg.dtype)
                cl.enqueue_copy(self.queue, buffers[arg.name], host)
        self.queue.finish()

    def _upload_structured(self, buffers, sizes: dict) -> None:
        """``make_inputs``' arrays from the host (cached); every other buffer filled on the device."""
        with self.phase("inputs (host)"):
            given = self.host_inputs.get(self.spec, sizes, self.seed)
        with self.phase("inputs (device)"):
            self._write_structured(buffers, sizes, given)

    def _write_structured(self, buffers, sizes: dict, given: dict) -> None:
        import pyopencl as cl

        from kgraph.errors import InputError

        spec = self.spec
        counts = spec.buffer_counts(sizes)
        for arg in spec.args:
            if arg.kind == "buffer" and arg.name in given:
                host = np.ascontiguousarray(given[arg.name], dtype=np.dtype(arg.dtype)).reshape(-1)
                if host.size != counts[arg.name]:
                    raise InputError(f"{spec.kernel_id}: make_inputs gave {host.size} elements for "
                                     f"{arg.name}, the spec says {counts[arg.name]}")
                if host.nbytes:
                    cl.enqueue_copy(self.queue, buffers[arg.name], host, is_blocking=False)
        self._fill_defaults(buffers, {a.name: counts[a.name] for a in spec.args if a.kind == "buffer"},
                            skip=set(given))

    def _nbytes(self, config) -> list:
        """Bytes of each argument this config uses (buffers: its own element count, not the visit's
        allocation), in parameter order; 0 for non-buffers."""
        counts = self.spec.buffer_counts(config.sizes_dict, list(config.local_size))
        return [counts[a.name] * np.dtype(a.dtype).itemsize if a.kind == "buffer" else 0 for a in self.spec.args]

    def _args(self, buffers, config) -> list:
        """The kernel's arguments for ``config``, in parameter order."""
        import pyopencl as cl

        spec = self.spec
        local_counts = spec.buffer_counts(config.sizes_dict, list(config.local_size))
        scalars = spec.scalar_values(config.sizes_dict)
        args = []
        for arg in spec.args:
            if arg.kind == "buffer":
                args.append(buffers[arg.name])
            elif arg.kind == "local":
                args.append(cl.LocalMemory(max(local_counts[arg.name] * np.dtype(arg.dtype).itemsize, 1)))
            else:
                args.append(scalars[arg.name])
        return args


class DeviceLaunch:
    """Runs an instrumented program with a measured launch's own device arguments.

    Args:
        queue: the measuring queue; args: the kernel's arguments in parameter order;
        global_size, local_size: the launch's NDRange;
        nbytes: bytes of each buffer argument this launch uses, in parameter order (the footprint
            byte maps cover these, not the possibly bigger allocations; None: the allocations).
    """

    def __init__(self, queue, args: list, global_size, local_size, nbytes: list | None = None):
        self.queue, self.args, self.global_size, self.local_size = queue, args, global_size, local_size
        self.nbytes = nbytes or [getattr(a, "size", 0) for a in args]
        self.context = queue.context

    def __call__(self, kernel, program):
        from kgraph.data.instrumented import launch_on_device

        capacities = {b.name: self.nbytes[b.param_index] // b.elem_bytes for b in kernel.buffers}
        return launch_on_device(self.queue, program, kernel, self.global_size, self.local_size,
                                self.args, capacities)


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."
