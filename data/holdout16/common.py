"""What every holdout16 kernel spec shares: its prefix, its sources and the spec builder; the tolerances,
work-group shapes and size helpers are the second set's (:mod:`kgraph.data.holdout2.common`).

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data), written once by hand in the style of an ordinary
user. Sizes span roughly microseconds to ~100 ms on an H200 while the slowest launch of every kernel stays within
a few seconds on a two-core CPU through PoCL (the campaign's per-launch timeout is 60 s).
"""
from __future__ import annotations

from functools import partial

from kgraph.data import handwritten
from kgraph.data.handwritten import pow2  # noqa: F401 - the groups' size lists
from kgraph.data.holdout2.common import ELEMWISE, FP64, L1, L2, SUMS, _f32, _f64, round_up  # noqa: F401

PREFIX = "holdout16"
#: the text of ``cl/<name>.cl`` (``name``: the kernel's name, the file's stem)
source_of = partial(handwritten.source_of, __package__)
#: :func:`kgraph.data.handwritten.kernel_spec` of ``cl/<name>.cl``, id and family ``holdout16.<name>``
_spec = handwritten.spec_maker(PREFIX, __package__, ELEMWISE)
