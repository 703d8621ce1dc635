"""The hand-written holdout6 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.radio`, :mod:`.crypto`, :mod:`.physics`, :mod:`.inference`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import crypto, inference, physics, radio

#: The builders, in the order of ``specs()``.
BUILDERS = (*radio.BUILDERS, *crypto.BUILDERS, *physics.BUILDERS, *inference.BUILDERS)
