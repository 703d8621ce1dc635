"""Static footprint: the distinct global bytes a launch touches, from the analysis' index expressions.

For each global access of :func:`~kgraph.analysis.analyze` (``Access.index_expr``, and ``Access.context``:
the enclosing loops and id guards), the index is rewritten over a *box* of independent integer variables:

- work-item ids ``gid<d>`` in ``[0, gsz<d>)``, ``lid<d>`` in ``[0, lsz<d>)``, ``grp<d>`` in ``[0, ngrp<d>)``
  (``gid`` = ``grp*lsz + lid`` when an index uses both, so the variables stay independent);
- each affine loop variable ``v = start + step*t``, ``t`` in ``[0, trip)`` (innermost first, so a start
  that depends on an outer variable or an id stays affine); a grid/block-stride loop
  (``for (i = gid; i < n; i += gsz)``) is one variable ``i`` in ``[a0, n)``, its id consumed.

Simple guards (``kgraph.analysis.guards`` atoms ``k*id + c OP B``, from ``if`` conditions, ``else`` arms
and early ``return``) clip the id's interval. For an affine index ``c0 + sum(c_i * x_i)`` the extremes
are at the box vertices (sign of each ``c_i``), so min and max are exact. The touched set is an
arithmetic progression (exact) when, with ``g = gcd(|c_i|)`` and the terms sorted by ``|c_i|``, every
``|c_i|/g`` is at most 1 + the span already covered by the smaller ones (``sum |c_j|/g * (n_j - 1)``):
a unit coefficient on some variable fills the gaps of the larger strides (``A[row*K + k]``: ``k`` covers
``[0, K)``, then ``row`` steps by ``K``; a tile loop ``t*16 + lx`` with ``lx < 16`` likewise). A vector
access (``vload4``, ``float4*``) covers ``width`` elements per index; with ``g * scale <= width`` the
progression is a dense interval. Accesses of one buffer are united (intervals merged; strided
progressions marked in a byte map up to 2^26 elements), so ``x[2*i]`` and ``x[2*i+1]`` together are dense.

An access is *inexact* (its hull is an upper bound) when: its index holds a loaded value (indirect,
``ld_``), an opaque value (``v_``, ``call_``, ``sel``) or is not affine in the box variables (``%``, ``/``,
products of ids); it is inside a loop without a derived trip count, a geometric loop whose variable it
uses, a loop with ``break``, or a loop whose trip count depends on another variable of the box
(triangular); it runs under a condition that is not an id guard (data, ``||`` arms, ``switch``) or a guard
that would cut a hole or cannot be applied to the box (a bound with a loop variable). A buffer is exact when
every inexact access lies inside the union of its exact ones; a launch is exact when every buffer is and
the kernel has no atomics (their addresses are not accesses of the analysis). Buffers are distinct
parameters (aliasing ignored).

API::

    fp = static_footprint(function, unit)        # once per kernel (sympy -> compiled numbers)
    r = fp.evaluate({"n": 4096, "gsz0": 4096, "lsz0": 256})
    r.total_bytes, r.exact, r.buffers            # BufferFootprint(name, elem_bytes, bytes, exact, reason)

The box of each access is built in :mod:`kgraph.analysis.footprint_box`; this module compiles the
numbers every access needs and evaluates them per launch (:meth:`StaticFootprint.evaluate`) or for all
launches of a kernel at once (:meth:`StaticFootprint.evaluate_many`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from kgraph.analysis.element_sets import SET, UNKNOWN, access_set, access_sets, interval_union_counts, union
from kgraph.analysis.footprint_box import access_expressions, prepare_access
from kgraph.analysis.result import NUMERIC_FUNCTIONS, floor_log2_value, resolve_env

EXACT_BELOW = 2.0 ** 52  # evaluate_many's float64 numbers are exact integers (and sums of two) below this
BATCH_MIN = 4            # fewer launches of a kernel are evaluated one by one (no numpy compilation)

@dataclass
class BufferFootprint:
    """Footprint of one global buffer parameter: ``bytes`` distinct bytes (``exact`` or an upper bound
    from the hull of its accesses; ``None`` when unknown), ``reason`` why it is not exact."""

    name: str
    elem_bytes: int
    bytes: float | None
    exact: bool
    reason: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "elem_bytes": self.elem_bytes, "bytes": self.bytes, "exact": self.exact,
                "reason": self.reason}


@dataclass
class FootprintResult:
    """A launch's static footprint: ``total_bytes`` (None when some buffer is unknown), ``exact``."""

    total_bytes: float | None
    exact: bool
    buffers: list = field(default_factory=list)
    reason: str = ""

    def to_dict(self) -> dict:
        return {"total_bytes": self.total_bytes, "exact": self.exact, "reason": self.reason,
                "buffers": [b.to_dict() for b in self.buffers]}


