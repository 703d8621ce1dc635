"""Per-launch feature vectors and training targets, built vectorised from a launches table.

Feature columns (their name prefix is the group an ablation can drop, see kgraph.models.launch_encoder):

- ``hw_<name>``: the device descriptor vector of ``kgraph.data.harness.descriptor.to_feature_vector``, in
  ``DEVICE_FEATURES`` order (roofline peaks, compute units, clocks, memories; log-scaled there).
- ``launch_dims``; ``launch_log2_g0..2``, ``launch_log2_l0..2`` (global and local sizes, unused = 1);
  ``launch_log2_items`` (g0*g1*g2), ``launch_log2_group_size`` (l0*l1*l2), ``launch_log2_groups``
  (number of work-groups), ``launch_log2_groups_per_cu`` (work-groups per compute unit, may be < 0);
  ``launch_arg0..3``: the first four scalar arguments (``args`` JSON order), sign(x)*log1p(|x|), 0 if absent.
- ``static_known``: :data:`~kgraph.data.static_counts.KNOWN_EXACT` (1) when every count of the kernel's static analysis evaluated to a number
  at that launch; :data:`~kgraph.data.static_counts.KNOWN_ASSUMED` (0.5) when they did with a loop's trip count assumed (a loop of unknown
  count the launch does not give, :mod:`kgraph.analysis.trips`); else 0 (counts that did not evaluate are 0, and
  all are 0 when the kernel has no analysis);
  for each count of ``kgraph.analysis`` (``STATIC_COUNTS``): ``static_<count>`` = log1p(per-work-item
  count) and ``static_<count>_total`` = log1p(count * work items), evaluated at each launch's sizes;
  ``static_log_intensity`` = log1p(total flops / total global bytes).
- ``traffic_<key>`` = log1p(per-work-item bytes) and ``traffic_<key>_total`` = log1p(bytes of the launch) for
  each key of ``kgraph.analysis.traffic.TRAFFIC_KEYS`` (requested global bytes by access pattern, and the
  bytes moved in 32-byte sectors), ``traffic_log_sector_intensity`` = log1p(total flops / total sector
  bytes); 0 where the kernel has no analysis, and the keys of ``CPU_ONLY_KEYS`` 0 on GPU devices. Used by
  variants with ``use_traffic`` (older models, whose ``config.json`` does not name them, never read them).

The symbolic counts of a kernel are turned into one numpy function (``sympy.lambdify``) once per
kernel and evaluated over all its launches at once; sympy never runs per row. Dataset rows are parsed
and analysed once per (source, kernel); rows that carry the kernel's analysis (``analysis`` column,
the estimate path) are not parsed again.

Targets (``REGRESSION_TARGETS``, natural log; names, transforms, inverses (``to_natural``) and units
are the one table of :mod:`kgraph.data.targets`): ``time`` = ln(median_time_ns); ``bandwidth`` =
ln(1 + achieved_bw_gbs*1000) (MB/s); ``footprint`` = ln(1 + footprint_bytes); ``flops`` =
ln(1 + flops_fp32 + flops_fp64); ``bytes`` = ln(1 + global_load_bytes + global_store_bytes).
Unknown values (-1 or NaN) are NaN. ``bound`` is the index in ``BOUND_CLASSES`` or -1.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from kgraph.data.floors import FLOORS, floors_ns, log_floors, rates_of_rows
from kgraph.data.launch_columns import LaunchColumns

# the targets and bound classes are defined once, in kgraph.data.targets (re-exported here)
from kgraph.data.targets import BOUND_CLASSES, REGRESSION_TARGETS, TARGETS, bound_index, to_natural  # noqa: F401
from kgraph.count_keys import COUNT_KEYS as STATIC_COUNTS  # the analysis' counts, defined once there
from kgraph.analysis.symbolic_math import TRIP_PREFIX
from kgraph.analysis.branches import TAKEN_PREFIX
from kgraph.data.static_counts import graph_of, static_block
from kgraph.analysis.traffic import CPU_ONLY_KEYS, TRAFFIC_KEYS  # the traffic by access pattern, defined there

if TYPE_CHECKING:
    import pandas as pd

#: launch arguments that state a fact of the data, not a scalar parameter: a loop's mean trip count, a branch's share
_LAUNCH_FACTS = (TRIP_PREFIX, TAKEN_PREFIX)
NUM_SCALAR_ARGS = 4
LAUNCH_FEATURES = (
    "launch_dims", "launch_log2_g0", "launch_log2_g1", "launch_log2_g2", "launch_log2_l0",
    "launch_log2_l1", "launch_log2_l2", "launch_log2_items", "launch_log2_group_size",
    "launch_log2_groups", "launch_log2_groups_per_cu",
    *(f"launch_arg{i}" for i in range(NUM_SCALAR_ARGS)),
)
STATIC_FEATURES = (
    "static_known",
    *(f"static_{c}" for c in STATIC_COUNTS),
    *(f"static_{c}_total" for c in STATIC_COUNTS),
    "static_log_intensity",
)
TRAFFIC_FEATURES = (
    *(f"traffic_{k}" for k in TRAFFIC_KEYS),
    *(f"traffic_{k}_total" for k in TRAFFIC_KEYS),
    "traffic_log_sector_intensity",
)
#: columns of ``TRAFFIC_FEATURES`` that are 0 on GPU devices (``CPU_ONLY_KEYS``)
_CPU_ONLY_COLUMNS = [TRAFFIC_FEATURES.index(f"traffic_{k}{t}") for k in CPU_ONLY_KEYS for t in ("", "_total")]
#: ``config.json`` key of a model whose features count warp-uniform atomics once per warp on GPUs (absent: per lane)
WARP_ATOMICS_KEY = "warp_atomics"
#: columns of ``TRAFFIC_FEATURES`` that a GPU device reads with warp-uniform atomics once per warp
_DEPTH_COLUMNS = [TRAFFIC_FEATURES.index(f"traffic_global_atomic_depth{t}") for t in ("", "_total")]
#: ``floor_<name>``: log(ns) of each physical floor of :mod:`kgraph.data.floors` (static counts, the
#: launch's footprint where known, the device's measured roofline); zero floors at ``NO_FLOOR_LOG_NS``.
FLOOR_FEATURES = tuple(f"floor_{name}" for name in FLOORS)


def hardware_feature_names() -> list[str]:
    from kgraph.data.harness.descriptor import DEVICE_FEATURES

    return [f"hw_{name}" for name in DEVICE_FEATURES]


def feature_names() -> list[str]:
    """All feature columns, in order."""
    return [*hardware_feature_names(), *LAUNCH_FEATURES, *STATIC_FEATURES, *FLOOR_FEATURES, *TRAFFIC_FEATURES]


# ---------------------------------------------------------------------------------------- targets
def to_targets(launches: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(Float[N, len(REGRESSION_TARGETS)] log targets with NaN = unknown, Long[N] bound index or -1)."""
    import pandas as pd

    def col(name: str) -> np.ndarray:
        if name not in launches:
            return np.full(len(launches), np.nan)
        v = pd.to_numeric(launches[name], errors="coerce").to_numpy(dtype=np.float64)
        return np.where(v < 0, np.nan, v)

    time = col("median_time_ns")
    natural = {  # each target's natural-unit value (kgraph.data.targets) from the launch columns
        "time": np.where(time > 0, time, np.nan),
        "bandwidth": col("achieved_bw_gbs"),
        "footprint": col("footprint_bytes"),
        "flops": col("flops_fp32") + np.nan_to_num(col("flops_fp64")),
        "bytes": col("global_load_bytes") + col("global_store_bytes"),
    }
    y = np.stack([t.transform(natural[t.name]) for t in TARGETS], axis=1)
    bound = launches["bound"] if "bound" in launches else pd.Series([None] * len(launches))
    return y.astype(np.float32), bound_index(bound)


