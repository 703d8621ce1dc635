"""The mean trip count of a data-dependent loop, from a measured launch's exact counts.

A loop whose trip count depends on data (``for (j = a[g]; j < a[g + 1]; j++)``) leaves the kernel's static
counts with a symbol ``trip_<line>`` (:data:`kgraph.analysis.symbolic_math.TRIP_PREFIX`), its mean over the
launch's executions. A user gives it as ``--arg trip_<line>=N``; a measured launch already holds it, implied by
the exact counts its instrumented run made: the counts are affine in the mean of one such loop (its body runs
``mean`` times per entry), so

    mean = (measured / work_items - counts at mean 0) / (counts at mean 1 - counts at mean 0)

on the first count (:data:`SOLVE_ORDER`) that the loop changes. The solution is checked by evaluating the counts
at it: a launch whose counts it does not reproduce within :data:`TOLERANCE` gets NaN (a count not affine in it, or
instrumented counts that disagree with the static convention). Kernels with more than one such loop get nothing:
one launch's counts do not tell two means apart.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from kgraph.analysis.symbolic_math import TRIP_PREFIX
from kgraph.count_keys import COUNT_KEYS, COUNTER_NAMES

#: the counts tried, in order: those an instrumented run counts exactly (``COUNTER_NAMES``' order)
SOLVE_ORDER: tuple[str, ...] = COUNTER_NAMES
#: relative error of the reproduced count above which a launch's mean is NaN
TOLERANCE = 0.02


def unknown_trips(evaluate: Callable, env: dict) -> list[str]:
    """The ``trip_<line>`` symbols ``evaluate`` (:func:`kgraph.data.features.compile_counts`) reads and ``env``
    does not give."""
    return [s for s in getattr(evaluate, "symbols", ()) if s.startswith(TRIP_PREFIX) and s not in env]


def trip_means(evaluate: Callable, env: dict[str, np.ndarray], items: np.ndarray,
               measured: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``{trip_<line>: Float[n] mean trip counts}`` of the kernel's one loop of data-dependent trip count at n
    launches, NaN where not found; ``{}`` when the kernel has no such loop or more than one.

    Args:
        evaluate: the kernel's compiled counts (``fn(env) -> Float[C + T, n]``, ``COUNT_KEYS`` first).
        env: the launches' symbols (work sizes, scalar arguments), Float[n] each.
        items: Float[n] work-items of each launch.
        measured: the launches' whole-launch counts by name (``COUNTER_NAMES``), Float[n], NaN where unknown.
    """
    trips = unknown_trips(evaluate, env)
    if len(trips) != 1:
        return {}
    (trip,), n = trips, len(items)
    at = {v: evaluate({**env, trip: np.full(n, float(v))})[:len(COUNT_KEYS)] for v in (0, 1)}
    mean = np.full(n, np.nan)
    key = np.full(n, -1)
    with np.errstate(all="ignore"):
        for name in SOLVE_ORDER:
            i = COUNT_KEYS.index(name)
            slope, base = at[1][i] - at[0][i], at[0][i]
            per_item = np.asarray(measured.get(name, np.full(n, np.nan)), dtype=np.float64) / items
            todo = np.isnan(mean) & (slope > 0) & np.isfinite(per_item) & np.isfinite(base)
            mean[todo] = np.maximum((per_item[todo] - base[todo]) / slope[todo], 0.0)
            key[todo] = i
        found = np.isfinite(mean)
        if found.any():  # the counts at the mean must give back the measured one
            check = evaluate({**env, trip: np.where(found, mean, 0.0)})[:len(COUNT_KEYS)]
            rows = np.flatnonzero(found)
            got = check[key[rows], rows] * items[rows]
            want = np.array([measured[COUNT_KEYS[k]][r] for k, r in zip(key[rows], rows)], dtype=np.float64)
            bad = np.abs(got - want) > TOLERANCE * np.maximum(np.abs(want), 1.0)
            mean[rows[bad]] = np.nan
    return {trip: mean}


def with_trip_means(launches, sources):
    """A copy of ``launches`` (dataset rows: ``args`` JSON, the measured ``COUNTER_NAMES`` columns) whose ``args``
    also give each launch's mean trip count (``trip_<line>``) where :func:`trip_means` finds one: the features of
    such a row are then the exact counts, as a user's ``--arg trip_<line>=N`` makes them. Other rows unchanged.

    Args:
        launches: rows of launches-*.parquet (a DataFrame).
        sources: rows of sources.parquet covering them (``source_id, lang, source``).
    """
    import json

    from kgraph.data.features import _args_of, _columns_of, _graph_of, _groups, _launch_env, compile_counts

    cols = _columns_of(launches)
    args = _args_of(cols)
    items = np.prod([cols[f"g{d}"].astype(np.float64) for d in range(3)], axis=0)
    measured = {k: np.asarray(launches[k], dtype=np.float64) for k in COUNTER_NAMES if k in launches}
    columns = (sources[c].to_numpy() for c in ("source_id", "source", "lang"))
    text = {sid: (src, lang) for sid, src, lang in zip(*columns)}
    out = list(launches["args"])
    for (sid, name), idx in _groups(cols["source_id"], cols["kernel_name"]).items():
        graph = _graph_of(*text[sid], name) if sid in text else None
        if graph is None or graph.analysis is None:
            continue
        evaluate = compile_counts(graph.analysis)
        env = _launch_env(cols, idx, [args[i] for i in idx])
        if not unknown_trips(evaluate, env):
            continue
        for trip, mean in trip_means(evaluate, env, items[idx], {k: v[idx] for k, v in measured.items()}).items():
            for i, m in zip(idx, mean):
                if np.isfinite(m):
                    out[i] = json.dumps({**args[i], trip: float(m)})
    copy = launches.copy()
    copy["args"] = out
    return copy
