"""The static-prediction cache of kgraph_starpu_cost (kgraph_starpu.h, "Prediction cache"; issue 12 §6):
answers with the cache on equal those with it off (KGRAPH_STARPU_CACHE=0), in a Cholesky run under dmda
and, bit for bit, for 600 launches x 2 archs from one and from four threads (test_cost_cache.c).
No timing is asserted (the per-call cost is in docs/RUNTIME.md)."""
from __future__ import annotations

import math
import os
import shlex
import subprocess

import pytest
import torch

from kgraph.app.runtime import runtime_dir
from kgraph.app.runtime.starpu_runner import build, run_workload, starpu_available
from kgraph.data.corpus import tile_kernel_files
from kgraph.data.harness.descriptor import DEVICE_FEATURES
from kgraph.models.compact import CompactConfig, CompactHead
from kgraph.models.export import to_c
from kgraph.models.export.features_c import to_features_c

pytestmark = pytest.mark.skipif(starpu_available() is not None, reason=str(starpu_available()))
KERNELS = ["tile_gemm", "tile_potrf", "tile_syrk", "tile_trsm"]


def _starpu_flags() -> tuple[list[str], list[str]]:
    if os.environ.get("KGRAPH_STARPU_CFLAGS") and os.environ.get("KGRAPH_STARPU_LIBS"):
        return shlex.split(os.environ["KGRAPH_STARPU_CFLAGS"]), shlex.split(os.environ["KGRAPH_STARPU_LIBS"])
    cflags = subprocess.run(["pkg-config", "--cflags", "starpu-1.3"], capture_output=True, text=True, check=True)
    libs = subprocess.run(["pkg-config", "--libs", "starpu-1.3"], capture_output=True, text=True, check=True)
    return shlex.split(cflags.stdout), shlex.split(libs.stdout) + ["-lOpenCL"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A random (seeded) head, so that predictions differ by kernel, launch and device."""
    root = tmp_path_factory.mktemp("starpu_cache")
    torch.manual_seed(0)
    cfg = CompactConfig.for_dataset_features(code_dim=2, size="tiny")
    head = CompactHead(cfg).eval()
    dev = {name: torch.zeros(len(DEVICE_FEATURES)) for name in ("a", "b")}
    dev["b"][DEVICE_FEATURES.index("log2_compute_units")] = 6.0
    sources = {k: ((tile_kernel_files()[0].parent / f"{k}.cl").read_text(), "opencl") for k in KERNELS}
    to_c(head, root / "export", {k: torch.randn(2) for k in KERNELS}, dev,
         to_features_c(KERNELS, sources, cfg.device_names))
    binary = build(root / "export", root / "build")
    cflags, libs = _starpu_flags()
    src = runtime_dir() / "starpu"
    test = root / "build" / "test_cost_cache"
    proc = subprocess.run(["gcc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", f"-I{root / 'export'}",
                           f"-I{src}", *cflags, str(src / "test_cost_cache.c"),
                           str(root / "build" / "libkgraph_starpu.a"), "-o", str(test), *libs, "-lm", "-lpthread"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return binary, test, root


@pytest.mark.parametrize("kernel", ["tile_gemm", "tile_potrf"])
def test_cached_cost_is_bitwise_the_uncached_one(built, kernel):
    _, test, _ = built
    proc = subprocess.run([str(test), kernel, "a", "b"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    assert words[0] == "ok" and int(words[words.index("hits") + 1]) > 0


def _by_kind_arch(run) -> dict:
    out: dict = {}
    for t in run.trace:
        out.setdefault((t["kind"], t["arch"]), []).append(t["predicted_us"])
    return out


def test_cholesky_predictions_equal_with_cache_on_and_off(built):
    """Every task's prediction is the same with the cache on and off. One worker kind per run (CPU only, then
    OpenCL only), so dmda's placement, which varies from run to run, cannot leave a kind uncompared."""
    binary, _, root = built
    devices = {"KGRAPH_STARPU_CPU_DEVICE": "a", "KGRAPH_STARPU_OPENCL_DEVICE": "b"}
    a, b = {}, {}
    for ncpu, nopencl in ((1, 0), (0, 1)):
        common = dict(work=root / "runs", starpu_home=root / "home", ncpu=ncpu, nopencl=nopencl)
        on = run_workload(binary, "cholesky", 4, 32, "kgraph", env=devices, **common)
        off = run_workload(binary, "cholesky", 4, 32, "kgraph", env=dict(devices, KGRAPH_STARPU_CACHE="0"), **common)
        for r in (on, off):
            assert r.summary["tasks"] == 20 and r.summary["cost_failures"] == 0 and len(r.trace) == 20
            assert r.summary["cost_calls"] >= 20  # every task asked
            assert all(math.isfinite(t["predicted_us"]) and t["predicted_us"] > 0 for t in r.trace)
        a.update(_by_kind_arch(on))
        b.update(_by_kind_arch(off))
    for groups in (a, b):  # a (kind, arch) has one launch at one tile size: one answer
        for values in groups.values():
            assert all(v == pytest.approx(values[0], rel=1e-6) for v in values)
    assert set(a) == set(b) and len({arch for _, arch in a}) == 2  # both archs, the same keys
    assert {kind for kind, _ in a} == {k[5:] for k in KERNELS}  # every kind compared
    for key in a:
        assert a[key][0] == pytest.approx(b[key][0], rel=1e-6), key
    # the model does tell kinds apart (a cache keyed too coarsely would answer one kind's time for another)
    assert len({round(math.log(v[0]), 6) for v in a.values()}) > 1
