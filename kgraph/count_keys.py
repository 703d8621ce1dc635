"""The work counts kgraph knows, defined once (imported without sympy, by the instrumentation too).

``COUNT_KEYS`` are the per-work-item counts of the static analysis (``kgraph.analysis``), in the order
of the ``static_<count>`` features (``kgraph.data.features.STATIC_COUNTS``). ``COUNTER_NAMES`` are the
ones an instrumented run counts exactly (``kgraph.instrument``: the order of the counters buffer; with
``footprint_bytes`` they are the count columns of measured datasets, ``kgraph.data.harness.columns``):
every count but those kept only statically.
"""
from __future__ import annotations

COUNT_KEYS: tuple[str, ...] = (
    "flops_fp32",
    "flops_fp64",
    "int_ops",
    "transcendental",
    "global_load_bytes",
    "global_store_bytes",
    "local_load_bytes",
    "local_store_bytes",
    "barriers",
    "atomics",
    "branches",
    "int_divmod",  # of int_ops, the integer divisions and remainders (tens of instructions each on a GPU)
    "roots",  # of transcendental, the square roots and reciprocal square roots (one instruction; exp is not)
)
#: counts the instrumented kernel does not keep (local memory traffic, barriers, branches, the int_divmod and
#: roots shares)
STATIC_ONLY_KEYS: frozenset[str] = frozenset({"local_load_bytes", "local_store_bytes", "barriers", "branches",
                                             "int_divmod", "roots"})
COUNTER_NAMES: tuple[str, ...] = tuple(k for k in COUNT_KEYS if k not in STATIC_ONLY_KEYS)
