"""The conformal margin of the *shipped predictor's* time interval, from the full model's own errors on
kernels (families) it never trained on (issue 12 §4; BENCHMARKS.md section 33).

``kgraph estimate`` puts the interval head's spreads (``models/default/interval.pt``, a code-free compact
head) around the full graph model's time. That head's margin was calibrated on the *code-free head's*
errors on held-out families (section 11), which are larger than the full model's on the GPUs and smaller on
the Xeon: the shipped interval over-covers the GPU holdouts (88-92%) and under-covers the Xeon's (78%). Here
the scores are the full model's: the test predictions of the v6 recipe fitted on the leave-kernel-out and
leave-family-out splits (``benchmarks/h200_traffic_seeds.sh`` with those SPLITS; their prediction parquets
hold the test launches' keys), each launch scored with the interval head's spreads (no margin) around the
full model's ln time: ``s = max((p + lo) - y, y - (p + hi))``. The margin is the group-weighted 80% quantile
of :func:`kgraph.models.compact_interval.conformal_margin` (each kernel or family weighs the same).

Coverage is reported honestly by cross-fitting over halves of the groups (the margin from one half, the
coverage on the other, and back), per split and device; ``--ship DIR`` writes a copy of the interval head
with the chosen margin into DIR (the new margin is the one over the split named by ``--target``).

    python -m benchmarks.full_interval_margin --pred LKO.parquet LFO.parquet --datasets data/datasets/... \\
        [--interval models/default/interval.pt] [--target leave_kernel_out] [--ship DIR] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from benchmarks.compact_intervals import GROUP_OF_SPLIT, load_rows
from kgraph.models.compact_interval import conformal_margin

SPLITS = ("leave_kernel_out", "leave_family_out")  # whose test predictions this scores


def spreads(head, parts: list[dict], keys: pd.DataFrame) -> np.ndarray:
    """``[N, 2]`` the interval head's ends relative to its own point, without margin, for the launches
    ``keys`` (columns device_id, key) found in ``parts``; NaN rows for launches not found."""
    from kgraph.models.compact import to_compact_inputs

    out = np.full((len(keys), 2), np.nan)
    for p in parts:
        table = p["table"]
        where = pd.Series(np.arange(len(table)), index=table["device_id"].astype(str) + "/" + table["key"].astype(str))
        want = keys["device_id"].astype(str) + "/" + keys["key"].astype(str)
        hit = want.isin(where.index).to_numpy()
        if not hit.any():
            continue
        rows = torch.as_tensor(where[want[hit]].to_numpy().copy())
        with torch.no_grad():
            x = to_compact_inputs(p["features"][rows], config=head.config).float()  # the head's own inputs, by name
            out[hit] = head.interval_offsets(x, margin=False).double().numpy()
    return out


def scored(pred: pd.DataFrame, ends: np.ndarray) -> np.ndarray:
    """Conformity scores (ln units) of the full model's predictions with the head's spreads around them."""
    y, p = pred["true_log_time"].to_numpy(np.float64), pred["pred_log_time"].to_numpy(np.float64)
    return np.maximum(p + ends[:, 0] - y, y - (p + ends[:, 1]))


def halves(groups: np.ndarray, seed: int = 0) -> np.ndarray:
    """A boolean mask: the launches of a random half of the groups."""
    names = np.unique(groups)
    first = set(np.random.default_rng(seed).permutation(names)[: len(names) // 2])
    return np.array([g in first for g in groups])


def cross_fitted(s: np.ndarray, groups: np.ndarray, bins: np.ndarray | None = None) -> tuple[np.ndarray, list]:
    """Per launch, whether the margin of its bin (one bin without ``bins``) fitted on the *other* half of the
    groups covers it (both ways round); and those margins, ``[half][bin]``."""
    bins = np.zeros(len(s), dtype=int) if bins is None else bins
    ok, first = np.isfinite(s), halves(groups)
    covered, margins = np.zeros(len(s), dtype=bool), []
    for half in (first, ~first):
        margins.append([])
        for b in np.unique(bins):
            fit, test = ok & half & (bins == b), ~half & (bins == b)
            if fit.any() and test.any():
                margins[-1].append(conformal_margin(s[fit], groups=groups[fit]))
                covered[test] = s[test] <= margins[-1][-1]
    return covered, margins


def coverage_rows(split: str, pred: pd.DataFrame, s: np.ndarray, shipped: float) -> list[dict]:
    """Per device and overall: coverage at the shipped margin, at the margin of the whole split, and
    cross-fitted (margin from one half of the groups, coverage on the other, both ways)."""
    groups = pred[GROUP_OF_SPLIT[split]].astype(str).to_numpy()
    ok = np.isfinite(s)
    whole = conformal_margin(s[ok], groups=groups[ok])
    cross, margins = cross_fitted(s, groups)
    rows = []
    for dev in ["all", *sorted(pred["device_id"].unique())]:
        sel = ok & ((pred["device_id"] == dev).to_numpy() if dev != "all" else True)
        if not sel.any():
            continue
        rows.append({"split": split, "device": dev, "launches": int(sel.sum()),
                     "groups": int(len(np.unique(groups[sel]))), "margin_whole": round(whole, 4),
                     "margin_halves": "/".join(f"{m:.3f}" for (m,) in margins),
                     "coverage_shipped_margin": round(float(np.mean(s[sel] <= shipped)), 4),
                     "coverage_cross_fitted": round(float(np.mean(cross[sel])), 4),
                     "coverage_no_margin": round(float(np.mean(s[sel] <= 0)), 4),
                     "time_mape": round(float(np.mean(np.abs(np.expm1(
                         pred["pred_log_time"].to_numpy()[sel] - pred["true_log_time"].to_numpy()[sel])))) * 100, 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.full_interval_margin", description=__doc__.splitlines()[0])
    ap.add_argument("--pred", nargs="+", required=True, help="prediction parquets of leave_kernel_out / leave_family_out fits")
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--interval", default="models/default/interval.pt")
    ap.add_argument("--target", default="leave_kernel_out", choices=SPLITS)
    ap.add_argument("--cache-dir", default="runs/cache/compact")
    ap.add_argument("--ship", help="write the interval head with the --target split's margin here (interval.pt)")
    ap.add_argument("--out", default="benchmarks/results/full_interval_margin")
    args = ap.parse_args(argv)
    from kgraph.models.compact import from_checkpoint, to_checkpoint
    from kgraph.models.compact_interval import set_margin

    bundle = from_checkpoint(args.interval)
    head = bundle.head.eval()
    shipped = float(head.interval_margin)
    parts = load_rows(args.datasets, "unseen_launch", args.cache_dir)
    rows, margins, scores = [], {}, {}
    for path in args.pred:
        pred = pd.read_parquet(path)
        split = str(pred["split"].iloc[0])
        if split not in SPLITS:
            raise SystemExit(f"{path}: split {split} is not one of {', '.join(SPLITS)}")
        ends = spreads(head, parts, pred)
        found = np.isfinite(ends[:, 0])
        print(f"{path}: {split}, {len(pred)} launches, {found.sum()} found in the datasets", flush=True)
        pred, s = pred[found].reset_index(drop=True), scored(pred[found].reset_index(drop=True), ends[found])
        split_rows = coverage_rows(split, pred, s, shipped)
        rows += split_rows
        margins[split] = split_rows[0]["margin_whole"]  # the "all" row
        scores[split] = (pred["device_id"].to_numpy(), s)
    for r in rows:  # each split's coverage at every split's whole margin
        dev, s = scores[r["split"]]
        sel = np.isfinite(s) & ((dev == r["device"]) if r["device"] != "all" else True)
        for other, m in margins.items():
            r[f"coverage_at_{other}_margin"] = round(float(np.mean(s[sel] <= m)), 4)
    table = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "coverage.csv", index=False)
    print(table.to_string(index=False))
    print(f"shipped margin {shipped:.4f} ln; whole-split margins {json.dumps(margins)}")
    if args.ship:
        set_margin(head, margins[args.target])
        metrics = {**bundle.metrics, "margin_ln": margins[args.target], "margin_of": f"full model, {args.target}",
                   "margin_ln_code_free_head": shipped, "margins_full_model": margins}
        Path(args.ship).mkdir(parents=True, exist_ok=True)
        to_checkpoint(head, Path(args.ship) / "interval.pt", bundle.code_table, bundle.devices, metrics, bundle.sources)
        print(f"wrote {Path(args.ship) / 'interval.pt'} with margin {margins[args.target]:.4f} ln")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
