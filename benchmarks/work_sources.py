"""Accuracy on measured sets by what the source fixes of each kernel's work, and the given-trip ceiling.

Every ok launch of each dataset is predicted through the user's path (``kgraph.load_model``, as
:mod:`benchmarks.dataset_eval`, no buffer lengths) and put in one class by what its kernel's analysis says of
its counts (:func:`launch_kind`, first that applies):

- ``exact``: the counts are exact at this launch (``flops_source`` static);
- ``assumed_trip``: a loop whose trip count depends on data is read at the assumption
  (:mod:`kgraph.analysis.trips`), the launch giving no ``trip_<line>``;
- ``break``: a counted loop holds a ``break``, so it is counted at its full trip count (an upper bound);
- ``branch``: a branch on data is weighed by a share (:mod:`kgraph.analysis.branches`);
- ``other``: inexact for another reason (an atomic on a loaded address, a symbol without a value).

Per device and class: launches, kernels, time MAPE, median APE, share within 2x, the median log2(predicted /
measured), and the 80% interval's coverage with the shares above and below it. Then the **given-trip
ceiling**: each ``assumed_trip`` launch whose kernel assumes one loop is predicted again with that loop's mean
trip count given (``trip_<line>``), solved from the launch's measured instrumented counts (:func:`solve_trip`:
the counts are affine in the mean). No user can give that mean for free; it bounds what reading the trip
count could buy, apart from how the model prices the work. Results: BENCHMARKS.md section 62.

    python -m benchmarks.work_sources --model models/default --out benchmarks/results/work_sources \\
        --data data/datasets/holdout-nvidia-h200 data/datasets/holdout2-nvidia-h200 ...
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.data.solved_trips import WORK, solve_trip  # the work a solved mean matches, defined with its training use

#: the classes of :func:`launch_kind`, in the order it tests them (``exact`` first)
KINDS = ("exact", "assumed_trip", "break", "branch", "other")


def launch_kind(record: dict, launch) -> str:
    """The class of one predicted launch (:data:`KINDS`): ``record`` its prediction dict (``flops_source``),
    ``launch`` its :class:`~kgraph.models.launches.Launch`."""
    from kgraph.app.static_outputs import assumed_trips
    from kgraph.models.launches import analysis_of

    if record.get("flops_source") == "static":
        return "exact"
    if assumed_trips(launch):
        return "assumed_trip"
    analysis = analysis_of(launch.graph)
    if analysis is not None and any(lp.symbolic and "'break' in the body" in lp.note for lp in analysis.loops):
        return "break"
    if analysis is not None and getattr(analysis, "branches", ()):
        return "branch"
    return "other"


def given_trips(launches: list, rows: pd.DataFrame) -> dict[int, dict[str, float]]:
    """Position -> ``{trip_<line>: mean}`` for each launch of ``launches`` (one kernel's or many) whose kernel
    assumes exactly one loop and whose mean :func:`solve_trip` finds from its row of ``rows`` (same order)."""
    from kgraph.app.static_checks import _per_item, launch_envs
    from kgraph.app.static_outputs import assumed_trips
    from kgraph.models.launches import analysis_of

    out: dict[int, dict[str, float]] = {}
    by_loop: dict[tuple, list[int]] = {}  # (kernel, its one assumed loop) -> positions
    for i, launch in enumerate(launches):
        assumed = assumed_trips(launch)
        if len(assumed) == 1:
            by_loop.setdefault((id(launch.graph), next(iter(assumed))), []).append(i)
    for (_, name), idx in by_loop.items():
        analysis = analysis_of(launches[idx[0]].graph)
        env = launch_envs([launches[i] for i in idx])
        items = env["gsz0"] * env["gsz1"] * env["gsz2"]
        ones = np.ones(len(idx))

        def work(trip: float) -> np.ndarray:
            counts = _per_item(analysis, {**env, name: trip * ones})
            return sum(counts[c] for c in WORK) * items

        measured = rows.iloc[idx][list(WORK)].to_numpy(np.float64).sum(1)
        for i, t in zip(idx, solve_trip(work(1.0), work(2.0), measured)):
            if np.isfinite(t):
                out[i] = {name: float(t)}
    return out


def scores(frame: pd.DataFrame, pred: str = "pred_ns", ends: tuple[str, str] = ("lo_ns", "hi_ns")) -> dict:
    """Time metrics of the launches of ``frame`` (``true_ns``, ``family`` and the columns named by ``pred``, the
    point, and ``ends``, the interval's)."""
    ratio = frame[pred].to_numpy(np.float64) / frame["true_ns"].to_numpy(np.float64)
    log2 = np.log2(ratio)
    true, lo, hi = (frame[c].to_numpy(np.float64) for c in ("true_ns", *ends))
    return {"launches": len(frame), "kernels": frame["family"].nunique(),
            "mape": 100 * np.abs(ratio - 1).mean(), "median_ape": 100 * np.median(np.abs(ratio - 1)),
            "within_2x": 100 * (np.abs(log2) <= 1).mean(), "median_log2": float(np.median(log2)),
            "coverage": 100 * ((true >= lo) & (true <= hi)).mean(), "above": 100 * (true > hi).mean(),
            "below": 100 * (true < lo).mean()}


def launch_inputs(rows: pd.DataFrame, launches: list, seed: int = 0):
    """``(position, the buffers' contents)`` of each row of ``rows`` whose kernel has a loop bounded by elements of its
    buffers (``Loop.data_trip``, :mod:`kgraph.analysis.data_trips`), regenerated as the measuring harness made them
    (its kernel's spec's ``make_inputs``, seeded by ``seed`` and the row's sizes:
    :func:`kgraph.data.harness.inputs.sizes_seed`), one row at a time; rows of kernels without a spec are left out."""
    from benchmarks.dataset_eval import spec_of
    from kgraph.data.harness.inputs import sizes_seed
    from kgraph.models.launches import analysis_of

    specs = {}
    for i, (r, launch) in enumerate(zip(rows.itertuples(), launches)):
        analysis = analysis_of(launch.graph)
        if analysis is None or not any(lp.data_trip is not None for lp in analysis.loops):
            continue
        if r.kernel_id not in specs:
            specs[r.kernel_id] = spec_of(r.kernel_id)
        if specs[r.kernel_id] is None:
            continue
        sizes = json.loads(r.sizes)
        arrays = dict(specs[r.kernel_id].make_inputs(np.random.default_rng(sizes_seed(seed, sizes)), sizes))
        buffers = {p.name for p in launch.graph.function.params if p.kind == "buffer"}
        yield i, {k: np.asarray(v) for k, v in arrays.items() if k in buffers}


def predict_set(model, dataset: Path, ceiling: bool = True, priors: tuple[float, ...] = (),
                inputs: bool = False) -> pd.DataFrame:
    """One row per ok launch of ``dataset``: its set, kernel, class, measured and predicted times, the
    interval's ends, for the ceiling's launches (``ceiling``) the time with the mean trip given, and for every
    ``assumed_trip`` launch the time with each assumed loop given ``min(T0, its bound)`` iterations, for each
    ``T0`` of ``priors`` (column ``prior_<T0>_ns``): a constant prior in place of the one iteration assumed; with
    ``inputs``, the time with the launch's own buffers given (:func:`launch_inputs`; column ``inputs_ns``, NaN where
    its kernel reads no loop bound from them)."""
    from benchmarks.dataset_eval import launches_of, requests_of

    rows, files = launches_of(dataset)
    device = json.loads((dataset / "device.json").read_text())
    requests = requests_of(rows, files, model.devices.get(device["device_id"], device))
    launches, _, _ = model.launches_of(requests)
    records = model.estimate_many(requests)
    frame = pd.DataFrame({"set": dataset.name, "device": device["device_id"], "family": rows["family"],
                          "kind": [launch_kind(r, l) for r, l in zip(records, launches)],
                          "true_ns": rows["median_time_ns"].to_numpy(np.float64),
                          "pred_ns": [r["time_ns"] for r in records],
                          "lo_ns": [r.get("time_lo_ns", np.nan) for r in records],
                          "hi_ns": [r.get("time_hi_ns", np.nan) for r in records],
                          "given_ns": np.nan, "given_lo_ns": np.nan, "given_hi_ns": np.nan})
    assumed = [i for i, kind in enumerate(frame["kind"]) if kind == "assumed_trip"]
    for t0 in priors:
        from kgraph.app.static_outputs import trip_values

        frame[f"prior_{t0:g}_ns"] = np.nan
        if assumed:
            given = []
            for i in assumed:
                names, bounds = trip_values(launches[i])
                given.append({**requests[i], "args": {**requests[i]["args"],
                                                      **{k: float(min(t0, bounds.get(k, np.inf))) for k in names}}})
            frame.loc[assumed, f"prior_{t0:g}_ns"] = [r["time_ns"] for r in model.estimate_many(given)]
    if inputs:
        frame[["inputs_ns", "inputs_lo_ns", "inputs_hi_ns"]] = np.nan
        for i, arrays in launch_inputs(rows, launches):  # one launch at a time: its inputs are dropped after it
            r = model.estimate_many([{**requests[i], "inputs": arrays}])[0]
            frame.loc[i, ["inputs_ns", "inputs_lo_ns", "inputs_hi_ns"]] = [
                r["time_ns"], r.get("time_lo_ns", np.nan), r.get("time_hi_ns", np.nan)]
    if ceiling:
        trips = given_trips(launches, rows)
        if trips:
            pos = sorted(trips)
            again = model.estimate_many([{**requests[i], "args": {**requests[i]["args"], **trips[i]}} for i in pos])
            frame.loc[pos, ["given_ns", "given_lo_ns", "given_hi_ns"]] = [
                [r["time_ns"], r.get("time_lo_ns", np.nan), r.get("time_hi_ns", np.nan)] for r in again]
    return frame


def tables(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per device and class :func:`scores`, the ceiling: per device the ``assumed_trip`` launches with a solved
    mean, scored at the assumption and with the mean given; then every ``assumed_trip`` launch at each constant
    prior of the frame, ``trip`` ``prior <T0>``, interval ends those of the assumption)."""
    by_kind = pd.DataFrame([{"device": dev, "kind": kind, **scores(g)}
                            for (dev, kind), g in frame.groupby(["device", "kind"], sort=True)])
    solved = frame[(frame["kind"] == "assumed_trip") & frame["given_ns"].notna()]
    ceiling = pd.DataFrame([{"device": dev, "trip": trip, **scores(g, pred, ends)}
                            for dev, g in solved.groupby("device", sort=True)
                            for trip, pred, ends in (("assumed", "pred_ns", ("lo_ns", "hi_ns")),
                                                     ("given", "given_ns", ("given_lo_ns", "given_hi_ns")))])
    assumed = frame[frame["kind"] == "assumed_trip"]
    if "inputs_ns" in frame and len(assumed):  # every assumed launch, its own inputs given where they bound a loop
        read = assumed["inputs_ns"].notna()
        given = assumed.assign(**{c: assumed[c].where(read, assumed[k]) for c, k in
                                  (("inputs_ns", "pred_ns"), ("inputs_lo_ns", "lo_ns"), ("inputs_hi_ns", "hi_ns"))})
        mine, theirs = ("lo_ns", "hi_ns"), ("inputs_lo_ns", "inputs_hi_ns")
        rows = [{"device": dev, "trip": name, **scores(g, col, ends)}
                for dev, part in given.groupby("device", sort=True)
                for name, col, ends, g in (("assumed (all)", "pred_ns", mine, part),
                                           ("inputs given (all)", "inputs_ns", theirs, part))]
        rows += [{"device": dev, "trip": name, **scores(g, col, ends)}
                 for dev, g in given[read].groupby("device", sort=True)
                 for name, col, ends in (("assumed (read from inputs)", "pred_ns", mine),
                                         ("inputs given (read)", "inputs_ns", theirs))]
        ceiling = pd.concat([ceiling, pd.DataFrame(rows)], ignore_index=True)
    priors = [c for c in frame.columns if c.startswith("prior_")]
    if priors and len(assumed):
        rows = [{"device": dev, "trip": name, **scores(g, col)} for dev, g in assumed.groupby("device", sort=True)
                for name, col in [("assumed (all)", "pred_ns")] + [(f"prior {c[6:-3]}", c) for c in priors]]
        ceiling = pd.concat([ceiling, pd.DataFrame(rows)], ignore_index=True)
    return by_kind, ceiling


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.work_sources", description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True, help="measured dataset folders")
    parser.add_argument("--model", default=None, help="model directory (default: the shipped one)")
    parser.add_argument("--out", required=True, help="folder for launches.parquet, by_kind.csv, ceiling.csv")
    parser.add_argument("--no-ceiling", action="store_true", help="skip the given-trip predictions")
    parser.add_argument("--inputs", action="store_true",
                        help="also predict each launch with its buffers' contents, regenerated from its kernel's spec")
    parser.add_argument("--priors", nargs="*", type=float, default=[], metavar="T0",
                        help="also predict every assumed_trip launch with each assumed loop given min(T0, its bound)")
    args = parser.parse_args(argv)
    folders = [Path(d) for d in args.data]
    for d in folders:
        if not (d / "device.json").is_file():
            parser.error(f"--data {d}: not a measured dataset folder (no device.json)")
    if args.model is not None and not (Path(args.model) / "config.json").is_file():
        parser.error(f"--model {args.model}: no config.json (not a model directory)")
    import kgraph

    model = kgraph.load_model(args.model)
    if any(not t0 > 0 for t0 in args.priors):
        parser.error(f"--priors {' '.join(map(str, args.priors))}: each prior is a positive mean trip count")
    frame = pd.concat([predict_set(model, d, not args.no_ceiling, tuple(args.priors), args.inputs) for d in folders],
                      ignore_index=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    by_kind, ceiling = tables(frame)
    frame.to_parquet(out / "launches.parquet")
    by_kind.to_csv(out / "by_kind.csv", index=False, float_format="%.4g")
    ceiling.to_csv(out / "ceiling.csv", index=False, float_format="%.4g")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(by_kind.round(2).to_string(index=False))
        if len(ceiling):
            print(ceiling.round(2).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
