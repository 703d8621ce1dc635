"""Message passing over the typed kernel graph (``kgraph.to_pyg`` output) to one vector per kernel.

Node features are the five categorical columns of ``Data.x`` (node type, token id, dtype id, address
space id, loop depth), each embedded and summed. Edges carry their flow (``edge_type``) and operand
position (``edge_pos``) as embedded edge features. Every edge is also added reversed, with its own
flow ids (``edge_type + num_edge_types``), so information moves both ways as in ProGraML.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn
from torch_geometric.nn import GATv2Conv, GINEConv, RGCNConv
from torch_geometric.nn.aggr import AttentionalAggregation, MeanAggregation, SetTransformerAggregation


@dataclass
class GraphEncoderConfig:
    """Graph encoder hyper-parameters.

    Args:
        layer: message-passing layer: ``gine`` (GINE, edge features added to messages), ``gatv2``
            (attention with edge features) or ``rgcn`` (one weight matrix per edge flow and direction;
            operand positions are then added to the node states by their incoming edges' mean).
        hidden: width of node states and of the kernel vector.
        layers: number of message-passing layers (each residual + LayerNorm).
        heads: attention heads of ``gatv2`` (``hidden`` must divide by it).
        dropout: dropout after each layer.
        pooling: ``attention`` (gated attentional pooling), ``set`` (set-transformer pooling) or
            ``mean``.
        node_vocab_sizes: embedding size of each ``x`` column; ``None`` takes them from ``kgraph.schema``.
        num_edge_types: number of edge flows; ``None`` takes it from ``kgraph.schema``.
        num_edge_positions: number of operand positions (``edge_pos`` is clipped to it);
            ``None`` takes it from ``kgraph.schema``.
    """

    layer: Literal["gine", "gatv2", "rgcn"] = "gine"
    hidden: int = 128
    layers: int = 4
    heads: int = 4
    dropout: float = 0.1
    pooling: Literal["attention", "set", "mean"] = "attention"
    node_vocab_sizes: list[int] | None = None
    num_edge_types: int | None = None
    num_edge_positions: int | None = None


def resolve_vocab(config: GraphEncoderConfig) -> tuple[list[int], int, int]:
    """Vocabulary sizes of the graph features: from the config, else from ``kgraph.schema``."""
    if config.node_vocab_sizes is not None and config.num_edge_types and config.num_edge_positions:
        return list(config.node_vocab_sizes), config.num_edge_types, config.num_edge_positions
    from kgraph.data.graph_dataset import schema_vocab_sizes

    nodes, flows, positions = schema_vocab_sizes()
    return (
        list(config.node_vocab_sizes or nodes),
        config.num_edge_types or flows,
        config.num_edge_positions or positions,
    )


class GraphEncoder(nn.Module):
    """Typed-graph GNN with attention pooling.

    Args:
        config: :class:`GraphEncoderConfig`.

    Shapes:
        - x: Long[N, C] categorical node features (C = len(node_vocab_sizes))
        - edge_index: Long[2, E]; edge_type, edge_pos: Long[E]; batch: Long[N] graph of each node
        - returns (node_states Float[N, hidden], graph_vectors Float[G, hidden])
    """

    def __init__(self, config: GraphEncoderConfig):
        super().__init__()
        self.config = config
        node_sizes, self.num_edge_types, self.num_edge_positions = resolve_vocab(config)
        self.node_vocab_sizes = node_sizes
        h = config.hidden
        self.node_embeddings = nn.ModuleList(nn.Embedding(n, h) for n in node_sizes)
        self.flow_embedding = nn.Embedding(2 * self.num_edge_types, h)
        self.position_embedding = nn.Embedding(self.num_edge_positions, h)
        self.convs = nn.ModuleList(self._make_conv() for _ in range(config.layers))
        self.norms = nn.ModuleList(nn.LayerNorm(h) for _ in range(config.layers))
        self.dropout = nn.Dropout(config.dropout)
        if config.pooling == "attention":
            gate = nn.Sequential(nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1))
            self.pool = AttentionalAggregation(gate, nn.Sequential(nn.Linear(h, h), nn.GELU()))
        elif config.pooling == "set":
            self.pool = SetTransformerAggregation(h, num_seed_points=1, heads=max(1, config.heads))
        else:
            self.pool = MeanAggregation()

    @property
    def out_dim(self) -> int:
        return self.config.hidden

    def _make_conv(self) -> nn.Module:
        h, c = self.config.hidden, self.config
        if c.layer == "gine":
            mlp = nn.Sequential(nn.Linear(h, 2 * h), nn.GELU(), nn.Linear(2 * h, h))
            return GINEConv(mlp, edge_dim=h)
        if c.layer == "gatv2":
            if h % c.heads:
                raise ValueError(f"graph hidden={h} must be divisible by heads={c.heads}")
            return GATv2Conv(h, h // c.heads, heads=c.heads, edge_dim=h, add_self_loops=False)
        return RGCNConv(h, h, num_relations=2 * self.num_edge_types, num_bases=None)

    def embed_nodes(self, x: Tensor) -> Tensor:
        """Sum of one embedding per categorical column; ids are clamped into each vocabulary."""
        out = 0
        for col, emb in enumerate(self.node_embeddings):
            out = out + emb(x[:, col].clamp(0, emb.num_embeddings - 1))
        return out

    def forward(self, x: Tensor, edge_index: Tensor, edge_type: Tensor, edge_pos: Tensor,
                batch: Tensor, num_graphs: int | None = None) -> tuple[Tensor, Tensor]:
        # both directions: reversed edges get their own flow ids
        flows = edge_type.clamp(0, self.num_edge_types - 1)
        positions = edge_pos.clamp(0, self.num_edge_positions - 1)
        edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)  # [2, 2E]
        flows = torch.cat([flows, flows + self.num_edge_types])  # [2E]
        positions = torch.cat([positions, positions])  # [2E]
        edge_attr = self.flow_embedding(flows) + self.position_embedding(positions)  # [2E, H]

        h = self.embed_nodes(x)  # [N, H]
        for conv, norm in zip(self.convs, self.norms):
            if self.config.layer == "rgcn":
                msg = conv(h, edge_index, flows)
                # RGCN has no edge features: add the mean position embedding of incoming edges
                msg = msg + _scatter_mean(edge_attr, edge_index[1], h.size(0))
            else:
                msg = conv(h, edge_index, edge_attr)
            h = norm(h + self.dropout(torch.nn.functional.gelu(msg)))  # [N, H]
        size = int(batch.max()) + 1 if num_graphs is None and batch.numel() else num_graphs
        graph_vec = self.pool(h, batch, dim_size=size)  # [G, H]
        return h, graph_vec


def _scatter_mean(src: Tensor, index: Tensor, size: int) -> Tensor:
    out = src.new_zeros(size, src.size(1)).index_add_(0, index, src)
    count = src.new_zeros(size).index_add_(0, index, torch.ones_like(index, dtype=src.dtype))
    return out / count.clamp(min=1).unsqueeze(1)
