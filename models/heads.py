"""Multi-task head: log-scale regressions and the bound class, with fixed or learned loss weights.

Regression targets and their transforms are defined once in :mod:`kgraph.data.features`
(``REGRESSION_TARGETS``); the head predicts them in standardised log space and returns them
de-standardised (natural log units). Missing targets (NaN) and unknown bound classes (-1) are masked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from kgraph.data.features import BOUND_CLASSES, REGRESSION_TARGETS


class Prediction(NamedTuple):
    """Named model outputs, each Float[B] in the log units of :data:`kgraph.data.features.REGRESSION_TARGETS`
    except ``bound_logits`` Float[B, 3] (order of :data:`kgraph.data.features.BOUND_CLASSES`)."""

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
    """

    hidden: int = 128
    weighting: Literal["fixed", "uncertainty"] = "fixed"
    weights: dict[str, float] = field(default_factory=lambda: {"time": 2.0})


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

    @torch.no_grad()
    def set_statistics(self, mean: Tensor, std: Tensor) -> None:
        """Store the training split's mean/std of each log target (NaN-free)."""
        self.target_mean.copy_(torch.nan_to_num(mean))
        std = torch.nan_to_num(std, nan=1.0)
        self.target_std.copy_(torch.where(std > 1e-6, std, torch.ones_like(std)))

    def forward(self, fused: Tensor) -> Prediction:
        z = self.regressors(fused)  # [B, T] standardised
        y = z * self.target_std + self.target_mean  # [B, T] log units
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
