"""Exact counts of a corpus kernel (a ``data.corpus.spec.KernelSpec``) at given sizes.

Duck-typed on the spec (``source``, ``kernel_name``, ``args``, ``inputs``, ``buffer_counts``,
``scalar_values``, ``global_size_of``, ``valid_local_sizes``) so that ``kgraph`` does not import
``data``. Used by the harness to fill the dataset's count columns (``counts_source="instrumented"``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kgraph.errors import MeasurementError
from kgraph.instrument.launch import WorkCounts, count_launch, default_context


def count_spec(spec, sizes: dict, local_size: Sequence[int] | None = None, *, seed: int = 0,
               context=None) -> tuple[WorkCounts, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Run ``spec`` instrumented once at ``sizes``.

    Args:
        spec: the kernel spec.
        sizes: its problem-size parameters.
        local_size: the work-group shape (default: the first valid one for the device).
        seed: seed of the generated inputs.
        context: a ``pyopencl.Context`` (default: PoCL).

    Returns:
        (counts, inputs as generated, outputs: every buffer after the launch), so that the caller
        can check the outputs against the spec's reference.
    """
    ctx = context if context is not None else default_context()
    if local_size is None:
        device = ctx.devices[0]
        valid = spec.valid_local_sizes(sizes, device.max_work_group_size, device.max_work_item_sizes)
        if not valid:
            raise MeasurementError(f"{spec.kernel_id}: no valid work-group shape at {sizes}")
        local_size = valid[0]
    inputs = spec.inputs(np.random.default_rng(seed), sizes)
    counts = spec.buffer_counts(sizes, list(local_size))
    scalars = spec.scalar_values(sizes)
    args, outputs = {}, {}
    for a in spec.args:
        if a.kind == "buffer":
            outputs[a.name] = inputs[a.name].copy()
            args[a.name] = outputs[a.name]
        elif a.kind == "local":
            args[a.name] = max(counts[a.name] * np.dtype(a.dtype).itemsize, 1)
        else:
            args[a.name] = scalars[a.name]
    work = count_launch(spec, spec.kernel_name, spec.global_size_of(sizes), local_size, args, ctx,
                        filename=f"{spec.kernel_id}.cl")
    return work, inputs, outputs
