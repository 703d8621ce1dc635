"""Trip counts from a launch's input data: loops whose bounds are elements read from buffers.

A loop whose start or bound is read from memory, ``for (k = 0; k < len[i]; k++)``, ``for (y = y0[i]; y < y1[i];
y++)``, ``int n = cnt[g]; for (j = 0; j < n; j++)``, has no trip count in its source, so the analysis reads it as
``trip_<line>`` (one iteration assumed, :mod:`kgraph.analysis.trips`). Its count is in the data: where every
unknown of its affine header is such an element, read from a buffer parameter at an index of work-item ids, sizes
and scalar arguments alone, the analysis keeps the count in those elements (``Loop.data_trip``, with ``Loop.loads``:
each element's buffer and index). A launch that gives the buffers' contents (the API's ``inputs=``, ``kgraph
estimate --input NAME=FILE.npy``) then gets the loop's mean trip count per entry, exactly as the kernel would run
on that data (:func:`data_trip_means`): each work-item's index evaluated, its elements read, its count computed,
and the mean taken over the work-items whose reads fall inside the buffers (the others are read as not entering the
loop: a kernel guards them). It acts as a given mean (``derived_trips`` in the record), like segment loops' means
from buffer lengths (:mod:`kgraph.analysis.segments`).

Not read so: an index holding another read (``len[idx[i]]``), a loop variable of an enclosing loop or a local the
analysis cannot follow; a ``while`` loop; a loop whose variable moves in its body. The work-items outside the id
guards around the loop (``if (i >= n) return;``) do not enter it. Launches of more than
:data:`MAX_ITEMS` work-items are evaluated on that many, evenly spaced.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from kgraph.analysis.symbolic_math import TRIP_PREFIX, is_opaque, loop_symbols

#: the most work-items whose trip counts a launch's mean is taken over (evenly spaced beyond it)
MAX_ITEMS = 1 << 20


def data_loads(loads: dict, *exprs) -> dict | None:
    """``{symbol: (buffer, index)}`` of the ``ld_`` symbols of ``exprs`` when every unknown in them is such an element
    with a known index (``loads``: the analysis's :attr:`~kgraph.analysis.symbolic.SymbolicEnv.loads`) and none
    depends on an enclosing loop's variable; None otherwise (and where there is no such element)."""
    out = {}
    for expr in exprs:
        if loop_symbols(expr):
            return None
        for s in getattr(expr, "free_symbols", ()):
            if s.name.startswith("ld_"):
                where = loads.get(s)
                if where is None or loop_symbols(where[1]):
                    return None
                out[s] = where
            elif is_opaque(s):
                return None
    return out or None


def _items(global_size: list[int], local_size: list[int]) -> dict[str, np.ndarray]:
    """Work-item ids (``gid``/``lid``/``grp`` per dimension) of the launch's items, at most :data:`MAX_ITEMS` evenly
    spaced, and its sizes (``gsz``/``lsz``/``ngrp``)."""
    dims = [int(g) for g in global_size] + [1] * (3 - len(global_size))
    local = [int(v) for v in local_size] + [1] * (3 - len(local_size))
    total = math.prod(dims)
    flat = np.arange(total, dtype=np.int64) if total <= MAX_ITEMS else \
        np.linspace(0, total - 1, MAX_ITEMS).astype(np.int64)
    out = {}
    for d in range(3):
        gid = (flat // math.prod(dims[:d])) % dims[d]
        out.update({f"gid{d}": gid, f"lid{d}": gid % local[d], f"grp{d}": gid // local[d], f"gsz{d}": dims[d],
                    f"lsz{d}": local[d], f"ngrp{d}": dims[d] // local[d]})
    return out


def _evaluate(expr, env: dict, n: int) -> np.ndarray:
    """``expr`` (sympy, symbols named in ``env`` or renamed) at ``env``'s values, as Float[n]."""
    from kgraph.analysis.result import NUMERIC_FUNCTIONS

    names = sorted(s.name for s in expr.free_symbols)
    missing = [s for s in names if s not in env]
    if missing:
        raise KeyError(missing[0])
    fn = sp.lambdify([sp.Symbol(s) for s in names], expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols}),
                     modules=[NUMERIC_FUNCTIONS, "numpy"])
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(fn(*[env[s] for s in names]), dtype=np.float64), (n,))


def data_trip_means(analysis, global_size: list[int], local_size: list[int], args: dict,
                    inputs: dict[str, np.ndarray]) -> dict[str, float]:
    """``trip_<line>`` -> the mean trip count per entry of each loop of ``analysis`` with a ``data_trip`` whose buffers
    ``inputs`` gives (buffer parameter -> its elements, flattened), at this launch (sizes, scalar ``args``); a loop
    whose reads all fall outside the buffers, or whose count does not evaluate, is left out."""
    loops = [lp for lp in getattr(analysis, "loops", ()) if lp.data_trip is not None
             and all(buffer in inputs for buffer, _ in lp.loads.values())]
    if not loops:
        return {}
    items = _items(global_size, local_size)
    n = len(items["gid0"])
    env = {**items, **{k: v for k, v in args.items() if not k.startswith(TRIP_PREFIX)}}
    out = {}
    for lp in loops:
        inside, values = np.ones(n, dtype=bool), {}
        try:
            for idsym, (lo, hi) in (lp.ranges or {}).items():  # the work-items the guards around the loop let in
                at = items[idsym.name]
                inside &= (at >= _evaluate(sp.sympify(lo), env, n)) & (at < _evaluate(sp.sympify(hi), env, n))
            order = sorted(lp.loads, key=lambda s: s.name)  # each element's value goes in as kg_ld<k>
            for k, symbol in enumerate(order):
                buffer, index = lp.loads[symbol]
                array = inputs[buffer]
                at = _evaluate(index, env, n)
                ok = np.isfinite(at) & (at >= 0) & (at < len(array))
                inside &= ok
                values[f"kg_ld{k}"] = np.where(ok, array[np.where(ok, at, 0).astype(np.int64)], 0).astype(np.float64)
            renamed = lp.data_trip.xreplace({s: sp.Symbol(f"kg_ld{k}") for k, s in enumerate(order)})
            trip = _evaluate(renamed, {**env, **values}, n)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        trip = trip[inside & np.isfinite(trip)]
        if len(trip):
            out[f"{TRIP_PREFIX}{lp.line}"] = float(np.maximum(trip, 0.0).mean())
    return out
