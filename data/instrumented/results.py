"""What one instrumented run returns: exact work counts and per-buffer extents."""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.instrument.prelude import COUNTER_NAMES


@dataclass(frozen=True)
class BufferExtent:
    """What one run touched of one global buffer.

    Args:
        name: the kernel parameter.
        elem_bytes: bytes per element.
        capacity: elements in the buffer that was passed.
        max_index: highest element index accessed (-1: never accessed). ``max_index + 1`` elements
            is the smallest buffer this launch needs (the inferred extent).
        touched: distinct elements accessed.
        out_of_range: accesses that fell outside ``[0, capacity)`` (the buffer passed was too small).
    """

    name: str
    elem_bytes: int
    capacity: int
    max_index: int
    touched: int
    out_of_range: int

    @property
    def extent_bytes(self) -> int:
        return (self.max_index + 1) * self.elem_bytes

    @property
    def footprint_bytes(self) -> int:
        return self.touched * self.elem_bytes


@dataclass(frozen=True)
class WorkCounts:
    """Exact work of one whole launch, counted by the instrumented kernel.

    Args:
        flops_fp32, flops_fp64, int_ops, transcendental: executed operations (from static
            per-statement costs, counted each time the statement runs).
        global_load_bytes, global_store_bytes: bytes moved by executed global accesses.
        atomics: executed atomic built-in calls.
        footprint_bytes: distinct global bytes touched (elements touched × element size).
        buffers: per global buffer parameter, in parameter order.
        exact: False when the instrumentation left some construct uncounted (see ``warnings``).
        warnings: what was not counted and where.
    """

    flops_fp32: int
    flops_fp64: int
    int_ops: int
    transcendental: int
    global_load_bytes: int
    global_store_bytes: int
    atomics: int
    footprint_bytes: int
    buffers: dict[str, BufferExtent] = field(default_factory=dict)
    exact: bool = True
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, int]:
        """The dataset columns: the counters and ``footprint_bytes``."""
        out = {name: getattr(self, name) for name in COUNTER_NAMES}
        out["footprint_bytes"] = self.footprint_bytes
        return out
