"""``kgraph fit|validate|test|predict --config conf/....yaml``: LightningCLI over the kgraph model and data.

Defaults: W&B logging (offline unless ``WANDB_MODE`` is set: no account, no network) under ``runs/``
(``--trainer.logger.init_args.save_dir``), a checkpoint of the best ``val/time_mape`` plus the last
one (``--checkpoint.*``), seed 0. Data-dependent settings are
linked, never written twice: ``data.with_graphs`` <- ``model.arch.use_graph``; ``data.tokenizer`` <-
``model.arch.tokens.path`` when ``model.arch.use_tokens``; ``data.max_tokens`` <-
``model.arch.tokens.max_length``; ``model.feature_names`` <- ``data.feature_names``.

Every run records what it was: the resolved config (datasets, split, seed, model, trainer) is written
as ``config.yaml`` beside the run (``<save_dir>/<project>/<run id>/``, where the checkpoints of a fit go;
``<default_root_dir>/<subcommand>-config.yaml`` without a logger), goes into the W&B run config and into
every checkpoint (key ``kgraph_config``, with ``kgraph_run``: group, job type, run directory). W&B runs are
grouped: a ``fit`` starts the group named after its run id (``job_type: fit``); a ``test``/``validate``/
``predict`` of one of its checkpoints (``--ckpt_path``) joins that group with ``job_type`` the subcommand.
``WANDB_RUN_ID`` / ``WANDB_RUN_GROUP`` (set by ``kgraph sweep`` and W&B agents) name a fit's run and group.
At the end each run writes ``summary.json`` beside it (last value of every metric, best checkpoint score),
also to ``$KGRAPH_SUMMARY_FILE`` when set.

Also runnable as ``python -m kgraph.models.cli fit --config conf/hybrid.yaml`` (e.g. on a GPU host).
"""
from __future__ import annotations

import os
import sys
import warnings

from pathlib import Path

from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI, SaveConfigCallback
from lightning.pytorch.loggers import WandbLogger
from jsonargparse import lazy_instance

from kgraph.data.datamodule import KGraphDataModule
from kgraph.models.lightning_module import KGraphLightningModule

TRAINER_DEFAULTS = {"default_root_dir": "runs", "log_every_n_steps": 10}


def _tokenizer_of(use_tokens: bool, path: str) -> str | None:
    return path if use_tokens else None


def run_dir(trainer) -> Path:
    """Directory of this run: ``<save_dir>/<project>/<run id>`` for W&B (the checkpoints' parent, as
    ModelCheckpoint resolves it), a logger's ``log_dir`` otherwise, else ``default_root_dir``."""
    from lightning.pytorch.loggers import WandbLogger

    logger = trainer.loggers[0] if trainer.loggers else None
    if isinstance(logger, WandbLogger):
        version = logger.version
        version = version if isinstance(version, str) else f"version_{version}"
        return Path(logger.save_dir or trainer.default_root_dir) / str(logger.name) / version
    if logger is not None and getattr(logger, "log_dir", None):
        return Path(logger.log_dir)
    return Path(trainer.default_root_dir)


def group_of_checkpoint(ckpt_path: str | None) -> str | None:
    """W&B group of the fit that wrote ``ckpt_path``: recorded in the checkpoint (``kgraph_run``), else
    the run id of its directory (``.../<run id>/checkpoints/x.ckpt``); None when neither is known."""
    if not ckpt_path or not Path(ckpt_path).is_file():
        return None
    import torch

    try:
        ckpt = torch.load(ckpt_path, weights_only=True, map_location="cpu", mmap=True)
        group = (ckpt.get("kgraph_run") or {}).get("group")
        if group:
            return str(group)
    except Exception:  # noqa: BLE001 - an unreadable checkpoint is reported by Lightning itself
        pass
    path = Path(ckpt_path).resolve()
    return path.parent.parent.name if path.parent.name == "checkpoints" else None


class KGraphSaveConfig(SaveConfigCallback):
    """Saves the resolved config beside the run (not in the shared ``runs/``), logs it to W&B and puts it
    in every checkpoint (``kgraph_config``, ``kgraph_run``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["save_to_log_dir"] = False
        super().__init__(*args, **kwargs)
        import yaml

        text = self.parser.dump(self.config, skip_link_targets=False, format="yaml")
        self.dump = yaml.safe_load(text) or {}
        self.run: dict = {}

    def setup(self, trainer, pl_module, stage: str) -> None:
        logger = (self.dump.get("trainer") or {}).get("logger")
        init = logger.get("init_args", {}) if isinstance(logger, dict) else {}
        self.run = {"group": init.get("group"), "job_type": init.get("job_type"),
                    "stage": str(getattr(stage, "value", stage))}
        super().setup(trainer, pl_module, stage)

    def save_config(self, trainer, pl_module, stage: str) -> None:
        from lightning.pytorch.loggers import WandbLogger

        directory = run_dir(trainer)
        directory.mkdir(parents=True, exist_ok=True)
        has_run = bool(trainer.loggers)
        path = directory / ("config.yaml" if has_run else f"{self.run['stage']}-config.yaml")
        path.write_text(self.parser.dump(self.config, skip_link_targets=False, format="yaml"))
        self.run["run_dir"] = str(directory)
        for logger in trainer.loggers:
            if isinstance(logger, WandbLogger):
                logger.experiment.config.update({"config": self.dump, **summary_of(self.dump),
                                                 "run": self.run}, allow_val_change=True)

    def teardown(self, trainer, pl_module, stage: str) -> None:
        """``summary.json`` beside the run (and at ``$KGRAPH_SUMMARY_FILE``, how ``kgraph sweep`` reads its
        runs back): the last value of every logged metric and the checkpoint monitor's best score."""
        if not trainer.is_global_zero or not self.run.get("run_dir"):
            return
        import json
        import math

        metrics = {}
        for name, value in trainer.callback_metrics.items():
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue
            metrics[name] = number if math.isfinite(number) else None
        summary = {"run_id": Path(self.run["run_dir"]).name, **self.run, "metrics": metrics, "best": None}
        ckpt = trainer.checkpoint_callback
        if ckpt is not None and getattr(ckpt, "monitor", None) and ckpt.best_model_score is not None:
            score = float(ckpt.best_model_score)
            summary["best"] = {"monitor": ckpt.monitor, "mode": ckpt.mode, "path": ckpt.best_model_path,
                               "score": score if math.isfinite(score) else None}
        text = json.dumps(summary, indent=1)
        (Path(self.run["run_dir"]) / "summary.json").write_text(text)
        if os.environ.get("KGRAPH_SUMMARY_FILE"):
            target = Path(os.environ["KGRAPH_SUMMARY_FILE"])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)

    def on_save_checkpoint(self, trainer, pl_module, checkpoint: dict) -> None:
        checkpoint["kgraph_config"] = self.dump
        checkpoint["kgraph_run"] = dict(self.run)


