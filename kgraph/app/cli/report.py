"""``kgraph report RUN... [--out DIR] [--no-plots]``: ablation table (markdown) and plots from runs.

A RUN is a directory written by ``python -m kgraph.models.baselines.run`` or by ``kgraph predict`` with the
``kgraph.models.predictions.PredictionWriter`` callback (or one ``predictions-*.parquet`` file).
"""
from __future__ import annotations

import sys
from pathlib import Path

from kgraph.app.cli.common import add_progress_option, progress
from kgraph.errors import UsageError


def add_arguments(parser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories or predictions parquet files")
    parser.add_argument("--out", default="runs/report", help="output directory (default: runs/report)")
    parser.add_argument("--no-plots", action="store_true", help="only the markdown table and metrics.csv")
    add_progress_option(parser)


def run(args) -> int:
    from kgraph.app.report import write_report

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    warnings: list[str] = []
    with progress(args, desc="report", unit="step") as bar:
        path = write_report(args.runs, out, plots=not args.no_plots, progress=bar, warn=warnings.append)
    for message in warnings:
        print(f"kgraph report: warning: {message}", file=sys.stderr)
    print(path.read_text().split("## Split")[0].rstrip())
    print(f"\nwrote {path} (and metrics.csv{', PNG plots' if not args.no_plots else ''}) in {out}")
    return 0
