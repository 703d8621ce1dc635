"""Time accuracy per (model, split, device) of prediction parquets (kgraph.models.predictions.PredictionWriter):
MAPE, median APE, share within 2x, Spearman, three-way bound balanced accuracy with the class mix.

    python -m benchmarks.prediction_metrics 'runs/bounded*/*/pred/*.parquet' --out benchmarks/results/bounded_grid/summary.csv
"""
from __future__ import annotations

import argparse
import glob
import sys

import numpy as np
import pandas as pd


def summarize(frames: list[pd.DataFrame]) -> pd.DataFrame:
    from scipy.stats import spearmanr
    from sklearn.metrics import balanced_accuracy_score

    rows = []
    for df in frames:
        for (model, split, device), d in df.groupby(["model", "split", "device_id"]):
            t, p = np.exp(d.true_log_time.to_numpy()), np.exp(d.pred_log_time.to_numpy())
            ape, ratio = np.abs(p - t) / t, np.maximum(p / t, t / p)
            known = d.true_bound.notna() & (d.true_bound != "")
            mix = d.true_bound[known].value_counts()
            rows.append({"model": model, "split": split, "device": device, "n": len(d), "mape": 100 * ape.mean(),
                         "median_ape": 100 * np.median(ape), "within_2x": 100 * (ratio <= 2).mean(),
                         "spearman": spearmanr(t, p).statistic,
                         "bound_bacc": 100 * balanced_accuracy_score(d.true_bound[known], d.pred_bound[known])
                         if known.any() else np.nan,
                         "bound_mix": " ".join(f"{k}:{v}" for k, v in mix.items())})
    return pd.DataFrame(rows).sort_values(["split", "device", "model"]).reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.prediction_metrics", description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="+", help="glob patterns of prediction parquets")
    parser.add_argument("--out", help="write the table as CSV here")
    args = parser.parse_args(argv)
    files = sorted({f for pattern in args.patterns for f in glob.glob(pattern)})
    if not files:
        parser.error(f"no prediction parquet matches {args.patterns}")
    table = summarize([pd.read_parquet(f) for f in files])
    if args.out:
        table.to_csv(args.out, index=False)
    pd.set_option("display.width", 220)
    print(table.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
