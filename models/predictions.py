"""The per-launch predictions format that ``kgraph report`` reads, and its writers.

A *run directory* holds one or more ``predictions-<model>-<split>.parquet`` files and a ``run.json``.
Each parquet row is one test launch:

- ``model`` (the report row: a variant such as ``hybrid`` or a baseline such as ``roofline``),
  ``split`` (``random``, ``leave_family_out`` ...), ``row`` (index in the pooled launch table),
  ``key, device_id, kernel_id, family, kernel_name``;
- ``true_log_<t>`` and ``pred_log_<t>`` for each ``t`` of ``kgraph.data.targets.REGRESSION_TARGETS``
  (the log units of that table; NaN = unknown or not predicted);
- ``true_bound`` and ``pred_bound``: class names of ``kgraph.data.targets.BOUND_CLASSES`` ("" = unknown);
- ``fallback``: True where the model answered with a fallback (see ``kgraph.models.baselines.base``).

``run.json``: ``{"devices": {device_id: roofline dict}, "models": {model: {"split": ..., "notes": ...,
"fit_seconds": ..., ...}}}``; the report uses the rooflines for its roofline chart.

Writers: :func:`to_frame` + :func:`write_predictions` (baselines, any script) and the Lightning
callback :class:`PredictionWriter` for ``kgraph predict`` (see docs/BASELINES.md).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.data.targets import BOUND_CLASSES, REGRESSION_TARGETS, to_log
from kgraph.errors import InputError

ID_COLUMNS = ("key", "device_id", "kernel_id", "family", "kernel_name")


def _names(indices: np.ndarray) -> np.ndarray:
    names = np.array([*BOUND_CLASSES, ""], dtype=object)
    idx = np.asarray(indices, dtype=np.int64)
    return names[np.where((idx >= 0) & (idx < len(BOUND_CLASSES)), idx, len(BOUND_CLASSES))]


def to_frame(outputs: dict[str, np.ndarray], launches: pd.DataFrame, model: str, split: str,
             rows: np.ndarray | None = None) -> pd.DataFrame:
    """Predictions frame of ``launches`` (measured rows, aligned with ``outputs``).

    Args:
        outputs: ``log_<t>`` Float[N] per target (missing keys = not predicted), ``bound`` Long[N]
            class indices, optional ``fallback`` Bool[N].
        launches: the N measured launch rows (targets are read from them).
        model, split: names written in every row.
        rows: Long[N] indices of the launches in the pooled table (default 0..N-1).
    """
    from kgraph.data.features import to_targets

    n = len(launches)
    true, bound = to_targets(launches)
    frame = pd.DataFrame({"model": [model] * n, "split": [split] * n,
                          "row": np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)})
    for col in ID_COLUMNS:
        frame[col] = launches[col].to_numpy() if col in launches else ""
    for j, t in enumerate(REGRESSION_TARGETS):
        frame[f"true_log_{t}"] = true[:, j].astype(np.float64)
        frame[f"pred_log_{t}"] = np.asarray(outputs.get(f"log_{t}", np.full(n, np.nan)), dtype=np.float64)
    frame["true_bound"] = _names(bound)
    frame["pred_bound"] = _names(outputs.get("bound", np.full(n, -1)))
    frame["fallback"] = np.asarray(outputs.get("fallback", np.zeros(n, dtype=bool)), dtype=bool)
    return frame


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text)


def write_predictions(out_dir: str | Path, frame: pd.DataFrame, devices: dict[str, dict],
                      info: dict | None = None) -> Path:
    """Write one model's predictions on one split into a run directory and merge ``run.json``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model, split = str(frame["model"].iloc[0]), str(frame["split"].iloc[0])
    path = out / f"predictions-{_slug(model)}-{_slug(split)}.parquet"
    frame.to_parquet(path, index=False)
    meta_path = out / "run.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {"devices": {}, "models": {}}
    meta["devices"].update({d: dict(desc.get("roofline", desc)) for d, desc in devices.items()})
    meta["models"][f"{model}|{split}"] = {"model": model, "split": split, **(info or {})}
    tmp = meta_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, meta_path)
    return path


