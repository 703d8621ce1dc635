"""The batched peak warnings (kgraph.app.launch_checks.peak_warnings_many) say exactly what peak_warnings says for
each launch: its array tests only pick candidates, so a launch it skips must have no warning and every message is
peak_warnings' own. Random records around every threshold, on two devices."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kgraph.app.launch_checks import PEAK_MARGIN, peak_warnings, peak_warnings_many
from kgraph.data.floors import device_rates

ROOT = Path(__file__).resolve().parents[1]


class _Launch:
    def __init__(self, folder: str):
        self.device = json.loads((ROOT / "data/datasets" / folder / "device.json").read_text())


def _records(rng, launch, n: int) -> list[dict]:
    """Records whose ratios to each limit fall on both sides of 1 and of ``PEAK_MARGIN``."""
    rates = device_rates(launch.device)
    memory = float(launch.device.get("global_mem_bytes") or 0)
    out = []
    for _ in range(n):
        footprint = rates["cache"] + rng.choice([0.0, 1.0, 1e6, 1e9, 1e11]) * rng.uniform(0.5, 1.5)
        if rng.random() < 0.1 and memory > 0:
            footprint = memory * rng.choice([0.9989, 0.9995, 1.0, 1.0005, 1.2])
        beyond = max(footprint - rates["cache"], 0.0)
        ratio = rng.choice([0.5, 0.99, 1.0, 1.01, PEAK_MARGIN * 0.999, PEAK_MARGIN, PEAK_MARGIN * 1.001, 3.0])
        time = beyond / (rates["dram"] * ratio) if beyond > 0 else rng.uniform(1e3, 1e6)
        if rng.random() < 0.05:
            time = rng.choice([0.0, -1.0, float("nan"), float("inf")])
        requested = footprint * rng.choice([0.0, 0.5, 1.0, 10.0, 1000.0])
        scale = rng.choice([0.0, 0.9, PEAK_MARGIN, 1.01 * PEAK_MARGIN])
        flops = abs(time) * max(rates["fp32"], rates["fp64"]) * scale if np.isfinite(time) else 0.0
        out.append({"time_ns": time, "footprint_bytes": footprint, "footprint_source": "static", "bytes": requested,
                    "bandwidth_gbs": requested / time if time else 0.0, "flops": flops})
    return out


def test_batched_peak_warnings_equal_one_by_one():
    rng = np.random.default_rng(0)
    launches, records = [], []
    for folder in ("nvidia-h200", "pocl-skylake-avx512-intel-xeon"):
        launch = _Launch(folder)
        batch = _records(rng, launch, 1500)
        launches += [launch] * len(batch)
        records += batch
    rates = [device_rates(launch.device) for launch in launches]
    batched = peak_warnings_many(launches, records, rates)
    single = [peak_warnings(launch, record, r) for launch, record, r in zip(launches, records, rates)]
    assert batched == single
    warned = sum(1 for w in single if w)
    assert 0.1 * len(single) < warned < 0.9 * len(single)  # both sides of the thresholds were drawn
