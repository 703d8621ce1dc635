"""Accuracy of model directories on a measured dataset through the user's path (``kgraph.load_model``).

Every ok launch of the dataset is rebuilt from its source text, sizes and arguments, predicted by each
model (exactly what ``kgraph estimate`` would answer) and compared with the measured median time:
MAPE, median APE, share within 2x, Spearman, the launches predicted below their physical floor, the
bound class (three-way, balanced accuracy with the class mix), the two-way roofline class
(``kgraph.data.targets.roofline_class`` of the predicted FLOPs and bytes against the measured counts) and
the coverage and width of the 80% time interval when the model has one. Used for the out-of-corpus set
(``data/datasets/holdout-*``, never trained on)::

    python -m benchmarks.dataset_eval --data data/datasets/holdout-nvidia-h200 \\
        --models shipped=models/default bounded=/tmp/bdef --out benchmarks/results/holdout
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd


def launches_of(dataset: Path) -> tuple[pd.DataFrame, dict[str, Path]]:
    """The ok rows of ``dataset`` and one source file per source id (written to a temporary folder)."""
    from kgraph.data.harness.store import read_launches

    rows = read_launches(dataset)  # the manifest's shards, bound computed from device.json
    rows = rows[rows.status == "ok"].reset_index(drop=True)
    sources = pd.read_parquet(dataset / "sources.parquet")
    folder = Path(tempfile.mkdtemp(prefix="kgraph_eval_"))
    files = {}
    for r in sources.itertuples():
        suffix = {"opencl": ".cl", "cuda": ".cu", "c": ".c"}[r.lang]
        files[r.source_id] = folder / f"{r.source_id}{suffix}"
        files[r.source_id].write_text(r.source)
    return rows, files


def requests_of(rows: pd.DataFrame, files: dict[str, Path], device: dict,
                buffers: list[dict | None] | None = None) -> list[dict]:
    """One ``estimate_many`` request per row; ``buffers``: per row, the buffer lengths to give (``--buffers``)."""
    out = []
    for n, r in enumerate(rows.itertuples()):
        dims = int(r.dims)
        out.append({"file": files[r.source_id], "kernel": r.kernel_name, "global": [r.g0, r.g1, r.g2][:dims],
                    "local": [r.l0, r.l1, r.l2][:dims], "args": json.loads(r.args), "device": device,
                    "buffers": buffers[n] if buffers is not None else None})
    return out


def spec_of(kernel_id: str):
    """The ``KernelSpec`` of a hand-written set's kernel (``holdout.<name>``, ``holdoutN.<name>``) or a corpus
    kernel, None for another (a foreign or generated kernel)."""
    import importlib

    from kgraph.errors import KGraphError

    prefix = kernel_id.split(".", 1)[0]
    try:
        if prefix == "holdout" or (prefix.startswith("holdout") and prefix[7:].isdigit()):
            return importlib.import_module(f"kgraph.data.{prefix}").get_spec(kernel_id)
        from kgraph.data.corpus import get_spec

        return get_spec(kernel_id)
    except (KGraphError, ImportError, AttributeError):
        return None


def buffer_lengths(rows: pd.DataFrame, extra: dict | None = None) -> list[dict | None]:
    """Per row, the element count of every buffer argument at the row's sizes (what a user launching it
    allocated), from its kernel's spec (``extra``: kernel id -> spec, else :func:`spec_of`); None where there is
    no spec."""
    extra = extra or {}
    specs = {k: extra[k] if k in extra else spec_of(k) for k in rows["kernel_id"].unique()}
    out = []
    for r in rows.itertuples():
        spec = specs[r.kernel_id]
        if spec is None:
            out.append(None)
            continue
        counts = spec.buffer_counts(json.loads(r.sizes), [r.l0, r.l1, r.l2][:int(r.dims)])
        out.append({a.name: counts[a.name] for a in spec.args if a.kind == "buffer"})  # not __local arguments
    return out


def metrics(true_ns: np.ndarray, pred_ns: np.ndarray, floor_ns: np.ndarray) -> dict:
    from scipy.stats import spearmanr

    ape = np.abs(pred_ns - true_ns) / true_ns
    ratio = np.maximum(pred_ns / true_ns, true_ns / pred_ns)
    return {"n": len(true_ns), "mape": 100 * ape.mean(), "median_ape": 100 * np.median(ape),
            "within_2x": 100 * (ratio <= 2).mean(), "spearman": float(spearmanr(true_ns, pred_ns).statistic),
            "below_floor": int((pred_ns < floor_ns * (1 - 1e-6)).sum())}


def bound_metrics(true: pd.Series, pred: pd.Series) -> dict:
    from sklearn.metrics import balanced_accuracy_score

    known = true.notna() & (true != "")
    if not known.any():
        return {"bound_bacc": float("nan"), "bound_mix": {}}
    return {"bound_bacc": 100 * balanced_accuracy_score(true[known], pred[known]),
            "bound_mix": {k: int(v) for k, v in true[known].value_counts().items()}}


def roofline_metrics(rows: pd.DataFrame, records: list[dict], roofline: dict) -> dict:
    """Balanced accuracy and class mix of the two-way roofline class (predicted vs measured counts)."""
    from sklearn.metrics import balanced_accuracy_score

    from kgraph.data.targets import ROOFLINE_CLASSES, roofline_class

    fp32, fp64 = rows["flops_fp32"].to_numpy(np.float64), rows["flops_fp64"].to_numpy(np.float64)
    share = np.where(fp32 + fp64 > 0, fp64 / np.maximum(fp32 + fp64, 1), 0.0)
    true = roofline_class(fp32 + fp64, rows["global_load_bytes"] + rows["global_store_bytes"], share, roofline)
    pred = roofline_class([r["flops"] for r in records], [r["bytes"] for r in records], share, roofline)
    known = (true >= 0) & (pred >= 0)
    if not known.any():
        return {"roofline_bacc": float("nan"), "roofline_mix": {}}
    names = np.array(ROOFLINE_CLASSES)
    return {"roofline_bacc": 100 * balanced_accuracy_score(names[true[known]], names[pred[known]]),
            "roofline_mix": {c: int((true[known] == i).sum()) for i, c in enumerate(ROOFLINE_CLASSES)}}


def interval_metrics_of(records: list[dict], true: np.ndarray) -> dict:
    """Coverage and median width (hi / lo) of the records' time intervals, and the coverage and share above of the
    launches whose counts are exact (``flops_source`` static) and of the others (``_exact``/``_inexact``; NaN where
    a group is empty); {} when the model has none."""
    from kgraph.data.targets import TIME_INTERVAL
    from kgraph.models.compact_interval import interval_metrics

    lo_key, hi_key = TIME_INTERVAL.keys
    if not records or any(r.get(lo_key) is None for r in records):
        return {}
    ends = np.log(np.array([[r[lo_key], r[hi_key]] for r in records], dtype=np.float64))
    m = interval_metrics(ends, np.log(true))
    out = {"interval_coverage": m["coverage"], "interval_below": m["below"], "interval_above": m["above"],
           "interval_median_width": m["median_width"]}
    exact = np.array([r.get("flops_source") == "static" for r in records])
    for name, mask in (("exact", exact), ("inexact", ~exact)):
        g = interval_metrics(ends[mask], np.log(true[mask])) if mask.any() else {"coverage": np.nan, "above": np.nan}
        out.update({f"interval_coverage_{name}": g["coverage"], f"interval_above_{name}": g["above"]})
    return out


def evaluate(dataset: Path, models: dict[str, str], buffers: bool = False,
             specs: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary per model, per-launch predictions) of every model on ``dataset``; with ``buffers``, each launch
    gives its buffers' lengths (:func:`buffer_lengths`, ``specs`` the specs of kernels outside the project's sets:
    the mean trip count of segment loops follows)."""
    import kgraph

    rows, files = launches_of(dataset)
    lengths = buffer_lengths(rows, specs) if buffers else None
    device = json.loads((dataset / "device.json").read_text())
    summary, per_launch = [], []
    for name, directory in models.items():
        model = kgraph.load_model(directory)
        # the device as a user names it (`--device nvidia-h200`): the model's own descriptor of that device
        # when it has one (a fresh measurement of the same GPU differs in its launch overhead and lacks
        # the spec-sheet cache size), else the dataset's
        known = model.devices.get(device["device_id"], device)
        records = model.estimate_many(requests_of(rows, files, known, lengths))
        pred = np.array([r["time_ns"] for r in records])
        floor = np.array([r["floor_ns"] for r in records])
        true = rows["median_time_ns"].to_numpy(np.float64)
        summary.append({"model": name, **metrics(true, pred, floor),
                        **bound_metrics(rows["bound"], pd.Series([r["bound"] for r in records])),
                        **roofline_metrics(rows, records, known["roofline"]), **interval_metrics_of(records, true)})
        for fam, idx in rows.groupby("family").indices.items():
            summary.append({"model": name, "family": fam, **metrics(true[idx], pred[idx], floor[idx])})
        per_launch.append(pd.DataFrame({"model": name, "key": rows["key"], "family": rows["family"],
                                        "true_ns": true, "pred_ns": pred, "floor_ns": floor,
                                        "floor": [r["floor"] for r in records],
                                        "time_lo_ns": [r.get("time_lo_ns") for r in records],
                                        "time_hi_ns": [r.get("time_hi_ns") for r in records],
                                        "counts_known": [r.get("flops_source") == "static" for r in records],
                                        "derived_trips": [len(r.get("derived_trips") or {}) for r in records],
                                        "true_bound": rows["bound"].to_numpy(),
                                        "pred_bound": [r["bound"] for r in records],
                                        "counts_source": rows["counts_source"].to_numpy()}))
    return pd.DataFrame(summary), pd.concat(per_launch, ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dataset_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a measured dataset folder")
    parser.add_argument("--models", nargs="+", required=True, metavar="NAME=DIR", help="model directories")
    parser.add_argument("--out", required=True, help="folder for summary.csv and predictions.parquet")
    parser.add_argument("--buffers", action="store_true",
                        help="give every launch its buffers' lengths (from its kernel's spec), as `--buffer`")
    parser.add_argument("--specs", metavar="MODULE:FUNCTION",
                        help="with --buffers: where the specs of kernels outside the project's sets are")
    args = parser.parse_args(argv)
    models = {}
    for item in args.models:
        name, sep, directory = item.partition("=")
        if not sep or not Path(directory).is_dir():
            parser.error(f"--models {item}: expected NAME=DIR with an existing model directory")
        models[name] = directory
    dataset = Path(args.data)
    if not (dataset / "device.json").is_file():
        parser.error(f"--data {dataset}: not a dataset folder (no device.json)")
    specs = None
    if args.specs:
        import importlib

        module, _, function = args.specs.partition(":")
        try:
            specs = {s.kernel_id: s for s in getattr(importlib.import_module(module), function or "specs")()}
        except (ImportError, AttributeError) as exc:
            parser.error(f"--specs {args.specs}: {exc}")
    from kgraph.errors import KGraphError

    try:
        summary, per_launch = evaluate(dataset, models, args.buffers, specs)
    except KGraphError as exc:  # a row the estimate path refuses: say which folder, no traceback
        print(f"dataset_eval: {dataset}: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "summary.csv", index=False)
    per_launch.to_parquet(out / "predictions.parquet", index=False)
    pd.set_option("display.width", 200)
    print(summary[summary.get("family").isna()].drop(columns=["family"], errors="ignore").round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
