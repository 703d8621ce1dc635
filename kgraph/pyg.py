"""KernelGraph -> ``torch_geometric.data.Data``.

Columns of ``x`` are :data:`kgraph.schema.FEATURE_COLUMNS`; token ids come from the shipped,
versioned vocabulary (:func:`kgraph.vocab.load_vocabulary`). Built from the graph's columns
(:class:`~kgraph.graph.NodeColumns`, :class:`~kgraph.graph.EdgeList`), one tensor per column. Node
and edge order are the graph's own (deterministic construction order), so the same kernel gives
identical tensors on every run and machine.
"""
from __future__ import annotations

import torch
from torch_geometric.data import Data

from kgraph.graph import KernelGraph
from kgraph.schema import ADDRESS_SPACE_ID, DTYPE_ID, MAX_EDGE_POSITION, MAX_LOOP_DEPTH, VOCAB_VERSION
from kgraph.vocab import load_vocabulary


def to_pyg(graph: KernelGraph) -> Data:
    """Tensors of ``graph``.

    Shapes:
        - x: Long[N, 5] = (node type, token id, dtype id, address space id, loop depth clipped to
          [0, MAX_LOOP_DEPTH])
        - edge_index: Long[2, E]; edge_type: Long[E] (:class:`~kgraph.schema.Flow`);
          edge_pos: Long[E] (position clipped to [0, MAX_EDGE_POSITION])
        - num_nodes: N; also ``kernel_name`` (str) and ``vocab_version`` (str)
    """
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
    return Data(x=x, edge_index=edge_index, edge_type=edge_type, edge_pos=edge_pos, num_nodes=num_nodes,
                kernel_name=graph.name, vocab_version=VOCAB_VERSION)
