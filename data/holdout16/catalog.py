"""The hand-written holdout16 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of four
kernels, two each (:mod:`.terrain` with :mod:`.terrain_more`, :mod:`.plasma` with :mod:`.plasma_more`,
:mod:`.epidemic` with :mod:`.epidemic_more`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import epidemic, epidemic_more, plasma, plasma_more, terrain, terrain_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*terrain.BUILDERS, *terrain_more.BUILDERS, *plasma.BUILDERS, *plasma_more.BUILDERS, *epidemic.BUILDERS,
            *epidemic_more.BUILDERS)
