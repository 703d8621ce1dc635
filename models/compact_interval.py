"""Calibrated time intervals for compact heads: conformalised quantile regression.

A head made with ``interval=True`` (:class:`kgraph.models.compact.CompactHead`) learns the lower and upper
quantiles of ln(time) of :data:`kgraph.data.targets.TIME_INTERVAL` (pinball loss, in
:func:`kgraph.models.compact.compact_loss`). Quantiles learned on the training launches are too narrow
for kernels the head has never seen, so the interval is then widened (or narrowed) by one margin ``m``
in ln units, chosen on launches of kernels (or families) the head did *not* train on:

- scores ``s_i = max(lo_i - y_i, y_i - hi_i)`` (negative inside the interval) on those launches;
- ``m`` = their split-conformal quantile at ``level``, so that on launches exchangeable with them — at the
  level of the groups held out — the interval covers ``level``.

The quantile weighs every *group* (kernel or family) equally (``per_group=True``, the default since
BENCHMARKS §29): each launch of a group with ``n_g`` scored launches weighs ``1 / n_g`` (weighted
split-conformal, see :func:`conformal_margin`). What this targets is
the coverage of a new kernel (family) drawn like the held-out ones, whatever the number of launches that
the others happen to have: on the corpus the families with many launches (gemm, conv variants) are the
ones the head predicts best, so a launch-weighted quantile is set by them and under-covers the typical
unseen family. ``per_group=False`` is the launch-weighted quantile (``ceil((n + 1) * level) / n``) of
§11, with which the shipped ``models/default/interval.pt`` was made (§29 measured the group-weighted remake
on the hand-written holdout and did not ship it).

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


def conformal_margin(s: np.ndarray, level: float = TIME_INTERVAL.level, groups: np.ndarray | None = None) -> float:
    """The split-conformal margin of the scores ``s`` (NaN scores left out).

    Without ``groups``: the ``ceil((n + 1) * level) / n`` quantile of the ``n`` scores. With ``groups``
    (``[n]`` labels): the weighted split-conformal quantile (Tibshirani et al. 2019) where each of ``G``
    groups weighs the same (each of its launches ``1 / n_g``) and the new launch weighs as one launch of a
    group of median size, ``1 / median(n_g)``: the smallest score whose cumulative weight reaches
    ``level * (G + 1 / median(n_g))``.
    """
    s = np.asarray(s, dtype=np.float64)
    ok = np.isfinite(s)
    if not ok.any():
        raise ValueError("conformal_margin: no scores")
    if groups is None:
        s = np.sort(s[ok])
        k = min(len(s), math.ceil((len(s) + 1) * level))
        return float(s[k - 1])
    _, inverse, counts = np.unique(np.asarray(groups)[ok], return_inverse=True, return_counts=True)
    order = np.argsort(s[ok], kind="stable")
    cum = np.cumsum(1.0 / counts[inverse][order])                    # in groups, up to G
    target = level * (len(counts) + 1.0 / float(np.median(counts)))
    k = min(len(order) - 1, int(np.searchsorted(cum, target - 1e-9)))
    return float(s[ok][order][k])


def set_margin(head, margin: float) -> None:
    """Store ``margin`` (ln units) in the head, where its exports read it."""
    head.interval_margin.fill_(float(margin))


def cross_fit_margin(make_head, fit, x: Tensor, y: Tensor, bound: Tensor | None, groups: np.ndarray,
                     folds: int = 5, seed: int = 0, level: float = TIME_INTERVAL.level,
                     per_group: bool = True) -> tuple[float, np.ndarray]:
    """The margin of a head trained on all rows, from heads trained on all but one group fold.

    Args:
        make_head: ``() -> CompactHead`` (``interval=True``), a fresh head per fold.
        fit: ``(head, x, y, bound) -> None`` trains a head (e.g. ``fit_compact`` with its settings).
        x, y, bound: the training rows (raw inputs ``[N, in_dim]``, log targets ``[N, 5]``, classes ``[N]``).
        groups: ``[N]`` group label of each row (kernel id or family): a fold holds whole groups.
        folds: number of folds; seed: their shuffle; level: the nominal coverage.
        per_group: weigh every group equally in the quantile (see :func:`conformal_margin`).

    Returns:
        ``(margin, scores)``: the conformal margin and every row's out-of-fold score ``[N]`` (row order;
        NaN where the time is unknown).
    """
    names = np.array(sorted(set(groups.tolist())))
    np.random.default_rng(seed).shuffle(names)
    fold_of = {name: i % folds for i, name in enumerate(names)}
    fold = np.array([fold_of[g] for g in groups])
    s = np.full(len(groups), np.nan)
    for k in range(folds):
        train, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        if not len(held) or not len(train):
            continue
        head = make_head()
        t = torch.as_tensor(train)
        fit(head, x[t], y[t], None if bound is None else bound[t])
        s[held] = row_scores(head, x[torch.as_tensor(held)], y[torch.as_tensor(held), 0])
    return conformal_margin(s, level, groups if per_group else None), s


def row_scores(head, x: Tensor, log_time: Tensor) -> np.ndarray:
    """:func:`scores` in row order, ``[N]``, NaN where the time is unknown."""
    out = np.full(len(log_time), np.nan)
    out[~torch.isnan(log_time).numpy()] = scores(head, x, log_time)
    return out


def fit_calibrated(make_head, fit, x: Tensor, y: Tensor, bound: Tensor | None, groups: np.ndarray,
                   folds: int = 5, seed: int = 0, level: float = TIME_INTERVAL.level, per_group: bool = True):
    """A head trained on all rows with its conformal margin from :func:`cross_fit_margin` stored in it.

    Args: as :func:`cross_fit_margin`.

    Returns:
        ``(head, scores)``: the calibrated head and the out-of-fold scores its margin came from.
    """
    margin, s = cross_fit_margin(make_head, fit, x, y, bound, groups, folds=folds, seed=seed, level=level,
                                per_group=per_group)
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
