"""The developers' second out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout2 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout2:specs --out data/datasets/holdout2-<device>

These kernels are **never trained on**: they are not part of ``kgraph.data.corpus.all_specs()`` (nor of
the generator's output, nor of :mod:`kgraph.data.holdout`), and exist only to measure how kgraph
generalises to code nobody in the corpus wrote, after the first holdout set had been used to choose
models. Training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the
``holdout2.`` prefix); :func:`is_holdout2` recognises this set alone. Sources are package data under
``cl/`` (one ``.cl`` file per kernel); launch specs, inputs and numpy references are in
:mod:`kgraph.data.holdout2.catalog` (one module per kernel group). The list of kernels and the rules are
in ``docs/HOLDOUT2.md``.
"""
from __future__ import annotations

from functools import lru_cache

from kgraph.data.corpus.spec import KernelSpec
from kgraph.parsers.errors import InputError

from .catalog import BUILDERS
from .common import PREFIX


@lru_cache(maxsize=1)
def _load() -> tuple[KernelSpec, ...]:
    out: list[KernelSpec] = []
    seen: set[str] = set()
    for build in BUILDERS:
        spec = build()
        if spec.kernel_id in seen:
            raise InputError(f"holdout2 kernel id {spec.kernel_id} defined twice")
        seen.add(spec.kernel_id)
        out.append(spec)
    return tuple(out)


def specs() -> list[KernelSpec]:
    """Every holdout2 kernel (ids ``holdout2.<name>``), in a fixed order."""
    return list(_load())


def get_spec(kernel_id: str) -> KernelSpec:
    """The holdout2 spec with this id.

    Args:
        kernel_id: ``holdout2.<name>`` or just ``<name>``.
    """
    want = kernel_id if kernel_id.startswith(PREFIX + ".") else f"{PREFIX}.{kernel_id}"
    for spec in _load():
        if spec.kernel_id == want:
            return spec
    raise InputError(f"no holdout2 kernel {kernel_id!r}")


def is_holdout2(kernel_id: str) -> bool:
    """True for the id of a holdout2 kernel (``holdout2.<name>``).

    Args:
        kernel_id: a dataset row's ``kernel_id``.
    """
    return kernel_id.startswith(PREFIX + ".")


__all__ = ["specs", "get_spec", "is_holdout2"]
