"""The developers' eighth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout8 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout8:specs --out data/datasets/holdout8-<device>

These kernels are **never trained on**. The seventh set (``kgraph.data.holdout7``) decides between v19, v32 and v33
in session 21 (docs/MODELS.md); this one was written in that session by helpers who ran no kgraph tool on it, for
the next decision. They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of
the other sets), and training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the
``holdout8.`` prefix); :func:`is_holdout8` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout8.catalog` (two modules per kernel group). The
kernels and the rules are in ``docs/HOLDOUT8.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout8 kernel (ids ``holdout8.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout8.<name>`` or just ``<name>``
is_holdout8 = _SET.holds  # True for a holdout8 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout8"]
