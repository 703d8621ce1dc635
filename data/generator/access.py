"""Per-buffer access patterns: where an input buffer is read, and how big it must be.

Outside loops (``level=None``): ``coalesced`` ``a[gi]``, ``strided`` ``a[gi * S]`` (S a scalar),
``transposed`` (the two fastest dimensions swapped), ``broadcast`` (one element per slowest-id row,
or per 32 points in 1D), ``gather`` ``tab[idx[gi]]`` and ``stencil`` (clamped neighbourhoods).
Inside a loop with index ``k`` in ``[0, E)``: ``coalesced`` ``a[k * cells + gi]``, ``row``
``a[gi * E + k]``, ``column`` ``a[k * W + x]``, ``window`` ``a[gi + k]``, ``broadcast`` ``a[k]``,
``transposed``, ``gather`` and ``stencil`` planes. With vector types every element index reads
``vloadN`` (N consecutive scalars) and the buffer holds N times more. ``ids`` (store-only kernels, seeds from
:data:`~.recipe.STORE_ONLY_FROM_SEED` on) reads no buffer: the value is made from the point and the loop index by
an integer hash (:func:`from_ids`), as a fill, an iota or a counter-based random-number kernel makes its values.
"""
from __future__ import annotations

import itertools

from . import ir
from .arith import Val
from .builder import Builder
from .loops import Level
from .space import Space

TOP_PATTERNS = ("coalesced", "strided", "transposed", "broadcast", "gather", "stencil")
LOOP_PATTERNS = ("coalesced", "row", "column", "window", "broadcast", "gather", "stencil", "transposed")
#: Patterns whose buffer does not grow with the loop extent times the points (triangular loops).
TRIANGULAR_PATTERNS = ("column", "window", "broadcast", "gather")
S_SIZES = ([2, 4, 16], 4)
T_SIZES = ([1024, 65536, 1 << 20], 512)


def _i(v: int) -> ir.Const:
    return ir.Const(v, ir.INT)


def element_index(b: Builder, space: Space, level: Level | None, pattern: str,
                  triangular: bool = False) -> tuple[ir.Expr, str]:
    """The element index of ``pattern`` and the element count it needs (a size expression).

    Args:
        b: the builder (a strided pattern adds the size ``S``).
        space: the index space; level: the loop level (None: outside loops).
        pattern: one of :data:`TOP_PATTERNS` / :data:`LOOP_PATTERNS` (``gather`` gives its index buffer's index).
        triangular: the level is a triangular loop (1D columns and transposes become windows).
    """
    gi, total = space.gi, space.total
    if pattern == "column" and space.dims == 1:
        pattern = "window" if triangular else "coalesced"
    if pattern == "transposed" and space.dims == 1:
        pattern = "coalesced" if level is None or not triangular else "window"
    if level is None:
        if pattern in ("coalesced", "gather", "stencil"):
            return gi, total
        if pattern == "strided":
            S = b.size("S", *S_SIZES)
            return ir.binop("*", gi, S), f"{total}*S"
        if pattern == "transposed":
            return space.transposed(), total
        if pattern == "broadcast":
            if space.dims == 1:
                return ir.binop("/", gi, _i(32)), "(n + 31) // 32"
            sid, _, sname = space.slow
            return sid, sname
        raise ValueError(f"pattern {pattern} outside loops")
    k, E, ext = level.index, level.extent_c, level.extent
    if pattern in ("coalesced", "stencil"):
        return ir.binop("+", ir.binop("*", k, space.cells), gi), f"({ext})*{total}"
    if pattern == "transposed":
        return ir.binop("+", ir.binop("*", k, space.cells), space.transposed()), f"({ext})*{total}"
    if pattern == "row":
        return ir.binop("+", ir.binop("*", gi, E), k), f"{total}*({ext})"
    if pattern == "column":
        x, W = space.fast
        return ir.binop("+", ir.binop("*", k, W), x), f"({ext})*{W.name}"
    if pattern in ("window", "gather"):
        return ir.binop("+", gi, k), f"{total} + {ext}"
    if pattern == "broadcast":
        return k, ext
    raise ValueError(f"unknown pattern {pattern}")


def read(buf: str, index: ir.Expr, ty: ir.Type, space: str = "global") -> ir.Expr:
    """``buf[index]`` or, for a vector type, ``vloadN(index, buf)``.

    Args:
        buf: the buffer; index: the element (vector) index; ty: the value's type; space: its address space.
    """
    return ir.VLoad(buf, index, ty) if ty.width > 1 else ir.Load(buf, index, ty, space)


