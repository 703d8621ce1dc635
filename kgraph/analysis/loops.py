"""Loop trip counts as sympy expressions.

Recognised ``for`` shapes (``i`` the loop variable, ``a`` its start, ``b`` the bound, ``c`` the step):

- additive ``i += c`` / ``i++`` with ``<`` / ``!=``: ``ceiling((b - a)/c)``; ``<=``: ``ceiling((b - a + 1)/c)``;
  ``i -= c`` / ``i--`` with ``>``: ``ceiling((a - b)/c)``; ``>=``: ``ceiling((a - b + 1)/c)``.
- doubling ``i *= 2`` / ``i <<= 1`` with ``<``: ``ceil_log2(b/a)``; ``<=``: ``floor_log2(b/a) + 1``.
- halving ``i /= 2`` / ``i >>= 1`` with ``> 0``: ``floor_log2(a) + 1``; ``> b``: ``ceil_log2(a/b)``;
  ``>= b``: ``floor_log2(a/b) + 1``.
- grid-stride: start ``a = id + a0`` and step = that id's range (``gsz`` for a global id, ``lsz`` for a
  local id): the mean over the NDRange is exactly ``(b - a0)/c`` (every index in [a0, b) is visited once).
- a trip count that still depends on work-item ids (triangular loops) is averaged over the NDRange
  (each id uniform in [0, size)); the loop's ``note`` says so.

The condition may carry an offset on the variable, ``i + a OP b`` or ``b OP i - a`` (read as ``i OP b - a``), and
a ``for`` without an initialiser (``for (; j < w; j++)``) starts from the value its variable has where the loop
starts (:mod:`kgraph.analysis.loop_header` reads the header's parts).

``while (i OP b) { ...; i += c; }`` and ``do { ...; i += c; } while (i OP b);`` (one top-level update
of ``i`` in the body, ``i``'s start value known where the loop starts) follow the same table (a ``do``
loop runs at least once: ``Max(1, trip)``). A ``while``/``do`` bisection of an index range (a binary search)
runs ``log2`` of the range's length (:mod:`kgraph.analysis.bisection`). ``break``/``continue`` in a body leave a note (the count
is then an upper bound). Anything else (a bound loaded from memory, a data-dependent exit, a
variable written elsewhere in the body) is the symbol ``trip_<line>`` with ``symbolic=False``. ``#pragma unroll`` never changes a count.
Where such a loop's condition is a conjunction with one affine conjunct (``it < max_iter && err > tol``, either
side, ``for``, ``while`` or ``do``), that conjunct's count is kept as the loop's ``upper`` bound
(:mod:`kgraph.analysis.trips` assumes a trip count from it).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from kgraph.analysis.bisection import bisection
from kgraph.analysis.windows import header_with_named_values, window_trip
from kgraph.analysis.context import condition_value, node_text
from kgraph.analysis.loop_header import (conjuncts, identifiers, loop_condition, loop_init, loop_update,
                                         offset_of, part_updating, updated_name)
from kgraph.analysis.symbolic import (SIZE_OF_ID, assigned_names, assignments_of, average_over_ids, ceil_log2,
                                      floor_log2, id_symbols, is_opaque, normalize_ids, tidy, work_symbol)
from kgraph.analysis.symbolic_math import TRIP_PREFIX, loop_symbols

@dataclass
class Loop:
    """One loop of the nest.

    Args:
        line: 1-based line of the loop keyword.
        kind: ``for`` | ``while`` | ``do``.
        var: the loop variable (``""`` if none was recognised).
        trip: trip count per execution of the loop (sympy; averaged over work items where noted).
        symbolic: ``True`` when ``trip`` was derived from the source, ``False`` for ``trip_<line>``.
        depth: nesting depth (0 = outermost); parent: index of the enclosing loop in the list, or -1.
        note: how the count was obtained.
        start, step: the variable's start value and step (additive: ``+c``/``-c``; geometric: ``*k``/``/k``),
            used to average a body that depends on the variable.
        unroll: the ``#pragma unroll`` value written before the loop (information only).
        bound: the bound the variable is compared with; raw_trip: the trip count before averaging over
            work-item ids (used by :mod:`kgraph.analysis.footprint` for the variable's exact range).
        upper: for a loop of unknown trip count whose condition has an affine conjunct, that conjunct's
            trip count (an upper bound, averaged over work items like ``trip``); else None.
        mean: ``trip`` is a mean over the data (a bisection's, a clamped window's), not an exact count: the
            kernel's counts are then not exact (the analysis notes it).
        window: its start and bound read memory but its count does not (:mod:`kgraph.analysis.windows`): the reads
            in its condition do not make the kernel's counts inexact (:mod:`kgraph.exact_counts`).
        data_trip: for a loop of unknown trip count whose start or bound is an element read from a buffer, the trip
            count in those elements' ``ld_`` symbols (a launch's inputs give its mean, :mod:`kgraph.analysis.
            data_trips`); loads: those symbols -> (buffer, index); ranges: the id intervals of the guards around it
            (``{id symbol: (lo, hi)}``). Else None.
    """

    line: int
    kind: str
    var: str
    trip: object
    symbolic: bool
    depth: int = 0
    parent: int = -1
    note: str = ""
    start: object = None
    step: object = None
    geometric: bool = False
    unroll: object = None
    bound: object = None
    raw_trip: object = None
    upper: object = None
    mean: bool = False
    window: bool = False
    data_trip: object = None
    loads: dict = None
    ranges: dict = None

    def to_dict(self) -> dict:
        return {"line": self.line, "kind": self.kind, "var": self.var, "trip": str(self.trip),
                "symbolic": self.symbolic, "depth": self.depth, "parent": self.parent, "note": self.note,
                "unroll": self.unroll, "upper": None if self.upper is None else str(self.upper)}


def opaque_loop(node, kind: str, note: str, var: str = "") -> Loop:
    """A loop whose trip count is the unknown ``trip_<line>``; ``note`` says why, ``var`` names its
    variable where one was found."""
    line = node.start_point[0] + 1
    return Loop(line, kind, var, sp.Symbol(f"{TRIP_PREFIX}{line}", integer=True, nonnegative=True), False, note=note)


def unknown_trip_counts(loops) -> list[str]:
    """One line per loop whose trip count is unknown: its symbol, kind, variable, line and why, e.g.
    ``trip_7 (for loop on 'k', line 7): bound reads memory or data (row_ptr[row + 1])``."""
    out = []
    for lp in loops:
        if not lp.symbolic:
            on = f" on '{lp.var}'" if lp.var else ""
            out.append(f"{TRIP_PREFIX}{lp.line} ({lp.kind} loop{on}, line {lp.line}): {lp.note or 'not derived'}")
    return out


def _opaque_part(node, start, bound, step, var) -> str:
    """Which parts of an affine ``for`` loop keep its trip count unknown, quoting their source text."""
    parts = (("start", start, "initializer"), ("bound", bound, "condition"), ("step", step, "update"))
    found = [f"{what} ({' '.join(node_text(node.child_by_field_name(field)).split())[:80]})"
             for what, value, field in parts if is_opaque(value)]
    if not found:
        return f"'{var}' is also assigned in the loop body"
    verb = "depends" if len(found) == 1 else "depend"
    return f"its {' and '.join(found)} {verb} on memory or on values the analysis cannot follow"


def for_loop(node, env, start_of=None) -> Loop:
    """Trip count of a ``for_statement`` under the symbolic environment ``env``.

    ``start_of(name)`` gives a variable's value when the loop starts (None when it cannot be known): the start of
    a loop without an initialiser, ``for (; j < n; j++)`` after ``int j = 0;``.
    """
    line = node.start_point[0] + 1
    init = node.child_by_field_name("initializer")
    cond = condition_value(node.child_by_field_name("condition"))
    update = node.child_by_field_name("update")
    var, start = loop_init(init, env, cond)
    if init is None and start_of is not None:  # for (; j < n; j++): j's value where the loop starts
        var = updated_name(update)
        start = start_of(var) if var else None
        var = var if start is not None else ""
    if not var or cond is None or update is None:
        return opaque_loop(node, "for", "not an affine for loop (missing init, condition or update)", var or "")
    parts, body = conjuncts(cond), node.child_by_field_name("body")
    if len(parts) > 1:  # i < b && <data>: the affine conjunct's count bounds the loop's, unless the body moves i
        step = (None, None) if assignments_of(body, var) else loop_update(part_updating(update, var), var, env)
        return _bounded_exit(node, "for", var, start, [loop_condition(p, var, env) for p in parts], step, env,
                             _exits(body))
    op, bound = loop_condition(cond, var, env)
    step_kind, step = loop_update(part_updating(update, var), var, env)
    if op is None or step_kind is None:
        return opaque_loop(node, "for", "condition or update not of a recognised form", var)
    moved = assignments_of(body, var)
    if is_opaque(start) or is_opaque(bound) or is_opaque(step) or moved:
        named = None if moved or init is None else header_with_named_values(init, cond, var, body, env)
        window = None if moved else window_trip(_trip, op, *(named or (start, bound)), step_kind, step)
        if window is not None:  # the reads cancel in the count (kgraph.analysis.windows); the body as before
            trip, note, mean = window
            note = "; ".join(n for n in (note, _exits(body)) if n)
            return Loop(line, "for", "", tidy(trip), True, note=note, raw_trip=tidy(trip), mean=mean, window=True)
        loop = opaque_loop(node, "for", _opaque_part(node, start, bound, step, var), var)
        return loop if moved else with_data_trip(loop, start, bound, step, op, step_kind, env)
    trip, note = _trip(op, start, bound, step_kind, step)
    if trip is None:
        return opaque_loop(node, "for", note, var)
    raw, (trip, avg_note) = trip, _average(trip, start, bound, step_kind, step, op, env)
    note = "; ".join(n for n in (note, avg_note, _exits(body)) if n)
    return Loop(line, "for", var, tidy(trip), True, note=note,
                start=start, step=step if step_kind == "add" else None, geometric=step_kind != "add",
                bound=bound, raw_trip=raw)


def with_data_trip(loop: Loop, start, bound, step, op, step_kind, env) -> Loop:
    """``loop`` (of unknown trip count, its variable moving only in the header) with its :attr:`Loop.data_trip` where
    only elements read from buffers keep its affine count unknown (:func:`kgraph.analysis.data_trips.data_loads`)."""
    from kgraph.analysis.data_trips import data_loads

    if is_opaque(step):
        return loop
    loads = data_loads(getattr(env, "loads", {}), start, bound)
    trip = _trip(op, start, bound, step_kind, step)[0] if loads else None
    ranges = {s: r for s, r in (getattr(env, "id_ranges", None) or {}).items()  # the guards in force, where they
              if not any(is_opaque(e) or loop_symbols(e) for e in r)}  # hold ids against sizes and scalars only
    if trip is not None:
        loop.data_trip, loop.loads, loop.ranges = trip, loads, ranges
    return loop


def while_loop(node, env, start_of) -> Loop:
    """Trip count of a ``while``/``do`` loop ``while (i OP b) { ...; i += c; }``.

    The loop variable's only assignment inside the body must be one affine (or doubling/halving)
    update at the top level of the body; ``start_of(name)`` gives its value when the loop starts
    (or None when it cannot be known). A ``do`` loop runs its body at least once.
    A condition ``i OP b && <data>`` keeps ``trip_<line>`` but its note gives the upper bound.
    """
    kind = "while" if node.type == "while_statement" else "do"
    cond = condition_value(node.child_by_field_name("condition"))
    body = node.child_by_field_name("body")
    extra = _exits(body)
    if cond is None:
        return _noted(opaque_loop(node, kind, f"{kind} loop: no condition"), extra)
    parts = conjuncts(cond)
    found, var = _tested_variable(parts, body, env)
    if found is None:
        halving = bisection(cond, body, start_of)
        if halving is not None:  # a binary search: log2 of its range (kgraph.analysis.bisection)
            trip = sp.Max(1, halving[0]) if kind == "do" else halving[0]
            return Loop(node.start_point[0] + 1, kind, "", trip, True, note=f"{kind} loop: {halving[1]}",
                        raw_trip=trip, mean=True)
        return _noted(opaque_loop(node, kind, f"{kind} loop: trip count not derived"), extra)
    start = start_of(var)
    if len(parts) > 1:
        return _bounded_exit(node, kind, var, start, [loop_condition(p, var, env) for p in parts],
                             loop_update(found, var, env), env, extra)
    op, bound = loop_condition(cond, var, env)
    step_kind, step = loop_update(found, var, env)
    if start is None or op is None or step_kind is None or is_opaque(start) or is_opaque(bound) or is_opaque(step):
        return _noted(opaque_loop(node, kind, f"{kind} loop on '{var}': start, bound or step not derivable", var), extra)
    trip, note = _trip(op, start, bound, step_kind, step)
    if trip is None:
        return _noted(opaque_loop(node, kind, f"{kind} loop: {note}", var), extra)
    raw, (trip, avg_note) = trip, _average(trip, start, bound, step_kind, step, op, env)
    if kind == "do":
        trip, raw = sp.Max(1, trip), sp.Max(1, raw)
    note = "; ".join(n for n in (f"{kind} loop: {note}", avg_note, extra) if n)
    return Loop(node.start_point[0] + 1, kind, var, tidy(trip), True, note=note,
                start=start, step=step if step_kind == "add" else None, geometric=step_kind != "add",
                bound=bound, raw_trip=raw)


def _bounded_exit(node, kind: str, var: str, start, conditions: list, update, env, extra: str) -> Loop:
    """The loop ``trip_<line>`` of a condition ``c1 && c2 && ...`` (a data-dependent exit): where exactly one
    conjunct compares ``var`` (``conditions``: :func:`_condition` of each) with a derivable bound and ``update``
    (:func:`_update`) steps it, that conjunct's trip count is the loop's ``upper`` bound."""
    found = [(op, b) for op, b in conditions if op is not None]
    step_kind, step = update
    if len(found) != 1 or start is None or step_kind is None or \
            any(is_opaque(v) for v in (start, found[0][1], step)):
        return _noted(opaque_loop(node, kind, f"{kind} loop: data-dependent exit", var), extra)
    op, bound = found[0]
    trip, note = _trip(op, start, bound, step_kind, step)
    if trip is None:
        return _noted(opaque_loop(node, kind, f"{kind} loop: data-dependent exit; {note}", var), extra)
    trip = _average(trip, start, bound, step_kind, step, op, env)[0]
    upper = tidy(sp.Max(1, trip) if kind == "do" else trip)
    loop = opaque_loop(node, kind, f"{kind} loop: data-dependent exit; at most {upper} iterations", var)
    loop.upper = upper
    return _noted(loop, extra)


def _tested_variable(parts, body, env):
    """``(update, name)``: the first conjunct of ``parts`` comparing a variable (``i``, ``i + a``) that ``body``
    updates once at its top level, and that update (:func:`_top_update`); ``(None, "")`` when none does."""
    for part in parts:
        for side in ("left", "right") if part.type == "binary_expression" else ():
            n = part.child_by_field_name(side)
            for m in reversed(identifiers(n)):
                name = node_text(m)
                update = _top_update(body, name)
                if update is not None and offset_of(n, name, env) is not None:
                    return update, name
    return None, ""


def _top_update(body, var: str):
    """The one update of ``var`` in ``body`` when it is a top-level expression statement, else None."""
    if body is None or assigned_names(body).get(var, 0) != 1:
        return None
    stmts = body.named_children if body.type == "compound_statement" else [body]
    for st in stmts:
        if st.type == "expression_statement" and st.named_child_count:
            e = st.named_children[0]
            target = e.child_by_field_name("argument") if e.type == "update_expression" else \
                e.child_by_field_name("left") if e.type == "assignment_expression" else None
            if target is not None and target.type == "identifier" and node_text(target) == var:
                return e
    return None


def _exits(body) -> str:
    """A note when ``break``/``continue`` can leave an iteration of this loop early."""
    found, stack = set(), [body] if body is not None else []
    while stack:
        n = stack.pop()
        if n.type in ("break_statement", "continue_statement"):
            found.add(n.type.split("_")[0])
        elif n.type not in ("for_statement", "while_statement", "do_statement", "switch_statement"):
            stack.extend(n.named_children)
    if not found:
        return ""
    return ("; ".join(f"'{w}' in the body: counted as if it never ran"
                      f"{' (the trip count is an upper bound)' if w == 'break' else ''}" for w in sorted(found)))


def _noted(loop: Loop, extra: str) -> Loop:
    if extra:
        loop.note = f"{loop.note}; {extra}"
    return loop


def _trip(op, a, b, kind, c):
    if kind == "add":
        if op in ("<", "!=") and c.is_positive is not False:
            return sp.ceiling((b - a) / c), "affine"
        if op == "<=" and c.is_positive is not False:
            return sp.ceiling((b - a + 1) / c), "affine"
        if op in (">", "!=") and c.is_negative:
            return sp.ceiling((a - b) / -c), "affine"
        if op == ">=" and c.is_negative:
            return sp.ceiling((a - b + 1) / -c), "affine"
        return None, "loop direction and condition disagree"
    if not (c.is_Integer and int(c) >= 2):
        return None, "geometric step is not a constant"
    k = int(c)
    log = (lambda x: floor_log2(x)) if k == 2 else (lambda x: sp.floor(sp.log(x, k)))
    clog = ceil_log2 if k == 2 else (lambda x: sp.ceiling(sp.log(x, k)))
    if kind == "mul":
        if op == "<":
            return clog(b / a), "geometric (doubling)"
        if op == "<=":
            return log(b / a) + 1, "geometric (doubling)"
    if kind == "div":
        if op in (">", "!=") and b == 0:
            return log(a) + 1, "geometric (halving)"
        if op == ">":
            return clog(a / b), "geometric (halving)"
        if op == ">=":
            return log(a / b) + 1, "geometric (halving)"
    return None, "geometric loop with an unrecognised condition"


def _required(env, dim: int):
    """The kernel's ``reqd_work_group_size`` in ``dim`` (a local-size stride equal to it is block-stride)."""
    attrs = getattr(getattr(getattr(env, "ctx", None), "function", None), "attributes", None) or {}
    req = attrs.get("reqd_work_group_size")
    return sp.Integer(req[dim]) if isinstance(req, (tuple, list)) and len(req) > dim and isinstance(req[dim], int) else None


def _average(trip, a, b, kind, c, op, env=None):
    if not id_symbols(normalize_ids(trip)) and not id_symbols(trip):
        return trip, ""
    if kind == "add" and op in ("<", "!="):
        na, nc = normalize_ids(a), normalize_ids(c)
        for s in id_symbols(na):
            size = work_symbol(SIZE_OF_ID[s.name[:-1]], int(s.name[-1]))
            same = sp.expand(nc - size) == 0 or (s.name.startswith("lid") and nc == _required(env, int(s.name[-1])))
            if sp.expand(sp.diff(na, s) - 1) == 0 and same and not id_symbols(b):
                return (b - na.subs(s, 0)) / nc, f"grid-stride over {s.name}: mean over the NDRange"
    trip = normalize_ids(trip)
    ranges = {s: r for s, r in (getattr(env, "id_ranges", None) or {}).items() if s in id_symbols(trip)}
    if ranges:
        return average_over_ids(trip, ranges), \
            f"depends on work-item ids: averaged over the ids its guards let in ({', '.join(sorted(s.name for s in ranges))})"
    return average_over_ids(trip), "depends on work-item ids: averaged over the NDRange"
