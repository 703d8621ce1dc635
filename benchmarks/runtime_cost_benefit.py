"""Cost against benefit over compact-head sizes: parameters, C latency, accuracy, makespan gain.

    python -m benchmarks.runtime_cost_benefit --data data/datasets/<device> [--split unseen_launch]
        [--sizes tiny small base large] [--code code_table.pt] [--truth times.csv] [--out DIR]

Each size is trained with ``models.compact.fit_compact`` on the train rows of ``--split``
(``data.datamodule.to_splits``), scored on the test rows (MAE of ln time, i.e. |ln(pred/true)|),
exported to C and timed per ``kgraph_predict`` call. ``--code`` (``{kernel_name: embedding}``,
from ``KGraphModel.encode_code``) adds code embeddings; without it the heads see launch, static
and hardware features only (code_dim 0). ``--truth`` (a scheduling time table) adds the makespan of
tiled Cholesky under the replay with each head's absolute error turned into a belief
(truth × e^{±MAE}, alternating sign by task kind) against the oracle. Writes ``cost_benefit.md`` and
``cost_benefit.png`` into ``--out``.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch


def main(argv: list[str] | None = None) -> int:
    from data.datamodule import read_dataset, to_splits
    from data.features import to_launch_features, to_targets
    from models.compact import SIZES, CompactConfig, CompactHead, fit_compact, to_compact_inputs
    from models.export import to_c
    from models.export.c_driver import bench_c, build_driver

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--split", default="unseen_launch")
    p.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    p.add_argument("--code", default=None)
    p.add_argument("--truth", default=None)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--out", default="results/cost_benefit")
    args = p.parse_args(argv)
    launches, sources, device = read_dataset(args.data)
    feats = to_launch_features(launches, sources, {device["device_id"]: device})
    y, bound = to_targets(launches)
    code = None
    if args.code:
        table = torch.load(args.code, weights_only=True)
        code = torch.stack([table[k].float() for k in launches["kernel_name"]])
    x = to_compact_inputs(feats, code)
    y, bound = torch.tensor(y), torch.tensor(bound)
    split = to_splits(launches, args.split, 0.0, 0.2, 0)
    tr, te = torch.as_tensor(split["train"]), torch.as_tensor(split["test"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            torch.manual_seed(0)
            head = CompactHead(CompactConfig.for_dataset_features(0 if code is None else code.shape[1], size))
            fit_compact(head, x[tr], y[tr], bound[tr], epochs=args.epochs)
            with torch.no_grad():
                pred, _ = head(x[te])
            mae = float((pred[:, 0] - y[te, 0]).abs().nanmean())
            names = sorted(set(launches["kernel_name"]))
            emb = {k: (code[launches.index[launches["kernel_name"] == k][0]] if code is not None else torch.zeros(0))
                   for k in names}
            to_c(head, Path(tmp) / size, emb, {device["device_id"]: x[0, -len(head.config.device_names):]})
            ns = bench_c(build_driver(Path(tmp) / size), names[0], 0,
                         x[0, head.config.code_dim:head.config.code_dim + len(head.config.launch_names)].numpy(),
                         calls=50_000)
            row = {"size": size, "params": head.num_parameters(), "c_ns_per_call": ns, "test_mae_ln_time": mae}
            if args.truth:
                row["cholesky_vs_oracle"] = replay_gain(args.truth, mae)
            rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    keys = list(rows[0])
    text = "| " + " | ".join(keys) + " |\n|" + "---|" * len(keys) + "\n" + "\n".join(
        "| " + " | ".join(f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k]) for k in keys) + " |" for r in rows)
    print(text)
    (out / "cost_benefit.md").write_text(text + "\n")
    plot(rows, out / "cost_benefit.png")
    return 0


def replay_gain(truth_path: str, mae: float) -> float:
    """Makespan / oracle of an 8x8-tile Cholesky replay when beliefs are off by e^{±mae}."""
    from kgraph.scheduling import OracleBelief, Platform, TableBelief, TimeTable, cholesky_dag, simulate

    truth = TimeTable.from_file(truth_path)
    tile = sorted({t for _, t, _ in truth.samples})[-1]
    kinds = truth.kinds()
    pred = {(k, tile, d): truth.time_us(k, tile, d) * float(np.exp(mae if i % 2 else -mae))
            for i, k in enumerate(kinds) for d in truth.devices()}
    platform = Platform.gpu_and_cpus(8)
    tasks = cholesky_dag(8, tile)
    oracle = simulate(tasks, truth, OracleBelief(truth), platform).makespan_us
    return simulate(tasks, truth, TableBelief("model", pred), platform).makespan_us / oracle


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot([r["params"] for r in rows], [r["test_mae_ln_time"] for r in rows], "o-", label="test MAE ln time")
    for r in rows:
        ax.annotate(f"{r['size']}\n{r['c_ns_per_call'] / 1e3:.2f} µs", (r["params"], r["test_mae_ln_time"]), fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("parameters")
    ax.set_ylabel("MAE of ln(time)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
