"""Apply the launch encoder's rule for features constant in training to a model saved before the rule.

    python -m benchmarks.zero_constant_columns MODEL_DIR [--dry-run]

:meth:`kgraph.models.launch_encoder.LaunchEncoder.set_statistics` zeroes the first-layer weights of the columns
whose training std was below 1e-6 (stored as a ``feature_std`` of exactly 1): their standardised value was 0 on
every training launch, so their weights never had a gradient. A model fit before that rule (v19: its
``static_known`` column, 1 on every launch it trained on) keeps random weights there, which a launch whose value
differs (a trip count assumed, ``KNOWN_ASSUMED``) reads as signal. This zeroes them in ``MODEL_DIR/model.safetensors``
in place (same dtype, same keys). Launches whose value equals the training constant are predicted bit-equal,
since those columns contribute exactly 0 to them. Prints what it zeroed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def zero_constant_columns(weights: dict[str, np.ndarray]) -> dict[str, list[int]]:
    """Zero, in ``weights`` (a model's safetensors, members ``members.<i>.`` or one model), each launch encoder's
    first-layer weight columns where ``feature_std`` is exactly 1; returns ``prefix -> [columns zeroed]`` (only
    columns that were not zero already)."""
    done = {}
    for key in sorted(k for k in weights if k.endswith("launch_encoder.feature_std")):
        prefix = key[: -len("feature_std")]
        w = weights[f"{prefix}mlp.0.weight"]
        if w.shape[1] != weights[key].shape[0]:
            raise ValueError(f"{prefix}: the encoder drops feature groups; its input columns are not the features")
        columns = [int(c) for c in np.flatnonzero(weights[key] == 1.0) if (w[:, c] != 0).any()]
        w[:, columns] = 0
        done[prefix] = columns
    return done


def main(argv: list[str] | None = None) -> int:
    from safetensors.numpy import load_file, save_file

    parser = argparse.ArgumentParser(prog="python -m benchmarks.zero_constant_columns",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--dry-run", action="store_true", help="report, write nothing")
    args = parser.parse_args(argv)
    path = Path(args.model_dir) / "model.safetensors"
    if not path.is_file():
        print(f"zero_constant_columns: {path} does not exist", file=sys.stderr)
        return 2
    names = json.loads((path.parent / "config.json").read_text())["feature_names"]
    weights = {k: v.copy() for k, v in load_file(path).items()}
    done = zero_constant_columns(weights)
    for prefix, columns in done.items():
        print(f"{prefix}: {', '.join(names[c] for c in columns) or 'nothing to zero'}")
    if not args.dry_run and any(done.values()):
        save_file(weights, str(path), metadata={"format": "pt"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
