"""The analytical roofline model: static counts at the launch's sizes against the device's measured peaks.

``time_ns = launch_overhead + max(flops / peak, bytes / copy_bw)`` with the peaks of ``device.json``
(``roofline``: ``copy_bw_gbs`` (GB/s = bytes/ns), ``fp32_gflops``/``fp64_gflops`` (GFLOP/s = FLOP/ns;
fp64's when the launch does more fp64 than fp32 FLOPs), ``launch_overhead_us``). FLOPs are the static
``flops_fp32 + flops_fp64`` and bytes the static ``global_load_bytes + global_store_bytes``, both for the
whole launch (per-work-item counts of ``kgraph.analysis`` times the work items).

Two variants: ``roofline`` fits nothing; ``roofline_fitted`` multiplies the ``max(...)`` term by one
global factor ``c`` fitted on the training launches as the median of ``log(t - overhead) - log(max(...))``
(so it learns the typical distance to the roof, nothing per kernel).
Predicted bandwidth is bytes / time, the bound class follows the dataset's rule at the predicted time.
No footprint prediction (NaN). Launches whose kernel has no static analysis get no prediction.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.targets import REGRESSION_TARGETS, TARGET
from kgraph.models.baselines.base import Baseline, LaunchRows, bound_from_roofline, empty_outputs


class RooflineBaseline(Baseline):
    """Roofline time from static counts and measured peaks.

    Args:
        fit_efficiency: fit the one global factor ``c`` on the training rows (``roofline_fitted``);
            False keeps ``c = 1`` (``roofline``, no fitting).
    """

    def __init__(self, fit_efficiency: bool = False):
        self.fit_efficiency = fit_efficiency
        self.name = "roofline_fitted" if fit_efficiency else "roofline"
        self.factor = 1.0

    @staticmethod
    def terms(rows: LaunchRows) -> dict[str, np.ndarray]:
        """Per launch: ``flops``, ``bytes``, ``fp64_dominant``, ``overhead_ns``, ``roof_ns`` = max(flops/peak, bytes/bw)."""
        totals = rows.static_totals()
        fp32, fp64 = totals["flops_fp32"], totals["flops_fp64"]
        flops = fp32 + fp64
        nbytes = totals["global_load_bytes"] + totals["global_store_bytes"]
        fp64_dominant = fp64 > fp32
        peak = np.where(fp64_dominant, rows.roofline("fp64_gflops"), rows.roofline("fp32_gflops"))
        roof = np.maximum(flops / peak, nbytes / rows.roofline("copy_bw_gbs"))
        return {"flops": flops, "bytes": nbytes, "fp64_dominant": fp64_dominant,
                "overhead_ns": rows.roofline("launch_overhead_us") * 1000.0, "roof_ns": roof}

    def fit(self, train: LaunchRows) -> "RooflineBaseline":
        self.factor = 1.0
        if self.fit_efficiency:
            t = self.terms(train)
            time_ns = TARGET["time"].inverse(train.targets()[0][:, REGRESSION_TARGETS.index("time")])
            excess = time_ns - t["overhead_ns"]
            ok = np.isfinite(excess) & (excess > 0) & np.isfinite(t["roof_ns"]) & (t["roof_ns"] > 0)
            if ok.any():
                self.factor = float(np.exp(np.median(np.log(excess[ok]) - np.log(t["roof_ns"][ok]))))
        return self

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        out = empty_outputs(len(rows))
        t = self.terms(rows)
        time_ns = t["overhead_ns"] + self.factor * t["roof_ns"]
        with np.errstate(all="ignore"):
            natural = {"time": time_ns, "bandwidth": t["bytes"] / time_ns, "flops": t["flops"], "bytes": t["bytes"]}
            for name, values in natural.items():  # natural units -> the log targets of kgraph.data.targets
                out[TARGET[name].log_name] = TARGET[name].transform(values)
        out["bound"] = bound_from_roofline(time_ns, t["flops"], t["bytes"], t["fp64_dominant"], rows)
        return out
