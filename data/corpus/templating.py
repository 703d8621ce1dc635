"""Shared pieces of the corpus's kernel templates: precisions, work-group shapes, size ranges.

Templates are ``string.Template`` texts (``$T``, ``${TILE}``), so C braces need no escaping.
"""
from __future__ import annotations

from dataclasses import dataclass
from string import Template

import numpy as np


@dataclass(frozen=True)
class Precision:
    """One floating-point precision a template can be instantiated in.

    Args:
        name: ``"fp32"`` or ``"fp64"`` (the last part of kernel ids).
        ctype: the OpenCL C scalar type; ``dtype`` its numpy name.
        pragma: the extension line the source needs first (empty for fp32).
        rtol, atol: comparison tolerances for element-wise results; reductions scale them.
        suffix: the literal suffix of constants (``"f"`` for float).
    """

    name: str
    ctype: str
    dtype: str
    pragma: str
    rtol: float
    atol: float
    suffix: str

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.dtype)

    @property
    def itemsize(self) -> int:
        return self.np.itemsize


FP32 = Precision("fp32", "float", "float32", "", 1e-4, 1e-5, "f")
FP64 = Precision("fp64", "double", "float64", "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
                 1e-9, 1e-11, "")
PRECISIONS = (FP32, FP64)

#: Candidate work-group shapes; the first of each list is the default.
LOCAL_1D = [[128], [64], [256], [32], [512], [1024]]
LOCAL_2D = [[16, 16], [8, 8], [32, 8], [8, 32], [16, 8], [64, 4], [4, 64], [32, 32]]
LOCAL_3D = [[8, 8, 4], [4, 4, 4], [16, 8, 2], [8, 8, 8], [32, 4, 2], [4, 4, 16], [16, 4, 4]]


def render(template: str, prec: Precision | None = None, **params) -> str:
    """Fills a ``string.Template`` with ``params`` (and ``$T``/``$F`` from ``prec``); adds the pragma."""
    values = {k: str(v) for k, v in params.items()}
    header = ""
    if prec is not None:
        values.setdefault("T", prec.ctype)
        values.setdefault("F", prec.suffix)
        header = prec.pragma
    text = Template(template).substitute(values)
    return header + text.strip() + "\n"


def kernel_id(family: str, *parts) -> str:
    """A stable kernel id: ``family.part1.part2`` (parts already carry their letters, e.g. ``t16``)."""
    return ".".join([family, *[str(p) for p in parts]])


def pow2(lo: int, hi: int, step: int = 1) -> list[int]:
    """Powers of two from 2**lo to 2**hi inclusive, every ``step`` exponent."""
    return [2**e for e in range(lo, hi + 1, step)]


def dense_sizes(lo: int, hi: int, per_octave: int = 2, step: int = 1) -> list[int]:
    """A denser sibling of :func:`pow2`: sorted sizes from 2**lo to 2**hi inclusive.

    Holds every point of ``pow2(lo, hi, step)`` (so grids built with it stay on the new grid) and,
    in each octave ``[2**e, 2**(e+1))``, the ``per_octave`` evenly spaced values
    ``2**e * (per_octave + i) / per_octave`` that are whole numbers (``per_octave=2`` adds the 1.5x
    points 3*2**(e-1); ``4`` adds 5*2**(e-2), 3*2**(e-1), 7*2**(e-2)). Kernels' divisibility
    constraints then pick the values they accept.
    """
    if per_octave < 1:
        raise ValueError(f"per_octave must be >= 1, got {per_octave}")
    values = set(pow2(lo, hi, step)) | {2**hi}
    for e in range(lo, hi):
        for i in range(per_octave):
            num = 2**e * (per_octave + i)
            if num % per_octave == 0:
                values.add(num // per_octave)
    return sorted(values)


def vec_type(prec: Precision, width: int) -> str:
    """``float`` / ``float4`` / ``double2``: the OpenCL type of a vector of ``width`` elements."""
    return prec.ctype if width == 1 else f"{prec.ctype}{width}"


def reduction_tol(prec: Precision, scale: float = 10.0) -> tuple[float, float]:
    """Looser tolerances for sums whose order differs from numpy's."""
    return prec.rtol * scale, prec.atol * scale * 10


def uniform(rng: np.random.Generator, n: int, prec: Precision, lo: float = -1.0, hi: float = 1.0):
    """``n`` uniform values in ``[lo, hi)`` of the precision's dtype."""
    return rng.uniform(lo, hi, n).astype(prec.np)
