"""Trip counts of ``for`` loops whose start and bound read memory but whose count does not: windows around a loaded
position.

A loop over a neighbourhood of a position read from a buffer, ``int c = cell[i]; for (z = c - 1; z <= c + 1; z++)``,
or over a run of known length from a loaded offset, ``for (k = base[i]; k < base[i] + w; k++)``, has its start and
bound opaque (:func:`kgraph.analysis.symbolic_math.is_opaque`), so :func:`kgraph.analysis.loops.for_loop` read it as
``trip_<line>`` (one assumed iteration). Its count is the bound minus the start, where the load cancels:

- **exact**: ``(c + 1) - (c - 1) + 1 = 3``; ``(b + w) - b = w``: the same for every work-item, so the counts stay
  exact;
- **clamped window**: ``for (z = max(c - 1, 0); z <= min(c + 1, n - 1); z++)`` (a cell list's 3×3×3 neighbours, a
  window kept inside an array) runs ``min(c + 1, n - 1) - max(c - 1, 0) + 1`` times, which depends on ``c`` only at
  the borders. It is read at its full width (each ``Max``/``Min`` with exactly one argument that reads memory replaced
  by that argument: ``3``), an upper bound that is exact away from the borders; the loop is a mean
  (:attr:`kgraph.analysis.loops.Loop.mean`), so the kernel's counts are not exact.

Neither applies where the step is not a constant add, the body moves the variable, an opaque value in the header is
not an element read from memory (a call such as ``floor``, a selection, an untracked variable: one symbol stands for
many values there, so they must not cancel), or a count that reads memory is left after the clamps are removed (a
segment ``ptr[r] .. ptr[r + 1]``, :mod:`kgraph.analysis.segments`).
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.symbolic_math import is_opaque


def _unclamped(expr):
    """``expr`` with each ``Max``/``Min`` of which exactly one argument reads memory replaced by that argument."""
    def clamp(e) -> bool:
        return isinstance(e, (sp.Max, sp.Min)) and sum(is_opaque(a) for a in e.args) == 1

    return sp.sympify(expr).replace(clamp, lambda e: next(a for a in e.args if is_opaque(a)))


def header_with_named_values(init, cond, var: str, body, env) -> tuple[object, object] | None:
    """``(start, bound)`` of a ``for`` header read again with each variable it reads whose value is opaque and not an
    element read (``int cz = (int)(z * inv);``: a cast, a call, a selection, an untracked variable) given a symbol of
    its own, ``ld_var@<name>``, so that ``cz - 1`` and ``cz + 1`` differ by 2 and ``by0``, ``by1`` (two ``floor`` calls)
    stay apart; None when there is no such variable, or the body assigns one (its value may change in the loop).

    Args:
        init, cond: the header's initialiser and condition nodes; var: the loop variable; body: the loop's body;
        env: the analysis' ``SymbolicEnv`` (its bindings are restored before this returns).
    """
    from kgraph.analysis.assignments import assignments_of
    from kgraph.analysis.context import node_text
    from kgraph.analysis.loop_header import identifiers, loop_condition, loop_init

    names = set()
    for node in identifiers(init) + identifiers(cond):
        name, parent = node_text(node), node.parent
        if name == var or (parent is not None and parent.type == "call_expression"
                           and parent.child_by_field_name("function") == node):
            continue
        value = env.to_sympy_name(name)
        if is_opaque(value) and not (isinstance(value, sp.Symbol) and value.name.startswith("ld_")):
            names.add(name)
    if not names or any(assignments_of(body, name) for name in names):
        return None
    saved = {name: env.values.get(name) for name in names}
    try:
        for name in names:
            env.bind(name, sp.Symbol(f"ld_var@{name}"))
        start, bound = loop_init(init, env, cond)[1], loop_condition(cond, var, env)[1]
    finally:
        for name, value in saved.items():
            if value is None:
                env.values.pop(name, None)
            else:
                env.bind(name, value)
    return start, bound


def _loads_only(*exprs) -> bool:
    """Whether every opaque symbol of ``exprs`` is an element read from memory (``ld_<buffer>@<index>``, one symbol
    per element as written) or a variable given its own symbol (:func:`header_with_named_values`): only those name
    one value each, so only they may cancel. A call's or a selection's symbol (``call_floor``, ``sel``) stands for
    every value of its kind."""
    opaque = {s.name for e in exprs for s in getattr(sp.sympify(e), "free_symbols", ()) if is_opaque(s)}
    return bool(opaque) and all(name.startswith("ld_") for name in opaque)


def window_trip(trip_of, op: str, start, bound, step_kind, step) -> tuple[object, str, bool] | None:
    """``(trip, note, mean)`` of a ``for`` loop whose start or bound reads memory but whose count does not, or None.

    Args:
        trip_of: ``loops._trip`` (``(op, start, bound, step_kind, step) -> (trip or None, note)``).
        op, start, bound, step_kind, step: the loop header as :func:`kgraph.analysis.loops.for_loop` reads it.

    ``mean`` is True for a clamped window (read at its full width), False where the count is exact.
    """
    if step_kind != "add" or is_opaque(step) or not _loads_only(start, bound):
        return None
    trip = trip_of(op, start, bound, step_kind, step)[0]
    if trip is not None and not is_opaque(trip):
        return trip, "its start and bound read memory, their difference does not", False
    if not (sp.sympify(start).has(sp.Max, sp.Min) or sp.sympify(bound).has(sp.Max, sp.Min)):
        return None
    trip = trip_of(op, _unclamped(start), _unclamped(bound), step_kind, step)[0]
    if trip is None or is_opaque(trip):
        return None
    return trip, ("a window around a value read from memory, clamped by max/min: counted at its full width "
                  f"({trip}), an upper bound exact away from the clamps"), True
