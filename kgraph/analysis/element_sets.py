"""Per-launch element sets of the static footprint: one access as an arithmetic progression of buffer
elements, guards as interval clips, clamps pushed through their bounds, and a buffer's accesses united.

An access set is ``(start, base, steps, exact)``: the elements ``start + b + sum(s_j * k_j)`` for
``b < base`` and ``k_j < n_j`` (``steps`` = ``((s_j, n_j), ...)``, each step a disjoint copy), or a hull
(``steps`` empty, ``exact`` False). Plain numbers only: :mod:`kgraph.analysis.footprint` compiles the
symbolic side once per kernel and calls :func:`access_set` and :func:`union` per launch.
"""
from __future__ import annotations

import math

import numpy as np

MAP_LIMIT = 1 << 26  # elements of a byte map for strided (non-dense) unions


def clip(lo, hi, op, b):
    """Apply ``x OP b`` to the integer interval [lo, hi]; returns (lo, hi, hole)."""
    if op == "<":
        return lo, min(hi, math.ceil(b) - 1), False
    if op == "<=":
        return lo, min(hi, math.floor(b)), False
    if op == ">":
        return max(lo, math.floor(b) + 1), hi, False
    if op == ">=":
        return max(lo, math.ceil(b)), hi, False
    if op == "==":
        if b != int(b):
            return 1, 0, False
        return max(lo, int(b)), min(hi, int(b)), False
    if op == "!=":
        if b == lo:
            return lo + 1, hi, False
        if b == hi:
            return lo, hi - 1, False
        return lo, hi, lo < b < hi
    return lo, hi, True


def access_set(acc, slot: dict, nums, values):
    """(start, base, steps, exact) in buffer elements (see :func:`union`), None when nothing is touched, or
    ``"unknown"`` when the access cannot be bounded."""
    if not acc.affine:
        return "unknown"
    get = lambda key: float(nums[slot[key]])  # noqa: E731
    exact = not acc.reason
    for j, gate in enumerate(acc.gates):
        if gate[0] == "trip":
            if get(f"gate{j}") < 1:
                return None
            continue
        size = get(f"gsize{j}")
        lo, hi, hole = clip(0, size - 1, gate[2], get(f"gate{j}"))
        if lo > hi:
            return None
        if gate[4] and (lo > 0 or hi < size - 1 or hole):
            exact = False  # the guard restricts an id related to (but not in) the index
    los = [get(f"lo{i}") for i in range(len(acc.vars))]
    his = [get(f"hi{i}") for i in range(len(acc.vars))]
    for j, (i, op, _) in enumerate(acc.clips):
        los[i], his[i], hole = clip(los[i], his[i], op, get(f"clip{j}"))
        exact = exact and not hole
    if any(lo > hi for lo, hi in zip(los, his)):
        return None
    for i, v in enumerate(acc.vars):
        if v.clamp is not None:
            los[i], his[i], dense = clamp_range(v.clamp, i, los, his, get)
            exact = exact and dense
    c0 = get("c0")
    lo_idx, hi_idx, terms = c0, c0, []
    for i, c in acc.coefs:
        c = get(f"k{i}")
        if c == 0 or los[i] == his[i]:
            lo_idx += c * los[i]
            hi_idx += c * los[i]
            continue
        lo_idx += min(c * los[i], c * his[i])
        hi_idx += max(c * los[i], c * his[i])
        terms.append((abs(c), his[i] - los[i] + 1))
    width = acc.width
    if not all(float(x).is_integer() for x in [lo_idx, hi_idx, width] + [t[0] for t in terms]) or width < 1:
        exact = False
    scale, width = acc.scale, int(width) if exact else max(width, 1)
    start, end = lo_idx * scale, hi_idx * scale + width - 1
    if not exact:
        return (int(start), int(end - start + 1), (), False) if start == int(start) and end == int(end) else "unknown"
    base, steps = width, []
    for c, n in sorted((int(c) * scale, int(n)) for c, n in terms):
        extent = base + sum(st * (k - 1) for st, k in steps)
        if not steps and c <= base:
            base += c * (n - 1)          # fills the gaps: still one interval
        elif c >= extent:
            steps.append((c, n))         # a new copy of the set, disjoint from the others
        else:
            return (int(start), int(end - start + 1), (), False)
    return (int(start), int(base), tuple(steps), True)


