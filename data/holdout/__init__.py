"""The developers' out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout:specs --out data/datasets/holdout-<device>

These kernels are **never trained on**: they are not part of ``kgraph.data.corpus.all_specs()``
(nor of the generator's output) and exist only to measure how kgraph generalises to code nobody in
the corpus wrote. Sources are package data under ``cl/`` (one ``.cl`` file per kernel); launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout.catalog` (one module per kernel group). The list of kernels
and the rules are in ``docs/HOLDOUT.md``.
"""
from __future__ import annotations

from functools import lru_cache

from kgraph.data.corpus.spec import KernelSpec
from kgraph.data.holdout2.common import PREFIX as PREFIX2
from kgraph.parsers.errors import InputError

from .catalog import BUILDERS
from .common import PREFIX

#: Id prefixes of rows that must never be trained on.
_HELD_OUT = (PREFIX + ".", PREFIX2 + ".", "foreign_set.")


@lru_cache(maxsize=1)
def _load() -> tuple[KernelSpec, ...]:
    out: list[KernelSpec] = []
    seen: set[str] = set()
    for build in BUILDERS:
        spec = build()
        if spec.kernel_id in seen:
            raise InputError(f"holdout kernel id {spec.kernel_id} defined twice")
        seen.add(spec.kernel_id)
        out.append(spec)
    return tuple(out)


def specs() -> list[KernelSpec]:
    """Every holdout kernel (ids ``holdout.<name>``), in a fixed order."""
    return list(_load())


def get_spec(kernel_id: str) -> KernelSpec:
    """The holdout spec with this id (``holdout.<name>`` or just ``<name>``)."""
    want = kernel_id if kernel_id.startswith(PREFIX + ".") else f"{PREFIX}.{kernel_id}"
    for spec in _load():
        if spec.kernel_id == want:
            return spec
    raise InputError(f"no holdout kernel {kernel_id!r}")


def is_holdout(kernel_id: str) -> bool:
    """True for the id of a holdout kernel, of the second holdout set's (``holdout2.<name>``,
    :mod:`kgraph.data.holdout2`) or of the foreign test set's (``foreign_set.<name>``,
    :mod:`kgraph.data.foreign_set`): such rows must never reach a training split."""
    return kernel_id.startswith(_HELD_OUT)


__all__ = ["specs", "get_spec", "is_holdout"]
