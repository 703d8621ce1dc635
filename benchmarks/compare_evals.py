"""Side by side: two ``benchmarks.dataset_eval`` runs of the same model on the same datasets, one without and one
with an input (``--buffers``), per dataset and per kernel that the input reached.

Each ``BASE`` folder (one dataset's ``dataset_eval --out``) is paired with ``BASE<suffix>``; launches are matched by
key. Per dataset: MAPE, median APE and share within 2x of both runs over all launches and over the launches whose
kernels the input reached (``derived_trips`` > 0 in the second run); per such kernel: MAPE and median log2(predicted
/ measured) of both::

    python -m benchmarks.compare_evals runs/s22/be/holdout3-nvidia-h200 ... --suffix _buf \\
        --out benchmarks/results/segment_buffers
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd


def scores(pred: np.ndarray, true: np.ndarray) -> tuple[float, float, float]:
    """(MAPE %, median APE %, share within 2x %)."""
    if not len(true):
        return (np.nan, np.nan, np.nan)
    ape = np.abs(pred / true - 1) * 100
    return float(ape.mean()), float(np.median(ape)), float((np.maximum(pred / true, true / pred) <= 2).mean() * 100)


def compare(base: Path, other: Path) -> tuple[dict, list[dict]]:
    """(the dataset's row, its reached kernels' rows)."""
    a, b = pd.read_parquet(base / "predictions.parquet"), pd.read_parquet(other / "predictions.parquet")
    m = a.merge(b[["key", "pred_ns", "derived_trips"]], on="key", suffixes=("", "_b"))
    reached = m[m["derived_trips_b"] > 0]
    row = {"set": base.name, "launches": len(m)}
    for tag, part in (("", m), ("reached_", reached)):
        for suffix, column in (("", "pred_ns"), ("_with", "pred_ns_b")):
            mape, med, w2x = scores(part[column].to_numpy(), part["true_ns"].to_numpy())
            row.update({f"{tag}mape{suffix}": round(mape, 1), f"{tag}median_ape{suffix}": round(med, 1),
                        f"{tag}within_2x{suffix}": round(w2x, 1)})
    row["reached_launches"], row["reached_kernels"] = len(reached), reached["family"].nunique()
    kernels = [{"set": base.name, "kernel": k, "launches": len(g),
                "mape": round(scores(g.pred_ns.to_numpy(), g.true_ns.to_numpy())[0], 1),
                "mape_with": round(scores(g.pred_ns_b.to_numpy(), g.true_ns.to_numpy())[0], 1),
                "log2_bias": round(float(np.median(np.log2(g.pred_ns / g.true_ns))), 2),
                "log2_bias_with": round(float(np.median(np.log2(g.pred_ns_b / g.true_ns))), 2)}
               for k, g in reached.groupby("family")]
    return row, kernels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare_evals", description=__doc__.splitlines()[0])
    ap.add_argument("base", nargs="+", help="dataset_eval --out folders of the first run")
    ap.add_argument("--suffix", default="_buf", help="the second run's folder is BASE + this")
    ap.add_argument("--out", help="write sets.csv and kernels.csv here")
    args = ap.parse_args(argv)
    rows, kernels = [], []
    for base in map(Path, args.base):
        other = base.with_name(base.name + args.suffix)
        if not (base / "predictions.parquet").is_file() or not (other / "predictions.parquet").is_file():
            ap.error(f"{base}: needs predictions.parquet there and in {other}")
        row, ks = compare(base, other)
        rows.append(row)
        kernels += ks
    sets, per_kernel = pd.DataFrame(rows), pd.DataFrame(kernels)
    pd.set_option("display.width", 250)
    print(sets.to_string(index=False))
    print(per_kernel.to_string(index=False))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        sets.to_csv(Path(args.out) / "sets.csv", index=False)
        per_kernel.to_csv(Path(args.out) / "kernels.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
