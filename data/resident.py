"""Batches built on the training device: every launch feature, target and kernel graph moved there once.

The DataLoader path (:meth:`kgraph.data.datamodule.KGraphDataModule.collate`) builds each batch on the
CPU — a PyG ``Batch.from_data_list`` over the batch's distinct kernels, then a host-to-device copy — and
kept an H200 12–55% busy. Here the whole table lives on the GPU: all kernel graphs concatenated once
(:class:`ResidentGraphs`), features and targets as device tensors, and a batch is a handful of index
operations (:class:`ResidentLoader`). Same :class:`~kgraph.data.datamodule.LaunchBatch` as the CPU path,
same distinct-kernel layout, so the model cannot tell them apart (tested).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from kgraph.data.batch import LaunchBatch
from kgraph.data.sampling import capped_count, capped_rows, epoch_generator


@dataclass
class GraphBatch:
    """U kernel graphs as one disjoint graph: the attributes of a PyG ``Batch`` the model reads.

    Shapes: x Long[N, C]; edge_index Long[2, E]; edge_type, edge_pos Long[E]; batch Long[N] (graph of each node).
    """

    x: Tensor
    edge_index: Tensor
    edge_type: Tensor
    edge_pos: Tensor
    batch: Tensor
    num_graphs: int
    lm: Tensor | None = None  # Float[N, H] code-LM vector of each node (kgraph.data.lm_features), if attached
    lm_pooled: Tensor | None = None  # Float[U, H] code-LM vector of each graph


def _ranges(starts: Tensor, counts: Tensor) -> tuple[Tensor, Tensor]:
    """Concatenated ``arange(s, s + c)`` for each (s, c), and which range each element came from."""
    owner = torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device), counts)
    offsets = torch.cumsum(counts, 0) - counts  # exclusive prefix sum
    return starts[owner] + torch.arange(owner.numel(), device=counts.device) - offsets[owner], owner


class ResidentGraphs:
    """All kernel graphs of a dataset concatenated on one device, sliced into batches by index.

    Args:
        items: PyG ``Data`` per kernel (``x, edge_index, edge_type, edge_pos``; optional ``tokens`` Long[L]).
        device: where the tensors live.
        pad_id: token id padding the token matrix.

    Shapes:
        - :meth:`graphs` takes Long[U] kernel indices and returns a :class:`GraphBatch` of those U graphs
        - :meth:`tokens` returns ``{"input_ids", "attention_mask"}`` Long[U, L] (L = longest of the U)
    """

    def __init__(self, items: list, device: torch.device | str = "cpu", pad_id: int = 0):
        nodes = torch.tensor([int(d.num_nodes) for d in items], dtype=torch.long)
        edges = torch.tensor([int(d.edge_index.size(1)) for d in items], dtype=torch.long)
        self.node_start = (torch.cumsum(nodes, 0) - nodes).to(device)
        self.edge_start = (torch.cumsum(edges, 0) - edges).to(device)
        self.nodes, self.edges = nodes.to(device), edges.to(device)
        self.x = torch.cat([d.x for d in items]).to(device)
        self.edge_index = torch.cat([d.edge_index for d in items], dim=1).to(device)  # local to each graph
        self.edge_type = torch.cat([d.edge_type for d in items]).to(device)
        self.edge_pos = torch.cat([d.edge_pos for d in items]).to(device)
        self.lm = self.lm_pooled = None
        if items and all(getattr(d, "lm", None) is not None for d in items):
            self.lm = torch.cat([d.lm for d in items]).to(device)  # [sum N, H]
            self.lm_pooled = torch.cat([d.lm_pooled for d in items]).to(device)  # [K, H]
        self.token_ids = self.token_mask = None
        if all(getattr(d, "tokens", None) is not None for d in items) and items:
            length = max(int(d.tokens.numel()) for d in items)
            ids = torch.full((len(items), length), pad_id, dtype=torch.long)
            mask = torch.zeros((len(items), length), dtype=torch.long)
            for i, d in enumerate(items):
                ids[i, :d.tokens.numel()], mask[i, :d.tokens.numel()] = d.tokens, 1
            self.token_ids, self.token_mask = ids.to(device), mask.to(device)

    def graphs(self, kernels: Tensor) -> GraphBatch:
        # 1. nodes of the chosen graphs, renumbered 0..N-1 in order
        node_idx, node_owner = _ranges(self.node_start[kernels], self.nodes[kernels])  # [N], [N]
        new_start = torch.cumsum(self.nodes[kernels], 0) - self.nodes[kernels]  # [U]
        # 2. their edges, shifted from graph-local to batch node numbers
        edge_idx, edge_owner = _ranges(self.edge_start[kernels], self.edges[kernels])  # [E], [E]
        edge_index = self.edge_index[:, edge_idx] + new_start[edge_owner]  # [2, E]
        return GraphBatch(self.x[node_idx], edge_index, self.edge_type[edge_idx], self.edge_pos[edge_idx],
                          node_owner, int(kernels.numel()),
                          None if self.lm is None else self.lm[node_idx],
                          None if self.lm_pooled is None else self.lm_pooled[kernels])

    def tokens(self, kernels: Tensor) -> dict[str, Tensor] | None:
        if self.token_ids is None:
            return None
        mask = self.token_mask[kernels]  # [U, Lmax]
        length = max(1, int(mask.sum(1).max()))
        return {"input_ids": self.token_ids[kernels, :length], "attention_mask": mask[:, :length]}


class ResidentLoader:
    """Batches of launch rows, built entirely on the device of ``features``.

    Args:
        rows: Long[R] rows of the DataModule table this loader serves (a split).
        item: Long[T] kernel index of every table row.
        tables: ``features`` Float[T, F], ``targets`` Float[T, K], ``bound``/``family`` Long[T], all on one device.
        graphs: :class:`ResidentGraphs` on the same device (``graphs``/``tokens`` read as configured).
        batch_size: launches per batch.
        shuffle: a new permutation each epoch, drawn from ``seed`` and the epoch number (reproducible).
        with_graphs: give graphs to the model (else ``graphs`` is None).
        with_tokens: give tokens to the model.
        seed: permutation seed.
        groups: Long[R] (kernel, device) group of each of ``rows`` (:func:`kgraph.data.sampling.group_codes`);
            with ``cap``, a shuffled epoch keeps at most ``cap`` rows of each (:mod:`kgraph.data.sampling`).
        cap: most launches per group and epoch; None: every row.
        rank, world_size: this process's share of the rows under data parallelism (every rank gets
            the same number of batches).
    """

    def __init__(self, rows: Tensor, item: Tensor, tables: dict[str, Tensor], graphs: ResidentGraphs,
                 batch_size: int, shuffle: bool, with_graphs: bool, with_tokens: bool, seed: int = 0,
                 rank: int = 0, world_size: int = 1, groups: Tensor | None = None, cap: int | None = None):
        self.device = tables["features"].device
        self.rows, self.item, self.tables, self.store = rows.to(self.device), item.to(self.device), tables, graphs
        self.batch_size, self.shuffle, self.seed = int(batch_size), shuffle, seed
        self.with_graphs, self.with_tokens = with_graphs, with_tokens
        self.rank, self.world_size = rank, max(1, world_size)
        self.epoch = 0
        self.groups = None if groups is None or cap is None or not shuffle else groups.to(self.device)
        self.cap = cap if self.groups is not None else None
        self.length = capped_count(self.groups, self.cap) if self.cap is not None else self.rows.numel()

    def __len__(self) -> int:
        per_rank = -(-self.length // self.world_size)
        return -(-per_rank // self.batch_size)

    def _order(self) -> Tensor:
        rows = self.rows
        if self.shuffle:
            rows = capped_rows(rows, self.groups, self.cap, epoch_generator(self.seed, self.epoch))  # a plain permutation without a cap
        self.epoch += 1
        if self.world_size > 1:  # pad by wrapping so every rank has the same count
            per_rank = -(-rows.numel() // self.world_size)
            rows = torch.cat([rows, rows[:per_rank * self.world_size - rows.numel()]])
            rows = rows[self.rank::self.world_size]
        return rows

    def batch(self, rows: Tensor):
        """The :class:`~kgraph.data.datamodule.LaunchBatch` of these table rows (Long[B])."""
        kernels, source_index = torch.unique(self.item[rows], return_inverse=True)  # [U], [B]
        t = self.tables
        return LaunchBatch(self.store.graphs(kernels) if self.with_graphs else None,
                           self.store.tokens(kernels) if self.with_tokens else None,
                           source_index, t["features"][rows], t["targets"][rows], t["bound"][rows],
                           t["family"][rows], rows)

    def __iter__(self):
        order = self._order()
        for start in range(0, order.numel(), self.batch_size):
            yield self.batch(order[start:start + self.batch_size])
