"""The hand-written holdout3 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.dense`, :mod:`.signal`, :mod:`.irregular`, :mod:`.science`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import dense, irregular, science, signal

#: The builders, in the order of ``specs()``.
BUILDERS = (*dense.BUILDERS, *signal.BUILDERS, *irregular.BUILDERS, *science.BUILDERS)
