"""What the static analysis gives a prediction exactly: the launch's FLOPs and bytes, and the bound class that
follows from them and the predicted time.

The model predicts the time; where the analysis counts a kernel exactly (:mod:`kgraph.app.static_checks`), the
FLOPs and bytes of the launch are known, and the bound class is then a function of the two. It is defined once,
for measured rows, in :mod:`kgraph.data.harness.derived`: ``latency`` when both utilisations (bytes ÷ time ÷
copy bandwidth, FLOPs ÷ time ÷ peak) are below 5%, else the larger one's resource. Applied to the predicted time,
that rule gives the class the prediction itself implies, where the classifier head guesses it from the same
inputs and can contradict the predicted time (on the second hand-written holdout the head called none of the
H200's 8 compute-bound launches, BENCHMARKS.md section 45). Compute against memory does not depend on the time at
all (the ratio of the two utilisations is the counts' intensity against the ridge point); only latency does, so
the class's probability is that of the time falling on its side of the 5% threshold under the model's 80%
interval, read as a log-normal spread (the head's own probability where there is no interval).
Launches without exact counts keep the model's FLOPs, bytes and class (``*_source`` ``"model"``).
"""
from __future__ import annotations

import math

Z90 = 1.2815515655446004  # the standard normal's 90% quantile: an 80% interval spans 2 * Z90 sigmas
_SQRT2 = math.sqrt(2)


def derived_bound(time_ns: float, counts: dict, roofline: dict, interval: tuple | None) -> tuple[str, float | None]:
    """(class, probability) of one launch from its predicted time and exact counts (:func:`derived_bounds` of one).

    Args:
        time_ns: the predicted time; counts: :func:`~kgraph.app.static_checks.static_counts` (``flops``,
            ``bytes``, ``flops_fp64``); roofline: the device's ``roofline``; interval: the time's 80%
            interval ``(lo, hi)`` in ns, or None (the probability is then None).
    """
    lo, hi = interval if interval is not None else (None, None)
    bound, probability = derived_bounds([time_ns], [counts], [roofline], [lo], [hi])
    return bound[0], probability[0]


def derived_bounds(times, counts: list[dict], rooflines: list[dict], lo: list, hi: list) -> tuple[list, list]:
    """(classes, probabilities) of N launches at once (the rule of the module doc); a probability is None where
    the launch's interval is missing or empty.

    Args:
        times: Float[N] predicted times (ns); counts: N dicts of exact counts (``flops``, ``bytes``,
            ``flops_fp64``); rooflines: N device rooflines; lo, hi: N ends of the 80% interval (ns, or None).
    """
    import numpy as np

    from kgraph.data.harness.derived import LATENCY_UTIL, bound_class, utilisations

    t = np.asarray(times, dtype=np.float64)
    fp64 = np.array([c["flops_fp64"] for c in counts], dtype=np.float64)
    flops = np.array([c["flops"] for c in counts], dtype=np.float64)
    nbytes = np.array([c["bytes"] for c in counts], dtype=np.float64)
    roof = {k: np.array([r[k] for r in rooflines], dtype=np.float64)
            for k in ("copy_bw_gbs", "fp32_gflops", "fp64_gflops")}
    bw, fl = utilisations(t, flops - fp64, fp64, nbytes, roof)
    bound = np.atleast_1d(bound_class(bw, fl)).astype(str)
    lo_v = np.array([v if v else np.nan for v in lo], dtype=np.float64)
    hi_v = np.array([v if v else np.nan for v in hi], dtype=np.float64)
    has = (lo_v > 0) & (hi_v > lo_v)
    # latency exactly when the time exceeds the one where the larger utilisation is 5%: t* = t * max(util) / 5%
    top = np.maximum(bw, fl)
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = np.log(hi_v / lo_v) / (2 * Z90)
        z = np.log(top / LATENCY_UTIL) / sigma  # ln(t*) - ln(t) in sigmas
    # P(ln T > ln t*) with ln T ~ N(ln t, sigma); math.erfc per launch (scipy's would cost a cold estimate its import)
    p_latency = np.array([0.5 * math.erfc(v / _SQRT2) if top_ > 0 and v == v else 1.0
                          for v, top_ in zip(z.tolist(), top.tolist())], dtype=np.float64).reshape(top.shape)
    p = np.where(top > 0, np.where(bound == "latency", p_latency, 1.0 - p_latency), 1.0)
    # tolist: the same Python str and float as str(b) and float(v) of each element, without a numpy scalar each
    return bound.tolist(), [v if ok else None for v, ok in zip(p.tolist(), has.tolist())]


