"""How far off a model is on kernels with atomics on addresses loaded from memory, per hand-written kernel.

``kgraph estimate`` warns on such kernels (:func:`kgraph.app.static_checks.atomic_caution`): how many updates land on
one address depends on the data, which neither the analysis nor the model sees. The warning quotes the range of the
median predicted ÷ measured time per kernel over the scored hand-written sets; this computes it from an output
folder of ``benchmarks/score_sets.sh`` (each ``holdout*-<device>/predictions.parquet``)::

    python -m benchmarks.loaded_atomic_ratios runs/s24/eval --model shipped --csv out.csv
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def ratios(eval_dir: Path, model: str, datasets: Path):
    """One row per (set, kernel with a loaded-address atomic): launches and the median predicted ÷ measured time."""
    import numpy as np
    import pandas as pd

    from kgraph.app.static_checks import kernel_facts
    from kgraph.data.harness.store import read_launches
    from kgraph.graphs import from_source

    warned: dict = {}  # (source id, kernel) -> whether the warning fires: a set's devices share their sources

    def fires(source: str, lang: str, kernel: str) -> bool:
        graphs = [x for x in from_source(source, lang, analyze=False) if x.function.name == kernel]
        return bool(graphs) and bool(kernel_facts(graphs[0]).loaded_atomics)  # what atomic_caution reads

    rows = []
    for pred in sorted(eval_dir.glob("holdout*-*/predictions.parquet")):
        name = pred.parent.name
        p = pd.read_parquet(pred)
        p = p[p["model"] == model].merge(read_launches(datasets / name)[["key", "source_id", "kernel_name"]], on="key")
        sources = pd.read_parquet(datasets / name / "sources.parquet")
        text = dict(zip(sources["source_id"], zip(sources["source"], sources["lang"])))
        for (source_id, kernel), g in p.groupby(["source_id", "kernel_name"]):
            if (source_id, kernel) not in warned:
                warned[source_id, kernel] = fires(*text[source_id], kernel)
            if not warned[source_id, kernel]:
                continue
            rows.append({"set": name, "kernel": kernel, "launches": len(g),
                         "median_ratio": float(np.median(g["pred_ns"] / g["true_ns"]))})
    return pd.DataFrame(rows, columns=["set", "kernel", "launches", "median_ratio"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loaded_atomic_ratios",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("eval_dir", type=Path, help="an output folder of benchmarks/score_sets.sh")
    parser.add_argument("--model", default="shipped", help="the model's name there (default: shipped)")
    parser.add_argument("--datasets", type=Path, default=Path("data/datasets"), help="the measured folders")
    parser.add_argument("--csv", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    if not any(args.eval_dir.glob("holdout*-*/predictions.parquet")):
        parser.error(f"{args.eval_dir}: no holdout*-<device>/predictions.parquet (run benchmarks/score_sets.sh)")
    frame = ratios(args.eval_dir, args.model, args.datasets)
    if frame.empty:
        parser.error(f"--model {args.model}: no prediction of that model with a loaded-address atomic")
    if args.csv:
        frame.to_csv(args.csv, index=False)
    print(frame.sort_values("median_ratio").round(3).to_string(index=False))
    print(f"{frame['kernel'].nunique()} kernels, {len(frame)} set-devices: median predicted / measured "
          f"{frame['median_ratio'].min():.2f}x to {frame['median_ratio'].max():.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
