"""Metric tables of predictions (``models/predictions.py`` format) and their markdown.

Rows are models (neural variants and baselines, in first-seen order), metrics are
``kgraph.models.metrics.summarize`` plus ``coverage`` (see ``kgraph.models.predictions.summarize_frame``).
"""
from __future__ import annotations

import math

import pandas as pd

# (metrics column, header, format) shown in the per-split tables; percentages are already in percent
COLUMNS = (
    ("launches", "launches", "{:.0f}"),
    ("coverage", "coverage", "{:.0%}"),
    ("time_mape", "time MAPE %", "{:.1f}"),
    ("time_median_ape", "time median APE %", "{:.1f}"),
    ("time_spearman", "time Spearman", "{:.3f}"),
    ("time_within_10", "within 10%", "{:.0%}"),
    ("time_within_25", "within 25%", "{:.0%}"),
    ("bandwidth_mape", "bandwidth MAPE %", "{:.1f}"),
    ("footprint_mape", "footprint MAPE %", "{:.1f}"),
    ("bound_acc", "bound acc", "{:.1%}"),
)
OVERVIEW = ("time_mape", "time_spearman", "bound_acc")
# (metrics column, header, format) of the per-device tables
DEVICE_COLUMNS = (
    ("launches", "launches", "{:.0f}"),
    ("time_mape", "time MAPE %", "{:.1f}"),
    ("time_median_ape", "time median APE %", "{:.1f}"),
    ("time_spearman", "time Spearman", "{:.3f}"),
    ("time_within_25", "within 25%", "{:.0%}"),
    ("bound_acc", "bound acc", "{:.1%}"),
)


def to_metrics_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, split): ``model, split`` and every metric."""
    from kgraph.models.predictions import summarize_frame

    rows = [{"model": m, "split": s, **summarize_frame(g)}
            for (m, s), g in frame.groupby(["model", "split"], sort=False)]
    return pd.DataFrame(rows)


def to_device_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, split, device): ``model, split, device_id`` and every metric (no rows when the
    predictions carry no ``device_id``)."""
    from kgraph.models.predictions import summarize_frame

    if "device_id" not in frame:
        return pd.DataFrame(columns=["model", "split", "device_id"])
    rows = [{"model": m, "split": s, "device_id": d, **summarize_frame(g)}
            for (m, s, d), g in frame.groupby(["model", "split", "device_id"], sort=False)]
    return pd.DataFrame(rows, columns=None if rows else ["model", "split", "device_id"])


def to_family_table(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    """Time MAPE (percent) per family (rows) and model (columns) on one split."""
    from kgraph.models.predictions import summarize_frame

    part = frame[frame["split"] == split]
    models = list(dict.fromkeys(part["model"]))
    table = {m: {fam: summarize_frame(g)["time_mape"] for fam, g in part[part["model"] == m].groupby("family")}
             for m in models}
    return pd.DataFrame(table).sort_index()


def _cell(value, fmt: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return fmt.format(value)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub markdown table (first column left-aligned, the others right-aligned)."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def to_markdown(metrics: pd.DataFrame, families: dict[str, pd.DataFrame], notes: dict[str, str],
                images: list[str], devices: pd.DataFrame | None = None) -> str:
    """The whole report: overview (models x splits), one table per split, per-device and per-family
    time MAPE, plots.

    Args:
        metrics: :func:`to_metrics_table`.
        families: split -> :func:`to_family_table`.
        notes: model -> a note printed under the tables (e.g. which token encoder a baseline used).
        images: PNG file names (relative to the report) to embed.
        devices: :func:`to_device_table` (one table per split: a row per device and model).
    """
    splits = list(dict.fromkeys(metrics["split"]))
    models = list(dict.fromkeys(metrics["model"]))
    by = {(r["model"], r["split"]): r for r in metrics.to_dict("records")}
    fmt = {c: f for c, _, f in COLUMNS}
    head = {c: h for c, h, _ in COLUMNS}
    out = ["# kgraph report", "",
           "Time/bandwidth/footprint errors are absolute percentage errors in natural units; "
           "`coverage` is the share of test launches the model answered itself (not by a fallback); "
           "`n/a` = the model does not predict that output.", "", "## Overview", ""]
    header = ["model"] + [f"{s}: {head[c]}" for s in splits for c in OVERVIEW]
    rows = [[m] + [_cell(by.get((m, s), {}).get(c), fmt[c]) for s in splits for c in OVERVIEW] for m in models]
    out += [markdown_table(header, rows), ""]
    for s in splits:
        out += [f"## Split `{s}`", ""]
        rows = [[m] + [_cell(by[(m, s)].get(c), f) for c, _, f in COLUMNS] for m in models if (m, s) in by]
        out += [markdown_table(["model"] + [h for _, h, _ in COLUMNS], rows), ""]
        dev = devices[devices["split"] == s] if devices is not None and len(devices) else None
        if dev is not None and len(dev):
            out += [f"Per device (`{s}`):", ""]
            rows = [[str(r["device_id"]), r["model"]] + [_cell(r.get(c), f) for c, _, f in DEVICE_COLUMNS]
                    for r in dev.sort_values(["device_id"], kind="stable").to_dict("records")]
            out += [markdown_table(["device", "model"] + [h for _, h, _ in DEVICE_COLUMNS], rows), ""]
        fam = families.get(s)
        if fam is not None and len(fam):
            out += [f"Time MAPE % per family (`{s}`):", ""]
            rows = [[str(f)] + [_cell(fam.at[f, m], "{:.1f}") for m in fam.columns] for f in fam.index]
            out += [markdown_table(["family", *fam.columns], rows), ""]
    if notes:
        out += ["## Notes", ""] + [f"- `{m}`: {n}" for m, n in notes.items()] + [""]
    if images:
        out += ["## Plots", ""] + [f"![{p}]({p})" for p in images] + [""]
    return "\n".join(out)
