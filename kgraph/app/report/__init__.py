"""``kgraph report``: markdown ablation tables and PNG plots from prediction runs.

``write_report(runs, out) -> Path`` reads run directories (``models/predictions.py`` format) and writes
``out/report.md`` plus ``scatter-<split>.png``, ``family-<split>.png`` and
``roofline-<split>-<device>.png``.
"""
from __future__ import annotations

import re
from pathlib import Path

from kgraph.app.report.tables import to_family_table, to_markdown, to_metrics_table


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text)


def write_report(runs: list[str | Path], out: str | Path, plots: bool = True) -> Path:
    """Write the report of ``runs`` into ``out``; returns the path of ``report.md``."""
    from kgraph.models.predictions import read_runs

    from kgraph.app.report.plots import to_family_png, to_roofline_png, to_scatter_png

    frame, meta = read_runs(runs)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    metrics = to_metrics_table(frame)
    splits = list(dict.fromkeys(frame["split"]))
    families = {s: to_family_table(frame, s) for s in splits}
    images: list[str] = []
    if plots:
        for s in splits:
            part = frame[frame["split"] == s]
            images.append(to_scatter_png(part, out / f"scatter-{_slug(s)}.png", f"time, split {s}").name)
            if len(families[s]):
                images.append(to_family_png(families[s], out / f"family-{_slug(s)}.png", f"split {s}").name)
            for device, g in part.groupby("device_id"):
                if device in meta["devices"]:
                    name = f"roofline-{_slug(s)}-{_slug(device)}.png"
                    to_roofline_png(g, meta["devices"][device], out / name, f"{device}, split {s}")
                    images.append(name)
    notes = {}
    for info in meta["models"].values():
        extra = [f"{k}={info[k]}" for k in ("encoder", "efficiency_factor") if k in info]
        if extra:
            notes[info["model"]] = ", ".join(extra)
    path = out / "report.md"
    path.write_text(to_markdown(metrics, families, notes, images))
    metrics.to_csv(out / "metrics.csv", index=False)
    return path


__all__ = ["write_report", "to_metrics_table", "to_family_table", "to_markdown"]
