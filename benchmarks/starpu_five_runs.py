"""StarPU, issue 12 §6: each model over consecutive runs from a cold start (makespan per run index).

    python -m benchmarks.starpu_five_runs --export DIR [--sizes 4x64 6x96] [--workloads cholesky gemm]
        [--models kgraph kgraph-adaptive history regression eager] [--runs 5] [--ncpu 1]
        [--opencl cpu|gpu|none] [--cpu-device ID] [--opencl-device ID] [--budget-s S] [--repeats R]
        [--out-dir DIR] [--tag T]
    python -m benchmarks.starpu_five_runs --describe-cpu-core DIR [--core-id pocl-xeon-1core]

Per workload and size (smallest first), every model starts cold and keeps its own state over ``--runs``
runs: kgraph (static: the exported head, no state), kgraph-adaptive (an empty KGRAPH_PERFMODEL_DIR),
history and regression (StarPU's STARPU_HISTORY_BASED / a·n^b, an empty STARPU_HOME holding only the bus
calibration, STARPU_CALIBRATE=1 on every run: they learn from run to run as StarPU users' models do),
eager (no model). Run indices are interleaved (run 1 of every model, then run 2, ...) so load drift hits
all models alike. StarPU's a·n^b needs two sizes (its regression is valid only when min size < 0.9 x max
size), so at one size it never predicts; ``--regression-across-sizes`` keeps its state over the sizes of
a workload instead (cold only at the first size). ``--opencl none``: CPU workers only.

``--repeats R`` runs the whole sequence R times, each repeat from its own cold state (the first repeat over
every workload before the second starts, so a budget cut keeps whole repeats): one run of a model at one
run index is a single noisy sample (single runs of one model differ by 20-50%), so the tables and goals
use the median over the repeats at each run index, and the goals add the share of repeats in which
kgraph-adaptive was at most history at that run index.

Writes into ``--out-dir`` after every run (a run cut short keeps what it finished): five_runs-TAG.csv (one
row per run), five_runs-TAG.md (makespan per run index, per-task error, goals), five_runs-TAG.png and
times-TAG.csv (every measured task: kind,tile,device,time_us for ``python -m kgraph.app.scheduling.run``).
"Calibrated history" = the history model's last run (after runs-1 calibrating runs).

``--describe-cpu-core DIR`` measures the PoCL CPU device restricted to one thread
(POCL_MAX_PTHREAD_COUNT=1, POCL_CPU_MAX_CU_COUNT=1: one compute unit) with ``kgraph device describe`` and
saves it as DIR/device.json under the id ``--core-id``: the descriptor StarPU's CPU workers (one core each)
are mapped to (``kgraph export --device DIR``, KGRAPH_STARPU_CPU_DEVICE).
"""
from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = ("kgraph", "kgraph-adaptive", "history", "regression", "eager")
FIELDS = ("workload", "size", "model", "run", "repeat", "status", "makespan_ms", "mean_abs_log_error", "tasks",
          "predicted_tasks", "uncalibrated_tasks", "on_cpu", "on_opencl", "cost_calls", "cost_ns_per_call", "wall_s")


def parse_size(text: str) -> tuple[int, int]:
    tiles, _, tile = text.partition("x")
    return int(tiles), int(tile)


