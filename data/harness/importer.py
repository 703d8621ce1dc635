"""``kgraph dataset import``: turn a user's own measurement table (CSV or parquet) into a dataset.

Required columns (names case-insensitive, aliases in ``ALIASES``): ``source`` (kernel text),
``kernel_name``, ``global`` ("1024,1024" or a JSON list), ``device`` and one time column
(``time_ns``, ``time_us``, ``time_ms`` or ``time_s``: the median). Optional: ``local``,
``arguments`` (JSON object of scalar argument values), ``lang``, ``kernel_id``, ``family``,
``status``, ``cv``, ``repeats``, ``min_time_ns``, ``max_time_ns`` and any count column of the schema.
Counts not given come from the static analysis when it can evaluate them (``counts_source=static``).
Rows of several devices go to one sub-folder per device.
"""
from __future__ import annotations

import json
from pathlib import Path

from kgraph.errors import InputError

from .columns import COUNT_COLUMNS, HARNESS_VERSION, empty_row, launch_key, source_id_of
from .counts import static_counts
from .derived import derive
from .descriptor import load_descriptor
from .devices import slug_of
from .store import DatasetStore

ALIASES = {
    "source": ("source", "src", "code", "kernel_source"),
    "kernel_name": ("kernel_name", "kernel", "name"),
    "global": ("global", "global_size", "gsize", "ndrange"),
    "local": ("local", "local_size", "lsize", "work_group_size"),
    "arguments": ("arguments", "args", "scalars"),
    "device": ("device", "device_name", "device_id", "gpu"),
}
TIME_UNITS = {"time_ns": 1.0, "time_us": 1e3, "time_ms": 1e6, "time_s": 1e9, "median_time_ns": 1.0}


def _read_table(path: Path):
    import pandas as pd

    if not path.exists():
        raise InputError(f"{path}: no such file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if path.suffix.lower() in (".csv", ".tsv", ".txt"):
            return pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ",")
    except Exception as exc:
        raise InputError(f"{path}: cannot read the table: {exc}") from None
    raise InputError(f"{path}: expected a .csv, .tsv or .parquet file")


