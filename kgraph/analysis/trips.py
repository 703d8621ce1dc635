"""Assumed trip counts of the loops the analysis could not count (``trip_<line>``), defined once.

A loop whose exit depends on data (a convergence test, an escape radius, a search that stops at a mismatch, a
length loaded from memory) has no trip count in its source, yet a prediction needs its counts. kgraph assumes
:data:`ASSUMED_TRIP` = 1 iteration per entry of the loop: the counts are then what one iteration costs plus the
rest of the kernel, so they grow with the launch as the real ones do, and they never overstate the work (every
such loop runs at least once or not at all, which the floors cover).

Why not more where the condition bounds the loop (``it < max_iter && err > tol``: at most ``U``, kept as the loop's
``upper``)? Session 16 tried the geometric mean ``sqrt(max(1, U))`` (docs/MODELS.md "v23"): the training kernels'
bounded loops are escape-time loops that run close to ``U`` (``mandelbrot``, ``julia``), while the hand-written ones
stop early (a pattern search at its first mismatch, Newton's method after a few steps, a fix-up loop that rarely
runs), so the assumption over-stated their work ×13-×50 and a model trained on it learned to scale every assumed
count up. An over-prediction's error is unbounded and an under-prediction's is not; one iteration is the
assumption that cannot over-state. The bound is still reported (``kgraph estimate``'s counts note).

The assumption is a model input only: counts reported as exact never use it (they need every trip count known),
and the floors (:mod:`kgraph.data.floors`) take every assumed loop at 0 iterations, a true lower bound. A launch
may give a loop's mean instead (``--arg trip_<line>=N``), which replaces the assumption. Python
(:mod:`kgraph.data.features`) and the C export (:mod:`kgraph.models.export.features_c`) both substitute
:func:`trip_assumptions`, so they agree.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.symbolic_math import TRIP_PREFIX

#: iterations assumed, per entry, for a loop whose trip count depends on data
ASSUMED_TRIP = 1


def trip_assumptions(analysis) -> dict[str, sp.Expr]:
    """``trip_<line>`` → the assumed trip count (a sympy number, :data:`ASSUMED_TRIP`) of each loop of ``analysis``
    (a ``KernelAnalysis``) whose count is unknown and appears in its counts; computed once per analysis."""
    def make() -> dict[str, sp.Expr]:
        return {name: sp.Integer(ASSUMED_TRIP) for name in sorted(analysis.symbols) if name.startswith(TRIP_PREFIX)}

    return analysis.derived("trips.assumptions", make)


def trip_bounds(analysis) -> dict[str, sp.Expr]:
    """``trip_<line>`` → the upper bound of its count where one conjunct of the loop's condition is affine
    (:mod:`kgraph.analysis.loops`' ``Loop.upper``)."""
    return {f"{TRIP_PREFIX}{lp.line}": lp.upper for lp in analysis.loops if not lp.symbolic and lp.upper is not None}


def describe_assumptions(analysis, values: dict[str, float]) -> str:
    """One line naming each assumed trip count (``values``: symbol → the number assumed at a launch) and the
    bound its condition gives, e.g. ``the model's inputs assume trip_12 = 1 (at most max_iter)``; "" when
    nothing was assumed."""
    bounds = trip_bounds(analysis)
    parts = [f"{name} = {values[name]:.4g}" + (f" (at most {bounds[name]})" if name in bounds else "")
             for name in sorted(values)]
    return f"the model's inputs assume {', '.join(parts)}" if parts else ""
