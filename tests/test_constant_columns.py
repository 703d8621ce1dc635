"""A feature constant over the training launches carries nothing learned: its first-layer weights are zero, so a
launch unlike every training one in that column (``static_known`` < 1 where only exact counts trained) is not read
through weights that never had a gradient."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from kgraph.data.features import feature_names
from kgraph.data.static_counts import KNOWN_ASSUMED
from kgraph.models.launch_encoder import LaunchEncoder, LaunchEncoderConfig

ROOT = Path(__file__).resolve().parent.parent


def test_set_statistics_zeroes_the_weights_of_constant_columns_and_nothing_else():
    torch.manual_seed(0)
    names = ["static_known", "launch_a", "hw_b", "launch_c"]
    enc = LaunchEncoder(LaunchEncoderConfig(hidden=8, layers=2, dropout=0.0), names, ("static_", "launch_"))
    before = enc.mlp[0].weight.clone()  # columns of the kept features: static_known, launch_a, launch_c
    enc.set_statistics(torch.tensor([1.0, 3.0, 2.0, 0.0]), torch.tensor([0.0, 2.0, 0.0, 1e-9]))
    w = enc.mlp[0].weight
    assert (w[:, 0] == 0).all() and (w[:, 2] == 0).all()  # static_known, launch_c: constant
    assert torch.equal(w[:, 1], before[:, 1])  # launch_a kept as it was
    assert enc.constant_columns() == ["static_known", "launch_c"]  # hw_b is not an input of this encoder
    enc.eval()
    x = torch.tensor([[1.0, 5.0, 7.0, 0.0]])
    off = x.clone()
    off[0, 0], off[0, 3] = KNOWN_ASSUMED, 4.0  # only the constant columns differ
    assert torch.equal(enc(x), enc(off))


def test_the_shipped_models_constant_columns_carry_no_weight():
    """Every member of the shipped default: a column whose training std was below 1e-6 (stored as exactly 1)
    has an all-zero first-layer weight column (v19, fit before the rule, had its ``static_known`` column zeroed
    afterwards: docs/MODELS.md "v23")."""
    from safetensors.numpy import load_file

    weights = load_file(ROOT / "models/default/model.safetensors")
    config = json.loads((ROOT / "models/default/config.json").read_text())
    names = config["feature_names"]
    assert set(names) <= set(feature_names())
    members = sorted({k.split(".")[1] for k in weights if k.startswith("members.")}) or [None]
    for m in members:
        prefix = f"members.{m}." if m is not None else ""
        std = weights[f"{prefix}launch_encoder.feature_std"]
        w = weights[f"{prefix}launch_encoder.mlp.0.weight"].astype(np.float64)
        constant = np.flatnonzero(std == 1.0)
        assert names.index("static_known") in constant  # exact counts only trained
        assert w.shape[1] == len(names)  # every group kept: input column i is feature i
        assert (w[:, constant] == 0).all(), [names[i] for i in constant if (w[:, i] != 0).any()]
