"""``kgraph sweep FILE [--dry-run] [--count N]``: run a W&B sweep definition locally, one subprocess per run.

For when no W&B server is reachable (with one: ``wandb sweep FILE`` and ``wandb agent``). ``grid``
runs every combination of the ``values`` lists (in file order, last parameter fastest); ``random``
draws ``--count`` (else ``run_cap``, else 10) configurations seeded by ``--seed`` (``values`` uniformly,
``distribution: uniform | log_uniform_values | int_uniform`` from ``min``/``max``). ``command`` macros:
``${args}`` (``--key=value`` per parameter), ``${args_no_hyphens}``, ``${program}``, ``${interpreter}``
and ``${env}`` (dropped).

Each run gets ``WANDB_RUN_ID`` (``<tag>-<n>``), ``WANDB_RUN_GROUP`` (``sweep-<file>-<tag>``) and
``KGRAPH_SUMMARY_FILE`` (``<out>/run-<n>.json``, written by ``kgraph fit`` at its end: every metric's last
value and the best checkpoint score). After the runs the sweep prints a results table (one row per run:
its parameters, the sweep's ``metric`` (the best checkpoint score when it is the checkpoint's monitor, else
the last value) and status) and the best run by the metric's ``goal``, and writes ``results.csv`` and
``results.md`` in ``--out`` (default ``runs/sweeps/<file>-<tag>``).
"""
from __future__ import annotations

import itertools
import json
import math
import os
import random
import secrets
import shlex
import string
import subprocess
import sys
from pathlib import Path

from kgraph.errors import InputError, UsageError

METHODS = ("grid", "random")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="W&B sweep YAML (e.g. conf/sweeps/graph_encoder.yaml)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands without running them")
    parser.add_argument("--count", type=int, default=None, help="runs of a random sweep")
    parser.add_argument("--seed", type=int, default=0, help="seed of a random sweep (default: 0)")
    parser.add_argument("--out", default=None,
                        help="directory of the run summaries and results table (default: runs/sweeps/<file>-<tag>)")


