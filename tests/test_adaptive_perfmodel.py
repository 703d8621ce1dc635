"""Issue 12 §5: the adaptive perfmodel of the StarPU library (kgraph/app/runtime/starpu/kgraph_adaptive.c and
kgraph_starpu_model_init_adaptive). kgraph's prediction is the prior; observed times update it in log space;
the history persists across processes; a corrupted history file is a warning and the prior, never a crash;
under StarPU (dmda, PoCL OpenCL worker) the predictions move from the prior to the measured times and a
second process starts warm from the persisted file."""
from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from kgraph.app.runtime.starpu_runner import (build_adaptive, build_adaptive_test, example_kernel, pocl_icd_dir,
                                              run_adaptive, starpu_available)

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                               reason="gcc/make not installed")
PRIOR_SIGMA, OBS_SIGMA = 1.04, 0.2
W0 = OBS_SIGMA ** 2 / PRIOR_SIGMA ** 2
HISTORY = "synthetic.opencl_0.kgpm"


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build_adaptive_test(tmp_path_factory.mktemp("adaptive") / "build")


def _run(program, pm, *args) -> tuple[dict, subprocess.CompletedProcess]:
    proc = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, timeout=60,
                          env={"KGRAPH_PERFMODEL_DIR": str(pm), "PATH": "/usr/bin:/bin"})
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith(f"test_adaptive {args[0]}")][-1].split()[2:]
    return {k: float(v) for k, v in zip(line[::2], line[1::2])}, proc


@needs_gcc
def test_first_call_is_the_prior_and_the_estimate_converges_to_the_geometric_mean(program, tmp_path):
    out, proc = _run(program, tmp_path / "pm", "converge", 1000, 100, 40)
    assert proc.returncode == 0 and out["ok"] == 1, proc.stdout + proc.stderr
    assert out["first_us"] == 100.0                          # never run: exactly kgraph's answer
    assert out["rel_err"] < 1e-3                             # 1,000 runs: their geometric mean
    assert abs(out["geomean_us"] / 40 - 1) < 0.05
    steps = {int(ln.split()[2]): float(ln.split()[4]) for ln in proc.stdout.splitlines() if " step " in ln}
    # the rule: ln est_n = (w0 ln prior + sum ln t_i) / (w0 + n); one run already weighs 1 / (1 + w0) = 96 %
    assert abs(math.log(steps[1] / 100)) > 0.8 * abs(math.log(40 / 100))
    errs = [abs(math.log(steps[n] / 40)) for n in (1, 10, 100, 1000)]
    assert errs[-1] < 0.01 and errs[-1] <= errs[0]
    assert (tmp_path / "pm" / HISTORY).is_file()             # written at exit


@needs_gcc
def test_history_persists_across_processes(program, tmp_path):
    pm = tmp_path / "pm"
    wrote, proc = _run(program, pm, "write", 100, 40, 42, 38)
    assert proc.returncode == 0 and wrote["failed_saves"] == 0
    want = math.exp((W0 * math.log(100) + sum(map(math.log, (40, 42, 38)))) / (W0 + 3))
    assert wrote["posterior_us"] == pytest.approx(want, rel=1e-12)
    read, proc = _run(program, pm, "read", 100)
    assert proc.returncode == 0 and read["warm"] == 1 and read["n"] == 3
    assert read["first_us"] == wrote["posterior_us"]          # the second process's first answer: the posterior
    text = (pm / HISTORY).read_text().splitlines()
    assert text[0] == "kgraph-perfmodel 1 synthetic opencl_0" and len(text) == 3
    assert not list(pm.glob("*.tmp.*"))                      # atomic: no temporary left behind
    wrote2, _ = _run(program, pm, "write", 100, 40)          # accumulates on top of the persisted three
    read2, _ = _run(program, pm, "read", 100)
    assert read2["n"] == 4 and read2["first_us"] == wrote2["posterior_us"]


