"""Summaries of a measured dataset: rows per family and status, and the noise (CV distribution)
per runtime decade; ``to_markdown`` gives the datasheet tables of docs/DATASETS.md.
"""
from __future__ import annotations

import math
from pathlib import Path

from .store import read_launches

CV_QUANTILES = (0.5, 0.9, 0.99)


def describe_dataset(directory) -> dict:
    """Counts and noise statistics of one dataset folder (plain dict, JSON-ready)."""
    df = read_launches(Path(directory))
    ok = df[df["status"] == "ok"]
    by_family = df.groupby(["family", "status"]).size().unstack(fill_value=0)
    decades = {}
    if len(ok):
        decade = ok["median_time_ns"].apply(lambda t: int(math.floor(math.log10(t))) if t > 0 else -1)
        for d, group in ok.groupby(decade):
            decades[_decade_label(d)] = _cv_stats(group["cv"])
    return {
        "rows": int(len(df)), "ok_rows": int(len(ok)), "kernels": int(df["kernel_id"].nunique()),
        "families": int(df["family"].nunique()),
        "devices": sorted({str(d) for d in df["device_id"].dropna().unique().tolist()}),
        "status_counts": {k: int(v) for k, v in df["status"].value_counts().items()},
        "per_family": {fam: {k: int(v) for k, v in row.items() if v} for fam, row in by_family.iterrows()},
        "cv": _cv_stats(ok["cv"]) if len(ok) else {},
        "cv_per_runtime_decade": decades,
        "runtime_ns": ({"min": float(ok["median_time_ns"].min()), "max": float(ok["median_time_ns"].max())}
                       if len(ok) else {}),
        "counts_source": {str(k): int(v) for k, v in ok["counts_source"].value_counts(dropna=False).items()},
        "bound": {str(k): int(v) for k, v in ok["bound"].value_counts(dropna=False).items()},
    }


def _decade_label(d: int) -> str:
    units = {0: "1 ns", 1: "10 ns", 2: "100 ns", 3: "1 us", 4: "10 us", 5: "100 us", 6: "1 ms",
             7: "10 ms", 8: "100 ms", 9: "1 s", 10: "10 s"}
    return f"{d:02d}: >= {units.get(d, f'1e{d} ns')}"


def _cv_stats(cv) -> dict:
    stats = {"n": int(cv.size), "fraction_cv_le_2pct": float((cv <= 0.02).mean())}
    for q in CV_QUANTILES:
        stats[f"p{int(q * 100)}"] = float(cv.quantile(q))
    return stats


def to_markdown(summary: dict, title: str) -> str:
    lines = [f"### {title}", "",
             f"{summary['rows']} rows ({summary['ok_rows']} ok), {summary['kernels']} kernels, "
             f"{summary['families']} families; runtime {summary.get('runtime_ns', {}).get('min', 0):.0f} ns .. "
             f"{summary.get('runtime_ns', {}).get('max', 0):.0f} ns; counts: {summary['counts_source']}; "
             f"bound: {summary['bound']}.", "",
             "| family | " + " | ".join(sorted(summary["status_counts"])) + " |",
             "|---|" + "---|" * len(summary["status_counts"])]
    for fam, counts in sorted(summary["per_family"].items()):
        lines.append(f"| {fam} | " + " | ".join(str(counts.get(s, 0)) for s in sorted(summary["status_counts"])) + " |")
    lines += ["", "| runtime decade | n | CV<=2% | CV p50 | CV p90 | CV p99 |", "|---|---|---|---|---|---|"]
    for label, s in list(summary["cv_per_runtime_decade"].items()) + [("all", summary["cv"])]:
        if s:
            lines.append(f"| {label} | {s['n']} | {s['fraction_cv_le_2pct']:.0%} | {s['p50']:.3f} | "
                         f"{s['p90']:.3f} | {s['p99']:.3f} |")
    return "\n".join(lines) + "\n"
