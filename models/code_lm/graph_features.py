"""``kgraph lm embed``: the code LM's vectors for every kernel of some datasets, per kernel and per graph node,
written once to a file the DataModule reads (``--data.lm_features``, :mod:`kgraph.data.lm_features`).

Each kernel is parsed once (graph only, no analysis, in a process pool); its translation unit's text
goes through the LM in windows (:func:`kgraph.models.code_lm.embed.embed`), and each graph node gets the
mean state of the tokens over its byte span. The node order is :func:`kgraph.to_pyg`'s, so the vectors
line up with the graph cache. Kernels that fail to parse are skipped (the graph cache skips them too).

    kgraph lm embed --datasets data/datasets/nvidia-h200 ... --out runs/lm_features.pt [--weights DIR]
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path

import torch

from kgraph.data.lm_features import LMFeatures
from kgraph.errors import InputError

from . import WEIGHTS


def fingerprint(weights: str | Path) -> str:
    """Hash of the LM's weights and tokenizer: two feature files of one fingerprint came from one LM."""
    h = hashlib.sha1()
    for name in ("model.safetensors", "tokenizer.json"):
        path = Path(weights) / name
        if not path.is_file():
            raise InputError(f"{weights}: no {name} (a code-LM folder holds config.json, model.safetensors and "
                             "tokenizer.json; pretrain one with `kgraph lm pretrain`)")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _parse(row: tuple[str, str, str, str]):
    """``(key, unit text, node spans)`` of one ``(key, source, lang, kernel_name)``, or ``(key, None, error)``."""
    import kgraph
    from kgraph.errors import KGraphError

    key, source, lang, name = row
    try:
        graphs = kgraph.from_source(source, lang, filename=f"{name}.{lang}", analyze=False)
    except KGraphError as exc:
        return key, None, str(exc).splitlines()[0]
    graph = next((g for g in graphs if g.name == name), None)
    if graph is None or graph.unit is None:
        return key, None, f"no kernel named {name}"
    cols = graph.columns
    return key, unit_text(graph), list(zip(cols.start, cols.end))


def unit_text(graph) -> str:
    """The text the LM reads for ``graph``: its file as written (OpenCL qualifiers included), which the
    node spans index byte for byte (the parser blanks qualifiers in place, keeping every offset); the
    parsed bytes if the two ever differ in length."""
    unit = graph.unit
    text = unit.text
    return text if len(text.encode("utf-8")) == len(unit.source) else unit.source.decode("utf-8", "replace")


def load_lm(weights: str | Path = WEIGHTS, device: str = "cpu"):
    """(model, tokenizer) of a code-LM folder, the model in eval mode on ``device``."""
    from kgraph.data.lm_corpus.tokenizer import load_tokenizer

    from .model import load

    try:
        model = load(weights).to(device)
        tok = load_tokenizer(Path(weights) / "tokenizer.json")
    except (OSError, ValueError) as exc:
        raise InputError(f"{weights}: cannot load the code LM: {exc}") from exc
    return model, tok


def embed_rows(rows: list[tuple[str, str, str, str]], weights: str | Path = WEIGHTS, device: str = "cpu",
               jobs: int | None = None, log=print) -> LMFeatures:
    """LM features of ``rows`` = ``(key, source, lang, kernel_name)``.

    Args:
        rows: one per kernel; ``key`` is the graph cache's ``"<source_id>:<kernel_name>"``.
        weights: code-LM folder.
        device: where the LM runs (``cuda`` on a GPU host).
        jobs: parser processes (default: all cores).
    """
    from kgraph.data.pool import parallel_map

    from .embed import span_means, token_states

    model, tok = load_lm(weights, device)
    t0 = time.time()
    parsed = parallel_map(_parse, rows, jobs)
    keys, pooled, nodes, offsets, failed = [], [], [], [0], 0
    t1 = time.time()
    last_text, unit, distinct = None, None, 0
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=str(device).startswith("cuda")):
        for key, text, spans in parsed:
            if text is None:
                failed += 1
                continue
            # one LM pass per translation unit (rows come sorted by source, its kernels together)
            if text != last_text:
                last_text, unit, distinct = text, token_states(model, tok, text), distinct + 1
            p, states, offs = unit  # pooled [H], states [T, H], byte offsets [T, 2]
            n = span_means(states, offs, p, spans)  # [nodes, H]
            keys.append(key)
            pooled.append(p.float().cpu())
            nodes.append(n.float().cpu().half())
            offsets.append(offsets[-1] + n.shape[0])
    if not keys:
        raise InputError(f"lm embed: none of the {len(rows)} kernel(s) could be parsed")
    log(f"lm embed: {len(keys)} kernels ({distinct} sources, {failed} failed to parse), "
        f"{offsets[-1]} nodes; parse {t1 - t0:.1f} s, LM {time.time() - t1:.1f} s on {device}")
    return LMFeatures(keys, torch.stack(pooled).half(), torch.tensor(offsets, dtype=torch.long),
                      torch.cat(nodes), fingerprint(weights))


def dataset_rows(datasets: list[str]) -> list[tuple[str, str, str, str]]:
    """``(key, source, lang, kernel_name)`` of every distinct kernel with an ok launch in ``datasets``."""
    import pandas as pd

    from kgraph.data.datamodule import read_dataset

    parts = [read_dataset(d) for d in datasets]
    launches = pd.concat([p[0] for p in parts], ignore_index=True)
    sources = pd.concat([p[1] for p in parts], ignore_index=True).drop_duplicates("source_id")
    kernels = (launches[["source_id", "kernel_name"]].drop_duplicates()
               .merge(sources[["source_id", "lang", "source"]], on="source_id")
               .sort_values(["source_id", "kernel_name"]))
    return [(f"{r.source_id}:{r.kernel_name}", r.source, r.lang, r.kernel_name) for r in kernels.itertuples(index=False)]


def add_arguments(p) -> None:
    p.add_argument("--datasets", nargs="+", required=True, help="measured dataset folders")
    p.add_argument("--out", required=True, help="feature file to write (.pt)")
    p.add_argument("--weights", default=str(WEIGHTS), help="code-LM folder (default: the shipped one)")
    p.add_argument("--device", default="auto", help="cpu, cuda or auto")
    p.add_argument("--jobs", type=int, default=None, help="parser processes (default: all cores)")


def run(args) -> int:
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    for folder in args.datasets:
        if not (Path(folder) / "device.json").exists():
            raise InputError(f"--datasets {folder}: no device.json there (not a measured dataset)")
    feats = embed_rows(dataset_rows(args.datasets), args.weights, device, args.jobs)
    path = feats.to_file(args.out)
    print(f"lm embed: wrote {path} ({path.stat().st_size / 1e6:.1f} MB, dim {feats.dim}, LM {feats.fingerprint})")
    return 0
