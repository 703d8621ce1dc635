"""Code-LM vectors per kernel and per graph node (issue 11): ``kgraph lm embed`` files, their use by the
DataModule (CPU and resident batches) and the graph encoder, and the predictor computing the same vectors for
a new kernel. A tiny random LM stands in for the pretrained one (what is tested is the plumbing)."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kgraph.data.lm_corpus.tokenizer import load_tokenizer
from kgraph.data.lm_features import LMFeatures, attach
from kgraph.errors import InputError, ModelError
from kgraph.models.code_lm.config import PRESETS
from kgraph.models.code_lm.model import build_model, is_code_lm, save

REPO = Path(__file__).resolve().parents[1]
TOKENIZER = REPO / "models" / "code_lm" / "weights" / "tokenizer.json"
TWO_KERNELS = """// two kernels in one unit: one LM pass serves both
float twice(float v) { return 2.0f * v; }
__kernel void scale(__global float *y, __global const float *x, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = twice(x[i]);
}
__kernel void add(__global float *y, __global const float *x) {
    y[get_global_id(0)] += x[get_global_id(0)];
}
"""


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny_lm")
    save(build_model(PRESETS["tiny"], load_tokenizer(TOKENIZER), seed=0), TOKENIZER, folder, "int8")
    return folder


def test_vectors_line_up_with_graph_nodes_and_spans(tiny_lm):
    import kgraph
    from kgraph.models.code_lm.embed import token_states
    from kgraph.models.code_lm.graph_features import embed_rows, load_lm

    rows = [("s1:scale", TWO_KERNELS, "opencl", "scale"), ("s1:add", TWO_KERNELS, "opencl", "add"),
            ("s2:bad", "__kernel void bad(", "opencl", "bad")]
    feats = embed_rows(rows, tiny_lm, "cpu", jobs=1, log=lambda *_: None)
    assert feats.keys == ["s1:scale", "s1:add"]  # the kernel that does not parse is skipped
    assert is_code_lm(tiny_lm) and not is_code_lm(REPO / "models" / "lm")
    graphs = {g.name: g for g in kgraph.from_source(TWO_KERNELS, "opencl", filename="two.cl", analyze=False)}
    model, tok = load_lm(tiny_lm)
    pooled, states, offsets = token_states(model, tok, TWO_KERNELS)
    for i, name in enumerate(("scale", "add")):
        p, nodes = feats.of(i)
        cols = graphs[name].columns
        assert nodes.shape == (len(cols.type), PRESETS["tiny"].hidden)
        assert torch.allclose(p, pooled, atol=2e-3)  # half precision in the file
        # a node whose span is one token has exactly that token's state
        for j, (s, e) in enumerate(zip(cols.start, cols.end)):
            inside = ((offsets[:, 0] < e) & (offsets[:, 1] > s)).nonzero().flatten()
            if s >= 0 and inside.numel() == 1:
                assert torch.allclose(nodes[j], states[inside[0]], atol=2e-3), (name, j)
                break
        else:
            pytest.fail(f"{name}: no single-token node")
    # two kernels of one unit share the pooled vector but not their node sets
    assert feats.offsets.tolist()[1] != feats.offsets.tolist()[2] - feats.offsets.tolist()[1]


def test_file_round_trip_and_bad_files(tiny_lm, tmp_path):
    feats = LMFeatures(["a:k"], torch.ones(1, 4), torch.tensor([0, 3]), torch.arange(12.).reshape(3, 4), "f")
    back = LMFeatures.from_file(feats.to_file(tmp_path / "f.pt"))
    assert back.keys == ["a:k"] and torch.equal(back.nodes.float(), feats.nodes) and back.dim == 4
    with pytest.raises(InputError, match="no LM feature file"):
        LMFeatures.from_file(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(InputError, match="not an LM feature file"):
        LMFeatures.from_file(tmp_path / "junk.pt")

    class Item:  # a graph Data's fields that attach() reads
        def __init__(self, key, n):
            self.key, self.num_nodes = key, n

    item = Item("a:k", 3)
    attach([item], back)
    assert item.lm.shape == (3, 4) and item.lm_pooled.shape == (1, 4)
    with pytest.raises(InputError, match="3 LM node vectors"):
        attach([Item("a:k", 5)], back)
    with pytest.raises(InputError, match="has no LM features"):
        attach([Item("b:k", 3)], back)


def test_datamodule_batches_carry_the_vectors_on_both_paths(tiny_lm, tmp_path):
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.models.code_lm.graph_features import dataset_rows, embed_rows
    from kgraph.models.graph_encoder import GraphEncoder, GraphEncoderConfig

    datasets = [str(REPO / "data" / "datasets" / "ci-tiny")]
    rows = dataset_rows(datasets)[:6]
    path = embed_rows(rows, tiny_lm, "cpu", jobs=1, log=lambda *_: None).to_file(tmp_path / "lm.pt")
    dm = KGraphDataModule(datasets=datasets, cache_dir=str(tmp_path / "cache"), split="random",
                          lm_features=str(path), batch_size=8)
    with pytest.raises(InputError, match="has no LM features"):  # the file covers 6 of the kernels only
        dm.setup("fit")
    path = embed_rows(dataset_rows(datasets), tiny_lm, "cpu", jobs=1, log=lambda *_: None).to_file(path)
    dm = KGraphDataModule(datasets=datasets, cache_dir=str(tmp_path / "cache"), split="random",
                          lm_features=str(path), batch_size=8)
    dm.setup("fit")
    rows = [int(r) for r in dm.splits["train"][:8]]
    cpu = dm.collate(rows)
    dm.resident = True
    resident = dm._resident_loader("train", shuffle=False).batch(torch.tensor(rows))
    assert torch.equal(cpu.graphs.lm, resident.graphs.lm) and torch.equal(cpu.graphs.lm_pooled, resident.graphs.lm_pooled)
    assert cpu.graphs.lm.shape == (cpu.graphs.x.shape[0], 32) and cpu.graphs.lm_pooled.shape[0] == cpu.graphs.num_graphs
    enc = GraphEncoder(GraphEncoderConfig(hidden=8, layers=1, lm_dim=32))
    g = resident.graphs
    _, vec = enc(g.x, g.edge_index, g.edge_type, g.edge_pos, g.batch, g.num_graphs, g.lm, g.lm_pooled)
    assert vec.shape == (g.num_graphs, 16) and enc.out_dim == 16
    with pytest.raises(ModelError, match="--data.lm_features"):
        enc(g.x, g.edge_index, g.edge_type, g.edge_pos, g.batch, g.num_graphs)
    with pytest.raises(ModelError, match="lm_dim=32"):
        enc(g.x, g.edge_index, g.edge_type, g.edge_pos, g.batch, g.num_graphs, g.lm[:, :16], g.lm_pooled[:, :16])


def test_predictor_computes_the_vectors_training_used(tiny_lm):
    """The shipped path (a model directory's own LM copy, vectors made per request) gives a new kernel the
    vectors `kgraph lm embed` gave it for training."""
    import kgraph
    from kgraph.models.code_lm.graph_features import embed_rows, load_lm
    from kgraph.models.predictor import Predictor

    feats = embed_rows([("s1:scale", TWO_KERNELS, "opencl", "scale")], tiny_lm, "cpu", jobs=1, log=lambda *_: None)
    graph = next(g for g in kgraph.from_source(TWO_KERNELS, "opencl", filename="two.cl", analyze=False) if g.name == "scale")

    class Kernel:
        pass

    k = Kernel()
    k.graph = graph
    predictor = Predictor.__new__(Predictor)
    predictor.code_lm = load_lm(tiny_lm)
    pooled, nodes = predictor.lm_vectors([k])
    p, n = feats.of(0)
    assert torch.allclose(pooled[0], p, atol=2e-3) and torch.allclose(nodes, n, atol=2e-3)
