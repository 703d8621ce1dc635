"""Instrumented runs on a device: build a :func:`kgraph.instrument.instrument` rewrite with pyopencl,
run it once and read its exact work counts, footprint and buffer extents. See docs/INSTRUMENT.md.
"""
from kgraph.data.instrumented.launch import (
    build_instrumented,
    count_launch,
    default_context,
    run_instrumented,
)
from kgraph.data.instrumented.marks import launch_on_device
from kgraph.data.instrumented.results import BufferExtent, WorkCounts

__all__ = [
    "count_launch", "run_instrumented", "WorkCounts", "BufferExtent", "default_context",
    "build_instrumented", "launch_on_device",
]
