"""Train compact heads of every size from a trained full model, on measured datasets.

    python -m kgraph.models.compact_training --ckpt runs/h200/graph_only-unseen_launch.ckpt \
        --datasets data/datasets/nvidia-h200 data/datasets/pocl-skylake-avx512-intel-xeon \
        --split unseen_launch --sizes tiny small base large --out benchmarks/results/runtime/compact

Steps: (1) the full model's ``encode_code`` embedding of every distinct kernel, computed once;
(2) per dataset, the split of ``kgraph.data.datamodule.to_splits`` (val 0.1, test 0.2, seed 0 — computed on
each dataset alone, so the first dataset's test launches are exactly the full model's test launches
when the full model was trained on it alone); (3) a :class:`~kgraph.models.compact.CompactHead` per size
fitted on the union of the train rows; (4) metrics (:func:`kgraph.models.metrics.summarize`) per dataset on
its test rows, predictions files (``models/predictions.py`` format) and a compact checkpoint per size
whose code table is keyed by ``kernel_id`` (plus the StarPU tile kernels, keyed by function name).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from kgraph.errors import module_main


def load_full_model(ckpt: str):
    """The :class:`kgraph.models.kgraph_model.KGraphModel` of a Lightning checkpoint, in eval mode."""
    from kgraph.errors import ModelError
    from kgraph.models.lightning_module import KGraphLightningModule

    if not Path(ckpt).is_file():
        raise ModelError(f"--ckpt: {ckpt}: no such checkpoint")
    module = KGraphLightningModule.load_from_checkpoint(ckpt, map_location="cpu")
    return module.model.eval()


def tokenizer_of(model) -> tuple[str | None, int]:
    tok = model.config.tokens
    return (tok.path if model.config.use_tokens else None), int(getattr(tok, "max_length", 512))


@torch.no_grad()
def encode_items(model, items, pad_id: int = 0, chunk: int = 32) -> torch.Tensor:
    """``encode_code`` of a list of ``KernelGraphs`` items: Float[len(items), D]."""
    from torch_geometric.data import Batch

    out = []
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        graphs = Batch.from_data_list(part, exclude_keys=["tokens", "key"]) if model.config.use_graph else None
        tokens = None
        if model.config.use_tokens:
            length = max(int(d.tokens.numel()) for d in part)
            ids = torch.full((len(part), length), pad_id, dtype=torch.long)
            mask = torch.zeros((len(part), length), dtype=torch.long)
            for i, d in enumerate(part):
                ids[i, :d.tokens.numel()], mask[i, :d.tokens.numel()] = d.tokens, 1
            tokens = {"input_ids": ids, "attention_mask": mask}
        out.append(model.encode_code(graphs, tokens).float())
    return torch.cat(out)


def tile_kernel_table(model, cache_dir: str) -> tuple[dict[str, torch.Tensor], dict[str, tuple[str, str]]]:
    """Code embeddings and sources of the StarPU tile kernels (keyed by function name)."""
    from kgraph.data.graph_dataset import KernelGraphs
    from kgraph.data.corpus import tile_kernel_files
    from kgraph.parsers.frontend import kernel_sources

    sources = kernel_sources(tile_kernel_files())
    rows = pd.DataFrame([{"source_id": "starpu-tile", "kernel_name": k, "lang": lang, "source": src}
                         for k, (src, lang) in sources.items()])
    path, max_len = tokenizer_of(model)
    graphs = KernelGraphs(Path(cache_dir) / "tile", rows, path, max_len)
    emb = encode_items(model, graphs.items)
    return {d.key.split(":", 1)[1]: emb[i] for i, d in enumerate(graphs.items)}, sources


def prepare(model, datasets: list[str], split: str, cache_dir: str) -> list[dict]:
    """Per dataset: compact inputs ``x``, targets, bound, split rows, the launch table and sources."""
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.data.graph_dataset import load_tokenizer
    from kgraph.models.compact import to_compact_inputs

    path, max_len = tokenizer_of(model)
    parts = []
    for d in datasets:
        dm = KGraphDataModule([d], split=split, seed=0,
                              cache_dir=cache_dir, with_graphs=True, tokenizer=path, max_tokens=max_len)
        dm.setup()
        pad = int(load_tokenizer(path).pad_token_id or 0) if path else 0
        code = encode_items(model, dm.graphs.items, pad)[torch.from_numpy(dm.item)]
        sources = pd.read_parquet(Path(d) / "sources.parquet")
        device = json.loads((Path(d) / "device.json").read_text())
        parts.append({"name": Path(d).name, "dm": dm, "x": to_compact_inputs(dm.features, code),
                      "y": dm.targets.float(), "bound": dm.bound.long(), "splits": dm.splits,
                      "table": dm.table, "sources": sources, "device_id": device["device_id"]})
    return parts


def code_table_of(parts: list[dict], code_dim: int) -> tuple[dict, dict, dict]:
    """kernel_id → embedding, device_id → descriptor vector, kernel_id → (source, lang, function)."""
    from kgraph.data.features import hardware_feature_names

    code, devices, sources = {}, {}, {}
    for p in parts:
        first = p["table"].reset_index(drop=True).groupby("kernel_id").head(1)
        for i, kid in zip(first.index, first["kernel_id"]):
            code.setdefault(kid, p["x"][i, :code_dim].clone())
        devices[p["device_id"]] = p["x"][0, -len(hardware_feature_names()):].clone()
        src = p["sources"].drop_duplicates("source_id").set_index("source_id")
        for kid, sid, fn in zip(first["kernel_id"], first["source_id"], first["kernel_name"]):
            sources.setdefault(kid, (src.at[sid, "source"], src.at[sid, "lang"], fn))
    return code, devices, sources


def evaluate(head, part: dict, rows: np.ndarray, model_name: str, split: str) -> tuple[dict, pd.DataFrame]:
    from kgraph.models.metrics import summarize
    from kgraph.models.predictions import to_frame

    idx = torch.as_tensor(rows)
    with torch.no_grad():
        pred, logits = head(part["x"][idx])
    from kgraph.data.features import REGRESSION_TARGETS

    outputs = {f"log_{t}": pred[:, j].numpy() for j, t in enumerate(REGRESSION_TARGETS)}
    outputs["bound"] = logits.argmax(-1).numpy()
    metrics = summarize(pred.numpy(), part["y"][idx].numpy(), outputs["bound"], part["bound"][idx].numpy())
    frame = to_frame(outputs, part["table"].iloc[rows], model_name, split, rows)
    return metrics, frame


def add_arguments(p) -> None:
    """The options of ``kgraph compact-train`` and ``python -m kgraph.models.compact_training``.

    Args:
        p: the argparse parser to fill.
    """
    from kgraph.models.compact import SIZES

    p.add_argument("--ckpt", required=True, help="full-model Lightning checkpoint")
    p.add_argument("--datasets", nargs="+", required=True)
    p.add_argument("--split", default="unseen_launch")
    p.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--cache-dir", default="runs/cache/compact")
    p.add_argument("--name", default=None, help="model name prefix in the outputs (default: ckpt stem)")
    p.add_argument("--out", required=True)


def run(args) -> int:
    """Fit one compact head per size on the teacher's embeddings; write checkpoints, predictions, metrics.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact, to_checkpoint

    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    name = args.name or Path(args.ckpt).stem.split("-")[0]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    model = load_full_model(args.ckpt)
    parts = prepare(model, args.datasets, args.split, args.cache_dir)
    tiles, tile_sources = tile_kernel_table(model, args.cache_dir)
    print(f"embeddings: {sum(len(p['dm'].graphs.items) for p in parts)} kernels + {len(tiles)} tile kernels "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    code_dim = model.code_dim
    code, devices, sources = code_table_of(parts, code_dim)
    code.update(tiles)
    sources.update({k: (s, lang, k) for k, (s, lang) in tile_sources.items()})
    train = [p["x"][torch.as_tensor(p["splits"]["train"])] for p in parts]
    x = torch.cat(train)
    y = torch.cat([p["y"][torch.as_tensor(p["splits"]["train"])] for p in parts])
    bound = torch.cat([p["bound"][torch.as_tensor(p["splits"]["train"])] for p in parts])
    results = []
    for size in args.sizes:
        torch.manual_seed(0)
        head = CompactHead(CompactConfig.for_dataset_features(code_dim, size))
        t1 = time.perf_counter()
        fit_compact(head, x, y, bound, epochs=args.epochs, batch_size=args.batch_size)
        fit_s = time.perf_counter() - t1
        metrics = {}
        for part in parts:
            m, frame = evaluate(head, part, part["splits"]["test"], f"compact_{size}", args.split)
            frame.to_parquet(out / f"predictions-{name}-compact_{size}-{args.split}-{part['name']}.parquet")
            metrics[part["name"]] = m
            results.append({"teacher": name, "split": args.split, "size": size, "params": head.num_parameters(),
                            "dataset": part["name"], "test_launches": len(part["splits"]["test"]),
                            "fit_s": round(fit_s, 1), **m})
            print(f"{size:5s} {part['name']:40s} time MAPE {m['time_mape']:.1f}% median {m['time_median_ape']:.1f}% "
                  f"rho {m['time_spearman']:.3f} bound {m['bound_acc']:.3f} ({fit_s:.0f} s)", flush=True)
        to_checkpoint(head, out / f"{name}-{args.split}-{size}.pt", code, devices,
                      {"split": args.split, "teacher": args.ckpt, "datasets": args.datasets, **metrics}, sources)
    pd.DataFrame(results).to_csv(out / f"metrics-{name}-{args.split}.csv", index=False)
    print(f"done in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.models.compact_training", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    raise SystemExit(main())