def from_file(path: str) -> dict:
    """Load and check a sweep definition; raises InputError naming the file and the problem."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise UsageError(f"FILE: {path} does not exist")
    try:
        sweep = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not YAML: {exc}") from exc
    if not isinstance(sweep, dict):
        raise InputError(f"{path}: a sweep is a mapping with method, parameters and command")
    if sweep.get("method") not in METHODS:
        raise InputError(f"{path}: method must be one of {', '.join(METHODS)} for a local sweep, "
                         f"got {sweep.get('method')!r}")
    params = sweep.get("parameters")
    if not isinstance(params, dict) or not params:
        raise InputError(f"{path}: 'parameters' must map each parameter to a spec")
    for name, spec in params.items():
        if not isinstance(spec, dict) or not ({"values", "value"} & set(spec) or {"min", "max"} <= set(spec)):
            raise InputError(f"{path}: parameter {name}: needs values, value, or min/max")
        if sweep["method"] == "grid" and "values" not in spec and "value" not in spec:
            raise InputError(f"{path}: parameter {name}: a grid needs values")
    command = sweep.get("command")
    if not isinstance(command, list) or not command:
        raise InputError(f"{path}: 'command' must be a list, e.g. [kgraph, fit, --config, ..., ${{args}}]")
    return sweep


def _draw(spec: dict, rng: random.Random):
    if "value" in spec:
        return spec["value"]
    if "values" in spec:
        return rng.choice(spec["values"])
    lo, hi, dist = spec["min"], spec["max"], spec.get("distribution", "uniform")
    if dist == "log_uniform_values":
        return math.exp(rng.uniform(math.log(lo), math.log(hi)))
    if dist == "int_uniform" or (isinstance(lo, int) and isinstance(hi, int) and dist == "uniform"):
        return rng.randint(lo, hi)
    return rng.uniform(lo, hi)


def to_runs(sweep: dict, count: int | None = None, seed: int = 0) -> list[dict]:
    """Parameter assignments of every local run."""
    params = sweep["parameters"]
    if sweep["method"] == "grid":
        names = list(params)
        choices = [params[n].get("values", [params[n].get("value")]) for n in names]
        return [dict(zip(names, combo)) for combo in itertools.product(*choices)]
    rng = random.Random(seed)
    n = count or sweep.get("run_cap") or 10
    return [{name: _draw(spec, rng) for name, spec in params.items()} for _ in range(n)]


def to_command(sweep: dict, run: dict) -> list[str]:
    """The command line of one run, with the W&B macros expanded."""
    args = [f"--{k}={v}" for k, v in run.items()]
    out: list[str] = []
    for part in sweep["command"]:
        part = str(part)
        if part == "${args}":
            out += args
        elif part == "${args_no_hyphens}":
            out += [a[2:] for a in args]
        elif part == "${program}":
            out.append(str(sweep.get("program", "kgraph")))
        elif part == "${interpreter}":
            out.append(sys.executable)
        elif part != "${env}":
            out.append(part)
    return out


def read_result(path: Path, metric: str | None) -> tuple[float | None, dict]:
    """(value of ``metric``, summary) of one run's summary file; value None when absent.
    The best checkpoint score when ``metric`` is the checkpoint's monitor, else the metric's last value."""
    try:
        summary = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None, {}
    if not metric:
        return None, summary
    best = summary.get("best") or {}
    value = best.get("score") if best.get("monitor") == metric else (summary.get("metrics") or {}).get(metric)
    return (float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None), summary


def best_row(rows: list[dict], goal: str) -> dict | None:
    """The row with the best ``value`` (``goal`` minimize or maximize); None when no run has one."""
    done = [r for r in rows if r["value"] is not None]
    if not done:
        return None
    return (max if goal == "maximize" else min)(done, key=lambda r: r["value"])


def _cell(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def to_results_table(rows: list[dict], params: list[str], metric: str | None) -> str:
    """Markdown table: run, run id, each parameter, the metric, status."""
    from kgraph.app.report.tables import markdown_table

    header = ["run", "run id", *params, metric or "metric", "status"]
    body = [[str(r["n"]), r["run_id"], *[_cell(r["params"].get(p)) for p in params], _cell(r["value"]),
             r["status"]] for r in rows]
    return markdown_table(header, body)


def run(args) -> int:
    if args.count is not None and args.count <= 0:
        raise UsageError(f"--count: must be positive, got {args.count}")
    sweep = from_file(args.file)
    runs = to_runs(sweep, args.count, args.seed)
    metric = (sweep.get("metric") or {}).get("name")
    goal = (sweep.get("metric") or {}).get("goal", "minimize")
    tag = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(6))
    out = Path(args.out or Path("runs/sweeps") / f"{Path(args.file).stem}-{tag}")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    group = f"sweep-{Path(args.file).stem}-{tag}"
    rows: list[dict] = []
    failed = 0
    for i, assignment in enumerate(runs, 1):
        cmd = to_command(sweep, assignment)
        print(f"[{i}/{len(runs)}] {shlex.join(cmd)}", flush=True)
        if args.dry_run:
            continue
        run_id, summary_file = f"{tag}-{i:03d}", out / f"run-{i:03d}.json"
        out.mkdir(parents=True, exist_ok=True)
        summary_file.unlink(missing_ok=True)
        env = dict(os.environ, WANDB_RUN_ID=run_id, WANDB_RUN_GROUP=group, KGRAPH_SUMMARY_FILE=str(summary_file))
        try:
            rc = subprocess.call(cmd, env=env)
        except OSError as exc:  # the program is not installed / not executable
            print(f"[{i}/{len(runs)}] could not start {cmd[0]}: {exc}", file=sys.stderr)
            rc = 127
        failed += rc != 0
        if rc:
            print(f"[{i}/{len(runs)}] exited with status {rc}", file=sys.stderr)
        value, summary = read_result(summary_file, metric)
        status = "ok" if rc == 0 else f"exit {rc}"
        if rc == 0 and not summary:
            status = "ok, no summary"
        rows.append({"n": i, "run_id": summary.get("run_id", run_id), "params": assignment, "value": value,
                     "status": status, "checkpoint": (summary.get("best") or {}).get("path")})
    if rows:
        _report(rows, list(sweep["parameters"]), metric, goal, out)
    if failed:
        print(f"sweep: {failed} of {len(runs)} runs failed", file=sys.stderr)
    return 1 if failed else 0


def _report(rows: list[dict], params: list[str], metric: str | None, goal: str, out: Path) -> None:
    import csv

    table = to_results_table(rows, params, metric)
    best = best_row(rows, goal)
    lines = [f"sweep results ({len(rows)} runs, {metric or 'no metric'}, {goal}):", "", table, ""]
    if best is not None:
        setting = " ".join(f"--{k}={v}" for k, v in best["params"].items())
        lines.append(f"best: run {best['n']} ({best['run_id']}) {metric} = {_cell(best['value'])} with {setting}"
                     + (f"; checkpoint {best['checkpoint']}" if best.get("checkpoint") else ""))
    else:
        lines.append(f"best: none (no run reported {metric or 'a metric'})")
    text = "\n".join(lines)
    print(text, flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(text + "\n")
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["run", "run_id", *params, metric or "metric", "status", "checkpoint"])
        for r in rows:
            writer.writerow([r["n"], r["run_id"], *[r["params"].get(p) for p in params],
                             "" if r["value"] is None else r["value"], r["status"], r.get("checkpoint") or ""])
    print(f"wrote {out / 'results.md'} and {out / 'results.csv'}")
