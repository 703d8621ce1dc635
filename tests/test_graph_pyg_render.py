"""to_pyg determinism and layout, DOT and PNG rendering."""
import hashlib

import torch

import kgraph
from kgraph.schema import ADDRESS_SPACE_ID, DTYPE_ID, Flow, NodeType
from kgraph.vocab import load_vocabulary

SAXPY = """__kernel void saxpy(const float a, __global const float* x, __global float* y, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
# sha256 over the bytes of x, edge_index, edge_type, edge_pos of SAXPY (vocabulary kgraph-vocab-2).
SAXPY_TENSOR_SHA256 = "a871b462287583aac5a80411741301223f1cd08d6cb4024017156b38a4e6d975"


def _digest(data):
    h = hashlib.sha256()
    for t in (data.x, data.edge_index, data.edge_type, data.edge_pos):
        h.update(t.numpy().tobytes())
    return h.hexdigest()


def test_to_pyg_shapes_and_columns():
    (g,) = kgraph.from_source(SAXPY, "opencl", analyze=False)
    d = kgraph.to_pyg(g)
    assert d.x.dtype == torch.long and tuple(d.x.shape) == (55, 5)
    assert tuple(d.edge_index.shape) == (2, 69) and d.edge_type.shape == d.edge_pos.shape == (69,)
    assert d.num_nodes == 55 and d.kernel_name == "saxpy"
    vocab = load_vocabulary()
    assert d.x[0].tolist() == [int(NodeType.FUNCTION), vocab.id("kernel"), 0, 0, 0]
    y = next(i for i, n in enumerate(g.nodes) if n.type == NodeType.BUFFER and g.text(i) == "y")
    assert d.x[y].tolist() == [int(NodeType.BUFFER), vocab.id("buf1"), DTYPE_ID["float"], ADDRESS_SPACE_ID["global"], 0]
    assert torch.bincount(d.edge_type, minlength=4).tolist() == [g.edge_counts()[f.name] for f in Flow]
    assert int(d.edge_index.max()) < d.num_nodes


def test_to_pyg_identical_across_runs_and_stored_hash():
    first = kgraph.to_pyg(kgraph.from_source(SAXPY, "opencl", analyze=False)[0])
    second = kgraph.to_pyg(kgraph.from_source(SAXPY, "opencl", filename="other.cl", analyze=False)[0])
    assert _digest(first) == _digest(second) == SAXPY_TENSOR_SHA256


def test_renamed_identifiers_give_identical_tensors():
    renamed = SAXPY.replace("saxpy", "kern").replace(" y", " out").replace("y[", "out[").replace("x", "inp")
    a = kgraph.to_pyg(kgraph.from_source(SAXPY, "opencl", analyze=False)[0])
    b = kgraph.to_pyg(kgraph.from_source(renamed, "opencl", analyze=False)[0])
    assert torch.equal(a.x, b.x) and torch.equal(a.edge_index, b.edge_index)


def test_to_dot_has_every_node_edge_and_legend():
    (g,) = kgraph.from_source(SAXPY, "opencl", analyze=False)
    dot = kgraph.to_dot(g)
    assert dot.startswith('digraph "saxpy" {') and dot.rstrip().endswith("}")
    assert dot.count(" -> ") == g.num_edges == 69
    assert dot.count("shape=ellipse") == 6  # a, x, y, n, i, get_global_id
    for flow in Flow:
        assert f'legend_{flow.name} [label="{flow.name}"' in dot


def test_to_png_writes_a_png(tmp_path):
    (g,) = kgraph.from_source(SAXPY, "opencl", analyze=False)
    out = tmp_path / "sub" / "saxpy.png"
    assert kgraph.to_png(g, out) == str(out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