@needs_gcc
@pytest.mark.parametrize("damage", ["garbage", "truncated", "bad_number", "binary", "empty", "directory"])
def test_a_corrupted_history_is_a_warning_and_the_prior(program, tmp_path, damage):
    pm = tmp_path / "pm"
    _run(program, pm, "write", 100, 40, 42)
    path = pm / HISTORY
    good = path.read_text()
    if damage == "garbage":
        path.write_text("this is not a history file\n")
    elif damage == "truncated":
        path.write_text(good[: len(good) - 20])
    elif damage == "bad_number":
        path.write_text(good.replace(" 2 ", " -7 ", 1))
    elif damage == "binary":
        path.write_bytes(bytes(range(256)) * 4)
    elif damage == "empty":
        path.write_text("")
    elif damage == "directory":
        path.unlink()
        path.mkdir()
    read, proc = _run(program, pm, "read", 100)
    assert proc.returncode == 0, proc.stderr
    assert read["warm"] == 0 and read["first_us"] == 100.0   # kgraph's prior
    assert "kgraph perfmodel: warning" in proc.stderr and str(path) in proc.stderr
    if damage != "directory":                                # the next save replaces the damaged file
        wrote, proc = _run(program, pm, "write", 100, 50)
        assert wrote["failed_saves"] == 0
        assert _run(program, pm, "read", 100)[0]["n"] == 1


@needs_gcc
def test_lookup_overhead_is_far_below_a_microsecond(program, tmp_path):
    out, proc = _run(program, tmp_path / "pm", "bench", 200000)
    assert proc.returncode == 0
    assert out["hash_lookup_ns"] < 1000                      # typically ~30 ns (median of 21 rounds)


@pytest.fixture(scope="module")
def starpu_build(tmp_path_factory):
    reason = starpu_available()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("adaptive_starpu")
    if pocl_icd_dir(root) is None:
        pytest.skip("no OpenCL ICD for PoCL (pyopencl with PoCL not installed)")
    from kgraph.app.cli.main import main

    assert main(["export", "--format", "c", "--out", str(root / "model"), "--only", "--kernels",
                 str(example_kernel()), "--no-progress"]) == 0
    binary, _ = build_adaptive(root / "model", root / "build")
    return root, binary


def test_starpu_adaptive_example_moves_to_the_measured_times_and_starts_warm(starpu_build):
    root, binary = starpu_build
    pm = root / "perfmodel"
    cold = run_adaptive(binary, example_kernel(), "pocl-skylake-avx512-intel-xeon", work=root / "run1",
                        perfmodel_dir=pm, rounds=3, tasks=5, n=1 << 17)
    assert cold["returncode"] == 0, cold
    assert cold["warm_start"] == 0 and cold["first_predicted_us"] == cold["prior_us"]
    assert cold["observations"] == 15 and cold["observe_failures"] == 0 and cold["correct"] == 1
    # the estimate moved from kgraph's prior to the measured times (log distance shrinks or prior was right)
    dist = lambda x: abs(math.log(x / cold["measured_us"]))  # noqa: E731
    assert dist(cold["posterior_us"]) < dist(cold["prior_us"]) or dist(cold["prior_us"]) < 0.05
    assert len(cold["rounds_trace"]) == 3
    assert (pm / "user_saxpy.opencl_0.kgpm").is_file()
    warm = run_adaptive(binary, example_kernel(), "pocl-skylake-avx512-intel-xeon", work=root / "run2",
                        perfmodel_dir=pm, rounds=1, tasks=3, n=1 << 17)
    assert warm["returncode"] == 0, warm
    assert warm["warm_start"] == 1
    assert warm["first_predicted_us"] == pytest.approx(cold["posterior_us"], rel=1e-12)
    # the cost function: a warm adaptive call (one lookup) costs far less than a microsecond more than static
    assert warm["cost_ns_adaptive"] - warm["cost_ns_static"] < 1000