def assumed_trips(launch) -> dict:
    """Each loop of unknown trip count that ``launch`` does not give (``trip_<line>``) -> the count the model's inputs
    assume for it (:mod:`kgraph.analysis.trips`; sympy numbers); {} when the launch reads no loop at an assumption."""
    from kgraph.analysis.trips import trip_assumptions
    from kgraph.models.launches import analysis_of

    analysis = analysis_of(launch.graph)
    return {k: v for k, v in (trip_assumptions(analysis) if analysis is not None else {}).items()
            if k not in launch.args}


def trip_values(launch) -> tuple[dict[str, float], dict[str, float]]:
    """``(assumed, bounds)`` of ``launch``: :func:`assumed_trips` as numbers and, for those loops whose condition bounds
    them, the bound at this launch (a number; left out where it does not evaluate)."""
    from kgraph.analysis.trips import trip_bounds
    from kgraph.models.launches import analysis_of

    assumptions = assumed_trips(launch)
    if not assumptions:
        return {}, {}
    analysis = analysis_of(launch.graph)
    env = {**analysis.resolve_env({"global_size": launch.global_size, "local_size": launch.local_size}),
           **launch.args}

    def value(expr) -> float:
        out = expr.subs({s: env[s.name] for s in expr.free_symbols if s.name in env})
        return float(out) if out.is_number and out.is_finite else math.nan

    bounds = {k: value(v) for k, v in trip_bounds(analysis).items() if k in assumptions}
    return {k: float(v) for k, v in assumptions.items()}, {k: v for k, v in bounds.items() if v >= 0}


def describe_breaks(analysis) -> str:
    """One line naming the counted loops of ``analysis`` (a ``KernelAnalysis``, or None) that a ``break`` can leave
    early, e.g. ``the loop on line 26 has a 'break' and is counted at its full trip count (an upper bound: ...)``;
    "" when there are none. Their counts come from the header (``kgraph.analysis.loops``' note on a ``break``), so
    a loop that leaves early, as a search or a sweep stopping at its first miss does, runs fewer iterations than
    counted (BENCHMARKS.md section 61: ``sap_x_sweep_layer_masks`` ×524)."""
    lines = [lp.line for lp in getattr(analysis, "loops", ()) if lp.symbolic and "'break' in the body" in lp.note]
    if not lines:
        return ""
    many = len(lines) > 1
    return (f"the loop{'s' if many else ''} on line{'s' if many else ''} {', '.join(str(n) for n in lines)} "
            f"{'have' if many else 'has'} a 'break' and {'are' if many else 'is'} counted at {'their' if many else 'its'} "
            f"full trip count (an upper bound: where a 'break' on data leaves early, the time is over-predicted)")


def segment_hint(launch, assumed: dict) -> str:
    """How the launch can give the mean of its assumed segment loops (:mod:`kgraph.analysis.segments`) by buffer
    lengths, e.g. ``trip_15 follows from the buffers' lengths: --buffer row_ptr=ROWS+1 --buffer col=ENTRIES``; ""
    when none of ``assumed`` is one."""
    from kgraph.analysis.segments import segment_loops
    from kgraph.models.launches import analysis_of

    analysis = analysis_of(launch.graph)
    if analysis is None:
        return ""
    segments = [s for name, s in segment_loops(analysis, launch.graph.unit, launch.graph.function).items()
                if name in assumed]
    if not segments:
        return ""
    names = ", ".join(s.symbol for s in segments)
    options = dict.fromkeys(f"--buffer {s.offsets}=SEGMENTS+1 --buffer {s.entries[0]}=ENTRIES" for s in segments)
    return f"{names} follow{'s' if len(segments) == 1 else ''} from the buffers' lengths: {' and '.join(options)}"


