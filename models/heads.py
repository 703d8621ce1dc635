"""Multi-task head: log-scale regressions and the bound class, with fixed or learned loss weights.

Regression targets and their transforms are defined once in :mod:`kgraph.data.targets`
(``REGRESSION_TARGETS``); the head predicts them in standardised log space and returns them
de-standardised (natural log units). Missing targets (NaN) and unknown bound classes (-1) are masked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from kgraph.data.targets import BOUND_CLASSES, REGRESSION_TARGETS


class Prediction(NamedTuple):
    """Named model outputs, each Float[B] in the log units of :data:`kgraph.data.targets.REGRESSION_TARGETS`
    except ``bound_logits`` Float[B, 3] (order of :data:`kgraph.data.targets.BOUND_CLASSES`)."""

    log_time: Tensor
    log_bandwidth: Tensor
    log_footprint: Tensor
    log_flops: Tensor
    log_bytes: Tensor
    bound_logits: Tensor

    def regression(self) -> Tensor:
        """Float[B, T] stacked in ``REGRESSION_TARGETS`` order."""
        return torch.stack(list(self[: len(REGRESSION_TARGETS)]), dim=1)


assert Prediction._fields[: len(REGRESSION_TARGETS)] == tuple(f"log_{t}" for t in REGRESSION_TARGETS)


@dataclass
class HeadConfig:
    """Head and loss settings.

    Args:
        hidden: width of each task's hidden layer.
        weighting: ``fixed`` (``weights`` below) or ``uncertainty`` (learned homoscedastic
            uncertainty, Kendall et al. 2018: loss_i * exp(-s_i) + s_i).
        weights: fixed loss weight per task name (``time``, ``bandwidth``, ``footprint``, ``flops``,
            ``bytes``, ``bound``); absent names weigh 1.
        time: ``unbounded`` — log time regressed like the other targets (the ablation); ``bounded`` —
            the roofline-bounded time of :class:`BoundedTime`, never below the launch's physical floors.
        anchor: where the bounded head's unconstrained terms start from. ``launch`` — one term, the launch
            overhead scaled (every model before session 27); ``traffic`` — that term and a memory term, the
            launch's sector bytes ÷ the device's copy bandwidth scaled by a learned factor of either sign
            (:class:`BoundedTime`; an ablation, not shipped: BENCHMARKS.md section 61). Neither is a floor; both only
            add to the smooth maximum.
    """

    hidden: int = 128
    weighting: Literal["fixed", "uncertainty"] = "fixed"
    weights: dict[str, float] = field(default_factory=lambda: {"time": 2.0})
    time: Literal["unbounded", "bounded"] = "unbounded"
    anchor: Literal["launch", "traffic"] = "launch"


class MultiTaskHead(nn.Module):
    """One small MLP per regression target plus a bound classifier.

    Args:
        config: :class:`HeadConfig`.
        in_dim: width of the fused vector.

    Shapes:
        - fused: Float[B, in_dim] -> :class:`Prediction`
        - loss(pred, targets Float[B, T] (NaN = missing), bound Long[B] (-1 = unknown))
    """

    def __init__(self, config: HeadConfig, in_dim: int):
        super().__init__()
        self.config = config
        self.tasks = (*REGRESSION_TARGETS, "bound")
        t = len(REGRESSION_TARGETS)
        self.regressors = nn.Sequential(
            nn.Linear(in_dim, config.hidden), nn.GELU(), nn.Linear(config.hidden, t)
        )
        self.classifier = nn.Sequential(
            nn.Linear(in_dim, config.hidden), nn.GELU(), nn.Linear(config.hidden, len(BOUND_CLASSES))
        )
        self.register_buffer("target_mean", torch.zeros(t))
        self.register_buffer("target_std", torch.ones(t))
        unknown = set(config.weights) - set(self.tasks)
        if unknown:
            raise ValueError(f"head weights: unknown task(s) {sorted(unknown)}; known: {self.tasks}")
        self.register_buffer(
            "fixed_weights", torch.tensor([float(config.weights.get(k, 1.0)) for k in self.tasks])
        )
        self.log_vars = nn.Parameter(torch.zeros(len(self.tasks)), requires_grad=config.weighting == "uncertainty")
        self.bounded = BoundedTime(in_dim, config.hidden, memory_term=config.anchor == "traffic") \
            if config.time == "bounded" else None

    @torch.no_grad()
    def set_statistics(self, mean: Tensor, std: Tensor) -> None:
        """Store the training split's mean/std of each log target (NaN-free)."""
        self.target_mean.copy_(torch.nan_to_num(mean))
        std = torch.nan_to_num(std, nan=1.0)
        self.target_std.copy_(torch.where(std > 1e-6, std, torch.ones_like(std)))

    def forward(self, fused: Tensor, log_floors: Tensor | None = None, log_memory: Tensor | None = None) -> Prediction:
        """``log_floors`` Float[B, K] (log ns, :data:`kgraph.data.floors.FLOORS` order) is needed by the
        bounded time head and ignored otherwise; ``log_memory`` Float[B] (log ns, sector bytes ÷ copy bandwidth)
        by its ``traffic`` anchor."""
        z = self.regressors(fused)  # [B, T] standardised
        y = z * self.target_std + self.target_mean  # [B, T] log units
        if self.bounded is not None:
            if log_floors is None:
                raise ValueError("the bounded time head needs the launch's log floors")
            y = torch.cat([self.bounded(fused, log_floors, log_memory)[:, None], y[:, 1:]], dim=1)  # time first
        return Prediction(*y.unbind(1), self.classifier(fused))

    def task_losses(self, pred: Prediction, targets: Tensor, bound: Tensor) -> Tensor:
        """Per-task losses Float[T + 1]: masked MSE in standardised space, then bound cross-entropy."""
        z_pred = (pred.regression() - self.target_mean) / self.target_std  # [B, T]
        z_true = (targets - self.target_mean) / self.target_std  # [B, T]
        known = ~torch.isnan(z_true)
        sq = torch.where(known, (z_pred - torch.nan_to_num(z_true)) ** 2, torch.zeros_like(z_pred))
        mse = sq.sum(0) / known.sum(0).clamp(min=1)  # [T]
        if (bound >= 0).any():
            ce = F.cross_entropy(pred.bound_logits, bound, ignore_index=-1)
        else:
            ce = pred.bound_logits.sum() * 0.0
        return torch.cat([mse, ce.reshape(1)])

    def combine(self, losses: Tensor) -> Tensor:
        """Weighted total of :meth:`task_losses`."""
        if self.config.weighting == "uncertainty":
            return (losses * torch.exp(-self.log_vars) + self.log_vars).sum()
        return (losses * self.fixed_weights).sum()


