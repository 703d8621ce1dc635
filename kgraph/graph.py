"""KernelGraph, Node and Edge: one kernel (plus the helpers it calls) as a typed multigraph.

Ids, flows and positions are defined in :mod:`kgraph.schema`; :func:`kgraph.to_pyg` turns a
KernelGraph into tensors.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Callable, NamedTuple

from kgraph.schema import Flow, NodeType


@dataclass(slots=True)
class Node:
    """One graph node.

    Args:
        type: a :class:`~kgraph.schema.NodeType` id.
        token: the normalised token (``var0``, ``buf1``, ``get_global_id``, ``+``, ``int:pow2``,
            or the tree-sitter kind for nodes without a spelling of their own).
        kind: the tree-sitter kind for AST nodes; ``VARIABLE``/``BUFFER``/``CONSTANT``/``BUILTIN`` otherwise.
        dtype: a :data:`~kgraph.schema.DTYPES` name (``none`` when unknown or not a value).
        address_space: an :data:`~kgraph.schema.ADDRESS_SPACES` name.
        loop_depth: number of loops enclosing the node inside its function.
        span: ``(start_byte, end_byte)`` in ``unit.source`` (``None`` for synthetic nodes without one).
        function: name of the function the node belongs to (``""`` for shared BUILTIN/CONSTANT nodes).
    """

    type: int
    token: str
    kind: str
    dtype: str = "none"
    address_space: str = "none"
    loop_depth: int = 0
    span: tuple[int, int] | None = None
    function: str = ""


class Edge(NamedTuple):
    """A directed edge ``src -> dst`` of one :class:`~kgraph.schema.Flow` with its position."""

    src: int
    dst: int
    flow: int
    position: int = 0


class EdgeList(Sequence):
    """A graph's edges stored as four int columns; reads like a list of :class:`Edge`.

    Indexing and iteration give :class:`Edge` tuples (made on access, so a graph holds no per-edge
    Python objects); ``src``, ``dst``, ``flow`` and ``position`` are the columns themselves (what
    :func:`kgraph.to_pyg` turns into tensors). Compares equal to any sequence of the same edges.

    Args:
        src, dst, flow, position: equal-length sequences of ints.
    """

    __slots__ = ("src", "dst", "flow", "position")

    def __init__(self, src=(), dst=(), flow=(), position=()):
        self.src, self.dst, self.flow, self.position = tuple(src), tuple(dst), tuple(flow), tuple(position)
        if not len(self.src) == len(self.dst) == len(self.flow) == len(self.position):
            raise ValueError("EdgeList columns must have equal lengths")

    @classmethod
    def from_edges(cls, edges) -> "EdgeList":
        """An EdgeList of an iterable of ``(src, dst, flow, position)`` tuples (or :class:`Edge`)."""
        columns = tuple(zip(*edges))
        return cls(*columns) if columns else cls()

    def __len__(self) -> int:
        return len(self.src)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [Edge(*t) for t in zip(self.src[index], self.dst[index], self.flow[index], self.position[index])]
        return Edge(self.src[index], self.dst[index], self.flow[index], self.position[index])

    def __iter__(self):
        return map(tuple.__new__, repeat(Edge), zip(self.src, self.dst, self.flow, self.position))

    def __eq__(self, other) -> bool:
        if isinstance(other, EdgeList):
            return (self.src, self.dst, self.flow, self.position) == (other.src, other.dst, other.flow,
                                                                      other.position)
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"EdgeList({len(self)} edges)"


class NodeColumns(NamedTuple):
    """The nodes of a graph as parallel lists, one per :class:`Node` attribute (``type[i]`` is node
    ``i``'s type; the span is ``start[i], end[i]``, ``-1, -1`` for none). What the builder fills and
    :func:`kgraph.to_pyg` reads: no per-node object."""

    type: list[int]
    token: list[str]
    kind: list[str]
    dtype: list[str]
    address_space: list[str]
    loop_depth: list[int]
    start: list[int]
    end: list[int]
    function: list[str]

    @property
    def span(self) -> list[tuple[int, int] | None]:
        return [(s, e) if s >= 0 else None for s, e in zip(self.start, self.end)]

    @classmethod
    def from_nodes(cls, nodes) -> "NodeColumns":
        rows = [(n.type, n.token, n.kind, n.dtype, n.address_space, n.loop_depth,
                 *(n.span if n.span is not None else (-1, -1)), n.function) for n in nodes]
        return cls(*(list(column) for column in zip(*rows))) if rows else cls(*([] for _ in cls._fields))

    def to_nodes(self) -> list[Node]:
        return list(map(Node, self.type, self.token, self.kind, self.dtype, self.address_space, self.loop_depth,
                        self.span, self.function))


class KernelGraph:
    """The graph of one kernel, its reachable helpers included once (linked by CALL edges).

    Args:
        name: kernel name.
        lang: ``opencl`` | ``cuda`` | ``c``.
        nodes: the nodes; node ``i`` is ``nodes[i]``; node 0 is the kernel's function_definition.
            Or, instead, ``columns`` (:class:`NodeColumns`): ``nodes`` is then made on first access
            and is the graph's truth from then on (edit a node there; ``columns`` follows).
        edges: the edges (an :class:`EdgeList`; a list of :class:`Edge` given here is converted) in
            a deterministic order: AST, CONTROL, DATA, CALL, each in construction order.
        helpers: names of the helper functions included, in inclusion order.
        unit: the :class:`parsers.TranslationUnit` it came from.
        function: the kernel's :class:`parsers.Function`.
        analysis: the static :class:`~kgraph.analysis.KernelAnalysis`, or ``None`` when unavailable
            (``analysis_error`` then says why).
    """

    def __init__(self, name: str, lang: str, nodes: list[Node] | None = None, edges=(), helpers=None,
                 unit: Any = None, function: Any = None, analysis: Any = None, analysis_error: str | None = None,
                 *, columns: NodeColumns | None = None):
        if (nodes is None) == (columns is None):
            raise ValueError("KernelGraph takes exactly one of nodes= and columns=")
        self.name, self.lang = name, lang
        self._nodes = list(nodes) if nodes is not None else None
        self._columns = columns
        self.edges = edges if isinstance(edges, EdgeList) else EdgeList.from_edges(edges)
        self.helpers = list(helpers or [])
        self.unit, self.function = unit, function
        self.analysis, self.analysis_error = analysis, analysis_error

    @property
    def nodes(self) -> list[Node]:
        if self._nodes is None:
            self._nodes, self._columns = self._columns.to_nodes(), None
        return self._nodes

    @nodes.setter
    def nodes(self, nodes: list[Node]) -> None:
        self._nodes, self._columns = list(nodes), None

    @property
    def columns(self) -> NodeColumns:
        """The nodes' current attributes as :class:`NodeColumns` (made from ``nodes`` once those exist)."""
        return self._columns if self._columns is not None else NodeColumns.from_nodes(self._nodes)

    @property
    def num_nodes(self) -> int:
        return len(self._columns.type) if self._columns is not None else len(self._nodes)

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    def derived(self, key: str, make: Callable[..., Any], *args: Any) -> Any:
        """``make(*args)`` computed once per graph and kept under ``key``: what consumers derive from the kernel's
        declaration (the launch checks' argument ranges, its static local bytes) is made once and shared by every
        launch of it. A shallow copy of the graph (a kernel at given branch shares) shares them: they do not depend
        on the analysis. ``make`` is a plain function, so a call that finds the value builds no closure."""
        try:
            return self._derived[key]  # the per-launch path: one lookup
        except AttributeError:  # the first value of this graph (or of one unpickled from before it had them)
            self._derived = {}
        except KeyError:
            pass
        value = self._derived[key] = make(*args)
        return value

    def edge_counts(self) -> dict[str, int]:
        """Number of edges per flow name, every flow present (``{"AST": .., "CONTROL": .., ...}``)."""
        return {flow.name: self.edges.flow.count(int(flow)) for flow in Flow}

    def node_counts(self) -> dict[str, int]:
        """Number of nodes per NodeType name, only the types present."""
        counts: dict[str, int] = {}
        for node_type in self.columns.type:
            key = NodeType(node_type).name
            counts[key] = counts.get(key, 0) + 1
        return counts

    def edges_of(self, flow: Flow, position: int | None = None) -> list[Edge]:
        """The edges of one flow (and position, when given), in graph order."""
        return [e for e in self.edges if e.flow == flow and (position is None or e.position == position)]

    def text(self, index: int) -> str:
        """The source text of node ``index`` (empty for nodes without a span)."""
        if self._columns is None:
            span = self.nodes[index].span
            start, end = span if span is not None else (-1, -1)
        else:
            start, end = self._columns.start[index], self._columns.end[index]
        if start < 0 or self.unit is None:
            return ""
        return self.unit.source[start:end].decode("utf-8", "replace")

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: name, lang, node/edge counts, helpers, symbolic static counts."""
        out: dict[str, Any] = {
            "name": self.name,
            "lang": self.lang,
            "nodes": self.num_nodes,
            "edges": self.edge_counts(),
            "helpers": list(self.helpers),
        }
        if self.analysis is not None:
            out["counts"] = {key: str(value) for key, value in self.analysis.counts.items()}
        elif self.analysis_error:
            out["analysis_error"] = self.analysis_error
        return out

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in self.edge_counts().items())
        return f"KernelGraph({self.name!r}, lang={self.lang!r}, nodes={self.num_nodes}, {counts})"