def clamp_range(clamp, i, los, his, get):
    """(lo, hi, dense) of a clamp variable: ``e``'s range over the box (``dense`` when ``e`` takes every
    integer of it), pushed through the clamp (non-decreasing, steps of 0 or 1: dense stays dense)."""
    _, coefs, path = clamp
    a = b = get(f"e{i}c0")
    terms = []
    for j, _ in coefs:
        c = get(f"e{i}k{j}")
        a += min(c * los[j], c * his[j])
        b += max(c * los[j], c * his[j])
        if c != 0 and los[j] != his[j]:
            terms.append((abs(c), his[j] - los[j] + 1))
    base, dense = 1.0, all(float(x).is_integer() for x in [a, b] + [t[0] for t in terms])
    for c, n in sorted(terms):
        if c > base:
            dense = False
            break
        base += c * (n - 1)

    def f(x):
        for d in reversed(range(len(path))):
            kind, bounds = path[d]
            vals = [get(f"e{i}p{d}_{n}") for n in range(len(bounds))]
            x = min([x] + vals) if kind == "min" else max([x] + vals)
        return x

    lo, hi = f(a), f(b)
    dense = dense and all(float(get(f"e{i}p{d}_{n}")).is_integer()
                          for d in range(len(path)) for n in range(len(path[d][1])))
    return lo, hi, dense


def union(sets) -> tuple:
    """(elements touched, exact, reason) of a buffer's access sets ``(start, base, steps, exact)``: the
    elements ``start + b + sum(s_j * k_j)`` for ``b < base``, ``k_j < n_j`` (``steps`` = ``(s_j, n_j)``)."""
    if not sets:
        return 0, True, ""
    exact_sets = [s for s in sets if s[3]]
    loose = [s for s in sets if not s[3]]
    if any(s[0] < 0 for s in sets):
        return _hull_count(sets), False, "negative index"
    merged = _merge([(s[0], s[0] + s[1] - 1) for s in exact_sets if not s[2]])
    # a strided set inside an interval of the dense ones adds nothing (clamped stencils: x-1 .. x+1 rows)
    exact_sets = [s for s in exact_sets if not s[2] or not any(a <= s[0] and _last(s) <= b for a, b in merged)]
    if all(not s[2] for s in exact_sets):
        if all(any(a <= s[0] and s[0] + s[1] - 1 <= b for a, b in merged) for s in loose):
            return sum(b - a + 1 for a, b in merged), True, ""
        return _hull_count(sets), False, "an access it cannot bound exactly is outside the exact ones"
    lo = min(s[0] for s in sets)
    hi = max(_last(s) for s in sets)
    if hi - lo + 1 > MAP_LIMIT or any(_size(s) > MAP_LIMIT for s in exact_sets):
        return _hull_count(sets), False, "strided accesses over a range too large to mark"
    import numpy as np

    marks = np.zeros(hi - lo + 1, dtype=bool)
    for start, base, steps, _ in exact_sets:
        mark(marks, start - lo, base, steps)
    if all(marks[s[0] - lo:s[0] - lo + s[1]].all() for s in loose):
        return int(marks.sum()), True, ""
    for start, base, _, _ in loose:
        marks[start - lo:start - lo + base] = True
    return int(marks.sum()), False, "an access it cannot bound exactly is outside the exact ones"


def mark(marks, start: int, base: int, steps) -> None:
    """Set ``marks[start + b + sum(s_j * k_j)]`` for ``b < base``, ``k_j < n_j``: through a strided view
    of ``marks`` (no index array: a set may hold up to ``MAP_LIMIT`` elements) when every stride is
    positive, else through the index array."""
    import numpy as np

    if all(stride > 0 for stride, _ in steps):
        shape = tuple(n for _, n in reversed(steps)) + (base,)
        strides = tuple(stride * marks.itemsize for stride, _ in reversed(steps)) + (marks.itemsize,)
        view = np.lib.stride_tricks.as_strided(marks[start:], shape=shape, strides=strides, writeable=True)
        view[...] = True
        return
    offsets = np.arange(start, start + base, dtype=np.int64)
    for stride, n in steps:
        offsets = (offsets[None, :] + stride * np.arange(n, dtype=np.int64)[:, None]).ravel()
    marks[offsets] = True


def _last(s) -> int:
    return s[0] + s[1] - 1 + sum(st * (n - 1) for st, n in s[2])


def _size(s) -> int:
    out = s[1]
    for _, n in s[2]:
        out *= n
    return out


def _hull_count(sets) -> int:
    return _merge_count([(s[0], _last(s)) for s in sets])


def _merge_count(intervals) -> int:
    return sum(b - a + 1 for a, b in _merge(intervals))


