"""Time accuracy per (model, split, device) of prediction parquets (kgraph.models.predictions.PredictionWriter):
MAPE, median APE, share within 2x, Spearman, three-way bound balanced accuracy with the class mix, and (with
``--datasets``) the two-way roofline class (``kgraph.data.targets.roofline_class``: arithmetic intensity
against the ridge point) from the predicted FLOPs and bytes against the measured counts, with its mix.

    python -m benchmarks.prediction_metrics 'runs/bounded*/*/pred/*.parquet' --datasets data/datasets/* \
        --out benchmarks/results/bounded_grid/summary.csv
"""
from __future__ import annotations

import argparse
import glob
import sys

import numpy as np
import pandas as pd


def roofline_columns(frame: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    """``frame`` with ``true_roofline``/``pred_roofline`` class names: both from the measured row's fp64 share
    and its device's roofline (the datasets' ``device.json``), the FLOPs and bytes measured vs predicted."""
    from kgraph.data.datamodule import read_dataset
    from kgraph.data.targets import ROOFLINE_CLASSES, roofline_class, to_natural

    shares, rooflines = [], {}
    for directory in datasets:
        launches, _, device = read_dataset(directory)
        rooflines[device["device_id"]] = device["roofline"]
        total = launches.flops_fp32.clip(lower=0) + launches.flops_fp64.clip(lower=0)
        shares.append(pd.DataFrame({"key": launches.key, "fp64_share": launches.flops_fp64.clip(lower=0) / total}))
    frame = frame.merge(pd.concat(shares).drop_duplicates("key"), on="key", how="left")
    names = np.array(ROOFLINE_CLASSES + ("",), dtype=object)  # index -1 -> ""
    for side in ("true", "pred"):
        out = np.full(len(frame), -1)
        for device, idx in frame.groupby("device_id").indices.items():
            if device in rooflines:
                d = frame.iloc[idx]
                out[idx] = roofline_class(to_natural("flops", d[f"{side}_log_flops"].to_numpy()),
                                          to_natural("bytes", d[f"{side}_log_bytes"].to_numpy()),
                                          d.fp64_share.fillna(0).to_numpy(), rooflines[device])
        frame[f"{side}_roofline"] = names[out]
    return frame


def summarize(frames: list[pd.DataFrame]) -> pd.DataFrame:
    from scipy.stats import spearmanr
    from sklearn.metrics import balanced_accuracy_score

    rows = []
    for df in frames:
        for (model, split, device), d in df.groupby(["model", "split", "device_id"]):
            roof = {}
            if "true_roofline" in d:
                k = (d.true_roofline != "") & (d.pred_roofline != "")
                roof = {"roofline_bacc": 100 * balanced_accuracy_score(d.true_roofline[k], d.pred_roofline[k])
                        if k.any() else np.nan,
                        "roofline_mix": " ".join(f"{c}:{n}" for c, n in d.true_roofline[k].value_counts().items())}
            t, p = np.exp(d.true_log_time.to_numpy()), np.exp(d.pred_log_time.to_numpy())
            ape, ratio = np.abs(p - t) / t, np.maximum(p / t, t / p)
            known = d.true_bound.notna() & (d.true_bound != "")
            mix = d.true_bound[known].value_counts()
            rows.append({"model": model, "split": split, "device": device, "n": len(d), "mape": 100 * ape.mean(),
                         "median_ape": 100 * np.median(ape), "within_2x": 100 * (ratio <= 2).mean(),
                         "spearman": spearmanr(t, p).statistic,
                         "bound_bacc": 100 * balanced_accuracy_score(d.true_bound[known], d.pred_bound[known])
                         if known.any() else np.nan,
                         "bound_mix": " ".join(f"{k}:{v}" for k, v in mix.items()), **roof})
    return pd.DataFrame(rows).sort_values(["split", "device", "model"]).reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.prediction_metrics", description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="+", help="glob patterns of prediction parquets")
    parser.add_argument("--datasets", nargs="+", default=[],
                        help="measured dataset folders of the predictions (adds the two-way roofline class)")
    parser.add_argument("--out", help="write the table as CSV here")
    args = parser.parse_args(argv)
    files = sorted({f for pattern in args.patterns for f in glob.glob(pattern)})
    if not files:
        parser.error(f"no prediction parquet matches {args.patterns}")
    frames = [pd.read_parquet(f) for f in files]
    if args.datasets:
        frames = [roofline_columns(f, args.datasets) for f in frames]
    table = summarize(frames)
    if args.out:
        table.to_csv(args.out, index=False)
    pd.set_option("display.width", 220)
    print(table.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
