"""``kgraph dataset compact``: a folder's shards rewritten as one, the same rows, safe to kill at any step."""
from __future__ import annotations

import shutil

import numpy as np

from kgraph.app.cli.main import main
from kgraph.data.harness.store import DatasetStore, read_launches, read_manifest
from kgraph.data.harness.store_read import manifest_keys
from kgraph.data.harness.validate import validate_dataset
from test_hardening_harness import _make_dataset


def _same_rows(after, before) -> bool:
    """Equal rows, the timings of ``before`` rounded to float32 as a shard written for keeping stores them."""
    from kgraph.data.harness.store_files import ROUNDED_TIMINGS

    for name in ROUNDED_TIMINGS:
        want = before[name].astype("float32").astype("float64")
        assert np.allclose(after[name], before[name], rtol=6e-8, atol=0, equal_nan=True)
        assert after[name].equals(want), name
    return after.drop(columns=list(ROUNDED_TIMINGS)).equals(before.drop(columns=list(ROUNDED_TIMINGS)))


def test_compact_keeps_every_row_in_one_shard(tmp_path, capsys):
    folder = _make_dataset(tmp_path / "ds")  # 5 rows in 3 shards
    before = read_launches(folder)
    assert main(["dataset", "compact", str(folder)]) == 0
    assert "5 row(s), 3 shard(s) -> 1" in capsys.readouterr().out
    manifest = read_manifest(folder)
    assert manifest["shards"] == [{"file": "launches-00003.parquet", "rows": 5}]
    assert sorted(p.name for p in folder.glob("launches-*.parquet")) == ["launches-00003.parquet"]
    assert _same_rows(read_launches(folder), before) and not validate_dataset(str(folder))
    assert main(["dataset", "compact", str(folder)]) == 0  # one shard: nothing to do
    assert "5 row(s), 1 shard(s) -> 1" in capsys.readouterr().out
    assert sorted(p.name for p in folder.glob("launches-*.parquet")) == ["launches-00003.parquet"]


def test_compact_writes_for_keeping_and_recompresses_a_single_flushed_shard(tmp_path):
    """Compact writes zstd-19 files marked archival, the sources too; a folder of one shard from a campaign's
    level-6 flush is rewritten once (same rows), then left alone."""
    from kgraph.data.harness.store_files import is_archival, write_shard
    from kgraph.data.harness.store_read import read_shard

    folder = _make_dataset(tmp_path / "ds")
    with DatasetStore(folder) as store:
        store.compact()
    assert is_archival(folder / "launches-00003.parquet") and is_archival(folder / "sources.parquet")
    before = read_launches(folder)
    write_shard(read_shard(folder, "launches-00003.parquet"), folder / "launches-00003.parquet")  # a plain flush
    assert not is_archival(folder / "launches-00003.parquet")
    with DatasetStore(folder) as store:
        store.compact()
    assert read_manifest(folder)["shards"] == [{"file": "launches-00004.parquet", "rows": 5}]
    assert is_archival(folder / "launches-00004.parquet") and read_launches(folder).equals(before)  # rounded once
    assert not validate_dataset(str(folder))


def test_a_kill_between_the_new_shard_and_the_manifest_loses_nothing(tmp_path):
    """The new shard is on disk, the manifest still names the old ones: the next open deletes the new
    shard (its rows are all committed) and the folder reads as before; after the manifest, the old shards
    are the leftovers and go the same way."""
    folder = _make_dataset(tmp_path / "ds")
    before = sorted(manifest_keys(folder, read_manifest(folder)))
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    store = DatasetStore(folder)
    store.compact()
    store.close()
    shutil.copy(folder / "launches-00003.parquet", copy / "launches-00003.parquet")  # killed before the manifest
    with DatasetStore(copy) as store:
        assert sorted(store.completed_keys) == before
    assert not (copy / "launches-00003.parquet").exists() and not validate_dataset(str(copy))
    for name in ("launches-00000.parquet", "launches-00001.parquet"):  # killed after the manifest
        shutil.copy(copy / name, folder / name)
    with DatasetStore(folder) as store:
        assert sorted(store.completed_keys) == before
    assert sorted(p.name for p in folder.glob("launches-*.parquet")) == ["launches-00003.parquet"]
    assert not validate_dataset(str(folder))


def test_compact_refuses_a_folder_that_is_not_a_dataset(tmp_path, capsys):
    assert main(["dataset", "compact", str(tmp_path / "nothing")]) != 0
    out, err = capsys.readouterr()
    assert "not a dataset folder" in out + err and "Traceback" not in out + err
    assert not (tmp_path / "nothing").exists()


def test_a_folder_compacted_before_the_rounding_is_rewritten_once(tmp_path):
    """A single shard marked with the older archival layout (unrounded timings) is rewritten by compact."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.store_files import ARCHIVAL, is_archival, write_parquet_atomic
    from kgraph.data.harness.store_read import read_parquet

    folder = _make_dataset(tmp_path / "ds")
    before = read_launches(folder)
    with DatasetStore(folder) as store:
        store.compact()
    shard = folder / "launches-00003.parquet"
    old = read_parquet(shard)  # with its keys, as the session-17 layout stored them
    write_parquet_atomic(old, shard, archival=True)
    pq.write_table(old.replace_schema_metadata({ARCHIVAL[0]: b"zstd-19-plain"}), shard)  # the session-17 layout
    assert not is_archival(shard)
    with DatasetStore(folder) as store:
        store.compact()
    assert read_manifest(folder)["shards"] == [{"file": "launches-00004.parquet", "rows": 5}]
    assert is_archival(folder / "launches-00004.parquet") and _same_rows(read_launches(folder), before)
