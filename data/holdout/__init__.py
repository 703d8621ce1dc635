"""The developers' out-of-corpus test set: OpenCL kernels written by hand, one idiom each.

    from kgraph.data.holdout import specs
    python -m kgraph.data.harness.campaign --specs kgraph.data.holdout:specs --out data/datasets/holdout-<device>

These kernels are **never trained on**: they are not part of ``kgraph.data.corpus.all_specs()``
(nor of the generator's output) and exist only to measure how kgraph generalises to code nobody in
the corpus wrote. Sources are package data under ``cl/`` (one ``.cl`` file per kernel); launch
specs, inputs and numpy references are in :mod:`kgraph.data.holdout.catalog` (one module per kernel group). The list of kernels
and the rules are in ``docs/HOLDOUT.md``.
"""
from __future__ import annotations

import re

from kgraph.data.handwritten import SpecSet

from .catalog import BUILDERS
from .common import PREFIX

#: Ids of rows that must never be trained on: every hand-written set's (``holdout.<name>``, ``holdout2.<name>``, ...
#: and any later ``holdoutN.<name>``; each set's ``common.PREFIX`` matches, ``tests/test_later_holdouts.py``) and the
#: foreign set's and the registry set's (``registry.<unit>.<kernel>``, :mod:`kgraph.data.registry`). A pattern, not the sets' prefixes imported: importing a set imports its whole catalogue, so one set
#: being written (its modules half filled) would break this module and every set with it.
_HELD_OUT = re.compile(r"(?:holdout\d*|foreign_set|registry)\.")


_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout kernel (ids ``holdout.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout.<name>`` or just ``<name>``


def is_holdout(kernel_id: str) -> bool:
    """True for the id of a holdout kernel, of a later hand-written set's (``holdout2.<name>``, ...,
    ``holdout10.<name>``: :mod:`kgraph.data.holdout2` to :mod:`kgraph.data.holdout10`, and any set after them) or
    of the foreign test set's (``foreign_set.<name>``, :mod:`kgraph.data.foreign_set`) or of the registry set's
    (``registry.<unit>.<kernel>``, :mod:`kgraph.data.registry`): such rows must never reach a training split."""
    return _HELD_OUT.match(kernel_id) is not None


__all__ = ["specs", "get_spec", "is_holdout"]
