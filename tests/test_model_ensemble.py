"""A model directory that holds an ensemble (models/ensemble.py): made from several checkpoints, loaded by the
predictor, its time the geometric mean of its members' and never below the floor; bad configs refused."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch

from kgraph.errors import KGraphError

ROOT = Path(__file__).resolve().parents[1]


def _checkpoint(path: Path, seed: int, hidden: int = 16, bounded: bool = True, graph: bool = True,
                names: list[str] | None = None) -> Path:
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import ModelConfig
    from kgraph.models.lightning_module import KGraphLightningModule

    names = names or feature_names()
    arch = ModelConfig(use_tokens=False, use_traffic=True, use_graph=graph)
    arch.graph.hidden, arch.launch.hidden, arch.fusion.hidden, arch.head.hidden = hidden, 16, 32, 16
    arch.head.time = "bounded" if bounded else arch.head.time
    torch.manual_seed(seed)
    module = KGraphLightningModule(arch, feature_names=names)
    torch.save({"state_dict": module.state_dict(), "global_step": seed,
                "hyper_parameters": {"arch": asdict(arch), "feature_names": names},
                "datamodule_hyper_parameters": {"datasets": [str(ROOT / "data/datasets/ci-tiny")]}}, path)
    return path


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    from kgraph.models.predictor import from_checkpoint

    d = tmp_path_factory.mktemp("ens")
    ckpts = [_checkpoint(d / f"s{s}.ckpt", s) for s in (1, 2, 3)]
    singles = [from_checkpoint(c, d / f"single{i}") for i, c in enumerate(ckpts)]
    return singles, from_checkpoint(ckpts, d / "ensemble")


def _launches(n: int = 6) -> list[dict]:
    return [{"file": ROOT / "examples/opencl/saxpy.cl", "kernel": "saxpy", "global": [1 << k], "local": [256],
             "args": {"n": 1 << k, "a": 2.0}, "device": "h200"} for k in range(14, 14 + n)]


def test_the_ensemble_is_the_geometric_mean_of_its_members(dirs):
    import kgraph

    singles, ensemble = dirs
    config = json.loads((ensemble / "config.json").read_text())
    assert config["ensemble"] == 3 and config["source"]["global_steps"] == [1, 2, 3]
    launches = _launches()
    members = [kgraph.load_model(d).estimate_many(launches) for d in singles]
    both = kgraph.load_model(ensemble).estimate_many(launches)
    time = np.array([[r["time_ns"] for r in m] for m in members])
    got = np.array([r["time_ns"] for r in both])
    assert np.allclose(got, np.exp(np.log(time).mean(0)), rtol=1e-4)
    assert not np.allclose(time[0], time[1])  # the members differ, so the test says something
    floors = np.array([r["floor_ns"] for r in both])
    assert (got >= floors * (1 - 1e-6)).all()
    assert all(r["bound"] in ("memory", "compute", "latency") and 0 < r["bound_probability"] <= 1 for r in both)


def test_members_of_different_architectures_average_too(tmp_path):
    """A graph-free member first, then a graph member: the directory records both architectures, makes graph
    batches for the one that reads them, and averages the two in log space."""
    import kgraph
    from kgraph.models.predictor import from_checkpoint

    a = _checkpoint(tmp_path / "a.ckpt", 1, graph=False)
    b = _checkpoint(tmp_path / "b.ckpt", 2, hidden=8)
    singles = [from_checkpoint(c, tmp_path / f"single{i}") for i, c in enumerate((a, b))]
    mixed = from_checkpoint([a, b], tmp_path / "mixed")
    config = json.loads((mixed / "config.json").read_text())
    assert [m["use_graph"] for m in config["member_archs"]] == [False, True] and config["arch"]["use_graph"]
    launches = _launches(4)
    time = np.array([[r["time_ns"] for r in kgraph.load_model(d).estimate_many(launches)] for d in singles])
    got = np.array([r["time_ns"] for r in kgraph.load_model(mixed).estimate_many(launches)])
    assert np.allclose(got, np.exp(np.log(time).mean(0)), rtol=1e-4)
    assert not np.allclose(time[0], time[1])


def test_members_of_other_feature_columns_are_refused(tmp_path):
    from kgraph.data.features import feature_names
    from kgraph.models.predictor import from_checkpoint

    a = _checkpoint(tmp_path / "a.ckpt", 1)
    b = _checkpoint(tmp_path / "b.ckpt", 2, names=[n for n in feature_names() if n != "launch_arg3"])
    with pytest.raises(KGraphError, match="feature columns differ"):
        from_checkpoint([a, b], tmp_path / "out")


def test_a_member_archs_list_of_the_wrong_length_is_a_clear_error(dirs, tmp_path):
    import shutil

    from kgraph.models.predictor import Predictor

    _, ensemble = dirs
    copy = tmp_path / "m"
    shutil.copytree(ensemble, copy)
    config = json.loads((copy / "config.json").read_text())
    config["member_archs"] = [config["arch"]] * 2  # three members
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(KGraphError, match="'member_archs' must be a list of 3 architecture objects"):
        Predictor.from_directory(copy)


@pytest.mark.parametrize("bad", [0, 17, "2", True, 1.5])
def test_a_bad_member_count_is_a_clear_error(dirs, tmp_path, bad):
    import shutil

    from kgraph.models.predictor import Predictor

    _, ensemble = dirs
    copy = tmp_path / "m"
    shutil.copytree(ensemble, copy)
    config = json.loads((copy / "config.json").read_text())
    config["ensemble"] = bad
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(KGraphError, match="'ensemble' must be the number of members"):
        Predictor.from_directory(copy)


def test_a_single_member_count_does_not_match_ensemble_weights(dirs, tmp_path):
    import shutil

    from kgraph.models.predictor import Predictor

    _, ensemble = dirs
    copy = tmp_path / "m"
    shutil.copytree(ensemble, copy)
    config = json.loads((copy / "config.json").read_text())
    config["ensemble"] = 2  # three members' tensors in the file
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(KGraphError, match="does not match config.json"):
        Predictor.from_directory(copy)
