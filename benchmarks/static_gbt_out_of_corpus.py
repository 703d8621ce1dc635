"""The static-feature GBT baseline on the never-trained sets, trained with and without the generated kernels.

    .venv/bin/python -m benchmarks.static_gbt_out_of_corpus [--cache-dir runs/s9/cache] [--csv OUT.csv] [--seeds 0 1 2]

Fits :class:`kgraph.models.baselines.StaticGBTBaseline` (its defaults) three ways on the training folders of
the shipped recipe: on the four hand-written corpus folders only, with the three generated folders too, and
with them on the launches whose static counts are known only (``static_known``; as
``--data.train_known_counts``), once per ``--seeds`` value (the estimator's ``random_state``, which draws the
samples its feature bins come from: on these sets one fit's MAPE moves by up to 15 points with it, so the
table reports the mean over the seeds and their range). Scores each, raised to the launch's physical floor
(:mod:`kgraph.data.floors`, as ``kgraph estimate`` does), on the five sets no fit trains on: the hand-written
holdout on the H200, the H100 and the Xeon, and the foreign set on the H200 and the H100 (the measured CSVs of
``benchmarks/foreign_measure.py``, each launch built as ``kgraph estimate`` builds it). Prints, per set and
training set, MAPE, median APE, share within 2x and the median log2 ratio predicted/measured (the bias), and
writes them to ``--csv``. The shipped default's numbers are in BENCHMARKS.md beside it.
"""
from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np

D = Path("data/datasets")
CORPUS = ("nvidia-h200", "nvidia-h100", "pocl-skylake-avx512-intel-xeon", "pocl-amd-epyc")
GENERATED = ("generated-nvidia-h200", "generated-nvidia-h100", "generated-pocl-xeon")
HOLDOUTS = ("holdout-nvidia-h200", "holdout-nvidia-h100", "holdout-pocl-xeon")
FOREIGN = (("foreign-h200", "benchmarks/results/foreign_h200/foreign_h200.csv", "nvidia-h200"),
           ("foreign-h100", "benchmarks/results/h100_out_of_corpus/foreign_h100_measured.csv", "nvidia-h100"))


def with_cached_features(rows, cache_dir: str | None):
    """``rows`` with its launch features from the DataModule's feature cache (computed and saved on a miss)."""
    from kgraph.data.feature_cache import cached_launch_features
    from kgraph.models.baselines import LaunchRows

    return LaunchRows(rows.launches, rows.sources, rows.devices,
                      cached_launch_features(cache_dir, rows.launches, rows.sources, rows.devices))


def described_as_trained(rows, devices: dict[str, dict]):
    """``rows`` with each device the fits were trained on described by the training descriptor
    (:func:`kgraph.data.device_descriptors.merge_descriptors`), not the holdout campaign's own measurement."""
    from kgraph.models.baselines import LaunchRows

    return LaunchRows(rows.launches, rows.sources, {k: devices.get(k, v) for k, v in rows.devices.items()})


def foreign_rows(measured_csv: str, device: dict):
    """(LaunchRows of the foreign set's catalog launches on one device, measured ns), the launches made and
    checked by ``kgraph estimate``'s own path (:meth:`kgraph.app.api.Model.launches_of`), with the exact static
    footprint for the DRAM floor."""
    import pandas as pd

    from kgraph.app.api import load_model
    from kgraph.data.foreign_set import entries, path_of
    from kgraph.data.harness.foreign import scalar_args
    from kgraph.models.baselines import LaunchRows
    from kgraph.models.launches import static_footprints, to_tables

    measured = {r["name"]: r for r in csv.DictReader(open(measured_csv)) if r["status"] == "ok" and r["time_ms"]}
    todo = [e for e in entries("opencl") if e.name in measured]
    requests = [{"file": str(path_of(e)), "kernel": e.name, "global": list(e.global_size),
                 "local": list(e.local_size) if e.local_size else None, "device": device,
                 "args": scalar_args(str(path_of(e)), e.name, list(e.global_size), dict(e.args))} for e in todo]
    launches, _, _ = load_model().launches_of(requests)
    rows, sources, devices, _ = to_tables(launches, static_footprints(launches))
    frame = rows.to_frame()
    frame["args"] = [json.dumps(a) for a in frame["args"]]
    true = np.array([float(measured[e.name]["time_ms"]) * 1e6 for e in todo])
    return LaunchRows(frame, pd.DataFrame(sources.columns), devices), true


