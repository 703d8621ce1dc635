"""The count keys of the static analysis and small helpers over count dictionaries.

A count dictionary maps every key of :data:`COUNT_KEYS` to a number (``int`` for one execution of a
statement) or a sympy expression (per-work-item totals of a kernel).
"""
from __future__ import annotations

from typing import Mapping

from kgraph.count_keys import COUNT_KEYS  # defined once there


def zero_counts() -> dict:
    """A count dictionary with every key at 0."""
    return {k: 0 for k in COUNT_KEYS}


def add_into(total: dict, part: Mapping, weight=1) -> dict:
    """``total += weight * part`` key by key (in place); returns ``total``."""
    for k in COUNT_KEYS:
        v = part.get(k, 0)
        if v != 0:
            total[k] = total[k] + weight * v
    return total


def is_zero(counts: Mapping) -> bool:
    return all(counts.get(k, 0) == 0 for k in COUNT_KEYS)
