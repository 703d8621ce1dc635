"""Loops of data-dependent trip count (generator seeds from ``EARLY_EXIT_FROM_SEED`` on, session 20).

The static analysis cannot know how often such a loop runs: it reads a loop whose condition holds a data test as
one assumed iteration (``trip_<line>``) and a ``for`` left by ``break`` at its full bound. Each idiom adds one such
loop after the kernel's loop nest, before its outputs; its body loads a value and folds an arithmetic mix of it into
``ew`` (the work whose cost the trip count multiplies), and what the loop found is added to the accumulator::

    search    for (int e = 0; e < M; ++e) { hv = hay[gi*M + e]; if (hv > 0.5f) { hit = e; break; } ew += f(hv); }
              (form ``flag``: ``e < M && (hit < 0)``, the work in the else arm; rows or planes of hay)
    converge  while ((it < max_iter) && (<test>)) { <step>; av = aux[gi + it]; ew += f(av, st); it += 1; }
              collatz: st != 1u, st odd -> 3st + 1, even -> st >> 1; newton: integer square root (nx < st);
              halve: st > 1, st *= 0.5 (exact)
    fixup     while (rem >= L) { av = aux[rem]; ew += f(av, rem); rem -= L; }  (or do { ... } while (rem >= L);)
    segment   for (int s = off[gi]; s < off[gi + 1]; ++s) { sv = val[s]; [xv = xin[col[s]];] ew += f(sv[, xv]); }

Every trip count is exact from integers or exact floating-point steps (halving, comparisons of loaded values), so
the numpy reference and every device run the same iterations; :mod:`.early_inputs` makes the data that spreads
them. All choices come from the idiom's own generator, so the kernel's other idioms are those it has without it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kgraph.data.corpus.templating import pow2

from . import ir
from .arith import Val, float_term, int_term, shrink
from .builder import Builder
from .early_inputs import MAX_WRAPS
from .recipe import Recipe
from .space import Space

M_SIZES = (pow2(4, 12, 2), 16)         # search rows: 16 .. 4096
MAX_ITER = {"collatz": ([32, 128, 512], 64), "newton": ([4, 8, 32], 8), "halve": ([8, 16, 64], 16)}
EXPONENT = {"collatz": 16, "newton": 30, "halve": 20}  # magnitudes of the converged value: 2**0 .. 2**E
L_SIZES = ([16, 256, 4096], 16)
A_SIZES = ([1, 4, 16, 64], 4)
INT, UINT = ir.INT, ir.UINT


def _i(v: int) -> ir.Const:
    return ir.Const(v, INT)


def _u(v: int) -> ir.Const:
    return ir.Const(v, UINT)


@dataclass
class ExitLoop:
    """One early-exit idiom's statements and what the launch facts need of it.

    Args:
        stmts: declarations and the loop; value: what it adds to the accumulator (the kernel's base type).
        body: the loop body (its cost per iteration); iters: a size expression bounding the mean iterations
            per work-item; terms: a size expression bounding the terms summed into ``ew`` (tolerance).
    """

    stmts: list
    value: ir.Expr
    body: list
    iters: str
    terms: str


def side_rng(seed: int, number: int, attempt: int) -> np.random.Generator:
    """The generator of a kernel's early-exit idiom (apart from the kernel's own, which it leaves untouched).

    Args:
        seed, number, attempt: the kernel's (as :func:`~.build.generate`'s).
    """
    return np.random.default_rng([int(seed), int(number), int(attempt), 34, 1])


class _Work:
    """The loop body's arithmetic: a mix of its values folded into ``ew``."""

    def __init__(self, rng: np.random.Generator, r: Recipe, base: ir.Type):
        self.rng, self.r, self.base = rng, r, base
        self.ew = ir.Var("ew", base)

    def decl(self) -> ir.Decl:
        return ir.Decl(self.ew, ir.const(0, self.base))

    def loaded(self, e: ir.Expr) -> Val:
        """A loaded value of the base type as an operand."""
        return Val(e, 1.0 if self.base.is_float else None)

    def state(self, e: ir.Expr) -> Val:
        """An integer loop state as an operand: its low byte scaled to [0, 1) (floats) or itself (uint)."""
        if not self.base.is_float:
            return Val(e if e.ty == UINT else ir.Cast(e, UINT), None)
        low = ir.Cast(ir.binop("&", e, ir.Const(255, e.ty)), self.base)
        return Val(ir.binop("*", low, ir.const(1 / 256, self.base)), 1.0)

    def count(self, e: ir.Expr, scale: float = 1 / 16) -> ir.Expr:
        """An int (a position, a trip count) as a term of the result."""
        if not self.base.is_float:
            return ir.Cast(e, UINT)
        return ir.binop("*", ir.Cast(e, self.base), ir.const(scale, self.base))

    def update(self, values: list[Val]) -> ir.Assign:
        extra = int(self.rng.integers(1, 4))
        if self.base.is_float:
            term = shrink(float_term(self.rng, values, self.base, self.r.flavours, extra), self.base).expr
        else:
            term = int_term(self.rng, values, extra).expr
        return ir.Assign(self.ew, "+=", term)

    def result(self, *parts: ir.Expr) -> ir.Expr:
        out = self.ew
        for p in parts:
            out = ir.binop("+", out, p)
        return out


