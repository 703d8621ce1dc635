"""What every baseline consumes and returns.

A baseline is fitted on, and predicts for, :class:`LaunchRows`: measured launch rows (the columns of
``launches-*.parquet``) with the sources and device descriptors they refer to. ``predict`` returns
the same named outputs as the neural model's :class:`kgraph.models.heads.Prediction`, as numpy arrays:
``log_time, log_bandwidth, log_footprint, log_flops, log_bytes`` (Float[N], the log units of
``kgraph.data.features.REGRESSION_TARGETS``; NaN = this baseline does not predict it), ``bound`` (Long[N],
index in ``kgraph.data.features.BOUND_CLASSES``, -1 = no prediction) and ``fallback`` (Bool[N]: True where
the baseline could not use its own model for the row and answered with a fallback, e.g. the
training mean for a kernel it never saw).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.data.features import BOUND_CLASSES, REGRESSION_TARGETS, STATIC_COUNTS, feature_names, to_launch_features
from kgraph.data.static_counts import counts_exact

OUTPUT_NAMES = tuple(f"log_{t}" for t in REGRESSION_TARGETS)


@dataclass
class LaunchRows:
    """Launch rows plus everything a baseline may look up for them.

    Args:
        launches: ok launch rows (columns of ``launches-*.parquet``), index 0..N-1.
        sources: rows of ``sources.parquet`` covering every launch's ``source_id``.
        devices: device_id -> ``device.json`` descriptor.

    The launch feature matrix of :func:`kgraph.data.features.to_launch_features` is computed once (lazily)
    and shared by every subset made with :meth:`take`.
    """

    launches: pd.DataFrame
    sources: pd.DataFrame
    devices: dict[str, dict]
    _features: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.launches)

    @classmethod
    def from_datasets(cls, directories: list[str | Path]) -> "LaunchRows":
        """Pool the ok launches of measured dataset directories (``data/datasets/<device_id>``)."""
        from kgraph.data.datamodule import read_dataset
        from kgraph.data.device_descriptors import merge_descriptors

        parts = [read_dataset(d) for d in directories]
        launches = pd.concat([p[0] for p in parts], ignore_index=True)
        sources = pd.concat([p[1] for p in parts], ignore_index=True).drop_duplicates("source_id")
        return cls(launches.reset_index(drop=True), sources.reset_index(drop=True),
                   merge_descriptors(p[2] for p in parts))

    def take(self, index: np.ndarray) -> "LaunchRows":
        """The rows at ``index`` (positions), sharing sources, devices and computed features."""
        index = np.asarray(index, dtype=np.int64)
        feats = self.features()[index]
        return LaunchRows(self.launches.iloc[index].reset_index(drop=True), self.sources, self.devices, feats)

    def features(self) -> np.ndarray:
        """Float32[N, F] launch features (``kgraph.data.features.feature_names()`` order)."""
        if self._features is None:
            self._features = to_launch_features(self.launches, self.sources, self.devices)
        return self._features

    def feature(self, name: str) -> np.ndarray:
        """One feature column as float64."""
        return self.features()[:, feature_names().index(name)].astype(np.float64)

    def static_totals(self) -> dict[str, np.ndarray]:
        """Whole-launch static counts (``STATIC_COUNTS`` names, Float[N]; NaN where the static analysis
        of the kernel did not evaluate), recovered from the ``static_<count>_total`` features."""
        known = counts_exact(self.feature("static_known"))
        return {c: np.where(known, np.expm1(self.feature(f"static_{c}_total")), np.nan) for c in STATIC_COUNTS}

    def source_rows(self) -> pd.DataFrame:
        """For each launch, its source row (``lang, source, spec_json`` ...), aligned with ``launches``."""
        cols = [c for c in self.sources.columns if c not in ("kernel_id", "family", "kernel_name")]
        return self.launches[["source_id"]].merge(self.sources[cols], on="source_id", how="left")

    def roofline(self, key: str) -> np.ndarray:
        """A ``device.json`` roofline quantity (e.g. ``copy_bw_gbs``) for each launch's device."""
        return self.launches["device_id"].map(lambda d: float(self.devices[d]["roofline"][key])).to_numpy(np.float64)

    def targets(self) -> tuple[np.ndarray, np.ndarray]:
        """(Float[N, T] log targets, NaN unknown; Long[N] bound index, -1 unknown)."""
        from kgraph.data.features import to_targets

        return to_targets(self.launches)

    def args(self) -> list[dict]:
        """Each launch's scalar arguments (``args`` JSON) as a dict."""
        return [json.loads(a) if isinstance(a, str) and a else {} for a in self.launches["args"]]


def empty_outputs(n: int) -> dict[str, np.ndarray]:
    """Outputs with nothing predicted: every regression NaN, bound -1, no fallback."""
    out = {name: np.full(n, np.nan) for name in OUTPUT_NAMES}
    out["bound"] = np.full(n, -1, dtype=np.int64)
    out["fallback"] = np.zeros(n, dtype=bool)
    return out


def bound_from_roofline(time_ns: np.ndarray, flops: np.ndarray, nbytes: np.ndarray, fp64_dominant: np.ndarray,
                        rows: LaunchRows) -> np.ndarray:
    """Bound class indices of predicted launches, by the dataset's rule (``kgraph.data.harness.derived``):
    utilisations of the device's copy bandwidth and FLOP peak at the predicted time."""
    from kgraph.data.harness.derived import LATENCY_UTIL

    peak = np.where(fp64_dominant, rows.roofline("fp64_gflops"), rows.roofline("fp32_gflops"))
    with np.errstate(all="ignore"):
        bw_util = nbytes / time_ns / rows.roofline("copy_bw_gbs")
        flop_util = flops / time_ns / peak
    bound = np.where(flop_util >= bw_util, BOUND_CLASSES.index("compute"), BOUND_CLASSES.index("memory"))
    bound = np.where((bw_util < LATENCY_UTIL) & (flop_util < LATENCY_UTIL), BOUND_CLASSES.index("latency"), bound)
    ok = np.isfinite(bw_util) & np.isfinite(flop_util)
    return np.where(ok, bound, -1).astype(np.int64)


class Baseline:
    """Interface of a baseline (subclasses set ``name`` and implement both methods)."""

    name = "baseline"

    def fit(self, train: LaunchRows) -> "Baseline":
        raise NotImplementedError

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        raise NotImplementedError
