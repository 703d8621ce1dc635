"""What giving a data-dependent loop's mean trip count does to an estimate: the foreign set's ``csr_spmv``.

    .venv/bin/python -m benchmarks.trip_count_hint [--models v6=models/default v9=DIR ...]

The foreign-set harness fills ``csr_spmv``'s row pointers as monotone offsets whose steps are uniform in
``0 .. ROW_MAX`` (:mod:`kgraph.data.instrumented.contents`, the buffer's role ``rows``), so a row's length
``a[g+1] - a[g]`` has the mean ``ROW_MAX / 2`` (:func:`mean_row_length`). Each model estimates the
catalog launch without and with ``trip_8`` at that mean, beside the measured time on the H200 and the H100
(the foreign set's CSVs). Prints a markdown table.
"""
from __future__ import annotations

import argparse
import csv

MEASURED = {"h200": "benchmarks/results/foreign_h200/foreign_h200.csv",
            "h100": "benchmarks/results/h100_out_of_corpus/foreign_h100_measured.csv"}


def mean_row_length() -> float:
    """The mean of a step uniform on ``0 .. ROW_MAX``: a row's mean length in the harness's row pointers."""
    from kgraph.data.instrumented.contents import ROW_MAX

    return ROW_MAX / 2


def main(argv: list[str] | None = None) -> int:
    import kgraph
    from kgraph.data.foreign_set import entries, path_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["v6=models/default"], metavar="NAME=DIR")
    args = parser.parse_args(argv)
    entry = next(e for e in entries("opencl") if e.name == "csr_spmv")
    n, mean = entry.global_size[0], mean_row_length()
    print(f"csr_spmv, {n} rows, mean row length {mean:.3f}\n")
    print("| model | device | measured | without the mean | with it |\n|---|---|---|---|---|")
    for spec in args.models:
        name, _, directory = spec.partition("=")
        model = kgraph.load_model(directory or None)
        for device, path in MEASURED.items():
            measured = next(float(r["time_ms"]) * 1e3 for r in csv.DictReader(open(path)) if r["name"] == "csr_spmv")
            times = [model.estimate(str(path_of(entry)), "csr_spmv", list(entry.global_size), list(entry.local_size),
                                    {"f": n, **trips}, device=device)["time_ns"] / 1e3
                     for trips in ({}, {"trip_8": mean})]
            print(f"| {name} | {device.upper()} | {measured:.1f} µs | {times[0]:.1f} µs (×{times[0] / measured:.2f}) | "
                  f"{times[1]:.1f} µs (×{times[1] / measured:.2f}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