def input_hint(launch, assumed: dict) -> str:
    """How the launch can give the mean of its assumed loops bounded by buffer elements (:mod:`kgraph.analysis.
    data_trips`) by those buffers' contents, e.g. ``trip_6 follows from the contents of len: --input len=FILE.npy``;
    "" when none of ``assumed`` is one."""
    from kgraph.models.launches import analysis_of

    loops = [lp for lp in getattr(analysis_of(launch.graph), "loops", ())
             if lp.data_trip is not None and f"trip_{lp.line}" in assumed]
    if not loops:
        return ""
    buffers = sorted({buffer for lp in loops for buffer, _ in lp.loads.values()})
    names = ", ".join(f"trip_{lp.line}" for lp in loops)
    return (f"{names} follow{'s' if len(loops) == 1 else ''} from the contents of {', '.join(buffers)}: "
            + " ".join(f"--input {b}=FILE.npy" for b in buffers))


def static_facts(launches: list) -> tuple[list, list, list, dict]:
    """What the analysis says of each launch, each distinct kernel's launches evaluated together:
    ``(counts, warnings, reasons, assumes)`` — per launch its exact static counts (None where they are not exact,
    :func:`kgraph.app.static_checks.static_counts_many`), its coverage and atomics warnings and why its counts are not
    exact; per kernel (``id`` of its graph) whether its analysis assumes a trip count. Made once per batch and passed
    to the predictor (each launch's interval margin by exactness) and to :func:`with_static_outputs`."""
    from kgraph.analysis.trips import trip_assumptions
    from kgraph.app.static_checks import (atomic_caution, coverage_warnings_many, kernel_facts, launch_envs,
                                          static_counts_many)

    by_kernel: dict[int, list[int]] = {}
    for i, launch in enumerate(launches):
        by_kernel.setdefault(id(launch.graph), []).append(i)
    exact, warnings, why = [None] * len(launches), [None] * len(launches), [""] * len(launches)
    assumes = {}  # kernel -> whether its analysis assumes a trip count (else trip_values is empty for every launch)
    for key, idx in by_kernel.items():
        facts = kernel_facts(launches[idx[0]].graph)
        assumes[key] = bool(facts.analysis is not None and trip_assumptions(facts.analysis))
        group, caution = [launches[i] for i in idx], atomic_caution(facts)
        env = launch_envs(group) if facts.analysis is not None else None  # made once for both
        for i, counts, messages in zip(idx, static_counts_many(facts, group, env),
                                       coverage_warnings_many(facts, group, env)):
            exact[i], warnings[i], why[i] = counts, messages + caution, facts.reason
    return exact, warnings, why, assumes


def assumed_flags(launches: list, assumes: dict | None = None) -> list[bool]:
    """Per launch: does it read a loop at an assumed trip count (:func:`assumed_trips`): the interval's assumed
    group. ``assumes``: :func:`static_facts`' per-kernel flags where the caller has them, so the launches of a kernel
    that assumes no trip count are not asked one by one."""
    return [bool((assumes is None or assumes[id(launch.graph)]) and assumed_trips(launch)) for launch in launches]


