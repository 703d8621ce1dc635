"""Readers of a dataset folder (manifest, shards, launches, sources, journal), each checked and confined.

Shard names in the manifest are plain ``launches-NNNNN.parquet`` names inside the folder: any other
name (``../../etc/passwd``, an absolute path, a symbolic link) is refused before a file is opened.
A folder whose files disagree (unreadable or missing shard, wrong row count, bad manifest) is answered
with an InputError saying what is wrong and how to repair it (:func:`~kgraph.data.harness.store_files.damaged`).
"""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgraph.errors import InputError

from .columns import LAUNCH_SCHEMA, SOURCE_SCHEMA
from .derived import folder_roofline, with_derived
from .shard_keys import KEY_INPUTS, has_derived_keys, with_keys
from .store_files import JOURNAL, MANIFEST, READ_FORMATS, SHARD_NAME, SOURCES, _first_line, damaged

#: what reading a damaged parquet file raises (a column name that is not UTF-8: UnicodeDecodeError, a ValueError)
UNREADABLE = (pa.ArrowException, OSError, ValueError)


def read_parquet(path, columns=None) -> pa.Table:
    """The table of a parquet file with every column name decoded (a flipped bit in the footer can leave
    one that is not UTF-8, which pyarrow only finds when the names are read); raises :data:`UNREADABLE`.

    Args:
        path: the file; columns: only these columns.
    """
    schema = pq.read_schema(path)
    schema.names  # noqa: B018 - decoded here, not later in a reader that assumes it can
    if not has_derived_keys(schema) or (columns is not None and "key" not in columns):
        return pq.read_table(path, columns=columns)
    # an archival shard without its keys (shard_keys): they are recomputed from the row, bit-equal
    rest = None if columns is None else [c for c in columns if c != "key"]
    needed = None if rest is None else rest + [c for c in KEY_INPUTS if c not in rest]
    table = with_keys(pq.read_table(path, columns=needed))
    return table if columns is None else table.select(list(columns))


def shard_path(directory, name) -> Path:
    """The path of shard ``name`` of ``directory``; InputError unless it is a plain
    ``launches-NNNNN.parquet`` name of a file (not a link) in the folder itself.

    Args:
        directory: the dataset folder; name: the ``file`` of a manifest shard entry.
    """
    directory = Path(directory)
    if not isinstance(name, str) or not SHARD_NAME.fullmatch(name):
        raise damaged(directory, f"{MANIFEST} names a shard {name!r}: shard names must be "
                                 f"launches-NNNNN.parquet inside the folder; refused")
    path = directory / name
    if path.is_symlink():
        raise damaged(directory, f"shard {name} is a symbolic link; refused (shards are plain files)")
    return path


def check_manifest(manifest, directory) -> dict:
    """``manifest`` when it has the structure every reader relies on; InputError saying what is wrong.

    Args:
        manifest: the parsed ``manifest.json``; directory: its folder (for messages and shard names).
    """
    if not isinstance(manifest, dict):
        raise damaged(directory, f"{MANIFEST} is not a JSON object")
    fmt = manifest.get("format", 1)
    if fmt not in READ_FORMATS:
        raise InputError(f"{directory}: {MANIFEST} has format {fmt!r}; this kgraph reads formats "
                         f"{', '.join(map(str, READ_FORMATS))}")
    shards, keys = manifest.get("shards"), manifest.get("keys")
    if not isinstance(shards, list) or not all(isinstance(e, dict) for e in shards):
        raise damaged(directory, f"{MANIFEST}: 'shards' must be a list of {{\"file\", \"rows\"}} objects")
    if (fmt == 1 or keys is not None) and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
        raise damaged(directory, f"{MANIFEST}: 'keys' must be a list of strings")
    for entry in shards:
        shard_path(directory, entry.get("file"))
        rows = entry.get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            raise damaged(directory, f"{MANIFEST}: shard {entry['file']} has rows {rows!r}, not a count")
    if len({e["file"] for e in shards}) != len(shards):
        raise damaged(directory, f"{MANIFEST} lists a shard twice")
    for name in ("failed_kernels", "ceilings"):
        if not isinstance(manifest.setdefault(name, {}), dict):
            raise damaged(directory, f"{MANIFEST}: {name!r} must be an object")
    return manifest


