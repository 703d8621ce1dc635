"""``kgraph estimate FILE --kernel K --global 4096,4096 [--local 16,16] [--arg N=4096 ...] --device h200
[--json] [--batch FILE]``: predicted time, bandwidth, footprint and bound class from the shipped model.

For CUDA sources ``--global`` is the total number of threads per dimension (grid x block) and
``--local`` the block; or give ``--grid`` (blocks per dimension) and ``--block`` (threads per block).
``-D NAME=VALUE`` defines a macro. ``--batch`` reads many launches from a CSV (columns ``kernel,
global`` (or ``grid, block``) and optionally ``file, local, device``; every other column is a scalar
argument named after the kernel parameter) or a JSONL file (objects with ``kernel, global`` and
optional ``file, local, grid, block, device, args, defines``); each row defaults to FILE, ``--device``
and the ``-D`` macros.

FLOPs and bytes are the kernel's exact static counts where the analysis has them (``static``), else
the model's (``model``), as the footprint. A loop whose trip count depends on data is named in the output
(``trip_8``); ``--arg trip_8=12`` gives its mean, and the counts (and the model's inputs) use it; for a loop over
one segment of an offsets array (``for (k = ptr[r]; k < ptr[r + 1]; k++)``), ``--buffer`` lengths give it
(``--buffer ptr=ROWS+1 --buffer col=NNZ``; CSV batch column ``buffer:NAME``); for a loop bounded by a buffer's
elements (``k < len[i]``), ``--input len=FILE.npy`` (CSV column ``input:NAME``, JSONL ``inputs``). A branch the
analysis cannot decide (a condition on data) is assumed taken by half the executions; ``--arg taken_6=0.1`` gives
the share of line 6's (:mod:`kgraph.analysis.branches`). A launch that covers only part of the problem its scalar
arguments describe gets a warning on stderr (``kgraph.app.static_checks``: e.g. a CUDA grid given as
``--global``).
"""
from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path

from kgraph.app.cli.common import add_define_option, add_progress_option, parse_defines, progress, progress_enabled
from kgraph.errors import InputError, UsageError


