"""Numpy semantics of OpenCL C values, used by the reference evaluator.

A value is a 2-D numpy array ``(work-items, lanes)`` (or ``(1, lanes)`` when the same for every
work-item): floats as ``float64`` (``float`` results rounded to single precision after each
operation), integers as ``int64`` holding the 32-bit value (wrapped like two's complement C).
"""
from __future__ import annotations

import numpy as np

from . import ir

_MASK32 = 0xFFFFFFFF


def wrap(v, ty: ir.Type) -> np.ndarray:
    """``v`` brought into ``ty``'s value set (rounding for float, 32-bit wrap-around for ints).

    Args:
        v: a numpy array or scalar.
        ty: the OpenCL type it is stored as.
    """
    v = np.asarray(v)
    if ty.base == "float":
        return v.astype(np.float32).astype(np.float64)
    if ty.base == "double":
        return v.astype(np.float64)
    if v.dtype.kind == "f":
        v = np.trunc(v)
    v = v.astype(np.int64)
    if ty.base == "uint":
        return v & _MASK32
    return ((v + 2**31) & _MASK32) - 2**31


def as2d(v) -> np.ndarray:
    """A value as a 2-D array ``(items or 1, lanes)``."""
    v = np.asarray(v)
    if v.ndim == 0:
        return v.reshape(1, 1)
    if v.ndim == 1:
        return v.reshape(-1, 1)
    return v


def truth(v) -> np.ndarray:
    """C truth of a value: nonzero (bool array)."""
    v = np.asarray(v)
    return v if v.dtype == bool else v != 0


def _cdiv(a, b, mask):
    """C integer division (truncates toward zero); raises on a zero divisor of an active item."""
    a, b = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    if mask is not None and np.any((b == 0) & mask):
        raise ZeroDivisionError("integer division by zero in the reference")
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    return np.where((a < 0) != (safe < 0), -q, q)


def binary(op: str, a, b, ty: ir.Type, mask=None) -> np.ndarray:
    """``a op b`` with the result in ``ty`` (``ir.binop``'s type; comparisons give bools).

    Args:
        op: the C operator; a, b: the operand values; ty: the result type;
        mask: the active work-items (integer division by zero is an error only for them).
    """
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                "==": np.equal, "!=": np.not_equal}[op](a, b)
    if op == "&&":
        return truth(a) & truth(b)
    if op == "||":
        return truth(a) | truth(b)
    if ty.is_float:
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if op == "+":
            return wrap(a + b, ty)
        if op == "-":
            return wrap(a - b, ty)
        if op == "*":
            return wrap(a * b, ty)
        if op == "/":
            with np.errstate(divide="ignore", invalid="ignore"):
                return wrap(a / b, ty)
        raise ValueError(f"operator {op} on {ty.ctype}")
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b  # wraps modulo 2**64: the low 32 bits are C's
    elif op == "/":
        r = _cdiv(a, b, mask)
    elif op == "%":
        r = a - b * _cdiv(a, b, mask)
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "<<":
        r = a << (b & 31)
    elif op == ">>":
        r = a >> (b & 31)
    else:
        raise ValueError(f"operator {op} on {ty.ctype}")
    return wrap(r, ty)


def _fma(a, b, c):
    return a * b + c


BUILTINS = {
    "sin": np.sin, "cos": np.cos, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "rsqrt": lambda a: 1.0 / np.sqrt(a), "fabs": np.abs, "floor": np.floor, "exp2": np.exp2,
    "log2": np.log2, "atan": np.arctan, "log1p": np.log1p,
    "fma": _fma, "mad": _fma, "fmin": np.minimum, "fmax": np.maximum, "min": np.minimum, "max": np.maximum,
    "clamp": lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), "hypot": np.hypot,
}


def builtin(fn: str, args: list, ty: ir.Type) -> np.ndarray:
    """An OpenCL math built-in on evaluated arguments, result in ``ty``.

    Args:
        fn: the built-in's name; args: the argument values; ty: the result type.
    """
    func = BUILTINS.get(fn)
    if func is None:
        raise ValueError(f"built-in {fn} has no reference")
    if ty.is_float:
        args = [np.asarray(a, np.float64) for a in args]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return wrap(func(*args), ty)


def convert(v, ty: ir.Type) -> np.ndarray:
    """A C conversion (cast) of ``v`` to ``ty`` (float to int truncates).

    Args:
        v: the value; ty: the target type.
    """
    return wrap(v, ty)
