"""``kgraph measure FILE.cl --kernel K --global 1024,1024 [--local 16,16] [--arg NAME=VALUE ...]
[--buffer NAME=ELEMENTS ...] [-D NAME=VALUE ...] [--timeout-s S]``.

The kernel runs in the campaign's isolated worker process: a launch silent for ``--timeout-s`` is
killed (status ``timeout``), a crash of the driver is reported (``crash``), a launch needing more
memory than the device has gives ``out_of_resources``; the exit status is 1 for any status but ``ok``.
Buffers without ``--buffer`` are sized by bounded instrumented runs on PoCL (never out of bounds),
in the worker too; with every buffer sized, no such run happens (docs/HARNESS.md).
"""
from __future__ import annotations

import json

from kgraph.app.cli.common import add_define_option, parse_defines
from kgraph.errors import UsageError

DEFAULT_TIMEOUT_S = 60.0  # the same as kgraph.data.harness.foreign.DEFAULT_TIMEOUT_S (kept light here)


def add_arguments(parser) -> None:
    parser.add_argument("file", help="OpenCL C source file")
    parser.add_argument("--kernel", required=True, help="the __kernel function to launch")
    parser.add_argument("--global", dest="global_size", required=True, help="NDRange, e.g. 1024,1024")
    parser.add_argument("--local", dest="local_size", help="work-group shape, e.g. 16,16")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="scalar value (a vector such as uint2/float4: comma-separated lanes, e.g. b=1,2), or "
                             "element count of a buffer/local argument (repeatable)")
    parser.add_argument("--buffer", action="append", default=[], metavar="NAME=ELEMENTS",
                        help="element count of a global buffer argument (repeatable); buffers without one "
                             "are sized by an instrumented, bounds-checked run")
    add_define_option(parser)
    parser.add_argument("--device", help="substring of the device id, platform or device name")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S,
                        help="limit on one launch's measurement and on a sizing run; the worker is killed "
                             f"and the status is 'timeout' (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--json", action="store_true", help="print the row as JSON")


def _dims(text: str, option: str) -> list[int]:
    try:
        dims = [int(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} {text}: expected 1 to 3 comma-separated integers, e.g. 1024,1024") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise UsageError(f"{option} {text}: expected 1 to 3 positive integers")
    if any(d >= MAX_DIM for d in dims):
        raise UsageError(f"{option} {text}: each size must be below 2^32")
    return dims


MAX_DIM = 2**32  # an NDRange or work-group size at or above this is refused before any device work


def _pairs(items: list[str], option: str, what: str) -> dict[str, str]:
    """``NAME=VALUE`` options as a dict (UsageError naming the option for a malformed one).

    Args:
        items: the option's values; option: its name; what: the VALUE placeholder for the message.
    """
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{option} {item}: expected NAME={what}")
        out[name.strip()] = value.strip()
    return out


def _launch(args) -> tuple[list[int], list[int] | None]:
    """``(global, local)`` of the command line, checked against each other."""
    gsize = _dims(args.global_size, "--global")
    lsize = _dims(args.local_size, "--local") if args.local_size else None
    if lsize is not None:
        if len(lsize) != len(gsize):
            raise UsageError(f"--local {args.local_size}: needs {len(gsize)} dimension(s) like --global")
        bad = [d for d, (g, l) in enumerate(zip(gsize, lsize)) if g % l]
        if bad:
            raise UsageError(f"--local {args.local_size}: does not divide --global {args.global_size} in dim {bad[0]}")
    return gsize, lsize


def run(args) -> int:
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign

    gsize, lsize = _launch(args)
    if not args.timeout_s > 0:
        raise UsageError(f"--timeout-s {args.timeout_s}: must be positive")
    request = ForeignRequest(args.file, args.kernel, tuple(gsize), tuple(lsize) if lsize else None,
                             _pairs(args.arg, "--arg", "VALUE"), _pairs(args.buffer, "--buffer", "ELEMENTS"),
                             parse_defines(args.defines))
    row = measure_foreign(request, args.device, timeout_s=args.timeout_s).row
    if args.json:
        print(json.dumps(row, indent=2, default=str))
    else:
        for key, value in row.items():
            if value is not None and key not in ("source_id", "harness_version"):
                print(f"{key:22s} {value}")
    return 0 if row["status"] == "ok" else 1
