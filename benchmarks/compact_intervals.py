"""Coverage of the compact head's calibrated 80% time intervals on unseen kernels and unseen families.

    .venv/bin/python -m benchmarks.compact_intervals --splits leave_kernel_out leave_family_out \
        --datasets data/datasets/nvidia-h200 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/nvidia-h100 \
        --code models/default_compact/compact.pt none --seeds 0 --out benchmarks/results/intervals_v2

Per split and split seed (``kgraph.data.datamodule.to_splits`` of each dataset, val 0.1, test 0.2;
``--seeds``: which kernels / families are held out, 0 as in every shipped split) and per code
source (the code table of a compact checkpoint: each kernel's embedding by ``kernel_id``; ``none``: no
code embedding, launch + static + device features only), one ``base`` head with ``interval=True`` is
trained on the train rows of all datasets (val rows unused), its conformal margin cross-fitted on the
train rows in 5 folds of whole kernels (``leave_kernel_out``) or whole families (``leave_family_out``)
(:func:`kgraph.models.compact_interval.cross_fit_margin`), and scored on each dataset's test rows: the
coverage of the 80% interval before and after the margin, its width (hi / lo), and the point time
MAPE, once with the margin's quantile weighing every group the same (``weighting`` ``group``, what
ships since BENCHMARKS §29) and once every launch (``launch``, §11), from the same out-of-fold scores.
Writes ``coverage.csv`` (after every run) and prints a table.

With ``--ship PATH`` it instead trains the interval head a model directory ships (``interval.pt``, read by
``kgraph.models.predictor``): code-free, on every launch of ``--datasets`` (split ``unseen_launch``, all
roles), its margin cross-fitted over folds of whole families; with ``--like CHECKPOINT`` as well, a
compact head with interval outputs in place of that checkpoint's (see :func:`ship`).

Caveat of the code embeddings: the checkpoint's encoder was trained on all 413 corpus kernels, so with
``--code <checkpoint>`` a "held-out" kernel's embedding was made by an encoder that saw its times;
``none`` has no such leak.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

GROUP_OF_SPLIT = {"leave_kernel_out": "kernel_id", "leave_family_out": "family", "unseen_launch": "kernel_id"}


def load_rows(datasets: list[str], split: str, cache_dir: str, seed: int = 0) -> list[dict]:
    """Per dataset: features, targets, bound classes, splits (``seed``: which kernels / families are held
    out; 0 as everywhere else) and the launch table (no graphs)."""
    from kgraph.data.datamodule import KGraphDataModule

    parts = []
    for d in datasets:
        dm = KGraphDataModule([d], split=split, seed=seed, cache_dir=cache_dir, with_graphs=False)
        dm.setup()
        parts.append({"name": Path(d).name, "features": dm.features, "y": dm.targets.float(),
                      "bound": dm.bound.long(), "splits": dm.splits, "table": dm.table.reset_index(drop=True)})
    return parts


def inputs_of(part: dict, code_table: dict | None, rows: np.ndarray) -> torch.Tensor:
    """Compact inputs of ``rows``: code embedding (if any) ⊕ launch/static ⊕ device features."""
    from kgraph.models.compact import to_compact_inputs

    idx = torch.as_tensor(rows)
    code = None
    if code_table is not None:
        code = torch.stack([code_table[k] for k in part["table"]["kernel_id"].to_numpy()[rows]])
    return to_compact_inputs(part["features"][idx], code)


def with_code(part: dict, rows, code_table: dict | None) -> np.ndarray:
    """The rows of ``part`` among ``rows`` whose kernel has a code embedding (all of them without a table)."""
    kernels = part["table"]["kernel_id"].to_numpy()
    return np.asarray([r for r in rows if code_table is None or kernels[r] in code_table], dtype=np.int64)


def stacked(parts: list[dict], rows: list[np.ndarray], code_table: dict | None, group: str):
    """``(x, y, bound, groups)`` of the chosen ``rows`` of every part: compact inputs, log targets, bound
    classes and each row's value of column ``group`` (the folds of the conformal margin)."""
    x = torch.cat([inputs_of(p, code_table, r) for p, r in zip(parts, rows)])
    y = torch.cat([p["y"][torch.as_tensor(r)] for p, r in zip(parts, rows)])
    bound = torch.cat([p["bound"][torch.as_tensor(r)] for p, r in zip(parts, rows)])
    groups = np.concatenate([p["table"][group].astype(str).to_numpy()[r] for p, r in zip(parts, rows)])
    return x, y, bound, groups


