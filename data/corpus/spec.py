"""The launch spec of one corpus kernel: its arguments, sizes, work-group shapes and numpy reference.

Sizes, buffer element counts, scalar values, global sizes and constraints are written as small
Python expressions over the problem-size parameters (e.g. ``"M*K"``, ``"N // 4"``, ``"N % 16 == 0"``).
They are evaluated by :func:`evaluate`, which accepts only arithmetic (``+ - * / // % **``),
comparisons, ``and``/``or``/``not``, ``min``/``max`` and the names it is given: never a bare ``eval``.
"""
from __future__ import annotations

import ast
import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from kgraph.parsers.errors import InputError

#: Device memory one launch may use (all buffers together); specs' size lists respect it.
MAX_LAUNCH_BYTES = 2 * 1024**3

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_CMPOPS = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}
_FUNCS = {"min": min, "max": max}


@lru_cache(maxsize=4096)
def _parse(expr: str) -> ast.Expression:
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as err:
        raise InputError(f"size expression {expr!r}: not an expression ({err.msg})") from None
    for node in ast.walk(tree):
        ok = isinstance(
            node,
            (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Constant, ast.Name,
             ast.Call, ast.Load, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or,
             *_BINOPS, *_CMPOPS),
        )
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            ok = False
        if isinstance(node, ast.Call):
            ok = (isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords
                  and len(node.args) >= 1)
        if not ok:
            raise InputError(f"size expression {expr!r}: {type(node).__name__} is not allowed")
    return tree


def _eval(node: ast.AST, env: dict, expr: str):
    if isinstance(node, ast.Expression):
        return _eval(node.body, env, expr)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise InputError(f"size expression {expr!r}: unknown name {node.id!r} "
                             f"(known: {', '.join(sorted(env))})")
        return env[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env, expr), _eval(node.right, env, expr)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise InputError(f"size expression {expr!r}: division by zero")
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, expr)
        if isinstance(node.op, ast.Not):
            return not value
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, env, expr) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env, expr)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env, expr)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(_eval(a, env, expr) for a in node.args))
    raise InputError(f"size expression {expr!r}: cannot evaluate {type(node).__name__}")


