"""``kgraph measure FILE.cl --kernel K --global 1024,1024 [--local 16,16] [--arg NAME=VALUE ...]
[--buffer NAME=ELEMENTS ...] [-D NAME=VALUE ...]``.

Buffers without ``--buffer`` are sized by bounded instrumented runs on PoCL (never out of bounds);
with every buffer sized, no such run happens (docs/HARNESS.md).
"""
from __future__ import annotations

import json

from kgraph.app.cli.common import add_define_option, parse_defines
from kgraph.errors import UsageError


def add_arguments(parser) -> None:
    parser.add_argument("file", help="OpenCL C source file")
    parser.add_argument("--kernel", required=True, help="the __kernel function to launch")
    parser.add_argument("--global", dest="global_size", required=True, help="NDRange, e.g. 1024,1024")
    parser.add_argument("--local", dest="local_size", help="work-group shape, e.g. 16,16")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="scalar value, or element count of a buffer/local argument (repeatable)")
    parser.add_argument("--buffer", action="append", default=[], metavar="NAME=ELEMENTS",
                        help="element count of a global buffer argument (repeatable); buffers without one "
                             "are sized by an instrumented, bounds-checked run")
    add_define_option(parser)
    parser.add_argument("--device", help="substring of the device id, platform or device name")
    parser.add_argument("--json", action="store_true", help="print the row as JSON")


def _dims(text: str, option: str) -> list[int]:
    try:
        dims = [int(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} {text}: expected 1 to 3 comma-separated integers, e.g. 1024,1024") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise UsageError(f"{option} {text}: expected 1 to 3 positive integers")
    return dims


def run(args) -> int:
    from kgraph.data.harness.foreign import foreign_spec, measure_foreign

    gsize = _dims(args.global_size, "--global")
    lsize = _dims(args.local_size, "--local") if args.local_size else None
    if lsize is not None:
        if len(lsize) != len(gsize):
            raise UsageError(f"--local {args.local_size}: needs {len(gsize)} dimension(s) like --global")
        bad = [d for d, (g, l) in enumerate(zip(gsize, lsize)) if g % l]
        if bad:
            raise UsageError(f"--local {args.local_size}: does not divide --global {args.global_size} in dim {bad[0]}")
    given = {}
    for item in args.arg:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--arg {item}: expected NAME=VALUE")
        given[name.strip()] = value.strip()
    buffers = {}
    for item in args.buffer:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--buffer {item}: expected NAME=ELEMENTS")
        buffers[name.strip()] = value.strip()
    defines = parse_defines(args.defines)
    spec = foreign_spec(args.file, args.kernel, gsize, lsize, given, buffers, defines)
    row = measure_foreign(spec, args.device, gsize, lsize, defines=defines)
    if args.json:
        print(json.dumps(row, indent=2, default=str))
        return 0 if row["status"] == "ok" else 1
    for key, value in row.items():
        if value is not None and key not in ("source_id", "harness_version"):
            print(f"{key:22s} {value}")
    return 0 if row["status"] == "ok" else 1
