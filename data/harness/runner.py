"""Measures one corpus kernel in the current process: build once, check against the numpy
reference at the check sizes, then time launch configurations reusing device buffers.

Buffers are allocated once per visit for the largest element count any of its configurations
needs. Inputs are uploaded before timing (never inside the timed loop): once per visit for
kernels with default random inputs, once per problem size for kernels with structured inputs
(``spec.make_inputs``, e.g. CSR index arrays).
"""
from __future__ import annotations

import datetime as _dt
import json

import numpy as np

from .columns import empty_row
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
    """Build, check and time one spec on an OpenCL context.

    Args:
        ctx, queue: pyopencl context and a queue with profiling enabled.
        device_id: the slug written into rows; spec: a ``KernelSpec``; seed: input seed.
    """

    def __init__(self, ctx, queue, device_id: str, spec, policy: TimingPolicy = TimingPolicy(),
                 seed: int = 0, program=None):
        self.ctx, self.queue, self.device_id, self.spec = ctx, queue, device_id, spec
        self.policy, self.seed = policy, seed
        self.program = program
        from .columns import source_id_of

        self.source_id = source_id_of(spec.source)

    def build(self) -> tuple[str, str]:
        """Build (once) and check the kernel; returns (status, message), status "ok" when usable."""
        import pyopencl as cl

        from data.corpus.check import check_spec
        from kgraph.errors import MeasurementError

        if self.program is None:
            try:
                self.program = cl.Program(self.ctx, self.spec.source).build()
            except cl.Error as err:
                return "build_error", _clip(str(err))
        try:
            ok, max_err = check_spec(self.spec, self.ctx, self.queue, seed=self.seed, program=self.program)
        except MeasurementError as err:
            return ("out_of_resources" if "OUT_OF_RESOURCES" in str(err) else "launch_error"), _clip(str(err))
        if not ok:
            return "wrong_result", (f"differs from the numpy reference at {self.spec.check_sizes}: "
                                    f"max abs error {max_err:.3g} (rtol {self.spec.rtol}, atol {self.spec.atol})")
        return "ok", ""

    def measure(self, configs, on_start=None, skip=None):
        """Time each config; yields one row dict per config (``skip(config) -> bool`` to leave one out).

        A launch error ends the visit after its row (the context may be unusable afterwards).
        """
        import pyopencl as cl

        spec = self.spec
        counts = [spec.buffer_counts(c.sizes_dict, list(c.local_size)) for c in configs]
        buffer_args = [a for a in spec.args if a.kind == "buffer"]
        capacity = {a.name: max(max(c[a.name] for c in counts), 1) for a in buffer_args}
        buffers = {a.name: cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, capacity[a.name] * np.dtype(a.dtype).itemsize)
                   for a in buffer_args}
        kernel = cl.Kernel(self.program, spec.kernel_name)
        rng = np.random.default_rng(self.seed)
        uploaded_for = None
        try:
            if spec.make_inputs is None and configs:
                biggest = max(configs, key=lambda c: sum(spec.buffer_counts(c.sizes_dict).values()))
                self._upload(buffers, spec.inputs(rng, biggest.sizes_dict))
                uploaded_for = "all"
            for config in configs:
                if skip is not None and skip(config):
                    continue
                row = base_row(self.device_id, spec, config, self.source_id)
                if on_start is not None:
                    on_start(row["key"])
                try:
                    if uploaded_for != "all" and uploaded_for != config.sizes:
                        self._upload(buffers, spec.inputs(rng, config.sizes_dict))
                        uploaded_for = config.sizes
                    self._set_args(kernel, buffers, config)
                    gsize, lsize = tuple(config.global_size), tuple(config.local_size)
                    timing = time_launch(self.queue, lambda q: cl.enqueue_nd_range_kernel(q, kernel, gsize, lsize),
                                         self.policy)
                except cl.Error as err:
                    row.update(status=status_of_cl_error(err), message=_clip(str(err)))
                    yield row
                    return
                row.update(status="ok", message="", median_time_ns=timing.median_time_ns,
                           min_time_ns=timing.min_time_ns, max_time_ns=timing.max_time_ns, cv=timing.cv,
                           repeats=timing.repeats)
                if timing.warmup_ns > self.policy.slow_launch_s * 1e9:
                    row["message"] = "slow"
                yield row
        finally:
            for buf in buffers.values():
                buf.release()

    def _upload(self, buffers, arrays) -> None:
        import pyopencl as cl

        for name, host in arrays.items():
            if name in buffers and host.nbytes:
                cl.enqueue_copy(self.queue, buffers[name], host, is_blocking=False)
        self.queue.finish()

    def _set_args(self, kernel, buffers, config) -> None:
        import pyopencl as cl

        spec = self.spec
        local_counts = spec.buffer_counts(config.sizes_dict, list(config.local_size))
        scalars = spec.scalar_values(config.sizes_dict)
        for index, arg in enumerate(spec.args):
            if arg.kind == "buffer":
                kernel.set_arg(index, buffers[arg.name])
            elif arg.kind == "local":
                kernel.set_arg(index, cl.LocalMemory(max(local_counts[arg.name] * np.dtype(arg.dtype).itemsize, 1)))
            else:
                kernel.set_arg(index, scalars[arg.name])


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."