def read_manifest(directory) -> dict:
    """The checked ``manifest.json`` of a dataset folder (InputError when missing, unreadable or malformed)."""
    directory = Path(directory)
    path = directory / MANIFEST
    if directory.exists() and not directory.is_dir():
        raise InputError(f"{directory}: a file, not a dataset folder")
    if not path.exists():
        raise InputError(f"{directory}: not a dataset folder (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise damaged(directory, f"{MANIFEST}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise damaged(directory, f"{MANIFEST} is not JSON text ({exc.__class__.__name__})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return check_manifest(manifest, directory)


def read_shard(directory, name: str, columns=None) -> pa.Table:
    """Shard ``name`` of ``directory`` (confined, see :func:`shard_path`); InputError when it is missing
    or not a readable parquet file (truncated, garbage).

    Args:
        directory: the dataset folder; name: the shard's file name; columns: only these columns.
    """
    path = shard_path(directory, name)
    if not path.is_file():
        raise damaged(directory, f"shard {name} is listed in {MANIFEST} but missing")
    try:
        return read_parquet(path, columns)
    except UNREADABLE as exc:
        raise damaged(directory, f"shard {name} cannot be read (truncated or not parquet: "
                                 f"{_first_line(exc)})") from None


def manifest_keys(directory, manifest: dict) -> list[str]:
    """The committed launch keys of a dataset folder: a format-1 manifest's ``keys`` list, else the ``key``
    column of every shard the manifest lists (InputError, with the repair, for a missing or unreadable one).

    Args:
        directory: the dataset folder; manifest: its checked manifest (:func:`check_manifest`).
    """
    if manifest.get("keys") is not None:
        return list(manifest["keys"])
    keys: list[str] = []
    for entry in manifest["shards"]:
        keys += read_shard(directory, entry["file"], columns=["key"]).column("key").to_pylist()
    return keys


def check_shards(directory, manifest: dict) -> None:
    """Every shard ``manifest`` lists is there, a parquet file (footer only) with the manifest's row count;
    InputError saying how to repair otherwise.

    Args:
        directory: the dataset folder; manifest: its checked manifest (:func:`check_manifest`).
    """
    for entry in manifest["shards"]:
        path = shard_path(directory, entry["file"])
        if not path.is_file():
            raise damaged(directory, f"shard {entry['file']} is listed in {MANIFEST} but missing")
        try:
            rows = pq.read_metadata(path).num_rows
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise damaged(directory, f"shard {entry['file']} cannot be read (truncated or not parquet: "
                                     f"{_first_line(exc)})") from None
        if rows != entry["rows"]:
            raise damaged(directory, f"shard {entry['file']} holds {rows} rows, {MANIFEST} says {entry['rows']}")


def read_launches(directory, check_rows: bool = True):
    """All committed launch rows of a dataset folder as a pandas DataFrame (manifest's shards), with
    LAUNCH_SCHEMA's columns: the ones computed on read (``columns.COMPUTED_ON_READ``) from the folder's
    ``device.json`` roofline (:func:`~kgraph.data.harness.derived.with_derived`; without a usable
    ``device.json`` they are what an old shard stored, else null).

    Args:
        directory: the dataset folder.
        check_rows: refuse (InputError) a shard whose row count differs from the manifest's.

    Raises InputError saying what is wrong and how to repair it for a missing, unreadable or wrongly
    named shard and a malformed manifest.
    """
    directory = Path(directory)
    manifest = read_manifest(directory)
    tables = []
    for entry in manifest["shards"]:
        table = read_shard(directory, entry["file"])
        if check_rows and table.num_rows != entry["rows"]:
            raise damaged(directory, f"shard {entry['file']} holds {table.num_rows} rows, {MANIFEST} says "
                                     f"{entry['rows']}")
        if "key" not in table.schema.names:
            raise damaged(directory, f"shard {entry['file']} has no 'key' column: not a launch shard")
        tables.append(table)
    if not tables:
        return LAUNCH_SCHEMA.empty_table().to_pandas()
    # shards store STORED_SCHEMA, those of older harness versions lack newer columns or still hold the
    # derived ones: unify to LAUNCH_SCHEMA (nulls there), then compute the derived columns (one definition)
    try:
        tables = [t if t.schema.names == LAUNCH_SCHEMA.names else _to_schema(t) for t in tables]
    except (pa.ArrowException, ValueError) as exc:
        raise damaged(directory, f"a shard's columns do not convert to the launch schema ({_first_line(exc)})") from None
    frame = pa.concat_tables(tables).to_pandas() if len(tables) > 1 else tables[0].to_pandas()
    return with_derived(frame, folder_roofline(directory))


def _to_schema(table, schema=LAUNCH_SCHEMA):
    """``table`` with ``schema``'s columns in order (LAUNCH_SCHEMA's unless given), absent ones all null."""
    columns = [table.column(f.name).cast(f.type) if f.name in table.schema.names
               else pa.nulls(table.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def read_sources_table(directory) -> pa.Table:
    """``sources.parquet`` of a dataset folder as a pyarrow Table (empty if absent; InputError with the
    repair hint when it cannot be read)."""
    path = Path(directory) / SOURCES
    if not path.exists():
        return SOURCE_SCHEMA.empty_table()
    try:
        table = read_parquet(path)
    except UNREADABLE as exc:
        raise damaged(directory, f"{SOURCES} cannot be read (truncated or not parquet: {_first_line(exc)})") from None
    if "source_id" not in table.schema.names:
        raise damaged(directory, f"{SOURCES} has no 'source_id' column")
    return table


def read_sources(directory):
    """``sources.parquet`` of a dataset folder as a pandas DataFrame (empty if absent)."""
    return read_sources_table(directory).to_pandas()


def journal_entries(directory) -> list[dict]:
    """The entries of a dataset folder's ``journal.jsonl`` (rows not yet in a shard, sources, failures,
    ceilings); a line cut short by a kill, or not an object, is skipped."""
    path = Path(directory) / JOURNAL
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # the line being written when the process died
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _shard_keys_or_none(path: Path) -> list | None:
    """The ``key`` column of a parquet file, None when it cannot be read."""
    try:
        return read_parquet(path, columns=["key"]).column("key").to_pylist()
    except (pa.ArrowException, OSError, ValueError, KeyError):
        return None
