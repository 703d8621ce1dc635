"""Derived targets of a launch row: achieved bandwidth and FLOP/s, arithmetic intensity, and the
bound class against the device's measured roofline (definition in docs/DESIGN.md).

They are pure functions of a row's stored columns and the folder's ``device.json`` roofline, so a shard
does not store them (``columns.COMPUTED_ON_READ``): :func:`derive_frame` computes them for a whole frame
on read (:func:`kgraph.data.harness.store_read.read_launches`), :func:`derive` (the same, one row) for a row
nothing stores (``kgraph measure``'s printed answer).
"""
from __future__ import annotations

import math

LATENCY_UTIL = 0.05  # below this on both axes, a launch is latency bound
#: the counts the derived columns are computed from
DERIVED_FROM = ("flops_fp32", "flops_fp64", "global_load_bytes", "global_store_bytes")


def bound_class(bw_util, flop_util):
    """``latency`` when both utilisations are below 5%, else the larger one's resource: a str for two
    numbers, an object array for two arrays (:func:`derive_frame`)."""
    import numpy as np

    bw, fl = np.asarray(bw_util, dtype=np.float64), np.asarray(flop_util, dtype=np.float64)
    out = np.where((bw < LATENCY_UTIL) & (fl < LATENCY_UTIL), "latency", np.where(fl >= bw, "compute", "memory"))
    return str(out) if out.ndim == 0 else out.astype(object)


def utilisations(time_ns, fp32, fp64, nbytes, roofline: dict):
    """``(bw_util, flop_util)`` Float64[N] of launches taking ``time_ns``: bytes loaded + stored per ns over the
    copy bandwidth, FLOPs per ns over the peak (fp64's where a launch does more fp64 than fp32 FLOPs). The one
    rule of the measured rows (:func:`derive_frame`) and of the predicted ones (``kgraph.models.predictor``,
    from the predicted time and the static counts).

    Args:
        time_ns: Float[N] > 0; fp32, fp64, nbytes: Float[N] counts (FLOPs, bytes loaded + stored);
        roofline: ``device.json``'s ``roofline`` (``copy_bw_gbs``, ``fp32_gflops``, ``fp64_gflops``: numbers, or
            Float[N] arrays, each launch's device's).
    """
    import numpy as np

    t = np.asarray(time_ns, dtype=np.float64)
    fp32, fp64 = np.asarray(fp32, dtype=np.float64), np.asarray(fp64, dtype=np.float64)
    copy_bw, fp32_peak, fp64_peak = (np.asarray(roofline[k], dtype=np.float64)
                                     for k in ("copy_bw_gbs", "fp32_gflops", "fp64_gflops"))
    with np.errstate(divide="ignore", invalid="ignore"):
        bw_util = np.where(copy_bw > 0, np.asarray(nbytes, dtype=np.float64) / t / np.where(copy_bw > 0, copy_bw, 1.0),
                           0.0)
        peak = np.where(fp64 > fp32, fp64_peak, fp32_peak)
        flop_util = np.where(peak > 0, (fp32 + fp64) / t / np.where(peak > 0, peak, 1.0), 0.0)
    return bw_util, flop_util


def _missing(value) -> bool:
    """None or NaN (a null read back through pandas)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def derive(row: dict, roofline: dict) -> dict:
    """:func:`derive_frame` of one row in flight (``kgraph measure``'s answer): its derived columns, None where
    unknown. One definition: the rule is :func:`derive_frame`'s."""
    import pandas as pd

    one = derive_frame(pd.DataFrame([{k: row.get(k) for k in ("status", "median_time_ns", *DERIVED_FROM)}]),
                       roofline).iloc[0]
    return {name: None if _missing(v) else (v if name == "bound" else float(v)) for name, v in one.items()}


def derive_frame(frame, roofline: dict):
    """The derived columns of every row of the pandas DataFrame ``frame``: a DataFrame (same index) of
    ``columns.COMPUTED_ON_READ``, float64 with NaN and ``bound`` as object with None where unknown.

    Achieved bandwidth counts the bytes the work-items load and store (``global_load_bytes +
    global_store_bytes``), in GB/s (bytes per ns); FLOP/s counts fp32 and fp64 FLOPs. The FLOP peak is fp64's
    when the launch does more fp64 than fp32 FLOPs; the bound class is :func:`bound_class`'s. A row that is
    not ok, has no positive time, or a missing or negative (-1: unknown) count has none.

    Args:
        frame: launch rows (``status``, ``median_time_ns`` and the counts of :data:`DERIVED_FROM`; an
            absent column counts as missing); roofline: ``device.json``'s ``roofline``.
    """
    import numpy as np
    import pandas as pd

    n = len(frame)

    def column(name) -> np.ndarray:
        if name not in frame:
            return np.full(n, np.nan)
        return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    t = column("median_time_ns")
    counts = [column(name) for name in DERIVED_FROM]
    status = frame["status"].to_numpy(dtype=object) if "status" in frame else np.full(n, None, dtype=object)
    valid = (status == "ok") & ~np.isnan(t) & (np.nan_to_num(t) > 0)
    for c in counts:
        valid &= ~np.isnan(c) & (np.nan_to_num(c) >= 0)
    # integer sums, as derive adds Python ints: the same float for any count below 2**63
    fp32, fp64, loads, stores = (np.where(valid, c, 0).astype(np.int64) for c in counts)
    nbytes, flops = (loads + stores).astype(np.float64), (fp32 + fp64).astype(np.float64)
    t = np.where(valid, t, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        bw, gflops = nbytes / t, flops / t
        intensity = np.where(nbytes > 0, flops / np.where(nbytes > 0, nbytes, 1.0), (flops > 0) * 1e9)
    bw_util, flop_util = utilisations(t, fp32, fp64, nbytes, roofline)
    bound = bound_class(bw_util, flop_util)
    bound[~valid] = None
    out = {"achieved_bw_gbs": bw, "achieved_gflops": gflops, "arithmetic_intensity": intensity,
           "bw_util": bw_util, "flop_util": flop_util}
    out = {name: np.where(valid, values, np.nan) for name, values in out.items()}
    return pd.DataFrame({**out, "bound": bound}, index=frame.index)


def with_derived(frame, roofline: dict | None, absent_only: bool = False):
    """``frame`` with ``columns.COMPUTED_ON_READ`` set by :func:`derive_frame` (replacing any stored
    values: one definition); unchanged (absent columns added as null) when ``roofline`` is None (no
    usable ``device.json``).

    Args:
        frame: launch rows (a pandas DataFrame, changed in place and returned); roofline: the folder's.
        absent_only: set only the columns ``frame`` lacks (a hand-made table's own values are kept).
    """
    from .columns import COMPUTED_ON_READ

    names = [n for n in COMPUTED_ON_READ if n not in frame] if absent_only else list(COMPUTED_ON_READ)
    if roofline is None:
        for name in names:
            if name not in frame:
                frame[name] = None if name == "bound" else float("nan")
        return frame
    if names:
        derived = derive_frame(frame, roofline)
        for name in names:
            frame[name] = derived[name]
    return frame


def folder_roofline(directory) -> dict | None:
    """The ``roofline`` of the folder's ``device.json``; None when it is missing or not a valid descriptor
    (``kgraph dataset validate`` reports that)."""
    from pathlib import Path

    from kgraph.errors import InputError

    from .descriptor import load_descriptor

    if not (Path(directory) / "device.json").is_file():
        return None
    try:
        return load_descriptor(directory)["roofline"]
    except InputError:
        return None
