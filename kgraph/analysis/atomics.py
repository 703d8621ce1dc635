"""Atomics: the address each one updates, and how many distinct addresses a launch's executions of it hit.

Same-address atomics are applied one after another (in the L2 on a GPU, by the coherence protocol on a CPU),
so what an atomic costs depends on how many of a launch's executions share an address: every generated
``atomic_add(&h[(i * P) % B], v)`` with B from 1 to 32,768 bins, the one counter of a reduction, a slot per
work-group. :func:`atomic_target` finds the target where the expression counter meets the atomic (it records an
:class:`~kgraph.analysis.expression.AccessSite` of kind ``atomic``: no bytes counted, the op is in ``atomics``);
the analysis gives it an index, executions and loop context like any access; :func:`atomic_targets` bounds the
distinct addresses, for the ``global_atomic_depth`` traffic feature (:mod:`kgraph.analysis.traffic`).
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.context import node_text, subscript_index
from kgraph.analysis.ctype import MEMORY_SPACES
from kgraph.analysis.symbolic_math import OPAQUE_PREFIXES, SIZE_OF_ID, normalize_ids, work_symbol


def address_of(scope, node) -> tuple | None:
    """The parts of an address expression, ``&X[i]``, ``X + i`` (either order) or a pointer ``X`` (parentheses and
    casts around it ignored): ``(the access's node: X[i], X + i or X; X's node; i's node or None)``; None for another
    form (``&s.f``, ``&a[i][j]``).

    Args:
        scope: the function's scope at the expression (it tells which operand of ``+`` is the pointer).
        node: the expression.
    """
    while node.type in ("parenthesized_expression", "cast_expression"):
        node = node.child_by_field_name("value") or node.named_children[-1]
    if node.type == "pointer_expression" and node_text(node.child_by_field_name("operator")) == "&":
        node = node.child_by_field_name("argument")
        if node.type != "subscript_expression" or node.child_by_field_name("argument").type != "identifier":
            return None
        return node, node.child_by_field_name("argument"), subscript_index(node)
    if node.type == "binary_expression" and node_text(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        var = scope.lookup(node_text(left)) if left.type == "identifier" else None
        return (node, left, right) if var is not None and var.ctype.pointer else (node, right, left)
    return (node, node, None) if node.type == "identifier" else None


def atomic_target(ctx, node) -> tuple | None:
    """The fields of the :class:`~kgraph.analysis.expression.AccessSite` (kind ``atomic``) of the address an
    atomic updates, ``&h[i]``, ``h + i`` or a pointer ``p``: ``(buffer, space, "atomic", bytes, node, pointer,
    index)``; None for another form (``&s.f``, ``&a[i][j]``) or a private pointer.

    Args:
        ctx: the function's :class:`~kgraph.analysis.context.Context` at the statement.
        node: the atomic's first argument.
    """
    parts = address_of(ctx.scope, node)
    if parts is None:
        return None
    node, base, index = parts
    var = ctx.scope.lookup(node_text(base)) if base.type == "identifier" else None
    space = MEMORY_SPACES.get(var.ctype.space) if var is not None and var.ctype.pointer else None
    if space is None:
        return None
    return var.alias or var.name, space, "atomic", var.ctype.element().scalar_bytes, node, var.name, index


def atomic_targets(index, context: dict | None) -> sp.Expr | None:
    """How many distinct addresses one atomic site can hit in a launch (sympy in the work sizes and scalar
    parameters), or None when its index depends on values the analysis cannot bound.

    Args:
        index: the site's index (sympy; None for a bare pointer: one address).
        context: the site's ``Access.context`` (its enclosing loops give their variables' trip counts).

    The index, less its terms free of ids and loop variables (offsets), is either ``e % B`` with ``B`` free of
    them (``B`` addresses, the bins of a histogram) or an expression whose distinct values are at most the
    product of the ranges of its ids (``gsz``, ``lsz``, ``ngrp``) and loop variables (their trip counts).
    """
    if index is None:
        return sp.Integer(1)
    index = normalize_ids(index)
    trips = {sym: (loop.raw_trip if loop.raw_trip is not None else loop.trip)
             for sym, loop, _ in (context or {}).get("loops", [])}
    ranges = {work_symbol(prefix, d): work_symbol(size, d) for prefix, size in SIZE_OF_ID.items() for d in range(3)}

    def varying(expr) -> set:
        return {s for s in expr.free_symbols if s in ranges or s in trips or s.name.startswith(OPAQUE_PREFIXES)}

    moving = [t for t in sp.Add.make_args(index) if varying(t)]
    if not moving:
        return sp.Integer(1)
    if len(moving) == 1 and isinstance(moving[0], sp.Mod) and not varying(moving[0].args[1]):
        return sp.Abs(moving[0].args[1])
    symbols = set().union(*(varying(t) for t in moving))
    if any(s not in ranges and s not in trips for s in symbols):
        return None
    return sp.Mul(*(ranges[s] if s in ranges else sp.Max(sp.sympify(trips[s]), 1) for s in symbols))


def warp_uniform(index, context: dict | None) -> bool:
    """Whether every lane of a warp updates the same address at an atomic site: its index (sympy; None for a bare
    pointer) reads no work-item id (``get_global_id``, ``get_local_id``; the group id is the warp's), no loop
    variable and no value the analysis cannot see (a load, a call). The compiler can then prove the address uniform
    and apply one atomic per warp for all its lanes (:func:`kgraph.analysis.traffic.traffic_exprs`).

    Args:
        index: the site's index; context: its ``Access.context`` (its enclosing loops' variables).
    """
    if index is None:
        return True
    loops = {sym for sym, _, _ in (context or {}).get("loops", [])}
    lanes = {work_symbol(prefix, d) for prefix in ("gid", "lid") for d in range(3)}
    return not any(s in loops or s in lanes or s.name.startswith(OPAQUE_PREFIXES)
                   for s in normalize_ids(index).free_symbols)

