"""The C-function model of StarPU's CPU workers (kgraph/app/runtime/cpu_functions.py, docs/RUNTIME.md
"CPU workers: the C-function model"): the committed code-free head exported to C (kgcpu_ prefix) agrees
with Python on many launches of the tile functions, costs < 1 µs a call, and, built into the StarPU
library, is what the cost function answers for CPU workers (and the codelets compute correct results)."""
from __future__ import annotations

import json
import math
import subprocess

import numpy as np
import pytest
import torch

from kgraph.app.runtime.cpu_functions import TILE_FUNCTIONS, default_checkpoint, export, one_core_datasets
from kgraph.app.runtime.starpu_runner import build, run_workload, starpu_available
from kgraph.data.corpus.c import SIGNATURES
from kgraph.data.harness.descriptor import load_descriptor

DRIVER = r"""
#include "kgcpu_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
  char name[64];
  double args[8];
  int n, i, device;
  if (argc > 1 && strcmp(argv[1], "bench") == 0) { /* bench FUNCTION N CALLS: ns per features + predict */
    static const double one[3] = {1, 1, 1};
    double x[KGCPU_N_LAUNCH], sink = 0;
    kgcpu_prediction p;
    struct timespec t0, t1;
    int f = kgcpu_kernel_index(argv[2]), calls = atoi(argv[4]), c, best = 0;
    double best_ns = 1e30;
    for (i = 0; i < 6; ++i) args[i] = atof(argv[3]);
    for (c = 0; c < 5; ++c) {
      int k;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (k = 0; k < calls; ++k) {
        args[0] = atof(argv[3]) + (k & 1);
        kgcpu_features(f, 1, one, one, args, 6, 0, x);
        kgcpu_predict_index(f, x, 0, &p);
        sink += p.time_us;
      }
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / calls;
      if (ns < best_ns) best_ns = ns;
      (void)best;
    }
    printf("%.1f %g\n", best_ns, sink);
    return 0;
  }
  while (scanf("%63s %d %d", name, &device, &n) == 3) { /* FUNCTION DEVICE N_ARGS ARGS... -> ln(ns) */
    static const double one[3] = {1, 1, 1};
    double x[KGCPU_N_LAUNCH];
    kgcpu_prediction p;
    for (i = 0; i < n; ++i) if (scanf("%lf", &args[i]) != 1) return 2;
    int f = kgcpu_kernel_index(name);
    if (kgcpu_features(f, 1, one, one, args, n, device, x) != KGCPU_OK ||
        kgcpu_predict_index(f, x, device, &p) != KGCPU_OK) { printf("nan\n"); continue; }
    printf("%.9g\n", (double)p.log_targets[0]);
  }
  return 0;
}
"""


def _args_names(function: str) -> list[str]:
    return [a.lower() for a in SIGNATURES[function.split("_")[0]] if a.islower() or a.startswith("ld")]


def _launches(rng: np.random.Generator, count: int) -> list[tuple[str, dict]]:
    """Random calls of the four tile functions: sizes 1..700, leading dimensions >= the rows."""
    out = []
    for i in range(count):
        fn = sorted(TILE_FUNCTIONS.values())[i % 4]
        sizes = {s: int(rng.integers(1, 700)) for s in ("m", "n", "k")}
        args = {}
        for a in _args_names(fn):
            if a.startswith("ld"):
                rows = {"gemm": {"a": "m", "b": "n", "c": "m"}, "syrk": {"a": "n", "c": "n"},
                        "trsm": {"l": "n", "b": "m"}, "potrf": {"a": "n"}}[fn.split("_")[0]][a[2:]]
                args[a] = sizes[rows] + int(rng.integers(0, 3)) * int(rng.integers(0, 64))
            else:
                args[a] = sizes[a]
        out.append((fn, args))
    return out


