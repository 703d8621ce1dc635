"""Issue 14, rows 8, 9, 11, 12, 13: hostile input to ``kgraph measure`` and the dataset commands, and
processes that outlive their parent. CPU only (PoCL); each test asserts exit codes and messages and
that no traceback reaches the user."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgraph.data.harness.columns import empty_row, launch_key, source_id_of

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "__kernel void k(__global float *y) { y[get_global_id(0)] = 1.0f; }"
KERNELS = """
__kernel void scale(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i];
}
__kernel void hang(__global float *y, int n) {
    int i = get_global_id(0);
    while (1) { y[i] += 1.0f; if (y[i] < -1.0f) break; }
}
__kernel void loc(__global float *y, __local float *t) {
    t[get_local_id(0)] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    y[get_global_id(0)] = t[0];
}
__kernel void oob(__global float *y) {
    y[get_global_id(0) * 100000000] = 1.0f;
}
"""
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
    return json.loads((folder / "manifest.json").read_text())


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


# ---- rows 8 and 11: kgraph measure ------------------------------------------------------------------
@pytest.fixture
def kernels(tmp_path) -> Path:
    pytest.importorskip("pyopencl")
    path = tmp_path / "k.cl"
    path.write_text(KERNELS)
    return path


@pytest.mark.parametrize("extra, message", [
    (["--arg", "n=nan"], "--arg n=nan: must be a finite number"),
    (["--arg", "n=inf"], "must be a finite number"),
    (["--arg", "n=1099511627776"], "out of range for int32"),
    (["--arg", "n=2^40"], "--arg n=2^40: not a number"),
    (["--arg", "n=1.5"], "int32 parameter needs a whole number"),
    (["--buffer", "x=-3"], "must be positive"),
    (["--buffer", "x=1e400"], "whole number of elements"),
    (["--buffer", "x=" + str(2**60)], "more than"),
    (["--global", "1099511627776"], "below 2^32"),
    (["--timeout-s", "0"], "--timeout-s 0"),
])
def test_row8_measure_bad_numbers_refused(capsys, kernels, extra, message):
    argv = ["measure", kernels, "--kernel", "scale", "--buffer", "y=1024"]
    if "--global" not in extra:
        argv += ["--global", "1024"]
    rc, _, err = kgraph(capsys, *argv, *extra)
    assert rc == 2 and message in err, err


def test_row8_measure_huge_buffer_is_out_of_resources(capsys, kernels):
    rc, out, _ = kgraph(capsys, "measure", kernels, "--kernel", "scale", "--global", "1024", "--arg", "n=100",
                        "--buffer", "y=1024", "--buffer", "x=1099511627776", "--json")
    row = json.loads(out)
    assert rc == 1 and row["status"] == "out_of_resources" and "cannot allocate" in row["message"]


def test_row8_measure_huge_global_is_reported_not_fatal(kernels):
    """2^40 work-items kill PoCL with SIGILL: the worker dies, the command reports it."""
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign

    request = ForeignRequest(str(kernels), "scale", (2**40,), None, {"n": "16"}, {"x": "16", "y": "16"}, {})
    row = measure_foreign(request, "pocl", timeout_s=5).row
    assert row["status"] in ("crash", "timeout", "launch_error", "out_of_resources"), row
    assert row["message"]


def test_row11_measure_hanging_kernel_times_out(capsys, kernels):
    start = time.monotonic()
    rc, out, _ = kgraph(capsys, "measure", kernels, "--kernel", "hang", "--global", "64", "--buffer", "y=64",
                        "--timeout-s", "2", "--json")
    row = json.loads(out)
    assert rc == 1 and row["status"] == "timeout" and "--timeout-s 2" in row["message"]
    assert time.monotonic() - start < 30


def test_row11_measure_out_of_bounds_write_is_a_crash(capsys, kernels):
    rc, out, _ = kgraph(capsys, "measure", kernels, "--kernel", "oob", "--global", "64", "--buffer", "y=64",
                        "--json")
    row = json.loads(out)
    assert rc == 1 and row["status"] in ("crash", "launch_error"), row
    if row["status"] == "crash":
        assert "killed by signal" in row["message"]


def test_row11_measure_local_memory_beyond_device_limit(capsys, kernels):
    rc, out, _ = kgraph(capsys, "measure", kernels, "--kernel", "loc", "--global", "64", "--local", "64",
                        "--buffer", "y=64", "--arg", f"t={2**28}", "--json")  # 1 GiB of __local floats
    row = json.loads(out)
    assert rc == 1 and row["status"] == "out_of_resources" and "local memory" in row["message"], row


def test_row11_measure_runs_in_worker_without_probe_when_every_size_is_given(kernels, monkeypatch):
    import kgraph.data.harness.foreign_spec as foreign_spec
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign

    def no_probe(*args, **kwargs):
        raise AssertionError("a sizing run in the command's own process")

    monkeypatch.setattr(foreign_spec, "_inferred_extents", no_probe)  # this process; the worker is another one
    sized = measure_foreign(ForeignRequest(str(kernels), "scale", (256,), (64,), {"n": "256"},
                                           {"x": "256", "y": "256"}, {}), "pocl")
    assert sized.row["status"] == "ok" and "timing" in sized.phases and "sizing run" not in sized.phases
    assert sized.row["median_time_ns"] > 0 and sized.row["counts_source"] == "static"


@pytest.mark.slow
def test_row11_measure_sizing_run_happens_in_the_worker(kernels, monkeypatch):
    import kgraph.data.harness.foreign_spec as foreign_spec
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign

    def no_probe(*args, **kwargs):
        raise AssertionError("a sizing run in the command's own process")

    monkeypatch.setattr(foreign_spec, "_inferred_extents", no_probe)
    probed = measure_foreign(ForeignRequest(str(kernels), "scale", (256,), (64,), {"n": "256"}, {}, {}), "pocl")
    assert probed.row["status"] == "ok" and "sizing run" in probed.phases
    assert [(a.name, a.count) for a in probed.spec.args if a.kind == "buffer"] == [("x", "256"), ("y", "256")]


@pytest.mark.slow
def test_row11_measure_hanging_sizing_run_times_out(capsys, kernels):
    rc, out, _ = kgraph(capsys, "measure", kernels, "--kernel", "hang", "--global", "64", "--timeout-s", "2",
                        "--json")
    row = json.loads(out)
    assert rc == 1 and row["status"] == "timeout" and "sizing run" in row["message"]
    assert "--buffer NAME=ELEMENTS" in row["message"]


# ---- row 12: no worker outlives a killed campaign ---------------------------------------------------
def _descendants(pid: int) -> set[int]:
    pairs = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            pairs.append((int(entry.name), int(stat.rsplit(")", 1)[1].split()[1])))
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in pairs if parent in frontier} - found
        found |= frontier
    return found


def _cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_row12_killed_campaign_leaves_no_worker(tmp_path):
    pytest.importorskip("pyopencl")
    from kgraph.data.harness.descriptor import save_descriptor

    spec_file = tmp_path / "specs.py"
    spec_file.write_text(HANG_SPECS)
    out = tmp_path / "ds"
    out.mkdir()
    save_descriptor(_fake_descriptor(), out)  # no roofline measurement: the worker goes straight to the hang
    cmd = [sys.executable, "-m", "kgraph.data.harness.campaign", "--device", "pocl", "--out", str(out),
           "--specs", f"{spec_file}:specs", "--build-jobs", "0", "--no-progress", "--counts", "none",
           "--launch-timeout-s", "300", "--build-timeout-s", "300"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            children = _descendants(proc.pid) or children
            if any(_cpu_s(pid) > 2.0 for pid in children):  # the worker is spinning in the kernel
                break
            time.sleep(0.25)
        assert proc.poll() is None and children, "the campaign never reached the hanging kernel"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
            time.sleep(0.1)
        survivors = [pid for pid in children if Path(f"/proc/{pid}").exists() and _state(pid) != "Z"]
        assert not survivors, f"processes of the killed campaign still running: {survivors}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in children:
            if Path(f"/proc/{pid}").exists():
                os.kill(pid, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _fake_descriptor() -> dict:
    """A valid descriptor of the local PoCL device with a made-up roofline (not measured: seconds saved)."""
    from kgraph.data.harness.descriptor import opencl_properties
    from kgraph.data.harness.devices import pick_device

    info = pick_device("pocl")
    descriptor = opencl_properties(info, info.open())
    descriptor["roofline"] = {"copy_bw_gbs": 10.0, "fp32_gflops": 100.0, "fp64_gflops": 50.0,
                              "local_bw_gbs": 20.0, "launch_overhead_us": 5.0}
    return descriptor
