"""Physical floors of a launch's time: no kernel runs faster than its device's measured peaks allow.

Each floor is a time in nanoseconds, computed from the launch's exact work counts (the static analysis
evaluated at the launch, or the instrumented counts) and the device descriptor's measured roofline
(:mod:`kgraph.data.harness.roofline`):

==========  ==================================================================================
``fp32``    fp32 FLOPs ÷ the measured fp32 FMA peak
``fp64``    fp64 FLOPs ÷ the measured fp64 FMA peak (fp32 peak where the device has no fp64)
``dram``    compulsory DRAM traffic ÷ the measured copy bandwidth. A launch whose footprint ``F``
            (distinct global bytes touched) exceeds the last-level cache ``C`` must move at least
            ``F - C`` bytes between DRAM and the chip, whatever the cache held before it ran.
``launch``  the measured duration of an empty kernel (launch overhead)
==========  ==================================================================================

The largest floor is the roofline lower bound of the launch; the bounded time head
(:class:`kgraph.models.heads.MultiTaskHead`) never predicts below it. Integer, transcendental and atomic
work have no measured peak and contribute no floor (their cost is learned as an efficiency). Nor do
requested bytes (global or local): caches and registers serve repeated accesses, so counted bytes ÷ a
bandwidth is no bound — on the H200, 4.7% of launches (tiled GEMMs whose compiler keeps local-memory
values in registers) run faster than counted local bytes ÷ the measured local bandwidth.

``C`` is the larger of the descriptor's ``global_cache_bytes`` (what OpenCL reports) and
``llc_bytes`` (the last-level cache from the spec sheet, where the descriptor has it): a larger cache
only lowers the floor, so the bound stays a bound.

Checked against every measured launch (``tests/test_floors.py``, BENCHMARKS.md "Physical floors"):
0.02% of the H200's 101k launches run below their floor, none by more than 15% (timing noise).
"""
from __future__ import annotations

import numpy as np

#: Floor names, in the order of :func:`floors_ns`'s columns and of the ``floor_<name>`` features.
FLOORS = ("fp32", "fp64", "dram", "launch")
#: log(ns) standing for "no floor" (a zero floor): far below any real launch, finite for the network.
NO_FLOOR_LOG_NS = float(np.log(1e-3))


def cache_bytes(descriptor: dict) -> float:
    """Last-level cache bytes used by the DRAM floor (the larger of the reported and spec-sheet sizes)."""
    roofline = descriptor.get("roofline", {})
    return float(max(descriptor.get("global_cache_bytes", 0) or 0, descriptor.get("llc_bytes", 0) or 0,
                     roofline.get("llc_bytes", 0) or 0))


def device_rates(descriptor: dict) -> dict[str, float]:
    """Per-floor rates of one device: work units per nanosecond (FLOP/ns = GFLOP/s, byte/ns = GB/s),
    ``launch`` in ns, ``cache`` in bytes."""
    r = descriptor["roofline"]
    fp64 = r.get("fp64_gflops") if descriptor.get("has_fp64", True) else None
    return {"fp32": float(r["fp32_gflops"]), "fp64": float(fp64 or r["fp32_gflops"]),
            "dram": float(r["copy_bw_gbs"]),
            "launch": float(r["launch_overhead_us"]) * 1e3, "cache": cache_bytes(descriptor)}


