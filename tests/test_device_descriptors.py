"""One descriptor per device (kgraph.data.device_descriptors): merged the same way in training, in the
baselines and in an exported model."""
from __future__ import annotations

import copy
import json
from dataclasses import asdict

import pytest
import torch

from kgraph.data.device_descriptors import merge_descriptors, read_descriptors
from tests.test_datamodule import device, write_dataset


def _measured(device_id: str, copy_bw: float, fp32: float, **extra) -> dict:
    d = device(device_id, gpu=False)
    d["roofline"].update(copy_bw_gbs=copy_bw, fp32_gflops=fp32, **extra)
    return d


def test_a_device_measured_three_times_gets_the_median_of_each_peak():
    a, b, c = _measured("x", 101.7, 706.0), _measured("x", 78.2, 709.0), _measured("x", 75.8, 568.0, llc_bytes=9.0)
    a["name"] = "first"
    before = copy.deepcopy([a, b, c])
    merged = merge_descriptors([a, b, c, _measured("y", 10.0, 90.0)])
    assert sorted(merged) == ["x", "y"]
    r = merged["x"]["roofline"]
    assert (r["copy_bw_gbs"], r["fp32_gflops"], r["llc_bytes"]) == (78.2, 706.0, 9.0)
    assert merged["x"]["name"] == "first" and merged["y"]["roofline"]["copy_bw_gbs"] == 10.0
    assert [a, b, c] == before  # the callers' descriptors are not changed


def test_a_newer_roofline_method_supersedes_older_measurements():
    old_a, old_b = _measured("x", 100.0, 700.0), _measured("x", 80.0, 560.0)
    new = {**_measured("x", 90.0, 1500.0), "roofline_method": 2}
    merged = merge_descriptors([old_a, old_b, new])["x"]
    assert merged["roofline"]["fp32_gflops"] == 1500.0 and merged["roofline_method"] == 2
    assert merge_descriptors([old_a, old_b])["x"]["roofline"]["fp32_gflops"] == 630.0


def test_datamodule_features_and_checkpoint_state_use_the_merged_descriptor(tmp_path):
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.data.features import feature_names, hardware_feature_names
    from kgraph.data.harness.descriptor import to_feature_vector

    one = write_dataset(tmp_path / "a", "cpu-b", gpu=False)
    two = write_dataset(tmp_path / "b", "cpu-b", gpu=False)
    desc = _measured("cpu-b", 30.0, 100.0)
    (two / "device.json").write_text(json.dumps(desc))
    dm = KGraphDataModule(datasets=[str(one), str(two)], cache_dir=str(tmp_path / "cache"), batch_size=8)
    dm.setup("fit")
    merged = read_descriptors([one, two])["cpu-b"]
    assert merged["roofline"]["copy_bw_gbs"] == pytest.approx(40.0)  # median (mean) of 50 and 30
    assert dm.devices == {"cpu-b": merged} and dm.state_dict() == {"devices": dm.devices}
    # every row of both datasets is described by the merged numbers
    names = feature_names()
    hw = [names.index(n) for n in hardware_feature_names()]
    expected = torch.tensor(to_feature_vector(merged), dtype=dm.features.dtype)
    assert torch.allclose(dm.features[:, hw], expected.expand(len(dm.features), -1))


def test_exported_model_describes_each_device_as_its_checkpoint_recorded(tmp_path):
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import ModelConfig
    from kgraph.models.lightning_module import KGraphLightningModule
    from kgraph.models.predictor import from_checkpoint
    from tests.conftest import ROOT

    arch = ModelConfig(use_tokens=False)
    arch.graph.hidden, arch.launch.hidden, arch.fusion.hidden, arch.head.hidden = 16, 16, 32, 16
    module = KGraphLightningModule(arch, feature_names=feature_names())
    tiny = ROOT / "data/datasets/ci-tiny"
    recorded = _measured("pocl-amd-epyc", 12.5, 99.0)
    blob = {"state_dict": module.state_dict(), "global_step": 0,
            "hyper_parameters": {"arch": asdict(arch), "feature_names": feature_names()},
            "datamodule_hyper_parameters": {"datasets": [str(tiny)]}}
    torch.save(blob, tmp_path / "old.ckpt")
    torch.save({**blob, "KGraphDataModule": {"devices": {"pocl-amd-epyc": recorded}}}, tmp_path / "new.ckpt")
    old = json.loads((from_checkpoint(tmp_path / "old.ckpt", tmp_path / "old") / "config.json").read_text())
    new = json.loads((from_checkpoint(tmp_path / "new.ckpt", tmp_path / "new") / "config.json").read_text())
    assert old["devices"] == read_descriptors([tiny])  # a checkpoint from before: its datasets' descriptors
    # before the descriptors were recorded, training kept each device's last dataset's descriptor
    two = tmp_path / "two"
    two.mkdir()
    # (a campaign merged into that folder later is not what the old DataModule read)
    (two / "device.json").write_text(json.dumps({**recorded, "campaign_rooflines": [{"copy_bw_gbs": 1.0}]}))
    blob["datamodule_hyper_parameters"]["datasets"] = [str(tiny), str(two)]
    torch.save(blob, tmp_path / "old2.ckpt")
    old2 = json.loads((from_checkpoint(tmp_path / "old2.ckpt", tmp_path / "old2", [str(tiny)]) / "config.json")
                      .read_text())
    assert old2["devices"] == {"pocl-amd-epyc": recorded}
    assert new["devices"] == {"pocl-amd-epyc": recorded} and new["trained_on"] == ["pocl-amd-epyc"]

