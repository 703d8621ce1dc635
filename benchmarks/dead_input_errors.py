"""How a model's held-out predictions miss on generated kernels with a dead input, against the other generated kernels.

If the compiler folds away the work an identity makes dead, the counts overstate what ran and the measured time is
shorter than the counts imply: such kernels' launches should be over-predicted more often than the others', even
by a model that trained on their other launches. This reads prediction parquets of a fit
(``kgraph.models.predictions``, e.g. one per ensemble member, averaged here in log space) and the ``--checked`` JSON
of ``kgraph dataset mark-elided --dead-inputs``, and reports per device and per group (dead input or not): rows,
kernels, median predicted ÷ measured time, MAPE, and the shares predicted above 2× and below 0.5×.

    python -m benchmarks.dead_input_errors 'runs/s16/v24/s2*/static_traffic_known_valkernels-unseen_launch/pred/*.parquet' \\
        --checked runs/s17/dead_checked.json
"""
from __future__ import annotations

import argparse
import glob
import json
import sys

import numpy as np
import pandas as pd

from benchmarks.tables import emit


def dead_input_table(predictions: pd.DataFrame, checked: dict) -> pd.DataFrame:
    """One row per (device, dead input or not) over the launches of checked kernels.

    Args:
        predictions: rows with ``key, kernel_id, device_id, true_log_time, pred_log_time`` (natural log), several
            rows of one key (ensemble members) averaged.
        checked: ``{kernel_id: [dead inputs]}``.
    """
    p = predictions.groupby(["key", "kernel_id", "device_id"], as_index=False)[["true_log_time", "pred_log_time"]].mean()
    p = p[p["kernel_id"].isin(checked.keys())]
    p = p.assign(dead=p["kernel_id"].map(lambda k: bool(checked[k])))
    rows = []
    for (device, dead), g in p.groupby(["device_id", "dead"]):
        ratio = np.exp(g["pred_log_time"] - g["true_log_time"]).to_numpy()
        rows.append({"device": device, "dead_input": dead, "rows": len(g), "kernels": g["kernel_id"].nunique(),
                     "median_pred_over_true": float(np.median(ratio)),
                     "mape": 100 * float(np.mean(np.abs(ratio - 1))),
                     "pred_above_2x_pct": 100 * float(np.mean(ratio > 2)),
                     "pred_below_half_pct": 100 * float(np.mean(ratio < 0.5))})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dead_input_errors", description=__doc__.splitlines()[0])
    parser.add_argument("predictions", help="glob of prediction parquets (quote it)")
    parser.add_argument("--checked", required=True, help="JSON {kernel: [dead inputs]} of mark-elided --dead-inputs")
    parser.add_argument("--csv", help="write the table here too")
    args = parser.parse_args(argv)
    files = sorted(glob.glob(args.predictions))
    if not files:
        parser.error(f"{args.predictions}: no prediction file matches")
    try:
        checked = json.loads(open(args.checked).read())
    except (OSError, ValueError) as exc:
        parser.error(f"--checked {args.checked}: {exc}")
    return emit(dead_input_table(pd.concat([pd.read_parquet(f) for f in files]), checked), args.csv)


if __name__ == "__main__":
    sys.exit(main())
