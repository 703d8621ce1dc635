"""Accuracy of a model when a data-dependent loop is assumed to run N times, not one (no refit).

``kgraph.analysis.trips.ASSUMED_TRIP`` (1) is the iterations the model's inputs assume for a loop whose trip count
depends on data. This sets it to ``--trip`` for the run and scores the model on measured datasets through the user's
path (:func:`benchmarks.dataset_eval.evaluate`), one row per dataset: MAPE, median APE, within 2×, Spearman, below
the floor. BENCHMARKS.md section 57 ran it with 1 and 4 on the second to eighth hand-written sets::

    python -m benchmarks.trip_sweep --trip 4 --model models/default --out runs/trip4.csv \\
        data/datasets/holdout2-nvidia-h200 data/datasets/holdout2-pocl-xeon
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

COLUMNS = ("n", "mape", "median_ape", "within_2x", "spearman", "below_floor")


def sweep(trip: int, model: str, datasets: list[Path]):
    """One row per dataset (its name, ``trip``, :data:`COLUMNS`) of ``model`` scored with ``ASSUMED_TRIP = trip``."""
    import pandas as pd

    import kgraph.analysis.trips as trips
    from benchmarks.dataset_eval import evaluate

    before, trips.ASSUMED_TRIP = trips.ASSUMED_TRIP, trip
    try:
        rows = []
        for dataset in datasets:
            summary, _ = evaluate(dataset, {"model": model})
            whole = summary[summary["family"].isna()].iloc[0]  # the whole set's row (the others are per family)
            rows.append({"dataset": dataset.name, "trip": trip, **{c: whole[c] for c in COLUMNS}})
        return pd.DataFrame(rows)
    finally:
        trips.ASSUMED_TRIP = before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trip_sweep", description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path, help="measured dataset folders")
    parser.add_argument("--trip", type=int, required=True, help="iterations assumed for a data-dependent loop (>= 1)")
    parser.add_argument("--model", default="models/default", help="model directory (default: models/default)")
    parser.add_argument("--out", type=Path, help="CSV of the rows")
    args = parser.parse_args(argv)
    if args.trip < 1:
        parser.error(f"--trip {args.trip}: at least 1")
    for d in args.datasets:
        if not (d / "device.json").is_file():
            parser.error(f"{d}: not a dataset folder (no device.json)")
    if not (Path(args.model) / "config.json").is_file():
        parser.error(f"--model {args.model}: no config.json (not a model directory)")
    frame = sweep(args.trip, args.model, args.datasets)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(args.out, index=False)
    print(frame.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
