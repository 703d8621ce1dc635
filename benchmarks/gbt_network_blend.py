"""Geometric blends of a network's predictions and the known-count static GBT's on the never-trained sets.

    PYTHONPATH=. .venv/bin/python -m benchmarks.gbt_network_blend --eval runs/v13_eval --model bounded_traffic_known_uncapped

``--eval`` is the OUT folder of ``benchmarks/lm_ablation_eval.sh`` (per-launch predictions of the holdouts in
``<holdout>/predictions.parquet``, the foreign set's in ``foreign_<gpu>-<model>.csv``). The GBT is the mean in
log space of three fits (seeds 0–2) on the corpus and generated launches whose counts are known, held above the
floor; the blend with weight ``w`` is ``exp((1 - w) ln t_network + w ln t_gbt)``. Prints time MAPE per set and w.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.static_gbt_out_of_corpus import (CORPUS, FOREIGN, GENERATED, HOLDOUTS, D, described_as_trained,
                                                     floors_ns, foreign_rows, scores, with_cached_features)
    from kgraph.data.foreign_set import entries
    from kgraph.data.static_counts import counts_exact
    from kgraph.models.baselines import LaunchRows
    from kgraph.models.baselines.static_gbt import StaticGBTBaseline

    parser = argparse.ArgumentParser(prog="python -m benchmarks.gbt_network_blend", description=__doc__.splitlines()[0])
    parser.add_argument("--eval", required=True, help="the OUT folder of benchmarks/lm_ablation_eval.sh")
    parser.add_argument("--model", required=True, help="the network's name in those files")
    parser.add_argument("--cache-dir", default="runs/cache", help="the DataModule's feature cache")
    args = parser.parse_args(argv)
    train = with_cached_features(LaunchRows.from_datasets([D / d for d in CORPUS + GENERATED]), args.cache_dir)
    fits = [StaticGBTBaseline(seed=s).fit(train.take(np.flatnonzero(counts_exact(train.feature("static_known")))))
            for s in (0, 1, 2)]

    def gbt(rows) -> np.ndarray:
        return np.maximum(np.exp(np.mean([f.predict(rows)["log_time"] for f in fits], axis=0)), floors_ns(rows))

    def report(name, network, measured, gbt_ns) -> None:
        blends = [scores(np.exp((1 - w) * np.log(network) + w * np.log(gbt_ns)), measured)["mape"] for w in WEIGHTS]
        print(f"{name:20s} " + "  ".join(f"w={w}: {m:5.1f}%" for w, m in zip(WEIGHTS, blends)), flush=True)

    for name in HOLDOUTS:
        rows = with_cached_features(described_as_trained(LaunchRows.from_datasets([D / name]), train.devices),
                                    args.cache_dir)
        net = pd.read_parquet(f"{args.eval}/{name}/predictions.parquet")
        net = net[net["model"] == args.model].set_index("key").loc[rows.launches["key"].to_numpy()]
        report(name, net["pred_ns"].to_numpy(), net["true_ns"].to_numpy(), gbt(rows))
    for name, path, device in FOREIGN:
        rows, measured = foreign_rows(path, train.devices[device])
        net = pd.read_csv(f"{args.eval}/foreign_{device.split('-')[-1]}-{args.model}.csv").set_index("name")
        order = [e.name for e in entries("opencl") if e.name in net.index]
        report(name, net.loc[order, "predicted_ns"].to_numpy(), measured, gbt(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