def add_arguments(parser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="OpenCL (.cl) or CUDA (.cu) source")
    parser.add_argument("--kernel", help="kernel name in FILE (needed when FILE has more than one)")
    parser.add_argument("--global", dest="global_size", metavar="G0[,G1[,G2]]",
                        help="global size (work-items per dimension; CUDA: grid x block)")
    parser.add_argument("--local", dest="local_size", metavar="L0[,L1[,L2]]",
                        help="work-group (CUDA: block) size; default: reqd_work_group_size or a power of two")
    parser.add_argument("--grid", metavar="B0[,B1[,B2]]",
                        help="CUDA: blocks per grid dimension (with --block; instead of --global/--local)")
    parser.add_argument("--block", metavar="T0[,T1[,T2]]", help="CUDA: threads per block dimension (with --grid)")
    add_define_option(parser)
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="value of a scalar kernel parameter (repeat for each; a vector such as uint2 takes its "
                             "lanes, b=1,2); also a loop's mean trip count "
                             "(trip_<line>=N) or a branch's share of executions (taken_<line>=P, 0 to 1), as the "
                             "output's counts note names them")
    parser.add_argument("--buffer", action="append", default=[], metavar="NAME=ELEMENTS",
                        help="length of a buffer parameter in elements (repeat for each): gives the mean trip count "
                             "of a loop over one segment of an offsets array (a CSR row)")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                        help="contents of a buffer parameter (a numpy .npy file; repeat for each): gives its length "
                             "and the mean trip count of loops bounded by its elements (for (k = 0; k < len[i]; k++))")
    parser.add_argument("--device", help="device id or part of one (h200), or a device.json file")
    parser.add_argument("--batch", metavar="FILE", help="CSV or JSONL of launches (see docs/BASELINES.md)")
    parser.add_argument("--lang", choices=("opencl", "cuda", "c"), help="source language (default: extension)")
    parser.add_argument("--model", default=None, help="model directory (default: models/default)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_progress_option(parser)


def parse_arg(text: str, option: str = "--arg", lanes: bool = True) -> tuple[str, float | str]:
    """``(NAME, value)`` of ``NAME=VALUE``: a number, or with ``lanes`` a vector scalar's (``uint2``, ``float4``)
    comma-separated lanes, kept as text for the API (``b=12345,678``, as ``kgraph measure`` takes them)."""
    name, sep, value = str(text).partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{option} {text}: expected NAME=VALUE (e.g. --arg N=4096)")
    parts = value.split(",") if lanes else [value]
    try:
        numbers = [float(v) for v in parts]
    except ValueError:
        what = "a number" if len(parts) == 1 else "a number or comma-separated numbers (a vector's lanes)"
        raise UsageError(f"{option} {text}: '{value}' is not {what}") from None
    if not all(math.isfinite(v) for v in numbers):
        raise UsageError(f"{option} {text}: the value must be finite")
    return name.strip(), numbers[0] if len(numbers) == 1 else value.strip()


def read_batch(path: str) -> list[dict]:
    """Rows ``{where, file, kernel, global, local, args, device}`` of a CSV or JSONL batch file.

    Args:
        path: the ``--batch`` file (``.csv``, ``.jsonl`` or ``.json``).

    Raises:
        InputError: naming the file (and line) when it is missing, not UTF-8 text, or a row is malformed.
        UsageError: for another extension.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"--batch {p}: no such file")
    suffix = p.suffix.lower()
    if suffix not in (".jsonl", ".json", ".csv"):
        raise UsageError(f"--batch {p}: unknown format '{p.suffix}' (use .csv or .jsonl)")
    text = _batch_text(p)
    rows = _jsonl_rows(p, text) if suffix in (".jsonl", ".json") else _csv_rows(p, text)
    if not rows:
        raise InputError(f"--batch {p}: no launch in the file")
    return rows


def _batch_text(p: Path) -> str:
    """The text of a batch file; InputError for a binary (not UTF-8, or NUL bytes) or unreadable one."""
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"--batch {p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"{p}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}): --batch takes a CSV or "
                         "JSONL text file") from None
    if "\0" in text:
        line = text[:text.index("\0")].count("\n") + 1
        raise InputError(f"{p}:{line}: a NUL byte: --batch takes a CSV or JSONL text file, not a binary one")
    return text


def _jsonl_rows(p: Path, text: str) -> list[dict]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}:{n}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise InputError(f"{p}:{n}: JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise InputError(f"{p}:{n}: expected a JSON object per line")
        for key, kind in (("args", dict), ("defines", dict), ("buffers", dict), ("inputs", dict)):
            if obj.get(key) is not None and not isinstance(obj[key], kind):
                raise InputError(f"{p}:{n}: '{key}' must be a JSON object (NAME: value), got "
                                 f"{type(obj[key]).__name__}")
        rows.append({"where": f"{p}:{n}", **obj, "args": dict(obj.get("args") or {})})
    return rows


def _csv_rows(p: Path, text: str) -> list[dict]:
    rows = []
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for n, rec in enumerate(reader, 2):
            fixed = {k: rec.pop(k, None) for k in ("file", "kernel", "global", "local", "grid", "block", "device")}
            extra = rec.pop(None, None)
            if extra:
                raise InputError(f"{p}:{n}: {len(extra)} more field(s) than the header has columns")
            inputs = {k[len(INPUT_COLUMN):]: v for k, v in rec.items() if k and k.startswith(INPUT_COLUMN) and v}
            values = {k: parse_arg(f"{k}={v}", f"{p}:{n}: column", not k.startswith(BUFFER_COLUMN))[1]
                      for k, v in rec.items() if k and v not in (None, "") and not k.startswith(INPUT_COLUMN)}
            args = {k: v for k, v in values.items() if not k.startswith(BUFFER_COLUMN)}
            buffers = {k[len(BUFFER_COLUMN):]: v for k, v in values.items() if k.startswith(BUFFER_COLUMN)}
            rows.append({"where": f"{p}:{n}", **fixed, "args": args, "buffers": buffers or None,
                         "inputs": inputs or None})
    except csv.Error as exc:
        raise InputError(f"{p}:{reader.line_num}: not a CSV row ({exc})") from None
    return rows


#: a CSV batch column named ``buffer:NAME`` gives buffer ``NAME``'s length (``--buffer NAME=ELEMENTS``)
BUFFER_COLUMN = "buffer:"
#: a CSV batch column named ``input:NAME`` gives buffer ``NAME``'s contents, a ``.npy`` path (``--input NAME=FILE.npy``)
INPUT_COLUMN = "input:"


def _requests(args) -> list[dict]:
    defines = parse_defines(args.defines)
    if args.batch:
        rows = read_batch(args.batch)
        for row in rows:
            row["defines"] = {**defines, **dict(row.get("defines") or {})}
        return rows
    launch = args.global_size or args.grid or args.block
    missing = [o for o, v in (("FILE", args.file), ("--global", launch)) if not v]  # --kernel: when FILE has several
    if missing:
        raise UsageError(f"{', '.join(missing)}: required (or give --batch FILE)")
    return [{"where": "", "file": args.file, "kernel": args.kernel, "global": args.global_size,
             "local": args.local_size, "grid": args.grid, "block": args.block,
             "args": dict(parse_arg(a) for a in args.arg), "device": None, "defines": defines,
             "buffers": dict(parse_arg(b, "--buffer", lanes=False) for b in args.buffer) or None,
             "inputs": dict(_input_option(i) for i in args.input) or None}]


def _input_option(text: str) -> tuple[str, str]:
    """``--input NAME=FILE.npy`` as (name, path); a UsageError naming the option otherwise."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise UsageError(f"--input {text}: expected NAME=FILE.npy (a buffer parameter, a numpy file of its contents)")
    return name.strip(), path.strip()


BATCH_CHUNK = 64  # least launches per estimate_many call while a --batch progress bar is drawn


def _estimate_batch(model, requests: list[dict], args) -> list[dict]:
    """``model.estimate_many`` over the requests; a ``--batch`` on a terminal goes in chunks under a
    progress bar on stderr (at most ~100 chunks), otherwise in one call."""
    kwargs = {"lang": args.lang, "default_file": args.file, "default_device": args.device}
    chunk = max(BATCH_CHUNK, -(-len(requests) // 100))
    if not args.batch or len(requests) <= chunk or not progress_enabled(args):
        return model.estimate_many(requests, **kwargs)
    results: list[dict] = []
    with progress(args, total=len(requests), desc="estimate", unit="launch") as bar:
        for start in range(0, len(requests), chunk):
            part = requests[start:start + chunk]
            results += model.estimate_many(part, **kwargs)
            bar.update(len(part))
    return results


def run(args) -> int:
    from kgraph.app.api import Model

    model = Model(args.model)
    results = _estimate_batch(model, _requests(args), args)
    for r in results:
        if r["time_ns"] < r["floor_ns"]:
            print(f"kgraph estimate: warning: {r['kernel']}: the model predicts {_time(r['time_ns'])}, below the "
                  f"launch's physical floor {_time(r['floor_ns'])} ({r['floor']}); the floor is the lower bound "
                  "(models/default is roofline-bounded and never does this)", file=sys.stderr)
    for device_id in model.unseen_devices(results):
        print(f"kgraph estimate: warning: the model in {model.directory} was trained on measurements of "
              f"{', '.join(model.predictor.trained_on)} only; predictions for {device_id} extrapolate from its "
              f"descriptor (see models/default/README.md)", file=sys.stderr)
    for r in results:
        at = f"{r['kernel']} at global {','.join(map(str, r['global']))}"
        for warning in r.get("warnings", []):
            print(f"kgraph estimate: warning: {at}: {warning}", file=sys.stderr)
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
        print(f"  time       {_time(r['time_ns'])} (physical floor {_time(r['floor_ns'])}: {r['floor']})")
        if r.get("time_lo_ns") is not None:
            from kgraph.data.targets import TIME_INTERVAL

            print(f"  interval   {_time(r['time_lo_ns'])} to {_time(r['time_hi_ns'])} "
                  f"({100 * TIME_INTERVAL.level:.0f}%, calibrated on families the interval head never saw)")
            if r.get("counts_note"):
                print(f"             {INEXACT_INTERVAL}")
        print(f"  bandwidth  {r['bandwidth_gbs']:.2f} GB/s requested bytes / time; "
              f"at least {r['dram_bw_gbs']:.2f} GB/s compulsory DRAM traffic / time")
        print(f"  footprint  {_bytes(r['footprint_bytes'])} ({r['footprint_source']})")
        print(f"  flops      {_count(r['flops'], r['flops_source'])} ({r['flops_source']})")
        print(f"  bytes      {_count(r['bytes'], r['bytes_source'])} ({r['bytes_source']})")
        if r.get("counts_note"):
            print(f"  counts     the model's estimates, not exact: {r['counts_note']}")
        if r.get("derived_trips"):
            print("  trips      " + ", ".join(f"{k} = {v:.4g}" for k, v in r["derived_trips"].items())
                  + f" (mean per entry, from the {'--input contents' if args.input else '--buffer lengths'})")
        if r.get("time_at_bound_ns") is not None:
            print(f"  at bound   {_time(r['time_at_bound_ns'])} if every loop of unknown trip count ran to its bound")
        how = ("from the exact counts and the predicted time" if r.get("bound_source") == "static"
               else "the model's classifier")
        print(f"  bound      {r['bound']} (p={r['bound_probability']:.2f}, {how})")
    return 0


#: what the interval is worth where the counts are not exact (measured with the margin by exactness: BENCHMARKS.md
#: section 52)
INEXACT_INTERVAL = ("counts not exact: on hand-written kernels whose counts were not, the measured time was above "
                    "this interval for 0-46% of a set's launches (BENCHMARKS.md section 52)")


def _time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


def _count(n: float, source: str) -> str:
    """An exact static count in full (17179869184 = 17.18 G), a model's with 3 significant digits."""
    if source == "static":
        return f"{n:.0f}" + (f" ({_si(n)})" if n >= 1e4 else "")
    return _si(n)


def _si(n: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.3g}"


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"