def _makers(code_dim: int, size: str, epochs: int):
    """``(make_head, fit)`` of a ``size`` compact head with interval outputs, for :mod:`compact_interval`."""
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact

    def make_head():
        torch.manual_seed(0)
        return CompactHead(CompactConfig.for_dataset_features(code_dim, size, interval=True))

    def fit(head, xs, ys, bs):
        fit_compact(head, xs, ys, bs, epochs=epochs, batch_size=1024)

    return make_head, fit


def calibrated_head(x, y, bound, groups, code_dim: int, size: str, epochs: int, folds: int):
    """A ``size`` compact head with interval outputs trained on the rows, its margin cross-fitted over
    ``folds`` folds of ``groups`` (:func:`kgraph.models.compact_interval.fit_calibrated`, each group
    weighing the same); ``(head, scores)`` with the out-of-fold scores in row order."""
    from kgraph.models.compact_interval import fit_calibrated

    return fit_calibrated(*_makers(code_dim, size, epochs), x, y, bound, groups, folds=folds)


def run_one(parts: list[dict], split: str, code_name: str, code_table: dict | None, epochs: int,
            folds: int, seed: int = 0) -> list[dict]:
    """Rows of coverage.csv for one split seed and code source: one cross-fit, then the margin weighed by
    launches (§11) and by groups (§29, the default) from the same out-of-fold scores."""
    from kgraph.models.compact_interval import conformal_margin, interval_metrics, set_margin
    from kgraph.models.metrics import ape

    code_dim = 0 if code_table is None else len(next(iter(code_table.values())))
    train = [with_code(p, p["splits"]["train"], code_table) for p in parts]
    t0 = time.perf_counter()
    x, y, bound, groups = stacked(parts, train, code_table, GROUP_OF_SPLIT[split])
    head, s = calibrated_head(x, y, bound, groups, code_dim, "base", epochs, folds)
    margins = {"launch": conformal_margin(s), "group": conformal_margin(s, groups=groups)}
    fit_s = time.perf_counter() - t0
    out = []
    for p in parts:
        rows = with_code(p, p["splits"]["test"], code_table)
        xt, yt = inputs_of(p, code_table, rows), p["y"][torch.as_tensor(rows), 0].numpy()
        with torch.no_grad():
            raw = head.log_time_interval(xt, margin=False).numpy()
            point = head(xt)[0][:, 0].numpy()
        before = interval_metrics(raw, yt)
        errors = ape(np.exp(point), np.exp(yt))
        for weighting, margin in margins.items():
            set_margin(head, margin)
            with torch.no_grad():
                after = interval_metrics(head.log_time_interval(xt).numpy(), yt)
            table = p["table"].iloc[rows]
            out.append({"split": split, "seed": seed, "code": code_name, "weighting": weighting,
                        "dataset": p["name"], "test_launches": after["launches"],
                        "test_kernels": int(table["kernel_id"].nunique()),
                        "test_families": int(table["family"].nunique()),
                        "margin_ln": round(margin, 4), "coverage_uncalibrated": round(before["coverage"], 4),
                        "coverage": round(after["coverage"], 4), "below": round(after["below"], 4),
                        "above": round(after["above"], 4), "median_width": round(after["median_width"], 3),
                        "time_mape": round(100 * float(errors.mean()), 1),
                        "time_median_ape": round(100 * float(np.median(errors)), 1), "fit_s": round(fit_s, 1)})
            r = out[-1]
            print(f"{split:17s} s{seed} {code_name:8s} {weighting:6s} {p['name']:32s} n={r['test_launches']:6d} "
                  f"cover {r['coverage_uncalibrated']:.3f} -> {r['coverage']:.3f} (below {r['below']:.3f}, above "
                  f"{r['above']:.3f}) width x{r['median_width']:.2f} MAPE {r['time_mape']:.1f}% ({fit_s:.0f} s)",
                  flush=True)
    return out


