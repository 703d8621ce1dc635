"""Kernel graph builder: schema invariants, hand-checked DATA/CONTROL edges, buffers, calls."""
import json

import pytest

import kgraph
from kgraph import schema
from kgraph.schema import CTRL_BACK, DATA_DECL, DATA_INDEX, DATA_VALUE, DATA_WRITE, Flow, NodeType
from kgraph.vocab import VOCAB_PATH, Vocabulary, build_vocabulary, load_vocabulary

TINY = """__kernel void k(__global float* a, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += i;
    }
    if (s > 3) s = 1; else s = 2;
    a[get_global_id(0)] = s;
}
"""


def _graph(src, lang="opencl"):
    (g,) = kgraph.from_source(src, lang, analyze=False)
    return g


def _line_col(g, i):
    start = g.nodes[i].span[0]
    before = g.unit.source[:start]
    return before.count(b"\n") + 1, start - (before.rfind(b"\n") + 1) + 1


def test_schema_ids_unique_and_contiguous():
    assert [t.value for t in NodeType] == list(range(len(NodeType)))
    assert [f.value for f in Flow] == [0, 1, 2, 3]
    assert len(set(schema.DTYPES)) == len(schema.DTYPES) == 16 + 11 * 5
    assert len(set(schema.ADDRESS_SPACES)) == len(schema.ADDRESS_SPACES)
    assert schema.FEATURE_COLUMNS == ("node_type", "token_id", "dtype_id", "address_space_id", "loop_depth")
    assert schema.dtype_name("unsigned int") == "uint"
    assert schema.dtype_name("const float4") == "float4"
    assert schema.dtype_name("my_struct") == "other"


def test_vocabulary_file_matches_rules_and_round_trips():
    stored = json.loads(VOCAB_PATH.read_text())
    assert stored["version"] == schema.VOCAB_VERSION
    assert stored["tokens"] == build_vocabulary()
    vocab = load_vocabulary()
    assert len(set(vocab.tokens)) == len(vocab.tokens)
    assert all(vocab.token(vocab.id(t)) == t for t in vocab.tokens)
    assert vocab.id("var0") == 0 and vocab.id("buf0") == 128 and vocab.id("kernel") == 160 and vocab.id("fn0") == 161
    # unknown tokens: CRC-32 bucket after the known tokens, same on every run
    assert len(vocab.tokens) == 952 and len(vocab) == 952 + 256
    assert vocab.id("totally_unknown_name") == 952 + 231  # zlib.crc32(b"totally_unknown_name") % 256 == 231
    assert vocab.token(1183) == "<unk:231>"
    assert Vocabulary.from_json(vocab.to_json()).tokens == vocab.tokens


def test_tiny_kernel_reaching_definitions_exact():
    g = _graph(TINY)
    pairs = set()
    for e in g.edges_of(Flow.DATA, DATA_VALUE):
        src, dst = g.nodes[e.src], g.nodes[e.dst]
        if dst.kind != "identifier" or src.type in (NodeType.BUFFER, NodeType.BUILTIN, NodeType.CONSTANT):
            continue
        d = src.token if src.type == NodeType.VARIABLE else f"{_line_col(g, e.src)[0]}:{g.text(e.src)}"
        pairs.add((d, _line_col(g, e.dst), g.text(e.dst)))
    i_uses = {((3, 21), "i"), ((3, 28), "i"), ((4, 14), "i")}
    expected = {("var0", (3, 25), "n")}
    expected |= {("3:i = 0", u, t) for u, t in i_uses} | {("3:i++", u, t) for u, t in i_uses}
    s_uses = {((4, 9), "s"), ((6, 9), "s")}
    expected |= {("2:s = 0", u, t) for u, t in s_uses} | {("4:s += i", u, t) for u, t in s_uses}
    expected |= {("6:s = 1", (7, 27), "s"), ("6:s = 2", (7, 27), "s")}
    assert pairs == expected


