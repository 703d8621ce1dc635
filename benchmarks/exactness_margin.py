"""The time interval's conformal margin by exactness (Mondrian): one margin for launches whose counts are exact,
one for the others, from the full model's errors on families it never trained on (docs/MODELS.md "The margin
by exactness").

The scores are :mod:`benchmarks.full_interval_margin`'s: each held-out launch of a leave-family-out fit's test
predictions, the shipped interval head's spreads (no margin) around the full model's ln time,
``s = max((p + lo) - y, y - (p + hi))``. A launch's group is whether its kernel's counts are exact by the rule of
:mod:`kgraph.exact_counts` (every count evaluates with no loop of unknown trip count: training launches give no
trip means), read from the kernel's source in the datasets. Each group's margin is the group-weighted 80% quantile
(every family weighs the same, :func:`kgraph.models.compact_interval.conformal_margin`); the coverage it gives is
cross-fitted over halves of the families (margin from one half, coverage on the other, both ways).

``--ship DIR`` copies the interval head with the margins in its metrics (``margins_by_exactness``; the head's own
margin, which the ONNX and C exports use, is kept) to ``DIR/interval.pt``::

    python -m benchmarks.exactness_margin --pred LFO.parquet --datasets data/datasets/... \\
        [--interval models/default/interval.pt] [--ship DIR] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.compact_intervals import GROUP_OF_SPLIT
from benchmarks.full_interval_margin import cross_fitted, scored, spreads
from kgraph.models.compact_interval import conformal_margin
from kgraph.models.model_files import EXACTNESS_GROUPS


def held_out_parts(datasets: list[str], pred: pd.DataFrame, cache_dir: str) -> list[dict]:
    """Per dataset, the launch features (``features`` Float[N, F]) and launch table (``table``) of only the
    launches in ``pred`` (matched by device and key): what :func:`benchmarks.full_interval_margin.spreads` reads,
    without featurising (or building graphs of) the kernels no held-out launch uses."""
    import torch

    from kgraph.data.datamodule import read_dataset
    from kgraph.data.device_descriptors import merge_descriptors
    from kgraph.data.feature_cache import cached_launch_features

    wanted = set(pred["device_id"].astype(str) + "/" + pred["key"].astype(str))
    read = [read_dataset(d) for d in datasets]
    devices = merge_descriptors(r[2] for r in read)  # the descriptors the fit's features used
    parts = []
    for launches, sources, _ in read:
        table = launches[(launches["device_id"].astype(str) + "/" + launches["key"].astype(str)).isin(wanted)]
        if table.empty:
            continue
        table = table.reset_index(drop=True)
        sources = sources[sources["source_id"].isin(table["source_id"])]
        features = cached_launch_features(cache_dir, table, sources, devices)
        parts.append({"table": table, "features": torch.from_numpy(features)})
    return parts


def kernel_exactness(datasets: list[str], kernel_ids: set[str]) -> dict[str, bool]:
    """``kernel_id`` -> whether its counts are exact (no loop of unknown trip count, no approximation, no branch on
    data: :func:`kgraph.exact_counts.exactness`), for the kernels of ``kernel_ids`` found in ``datasets``; a kernel
    that does not parse or has no analysis is not exact."""
    import kgraph
    from kgraph.exact_counts import exactness
    from kgraph.graphs import analysis_of
    from kgraph.data.harness.store import read_launches

    out: dict[str, bool] = {}
    for d in datasets:
        rows = read_launches(Path(d))[["kernel_id", "source_id", "kernel_name"]].drop_duplicates("kernel_id")
        rows = rows[rows.kernel_id.isin(kernel_ids - set(out))]
        if rows.empty:
            continue
        sources = pd.read_parquet(Path(d) / "sources.parquet").set_index("source_id")
        for r in rows.itertuples():
            text, lang = sources.loc[r.source_id, "source"], sources.loc[r.source_id, "lang"]
            try:
                graph = next(g for g in kgraph.from_source(text, lang) if g.name == r.kernel_name)
            except (kgraph.KGraphError, StopIteration):
                out[r.kernel_id] = False
                continue
            a = analysis_of(graph)  # a loop of unknown trip count is a reason too: training launches give no means
            out[r.kernel_id] = a is not None and not exactness(a, graph.unit, graph.function).reason
    return out


def margins_by_exactness(pred: pd.DataFrame, s: np.ndarray, exact: np.ndarray, split: str) -> tuple[dict, list]:
    """(group -> margin over all of the split's held-out families, table rows of the cross-fitted coverage)."""
    groups = pred[GROUP_OF_SPLIT[split]].astype(str).to_numpy()
    ok = np.isfinite(s)
    bins = np.where(exact, 0, 1)
    margins = {name: conformal_margin(s[ok & (bins == b)], groups=groups[ok & (bins == b)])
               for b, name in enumerate(EXACTNESS_GROUPS)}
    pooled = conformal_margin(s[ok], groups=groups[ok])
    cross_group, _ = cross_fitted(s, groups, bins)
    cross_pooled, _ = cross_fitted(s, groups)
    rows = []
    for b, name in enumerate(EXACTNESS_GROUPS):
        for dev in ["all", *sorted(pred["device_id"].unique())]:
            sel = ok & (bins == b) & ((pred["device_id"] == dev).to_numpy() if dev != "all" else True)
            if sel.any():
                rows.append({"group": name, "device": dev, "launches": int(sel.sum()),
                             "families": int(len(np.unique(groups[sel]))), "margin": round(margins[name], 4),
                             "margin_pooled": round(pooled, 4),
                             "coverage_cross_fitted": round(float(np.mean(cross_group[sel])), 4),
                             "coverage_cross_fitted_pooled": round(float(np.mean(cross_pooled[sel])), 4)})
    return margins, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.exactness_margin", description=__doc__.splitlines()[0])
    ap.add_argument("--pred", required=True, help="test predictions of a leave_family_out fit (parquet)")
    ap.add_argument("--datasets", nargs="+", required=True, help="the fit's training datasets")
    ap.add_argument("--interval", default="models/default/interval.pt")
    ap.add_argument("--cache-dir", default="runs/cache/compact")
    ap.add_argument("--ship", help="write the interval head with the margins by exactness here (interval.pt)")
    ap.add_argument("--out", default="benchmarks/results/exactness_margin")
    args = ap.parse_args(argv)
    from kgraph.models.compact import from_checkpoint, to_checkpoint

    bundle = from_checkpoint(args.interval)
    head = bundle.head.eval()
    pred = pd.read_parquet(args.pred)
    split = str(pred["split"].iloc[0])
    if split != "leave_family_out":
        raise SystemExit(f"--pred {args.pred}: split {split}, expected leave_family_out")
    ends = spreads(head, held_out_parts(args.datasets, pred, args.cache_dir), pred)
    found = np.isfinite(ends[:, 0])
    pred, ends = pred[found].reset_index(drop=True), ends[found]
    s = scored(pred, ends)
    exact_of = kernel_exactness(args.datasets, set(pred["kernel_id"]))
    exact = pred["kernel_id"].map(exact_of).fillna(False).to_numpy(bool)
    margins, rows = margins_by_exactness(pred, s, exact, split)
    table = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "coverage.csv", index=False)
    print(table.to_string(index=False))
    print(f"head margin {float(head.interval_margin):.4f} ln; by exactness {json.dumps(margins)}")
    if args.ship:
        metrics = {**bundle.metrics, "margins_by_exactness": margins,
                   "margins_by_exactness_of": f"full model's {split} test errors ({Path(args.pred).name})"}
        Path(args.ship).mkdir(parents=True, exist_ok=True)
        to_checkpoint(head, Path(args.ship) / "interval.pt", bundle.code_table, bundle.devices, metrics, bundle.sources)
        print(f"wrote {Path(args.ship) / 'interval.pt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
