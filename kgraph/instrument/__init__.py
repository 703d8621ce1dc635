"""Kernel instrumentation: exact work counts, footprint and buffer extents from one run.

``instrument(unit, kernel_name)`` rewrites an OpenCL kernel (byte-span insertions from the
``parsers`` tree) to count executed FLOPs, integer ops, transcendentals, global bytes loaded and
stored, and atomics, and to mark every global element it touches. ``count_launch(...)`` builds and
runs it once with pyopencl and returns :class:`WorkCounts`. See docs/INSTRUMENT.md.
"""
from kgraph.instrument.launch import (
    BufferExtent,
    WorkCounts,
    build_instrumented,
    count_launch,
    default_context,
    run_instrumented,
)
from kgraph.instrument.marks import launch_on_device
from kgraph.instrument.prelude import COUNTER_NAMES
from kgraph.instrument.rewrite import InstrumentedKernel, instrument

__all__ = [
    "instrument", "InstrumentedKernel", "count_launch", "run_instrumented", "WorkCounts",
    "BufferExtent", "default_context", "COUNTER_NAMES", "build_instrumented", "launch_on_device",
]
