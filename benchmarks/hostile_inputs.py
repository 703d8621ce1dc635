"""Hostile inputs: how long ``kgraph parse`` takes on the worst cases of the hardening issue, and what it says.

Every case is a file written to a temporary folder and run through what ``kgraph parse FILE --json`` does
(:func:`kgraph.app.cli.main.main`: parse, kernel graphs, static analysis, summaries), in a fresh subprocess
with the imports already done (the clock covers the command itself, not Python's start) and a wall-clock
guard (``--timeout``, default 120 s). The cases:

* the issue's rows: 100 KB and 4 MB of unclosed ``{`` (row 1), a valid 3.9 MB file of 13.6k small kernels
  and one kernel of 480k statements (row 2, also 40k statements), ``x[i << 99999999999]`` (row 3),
  ``reqd_work_group_size(1e999,1,1)`` and ``(1<<40000000000,1,1)``, an array of ``1<<2000000000``
  elements (row 4);
* other ~4 MB shapes that hit a limit (brackets, statements, syntax depth and size, functions, literals),
  or none (one 4 MB comment, a 4 MB string, a macro that doubles 20 times);
* sources *at* the limits, which are analysed (the slowest inputs that are not refused).

* the same kernel at growing sizes below the limits (``scaling_*``): time per statement and per kernel
  stays flat (linear time on accepted input).

Prints a markdown table: case, bytes, seconds, outcome (``refused`` with the diagnostic, ``ok`` with the
kernel count, or ``syntax errors``). The worst cases of rows 1-2 are held to the issue's bound, parsing +
analysis <= 2 s each (``--budget``): the run exits 1 when one exceeds it. Run:
``python -m benchmarks.hostile_inputs`` (``--rows`` for those five cases only, ``--only NAME`` for some
cases, ``--list`` to list them).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

MB4 = 4 * 1024 * 1024 - 4096  # just under the 4 MiB source limit
HEAD = "__kernel void k(__global float*x){"


def _repeat(unit: str, total: int) -> str:
    return unit * max(1, total // len(unit))


def _kernels(n: int) -> str:
    return "".join(f"__kernel void k{i}(__global float*x){{int i=get_global_id(0); x[i]=x[i+1]+1.0f;}}\n"
                   for i in range(n))


def _statements(n: int) -> str:
    return HEAD + "int i=get_global_id(0);\n" + "".join(f"  x[i+{j % 97}] = x[i+{(j + 1) % 97}] + 1.0f;\n"
                                                      for j in range(n)) + "}\n"


def _loops(n: int) -> str:
    return ("__kernel void k(__global float*x, int n){int i=get_global_id(0);\n"
            + "".join(f"  for (int j{j} = 0; j{j} < n; j{j}++) x[i*n+j{j}] += 1.0f;\n" for j in range(n)) + "}\n")


def _small_kernels(total: int) -> str:
    one = "__kernel void k{}(__global float*x){{int i=get_global_id(0); if (i < 64) x[i] = x[i] * 2.0f + 1.0f;}}\n"
    out, n, size = [], 0, 0
    while size < total:
        s = one.format(n)
        out.append(s)
        size += len(s)
        n += 1
    return "".join(out)


def _macro_doubling(levels: int) -> str:
    lines = ["#define M0 1"] + [f"#define M{i} (M{i - 1} + M{i - 1})" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\n{HEAD}x[0] = M{levels};}}\n"


# name -> (what it is, source text). Sizes in the names are approximate; the table gives the bytes.
CASES: dict[str, tuple[str, callable]] = {
    "row01_unclosed_braces_100k": ("row 1: kernel header + 100,000 '{'", lambda: HEAD + "{" * 100_000),
    "row01_unclosed_braces_4mb": ("row 1 at 4 MB", lambda: HEAD + "{" * (MB4 - len(HEAD))),
    "row02_small_kernels_3.9mb": ("row 2: 13.6k small kernels", lambda: _small_kernels(3_900_000)),
    "row02_statements_480k": ("row 2: one kernel, 480k statements",
                              lambda: HEAD + "x[0]=1;" * 480_000 + "}\n"),
    "row02_statements_40k": ("row 2: one kernel, 40k statements", lambda: _statements(40_000)),
    "row03_huge_shift": ("row 3: x[i << 99999999999]",
                         lambda: HEAD + "int i=get_global_id(0); x[i << 99999999999] = 1.0f;}\n"),
    "row04_reqd_wg_1e999": ("row 4: reqd_work_group_size(1e999,1,1)",
                            lambda: "__kernel __attribute__((reqd_work_group_size(1e999,1,1))) "
                                    "void k(__global float*x){x[0]=1;}\n"),
    "row04_reqd_wg_shift": ("row 4: reqd_work_group_size(1<<40000000000,1,1)",
                            lambda: "__kernel __attribute__((reqd_work_group_size(1<<40000000000,1,1))) "
                                    "void k(__global float*x){x[0]=1;}\n"),
    "row04_array_shift": ("row 4: float a[1<<2000000000]",
                          lambda: HEAD + "float a[1<<2000000000]; x[0]=a[0];}\n"),
    "open_parens_4mb": ("4 MB of unclosed '('", lambda: HEAD + "x[0]=" + "(" * (MB4 - 40)),
    "balanced_braces_4mb": ("'{}' x 2M in one kernel", lambda: HEAD + _repeat("{}", MB4 - 40) + "}"),
    "empty_statements_4mb": ("';' x 4M in one kernel", lambda: HEAD + ";" * (MB4 - 40) + "}"),
    "plus_chain_4mb": ("x[0] = 1+1+...+1 (2M terms)", lambda: HEAD + "x[0]=" + _repeat("1+", MB4 - 40) + "1;}"),
    "unary_chain_4mb": ("x[0] = - - - ... 1 (4M operators)", lambda: HEAD + "x[0]=" + "-" * (MB4 - 40) + "1;}"),
    "if_chain_4mb": ("if(x[0]) if(x[0]) ... (520k, no braces)",
                     lambda: HEAD + _repeat("if(x[0])", MB4 - 40) + "x[0]=1;}"),
    "call_args_4mb": ("max(x[0], x[0], ...) with 600k arguments",
                      lambda: HEAD + "x[0]=max(" + _repeat("x[0],", MB4 - 40) + "x[0]);}"),
    "case_labels_4mb": ("switch with 500k 'case 1:' labels",
                        lambda: HEAD + "switch(x[0]){" + _repeat("case 1:", MB4 - 60) + "x[0]=1;}}"),
    "table_4mb": ("__constant table of 1M entries",
                  lambda: "__constant float t[] = {" + _repeat("1.5f,", MB4 - 80) + "1.5f};\n"
                          + HEAD + "x[0]=t[0];}\n"),
    "tiny_kernels_4mb": ("60k one-statement kernels", lambda: _repeat("__kernel void k(__global float*x){x[0]=1;}\n", MB4)),
    "stray_tokens_4mb": ("4M '@' in a kernel", lambda: HEAD + "@" * (MB4 - 40) + "}"),
    "errors_per_line_4mb": ("80k kernels with a syntax error each",
                            lambda: _repeat(HEAD + "x[0]=x[1]+1.0f @;}\n", MB4)),
    "long_literal_4mb": ("one 4M-digit integer literal", lambda: HEAD + "x[0]=" + "9" * (MB4 - 40) + ";}"),
    "comment_4mb": ("one 4 MB comment, then a kernel", lambda: "/*" + "x" * (MB4 - 80) + "*/\n" + HEAD + "x[0]=1;}\n"),
    "string_4mb": ("one 4 MB string literal", lambda: HEAD + 'const char*s="' + "x" * (MB4 - 80) + '"; x[0]=1;}\n'),
    "macro_doubling_20": ("#define Mi (M(i-1) + M(i-1)), 20 levels", lambda: _macro_doubling(20)),
    "macro_doubling_40k": ("the same, 40k levels (1.3 MB)", lambda: _macro_doubling(40_000)),
    "at_limit_500_kernels": ("at MAX_FUNCTIONS: 500 kernels", lambda: _kernels(500)),
    "plus_chain_10k": ("x[0] = 1+1+...+1 (10k terms: depth, not size)",
                       lambda: HEAD + "x[0]=" + "1+" * 10_000 + "1;}"),
    "chain_then_stray_tokens": ("x[0] = x+x+... (10k terms), then 39k stray tokens: tree-sitter's slowest "
                                "recovery under the token limit", lambda: HEAD + "x[0]=" + "x+" * 10_000 + "@ x " * 39_000),
    "at_limit_statements": ("near MAX_STATEMENTS and MAX_SYNTAX_NODES: one kernel of 3,500 statements",
                            lambda: _statements(3_500)),
    "at_limit_nodes": ("near MAX_SYNTAX_NODES: one call with 16k arguments",
                       lambda: HEAD + "x[0]=max(" + "x[0]," * 16_000 + "x[0]);}"),
    "at_limit_loops": ("at MAX_STATEMENTS: one kernel of 1,600 loops", lambda: _loops(1_600)),
    # linear time on accepted input: the same kernel at 1/4, 1/2 and ~all of MAX_STATEMENTS (the time
    # per statement stays flat; the 40k-statement kernel of row 2 took 14.7 s, O(n^2), before the fix)
    "scaling_statements_900": ("linear scaling: one kernel of 900 statements", lambda: _statements(900)),
    "scaling_statements_1800": ("linear scaling: one kernel of 1,800 statements", lambda: _statements(1_800)),
    "scaling_statements_3600": ("linear scaling: one kernel of 3,600 statements", lambda: _statements(3_600)),
    "scaling_kernels_120": ("linear scaling: 120 small kernels", lambda: _small_kernels(120 * 99)),
    "scaling_kernels_480": ("linear scaling: 480 small kernels", lambda: _small_kernels(480 * 99)),
}

BUDGET_S = 2.0
"""The issue's bound for parsing + analysis of the 4 MB worst cases of rows 1-2 (``--budget``)."""
WORST_CASES = ["row01_unclosed_braces_100k", "row01_unclosed_braces_4mb", "row02_small_kernels_3.9mb",
               "row02_statements_480k", "row02_statements_40k"]
