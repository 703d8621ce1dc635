"""The developers' fifth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout5 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout5:specs --out data/datasets/holdout5-<device>

These kernels are **never trained on**. The third and fourth sets (``kgraph.data.holdout3``, ``holdout4``) decided
against v25, v26 and v27 in session 18 (docs/MODELS.md), so every earlier set has now chosen between models; this one,
written in session 19 before any model was scored on it, is for the next decision. They are not part of
``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and training code refuses
their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the ``holdout5.`` prefix); :func:`is_holdout5`
recognises this set alone. Sources are package data under ``cl/``; launch specs, inputs and numpy references are in
:mod:`kgraph.data.holdout5.catalog` (one module per kernel group). The kernels and the rules are in
``docs/HOLDOUT5.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout5 kernel (ids ``holdout5.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout5.<name>`` or just ``<name>``
is_holdout5 = _SET.holds  # True for a holdout5 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout5"]
