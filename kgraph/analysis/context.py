"""What the analysis knows about the function it walks: unit, dialect, scopes, helpers, macros.

:class:`Context` turns parser objects (``Function``, ``Param``, declaration nodes) into
:class:`~kgraph.analysis.scope.Variable` entries and answers type questions for the counters.
"""
from __future__ import annotations

import re

from kgraph.analysis.ctype import CType, DOUBLE, FLOAT, INT, UNKNOWN, from_literal, from_spelling
from kgraph.analysis.scope import Scope, Variable
from kgraph.parsers.calls import callee

_WORD = re.compile(r"[A-Za-z_]\w*")
_DECLARATOR_TYPES = ("init_declarator", "pointer_declarator", "array_declarator", "identifier",
                     "parenthesized_declarator", "function_declarator")


def node_text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def subscript_index(node):
    """The index expression of ``a[i]`` (tree-sitter-c ``index``, tree-sitter-cuda ``indices``)."""
    idx = node.child_by_field_name("index")
    if idx is None:
        lst = node.child_by_field_name("indices")
        if lst is not None and lst.named_child_count:
            idx = lst.named_children[0]
    return idx


def condition_value(node):
    """Unwrap ``( ... )`` and CUDA's ``condition_clause`` around a condition expression."""
    while node is not None and node.type in ("parenthesized_expression", "condition_clause"):
        inner = node.child_by_field_name("value")
        if inner is None:
            named = [c for c in node.named_children if c.type != "comment"]
            inner = named[0] if named else None
        node = inner
    return node


def is_boolean(node) -> bool:
    """Whether ``node`` is a comparison, an ``&&``/``||`` or a ``!`` expression."""
    if node is None:
        return False
    if node.type == "unary_expression":
        return node_text(node.child_by_field_name("operator")) == "!"
    return node.type == "binary_expression" and \
        node_text(node.child_by_field_name("operator")) in ("<", "<=", ">", ">=", "==", "!=", "&&", "||")


class Context:
    """Per-function analysis state.

    Args:
        function: a ``parsers`` ``Function`` (``node``, ``body``, ``params``).
        unit: its ``TranslationUnit`` (``dialect``, ``macros``, ``functions``, ``text``).
    """

    def __init__(self, function, unit):
        self.function = function
        self.unit = unit
        self.dialect = unit.dialect
        self.scope = Scope()
        self.helpers = _helpers(unit)  # shared by every Context of the unit: built once, not per kernel
        macros = getattr(unit, "macros", None)
        self.macros = macros if macros is not None else {}  # the unit's own table (read only), not a copy
        self._text = unit.text.encode("utf-8") if isinstance(unit.text, str) else unit.text
        for p in function.params:
            self.scope.declare(self.param_variable(p))

    def callee(self, call):
        """The helper a ``call_expression`` of this function reaches (C++ overloads told apart by their
        arguments: :func:`kgraph.parsers.calls.callee`), or None (builtin, macro, unknown name)."""
        if hasattr(self.unit, "overloads"):
            return callee(self.unit, self.function, call)
        return self.helpers.get(node_text(call.child_by_field_name("function")))

    # -- types ----------------------------------------------------------------------------------
    def spelling_type(self, spelling: str) -> CType | None:
        return from_spelling(spelling, self.dialect)

    def param_variable(self, p) -> Variable:
        base = from_spelling(p.base_type, self.dialect) or CType(p.base_type)
        ctype = base.with_width(max(1, int(p.vector_width or 1)))
        if p.is_pointer:
            return Variable(p.name, ctype.pointer_to(p.address_space), alias=p.name, is_param=True,
                            line=getattr(self.function, "line", 0))
        return Variable(p.name, ctype, is_param=True, line=getattr(self.function, "line", 0))

    def macro_type(self, name: str) -> CType | None:
        macro = self.macros.get(name)
        if macro is None or getattr(macro, "params", None) is not None:
            return None
        value = getattr(macro, "value", None)
        if isinstance(value, bool) or isinstance(value, int):
            return INT
        if isinstance(value, float):
            body = (getattr(macro, "body", "") or "").strip().strip("()")
            try:
                return from_literal(body)
            except Exception:  # noqa: BLE001 - an odd body is just a double constant
                return DOUBLE
        return None

    def qualifier_space(self, node) -> str | None:
        """Address space written on a declaration (or cast type), else None."""
        written = getattr(self.unit, "address_spaces", {}).get(node.start_byte)
        if written:
            return written
        stop = node.end_byte
        for child in node.children:
            if child.type in _DECLARATOR_TYPES or child.type.endswith("_declarator"):
                stop = child.start_byte
                break
        head = self._text[node.start_byte:stop].decode("utf-8", "replace")
        for word in _WORD.findall(head):
            entry = self.dialect.qualifiers.get(word)
            if entry and entry.get("address_space"):
                return entry["address_space"]
        return None

    # -- declarations ---------------------------------------------------------------------------
    def declare(self, decl, init_types: dict | None = None) -> list[Variable]:
        """Add the names of a ``declaration`` node to the current scope.

        ``init_types`` maps a declarator's name to (type, alias) of its initialiser, used by pointers
        declared without an address space (they point where their initialiser points).
        """
        init_types = init_types or {}
        type_node = decl.child_by_field_name("type")
        base = self.spelling_type(node_text(type_node)) or UNKNOWN
        space = self.qualifier_space(decl)
        out = []
        for d in decl.children_by_field_name("declarator"):
            name, pointer, dims = _unwrap_declarator(d)
            if not name:
                continue
            init_type, alias = init_types.get(name, (None, ""))
            if dims:
                var = Variable(name, base.pointer_to(space or "private"), tuple(dims), alias=name)
            elif pointer:
                sp = space or (init_type.space if init_type is not None and init_type.pointer
                               else self.dialect.default_pointer_space)
                var = Variable(name, base.pointer_to(sp), alias=alias)
            else:
                var = Variable(name, base)
            var.line = decl.start_point[0] + 1
            self.scope.declare(var)
            out.append(var)
        return out


def _helpers(unit) -> dict:
    """Name → function defined in the unit (the last definition wins; every function has a body):
    ``unit.functions_by_name()``, built once per unit instead of once per kernel."""
    by_name = getattr(unit, "functions_by_name", None)
    if by_name is not None:
        return by_name()
    return {f.name: f for f in unit.functions if f.body is not None}


def _unwrap_declarator(node):
    """(name, is_pointer, [array size texts]) of a declarator node."""
    pointer, dims = False, []
    while node is not None:
        t = node.type
        if t == "identifier":
            return node_text(node), pointer, list(reversed(dims))
        if t == "init_declarator":
            node = node.child_by_field_name("declarator")
        elif t == "pointer_declarator":
            pointer = True
            node = node.child_by_field_name("declarator")
        elif t == "array_declarator":
            size = node.child_by_field_name("size")
            dims.append(node_text(size))
            node = node.child_by_field_name("declarator")
        elif t == "parenthesized_declarator":
            node = node.named_children[0] if node.named_child_count else None
        else:
            return "", pointer, dims
    return "", pointer, dims


__all__ = ["Context", "node_text", "subscript_index", "condition_value", "FLOAT", "INT"]
