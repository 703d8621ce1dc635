"""Branch probabilities: which fraction of work-items takes an ``if`` arm.

A *guard* compares a work-item id (times a constant, plus an offset) with a bound free of ids. With
each id uniform in [0, size) and the ids of different dimensions/kinds independent, the exact
fraction of work-items that pass is computed from the integer interval each id must lie in:

=====================  =====================================
``id + c <  B``        ``Min(1, (B - c)/size)``
``id + c <= B``        ``Min(1, (B - c + 1)/size)``
``id + c >= B``        ``1 - Min(1, (B - c)/size)``
``id + c >  B``        ``1 - Min(1, (B - c + 1)/size)``
``id + c == B``        ``1/size``;  ``!=``: ``1 - 1/size``
two bounds on one id   ``Max(0, Min(hi, size) - Max(lo, 0))/size`` for ``lo <= id < hi``
=====================  =====================================

``size`` is ``gsz<d>`` for a global id (also ``blockIdx*blockDim + threadIdx``), ``lsz<d>`` for a local
id, ``ngrp<d>`` for a group id; ``k*id`` (k a constant integer) uses ``ceiling``/``floor`` of the
divided bound. A coefficient in work sizes and loop variables of known sign (``(d + 1)*s*2 - 1 < n`` in a
scan's ``for (s = 1; s < n; s <<= 1)``) is taken when the offset is a multiple of it, minus 0 or 1
(:meth:`_Guard.symbolic_atom`; exact when it divides the bound, as powers of two do). ``id % m == 0`` (``m > 0``
free of ids: an integer, or sizes and loop variables of known sign) passes ``1/m`` of the ids and ``!= 0`` the
rest (:meth:`_Guard.modulo`; exact when ``m`` divides the size: the interleaved tree reduction's
``tid % (2*s) == 0`` passes 128 + 64 + ... + 1 of 256 items over its steps). Boolean structure: ``!`` is pushed into the comparisons (De Morgan), a conjunction
(``&&``) intersects the intervals of each id and multiplies across ids, and ``a || b`` is
``1 - P(!a && !b)``; so ``if (row >= M || col >= N) return;`` keeps ``Min(1, M/gsz1) * Min(1, N/gsz0)``
and ``x > 0 && x < nx - 1`` is the interior fraction ``(Min(nx - 1, gsz0) - 1)/gsz0``.
When a bound depends on a loop variable the fraction is ``clip01(B/size)`` (``Min(1, Max(0, .))``):
an affine loop sums it exactly over its iterations (``if (f < x)`` in ``for (x = a; x > 0; x -= 2)``:
the iterations with ``x >= size`` count 1, not ``x/size``); a halving/doubling loop (``if (lid < s)``
in a tree reduction, where ``s <= size``) and bodies of other shapes sum it unclipped, at the
variable's mean (as before: exact while the bound stays within [0, size]).
Several ``!=`` on one id (``ix != 0 && ix != nx - 1``, the interior of a grid's boundary test
``ix == 0 || ix == nx - 1 || ...``) pass ``1 - k/size`` for ``k`` distinct bounds (each taken to be an id
in range, as for a single ``==``).
Any other condition (data values, two different ids in one comparison, ``!=`` mixed with bounds on
the same id) returns None: the caller weighs both arms 1/2.
"""
from __future__ import annotations

import sympy as sp
from sympy.polys.polyerrors import ComputationFailed

from kgraph.analysis.context import condition_value, node_text
from kgraph.analysis.symbolic import SIZE_OF_ID, clip01, id_symbols, is_opaque, normalize_ids, work_symbol

_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def guard_fraction(cond, env, loop_symbols, aliases=None) -> object | None:
    """Fraction of work-items for which ``cond`` holds, or None when it is not a guard. ``aliases``: boolean locals
    set once (``const bool inside = gx < nx && gy < ny;``) -> their expression, read in their place."""
    out = _Guard(env, loop_symbols, aliases).probability(condition_value(cond), False)
    return None if out is None else out[0]


