"""StarPU in one run: kgraph model vs history (calibrated / cold) vs regression vs eager.

    python -m benchmarks.runtime_starpu --export DIR [--sizes 4x64 6x128] [--ncpu 1] [--out report.md]
        [--time-table times.csv]

``--export``: a C export (``kgraph export --format c --kernels kgraph/app/runtime/starpu/kernels/*.cl``)
whose code table holds tile_potrf/trsm/syrk/gemm and whose device table holds the ids given by
``--cpu-device`` / ``--opencl-device``. Each configuration runs tiled Cholesky and tiled GEMM at
every size under dmda (eager for "none") on ``--ncpu`` CPU workers + one OpenCL (PoCL) worker.
History "calibrated" runs ``--calibration-runs`` times with STARPU_CALIBRATE=1 first (its own
STARPU_HOME); "cold" starts from an empty model directory. ``--time-table`` writes the measured
per-task times (kind, tile, device = cpu|gpu, time_us; the OpenCL worker plays "gpu") for
``python -m kgraph.app.scheduling.run``. ``--opencl gpu`` lets StarPU take the host's OpenCL GPU
(STARPU_OPENCL_ON_CPUS=0) instead of a CPU OpenCL device (PoCL, the default ``cpu``); the report and
time table are rewritten after every (workload, size), so a run cut short keeps what it finished.

    python -m benchmarks.runtime_starpu --export DIR --adaptive-calibrate WIDTH [--sizes 6x64]
        [--sequence-runs 5] [--repeats 3] [--calibrate-runs 1] [--out report.md]

instead measures the adaptive perfmodel's "calibrate when wide" option (docs/RUNTIME.md, "Adaptive
perfmodel"): per repeat, two sequences of ``--sequence-runs`` runs of the first workload at the first size
(model kgraph-adaptive, dmda), each from an empty KGRAPH_PERFMODEL_DIR (cold start, later runs warm from the
histories): calibration off, and KGRAPH_PERFMODEL_CALIBRATE_WIDTH=WIDTH (KGRAPH_PERFMODEL_CALIBRATE_RUNS=
``--calibrate-runs``). Off and on alternate per repeat. The table: per run index, median makespan and
per-task error mean |ln(pred/meas)| (tasks with a prediction) and the tasks left to StarPU's calibration.
"""
from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgraph.errors import MeasurementError
from kgraph.app.runtime.starpu_runner import build, run_workload

CONFIGS = ("kgraph", "history-calibrated", "history-cold", "regression", "eager")


def parse_size(text: str) -> tuple[int, int]:
    tiles, _, tile = text.partition("x")
    return int(tiles), int(tile)


