"""Counting one expression: operations by type, memory traffic, barriers, atomics, helper calls.

:class:`ExpressionCounter` walks an expression tree once, infers the type of every sub-expression
(declarations, parameters, literals, casts, vector types, builtin results) and adds to a count
dictionary following the FLOP convention of ``docs/ANALYSIS.md``. Memory accesses and helper calls
are also recorded as :class:`AccessSite` / :class:`CallSite` for the access-pattern and inlining
stages of :func:`kgraph.analysis.analyze`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kgraph.analysis.atomics import atomic_target
from kgraph.analysis.context import Context, node_text, subscript_index
from kgraph.analysis.ctype import CType, INT, MEMORY_SPACES, SIZE_T, UNKNOWN, from_literal, promote
from kgraph.analysis.macros import MAX_DEPTH, expand_macro, function_macro

ARITH_OPS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
#: the integer forms of these also feed ``int_divmod`` (a share of ``int_ops``)
DIVMOD_OPS = {"/", "%"}
SCALAR_RESULT = {"dot", "length", "distance", "fast_length", "fast_distance"}
_VLOAD = re.compile(r"^vload(a)?(_half)?(\d+)?(_rt[a-z]+)?$")
_VSTORE = re.compile(r"^vstore(a)?(_half)?(\d+)?(_rt[a-z]+)?$")
_CONVERT = re.compile(r"^(?:convert|as)_([a-z]+\d*)(?:_sat)?(?:_rt[a-z]+)?$")
_MAKE = re.compile(r"^make_([a-z]+\d)$")
_SWIZZLE = re.compile(r"^(?:[xyzw]{1,4}|[rgba]{1,4}|s[0-9a-fA-F]{1,16})$")


@dataclass
class AccessSite:
    """One read or write of global/constant or local memory in the source.

    Args:
        buffer: the buffer parameter or array accessed (through pointer aliases).
        space: ``global`` (global and constant buffers) or ``local``.
        kind: ``load``, ``store`` or ``atomic`` (the target of an atomic: no bytes counted for it).
        bytes: bytes moved by one execution (of one element, for ``atomic``).
        node: the access expression (``A[i]``, ``*p``, ``vload4(...)``).
        pointer: the name the source indexes (a buffer or a pointer variable into it).
        index: the index expression node, or ``None`` (``*p``).
        scale: elements per index step (``vload4(i, p)`` reads elements ``4*i`` .. ``4*i+3``).
        dims: array extents as text for multi-dimensional arrays, else ``()``;
            ``indices`` then holds one node per dimension.
    """

    buffer: str
    space: str
    kind: str
    bytes: int
    node: object
    pointer: str = ""
    index: object = None
    scale: int = 1
    indices: tuple = ()


@dataclass
class CallSite:
    """A call of a helper function defined in the unit (its cost is inlined by ``analyze``)."""

    callee: object
    args: list
    node: object


class ExpressionCounter:
    """Accumulates the counts of expressions into ``counts``, ``accesses`` and ``calls``.

    Args:
        ctx: the function's :class:`Context` (scope at the current statement).
        counts: count dictionary to add to.
    """

    def __init__(self, ctx: Context, counts: dict):
        self.ctx = ctx
        self.counts = counts
        self.accesses: list[AccessSite] = []
        self.calls: list[CallSite] = []
        self.macro_depth = 0

    def add(self, key: str, n: int) -> None:
        self.counts[key] += n

    # -- entry ----------------------------------------------------------------------------------
    def visit(self, node, mode: str = "load") -> CType:
        """Count ``node`` and return its type. ``mode``: load | store | update | address."""
        if node is None:
            return UNKNOWN
        handler = getattr(self, "_" + node.type, None)
        if handler is not None:
            return handler(node, mode)
        for child in node.named_children:
            self.visit(child)
        return UNKNOWN

    # -- leaves ---------------------------------------------------------------------------------
    def _number_literal(self, node, mode):
        return from_literal(node_text(node))

    def _char_literal(self, node, mode):
        return CType("char", 1, 1)

    def _string_literal(self, node, mode):
        return CType("char", 1, 1, pointer=True, space="constant")

    def _true(self, node, mode):
        return INT

    _false = _true

    def _sizeof_expression(self, node, mode):
        return SIZE_T

    def _identifier(self, node, mode):
        name = node_text(node)
        var = self.ctx.scope.lookup(name)
        if var is not None:
            return var.ctype
        builtin = self.ctx.dialect.builtin(name)
        if builtin is not None and builtin.category == "work_item":
            return SIZE_T
        return self.ctx.macro_type(name) or UNKNOWN

    def _parenthesized_expression(self, node, mode):
        t = UNKNOWN
        for child in node.named_children:
            t = self.visit(child, mode)
        return t

    def _comma_expression(self, node, mode):
        self.visit(node.child_by_field_name("left"))
        return self.visit(node.child_by_field_name("right"))

    def _initializer_list(self, node, mode):
        t = UNKNOWN
        for child in node.named_children:
            t = self.visit(child)
        return t

    # -- operators ------------------------------------------------------------------------------
    def _binary_expression(self, node, mode):
        op = node_text(node.child_by_field_name("operator"))
        a = self.visit(node.child_by_field_name("left"))
        b = self.visit(node.child_by_field_name("right"))
        if op in ARITH_OPS:
            t = promote(a, b)
            self._arith(op, t, t.width)
            return t
        return INT.with_width(max(a.width, b.width) if not (a.pointer or b.pointer) else 1)

    def _arith(self, op: str, t: CType, lanes: int) -> None:
        """One arithmetic operator ``op`` on values of type ``t``, ``lanes`` wide: pointer arithmetic is one
        integer op; else ``lanes`` of the type's counter, integer ``/`` and ``%`` also in ``int_divmod``."""
        if t.pointer:
            self.add("int_ops", 1)
            return
        self.add(t.flop_key, lanes)
        if op in DIVMOD_OPS and t.flop_key == "int_ops":
            self.add("int_divmod", lanes)

    def _unary_expression(self, node, mode):
        op = node_text(node.child_by_field_name("operator"))
        t = self.visit(node.child_by_field_name("argument"))
        if op == "~":
            self.add("int_ops", t.width)
        if op == "!":
            return INT
        return t

    def _update_expression(self, node, mode):
        t = self.visit(node.child_by_field_name("argument"), "update")
        self.add(t.flop_key, 1 if t.pointer else t.width)
        return t

    def _assignment_expression(self, node, mode):
        op = node_text(node.child_by_field_name("operator"))
        r = self.visit(node.child_by_field_name("right"))
        compound = op != "="
        left = self.visit(node.child_by_field_name("left"), "update" if compound else "store")
        if compound:
            t = promote(left, r)
            self._arith(op[:-1], t, left.width if left.width > 1 else t.width)
        return left

    def _conditional_expression(self, node, mode):
        # both arms are counted: GPUs evaluate short arms and select (documented in ANALYSIS.md)
        self.visit(node.child_by_field_name("condition"))
        self.add("branches", 1)
        a = self.visit(node.child_by_field_name("consequence"))
        b = self.visit(node.child_by_field_name("alternative"))
        return promote(a, b)

    def _cast_expression(self, node, mode):
        tnode = node.child_by_field_name("type")
        v = self.visit(node.child_by_field_name("value"))
        spelling = node_text(tnode)
        t = self.ctx.spelling_type(spelling.replace("*", " ")) or UNKNOWN
        if "*" in spelling:
            space = self.ctx.qualifier_space(tnode) or (v.space if v.pointer else "private")
            return t.pointer_to(space)
        return t

    def _compound_literal_expression(self, node, mode):
        self.visit(node.child_by_field_name("value"))
        return self.ctx.spelling_type(node_text(node.child_by_field_name("type"))) or UNKNOWN

    # -- memory ---------------------------------------------------------------------------------
    def _subscript_expression(self, node, mode):
        chain, base = [], node
        while base is not None and base.type == "subscript_expression":
            chain.append(subscript_index(base))
            base = base.child_by_field_name("argument")
        chain.reverse()
        for idx in chain:
            self.visit(idx)
        var = self.ctx.scope.lookup(node_text(base)) if base is not None and base.type == "identifier" else None
        btype = var.ctype if var is not None else self.visit(base, "address")
        if var is None and btype.pointer:
            var = self.base_variable(base)
        if not btype.pointer:
            return btype.with_width(1) if btype.width > 1 else btype  # vector lane v[i]
        ndims = max(1, len(var.dims)) if var is not None else 1
        if len(chain) < ndims:
            return btype
        self._access(var, btype, node, mode, chain[-1] if ndims == 1 else None,
                     indices=tuple(chain) if ndims > 1 else ())
        return btype.element()

    def _pointer_expression(self, node, mode):
        op = node_text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        if op == "&":
            t = self.visit(arg, "address")
            return t.pointer_to("private") if not t.pointer else t
        t = self.visit(arg, "address")
        if not t.pointer:
            return UNKNOWN
        self._access(self.base_variable(arg), t, node, mode, arg)
        return t.element()

    def _access(self, var, ptype: CType, node, mode, index, scale=1, width=None, indices=()):
        space = MEMORY_SPACES.get(ptype.space)
        if space is None or mode == "address":
            return
        elem = ptype.element() if width is None else ptype.element().with_width(width)
        nbytes = elem.scalar_bytes * (4 if elem.width == 3 and width is None else elem.width)
        buffer = (var.alias or var.name) if var is not None else ""
        pointer = var.name if var is not None else ""
        kinds = {"load": ("load",), "store": ("store",), "update": ("load", "store")}[mode]
        for kind in kinds:
            self.add(f"{space}_{kind}_bytes", nbytes)
            self.accesses.append(AccessSite(buffer, space, kind, nbytes, node, pointer, index, scale, indices))

    def _field_expression(self, node, mode):
        arg = node.child_by_field_name("argument")
        field = node_text(node.child_by_field_name("field"))
        builtin = self.ctx.dialect.builtin(f"{node_text(arg)}.{field}") if arg.type == "identifier" else None
        if builtin is not None and builtin.category == "work_item":
            return CType("uint")
        t = self.visit(arg, mode if mode != "address" else "address")
        if t.pointer:  # p->f: a struct field, type unknown
            return UNKNOWN
        if t.width > 1 and _SWIZZLE.match(field):
            lanes = len(field) - 1 if field.startswith("s") else len(field)
            return t.with_width(lanes)
        if t.width > 1 and field in ("lo", "hi", "even", "odd"):
            return t.with_width(max(1, t.width // 2))
        return UNKNOWN

    # -- calls ----------------------------------------------------------------------------------
    def _call_expression(self, node, mode):
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        args = [a for a in (args_node.named_children if args_node is not None else []) if a.type != "comment"]
        if fn.type == "parenthesized_expression":  # (float4)(a, b, c, d): a vector literal
            t = self.ctx.spelling_type(node_text(fn)[1:-1])
            if t is not None:
                for a in args:
                    self.visit(a)
                return t
        name = node_text(fn)
        builtin = self.ctx.dialect.builtin(name)
        if builtin is not None:
            return self._builtin_call(builtin, args)
        m = _VLOAD.match(name)
        if m and len(args) == 2:
            return self._vload(m, args, node)
        m = _VSTORE.match(name)
        if m and len(args) == 3:
            return self._vstore(m, args, node)
        macro = function_macro(self.ctx, name) if self.macro_depth < MAX_DEPTH else None
        expansion = expand_macro(self.ctx, macro, [node_text(a) for a in args]) if macro is not None else None
        if expansion is not None:  # count the macro body with the arguments substituted (macros.py)
            self.macro_depth += 1
            try:
                return self.visit(expansion, mode)
            finally:
                self.macro_depth -= 1
        m = _CONVERT.match(name) or _MAKE.match(name)
        types = [self.visit(a) for a in args]
        if m:
            return self.ctx.spelling_type(m.group(1)) or UNKNOWN
        callee = self.ctx.callee(node)
        if callee is not None:
            self.calls.append(CallSite(callee, args, node))
            return self.ctx.spelling_type(str(getattr(callee, "return_type", ""))) or UNKNOWN
        return types[0] if name in ("select", "bitselect") and types else UNKNOWN

    def _builtin_call(self, builtin, args) -> CType:
        if builtin.category == "work_item":
            return SIZE_T
        if builtin.category == "barrier":
            self.add("barriers", 1)
            return UNKNOWN
        if builtin.category == "atomic":
            self.add("atomics", 1)
            ptr = self.visit(args[0], "address") if args else UNKNOWN
            for a in args[1:]:
                self.visit(a)
            target = atomic_target(self.ctx, args[0]) if args else None
            if target is not None:
                self.accesses.append(AccessSite(*target))
            return ptr.element() if ptr.pointer else INT
        types = [self.visit(a) for a in args]
        if not types:
            return UNKNOWN
        t = types[0]
        for other in types[1:]:
            t = promote(t, other)
        lanes = max(x.width for x in types)
        cost = builtin.flops * lanes
        if builtin.kind == "transcendental":
            self.add("transcendental", cost)
            if builtin.root:
                self.add("roots", cost)
        else:
            self.add(t.flop_key, cost)
        return t.with_width(1) if builtin.name in SCALAR_RESULT else t

    def _vload(self, m, args, node) -> CType:
        width = int(m.group(3) or 1)
        self.visit(args[0])
        ptype = self._pointer_operand(args[1])
        var = self.base_variable(args[1])
        if m.group(2):  # vload_half: half in memory, float in registers
            ptype = CType("half", 1, 2, True, ptype.space)
        self._access(var, ptype, node, "load", args[0], scale=width, width=width)
        return CType("float" if m.group(2) else ptype.base, width, 4 if m.group(2) else ptype.scalar_bytes)

    def _vstore(self, m, args, node) -> CType:
        width = int(m.group(3) or 1)
        self.visit(args[0])
        self.visit(args[1])
        ptype = self._pointer_operand(args[2])
        var = self.base_variable(args[2])
        if m.group(2):
            ptype = CType("half", 1, 2, True, ptype.space)
        self._access(var, ptype, node, "store", args[1], scale=width, width=width)
        return UNKNOWN

    def _pointer_operand(self, node) -> CType:
        t = self.visit(node, "address")
        return t if t.pointer else UNKNOWN.pointer_to("private")

    def base_variable(self, node):
        """The pointer variable an address expression is based on (``p`` in ``p + 4*i``), or None."""
        stack = [node]
        while stack:
            n = stack.pop(0)
            if n.type == "identifier":
                var = self.ctx.scope.lookup(node_text(n))
                if var is not None and var.ctype.pointer:
                    return var
            stack.extend(c for c in n.named_children if c.type != "subscript_expression")
        return None
