"""The developers' seventh out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout7 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout7:specs --out data/datasets/holdout7-<device>

These kernels are **never trained on**. The sixth set (``kgraph.data.holdout6``) decided against v29, v30 and v31 in
session 20 (docs/MODELS.md); this one was written after that decision, by helpers who ran no kgraph tool on it, for
the next decision. They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of
the other sets), and training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the
``holdout7.`` prefix); :func:`is_holdout7` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout7.catalog` (one module per kernel group). The
kernels and the rules are in ``docs/HOLDOUT7.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout7 kernel (ids ``holdout7.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout7.<name>`` or just ``<name>``
is_holdout7 = _SET.holds  # True for a holdout7 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout7"]
