"""The sympy vocabulary of the analysis: work-size and work-item symbols, and exact count functions.

Symbols: scalar parameters by name; work sizes ``gsz0..2`` (global size), ``lsz0..2`` (local size),
``ngrp0..2`` (number of groups); work-item ids ``gid0..2``, ``lid0..2``, ``grp0..2`` (unknowns the
analysis averages over, :func:`average_over_ids`). Names starting with ``OPAQUE_PREFIXES`` are values
the analysis cannot follow (:mod:`kgraph.analysis.symbolic`). Functions: :class:`floor_log2` (halving
loops), :class:`clip01` and :func:`sum_over_affine` (guards summed over a loop), :func:`sum_geometric`,
:func:`tidy`.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

SIZE_OF_ID = {"gid": "gsz", "lid": "lsz", "grp": "ngrp"}
#: the symbol of a loop whose trip count the analysis cannot derive is ``trip_<line>`` (``loops.opaque_loop``); a
#: caller that knows the loop's mean trip count gives it under that name (``kgraph estimate --arg trip_8=12``)
TRIP_PREFIX = "trip_"
OPAQUE_PREFIXES = ("v_", "ld_", "call_", "sel", TRIP_PREFIX)


@lru_cache(maxsize=None)
def work_symbol(prefix: str, dim: int) -> sp.Symbol:
    """``gid0`` .. ``ngrp2``; sizes are positive integers, ids non-negative integers."""
    if prefix in SIZE_OF_ID:
        return sp.Symbol(f"{prefix}{dim}", integer=True, nonnegative=True)
    return sp.Symbol(f"{prefix}{dim}", integer=True, positive=True)


def param_symbol(name: str, integer: bool = True) -> sp.Symbol:
    return sp.Symbol(name, integer=True) if integer else sp.Symbol(name, real=True)


class floor_log2(sp.Function):
    """``floor(log2(x))`` computed exactly for rationals (halving/doubling loop trip counts)."""

    @classmethod
    def eval(cls, x):
        if x.is_Rational and x > 0:
            p, q = int(x.p), int(x.q)
            k = p.bit_length() - q.bit_length()
            return sp.Integer(k if (p >> k if k >= 0 else p << -k) >= q else k - 1)
        return None


class clip01(sp.Function):
    """``Min(1, Max(0, x))``: the fraction of work-items passing a guard whose bound depends on an open
    loop's variable, kept as one function so that the loop can sum it exactly over its iterations
    (:func:`sum_over_affine`) or, where it cannot, drop the clipping (:func:`unclip`). It never leaves
    the analysis (:func:`unclip` at the end turns any left into ``Min``/``Max``)."""

    @classmethod
    def eval(cls, x):
        if x.is_number:
            return sp.Min(1, sp.Max(0, x))
        if x.is_nonpositive:
            return sp.Integer(0)
        return None


def unclip(expr, sym=None, keep=False):
    """``expr`` with each :class:`clip01` (whose argument holds ``sym``; any when None) replaced by its
    argument, or by ``Min(1, Max(0, x))`` when ``keep``."""
    if not isinstance(expr, sp.Basic) or not expr.has(clip01):
        return expr
    return expr.replace(lambda e: isinstance(e, clip01) and (sym is None or sym in e.args[0].free_symbols),
                        lambda e: sp.Min(1, sp.Max(0, e.args[0])) if keep else e.args[0])


def _clipped_sum(alpha, beta, trips):
    """``sum(clip01(alpha*t + beta) for t in range(trips))`` in closed form, for ``alpha > 0``: ``a`` terms
    are <= 0, ``b`` are < 1 (so ``b - a`` lie in (0, 1), linear), the other ``trips - b`` are 1."""
    a = sp.Min(trips, sp.Max(0, sp.floor(-beta / alpha) + 1))
    b = sp.Min(trips, sp.Max(0, sp.ceiling((1 - beta) / alpha)))
    return (trips - b) + (b - a) * beta + alpha * (b * (b - 1) - a * (a - 1)) / 2


def sum_over_affine(expr, sym, start, step, trips):
    """Sum of ``expr`` over ``sym = start + step*t``, ``t`` in ``[0, trips)``, or None when a term is not
    ``c * clip01(p*sym + q)`` (``c``, ``p``, ``q`` free of ``sym``, the sign of ``p*step`` known) nor free
    of :class:`clip01` of ``sym``. Terms without it are summed at the mean of ``sym`` (exact when linear)."""
    total = sp.Integer(0)
    mean = start + step * (trips - 1) / 2
    for term in sp.Add.make_args(sp.expand(expr)):
        clips = [f for f in sp.Mul.make_args(term) if isinstance(f, clip01) and sym in f.args[0].free_symbols]
        if not clips:
            total += trips * term.subs(sym, mean)
            continue
        if len(clips) != 1:
            return None
        coef = term / clips[0]
        arg = sp.expand(clips[0].args[0])
        p = sp.diff(arg, sym)
        if sym in coef.free_symbols or sym in p.free_symbols:
            return None
        alpha, beta = sp.expand(p * step), sp.expand(arg.subs(sym, start))
        if alpha.is_positive:
            total += coef * _clipped_sum(alpha, beta, trips)
        elif alpha.is_negative:
            total += coef * _clipped_sum(-alpha, beta + alpha * (trips - 1), trips)
        elif alpha.is_zero:
            total += coef * trips * clip01(beta)
        else:
            return None
    return total


def sum_polynomial(expr, sym, start, step, trips):
    """``sum(expr, sym = start, start + step, ..., trips terms)`` in closed form when ``expr`` is a polynomial of
    degree 2 or more in ``sym`` (a guard's share times a triangular trip: the mean of the product is not the
    product at the mean; affine terms are summed exactly by the mean already); None otherwise."""
    try:
        poly = sp.Poly(sp.expand(expr), sym)
    except sp.PolynomialError:
        return None
    if poly.degree() < 2 or not sp.sympify(step).is_number:
        return None
    t = sp.Symbol("t_iter", integer=True, nonnegative=True)
    return sp.expand(sp.summation(sp.expand(expr.subs(sym, start + step * t)), (t, 0, trips - 1)))


def sum_geometric(expr, sym, start, ratio, trips):
    """``sum(expr, sym = start, start*ratio, ..., trips terms)`` (a doubling/halving loop). ``floor``/``ceiling``
    of the iteration are dropped (a guard's ``ceiling(n/(2*s))`` ids summed as ``n/(2*s)``: exact when the sizes
    and steps are powers of two, as in scans and tree reductions)."""
    k = sp.Symbol("k_iter", integer=True, nonnegative=True)
    term = expr.subs(sym, start * ratio ** k)
    term = sp.expand(term.replace(lambda e: isinstance(e, (sp.floor, sp.ceiling)) and k in e.free_symbols,
                                  lambda e: e.args[0]))
    try:
        return sp.summation(term, (k, 0, trips - 1))
    except ZeroDivisionError:  # sympy's telescoping test fails on some sums: their terms one by one
        return sp.Add(*(sp.summation(t, (k, 0, trips - 1)) for t in sp.Add.make_args(term)))


def ceil_log2(x):
    """``ceiling(log2(x))`` for x >= 1, through :class:`floor_log2` (exact)."""
    return floor_log2(2 * x - 1) if x.is_integer else -floor_log2(1 / x)


def _exact(text: str):
    """The exact rational of a decimal/float literal text (``0.25`` -> 1/4); no ``nsimplify`` guessing."""
    try:
        return sp.Rational(text.rstrip("fFhHlL"))
    except (TypeError, ValueError):
        return sp.Float(float(text.rstrip("fFhHlL")))


def tidy(expr):
    """A cheap canonical form of a count (sums of products, like terms merged); no ``simplify``.

    ``expand`` is linear in the size of count expressions (sums of products of trip counts and
    fractions); when it grows the expression (a product of long sums) the original is kept.
    """
    expr = sp.sympify(expr)
    if expr.is_Atom:
        return expr
    expanded = sp.expand(expr)
    return expanded if sp.count_ops(expanded) <= 2 * sp.count_ops(expr) + 4 else expr


def is_opaque(expr) -> bool:
    return any(s.name.startswith(OPAQUE_PREFIXES) for s in getattr(expr, "free_symbols", ()))


def loop_symbols(expr) -> set:
    """The loop variables (``<name>_L<line>``) ``expr`` depends on."""
    return {s for s in getattr(expr, "free_symbols", ()) if "_L" in s.name and s.name.rsplit("_L", 1)[1].isdigit()}


def id_symbols(expr) -> set:
    return {s for s in getattr(expr, "free_symbols", ()) if s.name[:-1] in SIZE_OF_ID and s.name[-1].isdigit()}


def normalize_ids(expr):
    """Rewrite ``grp*lsz + lid`` as ``gid`` (and ``lsz*ngrp`` as ``gsz``) where that removes ``grp``."""
    expr = sp.sympify(expr)
    for d in range(3):
        lid, grp, gid = work_symbol("lid", d), work_symbol("grp", d), work_symbol("gid", d)
        lsz, ngrp, gsz = work_symbol("lsz", d), work_symbol("ngrp", d), work_symbol("gsz", d)
        if ngrp in expr.free_symbols and lsz in expr.free_symbols:
            cand = sp.expand(expr.subs(ngrp, gsz / lsz))
            if lsz not in cand.free_symbols:
                expr = cand
        if lid in expr.free_symbols and grp in expr.free_symbols:
            cand = sp.expand(expr.subs(lid, gid - grp * lsz))
            if grp not in cand.free_symbols:
                expr = cand
    return expr


def average_over_ids(expr, ranges: dict | None = None):
    """Replace each work-item id by its mean over the NDRange (id uniform in [0, size)), or over
    ``ranges[id] = (lo, hi)`` (ids in ``[lo, hi)``) where the caller knows the id is restricted there (a loop
    under a guard on the same id: the guard's fraction is counted apart, so the loop's trip is averaged over
    the ids that pass it)."""
    ranges = ranges or {}
    subs = {s: (ranges[s][0] + ranges[s][1] - 1) / 2 if s in ranges else
            (work_symbol(SIZE_OF_ID[s.name[:-1]], int(s.name[-1])) - 1) / 2 for s in id_symbols(expr)}
    return expr.subs(subs) if subs else expr
