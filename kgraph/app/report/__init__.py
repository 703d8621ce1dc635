"""``kgraph report``: markdown ablation tables and PNG plots from prediction runs.

``write_report(runs, out) -> Path`` reads run directories (``models/predictions.py`` format) and writes
``out/report.md`` (overview, per split: models, per device, per family), ``metrics.csv``,
``metrics_by_device.csv`` plus ``scatter-<split>.png`` (points coloured by device; a density (hexbin)
panel when a model has more than ``plots.DENSITY_POINTS`` launches), ``family-<split>.png`` and
``roofline-<split>-<device>.png`` (measured points in the device's colour).
"""
from __future__ import annotations

import re
from pathlib import Path

from kgraph.app.report.tables import to_device_table, to_family_table, to_markdown, to_metrics_table


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text)


class _NoProgress:
    total = None

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        pass

    def refresh(self) -> None:
        pass


def write_report(runs: list[str | Path], out: str | Path, plots: bool = True, progress=None,
                 warn=None) -> Path:
    """Write the report of ``runs`` into ``out``; returns the path of ``report.md``.

    Args:
        runs: run directories or predictions files (:func:`kgraph.models.predictions.read_runs`).
        out: output directory.
        plots: draw the PNG plots.
        progress: a tqdm-like bar (``total``, ``update``, ``set_postfix_str``) advanced per step.
        warn: called with each warning (a predictions file with no rows, left out); default: ignored.
    """
    warn = warn or (lambda message: None)
    from kgraph.models.predictions import read_runs

    from kgraph.app.report.plots import device_colors, to_family_png, to_roofline_png, to_scatter_png

    bar = progress if progress is not None else _NoProgress()
    bar.set_postfix_str("reading runs")
    frame, meta = read_runs(runs)
    for path in meta["empty"]:
        warn(f"{path}: 0 rows, left out of the report")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    splits = list(dict.fromkeys(frame["split"]))
    pairs = [(s, d) for s in splits for d in dict.fromkeys(frame.loc[frame["split"] == s, "device_id"])
             if d in meta["devices"]] if "device_id" in frame else []
    bar.total = 2 + len(splits) + (2 * len(splits) + len(pairs) if plots else 0)
    bar.update(1)
    bar.set_postfix_str("metrics")
    metrics = to_metrics_table(frame)
    devices = to_device_table(frame)
    bar.update(1)
    families = {}
    for s in splits:
        families[s] = to_family_table(frame, s)
        bar.update(1)
    images: list[str] = []
    colors = device_colors(frame["device_id"]) if "device_id" in frame else {}
    if plots:
        for s in splits:
            part = frame[frame["split"] == s]
            bar.set_postfix_str(f"plots of {s}")
            images.append(to_scatter_png(part, out / f"scatter-{_slug(s)}.png", f"time, split {s}").name)
            bar.update(1)
            if len(families[s]):
                images.append(to_family_png(families[s], out / f"family-{_slug(s)}.png", f"split {s}").name)
            bar.update(1)
            for device, g in part.groupby("device_id", sort=False):
                if device in meta["devices"]:
                    name = f"roofline-{_slug(s)}-{_slug(device)}.png"
                    to_roofline_png(g, meta["devices"][device], out / name, f"{device}, split {s}",
                                    color=colors.get(device))
                    images.append(name)
                    bar.update(1)
    notes = {}
    for name, info in meta["models"].items():
        extra = [f"{k}={info[k]}" for k in ("encoder", "efficiency_factor") if k in info]
        if extra:
            notes[str(info.get("model", name))] = ", ".join(extra)
    path = out / "report.md"
    path.write_text(to_markdown(metrics, families, notes, images, devices))
    metrics.to_csv(out / "metrics.csv", index=False)
    devices.to_csv(out / "metrics_by_device.csv", index=False)
    return path


__all__ = ["write_report", "to_metrics_table", "to_device_table", "to_family_table", "to_markdown"]
