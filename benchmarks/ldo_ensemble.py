"""Leave-device-out read as shipped: the error of each seed's fit and of their ensemble (docs/MODELS.md "What
session 21 leaves": four seeds of one recipe ranged over 12.3 points, their three-seed ensembles over 4.5).

Each ``--pred`` is the test predictions parquet of one seed's ``leave_device_out`` fit (the held-out device's
launches; ``benchmarks/cpu_fits.sh`` with ``SPLITS=leave_device_out``). The ensemble's ln time is the mean of the
seeds' (what ``merge_models`` ships: each member weighs the same). Rows are matched by device and key; only
launches every seed predicted count. Reported per ``--group`` of rows (hand-written: families not starting with
``gen``; generated; all): MAPE, median APE, share within 2x, for each seed and for the ensemble, and the seeds'
range. A rule comparing two recipes should compare their ensembles on the same data and seeds::

    python -m benchmarks.ldo_ensemble --pred runs/ldo0/.../predictions-*.parquet runs/ldo1/... \\
        [--name v32] [--out benchmarks/results/ldo_ensemble/v32.csv]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

GROUPS = ("hand-written", "generated", "all")


def errors(pred_log: np.ndarray, true_log: np.ndarray) -> dict[str, float]:
    """MAPE, median APE and share within 2x (percent) of ln-time predictions."""
    ratio = np.exp(pred_log - true_log)
    ape = np.abs(ratio - 1) * 100
    return {"mape": float(ape.mean()), "median_ape": float(np.median(ape)),
            "within_2x": float((np.maximum(ratio, 1 / ratio) <= 2).mean() * 100)}


def ensemble_table(paths: list[str], name: str = "") -> pd.DataFrame:
    """One row per group and member (``seed <i>``, in the order given) plus the ``ensemble`` row."""
    frames = []
    for i, path in enumerate(paths):
        p = pd.read_parquet(path, columns=["device_id", "key", "family", "true_log_time", "pred_log_time"])
        frames.append(p.rename(columns={"pred_log_time": f"pred_{i}"}).set_index(["device_id", "key"]))
    merged = frames[0]
    for f in frames[1:]:
        merged = merged.join(f[[c for c in f.columns if c.startswith("pred_")]], how="inner")
    preds = merged[[f"pred_{i}" for i in range(len(paths))]].to_numpy(np.float64)
    merged["pred_ensemble"] = preds.mean(1)
    generated = merged["family"].astype(str).str.startswith("gen").to_numpy()
    rows = []
    for group, mask in zip(GROUPS, (~generated, generated, np.ones(len(merged), bool))):
        if not mask.any():
            continue
        true = merged["true_log_time"].to_numpy(np.float64)[mask]
        seeds = [errors(preds[mask, i], true) for i in range(len(paths))]
        for i, e in enumerate(seeds):
            rows.append({"model": name, "group": group, "member": f"seed {i}", "launches": int(mask.sum()), **e})
        rows.append({"model": name, "group": group, "member": "ensemble", "launches": int(mask.sum()),
                     **errors(merged["pred_ensemble"].to_numpy()[mask], true),
                     "seeds_mape_range": max(e["mape"] for e in seeds) - min(e["mape"] for e in seeds)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ldo_ensemble", description=__doc__.splitlines()[0])
    ap.add_argument("--pred", nargs="+", required=True, help="leave_device_out test predictions, one per seed")
    ap.add_argument("--name", default="", help="the recipe's name in the table")
    ap.add_argument("--out", help="write the table here (CSV)")
    args = ap.parse_args(argv)
    for path in args.pred:
        if not Path(path).is_file():
            ap.error(f"--pred {path}: no such file")
    table = ensemble_table(args.pred, args.name)
    if table.empty:
        ap.error("--pred: no launch is predicted by every seed")
    pd.set_option("display.width", 200)
    print(table.round(2).to_string(index=False))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
