"""Where the shipped models are: package data of ``kgraph.models``.

- ``default/`` — the full graph model behind ``kgraph estimate`` (:mod:`kgraph.models.predictor`);
- ``default_compact/`` — the compact head exported to ONNX/C for runtimes (:mod:`kgraph.models.compact`);
- ``code_lm/weights/`` — the project's code LM, pretrained on registry code (:mod:`kgraph.models.code_lm`).

The same paths work in a source checkout, an editable install and an installed wheel
(:func:`kgraph.resources.package_dir`).
"""
from __future__ import annotations

from kgraph.resources import package_dir

MODELS_DIR = package_dir("kgraph.models")
DEFAULT_DIR = MODELS_DIR / "default"
COMPACT_DIR = MODELS_DIR / "default_compact"
COMPACT_CKPT = COMPACT_DIR / "compact.pt"
LM_DIR = MODELS_DIR / "code_lm" / "weights"