def _counted(count: str, width: int) -> str:
    return count if width == 1 else f"({count})*{width}"


def load_input(b: Builder, space: Space, level: Level | None, pattern: str, ty: ir.Type,
               triangular: bool = False) -> tuple[list, Val]:
    """Declarations reading one new input buffer through ``pattern``, and the value they give.

    Args:
        b: the builder (the buffer, its sizes and structured inputs are added to it).
        space: the index space; level: the loop level read in (None: outside loops).
        pattern: one of :data:`TOP_PATTERNS` / :data:`LOOP_PATTERNS`.
        ty: the value's type (scalar or vector); ``uint`` buffers hold [0, 100) values.
        triangular: the level is a triangular loop (its extent is a grid dimension).
    """
    bound = 1.0 if ty.is_float else None
    v = ir.Var(b.fresh("v"), ty)
    if pattern == "ids":  # v<N>: the N-th value of the kernel salts its hash
        return [ir.Decl(v, from_ids(space, level, ty, int(v.name[1:] or 0)), const=True)], Val(v, bound)
    if pattern == "stencil":
        return stencil(b, space, level, ty, v)
    if pattern == "gather":
        index, count = element_index(b, space, level, "window" if triangular else
                                     ("gather" if level is not None else "coalesced"), triangular)
        T = b.size("T", *T_SIZES)
        idx = b.buffer("idx", ir.INT, count)
        b.structured_input(idx, ir.INT, count, "index", "T")
        tab = b.buffer("tab", ty.scalar, _counted("T", ty.width))
        j = ir.Var(b.fresh("j"), ir.INT)
        return [ir.Decl(j, ir.Load(idx, index, ir.INT), const=True),
                ir.Decl(v, read(tab, j, ty), const=True)], Val(v, bound)
    index, count = element_index(b, space, level, pattern, triangular)
    buf = b.buffer("a", ty.scalar, _counted(count, ty.width))
    return [ir.Decl(v, read(buf, index, ty), const=True)], Val(v, bound)


#: the odd multipliers of :func:`from_ids` (Fibonacci hashing and MurmurHash3's finaliser)
_HASH_POINT, _HASH_LOOP = 0x9E3779B9, 0x85EBCA6B


def from_ids(space: Space, level: Level | None, ty: ir.Type, salt: int = 0) -> ir.Expr:
    """A value of ``ty`` made from the point (and the loop index at ``level``) without reading memory:
    ``h = (uint)gi * P [+ (uint)k * Q]`` (uint arithmetic: wraps, never overflows; ``P``, ``Q`` odd, different for
    each ``salt``, so that two inputs share no subexpression a compiler could compute once), then ``h % 100u`` for
    uint, ``(h >> 8) * 2^-23 - 1`` in [-1, 1) for floats (every lane the same for vectors).

    Args:
        space: the index space; level: the loop level (None: outside loops); ty: the value's type;
        salt: which input of the kernel this is (0, 1, ...).
    """
    u = ir.UINT
    h = ir.binop("*", ir.Cast(space.gi, u), ir.Const((_HASH_POINT + 0x20002 * salt) & 0xFFFFFFFF, u))
    if level is not None:
        h = ir.binop("+", h, ir.binop("*", ir.Cast(level.index, u),
                                      ir.Const((_HASH_LOOP + 0x2202 * salt) & 0xFFFFFFFF, u)))
    base = ty.scalar
    if base.is_float:
        value = ir.binop("-", ir.binop("*", ir.Cast(ir.binop(">>", h, ir.Const(8, u)), base), ir.const(2.0 ** -23, base)),
                         ir.const(1.0, base))
    else:
        value = ir.binop("%", h, ir.Const(100, u))
    return ir.Splat(value, ty) if ty.width > 1 else value


def _offsets(dims: int, radius: int, shape: str) -> list[tuple[int, ...]]:
    rng = range(-radius, radius + 1)
    if shape == "box":
        return [tuple(p) for p in itertools.product(rng, repeat=dims)]
    offs = [(0,) * dims]
    for d in range(dims):
        offs += [tuple(r if e == d else 0 for e in range(dims)) for r in rng if r]
    return offs


