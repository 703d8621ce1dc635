"""Count again, by instrumented PoCL runs, the rows of some kernels whose instrumented counts an old front end
got wrong, and write back only what changed (2026-11-27: the cast fix of docs/PARSERS.md; the instrumenter
parsed `(gi * (K * J)) + q` as a cast too, so its integer-op counts of 122 generated kernels were short).

    KGRAPH_GENERATOR_SEED=N KGRAPH_GENERATOR_COUNT=1500 python -m benchmarks.recount_instrumented \\
        data/datasets/generated-nvidia-h200 --kernels /tmp/affected.txt --budget-s 900

Nothing is lost on the way: the rows are recounted in a copy of the folder (their counts cleared there,
``fill_counts.fill_counts`` run on it with the same ``--specs``), and only rows the copy counted are
changed in the folder, through ``DatasetStore.update_rows``, column by column where the value differs. A row
the copy could not count (over the time limit, not reached) keeps its counts. Prints what changed.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.recount_instrumented", description=__doc__.splitlines()[0])
    p.add_argument("dataset", help="dataset folder")
    p.add_argument("--kernels", required=True, help="file with one kernel id per line")
    p.add_argument("--specs", default="kgraph.data.generator:specs_from_env", help="as kgraph dataset fill-counts")
    p.add_argument("--budget-s", type=float, default=900.0, help="seconds of instrumented runs at most")
    args = p.parse_args(argv)
    from kgraph.data.harness.columns import COUNT_COLUMNS
    from kgraph.data.harness.fill_counts import FillOptions, fill_counts
    from kgraph.data.harness.store import DatasetStore, read_launches

    folder = Path(args.dataset)
    kernels = {line.strip() for line in Path(args.kernels).read_text().splitlines() if line.strip()}
    rows = read_launches(folder)
    todo = rows[(rows.status == "ok") & (rows.counts_source == "instrumented") & rows.kernel_id.isin(kernels)]
    if todo.empty:
        print(f"{folder}: no instrumented rows of those kernels")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".lock", "journal.jsonl"))
        cleared = {key: {**{c: -1 for c in COUNT_COLUMNS}, "counts_source": None} for key in todo.key}
        with DatasetStore(copy) as store:
            store.update_rows(cleared)
        for line in fill_counts(FillOptions(str(copy), specs=args.specs, budget_s=args.budget_s)).lines():
            print(line)
        new = read_launches(copy).set_index("key").loc[list(cleared)]
    old = todo.set_index("key")
    counted = new[new.counts_source.notna()]
    updates = {}
    for key, row in counted.iterrows():
        changed = {c: int(row[c]) for c in COUNT_COLUMNS if int(row[c]) != int(old.at[key, c])}
        if changed:
            updates[key] = changed
    if updates:
        with DatasetStore(folder) as store:
            store.update_rows(updates)
    columns = sorted({c for u in updates.values() for c in u})
    print(f"{folder}: {len(todo)} rows of {todo.kernel_id.nunique()} kernels, {len(counted)} recounted, "
          f"{len(updates)} changed ({', '.join(columns) or 'nothing'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
