"""A code-free compact head on the measured C functions (C corpus on 1 and 2 AMD EPYC cores) vs two baselines.

    .venv/bin/python -m benchmarks.c_functions_model \
        --datasets data/datasets/c-amd-epyc/cpu-c-amd-epyc-1c data/datasets/c-amd-epyc/cpu-c-amd-epyc-2c \
        --splits leave_kernel_out unseen_launch --seeds 0 1 2 --out benchmarks/results/c_functions

Per split (``kgraph.data.datamodule`` of each dataset: val 0.1, test 0.2, split seed 0; ``leave_kernel_out``
holds out whole C functions, ``unseen_launch`` launches of functions seen in training) one code-free
``base`` compact head (``CompactConfig.for_dataset_features(0, "base")``: launch + static-count + device
features, no code embedding) is trained on the train rows of both datasets together (``fit_compact``,
300 epochs, batch 64; val rows unused), once per seed, and scored on each dataset's test rows: time
MAPE, median APE, share within 2x of the measured time, Spearman's rho (mean over seeds, and the spread).
Predictions are clipped to [1 ns, e^30 ns] so that a runaway one counts in the MAPE. Where test rows have
no static counts (``static_known`` 0: the analysis leaves a loop's trip count symbolic, as in
``getrf_naive``'s ``i <= j && i < m``; every training row has them, so the head's standardised feature
explodes) the compact head is also scored on the rows with counts (``compact, static counts known``).

Baselines, on the same rows:

- ``family_powerlaw``: per dataset and C family (gemm, syrk, trsm, potrf, getrf; variants and dtypes
  pooled), ``log t = a + b log(flops)`` fitted by least squares on the train rows (the flop count of the
  catalog formula): what a per-family ``a * n^b`` fit gives without knowing the variant, which a held-out
  function's variant is;
- ``roofline_floor``: the static-count roofline floor (``kgraph.data.floors``: flops / the measured FMA
  peak, DRAM bytes beyond the LLC / the copy bandwidth, the call overhead; the dataset's own
  ``device.json``): a lower bound, no training; shows how far from peak the functions run.

Writes ``metrics.csv`` to ``--out`` and prints a table.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch


def load(datasets: list[str], split: str, cache_dir: str) -> list[dict]:
    from kgraph.data.datamodule import KGraphDataModule

    parts = []
    for d in datasets:
        dm = KGraphDataModule([d], split=split, seed=0, cache_dir=cache_dir, with_graphs=False)
        dm.setup()
        parts.append({"name": Path(d).name, "dir": d, "features": dm.features, "y": dm.targets.float(),
                      "bound": dm.bound.long(), "splits": {k: np.asarray(v) for k, v in dm.splits.items()},
                      "table": dm.table.reset_index(drop=True)})
    return parts


def metrics(pred_log: np.ndarray, true_log: np.ndarray) -> dict:
    from kgraph.models.metrics import ape, spearman

    pred_log = np.clip(pred_log, 0.0, 30.0)  # 1 ns .. ~3000 s: a runaway prediction counts, is not dropped as inf
    pred, true = np.exp(pred_log), np.exp(true_log)
    e = ape(pred, true)
    ratio = np.maximum(pred / true, true / pred)
    return {"time_mape": 100 * float(e.mean()), "time_median_ape": 100 * float(np.median(e)),
            "within_2x": float((ratio <= 2).mean()), "spearman": spearman(pred_log, true_log)}


def compact_predictions(parts: list[dict], seed: int, epochs: int) -> list[np.ndarray]:
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact, to_compact_inputs

    x = torch.cat([to_compact_inputs(p["features"][torch.as_tensor(p["splits"]["train"])]) for p in parts])
    y = torch.cat([p["y"][torch.as_tensor(p["splits"]["train"])] for p in parts])
    bound = torch.cat([p["bound"][torch.as_tensor(p["splits"]["train"])] for p in parts])
    torch.manual_seed(seed)
    head = CompactHead(CompactConfig.for_dataset_features(0, "base"))
    fit_compact(head, x, y, bound, epochs=epochs, batch_size=64, seed=seed)
    out = []
    with torch.no_grad():
        for p in parts:
            xt = to_compact_inputs(p["features"][torch.as_tensor(p["splits"]["test"])])
            out.append(head(xt)[0][:, 0].numpy().astype(np.float64))
    return out


def work_of(table: pd.DataFrame) -> np.ndarray:
    return (table["flops_fp32"].fillna(0) + table["flops_fp64"].fillna(0)).to_numpy(np.float64)


def powerlaw_predictions(part: dict) -> np.ndarray:
    t, tr, te = part["table"], part["splits"]["train"], part["splits"]["test"]
    lw, ly = np.log(work_of(t)), part["y"][:, 0].numpy().astype(np.float64)
    fam = t["family"].to_numpy()
    pred = np.empty(len(te))
    for i, r in enumerate(te):
        rows = tr[fam[tr] == fam[r]]
        if len(rows) >= 2 and np.ptp(lw[rows]) > 0:
            b, a = np.polyfit(lw[rows], ly[rows], 1)
        else:  # a family absent from train: all train rows
            b, a = np.polyfit(lw[tr], ly[tr], 1)
        pred[i] = a + b * lw[r]
    return pred


def floor_predictions(part: dict) -> np.ndarray:
    from kgraph.data.floors import device_rates, floors_ns

    t = part["table"].iloc[part["splits"]["test"]]
    descriptor = json.loads((Path(part["dir"]) / "device.json").read_text())
    rates = {k: np.full(len(t), v, dtype=np.float64) for k, v in device_rates(descriptor).items()}
    floors = floors_ns(t["flops_fp32"].to_numpy(np.float64), t["flops_fp64"].to_numpy(np.float64),
                       t["footprint_bytes"].to_numpy(np.float64), rates)
    return np.log(floors.max(1))


def main(argv: list[str] | None = None) -> int:
    from kgraph.data.static_counts import counts_exact

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["data/datasets/c-amd-epyc/cpu-c-amd-epyc-1c",
                                                     "data/datasets/c-amd-epyc/cpu-c-amd-epyc-2c"])
    p.add_argument("--splits", nargs="+", default=["leave_kernel_out", "unseen_launch"])
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--cache-dir", default="runs/cache/c_functions")
    p.add_argument("--out", default="benchmarks/results/c_functions")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for split in args.splits:
        parts = load(args.datasets, split, args.cache_dir)
        per_seed = [compact_predictions(parts, s, args.epochs) for s in args.seeds]
        for i, part in enumerate(parts):
            te = part["splits"]["test"]
            true = part["y"][torch.as_tensor(te), 0].numpy().astype(np.float64)
            base = {"split": split, "dataset": part["name"], "train_launches": len(part["splits"]["train"]),
                    "test_launches": len(te), "test_functions": int(part["table"]["kernel_id"].iloc[te].nunique())}
            seeds = pd.DataFrame([metrics(preds[i], true) for preds in per_seed])
            rows.append({**base, "method": f"compact (code-free, {len(args.seeds)} seeds)",
                         **seeds.mean().to_dict(), **{f"{k}_sd": v for k, v in seeds.std(ddof=0).to_dict().items()}})
            known = counts_exact(part["table"]["static_known"].to_numpy()[te]) if "static_known" in part["table"] else None
            if known is None:
                from kgraph.data.features import feature_names
                known = counts_exact(part["features"][torch.as_tensor(te), feature_names().index("static_known")].numpy())
            if not known.all():  # functions whose loop trip counts the analysis left symbolic: no static counts
                seeds_k = pd.DataFrame([metrics(preds[i][known], true[known]) for preds in per_seed])
                rows.append({**base, "test_launches": int(known.sum()),
                             "test_functions": int(part["table"]["kernel_id"].iloc[te[known]].nunique()),
                             "method": "compact, static counts known", **seeds_k.mean().to_dict(),
                             **{f"{k}_sd": v for k, v in seeds_k.std(ddof=0).to_dict().items()}})
            rows.append({**base, "method": "family_powerlaw", **metrics(powerlaw_predictions(part), true)})
            rows.append({**base, "method": "roofline_floor", **metrics(floor_predictions(part), true)})
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "metrics.csv", index=False)
    for r in rows:
        sd = f" (sd {r['time_mape_sd']:.1f})" if "time_mape_sd" in r and not pd.isna(r.get("time_mape_sd")) else ""
        print(f"{r['split']:17s} {r['dataset']:20s} n={r['test_launches']:4d} ({r['test_functions']:2d} fn) "
              f"{r['method']:30s} MAPE {r['time_mape']:8.1f}%{sd} median {r['time_median_ape']:6.1f}% "
              f"2x {r['within_2x']:.3f} rho {r['spearman']:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