def describe_cpu_core(out: Path, core_id: str) -> Path:
    """One-thread PoCL descriptor (see the module's doc); PoCL is pyopencl's, through its own ICD file."""
    import pyopencl

    root = Path(pyopencl.__file__).parent
    libs = sorted((root.parent / "pyopencl.libs").glob("libpocl*.so*")) + sorted((root / ".libs").glob("libpocl*.so*"))
    env = dict(os.environ, POCL_MAX_PTHREAD_COUNT="1", POCL_CPU_MAX_CU_COUNT="1")
    if libs:  # the host's OCL_ICD_VENDORS may list only the GPU
        icd = Path(tempfile.mkdtemp(prefix="kgraph_pocl_icd"))
        (icd / "pocl.icd").write_text(str(libs[0].resolve()) + "\n")
        env["OCL_ICD_VENDORS"] = str(icd)
    subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", "device", "describe", "--device", "pocl",
                    "--out", str(out)], env=env, check=True, timeout=300)
    path = out / "device.json"
    d = json.loads(path.read_text())
    if d.get("compute_units") != 1:  # an OpenCL CPU runtime that ignores PoCL's variables: not one core
        path.unlink()
        raise SystemExit(f"{d.get('name')} ({d.get('platform')}) reports {d.get('compute_units')} compute units "
                         "under POCL_MAX_PTHREAD_COUNT=1 / POCL_CPU_MAX_CU_COUNT=1: no one-core descriptor")
    d["device_id"] = core_id
    path.write_text(json.dumps(d, indent=2, sort_keys=True) + "\n")
    print(f"{path}: {core_id}, {d.get('compute_units')} compute unit(s), fp32 {d['roofline']['fp32_gflops']} GFLOP/s, "
          f"copy {d['roofline']['copy_bw_gbs']} GB/s")
    return path


