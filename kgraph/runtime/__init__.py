"""Runtime side of kgraph: C driver for exported models and the StarPU integration (C sources).

Files here are package data: ``c/kgraph_driver.c`` (batch predictions and latency loop on an
exported ``kgraph_model.c``) and ``starpu/`` (a StarPU performance-model library, a tiled Cholesky /
GEMM workload and its Makefile). :func:`runtime_dir` gives their location.
"""
from __future__ import annotations

from pathlib import Path


def runtime_dir() -> Path:
    """The folder that holds the runtime's C sources."""
    return Path(__file__).resolve().parent
