"""The hand-written holdout11 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of six
kernels, three each (:mod:`.solver` with :mod:`.solver_more`, :mod:`.bio` with :mod:`.bio_more`, :mod:`.transport`
with :mod:`.transport_more`, :mod:`.lidar` with :mod:`.lidar_more`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import bio, bio_more, lidar, lidar_more, solver, solver_more, transport, transport_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*solver.BUILDERS, *solver_more.BUILDERS, *bio.BUILDERS, *bio_more.BUILDERS,
            *transport.BUILDERS, *transport_more.BUILDERS, *lidar.BUILDERS, *lidar_more.BUILDERS)
