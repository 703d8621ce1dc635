"""Build a :class:`~kgraph.graph.KernelGraph` from a parsed :class:`parsers.TranslationUnit`.

One pass over each function's tree-sitter tree makes the AST nodes (named nodes; comments dropped,
see :mod:`kgraph.schema` for transparent kinds) in pre-order, so that a node's index is smaller than
its descendants'. A second pass over those compact arrays resolves identifiers through C scopes and
creates the VARIABLE/BUFFER/CONSTANT/BUILTIN nodes. :mod:`kgraph.control_flow` then adds CONTROL edges,
:mod:`kgraph.data_flow` DATA edges, and calls to helpers pull each reachable helper in once.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgraph.errors import InputError
from kgraph.graph import Edge, KernelGraph, Node
from kgraph.schema import (AST_KIND_TO_TYPE, CALL_INVOKE, CALL_RETURN, DATA_DECL, DATA_VALUE, LOOP_KINDS,
                           SKIPPED_KINDS, TRANSPARENT_KINDS, Flow, NodeType, dtype_name)
from kgraph.vocab import literal_token, value_token
from kgraph import builder_dtypes, control_flow, data_flow

_LEAF_KINDS = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type",
                         "sized_type_specifier", "number_literal", "string_literal", "char_literal",
                         "concatenated_string", "true", "false", "null", "nullptr", "statement_identifier",
                         "type_qualifier", "storage_class_specifier", "preproc_call", "preproc_def",
                         "preproc_function_def", "preproc_include", "system_lib_string"})
_LITERAL_KINDS = frozenset({"number_literal", "string_literal", "char_literal", "concatenated_string",
                            "true", "false", "null", "nullptr"})
_TEXT_TOKEN_KINDS = frozenset({"field_identifier", "type_qualifier", "storage_class_specifier"})
_TYPE_KINDS = frozenset({"primitive_type", "type_identifier", "sized_type_specifier"})
_SCOPE_KINDS = frozenset({"function_definition", "compound_statement", "for_statement"})
_DECL_KINDS = frozenset({"declaration", "parameter_declaration"})
_BUILTIN_VARIABLES = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"})
_SPACE_QUALIFIERS = {"__shared__": "local", "__constant__": "constant", "__local": "local", "__global": "global",
                     "__constant": "constant", "__private": "private"}


_ANONYMOUS, _SKIPPED, _TRANSPARENT, _LEAF, _INNER = range(5)
_TABLES: dict = {}


def _language_tables(language):
    """Per grammar: kind_id -> (kind, category, NodeType id); field_id -> name; the ``operator`` field id."""
    key = (language.name, language.node_kind_count, language.field_count)
    if key not in _TABLES:
        kinds = {kind_id: _classify(language.node_kind_for_id(kind_id) or "", language.node_kind_is_named(kind_id))
                 for kind_id in range(language.node_kind_count)}
        fields = {i: language.field_name_for_id(i) for i in range(1, language.field_count + 1)}
        _TABLES[key] = (kinds, fields, language.field_id_for_name("operator"))
    return _TABLES[key]


def _classify(kind: str, named: bool) -> tuple[str, int, int]:
    if not named:
        category = _ANONYMOUS
    elif kind in SKIPPED_KINDS:
        category = _SKIPPED
    elif kind in TRANSPARENT_KINDS:
        category = _TRANSPARENT
    else:
        category = _LEAF if kind in _LEAF_KINDS else _INNER
    return kind, category, int(AST_KIND_TO_TYPE.get(kind, NodeType.OTHER))


@dataclass(slots=True)
class Symbol:
    """A declared variable: its VARIABLE or BUFFER node (``node``), type and address space."""

    name: str
    node: int
    is_buffer: bool
    dtype: str
    space: str


class GraphBuilder:
    """Builds the graph of one kernel. Use :func:`build_kernel_graph`.

    Args:
        unit: the :class:`parsers.TranslationUnit`.
        function: the kernel's :class:`parsers.Function`.
    """

    def __init__(self, unit, function):
        self.unit = unit
        self.kernel = function
        self.source: bytes = unit.source
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        # parallel to nodes: tree-sitter kind, field in parent, parent, kept children, operator, text
        self.kind: list[str] = []
        self.field: list[str | None] = []
        self.parent: list[int] = []
        self.children: list[list[int]] = []
        self.op: list[str | None] = []
        self.text: list[str | None] = []
        self.sym_of: dict[int, Symbol] = {}         # identifier node -> symbol it names
        self.declared: dict[int, Symbol] = {}       # declarator identifier node -> symbol it declares
        self.params: dict[str, list[Symbol]] = {}   # function name -> its parameters' symbols
        self.returns: dict[str, list[int]] = {}     # function name -> its return statements
        self.roots: dict[str, int] = {}             # function name -> function_definition node
        self.calls: list[tuple[int, str]] = []      # (call_expression node, helper name)
        self._shared: dict[tuple[str, str], int] = {}  # (BUILTIN|CONSTANT, name) -> node
        self._counters = {"var": 0, "buf": 0, "fn": 0}
        self._fn_tokens: dict[str, str] = {}
        self.functions = {f.name: f for f in unit.functions}  # every function defined in the unit

    # ------------------------------------------------------------------ public
    def build(self) -> KernelGraph:
        order = [self.kernel.name]
        queue = [self.kernel]
        while queue:
            function = queue.pop(0)
            self._add_function(function)
            for call, name in self.calls:
                if name not in order:
                    order.append(name)
                    queue.append(self.functions[name])
        for call, name in self.calls:
            self._link_call(call, name)
        self.edges.sort(key=lambda e: e.flow)  # stable: AST, CONTROL, DATA, CALL, each in build order
        return KernelGraph(name=self.kernel.name, lang=self.unit.lang, nodes=self.nodes, edges=self.edges,
                           helpers=order[1:], unit=self.unit, function=self.kernel)

    # ------------------------------------------------------------------ helpers for passes
    def child(self, index: int, field: str) -> int | None:
        for c in self.children[index]:
            if self.field[c] == field:
                return c
        return None

    def add_edge(self, src: int, dst: int, flow: Flow, position: int = 0) -> None:
        self.edges.append(Edge(src, dst, int(flow), position))

    def fn_token(self, name: str) -> str:
        if name not in self._fn_tokens:
            self._fn_tokens[name] = f"fn{self._counters['fn']}"
            self._counters["fn"] += 1
        return self._fn_tokens[name]

    def shared_node(self, node_type: NodeType, name: str, token: str) -> int:
        key = (node_type.name, name)
        index = self._shared.get(key)
        if index is None:
            index = self._new(int(node_type), token, node_type.name, -1, None, None)
            self._shared[key] = index
        return index

    # ------------------------------------------------------------------ construction
    def _new(self, node_type: int, token: str, kind: str, parent: int, field, span, depth: int = 0,
             function: str = "", dtype: str = "none", space: str = "none") -> int:
        index = len(self.nodes)
        self.nodes.append(Node(node_type, token, kind, dtype, space, depth, span, function))
        self.kind.append(kind)
        self.field.append(field)
        self.parent.append(parent)
        self.children.append([])
        self.op.append(None)
        self.text.append(None)
        return index

    def _add_function(self, function) -> None:
        name = function.name
        lo = len(self.nodes)
        root = self._walk(function.node, name)
        self.roots[name] = root
        hi = len(self.nodes)
        self.nodes[root].token = "kernel" if name == self.kernel.name else self.fn_token(name)
        self._resolve(function, lo, hi)
        builder_dtypes.infer_dtypes(self, lo, hi)
        blocks = control_flow.add_control_edges(self, root)
        data_flow.add_scalar_edges(self, blocks, self.params.get(name, []))
        data_flow.add_buffer_edges(self, lo, hi)
        self.returns[name] = [i for i in range(lo, hi) if self.kind[i] == "return_statement"]

    def _walk(self, ts_root, function: str) -> int:
        """Pre-order copy of the named tree below ``ts_root``; returns the root's index."""
        kinds, fields, operator_field = _language_tables(self.unit.tree.language)
        cursor = ts_root.walk()
        src = self.source
        nodes, kind_of, field_of, parent_of, children, op, text = (self.nodes, self.kind, self.field, self.parent,
                                                                   self.children, self.op, self.text)
        edges = self.edges
        ast = int(Flow.AST)
        first = len(nodes)
        attach: list[tuple[int, str | None]] = [(-1, None)]
        depth = 0
        while True:
            node = cursor.node
            entry = kinds.get(node.kind_id)
            kind, category, node_type = entry if entry is not None else _classify(node.type, node.is_named)
            parent, inherited = attach[-1]
            descend = False
            if category == _ANONYMOUS:
                if parent >= 0 and cursor.field_id == operator_field:
                    op[parent] = kind
            elif category == _TRANSPARENT:
                attach.append((parent, inherited or fields.get(cursor.field_id)))
                descend = True
            elif category != _SKIPPED:
                loop_depth = 0
                if parent >= 0:
                    loop_depth = nodes[parent].loop_depth + (kind_of[parent] in LOOP_KINDS)
                start, end = node.start_byte, node.end_byte
                index = len(nodes)
                nodes.append(Node(node_type, kind, kind, "none", "none", loop_depth, (start, end), function))
                kind_of.append(kind)
                field_of.append(inherited or fields.get(cursor.field_id))
                parent_of.append(parent)
                children.append([])
                op.append(None)
                text.append(None)
                if parent >= 0:
                    siblings = children[parent]
                    edges.append(Edge(parent, index, ast, len(siblings)))
                    siblings.append(index)
                if category == _LEAF:
                    self._leaf(index, kind, src[start:end].decode("utf-8", "replace"))
                else:
                    attach.append((index, None))
                    descend = True
            if descend:
                if cursor.goto_first_child():
                    depth += 1
                    continue
                attach.pop()
            while True:
                if depth == 0:
                    return first
                if cursor.goto_next_sibling():
                    break
                cursor.goto_parent()
                depth -= 1
                attach.pop()

    def _leaf(self, index: int, kind: str, text: str) -> None:
        self.text[index] = text
        node = self.nodes[index]
        if kind in _LITERAL_KINDS:
            node.token, node.dtype = literal_token(kind, text)
        elif kind in _TYPE_KINDS:
            node.dtype = dtype_name(text)
            node.token = node.dtype if node.dtype not in ("none", "other") else text
        elif kind in _TEXT_TOKEN_KINDS:
            node.token = text

    # ------------------------------------------------------------------ scopes and symbols
    def _resolve(self, function, lo: int, hi: int) -> None:
        """Resolve identifiers in [lo, hi) through nested scopes; create VARIABLE/BUFFER nodes."""
        kind = self.kind
        last = self._subtree_ends(lo, hi)
        scopes: list[tuple[int, dict[str, Symbol]]] = []
        pending: dict[int, Symbol] = {}
        param_info = {p.node.start_byte: p for p in function.params if getattr(p, "node", None) is not None}
        for i in range(lo, hi):
            while scopes and last[scopes[-1][0]] < i:
                scopes.pop()
            k = kind[i]
            if k in _SCOPE_KINDS:
                scopes.append((i, {}))
            elif k in _DECL_KINDS:
                self._declare(i, pending, scopes, param_info, function.name)
            elif k == "identifier":
                symbol = pending.pop(i, None)
                if symbol is not None:
                    scopes[-1][1][symbol.name] = symbol
                    self.declared[i] = symbol
                    self._name_node(i, symbol)
                    continue
                name = self.text[i]
                for _, table in reversed(scopes):
                    symbol = table.get(name)
                    if symbol is not None:
                        self.sym_of[i] = symbol
                        self._name_node(i, symbol)
                        break
                else:
                    self._unresolved(i, name)

    def _subtree_ends(self, lo: int, hi: int) -> dict[int, int]:
        last = {i: i for i in range(lo, hi)}
        for i in range(hi - 1, lo - 1, -1):
            p = self.parent[i]
            if p >= lo and last[i] > last[p]:
                last[p] = last[i]
        return last

    def _name_node(self, index: int, symbol: Symbol) -> None:
        node = self.nodes[index]
        target = self.nodes[symbol.node]
        node.token, node.dtype, node.address_space = target.token, symbol.dtype, symbol.space

    def _unresolved(self, index: int, name: str) -> None:
        node = self.nodes[index]
        parent = self.parent[index]
        if self.field[index] == "function" and parent >= 0 and self.kind[parent] == "call_expression":
            if name in self.functions:
                node.token = self.fn_token(name)
                self.calls.append((parent, name))
            else:
                node.token = name
                builtin = self.shared_node(NodeType.BUILTIN, name, name)
                self.add_edge(parent, builtin, Flow.CALL, CALL_INVOKE)
            return
        if parent >= 0 and self.kind[parent] == "function_declarator" and self.field[index] == "declarator":
            node.token = "kernel" if name == self.kernel.name else self.fn_token(name)
            return
        macro = self.unit.macros.get(name) if self.unit.macros else None
        if macro is not None:
            node.token = value_token(macro.value)
            const = self.shared_node(NodeType.CONSTANT, name, node.token)
            self.add_edge(const, index, Flow.DATA, DATA_VALUE)
            return
        node.token = name
        dialect = getattr(self.unit, "dialect", None)
        if name in _BUILTIN_VARIABLES or (dialect is not None and dialect.builtin(name) is not None):
            builtin = self.shared_node(NodeType.BUILTIN, name, name)
            self.add_edge(builtin, index, Flow.DATA, DATA_VALUE)

    def _declare(self, decl: int, pending: dict[int, Symbol], scopes, param_info, function: str) -> None:
        """Create the symbols declared by ``decl``; they enter scope at their declarator identifier."""
        type_node = self.child(decl, "type")
        base_dtype = self.nodes[type_node].dtype if type_node is not None else "none"
        written_space = None
        spaces = getattr(self.unit, "address_spaces", None) or {}
        written_space = spaces.get(self.nodes[decl].span[0])
        for c in self.children[decl]:
            if self.kind[c] in ("type_qualifier", "storage_class_specifier") and self.text[c] in _SPACE_QUALIFIERS:
                written_space = _SPACE_QUALIFIERS[self.text[c]]
        param = param_info.get(self.nodes[decl].span[0]) if self.kind[decl] == "parameter_declaration" else None
        for d in self.children[decl]:
            if self.field[d] != "declarator":
                continue
            ident, pointers, arrays, init = self._unwrap_declarator(d)
            if ident is None:
                continue
            dtype, space, is_buffer = base_dtype, written_space, pointers + arrays > 0
            if param is not None:
                dtype = dtype_name(param.base_type if param.vector_width == 1 else f"{param.base_type}{param.vector_width}")
                is_buffer, space = bool(param.is_pointer), param.address_space or written_space
            alias = self._alias_of(init, scopes) if is_buffer and pointers and init is not None else None
            if alias is not None:
                symbol = Symbol(self.text[ident], alias.node, True, alias.dtype, alias.space)
            else:
                space = space or ("generic" if pointers else "private")
                symbol = self._new_symbol(self.text[ident], is_buffer, dtype, space, ident, function)
                self.add_edge(decl, symbol.node, Flow.DATA, DATA_DECL)
            pending[ident] = symbol
            if self.kind[decl] == "parameter_declaration":
                self.params.setdefault(function, []).append(symbol)

    def _new_symbol(self, name: str, is_buffer: bool, dtype: str, space: str, ident: int, function: str) -> Symbol:
        prefix = "buf" if is_buffer else "var"
        token = f"{prefix}{self._counters[prefix]}"
        self._counters[prefix] += 1
        node_type = NodeType.BUFFER if is_buffer else NodeType.VARIABLE
        index = self._new(int(node_type), token, node_type.name, -1, None, self.nodes[ident].span,
                          self.nodes[ident].loop_depth, function, dtype, space)
        return Symbol(name, index, is_buffer, dtype, space)

    def _unwrap_declarator(self, d: int) -> tuple[int | None, int, int, int | None]:
        pointers = arrays = 0
        init = None
        while d is not None:
            k = self.kind[d]
            if k == "identifier":
                return d, pointers, arrays, init
            if k == "init_declarator":
                init = self.child(d, "value")
            elif k == "pointer_declarator":
                pointers += 1
            elif k == "array_declarator":
                arrays += 1
            elif k == "function_declarator":
                return None, 0, 0, None
            nxt = self.child(d, "declarator")
            if nxt is None:
                nxt = next((c for c in self.children[d] if self.kind[c] == "identifier"), None)
            d = nxt
        return None, pointers, arrays, init

    def _alias_of(self, init: int, scopes) -> Symbol | None:
        """The buffer a pointer initialiser points into (``A + k*N`` -> A), if any."""
        i = init
        while i is not None and self.kind[i] != "identifier":
            k = self.kind[i]
            if k == "binary_expression":
                i = self.child(i, "left")
            elif k == "cast_expression":
                i = self.child(i, "value")
            elif k in ("pointer_expression", "subscript_expression"):
                i = self.child(i, "argument")
            else:
                return None
        if i is None:
            return None
        for _, table in reversed(scopes):
            symbol = table.get(self.text[i])
            if symbol is not None:
                return symbol if symbol.is_buffer else None
        return None

    def _link_call(self, call: int, name: str) -> None:
        root = self.roots[name]
        self.add_edge(call, root, Flow.CALL, CALL_INVOKE)
        for ret in self.returns.get(name, []):
            self.add_edge(ret, call, Flow.CALL, CALL_RETURN)
        args = self.child(call, "arguments")
        if args is None:
            return
        for arg, param in zip(self.children[args], self.params.get(name, [])):
            self.add_edge(arg, param.node, Flow.DATA, DATA_VALUE)


def build_kernel_graph(unit, function) -> KernelGraph:
    """The :class:`KernelGraph` of kernel ``function`` of ``unit`` (helpers it calls included once)."""
    try:
        return GraphBuilder(unit, function).build()
    except RecursionError:
        raise InputError(f"{unit.filename}:{function.line}:{function.col}: kernel '{function.name}' is "
                         "nested too deeply to build its graph") from None