def read_runs(paths: list[str | Path]) -> tuple[pd.DataFrame, dict]:
    """All predictions of run directories (or single parquet files) and their merged ``run.json``.

    Files with no rows are left out and listed in ``meta["empty"]``; InputError naming the file when one
    is not a predictions parquet (:func:`read_predictions`), a ``run.json`` is damaged
    (:func:`read_run_meta`) or no file has a row.

    Args:
        paths: run directories or ``predictions-*.parquet`` files.
    """
    frames, meta = [], {"devices": {}, "models": {}, "empty": []}
    for p in map(Path, paths):
        if not p.exists():
            raise InputError(f"{p}: no such run directory or predictions file")
        files = sorted(p.glob("predictions-*.parquet")) if p.is_dir() else [p]
        if not files:
            raise InputError(f"{p}: no predictions-*.parquet in this run directory (see docs/BASELINES.md)")
        for f in files:
            frame = read_predictions(f)
            if len(frame):
                frames.append(frame)
            else:
                meta["empty"].append(str(f))
        meta_path = (p if p.is_dir() else p.parent) / "run.json"
        if meta_path.is_file():
            m = read_run_meta(meta_path)
            meta["devices"].update(m["devices"])
            meta["models"].update(m["models"])
    if not frames:
        raise InputError(f"{', '.join(map(str, paths))}: no predictions to report: every predictions file has "
                         f"0 rows ({', '.join(meta['empty'][:3])})")
    return pd.concat(frames, ignore_index=True), meta


def read_predictions(path: Path) -> pd.DataFrame:
    """One predictions parquet, checked: ``model``, ``split`` and the time columns present, every
    ``true_log_*``/``pred_log_*`` column numeric; the columns the format allows to be absent are filled
    (targets not predicted: NaN; ``family``, bound classes: ""; ``fallback``: False).

    Args:
        path: a ``predictions-*.parquet`` file.
    """
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a non-parquet file
        raise InputError(f"{path}: not a predictions parquet ({exc.__class__.__name__}: {exc})") from None
    missing = [c for c in ("model", "split", "true_log_time", "pred_log_time") if c not in frame]
    if missing:
        raise InputError(f"{path}: not a predictions file: lacks column(s) {', '.join(missing)}")
    for t in REGRESSION_TARGETS:
        for column in (f"true_log_{t}", f"pred_log_{t}"):
            if column not in frame:
                frame[column] = np.nan
            elif not pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column]):
                raise InputError(f"{path}: column {column} must be numeric (log units), it holds "
                                 f"{frame[column].dtype}")
    for column in ("family", "true_bound", "pred_bound"):
        frame[column] = frame[column].fillna("").astype(str) if column in frame else ""
    for column in ("model", "split"):
        empty = int(frame[column].isna().sum())
        if empty:
            raise InputError(f"{path}: column {column} is empty in {empty} row(s) (every row names its {column})")
        frame[column] = frame[column].astype(str)
    for column in ID_COLUMNS:  # written by every writer ("" where unknown): filled the same way when absent
        frame[column] = frame[column].fillna("").astype(str) if column in frame else ""
    if "fallback" in frame:
        frame["fallback"] = frame["fallback"].fillna(False).astype(bool)
    return frame


def read_run_meta(path: Path) -> dict:
    """A run's ``run.json`` checked: an object whose ``devices`` maps device ids to rooflines (the
    numbers the roofline chart reads, finite and positive; ``fp64_gflops`` may be 0) and whose
    ``models`` maps names to objects. InputError naming the file and the key otherwise.

    Args:
        path: the ``run.json`` file.
    """
    try:
        meta = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text (a binary or damaged file); rewrite it or remove it "
                         "(it only feeds the roofline plots)") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except (OSError, RecursionError) as exc:
        raise InputError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: a run.json is a JSON object (devices, models), got a {type(meta).__name__}")
    devices, models = meta.get("devices", {}), meta.get("models", {})
    if not isinstance(devices, dict) or not isinstance(models, dict):
        raise InputError(f"{path}: 'devices' and 'models' must be JSON objects (by device id, by model)")
    for device_id, roofline in devices.items():
        _check_roofline(roofline, f"{path}: devices.{device_id}")
    for name, info in models.items():
        if not isinstance(info, dict):
            raise InputError(f"{path}: models.{name} must be a JSON object, got {json.dumps(info)[:40]}")
    return {"devices": devices, "models": models}


