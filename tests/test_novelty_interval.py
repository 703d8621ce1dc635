"""benchmarks.novelty_interval: per-novelty-bin conformal margins on synthetic launches whose error grows with
novelty (bins cover both ends near the level; one pooled margin over-covers the near and under-covers the far)."""
from __future__ import annotations

import numpy as np

from benchmarks.novelty_interval import binned_coverage, code_columns


def test_code_columns_are_per_work_item_code_features():
    names = ["hw_is_gpu", "launch_log2_g0", "static_known", "static_flops_fp32", "static_flops_fp32_total",
             "static_log_intensity", "traffic_global_coalesced_bytes", "traffic_global_coalesced_bytes_total"]
    assert [names[i] for i in code_columns(names)] == ["static_flops_fp32", "static_log_intensity",
                                                       "traffic_global_coalesced_bytes"]


def test_bins_calibrate_near_and_far_kernels_where_one_margin_cannot():
    rng = np.random.default_rng(0)
    kernels = np.repeat(np.arange(400), 10)
    far = kernels >= 200                                           # half the kernels are far from training
    nov = np.where(far, 2.0, 0.2) + rng.uniform(0, 0.1, len(kernels))
    s = np.abs(rng.normal(0, 1.0, 400))[kernels] * np.where(far, 1.0, 0.1)  # each kernel's miss, 10x larger far
    groups = kernels.astype(str)
    covered, margins = binned_coverage(s, nov, groups, np.array([1.0]))
    one, _ = binned_coverage(s, nov, groups, np.array([]))
    assert 0.7 <= covered[~far].mean() <= 0.9 and 0.7 <= covered[far].mean() <= 0.9
    assert one[~far].mean() > 0.95 and one[far].mean() < 0.7
    assert margins[0] < 0.3 < margins[1]
