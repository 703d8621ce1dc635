"""KernelGraph -> ``torch_geometric.data.Data`` (:func:`to_pyg`, for training) or the same tensors in a
plain dict (:func:`graph_tensors`) and a plain batch of them (:class:`GraphBatch`, for inference: no
``torch_geometric`` import, which costs about 5 s of a cold ``kgraph estimate``).

Columns of ``x`` are :data:`kgraph.schema.FEATURE_COLUMNS`; token ids come from the shipped,
versioned vocabulary (:func:`kgraph.vocab.load_vocabulary`). Built from the graph's columns
(:class:`~kgraph.graph.NodeColumns`, :class:`~kgraph.graph.EdgeList`), one tensor per column. Node
and edge order are the graph's own (deterministic construction order), so the same kernel gives
identical tensors on every run and machine.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from kgraph.graph import KernelGraph
from kgraph.schema import ADDRESS_SPACE_ID, DTYPE_ID, MAX_EDGE_POSITION, MAX_LOOP_DEPTH, VOCAB_VERSION
from kgraph.vocab import load_vocabulary


def to_pyg(graph: KernelGraph):
    """The ``torch_geometric.data.Data`` of ``graph``: :func:`graph_tensors` plus ``kernel_name`` and
    ``vocab_version``.

    Shapes:
        - x: Long[N, 5] = (node type, token id, dtype id, address space id, loop depth clipped to
          [0, MAX_LOOP_DEPTH])
        - edge_index: Long[2, E]; edge_type: Long[E] (:class:`~kgraph.schema.Flow`);
          edge_pos: Long[E] (position clipped to [0, MAX_EDGE_POSITION])
        - num_nodes: N; also ``kernel_name`` (str) and ``vocab_version`` (str)
    """
    from torch_geometric.data import Data

    return Data(**graph_tensors(graph), kernel_name=graph.name, vocab_version=VOCAB_VERSION)


def graph_tensors(graph: KernelGraph) -> dict:
    """``x``, ``edge_index``, ``edge_type``, ``edge_pos`` (tensors as :func:`to_pyg`) and ``num_nodes``
    of ``graph``, in a plain dict."""
    vocab = load_vocabulary()
    nodes = graph.columns
    num_nodes = len(nodes.type)
    columns = (nodes.type, list(map(vocab.id, nodes.token)), [DTYPE_ID.get(d, 1) for d in nodes.dtype],
               [ADDRESS_SPACE_ID.get(s, 0) for s in nodes.address_space], nodes.loop_depth)
    x = torch.tensor(columns, dtype=torch.long).reshape(5, num_nodes).t().contiguous()
    x[:, 4].clamp_(0, MAX_LOOP_DEPTH)
    edges = graph.edges
    if edges:
        edge_index = torch.tensor((edges.src, edges.dst), dtype=torch.long)
        edge_type = torch.tensor(edges.flow, dtype=torch.long)
        edge_pos = torch.tensor(edges.position, dtype=torch.long).clamp_(0, MAX_EDGE_POSITION)
    else:
        edge_index = torch.zeros((2, 0), dtype=torch.long)
        edge_type = torch.zeros(0, dtype=torch.long)
        edge_pos = torch.zeros(0, dtype=torch.long)
    return {"x": x, "edge_index": edge_index, "edge_type": edge_type, "edge_pos": edge_pos, "num_nodes": num_nodes}


@dataclass
class GraphBatch:
    """Several graphs as one disjoint graph, the fields the graph encoder reads of a
    ``torch_geometric.data.Batch`` (same values as ``Batch.from_data_list``): node and edge tensors
    concatenated, ``edge_index`` offset by the nodes before each graph, ``batch`` Long[N] the graph of
    each node, ``num_graphs``."""

    x: torch.Tensor
    edge_index: torch.Tensor
    edge_type: torch.Tensor
    edge_pos: torch.Tensor
    batch: torch.Tensor
    num_graphs: int
    lm: torch.Tensor | None = None  # Float[N, H] code-LM vector per node (models with graph.lm_dim > 0)
    lm_pooled: torch.Tensor | None = None  # Float[G, H] code-LM vector per graph

    @classmethod
    def from_tensors(cls, items: list[dict]) -> "GraphBatch":
        """The batch of :func:`graph_tensors` dicts, in order."""
        counts = [int(d["num_nodes"]) for d in items]
        offsets = [0]
        for c in counts[:-1]:
            offsets.append(offsets[-1] + c)
        edge_index = torch.cat([d["edge_index"] + o for d, o in zip(items, offsets)], dim=1) if items else \
            torch.zeros((2, 0), dtype=torch.long)
        return cls(x=torch.cat([d["x"] for d in items]) if items else torch.zeros((0, 5), dtype=torch.long),
                   edge_index=edge_index,
                   edge_type=torch.cat([d["edge_type"] for d in items]) if items else torch.zeros(0, dtype=torch.long),
                   edge_pos=torch.cat([d["edge_pos"] for d in items]) if items else torch.zeros(0, dtype=torch.long),
                   batch=torch.repeat_interleave(torch.arange(len(items)), torch.tensor(counts, dtype=torch.long)),
                   num_graphs=len(items))

    def to(self, device) -> "GraphBatch":
        return GraphBatch(self.x.to(device), self.edge_index.to(device), self.edge_type.to(device),
                          self.edge_pos.to(device), self.batch.to(device), self.num_graphs,
                          None if self.lm is None else self.lm.to(device),
                          None if self.lm_pooled is None else self.lm_pooled.to(device))
