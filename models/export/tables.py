"""The kernel and device tables of a C export: the compact head's own, plus a user's kernels and devices.

A user's kernel gets its code embedding from the **encoder the head was trained on** (the full model whose
``encode_code`` made the head's code table; for the shipped head, ``models/default_compact/encoder/``).
That pairing is checked, not assumed: :func:`check_encoder` re-encodes kernels of the head's table from
their stored sources and refuses an encoder that does not reproduce their embeddings (an embedding from
another encoder would give confident nonsense). Devices come from any ``device.json`` descriptor,
measured or made by ``kgraph device from-spec``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from kgraph.errors import ModelError, SourceError, UsageError
from kgraph.models.shipped import COMPACT_DIR

#: The full model whose ``encode_code`` made the shipped compact head's code table.
ENCODER_DIR = COMPACT_DIR / "encoder"
#: Largest |difference| allowed between a stored embedding and the encoder's re-computation of it.
ENCODER_TOLERANCE = 1e-4
#: How many kernels of the head's table :func:`check_encoder` re-encodes.
ENCODER_CHECKS = 3


@dataclass
class UserKernel:
    """A kernel of a user's source file, ready for the export's tables.

    Attributes:
        name: the kernel's function name (its key in the C table).
        where: ``file:line:col`` of its definition.
        source, lang: the whole file's text and language.
        graph: its ``KernelGraph``.
        embedding: its code embedding ``[code_dim]`` (None until :func:`embed`).
    """

    name: str
    where: str
    source: str
    lang: str
    graph: object
    embedding: torch.Tensor | None = None


def load_encoder(directory: str | Path = ENCODER_DIR):
    """The encoder (a :class:`kgraph.models.predictor.Predictor` directory) used for new kernels."""
    from kgraph.models.predictor import Predictor

    encoder = Predictor.from_directory(directory)
    if not encoder.model.config.use_graph and not encoder.model.config.use_tokens:
        raise ModelError(f"{directory}: this model has no code encoder (static features only)")
    return encoder


def read_kernels(paths: list[str]) -> list[UserKernel]:
    """Parse the user's files and keep every kernel, each statically analysed.

    Raises:
        InputError: a missing, unreadable or binary file. UsageError: an unknown extension, or one
        kernel name defined in two files. SourceError: a syntax error, a file without kernels, or a
        kernel the static analysis cannot handle (``file:line:col`` of the kernel).
    """
    from kgraph.graphs import analysis_of, from_unit
    from kgraph.parsers import parse_file
    from kgraph.parsers.errors import Diagnostic

    kernels: dict[str, UserKernel] = {}
    for path in map(str, paths):
        unit = parse_file(path)
        unit.raise_on_errors()
        if not unit.kernels:
            raise SourceError([Diagnostic(path, 1, 1, "error", f"no kernel in {path}")])
        for graph in from_unit(unit, analyze=False):
            fn = graph.function
            where = f"{path}:{fn.line}:{fn.col}"
            if graph.name in kernels:
                raise UsageError(f"kernel {graph.name} is defined twice: {kernels[graph.name].where} and {where}")
            if analysis_of(graph) is None:
                raise SourceError([Diagnostic(path, fn.line, fn.col, "error",
                                              f"kernel {graph.name} cannot be analysed: {graph.analysis_error}")])
            kernels[graph.name] = UserKernel(graph.name, where, unit.text, unit.lang, graph)
    return list(kernels.values())


@torch.no_grad()
def encode_graphs(encoder, graphs: list, sources: list[str]) -> torch.Tensor:
    """``encode_code`` of kernel graphs (with their sources, for token encoders): ``[N, code_dim]``."""
    from torch_geometric.data import Batch, Data

    from kgraph.graphs import to_pyg

    model = encoder.model
    batch = tokens = None
    if model.config.use_graph:
        items = []
        for graph in graphs:
            d = to_pyg(graph)
            items.append(Data(x=d.x, edge_index=d.edge_index, edge_type=d.edge_type, edge_pos=d.edge_pos,
                              num_nodes=d.num_nodes))
        batch = Batch.from_data_list(items)
    if encoder.tokenizer is not None:
        enc = encoder.tokenizer(sources, truncation=True, padding=True, max_length=model.config.tokens.max_length,
                                return_tensors="pt")
        tokens = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    return model.encode_code(batch, tokens).float()


def embed(kernels: list[UserKernel], encoder, code_dim: int) -> None:
    """Fill each kernel's ``embedding`` with the encoder's ``encode_code``; checks its width."""
    if not kernels:
        return
    emb = encode_graphs(encoder, [k.graph for k in kernels], [k.source for k in kernels])
    if emb.shape[1] != code_dim:
        raise ModelError(f"the encoder gives {emb.shape[1]}-wide code embeddings; the head takes {code_dim}")
    for kernel, row in zip(kernels, emb):
        kernel.embedding = row.clone()


def check_encoder(bundle, encoder, encoder_dir, checks: int = ENCODER_CHECKS) -> float:
    """Re-encode up to ``checks`` kernels of the head's table from their stored sources; returns the
    largest |difference| to the stored embeddings.

    Raises:
        ModelError: the encoder does not reproduce the table (another model made it), or the head
            stores no source to check against.
    """
    from kgraph.graphs import from_source

    names = sorted(n for n, src in bundle.sources.items() if n in bundle.code_table and len(src) >= 2)[:checks]
    if not names:
        raise ModelError("the checkpoint stores no kernel source, so the encoder cannot be checked against "
                         "its code table; re-make it with kgraph.models.compact.to_checkpoint(..., sources=...)")
    graphs, texts = [], []
    for name in names:
        text, lang, *fn = bundle.sources[name]
        function = fn[0] if fn else name
        graph = next((g for g in from_source(text, lang, filename=name, analyze=False) if g.name == function), None)
        if graph is None:
            raise ModelError(f"the checkpoint's source of {name} defines no kernel {function}")
        graphs.append(graph)
        texts.append(text)
    emb = encode_graphs(encoder, graphs, texts)
    if emb.shape[1] != bundle.head.config.code_dim:
        raise ModelError(f"{encoder_dir} gives {emb.shape[1]}-wide code embeddings; the head takes "
                         f"{bundle.head.config.code_dim}: not the encoder this head was trained on (--encoder)")
    diff = float((emb - torch.stack([bundle.code_table[n].float() for n in names])).abs().max())
    if not diff <= ENCODER_TOLERANCE:
        raise ModelError(f"{encoder_dir} is not the encoder this head was trained on: it re-encodes "
                         f"{', '.join(names)} {diff:.3g} away from the head's code table (allowed "
                         f"{ENCODER_TOLERANCE:g}); give the full model the head was distilled from with --encoder")
    return diff


def device_vector(descriptor: dict, device_names: list[str]) -> torch.Tensor:
    """A ``device.json`` descriptor as the head's raw device vector (names ``hw_<feature>``, in order)."""
    from kgraph.data.harness.descriptor import DEVICE_FEATURES, to_feature_vector

    values = dict(zip((f"hw_{n}" for n in DEVICE_FEATURES), to_feature_vector(descriptor)))
    missing = [n for n in device_names if n not in values]
    if missing:
        raise ModelError(f"the head reads device feature(s) {missing[:3]} that device descriptors do not give")
    return torch.tensor([values[n] for n in device_names], dtype=torch.float32)


def read_devices(paths: list[str], device_names: list[str]) -> dict[str, torch.Tensor]:
    """device_id → raw device vector for each ``device.json`` (file or dataset folder) in ``paths``.

    Raises:
        InputError: a missing or invalid descriptor (the message names the field). UsageError: one
        device id given twice.
    """
    from kgraph.data.harness.descriptor import load_descriptor

    out: dict[str, torch.Tensor] = {}
    origin: dict[str, str] = {}
    for path in paths:
        descriptor = load_descriptor(path)
        device_id = str(descriptor["device_id"])
        if device_id in out:
            raise UsageError(f"device {device_id} is given twice ({origin[device_id]} and {path})")
        out[device_id], origin[device_id] = device_vector(descriptor, device_names), str(path)
    return out