def _search(b: Builder, rng, w: _Work, space: Space, detail: str) -> ExitLoop:
    form, spread = detail.split("-")
    base, gi = w.base, space.gi
    M = b.size("M", *M_SIZES)
    layout = ("row", "plane")[int(rng.integers(0, 2))]
    count = f"{space.total}*M"
    hay = b.buffer("hay", base, count)
    b.structured_input(hay, base, count, f"hits-{spread}-{layout}", "M")
    e, hit, hv = ir.Var("e", INT), ir.Var("hit", INT), ir.Var("hv", base)
    index = ir.binop("+", ir.binop("*", gi, M), e) if layout == "row" else \
        ir.binop("+", ir.binop("*", e, space.cells), gi)
    found = ir.binop(">", hv, ir.const(0.5, base) if base.is_float else _u(50))
    work = w.update([w.loaded(hv)])
    load = ir.Decl(hv, ir.Load(hay, index, base), const=True)
    if form == "break":
        body = (load, ir.If(found, (ir.Assign(hit, "=", e), ir.Break())), work)
        loop = ir.For(e, _i(0), "<", M, "+=", _i(1), body)
    else:
        body = (load, ir.If(found, (ir.Assign(hit, "=", e),), (work,)))
        loop = ir.For(e, _i(0), "<", M, "+=", _i(1), body, cond=ir.binop("<", hit, _i(0)))
    stmts = [ir.Decl(hit, _i(-1)), w.decl(), loop]
    return ExitLoop(stmts, w.result(w.count(ir.binop("+", hit, _i(1)))), list(body), "M", "M")


def _aux_load(b: Builder, rng, w: _Work, space: Space, it: ir.Var) -> tuple[ir.Decl, Val]:
    """A per-iteration load of the convergence loop: a window ``aux[gi + it]`` or a table ``aux[it]``."""
    if rng.random() < 0.5:
        aux, index = b.buffer("aux", w.base, f"{space.total} + max_iter"), ir.binop("+", space.gi, it)
    else:
        aux, index = b.buffer("aux", w.base, "max_iter"), it
    av = ir.Var("av", w.base)
    return ir.Decl(av, ir.Load(aux, index, w.base), const=True), w.loaded(av)


def _converge(b: Builder, rng, w: _Work, space: Space, detail: str) -> ExitLoop:
    base, gi = w.base, space.gi
    max_iter = b.size("max_iter", *MAX_ITER[detail])
    it, st = ir.Var("it", INT), ir.Var("st", UINT)
    key_ty = UINT if detail != "halve" else (base if base.is_float else ir.FLOAT)
    key = b.buffer("key", key_ty, space.total)
    b.structured_input(key, key_ty, space.total, "log2-uniform", str(EXPONENT[detail]))
    loaded = ir.Load(key, gi, key_ty)
    bounded = ir.binop("<", it, max_iter)
    aux_decl, aux = _aux_load(b, rng, w, space, it)
    if detail == "collatz":
        decls = [ir.Decl(st, loaded)]
        odd = ir.binop("!=", ir.binop("&", st, _u(1)), _u(0))
        step = [ir.If(odd, (ir.Assign(st, "=", ir.binop("+", ir.binop("*", st, _u(3)), _u(1))),),
                      (ir.Assign(st, "=", ir.binop(">>", st, _u(1))),))]
        test, state, parts = ir.binop("!=", st, _u(1)), w.state(st), [w.count(it)]
    elif detail == "newton":  # integer square root: st falls to floor(sqrt(y)) in about log2(y) / 2 steps
        y, nx = ir.Var("sq", UINT), ir.Var("nx", UINT)
        decls = [ir.Decl(y, loaded, const=True), ir.Decl(st, y),
                 ir.Decl(nx, ir.binop(">>", ir.binop("+", y, _u(1)), _u(1)))]
        step = [ir.Assign(st, "=", nx),
                ir.Assign(nx, "=", ir.binop(">>", ir.binop("+", st, ir.binop("/", y, st)), _u(1)))]
        test, state = ir.binop("<", nx, st), w.state(st)
        parts = [w.count(it), w.state(st).expr if base.is_float else st]
    else:  # halve: exact in binary floating point, so every device runs the same steps
        st = ir.Var("st", key_ty)
        decls = [ir.Decl(st, loaded)]
        step = [ir.Assign(st, "=", ir.binop("*", st, ir.const(0.5, key_ty)))]
        test = ir.binop(">", st, ir.const(1.0, key_ty))
        state = Val(ir.binop("/", ir.const(1.0, base), st), 2.0) if base.is_float and key_ty == base else w.state(it)
        parts = [w.count(it)]
    body = step + [aux_decl, w.update([aux, state]), ir.Assign(it, "+=", _i(1))]
    loop = ir.While(ir.binop("&&", bounded, test), tuple(body))
    stmts = decls + [ir.Decl(it, _i(0)), w.decl(), loop]
    return ExitLoop(stmts, w.result(*parts), body, "max_iter", "max_iter")


