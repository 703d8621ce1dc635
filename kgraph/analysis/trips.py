"""Assumed trip counts of the loops the analysis could not count (``trip_<line>``), defined once.

A loop whose exit depends on data (a convergence test, an escape radius, a length loaded from memory) has no
trip count in its source, yet a prediction needs its counts. Where one conjunct of the loop's condition is
affine (``it < max_iter && err > tol``), the count is at most that conjunct's, ``U`` (the loop's ``upper``,
:mod:`kgraph.analysis.loops`). kgraph then assumes the geometric mean of 1 and ``U``, ``sqrt(max(1, U))``: the
median of a log-uniform prior on [1, U], which is within a factor ``sqrt(U)`` of any count the loop can have,
where either end would be off by up to ``U``. A loop without such a bound is assumed to run
:data:`NO_BOUND_TRIP` times (its counts are then one iteration's worth, and the model learns the rest).

The assumption is a model input only. Counts reported as exact never use it (they need every trip count
known), and the physical floors (:mod:`kgraph.data.floors`) take every assumed loop at 0 iterations, a true
lower bound. A launch may give a loop's mean instead (``--arg trip_<line>=N``), which replaces the assumption.
Python (:mod:`kgraph.data.features`) and the C export (:mod:`kgraph.models.export.features_c`) both substitute
:func:`trip_assumptions`, so they agree.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.symbolic_math import TRIP_PREFIX

#: the trip count assumed for a data-dependent loop with no affine bound
NO_BOUND_TRIP = 1
_SIZE_NAMES = frozenset(f"{p}{d}" for p in ("gsz", "lsz", "ngrp") for d in range(3))


def trip_assumptions(analysis) -> dict[str, sp.Expr]:
    """``trip_<line>`` → the assumed trip count (sympy, in the scalar parameters and work sizes) of each loop
    of ``analysis`` (a ``KernelAnalysis``) whose count is unknown and appears in its counts; computed once
    per analysis. A bound in anything else (a value loaded in the kernel, another unknown loop) is no bound."""
    def make() -> dict[str, sp.Expr]:
        needed = {s for s in analysis.symbols if s.startswith(TRIP_PREFIX)}
        if not needed:
            return {}
        known = _SIZE_NAMES | set(analysis.params)
        upper = {f"{TRIP_PREFIX}{lp.line}": lp.upper for lp in analysis.loops
                 if not lp.symbolic and lp.upper is not None}
        out = {}
        for name in sorted(needed):
            u = upper.get(name)
            usable = u is not None and {s.name for s in sp.sympify(u).free_symbols} <= known
            out[name] = sp.sqrt(sp.Max(1, sp.sympify(u))) if usable else sp.Integer(NO_BOUND_TRIP)
        return out

    return analysis.derived("trips.assumptions", make)


def describe_assumptions(assumptions: dict[str, sp.Expr], values: dict[str, float]) -> str:
    """One line naming each assumed trip count and its value at a launch (``values``: symbol → number), e.g.
    ``the model's inputs assume trip_12 = 10 (sqrt(Max(1, max_iter)))``; "" when nothing was assumed."""
    parts = []
    for name in sorted(values):
        rule = assumptions.get(name)
        how = "no bound in the source" if rule is None or rule.is_Number else str(rule)
        parts.append(f"{name} = {values[name]:.4g} ({how})")
    return f"the model's inputs assume {', '.join(parts)}" if parts else ""
