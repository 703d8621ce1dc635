"""Compare cost models by replaying tiled Cholesky and LU schedules on {1 GPU, N CPU cores}.

    python -m kgraph.app.scheduling.run --truth times.csv [--predictions NAME=pred.csv ...]
        [--sizes 4 8 12] [--tile 512] [--cpus 8] [--noise 0.05] [--out report.md]

``--truth``: measured task times (``kind, tile, device, time_us``); devices must be ``gpu`` and
``cpu`` (one CPU core). ``--predictions``: a model's predicted times in the same format (kgraph full,
kgraph compact, ...). Models compared: oracle (truth as belief), history-cold (empty history,
learns online), history-warm (history from one calibration run of the same workload), regression
(a·n^b, calibrated on the other tile sizes of the truth table), and every ``--predictions``.
Prints a markdown table of makespan relative to the oracle schedule.
"""
from __future__ import annotations

import sys

from kgraph.errors import UsageError, module_main
from kgraph.app.scheduling.beliefs import HistoryBelief, OracleBelief, RegressionBelief, TableBelief
from kgraph.app.scheduling.dag import cholesky_dag, lu_dag
from kgraph.app.scheduling.simulator import Platform, simulate
from kgraph.app.scheduling.time_table import TimeTable

DAGS = {"cholesky": cholesky_dag, "lu": lu_dag}


def warm_history(tasks, truth: TimeTable, platform: Platform, noise: float, seed: int,
                 max_runs: int = 10) -> dict:
    """The history calibration runs leave (as ``STARPU_CALIBRATE=1``): run the workload again until
    no task is placed without an estimate (at most ``max_runs`` times), keep every execution."""
    belief = HistoryBelief()
    for run in range(max_runs):
        if simulate(tasks, truth, belief, platform, noise, seed + 1 + run).uncalibrated == 0:
            break
    return {k: list(v) for k, v in belief.history.items()}


def regression_warm(truth: TimeTable, tile: int) -> dict:
    """Calibration points for a·n^b: every measured size except the one being scheduled."""
    return {k: v for k, v in truth.samples.items() if k[1] != tile}


def compare(truth: TimeTable, predictions: dict[str, dict], dag: str, tiles: int, tile: int,
            platform: Platform, noise: float = 0.0, seed: int = 0) -> list[dict]:
    """One row per model: makespan, ratio to oracle, median |ln error|, tasks on GPU."""
    tasks = DAGS[dag](tiles, tile)
    beliefs = [OracleBelief(truth), HistoryBelief(),
               HistoryBelief(warm_history(tasks, truth, platform, noise, seed)),
               RegressionBelief(regression_warm(truth, tile))]
    beliefs += [TableBelief(name, p) for name, p in predictions.items()]
    rows = []
    for belief in beliefs:
        r = simulate(tasks, truth, belief, platform, noise, seed)
        rows.append({"dag": dag, "tiles": tiles, "tile": tile, "tasks": len(tasks), "model": r.model,
                     "makespan_ms": r.makespan_us / 1e3, "median_abs_log_error": r.median_abs_log_error,
                     "uncalibrated": r.uncalibrated, "gpu_tasks": r.per_device.get("gpu", 0)})
    oracle = rows[0]["makespan_ms"]
    for row in rows:
        row["vs_oracle"] = row["makespan_ms"] / oracle
    return rows


def to_markdown(rows: list[dict]) -> str:
    head = "| dag | tiles×tile | tasks | model | makespan ms | vs oracle | median abs ln err | uncalibrated | GPU tasks |"
    out = [head, "|" + "---|" * 9]
    for r in rows:
        out.append(f"| {r['dag']} | {r['tiles']}×{r['tile']} | {r['tasks']} | {r['model']} | {r['makespan_ms']:.3f} | "
                   f"{r['vs_oracle']:.3f} | {r['median_abs_log_error']:.3f} | {r['uncalibrated']} | {r['gpu_tasks']} |")
    return "\n".join(out)


def read_predictions(specs: list[str]) -> dict[str, dict]:
    out = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--predictions: {spec!r} is not NAME=FILE")
        table = TimeTable.from_file(path)
        out[name] = {k: sum(v) / len(v) for k, v in table.samples.items()}
    return out


def add_arguments(p) -> None:
    """The options of ``kgraph schedule`` and ``python -m kgraph.app.scheduling.run``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--truth", required=True)
    p.add_argument("--predictions", nargs="*", default=[], metavar="NAME=FILE")
    p.add_argument("--sizes", nargs="+", type=int, default=[4, 8, 12], help="tiles per side")
    p.add_argument("--tile", type=int, nargs="+", default=None, help="tile sizes (default: all in --truth)")
    p.add_argument("--cpus", type=int, default=8)
    p.add_argument("--bus-gbs", type=float, default=25.0)
    p.add_argument("--noise", type=float, default=0.0, help="log-normal sigma of execution times")
    p.add_argument("--dags", nargs="+", default=list(DAGS), choices=list(DAGS))
    p.add_argument("--out", default=None, help="also write the markdown table here")


def run(args) -> int:
    """Replay the DAGs under every belief and print (and with ``--out`` write) the markdown table.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    if args.cpus < 0 or any(s < 1 for s in args.sizes):
        raise UsageError("--cpus must be >= 0 and --sizes >= 1")
    truth = TimeTable.from_file(args.truth)
    if set(truth.devices()) - {"gpu", "cpu"}:
        raise UsageError(f"--truth: devices must be 'gpu' and 'cpu', got {truth.devices()}")
    predictions = read_predictions(args.predictions)
    platform = Platform.gpu_and_cpus(args.cpus, bus_gbs=args.bus_gbs)
    tiles = args.tile or sorted({t for _, t, _ in truth.samples})
    rows = [r for dag in args.dags for n in args.sizes for t in tiles
            for r in compare(truth, predictions, dag, n, t, platform, args.noise)]
    text = to_markdown(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.app.scheduling.run", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
