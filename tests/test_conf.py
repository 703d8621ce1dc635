"""Every YAML under conf/ parses against the LightningCLI classes; sweep files are well-formed."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kgraph.models.cli import run_lightning_cli

REPO = Path(__file__).resolve().parent.parent
CONF = REPO / "conf"
CONFIGS = sorted(p.relative_to(CONF).as_posix() for p in CONF.rglob("*.yaml") if p.parts[-2] != "sweeps")
SWEEPS = sorted(CONF.glob("sweeps/*.yaml"))


def printed_config(capsys, *files: str, argv: list[str] | None = None) -> dict:
    args = ["fit"]
    for f in files:
        args += ["--config", str(CONF / f)]
    args += argv or []
    with pytest.raises(SystemExit) as exc:
        run_lightning_cli([*args, "--print_config"])
    assert exc.value.code in (0, None)
    return yaml.safe_load(capsys.readouterr().out)


def test_every_config_is_listed():
    assert "tiny.yaml" in CONFIGS and "model/hybrid.yaml" in CONFIGS and "trainer/ddp.yaml" in CONFIGS
    assert {f"split/{s}.yaml" for s in ("random", "unseen_launch", "leave_kernel_out", "leave_family_out",
                                         "leave_device_out")} <= set(CONFIGS)


@pytest.mark.parametrize("name", CONFIGS)
def test_config_parses(name, capsys):
    files = ("model/hybrid.yaml",) if name == "model/hybrid.yaml" else ("model/hybrid.yaml", name)
    if name == "tiny.yaml":
        files = ("tiny.yaml",)
    cfg = printed_config(capsys, *files)
    arch, data = cfg["model"]["arch"], cfg["data"]
    expected = {  # (use_graph, use_tokens, use_hardware) after combining with hybrid
        "model/graph_only.yaml": (True, False, True), "model/tokens_only.yaml": (False, True, True),
        "model/static_only.yaml": (False, False, True), "model/no_hardware.yaml": (True, True, False),
        "tiny.yaml": (True, False, True), "model/bounded.yaml": (True, False, True),
        "model/bounded_traffic.yaml": (True, False, True), "model/bounded_traffic_lm.yaml": (True, False, True),
        "model/bounded_traffic_capped.yaml": (True, False, True), "model/bounded_traffic_known.yaml": (True, False, True),
        "model/bounded_traffic_known_uncapped.yaml": (True, False, True),
        "model/bounded_traffic_known_valkernels.yaml": (True, False, True),
        "model/static_traffic_known_valkernels.yaml": (False, False, True),
        "model/static_traffic_assumed_valkernels.yaml": (False, False, True),
        "model/static_traffic_anchored_valkernels.yaml": (False, False, True),
        "model/static_traffic_solved_valkernels.yaml": (False, False, True),
    }.get(name, (True, True, True))
    assert (arch["use_graph"], arch["use_tokens"], arch["use_hardware"]) == expected
    # linked, never written twice: the DataModule's copies are derived, not configurable
    assert not {"with_graphs", "tokenizer", "max_tokens"} & set(data)
    assert "feature_names" not in cfg["model"]
    if name.startswith("split/"):
        assert data["split"] == Path(name).stem
    capped = name in ("model/bounded_traffic_capped.yaml", "model/bounded_traffic_known.yaml")
    assert data["kernel_cap"] == (64 if capped else None)
    assumed = name == "model/static_traffic_assumed_valkernels.yaml"
    anchored = name == "model/static_traffic_anchored_valkernels.yaml"
    solved = name == "model/static_traffic_solved_valkernels.yaml"
    assert data["train_known_counts"] == (name.startswith("model/bounded_traffic_known") or assumed or anchored
                                          or solved or name == "model/static_traffic_known_valkernels.yaml")
    assert data["train_assumed_counts"] == assumed
    assert data["solved_trips"] == solved
    assert data["val_unit"] == ("kernel" if name.endswith(("_known_valkernels.yaml", "_assumed_valkernels.yaml",
                                                           "_anchored_valkernels.yaml", "_solved_valkernels.yaml"))
                                else "split")
    if name == "trainer/ddp.yaml":
        assert cfg["trainer"]["strategy"] == "ddp" and cfg["trainer"]["devices"] == 2
    traffic = name.startswith("model/bounded_traffic") or name in ("model/static_traffic_known_valkernels.yaml",
                                                                     "model/static_traffic_assumed_valkernels.yaml") \
        or anchored or solved
    bounded = name == "model/bounded.yaml" or traffic
    assert arch["head"]["time"] == ("bounded" if bounded else "unbounded")
    assert arch["head"]["anchor"] == ("traffic" if anchored else "launch")
    assert arch["use_traffic"] == traffic
    # the code LM variants of issue 11: which LM, frozen or fine-tuned, and where its vectors enter
    assert (arch["graph"]["lm_dim"] == 256) == (name == "model/bounded_traffic_lm.yaml")
    assert bool(data.get("lm_features")) == (name == "model/bounded_traffic_lm.yaml")
    if name == "model/bounded_traffic_lm_finetune.yaml":
        assert arch["tokens"]["path"] == "models/code_lm/weights" and arch["tokens"]["freeze"] is False
    if name == "model/bounded_traffic_oldlm.yaml":
        assert arch["tokens"]["path"] == "models/lm" and arch["tokens"]["freeze"] is True
    if name == "model/gatv2_gated.yaml":
        assert arch["graph"]["layer"] == "gatv2" and arch["head"]["weighting"] == "uncertainty"
    assert_real_data_and_limit(cfg, smoke=name == "tiny.yaml")


def assert_real_data_and_limit(cfg: dict, smoke: bool = False) -> None:
    """A run of this config names its measured datasets (the CI smoke set only where chosen: tiny.yaml)
    and a training limit (not Lightning's default of 1000 epochs); held-out devices are among the data."""
    datasets = cfg["data"]["datasets"]
    assert datasets, "no dataset named: the DataModule has no default"
    names = [Path(d).name for d in datasets]
    assert all(Path(d).parent.as_posix().endswith("data/datasets") for d in datasets), datasets
    assert ("ci-tiny" in names) == smoke, datasets
    for d in datasets:
        assert (REPO / d / "device.json").is_file(), f"{d}: not a dataset of this checkout"
    trainer = cfg["trainer"]
    limited = (trainer.get("max_epochs") or 0) > 0 or (trainer.get("max_steps") or -1) > 0
    assert limited, f"no max_epochs/max_steps: {trainer.get('max_epochs')}, {trainer.get('max_steps')}"
    if not smoke:
        assert 0 < (trainer.get("max_epochs") or 0) <= 200
    if cfg["data"]["split"] == "leave_device_out":
        import json

        ids = {json.loads((REPO / d / "device.json").read_text())["device_id"] for d in datasets}
        assert cfg["data"]["test_devices"] and set(cfg["data"]["test_devices"]) < ids, (cfg["data"], ids)


def test_no_default_dataset():
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.errors import UsageError

    with pytest.raises(UsageError, match="data.datasets"):
        KGraphDataModule()
    with pytest.raises(UsageError, match="data.datasets"):
        KGraphDataModule(datasets=[])


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.name)
def test_sweep_files(path, capsys):
    from kgraph.app.cli.sweep import from_file, to_command, to_runs

    sweep = from_file(str(path))
    assert sweep["metric"] == {"name": "val/time_mape", "goal": "minimize"}
    assert sweep["command"][:2] == ["kgraph", "fit"] and "${args}" in sweep["command"]
    runs = to_runs(sweep)
    if sweep["method"] == "grid":
        n = 1
        for spec in sweep["parameters"].values():
            n *= len(spec["values"])
        assert len(runs) == n
    else:
        assert len(runs) == sweep["run_cap"]
    cmd = to_command(sweep, runs[0])
    for f in cmd[cmd.index("--config") + 1::2][: cmd.count("--config")]:
        assert (REPO / f).is_file(), f
    assert all(f"--{k}={v}" in cmd for k, v in runs[0].items())
    # what a run of the sweep resolves to: a real dataset, an epoch limit
    cfg = printed_config(capsys, argv=[str(REPO / a) if a.startswith("conf/") else a for a in cmd[2:]])
    assert_real_data_and_limit(cfg)


def test_grid_expansion_order():
    from kgraph.app.cli.sweep import to_command, to_runs

    sweep = {"method": "grid", "parameters": {"a": {"values": [1, 2]}, "b": {"values": ["x", "y"]}},
             "command": ["${program}", "fit", "${env}", "${args}"], "program": "kgraph"}
    assert [to_command(sweep, r) for r in to_runs(sweep)] == [
        ["kgraph", "fit", "--a=1", "--b=x"], ["kgraph", "fit", "--a=1", "--b=y"],
        ["kgraph", "fit", "--a=2", "--b=x"], ["kgraph", "fit", "--a=2", "--b=y"]]


def test_tokenizer_link():
    from kgraph.models.cli import _tokenizer_of

    assert _tokenizer_of(True, "models/lm") == "models/lm" and _tokenizer_of(False, "models/lm") is None
