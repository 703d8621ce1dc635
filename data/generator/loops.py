"""Per-work-item loop nests with bounds from scalar arguments.

Kinds: ``affine`` (``k < K``), ``stepped`` (step 2, or a start at ``K / 4``), ``nested`` (``k < K``
then ``j < J``, indexed by ``q = k * J + j``), ``triangular`` (``k <= `` the slowest id), ``data``
(``k < lens[gi]``, lengths from an input buffer) and ``tile`` (``t += WG`` over ``K`` with an inner
``j < WG`` over a local-memory tile, see :mod:`.structure`). Each level tells patterns which
index to use and its range, and the launch its iteration count per work-item.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from kgraph.data.corpus.templating import pow2

from . import ir
from .builder import Builder
from .space import Space

K_SIZES = (pow2(2, 12, 2), 16)   # 4 .. 4096
J_SIZES = ([2, 8, 32], 4)
ONE = ir.Const(1, ir.INT)


@dataclass
class Level:
    """One loop of a nest and the index patterns use inside it.

    Args:
        loop: the loop statement without its body (``body`` is filled by :func:`close`).
        index: the expression patterns index with (``k``, or ``q = k * J + j``).
        extent: a size expression bounding ``index`` (``0 <= index < extent``).
        extent_c: the same bound as a C expression.
        pre: statements at the top of the loop body (``q``'s declaration).
        post: statements at its end (a tile's closing barrier).
    """

    loop: ir.For
    index: ir.Expr
    extent: str
    extent_c: ir.Expr
    pre: tuple = ()
    post: tuple = ()


@dataclass
class Nest:
    """A loop nest: its levels (outermost first), iterations per work-item, uniformity.

    Args:
        levels: the loops; iters: a size expression of the innermost body's executions per
            work-item (a mean for triangular and data-dependent loops).
        uniform: every work-item runs the same number of iterations.
        kind: the loop kind; head: statements before the outermost loop (``len``'s load).
    """

    levels: list
    iters: str
    uniform: bool
    kind: str
    head: tuple = ()

    @property
    def inner(self) -> Optional[Level]:
        return self.levels[-1] if self.levels else None

    @property
    def outer(self) -> Optional[Level]:
        return self.levels[0] if self.levels else None


def _for(var: ir.Var, start, bound, op="<", step=ONE, unroll=None) -> ir.For:
    if not isinstance(start, (ir.Const, ir.Var, ir.MacroConst)):
        unroll = None  # the instrumentation counts a computed start between the pragma and its loop
    return ir.For(var, start, op, bound, "+=", step, (), unroll)


def _unroll(b: Builder):
    return b.choice((None, None, 0, 2, 4)) if b.unroll else None


def make_nest(b: Builder, space: Space, kind: str) -> Nest:
    """The loop nest of ``kind`` (``none`` gives an empty nest).

    Args:
        b: the builder (sizes ``K``, ``J`` and the ``lens`` buffer are added to it).
        space: the index space (triangular loops run to its slowest id).
        kind: one of ``none, affine, stepped, nested, triangular, data``.
    """
    k = ir.Var("k", ir.INT)
    zero = ir.Const(0, ir.INT)
    if kind == "none":
        return Nest([], "1", True, kind)
    if kind == "triangular":
        sid, _, sname = space.slow
        loop = _for(k, zero, sid, "<=", unroll=_unroll(b))
        return Nest([Level(loop, k, sname, ir.Var(sname, ir.INT))], f"({sname} + 1) / 2", False, kind)
    K = b.size("K", *K_SIZES)
    if kind == "affine":
        return Nest([Level(_for(k, zero, K, unroll=_unroll(b)), k, "K", K)], "K", True, kind)
    if kind == "stepped":
        if b.chance(0.5):
            loop = _for(k, zero, K, step=ir.Const(2, ir.INT), unroll=_unroll(b))
            return Nest([Level(loop, k, "K", K)], "K / 2", True, kind)
        start = ir.binop("/", K, ir.Const(4, ir.INT))
        return Nest([Level(_for(k, start, K, unroll=_unroll(b)), k, "K", K)], "K - K // 4", True, kind)
    if kind == "nested":
        J = b.size("J", *J_SIZES)
        j, q = ir.Var("j", ir.INT), ir.Var("q", ir.INT)
        outer = Level(_for(k, zero, K), k, "K", K)
        qdecl = ir.Decl(q, ir.binop("+", ir.binop("*", k, J), j), const=True)
        inner = Level(_for(j, zero, J, unroll=_unroll(b)), q, "K*J", ir.binop("*", K, J), (qdecl,))
        return Nest([outer, inner], "K*J", True, kind)
    if kind == "data":
        lens = b.buffer("lens", ir.INT, space.total)
        b.structured_input(lens, ir.INT, space.total, "length", "K")
        n = ir.Var("len", ir.INT)
        head = (ir.Decl(n, ir.Load(lens, space.gi, ir.INT), const=True),)
        return Nest([Level(_for(k, zero, n, unroll=_unroll(b)), k, "K", K)], "K / 2", False, kind, head)
    raise ValueError(f"unknown loop kind {kind}")


def close(nest: Nest, bodies: list) -> list:
    """The nest's statements: ``bodies[d]`` at the top of level ``d`` (before the next inner loop),
    ``bodies[-1]`` innermost, each level's ``pre`` statements first and ``post`` last; the nest's
    ``head`` before it."""
    inner: list = []
    for d in range(len(nest.levels) - 1, -1, -1):
        level, loop = nest.levels[d], nest.levels[d].loop
        content = tuple(level.pre) + tuple(bodies[d]) + tuple(inner) + tuple(level.post)
        inner = [ir.For(loop.var, loop.start, loop.op, loop.bound, loop.step_op, loop.step, content, loop.unroll)]
    return list(nest.head) + inner
