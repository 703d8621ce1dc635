"""``kgraph frontend FILE... [--lang L] [-D NAME=VALUE]``: parse kernel sources, print diagnostics
(``file:line:col: severity: message``) and, per function, its kind and parameters.

Also ``python -m kgraph.parsers`` (or ``python -m parsers`` from the repository root), same options.

Exit status: 0 when every file parsed without errors, 1 when some file has syntax errors, 2 on bad
input or usage. No traceback for bad input.
"""
from __future__ import annotations

import sys

from kgraph.parsers.errors import KGraphError, SourceError, UsageError, module_main
from kgraph.parsers.entry import parse_file


def _param(p) -> str:
    vec = f"{p.vector_width}" if p.vector_width > 1 else ""
    ptr = "*" * p.pointer_depth
    quals = " ".join(sorted(q for q in p.qualifiers if q != p.address_space))
    return f"{p.address_space} {quals + ' ' if quals else ''}{p.base_type}{vec}{ptr} {p.name}".strip()


def add_arguments(ap) -> None:
    """The options of ``kgraph frontend`` and ``python -m kgraph.parsers``.

    Args:
        ap: the argparse parser to fill.
    """
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("--lang", choices=["opencl", "cuda", "c"], help="override the language chosen by extension")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                    help="define a macro as on a compiler command line")


def run(args) -> int:
    """Parse each file and print its diagnostics and functions; the exit status of the module docstring.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    defines = {}
    for d in args.defines:
        name, _, value = d.partition("=")
        if not name.isidentifier():
            raise UsageError(f"-D {d}: '{name}' is not a macro name")
        defines[name] = value or "1"
    status = 0
    for path in args.files:
        try:
            unit = parse_file(path, args.lang, defines=defines)
        except UsageError:
            raise
        except SourceError as exc:  # past a limit (kgraph.parsers.limits): printed like a syntax error
            for d in exc.diagnostics:
                print(d, file=sys.stderr)
            status = max(status, 2)
            continue
        except KGraphError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = max(status, 2)
            continue
        for d in unit.diagnostics:
            print(d, file=sys.stderr)
        if unit.errors:
            status = max(status, 1)
        for fn in unit.functions:
            kind = "kernel" if fn.is_kernel else "helper"
            print(f"{path}:{fn.line}:{fn.col}: {kind} {fn.name}({', '.join(_param(p) for p in fn.params)})")
        folded = [f"{m.name}={m.value}" for m in unit.macros.values() if m.value is not None]
        if folded:
            print("  macros: " + ", ".join(folded))
    return status


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.parsers", __doc__.split("\n\n")[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
