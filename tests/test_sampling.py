"""Per-kernel caps on an epoch's launches (kgraph.data.sampling), on both loaders of the DataModule."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch

from kgraph.data.sampling import CappedSampler, capped_count, capped_rows, group_codes
from kgraph.errors import UsageError
from tests.test_datamodule import datasets, make  # noqa: F401 - the module fixture

GROUPS = torch.tensor([0] * 10 + [1] * 2 + [2] * 5 + [3])  # 18 rows in 4 groups of 10, 2, 5, 1


def draw(cap, seed=0, rows=None):
    rows = torch.arange(100, 100 + GROUPS.numel()) if rows is None else rows
    return capped_rows(rows, GROUPS, cap, torch.Generator().manual_seed(seed))


def test_each_group_keeps_min_of_its_size_and_the_cap():
    out = draw(3)
    per_group = Counter(GROUPS[out - 100].tolist())
    assert per_group == {0: 3, 1: 2, 2: 3, 3: 1}
    assert out.numel() == capped_count(GROUPS, 3) == 9
    assert len(set(out.tolist())) == out.numel()  # without replacement


def test_without_a_cap_it_is_a_permutation():
    out = draw(None)
    assert sorted(out.tolist()) == list(range(100, 118)) and capped_count(GROUPS, None) == 18
    assert not torch.equal(out, torch.arange(100, 118))


def test_draws_are_seeded_and_fresh_each_seed_and_cover_every_row_over_epochs():
    assert torch.equal(draw(2, seed=5), draw(2, seed=5))
    seen = set()
    for seed in range(30):
        seen |= set(draw(2, seed=seed).tolist())
    assert seen == set(range(100, 118))  # a big group's rows all come up over the epochs
    assert len({tuple(draw(2, seed=s).tolist()) for s in range(5)}) == 5


def test_group_codes_are_kernel_and_device():
    kernels, devices = np.array([0, 0, 0, 1]), ["x", "y", "x", "x"]  # kernel a, a, a, b
    assert group_codes(kernels, devices).tolist() == [0, 1, 0, 2]


def test_sampler_draws_anew_each_epoch_with_a_fixed_length():
    sampler = CappedSampler(GROUPS, 3, seed=1)
    first, second = list(sampler), list(sampler)
    assert len(first) == len(second) == len(sampler) == 9
    assert first != second
    assert Counter(GROUPS[first].tolist())[0] == 3


@pytest.mark.parametrize("resident", [False, True])
def test_datamodule_caps_training_epochs_only(datasets, tmp_path, resident):  # noqa: F811
    dm = make(datasets, tmp_path, resident=resident, kernel_cap=2)
    train = dm._loader("train", shuffle=True)
    rows = torch.cat([b.row for b in train])
    groups = Counter(dm.group[rows].tolist())
    everything = Counter(dm.group[torch.from_numpy(dm.splits["train"])].tolist())
    assert groups == {g: min(n, 2) for g, n in everything.items()}
    assert max(everything.values()) > 2  # the cap bites on this data
    assert len(train) == -(-rows.numel() // dm.batch_size)
    val = torch.cat([b.row for b in dm._loader("val", shuffle=False)])
    assert sorted(val.tolist()) == sorted(dm.splits["val"].tolist())  # never capped


def test_a_cap_below_one_is_refused(datasets, tmp_path):  # noqa: F811
    with pytest.raises(UsageError, match="--data.kernel_cap"):
        make(datasets, tmp_path, kernel_cap=0)
