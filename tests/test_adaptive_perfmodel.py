"""Issue 12 §5: the adaptive perfmodel of the StarPU library (kgraph/app/runtime/starpu/kgraph_adaptive.c and
kgraph_starpu_model_init_adaptive). kgraph's prediction is the prior; observed times update it in log space;
the history persists across processes; a corrupted history file is a warning and the prior, never a crash;
under StarPU (dmda, PoCL OpenCL worker) the predictions move from the prior to the measured times and a
second process starts warm from the persisted file. Each prediction's own 80% interval sets its prior's weight
(sigma = (ln hi - ln lo) / (2 z_0.9)), persisted with the entry; version-1 history lines still load with the
global sigma; KGRAPH_PERFMODEL_CALIBRATE_WIDTH (10 by default; 0: off) answers NAN for a wide, cold launch until it
has KGRAPH_PERFMODEL_CALIBRATE_RUNS observations."""
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
Z90 = 1.2815515655446004                                     # 0.9 quantile of N(0, 1)


def _posterior(prior, times, w0=None, sigma=math.nan):
    """The rule (version 3: kgraph.app.runtime.adaptive_rule, which tests/test_adaptive_rule.py checks against C);
    w0 (version 2's prior weight) only names the sigma: s0 = OBS_SIGMA / sqrt(w0)."""
    from kgraph.app.runtime.adaptive_rule import AdaptiveRule
    if w0 is not None and w0 != W0:
        sigma = OBS_SIGMA / math.sqrt(w0)
    rule = AdaptiveRule()
    rule.series("s", "a")
    first = rule.estimate("s", 0, prior, sigma)
    for t in times:
        rule.observe("s", 0, t)
    return rule.estimate("s", 0, prior, sigma) if times else first


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build_adaptive_test(tmp_path_factory.mktemp("adaptive") / "build")


def _run(program, pm, *args, env=None) -> tuple[dict, subprocess.CompletedProcess]:
    proc = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, timeout=60,
                          env={"KGRAPH_PERFMODEL_DIR": str(pm), "PATH": "/usr/bin:/bin", **(env or {})})
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
    # one run already moves the estimate most of the way (version 3: the prior's weight shrinks with its miss)
    assert abs(math.log(steps[1] / 100)) > 0.8 * abs(math.log(40 / 100))
    errs = [abs(math.log(steps[n] / 40)) for n in (1, 10, 100, 1000)]
    assert errs[-1] < 0.01 and errs[-1] <= errs[0]
    assert (tmp_path / "pm" / HISTORY).is_file()             # written at exit


@needs_gcc
def test_history_persists_across_processes(program, tmp_path):
    pm = tmp_path / "pm"
    wrote, proc = _run(program, pm, "write", 100, 40, 42, 38)
    assert proc.returncode == 0 and wrote["failed_saves"] == 0
    want = _posterior(100, (40, 42, 38))
    assert wrote["posterior_us"] == pytest.approx(want, rel=1e-12)
    read, proc = _run(program, pm, "read", 100)
    assert proc.returncode == 0 and read["warm"] == 1 and read["n"] == 3
    assert read["first_us"] == wrote["posterior_us"]          # the second process's first answer: the posterior
    text = (pm / HISTORY).read_text().splitlines()
    assert text[0] == "kgraph-perfmodel 2 synthetic opencl_0" and len(text) == 3
    assert text[2].split()[6] == "nan"                       # no interval given: the global sigma
    assert not list(pm.glob("*.tmp.*"))                      # atomic: no temporary left behind
    wrote2, _ = _run(program, pm, "write", 100, 40)          # accumulates on top of the persisted three
    read2, _ = _run(program, pm, "read", 100)
    assert read2["n"] == 4 and read2["first_us"] == wrote2["posterior_us"]


@needs_gcc
def test_the_prior_weight_comes_from_the_entry_s_own_interval(program, tmp_path):
    pm = tmp_path / "pm"
    out, proc = _run(program, pm, "sigma", 100, 50, 200, 40, 42)   # 80% interval 50..200 µs: ratio 4
    assert proc.returncode == 0 and out["failed_saves"] == 0, proc.stderr
    sigma = (math.log(200) - math.log(50)) / (2 * Z90)               # 0.5409, by hand
    w0 = OBS_SIGMA ** 2 / sigma ** 2                                 # 0.1367 (the global sigma: 0.037)
    assert out["interval_sigma"] == pytest.approx(sigma, rel=1e-12) and out["prior_sigma"] == out["interval_sigma"]
    assert out["w0"] == pytest.approx(w0, rel=1e-12)
    assert out["first_us"] == 100.0
    assert out["posterior_us"] == pytest.approx(_posterior(100, (40, 42), w0), rel=1e-12)
    assert out["posterior_us"] != _posterior(100, (40, 42), W0)        # not the global sigma
    # persisted with the entry: a new process uses the same sigma and starts from the same posterior
    line = (pm / HISTORY).read_text().splitlines()[2].split()
    assert len(line) == 7 and float(line[6]) == pytest.approx(sigma, rel=1e-15)
    read, _ = _run(program, pm, "read", 100)
    assert read["warm"] == 1 and read["first_us"] == out["posterior_us"]
    assert read["prior_sigma"] == pytest.approx(sigma, rel=1e-15)
    # a wider interval weighs the prior less; no interval (NaN ends): the global sigma
    wide, _ = _run(program, tmp_path / "wide", "sigma", 100, 10, 1000, 40, 42)
    assert wide["w0"] == pytest.approx(OBS_SIGMA ** 2 / (math.log(100) / (2 * Z90)) ** 2, rel=1e-12)
    assert abs(math.log(wide["posterior_us"] / 41)) <= abs(math.log(out["posterior_us"] / 41)) + 1e-12
    none, _ = _run(program, tmp_path / "none", "sigma", 100, "nan", "nan", 40, 42)
    assert math.isnan(none["interval_sigma"]) and none["prior_sigma"] == PRIOR_SIGMA
    assert none["posterior_us"] == pytest.approx(_posterior(100, (40, 42), W0), rel=1e-12)


