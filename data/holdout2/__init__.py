"""The developers' second out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout2 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout2:specs --out data/datasets/holdout2-<device>

These kernels are **never trained on**: they are not part of ``kgraph.data.corpus.all_specs()`` (nor of
the generator's output, nor of :mod:`kgraph.data.holdout`), and exist only to measure how kgraph
generalises to code nobody in the corpus wrote, after the first holdout set had been used to choose
models. Training code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the
``holdout2.`` prefix); :func:`is_holdout2` recognises this set alone. Sources are package data under
``cl/`` (one ``.cl`` file per kernel); launch specs, inputs and numpy references are in
:mod:`kgraph.data.holdout2.catalog` (one module per kernel group). The list of kernels and the rules are
in ``docs/HOLDOUT2.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout2 kernel (ids ``holdout2.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout2.<name>`` or just ``<name>``
is_holdout2 = _SET.holds  # True for a holdout2 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout2"]
