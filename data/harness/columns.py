"""The launch-row schema of measured datasets: column names, types, statuses and the row key.

One place defines the columns of ``launches-*.parquet`` and ``sources.parquet`` (see
``docs/DATASETS.md``); the writer, the importer and the validator all read them from here.

``LAUNCH_SCHEMA`` is a launch row as every reader returns it; a shard stores ``STORED_SCHEMA``, the same
columns less ``COMPUTED_ON_READ`` (achieved bandwidth and FLOP/s, arithmetic intensity, utilisations and
the bound class), which are pure functions of the stored columns and the folder's ``device.json`` roofline:
:func:`kgraph.data.harness.derived.derive_frame` computes them on read.
"""
from __future__ import annotations

import pyarrow as pa

from kgraph.count_keys import COUNTER_NAMES
from kgraph.data.harness.keys import launch_key, source_id_of  # noqa: F401 - defined there, used with the schema

HARNESS_VERSION = "1.2"  # 1.1: device-generated default inputs, counts on the measured device;
# 1.2: a timing sample is the mean of launches_per_sample back-to-back launches (timing.py),
# structured host inputs seeded per problem size and cached (inputs.py)

STATUSES = ("ok", "build_error", "launch_error", "out_of_resources", "timeout", "crash", "wrong_result",
            "work_elided")  # work_elided: elided.py (the compiler removed counted work)
BOUND_CLASSES = ("memory", "compute", "latency")
# the instrumented run's counters (kgraph.count_keys, defined once there) and the footprint
COUNT_COLUMNS = (*COUNTER_NAMES, "footprint_bytes")
TIMING_COLUMNS = ("median_time_ns", "min_time_ns", "max_time_ns", "cv", "repeats", "launches_per_sample")
DERIVED_COLUMNS = ("achieved_bw_gbs", "achieved_gflops", "arithmetic_intensity", "bw_util", "flop_util")

LAUNCH_SCHEMA = pa.schema([
    ("key", pa.string()), ("device_id", pa.string()), ("kernel_id", pa.string()),
    ("family", pa.string()), ("source_id", pa.string()), ("kernel_name", pa.string()),
    ("sizes", pa.string()), ("args", pa.string()),
    ("dims", pa.int8()), ("g0", pa.int64()), ("g1", pa.int64()), ("g2", pa.int64()),
    ("l0", pa.int32()), ("l1", pa.int32()), ("l2", pa.int32()),
    ("status", pa.string()), ("message", pa.string()),
    ("median_time_ns", pa.float64()), ("min_time_ns", pa.float64()), ("max_time_ns", pa.float64()),
    ("cv", pa.float64()), ("repeats", pa.int32()),
    ("launches_per_sample", pa.int32()),  # null before harness 1.2 (= 1)
    *[(name, pa.int64()) for name in COUNT_COLUMNS],
    ("counts_source", pa.string()),
    *[(name, pa.float64()) for name in DERIVED_COLUMNS],
    ("bound", pa.string()),
    ("harness_version", pa.string()), ("timestamp", pa.string()),
])
LAUNCH_COLUMNS = tuple(LAUNCH_SCHEMA.names)
#: the columns a reader computes from the stored ones and device.json's roofline (derived.derive_frame)
COMPUTED_ON_READ = (*DERIVED_COLUMNS, "bound")
#: what a ``launches-*.parquet`` shard stores: LAUNCH_SCHEMA without COMPUTED_ON_READ
STORED_SCHEMA = pa.schema([f for f in LAUNCH_SCHEMA if f.name not in COMPUTED_ON_READ])

SOURCE_SCHEMA = pa.schema([
    ("source_id", pa.string()), ("lang", pa.string()), ("kernel_id", pa.string()),
    ("family", pa.string()), ("kernel_name", pa.string()), ("source", pa.string()),
    ("spec_json", pa.string()),
])


def empty_row() -> dict:
    """A launch row with every column present and unknown values (None, counts -1)."""
    row = {name: None for name in LAUNCH_COLUMNS}
    for name in COUNT_COLUMNS:
        row[name] = -1
    row["harness_version"] = HARNESS_VERSION
    return row
