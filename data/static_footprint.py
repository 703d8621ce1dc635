"""The footprint the DRAM floor uses: the exact static one, on the training path as on the estimate path.

``kgraph estimate`` knows a launch's footprint only from the static analysis (:mod:`kgraph.analysis.footprint`),
where it is exact, and gives the floor no DRAM term elsewhere. Training rows also hold a measured footprint
(an instrumented run's), and until 2026-11-27 the features took that one. On a sample of 503 generated H200
training rows the static footprint is exact on 225 (45%): the other 55% had a footprint, so a DRAM term, in
training that the same launch does not get at estimate time (on the 48 families the static one is exact on 88%
of the H200 rows); and the CPUs' static rows had none at all. The measured footprint stays a target; the
floors on both paths come from :func:`exact_footprints`.
"""
from __future__ import annotations

import numpy as np

_WORK_SIZES = ("gsz", "lsz", "ngrp")


def kernel_footprint(graph):
    """The kernel's :class:`~kgraph.analysis.footprint.StaticFootprint` from its one analysis (made once, kept
    with the analysis: the estimate path and the training path share it), or None when the kernel has no
    analysis or the footprint analysis cannot handle it."""
    from kgraph.graphs import analysis_of

    analysis = analysis_of(graph) if graph is not None else None
    if analysis is None:
        return None

    return analysis.derived("footprint", lambda: footprint_or_none(graph.function, graph.unit, analysis))


def footprint_or_none(function, unit, analysis):
    """:func:`kgraph.analysis.footprint.static_footprint` of a kernel already analysed, or None when the
    footprint analysis cannot handle it (then: no DRAM floor, and the model's footprint)."""
    from kgraph.analysis.footprint import static_footprint

    try:
        return static_footprint(function, unit, analysis)
    except Exception:  # noqa: BLE001 - any failure of the footprint analysis means "no static footprint"
        return None


def exact_bytes(result) -> float:
    """A :class:`~kgraph.analysis.footprint.FootprintResult`'s total bytes where it is exact, else NaN."""
    if result is not None and result.exact and result.total_bytes is not None:
        return float(result.total_bytes)
    return float("nan")


def exact_footprints(graph, env: dict[str, np.ndarray]) -> np.ndarray:
    """Float[n] footprint in bytes of n launches of ``graph``'s kernel where the static analysis proves it
    exact, NaN elsewhere (no analysis, an inexact access, a missing argument).

    Args:
        graph: the kernel's ``KernelGraph``, or None.
        env: the launches' work sizes ``gsz/lsz/ngrp<d>`` and scalar arguments, Float[n] each
            (``kgraph.data.features._launch_env``).
    """
    n = len(env["gsz0"])
    out = np.full(n, np.nan)
    footprint = kernel_footprint(graph)
    if footprint is None:
        return out
    args = {k: v for k, v in env.items() if not k.startswith(_WORK_SIZES)}
    ok = np.all([np.isfinite(v) for v in args.values()], axis=0) if args else np.ones(n, bool)
    rows = np.flatnonzero(ok)
    if not rows.size:
        return out
    sizes = [[[int(env[f"{k}{d}"][i]) for d in range(3)] for i in rows] for k in ("gsz", "lsz")]
    try:
        results = footprint.evaluate_many({k: v[rows] for k, v in args.items()}, *sizes)
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return out
    out[rows] = [exact_bytes(r) for r in results]
    return out
