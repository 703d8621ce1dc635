"""Assembles a recipe's idioms into one kernel of the intermediate form.

Layout of every generated kernel::

    ids, linear index [, guard]          (space.py; a grid-stride loop wraps the rest)
    [local id, __local arrays]           (structure.py)
    top-level loads                      (access.py, outside loops)
    accumulator (or private array)
    loop nest { loads; tv = mix(values); update acc [in a divergent branch]; [atomic] }
    [early-exit loop (early_exit.py); acc updated with what it found]
    [divergent fix-up], [atomic], output stores, [work-group reduction]
"""
from __future__ import annotations

from dataclasses import dataclass

from . import ir
from .access import load_input
from .arith import Val, _call, float_term, helper_of, int_term, macro_of, shrink
from .builder import Builder
from .early_exit import ExitLoop, exit_loop
from .loops import Nest, close, make_nest
from .recipe import Recipe
from .space import Space, make_space
from .structure import atomic, divergence, fixed_shape, reduction, tile_nest

BASES = {"fp32": (ir.FLOAT, ir.FLOAT), "fp64": (ir.DOUBLE, ir.DOUBLE), "mixed": (ir.FLOAT, ir.DOUBLE),
         "int": (ir.UINT, ir.UINT)}


@dataclass
class Assembled:
    """A kernel and what its launch spec needs beyond the builder's records.

    Args:
        kernel: the intermediate form; space: its index space; nest: its loop nest.
        local_sizes: the fixed work-group shape (one entry) or None (any shape works).
        terms: a size expression bounding how many terms one output value sums.
        inner, outer: the innermost loop body's statements and the statements outside loops
            (for the cost estimate).
        early: the early-exit idiom's loop (its cost counted apart), or None.
    """

    kernel: ir.Kernel
    space: Space
    nest: Nest
    local_sizes: list | None
    terms: str
    inner: list
    outer: list
    early: ExitLoop | None = None


def _mix(b: Builder, r: Recipe, values: list[Val], base: ir.Type, width: int) -> tuple[list, Val]:
    """The per-iteration value: optionally a macro and a helper over the operands (their results
    declared as variables), then a tree; returns the declarations and the tree."""
    vals, decls = list(values), []
    ty = base.vec(width)

    def declare(call: ir.Call, bound) -> Val:
        var = ir.Var(b.fresh("m"), ty)
        decls.append(ir.Decl(var, call, const=True))
        return Val(var, bound)

    if r.macro:
        macro, bound = macro_of(b.rng, "MIX", base, r.flavours if base.is_float else ("int",))
        b.macros.append(macro)
        a, c = shrink(vals[0], base, 1.0), shrink(vals[min(1, len(vals) - 1)], base, 1.0)
        vals = [declare(ir.Call("MIX", (a.expr, c.expr), ty, "macro"), bound)] + vals[2:]
    if r.helper:
        arity = min(len(vals), 3)
        helper, bound = helper_of(b.rng, "blend", base, width, arity, r.flavours)
        b.helpers.append(helper)
        args = tuple(shrink(v, base, 1.0).expr for v in vals[:arity])
        vals = [declare(ir.Call("blend", args, ty, "helper"), bound)] + vals[arity:]
    extra = int(b.rng.integers(1, 4))
    if base.is_float:
        return decls, shrink(float_term(b.rng, vals, base, r.flavours, extra), base)
    return decls, int_term(b.rng, vals, extra)


def _update(kind: str, target: ir.Expr, t: ir.Expr) -> ir.Assign:
    """``target`` combined with ``t``: sum/damped/max (floats) or add/xor/hash (uint)."""
    base = target.ty.scalar
    if t.ty.base != base.base:
        t = ir.Cast(t, base.vec(t.ty.width))
    if kind in ("sum", "add"):
        return ir.Assign(target, "+=", t)
    if kind == "xor":
        return ir.Assign(target, "^=", t)
    if kind == "hash":
        return ir.Assign(target, "=", ir.binop("+", ir.binop("*", target, ir.Const(31, ir.UINT)), t))
    if kind == "damped":
        return ir.Assign(target, "=", ir.binop("+", ir.binop("*", target, ir.const(0.5, base)), t))
    return ir.Assign(target, "=", _call("fmax", [target, t], base))


def _other(kind: str) -> str:
    return {"sum": "damped", "damped": "sum", "max": "sum", "add": "xor", "xor": "hash", "hash": "add"}[kind]