def floors_ns(flops_fp32, flops_fp64, footprint_bytes, rates: dict[str, np.ndarray]) -> np.ndarray:
    """Float64[N, len(FLOORS)] floors in ns (0 where the work is zero or unknown).

    Args:
        flops_fp32, flops_fp64: total FLOPs of the launch, Float[N] (NaN = unknown).
        footprint_bytes: distinct global bytes the launch touches, Float[N] (NaN = unknown: no DRAM floor).
        rates: each key of :func:`device_rates` as Float[N] (the row's device).
    """
    def known(x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(np.isfinite(x) & (x > 0), x, 0.0)

    traffic = np.maximum(known(footprint_bytes) - rates["cache"], 0.0)
    n = len(traffic)
    return np.column_stack([
        known(flops_fp32) / rates["fp32"],
        known(flops_fp64) / rates["fp64"],
        traffic / rates["dram"],
        np.broadcast_to(rates["launch"], (n,)).astype(np.float64),
    ])


def parallel_fraction(global_sizes, local_sizes, compute_units) -> np.ndarray:
    """Float[N] in (0, 1]: the share of the device's compute units a launch can occupy at once.

    A work-group runs on one compute unit, so a launch of ``G`` work-groups can use at most
    ``min(G, CU)`` of the ``CU`` units, and its FLOP floors are the device-wide ones divided by this share
    (a single work-group of Cholesky's ``tile_potrf`` on a 132-unit H200 has 1/132 of the chip). 1 where the
    work-group size or the unit count is unknown. Checked against every measured launch with fewer
    work-groups than units (``tests/test_floors.py``): none of the corpus datasets runs below the scaled
    floor by more than 15%; 5 of the 9,531 such generated H200 launches do (compilers fold some counted FLOPs).

    Args:
        global_sizes, local_sizes: Int[N, 3] work-items per dimension (unused dimensions 1; a local size
            with a non-positive entry: unknown).
        compute_units: Float[N], the device's compute units (NaN or < 1: unknown).
    """
    g = np.asarray(global_sizes, dtype=np.float64).reshape(-1, 3)
    lsz = np.asarray(local_sizes, dtype=np.float64).reshape(-1, 3)
    cu = np.asarray(compute_units, dtype=np.float64).reshape(-1)
    known = (lsz > 0).all(1) & (cu >= 1)
    groups = np.prod(np.ceil(g / np.where(lsz > 0, lsz, 1.0)), axis=1)
    return np.where(known, np.minimum(groups, np.where(known, cu, 1.0)) / np.where(known, cu, 1.0), 1.0)


def rates_of_rows(device_ids, devices: dict[str, dict]) -> dict[str, np.ndarray]:
    """:func:`device_rates` spread over rows: each key as Float[N] following ``device_ids``."""
    names, rows = np.unique(np.asarray(device_ids), return_inverse=True)
    per_device = [device_rates(devices[d]) for d in names]
    # each distinct device's rates gathered by row (a batch's rows are mostly of one or a few devices)
    return {k: np.array([rates[k] for rates in per_device], dtype=np.float64)[rows.reshape(-1)]
            for k in ("fp32", "fp64", "dram", "launch", "cache")}


def log_floors(floors: np.ndarray) -> np.ndarray:
    """Natural log of :func:`floors_ns` with zero floors at :data:`NO_FLOOR_LOG_NS` (Float32[N, K])."""
    with np.errstate(divide="ignore"):
        out = np.where(floors > 0, np.log(np.where(floors > 0, floors, 1.0)), NO_FLOOR_LOG_NS)
    return np.maximum(out, NO_FLOOR_LOG_NS).astype(np.float32)


def launch_floors_ns(log_floor_features, global_sizes, local_sizes, compute_units) -> np.ndarray:
    """Float64[N, K] the floors (ns, :data:`FLOORS` order, 0 = none) a prediction is held above: the launches'
    ``floor_`` features (:func:`log_floors`, device-wide) back in ns, the FLOP floors divided by the share of
    the device the launch can occupy (:func:`parallel_fraction`). What ``kgraph estimate`` reports as
    ``floor_ns`` (the row maximum).

    Args:
        log_floor_features: Float[N, K] the ``floor_<name>`` feature columns, in :data:`FLOORS` order.
        global_sizes, local_sizes, compute_units: as :func:`parallel_fraction`.
    """
    f = np.asarray(log_floor_features, dtype=np.float64)
    floors = np.exp(f) * (f > NO_FLOOR_LOG_NS)
    share = parallel_fraction(global_sizes, local_sizes, compute_units)
    floors[:, [FLOORS.index("fp32"), FLOORS.index("fp64")]] /= share[:, None]
    return floors
