"""kgraph.models.export.verify: C and ONNX checked on every registered kernel x device."""
import shutil

import pytest
import torch

from kgraph.models.compact import CompactConfig, CompactHead, to_checkpoint
from kgraph.models.export import to_c, to_onnx
from kgraph.models.export.verify import main, probe_rows


def _bundle(tmp_path):
    torch.manual_seed(0)
    head = CompactHead(CompactConfig(4, ["a", "b"], ["h0", "h1", "h2"], "tiny")).eval()
    head.set_normalization(torch.randn(50, head.config.in_dim) * 30 + 5, torch.randn(50, 5) * 3 + 12)
    table = {"k2": torch.randn(4), "k1": torch.randn(4)}
    devices = {"gpu": torch.tensor([1.0, 2.0, 3.0]), "cpu": torch.tensor([0.5, 0.0, 7.0])}
    return head, table, devices, to_checkpoint(head, tmp_path / "c.pt", table, devices)


def test_probe_rows_cover_every_kernel_and_device(tmp_path):
    from kgraph.models.compact import from_checkpoint

    *_, ckpt = _bundle(tmp_path)
    kernels, devs, launch, x = probe_rows(from_checkpoint(ckpt), rows=3)
    assert len(kernels) == 4  # 2 kernels x 2 devices > 3 rows asked
    assert sorted(zip(kernels, devs)) == [("k1", 0), ("k1", 1), ("k2", 0), ("k2", 1)]
    assert x.shape == (4, 4 + 2 + 3) and torch.equal(x[:, 4:6], launch)
    vectors = {0: [1.0, 2.0, 3.0], 1: [0.5, 0.0, 7.0]}  # device index = insertion order (gpu, cpu)
    assert [x[i, -3:].tolist() for i in range(4)] == [vectors[d] for d in devs]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_verify_passes_on_a_faithful_export(tmp_path):
    head, table, devices, ckpt = _bundle(tmp_path)
    to_c(head, tmp_path / "c", table, devices)
    to_onnx(head, tmp_path / "m.onnx")
    assert main(["--ckpt", str(ckpt), "--c-dir", str(tmp_path / "c"), "--onnx", str(tmp_path / "m.onnx"),
                 "--rows", "64"]) == 0
    # a head with other weights than the exported C must fail the check
    with torch.no_grad():
        head.layers[0].bias.add_(1.0)
    ckpt2 = to_checkpoint(head, tmp_path / "d.pt", table, devices)
    assert main(["--ckpt", str(ckpt2), "--c-dir", str(tmp_path / "c"), "--rows", "64"]) == 1


def test_export_defaults_to_the_shipped_base_head(tmp_path):
    from kgraph.models.shipped import COMPACT_CKPT as DEFAULT_CKPT
    from kgraph.app.cli.main import main as cli
    from kgraph.models.compact import from_checkpoint

    bundle = from_checkpoint(DEFAULT_CKPT)
    assert bundle.head.config.size == "base" and bundle.head.config.hidden == [64, 64]
    # v2 head (2026-11-22) adds the H100; indices 0 and 1 (used by the StarPU runs) are unchanged
    assert list(bundle.devices) == ["nvidia-h200", "pocl-skylake-avx512-intel-xeon", "nvidia-h100"]
    assert len(bundle.code_table) == 417 and "tile_gemm" in bundle.code_table
    assert cli(["export", "--format", "onnx", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "kgraph_model.onnx").is_file()
