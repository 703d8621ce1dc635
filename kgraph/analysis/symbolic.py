"""C integer expressions as sympy expressions over parameters, work sizes and work-item ids.

Symbols: scalar parameters by name; work sizes ``gsz0..2`` (global size), ``lsz0..2`` (local size),
``ngrp0..2`` (number of groups); work-item ids ``gid0..2``, ``lid0..2``, ``grp0..2`` (unknowns the
analysis averages over). Loop variables are ``<name>_L<line>``. Values the analysis cannot follow
become opaque symbols: ``v_<name>`` (a variable assigned more than once), ``ld_<buffer>@<element read>`` (a
value loaded from memory, one symbol per element read as written: an index that contains one is *indirect*),
``call_<name>``, ``sel``.

The symbols and exact functions live in :mod:`.symbolic_math`, the assignment counts in
:mod:`.assignments`; both are re-exported here.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.assignments import _declares, assigned_names, assignments_of  # noqa: F401 - re-exported
from kgraph.analysis.context import node_text, subscript_index
from kgraph.analysis.ctype import from_literal
from kgraph.analysis.macros import MAX_DEPTH, expand_macro, function_macro
from kgraph.analysis.symbolic_math import (  # noqa: F401 - re-exported: defined there, imported from here
    OPAQUE_PREFIXES, SIZE_OF_ID, _clipped_sum, _exact, average_over_ids, ceil_log2, clip01, floor_log2, id_symbols,
    is_opaque, loop_symbols, normalize_ids, param_symbol, sum_geometric, sum_over_affine, sum_polynomial, tidy, unclip,
    work_symbol)
from kgraph.parsers.limits import MAX_CONSTANT_BITS

_KIND_PREFIX = {"global_id": "gid", "local_id": "lid", "group_id": "grp", "global_size": "gsz",
                "local_size": "lsz", "num_groups": "ngrp"}

# Bounding builtins (name -> (arity, value)): their value is a Min/Max nest of the arguments, which
# :mod:`kgraph.analysis.footprint` reads as a clamp. OpenCL ``clamp(x, lo, hi)`` is ``min(max(x, lo), hi)``.
BOUNDING_BUILTINS = {
    "min": (2, sp.Min), "fmin": (2, sp.Min), "umin": (2, sp.Min),
    "max": (2, sp.Max), "fmax": (2, sp.Max), "umax": (2, sp.Max),
    "clamp": (3, lambda x, lo, hi: sp.Min(sp.Max(x, lo), hi)),
}
_COMPARISONS = (">", ">=", "<", "<=")


class SymbolicEnv:
    """Symbolic values of the names visible in a function, filled while ``analyze`` walks it.

    Args:
        ctx: the function's :class:`~kgraph.analysis.context.Context`.
        multi_assigned: names assigned more than once (never given a value).
    """

    def __init__(self, ctx, multi_assigned: set):
        self.ctx = ctx
        self.multi_assigned = multi_assigned
        self.values: dict[str, sp.Expr] = {}
        self.pointers: set[str] = set()
        self.macro_depth = 0
        self.helper_stack: tuple = ()  # ids of the helpers whose value is being computed (no recursion)
        self.helper_values: dict = {}  # (id of helper, argument values) -> value, shared with nested envs
        # ld_ symbol -> (buffer parameter, index) of an element read from a kernel buffer at an index free of unknowns
        # (None where two reads of one text differ): what kgraph.analysis.data_trips evaluates on a launch's inputs
        self.loads: dict[sp.Symbol, tuple | None] = {}
        for p in ctx.function.params:
            if p.is_pointer:
                self.pointers.add(p.name)
            else:
                self.values[p.name] = param_symbol(p.name, p.base_type not in ("float", "double", "half"))

    def bind(self, name: str, expr) -> None:
        self.values[name] = expr

    def to_sympy(self, node):
        """The sympy value of an integer/index expression node (opaque symbols where unknown)."""
        if node is None:
            return sp.Symbol("sel")
        t = node.type
        text = node_text(node)
        if t == "number_literal":
            ct = from_literal(text)
            clean = text.rstrip("uUlLfFhH") if not text.lower().startswith("0x") else text.rstrip("uUlL")
            try:
                return sp.Integer(int(clean, 0)) if not ct.is_float else _exact(clean)
            except ValueError:
                return sp.Symbol("sel")
        if t == "identifier":
            return self._identifier(text)
        if t in ("parenthesized_expression", "condition_clause"):
            return self.to_sympy(node.named_children[-1]) if node.named_child_count else sp.Symbol("sel")
        if t == "cast_expression":
            return self.to_sympy(node.child_by_field_name("value"))
        if t == "field_expression":
            b = self.ctx.dialect.builtin(text.replace(" ", ""))
            if b is not None and b.category == "work_item":
                return self._work_item(b.kind, b.dim)
            return sp.Symbol("v_" + text.replace(".", "_").replace("->", "_"))
        if t == "subscript_expression":  # one symbol per element read: p[i + 1] - p[i] is no zero
            base = node.child_by_field_name("argument")
            symbol = sp.Symbol("ld_" + node_text(base).split("[")[0].strip() + "@" + "".join(node_text(node).split()))
            self._record_load(symbol, base, node.child_by_field_name("index"))
            return symbol
        if t == "pointer_expression":
            return sp.Symbol("ld_" + node_text(node.child_by_field_name("argument")))
        if t == "unary_expression":
            op = node_text(node.child_by_field_name("operator"))
            v = self.to_sympy(node.child_by_field_name("argument"))
            return -v if op == "-" else (v if op == "+" else sp.Symbol("sel"))
        if t == "binary_expression":
            return self._binary(node)
        if t == "call_expression":
            return self._call(node)
        if t == "conditional_expression":
            return self._conditional(node)
        return sp.Symbol("sel")

    def _record_load(self, symbol, base, index) -> None:
        """Keep where ``symbol``'s element is read (:attr:`loads`) when the base is a buffer parameter and the index
        has no unknown."""
        if base is None or base.type != "identifier" or index is None or node_text(base) not in self.pointers \
                or node_text(base) in self.values:
            return
        value = self.to_sympy(index)
        where = (node_text(base), value) if not is_opaque(value) else None
        if symbol in self.loads and self.loads[symbol] != where:
            where = None  # the same text read at two values: not one element
        self.loads[symbol] = where

    def to_sympy_name(self, name: str):
        """Sympy value of a variable by name (a buffer is 0, a pointer variable its offset)."""
        return self._identifier(name)

    def _identifier(self, name: str):
        if name in self.pointers:
            return sp.Integer(0)  # a buffer is offset 0 of itself
        if name in self.values:
            return self.values[name]
        macro = self.ctx.macros.get(name)
        if macro is not None and isinstance(macro.value, (int, float)) and not isinstance(macro.value, bool):
            return sp.Integer(macro.value) if isinstance(macro.value, int) else _exact(repr(macro.value))
        b = self.ctx.dialect.builtin(name)
        if b is not None and b.category == "work_item" and b.dim is not None:
            return self._work_item(b.kind, b.dim)
        return sp.Symbol("v_" + name)

    def _work_item(self, kind: str, dim):
        if kind == "global_offset":
            return sp.Integer(0)
        if dim is None or kind not in _KIND_PREFIX:
            return sp.Symbol("sel")
        return work_symbol(_KIND_PREFIX[kind], int(dim))

    def _binary(self, node):
        op = node_text(node.child_by_field_name("operator"))
        a = self.to_sympy(node.child_by_field_name("left"))
        b = self.to_sympy(node.child_by_field_name("right"))
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if a.is_Integer and b.is_Integer and b != 0:
                return sp.Integer(int(a) // int(b))
            if b == 0:
                return sp.Symbol("sel")
            # C integer division truncates: floor for the non-negative sizes and indices seen here
            return sp.floor(a / b) if a.is_integer and b.is_integer else a / b
        if op == "%":
            return sp.Mod(a, b) if b != 0 else sp.Symbol("sel")
        if op in ("<<", ">>") and b.is_Integer:
            n = int(b)
            if not 0 <= n < MAX_CONSTANT_BITS:  # undefined in C (and 2**n would not end): an unknown value
                return sp.Symbol("sel")
            return a * 2 ** n if op == "<<" else (a / 2 ** n if not a.is_Integer else sp.Integer(int(a) >> n))
        if op == "<<" and _launch_constant(b):  # 1u << logn: a power of two of a scalar parameter
            return a * 2 ** b
        return sp.Symbol("sel")

    def _call(self, node):
        fn = node_text(node.child_by_field_name("function"))
        args_node = node.child_by_field_name("arguments")
        args = list(args_node.named_children) if args_node is not None else []
        b = self.ctx.dialect.builtin(fn)
        if b is not None and b.category == "work_item":
            dim = self.to_sympy(args[0]) if args else sp.Integer(0)
            return self._work_item(b.kind, int(dim) if dim.is_Integer else None)
        macro = function_macro(self.ctx, fn) if self.macro_depth < MAX_DEPTH else None
        expansion = expand_macro(self.ctx, macro, [node_text(a) for a in args]) if macro is not None else None
        if expansion is not None:
            self.macro_depth += 1
            try:
                return self.to_sympy(expansion)
            finally:
                self.macro_depth -= 1
        vals = [self.to_sympy(a) for a in args]
        helper = self.ctx.callee(node)
        if helper is not None:
            value = self._helper_value(helper, vals)
            return value if value is not None else sp.Symbol("call_" + fn)
        bounding = BOUNDING_BUILTINS.get(fn)
        if bounding is not None and bounding[0] == len(vals):
            return bounding[1](*vals)
        if fn.startswith(("convert_", "as_")) and len(vals) == 1:
            return vals[0]
        return sp.Symbol("call_" + fn)

    def _helper_value(self, helper, vals):
        """The value of a call of a helper whose body is a single ``return e;`` (scalar parameters only):
        ``e`` with the parameters bound to the arguments; None otherwise, and for a helper whose value
        is being computed (recursion). Values are kept per (helper, arguments): a helper called many
        times with the same arguments, or calling others several times, is evaluated once each."""
        from kgraph.analysis.context import Context

        body = helper.body
        stmts = [c for c in (body.named_children if body is not None else []) if c.type != "comment"]
        if (self.macro_depth >= MAX_DEPTH or id(helper) in self.helper_stack or len(stmts) != 1
                or stmts[0].type != "return_statement" or not stmts[0].named_children
                or len(helper.params) != len(vals) or any(p.is_pointer for p in helper.params)):
            return None
        key = (id(helper), tuple(vals))
        if key not in self.helper_values:
            env = SymbolicEnv(Context(helper, self.ctx.unit), set())
            env.macro_depth = self.macro_depth + 1
            env.helper_stack = self.helper_stack + (id(helper),)
            env.helper_values = self.helper_values
            for p, v in zip(helper.params, vals):
                env.bind(p.name, v)
            self.helper_values[key] = env.to_sympy(stmts[0].named_children[0])
        return self.helper_values[key]

    def _conditional(self, node):
        """``c ? r : s`` as ``Max(r, s)``/``Min(r, s)`` when the integer comparison ``c`` tests which arm is
        larger (``x < 0 ? 0 : x``, ``x >= n ? n - 1 : x``); else the opaque ``sel``."""
        cond = node.child_by_field_name("condition")
        while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count:
            cond = cond.named_children[-1]
        if cond is None or cond.type != "binary_expression":
            return sp.Symbol("sel")
        op = node_text(cond.child_by_field_name("operator"))
        if op not in _COMPARISONS:
            return sp.Symbol("sel")
        left, right = self.to_sympy(cond.child_by_field_name("left")), self.to_sympy(cond.child_by_field_name("right"))
        r = self.to_sympy(node.child_by_field_name("consequence"))
        s = self.to_sympy(node.child_by_field_name("alternative"))
        if not all(getattr(v, "is_integer", None) for v in (left, right, r, s)):
            return sp.Symbol("sel")
        # the condition as  sign * (left - right) >= c  (integers), the arms' difference  e = r - s
        d = sp.expand(left - right)
        c = {">=": 0, ">": 1, "<=": 0, "<": 1}[op]
        if op in ("<", "<="):
            d = -d
        e = sp.expand(r - s)
        for sign, pick in ((1, sp.Max), (-1, sp.Min)):
            m = sp.expand(d - sign * e)
            # cond  <=>  sign*e >= c - m: with c - m in {0, 1} the true arm r is the larger (sign 1) or
            # the smaller (sign -1) of the two, ties being equal values
            if m.is_Integer and int(c - m) in (0, 1):
                return pick(r, s)
        return sp.Symbol("sel")


def subscript_index_expr(env: SymbolicEnv, node):
    """Sympy value of the index of a subscript node."""
    return env.to_sympy(subscript_index(node))


def _launch_constant(expr) -> bool:
    """Whether ``expr`` (sympy) is an integer expression of scalar parameters only: no work-item id, work size,
    loop variable (``<name>_L<line>``) or value the analysis cannot follow."""
    sizes = set(SIZE_OF_ID.values())
    return bool(expr.free_symbols) and expr.is_integer is not False and not (
        id_symbols(expr) or loop_symbols(expr) or is_opaque(expr) or any(s.name[:-1] in sizes for s in expr.free_symbols))
