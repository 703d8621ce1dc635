"""StarPU's own performance models as baselines: the per-kernel history table and the ``a * n^b``
regression (``STARPU_HISTORY_BASED`` and ``STARPU_REGRESSION_BASED``), keyed by kernel and device.

Both only know kernels seen in training. For any other launch they answer the training mean of log
time and set ``fallback`` (the report prints their coverage = share of rows not answered by fallback).
They predict time only (other outputs NaN, bound -1).

``n`` is StarPU's data size: the bytes of the launch's global buffers, evaluated from the kernel
spec's buffer element counts at the launch's problem sizes (``sources.parquet`` ``spec_json``);
the number of work-items when the spec is unavailable.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from kgraph.models.baselines.base import Baseline, LaunchRows, empty_outputs


def data_bytes(rows: LaunchRows) -> np.ndarray:
    """Float[N]: bytes of each launch's global buffers (StarPU's data footprint size)."""
    from kgraph.data.corpus.spec import evaluate

    items = rows.launches[["g0", "g1", "g2"]].to_numpy(np.float64).prod(1)
    specs = {sid: json.loads(s) if isinstance(s, str) and s else None
             for sid, s in zip(rows.sources["source_id"], rows.sources.get("spec_json", [None] * len(rows.sources)))}
    out = np.empty(len(rows))
    for i, (sid, sizes) in enumerate(zip(rows.launches["source_id"], rows.launches["sizes"])):
        spec = specs.get(sid)
        try:
            env = json.loads(sizes)
            out[i] = sum(float(evaluate(a["count"], env)) * np.dtype(a["dtype"]).itemsize
                         for a in spec["args"] if a["kind"] == "buffer")
        except Exception:  # no spec, or a count expression outside its sizes: fall back to work-items
            out[i] = items[i]
    return np.maximum(out, 1.0)


def _config_keys(launches: pd.DataFrame) -> pd.Series:
    return (launches["device_id"] + "|" + launches["kernel_id"] + "|" + launches["sizes"].astype(str) + "|"
            + launches[["g0", "g1", "g2", "l0", "l1", "l2"]].astype(str).agg(",".join, axis=1))


def _kernel_keys(launches: pd.DataFrame) -> pd.Series:
    return launches["device_id"] + "|" + launches["kernel_id"]


class HistoryBaseline(Baseline):
    """Mean log time of the training launches with the same configuration (device, kernel, sizes,
    global, local); else of the same kernel on the device (StarPU keeps one table per kernel and
    device); else the training mean (``fallback``)."""

    name = "starpu_history"

    def fit(self, train: LaunchRows) -> "HistoryBaseline":
        log_time = pd.Series(train.targets()[0][:, 0].astype(np.float64))
        self.by_config = log_time.groupby(_config_keys(train.launches).to_numpy()).mean().to_dict()
        self.by_kernel = log_time.groupby(_kernel_keys(train.launches).to_numpy()).mean().to_dict()
        self.mean = float(log_time.mean())
        return self

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        out = empty_outputs(len(rows))
        config = _config_keys(rows.launches).map(self.by_config).to_numpy(np.float64)
        kernel = _kernel_keys(rows.launches).map(self.by_kernel).to_numpy(np.float64)
        value = np.where(np.isfinite(config), config, kernel)
        out["fallback"] = ~np.isfinite(value)
        out["log_time"] = np.where(out["fallback"], self.mean, value)
        return out


class RegressionBaseline(Baseline):
    """``t = a * n^b`` per (device, kernel), least squares on ``log t = log a + b log n``.

    A kernel whose training launches span a single ``n`` gets ``b = 0`` (its mean); unseen kernels
    get the training mean (``fallback``).
    """

    name = "starpu_regression"

    def fit(self, train: LaunchRows) -> "RegressionBaseline":
        frame = pd.DataFrame({"key": _kernel_keys(train.launches).to_numpy(),
                              "x": np.log(data_bytes(train)), "y": train.targets()[0][:, 0].astype(np.float64)})
        frame = frame[np.isfinite(frame["y"])]
        self.coef: dict[str, tuple[float, float]] = {}
        for key, g in frame.groupby("key"):
            x, y = g["x"].to_numpy(), g["y"].to_numpy()
            if np.ptp(x) > 0:
                b, log_a = np.polyfit(x, y, 1)
            else:
                b, log_a = 0.0, float(y.mean())
            self.coef[key] = (float(log_a), float(b))
        self.mean = float(frame["y"].mean())
        return self

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        out = empty_outputs(len(rows))
        keys = _kernel_keys(rows.launches).to_numpy()
        x = np.log(data_bytes(rows))
        fit = np.array([self.coef.get(k, (np.nan, np.nan)) for k in keys], dtype=np.float64).reshape(-1, 2)
        value = fit[:, 0] + fit[:, 1] * x
        out["fallback"] = ~np.isfinite(value)
        out["log_time"] = np.where(out["fallback"], self.mean, value)
        return out