class BoundedTime(nn.Module):
    """Roofline-bounded log time: predicted efficiencies in (0, 1] scale each physical floor up, and a
    smooth maximum with a learned sharpness combines them, after the launch overhead.

    ``t = launch / e_launch + smoothmax_beta(f_1 / e_1, ..., f_K / e_K, other[, memory])`` with every ``e`` in
    (0, 1] (``log e = -softplus(.)``), ``beta >= 1`` and ``smoothmax_beta(x) = (sum x^beta)^(1/beta) >= max(x)``.
    ``other`` (``launch * exp(.)``, unconstrained) is work without a measured peak (integer, special
    functions, latency). ``memory`` (``memory_term``: ``m * exp(.)``, unconstrained, ``m`` the launch's sector
    bytes ÷ the device's copy bandwidth) gives the network a start that scales with the bytes a launch moves,
    where the DRAM floor (the footprint beyond the last-level cache) is near zero. An ablation: measured, it
    made store-only launches worse (a 64 MiB fill ×17 its time on the H200, v38's launch anchor ×1.8;
    BENCHMARKS.md section 61). Neither is a floor, and extra terms only raise the smooth maximum:
    ``t >= launch`` and ``t >= f_k`` for every floor by construction.

    Args:
        in_dim: width of the fused vector.
        hidden: width of the hidden layer.
        memory_term: add the ``memory`` term (``HeadConfig.anchor == "traffic"``).

    Shapes:
        - fused: Float[B, in_dim]; log_floors: Float[B, K] (log ns; the last column is ``launch``);
          log_memory: Float[B] (log ns; ``memory_term`` only)
        - returns Float[B], log ns
    """

    def __init__(self, in_dim: int, hidden: int, memory_term: bool = False):
        super().__init__()
        from kgraph.data.floors import FLOORS

        self.k = len(FLOORS)
        self.memory_term = memory_term
        assert FLOORS[-1] == "launch"
        # K efficiencies (the launch's included), the 'other' term, the sharpness[, the memory term]
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, self.k + 2 + memory_term))

    def forward(self, fused: Tensor, log_floors: Tensor, log_memory: Tensor | None = None) -> Tensor:
        out = self.mlp(fused)  # [B, K + 2 (+ 1)]
        log_eff = -F.softplus(out[:, : self.k])  # [B, K], each <= 0
        scaled = log_floors - log_eff  # [B, K]: log(floor / efficiency) >= log floor
        log_launch = scaled[:, -1]  # [B]
        other = log_floors[:, -1] + out[:, self.k]  # [B]
        beta = 1.0 + F.softplus(out[:, self.k + 1])  # [B] >= 1
        free = [other[:, None]]
        if self.memory_term:
            if log_memory is None:
                raise ValueError("the traffic-anchored head needs the launch's log(sector bytes / copy bandwidth)")
            free.append((log_memory + out[:, self.k + 2])[:, None])  # [B, 1]
        terms = torch.cat([scaled[:, :-1], *free], dim=1)  # [B, K (+ 1)]
        smooth = torch.logsumexp(beta[:, None] * terms, dim=1) / beta  # [B] >= max(terms)
        return torch.logaddexp(log_launch, smooth)  # [B] log ns
