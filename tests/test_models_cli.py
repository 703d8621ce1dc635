"""End-to-end: `kgraph fit --config conf/tiny.yaml` trains offline, logs W&B media, writes checkpoints."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from kgraph.app.cli.main import main

REPO = Path(__file__).resolve().parent.parent


CI_TINY = REPO / "data/datasets/ci-tiny"


@pytest.mark.skipif(not CI_TINY.is_dir(), reason="data/datasets/ci-tiny is not in this checkout")
def test_fit_tiny_on_ci_tiny_writes_checkpoint_and_media(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("KGRAPH_SUMMARY_FILE", str(tmp_path / "sweep" / "run-001.json"))  # as kgraph sweep does
    rc = main(["fit", "--config", str(REPO / "conf/tiny.yaml"), "--data.datasets", f"[{CI_TINY}]",
               "--data.cache_dir", str(tmp_path / "cache"), "--trainer.logger.init_args.save_dir", str(tmp_path)])
    assert rc == 0
    ckpts = sorted(tmp_path.glob("kgraph/*/checkpoints/*.ckpt"))
    assert "last.ckpt" in {p.name for p in ckpts} and len(ckpts) == 2
    state = torch.load(next(p for p in ckpts if p.name == "last.ckpt"), weights_only=True)
    assert state["global_step"] in (2, 4)  # validated every 2 steps; max_steps=4
    best = [v for k, v in state["callbacks"].items() if k.startswith("ModelCheckpoint")][0]
    assert best["monitor"] == "val/time_mape" and math.isfinite(float(best["best_model_score"]))
    assert state["hyper_parameters"]["arch"]["use_tokens"] is False
    assert bool(state["state_dict"]["statistics_set"])  # normalisation stats travel with the weights
    media = list(tmp_path.glob("wandb/offline-run-*/files/media/**/*"))
    assert any("time_scatter" in p.name for p in media) and any("per_family" in p.name for p in media)
    assert state["hyper_parameters"]["feature_names"][0] == "hw_is_gpu"
    # the descriptors the features were made with travel in the checkpoint (kgraph.data.device_descriptors)
    assert list(state["KGraphDataModule"]["devices"]) == ["pocl-amd-epyc"]
    # the checkpoint loads back into the module
    from kgraph.models.lightning_module import KGraphLightningModule

    module = KGraphLightningModule.load_from_checkpoint(tmp_path.glob("kgraph/*/checkpoints/last.ckpt").__next__())
    assert module.model.launch_encoder.feature_std.min().item() > 0
    _check_run_records(tmp_path, next(p for p in ckpts if p.name == "last.ckpt"), state)


def _check_run_records(tmp_path, ckpt, state):
    """One resolved config per run (beside its checkpoints), the full config in the checkpoint and the
    W&B config, and a `test` of the checkpoint grouped with its `fit`."""
    import wandb
    import yaml

    from kgraph.models.cli import build_cli

    wandb.finish()  # the fit's run (a new process in real use)
    fit_dir = ckpt.parent.parent
    config = yaml.safe_load((fit_dir / "config.yaml").read_text())
    assert config["data"]["datasets"] == [str(CI_TINY)] and config["data"]["split"] == "random"
    assert config["seed_everything"] == 0 and config["model"]["arch"]["use_graph"] is True
    assert not (tmp_path / "config.yaml").exists()  # not one shared file overwritten by every run
    assert state["kgraph_config"]["data"]["datasets"] == [str(CI_TINY)]
    assert state["kgraph_config"]["trainer"]["max_steps"] == 4
    assert state["datamodule_hyper_parameters"]["split"] == "random"
    assert state["kgraph_run"] == {"group": fit_dir.name, "job_type": "fit", "stage": "fit",
                                   "run_dir": str(fit_dir)}
    # the run's summary (how kgraph sweep reads a run back): beside the run and where the sweep asked
    import json

    summary = json.loads((tmp_path / "sweep" / "run-001.json").read_text())
    assert summary == json.loads((fit_dir / "summary.json").read_text())
    best = [v for k, v in state["callbacks"].items() if k.startswith("ModelCheckpoint")][0]
    assert summary["run_id"] == fit_dir.name and summary["best"]["monitor"] == "val/time_mape"
    assert summary["best"]["score"] == pytest.approx(float(best["best_model_score"]))
    assert "val/time_mape" in summary["metrics"] and "train/loss" in summary["metrics"]
    cli = build_cli(["test", "--config", str(REPO / "conf/tiny.yaml"), "--data.datasets", f"[{CI_TINY}]",
                     "--data.cache_dir", str(tmp_path / "cache"),
                     "--trainer.logger.init_args.save_dir", str(tmp_path), "--ckpt_path", str(ckpt)])
    run = cli.trainer.loggers[0].experiment
    assert (run.group, run.job_type) == (fit_dir.name, "test") and run.id != fit_dir.name
    assert run.config["datasets"] == [str(CI_TINY)] and run.config["split"] == "random"
    assert run.config["config"]["ckpt_path"] == str(ckpt)
    test_config = yaml.safe_load((fit_dir.parent / run.id / "config.yaml").read_text())
    assert test_config["ckpt_path"] == str(ckpt)
    wandb.finish()


def test_cli_misuse_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["fit", "--config", str(REPO / "conf/tiny.yaml"), "--model.arch.graph.layer", "transformer"])
    assert exc.value.code == 2
    assert "model.arch.graph.layer" in capsys.readouterr().err
    rc = main(["fit", "--config", str(REPO / "conf/tiny.yaml"), "--data.datasets", "[nowhere]",
               "--trainer.logger", "false"])
    assert rc == 1
    assert "nowhere: not a measured dataset" in capsys.readouterr().err
    rc = main(["fit", "--config", str(REPO / "conf/tiny.yaml"), "--trainer.enable_checkpointing", "false",
               "--trainer.logger", "false"])  # parses, but the CLI's checkpoint callback needs checkpointing
    assert rc == 2
    assert "do not fit together" in capsys.readouterr().err
