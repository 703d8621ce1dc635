"""Work-group idioms: fixed work-group shapes, local-memory tiles with barriers, work-group tree
reductions, atomics with controlled contention and divergence conditions.

Everything that needs the work-group shape (tiles, reductions, branches on the local id) fixes it
with ``reqd_work_group_size`` over ``#define``\\ d extents, and the spec lists exactly that shape.
"""
from __future__ import annotations

from . import ir
from .arith import Val
from .builder import Builder
from .loops import Level, Nest
from .space import Space

_GET = ir.WorkItem
B_SIZES = ([1, 32, 1024, 32768], 16)


def _i(v: int) -> ir.Const:
    return ir.Const(v, ir.INT)


def fixed_shape(b: Builder, shape: tuple) -> tuple[ir.Expr, ir.MacroConst, tuple]:
    """``#define`` the work-group extents; returns the linear local id expression, ``WG`` (the
    work-group size) and the ``reqd_work_group_size`` arguments.

    Args:
        b: the builder (the macros are added to it); shape: the work-group shape.
    """
    wg = 1
    for s in shape:
        wg *= s
    WG = b.macro_const("WG", wg)
    if len(shape) == 1:
        return _GET("get_local_id", 0), WG, (WG, 1, 1)
    names = [b.macro_const(n, s) for n, s in zip(("LX", "LY", "LZ"), shape)]
    lid = _GET("get_local_id", len(shape) - 1)
    for d in range(len(shape) - 2, -1, -1):
        lid = ir.binop("+", ir.binop("*", lid, names[d]), _GET("get_local_id", d))
    return lid, WG, tuple(names) + ((1,) if len(shape) == 2 else ())


def group_index(dims: int) -> ir.Expr:
    """The linear work-group index (``get_group_id`` over ``get_num_groups``, x fastest).

    Args:
        dims: the NDRange's dimensions.
    """
    g = _GET("get_group_id", dims - 1)
    for d in range(dims - 2, -1, -1):
        g = ir.binop("+", ir.binop("*", g, _GET("get_num_groups", d)), _GET("get_group_id", d))
    return g


def tile_nest(b: Builder, lid: ir.Var, WG: ir.MacroConst, base: ir.Type) -> tuple[Nest, list, Val]:
    """Loops over ``K`` in tiles of ``WG`` elements staged in local memory between two barriers.

    Returns the nest, the declarations before it (the ``__local`` array) and the tile element
    read in the inner loop.

    Args:
        b: the builder (``K``, its constraint and the ``src`` buffer are added to it);
        lid: the linear local id; WG: the work-group size macro; base: the element type.
    """
    wg = WG.value
    K = b.size("K", [wg * 4**e for e in range(4)], 2 * wg)
    b.constraints.append(f"K % {wg} == 0")
    src = b.buffer("src", base, "K")
    t, j, k = ir.Var("t", ir.INT), ir.Var("j", ir.INT), ir.Var("k", ir.INT)
    tv = ir.Var(b.fresh("v"), base)
    stage = ir.Assign(ir.Load("tile", lid, base, "local"), "=", ir.Load(src, ir.binop("+", t, lid), base))
    outer = Level(ir.For(t, _i(0), "<", K, "+=", WG, ()), t, "K", K, (stage, ir.Barrier()), (ir.Barrier(),))
    pre = (ir.Decl(k, ir.binop("+", t, j), const=True), ir.Decl(tv, ir.Load("tile", j, base, "local"), const=True))
    unroll = b.choice((None, 0, 4, 8)) if b.unroll else None
    inner = Level(ir.For(j, _i(0), "<", WG, "+=", _i(1), (), unroll), k, "K", K, pre)
    decls = [ir.ArrayDecl("tile", base, WG, "local")]
    return Nest([outer, inner], "K", True, "tile"), decls, Val(tv, 1.0 if base.is_float else None)


