"""Archival shards leave out launch keys that can be recomputed from the row, and readers put them back."""
from __future__ import annotations

import json

import pyarrow.parquet as pq

from kgraph.app.cli.main import main
from kgraph.data.harness.keys import launch_key
from kgraph.data.harness.shard_keys import DERIVED_KEYS, derive_keys, has_derived_keys
from kgraph.data.harness.store import DatasetStore, read_launches, read_manifest
from kgraph.data.harness.store_files import write_parquet_atomic
from kgraph.data.harness.store_read import manifest_keys, read_parquet, read_shard
from kgraph.data.harness.validate import validate_dataset
from test_hardening_harness import _make_dataset


def _compacted(tmp_path):
    folder = _make_dataset(tmp_path / "ds")  # 5 rows in 3 shards
    keys = sorted(read_launches(folder)["key"])
    with DatasetStore(folder) as store:
        store.compact()
    return folder, folder / read_manifest(folder)["shards"][0]["file"], keys


def test_the_campaigns_keys_are_the_derived_ones():
    import pyarrow as pa

    rows = [("nvidia-h200", "fam.k", {"N": 64, "B": 2}, [256], [64]),
            ("pocl-x", "fam.k2", {"M": 3}, [16, 8], [4, 2]), ("d", "k", {}, [8, 8, 2], [2, 2, 2])]
    table = pa.table({
        "device_id": [r[0] for r in rows], "kernel_id": [r[1] for r in rows],
        "sizes": [json.dumps(r[2], sort_keys=True) for r in rows], "dims": [len(r[3]) for r in rows],
        **{f"g{d}": [r[3][d] if d < len(r[3]) else 1 for r in rows] for d in range(3)},
        **{f"l{d}": [r[4][d] if d < len(r[4]) else 1 for r in rows] for d in range(3)}})
    assert derive_keys(table) == [launch_key(*r) for r in rows]


def test_compact_leaves_the_keys_out_and_every_reader_puts_them_back(tmp_path):
    folder, shard, keys = _compacted(tmp_path)
    assert has_derived_keys(pq.read_schema(shard)) and "key" not in pq.read_schema(shard).names
    assert sorted(read_launches(folder)["key"]) == keys
    assert sorted(manifest_keys(folder, read_manifest(folder))) == keys
    assert sorted(read_shard(folder, shard.name, columns=["key"]).column("key").to_pylist()) == keys
    two = read_parquet(shard, columns=["status", "key"])
    assert two.schema.names == ["status", "key"] and sorted(two.column("key").to_pylist()) == keys
    assert "key" not in read_parquet(shard, columns=["status"]).schema.names
    assert not validate_dataset(str(folder))
    assert main(["dataset", "repair", str(folder)]) == 0 and not (folder / "damaged").exists()
    with DatasetStore(folder) as store:  # the campaign resumes: every committed launch is known
        assert sorted(store.completed_keys) == keys
        store.compact()  # already compact: left as it is
    assert read_manifest(folder)["shards"][0]["file"] == shard.name


def test_a_shard_whose_keys_differ_keeps_them(tmp_path):
    """A stored key that is not the row's recomputed one (an old relabel) is never rewritten."""
    folder, shard, keys = _compacted(tmp_path)
    table = read_parquet(shard)
    odd = ["0123456789abcdef"] + table.column("key").to_pylist()[1:]
    table = table.set_column(0, "key", [odd]).replace_schema_metadata({})
    write_parquet_atomic(table, shard)  # a plain flush: compact rewrites it for keeping
    with DatasetStore(folder) as store:
        store.compact()
    new = folder / read_manifest(folder)["shards"][0]["file"]
    assert new != shard and "key" in pq.read_schema(new).names and not has_derived_keys(pq.read_schema(new))
    assert sorted(read_launches(folder)["key"]) == sorted(odd)


def test_a_rewritten_flush_stores_its_keys_again(tmp_path):
    """A non-archival write of rows read from a derived-key shard stores the key column and no marker."""
    from kgraph.data.harness.store_files import write_shard

    folder, shard, keys = _compacted(tmp_path)
    write_shard(read_shard(folder, shard.name), shard)
    schema = pq.read_schema(shard)
    assert "key" in schema.names and (schema.metadata or {}).get(DERIVED_KEYS[0]) is None
    assert sorted(read_launches(folder)["key"]) == keys
