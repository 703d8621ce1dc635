"""The hand-written holdout14 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of four
kernels, two each (:mod:`.neuro` with :mod:`.neuro_more`, :mod:`.quantum` with :mod:`.quantum_more`, :mod:`.comms`
with :mod:`.comms_more`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import comms, comms_more, neuro, neuro_more, quantum, quantum_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*neuro.BUILDERS, *neuro_more.BUILDERS, *quantum.BUILDERS, *quantum_more.BUILDERS, *comms.BUILDERS,
            *comms_more.BUILDERS)
