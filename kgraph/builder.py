"""Build a :class:`~kgraph.graph.KernelGraph` from a parsed :class:`parsers.TranslationUnit`.

Per function (the kernel first, then each helper it reaches, once), four passes over flat arrays:

1. :mod:`kgraph.builder_walk` copies the named tree-sitter nodes (comments dropped, see
   :mod:`kgraph.schema` for transparent kinds) in pre-order, so a node's index is smaller than its
   descendants'; AST edges come with it.
2. :mod:`kgraph.builder_scopes` resolves identifiers through C scopes and creates the
   VARIABLE/BUFFER/CONSTANT/BUILTIN nodes; :mod:`kgraph.builder_dtypes` fills expression dtypes.
3. :mod:`kgraph.control_flow` adds CONTROL edges, :mod:`kgraph.data_flow` DATA edges.
4. Calls to helpers are linked (CALL edges, argument → parameter DATA edges) once all are built.

Every pass is iterative over the arrays (no recursion on expression depth), so a 3000-term chained
expression builds like any other. Edges are kept as int columns per flow and become the graph's
:class:`~kgraph.graph.EdgeList` once, at the end (AST, CONTROL, DATA, CALL, each in build order).
"""
from __future__ import annotations

from kgraph import builder_dtypes, control_flow, data_flow
from kgraph.builder_scopes import ScopeResolver, Symbol
from kgraph.builder_walk import walk
from kgraph.errors import InputError
from kgraph.graph import EdgeList, KernelGraph, NodeColumns
from kgraph.schema import CALL_INVOKE, CALL_RETURN, DATA_VALUE, Flow, NodeType

__all__ = ["GraphBuilder", "Symbol", "build_kernel_graph"]


