"""The developers' twelfth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout12 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout12:specs --out data/datasets/holdout12-<device>

These kernels are **never trained on**. The eleventh set (``kgraph.data.holdout11``) decided in session 26;
this one was written in that session by helpers who ran no kgraph tool on it, for the decision after the eleventh's.
They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and
training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows every ``holdoutN.``
prefix); :func:`is_holdout12` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout12.catalog` (two modules per kernel group). The
kernels and the rules are in ``docs/HOLDOUT12.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout12 kernel (ids ``holdout12.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout12.<name>`` or just ``<name>``
is_holdout12 = _SET.holds  # True for a holdout12 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout12"]
