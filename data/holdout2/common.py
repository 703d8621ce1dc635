"""What every holdout2 kernel spec shares: tolerances, work-group shapes, sources and the spec builder.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data), written once by hand in the style of an
ordinary user, not generated from a template and not taken from :mod:`kgraph.data.holdout`. Sizes are
chosen so that the set spans roughly microseconds to ~100 ms on an H200 while the slowest launch of every
kernel stays within a few seconds on a two-core CPU through PoCL (the campaign's per-launch timeout is
60 s for warm-up + repeats). Where runtime does not grow with the product of the size parameters alone,
a ``constraints`` bound keeps the largest point in check.
"""
from __future__ import annotations

from importlib import resources

import numpy as np

from kgraph.data.corpus.spec import KernelSpec

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
    return resources.files(__package__).joinpath("cl", f"{name}.cl").read_text(encoding="utf-8")


def pow2(lo: int, hi: int, step: int = 1) -> list[int]:
    """Powers of two ``2**lo .. 2**hi`` every ``step`` exponents.

    Args:
        lo, hi: the first and last exponent; step: the exponent stride.
    """
    return [2**e for e in range(lo, hi + 1, step)]


def round_up(expr: str, multiple: int = 256) -> str:
    """A global-size expression: ``expr`` rounded up to a multiple (the kernel guards the tail).

    Args:
        expr: a size expression; multiple: the rounding unit.
    """
    return f"({expr} + {multiple - 1}) // {multiple} * {multiple}"


def _spec(name, *, sizes, check, args, gsize, local, reference, make_inputs=None, constraints=(),
          tol=ELEMWISE, precision="fp32", idiom="") -> KernelSpec:
    """The KernelSpec of ``cl/<name>.cl`` with id and family ``holdout2.<name>``.

    Args:
        name: kernel name and file stem; sizes, check: candidate and check sizes per parameter;
        args: the arguments in parameter order; gsize: global size expressions; local: work-group shapes;
        reference, make_inputs: numpy reference and input maker; constraints: size expressions that must
        hold; tol: (rtol, atol); precision, idiom: stored in the variant.
    """
    return KernelSpec(
        kernel_id=f"{PREFIX}.{name}", family=f"{PREFIX}.{name}",
        variant={"precision": precision, "idiom": idiom}, kernel_name=name, source=source_of(name),
        sizes=sizes, check_sizes=check, constraints=list(constraints), args=args, global_size=gsize,
        local_sizes=local, reference=reference, make_inputs=make_inputs, rtol=tol[0], atol=tol[1],
        tags=[PREFIX])


def _f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)
