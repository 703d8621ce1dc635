"""``benchmarks.dataset_eval.interval_metrics_of``: the 80% interval's coverage overall and split by whether the
launch's counts are exact (``flops_source`` static), the split that BENCHMARKS.md section 51 reports."""
from __future__ import annotations

import math

import numpy as np

from benchmarks.dataset_eval import interval_metrics_of


def record(lo: float, hi: float, exact: bool) -> dict:
    return {"time_lo_ns": lo, "time_hi_ns": hi, "flops_source": "static" if exact else "model"}


def test_coverage_split_by_exactness():
    records = [record(10, 20, True), record(10, 20, True), record(10, 20, False), record(10, 20, False),
               record(10, 20, False)]
    true = np.array([15.0, 25.0, 15.0, 30.0, 40.0])  # exact: one in, one above; inexact: one in, two above
    m = interval_metrics_of(records, true)
    assert m["interval_coverage"] == 2 / 5 and m["interval_above"] == 3 / 5
    assert m["interval_coverage_exact"] == 0.5 and m["interval_above_exact"] == 0.5
    assert m["interval_coverage_inexact"] == 1 / 3 and m["interval_above_inexact"] == 2 / 3


def test_a_group_without_launches_is_nan_and_no_interval_is_nothing():
    m = interval_metrics_of([record(10, 20, True)], np.array([12.0]))
    assert m["interval_coverage_exact"] == 1.0 and math.isnan(m["interval_coverage_inexact"])
    assert interval_metrics_of([{"time_lo_ns": None, "time_hi_ns": None}], np.array([1.0])) == {}
