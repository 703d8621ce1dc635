"""The developers' sixth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout6 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout6:specs --out data/datasets/holdout6-<device>

These kernels are **never trained on**. The fifth set (``kgraph.data.holdout5``) decided against v28 in session 19
(docs/MODELS.md), so every earlier set has now chosen between models; this one, written and measured in session 19
and scored by no model there, is for the next decision. They are not part of
``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and training code refuses
their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the ``holdout6.`` prefix); :func:`is_holdout6`
recognises this set alone. Sources are package data under ``cl/``; launch specs, inputs and numpy references are in
:mod:`kgraph.data.holdout6.catalog` (one module per kernel group). The kernels and the rules are in
``docs/HOLDOUT6.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout6 kernel (ids ``holdout6.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout6.<name>`` or just ``<name>``
is_holdout6 = _SET.holds  # True for a holdout6 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout6"]
