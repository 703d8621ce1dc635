"""PNG plots of predictions (``models/predictions.py`` format), drawn with matplotlib's Agg backend.

- :func:`to_scatter_png` — predicted against measured time, log-log, one panel per model; points coloured
  by device (:func:`device_colors`, the same colour for a device in every plot), or a density panel (hexbin,
  log counts) for a model with more than :data:`DENSITY_POINTS` launches, where points would overplot.
- :func:`to_family_png` — time MAPE per kernel family, grouped bars (one bar per model).
- :func:`to_roofline_png` — one device's roofline (copy bandwidth and FLOP peaks of its ``device.json``)
  with the measured launches (measured time) and each model's predictions (predicted time) at
  the launch's measured arithmetic intensity.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

DENSITY_POINTS = 5000  # more launches than this in one panel: a hexbin density instead of points
_PALETTE = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
            "tab:olive", "tab:cyan")  # tab:gray is kept for fallback answers


def device_colors(devices) -> dict[str, str]:
    """A fixed colour per device id (sorted ids over the palette), the same in every plot of a report."""
    names = sorted({str(d) for d in devices})
    return {d: _PALETTE[i % len(_PALETTE)] for i, d in enumerate(names)}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def to_scatter_png(frame: pd.DataFrame, path: str | Path, title: str = "") -> Path:
    """Predicted vs measured time (ns), log-log, one panel per model, with the y = x line."""
    plt = _pyplot()
    models = list(dict.fromkeys(frame["model"]))
    cols = min(3, len(models))
    rows = math.ceil(len(models) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.8 * rows), squeeze=False)
    lo, hi = _limits(np.exp(frame["true_log_time"].to_numpy(np.float64)),
                     np.exp(frame["pred_log_time"].to_numpy(np.float64)))
    colors = device_colors(frame["device_id"]) if "device_id" in frame else {}
    for ax, model in zip(axes.flat, models):
        part = frame[frame["model"] == model]
        t, p = np.exp(part["true_log_time"].to_numpy(np.float64)), np.exp(part["pred_log_time"].to_numpy(np.float64))
        fallback = part["fallback"].to_numpy(bool) if "fallback" in part else np.zeros(len(part), dtype=bool)
        ok = np.isfinite(t) & np.isfinite(p) & (t > 0) & (p > 0)
        if not ok.any():
            ax.text(0.5, 0.5, "no finite positive times", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(model)
        elif len(part) > DENSITY_POINTS:
            hb = ax.hexbin(t[ok], p[ok], xscale="log", yscale="log", bins="log", gridsize=70, mincnt=1,
                           cmap="viridis", extent=(np.log10(lo), np.log10(hi), np.log10(lo), np.log10(hi)))
            fig.colorbar(hb, ax=ax, label="launches")
            ax.set_title(f"{model} ({len(part):,} launches, density)")
        else:
            devices = part["device_id"].astype(str).to_numpy() if colors else np.full(len(part), "")
            for device in dict.fromkeys(devices[~fallback]):
                sel = ~fallback & (devices == device)
                ax.scatter(t[sel], p[sel], s=6, alpha=0.6, color=colors.get(device, "tab:blue"),
                           label=device or "predicted")
            if fallback.any():
                ax.scatter(t[fallback], p[fallback], s=6, alpha=0.6, color="tab:gray", label="fallback")
            ax.legend(fontsize=7, loc="upper left")
            ax.set_title(model)
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
        ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi),
               xlabel="measured time (ns)", ylabel="predicted time (ns)")
    for ax in list(axes.flat)[len(models):]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def _limits(*values: np.ndarray) -> tuple[float, float]:
    """Axis limits of a log-log time plot: a factor 3 around the finite positive values (1 to 10 ns
    when there are none, so that an empty panel still draws)."""
    every = np.concatenate([np.asarray(v, dtype=np.float64) for v in values])
    good = every[np.isfinite(every) & (every > 0)]
    if not len(good):
        return 1.0, 10.0
    return float(good.min()) / 3, float(good.max()) * 3


def to_family_png(family_table: pd.DataFrame, path: str | Path, title: str = "") -> Path:
    """Grouped bars of time MAPE (%) per family (rows of ``family_table``) and model (its columns)."""
    plt = _pyplot()
    fams, models = list(family_table.index), list(family_table.columns)
    width = 0.8 / max(1, len(models))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(fams) * max(1, len(models)) / 2 + 3), 4))
    x = np.arange(len(fams))
    for i, m in enumerate(models):
        ax.bar(x + i * width - 0.4 + width / 2, family_table[m].to_numpy(np.float64), width, label=m)
    ax.set_xticks(x, fams, rotation=45, ha="right", fontsize=8)
    values = family_table.to_numpy(np.float64)
    if (np.isfinite(values) & (values > 0)).any():  # a log axis needs a positive value to draw
        ax.set_yscale("log")
    ax.set_ylabel("time MAPE (%)")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def to_roofline_png(frame: pd.DataFrame, roofline: dict, path: str | Path, title: str = "",
                    color: str | None = None) -> Path:
    """Roofline of one device with measured and predicted (GFLOP/s at measured intensity) points.

    Args:
        frame: predictions of launches on this device.
        roofline: its ``device.json`` ``roofline`` (``copy_bw_gbs``, ``fp32_gflops``, ``fp64_gflops``).
        color: the device's colour (:func:`device_colors`) for the measured points and the roof.
    """
    plt = _pyplot()
    flops = np.expm1(frame["true_log_flops"].to_numpy(np.float64))
    nbytes = np.expm1(frame["true_log_bytes"].to_numpy(np.float64))
    ok = np.isfinite(flops) & np.isfinite(nbytes) & (flops > 0) & (nbytes > 0)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ai = np.logspace(-3, 4, 200)
    bw = float(roofline["copy_bw_gbs"])
    for key, style in (("fp32_gflops", "-"), ("fp64_gflops", "--")):
        ax.plot(ai, np.minimum(ai * bw, float(roofline[key])), style, color=color or "black", linewidth=1,
                label=f"roof {key.split('_')[0]}")
    first = frame["model"].iloc[0] if len(frame) else None
    measured = frame[ok & (frame["model"] == first).to_numpy()]
    m_ai = (np.expm1(measured["true_log_flops"]) / np.expm1(measured["true_log_bytes"])).to_numpy(np.float64)
    ax.scatter(m_ai, np.expm1(measured["true_log_flops"]) / np.exp(measured["true_log_time"]), s=10,
               color=color or "black", marker="x", label="measured")
    for model in dict.fromkeys(frame["model"]):
        part = frame[ok & (frame["model"] == model).to_numpy()]
        p_ai = (np.expm1(part["true_log_flops"]) / np.expm1(part["true_log_bytes"])).to_numpy(np.float64)
        gflops = (np.expm1(part["true_log_flops"]) / np.exp(part["pred_log_time"])).to_numpy(np.float64)
        ax.scatter(p_ai, gflops, s=6, alpha=0.5, label=model)
    ax.set(xscale="log", yscale="log", xlabel="arithmetic intensity (FLOP/byte, measured)",
           ylabel="GFLOP/s", title=title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)
