"""Kernel graphs and source tokens, built once per distinct (source, kernel) and cached on disk.

PyG ``InMemoryDataset`` style: :meth:`KernelGraphs.process` parses every kernel with
``kgraph.from_source`` -> ``kgraph.to_pyg`` and tokenises its source with the token encoder's
tokenizer (when one is configured), then saves one collated file. ``__getitem__`` only slices.
The cache file name hashes the kernels' identities, the graph vocabulary version and the tokenizer
settings, so a stale cache is never reused.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pandas as pd
import torch
from torch_geometric.data import Data, InMemoryDataset

log = logging.getLogger(__name__)


def schema_vocab_sizes() -> tuple[list[int], int, int]:
    """(embedding size of each ``x`` column, number of edge flows, number of edge positions)."""
    from kgraph import schema, vocab

    node_sizes = [
        len(schema.NodeType),
        len(vocab.load_vocabulary()),  # known tokens + unknown buckets
        len(schema.DTYPES),
        len(schema.ADDRESS_SPACES),
        schema.MAX_LOOP_DEPTH + 1,
    ]
    return node_sizes, len(schema.Flow), schema.MAX_EDGE_POSITION + 1


def load_tokenizer(path: str):
    """The Hugging Face tokenizer in a local model directory (never downloads)."""
    from transformers import AutoTokenizer

    from kgraph.resources import resolve_model_dir

    return AutoTokenizer.from_pretrained(str(resolve_model_dir(path)), local_files_only=True)


class KernelGraphs(InMemoryDataset):
    """One ``Data`` per kernel: graph tensors (``x, edge_index, edge_type, edge_pos``), ``tokens``
    Long[L] (when a tokenizer is set) and the string ``key`` = ``"<source_id>:<kernel_name>"``.

    Args:
        root: cache directory (``processed/`` goes under it).
        kernels: rows with ``source_id, kernel_name, lang, source`` (duplicates are dropped).
        tokenizer_path: local HF model directory whose tokenizer tokenises sources, or None.
        max_length: tokens kept per source.

    Kernels that fail to parse are left out and listed in ``failed`` (key -> message).
    """

    def __init__(self, root: str | Path, kernels: pd.DataFrame, tokenizer_path: str | None = None,
                 max_length: int = 512):
        self.kernels = (kernels[["source_id", "kernel_name", "lang", "source"]]
                        .drop_duplicates(["source_id", "kernel_name"])
                        .sort_values(["source_id", "kernel_name"]).reset_index(drop=True))
        self.tokenizer_path, self.max_length = tokenizer_path, max_length
        self.failed: dict[str, str] = {}
        super().__init__(str(root), log=False)
        try:
            self._load_processed()
        except Exception:  # noqa: BLE001 - a damaged or crafted cache is rebuilt, never unpickled
            for path in self.processed_paths:
                Path(path).unlink(missing_ok=True)
            self.process()
            self._load_processed()
        self.items = [self.get(i) for i in range(len(self))]  # sliced once, kept in memory
        self.index_of = {d.key: i for i, d in enumerate(self.items)}

    def _load_processed(self) -> None:
        """``InMemoryDataset.load`` without PyG's fallback to ``weights_only=False``: the processed files
        load as tensors and plain data only, so a crafted cache file cannot run code."""
        with open(self.processed_paths[0], "rb") as f:
            out = torch.load(f, map_location="cpu", weights_only=True)
        data, self.slices = out[0], out[1]
        data_cls = out[2] if len(out) == 3 else Data
        self.data = data_cls.from_dict(data) if isinstance(data, dict) else data
        self.failed = torch.load(self.processed_paths[1], map_location="cpu", weights_only=True)

    @property
    def cache_key(self) -> str:
        from kgraph.schema import VOCAB_VERSION

        h = hashlib.sha1(VOCAB_VERSION.encode())
        h.update(f"|{self.tokenizer_path}|{self.max_length}|".encode())
        if self.tokenizer_path:
            from kgraph.resources import resolve_model_dir

            for name in sorted(p.name for p in resolve_model_dir(self.tokenizer_path).glob("*token*")):
                h.update(name.encode())
        for sid, name in zip(self.kernels.source_id, self.kernels.kernel_name):
            h.update(f"{sid}:{name};".encode())
        return h.hexdigest()[:16]

    @property
    def raw_file_names(self) -> list[str]:
        return []

    @property
    def processed_file_names(self) -> list[str]:
        return [f"kernels-{self.cache_key}.pt", f"failed-{self.cache_key}.pt"]

    def download(self) -> None:  # sources come from the dataframe, nothing to download
        return None

    def process(self) -> None:
        from kgraph.errors import InputError

        tokenizer = load_tokenizer(self.tokenizer_path) if self.tokenizer_path else None
        rows = [(f"{r.source_id}:{r.kernel_name}", r.source, r.lang, r.kernel_name)
                for r in self.kernels.itertuples(index=False)]
        items: list[Data] = []
        failed: dict[str, str] = {}
        for (key, source, _, _), (data, error) in zip(rows, _graphs_of(rows)):
            if data is None:
                failed[key] = error
                continue
            if tokenizer is not None:
                ids = tokenizer(source, truncation=True, max_length=self.max_length)["input_ids"]
                data.tokens = torch.tensor(ids, dtype=torch.long)
            items.append(data)
        if failed:
            log.warning("%d kernel(s) failed to parse and are left out: %s", len(failed),
                        "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:5]))
        if not items:
            raise InputError(f"none of the {len(self.kernels)} kernel(s) could be turned into a graph; first: "
                             + "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:3]))
        self.save(items, self.processed_paths[0])
        torch.save(failed, self.processed_paths[1])


def _graph_of(row: tuple[str, str, str, str]) -> tuple[dict | None, str | None]:
    """(the graph's arrays, None) of one ``(key, source, lang, kernel_name)``, or (None, why it failed).

    The arrays are numpy, not tensors: a pool worker returns them through its pipe, whereas torch sends a
    tensor through shared memory, which a container's small ``/dev/shm`` cannot hold for thousands of graphs
    (on the GPU host every pool died of it and the cache was built in one process).
    """
    import kgraph
    from kgraph.errors import KGraphError

    key, source, lang, name = row
    try:
        graphs = kgraph.from_source(source, lang, filename=f"{name}.{lang}", analyze=False)  # the graph needs no analysis
    except KGraphError as exc:
        return None, str(exc).splitlines()[0]
    graph = next((g for g in graphs if g.name == name), None)
    if graph is None:
        return None, f"no kernel named {name}"
    data = kgraph.to_pyg(graph)
    return {k: getattr(data, k).numpy() for k in _GRAPH_ARRAYS} | {"num_nodes": data.num_nodes}, None


#: the tensors of a kernel graph that the cache keeps
_GRAPH_ARRAYS = ("x", "edge_index", "edge_type", "edge_pos")


def _graphs_of(rows: list[tuple[str, str, str, str]], jobs: int | None = None,
               min_items: int | None = None) -> list[tuple[Data | None, str | None]]:
    """(``Data``, None) or (None, why) of every row, in order, built on a process pool when there are many
    (:func:`kgraph.data.pool.parallel_map` of :func:`_graph_of`)."""
    from kgraph.data.pool import parallel_map

    out = []
    for (key, *_), (arrays, error) in zip(rows, parallel_map(_graph_of, rows, jobs, min_items)):
        if arrays is None:
            out.append((None, error))
            continue
        tensors = {k: torch.from_numpy(arrays[k]) for k in _GRAPH_ARRAYS}
        out.append((Data(**tensors, num_nodes=arrays["num_nodes"], key=key), None))
    return out