def summary_of(config: dict) -> dict:
    """The few keys that say what a run trained on: datasets, split, seed, model switches."""
    data = config.get("data") or {}
    arch = ((config.get("model") or {}).get("arch")) or {}
    return {"datasets": data.get("datasets"), "split": data.get("split"), "data_seed": data.get("seed"),
            "seed_everything": config.get("seed_everything"),
            "max_epochs": (config.get("trainer") or {}).get("max_epochs"),
            "max_steps": (config.get("trainer") or {}).get("max_steps"),
            "model": {k: arch.get(k) for k in ("use_graph", "use_tokens", "use_hardware", "use_static_counts")}}


class KGraphCLI(LightningCLI):
    """LightningCLI with the argument links between model and data (see module docstring)."""

    def before_instantiate_classes(self) -> None:
        """W&B group and job type: a fit is its own group (its run id); an evaluation of a checkpoint
        joins the group of the fit that wrote it."""
        sub = getattr(self, "subcommand", None)
        if not sub:
            return
        config = self.config[sub]
        logger = config.get("trainer", {}).get("logger") if hasattr(config, "get") else None
        init = getattr(logger, "init_args", None)
        if init is None or not str(getattr(logger, "class_path", "")).endswith("WandbLogger"):
            return
        if init.get("job_type") is None:
            init.job_type = sub
        if sub == "fit":
            if init.get("id") is None and init.get("version") is None:
                import secrets
                import string

                init.id = os.environ.get("WANDB_RUN_ID") or "".join(
                    secrets.choice(string.ascii_lowercase + string.digits) for _ in range(8))
            if init.get("group") is None:
                init.group = os.environ.get("WANDB_RUN_GROUP") or init.get("version") or init.get("id")
        elif init.get("group") is None:
            group = group_of_checkpoint(config.get("ckpt_path"))
            if group:
                init.group = group

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
                     seed_everything_default=0, save_config_callback=KGraphSaveConfig,
                     save_config_kwargs={"overwrite": True},
                     parser_kwargs={"default_env": False}, auto_configure_optimizers=False, run=run)


CONFIG_OPTIONS = ("-c", "--config")
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def config_files(argv: list[str]) -> list[tuple[str, Path]]:
    """(option, path) of the config files ``argv`` names: the values of ``-c``/``--config`` and the
    values of other options that name an existing ``.yaml``/``.yml``/``.json`` file (``--data d.yaml``).

    Args:
        argv: the subcommand's arguments.
    """
    out = []
    for i, arg in enumerate(argv):
        option, sep, value = arg.partition("=")
        if not arg.startswith("-"):
            continue
        if not sep:
            value = argv[i + 1] if i + 1 < len(argv) else ""
        if not value or value.startswith("-"):
            continue
        path = Path(value)
        if option in CONFIG_OPTIONS or (path.suffix.lower() in CONFIG_SUFFIXES and path.is_file()):
            out.append((option, path))
    return out


def check_config_files(argv: list[str]) -> None:
    """Raise :class:`UsageError` for a config file that is not text (a binary file given to
    ``--config``); the parser reports missing files and YAML errors itself.

    Args:
        argv: the subcommand's arguments.
    """
    from kgraph.errors import UsageError

    for option, path in config_files(argv):
        if not path.is_file():
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{option} {path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                             f"{exc.start}): a config is a YAML or JSON text file") from None
        if "\0" in text:
            raise UsageError(f"{option} {path}: a NUL byte at offset {text.index(chr(0))}: a config is a YAML or "
                             "JSON text file, not a binary one")


def run_lightning_cli(argv: list[str]) -> int:
    """Run one LightningCLI subcommand (``argv[0]`` in fit/validate/test/predict); returns 0.

    Args:
        argv: the subcommand and its arguments.
    """
    from lightning.fabric.utilities.exceptions import MisconfigurationException

    from kgraph.errors import UsageError

    check_config_files(argv[1:])
    try:
        build_cli(argv)
    except MisconfigurationException as exc:  # options that parse but do not fit together (Lightning's check)
        raise UsageError(f"{argv[0]}: these trainer options do not fit together: {exc}") from None
    return 0


if __name__ == "__main__":
    from kgraph.errors import run_guarded

    sys.exit(run_guarded(lambda: run_lightning_cli(sys.argv[1:]), "python -m kgraph.models.cli"))
