"""``make_inputs`` of generated kernels: the buffers whose values the kernel depends on structurally.

* ``index`` buffers (gathers): uniform integers in ``[0, T)``, so every gathered read is in range
  (``sorted_index``: the same, sorted; ``skewed_index``: a few hub values take most of them, :func:`skewed_bins`);
* ``length`` buffers (data-dependent trip counts): uniform integers in ``[0, K]``;
* the early-exit idioms' buffers (search rows, magnitudes, wraps, CSR offsets): :mod:`.early_inputs`;
* ``signs`` buffers (divergence by data): in each consecutive pair of elements exactly one is
  positive (floats: magnitudes in [0.05, 1)) or nonzero (ints), so exactly half of the work-items
  take each arm, as the static analysis assumes, while the choice within a pair is random.

Every other buffer gets the harness's defaults (uniform in [-1, 1] for floats, [0, 100) for ints).
The function closes over a tuple of frozen descriptions only, so the campaign's host-input cache
(``kgraph.data.harness.inputs.generator_key``) shares one array set between kernels that need the
same structured inputs.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import to_int

from .builder import Structured
from .early_inputs import EARLY_INPUT_KINDS, early_input


def _signs(rng: np.random.Generator, count: int, dtype: np.dtype) -> np.ndarray:
    first = rng.integers(0, 2, (count + 1) // 2).astype(bool)
    pos = np.empty(2 * first.size, bool)
    pos[0::2], pos[1::2] = first, ~first
    pos = pos[:count]
    if dtype.kind == "f":
        mag = rng.uniform(0.05, 1.0, count)
        return np.where(pos, mag, -mag).astype(dtype)
    return pos.astype(dtype)


#: a skewed bin is ``floor(B * u**SKEW)`` for u uniform in [0, 1): half of the updates land in the lowest
#: ``B / 2**SKEW`` bins (the hubs), the rest spread ever thinner over the others
SKEW = 6


def skewed_bins(rng: np.random.Generator, count: int, bins: int) -> np.ndarray:
    """``count`` bins in ``[0, bins)``, hub-skewed (see :data:`SKEW`), in random order (int64)."""
    return np.minimum((bins * rng.random(count) ** SKEW).astype(np.int64), bins - 1)


def make_inputs_for(structured: tuple[Structured, ...]):
    """The ``make_inputs(rng, sizes)`` of a kernel with these structured buffers (None if none).

    Args:
        structured: what each buffer holds (see :class:`~.builder.Structured`).
    """
    if not structured:
        return None
    described = tuple(structured)

    def make_inputs(rng: np.random.Generator, sizes: dict) -> dict:
        env = {k: int(v) for k, v in sizes.items()}
        out = {}
        for item in described:
            count = to_int(item.count, env)
            dtype = np.dtype(item.dtype)
            if item.kind == "skewed_index":
                out[item.name] = skewed_bins(rng, count, to_int(item.high, env)).astype(dtype)
            elif item.kind in ("index", "sorted_index"):
                values = rng.integers(0, to_int(item.high, env), count, dtype=np.int64)
                out[item.name] = (np.sort(values) if item.kind == "sorted_index" else values).astype(dtype)
            elif item.kind == "length":
                out[item.name] = rng.integers(0, to_int(item.high, env) + 1, count, dtype=np.int64).astype(dtype)
            elif item.kind == "signs":
                out[item.name] = _signs(rng, count, dtype)
            elif item.kind.split("-")[0] in EARLY_INPUT_KINDS:
                out[item.name] = early_input(rng, item.kind, count, to_int(item.high, env), dtype)
            else:
                raise ValueError(f"unknown structured input kind {item.kind}")
        return out

    return make_inputs
