"""``python -m kgraph.analysis FILE [--lang L] [--json] [--env n=1024,gsz0=1024,lsz0=64]``.

Prints each kernel's symbolic per-work-item counts, loops and access patterns; with ``--env`` also
the numbers for those values.
"""
from __future__ import annotations

import json
import sys

from kgraph.parsers.errors import UsageError, module_main


def _env(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--env: '{item}' is not NAME=NUMBER") from None
    return out


def add_arguments(ap) -> None:
    """The options of ``kgraph analyze`` and ``python -m kgraph.analysis``.

    Args:
        ap: the argparse parser to fill.
    """
    ap.add_argument("files", nargs="+")
    ap.add_argument("--lang", choices=["opencl", "cuda", "c"])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--env", default="", help="values: NAME=NUMBER,... (parameters, gsz0, lsz0, ...)")


def run(args) -> int:
    """Print (or with ``--json`` dump) each kernel's analysis.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    from kgraph.analysis.analyze import analyze
    from kgraph.parsers import parse_file

    env = _env(args.env)
    results = []
    for path in args.files:
        unit = parse_file(path, args.lang)
        unit.raise_on_errors()
        for fn in unit.kernels:
            a = analyze(fn, unit)
            d = a.to_dict()
            if env:
                d["evaluated"] = a.evaluate(env)
            results.append(d)
            if not args.json:
                print(f"{path}: {a.name}")
                for k, v in d["counts"].items():
                    print(f"  {k:20s} {v}" + (f"  = {d['evaluated'][k]:g}" if env else ""))
                for lp in d["loops"]:
                    print(f"  loop line {lp['line']} ({lp['var'] or '?'}): trip {lp['trip']}  [{lp['note']}]")
                for ac in d["accesses"]:
                    print(f"  {ac['space']} {ac['kind']} {ac['buffer']}{'' if ac['index'].startswith('[') else '['}"
                          f"{ac['index']}{'' if ac['index'].startswith('[') else ']'}: {ac['pattern']}"
                          f" (stride {ac['stride']}), {ac['bytes']} B x {ac['executions']}")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def main(argv=None) -> int:
    return module_main(argv, "python -m kgraph.analysis", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
