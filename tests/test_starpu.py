"""StarPU integration: the library builds, a Cholesky DAG runs under dmda, the kgraph cost function
is called for every (task, arch) and dmda places tasks by its answers."""
from __future__ import annotations

import math

import pytest
import torch

from kgraph.data.harness.descriptor import DEVICE_FEATURES
from kgraph.data.corpus import tile_kernel_files
from kgraph.app.runtime.starpu_runner import build, run_workload, starpu_available
from kgraph.models.compact import CompactConfig, CompactHead
from kgraph.models.export import to_c
from kgraph.models.export.features_c import to_features_c

pytestmark = pytest.mark.skipif(starpu_available() is not None, reason=str(starpu_available()))
KERNELS = ["tile_gemm", "tile_potrf", "tile_syrk", "tile_trsm"]


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    """A head whose predicted time is 1 µs * e^(log2 compute units): 'fast' (1 CU) = 1 µs,
    'slow' (2^10 CUs) = e^10 µs ≈ 22 ms, whatever the kernel."""
    root = tmp_path_factory.mktemp("starpu")
    cfg = CompactConfig.for_dataset_features(code_dim=2, size="tiny")
    head = CompactHead(cfg).eval()
    with torch.no_grad():
        for layer in head.layers:
            layer.weight.zero_()
            layer.bias.zero_()
        head.layers[0].weight[0, cfg.in_dim - len(DEVICE_FEATURES) + DEVICE_FEATURES.index("log2_compute_units")] = 1.0
        head.layers[1].weight[0, 0] = 1.0
        head.layers[1].bias[0] = math.log(1000.0)
    dev = {name: torch.zeros(len(DEVICE_FEATURES)) for name in ("fast", "slow")}
    dev["slow"][DEVICE_FEATURES.index("log2_compute_units")] = 10.0
    sources = {k: ((tile_kernel_files()[0].parent / f"{k}.cl").read_text(), "opencl") for k in KERNELS}
    to_c(head, root / "export", {k: torch.zeros(2) for k in KERNELS}, dev,
         to_features_c(KERNELS, sources, cfg.device_names))
    return build(root / "export", root / "build"), root


def test_dmda_follows_kgraph_predictions(workload):
    binary, root = workload
    common = dict(work=root / "runs", starpu_home=root / "home", ncpu=1, nopencl=1)
    # CPU workers slow, OpenCL fast: dmda sends the work to OpenCL
    r = run_workload(binary, "cholesky", 3, 32, "kgraph", env={"KGRAPH_STARPU_CPU_DEVICE": "slow",
                                                                "KGRAPH_STARPU_OPENCL_DEVICE": "fast"}, **common)
    assert r.summary["tasks"] == 10 and r.summary["cost_failures"] == 0
    assert r.summary["cost_calls"] >= 2 * 10  # every task asked on both archs
    on_opencl = [t for t in r.trace if t["arch"] == "opencl"]
    assert len(on_opencl) >= 8
    for t in r.trace:  # the scheduler's expected length is exactly the model's answer for that arch
        assert t["predicted_us"] == pytest.approx(1.0 if t["arch"] == "opencl" else math.exp(10.0), rel=1e-4)
    # swapped: everything stays on the CPU worker
    r = run_workload(binary, "cholesky", 3, 32, "kgraph", env={"KGRAPH_STARPU_CPU_DEVICE": "fast",
                                                                "KGRAPH_STARPU_OPENCL_DEVICE": "slow"}, **common)
    assert [t["arch"] for t in r.trace] == ["cpu"] * 10
    assert all(t["predicted_us"] == pytest.approx(1.0, rel=1e-4) for t in r.trace)


def test_eager_runs_without_model(workload):
    binary, root = workload
    r = run_workload(binary, "gemm", 2, 32, "none", sched="eager", work=root / "runs", starpu_home=root / "home")
    assert r.summary["tasks"] == 8 and r.summary["cost_calls"] == 0 and len(r.trace) == 8
