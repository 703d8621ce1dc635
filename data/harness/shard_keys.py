"""Launch keys an archival shard does not store: they are recomputed from the row on read.

A launch's key (:func:`~kgraph.data.harness.keys.launch_key`) is 16 hex digits of a sha1 of columns the row
holds anyway (device, kernel, sizes, global and local size). Stored, the keys are the least compressible column
of a shard (8 bytes a row after zstd, about 4.4 MB of the repository's 25 MB of launch shards). A shard
written for keeping (``kgraph dataset compact``) therefore leaves the column out **when every stored key
equals the one recomputed from its row**, and marks the file with :data:`DERIVED_KEYS`; reading the file
(:func:`with_keys`) puts the column back, bit-equal. A shard with any other key (an old relabel, a key of a
layout no longer written) keeps its column, so nothing is ever rewritten to a different key.
"""
from __future__ import annotations

import hashlib

import pyarrow as pa

#: parquet metadata key (and value) of a shard whose ``key`` column is recomputed on read
DERIVED_KEYS = (b"kgraph.keys", b"derived-v1")
#: the columns a key is computed from
KEY_INPUTS = ("device_id", "kernel_id", "sizes", "dims", "g0", "g1", "g2", "l0", "l1", "l2")


def derive_keys(table: pa.Table) -> list[str]:
    """The launch key of every row of ``table`` (which holds :data:`KEY_INPUTS`), as the campaign's
    :func:`~kgraph.data.harness.keys.launch_key` writes it: the row's ``sizes`` text as stored (the
    campaign stores ``json.dumps(sizes, sort_keys=True)``; a writer checks the keys agree before it drops any),
    global and local size padded to three dimensions with 1.

    Args:
        table: launch rows.

    Shapes:
        table: ``[n]`` rows; returns ``n`` strings.
    """
    cols = {name: table.column(name).to_pylist() for name in KEY_INPUTS}
    keys = []
    for i, dims in enumerate(cols["dims"]):
        dims = int(dims)
        g = ",".join(str(int(cols[f"g{d}"][i])) if d < dims else "1" for d in range(3))
        l = ",".join(str(int(cols[f"l{d}"][i])) if d < dims else "1" for d in range(3))
        text = "|".join((cols["device_id"][i], cols["kernel_id"][i], cols["sizes"][i], g, l))
        keys.append(hashlib.sha1(text.encode("utf-8")).hexdigest()[:16])
    return keys


def without_derivable_keys(table: pa.Table) -> tuple[pa.Table, bool]:
    """``table`` without its ``key`` column when every key equals :func:`derive_keys`'s (and True), else
    ``table`` unchanged (and False).

    Args:
        table: launch rows with a ``key`` column and :data:`KEY_INPUTS`.
    """
    names = table.schema.names
    if "key" not in names or any(n not in names for n in KEY_INPUTS) or table.num_rows == 0:
        return table, False
    if derive_keys(table) != table.column("key").to_pylist():
        return table, False
    return table.drop_columns(["key"]), True


def has_derived_keys(schema: pa.Schema) -> bool:
    """Whether a file of ``schema`` leaves its keys to be recomputed on read."""
    return (schema.metadata or {}).get(DERIVED_KEYS[0]) == DERIVED_KEYS[1]


def with_keys(table: pa.Table) -> pa.Table:
    """``table`` (rows read from a shard marked :data:`DERIVED_KEYS`, with :data:`KEY_INPUTS`) with the ``key``
    column put back as the first column."""
    return table.add_column(0, pa.field("key", pa.string()), pa.array(derive_keys(table), type=pa.string()))