def _sizes(value, column: str, where: str, required: bool) -> list[int] | None:
    if value is None or (isinstance(value, float) and value != value) or str(value).strip() == "":
        if required:
            raise InputError(f"{where}: column {column!r} is empty")
        return None
    text = str(value).strip().strip("[]()")
    try:
        dims = [int(float(v)) for v in text.replace(";", ",").replace("x", ",").split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{where}: column {column!r} = {value!r} is not a list of integers like 1024,1024") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise InputError(f"{where}: column {column!r} = {value!r} needs 1 to 3 positive sizes")
    return dims


def import_table(path, out, descriptor_path=None) -> dict[str, int]:
    """Import ``path`` into ``out``; returns rows written per device_id. InputError on bad columns."""
    path = Path(path)
    df = _read_table(path)
    lower = {c.lower().strip(): c for c in df.columns}
    cols = {}
    for name, aliases in ALIASES.items():
        found = next((lower[a] for a in aliases if a in lower), None)
        if found is None and name not in ("local", "arguments"):
            raise InputError(f"{path}: no {name!r} column (accepted names: {', '.join(aliases)}); "
                             f"the table has: {', '.join(map(str, df.columns))}")
        cols[name] = found
    time_col = next(((lower[c], f) for c, f in TIME_UNITS.items() if c in lower), None)
    if time_col is None:
        raise InputError(f"{path}: no time column (one of {', '.join(TIME_UNITS)})")
    descriptor = load_descriptor(descriptor_path) if descriptor_path else None
    devices = sorted({str(d) for d in df[cols["device"]]})
    written: dict[str, int] = {}
    stores: dict[str, DatasetStore] = {}
    try:
        for index, rec in enumerate(df.to_dict("records")):
            where = f"{path}:{index + 2}"  # line number in a CSV with a header
            device_id = slug_of("", str(rec[cols["device"]]))
            if device_id not in stores:
                folder = Path(out) if len(devices) == 1 else Path(out) / device_id
                stores[device_id] = DatasetStore(folder, device_id)
            store = stores[device_id]
            row = _row(rec, cols, lower, time_col, device_id, where, store)
            if descriptor is not None:
                row.update(derive(row, descriptor["roofline"]))
            written[device_id] = written.get(device_id, 0) + store.append(row)
    finally:
        for store in stores.values():
            store.close()
    if descriptor is not None and len(devices) == 1:
        (Path(out) / "device.json").write_text(json.dumps(descriptor, indent=2, sort_keys=True) + "\n")
    return written


def _row(rec, cols, lower, time_col, device_id, where, store) -> dict:
    source = rec[cols["source"]]
    if not isinstance(source, str) or not source.strip():
        raise InputError(f"{where}: column {cols['source']!r} is empty (the kernel's source text)")
    name = str(rec[cols["kernel_name"]]).strip()
    lang = str(rec.get(lower.get("lang"), "opencl") or "opencl")
    gsize = _sizes(rec[cols["global"]], cols["global"], where, True)
    lsize = _sizes(rec.get(cols["local"]) if cols["local"] else None, cols["local"] or "local", where, False)
    if lsize is not None and len(lsize) != len(gsize):
        raise InputError(f"{where}: local size {lsize} and global size {gsize} have different dimensions")
    args = {}
    if cols["arguments"] and isinstance(rec[cols["arguments"]], str) and rec[cols["arguments"]].strip():
        try:
            args = json.loads(rec[cols["arguments"]])
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: column {cols['arguments']!r} is not a JSON object: {exc.msg}") from None
        if not isinstance(args, dict):
            raise InputError(f"{where}: column {cols['arguments']!r} must be a JSON object of scalar values")
    try:
        time_ns = float(rec[time_col[0]]) * time_col[1]
    except (TypeError, ValueError):
        raise InputError(f"{where}: column {time_col[0]!r} = {rec[time_col[0]]!r} is not a number") from None
    if not time_ns > 0:
        raise InputError(f"{where}: column {time_col[0]!r} must be a positive time")
    source_id = source_id_of(source)
    kernel_id = str(rec.get(lower.get("kernel_id")) or f"import.{source_id[:8]}.{name}")
    family = str(rec.get(lower.get("family")) or "import")
    store.add_source({"source_id": source_id, "lang": lang, "kernel_id": kernel_id, "family": family,
                      "kernel_name": name, "source": source, "spec_json": "{}"})
    row = empty_row()
    g, l = gsize + [1, 1], (lsize or [0, 0, 0]) + [1, 1]
    row.update(key=launch_key(device_id, kernel_id, args, gsize, lsize), device_id=device_id,
               kernel_id=kernel_id, family=family, source_id=source_id, kernel_name=name,
               sizes=json.dumps(args, sort_keys=True), args=json.dumps(args, sort_keys=True), dims=len(gsize),
               g0=g[0], g1=g[1], g2=g[2], l0=l[0], l1=l[1], l2=l[2],
               status=str(rec.get(lower.get("status")) or "ok"), message="imported",
               median_time_ns=time_ns, harness_version=HARNESS_VERSION)
    for column in ("min_time_ns", "max_time_ns", "cv", "repeats"):
        value = rec.get(lower.get(column)) if column in lower else None
        row[column] = float(value) if value is not None and value == value else None
    row["min_time_ns"] = row["min_time_ns"] or time_ns
    row["max_time_ns"] = row["max_time_ns"] or time_ns
    row["repeats"] = int(row["repeats"]) if row["repeats"] else 1
    given = {c: rec.get(lower[c]) for c in COUNT_COLUMNS if c in lower}
    if given:
        row.update({c: int(v) for c, v in given.items() if v is not None and v == v})
        row["counts_source"] = "imported"
    else:
        try:
            row.update(static_counts(source, lang, name, args, gsize, lsize))
            row["counts_source"] = "static"
        except Exception:
            pass  # counts stay unknown (-1)
    return row