def test_tiny_kernel_control_and_buffer_edges():
    g = _graph(TINY)
    back = g.edges_of(Flow.CONTROL, CTRL_BACK)
    assert [(g.text(e.src), g.nodes[e.dst].kind) for e in back] == [("i++", "for_statement")]
    ctrl = {(g.text(e.src)[:12], g.text(e.dst)[:12], e.position) for e in g.edges_of(Flow.CONTROL)}
    assert ("if (s > 3) s", "s = 1;", 1) in ctrl and ("if (s > 3) s", "s = 2;", 2) in ctrl
    assert ("s = 1;", "a[get_global", 0) in ctrl and ("s = 2;", "a[get_global", 0) in ctrl
    (buf,) = [i for i, n in enumerate(g.nodes) if n.type == NodeType.BUFFER]
    assert g.nodes[buf].token == "buf0" and g.nodes[buf].address_space == "global" and g.nodes[buf].dtype == "float"
    writes = [g.text(e.src) for e in g.edges_of(Flow.DATA, DATA_WRITE)]
    assert writes == ["a[get_global_id(0)] = s"]
    assert [g.text(e.src) for e in g.edges_of(Flow.DATA, DATA_INDEX)] == ["get_global_id(0)"]
    assert len(g.edges_of(Flow.DATA, DATA_DECL)) == 4  # a, n, s, i
    calls = [(g.text(e.src), g.nodes[e.dst].token) for e in g.edges_of(Flow.CALL)]
    assert calls == [("get_global_id(0)", "get_global_id")]
    assert g.num_nodes == 60 and g.node_counts()["VARIABLE"] == 3
    assert g.edge_counts() == {"AST": 54, "CONTROL": 11, "DATA": 19, "CALL": 1}  # AST: a tree over 55 nodes


LOOPS = """__kernel void loops(__global int* out, int n) {
    int acc = 0;
    for (int i = 0; i < n; ++i) { acc += i; }
    int j = 0;
    while (j < n) { acc -= j; j++; }
    do { acc *= 2; n--; } while (n > 0);
    for (int k = 0; k < 4; k++) { for (int m = 0; m < 4; m++) { if (m == k) continue; acc++; } }
    out[0] = acc;
}
"""


def test_one_back_edge_per_loop_and_loop_depth():
    g = _graph(LOOPS)
    loops = [i for i, n in enumerate(g.nodes) if n.kind in ("for_statement", "while_statement", "do_statement")]
    back = g.edges_of(Flow.CONTROL, CTRL_BACK)
    assert len(loops) == 5
    # each loop has exactly one back-edge into its header (do: from the do node to the body start)
    targets = sorted(e.dst if g.nodes[e.dst].kind != "expression_statement" else e.src for e in back)
    assert targets == loops
    depth = {g.text(i): g.nodes[i].loop_depth for i, n in enumerate(g.nodes) if n.kind == "expression_statement"}
    assert depth["acc++;"] == 2 and depth["acc += i;"] == 1 and depth["out[0] = acc;"] == 0


HELPERS = """float sq(float v) { return v * v; }
float twice_sq(float v) { return 2.0f * sq(v); }
__kernel void use(__global const float* x, __global float* y) {
    int i = get_global_id(0);
    y[i] = twice_sq(x[i]) + sq(x[i]);
}
"""


def test_helpers_included_once_with_call_edges():
    g = _graph(HELPERS)
    assert g.helpers == ["twice_sq", "sq"]
    funcs = [n.token for n in g.nodes if n.kind == "function_definition"]
    assert funcs == ["kernel", "fn0", "fn1"]
    invoke = sorted(g.nodes[e.dst].token for e in g.edges_of(Flow.CALL, 0) if g.nodes[e.dst].kind == "function_definition")
    assert invoke == ["fn0", "fn1", "fn1"]
    assert len(g.edges_of(Flow.CALL, 1)) == 3  # each helper's return statement -> each of its call sites
    # arguments flow into the callee's parameter VARIABLE nodes
    params = [e for e in g.edges_of(Flow.DATA, DATA_VALUE) if g.nodes[e.dst].type == NodeType.VARIABLE]
    assert sorted(g.text(e.src) for e in params) == ["v", "x[i]", "x[i]"]