def guard_atoms(conditions, env, loop_symbols, aliases=None) -> list:
    """The conditions in force at a statement (``(condition node, negated)`` pairs, node None for one
    that is not a condition) as id guards ``(id, op, bound)``: each conjunct of each condition
    (``!`` pushed in), ``None`` for a conjunct that is not a guard on one id (data, a disjunction)."""
    out = []
    for cond, negated in conditions:
        if cond is None:
            out.append(None)
            continue
        guard = _Guard(env, loop_symbols, aliases)
        for leaf, neg in _conjuncts(condition_value(cond), negated, aliases):
            out.append(guard.atom(leaf, neg))
    return out


def guard_ranges(conditions, env, loop_symbols, aliases=None) -> dict:
    """``{id symbol: (lo, hi)}``: the interval ``[lo, hi)`` each id is restricted to by the conjunctions of id
    guards in force (``if (i > k && i < n)`` gives ``i`` in ``[k + 1, n)``); ids no guard bounds are absent.
    Bounds are those of :meth:`_Guard.fraction` (unclipped when they depend on a loop variable), so a loop's
    trip averaged over the range, times the guard's fraction, is the trip's sum over the passing ids."""
    by_id: dict = {}
    for atom in guard_atoms(conditions, env, loop_symbols, aliases):
        if atom is not None and atom[1] != "!=":
            by_id.setdefault(atom[0], []).append(atom[1:])
    out = {}
    for idsym, constraints in by_id.items():
        size = work_symbol(SIZE_OF_ID[idsym.name[:-1]], int(idsym.name[-1]))
        lows, highs = _ends(constraints)
        if any(b.free_symbols & set(loop_symbols) for _, b in constraints):
            out[idsym] = (sp.Max(*lows) if lows else sp.Integer(0), sp.Min(*highs) if highs else size)
        else:
            out[idsym] = (sp.Max(0, *lows), sp.Min(size, *highs))
    return out


