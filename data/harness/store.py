"""Crash-safe, resumable storage of a measured dataset folder: :class:`DatasetStore`, its only writer.

Every finished launch is appended to the journal at once (a ``kill -9`` loses at most the launch in
flight). Every ``shard_rows`` rows or ``flush_s`` seconds the journal becomes a shard: the shard is
written to a temporary name and renamed, then ``sources.parquet`` and ``manifest.json`` the same
way, then the journal is emptied (durable writes and the folder's layout: :mod:`.store_files`). On
open, journal entries whose keys the manifest already holds are dropped, and a shard missing from the
manifest is deleted only when it is the leftover of such a cut (every row of it in the journal or the
manifest), so no row is ever duplicated or lost. A folder whose files disagree (unreadable or missing
shard, wrong row count, orphan shard, bad manifest) is answered with an InputError saying what is
wrong and how to repair it (``kgraph dataset repair DIR``, :mod:`kgraph.data.harness.repair`).

The folder's readers (:mod:`.store_read`) and file helpers are re-exported here, their historical home.
"""
from __future__ import annotations

import fcntl
import json
import math
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgraph.errors import InputError, UsageError

from .columns import COMPUTED_ON_READ, HARNESS_VERSION, LAUNCH_COLUMNS, LAUNCH_SCHEMA, SOURCE_SCHEMA, STORED_SCHEMA
from .shard_keys import has_derived_keys
from .store_files import (  # noqa: F401 - re-exported: defined there, imported from here by many modules
    DAMAGED, JOURNAL, MANIFEST, MANIFEST_FORMAT, SHARD_NAME, SOURCES, _first_line, _fsync_dir, atomic_write_bytes,
    damaged, is_archival, manifest_bytes, move_aside, repair_hint, write_parquet_atomic, write_shard)
