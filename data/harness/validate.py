"""Checks of a measured dataset folder: the rules every consumer may rely on.

* every column of ``columns.LAUNCH_SCHEMA`` is present; keys are unique;
* statuses are known; no NaN or infinity in any numeric column;
* ok rows: positive ``min <= median <= max`` times, ``cv >= 0``, ``repeats >= 1``, counts known
  (>= 0, with a ``counts_source``), derived columns present and a known bound class;
* every ``source_id`` is in ``sources.parquet``; the manifest's keys are the shards' keys.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from .columns import BOUND_CLASSES, COUNT_COLUMNS, DERIVED_COLUMNS, LAUNCH_COLUMNS, STATUSES
from .store import MANIFEST, read_launches, read_sources

MAX_LISTED = 20  # problems of one kind listed by key; the rest are counted


def validate_dataset(directory) -> list[str]:
    """Every problem found in the dataset folder, one line each (empty list: valid)."""
    directory = Path(directory)
    df = read_launches(directory)
    problems: list[str] = []

    def report(what: str, keys) -> None:
        keys = list(keys)
        if keys:
            shown = ", ".join(map(str, keys[:MAX_LISTED]))
            more = f" (and {len(keys) - MAX_LISTED} more)" if len(keys) > MAX_LISTED else ""
            problems.append(f"{what}: {len(keys)} row(s): {shown}{more}")

    missing = [c for c in LAUNCH_COLUMNS if c not in df.columns]
    if missing:
        return [f"missing columns: {', '.join(missing)}"]
    dup = df["key"][df["key"].duplicated()]
    report("duplicate key", dup.unique())
    report("unknown status", df["key"][~df["status"].isin(STATUSES)])
    numeric = df.select_dtypes("number")
    for column in numeric.columns:
        values = numeric[column]
        bad = values.apply(lambda v: isinstance(v, float) and math.isinf(v))
        report(f"infinite {column}", df["key"][bad])
    ok = df[df["status"] == "ok"]
    derived = DERIVED_COLUMNS if (directory / "device.json").exists() else ()
    for column in ("median_time_ns", "min_time_ns", "max_time_ns", "cv", "repeats", *derived):
        report(f"ok row without {column} (NaN or null)", ok["key"][ok[column].isna()])
    for column in COUNT_COLUMNS:
        if column == "footprint_bytes":
            continue  # static counts cannot know the footprint; -1 is allowed there
        report(f"ok row with unknown {column}", ok["key"][ok[column] < 0])
    report("ok row without counts_source", ok["key"][ok["counts_source"].isna()])
    report("ok row with non-positive time", ok["key"][(ok["min_time_ns"] <= 0)])
    report("ok row with min > median or median > max",
           ok["key"][(ok["min_time_ns"] > ok["median_time_ns"]) | (ok["median_time_ns"] > ok["max_time_ns"])])
    report("ok row with negative cv", ok["key"][ok["cv"] < 0])
    report("ok row with repeats < 1", ok["key"][ok["repeats"] < 1])
    if derived:
        report("ok row with unknown bound class", ok["key"][~ok["bound"].isin(BOUND_CLASSES)])
    for column in ("median_time_ns", "min_time_ns", "max_time_ns"):
        report(f"negative {column}", df["key"][df[column] < 0])
    sources = read_sources(directory)
    report("source_id not in sources.parquet", df["key"][~df["source_id"].isin(set(sources["source_id"]))])
    manifest = json.loads((directory / MANIFEST).read_text())
    if set(manifest.get("keys", [])) != set(df["key"]):
        problems.append(f"manifest lists {len(set(manifest.get('keys', [])))} keys, shards hold {df['key'].nunique()}")
    return problems
