"""The hand-written holdout4 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.solvers`, :mod:`.media`, :mod:`.scatter`, :mod:`.models`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import media, models, scatter, solvers

#: The builders, in the order of ``specs()``.
BUILDERS = (*solvers.BUILDERS, *media.BUILDERS, *scatter.BUILDERS, *models.BUILDERS)
