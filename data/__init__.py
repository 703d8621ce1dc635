"""Ground truth: the kernel corpus, the measurement harness (instrumented runs included), launch features,
graph datasets and the LightningDataModule. Imports only from kgraph's graphs/analysis and parsers."""
from __future__ import annotations

import os
from pathlib import Path


def datasets_dir() -> Path:
    """Where measured datasets live: ``$KGRAPH_DATASETS`` when set, else ``data/datasets`` of the source
    tree (``kgraph.data``'s own folder; an installed wheel ships no datasets, so it may not exist)."""
    env = os.environ.get("KGRAPH_DATASETS")
    return Path(env) if env else Path(__file__).resolve().parent / "datasets"
