"""Message passing over the typed kernel graph (``kgraph.to_pyg`` output) to one vector per kernel.

Node features are the five categorical columns of ``Data.x`` (node type, token id, dtype id, address
space id, loop depth), each embedded and summed. Edges carry their flow (``edge_type``) and operand
position (``edge_pos``) as embedded edge features. Every edge is also added reversed, with its own
flow ids (``edge_type + num_edge_types``), so information moves both ways as in ProGraML.

The layers are ``torch_geometric``'s. Inference (:mod:`kgraph.models.predictor`) builds the model inside
:func:`native_layers`, which makes the ``gine`` layer and the ``attention``/``mean`` pooling from
:class:`NativeGINEConv` and :class:`NativeAttentionalAggregation` instead: the same parameters under the
same state-dict names and the same tensor operations, so the same outputs, without importing
``torch_geometric`` (about 5 s of a cold ``kgraph estimate``). Training keeps PyG's (and its
parameter initialisation).
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn

_NATIVE = contextvars.ContextVar("kgraph_native_graph_layers", default=False)


@contextlib.contextmanager
def native_layers():
    """Graph encoders made inside use the PyG-free layers where they exist (``gine``; ``attention`` and
    ``mean`` pooling); the other layers still come from ``torch_geometric``."""
    token = _NATIVE.set(True)
    try:
        yield
    finally:
        _NATIVE.reset(token)


def _scatter_sum(src: Tensor, index: Tensor, size: int) -> Tensor:
    """``torch_geometric.utils.scatter(src, index, 0, size, "sum")``, the same operation."""
    return src.new_zeros((size, *src.shape[1:])).scatter_add_(0, index.view(-1, *[1] * (src.dim() - 1)).expand_as(src), src)


def _scatter_max(src: Tensor, index: Tensor, size: int) -> Tensor:
    """``torch_geometric.utils.scatter(src, index, 0, size, "max")`` on the CPU, the same operation."""
    return src.new_zeros((size, *src.shape[1:])).scatter_reduce_(
        0, index.view(-1, *[1] * (src.dim() - 1)).expand_as(src), src, reduce="amax", include_self=False)


class NativeGINEConv(nn.Module):
    """``torch_geometric.nn.GINEConv(nn, edge_dim=...)`` (``eps`` fixed at 0, sum aggregation) without
    PyG: ``nn((1 + eps) * x_i + sum_j relu(x_j + lin(e_ji)))``; parameters ``nn.*``, ``lin.*``, ``eps``."""

    def __init__(self, mlp: nn.Module, edge_dim: int, in_channels: int):
        super().__init__()
        self.nn = mlp
        self.register_buffer("eps", torch.zeros(1))
        self.lin = nn.Linear(edge_dim, in_channels)

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor) -> Tensor:
        messages = (x.index_select(0, edge_index[0]) + self.lin(edge_attr)).relu()  # [E, H]
        out = _scatter_sum(messages, edge_index[1], x.size(0))
        return self.nn(out + (1 + self.eps) * x)


class NativeAttentionalAggregation(nn.Module):
    """``torch_geometric.nn.aggr.AttentionalAggregation(gate_nn, nn)`` without PyG (``gate_nn=None``:
    ``MeanAggregation``): a per-graph softmax of the gate weighs ``nn(x)``; parameters ``gate_nn.*``,
    ``nn.*``."""

    def __init__(self, gate_nn: nn.Module | None, mlp: nn.Module | None):
        super().__init__()
        self.gate_nn, self.nn = gate_nn, mlp

    def forward(self, x: Tensor, index: Tensor, dim_size: int | None = None) -> Tensor:
        size = int(index.max()) + 1 if dim_size is None else dim_size
        if self.gate_nn is None:  # mean
            count = x.new_zeros(size).scatter_add_(0, index, x.new_ones(x.size(0))).clamp(min=1)
            return _scatter_sum(x, index, size) / count.view(-1, 1).expand(size, x.size(1))
        gate = self.gate_nn(x)
        x = self.nn(x) if self.nn is not None else x
        # torch_geometric.utils.softmax(gate, index, num_nodes=size)
        gate = (gate - _scatter_max(gate.detach(), index, size).index_select(0, index)).exp()
        gate = gate / (_scatter_sum(gate, index, size) + 1e-16).index_select(0, index)
        return _scatter_sum(gate * x, index, size)


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
        lm_dim: width of the code-LM vectors attached to the graphs (``kgraph lm embed``,
            ``--data.lm_features``); 0 (the default) reads none. When set, each node's LM vector (the mean
            state of the tokens over its byte span) is projected and added to its input embedding, and the
            kernel's pooled LM vector, projected, is concatenated to the graph vector (``out_dim`` doubles).
        lm_path: the code-LM folder those vectors come from (``kgraph lm embed --weights``); a shipped model
            directory keeps its own copy under ``code_lm/`` and computes the vectors of new kernels with it.
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
    lm_dim: int = 0
    lm_path: str = "models/code_lm/weights"


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
        - lm: Float[N, lm_dim], lm_pooled: Float[G, lm_dim] (only with ``lm_dim`` > 0)
        - returns (node_states Float[N, hidden], graph_vectors Float[G, out_dim])
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
        if config.lm_dim:
            self.lm_nodes = nn.Sequential(nn.LayerNorm(config.lm_dim), nn.Linear(config.lm_dim, h))
            self.lm_pooled = nn.Sequential(nn.LayerNorm(config.lm_dim), nn.Linear(config.lm_dim, h), nn.GELU())
        native = _NATIVE.get()
        if config.pooling == "attention":
            gate = nn.Sequential(nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1))
            if native:
                self.pool = NativeAttentionalAggregation(gate, nn.Sequential(nn.Linear(h, h), nn.GELU()))
            else:
                from torch_geometric.nn.aggr import AttentionalAggregation

                self.pool = AttentionalAggregation(gate, nn.Sequential(nn.Linear(h, h), nn.GELU()))
        elif config.pooling == "set":
            from torch_geometric.nn.aggr import SetTransformerAggregation

            self.pool = SetTransformerAggregation(h, num_seed_points=1, heads=max(1, config.heads))
        elif native:
            self.pool = NativeAttentionalAggregation(None, None)
        else:
            from torch_geometric.nn.aggr import MeanAggregation

            self.pool = MeanAggregation()

    @property
    def out_dim(self) -> int:
        return self.config.hidden * (2 if self.config.lm_dim else 1)

    def _make_conv(self) -> nn.Module:
        h, c = self.config.hidden, self.config
        if c.layer == "gine":
            mlp = nn.Sequential(nn.Linear(h, 2 * h), nn.GELU(), nn.Linear(2 * h, h))
            if _NATIVE.get():
                return NativeGINEConv(mlp, edge_dim=h, in_channels=h)
            from torch_geometric.nn import GINEConv

            return GINEConv(mlp, edge_dim=h)
        if c.layer == "gatv2":
            if h % c.heads:
                raise ValueError(f"graph hidden={h} must be divisible by heads={c.heads}")
            from torch_geometric.nn import GATv2Conv

            return GATv2Conv(h, h // c.heads, heads=c.heads, edge_dim=h, add_self_loops=False)
        from torch_geometric.nn import RGCNConv

        return RGCNConv(h, h, num_relations=2 * self.num_edge_types, num_bases=None)

    def embed_nodes(self, x: Tensor) -> Tensor:
        """Sum of one embedding per categorical column; ids are clamped into each vocabulary."""
        out = 0
        for col, emb in enumerate(self.node_embeddings):
            out = out + emb(x[:, col].clamp(0, emb.num_embeddings - 1))
        return out

    def forward(self, x: Tensor, edge_index: Tensor, edge_type: Tensor, edge_pos: Tensor,
                batch: Tensor, num_graphs: int | None = None, lm: Tensor | None = None,
                lm_pooled: Tensor | None = None) -> tuple[Tensor, Tensor]:
        # both directions: reversed edges get their own flow ids
        flows = edge_type.clamp(0, self.num_edge_types - 1)
        positions = edge_pos.clamp(0, self.num_edge_positions - 1)
        edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)  # [2, 2E]
        flows = torch.cat([flows, flows + self.num_edge_types])  # [2E]
        positions = torch.cat([positions, positions])  # [2E]
        edge_attr = self.flow_embedding(flows) + self.position_embedding(positions)  # [2E, H]

        h = self.embed_nodes(x)  # [N, H]
        if self.config.lm_dim:
            self._check_lm(lm, lm_pooled, x.size(0))
            h = h + self.lm_nodes(lm)  # [N, H]: the code LM's view of each node's text
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
        if self.config.lm_dim:
            graph_vec = torch.cat([graph_vec, self.lm_pooled(lm_pooled)], dim=-1)  # [G, 2H]
        return h, graph_vec

    def _check_lm(self, lm: Tensor | None, lm_pooled: Tensor | None, nodes: int) -> None:
        from kgraph.errors import ModelError

        if lm is None or lm_pooled is None:
            raise ModelError(f"the graph encoder reads code-LM vectors (graph.lm_dim={self.config.lm_dim}) but the "
                             "graphs carry none: pass --data.lm_features=FILE (made by `kgraph lm embed`)")
        if lm.shape != (nodes, self.config.lm_dim) or lm_pooled.shape[-1] != self.config.lm_dim:
            raise ModelError(f"code-LM vectors of width {lm.shape[-1]} for {lm.shape[0]} nodes, but the graph "
                             f"encoder expects graph.lm_dim={self.config.lm_dim} for {nodes} nodes")


def _scatter_mean(src: Tensor, index: Tensor, size: int) -> Tensor:
    out = src.new_zeros(size, src.size(1)).index_add_(0, index, src)
    count = src.new_zeros(size).index_add_(0, index, torch.ones_like(index, dtype=src.dtype))
    return out / count.clamp(min=1).unsqueeze(1)
