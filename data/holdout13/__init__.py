"""The developers' thirteenth out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout13 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout13:specs --out data/datasets/holdout13-<device>

These kernels are **never trained on**. The twelfth set (``kgraph.data.holdout12``) decided in session 26;
this one was written in that session, after it, by helpers who ran no kgraph tool on it, for the next decision.
They are not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and
training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows every ``holdoutN.``
prefix); :func:`is_holdout13` recognises this set alone. Sources are package data under ``cl/``; launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout13.catalog` (two modules per kernel group). The
kernels and the rules are in ``docs/HOLDOUT13.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout13 kernel (ids ``holdout13.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout13.<name>`` or just ``<name>``
is_holdout13 = _SET.holds  # True for a holdout13 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout13"]
