"""Kernels whose counted work the compiler removed: launches that ran faster than the device executes what they count.

A generated kernel can compute a value that does not depend on what it loads (``blend(v) = v ^ (v ^ c)`` is the
constant ``c``, ``max(m ^ c, m) ^ m`` the same for every ``m``). It still passes its reference check, but the
compiler folds the arithmetic and drops the loads that fed it. More often, an integer expression that does
not change inside an inner loop (``MIX(v1, v2)`` in a loop over ``j``) is computed once, not once per
iteration. Its counts, static or instrumented, count the source's operations, so they describe work that never
ran: an H100 row of ``gen.2.105`` counts 6.6 G integer operations and 1 GiB of loads in 13.8 µs (480 T
operations/s, 77 TB/s). Trained on, such a row teaches that much counted work is fast. A model given the same
counts for code that really does the work (every hand-written kernel) cannot be right on both.

**The check** (:func:`work_rate_ratio`): counted arithmetic (``int_ops + flops_fp32 + flops_fp64 +
transcendental``) ÷ median time, against the device's measured fp32 FMA peak in FLOP/s (``device.json``
``roofline.fp32_gflops``, where an FMA counts 2). A ratio above 1 means more operations per second than
twice the rate at which the device issues fp32 FMA instructions, and more than its integer units issue. No
launch of a hand-written kernel (the 413 corpus kernels on four devices, the 31 holdout kernels on three)
is above 1; 0.5% of the generated H200 launches are (55 of 3,570 kernels). The bound is loose on purpose:
a kernel only partly elided stays ``ok``.

**What is marked** (:func:`mark_elided`, ``kgraph dataset mark-elided``): every ok launch, on that device, of
a kernel with at least one launch above the bound gets ``status = work_elided`` and a message with its
ratio. The small launches of such a kernel run the same folded code; the launch overhead hides it. The rows
stay in the dataset with their status; readers that train take ok rows only.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

#: the status of :func:`mark_elided`'s rows (``columns.STATUSES``)
ELIDED_STATUS = "work_elided"
#: the counted columns whose sum is compared with the peak
WORK_COLUMNS = ("int_ops", "flops_fp32", "flops_fp64", "transcendental")


def work_rate_ratio(frame, fp32_gflops: float) -> np.ndarray:
    """Float[N]: counted operations per ns ÷ the fp32 FMA peak (GFLOP/s = FLOP/ns); NaN where unknown.

    Args:
        frame: launch rows (``read_launches``) with the :data:`WORK_COLUMNS` and ``median_time_ns``.
        fp32_gflops: the device's measured fp32 FMA peak.
    """
    import pandas as pd

    counts = np.stack([pd.to_numeric(frame[c], errors="coerce").to_numpy(np.float64) for c in WORK_COLUMNS])
    work = counts.sum(0)
    time = pd.to_numeric(frame["median_time_ns"], errors="coerce").to_numpy(np.float64)
    with np.errstate(all="ignore"):
        ratio = work / time / float(fp32_gflops)
    return np.where((counts >= 0).all(0) & (time > 0) & np.isfinite(ratio), ratio, np.nan)  # -1: unknown count


def elided_kernels(frame, fp32_gflops: float) -> dict[str, float]:
    """``{kernel_id: largest ratio}`` of the kernels with an ok launch above the bound."""
    ok = (frame["status"] == "ok").to_numpy()
    ratio = work_rate_ratio(frame, fp32_gflops)
    above = ok & (ratio > 1.0)
    out: dict[str, float] = {}
    for kernel, r in zip(frame["kernel_id"].to_numpy()[above], ratio[above]):
        out[kernel] = max(out.get(kernel, 0.0), float(r))
    return out


def mark_elided(directory) -> tuple[int, dict[str, float]]:
    """Mark the ok launches of every elided kernel of the dataset folder ``directory``.

    Returns (rows marked, ``{kernel_id: largest ratio}``); a second run marks nothing.
    """
    from kgraph.errors import InputError

    from .derived import folder_roofline
    from .store import read_launches

    directory = Path(directory)
    roofline = folder_roofline(directory)
    if not roofline or not roofline.get("fp32_gflops"):
        raise InputError(f"{directory}: no device.json with a measured roofline (fp32_gflops); "
                         f"`kgraph device describe` makes one")
    if not elided_kernels(read_launches(directory), roofline["fp32_gflops"]):
        return 0, {}  # nothing to mark: the folder is not opened for writing

    ratios: dict[str, float] = {}

    def messages(frame) -> dict[str, str]:  # under the lock, on the rows as they are then
        ratios.update(elided_kernels(frame, roofline["fp32_gflops"]))
        return {kernel: f"counted work ran at up to {ratio:.1f}x the device's fp32 peak rate: the compiler "
                        f"removed work the counts include" for kernel, ratio in ratios.items()}

    return mark_kernels(directory, messages), ratios


def mark_kernels(directory, messages) -> int:
    """Give status ``work_elided`` to the ok rows of the kernels ``messages(rows)`` names (``{kernel_id:
    message}``, called with the folder's rows once its lock is held); returns the number of rows changed.

    Args:
        directory: a dataset folder.
        messages: rows -> ``{kernel_id: the marked rows' message}``.
    """
    from .store import DatasetStore, read_launches

    with DatasetStore(Path(directory)) as store:  # the lock, then the rows (a campaign may have added some)
        frame = read_launches(directory)
        by_kernel = messages(frame)
        rows = frame[(frame["status"] == "ok") & frame["kernel_id"].isin(set(by_kernel))]
        updates = {key: {"status": ELIDED_STATUS, "message": by_kernel[kernel]}
                   for key, kernel in zip(rows["key"], rows["kernel_id"])}
        return store.update_rows(updates) if updates else 0
