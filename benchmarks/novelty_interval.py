"""Does a margin that grows with a launch's distance from the training code calibrate the interval on both
unseen kernels and unseen families? (issue 12 §4; BENCHMARKS.md section 34; an analysis, nothing shipped).

Section 33 showed that one margin cannot: the full model's errors need 0.11 ln on unseen kernels and > 0.41 on
unseen families. Here each test launch of the full model's leave-kernel-out and leave-family-out fits gets a
*novelty*: the distance of its per-work-item code features (``static_<count>``, ``traffic_<key>`` and the two
intensities: what the code does per work item, not how big the launch is; standardised over all launches)
to the nearest *kernel centroid* of that split's training kernels. Launches of both splits are pooled and
binned by novelty (quantile bins); each bin gets its own group-weighted conformal margin
(:func:`kgraph.models.compact_interval.conformal_margin`, groups = kernels), cross-fitted over halves of the
kernels. A shipped version would need only the training kernels' centroids (a few hundred kB) and the bin
edges and margins beside the interval head.

    python -m benchmarks.novelty_interval --pred LKO.parquet LFO.parquet --datasets ... [--bins 4] [--out DIR]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.compact_intervals import GROUP_OF_SPLIT, load_rows
from benchmarks.full_interval_margin import cross_fitted, scored, spreads
from kgraph.models.compact_interval import conformal_margin


def code_columns(names: list[str]) -> list[int]:
    """Indices of the per-work-item code features (no ``_total``, no launch or device features)."""
    return [i for i, n in enumerate(names) if (n.startswith(("static_", "traffic_")) and not n.endswith("_total")
                                               and n != "static_known")]


def novelty(parts: list[dict], pred: pd.DataFrame, cols: list[int], split: str) -> np.ndarray:
    """Per test launch of ``pred``: distance of its standardised code features to the nearest centroid of the
    kernels that the split trained on (every kernel of the datasets outside the test groups)."""
    table = pd.concat([p["table"][["device_id", "key", "kernel_id", "family"]] for p in parts], ignore_index=True)
    x = np.concatenate([p["features"].numpy()[:, cols] for p in parts]).astype(np.float64)
    x = (x - x.mean(0)) / np.where(x.std(0) > 0, x.std(0), 1.0)
    group = GROUP_OF_SPLIT[split]
    held = set(pred[group].astype(str))
    train = ~table[group].astype(str).isin(held).to_numpy()
    cent = pd.DataFrame(x[train]).groupby(table["kernel_id"].astype(str).to_numpy()[train]).mean().to_numpy()
    index = pd.Series(np.arange(len(table)), index=table["device_id"].astype(str) + "/" + table["key"].astype(str))
    rows = index[(pred["device_id"].astype(str) + "/" + pred["key"].astype(str)).to_numpy()].to_numpy()
    out = np.empty(len(rows))
    for start in range(0, len(rows), 4096):  # [chunk, kernels] distances
        d = x[rows[start:start + 4096], None, :] - cent[None, :, :]
        out[start:start + 4096] = np.sqrt((d ** 2).sum(-1)).min(1)
    return out


def binned_coverage(s: np.ndarray, nov: np.ndarray, groups: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, list]:
    """Cross-fitted coverage of a margin per novelty bin (margins from one half of the groups, coverage on
    the other, both ways) and the margins of the whole pool per bin."""
    bins = np.digitize(nov, edges)
    covered, _ = cross_fitted(s, groups, bins)
    whole = [conformal_margin(s[bins == b], groups=groups[bins == b]) for b in np.unique(bins)]
    return covered, whole


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.novelty_interval", description=__doc__.splitlines()[0])
    ap.add_argument("--pred", nargs="+", required=True)
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--interval", default="models/default/interval.pt")
    ap.add_argument("--bins", type=int, default=4)
    ap.add_argument("--cache-dir", default="runs/cache/compact")
    ap.add_argument("--out", default="benchmarks/results/novelty_interval")
    args = ap.parse_args(argv)
    from kgraph.data.features import feature_names
    from kgraph.models.compact import from_checkpoint

    head = from_checkpoint(args.interval).head.eval()
    parts = load_rows(args.datasets, "unseen_launch", args.cache_dir)
    cols = code_columns(feature_names())
    frames = []
    for path in args.pred:
        pred = pd.read_parquet(path)
        split = str(pred["split"].iloc[0])
        ends = spreads(head, parts, pred)
        ok = np.isfinite(ends[:, 0])
        pred = pred[ok].reset_index(drop=True)
        frames.append(pred.assign(score=scored(pred, ends[ok]), novelty=novelty(parts, pred, cols, split),
                                  group=split + ":" + pred["kernel_id"].astype(str)))
        print(f"{path}: {split}, {ok.sum()} launches, novelty median {frames[-1]['novelty'].median():.2f}", flush=True)
    pool = pd.concat(frames, ignore_index=True)
    edges = np.quantile(pool["novelty"], np.linspace(0, 1, args.bins + 1)[1:-1])
    s, nov, groups = pool["score"].to_numpy(), pool["novelty"].to_numpy(), pool["group"].to_numpy()
    covered, whole = binned_coverage(s, nov, groups, edges)
    one, _ = binned_coverage(s, nov, groups, np.array([]))  # one margin for the pool, for comparison
    rows = []
    for split in pool["split"].unique():
        for dev in ["all", *sorted(pool["device_id"].unique())]:
            sel = (pool["split"] == split).to_numpy() & ((pool["device_id"] == dev).to_numpy() if dev != "all" else True)
            if sel.any():
                rows.append({"split": split, "device": dev, "launches": int(sel.sum()),
                             "novelty_median": round(float(np.median(nov[sel])), 3),
                             "coverage_novelty_bins": round(float(covered[sel].mean()), 4),
                             "coverage_one_pooled_margin": round(float(one[sel].mean()), 4)})
    table = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "coverage.csv", index=False)
    print(table.to_string(index=False))
    print("novelty bin edges", np.round(edges, 3).tolist(), "margins per bin (ln)", np.round(whole, 3).tolist())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
