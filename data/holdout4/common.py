"""What every holdout4 kernel spec shares: its prefix, its sources and the spec builder; the tolerances,
work-group shapes and size helpers are the second set's (:mod:`kgraph.data.holdout2.common`).

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data), written once by hand in the style of an ordinary
user. Sizes span roughly microseconds to ~100 ms on an H200 while the slowest launch of every kernel stays within
a few seconds on a two-core CPU through PoCL (the campaign's per-launch timeout is 60 s).
"""
from __future__ import annotations

from kgraph.data import handwritten
from kgraph.data.corpus.spec import KernelSpec
from kgraph.data.handwritten import kernel_spec, pow2  # noqa: F401 - the groups' size lists
from kgraph.data.holdout2.common import ELEMWISE, FP64, L1, L2, SUMS, _f32, _f64, round_up  # noqa: F401

PREFIX = "holdout4"


def source_of(name: str) -> str:
    """The text of ``cl/<name>.cl``.

    Args:
        name: the kernel's name (the file's stem).
    """
    return handwritten.source_of(__package__, name)


def _spec(name, *, tol=ELEMWISE, **fields) -> KernelSpec:
    """:func:`kgraph.data.handwritten.kernel_spec` of ``cl/<name>.cl``, id and family ``holdout4.<name>``."""
    return kernel_spec(PREFIX, source_of(name), name, tol=tol, **fields)
