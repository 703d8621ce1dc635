"""The batch every training, evaluation and prediction step receives, on the CPU path and the resident path."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class LaunchBatch:
    """A batch of B launches over U distinct kernels.

    Shapes: graphs: PyG Batch (or :class:`kgraph.data.resident.GraphBatch`) of U graphs, or None; tokens:
    {"input_ids", "attention_mask"} Long[U, L] (or None); source_index, bound, family, row: Long[B];
    features: Float[B, F]; targets: Float[B, T].
    """

    graphs: object | None
    tokens: dict[str, torch.Tensor] | None
    source_index: torch.Tensor
    features: torch.Tensor
    targets: torch.Tensor
    bound: torch.Tensor
    family: torch.Tensor
    row: torch.Tensor

    def __len__(self) -> int:
        return int(self.source_index.numel())
