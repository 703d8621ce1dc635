"""KernelGraph -> ``torch_geometric.data.Data``.

Columns of ``x`` are :data:`kgraph.schema.FEATURE_COLUMNS`; token ids come from the shipped,
versioned vocabulary (:func:`kgraph.vocab.load_vocabulary`). Node and edge order are the graph's
own (deterministic construction order), so the same kernel gives identical tensors on every run
and machine.
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
    token_id = vocab.id
    rows = [(n.type, token_id(n.token), DTYPE_ID.get(n.dtype, 1), ADDRESS_SPACE_ID.get(n.address_space, 0),
             min(n.loop_depth, MAX_LOOP_DEPTH)) for n in graph.nodes]
    x = torch.tensor(rows, dtype=torch.long).reshape(len(rows), 5)
    if graph.edges:
        src, dst, flow, pos = zip(*graph.edges)
        edge_index = torch.tensor([src, dst], dtype=torch.long)
        edge_type = torch.tensor(flow, dtype=torch.long)
        edge_pos = torch.tensor(pos, dtype=torch.long).clamp_(0, MAX_EDGE_POSITION)
    else:
        edge_index = torch.zeros((2, 0), dtype=torch.long)
        edge_type = torch.zeros(0, dtype=torch.long)
        edge_pos = torch.zeros(0, dtype=torch.long)
    return Data(x=x, edge_index=edge_index, edge_type=edge_type, edge_pos=edge_pos, num_nodes=len(rows),
                kernel_name=graph.name, vocab_version=VOCAB_VERSION)
