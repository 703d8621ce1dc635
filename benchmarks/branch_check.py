"""Branch shares, measured (docs/ANALYSIS.md "Branch shares"): every launch of the branch check
(:mod:`benchmarks.branch_specs`) predicted at the analysis's prior (each undecided branch taken by 1/2) and with its
true share given (``taken_<line>``, from the launch's ``PCT``), per kernel and layout::

    python -m benchmarks.branch_check --data data/datasets/brcheck-nvidia-h200 [--model DIR] [--lanes 32] --out CSV

Prints (and writes) time MAPE, median APE, within 2x and the median log2 of predicted / measured, without and with
the shares; no prediction may fall below its floor either way.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.branch_specs import shares
from benchmarks.dataset_eval import launches_of, metrics, requests_of


def share_args(rows: pd.DataFrame, files: dict[str, Path], lanes: int = 1) -> list[dict]:
    """Per row, its ``taken_<line>`` arguments: the true share of each undecided branch at the row's ``PCT``, the
    branches' lines read from the kernel's analysis (in line order, as :func:`shares` gives them); ``lanes``: for
    the random layouts, the share of warps of that many lanes instead (the sorted ones keep the element share)."""
    import kgraph
    from kgraph.analysis.branches import taken_symbol

    lines = {}
    for source_id, path in files.items():
        for graph in kgraph.from_file(path):
            lines[(source_id, graph.name)] = list(graph.analysis.branches)
    out = []
    for r in rows.itertuples():
        found = lines[(r.source_id, r.kernel_name)]
        given = shares(r.kernel_name, float(json.loads(r.sizes)["PCT"]),
                       lanes if r.kernel_id.endswith("_random") else 1)
        if len(found) != len(given):
            raise SystemExit(f"{r.kernel_name}: the analysis weighs {len(found)} branch(es), the check states "
                             f"{len(given)}")
        out.append({taken_symbol(line): p for line, p in zip(found, given)})
    return out


def evaluate(dataset: Path, model_dir: str | None, lanes: int = 0) -> pd.DataFrame:
    """One row per (kernel, layout, shares) and one per shares over all launches: ``prior`` (1/2), ``given`` (the
    share of elements) and, with ``lanes``, ``warps`` (the share of warps of ``lanes`` lanes on random layouts)."""
    import kgraph

    rows, files = launches_of(dataset)
    device = json.loads((dataset / "device.json").read_text())
    model = kgraph.load_model(model_dir)
    device = model.devices.get(device["device_id"], device)
    plain = requests_of(rows, files, device)
    runs = {"prior": plain}
    for label, n in (("given", 1), ("warps", lanes)) if lanes else (("given", 1),):
        runs[label] = [{**req, "args": {**req["args"], **more}} for req, more in zip(plain, share_args(rows, files, n))]
    true = rows["median_time_ns"].to_numpy(np.float64)
    out = []
    for label, requests in runs.items():
        records = model.estimate_many(requests)
        pred = np.array([r["time_ns"] for r in records])
        floor = np.array([r["floor_ns"] for r in records])
        groups = {"all": np.arange(len(rows)), **rows.groupby("kernel_id").indices}
        for name, idx in groups.items():
            out.append({"shares": label, "kernel": name, **metrics(true[idx], pred[idx], floor[idx]),
                        "median_log2_ratio": float(np.median(np.log2(pred[idx] / true[idx])))})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="a dataset folder of the branch check")
    parser.add_argument("--model", default=None, help="model directory (default: the shipped one)")
    parser.add_argument("--lanes", type=int, default=0,
                        help="also give the random layouts the share of warps of this many lanes (32 on NVIDIA)")
    parser.add_argument("--out", help="write the table here (CSV)")
    args = parser.parse_args(argv)
    table = evaluate(Path(args.data), args.model, args.lanes)
    print(table.round(3).to_string(index=False))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
