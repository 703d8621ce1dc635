"""Graph-building throughput: kernels per second on one core, and its ratio to tree-sitter's raw parse.

Corpus: the shipped ``examples/`` kernels plus the generated corpus (``kgraph.data.corpus.all_specs()``) when it
imports; otherwise the examples replicated with renamed kernels until there are ``--min-kernels``.
Timings over the whole corpus, on one core (the process is pinned), each the best of ``--repeats``
passes (``--analysis-repeats`` for the slow static analysis), graphs kept until the pass ends:

* raw parse: ``tree_sitter.Parser.parse`` of the bytes the front end parses (``unit.source``);
* front end: ``parsers.parse_source`` (masking, macros, diagnostics, function records);
* graphs: ``kgraph.from_unit(unit, analyze=False)`` (AST + CONTROL + DATA + CALL graphs of every kernel);
* graphs + analysis: ``kgraph.from_unit(unit)`` (the same plus :func:`kgraph.analysis.analyze`).

Prints a markdown row: kernels, kernels/s for graph building alone, for parse + graphs and with the
analysis, and the ratios to the raw parse time. Run: ``python -m benchmarks.graph_throughput``
(``--analysis-repeats 0`` skips the analysis columns).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ("| kernels | sources | graph build kernels/s | parse+graph kernels/s | graph+analysis kernels/s "
          "| raw parse ms/source | graph/raw parse | (parse+graph)/raw parse | (graph+analysis)/raw parse |\n"
          "|---|---|---|---|---|---|---|---|---|")


def load_sources(min_kernels: int) -> list[tuple[str, str, str]]:
    """``(name, lang, text)`` of every source in the benchmark corpus."""
    from kgraph.app.demo import example_files

    ext_lang = {".cl": "opencl", ".cu": "cuda", ".cuh": "cuda", ".c": "c"}
    sources = [(str(p.relative_to(ROOT)), ext_lang[p.suffix], p.read_text()) for p in example_files(ROOT / "examples")]
    try:
        from kgraph.data.corpus import all_specs

        sources += [(spec.kernel_id, spec.lang, spec.source) for spec in all_specs()]
    except ImportError:
        base = list(sources)
        k = 0
        while len(sources) < min_kernels and base:
            name, lang, text = base[k % len(base)]
            kernels = re.findall(r"\b(?:__kernel|kernel|__global__)\s+void\s+(\w+)", text)
            for kernel in kernels:
                text = re.sub(rf"\b{kernel}\b", f"{kernel}_r{k}", text)
            sources.append((f"{name}#r{k}", lang, text))
            k += 1
    return sources


def measure(sources, repeats: int, analysis_repeats: int = 1) -> dict:
    import tree_sitter as ts

    import kgraph
    from kgraph.parsers import parse_source

    units = [parse_source(text, lang, filename=name) for name, lang, text in sources]
    parsers = {}
    for unit in units:
        if unit.lang not in parsers:
            parsers[unit.lang] = ts.Parser(unit.dialect.language)
    kernels = sum(len(kgraph.from_unit(u, analyze=False)) for u in units)  # warm-up, and the count

    def best(fn, repeats: int = repeats) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    raw = best(lambda: [parsers[u.lang].parse(u.source) for u in units])
    front = best(lambda: [parse_source(text, lang, filename=name) for name, lang, text in sources])
    graphs = best(lambda: [kgraph.from_unit(u, analyze=False) for u in units])
    analysed = best(lambda: [kgraph.from_unit(u) for u in units], analysis_repeats) if analysis_repeats else None
    return {"sources": len(units), "kernels": kernels, "raw_s": raw, "front_s": front, "graph_s": graphs,
            "analysis_s": analysed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.graph_throughput", description=__doc__.splitlines()[0])
    parser.add_argument("--min-kernels", type=int, default=200, help="replicate examples up to this many (fallback)")
    parser.add_argument("--repeats", type=int, default=5, help="passes over the corpus; the best is kept")
    parser.add_argument("--analysis-repeats", type=int, default=1,
                        help="passes with the static analysis (slow); 0 skips it")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.analysis_repeats < 0:
        parser.error("--repeats must be at least 1 and --analysis-repeats at least 0")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
        except OSError:
            pass
    r = measure(load_sources(args.min_kernels), args.repeats, args.analysis_repeats)
    graph_rate = r["kernels"] / r["graph_s"]
    total_rate = r["kernels"] / (r["front_s"] + r["graph_s"])
    analysed = r["analysis_s"]
    analysis_rate = f"{r['kernels'] / analysed:.0f}" if analysed else "-"
    analysis_ratio = f"{analysed / r['raw_s']:.1f}x" if analysed else "-"
    print(HEADER)
    print(f"| {r['kernels']} | {r['sources']} | {graph_rate:.0f} | {total_rate:.0f} | {analysis_rate} "
          f"| {1e3 * r['raw_s'] / r['sources']:.3f} | {r['graph_s'] / r['raw_s']:.2f}x "
          f"| {(r['front_s'] + r['graph_s']) / r['raw_s']:.1f}x | {analysis_ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
