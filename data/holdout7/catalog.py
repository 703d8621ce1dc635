"""The hand-written holdout7 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per group
(:mod:`.stats`, :mod:`.graphs`, :mod:`.vision` with :mod:`.vision_cascade`, :mod:`.climate`), each listing its builders in ``BUILDERS``.
"""
from __future__ import annotations

from . import climate, graphs, stats, vision, vision_cascade

#: The builders, in the order of ``specs()``.
BUILDERS = (*stats.BUILDERS, *graphs.BUILDERS, *vision.BUILDERS, *vision_cascade.BUILDERS, *climate.BUILDERS)