def _fixup(b: Builder, rng, w: _Work, space: Space, detail: str) -> ExitLoop:
    form, spread = detail.split("-")
    L = b.size("L", *L_SIZES)
    key = b.buffer("key", INT, space.total)
    b.structured_input(key, INT, space.total, f"wraps-{spread}", "L")
    aux = b.buffer("aux", w.base, f"L*{MAX_WRAPS + 1}")
    rem, av = ir.Var("rem", INT), ir.Var("av", w.base)
    body = [ir.Decl(av, ir.Load(aux, rem, w.base), const=True), w.update([w.loaded(av), w.state(rem)]),
            ir.Assign(rem, "-=", L)]
    loop = ir.While(ir.binop(">=", rem, L), tuple(body), do=form == "do")
    stmts = [ir.Decl(rem, ir.Load(key, space.gi, INT)), w.decl(), loop]
    return ExitLoop(stmts, w.result(w.state(rem).expr), body, str(MAX_WRAPS + 1), str(MAX_WRAPS + 1))


def _segment(b: Builder, rng, w: _Work, space: Space, detail: str) -> ExitLoop:
    base, gi, total = w.base, space.gi, space.total
    A = b.size("A", *A_SIZES)
    off = b.buffer("off", INT, f"{total} + 1")
    b.structured_input(off, INT, f"{total} + 1", f"offsets-{detail}", "A")
    val = b.buffer("val", base, f"{total}*A")
    s, sv = ir.Var("s", INT), ir.Var("sv", base)
    body = [ir.Decl(sv, ir.Load(val, s, base), const=True)]
    values = [w.loaded(sv)]
    if rng.random() < 0.5:  # a CSR product: x gathered through the column of each entry
        col = b.buffer("col", INT, f"{total}*A")
        b.structured_input(col, INT, f"{total}*A", "index", total)
        xin = b.buffer("xin", base, total)
        cj, xv = ir.Var("cj", INT), ir.Var("xv", base)
        body += [ir.Decl(cj, ir.Load(col, s, INT), const=True), ir.Decl(xv, ir.Load(xin, cj, base), const=True)]
        values.append(w.loaded(xv))
    body.append(w.update(values))
    loop = ir.For(s, ir.Load(off, gi, INT), "<", ir.Load(off, ir.binop("+", gi, _i(1)), INT), "+=", _i(1),
                  tuple(body))
    return ExitLoop([w.decl(), loop], w.result(), body, "A", "64*A")


IDIOMS = {"search": _search, "converge": _converge, "fixup": _fixup, "segment": _segment}


def exit_loop(b: Builder, rng: np.random.Generator, r: Recipe, space: Space, base: ir.Type) -> ExitLoop:
    """The recipe's early-exit idiom (``r.early_exit``, variant ``r.exit_detail``).

    Args:
        b: the builder (sizes, buffers and structured inputs are added to it; its generator is not used);
        rng: the idiom's generator (:func:`side_rng`); r: the recipe; space: the index space;
        base: the kernel's scalar data type (``float``, ``double`` or ``uint``).
    """
    return IDIOMS[r.early_exit](b, rng, _Work(rng, r, base), space, r.exit_detail)
