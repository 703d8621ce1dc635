"""The developers' tenth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout10 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout10:specs --out data/datasets/holdout10-<device>

These kernels are **never trained on**. The ninth set (``kgraph.data.holdout9``) decided in session 24;
this one was written in that session by helpers who ran no kgraph tool on it, for the decision after the ninth's.
They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and
training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows every ``holdoutN.``
prefix); :func:`is_holdout10` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout10.catalog` (two modules per kernel group). The
kernels and the rules are in ``docs/HOLDOUT10.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout10 kernel (ids ``holdout10.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout10.<name>`` or just ``<name>``
is_holdout10 = _SET.holds  # True for a holdout10 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout10"]