def run_config(binary, config, workload, tiles, tile, work: Path, homes: Path, args, env) -> dict:
    common = dict(work=work, ncpu=args.ncpu, nopencl=1, env=env)
    if config == "eager":
        return run_workload(binary, workload, tiles, tile, "none", sched="eager", starpu_home=homes / "base", **common)
    if config == "kgraph":
        return run_workload(binary, workload, tiles, tile, "kgraph", starpu_home=homes / "base", **common)
    model = "regression" if config == "regression" else "history"
    env = {**env, "STARPU_CALIBRATE_MINIMUM": str(args.calibrate_minimum)}
    common["env"] = env
    home = homes / f"{config}-{workload}-{tiles}-{tile}"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(homes / "base", home)  # bus calibration only, no task models: cold
    if config != "history-cold":
        cal_sizes = [(tiles, tile)] if model == "history" else [(tiles, max(8, tile // 2)), (tiles, tile * 2)]
        for t, b in cal_sizes * args.calibration_runs:
            run_workload(binary, workload, t, b, model, starpu_home=home, env={**env, "STARPU_CALIBRATE": "1"},
                         work=work, ncpu=args.ncpu, nopencl=1)
    return run_workload(binary, workload, tiles, tile, model, starpu_home=home, **common)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--export", required=True)
    p.add_argument("--sizes", nargs="+", default=["4x64", "6x96", "8x128"])
    p.add_argument("--workloads", nargs="+", default=["cholesky", "gemm"])
    p.add_argument("--ncpu", type=int, default=1)
    p.add_argument("--cpu-device", default=None)
    p.add_argument("--opencl-device", default=None)
    p.add_argument("--calibration-runs", type=int, default=3)
    p.add_argument("--calibrate-minimum", type=int, default=3,
                   help="STARPU_CALIBRATE_MINIMUM: executions before a history entry is trusted")
    p.add_argument("--opencl", choices=("cpu", "gpu"), default="cpu",
                   help="OpenCL worker on a CPU device (PoCL) or on the host's OpenCL GPU")
    p.add_argument("--out", default=None)
    p.add_argument("--time-table", default=None)
    p.add_argument("--adaptive-calibrate", type=float, default=None, metavar="WIDTH",
                   help="measure KGRAPH_PERFMODEL_CALIBRATE_WIDTH=WIDTH against off (see the module's doc)")
    p.add_argument("--sequence-runs", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--calibrate-runs", type=int, default=1, help="KGRAPH_PERFMODEL_CALIBRATE_RUNS")
    args = p.parse_args(argv)
    env = {k: v for k, v in (("KGRAPH_STARPU_CPU_DEVICE", args.cpu_device),
                             ("KGRAPH_STARPU_OPENCL_DEVICE", args.opencl_device)) if v}
    if args.opencl == "gpu":
        env.update(STARPU_OPENCL_ON_CPUS="0", STARPU_OPENCL_ONLY_ON_CPUS="0")
    if args.adaptive_calibrate is not None:
        return calibrate_study(args, env)
    rows, table = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        binary = build(args.export, tmp / "build")
        homes = tmp / "homes"
        for tiles, tile in map(parse_size, args.sizes):  # size-major: a run cut short loses the largest sizes
            for workload in args.workloads:
                for config in CONFIGS:
                    started = time.monotonic()
                    try:
                        r = run_config(binary, config, workload, tiles, tile, tmp / "runs", homes, args, env)
                    except (MeasurementError, subprocess.TimeoutExpired, OSError) as err:  # keep the other rows
                        print(f"{workload} {tiles}x{tile} {config} failed: {err}", file=sys.stderr, flush=True)
                        rows.append((workload, f"{tiles}x{tile}", f"{config} (failed)", math.nan, math.nan, 0, 0, 0,
                                     math.nan))
                        continue
                    print(f"{workload} {tiles}x{tile} {config}: {time.monotonic() - started:.1f} s (with calibration)",
                          file=sys.stderr, flush=True)
                    s = r.summary
                    on_ocl = sum(t["arch"] == "opencl" for t in r.trace)
                    rows.append((workload, f"{tiles}x{tile}", config, s["makespan_ms"], s["mean_abs_log_error"],
                                 s["predicted_tasks"], int(s["tasks"]), on_ocl, s["cost_ns_per_call"]))
                    if config == "eager":
                        table += [(t["kind"], t["tile"], "gpu" if t["arch"] == "opencl" else "cpu", t["measured_us"])
                                  for t in r.trace]
                write_report(rows, table, args)
    return 0


def calibrate_study(args, env: dict) -> int:
    """Calibration off vs on over cold-start sequences of kgraph-adaptive runs (see the module's doc)."""
    import statistics

    tiles, tile = parse_size(args.sizes[0])
    workload = args.workloads[0]
    modes = {"off": {}, "on": {"KGRAPH_PERFMODEL_CALIBRATE_WIDTH": str(args.adaptive_calibrate),
                               "KGRAPH_PERFMODEL_CALIBRATE_RUNS": str(args.calibrate_runs)}}
    runs: dict[tuple[str, int], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        binary = build(args.export, tmp / "build")
        for rep in range(args.repeats):
            for mode in (("off", "on") if rep % 2 == 0 else ("on", "off")):
                pm = tmp / f"pm-{mode}-{rep}"
                for i in range(args.sequence_runs):
                    r = run_workload(binary, workload, tiles, tile, "kgraph-adaptive", work=tmp / "runs",
                                     starpu_home=tmp / "home", ncpu=args.ncpu, nopencl=1,
                                     env={**env, **modes[mode], "KGRAPH_PERFMODEL_DIR": str(pm)})
                    s = r.summary
                    row = {"makespan_ms": s["makespan_ms"], "err": s["mean_abs_log_error"],
                           "predicted": s["predicted_tasks"], "tasks": s["tasks"],
                           "calibrations": s.get("cost_calibrations", 0.0),
                           "on_opencl": sum(t["arch"] == "opencl" for t in r.trace)}
                    runs.setdefault((mode, i + 1), []).append(row)
                    print(f"repeat {rep + 1} {mode} run {i + 1}: " + " ".join(f"{k} {v:g}" for k, v in row.items()),
                          file=sys.stderr, flush=True)
    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
    lines = [f"{workload} {tiles}x{tile}, kgraph-adaptive under dmda, {args.ncpu} CPU + 1 OpenCL (PoCL) worker; "
             f"median of {args.repeats} cold-start sequences; calibration on: KGRAPH_PERFMODEL_CALIBRATE_WIDTH="
             f"{args.adaptive_calibrate:g}, KGRAPH_PERFMODEL_CALIBRATE_RUNS={args.calibrate_runs}", "",
             "| run | makespan ms off | makespan ms on | per-task mean abs ln(pred/meas) off | on | tasks with NAN "
             "(calibrated) on | tasks on OpenCL off / on |", "|" + "---|" * 7]
    for i in range(1, args.sequence_runs + 1):
        off, on = runs[("off", i)], runs[("on", i)]
        lines.append(f"| {i} | {med(off, 'makespan_ms'):.1f} | {med(on, 'makespan_ms'):.1f} | {med(off, 'err'):.3f} | "
                     f"{med(on, 'err'):.3f} | {med(on, 'tasks') - med(on, 'predicted'):.0f} of {med(on, 'tasks'):.0f} | "
                     f"{med(off, 'on_opencl'):.0f} / {med(on, 'on_opencl'):.0f} |")
    total = {m: sum(statistics.median(r["makespan_ms"] for r in runs[(m, i)]) for i in range(1, args.sequence_runs + 1))
             for m in modes}
    lines += ["", f"sum of median makespans over the {args.sequence_runs} runs: off {total['off']:.1f} ms, "
              f"on {total['on']:.1f} ms",
              "all makespans (ms) per run index, off: " + "; ".join(
                  " ".join(f"{r['makespan_ms']:.1f}" for r in runs[("off", i)]) for i in range(1, args.sequence_runs + 1)),
              "all makespans (ms) per run index, on: " + "; ".join(
                  " ".join(f"{r['makespan_ms']:.1f}" for r in runs[("on", i)]) for i in range(1, args.sequence_runs + 1))]
    text = "\n".join(lines)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


def write_report(rows: list[tuple], table: list[tuple], args) -> None:
    lines = ["| workload | size | model | makespan ms | mean abs ln(pred/meas) | tasks predicted | tasks | on OpenCL | cost fn ns/call |",
             "|" + "---|" * 9]
    for w, size, cfg, mk, err, npred, n, ocl, ns in rows:
        err_s = "-" if math.isnan(err) else f"{err:.3f}"
        mk_s, ns_s = ("-", "-") if math.isnan(mk) else (f"{mk:.2f}", f"{ns:.0f}")
        lines.append(f"| {w} | {size} | {cfg} | {mk_s} | {err_s} | {int(npred)} | {n} | {ocl} | {ns_s} |")
    text = "\n".join(lines)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")
    if args.time_table:
        Path(args.time_table).write_text("kind,tile,device,time_us\n" +
                                         "".join(f"{k},{t},{d},{v}\n" for k, t, d, v in table))


if __name__ == "__main__":
    raise SystemExit(main())
