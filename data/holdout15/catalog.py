"""The hand-written holdout15 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of four
kernels, two each (:mod:`.transport` with :mod:`.transport_more`, :mod:`.optics` with :mod:`.optics_more`,
:mod:`.pqc` with :mod:`.pqc_more`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import optics, optics_more, pqc, pqc_more, transport, transport_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*transport.BUILDERS, *transport_more.BUILDERS, *optics.BUILDERS, *optics_more.BUILDERS, *pqc.BUILDERS,
            *pqc_more.BUILDERS)
