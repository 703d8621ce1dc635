"""The simplest launches measured and predicted: a store, a copy, a scale and integer hashing over n items.

Nothing in these kernels is data-dependent, so their counts are exact, and their times are bytes over bandwidth
plus overhead: a model that prices a 64 MiB fill above a copy of twice its bytes, or a few integer operations an
item at several times the store, has learned something false (docs/MODELS.md "v40").

    python -m benchmarks.simple_streams measure --device nvidia --out m-h200.csv   # on the device host
    python -m benchmarks.simple_streams predict m-h200.csv m-xeon.csv --models v19=models/default v40=DIR

``measure`` measures each launch as ``kgraph measure`` does (in the campaign's isolated worker);
``predict`` prints, per launch, the measured time and each model's prediction with its ratio, and each model's
median |log2 ratio|.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

SOURCE = Path(__file__).resolve().parent / "probes" / "simple_streams.cl"
#: kernel -> its buffer parameters (each of n elements)
KERNELS = {"fill1": ("out",), "fill_index": ("out",), "fill_hash1": ("out",), "fill_hash7": ("out",),
           "fill_hash31": ("out",), "copy_f32": ("a", "out"), "scale_f32": ("a", "out"), "hash_u32": ("a", "out")}
SIZES = (1 << 16, 1 << 20, 1 << 24)
LOCAL = 256


def measure(device: str, out: Path, timeout_s: float) -> int:
    """Every kernel at every size on ``device``, each by ``kgraph measure``'s own path
    (:func:`~kgraph.data.harness.foreign_run.measure_foreign`: one isolated worker a launch, with its timeout);
    rows to ``out`` (CSV), rewritten after each launch."""
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign
    from kgraph.errors import KGraphError

    rows = []
    for kernel, buffers in KERNELS.items():
        for n in SIZES:
            request = ForeignRequest(str(SOURCE), kernel, (n,), (LOCAL,), {"n": str(n)}, {b: str(n) for b in buffers},
                                     {})
            try:
                row = measure_foreign(request, device, timeout_s=timeout_s).row
            except KGraphError as exc:  # a build or usage error: recorded, the next launch goes on
                row = {"status": "error", "message": str(exc)[-300:]}
            rows.append({"kernel": kernel, "n": n, "device_id": row.get("device_id", ""),
                         "status": row.get("status"), "median_time_ns": row.get("median_time_ns"),
                         "message": row.get("message", "")})
            print(f"{kernel:12s} n={n:>9d} {rows[-1]['status']} {rows[-1]['median_time_ns']}", flush=True)
            pd.DataFrame(rows).to_csv(out, index=False)  # after every launch: a run cut short keeps its rows
    return 0


def predict(measured: list[Path], models: dict[str, str]) -> pd.DataFrame:
    """Measured rows beside each model's prediction (``<name>_ns``) and ratio (``<name>_x``)."""
    import kgraph

    df = pd.concat([pd.read_csv(p) for p in measured], ignore_index=True)
    df = df[df.status == "ok"].reset_index(drop=True)
    for name, directory in models.items():
        model = kgraph.load_model(directory)
        requests = [{"file": str(SOURCE), "kernel": r.kernel, "global": [int(r.n)], "local": [LOCAL],
                     "args": {"n": int(r.n)}, "device": r.device_id} for r in df.itertuples()]
        df[f"{name}_ns"] = [p["time_ns"] for p in model.estimate_many(requests, lang="opencl")]
        df[f"{name}_x"] = df[f"{name}_ns"] / df.median_time_ns
    return df


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="measure every probe launch on one device")
    m.add_argument("--device", required=True, help="kgraph measure's --device")
    m.add_argument("--out", required=True, type=Path)
    m.add_argument("--timeout-s", type=float, default=60.0)
    p = sub.add_parser("predict", help="measured CSVs beside each model's predictions")
    p.add_argument("measured", nargs="+", type=Path)
    p.add_argument("--models", nargs="+", required=True, metavar="NAME=DIR")
    p.add_argument("--csv", type=Path, help="write the table here too")
    args = parser.parse_args(argv)
    if args.command == "measure":
        return measure(args.device, args.out, args.timeout_s)
    models = dict(m.split("=", 1) for m in args.models)
    df = predict(args.measured, models)
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        cols = ["device_id", "kernel", "n", "median_time_ns"] + [f"{k}_x" for k in models]
        print(df[cols].round(2).to_string(index=False))
    for name in models:
        for dev, part in df.groupby("device_id"):
            print(f"{name} on {dev}: median |log2 ratio| {np.median(np.abs(np.log2(part[f'{name}_x']))):.2f}, "
                  f"within 2x {np.mean(np.abs(np.log2(part[f'{name}_x'])) <= 1):.0%} of {len(part)}")
    if args.csv:
        df.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
