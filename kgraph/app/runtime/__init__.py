"""Runtime side of kgraph: the StarPU integration (C sources).

Files here are package data: ``starpu/`` (a StarPU performance-model library, a tiled Cholesky / GEMM
workload and its Makefile; the OpenCL tile kernels it runs are corpus data,
:func:`kgraph.data.corpus.tile_kernel_files`). :func:`runtime_dir` gives their location. The C driver
that runs an exported model from Python is the export's own (``models/export/c/``).
"""
from __future__ import annotations

from pathlib import Path


def runtime_dir() -> Path:
    """The folder that holds the runtime's C sources."""
    return Path(__file__).resolve().parent
