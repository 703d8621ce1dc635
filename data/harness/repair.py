"""``kgraph dataset repair DIR``: rebuild a damaged dataset folder's manifest from its intact shards.

What it does, under the folder's lock (not while a campaign writes it):

1. Every ``launches-NNNNN.parquet`` in the folder is read whole. An unreadable one (truncated,
   garbage), a symbolic link, or one without a ``key`` column is moved to ``damaged/``; rows whose
   key an earlier shard already holds are dropped from the later one (its original goes to
   ``damaged/`` first; the rest is written without the columns computed on read,
   ``columns.COMPUTED_ON_READ``). Nothing is ever deleted.
2. ``manifest.json`` is written anew from the shards kept: their names and real row counts, and
   their keys. Failed kernels, size ceilings and the device id of the old manifest are kept when it
   can still be read; a manifest that cannot be read is moved to ``damaged/``. Entries naming files
   outside the folder are dropped, never followed.
3. An unreadable ``sources.parquet`` or ``device.json`` is moved to ``damaged/`` (a campaign measures
   the device again; sources of kernels it visits again are recorded again).
4. The store is opened once, which commits the rows a killed campaign left in ``journal.jsonl``.

The lines returned say what was done; ``kgraph dataset validate`` afterwards lists what is left
(e.g. rows whose ``source_id`` lost its source).
"""
from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pyarrow as pa

from kgraph.errors import InputError, UsageError

from .columns import HARNESS_VERSION
from .store import (JOURNAL, MANIFEST, MANIFEST_FORMAT, SHARD_NAME, SOURCES, DatasetStore, atomic_write_bytes,
                    check_manifest, move_aside, read_sources_table)
from .store_files import _first_line, manifest_bytes, write_shard
from .store_read import UNREADABLE, read_parquet


def repair_dataset(directory) -> list[str]:
    """Repair the dataset folder ``directory`` (see the module doc); returns what was done, one line each.

    Args:
        directory: the dataset folder.

    Raises UsageError when it is not a folder or a campaign holds its lock.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise UsageError(f"{directory}: not a folder")
    if not (directory / MANIFEST).exists() and not (directory / JOURNAL).exists() and \
            not any(SHARD_NAME.fullmatch(p.name) for p in directory.iterdir()):
        raise UsageError(f"{directory}: not a dataset folder (no {MANIFEST}, {JOURNAL} or launches-*.parquet)")
    done: list[str] = []
    with _locked(directory):
        old = _old_manifest(directory, done)
        shards, keys, device_ids = _intact_shards(directory, old, done)
        _check_side_files(directory, done)
        manifest = _new_manifest(old, shards, keys, device_ids)
        if _stored(manifest) != _stored(old):  # a format-1 manifest (its format, its key list) is rewritten too
            atomic_write_bytes(directory / MANIFEST, manifest_bytes(manifest))
            done.append(f"wrote {MANIFEST}: {len(shards)} shard(s), {len(keys)} row(s)")
    before = len(manifest["keys"])
    store = DatasetStore(directory)  # commits the journal a killed campaign left
    after = len(store.completed_keys)
    store.close()
    if after > before:
        done.append(f"committed {after - before} row(s) from journal.jsonl")
    return done or ["nothing to repair"]


class _locked:
    """The folder's ``.lock`` held for the block (UsageError when a campaign holds it)."""

    def __init__(self, directory: Path):
        self.directory = directory

    def __enter__(self):
        self.fh = open(self.directory / ".lock", "w")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.fh.close()
            raise UsageError(f"{self.directory}: a campaign (or fill-counts) is writing this folder; "
                             f"repair it after that ends") from None
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def _old_manifest(directory: Path, done: list[str]) -> dict:
    """The old manifest's reusable fields (empty ones when it is missing or unreadable; moved aside then).

    Args:
        directory: the dataset folder; done: the report lines (appended to).
    """
    path = directory / MANIFEST
    fresh = {"format": MANIFEST_FORMAT, "device_id": None, "harness_version": HARNESS_VERSION,
             "shards": [], "keys": [], "failed_kernels": {}, "ceilings": {}}
    if not path.exists():
        done.append(f"no {MANIFEST}: rebuilt from the shards")
        return fresh
    try:
        raw = json.loads(path.read_bytes())
    except (ValueError, OSError) as exc:
        moved = move_aside(directory, path)
        done.append(f"moved {MANIFEST} to {moved} (not readable JSON: {exc.__class__.__name__})")
        return fresh
    try:
        return check_manifest(raw, directory)
    except InputError:
        pass
    if not isinstance(raw, dict):
        moved = move_aside(directory, path)
        done.append(f"moved {MANIFEST} to {moved} (not a JSON object)")
        return fresh
    salvaged = dict(fresh)
    for name in ("failed_kernels", "ceilings"):
        if isinstance(raw.get(name), dict):
            salvaged[name] = raw[name]
    if isinstance(raw.get("device_id"), str):
        salvaged["device_id"] = raw["device_id"]
    salvaged["shards"] = [e for e in raw.get("shards", []) if isinstance(e, dict)] \
        if isinstance(raw.get("shards"), list) else []
    for entry in salvaged["shards"]:
        name = entry.get("file")
        if not (isinstance(name, str) and SHARD_NAME.fullmatch(name)):
            done.append(f"dropped {MANIFEST} entry {name!r}: not a shard name inside the folder (not followed)")
    return salvaged


