"""Sizing runs of ``kgraph measure``: the element counts of the buffers nobody gave a size.

They come from instrumented sizing runs on PoCL (:func:`kgraph.data.instrumented.extents.infer_extents`:
every access bounds-checked against the buffers it allocates, buffers grown until the recorded extents
are stable); when that cannot be done the command says why and names the buffers that need a size.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.dtypes import NUMPY_DTYPES
from kgraph.errors import KGraphError, MeasurementError, UsageError

from .foreign_args import _components, _count, _default_local, _default_scalar

def _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines) -> tuple[dict, int, dict]:
    """``(extents, index_range, counts)``: element counts of the buffers without given sizes, from bounded
    instrumented sizing runs (PoCL or the first OpenCL device), the range the index-like buffers'
    values were drawn from, and the work the last (stable) run counted on those buffers and inputs
    (:func:`sizing_counts`; {} when the instrumentation left something uncounted). That range is the
    launch's work-items, else (when the extents run away and some buffer holds indices) its largest
    dimension: indices often run along one dimension (a neighbour table of the rows). Raises a MeasurementError
    naming the buffers that need ``--buffer`` when the runs cannot tell; the kernel's build log when it does not
    build.

    Args: as :func:`foreign_spec` (``unsized``: the buffers to size).
    """
    from kgraph.data.instrumented.contents import default_index_range, kernel_roles
    from kgraph.data.instrumented.extents import ExtentsRunaway, infer_extents
    from kgraph.data.instrumented.launch import BuildError

    function = next(f for f in unit.kernels if f.name == kernel)
    scalars, local_bytes = {}, {}
    for p in function.params:
        dtype = NUMPY_DTYPES[p.base_type]
        if not p.is_pointer:
            values = [int(v) if np.dtype(dtype).kind in "iub" else float(v)
                      for v in _components(p, given.get(p.name, _default_scalar(p, global_size)))]
            scalars[p.name] = values if p.vector_width > 1 else values[0]
        elif p.address_space == "local":
            elems = _count(given.get(p.name, _default_local(local_size)), p.name)
            local_bytes[p.name] = elems * p.vector_width * np.dtype(dtype).itemsize
    ranges = [default_index_range(global_size)]
    if kernel_roles(unit.text, function.params) and max(global_size) < ranges[0]:
        ranges.append(max(global_size))
    for attempt, index_range in enumerate(ranges):
        try:
            extents, counts = infer_extents(unit.text, kernel, global_size, local_size, scalars,
                                            local_bytes=local_bytes, filename=unit.filename, defines=defines,
                                            index_range=index_range)
            return ({name: elements for name, elements in extents.items() if elements > 0}, index_range,
                    sizing_counts(counts))
        except (BuildError, UsageError):
            raise
        except ExtentsRunaway as exc:
            if attempt + 1 < len(ranges):
                continue
            raise MeasurementError(f"cannot infer the size of buffer(s) {', '.join(unsized)}: {exc}\n"
                                   f"give --buffer NAME=ELEMENTS for each") from None
        except KGraphError as exc:
            raise MeasurementError(f"cannot infer the size of buffer(s) {', '.join(unsized)}: {exc}\n"
                                   f"give --buffer NAME=ELEMENTS for each") from None
    raise AssertionError("unreachable: the last index range returns or raises")


def sizing_counts(counts) -> dict:
    """A sizing run's ``WorkCounts`` as row columns (:data:`kgraph.data.harness.columns.COUNT_COLUMNS`; {} when
    they are not exact): what an instrumented count gives a row (``counts_source`` "instrumented")."""
    from .columns import COUNT_COLUMNS

    if counts is None or not getattr(counts, "exact", False):
        return {}
    return {name: int(getattr(counts, name)) for name in COUNT_COLUMNS}
