"""Raw material to compare ways of calibrating the compact head's 80% time interval (issue 12 §4).

    nice .venv/bin/python -m benchmarks.interval_methods dump --split leave_family_out --seeds 0 1 2 \
        --datasets data/datasets/nvidia-h200 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/nvidia-h100 \
        --out runs/interval_methods

Per split seed (the seed of ``kgraph.data.datamodule.to_splits``: which kernels / families are held out;
the shipped defaults keep seed 0), one code-free ``base`` interval head is trained on the train rows of
all datasets, and ``folds`` heads on all but one fold of whole groups (kernels or families, like the
split). Saved (``<split>-seed<k>.npz``): for every train row its out-of-fold point ln(time) and raw
spreads (lower, upper, before any margin) from the head that did not see its group, and for every test
row the final head's, plus each fold head's point (their disagreement). ``analyse`` then scores the
calibrations of :data:`METHODS` on those arrays (no training):

    .venv/bin/python -m benchmarks.interval_methods analyse --split leave_family_out \
        --out runs/interval_methods --results benchmarks/results/intervals_v2

``table`` summarises ``benchmarks.compact_intervals`` coverage.csv files over split seeds (``seeds.md``).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from benchmarks.compact_intervals import GROUP_OF_SPLIT, inputs_of, load_rows, stacked

#: the calibrations compared: name -> (score kind, weighting, Mondrian by device)
METHODS = {
    "additive, launch-weighted (§11)": ("add", "launch", False),
    "additive, group-weighted (§29)": ("add", "group", False),
    "additive, per device (Mondrian)": ("add", "launch", True),
    "additive, per tail (10% each)": ("tails", "launch", False),
    "scaled by the head's width": ("scale", "launch", False),
    "scaled by the head's width, group-weighted": ("scale", "group", False),
    "normalised by width + 0.3 ln": ("norm", "launch", False),
}


def parts_of(head, x):
    """``(point [N], lower spread [N], upper spread [N], bound class [N])`` of a head, margin left out."""
    with torch.no_grad():
        ends = head.log_time_interval(x, margin=False).double().numpy()
        pred, logits = head(x)
    point = pred[:, 0].double().numpy()
    return point, point - ends[:, 0], ends[:, 1] - point, logits.argmax(-1).numpy()


def dump(datasets, split, seed, epochs, folds, cache_dir, out: Path) -> Path:
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact

    parts = load_rows(datasets, split, cache_dir, seed=seed)
    train = [np.asarray(p["splits"]["train"]) for p in parts]
    test = [np.asarray(p["splits"]["test"]) for p in parts]
    x, y, bound, groups = stacked(parts, train, None, GROUP_OF_SPLIT[split])
    xt = torch.cat([inputs_of(p, None, r) for p, r in zip(parts, test)])
    yt = torch.cat([p["y"][torch.as_tensor(r), 0] for p, r in zip(parts, test)]).double().numpy()

    def head_on(rows):
        torch.manual_seed(0)
        head = CompactHead(CompactConfig.for_dataset_features(0, "base", interval=True))
        fit_compact(head, x[rows], y[rows], bound[rows], epochs=epochs, batch_size=1024)
        return head

    names = np.array(sorted(set(groups.tolist())))
    np.random.default_rng(0).shuffle(names)
    fold_of = {g: i % folds for i, g in enumerate(names)}
    fold = np.array([fold_of[g] for g in groups])
    oof = np.full((len(y), 4), np.nan)
    fold_points = []
    for k in range(folds):
        head = head_on(torch.as_tensor(np.flatnonzero(fold != k)))
        held = np.flatnonzero(fold == k)
        oof[held] = np.stack(parts_of(head, x[torch.as_tensor(held)]), 1)
        fold_points.append(parts_of(head, xt)[0])
        print(f"{split} seed {seed}: fold {k} done", flush=True)
    final = np.stack(parts_of(head_on(torch.arange(len(y))), xt), 1)
    t_groups = np.concatenate([p["table"][GROUP_OF_SPLIT[split]].astype(str).to_numpy()[r]
                               for p, r in zip(parts, test)])
    t_data = np.concatenate([[p["name"]] * len(r) for p, r in zip(parts, test)])
    c_data = np.concatenate([[p["name"]] * len(r) for p, r in zip(parts, train)])
    path = out / f"{split}-seed{seed}.npz"
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, y=y[:, 0].double().numpy(), oof=oof, fold=fold, groups=groups, data=c_data,
                        yt=yt, final=final, fold_points=np.stack(fold_points, 1), t_groups=t_groups, t_data=t_data)
    return path


def calibrate(kind: str, oof: tuple, test: tuple, groups, level: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """Ends ``(lo, hi)`` of the test rows: ``kind`` of score on the out-of-fold ``(y, point, down, up)``,
    applied to the test ``(point, down, up)``; ``groups`` None: launch-weighted quantile."""
    from kgraph.models.compact_interval import conformal_margin

    y, p, dl, dh = oof
    P, DL, DH = test
    q = lambda s, lev=level: conformal_margin(s, lev, groups)  # noqa: E731
    if kind == "add":
        m = q(np.maximum(p - dl - y, y - p - dh))
        return P - np.maximum(DL + m, 0), P + np.maximum(DH + m, 0)
    if kind == "tails":
        lo, hi = q(p - dl - y, 1 - (1 - level) / 2), q(y - p - dh, 1 - (1 - level) / 2)
        return P - np.maximum(DL + lo, 0), P + np.maximum(DH + hi, 0)
    if kind == "scale":
        lam = q(np.maximum((p - y) / dl, (y - p) / dh))
        return P - lam * DL, P + lam * DH
    c = 0.3
    lam = q(np.maximum(p - dl - y, y - p - dh) / (dl + dh + c))
    return P - DL - lam * (DL + DH + c), P + DH + lam * (DL + DH + c)


def analyse(paths: list[Path]) -> "pd.DataFrame":
    """One row per dump, method and dataset: coverage, below, above, median width of the test rows."""
    import pandas as pd

    from kgraph.models.compact_interval import interval_metrics

    rows = []
    for path in paths:
        d = np.load(path, allow_pickle=True)
        ok = np.isfinite(d["y"]) & np.isfinite(d["oof"][:, 0])
        y, oof, data, groups = d["y"][ok], d["oof"][ok], d["data"][ok], d["groups"][ok]
        final, yt, t_data = d["final"], d["yt"], d["t_data"]
        for name, (kind, weighting, per_device) in METHODS.items():
            lo, hi = np.empty(len(yt)), np.empty(len(yt))
            for ds in (sorted(set(t_data)) if per_device else [None]):
                c = np.ones(len(y), bool) if ds is None else data == ds
                t = np.ones(len(yt), bool) if ds is None else t_data == ds
                lo[t], hi[t] = calibrate(kind, (y[c], *oof[c, :3].T), tuple(final[t, :3].T),
                                         groups[c] if weighting == "group" else None)
            for ds in sorted(set(t_data)):
                t = t_data == ds
                m = interval_metrics(np.stack([lo[t], hi[t]], 1), yt[t])
                rows.append({"dump": path.stem, "method": name, "dataset": ds, **{
                    k: round(m[k], 4) for k in ("coverage", "below", "above", "median_width")}})
        err = np.abs(final[:, 0] - yt)
        print(f"{path.stem}: corr(|error|, fold heads' spread) {np.corrcoef(err, d['fold_points'].std(1))[0, 1]:.2f}, "
              f"corr(|error|, head's width) {np.corrcoef(err, final[:, 1] + final[:, 2])[0, 1]:.2f}")
    return pd.DataFrame(rows)


def seed_table(csvs: list[str]) -> str:
    """Markdown: per split, code, weighting and dataset of ``compact_intervals`` coverage.csv files, the
    coverage's mean, range and share of seeds within 75-85% over the split seeds."""
    import pandas as pd

    df = pd.concat([pd.read_csv(c) for c in csvs], ignore_index=True).drop_duplicates(
        ["split", "seed", "code", "weighting", "dataset"], keep="last")
    g = df.assign(ok=df.coverage.between(0.75, 0.85)).groupby(["split", "code", "weighting", "dataset"], sort=False)
    t = g.agg(seeds=("seed", "nunique"), mean=("coverage", "mean"), min=("coverage", "min"), max=("coverage", "max"),
              in_75_85=("ok", "sum"), below=("below", "mean"), above=("above", "mean"),
              width=("median_width", "median"), mape=("time_mape", "median")).reset_index()
    lines = ["| split | code | weighting | dataset | seeds | mean coverage | range | seeds in 75-85% "
             "| mean below / above | median width | median point MAPE |", "|" + "---|" * 11]
    for r in t.itertuples(index=False):
        lines.append(f"| {r.split} | {r.code} | {r.weighting} | {r.dataset} | {r.seeds} | {100 * r.mean:.1f}% | "
                     f"{100 * r.min:.1f}–{100 * r.max:.1f}% | {r.in_75_85} of {r.seeds} | {100 * r.below:.1f} / "
                     f"{100 * r.above:.1f} | {r.width:.2f} | {r.mape:.1f}% |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["dump", "analyse", "table"])
    p.add_argument("--csv", nargs="+", default=[], help="table: coverage.csv files of benchmarks.compact_intervals")
    p.add_argument("--datasets", nargs="+", default=[], help="dump: the datasets")
    p.add_argument("--split", default="leave_family_out", choices=list(GROUP_OF_SPLIT))
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--cache-dir", default="runs/cache/compact")
    p.add_argument("--out", default="runs/interval_methods")
    p.add_argument("--results", help="analyse: folder of methods.csv and methods.md")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.what == "table":
        text = seed_table(args.csv)
        print(text)
        if args.results:
            Path(args.results).mkdir(parents=True, exist_ok=True)
            (Path(args.results) / "seeds.md").write_text(text)
        return 0
    if args.what == "analyse":
        df = analyse(sorted(Path(args.out).glob(f"{args.split}-seed*.npz")))
        summary = (df.assign(in_goal=df.coverage.between(0.75, 0.85), miss=(df.coverage - 0.8).abs())
                   .groupby(["method", "dataset"], sort=False)
                   .agg(seeds=("coverage", "size"), mean=("coverage", "mean"), min=("coverage", "min"),
                        max=("coverage", "max"), in_75_85=("in_goal", "mean"), mean_abs_miss=("miss", "mean"),
                        median_width=("median_width", "median")).round(3).reset_index())
        print(summary.to_string(index=False))
        if args.results:
            out = Path(args.results)
            out.mkdir(parents=True, exist_ok=True)
            df.to_csv(out / f"methods-{args.split}.csv", index=False)
            lines = ["| " + " | ".join(summary.columns) + " |", "|" + "---|" * len(summary.columns)]
            lines += ["| " + " | ".join(map(str, r)) + " |" for r in summary.itertuples(index=False)]
            (out / f"methods-{args.split}.md").write_text("\n".join(lines) + "\n")
        return 0
    for seed in args.seeds:
        path = dump(args.datasets, args.split, seed, args.epochs, args.folds, args.cache_dir, Path(args.out))
        print(path, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
