"""Export of the compact head: ONNX (onnxruntime) and C (gcc) against torch."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
import torch

from kgraph.models.compact import CompactConfig, CompactHead, from_checkpoint, to_checkpoint
from kgraph.models.export import check_onnx, to_c, to_onnx
from kgraph.models.export.c_driver import bench_c, build_driver, predict_c
from kgraph.parsers.errors import ModelError

LAUNCH = ["log_n", "log_global", "log_local"]
DEVICE = ["log_cu", "log_bw", "log_gflops"]


def make_head(size="small", code_dim=8, seed=0):
    torch.manual_seed(seed)
    head = CompactHead(CompactConfig(code_dim=code_dim, launch_names=LAUNCH, device_names=DEVICE, size=size))
    x = torch.randn(64, head.config.in_dim) * 3 + 5
    y = torch.randn(64, 5) * 2 + 10
    head.set_normalization(x, y)
    head.eval()
    return head


def rows(head, n=16, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, head.config.in_dim, generator=g) * 3 + 5


def test_folded_layers_match_forward():
    head = make_head()
    x = rows(head)
    h = x
    layers = head.folded_layers()
    for i, (w, b) in enumerate(layers):
        h = h @ w.T + b
        if i < len(layers) - 1:
            h = torch.relu(h)
    t, c = head(x)
    assert torch.allclose(h[:, :5], t, atol=1e-4) and torch.allclose(h[:, 5:], c, atol=1e-4)


@pytest.mark.parametrize("size", ["tiny", "large"])
def test_onnx_matches_torch(tmp_path, size):
    head = make_head(size)
    path = to_onnx(head, tmp_path / "m.onnx")
    err = check_onnx(head, path, rows(head, 37))  # batch 37: the batch axis is dynamic
    assert err <= 1e-5


def test_onnx_check_raises_on_mismatch(tmp_path):
    head = make_head()
    path = to_onnx(head, tmp_path / "m.onnx")
    with torch.no_grad():
        head.layers[-1].bias += 1.0
    with pytest.raises(ModelError, match="log outputs differ from torch"):
        check_onnx(head, path, rows(head))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("size", ["tiny", "base"])
def test_c_matches_torch(tmp_path, size):
    head = make_head(size)
    g = torch.Generator().manual_seed(3)
    table = {name: torch.randn(8, generator=g) for name in ["sgemm", "axpy", "reduce"]}
    devices = {"pocl-cpu": torch.tensor([1.0, 3.0, 5.0]), "h200": torch.tensor([4.9, 8.4, 10.9])}
    to_c(head, tmp_path, table, devices)
    driver = build_driver(tmp_path)
    kernels = ["sgemm", "axpy", "reduce", "axpy"]
    devs = [0, 1, 1, 0]
    launch = np.array([[10.0, 12.0, 6.0], [20.0, 20.0, 8.0], [3.0, 5.0, 2.0], [15.5, 15.0, 7.0]])
    got = predict_c(driver, kernels, devs, launch)
    dev_rows = list(devices.values())
    x = torch.stack([torch.cat([table[k], torch.tensor(l, dtype=torch.float32), dev_rows[d]])
                     for k, d, l in zip(kernels, devs, launch)])
    with torch.no_grad():
        t, c = head(x)
    assert (got[:, 0] == 0).all()
    np.testing.assert_allclose(got[:, 2:7], t.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[:, 1], np.exp(t[:, 0].double().numpy()) * 1e-3, rtol=1e-4)
    np.testing.assert_array_equal(got[:, 7], c.argmax(-1).numpy())
    np.testing.assert_allclose(got[:, 8:11], torch.softmax(c, -1).numpy(), rtol=1e-4, atol=1e-6)
    # unknown kernel and bad device index are error codes, not crashes
    bad = predict_c(driver, ["nope", "axpy"], [0, 5], launch[:2])
    assert bad[:, 0].tolist() == [-1.0, -2.0]
    ns = bench_c(driver, "sgemm", 0, launch[0], calls=20_000)
    assert 0 < ns < 1e5


def test_checkpoint_round_trip(tmp_path):
    head = make_head()
    table = {"k": torch.ones(8)}
    path = to_checkpoint(head, tmp_path / "c.pt", table, {"dev": torch.zeros(3)}, {"mae": 0.5})
    bundle = from_checkpoint(path)
    x = rows(head)
    assert torch.equal(bundle.head(x)[0], head(x)[0])
    assert bundle.metrics == {"mae": 0.5} and list(bundle.code_table) == ["k"]
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ModelError, match="not a readable torch checkpoint"):
        from_checkpoint(tmp_path / "junk.pt")
    with pytest.raises(ModelError, match="no such checkpoint"):
        from_checkpoint(tmp_path / "missing.pt")


def test_fit_compact_learns_a_linear_law():
    from kgraph.models.compact import fit_compact
    torch.manual_seed(0)
    head = CompactHead(CompactConfig(code_dim=2, launch_names=LAUNCH, device_names=DEVICE, size="small"))
    x = torch.rand(512, head.config.in_dim) * 10
    y = torch.stack([x[:, 2] * 1.0 + x[:, 5] * 0.5 + 3.0] * 5, dim=1)
    y[::7, 2] = math.nan  # missing footprints are skipped, not learned as zeros
    losses = fit_compact(head, x, y, epochs=60, lr=1e-2)
    assert losses[-1] < 0.05 * losses[0]
    with torch.no_grad():
        pred, _ = head(x)
    assert float((pred[:, 0] - y[:, 0]).abs().mean()) < 0.3


def test_cli_export_onnx_and_c(tmp_path, capsys):
    from kgraph.app.cli.main import main
    head = make_head("tiny")
    ckpt = to_checkpoint(head, tmp_path / "c.pt", {"k": torch.ones(8)}, {"dev": torch.zeros(3)})
    assert main(["export", "--ckpt", str(ckpt), "--format", "onnx", "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "kgraph_model.onnx").is_file()
    assert main(["export", "--ckpt", str(ckpt), "--format", "c", "--out", str(tmp_path / "c")]) == 0
    assert "KGRAPH_N_KERNELS 1" in (tmp_path / "c" / "kgraph_model.h").read_text()
    assert main(["export", "--ckpt", str(tmp_path / "nope.pt"), "--format", "c", "--out", str(tmp_path)]) == 1
    assert "no such checkpoint file" in capsys.readouterr().err
    (tmp_path / "k.txt").write_text("x")
    assert main(["export", "--ckpt", str(ckpt), "--format", "c", "--out", str(tmp_path / "c"),
                 "--kernels", str(tmp_path / "k.txt")]) == 2
    assert "--kernels" in capsys.readouterr().err
