"""Gradient-boosted trees on hand-crafted static features (after Braun et al. 2020).

Features: every column of :func:`kgraph.data.features.to_launch_features` (device descriptor, global/local
sizes, work-groups per compute unit, scalar arguments, static counts per work-item and per launch,
arithmetic intensity) plus ratios a performance engineer would add by hand (:data:`EXTRA_FEATURES`):
the two roofline times (compute and memory, log10 ns), the launch overhead, their ratio, work-items
per compute unit, the work-group's share of the device maximum and FLOPs/bytes per work-item.

One ``HistGradientBoostingRegressor`` per log target (fitted on the rows where it is known) and one
``HistGradientBoostingClassifier`` for the bound class; fixed seed, no early stopping: deterministic.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.features import REGRESSION_TARGETS
from kgraph.models.baselines.base import Baseline, LaunchRows, empty_outputs
from kgraph.models.baselines.roofline import RooflineBaseline

EXTRA_FEATURES = (
    "log10_roof_compute_ns", "log10_roof_memory_ns", "log10_overhead_ns", "roof_compute_minus_memory",
    "log2_items_per_cu", "group_share_of_max", "log10_flops_per_item", "log10_bytes_per_item",
)


def to_static_features(rows: LaunchRows) -> np.ndarray:
    """Float64[N, F + len(EXTRA_FEATURES)]: launch features then the hand-crafted ratios."""
    t = RooflineBaseline.terms(rows)
    peak = np.where(t["fp64_dominant"], rows.roofline("fp64_gflops"), rows.roofline("fp32_gflops"))
    items = np.exp2(rows.feature("launch_log2_items"))
    group = np.exp2(rows.feature("launch_log2_group_size"))
    cus = rows.launches["device_id"].map(lambda d: max(1, int(rows.devices[d].get("compute_units", 1))))
    max_wg = rows.launches["device_id"].map(lambda d: max(1, int(rows.devices[d].get("max_work_group_size", 1))))
    with np.errstate(all="ignore"):
        compute = np.log10(1.0 + np.nan_to_num(t["flops"] / peak))
        memory = np.log10(1.0 + np.nan_to_num(t["bytes"] / rows.roofline("copy_bw_gbs")))
        extra = np.column_stack([
            compute, memory, np.log10(1.0 + t["overhead_ns"]), compute - memory,
            np.log2(items / cus.to_numpy(np.float64)), group / max_wg.to_numpy(np.float64),
            np.log10(1.0 + np.nan_to_num(t["flops"] / items)), np.log10(1.0 + np.nan_to_num(t["bytes"] / items)),
        ])
    return np.concatenate([rows.features().astype(np.float64), extra], axis=1)


class StaticGBTBaseline(Baseline):
    """Gradient-boosted trees over :func:`to_static_features`.

    Args:
        max_iter: boosting iterations per target.
        learning_rate: shrinkage.
        max_leaf_nodes: leaves per tree.
        min_samples_leaf: fewest launches per leaf (sklearn's default 20; lower it for tiny tables).
        seed: ``random_state`` of every estimator.
    """

    name = "static_gbt"

    def __init__(self, max_iter: int = 300, learning_rate: float = 0.1, max_leaf_nodes: int = 31,
                 min_samples_leaf: int = 20, seed: int = 0):
        self.params = dict(max_iter=max_iter, learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                           min_samples_leaf=min_samples_leaf, random_state=seed, early_stopping=False)
        self.regressors: dict[str, object] = {}
        self.classifier = None
        self.constant_bound: int | None = None

    def fit(self, train: LaunchRows) -> "StaticGBTBaseline":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        x = to_static_features(train)
        y, bound = train.targets()
        self.regressors = {}
        for j, name in enumerate(REGRESSION_TARGETS):
            known = np.isfinite(y[:, j])
            if known.sum() >= 2:
                self.regressors[name] = HistGradientBoostingRegressor(**self.params).fit(x[known], y[known, j])
        known = bound >= 0
        classes = np.unique(bound[known])
        self.classifier, self.constant_bound = None, None
        if len(classes) >= 2:
            self.classifier = HistGradientBoostingClassifier(**self.params).fit(x[known], bound[known])
        elif len(classes) == 1:
            self.constant_bound = int(classes[0])
        return self

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        out = empty_outputs(len(rows))
        if not len(rows):
            return out
        x = to_static_features(rows)
        for name, model in self.regressors.items():
            out[f"log_{name}"] = model.predict(x)
        if self.classifier is not None:
            out["bound"] = self.classifier.predict(x).astype(np.int64)
        elif self.constant_bound is not None:
            out["bound"][:] = self.constant_bound
        return out