def _merge(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


# ------------------------------------------------------------------ all launches of a kernel at once
#: ``AccessSets.kind``: the launch's set is ``(start, base, steps, exact)``, it touches nothing, or unknown
SET, NONE, UNKNOWN = 0, 1, 2


class AccessSets:
    """:func:`access_set` of one access at N launches, as arrays (Float64 holding integers, so exact
    below 2^53: :meth:`kgraph.analysis.footprint.StaticFootprint.evaluate_many` checks ``largest``).

    Args:
        kind: Int8[N] ``SET``, ``NONE`` or ``UNKNOWN``.
        start, base: Float[N] the set's first element and its dense run (see :func:`access_set`).
        exact: Bool[N].
        step_size, step_count: Float[N, K] the steps ``(s_j, n_j)`` in order; ``step_used`` Bool[N, K]
            which of the K slots hold one (a launch's steps are its used slots, left to right).
        largest: Float[N] the largest magnitude of the launch's numbers (extents included).
    """

    def __init__(self, kind, start, base, exact, step_size, step_count, step_used, largest):
        self.kind, self.start, self.base, self.exact = kind, start, base, exact
        self.step_size, self.step_count, self.step_used, self.largest = step_size, step_count, step_used, largest

    def one(self, i: int):
        """The launch ``i``'s :func:`access_set` value."""
        if self.kind[i] == NONE:
            return None
        if self.kind[i] == UNKNOWN:
            return "unknown"
        used = self.step_used[i]
        steps = tuple((int(s), int(n)) for s, n in zip(self.step_size[i][used], self.step_count[i][used]))
        return int(self.start[i]), int(self.base[i]), steps, bool(self.exact[i])


def _integral(x) -> np.ndarray:
    return x == np.floor(x)


def clip_many(lo, hi, op: str, b):
    """:func:`clip` over Float[N] arrays: (lo, hi, hole), each Float[N] or Bool[N]."""
    if op == "<":
        return lo, np.minimum(hi, np.ceil(b) - 1), np.zeros(b.shape, bool)
    if op == "<=":
        return lo, np.minimum(hi, np.floor(b)), np.zeros(b.shape, bool)
    if op == ">":
        return np.maximum(lo, np.floor(b) + 1), hi, np.zeros(b.shape, bool)
    if op == ">=":
        return np.maximum(lo, np.ceil(b)), hi, np.zeros(b.shape, bool)
    if op == "==":
        whole = _integral(b)
        return (np.where(whole, np.maximum(lo, b), 1.0), np.where(whole, np.minimum(hi, b), 0.0),
                np.zeros(b.shape, bool))
    if op == "!=":
        at_lo, at_hi = b == lo, (b == hi) & (b != lo)
        return (np.where(at_lo, lo + 1, lo), np.where(at_hi, hi - 1, hi),
                ~at_lo & ~at_hi & (lo < b) & (b < hi))
    return lo, hi, np.ones(b.shape, bool)


def _sorted_terms(terms, n: int):
    """(c, m, used) Float[N, K], Float[N, K], Bool[N, K] of ``terms`` ``(c, m, used)`` (each Float[N] /
    Bool[N]) sorted per launch by (c, m), used ones first, as ``sorted`` sorts a launch's used terms."""
    if not terms:
        return np.zeros((n, 0)), np.zeros((n, 0)), np.zeros((n, 0), bool)
    used = np.stack([t[2] for t in terms], 1)
    c = np.where(used, np.stack([t[0] for t in terms], 1), np.inf)
    m = np.where(used, np.stack([t[1] for t in terms], 1), np.inf)
    order = np.lexsort((m, c), axis=1)
    take = lambda a: np.take_along_axis(a, order, 1)  # noqa: E731
    return take(c), take(m), take(used)


def access_sets(acc, slot: dict, nums: np.ndarray) -> AccessSets:
    """:func:`access_set` of one access at N launches at once, the same numbers in the same order.

    Args:
        acc: the prepared access (``kgraph.analysis.footprint_box._Prepared``).
        slot: key -> row of ``nums`` of the access' compiled numbers.
        nums: Float[E, N] the kernel's compiled numbers at each launch (finite).
    """
    n = nums.shape[1]
    zeros = np.zeros(n)
    if not acc.affine:
        return AccessSets(np.full(n, UNKNOWN, np.int8), zeros, zeros, np.zeros(n, bool), np.zeros((n, 0)),
                          np.zeros((n, 0)), np.zeros((n, 0), bool), zeros)
    get = lambda key: nums[slot[key]]  # noqa: E731
    exact = np.full(n, not acc.reason)
    none = np.zeros(n, bool)
    for j, gate in enumerate(acc.gates):
        if gate[0] == "trip":
            none |= get(f"gate{j}") < 1
            continue
        size = get(f"gsize{j}")
        lo, hi, hole = clip_many(zeros, size - 1, gate[2], get(f"gate{j}"))
        none |= lo > hi
        if gate[4]:
            exact &= ~((lo > 0) | (hi < size - 1) | hole)  # the guard restricts an id related to the index
    los = [get(f"lo{i}") for i in range(len(acc.vars))]
    his = [get(f"hi{i}") for i in range(len(acc.vars))]
    for j, (i, op, _) in enumerate(acc.clips):
        los[i], his[i], hole = clip_many(los[i], his[i], op, get(f"clip{j}"))
        exact &= ~hole
    for lo, hi in zip(los, his):
        none |= lo > hi
    for i, v in enumerate(acc.vars):
        if v.clamp is not None:
            los[i], his[i], dense = clamp_ranges(v.clamp, i, los, his, get)
            exact &= dense
    lo_idx = hi_idx = get("c0")
    terms = []
    for i, _ in acc.coefs:
        c = get(f"k{i}")
        flat = (c == 0) | (los[i] == his[i])
        a, b = c * los[i], c * his[i]
        lo_idx = lo_idx + np.where(flat, a, np.minimum(a, b))
        hi_idx = hi_idx + np.where(flat, a, np.maximum(a, b))
        terms.append((np.abs(c), his[i] - los[i] + 1, ~flat))
    whole = _integral(lo_idx) & _integral(hi_idx) & (float(acc.width).is_integer() and acc.width >= 1)
    for c, _, used in terms:
        whole &= _integral(c) | ~used
    exact &= whole
    width = max(acc.width, 1)  # int(width) where exact (then width >= 1), max(width, 1) elsewhere
    start = lo_idx * acc.scale
    end = hi_idx * acc.scale + width - 1
    c, m, used = _sorted_terms([(np.trunc(c) * acc.scale, np.trunc(m), u) for c, m, u in terms], n)
    base, extent, steps = np.full(n, float(width)), np.full(n, float(width)), np.zeros(n, np.int64)
    failed, step_used = ~exact, np.zeros(c.shape, bool)
    largest = np.maximum(np.abs(start), np.abs(end))
    for p in range(c.shape[1]):
        live = used[:, p] & ~failed
        grow = np.where(live, c[:, p] * (m[:, p] - 1), 0.0)
        fills = live & (steps == 0) & (c[:, p] <= base)  # fills the gaps: still one interval
        copies = live & ~fills & (c[:, p] >= extent)     # a new copy of the set, disjoint from the others
        base = np.where(fills, base + grow, base)
        extent = np.where(fills | copies, extent + grow, extent)
        steps += copies
        step_used[:, p] = copies
        failed |= live & ~fills & ~copies
        largest = np.maximum(largest, np.where(live, np.maximum(np.abs(c[:, p]), extent), 0.0))
    loose = ~exact | failed
    unknown = loose & ~(_integral(start) & _integral(end))
    kind = np.where(none, NONE, np.where(unknown, UNKNOWN, SET)).astype(np.int8)
    return AccessSets(kind, start, np.where(loose, end - start + 1, base), ~loose,
                      c, m, step_used & ~loose[:, None], largest)


def clamp_ranges(clamp, i: int, los: list, his: list, get):
    """:func:`clamp_range` over Float[N] arrays: (lo, hi, dense)."""
    _, coefs, path = clamp
    a = b = get(f"e{i}c0")
    terms = []
    for j, _ in coefs:
        c = get(f"e{i}k{j}")
        a = a + np.minimum(c * los[j], c * his[j])
        b = b + np.maximum(c * los[j], c * his[j])
        terms.append((np.abs(c), his[j] - los[j] + 1, (c != 0) & (los[j] != his[j])))
    dense = _integral(a) & _integral(b)
    for c, _, used in terms:
        dense &= _integral(c) | ~used
    c, m, used = _sorted_terms(terms, len(a))
    base, broken = np.ones(len(a)), np.zeros(len(a), bool)
    for p in range(c.shape[1]):
        live = used[:, p] & ~broken
        gap = live & (c[:, p] > base)
        dense &= ~gap
        broken |= gap
        base = np.where(live & ~gap, base + c[:, p] * (m[:, p] - 1), base)

    def f(x):
        for d in reversed(range(len(path))):
            kind, bounds = path[d]
            for n in range(len(bounds)):
                x = (np.minimum if kind == "min" else np.maximum)(x, get(f"e{i}p{d}_{n}"))
        return x

    for d in range(len(path)):
        for n in range(len(path[d][1])):
            dense &= _integral(get(f"e{i}p{d}_{n}"))
    return f(a), f(b), dense


def interval_union_counts(starts: np.ndarray, ends: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Float[N] elements in the union of the integer intervals ``[starts, ends]`` (Float[N, M]) of each
    launch where ``present`` (Bool[N, M]): what :func:`union` counts for dense exact sets."""
    a = np.where(present, starts, np.inf)
    order = np.argsort(a, axis=1, kind="stable")
    a = np.take_along_axis(a, order, 1)
    b = np.take_along_axis(np.where(present, ends, -np.inf), order, 1)
    before = np.maximum.accumulate(np.concatenate([np.full((len(a), 1), -np.inf), b[:, :-1]], 1), axis=1)
    return np.where(np.isfinite(a), np.maximum(0.0, b - np.maximum(a - 1, before)), 0.0).sum(1)
