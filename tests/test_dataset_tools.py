"""Tests of dataset validation, import and description (no OpenCL needed)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from kgraph.data.harness.columns import empty_row, launch_key, source_id_of
from kgraph.data.harness.store import DatasetStore, read_launches

SOURCE = "__kernel void k(__global float *y) { y[get_global_id(0)] = 1.0f; }"


def _row(i: int, **changes) -> dict:
    row = empty_row()
    row.update(key=launch_key("dev", "k", {"n": i}, [i], [1]), device_id="dev", kernel_id="k", family="f",
               source_id=source_id_of(SOURCE), kernel_name="k", sizes=json.dumps({"n": i}), args="{}",
               dims=1, g0=i, g1=1, g2=1, l0=1, l1=1, l2=1, status="ok", message="",
               median_time_ns=100.0 * i, min_time_ns=90.0 * i, max_time_ns=120.0 * i, cv=0.01, repeats=5,
               flops_fp32=0, flops_fp64=0, int_ops=0, transcendental=0, global_load_bytes=0,
               global_store_bytes=4 * i, atomics=0, footprint_bytes=4 * i, counts_source="instrumented")
    row.update(changes)
    return row


def _write(folder, rows, shard_rows=2):
    with DatasetStore(folder, "dev", shard_rows=shard_rows) as store:
        store.add_source({"source_id": source_id_of(SOURCE), "lang": "opencl", "kernel_id": "k", "family": "f",
                          "kernel_name": "k", "source": SOURCE, "spec_json": "{}"})
        for row in rows:
            store.append(row)


def test_store_shards_and_no_duplicates(tmp_path):
    _write(tmp_path, [_row(i) for i in range(1, 6)] + [_row(3)])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [s["rows"] for s in manifest["shards"]] == [2, 2, 1]
    df = read_launches(tmp_path)
    assert sorted(df.g0) == [1, 2, 3, 4, 5]


def test_journal_replay_after_crash(tmp_path):
    store = DatasetStore(tmp_path, "dev", shard_rows=100)
    store.append(_row(1))
    store.append(_row(2))
    store._journal.write('{"t": "row", "key": "trunc')  # the line being written when killed
    store._journal.flush()
    store._lock.close()  # the process dies without flushing: the lock goes with it
    (tmp_path / "launches-00007.parquet").write_bytes(b"orphan")  # shard not in the manifest
    df_keys = set(read_launches(DatasetStore(tmp_path, "dev").directory).key)
    assert df_keys == {_row(1)["key"], _row(2)["key"]}
    assert not (tmp_path / "launches-00007.parquet").exists()


def test_validate_catches_planted_nan(tmp_path):
    from kgraph.data.harness.validate import validate_dataset

    _write(tmp_path, [_row(1), _row(2), _row(3, median_time_ns=float("nan"))])
    problems = validate_dataset(tmp_path)
    assert problems == [f"ok row without median_time_ns (NaN or null): 1 row(s): {_row(3)['key']}"]


def test_validate_negative_time_and_missing_counts(tmp_path):
    from kgraph.data.harness.validate import validate_dataset

    _write(tmp_path, [_row(1, min_time_ns=-5.0), _row(2, flops_fp32=-1)])
    problems = validate_dataset(tmp_path)
    assert f"ok row with unknown flops_fp32: 1 row(s): {_row(2)['key']}" in problems
    assert f"negative min_time_ns: 1 row(s): {_row(1)['key']}" in problems


def test_import_csv(tmp_path):
    from kgraph.data.harness.importer import import_table
    from kgraph.data.harness.validate import validate_dataset

    csv = tmp_path / "m.csv"
    pd.DataFrame({
        "source": [SOURCE, SOURCE], "kernel_name": ["k", "k"], "global": ["1024", "4096"],
        "local": ["64", "64"], "device": ["NVIDIA H100 80GB HBM3"] * 2, "time_us": [3.5, 9.0], "cv": [0.01, 0.02],
    }).to_csv(csv, index=False)
    assert import_table(csv, tmp_path / "out") == {"nvidia-h100": 2}
    df = read_launches(tmp_path / "out").sort_values("g0")
    assert df.median_time_ns.tolist() == [3500.0, 9000.0]
    assert df.l0.tolist() == [64, 64] and df.device_id.tolist() == ["nvidia-h100"] * 2
    assert df.status.tolist() == ["ok", "ok"]
    assert not [p for p in validate_dataset(tmp_path / "out") if "counts" not in p and "flops" not in p
                and "bytes" not in p and "int_ops" not in p and "transcendental" not in p and "atomics" not in p]


def test_import_bad_columns(tmp_path):
    from kgraph.data.harness.importer import import_table
    from kgraph.errors import InputError

    csv = tmp_path / "bad.csv"
    pd.DataFrame({"source": [SOURCE], "kernel_name": ["k"], "device": ["x"], "time_ns": [1.0]}).to_csv(csv, index=False)
    with pytest.raises(InputError, match="no 'global' column"):
        import_table(csv, tmp_path / "out")
    csv.write_text("source,kernel_name,global,device,time_ns\n\"" + SOURCE + "\",k,12x-3,d,5\n")
    with pytest.raises(InputError, match=r"bad.csv:2: column 'global'"):
        import_table(csv, tmp_path / "out2")


def test_slugs():
    from kgraph.data.harness.devices import slug_of

    assert slug_of("NVIDIA CUDA", "NVIDIA H200", "NVIDIA Corporation") == "nvidia-h200"
    assert slug_of("NVIDIA CUDA", "NVIDIA H100 80GB HBM3") == "nvidia-h100"
    assert slug_of("Portable Computing Language", "pthread-AMD EPYC") == "pocl-amd-epyc"
    assert slug_of("Portable Computing Language", "cpu-haswell-Intel(R) Xeon(R) Platinum 8480+") == \
        "pocl-intel-xeon-platinum-8480"


def test_bound_class():
    from kgraph.data.harness.derived import derive

    roof = {"copy_bw_gbs": 100.0, "fp32_gflops": 1000.0, "fp64_gflops": 500.0}
    row = {"status": "ok", "median_time_ns": 1000.0, "flops_fp32": 0, "flops_fp64": 0,
           "global_load_bytes": 40000, "global_store_bytes": 10000}
    d = derive(row, roof)
    assert d["achieved_bw_gbs"] == 50.0 and d["bw_util"] == 0.5 and d["bound"] == "memory"
    d = derive({**row, "flops_fp64": 400000}, roof)  # 400 GFLOP/s of fp64 = 0.8 of its peak
    assert d["flop_util"] == 0.8 and d["bound"] == "compute" and d["arithmetic_intensity"] == 8.0
    assert derive({**row, "median_time_ns": 1e6}, roof)["bound"] == "latency"
