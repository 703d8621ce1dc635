"""The developers' sixteenth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout16 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout16:specs --out data/datasets/holdout16-<device>

These kernels are **never trained on**. The fifteenth set (``kgraph.data.holdout15``) decides v42 in session 29;
this one was written in that session, before that scoring, by helpers who ran no kgraph tool on it, for the next
decision. They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other
sets), and training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows every
``holdoutN.`` prefix); :func:`is_holdout16` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout16.catalog` (two modules per kernel group). The
kernels and the rules are in ``docs/HOLDOUT16.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout16 kernel (ids ``holdout16.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout16.<name>`` or just ``<name>``
is_holdout16 = _SET.holds  # True for a holdout16 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout16"]
