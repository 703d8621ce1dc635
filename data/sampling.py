"""Training epochs that give every kernel a voice, not every launch: at most ``cap`` launches of each
(kernel, device) group per epoch, a new random draw each epoch.

The measured tables are lopsided: a hand-written family kernel on the H200 has ~245 launches, a generated
kernel ~22, so a launch-weighted loss is mostly the families' large-launch-count kernels (gemm, conv,
stencils). A kernel nobody here wrote is one more kernel, whatever its launch count. With a cap, each epoch
draws ``min(n_g, cap)`` of group ``g``'s ``n_g`` training launches (uniformly, without replacement, fresh
each epoch, so over the epochs every launch is still seen); the epoch's length is fixed, so a step-based
schedule (cosine) knows its total. Used by both loaders of :class:`kgraph.data.datamodule.KGraphDataModule`
(the CPU ``DataLoader`` through :class:`CappedSampler`, the resident one through :func:`capped_rows`).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import torch
from torch import Tensor
from torch.utils.data import Sampler


def group_codes(kernel_index: np.ndarray, device_ids) -> np.ndarray:
    """One integer per launch row: its (kernel, device) group, numbered in sorted (kernel, device) order.

    Args:
        kernel_index: Long[N] each row's kernel (the DataModule's ``item``: its graph's index).
        device_ids: Shape[N] each row's device id.

    Shapes: returns Long[N].
    """
    device = pd.factorize(np.asarray(device_ids), sort=True)[0]
    pairs = np.asarray(kernel_index, dtype=np.int64) * (int(device.max(initial=0)) + 1) + device
    return np.unique(pairs, return_inverse=True)[1].astype(np.int64).reshape(-1)


def epoch_generator(seed: int, epoch: int) -> torch.Generator:
    """The CPU generator of epoch ``epoch``'s shuffle, the same for both loaders and every device."""
    return torch.Generator().manual_seed(seed * 100_003 + epoch)


def capped_count(groups: Tensor, cap: int | None) -> int:
    """How many rows :func:`capped_rows` keeps: ``sum_g min(n_g, cap)`` (all rows without a cap)."""
    if cap is None:
        return int(groups.numel())
    _, counts = torch.unique(groups, return_counts=True)
    return int(counts.clamp(max=int(cap)).sum())


def capped_rows(rows: Tensor, groups: Tensor | None, cap: int | None, generator: torch.Generator) -> Tensor:
    """A random order of ``rows`` keeping at most ``cap`` rows of each group.

    Args:
        rows: Long[R] the rows to draw from.
        groups: Long[R] group of each of them (same device); unused without a cap.
        cap: most rows kept per group; None keeps every row (a plain permutation).
        generator: CPU generator of the draw (the same draw on every device).

    Shapes: returns Long[capped_count(groups, cap)], in random order.
    """
    perm = torch.randperm(rows.numel(), generator=generator).to(rows.device)  # [R]
    if cap is None:
        return rows[perm]
    g = groups[perm]  # [R] groups in the drawn order
    order = torch.sort(g, stable=True).indices  # [R] grouped, drawn order kept within a group
    sorted_g = g[order]
    starts = torch.ones_like(sorted_g, dtype=torch.bool)
    starts[1:] = sorted_g[1:] != sorted_g[:-1]
    position = torch.arange(sorted_g.numel(), device=rows.device)
    first = torch.cummax(torch.where(starts, position, torch.zeros_like(position)), 0).values  # [R]
    rank = torch.empty_like(position)
    rank[order] = position - first  # [R] place of each drawn row within its group
    return rows[perm[rank < int(cap)]]


class CappedSampler(Sampler[int]):
    """Indices into a split's rows for a ``DataLoader``: :func:`capped_rows`, a new draw each epoch.

    Args:
        groups: Long[R] group of each of the split's rows.
        cap: most rows per group and epoch (None: all, shuffled).
        seed: the draws' seed (:func:`epoch_generator`).
    """

    def __init__(self, groups: Tensor, cap: int | None, seed: int = 0):
        self.groups, self.cap, self.seed = groups, cap, seed
        self.length = capped_count(groups, cap)
        self.epoch = 0

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[int]:
        g = epoch_generator(self.seed, self.epoch)
        self.epoch += 1
        return iter(capped_rows(torch.arange(self.groups.numel()), self.groups, self.cap, g).tolist())