class _WrapBool(ast.NodeTransformer):
    """``a and b`` -> ``_kg_bool(a and b)``: the interpreter's ``all``/``any`` give a bool too."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        return ast.Call(func=ast.Name(id="_kg_bool", ctx=ast.Load()), args=[node], keywords=[])


@lru_cache(maxsize=4096)
def _compiled(expr: str):
    """The validated expression (:func:`_parse`) as a code object: arithmetic, comparisons, names,
    ``min``/``max`` only, so evaluating it with no builtins runs nothing else. ~10x faster than
    :func:`_eval` (launch sampling evaluates millions of constraints)."""
    tree = _WrapBool().visit(ast.parse(ast.unparse(_parse(expr)), mode="eval"))
    return compile(ast.fix_missing_locations(tree), f"<size expression {expr!r}>", "eval")


_GLOBALS = {"__builtins__": {}, "_kg_bool": bool, **_FUNCS}


def evaluate(expr: str | int | float, env: dict[str, int | float]) -> int | float:
    """Evaluates one size expression with the names in ``env`` (problem sizes, ``l0..l2``)."""
    if isinstance(expr, (int, float)):
        return expr
    text = str(expr)
    code = _compiled(text)
    if "min" not in env and "max" not in env and "_kg_bool" not in env:  # else the interpreter's scoping
        try:
            return eval(code, _GLOBALS, env)  # noqa: S307 - validated AST, no builtins
        except (ArithmeticError, NameError, TypeError):
            pass  # the interpreter raises the InputError that says what is wrong
    return _eval(_parse(text), env, text)


def to_int(expr: str | int, env: dict) -> int:
    """Evaluates ``expr`` and insists on a whole number (element counts, global sizes)."""
    value = evaluate(expr, env)
    if isinstance(value, float):
        if not value.is_integer():
            raise InputError(f"size expression {expr!r} = {value}: not a whole number")
        value = int(value)
    return int(value)


@dataclass
class Arg:
    """One kernel argument, in the kernel's parameter order.

    Args:
        name: the parameter's name in the source.
        kind: ``"buffer"`` (global/constant pointer), ``"scalar"`` or ``"local"`` (``__local`` pointer).
        dtype: numpy dtype name of the element or scalar (``"float32"``, ``"int32"``, ...).
        count: buffer/local: element count expression; scalar: its value expression.
        role: ``"in"``, ``"out"`` (compared with the reference, starts zeroed) or ``"inout"``.
    """

    name: str
    kind: str
    dtype: str
    count: str
    role: str = "in"

    def __post_init__(self):
        if self.kind not in ("buffer", "scalar", "local"):
            raise InputError(f"argument {self.name}: kind {self.kind!r} is not buffer|scalar|local")
        if self.role not in ("in", "out", "inout"):
            raise InputError(f"argument {self.name}: role {self.role!r} is not in|out|inout")
        np.dtype(self.dtype)

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "dtype": self.dtype, "count": str(self.count),
                "role": self.role}

    @classmethod
    def from_json(cls, obj: dict) -> "Arg":
        return cls(obj["name"], obj["kind"], obj["dtype"], obj["count"], obj.get("role", "in"))


@dataclass
class KernelSpec:
    """A corpus kernel with everything needed to launch and check it.

    Args:
        kernel_id: unique, stable id (``family.variant-values``), e.g. ``gemm_tiled.t16.fp32``.
        family: the template's name; ``variant`` the template parameters that made this source.
        kernel_name: the ``__kernel`` function to launch; ``source`` the OpenCL C text.
        sizes: candidate values per problem-size parameter.
        check_sizes: one small value per parameter for the correctness check.
        constraints: expressions over sizes (and ``l0, l1, l2``) that must all hold.
        args: the kernel's arguments in order.
        global_size: one expression per NDRange dimension.
        local_sizes: candidate work-group shapes (the first is the default).
        make_inputs: ``(rng, sizes) -> {buffer name: array}`` for structured inputs (may return a
            subset; the rest get defaults) or ``None`` for defaults only.
        reference: ``(inputs, sizes) -> {out/inout name: array}``; ``inputs`` holds every buffer
            array and every scalar's value.
        rtol, atol: tolerances of the comparison with the reference.

    Shapes:
        global_size and every local shape have ``dims`` (1, 2 or 3) entries.
    """

    kernel_id: str
    family: str
    variant: dict
    kernel_name: str
    source: str
    sizes: dict[str, list[int]]
    check_sizes: dict[str, int]
    constraints: list[str]
    args: list[Arg]
    global_size: list[str]
    local_sizes: list[list[int]]
    reference: Callable[[dict, dict], dict]
    make_inputs: Optional[Callable[[np.random.Generator, dict], dict]] = None
    rtol: float = 1e-4
    atol: float = 1e-5
    lang: str = "opencl"
    tags: list[str] = field(default_factory=list)

    @property
    def dims(self) -> int:
        return len(self.global_size)

    def to_json(self) -> dict:
        """Everything but the callables, as plain JSON types."""
        return {
            "kernel_id": self.kernel_id, "family": self.family, "variant": dict(self.variant),
            "kernel_name": self.kernel_name, "source": self.source, "lang": self.lang,
            "sizes": {k: [int(v) for v in vs] for k, vs in self.sizes.items()},
            "check_sizes": {k: int(v) for k, v in self.check_sizes.items()},
            "constraints": list(self.constraints), "args": [a.to_json() for a in self.args],
            "global_size": [str(g) for g in self.global_size],
            "local_sizes": [list(map(int, ls)) for ls in self.local_sizes],
            "rtol": self.rtol, "atol": self.atol, "tags": list(self.tags),
        }

    # -- evaluation -------------------------------------------------------------------------
    def _env(self, sizes: dict, local: Optional[list[int]] = None) -> dict:
        missing = set(self.sizes) - set(sizes)
        if missing:
            raise InputError(f"{self.kernel_id}: sizes miss {', '.join(sorted(missing))}")
        env = {k: int(v) for k, v in sizes.items()}
        loc = list(local) if local is not None else list(self.local_sizes[0])
        for d in range(3):
            env[f"l{d}"] = loc[d] if d < len(loc) else 1
        return env

    def global_size_of(self, sizes: dict) -> list[int]:
        """The NDRange (one int per dimension) at these problem sizes."""
        env = self._env(sizes)
        return [to_int(g, env) for g in self.global_size]

    def violated(self, sizes: dict, local: Optional[list[int]] = None) -> list[str]:
        """The constraints that do not hold at these sizes (and work-group shape)."""
        env = self._env(sizes, local)
        return [c for c in self.constraints if not evaluate(c, env)]

    def check(self, sizes: dict, local: Optional[list[int]] = None) -> bool:
        """True when every constraint holds at these sizes (and work-group shape)."""
        return not self.violated(sizes, local)

    def valid_local_sizes(self, sizes: dict, max_wg: int,
                          max_item_sizes: Optional[list[int]] = None) -> list[list[int]]:
        """The candidate work-group shapes that divide the NDRange, fit ``max_wg`` and the constraints."""
        gsize = self.global_size_of(sizes)
        valid = []
        for loc in self.local_sizes:
            if math.prod(loc) > max_wg:
                continue
            if max_item_sizes is not None and any(l > m for l, m in zip(loc, max_item_sizes)):
                continue
            if any(g % l for g, l in zip(gsize, loc)):
                continue
            if self.check(sizes, loc):
                valid.append(list(loc))
        return valid

    def buffer_counts(self, sizes: dict, local: Optional[list[int]] = None) -> dict[str, int]:
        """Element count of every buffer and local argument."""
        env = self._env(sizes, local)
        return {a.name: to_int(a.count, env) for a in self.args if a.kind != "scalar"}

    def scalar_values(self, sizes: dict) -> dict[str, np.generic]:
        """Every scalar argument's value as a numpy scalar of its dtype."""
        env = self._env(sizes)
        return {a.name: np.dtype(a.dtype).type(evaluate(a.count, env))
                for a in self.args if a.kind == "scalar"}

    def launch_bytes(self, sizes: dict) -> int:
        """Device memory of all global buffers at these sizes."""
        counts = self.buffer_counts(sizes)
        return sum(counts[a.name] * np.dtype(a.dtype).itemsize for a in self.args if a.kind == "buffer")

    def size_grid(self) -> list[dict[str, int]]:
        """Every combination of candidate sizes that satisfies the constraints and fits in memory."""
        names = list(self.sizes)
        points = []
        for values in itertools.product(*(self.sizes[n] for n in names)):
            point = dict(zip(names, values))
            if self.check(point) and self.launch_bytes(point) <= MAX_LAUNCH_BYTES:
                points.append(point)
        return points

    def inputs(self, rng: np.random.Generator, sizes: dict) -> dict[str, np.ndarray]:
        """Host arrays for every buffer: ``make_inputs``' ones, the rest by default
        (uniform in [-1, 1] for float inputs, uniform ints in [0, 100) for int inputs, zeros for out)."""
        counts = self.buffer_counts(sizes)
        given = dict(self.make_inputs(rng, sizes)) if self.make_inputs is not None else {}
        arrays = {}
        for a in self.args:
            if a.kind != "buffer":
                continue
            dt = np.dtype(a.dtype)
            if a.name in given:
                arr = np.ascontiguousarray(given[a.name], dtype=dt).reshape(-1)
                if arr.size != counts[a.name]:
                    raise InputError(f"{self.kernel_id}: make_inputs gave {arr.size} elements for "
                                     f"{a.name}, the spec says {counts[a.name]}")
            elif a.role == "out":
                arr = np.zeros(counts[a.name], dtype=dt)
            elif dt.kind == "f":
                arr = rng.uniform(-1.0, 1.0, counts[a.name]).astype(dt)
            else:
                arr = rng.integers(0, 100, counts[a.name]).astype(dt)
            arrays[a.name] = arr
        return arrays
