"""``kgraph estimate FILE --kernel K --global 4096,4096 [--local 16,16] [--arg N=4096 ...] --device h200
[--json] [--batch FILE]``: predicted time, bandwidth, footprint and bound class from the shipped model.

For CUDA sources ``--global`` is the total number of threads per dimension (grid x block) and
``--local`` the block. ``--batch`` reads many launches from a CSV (columns ``kernel, global`` and
optionally ``file, local, device``; every other column is a scalar argument named after the kernel
parameter) or a JSONL file (objects with ``kernel, global`` and optional ``file, local, device,
args``); each row defaults to FILE and ``--device``.
"""
from __future__ import annotations

import csv
import json
import sys
import math
from pathlib import Path

from kgraph.errors import InputError, UsageError


def add_arguments(parser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="OpenCL (.cl) or CUDA (.cu) source")
    parser.add_argument("--kernel", help="kernel name in FILE")
    parser.add_argument("--global", dest="global_size", metavar="G0[,G1[,G2]]",
                        help="global size (work-items per dimension; CUDA: grid x block)")
    parser.add_argument("--local", dest="local_size", metavar="L0[,L1[,L2]]",
                        help="work-group (CUDA: block) size; default: reqd_work_group_size or a power of two")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="value of a scalar kernel parameter (repeat for each)")
    parser.add_argument("--device", help="device id or part of one (h200), or a device.json file")
    parser.add_argument("--batch", metavar="FILE", help="CSV or JSONL of launches (see docs/BASELINES.md)")
    parser.add_argument("--lang", choices=("opencl", "cuda", "c"), help="source language (default: extension)")
    parser.add_argument("--model", default=None, help="model directory (default: models/default)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def parse_sizes(text, option: str) -> list[int] | None:
    """``"4096,4096"`` (or a list) -> [4096, 4096]; UsageError saying why otherwise."""
    if text is None or text == "":
        return None
    parts = text if isinstance(text, list) else str(text).split(",")
    values = []
    for p in parts:
        try:
            v = int(str(p).strip())
        except ValueError:
            raise UsageError(f"{option} {text}: '{p}' is not an integer (expected 1 to 3 comma-separated "
                             "positive integers, e.g. 4096,4096)") from None
        if v <= 0:
            raise UsageError(f"{option} {text}: sizes must be positive, got {v}")
        values.append(v)
    if not 1 <= len(values) <= 3:
        raise UsageError(f"{option} {text}: {len(values)} dimensions; expected 1 to 3")
    return values


def parse_arg(text: str, option: str = "--arg") -> tuple[str, float]:
    name, sep, value = str(text).partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{option} {text}: expected NAME=VALUE (e.g. --arg N=4096)")
    try:
        number = float(value)
    except ValueError:
        raise UsageError(f"{option} {text}: '{value}' is not a number") from None
    if not math.isfinite(number):
        raise UsageError(f"{option} {text}: the value must be finite")
    return name.strip(), number


def read_batch(path: str) -> list[dict]:
    """Rows ``{where, file, kernel, global, local, args, device}`` of a CSV or JSONL batch file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"--batch {p}: no such file")
    rows = []
    if p.suffix.lower() in (".jsonl", ".json"):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{p}:{n}:{exc.colno}: invalid JSON: {exc.msg}") from None
            if not isinstance(obj, dict):
                raise InputError(f"{p}:{n}: expected a JSON object per line")
            rows.append({"where": f"{p}:{n}", **obj, "args": dict(obj.get("args") or {})})
    elif p.suffix.lower() == ".csv":
        with p.open(newline="") as f:
            for n, rec in enumerate(csv.DictReader(f), 2):
                fixed = {k: rec.pop(k, None) for k in ("file", "kernel", "global", "local", "device")}
                args = {k: parse_arg(f"{k}={v}", f"{p}:{n}: column")[1] for k, v in rec.items() if k and v not in (None, "")}
                rows.append({"where": f"{p}:{n}", **fixed, "args": args})
    else:
        raise UsageError(f"--batch {p}: unknown format '{p.suffix}' (use .csv or .jsonl)")
    if not rows:
        raise InputError(f"--batch {p}: no launch in the file")
    return rows


def _requests(args) -> list[dict]:
    if args.batch:
        return read_batch(args.batch)
    missing = [o for o, v in (("FILE", args.file), ("--kernel", args.kernel), ("--global", args.global_size)) if not v]
    if missing:
        raise UsageError(f"{', '.join(missing)}: required (or give --batch FILE)")
    return [{"where": "", "file": args.file, "kernel": args.kernel, "global": args.global_size,
             "local": args.local_size, "args": dict(parse_arg(a) for a in args.arg), "device": None}]


def run(args) -> int:
    from models.launches import kernels_of, make_launch, with_static_footprint
    from models.predictor import DEFAULT_DIR, Predictor, resolve_device

    model_dir = Path(args.model) if args.model else DEFAULT_DIR
    known = {}
    if (model_dir / "config.json").is_file():
        known = json.loads((model_dir / "config.json").read_text()).get("devices", {})
    files, devices, launches, inputs = {}, {}, [], []
    for req in _requests(args):
        at = req["where"]
        file = req.get("file") or args.file
        device_name = req.get("device") or args.device
        if not file:
            raise UsageError(f"{at + ': ' if at else ''}no source file (give FILE or a file column)")
        if not device_name:
            raise UsageError(f"{at + ': ' if at else ''}--device: required (a device id such as "
                             f"{', '.join(sorted(known)) or 'h200'}, or a device.json file)")
        if file not in files:
            files[file] = kernels_of(file, args.lang)
        if device_name not in devices:
            devices[device_name] = resolve_device(device_name, known)
        kernel = req.get("kernel")
        if not kernel:
            raise UsageError(f"{at + ': ' if at else ''}--kernel: required; kernels in {file}: {', '.join(files[file])}")
        g = parse_sizes(req.get("global"), f"{at + ': ' if at else ''}--global")
        if g is None:
            raise UsageError(f"{at + ': ' if at else ''}--global: required")
        launch = make_launch(files[file], kernel, g, parse_sizes(req.get("local"), f"{at + ': ' if at else ''}--local"),
                             req["args"], devices[device_name], at)
        launches.append(launch)
        inputs.append({"file": str(file), "kernel": kernel, "device": launch.device["device_id"],
                       "global": launch.global_size, "local": launch.local_size, "args": launch.args})
    predictor = Predictor.from_directory(model_dir)
    predictions = with_static_footprint(launches, predictor.predict(launches))
    results = [{**i, **p} for i, p in zip(inputs, predictions)]
    unseen = sorted({i["device"] for i in inputs} - set(predictor.trained_on)) if predictor.trained_on else []
    for device_id in unseen:
        print(f"kgraph estimate: warning: the model in {model_dir} was trained on measurements of "
              f"{', '.join(predictor.trained_on)} only; predictions for {device_id} extrapolate from its "
              f"descriptor (see models/default/README.md)", file=sys.stderr)
    if args.json:
        print(json.dumps(results if args.batch else results[0], indent=None if args.batch else 2))
    elif args.batch:
        print(f"{'kernel':20s} {'device':16s} {'global':>16s} {'time':>12s} {'bandwidth':>12s} {'footprint':>11s} "
              f"{'source':6s} bound")
        for r in results:
            print(f"{r['kernel'][:20]:20s} {r['device'][:16]:16s} {','.join(map(str, r['global'])):>16s} "
                  f"{_time(r['time_ns']):>12s} {r['bandwidth_gbs']:9.2f} GB/s {_bytes(r['footprint_bytes']):>11s} "
                  f"{r['footprint_source']:6s} {r['bound']}")
    else:
        r = results[0]
        print(f"kernel {r['kernel']} on {r['device']}: global {','.join(map(str, r['global']))}, "
              f"local {','.join(map(str, r['local']))}")
        print(f"  time       {_time(r['time_ns'])}")
        print(f"  bandwidth  {r['bandwidth_gbs']:.2f} GB/s")
        print(f"  footprint  {_bytes(r['footprint_bytes'])} ({r['footprint_source']})")
        print(f"  bound      {r['bound']} (p={r['bound_probability']:.2f})")
    return 0


def _time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"
