"""Evaluates expressions of the intermediate form for every work-item at once (numpy).

:func:`evaluate` reads the state of a :class:`~.interpreter.Machine` (work-item ids, variables,
buffers, local and private arrays); ``mask`` marks the work-items that execute the expression, and
only their indexes are range-checked (the others may hold stale loop values).
"""
from __future__ import annotations

import numpy as np

from . import ir
from .values import as2d, binary, builtin, convert, truth, wrap


class ReferenceError_(Exception):
    """The reference evaluation found an out-of-range index or a race: a generator defect."""


def index_of(machine, e: ir.Expr, mask, extent: int, what: str) -> np.ndarray:
    """An integer index array ``(items or 1, 1)``, checked in ``[0, extent)`` for active items and
    clipped for the others.

    Args:
        machine: the interpreter state; e: the index expression; mask: the active work-items;
        extent: the array's length; what: the array, for the error message.
    """
    idx = as2d(evaluate(machine, e, mask)).astype(np.int64)
    active = np.broadcast_to(mask, (max(idx.shape[0], mask.shape[0]), 1))
    full = np.broadcast_to(idx, active.shape)
    bad = active & ((full < 0) | (full >= extent))
    if bad.any():
        raise ReferenceError_(f"{what}: index {int(full[bad][0])} outside [0, {extent})")
    return np.clip(idx, 0, max(extent - 1, 0))


def evaluate(machine, e: ir.Expr, mask) -> np.ndarray:
    """The value of ``e`` for every work-item (see :mod:`.values` for the representation).

    Args:
        machine: the interpreter state.
        e: the expression.
        mask: bool array ``(items, 1)`` of the work-items evaluating it.
    """
    if isinstance(e, ir.Const):
        return wrap(np.array([[e.value]]), e.ty)
    if isinstance(e, ir.MacroConst):
        return np.array([[int(e.value)]], np.int64)
    if isinstance(e, ir.Var):
        return machine.lookup(e.name)
    if isinstance(e, ir.WorkItem):
        return machine.work_item(e.fn, e.dim)
    if isinstance(e, ir.Bin):
        a = evaluate(machine, e.a, mask)
        b = evaluate(machine, e.b, mask)
        return binary(e.op, a, b, e.ty, mask)
    if isinstance(e, ir.Un):
        a = evaluate(machine, e.a, mask)
        if e.op == "!":
            return ~truth(a)
        return wrap(-np.asarray(a), e.ty)
    if isinstance(e, ir.Cast):
        return convert(evaluate(machine, e.a, mask), e.ty)
    if isinstance(e, ir.Select):
        c = truth(evaluate(machine, e.c, mask))
        return wrap(np.where(c, evaluate(machine, e.a, mask), evaluate(machine, e.b, mask)), e.ty)
    if isinstance(e, ir.Splat):
        return np.repeat(as2d(evaluate(machine, e.a, mask)), e.ty.width, axis=1)
    if isinstance(e, ir.Lane):
        v = evaluate(machine, e.v, mask)
        return v[:, e.lane:e.lane + 1]
    if isinstance(e, ir.Load):
        return _load(machine, e, mask)
    if isinstance(e, ir.VLoad):
        name = machine.resolve(e.buf)
        buf = machine.buffers[name]
        w = e.ty.width
        off = index_of(machine, e.offset, mask, buf.size // w, f"vload{w} {name}")
        return buf[off * w + np.arange(w)[None, :]]
    if isinstance(e, ir.Call):
        return _call(machine, e, mask)
    raise TypeError(f"cannot evaluate {type(e).__name__}")


def _load(machine, e: ir.Load, mask) -> np.ndarray:
    if e.space == "private":
        arr = machine.private[e.buf]
        idx = index_of(machine, e.index, mask, arr.shape[1], f"private {e.buf}")
        rows = np.arange(arr.shape[0])[:, None]
        return arr[rows, np.broadcast_to(idx, rows.shape)]
    if e.space == "local":
        arr = machine.local[e.buf]
        idx = index_of(machine, e.index, mask, arr.shape[1], f"local {e.buf}")
        return arr[machine.group_lin, idx]
    name = machine.resolve(e.buf)
    buf = machine.buffers[name]
    idx = index_of(machine, e.index, mask, buf.size, f"{e.space} {name}")
    return buf[idx]


def _call(machine, e: ir.Call, mask) -> np.ndarray:
    args = [a if isinstance(a, ir.BufRef) else evaluate(machine, a, mask) for a in e.args]
    if e.kind == "builtin":
        return builtin(e.fn, args, e.ty)
    if e.kind == "macro":
        macro = machine.macros[e.fn]
        with machine.scope({p: v for p, v in zip(macro.params, args)}, {}):
            return wrap(evaluate(machine, macro.body, mask), e.ty)
    helper = machine.helpers[e.fn]
    values, aliases = {}, {}
    for p, a in zip(helper.params, args):
        if p.kind == "buffer":
            aliases[p.name] = machine.resolve(a.name)
        else:
            values[p.name] = wrap(a, p.ty)
    with machine.scope(values, aliases):
        machine.run_block(helper.body, mask)
        return wrap(evaluate(machine, helper.result, mask), helper.ret)
