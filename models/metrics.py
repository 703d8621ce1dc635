"""Evaluation metrics, computed in natural units from log-space predictions.

APE = |pred - true| / true per launch. ``*_mape`` is the mean APE in percent, ``*_median_ape`` its
median in percent, ``*_within_10`` / ``*_within_25`` the share (0..1) of launches with APE <= 10% / 25%,
``time_spearman`` Spearman's rank correlation of predicted and measured times, ``bound_acc`` the
bound-class accuracy over launches whose class is known. Launches whose target is unknown (NaN) are
left out of that target's metrics.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from kgraph.data.features import REGRESSION_TARGETS, to_natural


def ape(pred: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Absolute percentage errors (fractions, not percent) where ``true`` is known and > 0.

    A prediction that is not finite (NaN, or an ln time so large that its ``exp`` overflows) for a known
    truth is an infinite error, never a launch left out: a runaway model must not score on the launches
    it happens to get finite."""
    ok = np.isfinite(true) & (true > 0)
    p, y = pred[ok], true[ok]
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.isfinite(p), np.abs(p - y) / y, np.inf)


def spearman(pred: np.ndarray, true: np.ndarray) -> float:
    """Spearman's rho over the finite pairs; NaN with fewer than 3 pairs or a constant side."""
    ok = np.isfinite(pred) & np.isfinite(true)
    if ok.sum() < 3 or np.ptp(pred[ok]) == 0 or np.ptp(true[ok]) == 0:
        return float("nan")
    return float(spearmanr(pred[ok], true[ok]).statistic)


def summarize(pred_log: np.ndarray, true_log: np.ndarray, bound_pred: np.ndarray,
              bound_true: np.ndarray) -> dict[str, float]:
    """Metrics of one set of launches.

    Args:
        pred_log, true_log: Float[N, T] in ``REGRESSION_TARGETS`` order, log units (NaN = unknown).
        bound_pred, bound_true: Long[N] class indices (true -1 = unknown).
    """
    out: dict[str, float] = {}
    for t, name in enumerate(REGRESSION_TARGETS):
        p, y = to_natural(name, pred_log[:, t]), to_natural(name, true_log[:, t])
        e = ape(p, y)
        out[f"{name}_mape"] = float(100 * e.mean()) if e.size else float("nan")
        if name == "time":
            out["time_median_ape"] = float(100 * np.median(e)) if e.size else float("nan")
            out["time_within_10"] = float((e <= 0.10).mean()) if e.size else float("nan")
            out["time_within_25"] = float((e <= 0.25).mean()) if e.size else float("nan")
            out["time_spearman"] = spearman(pred_log[:, t], true_log[:, t])
    known = bound_true >= 0
    out["bound_acc"] = float((bound_pred[known] == bound_true[known]).mean()) if known.any() else float("nan")
    return out


def per_family(pred_log: np.ndarray, true_log: np.ndarray, bound_pred: np.ndarray,
               bound_true: np.ndarray, family: np.ndarray) -> pd.DataFrame:
    """One row per family (sorted by name): ``family, launches`` and every :func:`summarize` metric."""
    rows = []
    for fam in sorted(set(family.tolist())):
        m = family == fam
        rows.append({"family": fam, "launches": int(m.sum()),
                     **summarize(pred_log[m], true_log[m], bound_pred[m], bound_true[m])})
    return pd.DataFrame(rows)
