"""``count_launch``: run an instrumented kernel once with pyopencl and read its exact work counts."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from kgraph.data.dtypes import NUMPY_DTYPES
from kgraph.errors import KGraphError, MeasurementError, UsageError
from kgraph.instrument.rewrite import InstrumentedKernel, instrument
from kgraph.data.instrumented.marks import launch_on_device
from kgraph.data.instrumented.results import WorkCounts

# OpenCL scalar type -> numpy scalar type (the table is kgraph.data.dtypes')
SCALAR_DTYPES = {name: np.dtype(dtype).type for name, dtype in NUMPY_DTYPES.items()}
BUILD_LOG_LINES = 40


class BuildError(MeasurementError):
    """The kernel itself does not build (the message carries the build log)."""


def default_context():
    """An OpenCL context on PoCL when installed (CPU, always available here), else any device."""
    import pyopencl as cl

    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        raise MeasurementError(f"no OpenCL platform available ({exc})") from None
    for platform in platforms:
        if "Portable Computing Language" in platform.name and platform.get_devices():
            return cl.Context(platform.get_devices()[:1])
    return cl.create_some_context(interactive=False)


def count_launch(
    spec_or_source: Any,
    kernel_name: str | None,
    global_size: Sequence[int],
    local_size: Sequence[int] | None,
    args: Mapping[str, Any],
    context=None,
    *,
    filename: str = "<string>",
) -> WorkCounts:
    """Instrument a kernel, run it once and return the counts of the whole launch.

    Args:
        spec_or_source: OpenCL C source text, or an object with ``source``, ``kernel_name`` and
            ``lang`` (a ``kgraph.data.corpus.spec.KernelSpec``).
        kernel_name: the kernel to run (None: the spec's).
        global_size, local_size: the NDRange (``local_size`` None lets the runtime choose).
        args: every kernel parameter by name: a numpy array for a global/constant buffer (its
            result is copied back into it), a number for a scalar, a byte count (int) or a
            ``pyopencl.LocalMemory`` for a ``__local`` pointer.
        context: a ``pyopencl.Context`` (default: :func:`default_context`).

    Raises:
        UsageError: a missing or ill-typed argument. MeasurementError: build or launch failure.
    """
    from kgraph.parsers import parse_source

    source, lang = spec_or_source, "opencl"
    if not isinstance(spec_or_source, str):
        source, lang = spec_or_source.source, getattr(spec_or_source, "lang", "opencl")
        kernel_name = kernel_name or spec_or_source.kernel_name
    if lang != "opencl":
        raise KGraphError(f"{filename}: only OpenCL kernels can be instrumented (got {lang})")
    unit = parse_source(source, lang, filename=filename)
    kernel = instrument(unit, kernel_name)
    return run_instrumented(kernel, unit, global_size, local_size, args, context)


def run_instrumented(kernel: InstrumentedKernel, unit, global_size, local_size, args, context=None,
                     program=None) -> WorkCounts:
    """Run an already instrumented kernel once with host arguments (see :func:`count_launch`).

    ``program`` is the result of :func:`build_instrumented` on ``context`` (built here when None).
    Buffers are copied to the device, and their results copied back into the numpy arrays.
    """
    import pyopencl as cl


    ctx = context if context is not None else default_context()
    function = next(f for f in unit.functions if f.is_kernel and f.name == kernel.kernel_name)
    program = program if program is not None else build_instrumented(ctx, kernel)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    buffer_index = {b.param_index: b for b in kernel.buffers}
    cl_args, outputs, capacities = [], [], {}
    for k, param in enumerate(function.params):
        if param.name not in args:
            raise UsageError(f"argument '{param.name}' of kernel '{kernel.kernel_name}' is missing")
        value = args[param.name]
        if k in buffer_index:
            b = buffer_index[k]
            if not isinstance(value, np.ndarray):
                raise UsageError(f"argument '{param.name}' is a {b.address_space} buffer: pass a numpy array")
            host = np.ascontiguousarray(value)
            capacities[b.name] = host.nbytes // b.elem_bytes
            dev = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host) if host.nbytes else \
                cl.Buffer(ctx, mf.READ_WRITE, 4)
            cl_args.append(dev)
            outputs.append((value, host, dev))
        elif param.is_pointer and param.address_space == "local":
            cl_args.append(value if isinstance(value, cl.LocalMemory) else cl.LocalMemory(int(value)))
        elif param.is_pointer:
            raise UsageError(f"argument '{param.name}': {param.address_space} pointer parameters cannot be passed")
        else:
            cl_args.append(_scalar(param, value))
    try:
        counts = launch_on_device(queue, program, kernel, global_size, local_size, cl_args, capacities)
        try:
            for value, host, dev in outputs:
                if host.nbytes:
                    cl.enqueue_copy(queue, host, dev)
            queue.finish()
        except cl.Error as exc:
            raise MeasurementError(f"kernel '{kernel.kernel_name}': reading its results failed: {exc}") from None
    finally:
        for _, _, dev in outputs:
            dev.release()
    for value, host, _ in outputs:
        if host is not value:
            value[...] = host
    return counts


def build_instrumented(ctx, kernel: InstrumentedKernel, options=()):
    """Build the instrumented source on ``ctx`` (OpenCL build ``options``, e.g. ``["-D", "TILE=16"]``);
    a failure says whether the original builds, with the first lines of the build log."""
    import pyopencl as cl

    options = list(options)
    try:
        return cl.Program(ctx, kernel.source).build(options=options)
    except cl.Error as exc:
        log = _first_lines(str(exc))
    try:
        cl.Program(ctx, kernel.original_source).build(options=options)
    except cl.Error as exc:
        raise BuildError(f"kernel '{kernel.kernel_name}' does not build:\n{_first_lines(str(exc))}") from None
    raise MeasurementError(f"the instrumented kernel '{kernel.kernel_name}' does not build "
                           f"(the original does; an instrumentation defect):\n{log}")


def _first_lines(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "\n".join(lines[:BUILD_LOG_LINES])


def _scalar(param, value):
    dtype = SCALAR_DTYPES.get(param.base_type)
    if dtype is None:
        raise UsageError(f"argument '{param.name}': scalar type '{param.base_type}' is not supported")
    if param.vector_width > 1:
        vec = np.asarray(value, dtype=dtype).reshape(-1)
        if vec.size != param.vector_width:
            raise UsageError(f"argument '{param.name}' needs {param.vector_width} values")
        width = 4 if param.vector_width == 3 else param.vector_width
        return np.concatenate([vec, np.zeros(width - vec.size, dtype)]).tobytes()
    try:
        return dtype(value)
    except (TypeError, ValueError):
        raise UsageError(f"argument '{param.name}': {value!r} is not a {param.base_type}") from None
