"""The hand-written holdout12 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of four
kernels, two each (:mod:`.codec` with :mod:`.codec_more`, :mod:`.chem` with :mod:`.chem_more`, :mod:`.ops` with :mod:`.ops_more`, :mod:`.search` with :mod:`.search_more`), each listing its builders in
``BUILDERS``.
"""
from __future__ import annotations

from . import chem, chem_more, codec, codec_more, ops, ops_more, search, search_more

#: The builders, in the order of ``specs()``.
BUILDERS = (*codec.BUILDERS, *codec_more.BUILDERS, *chem.BUILDERS, *chem_more.BUILDERS, *ops.BUILDERS, *ops_more.BUILDERS, *search.BUILDERS, *search_more.BUILDERS)