def ship(datasets: list[str], path: str, epochs: int, folds: int, cache_dir: str, like: str | None = None) -> None:
    """Train and save a calibrated interval head (see the module doc).

    Args:
        like: None: the code-free interval head of a model directory, on every launch, margin over folds
            of families (the margin over folds of kernels, for a new kernel of a known family, is
            cross-fitted too and stored in the metrics as ``margin_ln_unseen_kernel``). A compact
            checkpoint: a new compact head in its place, with its code table,
            devices and sources, on the train rows of split ``unseen_launch`` (as the shipped compact head
            was trained), margin over folds of kernels; its point metrics on the test rows are printed
            and stored.
    """
    from kgraph.models.compact import from_checkpoint, to_checkpoint
    from kgraph.models.metrics import summarize

    bundle = from_checkpoint(like) if like else None
    table = bundle.code_table if bundle else None
    parts = load_rows(datasets, "unseen_launch", cache_dir)
    chosen = [with_code(p, p["splits"]["train"] if bundle else range(len(p["table"])), table) for p in parts]
    group = "kernel_id" if bundle else "family"
    x, y, bound, groups = stacked(parts, chosen, table, group)
    head, s = calibrated_head(x, y, bound, groups, bundle.head.config.code_dim if bundle else 0,
                              bundle.head.config.size if bundle else "base", epochs, folds)
    metrics = {"datasets": [Path(d).name for d in datasets], "launches": int(len(x)),
               "groups": f"{len(set(groups))} {group}", "folds": folds, "epochs": epochs,
               "margin_ln": float(head.interval_margin), "margin_weighting": "group",
               "out_of_fold_coverage_at_margin": float(np.mean(s[np.isfinite(s)] <= float(head.interval_margin)))}
    if not bundle:
        from kgraph.models.compact_interval import cross_fit_margin

        kernels = stacked(parts, chosen, table, "kernel_id")[3]
        metrics["margin_ln_unseen_kernel"] = cross_fit_margin(*_makers(0, "base", epochs), x, y, bound, kernels,
                                                              folds=folds)[0]
    if bundle:
        for p in parts:
            rows = with_code(p, p["splits"]["test"], table)
            xt = inputs_of(p, table, rows)
            with torch.no_grad():
                pred, logits = head(xt)
            metrics[p["name"]] = summarize(pred.numpy(), p["y"][torch.as_tensor(rows)].numpy(),
                                           logits.argmax(-1).numpy(), p["bound"][torch.as_tensor(rows)].numpy())
            metrics[p["name"]]["test_launches"] = int(len(rows))
    to_checkpoint(head, path, table or {}, bundle.devices if bundle else {}, metrics, bundle.sources if bundle else None)
    print(f"interval head: {metrics}", flush=True)


def main(argv: list[str] | None = None) -> int:
    from kgraph.models.compact import from_checkpoint

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", required=True)
    p.add_argument("--splits", nargs="+", default=["leave_kernel_out", "leave_family_out"],
                   choices=list(GROUP_OF_SPLIT))
    p.add_argument("--code", nargs="+", default=["models/default_compact/compact.pt", "none"],
                   help="compact checkpoints whose code tables give the embeddings, or 'none'")
    p.add_argument("--seeds", nargs="+", type=int, default=[0],
                   help="split seeds (which kernels / families are held out; the shipped splits use 0)")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--cache-dir", default="runs/cache/compact")
    p.add_argument("--out", help="folder of coverage.csv")
    p.add_argument("--ship", help="train the code-free interval head of a model directory into this file instead")
    p.add_argument("--like", help="with --ship: a compact checkpoint to replace by one with interval outputs "
                                  "(its code table, devices and sources; train rows of unseen_launch)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.ship:
        ship(args.datasets, args.ship, args.epochs, args.folds, args.cache_dir, args.like)
        return 0
    if not args.out:
        p.error("--out is required (or --ship)")
    tables = {c: (None if c == "none" else from_checkpoint(c).code_table) for c in args.code}
    results = []
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for split in args.splits:
        for seed in args.seeds:
            parts = load_rows(args.datasets, split, args.cache_dir, seed=seed)
            for name, table in tables.items():
                results += run_one(parts, split, "none" if table is None else Path(name).parent.name, table,
                                   args.epochs, args.folds, seed)
                pd.DataFrame(results).to_csv(out / "coverage.csv", index=False)  # after every run: partial results
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
