"""An ensemble of :class:`~kgraph.models.kgraph_model.KGraphModel` members, of one architecture or several.

Fits of one recipe that differ only in their seed disagree most on code unlike their training data: on the
out-of-corpus set each seed has a family or two it is off by 2-5x, and not the same ones (BENCHMARKS.md
section 15). Averaging the members in log space (a geometric mean of their times) keeps what they agree on
and damps what one member invents. Every member's time is at or above the launch's physical floors (the
bounded head), so their geometric mean is too.

A model directory holds an ensemble when its ``config.json`` has ``"ensemble": K`` (K >= 2); its
``model.safetensors`` then names each member's tensors ``members.<i>.<name>``
(:func:`kgraph.models.predictor.from_checkpoint` with several checkpoints writes one). Members may differ in
architecture (a graph model beside a graph-free one: each misprices kernels the other does not, BENCHMARKS.md
section 43) as long as they read the same launch features; ``config.json`` then lists each member's under
``member_archs``, and the inputs carry what the members together read.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from kgraph.models.heads import Prediction
from kgraph.models.kgraph_model import KGraphModel, ModelConfig

#: the most members a model directory may hold
MAX_MEMBERS = 16


class KGraphEnsemble(nn.Module):
    """``size`` members, averaged.

    Args:
        config: the members' architecture.
        feature_names: launch feature columns (as :class:`KGraphModel`).
        size: number of members, 2 to :data:`MAX_MEMBERS`.
        member_configs: one architecture per member when they differ (``config`` is then unused).

    Shapes:
        - forward: the inputs of :meth:`KGraphModel.forward`; returns a :class:`Prediction` whose log
          outputs are the members' means (Float[B]) and whose ``bound_logits`` Float[B, 3] are the log of
          the members' mean class probabilities.
    """

    def __init__(self, config: ModelConfig, feature_names: list[str], size: int,
                 member_configs: list[ModelConfig] | None = None):
        super().__init__()
        if not 2 <= size <= MAX_MEMBERS:
            raise ValueError(f"an ensemble has 2 to {MAX_MEMBERS} members, not {size}")
        configs = list(member_configs) if member_configs is not None else [config] * size
        if len(configs) != size:
            raise ValueError(f"{len(configs)} member architectures for {size} members")
        self.members = nn.ModuleList(KGraphModel(c, feature_names) for c in configs)
        self.lead = lead_member(configs)

    @property
    def config(self) -> ModelConfig:
        """The lead member's architecture (the first that encodes graphs, so callers make graph batches)."""
        return self.members[self.lead].config

    @property
    def code_dim(self) -> int:
        return self.members[self.lead].code_dim

    def encode_code(self, graph_batch, tokens: dict[str, Tensor] | None) -> Tensor:
        """The lead member's code embedding: what ``kgraph export --kernels`` embeds a user's kernel with
        when this directory is the encoder (``models/export/tables.py``)."""
        return self.members[self.lead].encode_code(graph_batch, tokens)

    def forward(self, *inputs) -> Prediction:
        # 1. every member on the same inputs: K x Prediction(Float[B] ..., Float[B, 3])
        outs = [member(*inputs) for member in self.members]
        # 2. log outputs: the mean over members (a geometric mean in natural units)   -> Float[B] each
        logs = [torch.stack([o[i] for o in outs]).mean(0) for i in range(len(Prediction._fields) - 1)]
        # 3. bound class: the mean of the members' probabilities, as logits            -> Float[B, 3]
        prob = torch.stack([torch.softmax(o.bound_logits.float(), -1) for o in outs]).mean(0)
        return Prediction(*logs, torch.log(prob.clamp_min(1e-12)))


def lead_member(configs: list[ModelConfig]) -> int:
    """Index of the member whose architecture says what an ensemble's inputs carry: the first that encodes
    graphs, else the first (``config.json``'s ``arch`` is its)."""
    return next((i for i, c in enumerate(configs) if c.use_graph), 0)


def member_state(states: list[dict]) -> dict:
    """One state dict of an ensemble from its members' state dicts (``members.<i>.`` prefixes)."""
    return {f"members.{i}.{k}": v for i, state in enumerate(states) for k, v in state.items()}
