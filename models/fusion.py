"""Fusion of the code vectors (graph, tokens) with the launch vector into one joint vector per launch.

Three kinds, chosen by config:
- ``concat``: concatenate every part, MLP (the default).
- ``gated``: project each part to ``hidden``; a softmax gate computed from all parts weighs them.
- ``cross_attention``: the launch vector queries the code's element states (graph nodes and source
  tokens of the launch's own kernel), multi-head; the attended vector, the launch vector and the
  pooled code vectors are then concatenated and passed through the MLP.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn


@dataclass
class FusionConfig:
    """Fusion hyper-parameters.

    Args:
        kind: ``concat``, ``gated`` or ``cross_attention``.
        hidden: width of the fused vector.
        heads: attention heads of ``cross_attention``.
        dropout: dropout inside the MLP.
    """

    kind: Literal["concat", "gated", "cross_attention"] = "concat"
    hidden: int = 256
    heads: int = 4
    dropout: float = 0.1


class Fusion(nn.Module):
    """Fuse parts into one vector.

    Args:
        config: :class:`FusionConfig`.
        launch_dim: width of the launch vector.
        code_dims: width of each pooled code vector (graph, tokens), possibly empty.

    Shapes:
        - launch: Float[B, launch_dim]; code: list of Float[B, code_dims[i]]
        - code_sets (cross_attention only): list of (states Float[B, S_i, code_dims[i]],
          mask Bool[B, S_i], True = real element)
        - returns Float[B, hidden]
    """

    def __init__(self, config: FusionConfig, launch_dim: int, code_dims: list[int]):
        super().__init__()
        self.config = config
        h = config.hidden
        dims = [launch_dim, *code_dims]
        if config.kind == "gated":
            self.projections = nn.ModuleList(nn.Linear(d, h) for d in dims)
            self.gate = nn.Linear(sum(dims), len(dims))
            mlp_in = h
        elif config.kind == "cross_attention":
            if h % config.heads:
                raise ValueError(f"fusion hidden={h} must be divisible by heads={config.heads}")
            self.query = nn.Linear(launch_dim, h)
            self.keys = nn.ModuleList(nn.Linear(d, h) for d in code_dims)
            self.attention = nn.MultiheadAttention(h, config.heads, batch_first=True)
            mlp_in = h + sum(dims)
        else:
            mlp_in = sum(dims)
        self.mlp = nn.Sequential(
            nn.Linear(mlp_in, h), nn.GELU(), nn.Dropout(config.dropout), nn.Linear(h, h), nn.GELU()
        )

    @property
    def out_dim(self) -> int:
        return self.config.hidden

    def forward(self, launch: Tensor, code: list[Tensor],
                code_sets: list[tuple[Tensor, Tensor]] | None = None) -> Tensor:
        parts = [launch, *code]
        if self.config.kind == "gated":
            weights = torch.softmax(self.gate(torch.cat(parts, dim=-1)), dim=-1)  # [B, P]
            projected = torch.stack([p(x) for p, x in zip(self.projections, parts)], dim=1)  # [B, P, H]
            return self.mlp((weights.unsqueeze(-1) * projected).sum(1))  # [B, H]
        if self.config.kind == "cross_attention":
            if not code_sets:
                raise ValueError("cross_attention fusion needs the code's element states")
            keys = torch.cat([k(s) for k, (s, _) in zip(self.keys, code_sets)], dim=1)  # [B, S, H]
            mask = torch.cat([m for _, m in code_sets], dim=1)  # [B, S]
            query = self.query(launch).unsqueeze(1)  # [B, 1, H]
            attended, _ = self.attention(query, keys, keys, key_padding_mask=~mask)  # [B, 1, H]
            return self.mlp(torch.cat([attended.squeeze(1), *parts], dim=-1))  # [B, H]
        return self.mlp(torch.cat(parts, dim=-1))  # [B, H]

    def forward_gathered(self, launch: Tensor, vectors: list[Tensor], index: Tensor) -> Tensor:
        """``forward(launch, [v.index_select(0, index) for v in vectors])`` of the ``concat`` kind, with the
        first layer's code columns applied once per distinct source before the gather (launches of one kernel
        share its code vector): the same function, less work per launch.

        Shapes:
            - launch: Float[B, launch_dim]; vectors: list of Float[S, code_dims[i]]; index: Long[B] in [0, S)
            - returns Float[B, hidden]
        """
        first = self.mlp[0]
        widths = [launch.shape[-1], *(v.shape[-1] for v in vectors)]
        weights = torch.split(first.weight, widths, dim=1)  # [H, launch_dim], [H, D_i] ...
        hidden = torch.nn.functional.linear(launch, weights[0], first.bias)  # [B, H]
        for w, v in zip(weights[1:], vectors):
            hidden = hidden + torch.nn.functional.linear(v, w).index_select(0, index)  # [S, H] -> [B, H]
        return self.mlp[1:](hidden)  # [B, H]
