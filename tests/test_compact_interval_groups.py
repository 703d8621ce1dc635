"""The group-weighted conformal margin of the compact head's time interval (issue 12 §4, BENCHMARKS §29):
every kernel (family) weighs the same in the margin's quantile, so a few groups with many launches that
the head predicts well do not set the margin for the typical unseen group."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from kgraph.models.compact_interval import conformal_margin, cross_fit_margin, interval_metrics


def _groups(rng, n_groups: int, big_share: float = 0.1):
    """Scores of groups like the corpus's families: a few big groups (400 launches) the head knows well
    (scores about -1: deep inside the interval), many small ones (20 launches) with an unseen offset of
    their own (score = |offset| + noise, heavy-tailed). Returns ``(scores, group labels)``."""
    s, g = [], []
    for k in range(n_groups):
        if rng.random() < big_share:
            s.append(rng.normal(-1.0, 0.1, 400))
        else:
            s.append(abs(rng.standard_t(3)) + rng.normal(0.0, 0.1, 20))
        g.append(np.full(len(s[-1]), k))
    return np.concatenate(s), np.concatenate(g)


def test_group_weighted_margin_covers_new_groups_where_the_launch_weighted_one_does_not():
    rng = np.random.default_rng(0)
    s, g = _groups(rng, 200)   # calibration: 200 groups drawn like the new ones; ~70% of launches in big ones
    m_launch, m_group = conformal_margin(s), conformal_margin(s, groups=g)
    new_s, new_g = _groups(np.random.default_rng(1), 4000)                  # many unseen groups
    per_group = lambda m: np.mean([np.mean(new_s[new_g == k] <= m) for k in np.unique(new_g)])  # noqa: E731
    assert per_group(m_launch) < 0.6, (m_launch, per_group(m_launch))       # about 0.3-0.45
    assert 0.74 <= per_group(m_group) <= 0.86, (m_group, per_group(m_group))  # about 0.75-0.8


def test_group_weighted_margin_equals_the_plain_one_for_one_launch_per_group():
    s = np.arange(1, 10, dtype=float)
    assert conformal_margin(s, 0.8, groups=np.arange(9)) == conformal_margin(s, 0.8) == 8.0
    # two groups: 100 launches inside (score 0), 5 far outside (10); by groups the level splits them
    s, g = np.r_[np.zeros(100), np.full(5, 10.0)], np.r_[np.zeros(100), np.ones(5)]
    assert conformal_margin(s, 0.8) == 0.0 and conformal_margin(s, 0.8, groups=g) == 10.0
    assert conformal_margin(s, 0.4, groups=g) == 0.0
    assert conformal_margin(np.r_[s, np.nan], 0.8, groups=np.r_[g, 2]) == 10.0  # NaN scores left out
    with pytest.raises(ValueError):
        conformal_margin(np.array([np.nan]), 0.8, groups=np.zeros(1))


def test_cross_fit_scores_are_in_row_order_with_nan_for_unknown_times():
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact

    g = torch.Generator().manual_seed(0)
    x = torch.randn(300, 8, generator=g)
    y = torch.zeros(300, 5)
    y[:, 0] = 5 + x[:, 2]
    y[:, 1:] = 1.0
    y[7, 0] = float("nan")
    groups = np.arange(300) % 12

    def make():
        torch.manual_seed(0)
        return CompactHead(CompactConfig(2, ["a", "b", "c"], ["d", "e", "f"], "tiny", interval=True))

    margin, s = cross_fit_margin(make, lambda h, xs, ys, b: fit_compact(h, xs, ys, b, epochs=3, batch_size=64),
                                 x, y, None, groups, folds=3)
    assert s.shape == (300,) and np.isnan(s[7]) and np.isfinite(np.delete(s, 7)).all()
    assert margin == conformal_margin(s, groups=groups)  # per_group is the default
    ends = np.stack([y[:, 0].numpy() - 1, y[:, 0].numpy() + 1], 1)
    assert interval_metrics(ends, y[:, 0].numpy())["launches"] == 299
