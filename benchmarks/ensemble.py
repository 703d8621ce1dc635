"""Time MAPE of a log-space blend of two models' predictions on the same test launches.

    python -m benchmarks.ensemble A.parquet B.parquet [--weights 0 0.25 0.5 0.75 1]

``A`` and ``B`` are prediction files (``models/predictions.py`` format) of the same split; rows are
matched on ``key``. Weight w predicts ``exp(w * ln a + (1 - w) * ln b)`` (a geometric mean at 0.5).
Prints, per weight, the launches matched, time MAPE and median APE.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from kgraph.errors import KGraphError, UsageError


def blend_errors(a, b, weights: list[float]) -> list[tuple[float, int, float, float]]:
    """``(weight, launches, MAPE %, median APE %)`` for each weight; ``a``/``b`` are prediction frames."""
    a, b = a.set_index("key"), b.set_index("key")
    keys = a.index.intersection(b.index)
    if not len(keys):
        raise UsageError("the two prediction files share no launch key (different splits or datasets?)")
    truth = np.exp(a.loc[keys, "true_log_time"].to_numpy())
    out = []
    for w in weights:
        pred = np.exp(w * a.loc[keys, "pred_log_time"].to_numpy() + (1 - w) * b.loc[keys, "pred_log_time"].to_numpy())
        ape = np.abs(pred - truth) / truth * 100
        out.append((w, len(keys), float(ape.mean()), float(np.median(ape))))
    return out


def read_predictions(paths: list[str]) -> list:
    """The prediction frames of ``paths``; UsageError naming a file that is not a readable parquet."""
    import pandas as pd

    frames = []
    for path in paths:
        try:
            frames.append(pd.read_parquet(path))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: not a readable predictions parquet ({exc})") from None
    return frames


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ensemble", description=__doc__.splitlines()[0])
    parser.add_argument("a", help="predictions parquet of model A (weight w)")
    parser.add_argument("b", help="predictions parquet of model B (weight 1 - w)")
    parser.add_argument("--weights", nargs="+", type=float, default=[0.0, 0.25, 0.5, 0.75, 1.0])
    args = parser.parse_args(argv)
    try:
        if any(not 0.0 <= w <= 1.0 for w in args.weights):
            raise UsageError("--weights: each weight must lie in [0, 1]")
        frames = read_predictions([args.a, args.b])
        for w, n, mape, mdape in blend_errors(*frames, args.weights):
            print(f"w(A)={w:.2f}  launches {n}  time MAPE {mape:.1f}%  median APE {mdape:.1f}%")
    except KGraphError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
