"""Kernel graphs at scale: deep expressions build (no recursion limit), column storage, back-compat."""
import torch

import kgraph
from kgraph.graph import Edge, EdgeList, KernelGraph, Node, NodeColumns
from kgraph.schema import DATA_DECL, DATA_INDEX, DATA_VALUE, DATA_WRITE, Flow, NodeType

SAXPY = """__kernel void saxpy(__global const float* x, __global float* y, float a) {
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""


def _chain(terms: int) -> str:
    expr = " + ".join(f"a[{k % 7}]" for k in range(terms))
    return f"__kernel void k(__global float* a, __global float* b) {{ float s = {expr}; b[0] = s; }}"


def test_3000_term_chained_expression_builds_with_exact_counts():
    (g,) = kgraph.from_source(_chain(3000), "opencl", analyze=False)
    # AST: 14 header/param/body nodes + declaration (4 + 3000 subscripts x 3 nodes + 2999 '+') + b[0] = s (6)
    assert g.num_nodes == 14 + (4 + 3000 * 3 + 2999) + 6 + 3  # + BUFFER a, BUFFER b, VARIABLE s
    assert g.edge_counts() == {"AST": 12022, "CONTROL": 2, "DATA": 6006, "CALL": 0}
    data = g.edges_of(Flow.DATA)
    assert sum(e.position == DATA_DECL for e in data) == 3
    assert sum(e.position == DATA_INDEX for e in data) == 3001   # 3000 loads of a + the store b[0]
    assert sum(e.position == DATA_WRITE for e in data) == 1
    assert sum(e.position == DATA_VALUE for e in data) == 3001   # 3000 loads + s def -> use
    deepest = max(g.nodes[i].loop_depth for i in range(g.num_nodes))
    assert deepest == 0
    assert kgraph.to_pyg(g).x.shape == (12026, 5)


def test_columns_and_lazy_nodes_agree():
    (g,) = kgraph.from_source(SAXPY, "opencl", analyze=False)
    columns = g.columns
    assert isinstance(g.edges, EdgeList) and len(g.edges) == g.num_edges
    before = kgraph.to_pyg(g)
    nodes = g.nodes  # made from the columns on first access
    assert [n.token for n in nodes] == columns.token and [n.span for n in nodes] == columns.span
    assert NodeColumns.from_nodes(nodes) == columns
    assert torch.equal(kgraph.to_pyg(g).x, before.x)
    assert list(g.edges) == [Edge(s, d, f, p) for s, d, f, p in
                             zip(g.edges.src, g.edges.dst, g.edges.flow, g.edges.position)]
    assert g.edges[0] == Edge(0, 1, int(Flow.AST), 0) and g.edges[-1].flow == int(Flow.CALL)
    # after materialisation the Node objects are the truth: an edit shows in columns and tensors
    buffers = [i for i, n in enumerate(nodes) if n.type == NodeType.BUFFER]
    nodes[buffers[0]].address_space = "local"
    assert g.columns.address_space[buffers[0]] == "local"
    assert kgraph.to_pyg(g).x[buffers[0], 3].item() == 3  # ADDRESS_SPACES.index("local")


def test_kernel_graph_from_node_and_edge_lists():
    nodes = [Node(int(NodeType.FUNCTION), "kernel", "function_definition", span=(0, 10), function="k"),
             Node(int(NodeType.IDENTIFIER), "var0", "identifier", "int", "private", 0, (4, 5), "k")]
    g = KernelGraph("k", "c", nodes, [Edge(0, 1, int(Flow.AST), 0)])
    assert g.edges == [(0, 1, 0, 0)] and g.edges.src == (0,) and g.num_nodes == 2
    assert g.columns.start == [0, 4] and g.columns.end == [10, 5]
    assert g.edge_counts() == {"AST": 1, "CONTROL": 0, "DATA": 0, "CALL": 0}
    data = kgraph.to_pyg(g)
    assert data.edge_index.tolist() == [[0], [1]] and data.x[:, 0].tolist() == [int(NodeType.FUNCTION),
                                                                                 int(NodeType.IDENTIFIER)]


def test_non_ascii_source_gives_the_same_tensors():
    plain = kgraph.to_pyg(kgraph.from_source(SAXPY, "opencl", analyze=False)[0])
    accented = SAXPY.replace("int i =", "/* indice é */ int i =")
    (g,) = kgraph.from_source(accented, "opencl", analyze=False)
    assert not g.unit.source.isascii()
    other = kgraph.to_pyg(g)
    assert torch.equal(plain.x, other.x) and torch.equal(plain.edge_index, other.edge_index)
    # spans index the UTF-8 bytes: the declaration after the accented comment reads back exactly
    assert "int i = get_global_id(0);" in [g.text(k) for k in range(g.num_nodes)]


def test_1500_nested_ifs_build_with_exact_counts():
    # Without braces: 1500 '{' would exceed the front end's bracket limit (MAX_NESTING_DEPTH = 256, as
    # clang's -fbracket-depth), while 1500 nested statements stay within its syntax depth (4096).
    n = 1500
    body = "if (i > 0) " * n + "b[0] = 1.0f; "
    (g,) = kgraph.from_source(f"__kernel void k(__global float* b, int i) {{ {body} }}", "opencl", analyze=False)
    # 13 header nodes + 4 per level (if, >, i, 0) + 6 for b[0] = 1.0f; + BUFFER b + VARIABLE i
    assert g.num_nodes == 13 + 4 * n + 6 + 2
    # CONTROL: entry -> if 1, if k -> if k+1 (TRUE), if n -> the store; DATA: 2 DECL, i -> each
    # condition, store WRITE + INDEX
    assert g.edge_counts() == {"AST": 4 * n + 18, "CONTROL": n + 1, "DATA": n + 4, "CALL": 0}