def one_run(binary, model, workload, tiles, tile, state: Path, base_home: Path, args, env, timeout) -> dict:
    from kgraph.app.runtime.starpu_runner import run_workload

    home = state / "home"
    if not home.exists():
        shutil.copytree(base_home, home)  # bus calibration only: no task models (cold)
    run_env = dict(env)
    starpu_model, sched = {"eager": ("none", "eager")}.get(model, (model, "dmda"))
    if model == "kgraph-adaptive":
        run_env["KGRAPH_PERFMODEL_DIR"] = str(state / "kgpm")
    if model in ("history", "regression"):
        run_env.update(STARPU_CALIBRATE="1", STARPU_CALIBRATE_MINIMUM=str(args.calibrate_minimum))
    r = run_workload(binary, workload, tiles, tile, starpu_model, sched=sched, work=state / "runs", starpu_home=home,
                     ncpu=args.ncpu, nopencl=0 if args.opencl == "none" else 1, env=run_env, timeout=timeout)
    s = r.summary
    on_ocl = sum(t["arch"] == "opencl" for t in r.trace)
    return {"status": "ok", "makespan_ms": s["makespan_ms"], "mean_abs_log_error": s["mean_abs_log_error"],
            "tasks": int(s["tasks"]), "predicted_tasks": int(s["predicted_tasks"]),
            "uncalibrated_tasks": "" if model == "eager" else int(s["tasks"] - s["predicted_tasks"]),
            "on_cpu": len(r.trace) - on_ocl, "on_opencl": on_ocl, "cost_calls": int(s["cost_calls"]),
            "cost_ns_per_call": s["cost_ns_per_call"], "trace": r.trace}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--export")
    p.add_argument("--describe-cpu-core", metavar="DIR")
    p.add_argument("--core-id", default="pocl-xeon-1core")
    p.add_argument("--sizes", nargs="+", default=["4x64", "6x96", "8x128"])
    p.add_argument("--workloads", nargs="+", default=["cholesky", "gemm"])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--ncpu", type=int, default=1)
    p.add_argument("--opencl", choices=("cpu", "gpu", "none"), default="cpu",
                   help="one OpenCL worker on a CPU device (PoCL) or on the host's GPU, or none (CPU workers only)")
    p.add_argument("--cpu-device", default=None, help="KGRAPH_STARPU_CPU_DEVICE (e.g. the --core-id descriptor)")
    p.add_argument("--opencl-device", default=None, help="KGRAPH_STARPU_OPENCL_DEVICE")
    p.add_argument("--calibrate-minimum", type=int, default=3, help="STARPU_CALIBRATE_MINIMUM for history/regression")
    p.add_argument("--regression-across-sizes", action="store_true")
    p.add_argument("--budget-s", type=float, default=math.inf, help="no run starts after this many seconds")
    p.add_argument("--repeats", type=int, default=1, help="the whole sequence this many times, each from a cold start")
    p.add_argument("--out-dir", default="out/starpu_five_runs")
    p.add_argument("--tag", default="run")
    args = p.parse_args(argv)
    if args.describe_cpu_core:
        describe_cpu_core(Path(args.describe_cpu_core), args.core_id)
        return 0
    if not args.export:
        p.error("--export is required (or --describe-cpu-core)")
    from kgraph.app.runtime.starpu_runner import build, run_workload
    from kgraph.errors import MeasurementError

    started = time.monotonic()
    env = {k: v for k, v in (("KGRAPH_STARPU_CPU_DEVICE", args.cpu_device),
                             ("KGRAPH_STARPU_OPENCL_DEVICE", args.opencl_device)) if v}
    if args.opencl == "gpu":
        env.update(STARPU_OPENCL_ON_CPUS="0", STARPU_OPENCL_ONLY_ON_CPUS="0")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    times: list[tuple] = []
    sizes = sorted(map(parse_size, args.sizes), key=lambda s: (s[0] * s[1], s[1]))  # smallest problem first
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        binary = build(args.export, tmp / "build")
        base = tmp / "base-home"  # bus calibration and kernel caches, outside any measured run
        run_workload(binary, args.workloads[0], *sizes[0], "none", sched="eager", work=tmp / "warm", starpu_home=base,
                     ncpu=args.ncpu, nopencl=0 if args.opencl == "none" else 1, env=env)
        print(f"setup {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        for repeat, (tiles, tile), workload, run, model in itertools.product(
                range(1, args.repeats + 1), sizes, args.workloads, range(1, args.runs + 1), args.models):
                left = args.budget_s - (time.monotonic() - started)
                if left <= 0:
                    print(f"budget of {args.budget_s:g} s spent: stopped", file=sys.stderr, flush=True)
                    write_outputs(rows, times, args, out, stopped=True)
                    return 0
                shared = model == "regression" and args.regression_across_sizes
                state = tmp / "state" / f"r{repeat}" / f"{model}-{workload}" / (
                    "all" if shared else f"{tiles}x{tile}")
                row = {"workload": workload, "size": f"{tiles}x{tile}", "model": model, "run": run,
                       "repeat": repeat}
                t0 = time.monotonic()
                try:
                    r = one_run(binary, model, workload, tiles, tile, state, base, args, env,
                                timeout=min(300.0, max(30.0, left + 30)))
                except (MeasurementError, subprocess.TimeoutExpired, OSError) as err:
                    print(f"{workload} {tiles}x{tile} {model} run {run} failed: {err}", file=sys.stderr,
                          flush=True)
                    r = {"status": "failed"}
                times += [(t["kind"], t["tile"], "gpu" if t["arch"] == "opencl" else "cpu", t["measured_us"])
                          for t in r.pop("trace", [])]
                rows.append({**row, **r, "wall_s": round(time.monotonic() - t0, 2)})
                print(" ".join(f"{k} {rows[-1].get(k, '')}" for k in FIELDS), file=sys.stderr, flush=True)
                write_outputs(rows, times, args, out, plot=run == args.runs and model == args.models[-1])
    return 0


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def by_run(rows: list[dict]) -> dict[tuple, dict[str, dict[int, list[float]]]]:
    """(workload, size) -> model -> run index -> the makespans of its repeats (ok runs only)."""
    by: dict[tuple, dict[str, dict[int, list[float]]]] = {}
    for r in rows:
        if r.get("status", "ok") == "ok":
            by.setdefault((r["workload"], r["size"]), {}).setdefault(r["model"], {}).setdefault(
                int(r["run"]), []).append(_num(r.get("makespan_ms")))
    return by