def reduction(b: Builder, value: ir.Expr, lid: ir.Expr, WG: ir.MacroConst, dims: int, out_ty: ir.Type,
              total: str) -> tuple[ir.ArrayDecl, list]:
    """A tree reduction of ``value`` over the work-group in local memory; work-item 0 stores the
    group's sum to a new ``red`` buffer (one element per work-group). Returns the ``__local``
    array's declaration (kernel scope) and the statements.

    Args:
        b: the builder; value: each work-item's contribution; lid: the linear local id;
        WG: the work-group size macro; dims: the NDRange's dimensions; out_ty: the stored type;
        total: the number of points (size expression).
    """
    ty = value.ty
    red = b.buffer("red", out_ty, f"({total}) // {WG.value}", role="out")
    h = ir.Var("h", ir.INT)
    at = lambda i: ir.Load("scratch", i, ty, "local")  # noqa: E731
    step = ir.If(ir.binop("<", lid, h), (ir.Assign(at(lid), "+=", at(ir.binop("+", lid, h))),))
    tree = ir.For(h, ir.binop("/", WG, _i(2)), ">", _i(0), ">>=", _i(1), (step, ir.Barrier()))
    result = at(_i(0)) if out_ty == ty else ir.Cast(at(_i(0)), out_ty)
    store = ir.If(ir.binop("==", lid, _i(0)), (ir.Assign(ir.Load(red, group_index(dims), out_ty), "=", result),))
    return ir.ArrayDecl("scratch", ty, WG, "local"), [ir.Assign(at(lid), "=", value), ir.Barrier(), tree, store]


def atomic(b: Builder, op: str, space: Space, k: ir.Expr | None, ivalue: ir.Expr | None,
           target: str = "") -> ir.Atomic:
    """``atomic_<op>`` into a new ``hist`` buffer of ``B`` bins: contention ``points / B``.

    Args:
        op: add, inc, max or xor.
        k: the loop index when inside a loop (spreads updates over bins), else None.
        ivalue: an ``int`` value computed by the kernel, or None (a value from the ids).
        target: "" (the bin from the ids, which the analysis bounds), ``gathered`` (``hist[bin[gi]]``, bins
            uniform in [0, B): a histogram of data) or ``runs`` (the same, bins sorted: neighbouring work-items
            share a bin, as rows of a sorted COO matrix do) or ``skewed`` (bins drawn so that a few hub bins take most
            updates); the analysis cannot bound a loaded bin. ``counter``: every update lands on ``hist[0]`` (a
            count of events, a cursor of stream compaction), an address every lane of a warp shares.
    """
    B = b.size("B", *B_SIZES)
    hist = b.buffer("hist", ir.INT, "B", role="out")
    gi = space.gi
    if target == "counter":
        index, spread = _i(0), gi if k is None else ir.binop("+", gi, k)
    elif target:
        bins = b.buffer("bin", ir.INT, space.total)
        kind = {"gathered": "index", "runs": "sorted_index", "skewed": "skewed_index"}[target]
        b.structured_input(bins, ir.INT, space.total, kind, "B")
        index, spread = ir.Load(bins, gi, ir.INT), gi
    else:
        if k is None:
            factor = b.choice((1, 3, 7))
            spread = gi if factor == 1 else ir.binop("*", gi, _i(factor))
        else:
            spread = ir.binop("+", gi, k)
        index = ir.binop("%", spread, B)
    if op == "inc":
        return ir.Atomic("inc", hist, index, None)
    if ivalue is None:
        mask = 15 if op == "add" else 1023
        ivalue = ir.binop("&", spread, _i(mask))
    return ir.Atomic(op, hist, index, ivalue)


def divergence(b: Builder, kind: str, space: Space, base: ir.Type) -> ir.Expr:
    """The condition of a divergent branch.

    Args:
        kind: ``parity`` (``(gi & 1) == 0``), ``half`` (fastest id below half its extent),
            ``data`` (a sign-balanced input, half of each pair of points positive) or ``lane``
            (local id below half the work-group's first extent).
        base: the kernel's data type (the selector buffer's type for ``data``).
    """
    gi = space.gi
    if kind == "parity":
        return ir.binop("==", ir.binop("&", gi, _i(1)), _i(0))
    if kind == "half":
        x, W = space.fast
        return ir.binop("<", x, ir.binop("/", W, _i(2)))
    if kind == "data":
        sel = b.buffer("sgn", base, space.total)
        b.structured_input(sel, base, space.total, "signs")
        value = ir.Load(sel, gi, base)
        zero = ir.const(0, base)
        return ir.binop(">", value, zero) if base.is_float else ir.binop("!=", value, zero)
    if kind == "lane":
        named = {m.name: m.body for m in b.macros if m.params is None}
        first = "LX" if "LX" in named else "WG"
        return ir.binop("<", _GET("get_local_id", 0), ir.binop("/", ir.MacroConst(first, named[first]), _i(2)))
    raise ValueError(f"unknown divergence {kind}")
