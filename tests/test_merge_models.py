"""``kgraph.models.merge_models``: one ensemble of several model directories, every member weighing equally."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from kgraph.errors import ModelError
from kgraph.models.merge_models import main, merge_models
from tests.test_readme import ROOT

DEFAULT = ROOT / "models" / "default"
SAXPY = ROOT / "examples" / "opencl" / "saxpy.cl"


def times(directory: Path) -> list[float]:
    import kgraph

    model = kgraph.load_model(directory)
    rows = [{"file": SAXPY, "kernel": "saxpy", "global": [n], "local": [128], "args": {"n": n, "a": 2.0},
             "device": device} for n in (1 << 12, 1 << 20, 1 << 25) for device in ("h200", "xeon")]
    return list(model.estimate_batch(rows)["time_ns"])


def with_member_replaced(tmp_path: Path) -> Path:
    """A copy of the shipped ensemble whose member 0 is its member 1: another model, of known members."""
    from safetensors.torch import load_file, save_file

    other = tmp_path / "other"
    shutil.copytree(DEFAULT, other)
    state = load_file(str(other / "model.safetensors"))
    for key in [k for k in state if k.startswith("members.0.")]:
        state[key] = state["members.1." + key[len("members.0."):]].clone()
    save_file(state, str(other / "model.safetensors"), metadata={"format": "pt"})
    return other


def test_a_merge_is_the_geometric_mean_of_its_inputs_weighted_by_members(tmp_path):
    other = with_member_replaced(tmp_path)
    merged = merge_models([DEFAULT, other], tmp_path / "merged")
    config = json.loads((merged / "config.json").read_text())
    assert config["ensemble"] == 6 and "member_archs" not in config
    assert (merged / "interval.pt").is_file()
    a, b, m = times(DEFAULT), times(other), times(merged)
    assert any(abs(math.log(x / y)) > 1e-3 for x, y in zip(a, b))  # the two inputs do differ
    for x, y, z in zip(a, b, m):
        assert math.log(z) == pytest.approx((math.log(x) + math.log(y)) / 2, abs=2e-3)


def test_merging_a_model_with_itself_predicts_as_it(tmp_path):
    merged = merge_models([DEFAULT, DEFAULT], tmp_path / "twice")
    for x, z in zip(times(DEFAULT), times(merged)):
        assert z == pytest.approx(x, rel=1e-5)


def test_inputs_that_read_other_features_are_refused(tmp_path):
    other = tmp_path / "other"
    shutil.copytree(DEFAULT, other)
    config = json.loads((other / "config.json").read_text())
    config["feature_names"] = config["feature_names"][::-1]
    (other / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="feature_names differ"):
        merge_models([DEFAULT, other], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


@pytest.mark.parametrize("argv, message", [
    ([str(DEFAULT), "--out", "X"], "at least two model directories"),
    ([str(DEFAULT), str(DEFAULT), "--out", str(DEFAULT)], "is one of the inputs"),
    ([str(DEFAULT), "no/such/dir", "--out", "X"], "not a model directory"),
])
def test_misuse_is_named_without_a_traceback(argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "X").exists()