def _intact_shards(directory: Path, old: dict, done: list[str]) -> tuple[list[dict], list[str], set]:
    """``(shards, keys, device_ids)`` of the readable shards, in name order, keys unique.

    Args:
        directory: the dataset folder; old: the old manifest (for rows it lists that are gone);
        done: the report lines (appended to).
    """
    present = sorted(p for p in directory.iterdir() if SHARD_NAME.fullmatch(p.name))
    for entry in old["shards"]:
        name = entry.get("file")
        if isinstance(name, str) and SHARD_NAME.fullmatch(name) and not (directory / name).exists():
            done.append(f"shard {name} is gone: its {entry.get('rows', '?')} row(s) are no longer in the dataset "
                        f"(a campaign measures those launches again)")
    shards, keys, seen, device_ids = [], [], set(), set()
    for path in present:
        table = _readable_shard(directory, path, done)
        if table is None:
            continue
        column = table.column("key").to_pylist()
        keep = [i for i, key in enumerate(column) if key not in seen and isinstance(key, str)]
        if len(keep) < len(column):
            moved = move_aside(directory, path)
            if not keep:
                done.append(f"moved {path.name} to {moved}: every row of it is in an earlier shard")
                continue
            table = table.take(pa.array(keep, type=pa.int64()))
            write_shard(table, path)
            done.append(f"{path.name}: {len(column) - len(keep)} duplicate row(s) dropped (original in {moved})")
            column = [column[i] for i in keep]
        seen.update(column)
        keys.extend(column)
        shards.append({"file": path.name, "rows": table.num_rows})
        if "device_id" in table.schema.names:
            device_ids.update(v for v in table.column("device_id").to_pylist() if v)
    return shards, keys, device_ids


def _readable_shard(directory: Path, path: Path, done: list[str]):
    """The whole table of shard ``path``, or None after moving it to ``damaged/`` (link, unreadable,
    no ``key`` column).

    Args:
        directory: the dataset folder; path: the shard; done: the report lines (appended to).
    """
    why = None
    table = None
    if path.is_symlink() or not path.is_file():
        why = "not a plain file"
    else:
        try:
            table = read_parquet(path)
        except UNREADABLE as exc:
            why = f"unreadable: {_first_line(exc)[:200]}"
        else:
            if "key" not in table.schema.names:
                why = "no 'key' column"
    if why is None:
        return table
    moved = move_aside(directory, path)
    done.append(f"moved {path.name} to {moved} ({why})")
    return None


def _check_side_files(directory: Path, done: list[str]) -> None:
    """Move an unreadable ``sources.parquet`` or ``device.json`` to ``damaged/``.

    Args:
        directory: the dataset folder; done: the report lines (appended to).
    """
    from .descriptor import load_descriptor

    if (directory / SOURCES).exists():
        try:
            read_sources_table(directory)
        except InputError:
            moved = move_aside(directory, directory / SOURCES)
            done.append(f"moved {SOURCES} to {moved} (unreadable; kernels visited again record their source again)")
    if (directory / "device.json").exists():
        try:
            load_descriptor(directory)
        except InputError:
            moved = move_aside(directory, directory / "device.json")
            done.append(f"moved device.json to {moved} (unreadable or invalid; a campaign measures the device again)")


def _stored(manifest: dict) -> dict:
    """What of ``manifest`` a format-2 folder stores: all but the key list."""
    return {k: v for k, v in manifest.items() if k != "keys"}


def _new_manifest(old: dict, shards: list[dict], keys: list[str], device_ids: set) -> dict:
    """The manifest of the kept shards, with the old one's failures, ceilings and device id.

    Args:
        old: the old (or salvaged) manifest; shards, keys: what :func:`_intact_shards` kept;
        device_ids: device ids found in the shards' rows.
    """
    device_id = old.get("device_id")
    if device_id is None and len(device_ids) == 1:
        device_id = next(iter(device_ids))
    manifest = dict(old)
    manifest.update(format=MANIFEST_FORMAT, device_id=device_id, shards=shards, keys=keys,
                    failed_kernels=old.get("failed_kernels", {}), ceilings=old.get("ceilings", {}))
    manifest.setdefault("harness_version", HARNESS_VERSION)
    return manifest
