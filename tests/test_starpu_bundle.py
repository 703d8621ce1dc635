"""The StarPU bundle for bare hosts (benchmarks/starpu_bundle.sh) and its runner (starpu_device.sh).

The fast tests check the device script's answers to misuse; the slow one builds a bundle into a
temporary folder, builds the workload against it with pkg-config made unusable, and checks that the
binary resolves every library from the bundle or the base system and runs.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.runtime_starpu import write_report
from kgraph.app.runtime.starpu_runner import starpu_available
from kgraph.data.corpus import tile_kernel_files

REPO = Path(__file__).resolve().parents[1]
BUNDLE_SH = REPO / "benchmarks" / "starpu_bundle.sh"
DEVICE_SH = REPO / "benchmarks" / "starpu_device.sh"
# What a bare host with a C toolchain has anyway: glibc, libgcc_s, libstdc++.
BASE = re.compile(r"^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libresolv|libgcc_s|libstdc\+\+)\.so")


def run_device(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(DEVICE_SH), *args], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=120)


def test_device_script_without_bundle_says_so(tmp_path):
    proc = run_device(env={"KGRAPH_STARPU_BUNDLE": str(tmp_path / "nothing"), "OUT": str(tmp_path / "out")})
    assert proc.returncode == 3
    assert f"no StarPU bundle at {tmp_path / 'nothing'}" in proc.stderr
    assert "benchmarks/starpu_bundle.sh" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--opencl", "cuda"], "--opencl must be pocl, gpu, cpu (CPU workers only) or both (or a comma list), not cuda"),
    (["--opencl", "gpu,tpu"], "not gpu,tpu"),
    (["--five-runs", "--runs", "0"], "--runs must be a positive number, not 0"),
    (["--cpu-descriptor", "avx"], "--cpu-descriptor must be core or xeon, not avx"),
    (["--cpu-budget-s", "2m"], "--cpu-budget-s must be whole seconds, not 2m"),
    (["--budget-s", "4m"], "--budget-s must be whole seconds, not 4m"),
    (["--frobnicate"], "unknown option --frobnicate"),
])
def test_device_script_rejects_bad_options(tmp_path, args, message):
    proc = run_device(*args, env={"OUT": str(tmp_path / "out")})
    assert proc.returncode == 2
    assert message in proc.stderr


def test_report_keeps_failed_runs(tmp_path):
    args = SimpleNamespace(out=str(tmp_path / "r.md"), time_table=str(tmp_path / "t.csv"))
    rows = [("gemm", "2x32", "kgraph", 1.5, 0.25, 8, 8, 3, 2000.0),
            ("gemm", "2x32", "regression (failed)", math.nan, math.nan, 0, 0, 0, math.nan)]
    write_report(rows, [("gemm", 32, "gpu", 12.5)], args)
    lines = Path(args.out).read_text().splitlines()
    assert lines[2] == "| gemm | 2x32 | kgraph | 1.50 | 0.250 | 8 | 8 | 3 | 2000 |"
    assert lines[3] == "| gemm | 2x32 | regression (failed) | - | - | 0 | 0 | 0 | - |"
    assert Path(args.time_table).read_text() == "kind,tile,device,time_us\ngemm,32,gpu,12.5\n"


def bundle_env(bundle: Path) -> dict:
    env = {}
    for line in (bundle / "starpu.env").read_text().splitlines():
        key, _, value = line.partition("=")
        env[key] = value.replace("@BUNDLE@", str(bundle))
    return env


@pytest.mark.slow
def test_bundle_builds_a_workload_that_links_only_bundle_and_base_libs(tmp_path):
    if starpu_available() or shutil.which("dpkg") is None:
        pytest.skip(starpu_available() or "dpkg missing: the bundle is made on Debian/Ubuntu")
    bundle = tmp_path / "bundle"
    made = subprocess.run(["bash", str(BUNDLE_SH), str(bundle)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHON": sys.executable})  # python3 may lack kgraph's dependencies
    assert made.returncode == 0, made.stderr
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file() and not f.is_symlink())
    assert size < 40 * 2**20
    manifest = (bundle / "MANIFEST").read_text()
    need = re.search(r"glibc_needed GLIBC_(\d+)\.(\d+)", manifest)
    assert need and (int(need[1]), int(need[2])) <= (2, 35), manifest  # runs on Ubuntu 22.04 and newer

    # pkg-config that fails loudly: the build must take everything from the bundle's variables
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "pkg-config").write_text(f"#!/bin/sh\necho called >> {tmp_path}/pkg-config-called\nexit 1\n")
    (fake / "pkg-config").chmod(0o755)
    env = {**os.environ, **bundle_env(bundle), "PATH": f"{fake}:{os.environ['PATH']}", "PKG_CONFIG_PATH": ""}
    env.pop("LD_LIBRARY_PATH", None)
    build = tmp_path / "build"
    export = tmp_path / "export"
    from kgraph.app.cli.main import main as kgraph_main

    assert kgraph_main(["export", "--format", "c", "--out", str(export), "--kernels",
                        *map(str, tile_kernel_files())]) == 0
    proc = subprocess.run(["make", "-s", "-C", str(REPO / "kgraph/app/runtime/starpu"),
                           f"MODEL_DIR={export}", f"BUILD={build}", f"KERNEL_DIR={tile_kernel_files()[0].parent}"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "pkg-config-called").exists()

    # every header outside the bundle belongs to libc / kernel / gcc headers
    cflags = env["KGRAPH_STARPU_CFLAGS"].split()
    sources = sorted(str(p) for p in (REPO / "kgraph/app/runtime/starpu").glob("*.c"))
    deps = subprocess.run(["gcc", "-M", "-std=c99", "-D_POSIX_C_SOURCE=200809L", f"-I{export}",
                           *cflags, "-DCL_TARGET_OPENCL_VERSION=120", "-DKGRAPH_KERNEL_DIR=\"k\"", *sources],
                          capture_output=True, text=True, check=True).stdout
    outside = sorted({w for w in deps.replace("\\\n", " ").split() if w.startswith("/usr/include/")})
    owners = subprocess.run(["dpkg", "-S", *outside], capture_output=True, text=True).stdout
    packages = {line.split(":")[0] for line in owners.splitlines()}
    assert all(re.fullmatch(r"libc6-dev|linux-libc-dev|libgcc-\d+-dev", p) for p in packages), packages
    assert any(w.startswith(str(bundle / "include" / "starpu")) for w in deps.split())

    ldd = subprocess.run(["ldd", str(build / "tiled_workload")], env=env, capture_output=True, text=True).stdout
    assert "not found" not in ldd
    resolved = [line.split() for line in ldd.splitlines() if "=>" in line]
    foreign = [name for name, _, path, *_ in resolved if not path.startswith(str(bundle)) and not BASE.match(name)]
    assert foreign == []
    from_bundle = {name for name, _, path, *_ in resolved if path.startswith(str(bundle))}
    assert {"libstarpu-1.3.so.9", "libOpenCL.so.1", "libhwloc.so.15"} <= from_bundle

    run = subprocess.run([str(build / "tiled_workload"), "cholesky", "2", "32", "none"], capture_output=True,
                         text=True, timeout=120, env={**env, "STARPU_HOME": str(tmp_path / "home"), "STARPU_NCPU": "1",
                                                      "STARPU_NOPENCL": "0", "STARPU_SCHED": "eager", "STARPU_SILENT": "1"})
    assert run.returncode == 0, run.stderr
    assert "workload cholesky tiles 2 tile 32 model none" in run.stdout and "tasks 4 " in run.stdout