def goals(rows: list[dict]) -> list[str]:
    """Issue 12 §6's goals per (workload, size), judged on the runs present (history's last run = calibrated),
    on the median over the repeats at each run index; with repeats, also the share of (repeat, run) pairs in
    which adaptive was at most history."""
    lines = ["| workload | size | static run 1 / calibrated history (≤ 1.1) | adaptive ≤ history at every run | "
             "static, adaptive < cold history and eager at every run |", "|---|---|---|---|---|"]
    pair = {(r["workload"], r["size"], r["model"], int(r["run"]), int(r.get("repeat") or 1)): _num(r["makespan_ms"])
            for r in rows if r.get("status", "ok") == "ok"}
    for (w, size), runs in by_run(rows).items():
        m = {model: {i: statistics.median(v) for i, v in rs.items()} for model, rs in runs.items()}
        hist, stat, ada, eag = (m.get(k, {}) for k in ("history", "kgraph", "kgraph-adaptive", "eager"))
        g1 = "-"
        if 1 in stat and hist:
            ratio = stat[1] / hist[max(hist)]
            g1 = f"{ratio:.2f} (history run {max(hist)}) {'yes' if ratio <= 1.1 else 'NO'}"
        pairs = [(ada[i], hist[i]) for i in ada if i in hist]
        g2 = "-" if not pairs else ("yes" if all(a <= h for a, h in pairs) else
                                    f"NO ({sum(a > h for a, h in pairs)} of {len(pairs)} runs)")
        both = [(v, pair[w, size, "history", i, k]) for (ww, ss, mm, i, k), v in pair.items()
                if (ww, ss, mm) == (w, size, "kgraph-adaptive") and (w, size, "history", i, k) in pair]
        if pairs and max(len(v) for v in runs.get("kgraph-adaptive", {}).values()) > 1:
            g2 += (f"; medians' ratio {min(a / h for a, h in pairs):.2f}–{max(a / h for a, h in pairs):.2f}; "
                   f"≤ in {sum(a <= h for a, h in both)} of {len(both)} single runs")
        checks = [(v, hist[1]) for k in (stat, ada) for v in k.values() if 1 in hist] + \
                 [(v, eag[i]) for k in (stat, ada) for i, v in k.items() if i in eag]
        g3 = "-" if not checks else ("yes" if all(a < b for a, b in checks) else
                                     f"NO ({sum(not a < b for a, b in checks)} of {len(checks)} comparisons)")
        lines.append(f"| {w} | {size} | {g1} | {g2} | {g3} |")
    return lines


