"""Checks of a measured dataset folder: the rules every consumer may rely on.

* every column of ``columns.LAUNCH_SCHEMA`` is present; keys are unique;
* statuses are known; no NaN or infinity in any numeric column;
* ok rows: no kernel whose counted work ran faster than the device's peak (:mod:`.elided`);
  positive ``min <= median <= max`` times, ``cv >= 0``, ``repeats >= 1``, counts known
  (>= 0, with a ``counts_source``), derived columns present and a known bound class (computed on read
  from the counts and ``device.json``, ``columns.COMPUTED_ON_READ``);
* a shard of the older layout that still stores derived columns stores the values computed on read
  (else ``device.json`` or the shard changed since the rows were measured; readers use the computed ones);
* every ``source_id`` is in ``sources.parquet``; the manifest's keys are the shards' keys.

Before the rows, the folder itself (:func:`folder_problems`): a readable manifest whose shard names
stay inside the folder, every listed shard present, readable and holding the rows the manifest says,
no shard the manifest does not list (orphan), no row left uncommitted in the journal (a campaign
killed or still running), a readable ``sources.parquet`` and ``device.json``. Each problem ends with
how to repair it.
"""
from __future__ import annotations

import math
from pathlib import Path

from kgraph.errors import InputError

from .columns import BOUND_CLASSES, COMPUTED_ON_READ, COUNT_COLUMNS, DERIVED_COLUMNS, LAUNCH_COLUMNS, STATUSES
from .derived import folder_roofline
from .elided import elided_kernels
from .store import (MANIFEST, SHARD_NAME, journal_entries, read_launches, read_manifest, read_shard,
                    read_sources, repair_hint)
from .store_read import UNREADABLE, shard_path

MAX_LISTED = 20  # problems of one kind listed by key; the rest are counted


def validate_dataset(directory) -> list[str]:
    """Every problem found in the dataset folder, one line each (empty list: valid)."""
    directory = Path(directory)
    fatal, problems = folder_problems(directory)
    if fatal:
        return fatal + problems
    df = read_launches(directory, check_rows=False)

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
    roofline = folder_roofline(directory)  # None without a usable device.json
    if roofline and roofline.get("fp32_gflops"):
        elided = elided_kernels(ok, roofline["fp32_gflops"])
        report(f"ok row of a kernel whose counted work ran faster than the device's peak allows (the compiler "
               f"removed it; `kgraph dataset mark-elided {directory}`)", ok["key"][ok["kernel_id"].isin(set(elided))])
    if derived:
        report("ok row with unknown bound class", ok["key"][~ok["bound"].isin(BOUND_CLASSES)])
    for column in ("median_time_ns", "min_time_ns", "max_time_ns"):
        report(f"negative {column}", df["key"][df[column] < 0])
    if roofline is not None:
        for column, keys in stale_stored_derived(directory, df).items():
            report(f"stored {column} differs from the one computed from device.json (a shard of the older "
                   f"layout; readers use the computed one; `kgraph dataset compact {directory}` drops the "
                   f"stored copy)", keys)
    try:
        sources = read_sources(directory)
    except InputError:  # reported by folder_problems
        sources = None
    if sources is not None:
        report("source_id not in sources.parquet", df["key"][~df["source_id"].isin(set(sources["source_id"]))])
    manifest = read_manifest(directory)
    if "keys" in manifest and set(manifest["keys"]) != set(df["key"]):  # format 1 lists them; 2 reads the shards
        problems.append(f"manifest lists {len(set(manifest['keys']))} keys, shards hold {df['key'].nunique()}; "
                        f"{repair_hint(directory)}")
    return problems


