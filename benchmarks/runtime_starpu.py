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
    args = p.parse_args(argv)
    env = {k: v for k, v in (("KGRAPH_STARPU_CPU_DEVICE", args.cpu_device),
                             ("KGRAPH_STARPU_OPENCL_DEVICE", args.opencl_device)) if v}
    if args.opencl == "gpu":
        env.update(STARPU_OPENCL_ON_CPUS="0", STARPU_OPENCL_ONLY_ON_CPUS="0")
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
