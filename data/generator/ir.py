"""The intermediate form of a generated kernel: types, expressions, statements, helpers, macros.

One tree is both printed to OpenCL C (:mod:`.printer`) and evaluated with numpy
(:mod:`.interpreter`), so the source and its reference cannot drift apart. Nodes are plain frozen
dataclasses; every expression carries its OpenCL type.

    k = Var("k", INT)
    body = [For(k, Const(0, INT), "<", Var("K", INT), "+=", Const(1, INT), [...])]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np


@dataclass(frozen=True)
class Type:
    """An OpenCL scalar or vector type.

    Args:
        base: ``"float"``, ``"double"``, ``"int"`` or ``"uint"``.
        width: lanes (1 for a scalar, else 2, 4 or 8).
    """

    base: str
    width: int = 1

    @property
    def ctype(self) -> str:
        return self.base if self.width == 1 else f"{self.base}{self.width}"

    @property
    def is_float(self) -> bool:
        return self.base in ("float", "double")

    @property
    def dtype(self) -> np.dtype:
        return np.dtype({"float": "float32", "double": "float64", "int": "int32", "uint": "uint32"}[self.base])

    @property
    def scalar(self) -> "Type":
        return Type(self.base)

    def vec(self, width: int) -> "Type":
        return Type(self.base, width)


FLOAT, DOUBLE, INT, UINT = Type("float"), Type("double"), Type("int"), Type("uint")
BOOL = INT  # comparisons are ints in C


# -- expressions ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    """Base of every expression node."""


@dataclass(frozen=True)
class Const(Expr):
    """A literal (``1.5f``, ``1.5``, ``3``, ``3u``) of ``ty``."""

    value: Union[int, float]
    ty: Type


@dataclass(frozen=True)
class Var(Expr):
    """A named value: private variable, loop variable or scalar kernel parameter."""

    name: str
    ty: Type


@dataclass(frozen=True)
class MacroConst(Expr):
    """An object-like macro (``#define WG 128``) used as an integer constant."""

    name: str
    value: int
    ty: Type = INT


@dataclass(frozen=True)
class WorkItem(Expr):
    """``get_global_id(dim)`` and friends; ``fn`` is the OpenCL built-in's name."""

    fn: str
    dim: int
    ty: Type = INT


@dataclass(frozen=True)
class Bin(Expr):
    """A binary operator: arithmetic ``+ - * / %``, bitwise ``& | ^ << >>``, comparisons, ``&& ||``."""

    op: str
    a: Expr
    b: Expr
    ty: Type


@dataclass(frozen=True)
class Un(Expr):
    """A unary operator: ``-`` or ``!``."""

    op: str
    a: Expr
    ty: Type


@dataclass(frozen=True)
class Call(Expr):
    """A call: an OpenCL built-in (``kind="builtin"``), a helper function or a function-like macro."""

    fn: str
    args: tuple
    ty: Type
    kind: str = "builtin"


@dataclass(frozen=True)
class Cast(Expr):
    """A conversion to ``ty``: ``(float)x`` for scalars, ``convert_float4(x)`` for vectors."""

    a: Expr
    ty: Type


@dataclass(frozen=True)
class Select(Expr):
    """``c ? a : b`` (the generator never puts memory accesses in the arms)."""

    c: Expr
    a: Expr
    b: Expr
    ty: Type


@dataclass(frozen=True)
class Load(Expr):
    """``buf[index]`` from a ``space`` (``global``, ``constant``, ``local``, ``private``) array."""

    buf: str
    index: Expr
    ty: Type
    space: str = "global"


@dataclass(frozen=True)
class VLoad(Expr):
    """``vloadN(offset, buf)``: ``ty.width`` consecutive elements starting at ``offset * width``."""

    buf: str
    offset: Expr
    ty: Type


@dataclass(frozen=True)
class Lane(Expr):
    """``v.sK``: lane ``lane`` of a vector variable."""

    v: Expr
    lane: int
    ty: Type


@dataclass(frozen=True)
class Splat(Expr):
    """``(float4)(x)``: a scalar copied to every lane."""

    a: Expr
    ty: Type


@dataclass(frozen=True)
class BufRef(Expr):
    """A buffer passed by name to a helper's pointer parameter."""

    name: str
    ty: Type


# -- statements ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stmt:
    """Base of every statement node."""


@dataclass(frozen=True)
class Decl(Stmt):
    """``[const] T var = init;``"""

    var: Var
    init: Optional[Expr]
    const: bool = False


@dataclass(frozen=True)
class ArrayDecl(Stmt):
    """``__local T name[size];`` or a private ``T name[size];`` (``size`` an int or a macro)."""

    name: str
    ty: Type
    size: Expr
    space: str = "private"


@dataclass(frozen=True)
class Assign(Stmt):
    """``target op value;`` with ``op`` in ``= += -= *=``; target a Var or a Load (any space)."""

    target: Expr
    op: str
    value: Expr


@dataclass(frozen=True)
class VStore(Stmt):
    """``vstoreN(value, offset, buf);``"""

    buf: str
    offset: Expr
    value: Expr


@dataclass(frozen=True)
class If(Stmt):
    """``if (cond) {then} else {orelse}``."""

    cond: Expr
    then: tuple
    orelse: tuple = ()


@dataclass(frozen=True)
class For(Stmt):
    """``for (int var = start; var op bound; var step_op step) {body}``.

    ``step_op`` is ``"+="`` (``++var`` when the step is 1) or ``">>="``; ``unroll`` prints
    ``#pragma unroll`` (0: without a count) before the loop when not None; ``cond``, when not None, is a
    second conjunct of the condition (``var op bound && cond``: a data-dependent exit).
    """

    var: Var
    start: Expr
    op: str
    bound: Expr
    step_op: str
    step: Expr
    body: tuple
    unroll: Optional[int] = None
    cond: Optional[Expr] = None


@dataclass(frozen=True)
class While(Stmt):
    """``while (cond) {body}``, or ``do {body} while (cond);`` when ``do`` is set."""

    cond: Expr
    body: tuple
    do: bool = False


@dataclass(frozen=True)
class Break(Stmt):
    """``break;`` (leaves the innermost loop)."""


@dataclass(frozen=True)
class Barrier(Stmt):
    """``barrier(CLK_LOCAL_MEM_FENCE);``"""


@dataclass(frozen=True)
class Atomic(Stmt):
    """``atomic_<op>(&buf[index], value);`` on an int buffer (``op`` in add, max, min, xor, inc)."""

    op: str
    buf: str
    index: Expr
    value: Optional[Expr]


@dataclass(frozen=True)
class Return(Stmt):
    """``return;``"""


# -- declarations --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """A kernel (or helper) parameter.

    Args:
        name: its name; ty: the scalar or element type.
        kind: ``"scalar"`` or ``"buffer"``; space: ``"global"`` or ``"constant"`` for buffers.
        role: ``"in"``, ``"out"`` or ``"inout"`` (buffers).
    """

    name: str
    ty: Type
    kind: str = "scalar"
    space: str = "global"
    role: str = "in"


@dataclass(frozen=True)
class Macro:
    """``#define name value`` (``params`` None) or ``#define name(a, b) (body)``."""

    name: str
    params: Optional[tuple]
    body: Union[int, Expr]


@dataclass(frozen=True)
class Helper:
    """A helper function ``ret name(params) { body; return result; }``."""

    name: str
    ret: Type
    params: tuple
    body: tuple
    result: Expr


@dataclass
class Kernel:
    """One generated ``__kernel``.

    Args:
        name: the kernel function's name.
        params: kernel parameters in order.
        body: its statements.
        macros, helpers: printed before it, in order.
        reqd_local: the ``reqd_work_group_size`` (3 ints) or None.
        fp64: whether the source needs ``cl_khr_fp64``.
    """

    name: str
    params: list
    body: list
    macros: list = field(default_factory=list)
    helpers: list = field(default_factory=list)
    reqd_local: Optional[tuple] = None
    fp64: bool = False

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def const(value, ty: Type) -> Const:
    """A literal of ``ty`` (ints stay ints, floats stay floats)."""
    return Const(float(value) if ty.is_float else int(value), ty)


def binop(op: str, a: Expr, b: Expr) -> Bin:
    """``a op b`` typed like C: comparisons are int, else the wider of the operands (vector wins)."""
    if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return Bin(op, a, b, INT)
    ta, tb = a.ty, b.ty
    if ta.width != tb.width:  # OpenCL converts the scalar operand to the vector's type
        vec = ta if ta.width > 1 else tb
        return Bin(op, a, b, vec)
    rank = {"int": 0, "uint": 1, "float": 2, "double": 3}
    base = ta.base if rank[ta.base] >= rank[tb.base] else tb.base
    if op in ("<<", ">>"):
        base = ta.base
    return Bin(op, a, b, Type(base, ta.width))
