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

from kgraph.data.handwritten import SpecSet
from kgraph.data.holdout2.common import PREFIX as PREFIX2
from kgraph.data.holdout3.common import PREFIX as PREFIX3
from kgraph.data.holdout4.common import PREFIX as PREFIX4
from kgraph.data.holdout5.common import PREFIX as PREFIX5
from kgraph.data.holdout6.common import PREFIX as PREFIX6
from kgraph.data.holdout7.common import PREFIX as PREFIX7
from kgraph.data.holdout8.common import PREFIX as PREFIX8
from kgraph.data.holdout9.common import PREFIX as PREFIX9

from .catalog import BUILDERS
from .common import PREFIX

#: Id prefixes of rows that must never be trained on.
_HELD_OUT = (PREFIX + ".", PREFIX2 + ".", PREFIX3 + ".", PREFIX4 + ".", PREFIX5 + ".", PREFIX6 + ".",
             PREFIX7 + ".", PREFIX8 + ".", PREFIX9 + ".", "foreign_set.")


_SET = SpecSet(PREFIX, BUILDERS)
specs = _SET.specs  # every holdout kernel (ids ``holdout.<name>``), in a fixed order
get_spec = _SET.get_spec  # the spec of ``holdout.<name>`` or just ``<name>``


def is_holdout(kernel_id: str) -> bool:
    """True for the id of a holdout kernel, of the second to ninth holdout sets' (``holdout2.<name>`` to
    ``holdout9.<name>``: :mod:`kgraph.data.holdout2` to :mod:`kgraph.data.holdout9`) or of the foreign test
    set's (``foreign_set.<name>``,
    :mod:`kgraph.data.foreign_set`): such rows must never reach a training split."""
    return kernel_id.startswith(_HELD_OUT)


__all__ = ["specs", "get_spec", "is_holdout"]
