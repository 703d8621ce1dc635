"""Calibrated time intervals for compact heads: conformalised quantile regression.

A head made with ``interval=True`` (:class:`kgraph.models.compact.CompactHead`) learns the lower and upper
quantiles of ln(time) of :data:`kgraph.data.targets.TIME_INTERVAL` (pinball loss, in
:func:`kgraph.models.compact.compact_loss`). Quantiles learned on the training launches are too narrow
for kernels the head has never seen, so the interval is then widened (or narrowed) by one margin ``m``
in ln units, chosen on launches of kernels (or families) the head did *not* train on:

- scores ``s_i = max(lo_i - y_i, y_i - hi_i)`` (negative inside the interval) on those launches;
- ``m`` = their ``ceil((n + 1) * level) / n`` empirical quantile (split-conformal), so that on launches
  exchangeable with them — at the level of the groups held out — the interval covers ``level``.

:func:`cross_fit_margin` gets those scores without giving up training data: the rows are split into
``folds`` groups of kernels (or families), a head is trained on all but one group and scored on it,
and the pooled scores give the margin of the head trained on everything (CV+ style).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from kgraph.data.targets import TIME_INTERVAL


def scores(head, x: Tensor, log_time: Tensor) -> np.ndarray:
    """Conformity scores ``max(lo - y, y - hi)`` of launches (ln units; NaN times left out).

    Shapes:
        - x: ``[N, in_dim]`` raw compact inputs; log_time: ``[N]`` measured ln(time ns).
        - returns: ``[K]`` with K the launches whose time is known.
    """
    with torch.no_grad():
        ends = head.log_time_interval(x, margin=False).double()   # [N, 2]
    y = log_time.double()
    known = ~torch.isnan(y)
    s = torch.maximum(ends[known, 0] - y[known], y[known] - ends[known, 1])
    return s.numpy()


def conformal_margin(s: np.ndarray, level: float = TIME_INTERVAL.level) -> float:
    """The split-conformal margin: the ``ceil((n + 1) * level) / n`` quantile of the scores ``s``."""
    s = np.sort(np.asarray(s, dtype=np.float64))
    if not len(s):
        raise ValueError("conformal_margin: no scores")
    k = min(len(s), math.ceil((len(s) + 1) * level))
    return float(s[k - 1])


def set_margin(head, margin: float) -> None:
    """Store ``margin`` (ln units) in the head, where its exports read it."""
    head.interval_margin.fill_(float(margin))


def cross_fit_margin(make_head, fit, x: Tensor, y: Tensor, bound: Tensor | None, groups: np.ndarray,
                     folds: int = 5, seed: int = 0, level: float = TIME_INTERVAL.level) -> tuple[float, np.ndarray]:
    """The margin of a head trained on all rows, from heads trained on all but one group fold.

    Args:
        make_head: ``() -> CompactHead`` (``interval=True``), a fresh head per fold.
        fit: ``(head, x, y, bound) -> None`` trains a head (e.g. ``fit_compact`` with its settings).
        x, y, bound: the training rows (raw inputs ``[N, in_dim]``, log targets ``[N, 5]``, classes ``[N]``).
        groups: ``[N]`` group label of each row (kernel id or family): a fold holds whole groups.
        folds: number of folds; seed: their shuffle; level: the nominal coverage.

    Returns:
        ``(margin, scores)``: the conformal margin and every row's out-of-fold score.
    """
    names = np.array(sorted(set(groups.tolist())))
    np.random.default_rng(seed).shuffle(names)
    fold_of = {name: i % folds for i, name in enumerate(names)}
    fold = np.array([fold_of[g] for g in groups])
    pooled = []
    for k in range(folds):
        train, held = torch.as_tensor(np.flatnonzero(fold != k)), torch.as_tensor(np.flatnonzero(fold == k))
        if not len(held) or not len(train):
            continue
        head = make_head()
        fit(head, x[train], y[train], None if bound is None else bound[train])
        pooled.append(scores(head, x[held], y[held, 0]))
    s = np.concatenate(pooled)
    return conformal_margin(s, level), s


def fit_calibrated(make_head, fit, x: Tensor, y: Tensor, bound: Tensor | None, groups: np.ndarray,
                   folds: int = 5, seed: int = 0, level: float = TIME_INTERVAL.level):
    """A head trained on all rows with its conformal margin from :func:`cross_fit_margin` stored in it.

    Args: as :func:`cross_fit_margin`.

    Returns:
        ``(head, scores)``: the calibrated head and the out-of-fold scores its margin came from.
    """
    margin, s = cross_fit_margin(make_head, fit, x, y, bound, groups, folds=folds, seed=seed, level=level)
    head = make_head()
    fit(head, x, y, bound)
    set_margin(head, margin)
    return head, s


def interval_metrics(ends: np.ndarray, log_time: np.ndarray) -> dict[str, float]:
    """Coverage and width of intervals on measured launches (NaN times left out).

    Args:
        ends: ``[N, 2]`` ln(time) of the lower and upper ends; log_time: ``[N]`` measured ln(time).

    Returns:
        ``coverage`` (share inside), ``below``/``above`` (shares under the lower / over the upper end),
        ``median_width`` and ``mean_width`` (hi / lo as a ratio of times), ``launches``.
    """
    ends, y = np.asarray(ends, dtype=np.float64), np.asarray(log_time, dtype=np.float64)
    ok = np.isfinite(y)
    ends, y = ends[ok], y[ok]
    width = np.exp(ends[:, 1] - ends[:, 0])
    return {"launches": int(len(y)), "coverage": float(np.mean((y >= ends[:, 0]) & (y <= ends[:, 1]))),
            "below": float(np.mean(y < ends[:, 0])), "above": float(np.mean(y > ends[:, 1])),
            "median_width": float(np.median(width)), "mean_width": float(np.mean(width))}
