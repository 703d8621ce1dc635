"""Audit of the static analysis against the instrumented runs: per kernel, the static counts
(``kgraph.data.harness.counts.static_counts``: the analysis evaluated at the launch) divided by the counts an
instrumented run measured on the same launch, for the launches of a dataset folder whose counts are instrumented.

A ratio far from 1 on a kernel the analysis counts (no loop of data-dependent trip count) is either a branch on data
taken at the analysis's prior of 1/2, a loop bound by ``break`` counted to its bound, or a form the analysis misreads
(session 19 found three that way on the fifth holdout: a loop condition with an offset, a guard through a boolean
local, ``1u << logn``). Kernels with a loop of data-dependent trip count are listed as such (their counts are the
model's assumption, :mod:`kgraph.analysis.trips`).

    python -m benchmarks.count_audit data/datasets/holdout5-nvidia-h200 [more folders] [--per-kernel 6] \\
        [--csv out.csv]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.data.datamodule import read_dataset
from kgraph.data.harness.counts import static_counts
from kgraph.errors import KGraphError

KEYS = ("flops_fp32", "flops_fp64", "int_ops", "transcendental", "global_load_bytes", "global_store_bytes", "atomics")


def _launch(row) -> tuple[dict, list, list]:
    scalars = {k: float(v) for k, v in json.loads(row.args).items() if isinstance(v, (int, float))}
    dims = int(row.dims)
    return scalars, [int(row[f"g{d}"]) for d in range(dims)], [int(row[f"l{d}"]) for d in range(dims)]


def audit_folder(folder: Path, per_kernel: int) -> pd.DataFrame:
    """One row per kernel of ``folder``: ``<key>`` median static / instrumented ratio over up to ``per_kernel``
    launches (NaN where both are 0), ``launches``, ``status`` (``counted`` or ``data-dependent``) and
    ``worst`` (the key whose median ratio is farthest from 1 in log terms)."""
    rows, sources, _ = read_dataset(folder)  # the ok launches, checked against the manifest
    rows = rows[rows["counts_source"] == "instrumented"]
    sources = sources.set_index("source_id")
    out = []
    for kernel_id, group in rows.groupby("kernel_id"):
        first = group.iloc[0]
        src = sources.loc[first.source_id]
        ratios: dict = {k: [] for k in KEYS}
        status = "counted"
        for _, row in group.head(per_kernel).iterrows():
            scalars, gsize, lsize = _launch(row)
            try:
                static = static_counts(src.source, src.lang, row.kernel_name, scalars, gsize, lsize)
            except KGraphError:
                status = "data-dependent"
                break
            for k in KEYS:
                s, m = float(static[k]), float(row[k])
                if s > 0 or m > 0:
                    ratios[k].append(s / m if m > 0 else np.inf)
        entry = {"kernel_id": kernel_id, "launches": min(len(group), per_kernel), "status": status}
        if status == "counted":
            entry.update({k: float(np.median(v)) if v else np.nan for k, v in ratios.items()})
            far = {k: abs(np.log(entry[k])) for k in KEYS if np.isfinite(entry[k]) and entry[k] > 0}
            entry["worst"] = max(far, key=far.get) if far else ""
            entry["worst_ratio"] = entry[entry["worst"]] if far else np.nan
        out.append(entry)
    return pd.DataFrame(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, help="dataset folders with instrumented counts")
    ap.add_argument("--per-kernel", type=int, default=6, help="launches audited per kernel (default 6)")
    ap.add_argument("--csv", type=Path, help="write the table here")
    args = ap.parse_args(argv)
    tables = []
    for folder in args.folders:
        table = audit_folder(folder, args.per_kernel)
        table.insert(0, "folder", folder.name)
        tables.append(table)
    table = pd.concat(tables, ignore_index=True)
    counted = table[table["status"] == "counted"]
    off = counted[(counted["worst_ratio"] < 0.9) | (counted["worst_ratio"] > 1.1)]
    print(f"{len(table)} kernels: {len(counted)} counted, {len(table) - len(counted)} with a data-dependent loop; "
          f"{len(off)} counted kernels off by more than 10% on some count")
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(off[["folder", "kernel_id", "worst", "worst_ratio"]].round(3).to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
