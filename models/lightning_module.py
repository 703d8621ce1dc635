"""Lightning module: training loop, metrics and tracking around :class:`~kgraph.models.kgraph_model.KGraphModel`."""
from __future__ import annotations

import math
from dataclasses import dataclass

import lightning as L
import numpy as np
import torch
from torch import Tensor

from kgraph.data.features import BOUND_CLASSES, REGRESSION_TARGETS, to_natural
from kgraph.data.features import feature_names as default_feature_names
from kgraph.models.heads import Prediction
from kgraph.models.kgraph_model import KGraphModel, ModelConfig
from kgraph.models.metrics import per_family, summarize


@dataclass
class OptimConfig:
    """Optimiser and schedule.

    Args:
        lr: peak learning rate of AdamW.
        weight_decay: AdamW weight decay.
        warmup_steps: linear warm-up steps, then cosine decay to ``min_lr_ratio * lr`` at the last step.
        min_lr_ratio: final learning rate as a share of ``lr``.
    """

    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_steps: int = 100
    min_lr_ratio: float = 0.05


class KGraphLightningModule(L.LightningModule):
    """Trains :class:`KGraphModel` on :class:`kgraph.data.datamodule.LaunchBatch` batches.

    Args:
        arch: model architecture and ablation switches.
        optim: optimiser settings.
        feature_names: launch feature columns (linked from the DataModule; default: ``kgraph.data.features``).

    Logged: ``train/loss``, ``train/loss_<task>``, ``val/loss``, ``val/<metric>`` and
    ``test/<split>/<metric>`` (metrics of :mod:`kgraph.models.metrics`); to W&B also a time scatter and a
    per-family table per validation/test run.
    """

    def __init__(self, arch: ModelConfig = ModelConfig(),
                 optim: OptimConfig = OptimConfig(), feature_names: list[str] | None = None):
        super().__init__()
        self.save_hyperparameters()
        arch = ModelConfig.from_dict(arch) if isinstance(arch, dict) else arch
        optim = OptimConfig(**optim) if isinstance(optim, dict) else optim
        self.arch, self.optim = arch, optim
        self.model = KGraphModel(arch, list(feature_names or default_feature_names()))
        self.register_buffer("statistics_set", torch.zeros((), dtype=torch.bool))
        self._outputs: list[dict[str, Tensor]] = []

    def forward(self, batch) -> Prediction:
        return self.model(batch.graphs, batch.tokens, batch.source_index, batch.features)

    def on_fit_start(self) -> None:
        dm = getattr(self.trainer, "datamodule", None)
        if not bool(self.statistics_set) and dm is not None and hasattr(dm, "feature_statistics"):
            self.model.launch_encoder.set_statistics(*(t.to(self.device) for t in dm.feature_statistics()))
            self.model.head.set_statistics(*(t.to(self.device) for t in dm.target_statistics()))
            self.statistics_set.fill_(True)

    def _losses(self, batch) -> tuple[Prediction, Tensor, Tensor]:
        pred = self(batch)
        losses = self.model.head.task_losses(pred, batch.targets, batch.bound)
        return pred, losses, self.model.head.combine(losses)

    def training_step(self, batch, batch_idx: int) -> Tensor:
        _, losses, loss = self._losses(batch)
        n = len(batch)
        self.log("train/loss", loss, prog_bar=True, batch_size=n)
        for name, value in zip(self.model.head.tasks, losses):
            self.log(f"train/loss_{name}", value, batch_size=n)
        return loss

    def _eval_step(self, batch, stage: str) -> None:
        pred, _, loss = self._losses(batch)
        self.log(f"{stage}/loss", loss, batch_size=len(batch), sync_dist=True)
        self._outputs.append({"pred": pred.regression().detach(), "true": batch.targets,
                              "bound_pred": pred.bound_logits.argmax(-1), "bound": batch.bound,
                              "family": batch.family})

    def validation_step(self, batch, batch_idx: int) -> None:
        self._eval_step(batch, "val")

    def test_step(self, batch, batch_idx: int) -> None:
        self._eval_step(batch, "test")

    def on_validation_epoch_end(self) -> None:
        self._eval_epoch_end("val")

    def on_test_epoch_end(self) -> None:
        dm = getattr(self.trainer, "datamodule", None)
        self._eval_epoch_end(f"test/{getattr(dm, 'split', 'default')}")

    def _eval_epoch_end(self, prefix: str) -> None:
        outputs, self._outputs = self._outputs, []
        if not outputs or self.trainer.sanity_checking:
            return
        cat = {k: torch.cat([o[k] for o in outputs]) for k in outputs[0]}
        if self.trainer.world_size > 1:  # every rank sees the same gathered set (equal shards)
            cat = {k: v.reshape(-1, *v.shape[2:]) for k, v in
                   ((k, self.all_gather(v)) for k, v in cat.items())}
        arrays = {k: v.float().cpu().numpy() if v.is_floating_point() else v.cpu().numpy() for k, v in cat.items()}
        metrics = summarize(arrays["pred"], arrays["true"], arrays["bound_pred"], arrays["bound"])
        for name, value in metrics.items():
            if math.isfinite(value):
                self.log(f"{prefix}/{name}", value, sync_dist=True)
        dm = getattr(self.trainer, "datamodule", None)
        families = np.array(getattr(dm, "families", []), dtype=object)
        if self.trainer.is_global_zero and len(families):
            from lightning.pytorch.loggers import WandbLogger

            table = per_family(arrays["pred"], arrays["true"], arrays["bound_pred"], arrays["bound"],
                               families[arrays["family"]])
            for logger in self.loggers:
                if isinstance(logger, WandbLogger):
                    from kgraph.models.tracking import log_media

                    log_media(logger, prefix, arrays["pred"], arrays["true"], table, self.global_step)

    def predict_step(self, batch, batch_idx: int) -> dict[str, np.ndarray]:
        """Per launch: ``row`` (index in the DataModule table), natural-unit predictions
        (``time`` ns, ``bandwidth`` GB/s, ``footprint``/``bytes`` bytes, ``flops``) and ``bound`` name."""
        pred = self(batch)
        reg = pred.regression().float().cpu().numpy()
        out = {"row": batch.row.cpu().numpy(),
               "bound": np.array(BOUND_CLASSES)[pred.bound_logits.argmax(-1).cpu().numpy()]}
        for t, name in enumerate(REGRESSION_TARGETS):
            out[name] = to_natural(name, reg[:, t])
        return out

    def configure_optimizers(self):
        params = [p for p in self.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=self.optim.lr, weight_decay=self.optim.weight_decay)
        total = max(1, int(self.trainer.estimated_stepping_batches))
        warm, floor = max(0, self.optim.warmup_steps), self.optim.min_lr_ratio

        def factor(step: int) -> float:
            if step < warm:
                return (step + 1) / warm
            progress = min(1.0, (step - warm) / max(1, total - warm))
            return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

        sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