class _Acc:
    """The accumulator: a variable, or a private array updated in an unrolled loop (register blocking)."""

    def __init__(self, b: Builder, r: Recipe, aty: ir.Type):
        self.b, self.r, self.aty = b, r, aty
        self.var = ir.Var("acc", aty)
        self.coef = None
        if r.private:
            self.R = b.macro_const("RB", r.private)
            if r.constant and aty.is_float:
                self.coef = b.buffer("coef", aty.scalar if r.compute != "mixed" else ir.FLOAT, str(r.private),
                                     space="constant")

    def decls(self) -> list:
        zero = ir.const(0, self.aty.scalar)
        if not self.r.private:
            return [ir.Decl(self.var, ir.Splat(zero, self.aty) if self.aty.width > 1 else zero)]
        rv = ir.Var("r", ir.INT)
        init = ir.Assign(ir.Load("pacc", rv, self.aty, "private"), "=", zero)
        return [ir.ArrayDecl("pacc", self.aty, self.R), self._loop((init,))]

    def _loop(self, body: tuple) -> ir.For:
        unroll = 0 if self.r.unroll else None
        return ir.For(ir.Var("r", ir.INT), ir.Const(0, ir.INT), "<", self.R, "+=", ir.Const(1, ir.INT), body, unroll)

    def update(self, kind: str, t: ir.Expr) -> list:
        if not self.r.private:
            return [_update(kind, self.var, t)]
        rv = ir.Var("r", ir.INT)
        base = t.ty.scalar
        if self.coef is not None:
            scale = ir.Load(self.coef, rv, base, "constant")
        elif base.is_float:
            scale = ir.binop("*", ir.Cast(ir.binop("+", rv, ir.Const(1, ir.INT)), base), ir.const(0.25, base))
        else:
            scale = ir.Cast(ir.binop("+", rv, ir.Const(1, ir.INT)), base)
        return [self._loop((_update(kind, ir.Load("pacc", rv, self.aty, "private"), ir.binop("*", t, scale)),))]

    def scalar(self) -> ir.Expr:
        """The accumulator as one scalar (lanes summed; private arrays: element 0)."""
        if self.r.private:
            return ir.Load("pacc", ir.Const(0, ir.INT), self.aty, "private")
        if self.aty.width == 1:
            return self.var
        total = ir.Lane(self.var, 0, self.aty.scalar)
        for lane in range(1, self.aty.width):
            total = ir.binop("+", total, ir.Lane(self.var, lane, self.aty.scalar))
        return total


def _outputs(b: Builder, r: Recipe, space: Space, acc: _Acc, out_base: ir.Type) -> list:
    """The stores of the result (``coalesced``, ``transposed``, ``inout``, ``lanes``, ``blocked``,
    ``planes`` or ``none``)."""
    gi, total, w = space.gi, space.total, r.width
    if r.output == "none":
        return []
    if r.private:
        out = b.buffer("out", out_base, f"{total}*{r.private}", role="out")
        rv = ir.Var("r", ir.INT)
        idx = ir.binop("+", ir.binop("*", gi, acc.R), rv) if r.output == "blocked" else \
            ir.binop("+", ir.binop("*", rv, space.cells), gi)
        value = ir.Load("pacc", rv, acc.aty, "private")
        value = value if acc.aty.base == out_base.base else ir.Cast(value, out_base)
        return [acc._loop((ir.Assign(ir.Load(out, idx, out_base), "=", value),))]
    fin = acc.scalar() if r.output == "lanes" else acc.var
    if fin.ty.base != out_base.base:
        fin = ir.Cast(fin, out_base.vec(fin.ty.width))
    width = fin.ty.width
    index = space.transposed() if r.output == "transposed" else gi
    count = total if width == 1 else f"{total}*{width}"
    if r.output == "inout":
        y = b.buffer("y", out_base, count, role="inout")
        alpha = b.scalar("alpha", out_base, b.choice(("0.5", "1.5", "-0.75")) if out_base.is_float else "3")
        old = ir.VLoad(y, gi, out_base.vec(w)) if width > 1 else ir.Load(y, gi, out_base)
        value = ir.binop("+", ir.binop("*", alpha, old), fin)
        return [ir.VStore(y, gi, value) if width > 1 else ir.Assign(ir.Load(y, gi, out_base), "=", value)]
    out = b.buffer("out", out_base, count, role="out")
    return [ir.VStore(out, index, fin) if width > 1 else ir.Assign(ir.Load(out, index, out_base), "=", fin)]