class GraphBuilder:
    """Builds the graph of one kernel. Use :func:`build_kernel_graph`.

    Args:
        unit: the :class:`parsers.TranslationUnit`.
        function: the kernel's :class:`parsers.Function`.

    Per node ``i`` (parallel lists): the graph's columns ``node_type, token, kind, dtype, space,
    loop_depth, start, end, owner`` (see :class:`~kgraph.graph.NodeColumns`), and ``field[i]`` (field name
    in its parent), ``parent[i]`` (-1 for roots and synthetic nodes), ``children[i]``; sparse: ``text``
    (leaves' spelling), ``op`` (operator of expression nodes), ``scope_end`` (scope node → its
    subtree's last index).
    """

    def __init__(self, unit, function):
        self.unit = unit
        self.kernel = function
        self.source: bytes = unit.source
        self.source_text: str | None = unit.source.decode("ascii") if unit.source.isascii() else None
        self.node_type: list[int] = []
        self.token: list[str] = []
        self.kind: list[str] = []
        self.dtype: list[str] = []
        self.space: list[str] = []
        self.loop_depth: list[int] = []
        self.start: list[int] = []
        self.end: list[int] = []
        self.owner: list[str] = []
        self.field: list[str | None] = []
        self.parent: list[int] = []
        self.children: list = []
        self.text: dict[int, str] = {}
        self.op: dict[int, str] = {}
        self.scope_end: dict[int, int] = {}
        self.marks: list[int] = []                  # scope, declaration and identifier nodes of the function
        self.expressions: list[int] = []            # its expression nodes (builder_walk.EXPRESSION_KINDS)
        self.returns_of: list[int] = []             # its return statements
        self.scalar_refs: list[int] = []            # its identifiers naming a scalar / a buffer symbol
        self.buffer_refs: list[int] = []
        self.edge_columns = tuple(([], [], []) for _ in Flow)  # per flow: src, dst, position lists
        self.sym_of: dict[int, Symbol] = {}         # identifier node -> symbol it names
        self.declared: dict[int, Symbol] = {}       # declarator identifier node -> symbol it declares
        self.params: dict[str, list[Symbol]] = {}   # function name -> its parameters' symbols
        self.returns: dict[str, list[int]] = {}     # function name -> its return statements
        self.roots: dict[str, int] = {}             # function name -> function_definition node
        self.calls: list[tuple[int, str]] = []      # (call_expression node, helper name)
        self._shared: dict[tuple[str, str], int] = {}  # (BUILTIN|CONSTANT, name) -> node
        self._counters = {"var": 0, "buf": 0, "fn": 0}
        self._fn_tokens: dict[str, str] = {}
        # every function defined in the unit (built once per unit, not once per kernel)
        self.functions = unit.functions_by_name() if hasattr(unit, "functions_by_name") else \
            {f.name: f for f in unit.functions}

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
        src, dst, flow, position = [], [], [], []
        for f, (s, d, p) in enumerate(self.edge_columns):
            src += s
            dst += d
            flow += [f] * len(s)
            position += p
        edges = EdgeList(src, dst, flow, position)
        columns = NodeColumns(self.node_type, self.token, self.kind, self.dtype, self.space, self.loop_depth,
                              self.start, self.end, self.owner)
        return KernelGraph(name=self.kernel.name, lang=self.unit.lang, columns=columns, edges=edges,
                           helpers=order[1:], unit=self.unit, function=self.kernel)

    # ------------------------------------------------------------------ helpers for passes
    def child(self, index: int, field: str) -> int | None:
        """The first child of ``index`` in ``field``, or None."""
        field_of = self.field
        for c in self.children[index]:
            if field_of[c] == field:
                return c
        return None

    def add_edge(self, src: int, dst: int, flow: Flow, position: int = 0) -> None:
        src_of, dst_of, position_of = self.edge_columns[flow]
        src_of.append(src)
        dst_of.append(dst)
        position_of.append(position)

    def fn_token(self, name: str) -> str:
        if name not in self._fn_tokens:
            self._fn_tokens[name] = self.next_token("fn")
        return self._fn_tokens[name]

    def next_token(self, prefix: str) -> str:
        """``var0, var1, ...`` / ``buf0, ...`` / ``fn0, ...`` in order of first use."""
        token = f"{prefix}{self._counters[prefix]}"
        self._counters[prefix] += 1
        return token

    def shared_node(self, node_type: NodeType, name: str, token: str) -> int:
        key = (node_type.name, name)
        index = self._shared.get(key)
        if index is None:
            index = self.new_node(int(node_type), token, node_type.name)
            self._shared[key] = index
        return index

    def new_node(self, node_type: int, token: str, kind: str, start: int = -1, end: int = -1, depth: int = 0,
                 function: str = "",
                 dtype: str = "none", space: str = "none") -> int:
        """Append a synthetic (VARIABLE/BUFFER/CONSTANT/BUILTIN) node; returns its index."""
        index = len(self.kind)
        self.node_type.append(node_type)
        self.token.append(token)
        self.kind.append(kind)
        self.dtype.append(dtype)
        self.space.append(space)
        self.loop_depth.append(depth)
        self.start.append(start)
        self.end.append(end)
        self.owner.append(function)
        self.field.append(None)
        self.parent.append(-1)
        self.children.append(())
        return index

    # ------------------------------------------------------------------ construction
    def _add_function(self, function) -> None:
        name = function.name
        self.marks, self.expressions, self.returns_of, self.scalar_refs, self.buffer_refs = [], [], [], [], []
        root = walk(self, function.node, name)
        self.roots[name] = root
        self.token[root] = "kernel" if name == self.kernel.name else self.fn_token(name)
        ScopeResolver(self, function).run(self.marks)
        builder_dtypes.infer_dtypes(self, self.expressions)
        blocks = control_flow.add_control_edges(self, root)
        data_flow.add_scalar_edges(self, blocks, self.params.get(name, []))
        data_flow.add_buffer_edges(self, self.expressions, self.buffer_refs)
        self.returns[name] = self.returns_of

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
