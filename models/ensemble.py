"""An ensemble of :class:`~kgraph.models.kgraph_model.KGraphModel` members of one architecture.

Fits of one recipe that differ only in their seed disagree most on code unlike their training data: on the
out-of-corpus set each seed has a family or two it is off by 2-5x, and not the same ones (BENCHMARKS.md
section 15). Averaging the members in log space (a geometric mean of their times) keeps what they agree on
and damps what one member invents. Every member's time is at or above the launch's physical floors (the
bounded head), so their geometric mean is too.

A model directory holds an ensemble when its ``config.json`` has ``"ensemble": K`` (K >= 2); its
``model.safetensors`` then names each member's tensors ``members.<i>.<name>``
(:func:`kgraph.models.predictor.from_checkpoint` with several checkpoints writes one).
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from kgraph.models.heads import Prediction
from kgraph.models.kgraph_model import KGraphModel, ModelConfig

#: the most members a model directory may hold
MAX_MEMBERS = 16


class KGraphEnsemble(nn.Module):
    """``size`` members of one architecture, averaged.

    Args:
        config: the members' architecture.
        feature_names: launch feature columns (as :class:`KGraphModel`).
        size: number of members, 2 to :data:`MAX_MEMBERS`.

    Shapes:
        - forward: the inputs of :meth:`KGraphModel.forward`; returns a :class:`Prediction` whose log
          outputs are the members' means (Float[B]) and whose ``bound_logits`` Float[B, 3] are the log of
          the members' mean class probabilities.
    """

    def __init__(self, config: ModelConfig, feature_names: list[str], size: int):
        super().__init__()
        if not 2 <= size <= MAX_MEMBERS:
            raise ValueError(f"an ensemble has 2 to {MAX_MEMBERS} members, not {size}")
        self.members = nn.ModuleList(KGraphModel(config, feature_names) for _ in range(size))

    @property
    def config(self) -> ModelConfig:
        return self.members[0].config

    @property
    def code_dim(self) -> int:
        return self.members[0].code_dim

    def encode_code(self, graph_batch, tokens: dict[str, Tensor] | None) -> Tensor:
        """The first member's code embedding: what ``kgraph export --kernels`` embeds a user's kernel with
        when this directory is the encoder (``models/export/tables.py``)."""
        return self.members[0].encode_code(graph_batch, tokens)

    def forward(self, *inputs) -> Prediction:
        # 1. every member on the same inputs: K x Prediction(Float[B] ..., Float[B, 3])
        outs = [member(*inputs) for member in self.members]
        # 2. log outputs: the mean over members (a geometric mean in natural units)   -> Float[B] each
        logs = [torch.stack([o[i] for o in outs]).mean(0) for i in range(len(Prediction._fields) - 1)]
        # 3. bound class: the mean of the members' probabilities, as logits            -> Float[B, 3]
        prob = torch.stack([torch.softmax(o.bound_logits.float(), -1) for o in outs]).mean(0)
        return Prediction(*logs, torch.log(prob.clamp_min(1e-12)))


def member_state(states: list[dict]) -> dict:
    """One state dict of an ensemble from its members' state dicts (``members.<i>.`` prefixes)."""
    return {f"members.{i}.{k}": v for i, state in enumerate(states) for k, v in state.items()}
