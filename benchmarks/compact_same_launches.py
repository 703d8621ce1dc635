"""Compare compact heads on exactly the same test launches of one dataset.

    python -m benchmarks.compact_same_launches --dataset data/datasets/nvidia-h200 \
        --heads old=models/default_compact/compact.pt new=runs/compact_v2/graph_only_v2-unseen_launch-base.pt \
        [--exclude-keys old_train_keys.txt] [--only-keys teacher_test_keys.txt] --out metrics.csv

Test rows: ``kgraph.data.datamodule.to_splits`` of the dataset alone (val 0.1, test 0.2, seed 0, as
``kgraph.models.compact_training``). Each head takes its own code table (``kernel_id`` → embedding of
its own teacher); rows are kept only where every head has the kernel in its table, and, with
``--exclude-keys``, where the launch ``key`` is not listed (e.g. the launches an older head trained on,
taken from an older version of the dataset); with ``--only-keys``, a further subset of the listed
launches only (e.g. a teacher's own test launches, which its encoder never trained on). Metrics: :func:`kgraph.models.metrics.summarize`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import torch


def main(argv: list[str] | None = None) -> int:
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.models.compact import from_checkpoint, to_compact_inputs
    from kgraph.models.metrics import summarize

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", required=True)
    p.add_argument("--split", default="unseen_launch")
    p.add_argument("--heads", nargs="+", required=True, help="NAME=compact.pt")
    p.add_argument("--exclude-keys", default=None, help="file of launch keys (one a line) to leave out")
    p.add_argument("--only-keys", default=None, help="file of launch keys (one a line): a further subset "
                   "keeping only these (e.g. the teacher's own test launches)")
    p.add_argument("--cache-dir", default="runs/cache/compact")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    heads = {n: from_checkpoint(f) for n, f in (h.split("=", 1) for h in args.heads)}
    dm = KGraphDataModule([args.dataset], split=args.split, seed=0,
                          cache_dir=args.cache_dir, with_graphs=False)
    dm.setup()
    rows = np.asarray(dm.splits["test"])
    kid = dm.table["kernel_id"].to_numpy()
    keep = np.ones(len(rows), dtype=bool)
    for b in heads.values():
        keep &= np.isin(kid[rows], list(b.code_table))
    n_test, n_known = len(rows), int(keep.sum())
    subsets = {"test_kernels_in_all_tables": rows[keep]}
    if args.exclude_keys:
        excl = set(Path(args.exclude_keys).read_text().split())
        fresh = ~dm.table["key"].iloc[rows].isin(excl).to_numpy()
        subsets["not_in_excluded_keys"] = rows[keep & fresh]
    if args.only_keys:
        only = dm.table["key"].iloc[rows].isin(set(Path(args.only_keys).read_text().split())).to_numpy()
        subsets["in_only_keys" + ("_not_excluded" if args.exclude_keys else "")] = rows[keep & only & (
            fresh if args.exclude_keys else True)]
    results = []
    for subset, r in subsets.items():
        idx = torch.as_tensor(r)
        for name, b in heads.items():
            code = torch.stack([b.code_table[k] for k in kid[r]])
            x = to_compact_inputs(dm.features[idx], code)
            with torch.no_grad():
                pred, logits = b.head(x)
            bound = logits.argmax(-1).numpy()
            m = summarize(pred.numpy(), dm.targets[idx].numpy(), bound, dm.bound[idx].numpy())
            results.append({"head": name, "subset": subset, "dataset": Path(args.dataset).name,
                            "test_launches_split": n_test, "launches": len(r), **m})
            print(f"{subset:28s} {name:6s} n={len(r):6d} time MAPE {m['time_mape']:.1f}% median "
                  f"{m['time_median_ape']:.1f}% rho {m['time_spearman']:.3f} bound {m['bound_acc']:.3f}", flush=True)
    print(f"{n_test} test launches, {n_known} with kernels in every head's table")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(results).to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