def floors_ns(rows) -> np.ndarray:
    """The largest physical floor of each launch (ns), as ``kgraph estimate`` reports it
    (:func:`kgraph.data.floors.launch_floors_ns` of its ``floor_`` features)."""
    from kgraph.data.features import feature_names
    from kgraph.data.floors import FLOORS, launch_floors_ns

    names, t = feature_names(), rows.launches
    columns = [names.index(f"floor_{n}") for n in FLOORS]
    units = [float(rows.devices[d].get("compute_units") or "nan") for d in t["device_id"]]
    return launch_floors_ns(rows.features()[:, columns], t[["g0", "g1", "g2"]].to_numpy(),
                            t[["l0", "l1", "l2"]].to_numpy(), units).max(1)


def scores(pred_ns: np.ndarray, true_ns: np.ndarray) -> dict:
    ape = np.abs(pred_ns / true_ns - 1) * 100
    ratio = np.log2(pred_ns / true_ns)
    return {"n": len(true_ns), "mape": ape.mean(), "median_ape": np.median(ape),
            "within_2x": (np.abs(ratio) < 1).mean() * 100, "bias_log2": np.median(ratio)}


def main(argv: list[str] | None = None) -> int:
    from kgraph.models.baselines import LaunchRows, StaticGBTBaseline
    from kgraph.data.static_counts import counts_exact

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default="runs/cache", help="the DataModule's cache of launch features")
    parser.add_argument("--csv", help="write the table here")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="random_state of each fit (default 0)")
    args = parser.parse_args(argv)
    everything = with_cached_features(LaunchRows.from_datasets([D / d for d in CORPUS + GENERATED]), args.cache_dir)
    generated = everything.launches["kernel_id"].astype(str).str.startswith("gen.").to_numpy()
    known = counts_exact(everything.feature("static_known"))
    training = {"corpus only": np.flatnonzero(~generated), "corpus + generated": None,
                "corpus + generated, known counts": np.flatnonzero(known)}
    fits = {name: [StaticGBTBaseline(seed=seed).fit(everything if rows is None else everything.take(rows))
                   for seed in args.seeds] for name, rows in training.items()}
    sets = [(h, described_as_trained(LaunchRows.from_datasets([D / h]), everything.devices)) for h in HOLDOUTS]
    sets = [(name, rows, rows.launches["median_time_ns"].to_numpy(np.float64)) for name, rows in sets]
    sets += [(name, *foreign_rows(path, everything.devices[device])) for name, path, device in FOREIGN]
    table = []
    for name, rows, true in sets:
        floor = floors_ns(rows)
        for fit_name, models in fits.items():
            each = [scores(np.maximum(np.exp(m.predict(rows)["log_time"]), floor), true) for m in models]
            row = {"set": name, "trained_on": fit_name, "seeds": len(each),
                   **{k: float(np.mean([e[k] for e in each])) for k in each[0]},
                   "mape_min": min(e["mape"] for e in each), "mape_max": max(e["mape"] for e in each)}
            table.append(row)
            print(f"{name:20s} {fit_name:32s} n={row['n']:5.0f} MAPE {row['mape']:6.1f}% ({row['mape_min']:.1f}-"
                  f"{row['mape_max']:.1f})  median APE {row['median_ape']:5.1f}%  within 2x {row['within_2x']:5.1f}%  "
                  f"bias log2 {row['bias_log2']:+.2f}")
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
