"""Prediction latency side by side: C compact head, batched ONNX on one core, the full kgraph model,
and a ~350M-parameter transformer forward pass (the LLMPerf approach) on the same kernel.

    python -m benchmarks.runtime_latency [--ckpt compact-tiny.pt compact-small.pt ...] [--size base]
        [--full runs/h200/graph_only-unseen_launch.ckpt ...] [--out results.json]

Every ``--ckpt`` (compact checkpoint) is timed in C and in ONNX; without one a freshly initialised
head of ``--size`` is timed (latency does not depend on the weights). ``--full`` times trained
full models (Lightning checkpoints; tokens from the model's own tokenizer when it uses them);
without it an untrained graph-only model is timed. Prints a markdown table of medians;
``--skip-llm`` leaves out the 350M model.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from kgraph.data.corpus import tile_kernel_files

KERNEL = tile_kernel_files()[0].parent / "tile_gemm.cl"


def _median_s(fn, repeats: int = 7, inner: int = 1) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times)


def compact_bundle(ckpt: str | None, size: str):
    from kgraph.models.compact import CompactConfig, CompactHead, from_checkpoint

    if ckpt:
        b = from_checkpoint(ckpt)
        return b.head, b.code_table, b.devices
    torch.manual_seed(0)
    head = CompactHead(CompactConfig.for_dataset_features(code_dim=64, size=size)).eval()
    return head, {"tile_gemm": torch.randn(64)}, {"dev": torch.zeros(len(head.config.device_names))}


def time_c(head, table, devices, work: Path) -> float:
    from kgraph.models.export import to_c
    from kgraph.models.export.c_driver import bench_c, build_driver

    to_c(head, work / "c", table, devices)
    driver = build_driver(work / "c")
    launch = np.asarray(head.feature_mean[head.config.code_dim:head.config.code_dim + len(head.config.launch_names)])
    return bench_c(driver, sorted(table)[0], 0, launch, calls=200_000) * 1e-9


def time_onnx(head, work: Path, batch: int = 65536) -> tuple[float, float]:
    """(seconds per batch, predictions per second) on one intra-op thread."""
    from kgraph.models.export.onnx_graph import onnx_session, to_onnx

    sess = onnx_session(to_onnx(head, work / "m.onnx"), threads=1)
    x = np.random.default_rng(0).standard_normal((batch, head.config.in_dim)).astype(np.float32)
    s = _median_s(lambda: sess.run(None, {"features": x}), repeats=5)
    return s, batch / s


def time_full_model(ckpt: str | None = None) -> tuple[float, str, int]:
    """One prediction of the full model from the kernel's graph (+ tokens), launch features given:
    (seconds, description, parameters)."""
    import kgraph
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import KGraphModel, ModelConfig
    from torch_geometric.data import Batch

    graph = kgraph.to_pyg(kgraph.from_file(KERNEL)[0])
    batch = Batch.from_data_list([graph])
    feats = torch.zeros(1, len(feature_names()))
    tokens = None
    if ckpt:
        from kgraph.data.graph_dataset import load_tokenizer
        from kgraph.models.compact_training import load_full_model

        model = load_full_model(ckpt)
        note = Path(ckpt).stem.split("-")[0] + ", trained"
        if model.config.use_tokens:
            tok = load_tokenizer(model.config.tokens.path)
            ids = tok(KERNEL.read_text(), truncation=True, max_length=model.config.tokens.max_length)["input_ids"]
            ids = torch.tensor([ids])
            tokens = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    else:
        model = KGraphModel(ModelConfig(use_tokens=False), feature_names()).eval()
        note = "graph only, untrained"
    with torch.no_grad():
        s = _median_s(lambda: model(batch, tokens, torch.zeros(1, dtype=torch.long), feats), repeats=7)
    return s, note, sum(p.numel() for p in model.parameters())


def time_llm(tokens: int = 512) -> tuple[float, int]:
    """GPT-2-medium-sized model (random weights, no download), one forward over ``tokens`` tokens."""
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_embd=1024, n_layer=24, n_head=16, n_positions=1024, vocab_size=50257)
    model = GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, tokens))
    with torch.no_grad():
        s = _median_s(lambda: model(ids), repeats=3)
    return s, sum(p.numel() for p in model.parameters())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ckpt", nargs="*", default=[], help="compact checkpoints")
    p.add_argument("--size", default="base")
    p.add_argument("--full", nargs="*", default=[], help="trained full-model checkpoints")
    p.add_argument("--skip-llm", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for ckpt in args.ckpt or [None]:
        head, table, devices = compact_bundle(ckpt, args.size)
        size = head.config.size
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            c_s = time_c(head, table, devices, work)
            rows.append((f"compact {size}, C (kgraph_predict, one call)", c_s, 1 / c_s,
                         f"{head.num_parameters()} params"))
            batch_s, rate = time_onnx(head, work)
            rows.append((f"compact {size}, ONNX batch 65536, 1 thread", batch_s, rate, "per batch"))
    for ckpt in args.full or [None]:
        full_s, note, n = time_full_model(ckpt)
        rows.append((f"full kgraph model, one launch ({note})", full_s, 1 / full_s, f"{n} params"))
    if not args.skip_llm:
        llm_s, n = time_llm()
        rows.append((f"GPT-2-medium-size transformer, 512 tokens ({n / 1e6:.0f}M params)", llm_s, 1 / llm_s, f"{n} params"))
    print(f"machine: {platform.processor() or platform.machine()}, {platform.node()}; torch {torch.__version__}; "
          f"{time.strftime('%Y-%m-%d')}")
    print("| predictor | median time | predictions/s | note |\n|---|---|---|---|")
    for name, s, r, note in rows:
        print(f"| {name} | {s * 1e6:.3f} µs | {r:,.0f} | {note} |")
    if args.out:
        Path(args.out).write_text(json.dumps([dict(zip(("name", "seconds", "per_second", "note"), r)) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
