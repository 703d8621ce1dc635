"""Predicted vs measured on the foreign test set (data/foreign_set, never trained on).

    .venv/bin/python -m benchmarks.foreign_predict benchmarks/results/foreign_h200/foreign_h200.csv \
        [--device nvidia-h200] [--model DIR] [--csv out.csv]

Reads the per-kernel table that ``benchmarks/foreign_measure.py --csv`` wrote on a device (``time_ms``
of each kernel's catalog launch), asks the model (``kgraph.load_model``, the shipped default unless
``--model``) for the same launches on that device (by the model's own descriptor of it), and prints one line per kernel and the
time metrics of :func:`benchmarks.dataset_eval.metrics` (MAPE, median APE, share within 2x, Spearman) and
the coverage of the 80% interval (:func:`benchmarks.dataset_eval.interval_metrics_of`). Each
prediction and each measurement is also checked against the launch's physical floor that ``estimate``
reports (``floor_ns``, :mod:`kgraph.data.floors`); a prediction below it is counted as a bug, a
measurement below it means the floor is wrong.
"""
from __future__ import annotations

import argparse
import csv
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from kgraph.app.api import load_model
    from kgraph.data.foreign_set import entries, path_of
    from kgraph.data.harness.foreign import scalar_args
    from benchmarks.dataset_eval import interval_metrics_of, metrics

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("measured", help="the CSV of benchmarks/foreign_measure.py --csv")
    parser.add_argument("--device", default="nvidia-h200",
                        help="the device that measured: an id the model knows (described by the numbers it was "
                             "trained with) or a device.json (default: nvidia-h200)")
    parser.add_argument("--model", help="model directory (default: the shipped model)")
    parser.add_argument("--csv", help="write the per-kernel table here")
    args = parser.parse_args(argv)
    measured = {r["name"]: r for r in csv.DictReader(open(args.measured)) if r["status"] == "ok" and r["time_ms"]}
    todo = [e for e in entries("opencl") if e.name in measured]
    requests = [{"file": str(path_of(e)), "kernel": e.name, "global": list(e.global_size),
                 "local": list(e.local_size) if e.local_size else None, "args": scalar_args(str(path_of(e)), e.name, list(e.global_size), dict(e.args)), "device": args.device} for e in todo]
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
    true = np.array([float(measured[e.name]["time_ms"]) * 1e6 for e in todo])
    pred = np.array([float(r["time_ns"]) for r in records])
    floors = np.array([float(r["floor_ns"]) for r in records])
    m = metrics(true, pred, floors)
    print(f"\n{m['n']} kernels on {args.device}: MAPE {m['mape']:.1f}%, "
          f"median APE {m['median_ape']:.1f}%, within 2x {m['within_2x']:.1f}%, Spearman {m['spearman']:.3f}")
    print(f"predictions below the physical floor: {m['below_floor']}; "
          f"measurements below it: {int(np.sum(true < floors * (1 - 1e-6)))}; "
          f"median measured/floor {np.median(true / np.maximum(floors, 1e-9)):.2f}")
    interval = interval_metrics_of(records, true)
    if interval:
        print(f"80% interval: covers {100 * interval['interval_coverage']:.1f}% "
              f"(below {100 * interval['interval_below']:.1f}%, above {100 * interval['interval_above']:.1f}%), "
              f"median width hi/lo {interval['interval_median_width']:.2f}")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
