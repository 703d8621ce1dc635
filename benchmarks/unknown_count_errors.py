"""How a model errs where the static analysis cannot count a kernel's work, measured on training folders.

    python -m benchmarks.unknown_count_errors --model models/default --per-kernel 8 \\
        --data data/datasets/generated-nvidia-h200 data/datasets/generated-pocl-xeon --out runs/unknown_counts

A kernel whose loop trip count depends on data (CSR rows, escape-time loops) has no static counts, and
``kgraph estimate`` gives the model zeros for them. Recipes trained with ``--data.train_known_counts`` never
saw such launches, so the training folders' own unknown-count launches are a held-out sample of them that the
out-of-corpus sets need not be spent on. Per folder: up to ``--per-kernel`` ok launches of every kernel
(seeded draw), predicted through ``kgraph.load_model`` exactly as ``benchmarks.dataset_eval`` does; launches
are split by whether the estimate's counts were static. Per group: launches, kernels, MAPE, median APE, the
kernel-weighted median of ln(measured / predicted), the 80% interval's coverage, and the extra additive ln
margin the interval would need for 80% coverage with every kernel weighing the same.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` under ``weights`` (the smallest value whose cumulative weight reaches it)."""
    order = np.argsort(values)
    cum = np.cumsum(weights[order]) / weights.sum()
    return float(values[order][min(np.searchsorted(cum, q), len(values) - 1)])


def summarise(frame: pd.DataFrame) -> dict:
    """The row of one (folder, counts) group of per-launch predictions."""
    true, pred = frame.true_ns.to_numpy(), frame.pred_ns.to_numpy()
    weights = 1.0 / frame.groupby("kernel")["kernel"].transform("size").to_numpy()
    ln_ratio = np.log(true / pred)
    lo, hi = frame.time_lo_ns.to_numpy(np.float64), frame.time_hi_ns.to_numpy(np.float64)
    score = np.maximum(np.log(lo / true), np.log(true / hi))  # > 0 outside the interval, in ln units
    ape = np.abs(pred - true) / true
    return {"launches": len(frame), "kernels": frame.kernel.nunique(), "mape": 100 * ape.mean(),
            "median_ape": 100 * np.median(ape), "ln_ratio_median_kw": weighted_quantile(ln_ratio, weights, 0.5),
            "coverage": float((score <= 0).mean()),
            "margin_for_80_kw": max(0.0, weighted_quantile(score, weights, 0.8))}


def evaluate(dataset: Path, model, per_kernel: int, seed: int) -> pd.DataFrame:
    """Per-launch predictions by ``model`` (``kgraph.load_model``) of the sampled launches of ``dataset``
    (columns of ``summarise`` plus counts)."""
    import json

    from benchmarks.dataset_eval import launches_of, requests_of

    rows, files = launches_of(dataset)
    rows = rows.sample(frac=1.0, random_state=seed).groupby(["source_id", "kernel_name"]).head(per_kernel)
    rows = rows.reset_index(drop=True)
    device = json.loads((dataset / "device.json").read_text())
    records = model.estimate_many(requests_of(rows, files, model.devices.get(device["device_id"], device)))
    return pd.DataFrame({"folder": dataset.name, "kernel": rows.source_id + ":" + rows.kernel_name,
                         "true_ns": rows.median_time_ns.to_numpy(np.float64),
                         "pred_ns": [r["time_ns"] for r in records],
                         "time_lo_ns": [r.get("time_lo_ns") for r in records],
                         "time_hi_ns": [r.get("time_hi_ns") for r in records],
                         "counts": ["static" if r.get("flops_source") == "static" else "unknown" for r in records]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.unknown_count_errors", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="models/default", help="model directory")
    parser.add_argument("--data", nargs="+", required=True, help="measured dataset folders")
    parser.add_argument("--per-kernel", type=int, default=8, help="launches drawn per kernel at most")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--out", required=True, help="folder for predictions.parquet and summary.csv")
    args = parser.parse_args(argv)
    import kgraph

    model = kgraph.load_model(args.model)
    frames = [evaluate(Path(d), model, args.per_kernel, args.seed) for d in args.data]
    per_launch = pd.concat(frames, ignore_index=True)
    summary = pd.DataFrame([{"folder": folder, "counts": counts, **summarise(group)}
                            for (folder, counts), group in per_launch.groupby(["folder", "counts"])])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    per_launch.to_parquet(out / "predictions.parquet", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    print(summary.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
