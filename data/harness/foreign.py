"""Measure a kernel nobody wrote host code for (``kgraph measure``).

The kernel's parameters come from the project's parser. Scalars take ``--arg NAME=VALUE`` or a
default (integers: the NDRange's total work-items in dim 0, floats: 1.0). Buffer element counts
take ``--buffer NAME=ELEMENTS`` (or ``--arg NAME=ELEMENTS``); when every global buffer has one, no
probe runs. Otherwise the missing extents come from instrumented sizing runs on PoCL
(:func:`kgraph.data.instrumented.extents.infer_extents`: every access bounds-checked against the
buffers it allocates, buffers grown until the recorded extents are stable); when that cannot be
done the command says why and names the buffers that need a size. ``__local`` pointers default to
one element per work-item of the group. ``-D NAME=VALUE`` macros reach the parser, the probe and the
OpenCL build. Inputs are seeded random numbers; there is no reference, so no correctness check.
"""
from __future__ import annotations

import math

import numpy as np

from kgraph.data.dtypes import NUMPY_DTYPES
from kgraph.errors import KGraphError, MeasurementError, UsageError



def foreign_spec(path: str, kernel: str, global_size: list[int], local_size: list[int] | None,
                 given: dict[str, str], buffers: dict[str, str] | None = None,
                 defines: dict[str, str] | None = None):
    """A ``KernelSpec`` for kernel ``kernel`` of ``path`` at one launch (sizes fixed).

    ``given``: ``--arg`` values (scalars, or element counts of buffer/local arguments); ``buffers``:
    ``--buffer`` element counts of global buffers; ``defines``: ``-D`` macros.
    """
    from kgraph import parsers
    from kgraph.data.corpus.spec import Arg, KernelSpec

    unit = parsers.parse_file(path, defines=dict(defines or {}))
    unit.raise_on_errors()
    found = [f for f in unit.kernels if f.name == kernel]
    if not found:
        names = ", ".join(f.name for f in unit.kernels) or "none"
        raise UsageError(f"--kernel {kernel}: no such kernel in {path} (kernels: {names})")
    params = found[0].params
    unknown = sorted(set(given) - {p.name for p in params})
    if unknown:
        raise UsageError(f"--arg {unknown[0]}=...: {kernel} has no parameter {unknown[0]!r} "
                         f"(parameters: {', '.join(p.name for p in params)})")
    global_buffers = [p.name for p in params if p.is_pointer and p.address_space != "local"]
    for name in buffers or {}:
        if name not in global_buffers:
            raise UsageError(f"--buffer {name}=...: {kernel} has no global buffer parameter {name!r} "
                             f"(buffers: {', '.join(global_buffers) or 'none'})")
    sizes = {**{k: v for k, v in given.items() if k in global_buffers}, **dict(buffers or {})}
    for name, value in sizes.items():
        _count(value, name, "--buffer")
    unsized = [n for n in global_buffers if n not in sizes]
    extents = _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines) if unsized else {}
    args = []
    for p in params:
        dtype = NUMPY_DTYPES.get(p.base_type)
        if dtype is None:
            raise UsageError(f"{path}: parameter {p.name} of type {p.base_type} is not supported by measure")
        if not p.is_pointer:
            value = given.get(p.name, str(global_size[0]) if np.dtype(dtype).kind in "iu" else "1.0")
            args.append(Arg(p.name, "scalar", dtype, _number(value, p.name)))
            continue
        if p.address_space == "local":
            default = math.prod(local_size) if local_size else 256
            args.append(Arg(p.name, "local", dtype, str(_count(given.get(p.name, default), p.name) * p.vector_width)))
            continue
        count = sizes.get(p.name, extents.get(p.name))
        # a buffer the kernel never touches at this launch still needs a (small) allocation
        count = max(_count(count, p.name, "--buffer"), 1) if count is not None else 1
        args.append(Arg(p.name, "buffer", dtype, str(count * p.vector_width), role="inout"))
    dims = len(global_size)
    return KernelSpec(kernel_id=f"foreign.{kernel}", family="foreign", variant={}, kernel_name=kernel,
                      source=unit.text, sizes={}, check_sizes={}, constraints=[], args=args,
                      global_size=[str(g) for g in global_size],
                      local_sizes=[list(local_size)] if local_size else [[1] * dims],
                      reference=lambda inputs, sizes: {})


