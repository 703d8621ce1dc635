"""Predicted vs measured on the foreign test set (data/foreign_set, never trained on).

    .venv/bin/python benchmarks/foreign_predict.py benchmarks/results/foreign_h200/foreign_h200.csv \
        [--device data/datasets/nvidia-h200/device.json] [--model DIR] [--csv out.csv]

Reads the per-kernel table that ``benchmarks/foreign_measure.py --csv`` wrote on a device (``time_ms``
of each kernel's catalog launch), asks the model (``kgraph.load_model``, the shipped default unless
``--model``) for the same launches on that device's descriptor, and prints one line per kernel and the
time metrics of :mod:`kgraph.models.metrics` (MAPE, median APE, share within 2x, Spearman). Each
prediction and each measurement is also checked against the launch's physical floor that ``estimate``
reports (``floor_ns``, :mod:`kgraph.data.floors`); a prediction below it is counted as a bug, a
measurement below it means the floor is wrong.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from kgraph.app.api import load_model
    from kgraph.data.foreign_set import entries, path_of
    from kgraph.data.harness.foreign import scalar_args
    from kgraph.models.metrics import ape, spearman

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("measured", help="the CSV of benchmarks/foreign_measure.py --csv")
    parser.add_argument("--device", default="data/datasets/nvidia-h200/device.json",
                        help="device.json of the device that measured (default: the H200's)")
    parser.add_argument("--model", help="model directory (default: the shipped model)")
    parser.add_argument("--csv", help="write the per-kernel table here")
    args = parser.parse_args(argv)
    measured = {r["name"]: r for r in csv.DictReader(open(args.measured)) if r["status"] == "ok" and r["time_ms"]}
    descriptor = json.loads(Path(args.device).read_text())
    todo = [e for e in entries("opencl") if e.name in measured]
    requests = [{"file": str(path_of(e)), "kernel": e.name, "global": list(e.global_size),
                 "local": list(e.local_size) if e.local_size else None, "args": scalar_args(str(path_of(e)), e.name, list(e.global_size), dict(e.args)),
                 "device": descriptor} for e in todo]
    records = load_model(args.model).estimate_many(requests)
    rows = []
    for entry, record in zip(todo, records):
        true_ns = float(measured[entry.name]["time_ms"]) * 1e6
        floor = float(record["floor_ns"])
        rows.append({"name": entry.name, "style": entry.style, "measured_ns": round(true_ns, 1),
                     "predicted_ns": round(float(record["time_ns"]), 1), "floor_ns": round(floor, 1),
                     "lo_ns": record.get("time_lo_ns"), "hi_ns": record.get("time_hi_ns"),
                     "ratio": round(float(record["time_ns"]) / true_ns, 3), "flops": record.get("flops"),
                     "flops_source": record.get("flops_source"), "footprint_bytes": record.get("footprint_bytes"),
                     "bound": record.get("bound")})
        r = rows[-1]
        print(f"{r['name']:22s} measured {true_ns / 1e3:9.2f} us  predicted {r['predicted_ns'] / 1e3:9.2f} us  "
              f"x{r['ratio']:<7} floor {floor / 1e3:8.2f} us  {r['bound']}", flush=True)
    pred = np.array([r["predicted_ns"] for r in rows])
    true = np.array([r["measured_ns"] for r in rows])
    floors = np.array([r["floor_ns"] for r in rows])
    errors = ape(pred, true)
    ratio = pred / true
    print(f"\n{len(rows)} kernels on {descriptor.get('device_id', args.device)}: MAPE {100 * errors.mean():.1f}%, "
          f"median APE {100 * np.median(errors):.1f}%, within 2x {100 * np.mean((ratio <= 2) & (ratio >= 0.5)):.1f}%, "
          f"Spearman {spearman(np.log(pred), np.log(true)):.3f}")
    print(f"predictions below the physical floor: {int(np.sum(pred < floors * (1 - 1e-6)))}; "
          f"measurements below it: {int(np.sum(true < floors * (1 - 1e-6)))}; "
          f"median measured/floor {np.median(true / np.maximum(floors, 1e-9)):.2f}")
    if all(r["lo_ns"] is not None for r in rows):
        inside = np.array([r["lo_ns"] <= r["measured_ns"] <= r["hi_ns"] for r in rows])
        width = np.array([r["hi_ns"] / r["lo_ns"] for r in rows])
        print(f"80% interval: covers {int(inside.sum())} of {len(rows)} ({100 * inside.mean():.1f}%), "
              f"median width hi/lo {np.median(width):.2f}")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
