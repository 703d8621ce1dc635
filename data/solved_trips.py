"""Trip counts of data-dependent loops solved from a launch's measured counts: training rows at the work they did.

A loop whose trip count depends on data (``trip_<line>``, :mod:`kgraph.analysis.trips`) is read at one assumed
iteration where a launch does not give its mean, so a recipe that trains on exact counts only
(``--data.train_known_counts``) never sees such kernels, and a model that is later given the mean (``--arg
trip_<line>``, ``--input``) prices loops of variable length from kernels that have none. A measured launch whose
counts were instrumented holds the work it did; where its kernel assumes one loop, its counts are affine in that
loop's mean trip ``t``, so ``t`` follows from the work at one and two iterations:
``t = 1 + (measured - w(1)) / (w(2) - w(1))``, with the work = FLOPs (fp32 + fp64) + global load and store bytes.
The row is then given ``trip_<line> = t`` in its ``args``, as a user gives a mean, and its features take the counts
at ``t`` (``static_known`` exact). A row is left as it is where its counts were not instrumented, its kernel assumes
no loop or more than one, the loop adds no work, or the counts at ``t`` miss the measured work by more than
:data:`TOLERANCE` (the work is not affine in ``t``: a loop nested in another assumed one).

The solve is done once per (launches, sources, code) and kept under the DataModule's ``cache_dir``
(``processed/solved-<key>.parquet``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

#: the measured counts that decide the mean: their sum is affine in the trip count of the kernel's one assumed loop
WORK = ("flops_fp32", "flops_fp64", "global_load_bytes", "global_store_bytes")
#: ``counts_source`` of a row whose counts were measured (instrumented), not taken from the static analysis
MEASURED = "instrumented"
#: largest relative gap between the work at the solved mean and the measured work that is still a solution
TOLERANCE = 1e-3


def solve_trip(w1: np.ndarray, w2: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """The mean trip count ``t`` at which counts affine in it, ``w1`` at 1 iteration and ``w2`` at 2, equal
    ``measured``: ``1 + (measured - w1) / (w2 - w1)``; NaN where the loop adds no work (``w2 <= w1``) or the
    solution is not positive.

    Shapes:
        - w1, w2, measured: ``[N]``; returns ``[N]``.
    """
    w1, w2, measured = (np.asarray(a, dtype=np.float64) for a in (w1, w2, measured))
    step = w2 - w1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = 1.0 + (measured - w1) / step
    return np.where((step > 0) & np.isfinite(t) & (t > 0), t, np.nan)


def kernel_trips(analysis, env: dict[str, np.ndarray], items: np.ndarray,
                 measured: np.ndarray) -> tuple[str, np.ndarray] | None:
    """``(trip_<line>, Float[n] means)`` of n launches of one kernel whose analysis assumes exactly one loop that
    no launch gives (NaN where a launch has no solution within :data:`TOLERANCE`); None for any other kernel.

    Args:
        analysis: the kernel's ``KernelAnalysis``.
        env: Float[n] symbol values of the launches (sizes, scalar arguments).
        items: Float[n] work-items of each launch.
        measured: Float[n] measured work (the sum of the :data:`WORK` counts) of each launch.
    """
    from kgraph.analysis.trips import trip_assumptions
    from kgraph.data.static_counts import STATIC_COUNTS, compile_counts

    names = [name for name in trip_assumptions(analysis) if name not in env]
    if len(names) != 1:
        return None
    evaluate, name, ones = compile_counts(analysis), names[0], np.ones(len(items))
    rows = [STATIC_COUNTS.index(c) for c in WORK]

    def work(trip: np.ndarray) -> np.ndarray:
        return evaluate({**env, name: trip})[rows].sum(0) * items

    trips = solve_trip(work(ones), work(2.0 * ones), measured)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.abs(work(np.where(np.isfinite(trips), trips, 1.0)) / measured - 1.0)
    return name, np.where(gap <= TOLERANCE, trips, np.nan)


def _solve_source(task: tuple) -> tuple[str, np.ndarray] | None:
    """:func:`kernel_trips` of ``(source, lang, kernel_name, env, items, measured)``, parsed here (a pool unit)."""
    from kgraph.data.static_counts import graph_of

    graph = graph_of(*task[:3])
    if graph is None or graph.analysis is None:
        return None
    return kernel_trips(graph.analysis, *task[3:])


def _has_counts(launches: pd.DataFrame) -> bool:
    """Whether ``launches`` holds the columns a solve reads (a hand-made table may lack them: nothing is solved)."""
    return "counts_source" in launches and all(c in launches for c in WORK)


def solved_args(launches: pd.DataFrame, sources: pd.DataFrame) -> pd.Series:
    """The ``args`` column (JSON text) of ``launches`` with each solved mean added as ``trip_<line>`` (rows left as
    they are keep their text). ``sources``: the datasets' sources (``source_id``, ``lang``, ``source``)."""
    from kgraph.data.features import _launch_env, _args_of, _columns_of, _groups
    from kgraph.data.pool import parallel_map

    args = launches["args"].copy()
    if not _has_counts(launches):
        return args
    measured_rows = launches["counts_source"].to_numpy() == MEASURED
    if not measured_rows.any():
        return args
    part = launches[measured_rows]
    cols = _columns_of(part)
    given = _args_of(cols)
    items = np.prod([cols[f"g{d}"].astype(np.float64) for d in range(3)], axis=0)
    measured = part[list(WORK)].to_numpy(np.float64).sum(1)
    text = {sid: (src, lang) for sid, src, lang in zip(sources["source_id"], sources["source"], sources["lang"])}
    groups = list(_groups(cols["source_id"], cols["kernel_name"]).items())
    tasks = [(*text[sid], name, _launch_env(cols, idx, [given[i] for i in idx]), items[idx], measured[idx])
             for (sid, name), idx in groups]
    positions = np.flatnonzero(measured_rows)
    for (_, idx), solved in zip(groups, parallel_map(_solve_source, tasks)):
        if solved is None:
            continue
        name, trips = solved
        for i, t in zip(idx, trips):
            if np.isfinite(t):
                args.iloc[positions[i]] = json.dumps({**given[i], name: float(t)})
    return args


def cached_solved_args(cache_dir: str | Path | None, launches: pd.DataFrame, sources: pd.DataFrame) -> pd.Series:
    """:func:`solved_args`, loaded from ``cache_dir/processed`` when an earlier process saved it for the same
    launches, sources and code (else computed and saved there; ``cache_dir`` None: no cache)."""
    import hashlib

    from kgraph.data.feature_cache import features_key

    if cache_dir is None or not _has_counts(launches):
        return solved_args(launches, sources)
    h = hashlib.sha1(features_key(launches, sources, {}).encode())  # the rows, sources and analysis code
    h.update(pd.util.hash_pandas_object(launches[["counts_source", *WORK]], index=False).to_numpy().tobytes())
    h.update(Path(__file__).read_bytes())  # and the solve's own code
    key = h.hexdigest()[:20]
    path = Path(cache_dir) / "processed" / f"solved-{key}.parquet"
    if path.is_file():
        try:
            cached = pd.read_parquet(path)["args"]
            if len(cached) == len(launches):
                return pd.Series(cached.to_numpy(), index=launches.index, name="args")
        except (OSError, ValueError, KeyError):  # damaged: computed again and replaced
            pass
    args = solved_args(launches, sources)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.parquet")
    pd.DataFrame({"args": args.to_numpy()}).to_parquet(tmp)
    os.replace(tmp, path)
    return args
