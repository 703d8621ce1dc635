"""The predictions of an ensemble on a test split from its members' prediction files.

    python -m benchmarks.average_predictions A.parquet B.parquet C.parquet --model NAME --out ens.parquet

Each file is one member's predictions (``models/predictions.py`` format) on the same split; rows are
matched on ``key`` (launches every member predicted). The ensemble's log outputs are the members' means
(what :class:`kgraph.models.ensemble.KGraphEnsemble` computes; its bound class, averaged there as
probabilities, is the members' most frequent class here, the first member's on a tie, since the files keep
only classes). The result feeds ``python -m benchmarks.prediction_metrics``.
"""
from __future__ import annotations

import sys

from kgraph.errors import UsageError


def average(frames: list, model: str):
    """One predictions frame: the first frame's rows (those whose key every frame has) with every
    ``pred_log_*`` column the mean over frames and ``pred_bound`` the most frequent class."""
    import pandas as pd

    if len(frames) < 2:
        raise UsageError("give at least two prediction files")
    indexed = [f.drop_duplicates("key").set_index("key") for f in frames]
    keys = indexed[0].index
    for f in indexed[1:]:
        keys = keys.intersection(f.index)
    if not len(keys):
        raise UsageError("the prediction files share no launch key (different splits or datasets?)")
    out = indexed[0].loc[keys].copy()
    for col in [c for c in out.columns if c.startswith("pred_log_")]:
        out[col] = sum(f.loc[keys, col] for f in indexed) / len(indexed)
    votes = pd.concat([f.loc[keys, "pred_bound"].rename(i) for i, f in enumerate(indexed)], axis=1)
    out["pred_bound"] = votes.apply(lambda r: r.value_counts().index[0] if r.value_counts().iloc[0] > 1
                                    else r.iloc[0], axis=1)
    out["model"] = model
    return out.reset_index()


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", help="members' predictions parquets (same split)")
    parser.add_argument("--model", default="ensemble", help="the model name written in the result")
    parser.add_argument("--out", required=True, help="the ensemble's predictions parquet")


def run(args) -> int:
    from benchmarks.ensemble import read_predictions

    frames = read_predictions(args.files)
    result = average(frames, args.model)
    result.to_parquet(args.out, index=False)
    print(f"{len(result)} launches averaged over {len(frames)} members -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from kgraph.errors import module_main

    return module_main(argv, "python -m benchmarks.average_predictions", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
