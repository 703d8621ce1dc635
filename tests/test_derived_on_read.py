"""The derived columns (bandwidth, FLOP/s, intensity, utilisations, bound) are computed on read, not stored:
the vectorized and the per-row definitions agree, shards hold the stored schema, readers return the values,
``update_rows`` skips them, ``compact`` migrates a shard of the older layout, ``validate`` checks stored copies."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from kgraph.data.harness.columns import COMPUTED_ON_READ, LAUNCH_SCHEMA, STORED_SCHEMA
from kgraph.data.harness.derived import derive, derive_frame
from kgraph.data.harness.shard_keys import has_derived_keys
from kgraph.data.harness.store import DatasetStore, read_launches, read_manifest, write_parquet_atomic
from kgraph.data.harness.validate import validate_dataset
from test_hardening_harness import _row, _source

DEVICE_JSON = Path(__file__).resolve().parents[1] / "data" / "datasets" / "ci-tiny" / "device.json"
ROOF = {"copy_bw_gbs": 100.0, "fp32_gflops": 1000.0, "fp64_gflops": 500.0}


def _same(a, b) -> bool:
    missing = (a is None or (isinstance(a, float) and math.isnan(a)), b is None or (isinstance(b, float) and math.isnan(b)))
    return all(missing) or (not any(missing) and a == b)


def test_derive_frame_equals_derive_row_by_row():
    ok = {"status": "ok", "median_time_ns": 1000.0, "flops_fp32": 1000, "flops_fp64": 0,
          "global_load_bytes": 40000, "global_store_bytes": 10000}
    rows = [
        ok,                                                          # memory bound
        {**ok, "flops_fp64": 400000},                                # fp64 > fp32: fp64 peak, compute bound
        {**ok, "flops_fp32": 900000, "flops_fp64": 900000},          # equal: fp32 peak
        {**ok, "median_time_ns": 1e6},                               # latency bound
        {**ok, "global_load_bytes": 0, "global_store_bytes": 0},     # flops without bytes: intensity 1e9
        {**ok, "global_load_bytes": 0, "global_store_bytes": 0, "flops_fp32": 0},  # nothing: intensity 0
        {**ok, "flops_fp32": -1},                                    # unknown count
        {**ok, "global_store_bytes": None},                          # missing count
        {**ok, "median_time_ns": 0.0},                               # no positive time
        {**ok, "median_time_ns": None},
        {**ok, "median_time_ns": float("nan")},
        {**ok, "status": "timeout"},                                 # not ok
        {**ok, "status": "build_error", "median_time_ns": None, "flops_fp32": -1},
        {**ok, "status": None},
        {**ok, "median_time_ns": 3.7, "flops_fp32": 123456789, "global_load_bytes": 987654321},
    ]
    frame = pd.DataFrame(rows, index=range(10, 10 + len(rows)))
    for roof in (ROOF, {**ROOF, "fp64_gflops": 0.0}):
        got = derive_frame(frame, roof)
        assert list(got.columns) == list(COMPUTED_ON_READ) and list(got.index) == list(frame.index)
        for i, row in zip(frame.index, rows):
            want = derive(row, roof)
            for name in COMPUTED_ON_READ:
                assert _same(got.at[i, name], want[name]), (row, name, got.at[i, name], want[name])
    # through pandas (counts as float with NaN, as a frame with nulls reads back): the same values
    again = derive_frame(pd.DataFrame(frame.to_dict("list")), ROOF)
    assert again.reset_index(drop=True).equals(derive_frame(frame, ROOF).reset_index(drop=True))
    assert derive_frame(frame.iloc[:0], ROOF).empty


def _dataset(folder: Path, rows: int = 5, device_json: bool = True) -> Path:
    with DatasetStore(folder, "dev", shard_rows=2) as store:
        store.add_source(_source())
        for i in range(1, rows + 1):
            row = _row(i)
            row.update(flops_fp32=1000 * i, global_load_bytes=40 * i)
            row.update(derive(row, ROOF))  # as a campaign journals it
            store.append(row)
    if device_json:
        shutil.copy(DEVICE_JSON, folder / "device.json")
    return folder


def _roofline(folder: Path) -> dict:
    import json

    return json.loads((folder / "device.json").read_text())["roofline"]


def test_shards_store_the_stored_schema_and_readers_compute_the_rest(tmp_path):
    folder = _dataset(tmp_path / "ds")
    for entry in read_manifest(folder)["shards"]:
        schema = pq.read_schema(folder / entry["file"])
        assert schema.equals(STORED_SCHEMA) and not set(COMPUTED_ON_READ) & set(schema.names)
    df = read_launches(folder)
    assert list(df.columns) == LAUNCH_SCHEMA.names and len(df) == 5
    roof = _roofline(folder)
    for row in df.to_dict("records"):
        want = derive(row, roof)
        assert all(_same(row[name], want[name]) for name in COMPUTED_ON_READ)
    assert df["bound"].notna().all() and (df["achieved_bw_gbs"] > 0).all()
    assert validate_dataset(str(folder)) == []
    (folder / "device.json").unlink()  # no roofline: nothing to compute them from
    df = read_launches(folder)
    assert df["bound"].isna().all() and df["bw_util"].isna().all()


def test_update_rows_skips_the_computed_columns(tmp_path):
    folder = _dataset(tmp_path / "ds")
    key = read_launches(folder)["key"].iloc[0]
    with DatasetStore(folder) as store:
        changed = store.update_rows({key: {"bound": "compute", "achieved_bw_gbs": 1e9, "cv": 0.5,
                                           "global_load_bytes": 0}})
    assert changed == 1
    row = read_launches(folder).set_index("key").loc[key]
    assert row["cv"] == 0.5 and row["global_load_bytes"] == 0
    want = derive({**row.to_dict(), "key": key}, _roofline(folder))
    assert row["achieved_bw_gbs"] == want["achieved_bw_gbs"] != 1e9 and row["bound"] == want["bound"]


def _old_layout(folder: Path, **tamper) -> Path:
    """``folder`` compacted into one shard, then rewritten as the older layout stored it: every LAUNCH_SCHEMA
    column, derived values included (``tamper``: {column: value} for the first row)."""
    with DatasetStore(folder) as store:
        store.compact()
    [entry] = read_manifest(folder)["shards"]
    df = read_launches(folder)
    for name, value in tamper.items():
        df.loc[0, name] = value
    write_parquet_atomic(pa.Table.from_pandas(df, schema=LAUNCH_SCHEMA, preserve_index=False), folder / entry["file"])
    return folder


def test_compact_migrates_a_single_shard_of_the_older_layout(tmp_path, capsys):
    from kgraph.app.cli.main import main

    folder = _old_layout(_dataset(tmp_path / "ds"))
    [old] = read_manifest(folder)["shards"]
    assert set(COMPUTED_ON_READ) <= set(pq.read_schema(folder / old["file"]).names)
    before = read_launches(folder)
    assert validate_dataset(str(folder)) == []  # stored values equal the computed ones
    assert main(["dataset", "compact", str(folder)]) == 0
    assert "5 row(s), 1 shard(s) -> 1" in capsys.readouterr().out
    [new] = read_manifest(folder)["shards"]
    assert new["file"] != old["file"] and new["rows"] == 5 and not (folder / old["file"]).exists()
    schema = pq.read_schema(folder / new["file"])  # written for keeping: the keys are recomputed on read
    assert has_derived_keys(schema) and schema.equals(STORED_SCHEMA.remove(STORED_SCHEMA.get_field_index("key")))
    assert read_launches(folder).equals(before) and validate_dataset(str(folder)) == []
    stamp = (folder / new["file"]).stat().st_mtime_ns
    assert main(["dataset", "compact", str(folder)]) == 0  # already compact, stored schema: nothing to do
    assert read_manifest(folder)["shards"] == [new] and (folder / new["file"]).stat().st_mtime_ns == stamp


def test_validate_reports_stored_derived_values_that_disagree(tmp_path):
    folder = _old_layout(_dataset(tmp_path / "ds"), bw_util=0.123, bound="memory")
    df = read_launches(folder)  # readers use the computed values, never the stale stored ones
    assert df.loc[0, "bw_util"] != 0.123 and df.loc[0, "bound"] == "compute"
    problems = validate_dataset(str(folder))
    assert len(problems) == 2 and all("differs from the one computed from device.json" in p for p in problems)
    assert any(p.startswith("stored bw_util") for p in problems) and any(p.startswith("stored bound") for p in problems)
    with DatasetStore(folder) as store:
        store.compact()
    assert validate_dataset(str(folder)) == []


def test_old_layout_without_device_json_reads_its_stored_values(tmp_path):
    folder = _old_layout(_dataset(tmp_path / "ds"), bw_util=0.123)
    (folder / "device.json").unlink()
    assert read_launches(folder).loc[0, "bw_util"] == 0.123


def test_a_folder_without_manifest_gets_the_derived_columns_it_lacks(tmp_path):
    from kgraph.data.datamodule import read_dataset

    folder = _dataset(tmp_path / "ds")
    with DatasetStore(folder) as store:
        store.compact()
    [entry] = read_manifest(folder)["shards"]
    bare = tmp_path / "bare"  # a hand-made folder: stored-schema shard, no manifest
    bare.mkdir()
    for name in (entry["file"], "sources.parquet", "device.json"):
        shutil.copy(folder / name, bare / name)
    launches, _, _ = read_dataset(bare)
    want = read_launches(folder)
    assert launches["bound"].tolist() == want["bound"].tolist()
    assert launches["achieved_bw_gbs"].tolist() == want["achieved_bw_gbs"].tolist()
