"""``kgraph measure`` over the foreign test set (data/foreign_set): success rate and errors by cause.

    .venv/bin/python benchmarks/foreign_measure.py [--device pocl] [--only NAME ...] [--timeout-s 120]
        [--csv out.csv]

Each OpenCL kernel of the catalog is measured at its catalog launch (>= 2^20 work-items) with no
``--buffer`` (every buffer sized by the bounds-checked sizing run), in the isolated worker, exactly as
``kgraph measure FILE --kernel NAME --global ... --local ... --arg ...`` does. Prints one line per
kernel, the success rate, and a table of failures by cause (status, or the exception's class and
first words).
"""
from __future__ import annotations

import argparse
import collections
import csv
import sys
import time


def measure_entry(entry, device: str | None, timeout_s: float) -> dict:
    """One kernel measured: ``{name, status, cause, seconds, time_ms, message}``.

    Args:
        entry: a catalog ``Entry``; device: ``--device``; timeout_s: ``--timeout-s``.
    """
    from kgraph.data.foreign_set import path_of
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign
    from kgraph.errors import KGraphError

    request = ForeignRequest(path_of(entry), entry.name, tuple(entry.global_size),
                             tuple(entry.local_size) if entry.local_size else None, dict(entry.args), {}, {})
    start = time.perf_counter()
    try:
        row = measure_foreign(request, device, timeout_s=timeout_s).row
        status, message = row.get("status", "?"), row.get("message") or ""
        cause = status if status != "ok" else ""
        time_ms = (round(row["median_time_ns"] / 1e6, 4) if row.get("median_time_ns") else None)
    except KGraphError as exc:
        status, message, time_ms = "error", str(exc), None
        cause = f"{type(exc).__name__}: {' '.join(str(exc).split()[:6])}"
    return {"name": entry.name, "status": status, "cause": cause, "seconds": round(time.perf_counter() - start, 1),
            "time_ms": time_ms, "message": message.replace("\n", " ")[:300]}


def main(argv: list[str] | None = None) -> int:
    from kgraph.data.foreign_set import entries

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="pocl", help="substring of the device id (default pocl)")
    parser.add_argument("--only", nargs="*", help="only these kernels")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--csv", help="write the per-kernel table here")
    args = parser.parse_args(argv)
    todo = [e for e in entries("opencl") if not args.only or e.name in args.only]
    rows, writer, fh = [], None, None
    if args.csv:  # one row written (and flushed) per kernel: a run cut short keeps what it measured
        fh = open(args.csv, "w", newline="")
    for entry in todo:
        row = measure_entry(entry, args.device, args.timeout_s)
        rows.append(row)
        print(f"{row['name']:24s} {row['status']:16s} {row['seconds']:7.1f} s  time_ms={row['time_ms']}  "
              f"{row['message'][:120]}", flush=True)
        if fh is not None:
            if writer is None:
                writer = csv.DictWriter(fh, fieldnames=list(row))
                writer.writeheader()
            writer.writerow(row)
            fh.flush()
    if fh is not None:
        fh.close()
    ok = sum(r["status"] == "ok" for r in rows)
    print(f"\nmeasure succeeded on {ok} of {len(rows)} kernels ({100.0 * ok / max(len(rows), 1):.1f}%)")
    causes = collections.Counter(r["cause"] for r in rows if r["status"] != "ok")
    if causes:
        print("\nfailures by cause:")
        for cause, count in causes.most_common():
            print(f"  {count:3d}  {cause}")
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
