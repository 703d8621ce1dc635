"""Derived targets of a launch row: achieved bandwidth and FLOP/s, arithmetic intensity, and the
bound class against the device's measured roofline (definition in docs/DESIGN.md).
"""
from __future__ import annotations

LATENCY_UTIL = 0.05  # below this on both axes, a launch is latency bound


def bound_class(bw_util: float, flop_util: float) -> str:
    """``latency`` when both utilisations are below 5%, else the larger one's resource."""
    if bw_util < LATENCY_UTIL and flop_util < LATENCY_UTIL:
        return "latency"
    return "compute" if flop_util >= bw_util else "memory"


def derive(row: dict, roofline: dict) -> dict:
    """The derived columns of ``row`` (needs ``median_time_ns`` and counts; None when unknown).

    Achieved bandwidth counts the bytes the work-items load and store (``global_load_bytes +
    global_store_bytes``), in GB/s (bytes per ns); FLOP/s counts fp32 and fp64 FLOPs.
    The FLOP peak is fp64's when the launch does more fp64 than fp32 FLOPs.
    """
    out = {"achieved_bw_gbs": None, "achieved_gflops": None, "arithmetic_intensity": None,
           "bw_util": None, "flop_util": None, "bound": None}
    t = row.get("median_time_ns")
    counts = [row.get(k) for k in ("flops_fp32", "flops_fp64", "global_load_bytes", "global_store_bytes")]
    if row.get("status") != "ok" or not t or t <= 0 or any(c is None or c < 0 for c in counts):
        return out
    fp32, fp64, loads, stores = counts
    nbytes, flops = loads + stores, fp32 + fp64
    out["achieved_bw_gbs"] = nbytes / t
    out["achieved_gflops"] = flops / t
    out["arithmetic_intensity"] = flops / nbytes if nbytes > 0 else float(flops > 0) * 1e9
    peak = roofline["fp64_gflops"] if fp64 > fp32 else roofline["fp32_gflops"]
    out["bw_util"] = out["achieved_bw_gbs"] / roofline["copy_bw_gbs"] if roofline["copy_bw_gbs"] > 0 else 0.0
    out["flop_util"] = out["achieved_gflops"] / peak if peak > 0 else 0.0
    out["bound"] = bound_class(out["bw_util"], out["flop_util"])
    return out