def test_cuda_shared_memory_and_builtin_variables():
    src = """__global__ void r(const float* in, float* out) {
    __shared__ float tile[256];
    unsigned int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t == 0) atomicAdd(&out[0], tile[0]);
}
"""
    g = _graph(src, "cuda")
    bufs = {n.token: (n.address_space, n.dtype) for n in g.nodes if n.type == NodeType.BUFFER}
    assert bufs == {"buf0": ("global", "float"), "buf1": ("global", "float"), "buf2": ("local", "float")}
    builtins = sorted(n.token for n in g.nodes if n.type == NodeType.BUILTIN)
    assert builtins == ["__syncthreads", "atomicAdd", "blockDim", "blockIdx", "threadIdx"]
    writes = sorted(g.text(e.src) for e in g.edges_of(Flow.DATA, DATA_WRITE))
    assert writes == ["atomicAdd(&out[0], tile[0])", "tile[t] = in[blockIdx.x * blockDim.x + t]"]


def test_macro_constants_and_aliasing_pointer():
    src = """#define TILE 16
__kernel void k(__global float* a, int n) {
    __global float* row = a + get_global_id(0) * n;
    for (int i = 0; i < TILE; i++) row[i] = 0.0f;
}
"""
    g = _graph(src)
    consts = [(n.token, n.kind) for n in g.nodes if n.type == NodeType.CONSTANT]
    assert consts == [("int:pow2", "CONSTANT")]
    assert sum(n.type == NodeType.BUFFER for n in g.nodes) == 1  # row aliases a
    assert [g.text(e.src) for e in g.edges_of(Flow.DATA, DATA_WRITE)] == ["row[i] = 0.0f"]


@pytest.mark.parametrize("bad", ["", "\x00\x01binary"])
def test_from_source_rejects_bad_input(bad):
    from kgraph.errors import InputError
    with pytest.raises(InputError):
        kgraph.from_source(bad, "opencl")


def test_from_source_syntax_error_is_source_error():
    from kgraph.errors import SourceError
    with pytest.raises(SourceError) as err:
        kgraph.from_source("__kernel void k(__global float* a) { a[0] = ; }\n", "opencl", filename="x.cl")
    assert str(err.value).startswith("x.cl:1:")


def test_every_shipped_example_builds_with_data_and_control_edges():
    from kgraph.app.demo import EXAMPLES, example_files

    files = example_files(EXAMPLES)
    assert len(files) >= 20
    for path in files:
        graphs = kgraph.from_file(path, analyze=False)
        assert graphs, path
        for g in graphs:
            counts = g.edge_counts()
            assert counts["DATA"] > 0 and counts["CONTROL"] > 0, (path, g.name)
            assert counts["AST"] == sum(1 for n in g.nodes if n.span is not None and n.type not in (
                NodeType.VARIABLE, NodeType.BUFFER)) - 1 - len(g.helpers), (path, g.name)


def test_derived_is_made_once_per_graph_and_shared_by_a_shallow_copy():
    import copy

    import kgraph

    graph = kgraph.from_source("__kernel void k(__global float* x, int n) { x[get_global_id(0)] = n; }", "opencl")[0]
    calls = []
    assert graph.derived("t", lambda: calls.append(1) or len(calls)) == 1
    assert graph.derived("t", lambda: calls.append(1) or len(calls)) == 1 and calls == [1]
    assert copy.copy(graph).derived("t", lambda: 2) == 1  # a kernel at given branch shares is a shallow copy
    assert graph.derived("u", lambda: "other") == "other"
    assert graph.derived("v", max, 3, 7) == 7  # make(*args): a plain function, no closure per call