#: the launch columns :func:`to_launch_features` reads (``analysis`` and ``footprint_bytes`` when present)
LAUNCH_COLUMNS = ("device_id", "source_id", "kernel_name", "dims", "g0", "g1", "g2", "l0", "l1", "l2", "args")


def _columns_of(launches) -> dict[str, np.ndarray]:
    """Name -> Shape[N] array of the columns :func:`to_launch_features` reads (``footprint_bytes`` as
    numbers, NaN where not one) of a DataFrame or :class:`LaunchColumns`."""
    names = [*LAUNCH_COLUMNS, *(c for c in ("analysis", "footprint_bytes") if c in launches)]
    if isinstance(launches, LaunchColumns):
        return {name: np.asarray(launches[name]) for name in names}
    import pandas as pd

    out = {name: launches[name].to_numpy() for name in names}
    if "footprint_bytes" in out:
        out["footprint_bytes"] = pd.to_numeric(launches["footprint_bytes"], errors="coerce").to_numpy(np.float64)
    return out


def _groups(*keys: np.ndarray) -> dict[tuple, np.ndarray]:
    """Row indices Int[k] of each distinct key (one value per column of ``keys``); rows with a missing key
    (None, NaN) in no group, as DataFrame.groupby leaves them. Object columns are grouped row by row,
    others with numpy."""
    if any(k.dtype == object for k in keys):
        out: dict[tuple, list] = {}
        for i, key in enumerate(zip(*keys)):
            if any(k is None or (isinstance(k, float) and k != k) for k in key):
                continue
            out.setdefault(key, []).append(i)
        return {key: np.array(idx) for key, idx in out.items()}
    code, valid = np.zeros(len(keys[0]), np.int64), np.ones(len(keys[0]), bool)
    for k in keys:
        values, inverse = np.unique(k, return_inverse=True)
        code = code * len(values) + inverse.reshape(-1)
        if k.dtype.kind in "fc":
            valid &= ~np.isnan(k)
    rows = np.flatnonzero(valid)
    rows = rows[np.argsort(code[rows], kind="stable")]
    starts = np.flatnonzero(np.diff(code[rows], prepend=-1))
    return {tuple(k[idx[0]] for k in keys): idx for idx in np.split(rows, starts[1:])} if len(rows) else {}


