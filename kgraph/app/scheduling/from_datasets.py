"""Truth and belief time tables for the replay, from measured datasets and trained models.

    python -m kgraph.app.scheduling.from_datasets --ckpt runs/h200/graph_only-unseen_launch.ckpt \
        --compact runs/compact/graph_only-unseen_launch-small.pt ... \
        --gpu data/datasets/nvidia-h200 --cpu data/datasets/pocl-skylake-avx512-intel-xeon --out DIR

The corpus has no square tile kernels measured at every tile size, so each tile task kind is stood
for by a corpus family, and every launch of that family is mapped to the *equivalent tile* ``b`` of
the same work (``b³`` multiply-adds): GEMM ``gemm_tiled`` (M·N·K), SYRK ``syrk_tiled`` (N²·K),
TRSM ``trsm`` (N²·R: N×N triangle, R right-hand sides), POTRF ``potrf_batched`` and GETRF
``getrf_batched`` (batch·nb³: a batch of small factorisations, the closest panel-like kernels).
``b`` is rounded to the nearest power of two, and only tile sizes where every kind is measured on both
devices are kept; a cell (kind, b, device) holds the median over its
launches (fp32 kernels only). Beliefs are built from the *same launches*: the model's predicted time
per launch, medians per cell, so truth and belief differ only by the model's error.
Writes ``truth.csv`` and ``<model>.csv`` (columns ``kind, tile, device, time_us``) and
``cells.csv`` (per cell: launches, share of them in the model's test split, kernel ids).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from kgraph.errors import module_main

FAMILIES = {"gemm": "gemm_tiled", "syrk": "syrk_tiled", "trsm": "trsm", "potrf": "potrf_batched",
            "getrf": "getrf_batched"}


def equivalent_tile(kind: str, sizes: dict) -> float:
    """Edge ``b`` of the square tile task with the same multiply-add count as the launch."""
    if kind == "gemm":
        work = sizes["M"] * sizes["N"] * sizes["K"]
    elif kind == "syrk":
        work = sizes["N"] ** 2 * sizes["K"]
    elif kind == "trsm":
        work = sizes["N"] ** 2 * sizes["R"]
    else:
        raise ValueError(kind)
    return work ** (1 / 3)


def tile_rows(table: pd.DataFrame) -> pd.DataFrame:
    """``kind, tile`` per launch of the chosen families (fp32), other launches dropped."""
    out = []
    for i, r in enumerate(table.itertuples()):
        kind = next((k for k, f in FAMILIES.items() if r.family == f), None)
        if kind is None or not r.kernel_id.endswith("fp32"):
            continue
        sizes = json.loads(r.sizes)
        if kind in ("potrf", "getrf"):
            nb = int(r.kernel_id.split(".nb")[1].split(".")[0])
            b = (sizes["batch"] * nb ** 3) ** (1 / 3)
        else:
            b = equivalent_tile(kind, sizes)
        out.append((i, kind, int(2 ** round(np.log2(b)))))
    return pd.DataFrame(out, columns=["row", "kind", "tile"])


@torch.no_grad()
def full_model_log_time(model, dm, rows: np.ndarray, chunk: int = 256) -> np.ndarray:
    """The full model's predicted ln(time ns) for pooled-table rows of ``dm``."""
    out = []
    for start in range(0, len(rows), chunk):
        batch = dm.collate([int(r) for r in rows[start:start + chunk]])
        out.append(model(batch.graphs, batch.tokens, batch.source_index, batch.features).log_time.float())
    return torch.cat(out).numpy()


def add_arguments(p) -> None:
    """The options of ``kgraph schedule-tables`` and ``python -m kgraph.app.scheduling.from_datasets``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--ckpt", required=True, help="full-model checkpoint (belief 'kgraph-full')")
    p.add_argument("--compact", nargs="*", default=[], help="compact checkpoints (belief 'kgraph-compact-<size>')")
    p.add_argument("--gpu", required=True, help="dataset directory standing for the GPU worker")
    p.add_argument("--cpu", required=True, help="dataset directory standing for the CPU workers")
    p.add_argument("--split", default="unseen_launch")
    p.add_argument("--cache-dir", default="runs/cache/compact")
    p.add_argument("--out", required=True)


def run(args) -> int:
    """Write the truth and belief tables (and cells.csv) to ``args.out``.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    from kgraph.models.compact_training import load_full_model, prepare
    from kgraph.models.compact import from_checkpoint

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = load_full_model(args.ckpt)
    parts = prepare(model, [args.gpu, args.cpu], args.split, args.cache_dir)
    heads = {f"kgraph-compact-{from_checkpoint(c).head.config.size}": from_checkpoint(c).head for c in args.compact}
    frames = []
    for part, device in zip(parts, ("gpu", "cpu")):
        cells = tile_rows(part["table"])
        rows = cells["row"].to_numpy()
        cells["device"] = device
        cells["kernel_id"] = part["table"]["kernel_id"].to_numpy()[rows]
        cells["in_test"] = np.isin(rows, part["splits"]["test"])
        cells["truth"] = part["table"]["median_time_ns"].to_numpy()[rows] / 1e3
        cells["kgraph-full"] = np.exp(full_model_log_time(model, part["dm"], rows)) / 1e3
        for name, head in heads.items():
            with torch.no_grad():
                pred, _ = head(part["x"][torch.as_tensor(rows.copy())])
            cells[name] = np.exp(pred[:, 0].numpy()) / 1e3
        frames.append(cells)
    cells = pd.concat(frames, ignore_index=True)
    # keep tile sizes where every kind is measured on both devices (the replay needs all of them)
    have = cells.groupby(["kind", "tile"])["device"].nunique().unstack("kind").fillna(0).astype(int)
    complete = have.index[(have == 2).all(axis=1)]
    print(have.to_string())
    cells = cells[cells["tile"].isin(complete)]
    models = ["truth", "kgraph-full", *heads]
    grouped = cells.groupby(["kind", "tile", "device"])
    for name in models:
        g = grouped[name].median().reset_index().rename(columns={name: "time_us"})
        g.to_csv(out / f"{name}.csv", index=False)
    summary = grouped.agg(launches=("truth", "size"), test_share=("in_test", "mean"),
                          kernels=("kernel_id", lambda s: " ".join(sorted(set(s))))).reset_index()
    summary.to_csv(out / "cells.csv", index=False)
    print(f"tile sizes kept: {', '.join(map(str, complete))}; wrote {', '.join(f'{m}.csv' for m in models)} and cells.csv to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.app.scheduling.from_datasets", __doc__.splitlines()[0],
                       add_arguments, run)


if __name__ == "__main__":
    raise SystemExit(main())
