"""A kernel's static counts as feature columns: its symbolic per-work-item counts and traffic (:mod:`kgraph.analysis`)
compiled once per kernel and evaluated over all its launches at once, with the trip counts of data-dependent loops
assumed where a launch does not give them (:mod:`kgraph.analysis.trips`). :mod:`kgraph.data.features` builds the
feature matrix from :func:`static_block`; the C export prints :func:`static_count_exprs`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from kgraph.count_keys import COUNT_KEYS as STATIC_COUNTS  # the analysis' counts, defined once there
from kgraph.analysis.traffic import TRAFFIC_KEYS

#: ``static_known`` of a launch whose counts are exact, and of one whose counts take an assumed trip count
KNOWN_EXACT, KNOWN_ASSUMED = 1.0, 0.5


def counts_exact(static_known):
    """Where the ``static_known`` column (array-like) says a launch's counts are exact: not where they do not
    evaluate (0), nor where they take an assumed trip count (``KNOWN_ASSUMED``)."""
    return np.asarray(static_known) == KNOWN_EXACT


def static_count_exprs(source: str, lang: str, kernel_name: str) -> tuple[list, list[str], bool] | None:
    """(sympy per-work-item count expressions in ``STATIC_COUNTS`` order, the kernel's scalar parameter
    names in order, whether a loop's trip count is assumed), or None when the kernel does not parse or has no
    analysis (its static features are then 0 with ``static_known`` = 0). Each unknown trip count is replaced by
    its assumption (:mod:`kgraph.analysis.trips`), as :func:`static_block` does for a launch that does not give
    it. Parses ``source``: for callers that have only the text (the C export); a caller holding the kernel's
    graph passes its analysis to :func:`static_block`.
    """
    from kgraph.analysis.trips import trip_assumptions

    graph = graph_of(source, lang, kernel_name)
    if graph is None or graph.analysis is None:
        return None
    assumptions = trip_assumptions(graph.analysis)
    exprs = [e.xreplace({s: assumptions[s.name] for s in e.free_symbols if s.name in assumptions})
             for e in count_exprs(graph.analysis)]
    return exprs, [p.name for p in graph.function.params if not p.is_pointer], bool(assumptions)


def count_exprs(analysis) -> list:
    """The sympy per-work-item count expressions of ``analysis`` (a ``KernelAnalysis``), ``STATIC_COUNTS`` order."""
    import sympy

    return [sympy.sympify(analysis.counts.get(c, 0)) for c in STATIC_COUNTS]


def feature_exprs(analysis) -> list:
    """:func:`count_exprs`, the traffic expressions (``TRAFFIC_KEYS`` order), then the atomic depth on a GPU
    (:func:`kgraph.analysis.traffic.warp_atomic_depth`): what :func:`compile_counts` evaluates."""
    from kgraph.analysis.traffic import traffic_exprs, warp_atomic_depth

    return count_exprs(analysis) + traffic_exprs(analysis) + [warp_atomic_depth(analysis)]


def graph_of(source: str, lang: str, kernel_name: str):
    """The ``KernelGraph`` (with its analysis) of kernel ``kernel_name`` of ``source``, parsed here; None when
    the source does not parse or has no such kernel."""
    import kgraph
    from kgraph.errors import KGraphError

    try:
        graphs = kgraph.from_source(source, lang, filename=f"<{kernel_name}>")
    except KGraphError:
        return None
    return next((g for g in graphs if g.name == kernel_name), None)


def compile_counts(analysis) -> Callable[[dict], np.ndarray] | None:
    """Lambdify the kernel's symbolic per-work-item counts once (kept with ``analysis``, so every chunk
    and launch of the kernel shares it).

    Returns ``fn(env) -> Float[len(STATIC_COUNTS) + len(TRAFFIC_KEYS) + 1, N]`` (the counts, the traffic, the
    atomic depth on a GPU)
    where ``env`` maps symbol names (scalar parameters, ``gsz0..2``, ``lsz0..2``, ``ngrp0..2``) to Float[N]
    arrays; None when ``analysis`` is None.
    """
    if analysis is None:
        return None
    return analysis.derived("features.counts", lambda: _lambdify_counts(feature_exprs(analysis)))


def _lambdify_counts(exprs: list) -> Callable[[dict], np.ndarray]:
    import sympy

    from kgraph.analysis.result import NUMERIC_FUNCTIONS  # floor_log2's one numeric definition

    symbols = sorted(set().union(*(e.free_symbols for e in exprs)), key=lambda s: s.name)
    # numpy the module, not "numpy": the name makes sympy run `from numpy import *`, which imports numpy.f2py,
    # numpy.ma, numpy.random, ... (~0.1 s of a cold `kgraph estimate`); the printer and the names are the same
    fn = sympy.lambdify(symbols, exprs, modules=[NUMERIC_FUNCTIONS, np])
    names = [s.name for s in symbols]

    def evaluate(env: dict[str, np.ndarray]) -> np.ndarray:
        n = len(next(iter(env.values())))
        values = [env.get(name, np.full(n, np.nan)) for name in names]
        with np.errstate(all="ignore"):
            try:
                out = fn(*values)
            except (ArithmeticError, ValueError, TypeError, NameError):  # a count numpy cannot evaluate
                return np.full((len(exprs), n), np.nan)
        return np.stack([np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)) for v in out])

    return evaluate


def static_block(analysis, env: dict[str, np.ndarray],
                 items: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The static-count feature columns Float[n, len(STATIC_FEATURES)], total (fp32, fp64) FLOPs
    Float[n, 2], traffic feature columns Float[n, len(TRAFFIC_FEATURES)] and the atomic depth on a GPU Float[n, 2]
    (the values of ``traffic_global_atomic_depth`` and ``_total`` there) of n launches of one kernel, from its
    analysis (None: unknown kernel).

    A loop of unknown trip count that a launch does not give (``trip_<line>`` in its args) takes its assumed
    count (:mod:`kgraph.analysis.trips`) in the feature columns, with ``static_known`` = :data:`KNOWN_ASSUMED`;
    the FLOPs (for the floors) take it at 0 iterations, so a floor stays a lower bound.

    Args:
        analysis: the kernel's ``KernelAnalysis`` (:func:`compile_counts` and its trip assumptions are made once
            per analysis).
        env: the launches' symbol values (``kgraph.data.features``' launch env).
        items: Float[n] work-items of each launch.
    """
    if analysis is None:
        return None
    from kgraph.analysis.trips import trip_assumptions

    evaluate = compile_counts(analysis)
    n = len(items)
    assumed = np.zeros(n, dtype=bool)  # a row with a trip count it did not give
    at_prior, at_zero = dict(env), dict(env)
    for name, prior in trip_assumptions(analysis).items():
        given = env.get(name, np.full(n, np.nan))
        missing = ~np.isfinite(given)
        assumed |= missing
        at_prior[name] = np.where(missing, float(prior), given)
        at_zero[name] = np.where(missing, 0.0, given)
    values = evaluate(at_prior)  # [C + T + 1, n]: the counts, the traffic, the atomic depth on a GPU
    per_item, traffic = values[:len(STATIC_COUNTS)], values[len(STATIC_COUNTS):len(STATIC_COUNTS) + len(TRAFFIC_KEYS)]
    warp_depth = np.maximum(np.nan_to_num(values[-1], nan=0.0, posinf=0.0, neginf=0.0), 0.0)
    known = np.where(np.isfinite(per_item).all(0), np.where(assumed, KNOWN_ASSUMED, KNOWN_EXACT), 0.0)
    per_item = np.maximum(np.nan_to_num(per_item, nan=0.0, posinf=0.0, neginf=0.0), 0.0)
    traffic = np.maximum(np.nan_to_num(traffic, nan=0.0, posinf=0.0, neginf=0.0), 0.0)
    total = per_item * items
    traffic_total = traffic * items
    flops = total[STATIC_COUNTS.index("flops_fp32")] + total[STATIC_COUNTS.index("flops_fp64")]
    nbytes = total[STATIC_COUNTS.index("global_load_bytes")] + total[STATIC_COUNTS.index("global_store_bytes")]
    fp = [STATIC_COUNTS.index("flops_fp32"), STATIC_COUNTS.index("flops_fp64")]
    lower = total[fp] if not assumed.any() else \
        np.maximum(np.nan_to_num(evaluate(at_zero)[fp], nan=0.0, posinf=0.0, neginf=0.0), 0.0) * items
    work = lower.T
    static = np.column_stack([known, np.log1p(per_item.T), np.log1p(total.T),
                              np.log1p(flops / np.maximum(nbytes, 1.0))])
    sectors = traffic_total[TRAFFIC_KEYS.index("global_sector_bytes")]
    traffic_cols = np.column_stack([np.log1p(traffic.T), np.log1p(traffic_total.T),
                                    np.log1p(flops / np.maximum(sectors, 1.0))])
    return static, work, traffic_cols, np.column_stack([np.log1p(warp_depth), np.log1p(warp_depth * items)])
