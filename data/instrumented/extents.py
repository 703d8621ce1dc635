"""Buffer extents of a foreign kernel: how many elements each global buffer must hold.

Nobody declared the buffer sizes of a kernel found in the wild. Run it once instrumented with
generously sized buffers, read the highest element index each buffer was accessed at, and grow the
buffers and run again while some access fell outside. The buffers hold the contents the measurement
will hold (:mod:`kgraph.data.instrumented.contents`: index-like integer buffers filled with valid
indices, row-pointer-like ones monotone), so the extents are those of the measured launch even when
indices depend on data. Array-pointer views of buffers (``(__global double (*)[13][5]) a``) are
flattened first (:mod:`kgraph.data.instrumented.casts`) so that their accesses are checked too.

The sizing runs never touch memory outside the buffers they allocate: the kernel is instrumented
``bounded`` (:func:`kgraph.instrument.instrument`), so every global access is checked against the
capacity of the buffer actually passed, and one that falls outside is recorded (its index raises the
extent) and redirected to the buffer's first element instead of being performed. A kernel with a
global access the rewrite cannot wrap (and so cannot bounds-check) is refused: its buffer sizes
must be given. The runs repeat, growing the short buffers, until one run has no access outside its
buffers: its recorded extents are then those of the kernel itself.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from kgraph.errors import MeasurementError, UsageError
from kgraph.data.instrumented.launch import SCALAR_DTYPES, WorkCounts, build_instrumented, default_context, \
    run_instrumented
from kgraph.data.instrumented.casts import flatten_array_casts, unfollowed_views
from kgraph.data.instrumented.contents import buffer_contents, default_index_range, kernel_roles, role_hint
from kgraph.instrument.rewrite import instrument

class ExtentsRunaway(MeasurementError):
    """The recorded extents exceed ``MAX_BYTES`` or are still growing after ``MAX_RUNS`` runs."""


DEFAULT_CAPACITY = 1 << 16   # elements per buffer in the first run
MIN_CAPACITY = 64            # elements: room for a redirected vector access at any alignment
MAX_BYTES = 1 << 30          # no buffer grows past this
MAX_RUNS = 24                # sizing runs before giving up (each at least doubles a short buffer)


def infer_extents(
    source: str,
    kernel_name: str,
    global_size: Sequence[int],
    local_size: Sequence[int] | None,
    scalars: Mapping[str, Any],
    context=None,
    *,
    capacity: int = DEFAULT_CAPACITY,
    local_bytes: Mapping[str, int] | None = None,
    filename: str = "<string>",
    defines: Mapping[str, str] | None = None,
    index_range: int | None = None,
) -> tuple[dict[str, int], WorkCounts]:
    """Elements each global buffer of ``kernel_name`` needs for this launch, and its counts.

    Args:
        source: OpenCL C source.
        kernel_name: the kernel.
        global_size, local_size: the NDRange.
        scalars: value of every scalar parameter by name.
        capacity: elements per buffer in the first run (grown until nothing falls outside).
        local_bytes: bytes of each ``__local`` pointer parameter (default: 4 bytes per work-item
            of a work-group, times 16).
        defines: preprocessor macros (``-D NAME=VALUE``), for the parse and the OpenCL build.
        index_range: index-like buffers hold indices in ``[0, index_range)`` (default: the launch's
            work-items, :func:`~kgraph.data.instrumented.contents.default_index_range`).

    Returns:
        ({buffer name: required elements (0 if never accessed)}, the counts of the last run).

    Raises:
        UsageError: a scalar is missing. MeasurementError: the kernel does not build (with the build
        log), has global accesses that cannot be bounds-checked, accesses before a buffer's start,
        or a buffer would exceed ``MAX_BYTES``.
    """
    from kgraph.parsers import parse_source

    original = parse_source(source, "opencl", filename=filename, defines=dict(defines or {}))
    original.raise_on_errors()
    flat = flatten_array_casts(original.text)
    views = unfollowed_views(flat)
    if views:
        raise MeasurementError(
            f"kernel '{kernel_name}': cannot size its buffers safely, array-pointer view(s) "
            f"{', '.join(sorted(set(views)))} are used other than fully subscripted; give --buffer "
            "NAME=ELEMENTS for every buffer")
    unit = parse_source(flat, "opencl", filename=filename, defines=dict(defines or {})) if flat != original.text \
        else original
    unit.raise_on_errors()
    kernel = instrument(unit, kernel_name, bounded=True)
    if kernel.unchecked:
        raise MeasurementError(
            f"kernel '{kernel_name}': cannot size its buffers safely, some global accesses cannot be "
            "bounds-checked:\n  " + "\n  ".join(kernel.unchecked))
    function = next(f for f in unit.functions if f.is_kernel and f.name == kernel_name)
    index_range = index_range or default_index_range(global_size)
    roles = kernel_roles(unit.text, function.params)
    hint = role_hint(roles, index_range)
    ctx = context if context is not None else default_context()
    program = build_instrumented(ctx, kernel, options=build_options(defines))
    group = int(np.prod(local_size)) if local_size else 64
    caps = {b.name: max(int(capacity), MIN_CAPACITY) for b in kernel.buffers}
    for _ in range(MAX_RUNS):
        args = _run_args(function, caps, roles, index_range, scalars, local_bytes, group, kernel_name)
        counts = run_instrumented(kernel, unit, global_size, local_size, args, ctx, program=program)
        short = [e for e in counts.buffers.values() if e.out_of_range]
        if not short:
            return {name: e.max_index + 1 for name, e in counts.buffers.items()}, counts
        for e in short:
            if e.max_index < e.capacity:  # out of range, yet not past the end: before the start
                raise MeasurementError(
                    f"kernel '{kernel_name}' accesses buffer '{e.name}' before its first element (a negative "
                    f"index) at this launch; check the scalar arguments, or give the buffer sizes{hint}")
            need = max(2 * caps[e.name], e.max_index + 1)
            if need * e.elem_bytes > MAX_BYTES:
                raise ExtentsRunaway(
                    f"buffer '{e.name}' of kernel '{kernel_name}' would need over {MAX_BYTES >> 20} MiB "
                    f"(highest index touched {e.max_index}){hint or '; its indices may depend on data'}")
            caps[e.name] = need
    raise ExtentsRunaway(f"kernel '{kernel_name}': buffer extents still growing after {MAX_RUNS} sizing runs"
                           f"{hint or '; its indices may depend on data (give the buffer sizes)'}")


def _run_args(function, caps: dict, roles: dict, index_range: int, scalars, local_bytes, group: int,
              kernel_name: str) -> dict[str, Any]:
    """The host arguments of one sizing run: every buffer holds ``caps`` elements of
    :func:`~kgraph.data.instrumented.contents.buffer_contents` (as bytes).

    Args:
        function: the kernel's parsed function; caps: elements per buffer; roles: index roles;
        index_range: see :func:`infer_extents`; scalars, local_bytes: as there; group: work-items of
        a group; kernel_name: for the message of a missing scalar.
    """
    args: dict[str, Any] = {}
    for p in function.params:
        if p.name in caps:
            dtype = SCALAR_DTYPES.get(p.base_type, np.uint8)
            width = max(1, (p.elem_bytes or np.dtype(dtype).itemsize) // np.dtype(dtype).itemsize)
            values = buffer_contents(p.name, dtype, caps[p.name] * width, roles.get(p.name), index_range)
            args[p.name] = values.view(np.uint8)
        elif p.is_pointer and p.address_space == "local":
            args[p.name] = (local_bytes or {}).get(p.name, 16 * 4 * group)
        elif p.name in scalars:
            args[p.name] = scalars[p.name]
        else:
            raise UsageError(f"--arg {p.name}=VALUE: scalar '{p.name}' of kernel '{kernel_name}' needs a value")
    return args


def build_options(defines: Mapping[str, str] | None) -> list[str]:
    """OpenCL build options for command-line macros: ``["-D", "NAME=VALUE", ...]``."""
    out = []
    for name, value in (defines or {}).items():
        out += ["-D", f"{name}={value}" if value not in (None, "") else name]
    return out
