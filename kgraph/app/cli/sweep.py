"""``kgraph sweep FILE [--dry-run] [--count N]``: run a W&B sweep definition locally, one subprocess per run.

For when no W&B server is reachable (with one: ``wandb sweep FILE`` and ``wandb agent``). ``grid``
runs every combination of the ``values`` lists (in file order, last parameter fastest); ``random``
draws ``--count`` (else ``run_cap``, else 10) configurations seeded by ``--seed`` (``values`` uniformly,
``distribution: uniform | log_uniform_values | int_uniform`` from ``min``/``max``). ``command`` macros:
``${args}`` (``--key=value`` per parameter), ``${args_no_hyphens}``, ``${program}``, ``${interpreter}``
and ``${env}`` (dropped).
"""
from __future__ import annotations

import itertools
import math
import random
import shlex
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


def run(args) -> int:
    if args.count is not None and args.count <= 0:
        raise UsageError(f"--count: must be positive, got {args.count}")
    sweep = from_file(args.file)
    runs = to_runs(sweep, args.count, args.seed)
    failed = 0
    for i, assignment in enumerate(runs, 1):
        cmd = to_command(sweep, assignment)
        print(f"[{i}/{len(runs)}] {shlex.join(cmd)}", flush=True)
        if not args.dry_run:
            rc = subprocess.call(cmd)
            failed += rc != 0
            if rc:
                print(f"[{i}/{len(runs)}] exited with status {rc}", file=sys.stderr)
    if failed:
        print(f"sweep: {failed} of {len(runs)} runs failed", file=sys.stderr)
    return 1 if failed else 0
