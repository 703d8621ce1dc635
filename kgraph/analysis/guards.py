"""Branch probabilities: which fraction of work-items takes an ``if`` arm.

A *guard* compares a work-item id (plus a constant offset) with a bound free of ids; with the id
uniform in [0, size) the exact fraction of work-items that pass is:

=====================  =====================================
``id + c <  B``        ``Min(1, (B - c)/size)``
``id + c <= B``        ``Min(1, (B - c + 1)/size)``
``id + c >= B``        ``1 - Min(1, (B - c)/size)``
``id + c >  B``        ``1 - Min(1, (B - c + 1)/size)``
``id + c == B``        ``1/size``;  ``!=``: ``1 - 1/size``
=====================  =====================================

``size`` is ``gsz<d>`` for a global id (also ``blockIdx*blockDim + threadIdx``), ``lsz<d>`` for a local
id, ``ngrp<d>`` for a group id. When ``B`` depends on a loop variable (``if (lid < s)`` in a tree
reduction) the ``Min`` is dropped so the loop can average the fraction over its iterations.
``a && b`` multiplies the fractions of its guards. Any other condition returns None (the caller weighs
both arms 1/2).
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.context import condition_value, node_text
from kgraph.analysis.symbolic import SIZE_OF_ID, id_symbols, is_opaque, normalize_ids, work_symbol

_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def guard_fraction(cond, env, loop_symbols: set) -> object | None:
    """Fraction of work-items for which ``cond`` holds, or None when it is not a guard."""
    cond = condition_value(cond)
    if cond is None or cond.type != "binary_expression":
        return None
    op = node_text(cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op == "&&":
        a, b = guard_fraction(left, env, loop_symbols), guard_fraction(right, env, loop_symbols)
        return a * b if a is not None and b is not None else None
    if op not in _FLIP:
        return None
    lhs, rhs = normalize_ids(env.to_sympy(left)), normalize_ids(env.to_sympy(right))
    if id_symbols(rhs) and not id_symbols(lhs):
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    ids = id_symbols(lhs)
    if len(ids) != 1 or id_symbols(rhs) or is_opaque(lhs) or is_opaque(rhs):
        return None
    (idsym,) = ids
    if sp.expand(sp.diff(lhs, idsym) - 1) != 0:
        return None
    c = sp.expand(lhs - idsym)
    size = work_symbol(SIZE_OF_ID[idsym.name[:-1]], int(idsym.name[-1]))
    in_loop = bool(rhs.free_symbols & loop_symbols)
    clip = (lambda x: x) if in_loop else (lambda x: sp.Min(1, x))
    below = {"<": rhs - c, "<=": rhs - c + 1, ">=": rhs - c, ">": rhs - c + 1}
    if op in ("<", "<="):
        return clip(below[op] / size)
    if op in (">", ">="):
        return 1 - clip(below[op] / size)
    if op == "==":
        return 1 / size
    return 1 - 1 / size