def _number(value, name) -> str:
    try:
        float(value)
    except (TypeError, ValueError):
        raise UsageError(f"--arg {name}={value}: not a number") from None
    return str(value)


def _count(value, name, option: str = "--arg") -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise UsageError(f"{option} {name}={value}: a buffer size must be a whole number of elements") from None
    if count <= 0:
        raise UsageError(f"{option} {name}={value}: a buffer size must be positive")
    return count


def _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines) -> dict:
    """Element counts of the buffers without given sizes, from bounded instrumented sizing runs (PoCL
    or the first OpenCL device). Raises a MeasurementError naming the buffers that need ``--buffer``
    when the runs cannot tell; the kernel's build log when it does not build."""
    from kgraph.data.instrumented.extents import infer_extents
    from kgraph.data.instrumented.launch import BuildError

    function = next(f for f in unit.kernels if f.name == kernel)
    scalars, local_bytes = {}, {}
    for p in function.params:
        dtype = NUMPY_DTYPES.get(p.base_type)
        if dtype is None:
            raise UsageError(f"{unit.filename}: parameter {p.name} of type {p.base_type} is not supported by measure")
        if not p.is_pointer:
            default = str(global_size[0]) if np.dtype(dtype).kind in "iu" else "1.0"
            scalars[p.name] = float(_number(given.get(p.name, default), p.name))
            if np.dtype(dtype).kind in "iu":
                scalars[p.name] = int(scalars[p.name])
        elif p.address_space == "local":
            elems = _count(given.get(p.name, math.prod(local_size) if local_size else 256), p.name)
            local_bytes[p.name] = elems * p.vector_width * np.dtype(dtype).itemsize
    try:
        extents, _ = infer_extents(unit.text, kernel, global_size, local_size, scalars, local_bytes=local_bytes,
                                   filename=unit.filename, defines=defines)
    except (BuildError, UsageError):
        raise
    except KGraphError as exc:
        raise MeasurementError(f"cannot infer the size of buffer(s) {', '.join(unsized)}: {exc}\n"
                               f"give --buffer NAME=ELEMENTS for each") from None
    return {name: elements for name, elements in extents.items() if elements > 0}


def _with_defines(source: str, defines: dict | None) -> str:
    """``source`` with ``#define`` lines for command-line macros in front (for the static analysis)."""
    if not defines:
        return source
    return "".join(f"#define {k} {v if v not in (None, '') else 1}\n" for k, v in defines.items()) + source


def measure_foreign(spec, device_query: str | None, global_size, local_size, policy=None,
                    defines: dict | None = None) -> dict:
    """Build and time the foreign kernel once on a device; returns a dataset row (with derived).

    Raises MeasurementError with the whole build log when the kernel does not build on the device."""
    import pyopencl as cl

    from kgraph.data import datasets_dir
    from kgraph.data.instrumented.extents import build_options

    from .counts import static_counts
    from .derived import derive
    from .descriptor import load_descriptor, measure_descriptor
    from .devices import pick_device
    from .runner import KernelRunner
    from .sampling import LaunchConfig
    from .timing import TimingPolicy

    info = pick_device(device_query)
    device = info.open()
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    runner = KernelRunner(ctx, queue, info.device_id, spec, policy or TimingPolicy())
    try:
        runner.program = cl.Program(ctx, spec.source).build(options=build_options(defines))
    except cl.Error as err:
        raise MeasurementError(f"kernel '{spec.kernel_name}' does not build on {info.device_id}:\n"
                               f"{str(err).strip()}") from None
    config = LaunchConfig((), tuple(global_size), tuple(local_size) if local_size else tuple(spec.local_sizes[0]))
    row = next(iter(runner.measure([config])))
    if row["status"] == "ok":
        scalars = {a.name: float(a.count) for a in spec.args if a.kind == "scalar"}
        try:
            row.update(static_counts(_with_defines(spec.source, defines), spec.lang, spec.kernel_name, scalars,
                                     global_size, local_size))
            row["counts_source"] = "static"
        except Exception:
            pass
    try:
        descriptor = load_descriptor(datasets_dir() / info.device_id)
    except Exception:
        descriptor = measure_descriptor(info, ctx, queue)
    row.update(derive(row, descriptor["roofline"]))
    return row