def _check_roofline(roofline, where: str) -> None:
    """InputError naming ``where`` and the key when ``roofline`` lacks a number the roofline chart draws."""
    if not isinstance(roofline, dict):
        raise InputError(f"{where} must be a roofline object (copy_bw_gbs, fp32_gflops, fp64_gflops), got "
                         f"{json.dumps(roofline)[:40]}")
    for key in ("copy_bw_gbs", "fp32_gflops", "fp64_gflops"):
        value = roofline.get(key)
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)
        if not number or value < 0 or (value == 0 and key != "fp64_gflops"):
            raise InputError(f"{where}.{key} must be a finite positive number, got {json.dumps(value)[:40]}")


def _writer_base():
    from lightning.pytorch.callbacks import BasePredictionWriter

    return BasePredictionWriter


class PredictionWriter(_writer_base()):
    """Lightning callback: after ``kgraph predict``, write the predictions of the DataModule's predict
    split (its test launches) in this format.

    Args:
        out_dir: run directory.
        model_name: the report row name (e.g. the variant: ``hybrid``, ``graph_only``).

    Use: ``kgraph predict --config conf/... --ckpt_path CKPT
    --trainer.callbacks+=kgraph.models.predictions.PredictionWriter --trainer.callbacks.out_dir=runs/x
    --trainer.callbacks.model_name=hybrid``.
    """

    def __init__(self, out_dir: str = "runs/predictions", model_name: str = "kgraph"):
        super().__init__(write_interval="epoch")
        self.out_dir, self.model_name = out_dir, model_name

    def write_on_epoch_end(self, trainer, pl_module, predictions, batch_indices) -> None:
        if not trainer.is_global_zero or not predictions:
            return
        dm = trainer.datamodule
        rows = np.concatenate([p["row"] for p in predictions])
        outputs = {f"log_{t}": to_log(t, np.concatenate([p[t] for p in predictions])) for t in REGRESSION_TARGETS}
        index = {name: i for i, name in enumerate(BOUND_CLASSES)}
        outputs["bound"] = np.array([index[b] for p in predictions for b in p["bound"]], dtype=np.int64)
        frame = to_frame(outputs, dm.table.iloc[rows].reset_index(drop=True), self.model_name, dm.split, rows)
        write_predictions(self.out_dir, frame, dm.devices, {"datasets": list(dm.datasets), "seed": dm.seed})


def summarize_frame(frame: pd.DataFrame) -> dict[str, float]:
    """``kgraph.models.metrics.summarize`` of a predictions frame, plus ``launches`` and ``coverage`` (share
    of rows with a finite time prediction not answered by a fallback). ``bound_acc`` is NaN when the
    model predicts no bound class at all (a time-only model), never 0."""
    from kgraph.models.metrics import summarize

    pred = np.column_stack([frame[f"pred_log_{t}"].to_numpy(np.float64) for t in REGRESSION_TARGETS])
    true = np.column_stack([frame[f"true_log_{t}"].to_numpy(np.float64) for t in REGRESSION_TARGETS])
    index = {name: i for i, name in enumerate(BOUND_CLASSES)}
    bound_pred = np.array([index.get(b, -1) for b in frame["pred_bound"]], dtype=np.int64)
    bound_true = np.array([index.get(b, -1) for b in frame["true_bound"]], dtype=np.int64)
    out = summarize(pred, true, bound_pred, bound_true)
    if not (bound_pred >= 0).any():
        out["bound_acc"] = float("nan")
    fallback = frame["fallback"].to_numpy(bool) if "fallback" in frame else np.zeros(len(frame), dtype=bool)
    out["launches"] = float(len(frame))
    out["coverage"] = float((np.isfinite(pred[:, 0]) & ~fallback).mean()) if len(frame) else float("nan")
    return out
