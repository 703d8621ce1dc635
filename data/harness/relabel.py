"""Give a dataset folder's rows another device id (``kgraph dataset relabel SRC --device-id ID --out DST``).

A device id names what a device descriptor describes. Two hosts carrying the same GPU model can still differ
in what the descriptor measures: session 14's four-H200 host launched an empty kernel in 6.0 µs where the
one-H200 hosts took 4.7-5.5 µs, and its shortest launches were 0.8 µs slower at the same percentiles.
Merged under one id, one median descriptor would describe both hosts and fit neither; relabelled, each host
keeps its own descriptor and the model sees the difference in its hardware vector.

The new folder gets every row with ``device_id`` set and ``key`` recomputed (:func:`~.keys.launch_key`: the
key hashes the device id), the sources, failed kernels and size ceilings (:func:`~.merge.copy_rows`, as a merge
copies them), and the source's ``device.json``
with the new ``device_id`` (its measured roofline unchanged). The source folder is left as it is. Rows whose
stored key cannot be recomputed from their own columns are refused: their keys were made another way.
"""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from kgraph.errors import InputError, UsageError

from .columns import LAUNCH_SCHEMA
from .descriptor import load_descriptor, save_descriptor
from .keys import launch_key
from .merge import copy_rows
from .store import DatasetStore, read_launches, read_manifest, read_sources_table


def row_key(row: dict, device_id: str) -> str:
    """The launch key of one stored row under ``device_id`` (the campaign's :func:`base_row` convention)."""
    dims = int(row["dims"])
    global_size = [int(row[f"g{d}"]) for d in range(dims)]
    local_size = [int(row[f"l{d}"]) for d in range(dims)]
    return launch_key(device_id, row["kernel_id"], json.loads(row["sizes"]), global_size, local_size)


def relabel_dataset(source, out, device_id: str) -> str:
    """Copy ``source`` into the new folder ``out`` with every row's device id set to ``device_id``.

    Args:
        source: a dataset folder. out: a folder that does not exist yet. device_id: the new id.

    Returns one line saying what was written. Raises UsageError for an existing ``out``, an empty id or the
    source's own id, InputError for rows whose keys cannot be recomputed.
    """
    source, out = Path(source), Path(out)
    device_id = device_id.strip()
    manifest = read_manifest(source)  # a folder that is not a dataset is refused
    descriptor = load_descriptor(source)
    old = descriptor.get("device_id")
    if not device_id or device_id == old:
        raise UsageError(f"relabel: --device-id must name a new device (the source holds {old!r})")
    if out.exists():
        raise UsageError(f"relabel: --out {out} exists; give a new folder")
    rows = pa.Table.from_pandas(read_launches(source), schema=LAUNCH_SCHEMA, preserve_index=False).to_pylist()
    stale = [r["key"] for r in rows if row_key(r, r["device_id"]) != r["key"]]
    if stale:
        raise InputError(f"relabel: {source}: {len(stale)} row(s) whose key is not made from their own columns "
                         f"(first: {stale[0]}); nothing written")
    save_descriptor({**descriptor, "device_id": device_id}, out)
    sources = {r["source_id"]: r for r in read_sources_table(source).to_pylist()}
    with DatasetStore(out, device_id=device_id) as store:
        copy_rows(store, [{**row, "device_id": device_id, "key": row_key(row, device_id)} for row in rows],
                  sources, manifest)
    return f"{source}: {len(rows)} row(s) of {old!r} written to {out} as {device_id!r}"
