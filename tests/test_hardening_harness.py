"""Issue 14, rows 9 and 13: damaged dataset folders given to the dataset commands, shard names confined
to their folder, atomic and durable writes. CPU only (PoCL); each test asserts exit codes and messages and
that no traceback reaches the user. Rows 8, 11 and 12 (``kgraph measure``, processes that outlive their
parent): ``test_hardening_measure.py``."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from kgraph.data.harness.columns import empty_row, launch_key, source_id_of
from kgraph.data.harness.store_read import manifest_keys

SOURCE = "__kernel void k(__global float *y) { y[get_global_id(0)] = 1.0f; }"
HANG_SPECS = '''
from kgraph.data.corpus.spec import Arg, KernelSpec

HANG = """__kernel void hang(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    while (1) { y[i] += 1.0f; if (y[i] < -1.0f) break; }
}"""


def specs():
    xy = [Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "out"),
          Arg("n", "scalar", "int32", "n")]
    return [KernelSpec(kernel_id="t.hang", family="thang", variant={}, kernel_name="hang", source=HANG,
                       sizes={"n": [256]}, check_sizes={"n": 256}, constraints=[], args=xy, global_size=["n"],
                       local_sizes=[[32]], reference=lambda i, s: {"y": i["x"]})]
'''


# ---- helpers ---------------------------------------------------------------------------------------
def kgraph(capsys, *argv) -> tuple[int, str, str]:
    """``kgraph ARGV`` in this process: (exit status, stdout, stderr)."""
    from kgraph.app.cli.main import main

    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return rc, out, err


def _row(i: int) -> dict:
    row = empty_row()
    row.update(key=launch_key("dev", "k", {"n": i}, [i], [1]), device_id="dev", kernel_id="k", family="f",
               source_id=source_id_of(SOURCE), kernel_name="k", sizes=json.dumps({"n": i}), args="{}",
               dims=1, g0=i, g1=1, g2=1, l0=1, l1=1, l2=1, status="ok", message="",
               median_time_ns=100.0 * i, min_time_ns=90.0 * i, max_time_ns=120.0 * i, cv=0.01, repeats=5,
               flops_fp32=0, flops_fp64=0, int_ops=0, transcendental=0, global_load_bytes=0,
               global_store_bytes=4 * i, atomics=0, footprint_bytes=4 * i, counts_source="instrumented")
    return row


def _source() -> dict:
    return {"source_id": source_id_of(SOURCE), "lang": "opencl", "kernel_id": "k", "family": "f",
            "kernel_name": "k", "source": SOURCE, "spec_json": "{}"}


def _make_dataset(folder: Path, device_id: str = "dev") -> Path:
    """A valid dataset folder: 5 rows in shards of 2, 2 and 1 (no device.json: no derived columns needed)."""
    from kgraph.data.harness.store import DatasetStore

    with DatasetStore(folder, device_id, shard_rows=2) as store:
        store.add_source(_source())
        for i in range(1, 6):
            store.append(_row(i))
    return folder


@pytest.fixture
def dataset(tmp_path) -> Path:
    return _make_dataset(tmp_path / "ds")


@pytest.fixture
def pocl_dataset(tmp_path) -> Path:
    """:func:`_make_dataset` of the local PoCL device (a campaign may write into it)."""
    pytest.importorskip("pyopencl")
    from kgraph.data.harness.devices import pick_device

    return _make_dataset(tmp_path / "ds", pick_device("pocl").device_id)


def _manifest(folder: Path) -> dict:
    """The folder's manifest with its committed keys (format 2 stores none: they are the shards')."""
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == 2 and "keys" not in manifest
    return {**manifest, "keys": manifest_keys(folder, manifest)}


def _set_manifest(folder: Path, manifest: dict) -> None:
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _damaged_everywhere(capsys, folder: Path, what: str) -> None:
    """validate, describe and fill-counts all refuse ``folder`` naming ``what`` and the repair command."""
    rc, out, _ = kgraph(capsys, "dataset", "validate", folder)
    assert rc == 1 and what in out and "kgraph dataset repair" in out, out
    assert "valid" not in out.splitlines()[-1].split(": ")[-1:]
    rc, _, err = kgraph(capsys, "dataset", "describe", folder)
    assert rc == 1 and what in err and "kgraph dataset repair" in err, err
    rc, _, err = kgraph(capsys, "dataset", "fill-counts", folder, "--device", "none")
    assert rc == 1 and what in err and "kgraph dataset repair" in err, err


def _repaired(capsys, folder: Path) -> str:
    rc, out, _ = kgraph(capsys, "dataset", "repair", folder)
    assert rc == 0, out
    rc, check, _ = kgraph(capsys, "dataset", "validate", folder)
    assert rc == 0 and check.strip().endswith(": valid"), check
    return out


# ---- row 9: damaged dataset folders -----------------------------------------------------------------
def test_row9_truncated_shard(capsys, dataset):
    shard = dataset / "launches-00001.parquet"
    shard.write_bytes(shard.read_bytes()[:100])
    _damaged_everywhere(capsys, dataset, "launches-00001.parquet cannot be read")
    out = _repaired(capsys, dataset)
    assert "moved launches-00001.parquet" in out
    assert (dataset / "damaged" / "launches-00001.parquet").stat().st_size == 100  # kept, not deleted
    assert len(_manifest(dataset)["keys"]) == 3


def test_row9_garbage_shard(capsys, dataset):
    (dataset / "launches-00000.parquet").write_bytes(os.urandom(4096))
    _damaged_everywhere(capsys, dataset, "launches-00000.parquet cannot be read")
    _repaired(capsys, dataset)
    assert (dataset / "damaged" / "launches-00000.parquet").exists()


def test_row9_missing_shard(capsys, dataset):
    (dataset / "launches-00002.parquet").unlink()
    _damaged_everywhere(capsys, dataset, "launches-00002.parquet is listed in manifest.json but missing")
    out = _repaired(capsys, dataset)
    assert "launches-00002.parquet is gone" in out and len(_manifest(dataset)["keys"]) == 4


@pytest.mark.parametrize("text, what", [('{"shards": [', "not valid JSON"), ("[1, 2]", "not a JSON object"),
                                        ('{"shards": 3, "keys": []}', "'shards' must be a list"),
                                        (b"\xff\xfe\x00garbage", "manifest.json")])
def test_row9_bad_manifest(capsys, dataset, text, what):
    (dataset / "manifest.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    _damaged_everywhere(capsys, dataset, what)
    _repaired(capsys, dataset)
    assert len(_manifest(dataset)["keys"]) == 5 and _manifest(dataset)["device_id"] == "dev"


def test_row9_wrong_manifest_row_count(capsys, dataset):
    manifest = _manifest(dataset)
    manifest["shards"][0]["rows"] = 7
    _set_manifest(dataset, manifest)
    _damaged_everywhere(capsys, dataset, "launches-00000.parquet holds 2 rows, manifest.json says 7")
    _repaired(capsys, dataset)
    assert _manifest(dataset)["shards"][0]["rows"] == 2


def test_row9_orphan_shard(capsys, dataset):
    shutil.copy(dataset / "launches-00000.parquet", dataset / "launches-00009.parquet")
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 1 and "orphan shard launches-00009.parquet" in out and "kgraph dataset repair" in out
    rc, _, err = kgraph(capsys, "dataset", "describe", dataset)
    assert rc == 0 and "warning: orphan shard launches-00009.parquet" in err
    out = _repaired(capsys, dataset)
    assert "every row of it is in an earlier shard" in out
    assert (dataset / "damaged" / "launches-00009.parquet").exists()


def test_row9_orphan_shard_with_new_rows_is_adopted_by_repair(capsys, dataset, tmp_path):
    from kgraph.data.harness.store import DatasetStore

    other = tmp_path / "other"
    with DatasetStore(other, "dev", shard_rows=10) as store:
        store.add_source(_source())
        for i in (6, 7):
            store.append(_row(i))
    shutil.copy(other / "launches-00000.parquet", dataset / "launches-00003.parquet")
    _repaired(capsys, dataset)
    assert len(_manifest(dataset)["keys"]) == 7


def test_row9_orphan_shard_moved_aside_not_deleted_on_open(dataset, capsys):
    from kgraph.data.harness.store import DatasetStore

    (dataset / "launches-00007.parquet").write_bytes(b"not parquet")
    DatasetStore(dataset).close()
    assert "launches-00007.parquet is not in manifest.json" in capsys.readouterr().err
    assert (dataset / "damaged" / "launches-00007.parquet").read_bytes() == b"not parquet"


def test_row9_uncommitted_rows_after_kill(capsys, dataset):
    from kgraph.data.harness.store import DatasetStore

    store = DatasetStore(dataset, "dev", shard_rows=100)
    store.append(_row(6))
    store.append(_row(7))
    store._journal.write('{"t": "row", "key": "trunc')  # the line being written at kill -9
    store._journal.flush()
    store._lock.close()  # the process dies: the lock goes with it, the journal stays
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 1 and "2 row(s) in journal.jsonl not yet committed" in out, out
    out = _repaired(capsys, dataset)
    assert "committed 2 row(s) from journal.jsonl" in out
    assert len(_manifest(dataset)["keys"]) == 7


def test_row9_killed_before_first_commit(capsys, tmp_path):
    from kgraph.data.harness.store import DatasetStore

    folder = tmp_path / "new"
    store = DatasetStore(folder, "dev", shard_rows=100)
    store.add_source(_source())
    store.append(_row(1))
    store._lock.close()  # kill -9 before the first shard: only the journal exists
    assert not (folder / "manifest.json").exists()
    rc, out, _ = kgraph(capsys, "dataset", "validate", folder)
    assert rc == 1 and "1 row(s) in journal.jsonl not committed" in out and "kgraph dataset repair" in out
    out = _repaired(capsys, folder)
    assert "committed 1 row(s)" in out and _manifest(folder)["keys"] == [_row(1)["key"]]


def test_row9_bad_sources_parquet(capsys, dataset):
    (dataset / "sources.parquet").write_bytes(b"PAR1 but not really")
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 1 and "sources.parquet cannot be read" in out and "kgraph dataset repair" in out
    rc, _, err = kgraph(capsys, "dataset", "fill-counts", dataset, "--device", "none")
    assert rc == 1 and "sources.parquet cannot be read" in err
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and "moved sources.parquet" in out
    assert (dataset / "damaged" / "sources.parquet").exists()


@pytest.mark.parametrize("content", [b"\x00\x01\x02", b"[1, 2]", b'{"compute_units": "many"}'])
def test_row9_bad_device_json(capsys, dataset, content):
    (dataset / "device.json").write_bytes(content)
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 1 and "device.json" in out and "kgraph dataset repair" in out, out
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and "moved device.json" in out
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 0, out


def test_row9_campaign_on_damaged_folder_and_out_is_a_file(capsys, pocl_dataset, tmp_path):
    dataset = pocl_dataset
    spec_file = tmp_path / "specs.py"
    spec_file.write_text(HANG_SPECS)
    shard = dataset / "launches-00001.parquet"
    shard.write_bytes(shard.read_bytes()[:50])
    common = ["--device", "pocl", "--specs", f"{spec_file}:specs", "--no-progress", "--build-jobs", "0"]
    rc, _, err = kgraph(capsys, "dataset", "campaign", "--out", dataset, *common)
    assert rc == 1 and "launches-00001.parquet cannot be read" in err and "kgraph dataset repair" in err
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    rc, _, err = kgraph(capsys, "dataset", "campaign", "--out", a_file, *common)
    assert rc == 2 and "a file, not a dataset folder" in err
    for action in ("validate", "describe", "fill-counts", "repair"):
        rc, out, err = kgraph(capsys, "dataset", action, a_file)
        assert rc in (1, 2) and ("a file" in out + err or "not a folder" in out + err), (action, out, err)
    assert a_file.read_text() == "x"


def test_row9_device_json_of_campaign_folder(capsys, pocl_dataset, tmp_path):
    dataset = pocl_dataset
    spec_file = tmp_path / "specs.py"
    spec_file.write_text(HANG_SPECS)
    (dataset / "device.json").write_text('{"name": ')
    rc, _, err = kgraph(capsys, "dataset", "campaign", "--out", dataset, "--device", "pocl", "--specs",
                        f"{spec_file}:specs", "--no-progress", "--build-jobs", "0")
    assert rc == 1 and "device.json" in err and "kgraph dataset repair" in err, err


def test_row9_repair_of_a_healthy_folder_changes_nothing(capsys, dataset):
    before = {p.name: p.read_bytes() for p in dataset.iterdir() if p.is_file() and p.name != ".lock"}
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and "nothing to repair" in out
    after = {p.name: p.read_bytes() for p in dataset.iterdir() if p.is_file() and p.name != ".lock"}
    assert before == after and not (dataset / "damaged").exists()


def test_row9_format1_manifest_of_an_older_campaign_still_valid(capsys, dataset):
    manifest = _manifest(dataset)
    for name in ("format", "failed_kernels", "ceilings", "harness_version"):
        manifest.pop(name)  # the fewest fields a format-1 manifest has
    _set_manifest(dataset, manifest)
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 0 and out.strip().endswith("valid"), out


def test_row9_format1_manifest_keys_checked_then_rewritten_as_format2(capsys, dataset):
    """A format-1 manifest's key list must match the shards (validate says so); repair writes format 2,
    which keeps no key list, and the folder reads back the same committed keys."""
    manifest = _manifest(dataset)
    keys = manifest["keys"]
    _set_manifest(dataset, {**manifest, "format": 1, "keys": keys[:-1]})
    rc, out, _ = kgraph(capsys, "dataset", "validate", dataset)
    assert rc == 1 and f"manifest lists {len(keys) - 1} keys, shards hold {len(keys)}" in out, out
    _set_manifest(dataset, {**manifest, "format": 1})
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and "wrote manifest.json" in out, out
    assert sorted(_manifest(dataset)["keys"]) == sorted(keys)  # _manifest checks format 2 without a key list


# ---- row 13: shard names confined; atomic, durable writes -------------------------------------------
@pytest.mark.parametrize("name", ["../../../etc/passwd", "/etc/passwd", "../victim/launches-00000.parquet",
                                  "sub/launches-00000.parquet", "launches-00000.parquet/..", 7])
def test_row13_shard_name_outside_folder_refused(capsys, dataset, tmp_path, name):
    victim = tmp_path / "victim" / "launches-00000.parquet"
    victim.parent.mkdir()
    shutil.copy(dataset / "launches-00000.parquet", victim)
    before = victim.read_bytes()
    manifest = _manifest(dataset)
    manifest["shards"][0]["file"] = name
    _set_manifest(dataset, manifest)
    _damaged_everywhere(capsys, dataset, "refused")
    from kgraph.data.harness.store import DatasetStore
    from kgraph.errors import InputError

    with pytest.raises(InputError, match="refused"):
        DatasetStore(dataset).update_rows({_row(1)["key"]: {"cv": 0.5}})
    assert victim.read_bytes() == before
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and "not followed" in out
    assert victim.read_bytes() == before


def test_row13_symlinked_shard_refused(capsys, dataset, tmp_path):
    outside = tmp_path / "outside.parquet"
    shutil.move(dataset / "launches-00000.parquet", outside)
    (dataset / "launches-00000.parquet").symlink_to(outside)
    _damaged_everywhere(capsys, dataset, "symbolic link")
    rc, out, _ = kgraph(capsys, "dataset", "repair", dataset)
    assert rc == 0 and outside.exists() and (dataset / "damaged" / "launches-00000.parquet").is_symlink()


def test_row13_shards_and_manifest_fsynced_before_and_after_rename(tmp_path, monkeypatch):
    import stat

    import kgraph.data.harness.store_files as store_files
    from kgraph.data.harness.store import DatasetStore

    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync-dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync-file",))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", Path(dst).name))
        real_replace(src, dst)

    monkeypatch.setattr(store_files.os, "fsync", fsync)  # the durable writes live in store_files
    monkeypatch.setattr(store_files.os, "replace", replace)
    with DatasetStore(tmp_path / "ds", "dev", shard_rows=2) as store:
        store.add_source(_source())
        store.append(_row(1))
        store.append(_row(2))  # a shard, then sources and the manifest
    for name in ("launches-00000.parquet", "sources.parquet", "manifest.json"):
        i = events.index(("replace", name))
        assert events[i - 1] == ("fsync-file",) and events[i + 1] == ("fsync-dir",), (name, events)
    assert not list((tmp_path / "ds").glob("*.tmp"))
