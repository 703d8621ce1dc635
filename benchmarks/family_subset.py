"""Time accuracy of ``benchmarks.dataset_eval`` predictions on a subset of a set's kernel families.

A set some of whose kernels a decision has already looked at (session 16 changed the analysis after seeing two
of the second holdout's 29 kernels) stays untouched for the rest: this scores the rest, per model and per
predictions file, with ``dataset_eval``'s metrics.

    python -m benchmarks.family_subset runs/x/holdout2-nvidia-h200/predictions.parquet ... \\
        --exclude holdout2.pattern_match_uchar holdout2.newton_cubic_fp64 [--csv out.csv]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from benchmarks.dataset_eval import metrics
from benchmarks.tables import emit


def subset_metrics(frame: pd.DataFrame, exclude: set[str]) -> pd.DataFrame:
    """One row per model: ``dataset_eval.metrics`` over the launches whose family is not in ``exclude``, with
    the number of families kept.

    Args:
        frame: a ``dataset_eval`` predictions table (``model, family, true_ns, pred_ns, floor_ns``).
        exclude: families left out.
    """
    kept = frame[~frame["family"].isin(exclude)]
    rows = []
    for model, group in kept.groupby("model", sort=False):
        rows.append({"model": model, "families": group["family"].nunique(),
                     **metrics(group["true_ns"].to_numpy(), group["pred_ns"].to_numpy(),
                               group["floor_ns"].to_numpy())})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.family_subset", description=__doc__.splitlines()[0])
    parser.add_argument("predictions", nargs="+", help="predictions.parquet files of benchmarks.dataset_eval")
    parser.add_argument("--exclude", nargs="+", default=[], metavar="FAMILY", help="families to leave out")
    parser.add_argument("--csv", help="write the table here too")
    args = parser.parse_args(argv)
    tables = []
    for path in args.predictions:
        if not Path(path).is_file():
            parser.error(f"{path}: no such predictions file")
        frame = pd.read_parquet(path)
        missing = {"model", "family", "true_ns", "pred_ns", "floor_ns"} - set(frame.columns)
        if missing:
            parser.error(f"{path}: not a dataset_eval predictions file (no {', '.join(sorted(missing))})")
        unknown = set(args.exclude) - set(frame["family"])
        if unknown:
            parser.error(f"--exclude {' '.join(sorted(unknown))}: no such family in {path}")
        tables.append(subset_metrics(frame, set(args.exclude)).assign(file=path))
    return emit(pd.concat(tables, ignore_index=True), args.csv)


if __name__ == "__main__":
    sys.exit(main())