class StaticFootprint:
    """The compiled static footprint of one kernel (see the module docstring)."""

    def __init__(self, analysis, function):
        self.name = analysis.name
        self.kernel_reason = ""
        self.buffers: dict[str, int] = {}
        for p in function.params:
            if p.is_pointer and (p.address_space or "") in ("global", "constant"):
                self.buffers[p.name] = int(p.elem_bytes or 0)
        if sp.sympify(analysis.counts.get("atomics", 0)) != 0:
            self.kernel_reason = "atomics (their targets are not part of the footprint)"
        self.accesses = []
        for a in analysis.accesses:
            if a.space != "global" or a.kind == "atomic":
                continue
            self.accesses.append(prepare_access(a, self.buffers))
        exprs, self._slots = [], []
        for acc in self.accesses:
            slot = {}
            for key, expr in access_expressions(acc):
                slot[key] = len(exprs)
                exprs.append(sp.sympify(expr))
            self._slots.append(slot)
        syms = sorted(set().union(set(), *(e.free_symbols for e in exprs)), key=lambda s: s.name)
        self.symbols = [s.name for s in syms]
        self._fn = sp.lambdify(syms, exprs, modules=[{"floor_log2": floor_log2_value, "ceiling": math.ceil,
                                                      "floor": math.floor}, "math"]) if exprs else None
        self._exprs = (syms, exprs)
        self._fn_many = None  # the same numbers over arrays (numpy), compiled by the first evaluate_many

    # -- evaluation (numbers, per launch) ----------------------------------------------------------
    def evaluate(self, env: dict) -> FootprintResult:
        """The footprint of one launch; ``env``: scalar arguments and work sizes (``gsz<d>``, ``lsz<d>``,
        ``ngrp<d>``, or ``global_size``/``local_size`` lists; unused dimensions default to 1)."""
        values = resolve_env(env)
        nums = []
        if self._fn is not None:
            missing = [n for n in self.symbols if n not in values]
            if missing:
                return FootprintResult(None, False, [], f"no value for {', '.join(missing)}")
            try:
                nums = self._fn(*(values[n] for n in self.symbols))
            except (ArithmeticError, ValueError, TypeError) as exc:
                return FootprintResult(None, False, [], f"evaluation failed: {exc}")
        per_buffer: dict[str, list] = {b: [] for b in self.buffers}
        unknown: dict[str, str] = {}
        for acc, slot in zip(self.accesses, self._slots):
            got = access_set(acc, slot, nums, values)
            if got is None:
                continue
            if got == "unknown":
                unknown.setdefault(acc.buffer, acc.reason or "unbounded access")
                continue
            per_buffer.setdefault(acc.buffer, []).append(got)
        buffers = []
        for name, sets in per_buffer.items():
            elem = self.buffers.get(name, 0)
            if name in unknown:
                buffers.append(BufferFootprint(name, elem, None, False, unknown[name]))
                continue
            count, exact, reason = union(sets)
            buffers.append(BufferFootprint(name, elem, None if count is None else float(count * elem), exact, reason))
        total = None if any(b.bytes is None for b in buffers) else float(sum(b.bytes for b in buffers))
        exact = total is not None and all(b.exact for b in buffers) and not self.kernel_reason
        reason = self.kernel_reason or "; ".join(f"{b.name}: {b.reason}" for b in buffers if not b.exact)
        return FootprintResult(total, exact, buffers, reason)


    def evaluate_many(self, args: dict, global_size: list, local_size: list) -> list:
        """:meth:`evaluate` of N launches at once: the compiled numbers evaluated once over arrays (numpy),
        the access sets and the buffers' unions as arrays (:func:`access_sets`). The same results as
        :meth:`evaluate` of ``{**args_i, "global_size": ..., "local_size": ...}``, launch by launch:
        numpy computes in float64 what the per-launch path computes in Python numbers (exact integers),
        so a launch with a number not finite or at least ``EXACT_BELOW`` in magnitude, a union with
        strided, inexact or negative sets, and batches under ``BATCH_MIN`` launches take the per-launch
        path.

        Args:
            args: scalar argument name -> Float[N] values (every launch gives the same names).
            global_size, local_size: N lists of D ints each (D = 1..3; unused dimensions are 1), as the
                launches give them (ints of any size: the per-launch path gets them unchanged).

        Returns:
            One :class:`FootprintResult` per launch.
        """
        n = len(global_size)

        def env(i: int) -> dict:
            return {**{k: float(v[i]) for k, v in args.items()}, "global_size": global_size[i],
                    "local_size": local_size[i]}

        if n < BATCH_MIN or self._fn is None:
            return [self.evaluate(env(i)) for i in range(n)]
        values = {name: np.asarray(v, dtype=np.float64) for name, v in args.items()}
        global_size, local_size = list(global_size), list(local_size)
        sizes = np.array(global_size, dtype=np.float64), np.array(local_size, dtype=np.float64)
        for d in range(3):
            g = sizes[0][:, d] if d < sizes[0].shape[1] else np.ones(n)
            lsz = sizes[1][:, d] if d < sizes[1].shape[1] else np.ones(n)
            values.setdefault(f"gsz{d}", g)
            values.setdefault(f"lsz{d}", lsz)
            values.setdefault(f"ngrp{d}", g / lsz)
        if any(name not in values for name in self.symbols):
            return [self.evaluate(env(i)) for i in range(n)]  # each says which value is missing
        if self._fn_many is None:
            self._fn_many = sp.lambdify(*self._exprs, modules=[NUMERIC_FUNCTIONS, np])  # np: see features._lambdify_counts
        inputs = [values[name] for name in self.symbols]
        try:
            with np.errstate(all="ignore"):
                nums = np.stack([np.broadcast_to(np.asarray(v, dtype=np.float64), (n,))
                                 for v in self._fn_many(*inputs)])
        except (ArithmeticError, ValueError, TypeError, NameError):
            return [self.evaluate(env(i)) for i in range(n)]
        largest = np.max(np.abs(np.concatenate([nums, np.stack(inputs)])), axis=0, initial=0.0)
        slow = ~(largest < EXACT_BELOW)  # NaN and infinities included
        sets = [access_sets(acc, slot, np.where(slow, 0.0, nums)) for acc, slot in zip(self.accesses, self._slots)]
        for got in sets:
            slow |= ~(got.largest < EXACT_BELOW)
        buffers = []  # per buffer: (name, elem bytes, its accesses and sets, Float[N] bytes, Bool[N] known, fast)
        whole = ~slow  # launches whose buffers are all known, dense and exact: their results come from arrays
        for name, elem in self.buffers.items():
            mine = [(acc, got) for acc, got in zip(self.accesses, sets) if acc.buffer == name]
            known, fast = np.ones(n, bool), np.ones(n, bool)
            for _, got in mine:
                known &= got.kind != UNKNOWN
                fast &= (got.kind != SET) | (got.exact & ~got.step_used.any(1) & (got.start >= 0))
            present = np.stack([got.kind == SET for _, got in mine], 1) if mine else np.zeros((n, 0), bool)
            starts = np.stack([got.start for _, got in mine], 1) if mine else np.zeros((n, 0))
            ends = starts + (np.stack([got.base for _, got in mine], 1) if mine else 0) - 1
            nbytes = interval_union_counts(starts, ends, present) * elem
            slow |= known & fast & ~(nbytes < EXACT_BELOW)
            whole &= known & fast
            buffers.append((name, elem, mine, nbytes, known, fast))
        whole &= ~slow
        columns = [(name, elem, nbytes.tolist()) for name, elem, _, nbytes, _, _ in buffers]
        # each quick launch's total, summed in buffer order as the per-launch path does (Python floats)
        totals = [float(sum(row)) for row in zip(*(nbytes for _, _, nbytes in columns))] if columns else [0.0] * n
        reason = self.kernel_reason
        out = []
        for i, (quick, later) in enumerate(zip(whole.tolist(), slow.tolist())):
            if quick:
                parts = [BufferFootprint(name, elem, nbytes[i], True, "") for name, elem, nbytes in columns]
                out.append(FootprintResult(totals[i], not reason, parts, reason))
            else:
                out.append(self.evaluate(env(i)) if later else _result_of(self, i, buffers))
        return out


