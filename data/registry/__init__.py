"""The registry set: OpenCL kernels nobody at kgraph wrote, from pinned package-registry archives, launched the
way ``kgraph measure`` launches a kernel without host code, and measured on the project's devices.

    kgraph registry fetch                    # the pinned sdists into .cache/registry (conf/registry/sources.json)
    kgraph registry plan                     # units (helpers, macros), launches, sizing runs on PoCL
    kgraph registry measure --device nvidia --out data/datasets/registry-nvidia-h200

These kernels are **never trained on**: their rows carry the kernel id ``registry.<unit>.<kernel>``, which
:func:`kgraph.data.holdout.is_holdout` refuses for fit. Their text stays out of the repository (a dataset
folder's ``sources.parquet`` is rebuilt from the archives by ``kgraph registry sources``). docs/REGISTRY.md.
"""
from __future__ import annotations

PREFIX = "registry"


def is_registry(kernel_id: str) -> bool:
    """True for a registry row's kernel id."""
    return str(kernel_id).startswith(PREFIX + ".")


__all__ = ["PREFIX", "is_registry"]
