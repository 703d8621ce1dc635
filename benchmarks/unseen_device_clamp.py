"""A device the model never trained on, with and without the hardware vector clipped to the trained range.

    python -m benchmarks.unseen_device_clamp --model DIR --data data/datasets/pocl-amd-epyc ... [--sample 3000]
        [--csv out.csv]

For each dataset folder, the same launches (every ok one, or a sample of ``--sample`` drawn with seed 0) are
estimated by the model directory twice through ``kgraph.load_model``: once with the device's hardware vector as
it is (``Predictor.clamp_hardware = False``, the network extrapolating) and once clipped to the range of the
devices the model was trained on (the default, :meth:`kgraph.models.predictor.Predictor.hardware_range`). The
floors use the device's own roofline both times. Prints time MAPE, median APE, share within 2×, Spearman, the
median ratio predicted/measured and the predictions below the floor, per folder and setting, and says which
of the device's hardware features lie outside the trained range. On a device inside it the two settings agree.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def main(argv: list[str] | None = None) -> int:
    import kgraph

    from benchmarks.dataset_eval import launches_of, metrics, requests_of

    parser = argparse.ArgumentParser(prog="python -m benchmarks.unseen_device_clamp", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="model directory")
    parser.add_argument("--data", nargs="+", required=True, help="dataset folders (of devices the model may not know)")
    parser.add_argument("--sample", type=int, default=0, help="launches per folder (0: every ok one)")
    parser.add_argument("--csv", help="write the table here")
    args = parser.parse_args(argv)
    model = kgraph.load_model(args.model)
    table = []
    for folder in map(Path, args.data):
        rows, files = launches_of(folder)
        if args.sample and len(rows) > args.sample:
            rows = rows.sample(args.sample, random_state=0).reset_index(drop=True)
        device = json.loads((folder / "device.json").read_text())
        known = model.devices.get(device["device_id"], device)
        trained = device["device_id"] in model.predictor.trained_on
        print(f"{folder}: {device['device_id']} ({'trained on' if trained else 'never trained on'}); "
              f"outside the trained range: {', '.join(model.predictor.outside_range(known)) or 'nothing'}")
        true = rows["median_time_ns"].to_numpy(np.float64)
        for clamp in (False, True):
            model.predictor.clamp_hardware = clamp
            records = model.estimate_many(requests_of(rows, files, known))
            pred = np.array([r["time_ns"] for r in records])
            floor = np.array([r["floor_ns"] for r in records])
            row = {"data": folder.name, "device": device["device_id"], "trained_on": trained,
                   "hardware": "clipped" if clamp else "as is", **metrics(true, pred, floor),
                   "median_ratio": float(np.exp(np.median(np.log(pred / true))))}
            table.append(row)
            print(f"  {row['hardware']:8s} n={row['n']} MAPE {row['mape']:.1f}%  median APE {row['median_ape']:.1f}%  "
                  f"within 2x {row['within_2x']:.1f}%  Spearman {row['spearman']:.3f}  "
                  f"median pred/true {row['median_ratio']:.2f}  below floor {row['below_floor']}")
    model.predictor.clamp_hardware = True
    if args.csv:
        pd.DataFrame(table).to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
