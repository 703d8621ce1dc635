"""Index spaces: 1D/2D/3D NDRanges over problem-size parameters, one work-item per point
(``direct``), an NDRange rounded up with an early-return guard (``guarded``, 1D) or a fixed-size
NDRange walking the problem with a grid-stride loop (``gridstride``, 1D).

The space declares the ids (``i`` or ``x, y, z``) and the linear index ``gi``, and knows the
expressions patterns need: the number of points, the fastest dimension's extent, the transposed
index.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.data.corpus.templating import pow2

from . import ir
from .builder import Builder

_GET = lambda fn, d: ir.WorkItem(fn, d)  # noqa: E731

#: (size name, candidate values, check value) per dimension, fastest first.
DIM_SIZES = {
    1: [("n", pow2(10, 24, 2), 2048)],
    2: [("W", pow2(6, 12, 2), 64), ("H", pow2(5, 11, 2), 32)],
    3: [("X", pow2(4, 8, 2), 16), ("Y", pow2(4, 8, 2), 8), ("Z", [4, 16, 64], 8)],
}
#: Problem sizes of guarded 1D spaces: even, and mostly not a multiple of any work-group size.
GUARDED_SIZES = [1000, 12300, 150002, 1900006, 12000010]
GUARDED_CHECK = 1998
ROUND = 256  # a guarded NDRange is the problem size rounded up to a multiple of this
GRID_CAPS = (2048, 16384, 131072)  # fixed NDRanges of grid-stride spaces


@dataclass
class Space:
    """The index space of one kernel.

    Args:
        dims: 1, 2 or 3; mode: ``direct``, ``guarded`` or ``gridstride``.
        ids: the id expressions, fastest first; extents: their size parameters.
        gi: the linear point index; total: the number of points (size expression);
        global_size: the NDRange, one size expression per dimension.
        prologue: statements declaring the ids (and the guard).
    """

    dims: int
    mode: str
    ids: list
    extents: list
    gi: ir.Expr
    total: str
    global_size: list
    prologue: list = field(default_factory=list)
    cells_var: ir.Var | None = None
    cells_used: bool = False

    @property
    def cells(self) -> ir.Expr:
        """The number of points as a C expression (a variable declared once for 2D/3D)."""
        if self.dims == 1:
            return self.extents[0]
        self.cells_used = True
        return self.cells_var

    @property
    def fast(self) -> tuple[ir.Expr, ir.Var]:
        """The fastest id and its extent."""
        return self.ids[0], self.extents[0]

    @property
    def slow(self) -> tuple[ir.Expr, ir.Var, str]:
        """The slowest id, its extent and the extent's size name."""
        return self.ids[-1], self.extents[-1], self.extents[-1].name

    def transposed(self) -> ir.Expr:
        """The index with the two fastest dimensions swapped (column-major reads of a row-major grid)."""
        x, y = self.ids[0], self.ids[1]
        X, Y = self.extents[0], self.extents[1]
        inner = ir.binop("+", ir.binop("*", x, Y), y)
        if self.dims == 2:
            return inner
        z = self.ids[2]
        return ir.binop("+", ir.binop("*", ir.binop("+", ir.binop("*", z, X), x), Y), y)

    def declarations(self) -> list:
        """The prologue, with ``cells`` declared when a pattern used it."""
        out = list(self.prologue)
        if self.cells_used:
            prod = self.extents[0]
            for e in self.extents[1:]:
                prod = ir.binop("*", prod, e)
            out.insert(len(out), ir.Decl(self.cells_var, prod, const=True))
        return out

    def wrap(self, body: list) -> list:
        """The kernel body around ``body`` (the grid-stride loop, for that mode)."""
        if self.mode != "gridstride":
            return body
        i = self.gi
        loop = ir.For(i, _GET("get_global_id", 0), "<", self.extents[0], "+=", _GET("get_global_size", 0),
                      tuple(body))
        return [loop]


def make_space(b: Builder, dims: int, mode: str) -> Space:
    """Declares the size parameters and ids of an index space.

    Args:
        b: the kernel's builder (sizes and parameters are added to it).
        dims: 1, 2 or 3 (``guarded`` and ``gridstride`` are 1D only).
        mode: ``direct``, ``guarded`` or ``gridstride``.
    """
    if mode != "direct" and dims != 1:
        raise ValueError(f"{mode} spaces are 1D")
    if mode == "guarded":
        extents = [b.size("n", GUARDED_SIZES, GUARDED_CHECK)]
    else:
        extents = [b.size(name, values, check) for name, values, check in DIM_SIZES[dims]]
    names = [e.name for e in extents]
    total = "*".join(names)
    if dims == 1:
        i = ir.Var("i", ir.INT)
        if mode == "gridstride":
            cap = b.choice(GRID_CAPS)
            return Space(1, mode, [i], extents, i, total, [f"min(n, {cap})"])
        prologue = [ir.Decl(i, _GET("get_global_id", 0), const=True)]
        gsize = ["n"]
        if mode == "guarded":
            prologue.append(ir.If(ir.binop(">=", i, extents[0]), (ir.Return(),)))
            gsize = [f"((n + {ROUND - 1}) // {ROUND}) * {ROUND}"]
        return Space(1, mode, [i], extents, i, total, gsize, prologue)
    ids = [ir.Var(c, ir.INT) for c in "xyz"[:dims]]
    prologue = [ir.Decl(v, _GET("get_global_id", d), const=True) for d, v in enumerate(ids)]
    gi = ir.Var("gi", ir.INT)
    lin = ids[-1]
    for d in range(dims - 2, -1, -1):
        lin = ir.binop("+", ir.binop("*", lin, extents[d]), ids[d])
    prologue.append(ir.Decl(gi, lin, const=True))
    return Space(dims, mode, ids, extents, gi, total, names, prologue, ir.Var("cells", ir.INT))
