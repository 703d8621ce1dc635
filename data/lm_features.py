"""Code-LM features of kernel graphs, as a file the data layer reads: per kernel a pooled vector and one
vector per graph node (issue 11, docs/LM.md "Use in kgraph").

The vectors are computed once per kernel by the code LM (``kgraph lm embed``,
:mod:`kgraph.models.code_lm.graph_features`, the models layer) and stored here as plain tensors, so the
DataModule attaches them to its cached graphs without importing a model. Node order is the graph's own
(:func:`kgraph.to_pyg`), so ``nodes[offsets[k]:offsets[k + 1]]`` lines up with ``Data.x`` of kernel k.

File layout (``torch.save`` of tensors and strings only; read with ``weights_only=True``)::

    {"version": 1, "fingerprint": str (the LM's weights + tokenizer), "dim": H,
     "keys": [str] ("<source_id>:<kernel_name>", K of them), "pooled": Half[K, H],
     "offsets": Long[K + 1], "nodes": Half[N, H]}
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from kgraph.errors import InputError

VERSION = 1


@dataclass
class LMFeatures:
    """LM vectors of K kernels.

    Args:
        keys: ``"<source_id>:<kernel_name>"`` of each kernel (the graph cache's key).
        pooled: Half[K, H], one vector per kernel (mean of its source's token states).
        offsets: Long[K + 1], kernel k's nodes are rows ``offsets[k]:offsets[k + 1]`` of ``nodes``.
        nodes: Half[N, H], one vector per graph node (mean of the states of the tokens over its byte span).
        fingerprint: identity of the LM that made them (weights and tokenizer hash).
    """

    keys: list[str]
    pooled: torch.Tensor
    offsets: torch.Tensor
    nodes: torch.Tensor
    fingerprint: str

    @property
    def dim(self) -> int:
        return int(self.pooled.shape[1])

    def index(self) -> dict[str, int]:
        return {k: i for i, k in enumerate(self.keys)}

    def of(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(pooled Float[H], nodes Float[n_i, H]) of kernel ``i``."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.pooled[i].float(), self.nodes[lo:hi].float()

    def to_file(self, path: str | Path) -> Path:
        """Write atomically (a temporary file renamed), so parallel writers never leave half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{id(self)}.tmp")
        torch.save({"version": VERSION, "fingerprint": self.fingerprint, "dim": self.dim, "keys": list(self.keys),
                    "pooled": self.pooled.half(), "offsets": self.offsets.long(), "nodes": self.nodes.half()}, tmp)
        tmp.replace(path)
        return path

    @classmethod
    def from_file(cls, path: str | Path) -> "LMFeatures":
        path = Path(path)
        if not path.is_file():
            raise InputError(f"{path}: no LM feature file (make it with `kgraph lm embed --out {path} ...`)")
        try:
            data = torch.load(path, map_location="cpu", weights_only=True)
            feats = cls(list(data["keys"]), data["pooled"], data["offsets"], data["nodes"], str(data["fingerprint"]))
        except Exception as exc:  # noqa: BLE001 - a damaged or foreign file is an input error, never a traceback
            raise InputError(f"{path}: not an LM feature file of kgraph ({type(exc).__name__}: {exc})") from exc
        if int(data.get("version", 0)) != VERSION:
            raise InputError(f"{path}: LM feature file version {data.get('version')}, this kgraph reads {VERSION}")
        if feats.offsets.numel() != len(feats.keys) + 1 or int(feats.offsets[-1]) != feats.nodes.shape[0]:
            raise InputError(f"{path}: LM feature file is inconsistent (offsets do not match the node rows)")
        return feats


def attach(items: list, features: LMFeatures, source: str = "") -> None:
    """Set ``lm`` Float[n, H] (per node) and ``lm_pooled`` Float[1, H] on each graph ``Data`` of ``items``.

    Raises :class:`InputError` when a kernel has no vectors or its node count differs (the file was made
    from other graphs: another vocabulary or front-end version)."""
    index = features.index()
    for d in items:
        i = index.get(d.key)
        if i is None:
            raise InputError(f"{source}: kernel {d.key} has no LM features; rebuild them with `kgraph lm embed` "
                             "over the same datasets")
        pooled, nodes = features.of(i)
        if nodes.shape[0] != int(d.num_nodes):
            raise InputError(f"{source}: kernel {d.key} has {int(d.num_nodes)} graph nodes but {nodes.shape[0]} "
                             "LM node vectors (made from another graph version): rebuild with `kgraph lm embed`")
        d.lm, d.lm_pooled = nodes, pooled[None, :]
