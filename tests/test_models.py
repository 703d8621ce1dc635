"""Model tests on hand-built PyG batches: shapes per encoder/ablation, loss masking, learning."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from kgraph.data.features import BOUND_CLASSES, REGRESSION_TARGETS
from kgraph.models.fusion import FusionConfig
from kgraph.models.graph_encoder import GraphEncoder, GraphEncoderConfig
from kgraph.models.heads import HeadConfig, MultiTaskHead
from kgraph.models.kgraph_model import KGraphModel, ModelConfig
from kgraph.models.metrics import ape, spearman, summarize
from kgraph.models.token_encoder import TokenEncoderConfig

@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory):
    """A 1-layer code LM pretrained for 3 steps on two kernels (tokenizer + encoder, saved locally)."""
    from kgraph.models.lm_pretrain import LMConfig, pretrain

    out = tmp_path_factory.mktemp("lm")
    texts = ["__kernel void add(__global float* a, __global const float* b, int n)"
             "{int i = get_global_id(0); if (i < n) a[i] += b[i];}",
             "__kernel void scale(__global float* x, float s){x[get_global_id(0)] *= s;}"] * 4
    stats = pretrain(texts, out, LMConfig(vocab_size=300, hidden=32, layers=1, heads=2, max_length=64,
                                          steps=3, batch_size=2))
    assert stats["windows"] == 8.0
    return out


NODE_SIZES, FLOWS, POSITIONS = [6, 20, 5, 4, 3], 4, 8
FEATURES = ["hw_a", "hw_b", "launch_x", "launch_y", "static_c"]


def small_graph(n: int, seed: int) -> Data:
    g = torch.Generator().manual_seed(seed)
    x = torch.stack([torch.randint(0, s + 3, (n,), generator=g) for s in NODE_SIZES], 1)  # some ids out of range
    src = torch.arange(n - 1)
    return Data(x=x, edge_index=torch.stack([src, src + 1]), edge_type=torch.randint(0, FLOWS, (n - 1,), generator=g),
                edge_pos=torch.randint(0, 20, (n - 1,), generator=g), num_nodes=n)


def graph_config(layer: str = "gine") -> GraphEncoderConfig:
    return GraphEncoderConfig(layer=layer, hidden=16, layers=2, heads=2, node_vocab_sizes=NODE_SIZES,
                              num_edge_types=FLOWS, num_edge_positions=POSITIONS)


@pytest.mark.parametrize("layer", ["gine", "gatv2", "rgcn"])
@pytest.mark.parametrize("pooling", ["attention", "set", "mean"])
def test_graph_encoder_shapes(layer, pooling):
    torch.manual_seed(0)
    cfg = graph_config(layer)
    cfg.pooling = pooling
    enc = GraphEncoder(cfg)
    batch = Batch.from_data_list([small_graph(5, 0), small_graph(7, 1), small_graph(3, 2)])
    nodes, pooled = enc(batch.x, batch.edge_index, batch.edge_type, batch.edge_pos, batch.batch, 3)
    assert nodes.shape == (15, 16) and pooled.shape == (3, 16)
    assert torch.isfinite(pooled).all()
    # graphs are encoded independently: the second graph alone gives the same vector
    enc.eval()
    _, alone = enc(*(getattr(small_graph(7, 1), k) for k in ("x", "edge_index", "edge_type", "edge_pos")),
                   torch.zeros(7, dtype=torch.long), 1)
    _, together = enc(batch.x, batch.edge_index, batch.edge_type, batch.edge_pos, batch.batch, 3)
    assert torch.allclose(alone[0], together[1], atol=1e-5)


def make_model(use_graph=True, use_tokens=False, use_hardware=True, use_static=True, fusion="concat",
               lm_path=None) -> KGraphModel:
    torch.manual_seed(0)
    cfg = ModelConfig(graph=graph_config(), fusion=FusionConfig(kind=fusion, hidden=16, heads=2, dropout=0.0),
                      head=HeadConfig(hidden=16), use_graph=use_graph, use_tokens=use_tokens,
                      use_hardware=use_hardware, use_static_counts=use_static)
    cfg.launch.hidden, cfg.launch.dropout = 16, 0.0
    if lm_path:
        cfg.tokens = TokenEncoderConfig(path=str(lm_path), freeze=False, max_length=64)
    return KGraphModel(cfg, FEATURES)


def inputs(batch_size: int = 4):
    graphs = Batch.from_data_list([small_graph(5, 0), small_graph(6, 1)])
    source_index = torch.tensor([0, 1, 1, 0])[:batch_size]
    features = torch.arange(batch_size * 5, dtype=torch.float).reshape(batch_size, 5) / 10
    return graphs, source_index, features


@pytest.mark.parametrize("fusion", ["concat", "gated", "cross_attention"])
@pytest.mark.parametrize("variant", [(True, True), (False, True), (True, False), (False, False)])
def test_model_ablations_shapes(variant, fusion, tiny_lm):
    use_graph, use_tokens = variant
    if fusion == "cross_attention" and not (use_graph or use_tokens):
        pytest.skip("cross-attention needs a code encoder")
    model = make_model(use_graph, use_tokens, fusion=fusion, lm_path=tiny_lm)
    graphs, source_index, features = inputs()
    tokens = tiny_lm_tokens(tiny_lm) if use_tokens else None
    pred = model(graphs if use_graph else None, tokens, source_index, features)
    assert pred._fields == tuple(f"log_{t}" for t in REGRESSION_TARGETS) + ("bound_logits",)
    assert pred.regression().shape == (4, len(REGRESSION_TARGETS))
    assert pred.bound_logits.shape == (4, len(BOUND_CLASSES))
    expected = (16 if use_graph else 0) + (32 if use_tokens else 0)
    assert model.code_dim == expected
    if expected:
        assert model.encode_code(graphs if use_graph else None, tokens).shape == (2, expected)


def tiny_lm_tokens(path):
    from kgraph.data.graph_dataset import load_tokenizer

    tok = load_tokenizer(str(path))
    enc = tok(["__kernel void a(int n){}", "__kernel void b(__global float* x){x[0]=1.0f;}"],
              return_tensors="pt", padding=True)
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}


def test_hardware_and_static_switches_select_columns():
    assert make_model().launch_encoder.keep.tolist() == [0, 1, 2, 3, 4]
    assert make_model(use_hardware=False).launch_encoder.keep.tolist() == [2, 3, 4]
    assert make_model(use_static=False).launch_encoder.keep.tolist() == [0, 1, 2, 3]
    # no-hardware model ignores the hw_ columns entirely
    model = make_model(use_hardware=False).eval()
    graphs, idx, feats = inputs()
    changed = feats.clone()
    changed[:, :2] += 100.0
    assert torch.equal(model(graphs, None, idx, feats).log_time, model(graphs, None, idx, changed).log_time)


def test_head_loss_masks_unknown_targets():
    head = MultiTaskHead(HeadConfig(hidden=4, weights={"time": 2.0}), in_dim=3)
    head.set_statistics(torch.zeros(5), torch.full((5,), 2.0))
    pred = head(torch.zeros(2, 3))
    targets = pred.regression().detach().clone()
    targets[0, 0] += 2.0  # one standard deviation off on the time of launch 0
    targets[:, 2] = float("nan")  # footprint unknown everywhere
    bound = torch.tensor([-1, -1])
    losses = head.task_losses(pred, targets, bound)
    assert losses.shape == (6,)
    assert losses[0].item() == pytest.approx(0.5)  # (1^2 + 0^2) / 2
    assert losses[1:].abs().sum().item() == pytest.approx(0.0)
    assert head.combine(losses).item() == pytest.approx(1.0)  # time weight 2


def test_uncertainty_weighting_is_learnable():
    head = MultiTaskHead(HeadConfig(hidden=4, weighting="uncertainty", weights={}), in_dim=3)
    assert head.log_vars.requires_grad
    losses = torch.tensor([1.0, 2.0, 0.0, 0.0, 0.0, 0.5])
    assert head.combine(losses).item() == pytest.approx(3.5)  # exp(0) * sum + 0


def test_training_steps_lower_the_loss():
    model = make_model()
    graphs, idx, feats = inputs()
    targets = torch.tensor([[10.0, 8.0, 12.0, 9.0, 11.0], [12.0, 7.0, 13.0, 10.0, 12.0],
                            [12.5, 7.5, 13.0, 10.0, 12.0], [10.5, 8.0, float("nan"), 9.0, 11.0]])
    bound = torch.tensor([0, 1, 1, -1])
    model.head.set_statistics(torch.full((5,), 10.0), torch.full((5,), 2.0))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = None
    for _ in range(30):
        pred = model(graphs, None, idx, feats)
        loss = model.head.combine(model.head.task_losses(pred, targets, bound))
        first = float(loss) if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(loss) < 0.2 * first


def test_metrics_exact_values():
    assert ape(torch.tensor([110.0, 50.0]).numpy(), torch.tensor([100.0, 100.0]).numpy()).tolist() == \
        pytest.approx([0.1, 0.5])
    # a prediction that overflowed (or is NaN) for a known truth is an infinite error, not a dropped launch;
    # an unknown truth is left out
    e = ape(np.array([110.0, np.inf, np.nan, 5.0]), np.array([100.0, 100.0, 100.0, np.nan]))
    assert e[0] == pytest.approx(0.1) and len(e) == 3 and np.isinf(e[1:]).all()
    assert spearman(torch.tensor([1.0, 2.0, 3.0, 4.0]).numpy(), torch.tensor([10.0, 20.0, 40.0, 30.0]).numpy()) \
        == pytest.approx(0.8)
    true = torch.log(torch.tensor([[100.0], [200.0], [400.0], [800.0]])).repeat(1, 5).numpy()
    pred = true.copy()
    pred[:, 0] = torch.log(torch.tensor([105.0, 240.0, 400.0, 400.0])).numpy()  # APE 5%, 20%, 0%, 50%
    m = summarize(pred, true, torch.tensor([0, 1, 2, 0]).numpy(), torch.tensor([0, 1, 1, -1]).numpy())
    assert m["time_mape"] == pytest.approx(18.75)
    assert m["time_median_ape"] == pytest.approx(12.5)
    assert m["time_within_10"] == pytest.approx(0.5) and m["time_within_25"] == pytest.approx(0.75)
    assert m["bound_acc"] == pytest.approx(2 / 3)
    assert m["footprint_mape"] == pytest.approx(0.0, abs=1e-4)
    assert math.isclose(m["time_spearman"], 0.9486832980505138, rel_tol=1e-6)


def test_token_encoder_refuses_a_max_length_beyond_its_positions(tiny_lm):
    """The LM above reads 64 tokens: asking for 512 is a config error named by its option, not an
    index error deep inside the transformer at the first long source."""
    from kgraph.errors import ModelError
    from kgraph.models.token_encoder import TokenEncoder

    with pytest.raises(ModelError, match=r"model.arch.tokens.max_length=512 .* \(64 tokens\)"):
        TokenEncoder(TokenEncoderConfig(path=str(tiny_lm), max_length=512))
    assert TokenEncoder(TokenEncoderConfig(path=str(tiny_lm), max_length=64)).out_dim == 32


def test_concat_fusion_gathered_equals_concatenated():
    """The code's share of the first fusion layer applied once per source, then gathered, is the concat
    fusion of the gathered vectors (what KGraphModel.forward relies on)."""
    import torch

    from kgraph.models.fusion import Fusion, FusionConfig

    torch.manual_seed(0)
    fusion = Fusion(FusionConfig(kind="concat", hidden=32), 16, [8, 12]).eval()
    launch, index = torch.randn(50, 16), torch.randint(0, 3, (50,))
    vectors = [torch.randn(3, 8), torch.randn(3, 12)]
    with torch.no_grad():
        want = fusion(launch, [v.index_select(0, index) for v in vectors])
        got = fusion.forward_gathered(launch, vectors, index)
        static_only = Fusion(FusionConfig(kind="concat", hidden=32), 16, []).eval()  # no code encoder
        alone, plain = static_only.forward_gathered(launch, [], index), static_only(launch, [])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(alone, plain, rtol=1e-5, atol=1e-6)