"""The rows 1-2 cases held to the budget (``--rows`` runs only these); a run fails (exit 1) when one of
them exceeds it, crashes or hangs."""


def _outcome(rc: int, out: str, err: str) -> str:
    first = next((line for line in err.splitlines() if ": error: " in line), None)
    if rc == 0:
        kernels = sum(len(f["kernels"]) for f in json.loads(out)["files"])
        return f"ok: {kernels} kernel{'s' if kernels != 1 else ''}"
    if first is not None and "limit " in first:
        return "refused: " + first.split(": error: ", 1)[1].split(" (limit")[0] + _where(first)
    if first is not None:
        n = sum(": error: " in line for line in err.splitlines())
        return f"syntax errors ({n} shown): {first.split(': error: ', 1)[1][:50]}"
    return f"exit {rc}: {(err.strip().splitlines() or [''])[-1][:80]}"


def _where(line: str) -> str:
    m = re.search(r":(\d+):(\d+): error:", line)
    return f" (at {m.group(1)}:{m.group(2)})" if m else ""


_CHILD = r"""
import io, json, sys, time, contextlib
import kgraph.analysis, kgraph.builder, kgraph.app.cli.parse, kgraph.parsers  # imports outside the clock
from kgraph.app.cli.main import main
out, err = io.StringIO(), io.StringIO()
t = time.perf_counter()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = main(["parse", sys.argv[1], "--json"])
seconds = time.perf_counter() - t
print(json.dumps({"rc": rc, "seconds": seconds, "out": out.getvalue(), "err": err.getvalue()}))
"""


