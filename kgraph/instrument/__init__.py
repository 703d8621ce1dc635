"""Kernel instrumentation: a source rewrite that counts exact work and marks touched elements.

``instrument(unit, kernel_name)`` rewrites an OpenCL kernel (byte-span insertions from the
``kgraph.parsers`` tree) to count executed FLOPs, integer ops, transcendentals, global bytes loaded and
stored, and atomics, and to mark every global element it touches. This package only rewrites source;
building and running the rewritten kernel on a device is :mod:`kgraph.data.instrumented`.
See docs/INSTRUMENT.md.
"""
from kgraph.instrument.prelude import COUNTER_NAMES
from kgraph.instrument.rewrite import InstrumentedKernel, instrument

__all__ = ["instrument", "InstrumentedKernel", "COUNTER_NAMES"]
