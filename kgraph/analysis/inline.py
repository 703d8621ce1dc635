"""Helper calls inlined into the caller's analysis: the helper is analysed once (per caller analysis), and its
counts, accesses and loops are carried over with its parameters replaced by the call's arguments."""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.arguments import pointer_arg
from kgraph.analysis.counts import zero_counts
from kgraph.analysis.patterns import classify
from kgraph.analysis.result import Access
from kgraph.analysis.symbolic_math import TRIP_PREFIX, is_opaque


def inline_call(an, call, analyse) -> dict:
    """The counts of ``call`` (a helper call) in the analysis ``an`` (the caller's ``_Analyzer``: its weight, access
    context, notes, helpers and branch lines are read and updated); ``analyse(callee)`` analyses the helper.
    A recursive call is not inlined (a note says so)."""
    callee = call.callee
    if id(callee) in an.stack:
        an.notes.append(f"line {call.node.start_point[0] + 1}: recursive call of {callee.name} not inlined")
        return zero_counts()
    if id(callee) not in an.helpers:
        an.helpers[id(callee)] = analyse(callee)
    sub = an.helpers[id(callee)]
    an.branches.update(sub.branches)
    mapping, offsets = {}, {}
    for p, arg in zip(callee.params, call.args):
        if p.is_pointer:
            offsets[p.name] = pointer_arg(arg, an)
        else:
            mapping[p.name] = an.env.to_sympy(arg)

    # a helper's mean trip count (a bisection's, log2 of its range) that this call's arguments make unknown (a
    # range loaded from memory): the loop is its trip_<line> again, as before the mean was known
    unknown = {}
    for lp in sub.loops:
        if getattr(lp, "mean", False):
            term = next((t for t in lp.trip.atoms(sp.log) if t.args[0].free_symbols), None)
            if term is not None and is_opaque(term.subs({s: mapping[s.name] for s in term.free_symbols
                                                         if s.name in mapping})):
                unknown[term] = sp.Symbol(f"{TRIP_PREFIX}{lp.line}", integer=True, nonnegative=True) * sp.log(2)

    def subs(expr):
        expr = sp.sympify(expr).xreplace(unknown) if unknown else sp.sympify(expr)
        return expr.subs({s: mapping[s.name] for s in expr.free_symbols if s.name in mapping})

    for a in sub.accesses:
        off, buf = offsets.get(a.buffer, (sp.Integer(0), a.buffer))
        index = getattr(a, "index_expr", None)
        if index is not None:
            index = subs(index) + off
        elif a.kind == "atomic" and a.buffer in offsets:
            index = off  # an atomic on the pointer parameter itself: the element the caller passed
        pattern, stride = classify(index)
        new = Access(buf or a.buffer, a.space, a.kind, a.bytes, a.index, a.line, pattern, stride,
                     an.weight * subs(a.executions), a.function)
        new.index_expr = index
        new.scale = getattr(a, "scale", 1)
        ctx = getattr(a, "context", None) or {"loops": [], "guards": [], "opaque_loops": [], "exits": []}
        outer = an.access_context()
        new.context = {"loops": outer["loops"] + [(sym, lp, _then(f, subs)) for sym, lp, f in ctx["loops"]],
                       "guards": outer["guards"] + [None if g is None else (g[0], g[1], subs(g[2]))
                                                    for g in ctx["guards"]],
                       "opaque_loops": outer["opaque_loops"] + ctx["opaque_loops"],
                       "exits": outer["exits"] + ctx["exits"]}
        an.accesses.append(new)
    for lp in sub.loops:
        trip = f"{TRIP_PREFIX}{lp.line}" if any(lp.trip.has(t) for t in unknown) else lp.trip
        an.notes.append(f"line {lp.line}: loop in helper {callee.name} (trip {trip}) inlined")
    return {k: subs(v) for k, v in sub.counts.items()}


def _then(first, second):
    """The substitution ``second(first(expr))`` (``first`` None: ``second`` alone)."""
    return second if first is None else (lambda expr: second(first(expr)))