def run_case(path: str, timeout: float) -> tuple[float | None, str]:
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"TIMEOUT after {timeout:.0f} s"
    if proc.returncode != 0 or not proc.stdout.strip():
        return None, f"crash (exit {proc.returncode}): {(proc.stderr.strip().splitlines() or [''])[-1][:80]}"
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    return res["seconds"], _outcome(res["rc"], res["out"], res["err"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None, help="case names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before a case counts as a hang")
    ap.add_argument("--rows", action="store_true", help="only the worst cases of rows 1-2 (held to --budget)")
    ap.add_argument("--budget", type=float, default=BUDGET_S,
                    help="seconds allowed to each rows 1-2 worst case (default %(default)s); exit 1 past it")
    args = ap.parse_args(argv)
    if args.list:
        for name, (what, _) in CASES.items():
            print(f"{name}: {what}")
        return 0
    names = WORST_CASES if args.rows else args.only or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    print("| case | bytes | seconds | outcome |\n|---|---|---|---|")
    worst, over = 0.0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            what, make = CASES[name]
            path = os.path.join(tmp, name + ".cl")
            with open(path, "w") as fh:
                fh.write(make())
            seconds, outcome = run_case(path, args.timeout)
            worst = max(worst, seconds if seconds is not None else float("inf"))
            shown = f"{seconds:.2f}" if seconds is not None else "—"
            if name in WORST_CASES and (seconds is None or seconds > args.budget):
                over.append(name)
                shown += f" (over {args.budget:g} s)"
            print(f"| `{name}` ({what}) | {os.path.getsize(path):,} | {shown} | {outcome.replace('|', '/')} |",
                  flush=True)
            os.remove(path)
    print(f"\nslowest: {worst:.2f} s ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs)")
    held = [n for n in names if n in WORST_CASES]
    if held:
        print(f"rows 1-2 worst cases: {len(held) - len(over)} of {len(held)} within {args.budget:g} s"
              + (f"; over: {', '.join(over)}" if over else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