class _Guard:
    def __init__(self, env, loop_symbols, aliases=None):
        # loop_symbols: the open loops' variables, a set or {symbol: Loop} (then their signs are known)
        self.env, self.loop_symbols, self.aliases = env, set(loop_symbols), aliases
        self.positive = {s for s, lp in loop_symbols.items() if _positive_variable(lp)} \
            if isinstance(loop_symbols, dict) else set()

    def probability(self, node, negated: bool):
        """(fraction, ids it depends on) of ``node`` (``not node`` when ``negated``), or None."""
        leaves = _conjuncts(node, negated, self.aliases)
        if len(leaves) == 1:
            leaf, neg = leaves[0]
            if _is_logic(leaf, "||" if not neg else "&&"):  # a disjunction: 1 - P(all operands false)
                inner = self.probability(leaf, not neg)
                return None if inner is None else (1 - inner[0], inner[1])
        intervals: dict = {}
        parts, seen = [], set()
        for leaf, neg in leaves:
            mod = self.modulo(leaf, neg)
            if mod is not None:
                if mod[1] & seen:
                    return None
                parts.append(mod[0])
                seen |= mod[1]
                continue
            atom = self.atom(leaf, neg)
            if atom is not None:
                intervals.setdefault(atom[0], []).append(atom[1:])
                continue
            if _is_logic(leaf, "||") or _is_logic(leaf, "&&"):
                sub = self.probability(leaf, neg)
                if sub is None or sub[1] & seen:
                    return None
                parts.append(sub[0])
                seen |= sub[1]
                continue
            return None
        if seen & set(intervals):
            return None
        total = sp.Integer(1)
        for idsym, constraints in intervals.items():
            frac = self.fraction(idsym, constraints)
            if frac is None:
                return None
            total *= frac
        for p in parts:
            total *= p
        return total, seen | set(intervals)

    def atom(self, node, negated: bool):
        """(id symbol, op, bound) for ``id OP bound`` (ops < <= > >= == !=), or None."""
        if node is None or node.type != "binary_expression":
            return None
        op = node_text(node.child_by_field_name("operator"))
        if op not in _FLIP:
            return None
        if negated:
            op = _NEGATE[op]
        lhs = normalize_ids(self.env.to_sympy(node.child_by_field_name("left")))
        rhs = normalize_ids(self.env.to_sympy(node.child_by_field_name("right")))
        if id_symbols(rhs) and not id_symbols(lhs):
            lhs, rhs, op = rhs, lhs, _FLIP[op]
        ids = id_symbols(lhs)
        if len(ids) != 1 or id_symbols(rhs) or is_opaque(lhs) or is_opaque(rhs):
            return None
        (idsym,) = ids
        k = sp.expand(sp.diff(lhs, idsym))
        sign = self.sign(k)
        if sign is None:
            return None
        if not k.is_Integer:
            return self.symbolic_atom(idsym, k * sign, sp.expand(lhs - k * idsym) * sign, rhs * sign,
                                      op if sign > 0 else _FLIP[op])
        bound = (rhs - sp.expand(lhs - k * idsym)) / k
        if sign < 0:
            op = _FLIP[op]
        if k != 1 and op in ("==", "!="):
            return None
        return idsym, op, bound

    def modulo(self, node, negated: bool):
        """(fraction, {id}) for ``id % m == 0`` or ``!= 0`` with ``m > 0`` free of ids, or None."""
        if node is None or node.type != "binary_expression":
            return None
        op = node_text(node.child_by_field_name("operator"))
        if op not in ("==", "!="):
            return None
        op = _NEGATE[op] if negated else op
        lhs = normalize_ids(self.env.to_sympy(node.child_by_field_name("left")))
        rhs = normalize_ids(self.env.to_sympy(node.child_by_field_name("right")))
        if lhs == 0:
            lhs, rhs = rhs, lhs
        if rhs != 0 or not isinstance(lhs, sp.Mod):
            return None
        value, m = lhs.args
        ids = id_symbols(value)
        if len(ids) != 1 or value not in ids or id_symbols(m) or is_opaque(m) or self.sign(m) != 1:
            return None
        return (1 / m if op == "==" else 1 - 1 / m), ids

    def symbolic_atom(self, idsym, k, c, b, op_k):
        """``k*id + c OP b`` with ``k > 0`` an expression in sizes and loop variables (``(d + 1)*s*2 - 1 < n`` in a
        scan: ``k = 2*s``, ``c = 2*s - 1``), integers. With ``c = q*k + r`` (``q`` integer-valued, ``r`` 0 or -1 after
        turning ``<=``/``>`` into ``<``/``>=``), the ids passing ``< b`` number ``ceiling(b/k) - q + [r < 0]``
        (exact when ``k`` divides ``b``: the powers of two of scans and tree reductions), so a geometric loop's
        sum over ``s`` drops the rounding (``analyze``). Anything else: None."""
        if not (c.is_integer and b.is_integer) or op_k in ("==", "!="):
            return None
        if op_k in ("<=", ">"):
            c, op_k = c - 1, "<" if op_k == "<=" else ">="
        syms = sorted(k.free_symbols, key=str)
        try:  # c = 0 divides as it is (``(gid >> 6) < n``: k = 1/64, which sympy's div cannot take without symbols)
            q, r = (sp.Integer(0), sp.Integer(0)) if c == 0 else sp.div(c, k, *syms)
        except (sp.PolynomialError, sp.GeneratorsNeeded, ComputationFailed):
            return None
        if r not in (0, -1) or not sp.sympify(q).is_integer:
            return None
        return idsym, op_k, b / k - q + (1 if r == -1 else 0)

    def sign(self, k):
        """1 or -1: the sign of an id's coefficient ``k`` free of ids (an integer, or an expression in work
        sizes and loop variables known positive, e.g. ``2*s`` in ``for (s = 1; s < n; s <<= 1)``), else None."""
        if k.is_Integer:
            return None if k == 0 else (1 if k > 0 else -1)
        if id_symbols(k) or is_opaque(k):
            return None
        k = k.subs({s: sp.Dummy(integer=True, positive=True) for s in k.free_symbols & self.positive})
        return 1 if k.is_positive else (-1 if k.is_negative else None)

    def fraction(self, idsym, constraints):
        size = work_symbol(SIZE_OF_ID[idsym.name[:-1]], int(idsym.name[-1]))
        in_loop = any(bool(b.free_symbols & self.loop_symbols) for _, b in constraints)
        if len(constraints) == 1:
            op, b = constraints[0]
            clip = clip01 if in_loop else (lambda x: sp.Min(1, x))
            if op == "==":
                return 1 / size
            if op == "!=":
                return 1 - 1 / size
            if op in ("<", "<="):
                return clip(_upper(op, b) / size)
            return 1 - clip(_upper(_NEGATE[op], b) / size)
        if all(op == "!=" for op, _ in constraints):  # id avoids k distinct values (a grid's two edges)
            values = set(b for _, b in constraints)
            return 1 - sp.Integer(len(values)) / size
        if any(op == "!=" for op, _ in constraints):
            return None
        lows, highs = _ends(constraints)
        if in_loop:
            hi = sp.Min(*highs) if highs else size
            lo = sp.Max(*lows) if lows else sp.Integer(0)
            return (hi - lo) / size
        hi = sp.Min(size, *highs)
        lo = sp.Max(0, *lows)
        return sp.Max(0, hi - lo) / size


