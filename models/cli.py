"""``kgraph fit|validate|test|predict --config conf/....yaml``: LightningCLI over the kgraph model and data.

Defaults: W&B logging (offline unless ``WANDB_MODE`` is set: no account, no network) under ``runs/``
(``--trainer.logger.init_args.save_dir``), a checkpoint of the best ``val/time_mape`` plus the last
one (``--checkpoint.*``), seed 0. Data-dependent settings are
linked, never written twice: ``data.with_graphs`` <- ``model.arch.use_graph``; ``data.tokenizer`` <-
``model.arch.tokens.path`` when ``model.arch.use_tokens``; ``data.max_tokens`` <-
``model.arch.tokens.max_length``; ``model.feature_names`` <- ``data.feature_names``.

Also runnable as ``python -m kgraph.models.cli fit --config conf/hybrid.yaml`` (e.g. on a GPU host).
"""
from __future__ import annotations

import os
import sys
import warnings

from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.pytorch.loggers import WandbLogger
from jsonargparse import lazy_instance

from kgraph.data.datamodule import KGraphDataModule
from kgraph.models.lightning_module import KGraphLightningModule

TRAINER_DEFAULTS = {"default_root_dir": "runs", "log_every_n_steps": 10}


def _tokenizer_of(use_tokens: bool, path: str) -> str | None:
    return path if use_tokens else None


class KGraphCLI(LightningCLI):
    """LightningCLI with the argument links between model and data (see module docstring)."""

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        parser.add_lightning_class_args(ModelCheckpoint, "checkpoint")
        parser.set_defaults({
            "checkpoint.monitor": "val/time_mape", "checkpoint.mode": "min", "checkpoint.save_last": True,
            "checkpoint.filename": "best-{step}",
            "trainer.logger": lazy_instance(WandbLogger, save_dir="runs", project="kgraph"),
        })
        parser.link_arguments("model.arch.use_graph", "data.with_graphs")
        parser.link_arguments(("model.arch.use_tokens", "model.arch.tokens.path"), "data.tokenizer",
                              compute_fn=_tokenizer_of)
        parser.link_arguments("model.arch.tokens.max_length", "data.max_tokens")
        parser.link_arguments("data.feature_names", "model.feature_names", apply_on="instantiate")


def build_cli(argv: list[str], run: bool = True) -> KGraphCLI:
    """The LightningCLI of ``kgraph fit|validate|test|predict``; ``run=False``: parse and instantiate
    model, data and trainer only (``argv`` then has no subcommand), e.g. to prepare the data cache."""
    warnings.filterwarnings("ignore", message=".*LightningCLI's args parameter.*")
    warnings.filterwarnings("ignore", message=".*isinstance.treespec, LeafSpec.*")
    os.environ.setdefault("WANDB_MODE", "offline")
    os.environ.setdefault("WANDB_SILENT", "true")
    return KGraphCLI(KGraphLightningModule, KGraphDataModule, args=argv, trainer_defaults=TRAINER_DEFAULTS,
                     seed_everything_default=0, save_config_kwargs={"overwrite": True},
                     parser_kwargs={"default_env": False}, auto_configure_optimizers=False, run=run)


def run_lightning_cli(argv: list[str]) -> int:
    """Run one LightningCLI subcommand (``argv[0]`` in fit/validate/test/predict); returns 0."""
    build_cli(argv)
    return 0


if __name__ == "__main__":
    sys.exit(run_lightning_cli(sys.argv[1:]))
