"""Measure a kernel nobody wrote host code for (``kgraph measure``).

The kernel's parameters come from the project's parser. Scalars take ``--arg NAME=VALUE`` or a
default (integers: the NDRange's total work-items in dim 0, floats: 1.0). Buffer element counts
take ``--arg NAME=ELEMENTS``, else the extent an instrumented run infers
(``kgraph.instrument.infer_extents``, when installed), else the command names the buffers that
need a size. ``__local`` pointers default to one element per work-item of the group.
Inputs are seeded random numbers; there is no reference, so no correctness check.
"""
from __future__ import annotations

import math

import numpy as np

from kgraph.errors import MeasurementError, UsageError

_DTYPES = {"float": "float32", "double": "float64", "half": "float16", "int": "int32", "uint": "uint32",
           "unsigned int": "uint32", "long": "int64", "ulong": "uint64", "short": "int16", "ushort": "uint16",
           "char": "int8", "uchar": "uint8", "size_t": "uint64"}


def foreign_spec(path: str, kernel: str, global_size: list[int], local_size: list[int] | None,
                 given: dict[str, str]):
    """A ``KernelSpec`` for kernel ``kernel`` of ``path`` at one launch (sizes fixed)."""
    from kgraph import parsers
    from kgraph.data.corpus.spec import Arg, KernelSpec

    unit = parsers.parse_file(path)
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
    extents = _inferred_extents(unit, kernel, global_size, local_size, given)
    args, missing = [], []
    for p in params:
        dtype = _DTYPES.get(p.base_type)
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
        count = given.get(p.name, extents.get(p.name))
        if count is None:
            missing.append(p.name)
            continue
        args.append(Arg(p.name, "buffer", dtype, str(_count(count, p.name) * p.vector_width), role="inout"))
    if missing:
        raise UsageError(f"cannot infer the size of buffer(s) {', '.join(missing)} (no instrumented-run "
                         f"inference available); give --arg NAME=ELEMENTS for each")
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


def _count(value, name) -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise UsageError(f"--arg {name}={value}: a buffer size must be a whole number of elements") from None
    if count <= 0:
        raise UsageError(f"--arg {name}={value}: a buffer size must be positive")
    return count


def _inferred_extents(unit, kernel, global_size, local_size, given) -> dict:
    """Element counts of the buffers without ``--arg`` sizes, from one instrumented run (PoCL or the
    first OpenCL device); {} when the kernel cannot be instrumented or run."""
    from kgraph.data.instrumented.extents import infer_extents

    function = next(f for f in unit.kernels if f.name == kernel)
    scalars, local_bytes = {}, {}
    for p in function.params:
        dtype = _DTYPES.get(p.base_type)
        if dtype is None:
            return {}
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
                                   filename=unit.filename)
    except Exception:  # noqa: BLE001 - no inference: the command asks for explicit sizes
        return {}
    return {name: elements for name, elements in extents.items() if elements > 0}


def measure_foreign(spec, device_query: str | None, global_size, local_size, policy=None) -> dict:
    """Build and time the foreign kernel once on a device; returns a dataset row (with derived)."""
    import pyopencl as cl

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
        runner.program = cl.Program(ctx, spec.source).build()
    except cl.Error as err:
        raise MeasurementError(f"{spec.kernel_name}: build failed on {info.device_id}: {err}") from None
    config = LaunchConfig((), tuple(global_size), tuple(local_size) if local_size else tuple(spec.local_sizes[0]))
    row = next(iter(runner.measure([config])))
    if row["status"] == "ok":
        scalars = {a.name: float(a.count) for a in spec.args if a.kind == "scalar"}
        try:
            row.update(static_counts(spec.source, spec.lang, spec.kernel_name, scalars, global_size, local_size))
            row["counts_source"] = "static"
        except Exception:
            pass
    try:
        descriptor = load_descriptor(f"data/datasets/{info.device_id}")
    except Exception:
        descriptor = measure_descriptor(info, ctx, queue)
    row.update(derive(row, descriptor["roofline"]))
    return row
