"""One global access of a kernel over its *box* of independent integer variables (the symbolic half of
:mod:`kgraph.analysis.footprint`, whose module doc describes the box, the guards and what makes an access
inexact): :func:`prepare_access` rewrites the access' index as ``c0 + sum(coef * var)`` with each box
variable's bounds, the guards that clip or gate it and the clamps it contains; :func:`access_expressions`
lists the sympy expressions an evaluation needs as numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from kgraph.analysis.symbolic import SIZE_OF_ID, id_symbols, is_opaque, loop_symbols, normalize_ids, work_symbol


@dataclass
class _Var:
    """A box variable: ``lo``/``hi`` inclusive bounds (sympy), ``id``: the work-item id it is (or None)."""

    sym: object
    lo: object
    hi: object
    id: object = None
    clamp: object = None  # for the value of a clamp: (e's c0, [(var index, coef)], path) (see _clamp_nest)


@dataclass
class _Prepared:
    """One global access over its box: index ``c0 + sum(coef * var)`` (element units of ``scale``)."""

    buffer: str
    scale: int
    width: float
    c0: object = None
    coefs: list = field(default_factory=list)  # (var index, coefficient)
    vars: list = field(default_factory=list)   # _Var
    clips: list = field(default_factory=list)  # (var index, op, bound)
    gates: list = field(default_factory=list)  # ("trip", expr): empty if < 1; ("guard", id sym, op, bound, related)
    reason: str = ""                           # why the access is inexact ("" = exact)
    affine: bool = True


def prepare_access(a, buffers: dict[str, int]) -> _Prepared:
    """Global access ``a`` of the analysis over its box (see the module doc); ``buffers``: the kernel's
    global buffer parameters and their element sizes. Inexact accesses say why in ``reason``."""
    elem = buffers.get(a.buffer, 0)
    acc = _Prepared(a.buffer, int(getattr(a, "scale", 1) or 1), (a.bytes / elem) if elem else 0)
    index = getattr(a, "index_expr", None)
    ctx = getattr(a, "context", None)
    if a.buffer not in buffers or not elem:
        acc.reason, acc.affine = f"'{a.buffer}' is not a global buffer parameter of known element size", False
        return acc
    if index is None or ctx is None:
        acc.reason, acc.affine = "no index expression", False
        return acc
    expr = sp.sympify(index)
    if is_opaque(expr) or any(s.name.startswith("ld_") for s in expr.free_symbols):
        acc.reason, acc.affine = f"indirect or opaque index {a.index}", False
        return acc
    reasons = []
    if ctx["opaque_loops"]:
        reasons.append(f"inside a loop without a trip count (line {ctx['opaque_loops'][0]})")
    if ctx["exits"]:
        reasons.append(f"inside a loop with break (line {ctx['exits'][0]})")
    if any(g is None for g in ctx["guards"]):
        reasons.append("under a condition that is not an id guard")
    box: list[_Var] = []
    consumed = set()
    for sym, lp, subs in reversed(ctx["loops"]):
        f = subs or (lambda e: e)
        start, raw = sp.sympify(f(lp.start)), sp.sympify(f(lp.raw_trip if lp.raw_trip is not None else lp.trip))
        if sym not in expr.free_symbols:
            if not (id_symbols(raw) or loop_symbols(raw) or is_opaque(raw)):
                acc.gates.append(("trip", raw))
            continue
        if lp.geometric or lp.step is None:
            reasons.append(f"geometric loop variable {lp.var} (line {lp.line})")
            break
        step = sp.sympify(f(lp.step))
        grid = _grid_stride(start, step, f(lp.bound) if lp.bound is not None else None, lp)
        if grid is not None:
            idsym, a0, b = grid
            u = sp.Symbol(f"u_{lp.var}_{lp.line}", integer=True)
            box.append(_Var(u, a0, b - 1))
            consumed.add(idsym)
            expr = expr.subs(sym, u)
            continue
        if id_symbols(raw) or loop_symbols(raw) or is_opaque(raw):
            reasons.append(f"trip count of loop {lp.var} (line {lp.line}) depends on ids or another loop")
            break
        t = sp.Symbol(f"t_{lp.var}_{lp.line}", integer=True, nonnegative=True)
        box.append(_Var(t, sp.Integer(0), raw - 1))
        expr = expr.subs(sym, start + step * t)
    if reasons:
        acc.reason = "; ".join(reasons)
    expr = sp.expand(normalize_ids(expr))
    if loop_symbols(expr):
        acc.reason = acc.reason or "index depends on a loop variable not analysed"
        acc.affine = False
        return acc
    ids = id_symbols(expr)
    for d in range(3):  # gid and lid/grp of one dimension in one index: split gid
        gid, lid, grp = (work_symbol(k, d) for k in ("gid", "lid", "grp"))
        if gid in ids and (lid in ids or grp in ids):
            expr = sp.expand(expr.subs(gid, grp * work_symbol("lsz", d) + lid))
    ids = id_symbols(expr)
    if ids & consumed:
        acc.reason = acc.reason or "index uses the id of a grid-stride loop besides the loop"
    for s in sorted(ids, key=lambda s: s.name):
        size = work_symbol(SIZE_OF_ID[s.name[:-1]], int(s.name[-1]))
        box.append(_Var(s, sp.Integer(0), size - 1, id=s))
    names = {v.sym: i for i, v in enumerate(box)}
    for g in ctx["guards"]:
        if g is None:
            continue
        idsym, op, bound = g
        bound = sp.sympify(bound)
        if loop_symbols(bound) or id_symbols(bound) or is_opaque(bound):
            if idsym in names or _related(idsym, ids) or idsym in consumed:
                acc.reason = acc.reason or f"guard on {idsym} with a bound that varies ({bound})"
            continue
        if idsym in consumed:
            acc.gates.append(("guard", idsym, op, bound, True))
        elif idsym in names:
            acc.clips.append((names[idsym], op, bound))
        else:
            acc.gates.append(("guard", idsym, op, bound, _related(idsym, ids)))
    expr = _clamps(acc, expr, box)
    if not acc.affine:
        return acc
    syms = [v.sym for v in box]
    c0 = expr.subs({s: 0 for s in syms})
    coefs = []
    for i, s in enumerate(syms):
        c = sp.expand(sp.diff(expr, s))
        if c.free_symbols & set(syms) or c.has(sp.Derivative) or c.has(sp.Subs):
            acc.reason, acc.affine = acc.reason or f"index {a.index} is not affine in ids and loop variables", False
            return acc
        coefs.append((i, c))
    if sp.expand(expr - c0 - sum(c * syms[i] for i, c in coefs)) != 0 or c0.has(sp.Derivative):
        acc.reason, acc.affine = acc.reason or f"index {a.index} is not affine", False
        return acc
    acc.c0, acc.coefs, acc.vars = c0, coefs, box
    return acc

def _clamps(acc: _Prepared, expr, box: list):
    """Replace each outermost Min/Max nest of ``expr`` that clamps one affine expression ``e`` of the box
    variables between box-free bounds by a new box variable (its range is computed per launch from
    ``e``'s range: a clamp is non-decreasing with unit steps, so a dense ``e`` gives a dense value
    range). The access stays inexact (an upper bound) when clamped terms share variables."""
    nests = expr.atoms(sp.Min, sp.Max)
    if not nests:
        return expr
    outer = [m for m in nests if not any(o != m and o.has(m) for o in nests)]
    syms = {v.sym for v in box}
    used = []
    for k, m in enumerate(sorted(outer, key=sp.default_sort_key)):
        nest = _clamp_nest(m, syms)
        if nest is None:
            acc.reason, acc.affine = acc.reason or f"index {expr} bounds a value it cannot clamp", False
            return expr
        e, path = nest
        e = sp.expand(e)
        c0 = e.subs({s: 0 for s in syms})
        coefs = []
        for i, v in enumerate(box):
            c = sp.expand(sp.diff(e, v.sym))
            if c.free_symbols & syms or c.has(sp.Derivative, sp.Min, sp.Max) or c.has(sp.Subs):
                acc.reason, acc.affine = acc.reason or f"clamped index {e} is not affine", False
                return expr
            if c != 0:
                coefs.append((i, c))
        if sp.expand(e - c0 - sum(c * box[i].sym for i, c in coefs)) != 0:
            acc.reason, acc.affine = acc.reason or f"clamped index {e} is not affine", False
            return expr
        w = sp.Symbol(f"w_clamp{k}", integer=True)
        box.append(_Var(w, sp.Integer(0), sp.Integer(0), clamp=(c0, coefs, path)))
        used.append({i for i, _ in coefs})
        expr = expr.xreplace({m: w})
    rest = {i for i, v in enumerate(box) if v.sym in expr.free_symbols and v.clamp is None}
    for j, u in enumerate(used):
        if u & rest or any(u & o for o in used[j + 1:]):
            acc.reason = acc.reason or "clamped index terms share variables with other terms (hull)"
            break
    return expr



def _related(idsym, ids) -> bool:
    """Whether an id that depends on ``idsym`` is among ``ids``: ``gid<d>`` and ``lid<d>``/``grp<d>``
    (``lid`` and ``grp`` are independent of each other)."""
    d, kind = idsym.name[-1], idsym.name[:-1]
    others = ("lid", "grp") if kind == "gid" else ("gid",)
    return any(s.name[-1] == d and s.name[:-1] in others for s in ids)


def _grid_stride(start, step, bound, lp):
    """(id, a0, bound) for ``for (i = id + a0; i < bound; i += size_of(id))`` (grid or block stride)."""
    if bound is None or "stride over" not in (lp.note or ""):
        return None
    na, bound = normalize_ids(start), sp.sympify(bound)
    for s in id_symbols(na):
        if sp.expand(sp.diff(na, s) - 1) == 0 and not id_symbols(bound) and not loop_symbols(bound):
            return s, sp.expand(na.subs(s, 0)), bound
    return None


def access_expressions(acc: _Prepared):
    """``(key, sympy expression)`` of every number an evaluation of ``acc`` needs (none when not affine)."""
    if not acc.affine:
        return
    yield "c0", acc.c0
    for i, c in acc.coefs:
        yield f"k{i}", c
    for i, v in enumerate(acc.vars):
        yield f"lo{i}", v.lo
        yield f"hi{i}", v.hi
        if v.clamp is not None:
            c0, coefs, path = v.clamp
            yield f"e{i}c0", c0
            for j, c in coefs:
                yield f"e{i}k{j}", c
            for d, (_, bounds) in enumerate(path):
                for n, b in enumerate(bounds):
                    yield f"e{i}p{d}_{n}", b
    for j, (_, _, bound) in enumerate(acc.clips):
        yield f"clip{j}", bound
    for j, gate in enumerate(acc.gates):
        if gate[0] == "trip":
            yield f"gate{j}", gate[1]
        else:
            yield f"gate{j}", gate[3]
            yield f"gsize{j}", work_symbol(SIZE_OF_ID[gate[1].name[:-1]], int(gate[1].name[-1]))


def _clamp_nest(node, syms):
    """``(e, path)`` when ``node`` is a Min/Max nest with one argument ``e`` that depends on ``syms`` at
    its innermost level and box-free bounds: ``path`` = ``[("min" or "max", [bounds])]``, outermost first."""
    if not isinstance(node, (sp.Min, sp.Max)):
        return None
    dep = [a for a in node.args if a.free_symbols & syms]
    if len(dep) != 1:
        return None
    bounds = [a for a in node.args if not (a.free_symbols & syms)]
    if any(b.has(sp.Min, sp.Max) and is_opaque(b) for b in bounds) or any(is_opaque(b) for b in bounds):
        return None
    inner = dep[0]
    head = ("min" if isinstance(node, sp.Min) else "max", bounds)
    if isinstance(inner, (sp.Min, sp.Max)):
        sub = _clamp_nest(inner, syms)
        return None if sub is None else (sub[0], [head] + sub[1])
    if inner.has(sp.Min, sp.Max):
        return None
    return inner, [head]
