"""Device side of one instrumented launch: the counters and byte-map buffers, the launch, the read-back.

:func:`launch_on_device` runs an already built instrumented program with arguments that already
live on the device (``pyopencl.Buffer`` objects), so a caller that keeps its buffers on the
device (the measurement harness) pays one extra kernel launch and two small reads per count: no
host copy of the kernel's data. Layout of the two extra arguments: :mod:`kgraph.instrument.prelude`.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from kgraph.errors import MeasurementError
from kgraph.instrument.prelude import COUNTER_NAMES, COUNTER_SLOTS, COUNTER_STRIDE, MARK_HEADER_WORDS
from kgraph.instrument.rewrite import InstrumentedKernel
from kgraph.instrument.summary import summarise_marks
from kgraph.data.instrumented.results import BufferExtent, WorkCounts

MAX_MARK_WORDS = 2**32 - 1  # word offsets in the header are 32-bit


def mark_layout(kernel: InstrumentedKernel, capacities: Mapping[str, int]) -> tuple[np.ndarray, int]:
    """The header words and the total size in 32-bit words of the marks buffer.

    Args:
        kernel: the instrumented kernel (its ``buffers`` fix the header slots).
        capacities: elements of each global buffer passed, by parameter name.

    Shapes:
        header: uint32[MARK_HEADER_WORDS * len(kernel.buffers)].
    """
    header = np.zeros(MARK_HEADER_WORDS * len(kernel.buffers), dtype=np.uint32)
    offset = header.size
    for b in kernel.buffers:
        capacity = int(capacities[b.name])
        if capacity >= 2**32:
            raise MeasurementError(f"buffer '{b.name}' has {capacity} elements: over the 2^32 the marks can index")
        header[MARK_HEADER_WORDS * b.index:MARK_HEADER_WORDS * b.index + 2] = (offset, capacity)
        offset += (capacity + 3) // 4
    if offset > MAX_MARK_WORDS:
        raise MeasurementError("buffers too large for the footprint byte maps (over 2^32 words)")
    return header, offset


def launch_on_device(queue, program, kernel: InstrumentedKernel, global_size: Sequence[int],
                     local_size: Sequence[int] | None, cl_args: Sequence, capacities: Mapping[str, int]):
    """Run the instrumented ``program`` once and return its :class:`~kgraph.data.instrumented.launch.WorkCounts`.

    Args:
        queue: a ``pyopencl.CommandQueue`` on the program's context.
        program: the built instrumented program (``build_instrumented``).
        kernel: what was instrumented (buffer slots, warnings).
        global_size, local_size: the NDRange (``local_size`` None lets the runtime choose).
        cl_args: the kernel's own arguments in parameter order, ready for ``set_args`` (device
            buffers, ``LocalMemory``, numpy scalars).
        capacities: elements of each global buffer argument, by parameter name.

    Raises:
        MeasurementError: the launch failed (the driver's message is included).
    """
    import pyopencl as cl

    ctx = queue.context
    header, words = mark_layout(kernel, capacities)
    mf = cl.mem_flags
    counters = np.zeros((COUNTER_SLOTS, COUNTER_STRIDE), dtype=np.uint64)
    counters_dev = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=counters)
    marks_dev = cl.Buffer(ctx, mf.READ_WRITE, words * 4)
    try:
        cl.enqueue_fill_buffer(queue, marks_dev, np.uint32(0), 0, words * 4)
        if header.size:
            cl.enqueue_copy(queue, marks_dev, header)
        knl = cl.Kernel(program, kernel.kernel_name)
        knl.set_args(*cl_args, counters_dev, marks_dev)
        cl.enqueue_nd_range_kernel(queue, knl, tuple(int(g) for g in global_size),
                                   None if local_size is None else tuple(int(x) for x in local_size))
        cl.enqueue_copy(queue, counters, counters_dev)
        longest = max((int(header[MARK_HEADER_WORDS * b.index + 1]) + 3) // 4 for b in kernel.buffers) \
            if kernel.buffers else 0
        summarised = summarise_marks(queue, marks_dev, len(kernel.buffers), longest)
        if summarised is None:  # no summary kernel on this device: the whole maps come back
            marks = np.empty(words, dtype=np.uint32)
            cl.enqueue_copy(queue, marks, marks_dev)
        queue.finish()
    except cl.Error as exc:
        raise MeasurementError(f"kernel '{kernel.kernel_name}' failed to launch: {exc}") from None
    finally:
        counters_dev.release()
        marks_dev.release()
    if summarised is None:
        return collect(kernel, counters, marks)
    return collect_summary(kernel, counters, *summarised)


def collect_summary(kernel: InstrumentedKernel, counters: np.ndarray, header: np.ndarray, summary: np.ndarray):
    """``WorkCounts`` from the read-back counters, the marks' header and the device-side summary
    (:func:`kgraph.instrument.summary.summarise_marks`); equal to :func:`collect` on the full maps."""

    extents = {}
    for b in kernel.buffers:
        _, capacity, outside_plus1, out_of_range = (int(x) for x in header[MARK_HEADER_WORDS * b.index:][:4])
        touched, last_plus1 = (int(x) for x in summary[b.index])
        max_index = max(last_plus1 - 1, outside_plus1 - 1)
        extents[b.name] = BufferExtent(b.name, b.elem_bytes, capacity, max_index, touched, out_of_range)
    return _work_counts(kernel, counters, extents)


def collect(kernel: InstrumentedKernel, counters: np.ndarray, marks: np.ndarray):
    """``WorkCounts`` from the read-back counters (slots x stride, summed here) and marks (footprint and
    extents from the byte maps)."""

    extents = {}
    for b in kernel.buffers:
        word0, capacity, outside_plus1, out_of_range = (int(x) for x in marks[MARK_HEADER_WORDS * b.index:][:4])
        touched_map = marks[word0:word0 + (capacity + 3) // 4].view(np.uint8)[:capacity].view(np.bool_)
        touched = int(np.count_nonzero(touched_map))
        last_inside = capacity - 1 - int(np.argmax(touched_map[::-1])) if touched else -1
        max_index = max(last_inside, outside_plus1 - 1)
        extents[b.name] = BufferExtent(b.name, b.elem_bytes, capacity, max_index, touched, out_of_range)
    return _work_counts(kernel, counters, extents)


def _work_counts(kernel: InstrumentedKernel, counters: np.ndarray, extents: dict):

    sums = counters.reshape(-1, COUNTER_STRIDE).sum(axis=0, dtype=np.uint64)
    totals = {name: int(sums[k]) for k, name in enumerate(COUNTER_NAMES)}
    return WorkCounts(**totals, footprint_bytes=sum(e.footprint_bytes for e in extents.values()),
                      buffers=extents, exact=kernel.exact, warnings=tuple(kernel.warnings))