@pytest.fixture(scope="module")
def cpu_export(tmp_path_factory):
    root = tmp_path_factory.mktemp("kgcpu")
    xeon = next(d for d in one_core_datasets() if "intel-xeon" in d.name)
    descriptor = load_descriptor(xeon)
    export(default_checkpoint(), root / "export", descriptor, "test")
    drv = root / "driver"
    (root / "driver.c").write_text(DRIVER)
    subprocess.run(["gcc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L", f"-I{root / 'export'}", str(root / "driver.c"),
                    str(root / "export" / "kgcpu_model.c"), "-o", str(drv), "-lm"], check=True)
    return root, drv, descriptor


def _python_log_ns(calls: list[tuple[str, dict]], descriptor: dict, device_id: str) -> np.ndarray:
    """The head's ln(ns) of each call through the Python feature path (data/features.py) and torch."""
    import pandas as pd

    from kgraph.data.features import to_launch_features
    from kgraph.models.compact import from_checkpoint, to_compact_inputs

    bundle = from_checkpoint(default_checkpoint())
    rows = [{"device_id": device_id, "dims": 1, "g0": 1, "g1": 1, "g2": 1, "l0": 1, "l1": 1, "l2": 1,
             "args": json.dumps(a), "source_id": fn, "kernel_name": fn, "key": str(i), "kernel_id": fn}
            for i, (fn, a) in enumerate(calls)]
    sources = pd.DataFrame([{"source_id": fn, "source": src, "lang": lang} for fn, (src, lang, _) in bundle.sources.items()])
    feats = to_launch_features(pd.DataFrame(rows), sources, {device_id: descriptor})
    with torch.no_grad():  # in double: the exact function of the (float32) features
        return bundle.head.double()(to_compact_inputs(feats, config=bundle.head.config).double())[0][:, 0].numpy()


def test_c_export_agrees_with_python(cpu_export):
    root, drv, descriptor = cpu_export
    calls = _launches(np.random.default_rng(0), 400)
    text = "".join(f"{fn} 0 {len(a)} {' '.join(str(v) for v in a.values())}\n" for fn, a in calls)
    c = np.array([float(v) for v in subprocess.run([str(drv)], input=text, capture_output=True, text=True,
                                                    check=True).stdout.split()])
    py = _python_log_ns(calls, descriptor, descriptor["device_id"])
    assert np.isfinite(c).all() and len(c) == len(calls)
    assert np.abs(c - py).max() < 1e-4, np.abs(c - py).max()
    # the answer depends on the call (not a constant): sizes span ~6 orders of magnitude of time
    assert np.ptp(c) > 5.0


def test_export_is_prefixed_and_lists_host_first(cpu_export):
    root, _, _ = cpu_export
    h = (root / "export" / "kgcpu_model.h").read_text()
    c = (root / "export" / "kgcpu_model.c").read_text()
    import re
    assert not re.search(r"\bkgraph_|\bKGRAPH_", h + c)
    assert '"host-1core"' in c.split("kgcpu_device_ids")[1].split(";")[0].split("{")[1].split(",")[0]


def test_bench_mode_reports_a_cost_per_call(cpu_export):
    """The driver's ``bench`` mode runs and reports ns per call and the prediction (the time is a benchmark,
    quoted in docs/RUNTIME.md, not a timed test: machines are noisy); an unknown function predicts NaN."""
    _, drv, _ = cpu_export
    out = subprocess.run([str(drv), "bench", "gemm_blocked_s", "256", "2000"], capture_output=True, text=True, check=True)
    ns, predicted = map(float, out.stdout.split()[:2])
    assert math.isfinite(ns) and ns > 0 and math.isfinite(predicted) and predicted > 0
    bad = subprocess.run([str(drv), "bench", "no_such_function", "256", "10"], capture_output=True, text=True)
    assert math.isnan(float(bad.stdout.split()[1]))  # an unknown function has no prediction