def with_static_outputs(launches: list, predictions: list[dict], as_grid: list[bool], predict=None,
                        facts: tuple | None = None, in_place: bool = False) -> list[dict]:
    """``predictions`` with ``flops``/``bytes`` replaced by the exact static counts where the analysis has
    them (``flops_source``/``bytes_source`` ``"static"``, else ``"model"``), ``bandwidth_gbs`` as those bytes ÷ the
    predicted time (what the output names it, not the bandwidth head's own value), the bound class derived from them
    and the predicted time there (``bound_source`` ``"static"``, else ``"model"``: the classifier head's),
    ``counts_note`` (why the counts are not exact, and the trip counts the model's inputs assumed),
    ``time_at_bound_ns`` and ``warnings`` for launches that do not cover their problem
    (:mod:`kgraph.app.static_checks`). Each distinct kernel's facts come from its one analysis; its launches are
    evaluated together.

    Args:
        launches: the launches predicted; predictions: the model's dicts for them (``time_ns``, the interval's
            ends, ``bound``, ``bound_probability``; absent keys are left absent); as_grid: per launch, whether a
            CUDA launch was given as ``grid``/``block``.
        predict: the predictor's ``predict`` (launches -> dicts), for ``time_at_bound_ns``: where every loop of
            assumed trip count has a bound, the time with each at its bound (given as its mean); else None, and
            always None without ``predict``.
        facts: :func:`static_facts` of ``launches`` when the caller made them (else made here).
        in_place: update the dicts of ``predictions`` themselves (a caller's own, made for this call), not copies.
    """
    from dataclasses import replace

    from kgraph.analysis.branches import describe_branches
    from kgraph.analysis.trips import describe_assumptions
    from kgraph.data.targets import TIME_INTERVAL
    from kgraph.models.launches import analysis_of

    exact, warnings, why, assumes = facts if facts is not None else static_facts(launches)
    warnings = [list(w) for w in warnings]  # the messages below are added to copies
    lo_key, hi_key = TIME_INTERVAL.keys
    out, at_bound = [], []  # at_bound: (position, the launch with its assumed loops at their bounds)
    derive = []  # positions whose class follows from exact counts and the predicted time
    for launch, pred, grid, counts, messages, reason in zip(launches, predictions, as_grid, exact, warnings, why):
        pred = pred if in_place else dict(pred)
        assumed, bounds = trip_values(launch) if assumes[id(launch.graph)] else (None, None)
        if assumed and set(bounds) == set(assumed):
            at_bound.append((len(out), replace(launch, args={**launch.args, **bounds})))
        # the keys in the order they always had: flops, flops_source, bytes, bytes_source (spelled out: this
        # loop runs once per launch of a batch)
        if counts is not None:
            pred["flops"], pred["flops_source"], pred["bytes"], pred["bytes_source"] = (
                counts["flops"], "static", counts["bytes"], "static")
            if (launch.device or {}).get("roofline") and pred.get("time_ns"):
                derive.append(len(out))
            else:
                pred["bound_source"] = "model"
            pred["counts_note"] = ""
        else:
            pred["flops_source"], pred["bytes_source"], pred["bound_source"] = "model", "model", "model"
            # why the static counts were not used (an unknown trip count names its loop, and what the model
            # assumed for it)
            pred["counts_note"] = "; ".join(filter(None, (
                reason or "a symbol has no value at this launch",
                describe_assumptions(analysis_of(launch.graph), assumed) if assumed else "",
                segment_hint(launch, assumed) if assumed else "",
                input_hint(launch, assumed) if assumed else "",
                describe_branches(analysis_of(launch.graph), launch.args),
                describe_breaks(analysis_of(launch.graph)))))
        if pred.get("time_ns") and pred.get("bytes") is not None:  # bandwidth: the record's bytes / its time (B/ns)
            pred["bandwidth_gbs"] = float(pred["bytes"]) / float(pred["time_ns"])
        pred["time_at_bound_ns"] = None
        if messages and launch.lang == "cuda" and not grid:
            messages.append("for CUDA, --global is threads per dimension (grid x block); to pass the grid "
                            "give --grid BLOCKS --block THREADS")
        pred["warnings"] = messages
        out.append(pred)
    if derive:  # one vectorised evaluation of every such launch
        rows = [out[j] for j in derive]
        bounds_, probabilities = derived_bounds(
            [r["time_ns"] for r in rows], [exact[j] for j in derive], [launches[j].device["roofline"] for j in derive],
            [r.get(lo_key) for r in rows], [r.get(hi_key) for r in rows])
        for row, bound, probability in zip(rows, bounds_, probabilities):
            row["bound"], row["bound_source"] = bound, "static"
            if probability is not None:
                row["bound_probability"] = probability
    if predict is not None and at_bound:
        for (j, _), bounded in zip(at_bound, predict([b for _, b in at_bound])):
            out[j]["time_at_bound_ns"] = bounded["time_ns"]
    return out
