"""The hand-written holdout10 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of six
kernels, three each (:mod:`.ml` with :mod:`.ml_more`, :mod:`.cfd` with :mod:`.cfd_more`, :mod:`.net` with
:mod:`.net_more`, :mod:`.gis` with :mod:`.gis_more`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import cfd, cfd_more, gis, gis_more, ml, ml_more, net, net_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*ml.BUILDERS, *ml_more.BUILDERS, *cfd.BUILDERS, *cfd_more.BUILDERS,
            *net.BUILDERS, *net_more.BUILDERS, *gis.BUILDERS, *gis_more.BUILDERS)
