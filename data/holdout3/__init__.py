"""The developers' third out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout3 import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout3:specs --out data/datasets/holdout3-<device>

These kernels are **never trained on**, and no decision has looked at them: the first two hand-written sets and the
foreign set have each chosen or rejected models (docs/MODELS.md), so their scores are no longer unbiased. They are
not part of ``kgraph.data.corpus.all_specs()`` (nor of the generator's output, nor of the other sets), and training
code refuses their rows through :func:`kgraph.data.holdout.is_holdout` (which knows the ``holdout3.`` prefix);
:func:`is_holdout3` recognises this set alone. Sources are package data under ``cl/``; launch specs, inputs and
numpy references are in :mod:`kgraph.data.holdout3.catalog` (one module per kernel group). The kernels and the
rules are in ``docs/HOLDOUT3.md``.
"""
from __future__ import annotations

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout3 kernel (ids ``holdout3.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout3.<name>`` or just ``<name>``
is_holdout3 = _SET.holds  # True for a holdout3 row's ``kernel_id``


__all__ = ["specs", "get_spec", "is_holdout3"]
