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
    rc = main(["fit", "--config", str(REPO / "conf/tiny.yaml"), "--data.datasets", f"[{CI_TINY}]",
               "--data.cache_dir", str(tmp_path / "cache"), "--trainer.logger.init_args.save_dir", str(tmp_path)])
    assert rc == 0
    ckpts = sorted(tmp_path.glob("kgraph/*/checkpoints/*.ckpt"))
    assert "last.ckpt" in {p.name for p in ckpts} and len(ckpts) == 2
    state = torch.load(next(p for p in ckpts if p.name == "last.ckpt"), weights_only=False)
    assert state["global_step"] in (2, 4)  # validated every 2 steps; max_steps=4
    best = [v for k, v in state["callbacks"].items() if k.startswith("ModelCheckpoint")][0]
    assert best["monitor"] == "val/time_mape" and math.isfinite(float(best["best_model_score"]))
    assert state["hyper_parameters"]["arch"]["use_tokens"] is False
    assert bool(state["state_dict"]["statistics_set"])  # normalisation stats travel with the weights
    media = list(tmp_path.glob("wandb/offline-run-*/files/media/**/*"))
    assert any("time_scatter" in p.name for p in media) and any("per_family" in p.name for p in media)
    assert state["hyper_parameters"]["feature_names"][0] == "hw_is_gpu"
    # the checkpoint loads back into the module
    from kgraph.models.lightning_module import KGraphLightningModule

    module = KGraphLightningModule.load_from_checkpoint(tmp_path.glob("kgraph/*/checkpoints/last.ckpt").__next__())
    assert module.model.launch_encoder.feature_std.min().item() > 0


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