def _args_of(cols: dict) -> list[dict]:
    """The scalar arguments of each row: ``args`` as dicts (the estimate path) or JSON text (datasets)."""
    return [a if isinstance(a, dict) else json.loads(a) if isinstance(a, str) and a else {}
            for a in cols["args"].tolist()]


def _launch_env(cols: dict, idx: np.ndarray, args: list[dict]) -> dict[str, np.ndarray]:
    """Float[k] arrays of the work sizes ``gsz/lsz/ngrp<d>`` and scalar arguments (``args``: theirs,
    NaN where a row lacks one) of the rows ``idx`` of ``cols`` (:func:`_columns_of`)."""
    env: dict[str, np.ndarray] = {}
    for d in range(3):
        g = cols[f"g{d}"][idx].astype(np.float64)
        lsz = cols[f"l{d}"][idx].astype(np.float64)
        env[f"gsz{d}"], env[f"lsz{d}"], env[f"ngrp{d}"] = g, lsz, np.ceil(g / np.maximum(lsz, 1))
    for name in sorted(set().union(*args)):  # every name a row gives
        env[name] = np.array([float(a.get(name, np.nan)) for a in args])
    return env


def _static_block_of_source(task: tuple) -> tuple:
    """``(static_block, exact static footprints)`` of ``(source, lang, kernel_name, env, items)``, parsed and
    analysed here once for both (a pool worker's unit of work)."""
    from kgraph.data.static_footprint import exact_footprints

    graph = graph_of(*task[:3])
    env, items = task[3:]
    return (static_block(None if graph is None else graph.analysis, env, items),
            exact_footprints(graph, env))


def _static_blocks(cols: dict, sources, items: np.ndarray, args: list[dict]):
    """``(row indices, static_block, footprints)`` of each kernel of the rows ``cols`` (:func:`_columns_of`):
    from the ``analysis`` column when the caller has one (footprints None: the caller passes its exact static
    ones as ``footprint_bytes``), else each source of ``sources`` (DataFrame or :class:`LaunchColumns`) analysed
    once, on a process pool when there are many kernels, with the exact static footprints
    (:mod:`kgraph.data.static_footprint`). ``args``: :func:`_args_of` of the rows."""
    if "analysis" in cols:  # one group per analysis: a kernel analysed at given branch shares is one more
        ids = np.array([id(a) for a in cols["analysis"]], dtype=np.int64)
        for _, idx in _groups(cols["source_id"], cols["kernel_name"], ids).items():
            yield idx, static_block(cols["analysis"][idx[0]], _launch_env(cols, idx, [args[i] for i in idx]),
                                    items[idx]), None
        return
    groups = list(_groups(cols["source_id"], cols["kernel_name"]).items())
    from kgraph.data.pool import parallel_map

    by_source: dict = {}
    for sid, text, lang in zip(*(sources[c].to_numpy() for c in ("source_id", "source", "lang"))):
        by_source.setdefault(sid, (text, lang))
    tasks = [(*by_source[sid], name, _launch_env(cols, idx, [args[i] for i in idx]), items[idx])
             for (sid, name), idx in groups]
    for (_, idx), (block, footprints) in zip(groups, parallel_map(_static_block_of_source, tasks)):
        yield idx, block, footprints


