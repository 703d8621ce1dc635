"""Runs a kernel of the intermediate form on numpy: the reference of every generated kernel.

All work-items execute each statement together (lock-step, masked where control flow diverges),
which is the semantics of a correct OpenCL kernel: generated kernels only read what other
work-items wrote through local memory after a barrier, and never write one global element from
two work-items except through atomics. The interpreter checks both (a barrier reached by part of a
work-group, an out-of-range index and two plain stores to one element raise ``ReferenceError_``).

    outputs = run_kernel(kernel, global_size, local_size, arrays, scalars)
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from . import ir
from .evaluator import ReferenceError_, evaluate, index_of
from .values import as2d, binary, truth, wrap

MAX_TRIPS = 1 << 20  # iterations of one loop before the reference gives up (a generator defect)


class Machine:
    """The state of one NDRange being interpreted.

    Args:
        kernel: the kernel; global_size, local_size: the NDRange (1 to 3 dims).
        buffers: every buffer parameter's array (copied, as float64/int64).
        scalars: every scalar parameter's value.
    """

    def __init__(self, kernel: ir.Kernel, global_size, local_size, buffers: dict, scalars: dict):
        g = list(global_size) + [1] * (3 - len(global_size))
        lsz = list(local_size) + [1] * (3 - len(local_size))
        if any(a % b for a, b in zip(g, lsz)):
            raise ValueError(f"local size {local_size} does not divide {global_size}")
        self.gsz, self.lsz = g, lsz
        self.ngrp = [a // b for a, b in zip(g, lsz)]
        self.items = math.prod(g)
        lin = np.arange(self.items)
        gid = [lin % g[0], (lin // g[0]) % g[1], lin // (g[0] * g[1])]
        self.ids = {"get_global_id": gid,
                    "get_local_id": [gid[d] % lsz[d] for d in range(3)],
                    "get_group_id": [gid[d] // lsz[d] for d in range(3)]}
        grp = self.ids["get_group_id"]
        self.group_lin = ((grp[2] * self.ngrp[1] + grp[1]) * self.ngrp[0] + grp[0]).reshape(-1, 1)
        self.groups = math.prod(self.ngrp)
        self.kernel = kernel
        self.macros = {m.name: m for m in kernel.macros if m.params is not None}
        self.helpers = {h.name: h for h in kernel.helpers}
        self.buffers = buffers
        self.local: dict[str, np.ndarray] = {}
        self.private: dict[str, np.ndarray] = {}
        self.alive = np.ones((self.items, 1), bool)
        self._broken: list[np.ndarray] = []  # per open loop: the work-items that left it by ``break``
        self._scopes = [{name: as2d(v) for name, v in scalars.items()}]
        self._aliases: list[dict] = [{}]

    # -- names -----------------------------------------------------------------------------
    def lookup(self, name: str) -> np.ndarray:
        for scope in reversed(self._scopes):
            if name in scope:
                return scope[name]
        raise KeyError(f"reference: unknown variable {name}")

    def bind(self, name: str, value) -> None:
        self._scopes[-1][name] = value

    def resolve(self, name: str) -> str:
        """The kernel buffer a (helper parameter) name refers to."""
        for aliases in reversed(self._aliases):
            if name in aliases:
                return aliases[name]
        return name

    @contextmanager
    def scope(self, values: dict, aliases: dict):
        """A helper or macro body's names (its parameters' values and buffer aliases)."""
        self._scopes.append({k: as2d(v) for k, v in values.items()})
        self._aliases.append(aliases)
        try:
            yield
        finally:
            self._scopes.pop()
            self._aliases.pop()

    def work_item(self, fn: str, dim: int) -> np.ndarray:
        if fn in self.ids:
            return self.ids[fn][dim].reshape(-1, 1)
        value = {"get_global_size": self.gsz, "get_local_size": self.lsz, "get_num_groups": self.ngrp}[fn][dim]
        return np.array([[value]], np.int64)

    def full(self, value, width: int) -> np.ndarray:
        return np.array(np.broadcast_to(as2d(value), (self.items, width)))

    # -- statements ------------------------------------------------------------------------
    def run_block(self, body, mask) -> None:
        for s in body:
            self.run(s, mask)

    def run(self, s: ir.Stmt, mask) -> None:
        """Executes one statement for the work-items in ``mask`` that have not returned (nor left the innermost
        loop by ``break``)."""
        m = mask & self.alive
        if self._broken:
            m = m & ~self._broken[-1]
        if isinstance(s, ir.Decl):
            width = s.var.ty.width
            value = self.full(wrap(evaluate(self, s.init, m), s.var.ty) if s.init is not None else 0, width)
            try:
                old = self.lookup(s.var.name)
                value = np.where(m, value, self.full(old, width))
            except KeyError:
                pass
            self.bind(s.var.name, value)
        elif isinstance(s, ir.ArrayDecl):
            size = int(as2d(evaluate(self, s.size, m))[0, 0])
            if s.space == "local":
                self.local.setdefault(s.name, np.zeros((self.groups, size)))
            else:
                self.private.setdefault(s.name, np.zeros((self.items, size)))
        elif isinstance(s, ir.Assign):
            self._assign(s, m)
        elif isinstance(s, ir.VStore):
            self._vstore(s, m)
        elif isinstance(s, ir.If):
            c = np.broadcast_to(truth(as2d(evaluate(self, s.cond, m))), m.shape)
            self.run_block(s.then, m & c)
            if s.orelse:
                self.run_block(s.orelse, m & ~c)
        elif isinstance(s, ir.For):
            self._for(s, m)
        elif isinstance(s, ir.While):
            self._while(s, m)
        elif isinstance(s, ir.Break):
            self._broken[-1] |= m
        elif isinstance(s, ir.Barrier):
            reached = np.bincount(self.group_lin[:, 0], weights=m[:, 0], minlength=self.groups)
            if np.any((reached > 0) & (reached < math.prod(self.lsz))):
                raise ReferenceError_("a barrier reached by part of a work-group")
        elif isinstance(s, ir.Atomic):
            self._atomic(s, m)
        elif isinstance(s, ir.Return):
            self.alive &= ~m
        else:
            raise TypeError(f"cannot run {type(s).__name__}")

    @contextmanager
    def loop(self, m):
        """A loop's scope of ``break``: yields the mask of the work-items that left it (updated in place)."""
        self._broken.append(np.zeros_like(m))
        try:
            yield self._broken[-1]
        finally:
            self._broken.pop()

    def _for(self, s: ir.For, m) -> None:
        self.bind(s.var.name, self.full(evaluate(self, s.start, m), 1))
        with self.loop(m) as broken:
            for _ in range(MAX_TRIPS):
                v = self.lookup(s.var.name)
                cond = np.broadcast_to(as2d(binary(s.op, v, evaluate(self, s.bound, m), ir.INT)), m.shape)
                if s.cond is not None:
                    cond = cond & np.broadcast_to(truth(as2d(evaluate(self, s.cond, m & cond))), m.shape)
                active = m & self.alive & cond & ~broken
                if not active.any():
                    return
                self.run_block(s.body, active)
                active = active & ~broken  # a break skips the step
                v = self.lookup(s.var.name)
                step = evaluate(self, s.step, active)
                new = binary(s.step_op[:-1], v, step, ir.INT)
                self.bind(s.var.name, np.where(active, new, v))
        raise ReferenceError_(f"loop over {s.var.name} ran more than {MAX_TRIPS} times")

    def _while(self, s: ir.While, m) -> None:
        active = m & self.alive
        with self.loop(m) as broken:
            for trip in range(MAX_TRIPS):
                if trip or not s.do:
                    active = active & np.broadcast_to(truth(as2d(evaluate(self, s.cond, active))), m.shape)
                active = active & self.alive & ~broken
                if not active.any():
                    return
                self.run_block(s.body, active)
        raise ReferenceError_(f"a {'do' if s.do else 'while'} loop ran more than {MAX_TRIPS} times")

    def _assign(self, s: ir.Assign, m) -> None:
        t = s.target
        value = evaluate(self, s.value, m)
        if isinstance(t, ir.Var):
            old = self.full(self.lookup(t.name), t.ty.width)
            new = value if s.op == "=" else binary(s.op[:-1], old, value, ir.binop(s.op[:-1], t, s.value).ty, m)
            self.bind(t.name, np.where(m, self.full(wrap(new, t.ty), t.ty.width), old))
            return
        rows = np.nonzero(m[:, 0])[0]
        if t.space == "private":
            arr = self.private[t.buf]
            idx = index_of(self, t.index, m, arr.shape[1], f"private {t.buf}")
            where = (rows, np.broadcast_to(idx, m.shape)[rows, 0])
        elif t.space == "local":
            arr = self.local[t.buf]
            idx = index_of(self, t.index, m, arr.shape[1], f"local {t.buf}")
            where = (self.group_lin[rows, 0], np.broadcast_to(idx, m.shape)[rows, 0])
        else:
            name = self.resolve(t.buf)
            arr = self.buffers[name]
            idx = index_of(self, t.index, m, arr.size, f"global {name}")
            where = (np.broadcast_to(idx, m.shape)[rows, 0],)
        flat = where[0] if len(where) == 1 else where[0] * arr.shape[-1] + where[1]
        if np.unique(flat).size != flat.size:
            raise ReferenceError_(f"two work-items store to one element of {t.buf}")
        val = np.broadcast_to(value, m.shape)[rows, 0]
        if s.op != "=":
            val = binary(s.op[:-1], arr[where], val, ir.binop(s.op[:-1], t, s.value).ty, m[rows])
        arr[where] = wrap(val, t.ty)

    def _vstore(self, s: ir.VStore, m) -> None:
        name = self.resolve(s.buf)
        arr = self.buffers[name]
        w = s.value.ty.width
        off = index_of(self, s.offset, m, arr.size // w, f"vstore{w} {name}")
        rows = np.nonzero(m[:, 0])[0]
        flat = (np.broadcast_to(off, m.shape)[rows, 0][:, None] * w + np.arange(w)[None, :])
        if np.unique(flat).size != flat.size:
            raise ReferenceError_(f"two work-items store to one element of {name}")
        val = np.broadcast_to(as2d(evaluate(self, s.value, m)), (m.shape[0], w))[rows]
        arr[flat] = wrap(val, s.value.ty)

    def _atomic(self, s: ir.Atomic, m) -> None:
        name = self.resolve(s.buf)
        arr = self.buffers[name]
        idx = index_of(self, s.index, m, arr.size, f"atomic {name}")
        rows = np.nonzero(m[:, 0])[0]
        where = np.broadcast_to(idx, m.shape)[rows, 0]
        value = np.ones(rows.size, np.int64) if s.value is None else \
            np.broadcast_to(as2d(evaluate(self, s.value, m)), m.shape)[rows, 0].astype(np.int64)
        ufunc = {"add": np.add, "inc": np.add, "max": np.maximum, "min": np.minimum, "xor": np.bitwise_xor}[s.op]
        ufunc.at(arr, where, value)
        arr[:] = wrap(arr, self.kernel.param(name).ty)


def run_kernel(kernel: ir.Kernel, global_size, local_size, arrays: dict, scalars: dict) -> dict:
    """Interprets ``kernel`` over the NDRange; returns every out/inout buffer's final contents.

    Args:
        kernel: the intermediate form.
        global_size, local_size: the NDRange and a work-group shape dividing it.
        arrays: host arrays of every buffer parameter (not modified).
        scalars: every scalar parameter's value.
    """
    buffers = {}
    for p in kernel.params:
        if p.kind == "buffer":
            a = np.asarray(arrays[p.name]).reshape(-1)
            buffers[p.name] = a.astype(np.float64) if p.ty.is_float else a.astype(np.int64)
    values = {p.name: wrap(np.asarray(scalars[p.name]), p.ty) for p in kernel.params if p.kind == "scalar"}
    machine = Machine(kernel, global_size, local_size, buffers, values)
    machine.run_block(kernel.body, np.ones((machine.items, 1), bool))
    return {p.name: buffers[p.name].astype(p.ty.dtype) if p.ty.is_float else wrap(buffers[p.name], p.ty).astype(p.ty.dtype)
            for p in kernel.params if p.kind == "buffer" and p.role in ("out", "inout")}