def write_outputs(rows: list[dict], times: list[tuple], args, out: Path, stopped: bool = False, plot: bool = False):
    tag = args.tag
    reps = max((int(r.get("repeat") or 1) for r in rows), default=1)
    with open(out / f"five_runs-{tag}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    (out / f"times-{tag}.csv").write_text("kind,tile,device,time_us\n" + "".join(f"{k},{t},{d},{v}\n" for k, t, d, v in times))
    workers = f"{args.ncpu} CPU worker(s)" + ("" if args.opencl == "none" else f" + 1 OpenCL worker ({args.opencl})")
    lines = [f"# StarPU, consecutive runs from a cold start ({tag})", "",
             f"{workers}; dmda (eager for eager); CPU workers " + (
                 f"predicted by the C-function head ({os.environ['KGRAPH_STARPU_CPU_MODEL_DIR']})"
                 if os.environ.get("KGRAPH_STARPU_CPU_MODEL_DIR") and os.environ.get("KGRAPH_STARPU_CPU_MODEL") != "0"
                 else f"mapped to {args.cpu_device or 'the first device'}") + ", "
             f"OpenCL to {args.opencl_device or 'the first device'}; history/regression: STARPU_CALIBRATE=1, "
             f"STARPU_CALIBRATE_MINIMUM={args.calibrate_minimum}"
             + ("; regression state shared over the sizes" if args.regression_across_sizes else "") +
             ". Cell: makespan ms (mean |ln(pred/meas)| of the tasks with a prediction; tasks without one)"
             + ("; with repeats, the medians over the repeats and [the makespans' range]" if reps > 1 else "") + ".", ""]
    if stopped:
        lines += ["**Stopped by the budget**: the tables hold the runs that finished.", ""]
    models = [m for m in MODELS if any(r["model"] == m for r in rows)]
    for key in dict.fromkeys((r["workload"], r["size"]) for r in rows):
        sub = [r for r in rows if (r["workload"], r["size"]) == key]
        lines += [f"## {key[0]} {key[1]}", "", "| run | " + " | ".join(models) + " |", "|---" * (len(models) + 1) + "|"]
        for run in sorted({r["run"] for r in sub}):
            cells = []
            for m in models:
                rs = [r for r in sub if r["model"] == m and r["run"] == run]
                ok = [r for r in rs if r["status"] == "ok"]
                if not ok:
                    cells.append("failed" if rs else "-")
                    continue
                span = [_num(r["makespan_ms"]) for r in ok]
                e = statistics.median(_num(r["mean_abs_log_error"]) for r in ok)
                err = "-" if math.isnan(e) else f"{e:.2f}"
                unc = ok[0]["uncalibrated_tasks"] if len(ok) == 1 else statistics.median(
                    _num(r["uncalibrated_tasks"]) for r in ok)
                cells.append(f"{statistics.median(span):.1f}" + (f" [{min(span):.1f}–{max(span):.1f}]" if len(ok) > 1 else "")
                             + (f" ({err}; {unc:g})" if m != "eager" and len(ok) > 1 else
                                f" ({err}; {unc})" if m != "eager" else "")
                             + (f" {len(rs) - len(ok)} failed" if len(rs) > len(ok) else ""))
            lines.append(f"| {run} | " + " | ".join(cells) + " |")
        lines += ["", "tasks on OpenCL / CPU, run 1 → last (first repeat): " + "; ".join(
            f"{m} " + " ".join(f"{r['on_opencl']}/{r['on_cpu']}" for r in sub if r["model"] == m and r["status"] == "ok"
                               and int(r.get("repeat") or 1) == 1)
            for m in models), ""]
    lines += ["## Goals (issue 12 §6)", ""] + goals(rows) + ["", "Cost function (kgraph's, inside StarPU): median over "
              "runs of the run's mean ns per call: " + "; ".join(
                  f"{m} {statistics.median(v):.0f} ns" for m in ("kgraph", "kgraph-adaptive")
                  if (v := [_num(r['cost_ns_per_call']) for r in rows if r['model'] == m and r['status'] == 'ok'
                            and _num(r['cost_calls']) > 0])) + " (goal ≤ 1000 ns)."]
    (out / f"five_runs-{tag}.md").write_text("\n".join(lines) + "\n")
    if plot and rows:
        plot_makespans(rows, out / f"five_runs-{tag}.png", tag)


def plot_makespans(rows: list[dict], path: Path, tag: str) -> None:
    try:
        import matplotlib
    except ImportError:  # a bare host: the CSV and the markdown table are written all the same
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = by_run(rows)  # median over the repeats at each run index
    fig, axes = plt.subplots(1, len(by), figsize=(4 * len(by), 3.4), squeeze=False)
    for ax, key in zip(axes[0], by):
        for m in MODELS:
            pts = sorted((i, statistics.median(v)) for i, v in by[key].get(m, {}).items())
            if pts:
                ax.plot(*zip(*pts), marker="o", label=m)
        ax.set(title=f"{key[0]} {key[1]}", xlabel="run index", ylabel="makespan ms", yscale="log")
        ax.set_xticks(sorted({r["run"] for r in rows}))
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"StarPU makespan per run from a cold start ({tag})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
