"""``benchmarks.unknown_count_errors``: the kernel-weighted statistics of one group of predictions."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.unknown_count_errors import summarise, weighted_quantile


def test_weighted_quantile_weighs_values():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    assert weighted_quantile(values, np.ones(4), 0.5) == 2.0
    assert weighted_quantile(values, np.array([1.0, 1.0, 1.0, 10.0]), 0.5) == 4.0


def test_summarise_weighs_every_kernel_the_same():
    """Kernel a: 3 launches predicted exactly inside their interval; kernel b: 1 launch 4x under-predicted and
    outside it. Launch-weighted coverage is 3/4; kernel-weighted, half the weight lies outside, so the 80%
    margin is b's score, ln(4 / 2) = ln 2 (its interval ends at 2x the prediction)."""
    frame = pd.DataFrame({"kernel": ["a", "a", "a", "b"], "true_ns": [10.0, 20.0, 30.0, 40.0],
                          "pred_ns": [10.0, 20.0, 30.0, 10.0], "time_lo_ns": [5.0, 10.0, 15.0, 5.0],
                          "time_hi_ns": [20.0, 40.0, 60.0, 20.0]})
    row = summarise(frame)
    assert row["launches"] == 4 and row["kernels"] == 2 and row["coverage"] == 0.75
    assert row["mape"] == pytest.approx(18.75)  # (0 + 0 + 0 + 0.75) / 4
    assert row["margin_for_80_kw"] == pytest.approx(np.log(2.0))
    assert row["ln_ratio_median_kw"] == 0.0
