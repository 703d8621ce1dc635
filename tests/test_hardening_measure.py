"""Issue 14, rows 8, 11 and 12: hostile input to ``kgraph measure``, and processes that outlive their
parent. CPU only (PoCL); each test asserts exit codes and messages and that no traceback reaches the user.
Rows 9 and 13 (dataset folders), with the shared helpers: ``test_hardening_harness.py``."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_hardening_harness import HANG_SPECS, kgraph

ROOT = Path(__file__).resolve().parents[1]
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
