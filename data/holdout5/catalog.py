"""The hand-written holdout5 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.tables`, :mod:`.sequences`, :mod:`.geometry`, :mod:`.numerics`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import geometry, numerics, sequences, tables

#: The builders, in the order of ``specs()``.
BUILDERS = (*tables.BUILDERS, *sequences.BUILDERS, *geometry.BUILDERS, *numerics.BUILDERS)
