"""How the static-feature GBT prices one hand-written family it was not trained on, per device: a check of
whether a network's unseen-family miss lies in the features or in the network.

    PYTHONPATH=. .venv/bin/python -m benchmarks.gbt_family_probe --family gemm_tiled [--seeds 0 1] [--cache-dir DIR]

Trains one time regressor with the static GBT baseline's settings (``StaticGBTBaseline.params``) on every launch with known
counts of the corpus and generated datasets except the family's, and prints, per device, the median log2
ratio predicted/measured and the time MAPE on the family's launches.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from sklearn.ensemble import HistGradientBoostingRegressor

    from benchmarks.static_gbt_out_of_corpus import CORPUS, GENERATED, D, with_cached_features
    from kgraph.data.static_counts import counts_exact
    from kgraph.models.baselines import LaunchRows
    from kgraph.models.baselines.static_gbt import StaticGBTBaseline, to_static_features

    parser = argparse.ArgumentParser(prog="python -m benchmarks.gbt_family_probe", description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True, help="a hand-written family (e.g. gemm_tiled)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="random_state of each fit")
    parser.add_argument("--cache-dir", default="runs/cache", help="the DataModule's feature cache")
    args = parser.parse_args(argv)
    rows = with_cached_features(LaunchRows.from_datasets([D / d for d in CORPUS + GENERATED]), args.cache_dir)
    x = to_static_features(rows)
    y = rows.targets()[0][:, 0]
    family = rows.launches["family"].astype(str).to_numpy()
    if args.family not in set(family):
        parser.error(f"--family {args.family}: no such family in the corpus datasets")
    device = rows.launches["device_id"].astype(str).to_numpy()
    train = np.isfinite(y) & counts_exact(rows.feature("static_known")) & (family != args.family)
    for seed in args.seeds:
        # the baseline's estimator settings, for the time target alone (the family's other targets are not asked)
        model = HistGradientBoostingRegressor(**StaticGBTBaseline(seed=seed).params).fit(x[train], y[train])
        for d in sorted(set(device[family == args.family])):
            held = (family == args.family) & (device == d) & np.isfinite(y)
            log_ratio = model.predict(x[held]) - y[held]
            print(f"seed {seed} {d:32s} {held.sum():6d} launches: predicted/measured median "
                  f"x{np.exp(np.median(log_ratio)):.2f}, time MAPE {np.mean(np.abs(np.expm1(log_ratio))) * 100:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
