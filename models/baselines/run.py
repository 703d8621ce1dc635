"""Fit every baseline on a split's training launches and write its test predictions as a run directory.

    python -m kgraph.models.baselines.run --data data/datasets/ci-tiny --split leave_family_out \
        --out runs/baselines/ci-tiny-lfo [--baselines roofline static_gbt] [--seed 0]

The split is the DataModule's (``kgraph.data.datamodule.to_splits``, same fractions and seed), so baseline
and neural rows of a report are measured on the same test launches. Output format: ``models/predictions.py``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from kgraph.errors import UsageError, module_main


def run_baselines(data: list[str], split: str, out: str | Path, names: list[str], seed: int = 0,
                  val_fraction: float | None = None, test_fraction: float | None = None,
                  test_devices: list[str] | None = None) -> dict[str, dict]:
    """Fit and evaluate ``names`` (keys of ``BASELINES``); returns per-baseline info incl. metrics.
    ``val_fraction``/``test_fraction``: None for the DataModule's (``VAL_FRACTION``/``TEST_FRACTION``)."""
    from kgraph.data.splits import TEST_FRACTION, VAL_FRACTION, to_splits
    from kgraph.models.baselines import BASELINES, LaunchRows
    from kgraph.models.predictions import summarize_frame, to_frame, write_predictions

    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise UsageError(f"--baselines: unknown baseline(s) {', '.join(unknown)} (choose from {', '.join(BASELINES)})")
    rows = LaunchRows.from_datasets(data)
    val_fraction = VAL_FRACTION if val_fraction is None else val_fraction
    test_fraction = TEST_FRACTION if test_fraction is None else test_fraction
    splits = to_splits(rows.launches, split, val_fraction, test_fraction, seed, test_devices)
    train, test = rows.take(splits["train"]), rows.take(splits["test"])
    if not len(train) or not len(test):
        raise UsageError(f"--split {split}: leaves {len(train)} training and {len(test)} test launches")
    results = {}
    for name in names:
        t0 = time.perf_counter()
        model = BASELINES[name]().fit(train)
        t1 = time.perf_counter()
        outputs = model.predict(test)
        t2 = time.perf_counter()
        frame = to_frame(outputs, test.launches, name, split, splits["test"])
        info = {"fit_seconds": round(t1 - t0, 3), "predict_seconds": round(t2 - t1, 3),
                "train_launches": len(train), "test_launches": len(test), "datasets": list(data), "seed": seed,
                "fallback_share": float(outputs["fallback"].mean()),
                "metrics": summarize_frame(frame)}
        if name.startswith("roofline"):
            info["efficiency_factor"] = model.factor
        if name == "token_regressor":
            info["encoder"] = model.encoder_used
        write_predictions(out, frame, rows.devices, info)
        results[name] = info
    return results


def add_arguments(parser) -> None:
    """The options of ``kgraph baselines`` and ``python -m kgraph.models.baselines.run``.

    Args:
        parser: the argparse parser to fill.
    """
    from kgraph.models.baselines import BASELINES

    parser.add_argument("--data", nargs="+", required=True, help="measured dataset directories")
    parser.add_argument("--split", default="leave_family_out", help="a kgraph.data.datamodule split")
    parser.add_argument("--out", required=True, help="run directory to write")
    parser.add_argument("--baselines", nargs="+", default=list(BASELINES), help="which baselines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--val-fraction", type=float, default=None, help="default: the DataModule's")
    parser.add_argument("--test-fraction", type=float, default=None, help="default: the DataModule's")
    parser.add_argument("--test-devices", nargs="*", default=None, help="for leave_device_out")


def run(args) -> int:
    """Fit and evaluate the baselines, write the run directory and print one line per baseline.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    results = run_baselines(args.data, args.split, args.out, args.baselines, args.seed,
                            args.val_fraction, args.test_fraction, args.test_devices)
    for name, info in results.items():
        m = info["metrics"]
        print(f"{name:18s} time MAPE {m['time_mape']:8.1f}%  median APE {m['time_median_ape']:7.1f}%  "
              f"rho {m['time_spearman']:.3f}  bound acc {m['bound_acc']:.3f}  coverage {m['coverage']:.0%}  "
              f"fit {info['fit_seconds']}s")
    print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.models.baselines.run", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