def stale_stored_derived(directory, df) -> dict[str, list]:
    """``{column: keys}`` of rows whose shard still stores a column computed on read
    (``columns.COMPUTED_ON_READ``, the layout before they were computed on read) with a value other than
    the computed one in ``df`` (:func:`read_launches`; floats to a relative 1e-9, NaN equal to NaN).

    Args:
        directory: the dataset folder; df: its launches as read.
    """
    import numpy as np
    import pandas as pd
    import pyarrow.parquet as pq

    computed = df.drop_duplicates("key").set_index("key")
    out: dict[str, list] = {}
    for entry in read_manifest(directory)["shards"]:
        try:
            names = pq.read_schema(shard_path(directory, entry["file"])).names  # the footer only
        except UNREADABLE:
            continue  # reported by folder_problems
        stored_names = [n for n in COMPUTED_ON_READ if n in names]
        if not stored_names:
            continue
        stored = read_shard(directory, entry["file"], columns=["key", *stored_names]).to_pandas()
        stored = stored[stored["key"].isin(computed.index)].set_index("key")
        for name in stored_names:
            mine, theirs = stored[name], computed.loc[stored.index, name]
            if name == "bound":
                same = mine.where(mine.notna(), None).to_numpy(dtype=object) == \
                    theirs.where(theirs.notna(), None).to_numpy(dtype=object)
            else:
                a, b = pd.to_numeric(mine, errors="coerce").to_numpy(float), theirs.to_numpy(float)
                same = (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=1e-9, atol=0.0)
            if not same.all():
                out.setdefault(name, []).extend(stored.index[~same].tolist())
    return out


def folder_problems(directory) -> tuple[list[str], list[str]]:
    """``(fatal, other)``: what is wrong with the folder's files, one line each with its repair.

    ``fatal`` problems leave the committed rows unreadable (no or bad manifest, a missing or unreadable
    shard); the ``other`` ones (row counts, orphans, uncommitted rows, sources, device.json) do not.

    Args:
        directory: the dataset folder.
    """
    directory = Path(directory)
    try:
        manifest = read_manifest(directory)
    except InputError as exc:
        waiting = {e.get("key") for e in journal_entries(directory)
               if e.get("t") == "row" and isinstance(e.get("key"), str)}
        if waiting and not (directory / MANIFEST).exists():  # killed before its first commit
            return [f"no {MANIFEST} yet: {len(waiting)} row(s) in journal.jsonl not committed (a campaign "
                    f"was killed before its first shard, or is still running); repair: re-run the campaign "
                    f"(it resumes), or `kgraph dataset repair {directory}` to commit them"], []
        return [_one_line(exc, directory)], []
    fatal, other = [], []
    committed = set(manifest.get("keys") or ())  # format 1 lists them; format 2: the shards' (read below)
    for entry in manifest["shards"]:
        try:
            keys = read_shard(directory, entry["file"], columns=["key"]).column("key")
        except InputError as exc:
            fatal.append(_one_line(exc, directory))
            continue
        rows = len(keys)
        if "keys" not in manifest:
            committed.update(keys.to_pylist())
        if rows != entry["rows"]:
            other.append(f"shard {entry['file']} holds {rows} rows, {MANIFEST} says {entry['rows']}; "
                         f"{repair_hint(directory)}")
    listed = {e["file"] for e in manifest["shards"]}
    for path in sorted(directory.iterdir()):
        if SHARD_NAME.fullmatch(path.name) and path.name not in listed:
            other.append(f"orphan shard {path.name}: not in {MANIFEST} (its rows are not part of the dataset); "
                         f"{repair_hint(directory)}")
    waiting = {e.get("key") for e in journal_entries(directory)
               if e.get("t") == "row" and isinstance(e.get("key"), str)} - committed
    if waiting:
        other.append(f"{len(waiting)} row(s) in journal.jsonl not yet committed (a campaign was killed, or is "
                     f"still running); repair: re-run the campaign (it resumes), or `kgraph dataset repair "
                     f"{directory}` to commit them")
    other += _side_file_problems(directory)
    return fatal, other


def _side_file_problems(directory: Path) -> list[str]:
    """Problems of ``sources.parquet`` and ``device.json`` (unreadable, malformed)."""
    from .descriptor import load_descriptor

    out = []
    try:
        read_sources(directory)
    except InputError as exc:
        out.append(_one_line(exc, directory))
    if (directory / "device.json").exists():
        try:
            load_descriptor(directory)
        except InputError as exc:
            out.append(f"device.json: {exc}; {repair_hint(directory)} (a campaign then measures the device again)")
    return out


def _one_line(exc: Exception, directory) -> str:
    """An InputError's message on one line, without the folder's name in front."""
    text = str(exc).replace("\n", "; ")
    prefix = f"{directory}: "
    return text[len(prefix):] if text.startswith(prefix) else text
