"""Recount the rows whose counts came from the static analysis, after a fix of the analysis (2026-11-26:
guarded triangular trips, docs/ANALYSIS.md; 2026-11-27: casts read for products, exact static footprints),
and rewrite the rows whose counts changed.

    python -m benchmarks.refresh_static_counts data/datasets/pocl-skylake-avx512-intel-xeon ... [--dry-run]

For every ok row with ``counts_source`` ``"static"`` or ``"static-inexact"``: the analysis at the row's launch (sizes and scalar
arguments, global and local size; ``kgraph.data.harness.counts.static_counts``, as a campaign counts), and
where a count differs, the new counts go back through ``DatasetStore.update_rows`` (whole shards rewritten
atomically; keys, row counts and the manifest unchanged; the derived columns are not stored, readers compute
them from the counts and the folder's roofline). The footprint is written where the static analysis marks it
exact (as a campaign's static counts carry it since 2026-11-27); an inexact one leaves the row's as it was.
Prints, per folder, the rows checked and changed, and the kernels they belong to. ``--relabel`` also writes each
such row's label as the harness gives it today (``kgraph.data.harness.counts.static_source``: ``static-inexact``
where the exactness rule of :mod:`kgraph.exact_counts` calls the kernel's counts inexact); without it labels are kept
(docs/DATASETS.md "Session 21": the generator's balanced branches are exact though the rule cannot tell).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.refresh_static_counts", description=__doc__.splitlines()[0])
    p.add_argument("datasets", nargs="+", help="dataset folders")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    p.add_argument("--relabel", action="store_true",
                   help="also label each static row static or static-inexact by today's exactness rule")
    args = p.parse_args(argv)
    import pandas as pd

    from kgraph.data.harness.columns import COUNT_COLUMNS
    from kgraph.data.harness.counts import INEXACT_SOURCE, static_counts, static_source
    from kgraph.data.harness.store import DatasetStore, read_launches

    for folder in map(Path, args.datasets):
        device = json.loads((folder / "device.json").read_text())
        rows = read_launches(folder)
        sources = pd.read_parquet(folder / "sources.parquet").set_index("source_id")
        todo = rows[(rows.status == "ok") & rows.counts_source.isin(("static", INEXACT_SOURCE))]
        updates, kernels, relabelled, labels = {}, set(), 0, {}
        for r in todo.to_dict("records"):
            src = sources.loc[r["source_id"]]
            dims = int(r["dims"])
            scalars = {**json.loads(r["sizes"] or "{}"), **json.loads(r["args"] or "{}")}
            scalars = {k: v for k, v in scalars.items() if isinstance(v, (int, float))}
            try:
                new = static_counts(src["source"], src["lang"], r["kernel_name"], scalars,
                                    [r[f"g{d}"] for d in range(dims)], [r[f"l{d}"] for d in range(dims)])
            except Exception as exc:  # noqa: BLE001 - a row the analysis cannot count keeps its counts
                print(f"  {r['kernel_id']}: not recounted ({type(exc).__name__}: {str(exc)[:80]})", file=sys.stderr)
                continue
            changed = {c: new[c] for c in COUNT_COLUMNS if new.get(c, -1) >= 0 and int(r[c]) != new[c]}
            if changed:
                kernels.add(r["kernel_id"])
            if args.relabel:
                which = (r["source_id"], r["kernel_name"])
                if which not in labels:
                    labels[which] = static_source(src["source"], src["lang"], r["kernel_name"])
                if labels[which] != r["counts_source"]:
                    changed["counts_source"] = labels[which]
                    relabelled += 1
            if changed:
                updates[r["key"]] = changed
        recounted = sum(any(c != "counts_source" for c in u) for u in updates.values())
        print(f"{folder}: {len(todo)} static rows, {recounted} recounted "
              f"({', '.join(sorted(kernels)) or 'none'})" + (f", {relabelled} relabelled" if args.relabel else ""))
        if updates and not args.dry_run:
            with DatasetStore(folder, device_id=device["device_id"]) as store:
                store.update_rows(updates)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
