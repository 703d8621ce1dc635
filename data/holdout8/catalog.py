"""The hand-written holdout8 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.medical`, :mod:`.robotics`, :mod:`.chemistry`, :mod:`.quantum`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import chemistry, medical, quantum, robotics

#: The builders, in the order of ``specs()``.
BUILDERS = (*medical.BUILDERS, *robotics.BUILDERS, *chemistry.BUILDERS, *quantum.BUILDERS)
