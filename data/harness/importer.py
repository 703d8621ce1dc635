"""``kgraph dataset import``: turn a user's own measurement table (CSV or parquet) into a dataset.

Required columns (names case-insensitive, aliases in ``ALIASES``): ``source`` (kernel text),
``kernel_name``, ``global`` ("1024,1024" or a JSON list), ``device`` and one time column
(``time_ns``, ``time_us``, ``time_ms`` or ``time_s``: the median). Optional: ``local``,
``arguments`` (JSON object of scalar argument values), ``lang``, ``kernel_id``, ``family``,
``status``, ``cv``, ``repeats``, ``min_time_ns``, ``max_time_ns`` and any count column of the schema.
Counts not given come from the static analysis when it can evaluate them (``counts_source=static``, or
``static-inexact`` where the analysis does not count the kernel exactly: :mod:`kgraph.exact_counts`);
rows whose counts stay unknown are listed in a warning (``kgraph dataset fill-counts`` or count columns
complete them; ``kgraph dataset validate`` names them until then). ``cv`` when not given: half the
min-max range over the median (0 for a single timing). Each row is checked as ``kgraph dataset
validate`` checks it (status, ordered positive finite times, ``cv >= 0``, ``repeats >= 1``, counts
>= 0), so an import validates. Rows of several devices go to one sub-folder per device; a
``--descriptor`` describes one device, the table's (its ``device`` column may name it by part of its id).
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from kgraph.errors import InputError

from .columns import COUNT_COLUMNS, HARNESS_VERSION, STATUSES, empty_row, launch_key, source_id_of
from .counts import static_counts, static_source
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
MAX_GLOBAL = 2**63 - 1  # the launch columns g0..g2 are int64, l0..l2 int32
MAX_LOCAL = 2**31 - 1
LANGS = ("opencl", "cuda", "c")


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


def _sizes(value, column: str, where: str, required: bool, most: int = MAX_GLOBAL) -> list[int] | None:
    if value is None or (isinstance(value, float) and value != value) or str(value).strip() == "":
        if required:
            raise InputError(f"{where}: column {column!r} is empty")
        return None
    text = str(value).strip().strip("[]()")
    try:
        numbers = [float(v) for v in text.replace(";", ",").replace("x", ",").split(",") if v.strip()]
    except ValueError:
        raise InputError(f"{where}: column {column!r} = {value!r} is not a list of integers like 1024,1024") from None
    if not 1 <= len(numbers) <= 3 or any(not math.isfinite(d) or d != int(d) or d <= 0 for d in numbers):
        raise InputError(f"{where}: column {column!r} = {value!r} needs 1 to 3 positive whole sizes")
    dims = [int(d) for d in numbers]
    if any(d > most for d in dims):
        raise InputError(f"{where}: column {column!r} = {value!r}: a size above {most} (what the dataset stores)")
    return dims


def import_table(path, out, descriptor_path=None) -> dict[str, int]:
    """Import ``path`` into ``out``; returns rows written per device_id. InputError on bad columns or rows.

    Args:
        path: the CSV/TSV/parquet table.
        out: the dataset folder to write (one sub-folder per device when the table has several).
        descriptor_path: the device's ``device.json`` (or its folder), written beside the rows (the derived
            columns are computed from it on read).
    """
    path = Path(path)
    df = _read_table(path)
    lower = {str(c).lower().strip(): c for c in df.columns}
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
    device_of = _device_ids(df[cols["device"]], path, cols["device"])
    descriptor = load_descriptor(descriptor_path) if descriptor_path else None
    if descriptor is not None:
        device_of = _devices_of_descriptor(device_of, descriptor, descriptor_path)
    devices = sorted(set(device_of))
    written: dict[str, int] = {}
    stores: dict[str, DatasetStore] = {}
    uncounted: list[tuple[str, str]] = []
    try:
        for index, rec in enumerate(df.to_dict("records")):
            where = f"{path}:{index + 2}"  # line number in a CSV with a header
            device_id = device_of[index]
            if device_id not in stores:
                folder = Path(out) if len(devices) == 1 else Path(out) / device_id
                stores[device_id] = DatasetStore(folder, device_id)
            store = stores[device_id]
            row, why = _row(rec, cols, lower, time_col, device_id, where, store)
            if why:
                uncounted.append((where, why))
            written[device_id] = written.get(device_id, 0) + store.append(row)
    finally:
        for store in stores.values():
            store.close()
    if descriptor is not None:
        (Path(out) / "device.json").write_text(json.dumps(descriptor, indent=2, sort_keys=True) + "\n")
    if uncounted:
        _warn_uncounted(uncounted, out)
    return written


def _device_ids(column, path: Path, name: str) -> list[str]:
    """The device id (slug) of each row; InputError for an empty device cell."""
    out = []
    for index, value in enumerate(column):
        text = "" if value is None or (isinstance(value, float) and value != value) else str(value).strip()
        if not text:
            raise InputError(f"{path}:{index + 2}: column {name!r} is empty (the device the row was measured on)")
        out.append(slug_of("", text))
    return out


def _devices_of_descriptor(device_of: list[str], descriptor: dict, descriptor_path) -> list[str]:
    """The rows' device ids when a descriptor is given: the descriptor's, when the table names one device
    and that name is its id or a part of it (``h200`` for ``nvidia-h200``); InputError otherwise (the
    derived columns and ``device.json`` would describe another device than the rows)."""
    named = sorted(set(device_of))
    target = descriptor["device_id"]
    if len(named) > 1:
        raise InputError(f"--descriptor {descriptor_path}: describes one device ({target}), the table has rows of "
                         f"{len(named)} ({', '.join(named[:5])}): import each device's rows with its own descriptor")
    if named[0] != target and named[0] not in target:
        raise InputError(f"--descriptor {descriptor_path}: describes device {target!r}, the table's rows are of "
                         f"{named[0]!r}: name the device {target} in the table, or give its own descriptor")
    return [target] * len(device_of)


def _warn_uncounted(uncounted: list[tuple[str, str]], out) -> None:
    """One warning on stderr for the rows imported without counts (validate names them until filled)."""
    where, why = uncounted[0]
    print(f"kgraph dataset import: warning: {len(uncounted)} row(s) without counts (the static analysis "
          f"could not count them; first: {where}: {why}); give count columns ({', '.join(COUNT_COLUMNS[:3])}, "
          f"...) or the arguments the kernel needs, or run `kgraph dataset fill-counts {out}`; until then "
          "`kgraph dataset validate` lists them", file=sys.stderr)


def _number(rec, lower, column: str, where: str):
    """The value of an optional numeric column (None when absent or empty); InputError when it is not
    a finite number."""
    if column not in lower:
        return None
    value = rec.get(lower[column])
    if value is None or (isinstance(value, float) and value != value) or str(value).strip() == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: column {lower[column]!r} = {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{where}: column {lower[column]!r} = {value!r} must be finite")
    return number


def _timing(rec, lower, time_col, where: str) -> dict:
    """``median/min/max_time_ns, cv, repeats`` of a row, checked as ``validate`` checks an ok row."""
    try:
        time_ns = float(rec[time_col[0]]) * time_col[1]
    except (TypeError, ValueError):
        raise InputError(f"{where}: column {time_col[0]!r} = {rec[time_col[0]]!r} is not a number") from None
    if not (time_ns > 0 and math.isfinite(time_ns)):
        raise InputError(f"{where}: column {time_col[0]!r} must be a positive finite time")
    low = _number(rec, lower, "min_time_ns", where)
    high = _number(rec, lower, "max_time_ns", where)
    low, high = time_ns if low is None else low, time_ns if high is None else high
    if not 0 < low <= time_ns <= high:
        raise InputError(f"{where}: times must satisfy 0 < min_time_ns <= median ({time_ns:g} ns) <= max_time_ns "
                         f"(got {low:g}, {high:g})")
    repeats = _number(rec, lower, "repeats", where)
    repeats = 1 if repeats is None else repeats
    if repeats < 1 or repeats != int(repeats) or repeats > 2**31 - 1:
        raise InputError(f"{where}: column 'repeats' = {repeats:g} must be a whole number >= 1")
    cv = _number(rec, lower, "cv", where)
    cv = (high - low) / (2 * time_ns) if cv is None else cv  # half the range over the median
    if cv < 0:
        raise InputError(f"{where}: column 'cv' = {cv:g} must be >= 0")
    return {"median_time_ns": time_ns, "min_time_ns": low, "max_time_ns": high, "cv": cv, "repeats": int(repeats)}


def _counts(rec, lower, where: str, source: str, lang: str, name: str, args: dict, gsize, lsize):
    """(counts, counts_source, why unknown) of a row: the count columns given, the others from the static
    analysis where it can evaluate them; ``why`` is "" when every counter is known. ``counts_source``:
    "imported" (all given), "static" / "static-inexact" (none given: :func:`static_source`) or
    "imported+static" / "imported+static-inexact" (some given, the others static)."""
    given = {}
    for column in COUNT_COLUMNS:
        value = _number(rec, lower, column, where)
        if value is None:
            continue
        if value < 0 or value != int(value) or value > 2**63 - 1:
            raise InputError(f"{where}: column {lower[column]!r} = {value:g} must be a whole number >= 0")
        given[column] = int(value)
    needed = [c for c in COUNT_COLUMNS if c != "footprint_bytes" and c not in given]
    counted, why = {}, ""
    if needed:
        try:
            counted = static_counts(source, lang, name, args, gsize, lsize)
        except Exception as exc:  # noqa: BLE001 - any analysis failure leaves the counts unknown
            why = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        missing = [c for c in needed if counted.get(c, -1) < 0]
        if missing and not why:
            why = f"no static value for {', '.join(missing[:3])}"
    counts = {**{c: v for c, v in counted.items() if v is not None and v >= 0}, **given}
    if why:
        return counts, ("imported" if given else None), why
    if given and not counted:
        return counts, "imported", ""
    static = static_source(source, lang, name)  # analysed already (cached): "static" or "static-inexact"
    return counts, (f"imported+{static}" if given else static), ""


def _row(rec, cols, lower, time_col, device_id, where, store) -> tuple[dict, str]:
    """(launch row, why its counts are unknown or "") of one table record; its source is added to
    ``store``."""
    source = rec[cols["source"]]
    if not isinstance(source, str) or not source.strip():
        raise InputError(f"{where}: column {cols['source']!r} is empty (the kernel's source text)")
    name = str(rec[cols["kernel_name"]]).strip()
    if not name or name == "nan":
        raise InputError(f"{where}: column {cols['kernel_name']!r} is empty (the kernel's name)")
    lang = rec.get(lower.get("lang"), "opencl") if "lang" in lower else "opencl"
    lang = str(lang).strip().lower() if isinstance(lang, str) and lang.strip() else "opencl"
    if lang not in LANGS:
        raise InputError(f"{where}: column 'lang' = {lang!r}: expected one of {', '.join(LANGS)}")
    gsize = _sizes(rec[cols["global"]], cols["global"], where, True)
    lsize = _sizes(rec.get(cols["local"]) if cols["local"] else None, cols["local"] or "local", where, False,
                   MAX_LOCAL)
    if lsize is not None and len(lsize) != len(gsize):
        raise InputError(f"{where}: local size {lsize} and global size {gsize} have different dimensions")
    args = _arguments(rec, cols, where)
    status = str(rec.get(lower.get("status")) or "ok") if "status" in lower else "ok"
    status = "ok" if status == "nan" else status
    if status not in STATUSES:
        raise InputError(f"{where}: column 'status' = {status!r}: expected one of {', '.join(STATUSES)}")
    timing = _timing(rec, lower, time_col, where)
    source_id = source_id_of(source)
    kernel_id = _text(rec, lower, "kernel_id") or f"import.{source_id[:8]}.{name}"
    family = _text(rec, lower, "family") or "import"
    store.add_source({"source_id": source_id, "lang": lang, "kernel_id": kernel_id, "family": family,
                      "kernel_name": name, "source": source, "spec_json": "{}"})
    row = empty_row()
    g, l = gsize + [1, 1], (lsize or [0, 0, 0]) + [1, 1]
    row.update(key=launch_key(device_id, kernel_id, args, gsize, lsize), device_id=device_id,
               kernel_id=kernel_id, family=family, source_id=source_id, kernel_name=name,
               sizes=json.dumps(args, sort_keys=True), args=json.dumps(args, sort_keys=True), dims=len(gsize),
               g0=g[0], g1=g[1], g2=g[2], l0=l[0], l1=l[1], l2=l[2],
               status=status, message="imported", harness_version=HARNESS_VERSION, **timing)
    if status != "ok":
        return row, ""
    counts, counts_source, why = _counts(rec, lower, where, source, lang, name, args, gsize, lsize)
    row.update(counts)
    row["counts_source"] = counts_source
    return row, why


def _text(rec, lower, column: str) -> str:
    """The text of an optional column ("" when absent or empty)."""
    value = rec.get(lower[column]) if column in lower else None
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value).strip()


def _arguments(rec, cols, where: str) -> dict:
    """The scalar arguments of a row (a JSON object of numbers in the arguments column, or {})."""
    value = rec[cols["arguments"]] if cols["arguments"] else None
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        args = json.loads(value)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: column {cols['arguments']!r} is not a JSON object: {exc.msg}") from None
    if not isinstance(args, dict):
        raise InputError(f"{where}: column {cols['arguments']!r} must be a JSON object of scalar values")
    bad = [k for k, v in args.items() if isinstance(v, bool) or not isinstance(v, (int, float))
           or not math.isfinite(v)]
    if bad:
        raise InputError(f"{where}: column {cols['arguments']!r}: argument {bad[0]!r} = {args[bad[0]]!r} is not "
                         "a finite number")
    return args
