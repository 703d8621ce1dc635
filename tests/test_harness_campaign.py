"""End-to-end tests of the measurement harness on PoCL: statuses, timing fields, resume."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

cl = pytest.importorskip("pyopencl")

SPECS = r'''
import numpy as np
from kgraph.data.corpus.spec import Arg, KernelSpec

SCALE = """__kernel void scale(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i];
}"""
ADD = """__kernel void add(__global const float *a, __global const float *b, __global float *c) {
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
}"""
HANG = """__kernel void hang(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    while (1) { y[i] += 1.0f; if (y[i] < -1.0f) break; }
}"""
DEP = """__kernel void dep(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    float acc = 0.0f;
    int m = (int)(x[i] * 4.0f);
    for (int k = 0; k < m; ++k) acc += 1.0f;
    y[i] = acc;
}"""
SYNTAX = """__kernel void broken(__global float *y, int n) { y[get_global_id(0)] = 1.0f +; }"""
BADSHAPE = """__attribute__((reqd_work_group_size(32, 1, 1)))
__kernel void badshape(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    y[i] = 2.0f * x[i];
}"""
WRONG = """__kernel void scale(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    y[i] = 3.0f * x[i];
}"""


def _spec(kid, family, name, source, args, ref):
    return KernelSpec(kernel_id=kid, family=family, variant={}, kernel_name=name, source=source,
                      sizes={"n": [256, 1024, 4096]}, check_sizes={"n": 256}, constraints=[],
                      args=args, global_size=["n"], local_sizes=[[32], [64]], reference=ref)


def specs():
    xy = [Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "out"),
          Arg("n", "scalar", "int32", "n")]
    abc = [Arg("a", "buffer", "float32", "n"), Arg("b", "buffer", "float32", "n"),
           Arg("c", "buffer", "float32", "n", "out")]
    return [
        _spec("t.scale", "tscale", "scale", SCALE, xy, lambda i, s: {"y": 2.0 * i["x"]}),
        _spec("t.add", "tadd", "add", ADD, abc, lambda i, s: {"c": i["a"] + i["b"]}),
        _spec("t.hang", "thang", "hang", HANG, xy, lambda i, s: {"y": i["x"]}),
        _spec("t.syntax", "tsyntax", "broken", SYNTAX, [Arg("y", "buffer", "float32", "n", "out"),
              Arg("n", "scalar", "int32", "n")], lambda i, s: {"y": np.ones(s["n"], np.float32)}),
        _spec("t.dep", "tdep", "dep", DEP, xy,
              lambda i, s: {"y": np.maximum(np.trunc(i["x"] * 4.0), 0.0).astype(np.float32)}),
        _spec("t.wrong", "twrong", "scale", WRONG, xy, lambda i, s: {"y": 2.0 * i["x"]}),
        # checked (and fine) with work-groups of 32; launches with 64 are refused by the runtime
        _spec("t.badshape", "tbadshape", "badshape", BADSHAPE, xy, lambda i, s: {"y": 2.0 * i["x"]}),
    ]
'''


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("specs") / "test_specs.py"
    path.write_text(SPECS)
    return path


@pytest.fixture(scope="module")
def descriptor(tmp_path_factory) -> Path:
    """One measured device.json, copied into every campaign folder (the roofline takes seconds)."""
    from kgraph.data.harness.descriptor import measure_descriptor, save_descriptor
    from kgraph.data.harness.devices import pick_device

    folder = tmp_path_factory.mktemp("device")
    save_descriptor(measure_descriptor(pick_device("pocl")), folder)
    return folder / "device.json"


def _campaign(spec_file, descriptor, out: Path, kernels, **extra):
    from kgraph.data.harness.campaign import CampaignOptions, run_campaign
    from kgraph.data.harness.timing import TimingPolicy

    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(descriptor, out / "device.json")
    opts = CampaignOptions(device="pocl", out=str(out), specs=f"{spec_file}:specs", kernels=kernels,
                           max_per_kernel=4, build_timeout_s=3.0, launch_timeout_s=3.0, progress=False,
                           policy=TimingPolicy(max_repeats=10, time_cap_s=0.05), **{"counts": "none", **extra})
    return run_campaign(opts)


def test_statuses_and_timing_fields(spec_file, descriptor, tmp_path):
    from kgraph.data.harness.store import read_launches

    summary = _campaign(spec_file, descriptor, tmp_path / "ds",
                        ["t.scale", "t.hang", "t.syntax", "t.wrong"])
    df = read_launches(tmp_path / "ds")
    by_kernel = df.groupby("kernel_id")["status"].apply(list).to_dict()
    assert by_kernel["t.scale"] == ["ok"] * 4          # 3 sizes x 2 shapes = 6 candidates, capped at 4
    assert by_kernel["t.hang"] == ["timeout"]
    assert by_kernel["t.syntax"] == ["build_error"]
    assert by_kernel["t.wrong"] == ["wrong_result"]
    assert summary.failed_kernels == 3
    ok = df[df.status == "ok"]
    assert (ok.min_time_ns > 0).all() and (ok.min_time_ns <= ok.median_time_ns).all()
    assert (ok.median_time_ns <= ok.max_time_ns).all()
    assert (ok.repeats >= 3).all() and (ok.repeats <= 10).all() and (ok.cv >= 0).all()
    assert set(ok.l0) <= {32, 64} and (ok.dims == 1).all() and (ok.g1 == 1).all()
    assert (ok.g0 == ok.sizes.map(lambda s: json.loads(s)["n"])).all()
    assert "error" in df[df.status == "build_error"].message.iloc[0].lower()
    assert "no answer within 3 s" in df[df.status == "timeout"].message.iloc[0]
    assert df.key.is_unique
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert set(manifest["failed_kernels"]) == {"t.hang", "t.syntax", "t.wrong"}
    # a re-run measures nothing new: stored keys and failed kernels are skipped
    again = _campaign(spec_file, descriptor, tmp_path / "ds", ["t.scale", "t.hang", "t.syntax", "t.wrong"])
    assert again.rows_written == 0


def test_launch_failure_mid_visit_is_recorded_and_the_campaign_goes_on(spec_file, descriptor, tmp_path):
    from kgraph.data.harness.store import read_launches

    _campaign(spec_file, descriptor, tmp_path / "ds", ["t.badshape", "t.scale"])
    df = read_launches(tmp_path / "ds")
    bad = df[df.kernel_id == "t.badshape"]
    failed = bad[bad.status != "ok"]
    assert len(failed) == 1 and failed.status.iloc[0] == "launch_error" and failed.l0.iloc[0] == 64
    assert (bad[bad.status == "ok"].l0 == 32).all()
    assert list(df[df.kernel_id == "t.scale"].status) == ["ok"] * 4
    assert df.key.is_unique


def test_kill_then_resume_gives_same_keys(spec_file, descriptor, tmp_path):
    from kgraph.data.harness.store import read_launches

    kernels = ["t.scale", "t.add"]
    full = tmp_path / "full"
    _campaign(spec_file, descriptor, full, kernels, shard_rows=2)
    killed = tmp_path / "killed"
    killed.mkdir()
    shutil.copy(descriptor, killed / "device.json")
    cmd = [sys.executable, "-m", "kgraph.data.harness.campaign", "--device", "pocl", "--out", str(killed),
           "--specs", f"{spec_file}:specs", "--kernels", *kernels, "--max-per-kernel", "4",
           "--shard-rows", "2", "--counts", "none", "--max-repeats", "10", "--time-cap-s", "0.05",
           "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).resolve().parents[1])
    deadline = time.time() + 60
    while not list(killed.glob("launches-*.parquet")) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    subprocess.run(cmd, cwd=Path(__file__).resolve().parents[1], check=True, timeout=120)
    a, b = read_launches(full), read_launches(killed)
    assert b.key.is_unique
    assert set(a.key) == set(b.key) and len(a) == len(b) == 8


def test_counts_instrumented_in_worker_static_in_supervisor(spec_file, descriptor, tmp_path):
    """t.scale: y[i] = 2*x[i] under i < n, so n FLOPs, 4n bytes loaded, 4n stored, 8n touched."""
    from kgraph.data.harness.store import read_launches

    _campaign(spec_file, descriptor, tmp_path / "auto", ["t.scale"], counts="auto")
    _campaign(spec_file, descriptor, tmp_path / "capped", ["t.scale"], counts="auto", max_instrumented_time_s=0.0)
    # the static footprint where the analysis proves it exact equals the instrumented one (since 2026-11-27)
    for folder, source, footprint in (("auto", "instrumented", 8), ("capped", "static", 8)):
        df = read_launches(tmp_path / folder)
        assert len(df) == 4 and (df.status == "ok").all() and (df.counts_source == source).all()
        n = df.sizes.map(lambda s: json.loads(s)["n"])
        assert (df.flops_fp32 == n).all() and (df.global_load_bytes == 4 * n).all()
        assert (df.global_store_bytes == 4 * n).all() and (df.atomics == 0).all()
        assert (df.footprint_bytes == (footprint * n if footprint else -1)).all()


def test_dependent_counts_instrument_only_the_data_dependent_kernel(spec_file, descriptor, tmp_path):
    """--counts dependent: t.scale's counts come from the analysis; t.dep's loop runs (int)(4 x[i]) times, which
    no analysis knows, so the campaign's device counts it (one FLOP an iteration)."""
    from kgraph.data.harness.store import read_launches

    _campaign(spec_file, descriptor, tmp_path / "dep", ["t.scale", "t.dep"], counts="dependent")
    df = read_launches(tmp_path / "dep")
    assert len(df) == 8 and (df.status == "ok").all()
    source = dict(zip(df.kernel_id, df.counts_source))
    assert source == {"t.scale": "static", "t.dep": "instrumented"}
    dep = df[df.kernel_id == "t.dep"]
    assert (dep.flops_fp32 > 0).all() and (dep.global_load_bytes == 4 * dep.sizes.map(lambda s: json.loads(s)["n"])).all()


def test_worker_recv_after_kill_raises_worker_died():
    """The supervisor kills the worker after a failed launch; a later recv must say so, not crash."""
    from kgraph.data.harness.devices import pick_device
    from kgraph.data.harness.timing import TimingPolicy
    from kgraph.data.harness.worker import Worker, WorkerDied

    worker = Worker(pick_device("pocl"), "kgraph.data.corpus:all_specs", TimingPolicy(), counts_mode="none")
    worker.ensure_started()
    worker.kill()
    with pytest.raises(WorkerDied):
        worker.recv(1.0)
