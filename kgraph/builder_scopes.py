"""The symbol pass of the builder: C scopes, declarations, VARIABLE/BUFFER nodes, builtins and macros.

Visits only the nodes the AST pass marked (scopes, declarations, identifiers), in pre-order. Names
resolve through :class:`kgraph.scopes.ScopedNames` (C's block scoping, shared with the analysis: one dict
of visible names, an undo list per open scope), a scope closing after its last node ``b.scope_end[scope]``.
A declaration's symbols enter scope at their declarator identifier (``int x = x + 1`` reads the outer
``x``). An identifier that names no symbol is a helper or builtin callee, the kernel's own name, a
macro constant (CONSTANT node), a built-in variable (BUILTIN node) or left as spelled.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgraph.builder_walk import SCOPE_KINDS
from kgraph.scopes import ScopedNames
from kgraph.schema import CALL_INVOKE, DATA_DECL, DATA_VALUE, Flow, NodeType, dtype_name
from kgraph.vocab import value_token

_BUILTIN_VARIABLES = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"})
_QUALIFIER_KINDS = frozenset({"type_qualifier", "storage_class_specifier"})


@dataclass(slots=True)
class Symbol:
    """A declared variable: its VARIABLE or BUFFER node (``node``), type and address space."""

    name: str
    node: int
    is_buffer: bool
    dtype: str
    space: str


class ScopeResolver:
    """Resolves the identifiers of one function added to builder ``b``.

    Args:
        b: the :class:`~kgraph.builder.GraphBuilder`.
        function: the :class:`parsers.Function` whose nodes were just walked.
    """

    def __init__(self, b, function):
        self.b = b
        self.function = function
        self.names = ScopedNames()  # C's block scoping (kgraph.scopes); the function's scope is the outermost
        self.visible: dict[str, Symbol] = self.names.visible
        self.scope_ends: list[int] = []  # last node of each scope opened inside the function, innermost last
        self.pending: dict[int, Symbol] = {}      # declarator identifier -> symbol it declares
        self.params = {p.node.start_byte: p for p in function.params if getattr(p, "node", None) is not None}
        dialect = getattr(b.unit, "dialect", None)
        self.dialect = dialect
        self.qualifier_spaces = {spelling: spec["address_space"] for spelling, spec in
                                 (getattr(dialect, "qualifiers", None) or {}).items() if spec.get("address_space")}
        self.address_spaces = getattr(b.unit, "address_spaces", None) or {}

    def run(self, marks: list[int]) -> None:
        """Resolve the marked nodes (scope, declaration and identifier nodes of the function, pre-order);
        the identifiers that name a scalar / a buffer go to ``b.scalar_refs`` / ``b.buffer_refs``."""
        b = self.b
        kind, text, visible, pending = b.kind, b.text, self.visible, self.pending
        ends, names = self.scope_ends, self.names
        token, dtype, space, sym_of, declared = b.token, b.dtype, b.space, b.sym_of, b.declared
        scalar_refs, buffer_refs = b.scalar_refs, b.buffer_refs
        for i in marks:
            while ends and ends[-1] < i:
                ends.pop()
                names.pop()
            k = kind[i]
            if k != "identifier":
                if k in SCOPE_KINDS:
                    ends.append(b.scope_end[i])
                    names.push()
                else:
                    self.declare(i)
            else:
                symbol = pending.pop(i, None) if pending else None
                if symbol is not None:
                    names.declare(symbol.name, symbol)
                    declared[i] = symbol
                else:
                    symbol = visible.get(text[i])
                    if symbol is None:
                        self.unresolved(i, text[i])
                        continue
                    sym_of[i] = symbol
                    (buffer_refs if symbol.is_buffer else scalar_refs).append(i)
                token[i], dtype[i], space[i] = token[symbol.node], symbol.dtype, symbol.space

    def unresolved(self, index: int, name: str) -> None:
        b = self.b
        token = b.token
        parent = b.parent[index]
        if b.field[index] == "function" and parent >= 0 and b.kind[parent] == "call_expression":
            if name in b.functions:
                token[index] = b.fn_token(name)
                b.calls.append((parent, name))
            else:
                token[index] = name
                builtin = b.shared_node(NodeType.BUILTIN, name, name)
                b.add_edge(parent, builtin, Flow.CALL, CALL_INVOKE)
            return
        if parent >= 0 and b.kind[parent] == "function_declarator" and b.field[index] == "declarator":
            token[index] = "kernel" if name == b.kernel.name else b.fn_token(name)
            return
        macro = b.unit.macros.get(name) if b.unit.macros else None
        if macro is not None:
            token[index] = value_token(macro.value)
            const = b.shared_node(NodeType.CONSTANT, name, token[index])
            b.add_edge(const, index, Flow.DATA, DATA_VALUE)
            return
        token[index] = name
        if name in _BUILTIN_VARIABLES or (self.dialect is not None and self.dialect.builtin(name) is not None):
            builtin = b.shared_node(NodeType.BUILTIN, name, name)
            b.add_edge(builtin, index, Flow.DATA, DATA_VALUE)

    def declare(self, decl: int) -> None:
        """Create the symbols declared by ``decl``; they enter scope at their declarator identifier.

        The address space written on it is the front end's record (masked OpenCL qualifiers), else a
        qualifier keyword the grammar kept (CUDA ``__shared__``), as the dialect's qualifier table says."""
        b = self.b
        kind, field, text = b.kind, b.field, b.text
        function = self.function.name
        base_dtype, type_seen = "none", False
        written_space = self.address_spaces.get(b.start[decl])
        declarators = []
        for c in b.children[decl]:
            f = field[c]
            if f == "declarator":
                declarators.append(c)
            elif f == "type" and not type_seen:
                base_dtype, type_seen = b.dtype[c], True
            elif kind[c] in _QUALIFIER_KINDS and text.get(c) in self.qualifier_spaces:
                written_space = self.qualifier_spaces[text[c]]
        is_param = kind[decl] == "parameter_declaration"
        param = self.params.get(b.start[decl]) if is_param else None
        for d in declarators:
            ident, pointers, arrays, init = self.unwrap_declarator(d)
            if ident is None:
                continue
            dtype, space, is_buffer = base_dtype, written_space, pointers + arrays > 0
            if param is not None:
                width = param.vector_width
                dtype = dtype_name(param.base_type if width == 1 else f"{param.base_type}{width}")
                is_buffer, space = bool(param.is_pointer), param.address_space or written_space
            alias = self.alias_of(init) if is_buffer and pointers and init is not None else None
            if alias is not None:
                symbol = Symbol(text[ident], alias.node, True, alias.dtype, alias.space)
            else:
                space = space or ("generic" if pointers else "private")
                node_type = NodeType.BUFFER if is_buffer else NodeType.VARIABLE
                index = b.new_node(int(node_type), b.next_token("buf" if is_buffer else "var"), node_type.name,
                                   b.start[ident], b.end[ident], b.loop_depth[ident], function, dtype, space)
                symbol = Symbol(text[ident], index, is_buffer, dtype, space)
                b.add_edge(decl, index, Flow.DATA, DATA_DECL)
            self.pending[ident] = symbol
            if is_param:
                b.params.setdefault(function, []).append(symbol)

    def unwrap_declarator(self, d: int) -> tuple[int | None, int, int, int | None]:
        """(identifier, pointer levels, array dimensions, initialiser) of one declarator."""
        b = self.b
        pointers = arrays = 0
        init = None
        while d is not None:
            k = b.kind[d]
            if k == "identifier":
                return d, pointers, arrays, init
            if k == "init_declarator":
                init = b.child(d, "value")
            elif k == "pointer_declarator":
                pointers += 1
            elif k == "array_declarator":
                arrays += 1
            elif k == "function_declarator":
                return None, 0, 0, None
            nxt = b.child(d, "declarator")
            if nxt is None:
                nxt = next((c for c in b.children[d] if b.kind[c] == "identifier"), None)
            d = nxt
        return None, pointers, arrays, init

    def alias_of(self, init: int) -> Symbol | None:
        """The buffer a pointer initialiser points into (``A + k*N`` -> A), if any."""
        b = self.b
        i = init
        while i is not None and b.kind[i] != "identifier":
            k = b.kind[i]
            if k == "binary_expression":
                i = b.child(i, "left")
            elif k == "cast_expression":
                i = b.child(i, "value")
            elif k in ("pointer_expression", "subscript_expression"):
                i = b.child(i, "argument")
            else:
                return None
        if i is None:
            return None
        symbol = self.visible.get(b.text[i])
        return symbol if symbol is not None and symbol.is_buffer else None