@needs_gcc
def test_a_version_1_history_still_loads_with_the_global_sigma(program, tmp_path):
    pm = tmp_path / "pm"
    _run(program, pm, "write", 100, 40, 42, 38)
    v2 = (pm / HISTORY).read_text().splitlines()
    key, n, mean_log, m2, prior_log, post = v2[2].split()[:6]
    # what kgraph-perfmodel 1 wrote: no prior_sigma column
    (pm / HISTORY).write_text("kgraph-perfmodel 1 synthetic opencl_0\n"
                              "# key n mean_ln_us m2_ln prior_ln_us posterior_us (prior_sigma 1.04 obs_sigma 0.2)\n"
                              f"{key} {n} {mean_log} {m2} {prior_log} {post}\n")
    read, proc = _run(program, pm, "read", 100)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    assert read["warm"] == 1 and read["n"] == 3 and read["prior_sigma"] == PRIOR_SIGMA
    assert read["first_us"] == pytest.approx(_posterior(100, (40, 42, 38), W0), rel=1e-12)
    wrote, _ = _run(program, pm, "write", 100, 40)           # rewritten as version 2, the entry kept
    text = (pm / HISTORY).read_text().splitlines()
    assert text[0].startswith("kgraph-perfmodel 2 ") and text[2].split()[1] == "4" and text[2].split()[6] == "nan"
    # a version-2 line of 6 fields (truncated) or 8 fields is damage
    for bad in (text[2] + " 7", " ".join(text[2].split()[:6])):
        (pm / HISTORY).write_text("\n".join(text[:2] + [bad]) + "\n")
        read, proc = _run(program, pm, "read", 100)
        assert read["warm"] == 0 and "corrupted" in proc.stderr


@needs_gcc
@pytest.mark.parametrize("env,lo,hi,nans", [
    ({}, 10, 1000, 1),                                                          # on by default: width 10
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "0"}, 10, 1000, 0),                   # 0: off
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "10"}, 10, 1000, 1),                  # ratio 100 > 10: wide
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "10", "KGRAPH_PERFMODEL_CALIBRATE_RUNS": "3"}, 10, 1000, 3),
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "10"}, 50, 200, 0),                   # ratio 4: trusted
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "10"}, "nan", "nan", 0),              # no interval: trusted
    ({"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "0.5"}, 10, 1000, 0),                 # not a ratio > 1: off, warned
])
def test_calibrate_when_wide_answers_nan_for_the_first_runs_then_the_posterior(program, tmp_path, env, lo, hi, nans):
    times = (40, 42, 38, 41)
    out, proc = _run(program, tmp_path / "pm", "calibrate", 100, lo, hi, *times, env=env)
    assert proc.returncode == 0, proc.stderr
    answers = [float(ln.split()[4]) for ln in proc.stdout.splitlines() if " step " in ln]
    assert len(answers) == len(times) + 1 and out["nan_answers"] == nans and out["nan_lookups"] == nans
    assert all(math.isnan(a) for a in answers[:nans]) and not any(math.isnan(a) for a in answers[nans:])
    sigma = (math.log(hi / lo) / (2 * Z90)) if lo != "nan" else math.nan
    for k, a in enumerate(answers[nans:], start=nans):      # after calibration: the Bayesian posterior as usual
        assert a == pytest.approx(_posterior(100, times[:k], sigma=sigma) if k else 100.0, rel=1e-12)
    if env.get("KGRAPH_PERFMODEL_CALIBRATE_WIDTH") == "0.5":
        assert "not a ratio > 1" in proc.stderr


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
    # the export has the interval head: the entry's prior sigma is its interval's, persisted (7th column)
    line = (pm / "user_saxpy.opencl_0.kgpm").read_text().splitlines()[2].split()
    assert len(line) == 7 and 0 < float(line[6]) < 3 and float(line[6]) != PRIOR_SIGMA


def test_starpu_calibrate_when_wide_leaves_the_first_task_to_starpu(starpu_build):
    root, binary = starpu_build
    pm = root / "perfmodel-calibrate"
    # a ratio every interval exceeds: the first task of the launch is StarPU's to calibrate (NAN expected length)
    run = run_adaptive(binary, example_kernel(), "pocl-skylake-avx512-intel-xeon", work=root / "run3",
                       perfmodel_dir=pm, rounds=2, tasks=3, n=1 << 16,
                       env={"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": "1.0001"})
    assert run["returncode"] == 0, run
    assert not run["first_predicted_us"] > 0 and run["correct"] == 1   # NAN cost: dmda leaves predicted at 0
    assert run["observations"] == 6 and run["observe_failures"] == 0
    assert run["cost_calibrations"] >= 1 and math.isfinite(run["posterior_us"])
    assert (pm / "user_saxpy.opencl_0.kgpm").is_file()
