"""W&B media of an evaluation run: a pred-vs-true scatter of time and a per-family error table."""
from __future__ import annotations

import numpy as np
import pandas as pd

from kgraph.data.features import REGRESSION_TARGETS, to_natural


def to_scatter_figure(pred_log: np.ndarray, true_log: np.ndarray, title: str):
    """Matplotlib figure of predicted vs measured time (log-log, with the y = x line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = REGRESSION_TARGETS.index("time")
    p, y = to_natural("time", pred_log[:, t]), to_natural("time", true_log[:, t])
    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=100)
    ax.scatter(y, p, s=6, alpha=0.6)
    lo, hi = float(np.nanmin([y.min(), p.min()])), float(np.nanmax([y.max(), p.max()]))
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    ax.set(xscale="log", yscale="log", xlabel="measured time (ns)", ylabel="predicted time (ns)", title=title)
    fig.tight_layout()
    return fig


def log_media(logger, prefix: str, pred_log: np.ndarray, true_log: np.ndarray,
              table: pd.DataFrame, step: int) -> None:
    """Log the scatter (wandb.Image) and the per-family table (wandb.Table) to a WandbLogger."""
    import matplotlib.pyplot as plt
    import wandb

    fig = to_scatter_figure(pred_log, true_log, prefix)
    logger.experiment.log({f"{prefix}/time_scatter": wandb.Image(fig),
                           f"{prefix}/per_family": wandb.Table(dataframe=table.round(4)),
                           "trainer/global_step": step})
    plt.close(fig)