from .store_read import (  # noqa: F401 - re-exported: defined there, imported from here by many modules
    _shard_keys_or_none, _to_schema, check_manifest, check_shards, journal_entries, manifest_keys, read_launches,
    read_manifest, read_shard, read_sources, read_sources_table, shard_path)


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
        if self.directory.exists() and not self.directory.is_dir():
            raise UsageError(f"{self.directory}: a file, not a dataset folder; give a folder (new or existing)")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._lock = open(self.directory / ".lock", "w")
        except OSError as exc:
            raise InputError(f"{self.directory}: cannot use as a dataset folder ({exc.strerror or exc})") from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise UsageError(f"--out {self.directory}: another campaign is writing this folder") from None
        try:
            self._open(device_id, shard_rows, flush_s)
        except BaseException:  # a damaged folder: give the lock back before saying so
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            raise

    def _open(self, device_id: str | None, shard_rows: int, flush_s: float) -> None:
        """Load the manifest and sources, settle what a killed run left, open the journal (lock held)."""
        self.shard_rows, self.flush_s = shard_rows, flush_s
        self.manifest = self._load_manifest()
        if device_id is not None:
            if self.manifest.get("device_id") not in (None, device_id):
                raise UsageError(f"--out {self.directory}: holds device {self.manifest['device_id']!r}, "
                                 f"not {device_id!r}; use one folder per device")
            self.manifest["device_id"] = device_id
        check_shards(self.directory, self.manifest)  # nothing is written into a damaged folder
        # the committed keys, kept here only: a manifest is written without them (format 2)
        self.completed_keys: set[str] = set(manifest_keys(self.directory, self.manifest))
        self.manifest.pop("keys", None)
        self._source_rows = self._load_sources()
        self.source_ids = {row["source_id"] for row in self._source_rows}
        self._pending: list[dict] = []
        self._new_sources = False
        self._last_flush = time.monotonic()
        for name in (JOURNAL, MANIFEST, SOURCES):  # written in place or renamed over: never through a link
            if (self.directory / name).is_symlink():
                raise damaged(self.directory, f"{name} is a symbolic link (it would be written through it, "
                                              f"outside the dataset folder)")
            if (self.directory / name).is_dir():
                raise damaged(self.directory, f"{name} is a folder, not a file")
        entries = self._journal_entries()
        self._remove_orphans(entries)
        self._replay_journal(entries)
        self._journal = open(self.directory / JOURNAL, "a", encoding="utf-8")

    # -- state -------------------------------------------------------------------------------
    def _load_manifest(self) -> dict:
        if not (self.directory / MANIFEST).exists():
            return {"format": MANIFEST_FORMAT, "device_id": None, "harness_version": HARNESS_VERSION,
                    "shards": [], "failed_kernels": {}, "ceilings": {}}
        return read_manifest(self.directory)

    def _load_sources(self) -> list[dict]:
        return read_sources_table(self.directory).to_pylist()

    def _journal_entries(self) -> list[dict]:
        """The journal's entries (a line cut short by a kill is skipped)."""
        return journal_entries(self.directory)

    def _remove_orphans(self, entries: list[dict]) -> None:
        """Delete temporary files and the shards a kill left between their rename and the manifest's
        (every row of such a shard is in the journal or already committed); any other shard the manifest
        does not list is moved to ``damaged/`` with a message on stderr (never deleted)."""
        listed = {s["file"] for s in self.manifest["shards"]}
        journaled = {e.get("key") for e in entries if e.get("t") == "row" and isinstance(e.get("key"), str)}
        for path in sorted(self.directory.iterdir()):
            if path.name.endswith(".tmp") and path.is_file():
                path.unlink()
            elif SHARD_NAME.fullmatch(path.name) and path.name not in listed:
                keys = _shard_keys_or_none(path)
                if keys is not None and not path.is_symlink() and set(keys) <= journaled | self.completed_keys:
                    path.unlink()
                    continue
                why = "unreadable" if keys is None else f"{len(set(keys) - journaled - self.completed_keys)} rows " \
                                                        f"stored nowhere else"
                moved = move_aside(self.directory, path)
                print(f"{self.directory}: shard {path.name} is not in {MANIFEST} ({why}): moved to {moved}; "
                      f"its launches count as not measured", file=sys.stderr)

    def _replay_journal(self, entries: list[dict]) -> None:
        """Commit what the journal holds beyond the manifest (a run killed before its last flush)."""
        if not (self.directory / JOURNAL).exists():
            return
        for entry in entries:
            self._apply(entry, check=True)
        self.flush()

    def _apply(self, entry: dict, check: bool = False) -> None:
        try:
            entry = dict(entry)
            if check:  # from the journal: a row or source whose values do not fit the schema would break
                # the next flush (a traceback on every open); check it converts before taking it
                kind = entry.get("t")
                if kind == "row":
                    pa.Table.from_pylist([{name: entry.get(name) for name in LAUNCH_COLUMNS}], schema=LAUNCH_SCHEMA)
                elif kind == "source":
                    pa.Table.from_pylist([{k: v for k, v in entry.items() if k != "t"}], schema=SOURCE_SCHEMA)
                elif kind == "ceiling" and not (isinstance(entry.get("kernel_id"), str)
                                                and math.isfinite(float(entry["work"]))):
                    return
                elif kind == "failed" and not isinstance(entry.get("kernel_id"), str):
                    return
            self._apply_entry(entry)
        except (KeyError, TypeError, ValueError, OverflowError, pa.ArrowException):
            pass  # a malformed journal line (hand-edited or garbage): nothing to commit from it

    def _apply_entry(self, entry: dict) -> None:
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
            index = max((int(SHARD_NAME.fullmatch(s["file"]).group(1)) for s in self.manifest["shards"]),
                        default=-1) + 1
            name = f"launches-{index:05d}.parquet"
            write_shard(pa.Table.from_pylist(self._pending, schema=STORED_SCHEMA), self.directory / name)
            self.manifest["shards"].append({"file": name, "rows": len(self._pending)})
        if self._new_sources:
            write_parquet_atomic(pa.Table.from_pylist(self._source_rows, schema=SOURCE_SCHEMA),
                                  self.directory / SOURCES)
        self.manifest["harness_version"] = HARNESS_VERSION
        atomic_write_bytes(self.directory / MANIFEST, manifest_bytes(self.manifest))
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
        names, row counts, keys) stays true. A column computed on read (``columns.COMPUTED_ON_READ``) is
        not stored: an update of one is skipped (the reader recomputes it from the updated counts), and a
        rewritten shard of an older layout loses its stored copies. Returns the number of rows changed."""
        self.flush()
        left = dict(updates)
        changed = 0
        for shard in self.manifest["shards"]:
            if not left:
                break
            path = shard_path(self.directory, shard["file"])
            keys = read_shard(self.directory, shard["file"], columns=["key"]).column("key").to_pylist()
            hit = [i for i, key in enumerate(keys) if key in left]
            if not hit:
                continue
            table = read_shard(self.directory, shard["file"])
            for name in sorted({name for i in hit for name in left[keys[i]]} - set(COMPUTED_ON_READ)):
                index = table.schema.get_field_index(name)
                if index < 0:
                    raise InputError(f"{path}: no column {name!r} to update")
                values = table.column(index).to_pylist()
                for i in hit:
                    if name in left[keys[i]]:
                        values[i] = left[keys[i]][name]
                field = table.schema.field(index)
                table = table.set_column(index, field, pa.array(values, type=field.type))
            write_shard(table, path)
            changed += len(hit)
            for i in hit:
                left.pop(keys[i], None)
        return changed

    def remove_rows(self, keys: set[str]) -> int:
        """Delete committed rows and forget their keys, so a later campaign measures them again
        (``kgraph dataset fill-counts --drop-irreproducible``). Returns the number of rows removed.

        Each touched shard is rewritten without the rows (temporary name, then rename; a shard left
        empty is deleted after the manifest stops naming it); the manifest is written after the
        shards. A kill in between leaves a shard whose row count differs from the manifest's: the folder
        then reports it (``kgraph dataset repair`` rebuilds the manifest from the shards), and no row is
        ever duplicated."""
        self.flush()
        keys = set(keys)
        removed, emptied = 0, []
        for shard in self.manifest["shards"]:
            path = shard_path(self.directory, shard["file"])
            shard_keys = read_shard(self.directory, shard["file"], columns=["key"]).column("key").to_pylist()
            keep = [i for i, key in enumerate(shard_keys) if key not in keys]
            if len(keep) == len(shard_keys):
                continue
            removed += len(shard_keys) - len(keep)
            shard["rows"] = len(keep)
            # an emptied shard is first written empty: a kill before the manifest leaves no lost rows in it
            write_shard(read_shard(self.directory, shard["file"]).take(pa.array(keep, type=pa.int64())), path)
            if not keep:
                emptied.append(shard["file"])
        if not removed:
            return 0
        self.manifest["shards"] = [s for s in self.manifest["shards"] if s["file"] not in emptied]
        self.completed_keys -= keys
        atomic_write_bytes(self.directory / MANIFEST, manifest_bytes(self.manifest))
        for name in emptied:
            (self.directory / name).unlink(missing_ok=True)
        _fsync_dir(self.directory)
        return removed

    def compact(self) -> tuple[int, int]:
        """Rewrite the committed shards as one (rows in order, this harness's stored schema,
        ``columns.STORED_SCHEMA``; older shards' missing columns null, as every reader sees them, and their
        stored copies of the columns computed on read dropped): one file and one parquet footer instead of
        one per flush, written for keeping (``store_files.write_parquet_atomic(archival=True)``), and the
        sources file too. A single shard is rewritten only when its columns are not the stored schema (a
        folder of an older layout is migrated) or it was not written for keeping; an already compact folder
        is left as it is. Returns ``(shards before, rows)``.

        The new shard is written first, then the manifest naming only it, then the old shards are deleted:
        a kill in between leaves shards the manifest does not list whose rows are all committed, which the
        next open deletes (:meth:`_remove_orphans`); no row is lost or duplicated."""
        self.flush()
        old = [s["file"] for s in self.manifest["shards"]]
        rows = sum(s["rows"] for s in self.manifest["shards"])
        self._archive_sources()
        if not old or (len(old) == 1 and self._stored_schema(old[0])
                       and is_archival(shard_path(self.directory, old[0]))):
            return len(old), rows
        tables = [read_shard(self.directory, name) for name in old]
        table = pa.concat_tables([t if t.schema.equals(STORED_SCHEMA) else _to_schema(t, STORED_SCHEMA)
                                  for t in tables])
        name = f"launches-{max(int(SHARD_NAME.fullmatch(n).group(1)) for n in old) + 1:05d}.parquet"
        write_shard(table, self.directory / name, archival=True)
        self.manifest["shards"] = [{"file": name, "rows": table.num_rows}]
        atomic_write_bytes(self.directory / MANIFEST, manifest_bytes(self.manifest))
        for done in old:
            (self.directory / done).unlink(missing_ok=True)
        _fsync_dir(self.directory)
        return len(old), rows

    def _archive_sources(self) -> None:
        """Rewrite ``sources.parquet`` for keeping, unless it already is (same rows)."""
        path = self.directory / SOURCES
        if self._source_rows and not (path.exists() and is_archival(path)):
            write_parquet_atomic(pa.Table.from_pylist(self._source_rows, schema=SOURCE_SCHEMA), path, archival=True)

    def _stored_schema(self, name: str) -> bool:
        """Whether shard ``name`` holds exactly the stored schema's columns and types (its footer only), the
        ``key`` column aside where the shard leaves it to be recomputed on read."""
        schema = pq.read_schema(shard_path(self.directory, name))
        if has_derived_keys(schema):
            return schema.equals(STORED_SCHEMA.remove(STORED_SCHEMA.get_field_index("key")))
        return schema.equals(STORED_SCHEMA)

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
