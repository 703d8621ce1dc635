"""The time interval's margins for launches at an assumed trip count, calibrated on generated launches the model
never trained on (docs/MODELS.md "The margin for assumed trip counts").

A launch whose kernel assumes a loop's trip count (one iteration, :mod:`kgraph.analysis.trips`) is priced from the
work of that one iteration; how far beyond it the loop runs is in the data. A model trained on exact counts only
(v19's recipe, ``train_known_counts``) never saw such launches, so the generated ones with data-dependent loops
(generator seeds from 34, :mod:`kgraph.data.generator.early_exit`) are held out from it by construction. On a
sample of their kernels (``--kernels`` per folder, drawn with ``--seed``), each launch is predicted through the
user's path with the head's two exactness margins, and the assumed group's margins are

- upper = the inexact margin + the group-weighted ``level_side`` quantile of ``ln(measured / upper end)``,
- lower = the inexact margin + the group-weighted ``level_side`` quantile of ``ln(lower end / measured)``,

(every kernel weighs the same, :func:`kgraph.models.compact_interval.conformal_margin`; ``level_side`` = 0.9 for
an 80% interval), so that about a tenth of such launches falls on either side. The lower end stays at or below
the point (the predictor's clamp). ``--ship DIR`` writes the interval head with the pair in its metrics
(``margins_by_exactness["assumed"]``) to ``DIR/interval.pt``; the point predictions do not change::

    python -m benchmarks.assumed_margin --datasets data/datasets/generated-nvidia-h200 \\
        data/datasets/generated-pocl-xeon [--kernels 1500] [--ship models/default]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.data.targets import TIME_INTERVAL
from kgraph.models.compact_interval import conformal_margin
from kgraph.models.model_files import ASSUMED_GROUP, EXACTNESS_GROUPS


def assumed_launches(model, dataset: Path, kernels: int, seed: int) -> pd.DataFrame:
    """The launches of ``kernels`` sampled kernels of ``dataset`` that read an assumed trip count: kernel, measured
    and predicted ln time and the interval's ln ends, with the head's exactness margins only."""
    from benchmarks.dataset_eval import launches_of, requests_of
    from kgraph.app.static_outputs import assumed_flags, static_facts

    rows, files = launches_of(dataset)
    ids = rows["kernel_id"].drop_duplicates()
    rows = rows[rows["kernel_id"].isin(ids.sample(min(len(ids), kernels), random_state=seed))].reset_index(drop=True)
    device = json.loads((dataset / "device.json").read_text())
    launches, _, _ = model.launches_of(requests_of(rows, files, model.devices.get(device["device_id"], device)))
    facts = static_facts(launches)
    assumed = np.array(assumed_flags(launches))
    records = model.predictor.predict(launches, [c is not None for c in facts[0]])  # no assumed group: the two margins
    lo_key, hi_key = TIME_INTERVAL.keys
    frame = pd.DataFrame({"dataset": dataset.name, "kernel": rows["kernel_id"],
                          "y": np.log(rows["median_time_ns"].to_numpy(np.float64)),
                          "point": np.log([r["time_ns"] for r in records]),
                          "lo": np.log([r[lo_key] for r in records]), "hi": np.log([r[hi_key] for r in records])})
    return frame[assumed].reset_index(drop=True)


def margins(frame: pd.DataFrame, inexact: float, level_side: float = 0.5 + TIME_INTERVAL.level / 2) -> list[float]:
    """``[lower, upper]`` ln margins of the assumed group from ``frame`` (:func:`assumed_launches`)."""
    groups = frame["kernel"].astype(str).to_numpy()
    upper = conformal_margin((frame["y"] - frame["hi"]).to_numpy(), level_side, groups)
    lower = conformal_margin((frame["lo"] - frame["y"]).to_numpy(), level_side, groups)
    return [inexact + lower, inexact + upper]


def coverage(frame: pd.DataFrame, pair: list[float] | None, inexact: float) -> dict:
    """Coverage, shares below and above and median width (upper / lower end) of ``frame``'s launches with the assumed
    ``pair`` in place of the inexact margin (None: as predicted), the lower end clamped to the point."""
    lo, hi = frame["lo"].to_numpy(), frame["hi"].to_numpy()
    if pair is not None:
        point = frame["point"].to_numpy()
        lo = np.minimum(lo + inexact - pair[0], point)  # lo = point + offset - margin, never above the point
        hi = np.maximum(hi - inexact + pair[1], point)
    y = frame["y"].to_numpy()
    return {"launches": len(frame), "kernels": frame["kernel"].nunique(),
            "coverage": 100 * ((y >= lo) & (y <= hi)).mean(), "below": 100 * (y < lo).mean(),
            "above": 100 * (y > hi).mean(), "median_width": float(np.median(np.exp(hi - lo)))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.assumed_margin", description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", required=True, help="measured folders of generated kernels")
    ap.add_argument("--model", default="models/default", help="the model directory whose interval head is calibrated")
    ap.add_argument("--kernels", type=int, default=1500, help="kernels sampled per folder")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--ship", help="write the interval head with the assumed margins here (interval.pt)")
    ap.add_argument("--out", default="benchmarks/results/assumed_margin")
    args = ap.parse_args(argv)
    for d in args.datasets:
        if not (Path(d) / "device.json").is_file():
            ap.error(f"--datasets {d}: not a measured dataset folder (no device.json)")
    if args.kernels < 1:
        ap.error(f"--kernels {args.kernels}: at least 1")
    import kgraph
    from kgraph.models.compact import from_checkpoint, to_checkpoint

    model = kgraph.load_model(args.model)
    head = model.predictor.interval
    if head is None or getattr(head, "margins_by_exactness", None) is None:
        ap.error(f"--model {args.model}: its interval head has no margins by exactness to start from")
    saved = head.margins_by_exactness
    head.margins_by_exactness = {k: saved[k] for k in EXACTNESS_GROUPS}  # calibrate against the two groups alone
    try:
        frame = pd.concat([assumed_launches(model, Path(d), args.kernels, args.seed) for d in args.datasets],
                          ignore_index=True)
    finally:
        head.margins_by_exactness = saved
    inexact = saved["inexact"]
    pair = margins(frame, inexact)
    table = pd.DataFrame([{"dataset": name, "margins": which, **coverage(part, p, inexact)}
                          for name, part in [*frame.groupby("dataset"), ("all", frame)]
                          for which, p in (("exactness", None), ("assumed", pair))])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "calibration.csv", index=False, float_format="%.4g")
    print(table.round(3).to_string(index=False))
    print(f"assumed margins (ln): lower {pair[0]:.4f}, upper {pair[1]:.4f} (inexact {inexact:.4f})")
    if args.ship:
        bundle = from_checkpoint(Path(args.model) / "interval.pt")
        metrics = {**bundle.metrics, "margins_by_exactness": {**{k: saved[k] for k in EXACTNESS_GROUPS},
                                                               ASSUMED_GROUP: pair},
                   "margins_assumed_of": f"generated launches at an assumed trip count: {', '.join(args.datasets)}, "
                                         f"{args.kernels} kernels a folder, seed {args.seed}"}
        Path(args.ship).mkdir(parents=True, exist_ok=True)
        to_checkpoint(bundle.head, Path(args.ship) / "interval.pt", bundle.code_table, bundle.devices, metrics,
                      bundle.sources)
        print(f"wrote {Path(args.ship) / 'interval.pt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