@pytest.mark.skipif(starpu_available() is not None, reason=str(starpu_available()))
def test_cpu_workers_get_the_c_head_prediction(cpu_export, tmp_path):
    """Built with CPU_MODEL_DIR: every task on the CPU worker has task->predicted = the C head's
    prediction of its corpus function at the tile size (device host-1core); turned off
    (KGRAPH_STARPU_CPU_MODEL=0) the old mapping answers (a different number); results are checked by
    the workload (sampled entries of L L^T and of C)."""
    root, drv, _ = cpu_export
    main_export = tmp_path / "main"
    # a main export with the tile kernels (the shipped head; features of the OpenCL tile kernels)
    from kgraph.data.corpus import tile_kernel_files
    import sys
    proc = subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", "export", "--format", "c", "--out",
                           str(main_export), "--kernels", *map(str, tile_kernel_files())], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    binary = build(main_export, tmp_path / "build", cpu_model_dir=root / "export")
    common = dict(work=tmp_path / "runs", starpu_home=tmp_path / "home", ncpu=1, nopencl=0,
                  env={"KGRAPH_STARPU_CPU_DEVICE": "pocl-skylake-avx512-intel-xeon"})
    tile = 64
    text = "".join(f"{fn} 0 {len(_args_names(fn))} {' '.join([str(tile)] * len(_args_names(fn)))}\n"
                   for fn in TILE_FUNCTIONS.values())
    want = dict(zip(TILE_FUNCTIONS, (math.exp(float(v)) / 1e3 for v in subprocess.run(
        [str(drv)], input=text, capture_output=True, text=True, check=True).stdout.split())))
    for workload in ("cholesky", "gemm"):
        r = run_workload(binary, workload, 3, tile, "kgraph", **common)
        assert r.summary["cost_failures"] == 0 and len(r.trace) == r.summary["tasks"]
        for t in r.trace:
            assert t["arch"] == "cpu"
            assert t["predicted_us"] == pytest.approx(want[f"tile_{t['kind']}"], rel=1e-4), t
    off = run_workload(binary, "cholesky", 3, tile, "kgraph", **{**common, "env": {**common["env"],
                                                                               "KGRAPH_STARPU_CPU_MODEL": "0"}})
    assert all(t["predicted_us"] != pytest.approx(want[f"tile_{t['kind']}"], rel=1e-2) for t in off.trace)
    # the adaptive model starts from the same prediction: from an empty history, the first task of each kind to
    # be costed gets the C head's answer. Which task that is depends on the order dependencies finish (records
    # are in submission order): a later-submitted task of a kind can be costed, run and observed first. The
    # rule's calibrate-when-wide answer (a NaN cost, recorded by StarPU as 0) is turned off here: with it, the
    # misses of the kinds observed first widen an unobserved kind's prior on the same arch, and whether the one
    # gemm task of a 3-tile Cholesky is costed before or after those depends on the timing (it failed once in
    # session 15). Calibration has its own tests (test_adaptive_rule.py).
    ad = run_workload(binary, "cholesky", 3, tile, "kgraph-adaptive",
                      **{**common, "env": {**common["env"], "KGRAPH_PERFMODEL_DIR": str(tmp_path / "pm"),
                                           "KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "0"}})
    kinds = {t["kind"] for t in ad.trace}
    assert len(kinds) == 4
    for kind in kinds:
        assert any(t["predicted_us"] == pytest.approx(want[f"tile_{kind}"], rel=1e-4)
                   for t in ad.trace if t["kind"] == kind), [t for t in ad.trace if t["kind"] == kind]
    assert list((tmp_path / "pm").glob("tile_*.cpu_*.kgpm"))  # the CPU histories were written


def test_shipped_head_was_trained_on_settled_rows_only():
    """The committed head left out the rows whose repeats did not settle (CV > MAX_TRAIN_CV): the GPU host's
    contended campaign rows made it predict potrf 1024 on one host core at 151 ms, where StarPU's worker ran
    it in 21 ms; a retrain without the filter would bring that back."""
    from kgraph.app.runtime.cpu_functions import MAX_TRAIN_CV
    from kgraph.models.compact import from_checkpoint

    metrics = from_checkpoint(default_checkpoint()).metrics
    assert metrics["max_cv"] == MAX_TRAIN_CV <= 0.1
    dropped = metrics["rows_dropped_unsettled"]
    assert set(dropped) == {f"{d.parent.name}/{d.name}" for d in one_core_datasets()}
    assert dropped["c-xeon-gpu-host/cpu-c-xeon-gpu-host-1c"] > 0 and metrics["rows"] > 10_000
