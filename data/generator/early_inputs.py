"""Inputs of the early-exit idioms (:mod:`.early_exit`): the data that sets each work-item's trip count.

Kinds (the ``kind`` of a :class:`~.builder.Structured`, ``high`` its bound):

* ``hits-<spread>-<layout>`` (``high`` = ``M``): one row of ``M`` values per work-item, the first value above the
  search's threshold (0.5, or 50 for ``uint``) at a position drawn per row by ``spread``: ``early`` (geometric,
  mean about ``M / 16``), ``uniform`` (uniform in ``[0, M)``) or ``rare`` (a hit in 10% of the rows, uniform; the
  others scan all ``M``). Values before the hit lie in [-1, 0.25) (``uint``: [0, 40]), the hit in [0.75, 1)
  ([60, 100)), those after it anywhere in [-1, 1) ([0, 100)), so no rounding can move a hit. ``layout`` ``row``
  stores row ``gi`` at ``gi * M``, ``plane`` stores element ``e`` of every row at ``e * cells + gi``.
* ``log2-uniform`` (``high`` = an exponent ``E``): integers ``floor(2**(E*u))`` in ``[1, 2**E)`` or floats
  ``2**((E + 2)*u - 2)`` in ``[0.25, 2**E)``, u uniform: magnitudes spread evenly over the octaves, so the trip
  counts of a Collatz, Newton or halving loop spread from 0 to their maximum.
* ``wraps-<spread>`` (``high`` = ``L``): ``k * L + r``, r uniform in ``[0, L)`` and k the fix-up loop's trip
  count: ``rare`` (k = 0 for 90% of the items, else uniform in 1..4) or ``few`` (geometric, mean 1, at most 7).
* ``offsets-<spread>`` (``high`` = ``A``): ``rows + 1`` CSR offsets of ``rows * A`` entries in all; row lengths
  ``skewed`` (Pareto weights of shape 1.5: a few hub rows hold a large share) or ``even`` (multinomial, mean A).
"""
from __future__ import annotations

import numpy as np

#: the kinds' prefixes (the part before the first ``-``)
EARLY_INPUT_KINDS = ("hits", "log2", "wraps", "offsets")
#: the share of rows of a ``rare`` search with a hit, and of items of a ``rare`` fix-up that wrap at all
RARE = 0.1
#: most wraps of a fix-up item (its ``aux`` table holds ``L * (MAX_WRAPS + 1)`` values)
MAX_WRAPS = 7


def first_hits(rng: np.random.Generator, rows: int, M: int, spread: str) -> np.ndarray:
    """The position of each row's first hit, ``M`` for none (int64).

    Args:
        rng: the inputs' generator; rows: how many; M: the row length; spread: ``early``, ``uniform`` or ``rare``.
    """
    if spread == "early":
        return np.minimum(rng.geometric(1.0 / (1.0 + M / 16.0), rows) - 1, M)
    if spread == "uniform":
        return rng.integers(0, M, rows)
    if spread == "rare":
        return np.where(rng.random(rows) < RARE, rng.integers(0, M, rows), M)
    raise ValueError(f"unknown hit spread {spread}")


def _hits(rng: np.random.Generator, count: int, M: int, spread: str, layout: str, dtype: np.dtype) -> np.ndarray:
    rows = count // M
    p = first_hits(rng, rows, M, spread)
    u = rng.random((rows, M), dtype=np.float32)
    (miss, miss_span), (hit, hit_span), (after, after_span) = \
        ((-1.0, 1.25), (0.75, 0.25), (-1.0, 2.0)) if dtype.kind == "f" else ((0, 41), (60, 40), (0, 100))
    values = u * np.float32(after_span) + np.float32(after)  # in place below: rows * M can be 10**8
    before = np.arange(M)[None, :] < p[:, None]
    values[before] = u[before] * np.float32(miss_span) + np.float32(miss)
    r = np.nonzero(p < M)[0]
    values[r, p[r]] = u[r, p[r]] * np.float32(hit_span) + np.float32(hit)
    if dtype.kind != "f":
        np.floor(values, out=values)
    return (values.T if layout == "plane" else values).astype(dtype).reshape(-1)


def _log2_uniform(rng: np.random.Generator, count: int, E: int, dtype: np.dtype) -> np.ndarray:
    u = rng.random(count)
    if dtype.kind == "f":
        return np.exp2((E + 2) * u - 2).astype(dtype)
    return np.maximum(np.floor(np.exp2(E * u)), 1).astype(dtype)


def _wraps(rng: np.random.Generator, count: int, L: int, spread: str) -> np.ndarray:
    if spread == "rare":
        k = np.where(rng.random(count) < RARE, rng.integers(1, 5, count), 0)
    elif spread == "few":
        k = np.minimum(rng.geometric(0.5, count) - 1, MAX_WRAPS)
    else:
        raise ValueError(f"unknown fix-up spread {spread}")
    return k * L + rng.integers(0, L, count)


def _offsets(rng: np.random.Generator, count: int, A: int, spread: str) -> np.ndarray:
    rows = count - 1
    if spread == "skewed":
        w = rng.pareto(1.5, rows) + 0.05
    elif spread == "even":
        w = np.ones(rows)
    else:
        raise ValueError(f"unknown segment spread {spread}")
    p = w / w.sum()
    lengths = rng.multinomial(rows * A, p / p.sum())
    return np.concatenate([[0], np.cumsum(lengths)])


def early_input(rng: np.random.Generator, kind: str, count: int, high: int, dtype: np.dtype) -> np.ndarray:
    """The array of one structured input of an early-exit idiom (see the module docstring).

    Args:
        rng: the inputs' generator; kind: the structured kind; count: its element count;
        high: its bound (``M``, the exponent, ``L`` or ``A``); dtype: the buffer's dtype.
    """
    parts = kind.split("-")
    if parts[0] == "hits":
        return _hits(rng, count, high, parts[1], parts[2], dtype)
    if kind == "log2-uniform":
        return _log2_uniform(rng, count, high, dtype)
    if parts[0] == "wraps":
        return _wraps(rng, count, high, parts[1]).astype(dtype)
    if parts[0] == "offsets":
        return _offsets(rng, count, high, parts[1]).astype(dtype)
    raise ValueError(f"unknown structured input kind {kind}")