def _positive_variable(loop) -> bool:
    """Whether every value ``loop``'s variable takes in its body is positive: a doubling loop from a positive
    start, a halving loop that runs while the variable exceeds a non-negative bound, an ascending affine loop
    from a positive start."""
    start, bound = sp.sympify(loop.start), sp.sympify(loop.bound)
    if loop.geometric:
        halving = loop.note.startswith("geometric (halving")
        return bool(bound.is_nonnegative) if halving else bool(start.is_positive)
    return bool(start.is_positive and sp.sympify(loop.step).is_positive)


def _ends(constraints) -> tuple[list, list]:
    """(inclusive lower ends, exclusive upper ends) of ``(op, bound)`` constraints on one id (no ``!=``)."""
    lows, highs = [], []
    for op, b in constraints:
        if op in ("<", "<="):
            highs.append(_upper(op, b))
        elif op in (">", ">="):
            lows.append(_upper(_NEGATE[op], b))
        else:
            lows.append(b)
            highs.append(b + 1)
    return lows, highs


def _upper(op: str, bound):
    """The exclusive upper end of the ids with ``id < bound`` (``<``) or ``id <= bound`` (``<=``)."""
    return sp.ceiling(bound) if op == "<" else sp.floor(bound) + 1


def _is_logic(node, op: str) -> bool:
    return node is not None and node.type == "binary_expression" and \
        node_text(node.child_by_field_name("operator")) == op


def _conjuncts(node, negated: bool, aliases=None) -> list:
    """Flatten a conjunction (``&&``, or ``||`` under a negation) into (node, negated) leaves; a boolean local of
    ``aliases`` is read as its expression (each at most once on a path)."""
    node = condition_value(node)
    if node is not None and node.type == "identifier" and aliases and node_text(node) in aliases:
        name = node_text(node)
        return _conjuncts(aliases[name], negated, {k: v for k, v in aliases.items() if k != name})
    if node is not None and node.type == "unary_expression" and \
            node_text(node.child_by_field_name("operator")) == "!":
        return _conjuncts(node.child_by_field_name("argument"), not negated, aliases)
    if _is_logic(node, "||" if negated else "&&"):
        return _conjuncts(node.child_by_field_name("left"), negated, aliases) + \
            _conjuncts(node.child_by_field_name("right"), negated, aliases)
    return [(node, negated)]


def early_exit(node) -> list | None:
    """For ``if (c) return;`` or ``if (c) { s1; ...; return; }`` without ``else``: the statements before the
    ``return`` (none for the first form), after which the enclosing block runs only where ``c`` is false;
    None for any other statement."""
    if node.type != "if_statement" or node.child_by_field_name("alternative") is not None:
        return None
    body = node.child_by_field_name("consequence")
    stmts = [c for c in body.named_children if c.type != "comment"] if body.type == "compound_statement" else [body]
    return stmts[:-1] if stmts and stmts[-1].type == "return_statement" else None
