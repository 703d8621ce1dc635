"""Cost against benefit over model sizes tiny … full: parameters, latency, accuracy, makespan.

    python -m benchmarks.runtime_cost_benefit \
        --metrics runs/compact/metrics-graph_only-unseen_launch.csv \
        --full-predictions benchmarks/results/h200_ablation/graph_only-unseen_launch/predictions-graph_only-unseen_launch.parquet \
        --latency benchmarks/results/runtime/latency.json --tables benchmarks/results/runtime/tables \
        --out benchmarks/results/runtime

Inputs are the outputs of the other runtime steps, so every number has one producer:
``--metrics`` (``python -m kgraph.models.compact_training``: params and test metrics per size and
dataset), ``--full-predictions`` (the full model's test predictions, same launches), ``--latency``
(``python -m benchmarks.runtime_latency --out``: C call per compact size, full model per launch) and
``--tables`` (``python -m kgraph.app.scheduling.from_datasets``: truth and per-model belief tables).
The makespan column is the geometric mean, over tiled Cholesky and LU at ``--tiles`` × every tile
size in the truth, of makespan / oracle makespan under the dmda replay (1.0 = perfect knowledge);
cold history and a·n^b regression are listed as the no-model references.
Writes ``cost_benefit.md`` and ``cost_benefit.png`` (``--stem``) into ``--out``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

SIZES = ("tiny", "small", "base", "large")


def full_metrics(path: str, device: str | None = None) -> dict:
    from kgraph.data.features import BOUND_CLASSES, REGRESSION_TARGETS
    from kgraph.models.metrics import summarize

    df = pd.read_parquet(path)
    if device is not None:  # a multi-device teacher's predictions: compare on one device only
        df = df[df["device_id"] == device]
    pred = df[[f"pred_log_{t}" for t in REGRESSION_TARGETS]].to_numpy()
    true = df[[f"true_log_{t}" for t in REGRESSION_TARGETS]].to_numpy()
    idx = {c: i for i, c in enumerate(BOUND_CLASSES)}
    return summarize(pred, true, df["pred_bound"].map(idx).fillna(-1).to_numpy().astype(int),
                     df["true_bound"].map(idx).fillna(-1).to_numpy().astype(int))


def replay_ratios(tables: Path, tiles: list[int], cpus: int) -> dict[str, float]:
    """Belief name → geometric mean of makespan / oracle over DAGs × tiles × tile sizes."""
    from kgraph.app.scheduling import Platform, TimeTable
    from kgraph.app.scheduling.run import DAGS, compare, read_predictions

    truth = TimeTable.from_file(tables / "truth.csv")
    preds = read_predictions([f"{p.stem}={p}" for p in sorted(tables.glob("kgraph-*.csv"))])
    platform = Platform.gpu_and_cpus(cpus)
    ratios: dict[str, list[float]] = {}
    for dag in DAGS:
        for n in tiles:
            for tile in sorted({t for _, t, _ in truth.samples}):
                for row in compare(truth, preds, dag, n, tile, platform):
                    ratios.setdefault(row["model"], []).append(row["vs_oracle"])
    return {k: float(np.exp(np.mean(np.log(v)))) for k, v in ratios.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--metrics", required=True)
    p.add_argument("--full-predictions", required=True)
    p.add_argument("--latency", required=True)
    p.add_argument("--tables", required=True)
    p.add_argument("--dataset", default="nvidia-h200", help="dataset whose test metrics are compared")
    p.add_argument("--tiles", type=int, nargs="+", default=[4, 8, 12])
    p.add_argument("--cpus", type=int, default=16)
    p.add_argument("--full-device", default=None,
                   help="keep only this device_id of --full-predictions (for a multi-device full model)")
    p.add_argument("--stem", default="cost_benefit", help="output file stem: STEM.md and STEM.png")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    metrics = pd.read_csv(args.metrics)
    metrics = metrics[metrics["dataset"] == args.dataset].set_index("size")
    latency = json.loads(Path(args.latency).read_text())
    replay = replay_ratios(Path(args.tables), args.tiles, args.cpus)

    def lat(prefix: str) -> tuple[float, int | None]:
        row = next(r for r in latency if r["name"].startswith(prefix))
        n = row["note"].split()[0]
        return row["seconds"], int(n) if n.isdigit() else None

    rows = []
    for size in SIZES:
        if size not in metrics.index:
            continue
        m = metrics.loc[size]
        s, _ = lat(f"compact {size}, C")
        rows.append({"model": f"compact {size}", "params": int(m["params"]), "latency_us": s * 1e6,
                     "time_mape": m["time_mape"], "time_median_ape": m["time_median_ape"],
                     "time_spearman": m["time_spearman"], "bound_acc": m["bound_acc"],
                     "makespan_vs_oracle": replay.get(f"kgraph-compact-{size}", float("nan"))})
    fm = full_metrics(args.full_predictions, args.full_device)
    s, n = lat("full kgraph model")
    rows.append({"model": "full (graph_only)", "params": n, "latency_us": s * 1e6, "time_mape": fm["time_mape"],
                 "time_median_ape": fm["time_median_ape"], "time_spearman": fm["time_spearman"],
                 "bound_acc": fm["bound_acc"], "makespan_vs_oracle": replay.get("kgraph-full", float("nan"))})
    table = pd.DataFrame(rows)
    refs = {k: v for k, v in replay.items() if not k.startswith("kgraph")}
    text = to_markdown(table) + "\n\nNo-model references (makespan / oracle): " + \
        ", ".join(f"{k} {v:.3f}" for k, v in sorted(refs.items())) + "\n"
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.stem}.md").write_text(text)
    plot(table, refs, out / f"{args.stem}.png")
    return 0


def to_markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in table.itertuples(index=False):
        lines.append("| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(lines)


def plot(table: pd.DataFrame, refs: dict[str, float], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    a.plot(table["params"], table["time_mape"], "o-", label="time MAPE %")
    a.plot(table["params"], table["time_median_ape"], "s--", label="time median APE %")
    for r in table.itertuples():
        a.annotate(f"{r.model.split()[-1]}\n{r.latency_us:.3g} µs", (r.params, r.time_mape), fontsize=7)
    a.set_xscale("log")
    a.set_xlabel("parameters")
    a.set_ylabel("% error (H200 test launches)")
    a.legend(fontsize=7)
    b.plot(table["latency_us"], table["makespan_vs_oracle"], "o-", label="kgraph beliefs")
    for r in table.itertuples():
        b.annotate(r.model.split()[-1].strip("()"), (r.latency_us, r.makespan_vs_oracle), fontsize=7)
    top = 1.05 * max(table["makespan_vs_oracle"].max(), min(v for v in refs.values() if v > 1.0 + 1e-9))
    off = 0
    for name, v in sorted(refs.items()):
        if v <= top:
            b.axhline(v, ls=":", lw=1, color="grey")
            b.annotate(name, (table["latency_us"].min(), v), fontsize=6, color="grey")
        else:  # one line each, so several off-scale references do not overprint
            b.annotate(f"{name}: {v:.2f} (off scale)", (0.02, 0.95 - 0.06 * off), xycoords="axes fraction", fontsize=7)
            off += 1
    b.set_ylim(min(0.98, table["makespan_vs_oracle"].min() - 0.005), top)
    b.set_xscale("log")
    b.set_xlabel("prediction latency (µs, 1 core)")
    b.set_ylabel("makespan / oracle (geo. mean)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
