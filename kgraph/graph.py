"""KernelGraph, Node and Edge: one kernel (plus the helpers it calls) as a typed multigraph.

Ids, flows and positions are defined in :mod:`kgraph.schema`; :func:`kgraph.to_pyg` turns a
KernelGraph into tensors.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

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


@dataclass
class KernelGraph:
    """The graph of one kernel, its reachable helpers included once (linked by CALL edges).

    Args:
        name: kernel name.
        lang: ``opencl`` | ``cuda`` | ``c``.
        nodes: the nodes; node ``i`` is ``nodes[i]``; node 0 is the kernel's function_definition.
        edges: the edges in a deterministic construction order (AST, then per function CONTROL,
            DATA, then CALL).
        helpers: names of the helper functions included, in inclusion order.
        unit: the :class:`parsers.TranslationUnit` it came from.
        function: the kernel's :class:`parsers.Function`.
        analysis: the static :class:`~kgraph.analysis.KernelAnalysis`, or ``None`` when unavailable
            (``analysis_error`` then says why).
    """

    name: str
    lang: str
    nodes: list[Node]
    edges: list[Edge]
    helpers: list[str] = field(default_factory=list)
    unit: Any = None
    function: Any = None
    analysis: Any = None
    analysis_error: str | None = None

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    def edge_counts(self) -> dict[str, int]:
        """Number of edges per flow name, every flow present (``{"AST": .., "CONTROL": .., ...}``)."""
        counts = {flow.name: 0 for flow in Flow}
        for edge in self.edges:
            counts[Flow(edge.flow).name] += 1
        return counts

    def node_counts(self) -> dict[str, int]:
        """Number of nodes per NodeType name, only the types present."""
        counts: dict[str, int] = {}
        for node in self.nodes:
            key = NodeType(node.type).name
            counts[key] = counts.get(key, 0) + 1
        return counts

    def edges_of(self, flow: Flow, position: int | None = None) -> list[Edge]:
        """The edges of one flow (and position, when given), in graph order."""
        return [e for e in self.edges if e.flow == flow and (position is None or e.position == position)]

    def text(self, index: int) -> str:
        """The source text of node ``index`` (empty for nodes without a span)."""
        span = self.nodes[index].span
        if span is None or self.unit is None:
            return ""
        return self.unit.source[span[0]:span[1]].decode("utf-8", "replace")

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
