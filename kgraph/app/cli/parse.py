"""``kgraph parse FILE... [--lang L] [-D NAME=VALUE ...] [--json] [--png OUT]``: kernel graph summaries and static counts.

Per kernel: name, node count, edge count per flow, helpers and the static per-work-item counts (symbolic).
Syntax errors print ``FILE:LINE:COL: error: ...`` lines on stderr; unreadable inputs a one-line message.
Every file is tried; the exit status is 0 only when all of them parsed cleanly.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from kgraph.app.cli.common import add_define_option, parse_defines
from kgraph.errors import KGraphError, SourceError, UsageError

LANGS = ("opencl", "cuda", "c")


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="kernel sources (.cl, .cu/.cuh, .c/.h)")
    parser.add_argument("--lang", choices=LANGS, default=None,
                        help="source language for every FILE (default: from each file's extension)")
    add_define_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    parser.add_argument("--png", metavar="OUT", default=None,
                        help="draw the kernel graph to OUT (with several kernels: OUT-stem.<kernel>.png)")


def parse_one(path: str, lang: str | None, defines: dict[str, str] | None = None) -> dict:
    """Parse one file: ``{"file", "kernels": [summary...], "diagnostics": [str...], "error": str|None}``
    plus the built graphs under ``"graphs"`` (not JSON)."""
    import kgraph
    from kgraph.parsers import parse_file

    result = {"file": path, "kernels": [], "diagnostics": [], "error": None, "graphs": []}
    try:
        unit = parse_file(path, lang, defines=defines)
        result["diagnostics"] = [str(d) for d in unit.diagnostics]
        result["ok"] = not unit.errors
        graphs = kgraph.from_unit(unit)
    except SourceError as exc:  # a source past a limit (kgraph.parsers.limits): file:line:col like syntax errors
        result["diagnostics"] = [str(d) for d in exc.diagnostics]
        result["ok"] = False
        return result
    except KGraphError as exc:
        result["error"] = str(exc)
        result["ok"] = False
        return result
    result["graphs"] = graphs
    result["kernels"] = [g.summary() for g in graphs]
    if not graphs and result["ok"]:
        result["diagnostics"].append(f"{path}:1:1: warning: no kernel found")
    return result


def png_paths(out: str, graphs: list) -> list[str]:
    """Where ``--png OUT`` writes each graph: OUT itself for one, ``OUT-stem.<kernel>.png`` for several."""
    target = Path(out)
    if len(graphs) == 1:
        return [str(target)]
    stem = target.with_suffix("")
    return [f"{stem}.{g.name}.png" for g in graphs]


def format_text(result: dict) -> list[str]:
    lines = []
    for k in result["kernels"]:
        edges = ", ".join(f"{flow} {n}" for flow, n in k["edges"].items())
        helpers = f"; helpers: {', '.join(k['helpers'])}" if k["helpers"] else ""
        lines.append(f"{result['file']}: kernel {k['name']} ({k['lang']}): {k['nodes']} nodes; edges: {edges}{helpers}")
        for name, expr in k.get("counts", {}).items():
            lines.append(f"    {name:20s} = {expr}")
        if "analysis_error" in k:
            lines.append(f"    (no static counts: {k['analysis_error']})")
    return lines


def run(args) -> int:
    if args.png is not None and not args.png.lower().endswith(".png"):
        raise UsageError(f"--png: '{args.png}' must name a .png file")
    if args.png is not None and not Path(args.png).parent.is_dir():  # checked before any work; never created
        raise UsageError(f"--png: folder '{Path(args.png).parent}' does not exist (kgraph parse does not create "
                         f"folders)")
    defines = parse_defines(args.defines)
    results = [parse_one(path, args.lang, defines) for path in args.files]
    graphs = [g for r in results for g in r["graphs"]]
    written: list[str] = []
    if args.png is not None and graphs:
        import kgraph

        for graph, path in zip(graphs, png_paths(args.png, graphs)):
            written.append(kgraph.to_png(graph, path))
    for r in results:
        for line in r["diagnostics"]:
            print(line, file=sys.stderr)
        if r["error"]:
            print(f"kgraph: error: {r['error']}" if "\n" not in r["error"] else r["error"], file=sys.stderr)
    if args.json:
        doc = [{k: v for k, v in r.items() if k != "graphs"} for r in results]
        print(json.dumps({"files": doc, "png": written}, indent=2))
    else:
        for r in results:
            for line in format_text(r):
                print(line)
        for path in written:
            print(f"wrote {path}")
    return 0 if all(r["ok"] for r in results) else 1
