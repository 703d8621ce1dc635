"""Merge dataset folders of one device into another (``kgraph dataset merge SRC ... --into DST``).

Two hosts of the same kind (the H200 and the H100 machines both carry a 16-vCPU Xeon that PoCL names
``pocl-skylake-avx512-intel-xeon``) measure into separate folders; their rows belong to one device and one
training set. The merge copies every launch row whose key the target lacks, the sources those rows name,
the failed kernels and the size ceilings, through :class:`~.store.DatasetStore` (journaled, resumable: a
cut merge leaves committed rows, and running it again adds only what is missing). The target keeps its
own ``device.json``: the derived columns are computed on read from it, and the lines returned say by how
much the sources' measured rooflines differ from it. Each source's roofline measurements (its own and those it
had kept) are kept in the target's ``campaign_rooflines``, once each, so that one descriptor per device
(:func:`kgraph.data.device_descriptors.merge_descriptors`) is the median over every campaign, not over folders.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from kgraph.data.device_descriptors import measurements, with_uncounted
from kgraph.errors import UsageError

from .columns import LAUNCH_SCHEMA
from .descriptor import load_descriptor, save_descriptor
from .store import DatasetStore, read_launches, read_manifest, read_sources_table


def _roofline_gap(target: dict, source: dict) -> float:
    """Largest relative difference of the two descriptors' shared positive roofline numbers."""
    a, b = target["roofline"], source["roofline"]
    return max((abs(b[k] / a[k] - 1.0) for k in a if k in b and a[k] > 0), default=0.0)


def _keep_rooflines(target: Path, source: dict) -> None:
    """Add the source's measurements to the target's ``campaign_rooflines`` (those it already holds once), and
    its ``uncounted_rooflines`` (:mod:`.relabel`'s record of another host's) to the target's, once each."""
    device = load_descriptor(target)
    held = measurements(device)
    kept = list(device.get("campaign_rooflines", []))
    for m in measurements(source):
        if m not in held:
            kept.append(m)
            held.append(m)
    updated = with_uncounted(device, source.get("uncounted_rooflines", []))
    if kept != device.get("campaign_rooflines", []):
        updated["campaign_rooflines"] = kept
    if updated != device:
        save_descriptor(updated, target)


def copy_rows(store: DatasetStore, rows: list[dict], sources: dict, manifest: dict) -> int:
    """Append to ``store`` the ``rows`` whose key it lacks, with the sources they name (``sources``: source rows by
    id), then ``manifest``'s failed kernels and size ceilings; returns the number of rows added."""
    added = 0
    for row in rows:
        if row["key"] in store.completed_keys:
            continue
        if row["source_id"] in sources:
            store.add_source(sources[row["source_id"]])
        added += store.append(row)
    for kernel_id, failed in manifest.get("failed_kernels", {}).items():
        if kernel_id not in store.failed_kernels:
            store.mark_failed(kernel_id, failed["status"], failed["message"])
    for kernel_id, work in manifest.get("ceilings", {}).items():
        store.add_ceiling(kernel_id, work)
    return added


def merge_datasets(target, sources) -> list[str]:
    """Copy the rows of ``sources`` that ``target`` lacks into it; returns one line per source.

    Args:
        target: an existing dataset folder (its ``device.json`` and manifest are kept).
        sources: dataset folders of the same ``device_id``.

    Raises UsageError for a source of another device or the target itself, InputError for a folder that
    is not a dataset (or is damaged, with the repair).
    """
    target = Path(target)
    read_manifest(target)  # a folder that is not a dataset is refused, never created
    device = load_descriptor(target)
    lines = []
    for src in map(Path, sources):
        if src.resolve() == target.resolve():
            raise UsageError(f"merge: {src} is the target folder itself")
        manifest = read_manifest(src)
        other = load_descriptor(src)
        if other.get("device_id") != device.get("device_id"):
            raise UsageError(f"merge: {src} holds device {other.get('device_id')!r}, {target} holds "
                             f"{device.get('device_id')!r}; only folders of one device are merged")
        rows = pa.Table.from_pandas(read_launches(src), schema=LAUNCH_SCHEMA, preserve_index=False).to_pylist()
        source_rows = {r["source_id"]: r for r in read_sources_table(src).to_pylist()}
        with DatasetStore(target, device_id=device.get("device_id")) as store:
            added = copy_rows(store, rows, source_rows, manifest)
        _keep_rooflines(target, other)
        lines.append(f"{src}: {added} of {len(rows)} row(s) added to {target} "
                     f"(rooflines differ by up to {100 * _roofline_gap(device, other):.0f}%; "
                     f"{target / 'device.json'} is kept)")
    return lines