def assemble(b: Builder, r: Recipe, name: str, side=None) -> Assembled:
    """The kernel ``name`` made of the recipe's idioms.

    Args:
        b: the builder (sizes, buffers, macros, helpers and structured inputs are added to it).
        r: the recipe; name: the kernel function's name.
        side: the early-exit idiom's generator (:func:`.early_exit.side_rng`; only used when the recipe has one).
    """
    b.unroll, b.constant = r.unroll, r.constant
    base, acc_base = BASES[r.compute]
    vty, aty = base.vec(r.width), acc_base.vec(r.width)
    out_base = ir.FLOAT if r.compute == "mixed" else base
    space = make_space(b, r.dims, r.mode)
    top, locals_, lid, WG, reqd = [], [], None, None, None
    if r.shape:
        lid_expr, WG, reqd = fixed_shape(b, r.shape)
        lid = ir.Var("lid", ir.INT)
        top.append(ir.Decl(lid, lid_expr, const=True))
    values, tile_val = [], None
    if r.loops == "tile":
        nest, decls, tile_val = tile_nest(b, lid, WG, base)
        locals_ += decls
    else:
        nest = make_nest(b, space, r.loops)
    bodies = [[] for _ in nest.levels]
    for level, pattern in r.inputs:
        if level == "top" or not nest.levels:
            decls, val = load_input(b, space, None, pattern, vty)
            top += decls
        else:
            d = 0 if level == "outer" else len(nest.levels) - 1
            decls, val = load_input(b, space, nest.levels[d], pattern, vty, r.loops == "triangular")
            bodies[d] += decls
        values.append(val)
    if tile_val is not None:
        values.append(tile_val)
    acc = _Acc(b, r, aty)
    tv = ir.Var("tv", vty)
    inner, term = _mix(b, r, values, base, r.width)
    inner.append(ir.Decl(tv, term.expr, const=True))
    update = acc.update(r.update, tv)
    post = []
    if r.diverge:
        cond = divergence(b, r.diverge, space, base)
        if nest.uniform:
            update = [ir.If(cond, tuple(update), tuple(acc.update(_other(r.update), tv)))]
        else:
            target = acc.var if not r.private else ir.Load("pacc", ir.Const(0, ir.INT), aty, "private")
            post.append(ir.If(cond, (_update("damped" if aty.is_float else "hash", target, target),)))
    inner += update
    if r.atomic:
        # a loaded bin: one per point; a counter: in the loop or once per point, as a bin from the ids
        in_loop = bool(nest.levels) and b.chance(0.5) and r.atomic_target in ("", "counter")
        ivalue = None
        if r.compute == "int":
            src = tv if in_loop or not nest.levels else acc.scalar()
            ivalue = ir.Cast(ir.binop("&", src, ir.Const(255, ir.UINT)), ir.INT)
        stmt = atomic(b, r.atomic, space, nest.inner.index if in_loop else None, ivalue, r.atomic_target)
        (inner if in_loop or not nest.levels else post).append(stmt)
    loop = close(nest, bodies[:-1] + [bodies[-1] + inner]) if nest.levels else inner
    early = exit_loop(b, side, r, space, base) if r.early_exit else None
    if early is not None:
        loop = loop + early.stmts + acc.update(r.update, early.value)
    post += _outputs(b, r, space, acc, out_base)
    if r.reduce:
        value = acc.scalar()
        decl, stmts = reduction(b, value, lid, WG, r.dims, out_base, space.total)
        locals_.append(decl)
        post += stmts
    rest = locals_ + top + acc.decls() + loop + post
    body = space.declarations() + space.wrap(rest)
    b.fp64 = b.fp64 or r.compute in ("fp64", "mixed")
    kernel = ir.Kernel(name, list(b.params), body, list(b.macros), list(b.helpers), reqd, b.fp64)
    terms = {"none": "1", "triangular": space.slow[2], "nested": "K*J"}.get(r.loops, "K")
    if early is not None:
        terms = f"{terms} + {early.terms}"
    if r.reduce:
        terms = f"({terms})*{WG.value}"
    if nest.levels:
        return Assembled(kernel, space, nest, [list(r.shape)] if r.shape else None, terms, bodies[-1] + inner,
                         top + post, early)
    return Assembled(kernel, space, nest, [list(r.shape)] if r.shape else None, terms, [], top + inner + post, early)
