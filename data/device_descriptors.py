"""One descriptor per device: the datasets of one device, measured in several campaigns, merged.

Each measurement campaign writes the roofline it measured at its start into its dataset's ``device.json``
(:mod:`kgraph.data.harness.roofline`). The GPUs measure the same within 1% from campaign to campaign; the GPU
host's Xeon does not: its copy bandwidth was 101.7, 78.2 and 75.8 GB/s and its fp32 peak 706, 709 and
568 GFLOP/s in three campaigns (each call gets a fresh host of the same kind). A model sees a device through its
descriptor (the hardware vector and the floors), so training and every later use of the model must describe a
device by the same numbers. Before this module each reader kept the descriptor of the last dataset it read;
training (generated datasets last) and the exported model (corpus datasets only) then described the Xeon by
different numbers, which cost the shipped model 9 points of MAPE on the hand-written Xeon holdout
(docs/DATASETS.md "Devices measured more than once").

The rule: each numeric ``roofline`` entry is the median of the device's measurements; every other field is the
first dataset's (they are the device's identity and OpenCL's report, the same in every campaign). Only the
measurements of the newest micro-benchmark version count (``roofline_method``,
:data:`kgraph.data.harness.roofline.ROOFLINE_METHOD`; 1 where absent): version 2 measures twice the fp32 peak
of version 1 on an AVX-512 CPU, so a median across versions would describe no real measurement. A folder's
``uncounted_rooflines`` (rows moved from another host, :mod:`kgraph.data.harness.relabel`) never count.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterable

import numpy as np


def measurements(descriptor: dict) -> list[dict]:
    """Every roofline measurement a descriptor holds: its own ``roofline`` and its ``campaign_rooflines`` (the
    folders merged into its dataset, :mod:`kgraph.data.harness.merge`), each with its ``roofline_method``
    (1 where absent)."""
    own = {**descriptor["roofline"], "roofline_method": descriptor.get("roofline_method", 1)}
    return [own] + [{**r, "roofline_method": r.get("roofline_method", 1)}
                    for r in descriptor.get("campaign_rooflines", [])]


def with_uncounted(descriptor: dict, rooflines: Iterable[dict]) -> dict:
    """``descriptor`` with ``rooflines`` added to its ``uncounted_rooflines`` (each once; the key left out while
    there are none): another host's measurements kept as a record, never counted (:func:`merge_descriptors`)."""
    uncounted = list(descriptor.get("uncounted_rooflines", []))
    uncounted += [m for m in rooflines if m not in uncounted]
    return {**descriptor, "uncounted_rooflines": uncounted} if uncounted else dict(descriptor)


def merge_descriptors(descriptors: Iterable[dict]) -> dict[str, dict]:
    """``device_id -> descriptor`` of the given descriptors, those of one device merged.

    Args:
        descriptors: ``device.json`` dicts, in the order the datasets were given (several may share a device).

    Returns:
        One descriptor per device id: the first one's fields, with each numeric ``roofline`` entry replaced by
        the median over the device's descriptors that have it, among those of the newest ``roofline_method``.
    """
    by_device: dict[str, list[dict]] = defaultdict(list)
    for d in descriptors:
        by_device[d["device_id"]].append(d)
    merged = {}
    for device_id, group in by_device.items():
        runs = [m for d in group for m in measurements(d)]  # every campaign's roofline, merged folders' too
        newest = max(m["roofline_method"] for m in runs)
        runs = [{k: v for k, v in m.items() if k != "roofline_method"} for m in runs if m["roofline_method"] == newest]
        out = json.loads(json.dumps(group[0]))  # a deep copy: callers' dicts stay as read
        out.pop("campaign_rooflines", None)
        out.pop("uncounted_rooflines", None)  # another host's, kept as a record only (harness.relabel)
        out["roofline"] = runs[0] if len(runs) == 1 else {
            key: float(np.median([m[key] for m in runs if key in m])) for key in dict.fromkeys(k for m in runs for k in m)}
        if newest > 1:
            out["roofline_method"] = newest
        merged[device_id] = out
    return merged


def read_descriptors(datasets: Iterable[str | Path]) -> dict[str, dict]:
    """:func:`merge_descriptors` of the ``device.json`` of each dataset folder that has one."""
    found = [Path(d) / "device.json" for d in datasets]
    return merge_descriptors(json.loads(p.read_text()) for p in found if p.is_file())
