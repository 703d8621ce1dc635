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

``--descriptor-of DIR`` (``described_by``) does the reverse: it moves a host's rows under an existing device id
while that device's descriptor stays as its own campaigns measured it. The new folder takes DIR's
``device.json`` (a folder of that id), and the source's roofline measurements are kept only as a record,
``uncounted_rooflines``, which :func:`kgraph.data.device_descriptors.merge_descriptors` does not count. Session 15
moved the four-H200 host's rows back under ``nvidia-h200`` this way: as a device of their own they taught the
model to key on the launch overhead, the one number in which the two hosts' descriptors differ, and an unseen
GPU was then mispriced (docs/DATASETS.md).
"""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from kgraph.data.device_descriptors import measurements, with_uncounted
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


def _described_by(folder: Path, device_id: str, source: dict) -> dict:
    """``folder``'s descriptor with ``source``'s measurements added to its ``uncounted_rooflines``."""
    read_manifest(folder)  # a folder that is not a dataset is refused
    other = load_descriptor(folder)
    if other.get("device_id") != device_id:
        raise UsageError(f"relabel: --descriptor-of {folder} holds device {other.get('device_id')!r}, "
                         f"not {device_id!r}")
    return with_uncounted(other, measurements(source) + list(source.get("uncounted_rooflines", [])))


def relabel_dataset(source, out, device_id: str, described_by=None) -> str:
    """Copy ``source`` into the new folder ``out`` with every row's device id set to ``device_id``.

    Args:
        source: a dataset folder. out: a folder that does not exist yet. device_id: the new id.
        described_by: a dataset folder of ``device_id`` whose ``device.json`` the new folder takes (the source's
            rooflines then kept as ``uncounted_rooflines``); None keeps the source's own descriptor.

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
    new_descriptor = ({**descriptor, "device_id": device_id} if described_by is None
                      else _described_by(Path(described_by), device_id, descriptor))
    rows = pa.Table.from_pandas(read_launches(source), schema=LAUNCH_SCHEMA, preserve_index=False).to_pylist()
    stale = [r["key"] for r in rows if row_key(r, r["device_id"]) != r["key"]]
    if stale:
        raise InputError(f"relabel: {source}: {len(stale)} row(s) whose key is not made from their own columns "
                         f"(first: {stale[0]}); nothing written")
    save_descriptor(new_descriptor, out)
    sources = {r["source_id"]: r for r in read_sources_table(source).to_pylist()}
    with DatasetStore(out, device_id=device_id) as store:
        copy_rows(store, [{**row, "device_id": device_id, "key": row_key(row, device_id)} for row in rows],
                  sources, manifest)
    return f"{source}: {len(rows)} row(s) of {old!r} written to {out} as {device_id!r}"