def _result_of(fp: StaticFootprint, i: int, buffers: list) -> FootprintResult:
    """Launch ``i``'s :class:`FootprintResult` from :meth:`StaticFootprint.evaluate_many`'s per-buffer
    arrays, a buffer whose sets are not all dense and exact united by :func:`union` as
    :meth:`StaticFootprint.evaluate` does."""
    out = []
    for name, elem, mine, nbytes, known, fast in buffers:
        if not known[i]:
            first = next(acc for acc, got in mine if got.kind[i] == UNKNOWN)
            out.append(BufferFootprint(name, elem, None, False, first.reason or "unbounded access"))
        elif fast[i]:
            out.append(BufferFootprint(name, elem, float(nbytes[i]), True, ""))
        else:
            count, exact, reason = union([s for s in (got.one(i) for _, got in mine) if s is not None])
            out.append(BufferFootprint(name, elem, None if count is None else float(count * elem), exact, reason))
    total = None if any(b.bytes is None for b in out) else float(sum(b.bytes for b in out))
    exact = total is not None and all(b.exact for b in out) and not fp.kernel_reason
    reason = fp.kernel_reason or "; ".join(f"{b.name}: {b.reason}" for b in out if not b.exact)
    return FootprintResult(total, exact, out, reason)


def static_footprint(function, unit, analysis=None) -> StaticFootprint:
    """The :class:`StaticFootprint` of ``function`` (a kernel of ``unit``); ``analysis`` if already made."""
    from kgraph.analysis.analyze import analyze

    return StaticFootprint(analysis if analysis is not None else analyze(function, unit), function)


__all__ = ["StaticFootprint", "FootprintResult", "BufferFootprint", "static_footprint"]
