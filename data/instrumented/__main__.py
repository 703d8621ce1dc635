"""``python -m kgraph.data.instrumented FILE.cl --kernel K --global 64,64 [--local 8,8] [--arg N=64 ...]``

Instruments the kernel, infers its buffer sizes with generously sized zero-filled buffers (see
:mod:`kgraph.data.instrumented.extents`), runs it once on an OpenCL device (PoCL by default) and prints
the exact work counts, footprint and per-buffer extents as JSON. ``--source`` prints the
instrumented source instead.
"""
from __future__ import annotations

import json
import sys

from kgraph.errors import UsageError, module_main


def _sizes(text: str, option: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} {text!r}: give 1 to 3 comma-separated integers (e.g. 64,64)") from None
    if not 1 <= len(sizes) <= 3 or min(sizes) < 1:
        raise UsageError(f"{option} {text!r}: give 1 to 3 positive integers")
    return sizes


def _scalar(text: str):
    if "=" not in text:
        raise UsageError(f"--arg {text!r}: write NAME=VALUE")
    name, value = text.split("=", 1)
    try:
        return name.strip(), (int(value) if value.strip().lstrip("-").isdigit() else float(value))
    except ValueError:
        raise UsageError(f"--arg {text!r}: VALUE must be a number") from None


def _context(platform: str | None):
    from kgraph.data.instrumented.launch import default_context

    if platform is None:
        return default_context()
    import pyopencl as cl

    for p in cl.get_platforms():
        if platform.lower() in p.name.lower() and p.get_devices():
            return cl.Context(p.get_devices()[:1])
    raise UsageError(f"--platform {platform!r}: no OpenCL platform with a device matches")


def add_arguments(parser) -> None:
    """The options of ``kgraph instrument`` and ``python -m kgraph.data.instrumented``.

    Args:
        parser: the argparse parser to fill.
    """
    parser.add_argument("file", help="OpenCL C source file")
    parser.add_argument("--kernel", required=True, help="kernel name")
    parser.add_argument("--global", dest="global_size", help="NDRange global size, e.g. 1024 or 64,64")
    parser.add_argument("--local", dest="local_size", help="work-group size, e.g. 8,8 (default: runtime's)")
    parser.add_argument("--arg", action="append", default=[], help="scalar argument NAME=VALUE (repeat)")
    parser.add_argument("--platform", help="OpenCL platform name substring (default: PoCL)")
    parser.add_argument("--source", action="store_true", help="print the instrumented source and stop")


def run(args) -> int:
    """Print the instrumented source, or run it and print the counts and buffer extents as JSON.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    from kgraph.parsers import parse_file

    from kgraph.data.instrumented.extents import infer_extents
    from kgraph.instrument.rewrite import instrument

    unit = parse_file(args.file)
    if args.source:
        print(instrument(unit, args.kernel).source)
        return 0
    if args.global_size is None:
        raise UsageError("--global is required to run the kernel")
    global_size = _sizes(args.global_size, "--global")
    local_size = _sizes(args.local_size, "--local") if args.local_size else None
    if local_size is not None and len(local_size) != len(global_size):
        raise UsageError("--local must have as many dimensions as --global")
    scalars = dict(_scalar(a) for a in args.arg)
    extents, counts = infer_extents(unit.text, args.kernel, global_size, local_size, scalars,
                                    _context(args.platform), filename=args.file)
    report = counts.to_dict()
    report["exact"] = counts.exact
    report["buffers"] = {
        name: {"elements": extents[name], "elem_bytes": e.elem_bytes, "touched": e.touched}
        for name, e in counts.buffers.items()
    }
    report["warnings"] = list(counts.warnings)
    print(json.dumps(report, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.data.instrumented", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
