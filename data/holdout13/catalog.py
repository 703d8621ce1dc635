"""The hand-written holdout13 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of four
kernels, two each (:mod:`.eda` with :mod:`.eda_more`, :mod:`.anim` with :mod:`.anim_more`, :mod:`.radar` with :mod:`.radar_more`, :mod:`.power` with :mod:`.power_more`), each listing its builders in
``BUILDERS``.
"""
from __future__ import annotations

from . import anim, anim_more, eda, eda_more, power, power_more, radar, radar_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*eda.BUILDERS, *eda_more.BUILDERS, *anim.BUILDERS, *anim_more.BUILDERS, *radar.BUILDERS, *radar_more.BUILDERS, *power.BUILDERS, *power_more.BUILDERS)
