"""benchmarks.full_interval_margin: scores of the full model's predictions inside the interval head's
spreads, and the cross-fitted coverage of the margin they give (synthetic launches, no datasets)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.full_interval_margin import coverage_rows, halves, scored


def test_scores_are_the_distance_outside_the_carried_interval():
    pred = pd.DataFrame({"true_log_time": [10.0, 10.0, 10.0], "pred_log_time": [10.0, 9.0, 11.5]})
    ends = np.array([[-0.5, 0.5], [-0.5, 0.5], [-0.5, 0.5]])
    assert np.allclose(scored(pred, ends), [-0.5, 0.5, 1.0])  # inside; 0.5 above hi; 1.0 below lo


def test_cross_fitted_coverage_is_near_the_level_and_a_small_margin_under_covers():
    rng = np.random.default_rng(0)
    kernels = np.repeat(np.arange(200), 20)                      # 200 unseen kernels, 20 launches each
    offset = rng.normal(0, 1.0, 200)[kernels]                    # each kernel's own miss
    pred = pd.DataFrame({"kernel_id": kernels.astype(str), "device_id": np.where(kernels % 2, "a", "b"),
                         "true_log_time": 10 + offset + rng.normal(0, 0.1, len(kernels)),
                         "pred_log_time": np.full(len(kernels), 10.0)})
    s = scored(pred, np.tile([-0.2, 0.2], (len(pred), 1)))
    rows = {r["device"]: r for r in coverage_rows("leave_kernel_out", pred, s, shipped=0.0)}
    assert set(rows) == {"all", "a", "b"} and rows["all"]["launches"] == 4000 and rows["all"]["groups"] == 200
    assert 0.72 <= rows["all"]["coverage_cross_fitted"] <= 0.88
    assert rows["all"]["coverage_shipped_margin"] < 0.3           # the spreads alone: +-0.2 against sd 1
    assert rows["all"]["margin_whole"] > 1.0                      # ~ the 80% quantile of |N(0, 1)| - 0.2


def test_halves_split_whole_groups():
    groups = np.repeat(list("abcdef"), 3)
    h = halves(groups)
    assert h.sum() == 9 and all(len(set(h[groups == g])) == 1 for g in "abcdef")