# ------------------------------------------------------------------------------------- features
def to_launch_features(launches: "pd.DataFrame | LaunchColumns", sources: "pd.DataFrame | LaunchColumns",
                       devices: dict[str, dict], warp_atomics: bool = True) -> np.ndarray:
    """Feature matrix Float32[N, len(feature_names())] for ``launches`` (rows of launches-*.parquet).

    Args:
        launches: launch rows (a DataFrame or :class:`LaunchColumns`: ``LAUNCH_COLUMNS``, ``args`` as
            JSON text or dicts), optionally ``analysis``: the kernel's ``KernelAnalysis`` (None when it has
            none), which a caller holding the kernel's graph passes down with the launches' exact static
            ``footprint_bytes`` (NaN elsewhere), so the source is not parsed and analysed again.
        sources: rows of sources.parquet (``source_id, lang, source``) covering every launch (read only
            for launches without ``analysis``).
        devices: device_id -> device.json descriptor.
        warp_atomics: on GPU devices, the atomic depth counts a warp-uniform atomic once per warp
            (:func:`kgraph.analysis.traffic.warp_atomic_depth`); False: per lane, as models made before session 23
            read it (``config.json``'s ``warp_atomics``, :data:`WARP_ATOMICS_KEY`).
    """
    from kgraph.data.harness.descriptor import to_feature_vector

    cols = _columns_of(launches)
    n = len(cols["device_id"])
    hw_names = hardware_feature_names()
    hw = np.zeros((n, len(hw_names)))
    cus = np.ones(n)
    gpu = np.zeros(n, dtype=bool)
    for (device_id,), idx in _groups(cols["device_id"]).items():
        hw[idx] = np.asarray(to_feature_vector(devices[device_id]), dtype=np.float64)
        cus[idx] = max(1, int(devices[device_id].get("compute_units", 1)))
        gpu[idx] = devices[device_id].get("type") == "GPU"

    g = np.column_stack([cols[f"g{d}"] for d in range(3)]).astype(np.float64)
    lsz = np.column_stack([cols[f"l{d}"] for d in range(3)]).astype(np.float64)
    items, group_size = g.prod(1), lsz.prod(1)
    groups = np.ceil(g / np.maximum(lsz, 1)).prod(1)
    given = _args_of(cols)
    first = np.zeros((n, NUM_SCALAR_ARGS))  # the first scalar arguments, 0 where absent
    by_names: dict[tuple, list[int]] = {}  # rows by their argument names (a kernel's launches share them)
    for i, a in enumerate(given):
        by_names.setdefault(tuple(a), []).append(i)
    for names, idx in by_names.items():  # a given trip count or branch share is not a scalar argument
        rows = np.array(idx)
        for j, name in enumerate([k for k in names if not k.startswith(_LAUNCH_FACTS)][:NUM_SCALAR_ARGS]):
            first[rows, j] = [given[i][name] for i in idx]
    args = np.sign(first) * np.log1p(np.abs(first))
    launch = np.column_stack([
        cols["dims"].astype(np.float64), np.log2(g), np.log2(lsz), np.log2(items),
        np.log2(group_size), np.log2(groups), np.log2(groups / cus), args,
    ])

    static = np.zeros((n, len(STATIC_FEATURES)))
    work = np.full((n, 2), np.nan)  # total fp32 and fp64 FLOPs (for the floors)
    traffic = np.zeros((n, len(TRAFFIC_FEATURES)))
    warp_depth = np.zeros((n, 2))
    # the DRAM floor's footprint: the exact static one on both paths (a training row's measured one is a target)
    footprint = np.full(n, np.nan)
    if "analysis" in cols and "footprint_bytes" in cols:  # the caller's exact static ones
        footprint[:] = cols["footprint_bytes"]
    for idx, block, exact in _static_blocks(cols, sources, items, given):
        if block is not None:
            static[idx], work[idx], traffic[idx], warp_depth[idx] = block
        if exact is not None:
            footprint[idx] = exact
    traffic[np.ix_(gpu, _CPU_ONLY_COLUMNS)] = 0.0  # how a CPU driver runs work-items says nothing of a GPU
    if warp_atomics:
        traffic[np.ix_(gpu, _DEPTH_COLUMNS)] = warp_depth[gpu]  # a warp applies a uniform atomic once
    floors = floors_ns(work[:, 0], work[:, 1], np.where(footprint >= 0, footprint, np.nan),
                       rates_of_rows(cols["device_id"], devices))
    return np.concatenate([hw, launch, static, log_floors(floors), traffic], axis=1).astype(np.float32)