def clamp_index(b: Builder, style: str, v: ir.Expr, n: ir.Expr) -> ir.Expr:
    """``v`` clamped to ``[0, n)``: a ``clampi`` helper, ``clamp`` or ``min(max(...))``.

    Args:
        b: the builder (the helper is added to it once); style: ``helper``, ``clamp`` or ``minmax``;
        v: the index; n: the extent.
    """
    zero, last = _i(0), ir.binop("-", n, _i(1))
    if style == "helper":
        if not any(h.name == "clampi" for h in b.helpers):
            pv, pn = ir.Var("v", ir.INT), ir.Var("n", ir.INT)
            body = ir.Call("min", (ir.Call("max", (pv, zero), ir.INT), ir.binop("-", pn, _i(1))), ir.INT)
            b.helpers.append(ir.Helper("clampi", ir.INT, (ir.Param("v", ir.INT), ir.Param("n", ir.INT)), (), body))
        return ir.Call("clampi", (v, n), ir.INT, "helper")
    if style == "clamp":
        return ir.Call("clamp", (v, zero, last), ir.INT)
    return ir.Call("min", (ir.Call("max", (v, zero), ir.INT), last), ir.INT)


def stencil(b: Builder, space: Space, level: Level | None, ty: ir.Type, v: ir.Var) -> tuple[list, Val]:
    """A clamped-border neighbourhood of the work-item's point (one plane ``k`` inside loops).

    Args:
        b: the builder; space: the index space; level: the loop level (None: outside loops);
        ty: the value type; v: the variable receiving the weighted sum.
    """
    dims = space.dims
    radius = b.choice((1, 2, 3)) if dims == 1 else (b.choice((1, 2)) if dims == 2 else 1)
    shape = "star" if dims == 3 or radius > 1 else b.choice(("star", "box"))
    offs = _offsets(dims, radius, shape)
    style = b.choice(("helper", "clamp", "minmax"))
    base_index, count = element_index(b, space, level, "stencil")
    buf = b.buffer("a", ty.scalar, _counted(count, ty.width))
    plane = None if level is None else ir.binop("*", level.index, space.cells)

    def at(off) -> ir.Expr:
        coords = [clamp_index(b, style, _shift(c, o), e) if o else c for c, o, e in zip(space.ids, off, space.extents)]
        lin = coords[-1]
        for d in range(dims - 2, -1, -1):
            lin = ir.binop("+", ir.binop("*", lin, space.extents[d]), coords[d])
        return lin if plane is None else ir.binop("+", plane, lin)

    base = ty.scalar
    if dims == 1 and b.constant:  # a loop over the offsets with weights from a __constant table
        rad = b.macro_const("RAD", radius)
        wts = b.buffer("wts", base, str(2 * radius + 1), space="constant")
        o = ir.Var("o", ir.INT)
        w = ir.Load(wts, ir.binop("+", o, rad), base, "constant")
        term = ir.binop("*", w, read(buf, at_var(b, style, space, plane, o), ty))
        loop = ir.For(o, ir.Un("-", rad, ir.INT), "<=", rad, "+=", _i(1),
                      (ir.Assign(v, "+=", term),), 0 if b.unroll else None)
        zero = ir.Splat(ir.const(0, base), ty) if ty.width > 1 else ir.const(0, base)
        return [ir.Decl(v, zero), loop], Val(v, float(2 * radius + 1) if ty.is_float else None)
    raw = [1.0 / (1 + sum(abs(c) for c in off)) for off in offs]
    weights = [max(1, round(r / sum(raw) * 1024)) / 1024 for r in raw]
    total = None
    for off, wt in zip(offs, weights):
        value = read(buf, at(off), ty)
        if ty.is_float:
            value = ir.binop("*", ir.const(wt, base), value)
        elif off != (0,) * dims:
            value = ir.binop("*", ir.Const(1 + sum(abs(c) for c in off) % 3, ir.UINT), value)
        total = value if total is None else ir.binop("+", total, value)
    return [ir.Decl(v, total, const=True)], Val(v, sum(weights) if ty.is_float else None)


def _shift(c: ir.Expr, o: int) -> ir.Expr:
    return ir.binop("+", c, _i(o)) if o > 0 else ir.binop("-", c, _i(-o))


def at_var(b: Builder, style: str, space: Space, plane, o: ir.Var) -> ir.Expr:
    """The 1D stencil index at offset variable ``o`` (clamped), in plane ``plane`` if any.

    Args:
        b: the builder; style: the clamp style; space: the 1D space; plane: the plane offset or None;
        o: the offset loop variable.
    """
    idx = clamp_index(b, style, ir.binop("+", space.ids[0], o), space.extents[0])
    return idx if plane is None else ir.binop("+", plane, idx)
