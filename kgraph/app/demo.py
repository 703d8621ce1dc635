"""``python -m kgraph.app.demo`` (``make demo``): parse the shipped example kernels, print each kernel's graph
summary and static per-work-item counts as a table, draw one kernel graph to ``out/kernel_graph.png``, and
predict the launches of ``examples/launches.jsonl`` with the shipped model (``kgraph estimate --batch``).

Args (command line): ``--examples DIR`` (default: the repo's ``examples/``), ``--out PNG``
(default ``out/kernel_graph.png``), ``--kernel NAME`` (the kernel to draw; default ``sgemm_tiled``),
``--launches FILE`` (launches to predict; ``""`` to skip).
"""
from __future__ import annotations

import argparse
from importlib.resources import files
import sys
import time
from pathlib import Path

from kgraph.errors import KGraphError

EXAMPLES = Path(str(files("kgraph.examples")))
SUFFIXES = (".cl", ".cu", ".cuh", ".c")
COLUMNS = ("file", "kernel", "nodes", "AST", "CTRL", "DATA", "CALL", "flops/work-item", "global bytes/work-item")


def example_files(folder: Path) -> list[Path]:
    """Kernel sources under ``folder`` (sorted; the ``bad/`` folder of broken examples is left out)."""
    return sorted(p for p in folder.rglob("*") if p.suffix in SUFFIXES and "bad" not in p.relative_to(folder).parts)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def row_of(path: Path, root: Path, graph) -> list[str]:
    edges = graph.edge_counts()
    flops = bytes_ = "n/a"
    if graph.analysis is not None:
        import sympy

        c = graph.analysis.counts
        flops = str(sympy.simplify(c["flops_fp32"] + c["flops_fp64"]))
        bytes_ = str(sympy.simplify(c["global_load_bytes"] + c["global_store_bytes"]))
    return [str(path.relative_to(root)), graph.name, str(graph.num_nodes), str(edges["AST"]), str(edges["CONTROL"]),
            str(edges["DATA"]), str(edges["CALL"]), _short(flops, 30), _short(bytes_, 30)]


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [list(COLUMNS)] + rows) for i in range(len(COLUMNS))]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgraph.app.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--examples", default=str(EXAMPLES), help="folder of example kernels")
    parser.add_argument("--out", default="out/kernel_graph.png", help="where to draw the kernel graph")
    parser.add_argument("--kernel", default="sgemm_tiled", help="name of the kernel to draw")
    parser.add_argument("--launches", default=str(EXAMPLES / "launches.jsonl"),
                        help="launches to predict with the shipped model (kgraph estimate --batch)")
    args = parser.parse_args(argv)
    import kgraph

    root = Path(args.examples)
    files = example_files(root) if root.is_dir() else []
    if not files:
        print(f"kgraph demo: error: no kernel sources (.cl, .cu, .c) under {root}", file=sys.stderr)
        return 1
    rows, chosen, failures = [], None, 0
    start = time.perf_counter()
    for path in files:
        try:
            graphs = kgraph.from_file(path)
        except KGraphError as exc:
            print(f"kgraph demo: skipped {path}: {exc}", file=sys.stderr)
            failures += 1
            continue
        for graph in graphs:
            rows.append(row_of(path, root, graph))
            if graph.name == args.kernel or (chosen is None or graph.num_nodes > chosen.num_nodes) and \
                    (chosen is None or chosen.name != args.kernel):
                chosen = graph
    elapsed = time.perf_counter() - start
    print(f"kgraph demo: {len(rows)} kernels from {len(files)} files in {elapsed:.2f} s "
          "(graphs + static analysis; counts are per work-item, symbolic in the scalar arguments and "
          "gsz/lsz = global/local work sizes)\n")
    print_table(rows)
    if chosen is not None:
        try:
            path = kgraph.to_png(chosen, args.out)
        except KGraphError as exc:
            print(f"kgraph demo: error: {exc}", file=sys.stderr)
            return 1
        print(f"\nwrote {path}: the graph of kernel {chosen.name} ({chosen.num_nodes} nodes, {chosen.num_edges} edges)")
    if args.launches:
        from kgraph.app.cli.main import main as kgraph_main

        print(f"\n$ kgraph estimate --batch {args.launches}   (the shipped model, models/default; nothing is run)")
        failures += kgraph_main(["estimate", "--batch", args.launches]) != 0
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
