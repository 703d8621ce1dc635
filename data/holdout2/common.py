"""What every holdout2 kernel spec shares: tolerances, work-group shapes, sources and the spec builder.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data), written once by hand in the style of an
ordinary user, not generated from a template and not taken from :mod:`kgraph.data.holdout`. Sizes are
chosen so that the set spans roughly microseconds to ~100 ms on an H200 while the slowest launch of every
kernel stays within a few seconds on a two-core CPU through PoCL (the campaign's per-launch timeout is
60 s for warm-up + repeats). Where runtime does not grow with the product of the size parameters alone,
a ``constraints`` bound keeps the largest point in check.
"""
from __future__ import annotations

import numpy as np

from kgraph.data import handwritten
from kgraph.data.handwritten import pow2  # noqa: F401 - the groups' size lists

PREFIX = "holdout2"

#: Tolerances: element-wise float32 results, float32 sums over up to a few thousand terms, float64.
ELEMWISE = (1e-5, 1e-6)
SUMS = (1e-3, 1e-4)
FP64 = (1e-9, 1e-11)

L1 = [[256], [128], [64]]
L2 = [[16, 16], [32, 8]]


def source_of(name: str) -> str:
    """The text of ``cl/<name>.cl``.

    Args:
        name: the kernel's name (the file's stem).
    """
    return handwritten.source_of(__package__, name)


def round_up(expr: str, multiple: int = 256) -> str:
    """A global-size expression: ``expr`` rounded up to a multiple (the kernel guards the tail).

    Args:
        expr: a size expression; multiple: the rounding unit.
    """
    return f"({expr} + {multiple - 1}) // {multiple} * {multiple}"


#: :func:`kgraph.data.handwritten.kernel_spec` of ``cl/<name>.cl``, id and family ``holdout2.<name>``
_spec = handwritten.spec_maker(PREFIX, __package__, ELEMWISE)


def _f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def _as_pairs(z) -> np.ndarray:
    """Complex array -> interleaved (re, im) reals, flat (a float2/double2 buffer's layout)."""
    z = np.asarray(z).reshape(-1)
    return np.stack([z.real, z.imag], axis=-1).reshape(-1)


def _as_complex(a) -> np.ndarray:
    """Interleaved (re, im) reals -> complex128, flat (the inverse of :func:`_as_pairs`)."""
    a = _f64(a).reshape(-1, 2)
    return a[:, 0] + 1j * a[:, 1]
