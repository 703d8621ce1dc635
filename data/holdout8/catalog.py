"""The hand-written holdout8 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of six
kernels, three each (:mod:`.medical` with :mod:`.medical_more`, :mod:`.robotics` with :mod:`.robotics_more`,
:mod:`.chemistry` with :mod:`.chemistry_more`, :mod:`.quantum` with :mod:`.quantum_more`), each listing its
builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import (chemistry, chemistry_more, medical, medical_more, quantum, quantum_more, robotics,
               robotics_more)

#: The builders, in the order of ``specs()``.
BUILDERS = (*medical.BUILDERS, *medical_more.BUILDERS, *robotics.BUILDERS, *robotics_more.BUILDERS,
            *chemistry.BUILDERS, *chemistry_more.BUILDERS, *quantum.BUILDERS, *quantum_more.BUILDERS)
