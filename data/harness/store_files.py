"""The files of a dataset folder and how they are written: names, durable writes, damage messages.

Layout (``data/datasets/<device_id>/``)::

    manifest.json          shard list (file, rows), failed kernels, size ceilings (format 2; the committed keys
                           are those of the listed shards; format 1 also listed them, and is still read)
    launches-NNNNN.parquet one row per launch (columns.STORED_SCHEMA), zstd; the columns computed from
                           the stored ones and device.json's roofline (columns.COMPUTED_ON_READ: achieved
                           bandwidth and FLOP/s, intensity, utilisations, bound) are not stored: readers
                           compute them (derived.derive_frame) and return columns.LAUNCH_SCHEMA
    sources.parquet        each kernel source once (columns.SOURCE_SCHEMA)
    journal.jsonl          rows since the last shard, one JSON line each (write-ahead log)
    device.json            the device descriptor

Every file is written to a temporary name, fsync'ed, renamed into place, and the folder fsync'ed, so a
power cut leaves the old file or the new one. A folder whose files disagree is answered with an
InputError saying what is wrong and how to repair it (``kgraph dataset repair DIR``,
:mod:`kgraph.data.harness.repair`); files repair cannot use are moved to ``damaged/``, never deleted.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgraph.errors import InputError

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
SOURCES = "sources.parquet"
DAMAGED = "damaged"  # where ``kgraph dataset repair`` moves files it cannot use (never deleted)
SHARD_NAME = re.compile(r"launches-(\d{5})\.parquet")
MANIFEST_FORMAT = 2
#: formats this kgraph reads: 1 listed every committed launch key (the same keys the shards hold, 16 hex
#: characters each: 3.8 MiB of the repository's datasets); 2 does not, the keys are read from the shards
READ_FORMATS = (1, 2)


def repair_hint(directory) -> str:
    """The sentence every damaged-folder message ends with."""
    return (f"repair: `kgraph dataset repair {directory}` rebuilds the manifest from the intact shards "
            f"(damaged files are moved to {Path(directory) / DAMAGED}, nothing is deleted)")


def damaged(directory, what: str) -> InputError:
    """The error for a dataset folder whose files are damaged: ``what`` is wrong, and how to repair it.

    Args:
        directory: the dataset folder; what: the problem, one sentence.
    """
    return InputError(f"{directory}: {what}\n{repair_hint(directory)}")


def _fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``: temporary file, fsync, rename into place, fsync of the folder."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


#: parquet metadata key (and value) marking a file written for keeping (``kgraph dataset compact``); the value
#: names the layout, so a folder compacted before the timings were rounded (``zstd-19-plain``) or before the keys
#: were left to be recomputed on read (``zstd-19-plain-t24``, :mod:`~kgraph.data.harness.shard_keys`) is rewritten once
ARCHIVAL = (b"kgraph.compression", b"zstd-19-plain-t24-k")
#: measured timing columns a launch shard written for keeping stores rounded to 24 significant bits (float32's):
#: a relative change below 6e-8, far under any timer's resolution and any launch's spread, while the digits
#: below it are noise that costs 15-20% of a shard's compressed size
ROUNDED_TIMINGS = ("median_time_ns", "min_time_ns", "max_time_ns", "cv")


def write_parquet_atomic(table: pa.Table, path: Path, archival: bool = False) -> None:
    """Write ``table`` to ``path`` as :func:`atomic_write_bytes` does (zstd parquet).

    ``archival``: zstd level 19 without dictionary pages, about 20% smaller launch shards and 40% smaller
    sources than the level-6 flushes of a running campaign (keys and source text gain nothing from
    dictionaries), at seconds per 100k rows; marked with :data:`ARCHIVAL` in the file's metadata.
    """
    tmp = path.with_name(path.name + ".tmp")
    metadata = {k: v for k, v in (table.schema.metadata or {}).items() if k != ARCHIVAL[0]}
    table = table.replace_schema_metadata({**metadata, **({ARCHIVAL[0]: ARCHIVAL[1]} if archival else {})})
    with open(tmp, "wb") as fh:
        if archival:
            pq.write_table(table, fh, compression="zstd", compression_level=19, use_dictionary=False)
        else:
            pq.write_table(table, fh, compression="zstd", compression_level=6)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def is_archival(path: Path) -> bool:
    """Whether the parquet file at ``path`` was written with ``archival=True`` (its footer only)."""
    return (pq.read_schema(path).metadata or {}).get(ARCHIVAL[0]) == ARCHIVAL[1]


def write_shard(table: pa.Table, path: Path, archival: bool = False) -> None:
    """Write the launch shard ``table`` as :func:`write_parquet_atomic` does, without the columns computed
    on read (``columns.COMPUTED_ON_READ``): every writer of ``launches-*.parquet`` goes through here. An
    ``archival`` shard also leaves out its ``key`` column when every key can be recomputed from its row
    (:mod:`~kgraph.data.harness.shard_keys`; readers put it back).

    Args:
        table: launch rows (LAUNCH_SCHEMA, STORED_SCHEMA, or an older shard's columns); path: the shard.
    """
    from .columns import COMPUTED_ON_READ
    from .shard_keys import DERIVED_KEYS, without_derivable_keys

    table = table.drop_columns([n for n in COMPUTED_ON_READ if n in table.schema.names])
    metadata = {k: v for k, v in (table.schema.metadata or {}).items() if k != DERIVED_KEYS[0]}
    table = table.replace_schema_metadata(metadata)
    if archival:
        table = round_timings(table)
        table, derived = without_derivable_keys(table)
        if derived:
            table = table.replace_schema_metadata({**metadata, DERIVED_KEYS[0]: DERIVED_KEYS[1]})
    write_parquet_atomic(table, path, archival)


def round_timings(table: pa.Table) -> pa.Table:
    """``table`` with its :data:`ROUNDED_TIMINGS` columns rounded to float32 precision (still float64)."""
    import pyarrow.compute as pc

    for name in ROUNDED_TIMINGS:
        i = table.schema.get_field_index(name)
        if i >= 0 and pa.types.is_float64(table.schema.field(i).type):
            rounded = pc.cast(pc.cast(table.column(i), pa.float32(), safe=False), pa.float64())
            table = table.set_column(i, table.schema.field(i), rounded)
    return table


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [exc.__class__.__name__])[0][:300]


def move_aside(directory, path: Path) -> Path:
    """Move ``path`` (a file of the dataset folder) into its ``damaged/`` folder, never over another file;
    returns the new path.

    Args:
        directory: the dataset folder; path: the file to move.
    """
    target_dir = Path(directory) / DAMAGED
    target_dir.mkdir(exist_ok=True)
    target = target_dir / path.name
    n = 1
    while target.exists() or target.is_symlink():
        target = target_dir / f"{path.name}.{n}"
        n += 1
    os.replace(path, target)
    _fsync_dir(Path(directory))
    return target


def manifest_bytes(manifest: dict) -> bytes:
    """``manifest`` as written (format 2): compact JSON without the in-memory ``keys`` list, which the
    committed shards hold (:func:`~kgraph.data.harness.store_read.manifest_keys` reads them back)."""
    return json.dumps({**{k: v for k, v in manifest.items() if k != "keys"}, "format": MANIFEST_FORMAT},
                      separators=(",", ":")).encode()
