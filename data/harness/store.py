"""Crash-safe, resumable storage of a measured dataset folder.

Layout (``data/datasets/<device_id>/``)::

    manifest.json          completed keys, shard list, failed kernels, size ceilings
    launches-NNNNN.parquet one row per launch (schema in columns.LAUNCH_SCHEMA), zstd
    sources.parquet        each kernel source once (columns.SOURCE_SCHEMA)
    journal.jsonl          rows since the last shard, one JSON line each (write-ahead log)
    device.json            the device descriptor

Every finished launch is appended to the journal at once (a ``kill -9`` loses at most the launch in
flight). Every ``shard_rows`` rows or ``flush_s`` seconds the journal becomes a shard: the shard is
written to a temporary name and renamed, then ``sources.parquet`` and ``manifest.json`` the same
way, then the journal is emptied. On open, shards missing from the manifest are deleted and
journal entries whose keys the manifest already holds are dropped, so no row is ever duplicated.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgraph.errors import InputError, UsageError

from .columns import HARNESS_VERSION, LAUNCH_COLUMNS, LAUNCH_SCHEMA, SOURCE_SCHEMA

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
SOURCES = "sources.parquet"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _write_parquet_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd", compression_level=6)
    os.replace(tmp, path)


class DatasetStore:
    """Append-only writer of one dataset folder, resuming whatever a previous run left.

    Args:
        directory: the dataset folder (created if missing).
        device_id: recorded in the manifest; a folder of another device is refused.
        shard_rows: rows per shard; flush_s: also cut a shard after this many seconds.
    """

    def __init__(self, directory, device_id: str | None = None, shard_rows: int = 2000,
                 flush_s: float = 60.0):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.directory / ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"--out {self.directory}: another campaign is writing this folder") from None
        self.shard_rows, self.flush_s = shard_rows, flush_s
        self.manifest = self._load_manifest()
        if device_id is not None:
            if self.manifest.get("device_id") not in (None, device_id):
                raise UsageError(f"--out {self.directory}: holds device {self.manifest['device_id']!r}, "
                                 f"not {device_id!r}; use one folder per device")
            self.manifest["device_id"] = device_id
        self.completed_keys: set[str] = set(self.manifest["keys"])
        self._source_rows = self._load_sources()
        self.source_ids = {row["source_id"] for row in self._source_rows}
        self._pending: list[dict] = []
        self._new_sources = False
        self._last_flush = time.monotonic()
        self._remove_orphans()
        self._replay_journal()
        self._journal = open(self.directory / JOURNAL, "a", encoding="utf-8")

    # -- state -------------------------------------------------------------------------------
    def _load_manifest(self) -> dict:
        path = self.directory / MANIFEST
        if not path.exists():
            return {"format": 1, "device_id": None, "harness_version": HARNESS_VERSION, "shards": [],
                    "keys": [], "failed_kernels": {}, "ceilings": {}}
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}:{exc.colno}: manifest is not valid JSON: {exc.msg}") from None

    def _load_sources(self) -> list[dict]:
        path = self.directory / SOURCES
        return pq.read_table(path).to_pylist() if path.exists() else []

    def _remove_orphans(self) -> None:
        listed = {s["file"] for s in self.manifest["shards"]}
        for path in self.directory.iterdir():
            if path.name.endswith(".tmp") or (
                    path.name.startswith("launches-") and path.suffix == ".parquet" and path.name not in listed):
                path.unlink()

    def _replay_journal(self) -> None:
        path = self.directory / JOURNAL
        if not path.exists():
            return
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # the line being written when the process died
            self._apply(entry)
        self.flush()

    def _apply(self, entry: dict) -> None:
        kind = entry.pop("t", None)
        if kind == "row" and entry.get("key") not in self.completed_keys:
            self.completed_keys.add(entry["key"])
            self._pending.append({name: entry.get(name) for name in LAUNCH_COLUMNS})
        elif kind == "source" and entry["source_id"] not in self.source_ids:
            self.source_ids.add(entry["source_id"])
            self._source_rows.append(entry)
            self._new_sources = True
        elif kind == "failed":
            self.manifest["failed_kernels"][entry["kernel_id"]] = {"status": entry["status"],
                                                                   "message": entry["message"]}
        elif kind == "ceiling":
            old = self.manifest["ceilings"].get(entry["kernel_id"])
            self.manifest["ceilings"][entry["kernel_id"]] = entry["work"] if old is None else min(old, entry["work"])

    def _log(self, entry: dict) -> None:
        self._journal.write(json.dumps(entry, default=_json_default) + "\n")
        self._journal.flush()

    # -- writing -----------------------------------------------------------------------------
    def add_source(self, row: dict) -> str:
        """Record a source (``SOURCE_SCHEMA`` fields) once; returns its ``source_id``."""
        if row["source_id"] not in self.source_ids:
            entry = {"t": "source", **{name: row[name] for name in SOURCE_SCHEMA.names}}
            self._log(entry)
            self._apply(entry)
        return row["source_id"]

    def append(self, row: dict) -> bool:
        """Journal one launch row; False (and nothing written) when its key is already stored."""
        if row["key"] in self.completed_keys:
            return False
        entry = {"t": "row", **{name: row.get(name) for name in LAUNCH_COLUMNS}}
        self._log(entry)
        self._apply(entry)
        if len(self._pending) >= self.shard_rows or time.monotonic() - self._last_flush >= self.flush_s:
            self.flush()
        return True

    def mark_failed(self, kernel_id: str, status: str, message: str) -> None:
        """Remember that a kernel cannot be measured on this device (build error, crash, ...)."""
        self._log({"t": "failed", "kernel_id": kernel_id, "status": status, "message": message[:2000]})
        self.manifest["failed_kernels"][kernel_id] = {"status": status, "message": message[:2000]}

    def add_ceiling(self, kernel_id: str, work: float) -> None:
        """Launches of this kernel whose problem-size product reaches ``work`` are too slow here."""
        entry = {"t": "ceiling", "kernel_id": kernel_id, "work": float(work)}
        self._log(entry)
        self._apply(entry)

    def flush(self) -> None:
        """Turn pending rows into a shard and commit the manifest; then empty the journal."""
        if self._pending:
            index = max((int(s["file"][9:14]) for s in self.manifest["shards"]), default=-1) + 1
            name = f"launches-{index:05d}.parquet"
            table = pa.Table.from_pylist(self._pending, schema=LAUNCH_SCHEMA)
            _write_parquet_atomic(table, self.directory / name)
            self.manifest["shards"].append({"file": name, "rows": len(self._pending)})
            self.manifest["keys"].extend(row["key"] for row in self._pending)
        if self._new_sources:
            _write_parquet_atomic(pa.Table.from_pylist(self._source_rows, schema=SOURCE_SCHEMA),
                                  self.directory / SOURCES)
        self.manifest["harness_version"] = HARNESS_VERSION
        _atomic_write_bytes(self.directory / MANIFEST, json.dumps(self.manifest, indent=1).encode())
        self._pending, self._new_sources = [], False
        self._last_flush = time.monotonic()
        if hasattr(self, "_journal"):
            self._journal.truncate(0)
            self._journal.seek(0)
        else:
            (self.directory / JOURNAL).write_text("")

    def update_rows(self, updates: dict[str, dict]) -> int:
        """Change columns of committed rows (``{key: {column: value}}``; ``kgraph dataset fill-counts``).

        Pending journal rows are committed first; then every shard holding one of the keys is
        rewritten whole, to a temporary name and renamed over the old one (as a new shard is
        written), so a kill leaves each shard either all old or all new and the manifest (file
        names, row counts, keys) stays true. Returns the number of rows changed."""
        self.flush()
        left = dict(updates)
        changed = 0
        for shard in self.manifest["shards"]:
            if not left:
                break
            path = self.directory / shard["file"]
            keys = pq.read_table(path, columns=["key"]).column("key").to_pylist()
            hit = [i for i, key in enumerate(keys) if key in left]
            if not hit:
                continue
            table = pq.read_table(path)
            for name in sorted({name for i in hit for name in left[keys[i]]}):
                index = table.schema.get_field_index(name)
                if index < 0:
                    raise InputError(f"{path}: no column {name!r} to update")
                values = table.column(index).to_pylist()
                for i in hit:
                    if name in left[keys[i]]:
                        values[i] = left[keys[i]][name]
                field = table.schema.field(index)
                table = table.set_column(index, field, pa.array(values, type=field.type))
            _write_parquet_atomic(table, path)
            changed += len(hit)
            for i in hit:
                left.pop(keys[i], None)
        return changed

    def remove_rows(self, keys: set[str]) -> int:
        """Delete committed rows and forget their keys, so a later campaign measures them again
        (``kgraph dataset fill-counts --drop-irreproducible``). Returns the number of rows removed.

        Each touched shard is rewritten without the rows (temporary name, then rename; a shard left
        empty is deleted after the manifest stops naming it); the manifest is written after the
        shards. A kill in between leaves keys in the manifest whose rows are gone: those launches are
        then not measured again, but no row is ever duplicated."""
        self.flush()
        keys = set(keys)
        removed, emptied = 0, []
        for shard in self.manifest["shards"]:
            path = self.directory / shard["file"]
            shard_keys = pq.read_table(path, columns=["key"]).column("key").to_pylist()
            keep = [i for i, key in enumerate(shard_keys) if key not in keys]
            if len(keep) == len(shard_keys):
                continue
            removed += len(shard_keys) - len(keep)
            shard["rows"] = len(keep)
            if keep:
                _write_parquet_atomic(pq.read_table(path).take(pa.array(keep, type=pa.int64())), path)
            else:
                emptied.append(shard["file"])
        if not removed:
            return 0
        self.manifest["shards"] = [s for s in self.manifest["shards"] if s["file"] not in emptied]
        self.manifest["keys"] = [k for k in self.manifest["keys"] if k not in keys]
        self.completed_keys -= keys
        _atomic_write_bytes(self.directory / MANIFEST, json.dumps(self.manifest, indent=1).encode())
        for name in emptied:
            (self.directory / name).unlink(missing_ok=True)
        return removed

    def close(self) -> None:
        self.flush()
        self._journal.close()
        (self.directory / JOURNAL).unlink(missing_ok=True)
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def failed_kernels(self) -> dict:
        return self.manifest["failed_kernels"]

    @property
    def ceilings(self) -> dict:
        return self.manifest["ceilings"]


def _json_default(value):
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    raise TypeError(f"cannot store {type(value).__name__} in a launch row")


def read_launches(directory):
    """All committed launch rows of a dataset folder as a pandas DataFrame (manifest's shards)."""
    import pandas as pd

    directory = Path(directory)
    path = directory / MANIFEST
    if not path.exists():
        raise InputError(f"{directory}: not a dataset folder (no {MANIFEST})")
    manifest = json.loads(path.read_text())
    tables = [pq.read_table(directory / s["file"]) for s in manifest["shards"]]
    if not tables:
        return LAUNCH_SCHEMA.empty_table().to_pandas()
    # shards of older harness versions lack newer columns: unify to LAUNCH_SCHEMA (nulls there)
    tables = [t if t.schema.names == LAUNCH_SCHEMA.names else _to_schema(t) for t in tables]
    return pa.concat_tables(tables).to_pandas() if len(tables) > 1 else tables[0].to_pandas()


def _to_schema(table):
    """``table`` with LAUNCH_SCHEMA's columns in order, absent ones all null."""
    columns = [table.column(f.name).cast(f.type) if f.name in table.schema.names
               else pa.nulls(table.num_rows, f.type) for f in LAUNCH_SCHEMA]
    return pa.Table.from_arrays(columns, schema=LAUNCH_SCHEMA)


def read_sources(directory):
    """``sources.parquet`` of a dataset folder as a pandas DataFrame (empty if absent)."""
    path = Path(directory) / SOURCES
    table = pq.read_table(path) if path.exists() else SOURCE_SCHEMA.empty_table()
    return table.to_pandas()
