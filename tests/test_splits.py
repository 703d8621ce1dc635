"""Validation by whole kernels (kgraph.data.splits, ``val_unit="kernel"``) on a small launch table."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kgraph.data.splits import to_splits
from kgraph.errors import UsageError


def _table() -> pd.DataFrame:
    rows = []
    for k in range(20):
        for n in range(10):
            rows.append({"kernel_id": f"k{k}", "family": f"f{k % 5}", "sizes": f'{{"n": {n}}}', "device_id": "d",
                         "g0": 64 * (n + 1), "g1": 1, "g2": 1, "l0": 64, "l1": 1, "l2": 1})
    return pd.DataFrame(rows)


def _kernels(table, rows) -> set:
    return set(table["kernel_id"].to_numpy()[rows])


@pytest.mark.parametrize("split", ["unseen_launch", "leave_family_out", "leave_kernel_out", "random"])
def test_kernel_validation_holds_out_whole_kernels(split):
    table = _table()
    base = to_splits(table, split, 0.1, 0.2, 0)
    s = to_splits(table, split, 0.1, 0.2, 0, val_unit="kernel")
    val = _kernels(table, s["val"])
    assert len(val) == 2  # 10% of the 20 kernels (every kernel has training rows in these splits)
    assert not val & _kernels(table, s["train"]) and not val & _kernels(table, s["test"])
    assert np.array_equal(np.sort(np.concatenate(list(s.values()))), np.arange(len(table)))
    # every other kernel keeps the split's test rows; the split's own validation rows now train
    kept = ~table["kernel_id"].isin(val).to_numpy()
    assert np.array_equal(s["test"], base["test"][kept[base["test"]]])
    assert set(base["val"][kept[base["val"]]]) <= set(s["train"])
    assert _kernels(table, s["val"]) == _kernels(table, to_splits(table, split, 0.1, 0.2, 0, val_unit="kernel")["val"])


def test_whole_groups_stay_out_of_validation_and_unknown_unit_is_refused():
    table = _table()
    s = to_splits(table, "leave_family_out", 0.1, 0.2, 3, val_unit="kernel")
    test_families = set(table["family"].to_numpy()[s["test"]])
    assert not test_families & set(table["family"].to_numpy()[s["val"]])
    with pytest.raises(UsageError, match="--data.val_unit"):
        to_splits(table, "unseen_launch", 0.1, 0.2, 0, val_unit="family")
