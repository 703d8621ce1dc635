"""The developers' fourth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout4 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout4:specs --out data/datasets/holdout4-<device>

These kernels are **never trained on**. The third set (``kgraph.data.holdout3``) decided against v25 and v26 in
session 18 (docs/MODELS.md), so every earlier set has now chosen between models; this one is for the next decision.
They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and
training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the ``holdout4.``
prefix); :func:`is_holdout4` recognises this set alone. Sources are package data under ``cl/``; launch specs,
inputs and numpy references are in :mod:`kgraph.data.holdout4.catalog` (one module per kernel group). The kernels
and the rules are in ``docs/HOLDOUT4.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout4 kernel (ids ``holdout4.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout4.<name>`` or just ``<name>``
is_holdout4 = _SET.holds  # True for a holdout4 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout4"]
