"""Arithmetic mixes: random expression trees over loaded values, by type and flavour.

Float trees keep a bound on their magnitude (inputs lie in [-1, 1]): a node whose bound grows past
4 is scaled down, divisions have a denominator >= 1, ``log``/``sqrt``/``rsqrt`` only see positive
arguments and ``exp`` only small ones, so every generated kernel computes finite values whose
rounding error stays within the spec's tolerance. Integer trees work on ``uint`` (wrap-around is
defined) and divide only by nonzero values.

Flavours: ``add`` (+ - *), ``fma`` (fma, mad), ``div``, ``transcendental`` (sin, cos, exp, log,
sqrt, rsqrt, tanh, atan), ``minmax`` (fmin, fmax, fabs) and, for ``uint``, ``int``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import ir

FLOAT_FLAVOURS = ("add", "fma", "div", "transcendental", "minmax")
MAX_BOUND = 4.0


@dataclass(frozen=True)
class Val:
    """An operand and a bound on its magnitude (``None`` for integers)."""

    expr: ir.Expr
    bound: float | None = 1.0


def _same_width(args: list[ir.Expr], width: int) -> tuple:
    """Built-in arguments splatted to the widest operand (fma(float4, float, ...) is not OpenCL)."""
    return tuple(ir.Splat(a, a.ty.vec(width)) if a.ty.width != width else a for a in args)


def _call(fn: str, args: list[ir.Expr], base: ir.Type) -> ir.Call:
    width = max(a.ty.width for a in args)
    return ir.Call(fn, _same_width(args, width), base.vec(width))


def _lit(value: float, base: ir.Type) -> ir.Const:
    return ir.const(value, base.scalar)


def shrink(v: Val, base: ir.Type, limit: float = MAX_BOUND) -> Val:
    """``v`` scaled by a power of two so that its bound is at most ``limit``.

    Args:
        v: the operand; base: its scalar type (of the scale literal); limit: the largest bound kept.
    """
    if v.bound is None or v.bound <= limit:
        return v
    scale = 1.0
    while v.bound * scale > limit:
        scale /= 4
    return Val(ir.binop("*", v.expr, _lit(scale, base)), v.bound * scale)


def float_op(rng: np.random.Generator, flavour: str, a: Val, b: Val, c: Val, base: ir.Type,
             both: bool = False) -> Val:
    """One operation of ``flavour`` on up to three operands; returns the node and its bound.

    Args:
        rng: the kernel's generator; flavour: one of :data:`FLOAT_FLAVOURS`;
        a, b, c: the operands (``c`` only for fma/mad); base: the scalar float type;
        both: the result must depend on ``a`` and ``b`` (no unary ``fabs``).
    """
    pick = rng.integers(1 if both else 0, 4)
    if flavour == "add":
        op = "+-*"[pick % 3]
        bound = a.bound * b.bound if op == "*" else a.bound + b.bound
        return Val(ir.binop(op, a.expr, b.expr), bound)
    if flavour == "fma":
        fn = ("fma", "mad")[pick % 2]
        return Val(_call(fn, [a.expr, b.expr, c.expr], base), a.bound * b.bound + c.bound)
    if flavour == "div":
        k = (1.5, 2.0, 1.25, 3.0)[pick]
        den = ir.binop("+", _lit(k, base), ir.binop("*", b.expr, b.expr))
        return Val(ir.binop("/", a.expr, den), a.bound / k)
    if flavour == "minmax":
        if pick == 0:
            return Val(_call("fabs", [a.expr], base), a.bound)
        fn = ("fmin", "fmax", "fmax")[pick - 1]
        return Val(_call(fn, [a.expr, b.expr], base), max(a.bound, b.bound))
    if flavour == "transcendental":
        choice = rng.integers(0, 8)
        x = a.expr
        if choice == 0:
            return Val(_call("sin", [x], base), 1.0)
        if choice == 1:
            return Val(_call("cos", [x], base), 1.0)
        if choice == 2:
            s = shrink(a, base, 2.0)
            return Val(_call("exp", [s.expr], base), float(np.exp(s.bound)))
        if choice == 3:
            arg = ir.binop("+", _lit(1.0, base), ir.binop("*", x, x))
            return Val(_call("log", [arg], base), float(np.log1p(a.bound * a.bound)))
        if choice == 4:
            arg = ir.binop("+", _call("fabs", [x], base), _lit(0.5, base))
            return Val(_call("sqrt", [arg], base), float(np.sqrt(a.bound + 0.5)))
        if choice == 5:
            arg = ir.binop("+", _lit(1.0, base), ir.binop("*", x, x))
            return Val(_call("rsqrt", [arg], base), 1.0)
        if choice == 6:
            return Val(_call("tanh", [x], base), 1.0)
        return Val(_call("atan", [x], base), 1.6)
    raise ValueError(f"unknown flavour {flavour}")


def float_term(rng: np.random.Generator, values: list[Val], base: ir.Type, flavours: tuple,
               extra_ops: int = 2) -> Val:
    """A tree that uses every value once or more, with ``extra_ops`` more operations.

    Args:
        rng: the kernel's generator.
        values: the operands (loaded values, invariants).
        base: the scalar float type (``FLOAT`` or ``DOUBLE``).
        flavours: the operation classes to draw from.
        extra_ops: operations applied before the values are folded into one.
    """
    pool = [shrink(v, base) for v in values]
    # second operands come from the leaves, so that trees grow linearly; a constant among them
    # keeps one-value trees from degenerating (x - x)
    leaves = list(pool) + [Val(_lit(float(rng.choice([0.5, 0.75, 1.25, -0.5])), base), 1.25)]
    for _ in range(extra_ops):
        i = int(rng.integers(0, len(pool)))
        a = pool[i]
        b, c = _other_leaf(rng, leaves, a.expr), _other_leaf(rng, leaves, a.expr)
        pool[i] = shrink(float_op(rng, flavours[int(rng.integers(0, len(flavours)))], a, b, c, base), base)
    while len(pool) > 1:
        a = pool.pop(int(rng.integers(0, len(pool))))
        b = pool.pop(int(rng.integers(0, len(pool))))
        flavour = flavours[int(rng.integers(0, len(flavours)))]
        if flavour in ("transcendental",) or (flavour == "minmax" and rng.integers(0, 2) == 0):
            flavour = "add"
        c = leaves[int(rng.integers(0, len(leaves)))]
        pool.append(shrink(float_op(rng, flavour, a, b, c, base, both=True), base))
    return pool[0]


def _other_leaf(rng: np.random.Generator, leaves: list, avoid: ir.Expr):
    """A leaf other than ``avoid`` when there is one (no ``x - x``)."""
    others = [v for v in leaves if (v.expr if isinstance(v, Val) else v) is not avoid] or leaves
    return others[int(rng.integers(0, len(others)))]


def int_op(rng: np.random.Generator, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """One ``uint`` operation: arithmetic, bitwise, shift, division or remainder by a nonzero value.

    Args:
        rng: the kernel's generator; a, b: the operands.
    """
    u = lambda v: ir.Const(v, ir.UINT)  # noqa: E731
    choice = int(rng.integers(0, 10))
    if choice < 6:
        return ir.binop("+-*^&|"[choice], a, b)
    if choice == 6:
        return ir.binop(("<<", ">>")[int(rng.integers(0, 2))], a, u(int(rng.integers(1, 4))))
    if choice == 7:
        return ir.binop("/", a, ir.binop("+", ir.binop("&", b, u(15)), u(1)))
    if choice == 8:
        return ir.binop("%", a, ir.binop("+", ir.binop("&", b, u(7)), u(1)))
    return ir.Call(("min", "max")[int(rng.integers(0, 2))], (a, b), ir.UINT)


def int_term(rng: np.random.Generator, values: list[Val], extra_ops: int = 2) -> Val:
    """A ``uint`` tree over every value (see :func:`float_term`).

    Args:
        rng: the kernel's generator; values: the operands; extra_ops: operations before folding.
    """
    pool = [v.expr for v in values]
    leaves = list(pool) + [ir.Const(int(rng.choice([0x9E3779B9, 0x85EBCA6B, 12345, 7])), ir.UINT)]
    for _ in range(extra_ops):
        i = int(rng.integers(0, len(pool)))
        pool[i] = int_op(rng, pool[i], _other_leaf(rng, leaves, pool[i]))
    while len(pool) > 1:
        a = pool.pop(int(rng.integers(0, len(pool))))
        b = pool.pop(int(rng.integers(0, len(pool))))
        pool.append(int_op(rng, a, b))
    return Val(pool[0], None)


def macro_of(rng: np.random.Generator, name: str, base: ir.Type, flavours: tuple) -> tuple[ir.Macro, float]:
    """A function-like macro ``name(a, b)`` over two operands bounded by 1; returns it and its bound.

    Args:
        rng: the kernel's generator; name: the macro's name; base: the scalar type; flavours: the mix.
    """
    a, b = ir.Var("a", base), ir.Var("b", base)
    if base.is_float:
        body = float_term(rng, [Val(a), Val(b)], base, tuple(f for f in flavours if f != "transcendental") or ("add",), 1)
        return ir.Macro(name, ("a", "b"), body.expr), body.bound
    return ir.Macro(name, ("a", "b"), int_term(rng, [Val(a), Val(b)], 1).expr), None


def helper_of(rng: np.random.Generator, name: str, base: ir.Type, width: int, arity: int,
              flavours: tuple) -> tuple[ir.Helper, float | None]:
    """A helper ``T name(T p0, ...)`` computing a mix of its parameters (bounded by 1 each).

    Args:
        rng: the kernel's generator; name: the function's name; base: the scalar type;
        width: vector lanes of the parameters and result; arity: parameters; flavours: the mix.
    """
    ty = base.vec(width)
    params = tuple(ir.Param(f"p{i}", ty) for i in range(arity))
    vals = [Val(ir.Var(p.name, ty), 1.0 if base.is_float else None) for p in params]
    t = ir.Var("t", ty)
    if base.is_float:
        first = float_term(rng, vals, base, flavours, 1)
        second = float_term(rng, [Val(t, first.bound), vals[0]], base, flavours, 0)
    else:
        first = int_term(rng, vals, 1)
        second = int_term(rng, [Val(t, None), vals[0]], 0)
    helper = ir.Helper(name, ty, params, (ir.Decl(t, first.expr, const=True),), second.expr)
    return helper, second.bound
