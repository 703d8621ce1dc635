"""Launch/hardware encoder: an MLP over the per-launch feature vector built by :mod:`kgraph.data.features`.

The vector's columns are named; their prefix says the group: ``hw_`` (device descriptor and measured
roofline), ``launch_`` (global/local sizes, work-groups per compute unit, scalar arguments) and
``static_`` (static-analysis counts evaluated at the launch's sizes). Ablations drop whole groups.
Standardisation statistics (from the training split) live in buffers, so a checkpoint is
self-contained.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

FEATURE_GROUPS = ("hw_", "launch_", "static_")


@dataclass
class LaunchEncoderConfig:
    """Launch MLP hyper-parameters.

    Args:
        hidden: width of the hidden layers and of the output vector.
        layers: number of Linear+GELU layers (at least 1).
        dropout: dropout between layers.
    """

    hidden: int = 128
    layers: int = 2
    dropout: float = 0.1


def select_columns(names: list[str], groups: tuple[str, ...]) -> list[int]:
    """Indices of the columns whose name starts with one of ``groups`` (prefixes)."""
    return [i for i, name in enumerate(names) if name.startswith(groups)]


class LaunchEncoder(nn.Module):
    """MLP over the standardised launch features of the kept groups.

    Args:
        config: :class:`LaunchEncoderConfig`.
        feature_names: names of all columns of the input vector (``kgraph.data.features`` order).
        groups: prefixes of the groups used (e.g. ``("launch_", "static_")`` without hardware).

    Shapes:
        - features: Float[B, F] with F = len(feature_names) (raw, unstandardised)
        - returns Float[B, hidden]
    """

    def __init__(self, config: LaunchEncoderConfig, feature_names: list[str], groups: tuple[str, ...]):
        super().__init__()
        self.config = config
        self.feature_names = list(feature_names)
        keep = select_columns(self.feature_names, tuple(groups))
        if not keep:
            raise ValueError(f"no launch feature column starts with any of {groups}")
        self.register_buffer("keep", torch.tensor(keep, dtype=torch.long), persistent=False)
        f = len(self.feature_names)
        self.register_buffer("feature_mean", torch.zeros(f))
        self.register_buffer("feature_std", torch.ones(f))
        layers: list[nn.Module] = []
        width = len(keep)
        for _ in range(max(1, config.layers)):
            layers += [nn.Linear(width, config.hidden), nn.GELU(), nn.Dropout(config.dropout)]
            width = config.hidden
        self.mlp = nn.Sequential(*layers[:-1])  # no dropout on the output

    @property
    def out_dim(self) -> int:
        return self.config.hidden

    @torch.no_grad()
    def set_statistics(self, mean: Tensor, std: Tensor) -> None:
        """Store the training split's per-column mean and std (std below 1e-6 counts as 1), and zero the first
        layer's weights of those constant columns: their standardised value is 0 on every training launch, so
        their weights would never get a gradient and would stay at their random start, which a launch unlike
        every training one (``static_known`` < 1 when only exact counts trained) would then read as signal."""
        self.feature_mean.copy_(mean)
        constant = ~(std > 1e-6)
        self.feature_std.copy_(torch.where(constant, torch.ones_like(std), std))
        self.mlp[0].weight[:, constant[self.keep]] = 0.0

    def constant_columns(self) -> list[str]:
        """Names of the kept columns that were constant over the training split (``feature_std`` exactly 1
        and a zero first-layer weight column: what :meth:`set_statistics` leaves)."""
        zero = (self.mlp[0].weight == 0).all(0)
        return [self.feature_names[int(c)] for c, z in zip(self.keep, zero) if z and self.feature_std[c] == 1.0]

    def forward(self, features: Tensor) -> Tensor:
        z = (features - self.feature_mean) / self.feature_std  # [B, F]
        z = z.index_select(1, self.keep).clamp(-10.0, 10.0)  # [B, F_kept]
        return self.mlp(z)  # [B, hidden]
