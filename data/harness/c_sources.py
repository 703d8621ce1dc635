"""The source text a C dataset stores for a C corpus kernel, and the repair of datasets stored before.

A corpus file (``data/corpus/c/<family>.c``) is compiled twice, and its functions are named through
``kg_c.h``: ``void FN(syrk_blocked)(int n, ..., const REAL *A, ...)`` is ``syrk_blocked_d`` on double
without ``-DKG_FP32`` and ``syrk_blocked_s`` on float with it. kgraph's C front end does not expand macros
textually (:mod:`kgraph.parsers.preprocessor`), so the raw file names no function ``syrk_blocked_d`` and
its element type ``REAL`` is unknown. :func:`stored_source` therefore resolves the dtype's macros of
``kg_c.h`` in the text, and nothing else:

- the ``#include "kg_c.h"`` line is replaced by a short prelude: a comment naming the file and dtype,
  ``#include <math.h>`` and the header's dtype-independent ``#define`` lines as written (``KG_MIN``,
  ``KG_NB``: the front end folds ``KG_NB`` and expands function-like ``KG_MIN`` when counting);
- ``FN(name)`` becomes ``name`` + the dtype's suffix (``_s`` / ``_d``), and the dtype's object-like macros
  of the header's ``#ifdef KG_FP32`` block (``REAL`` -> ``float``/``double``, ``KG_SQRT`` ->
  ``sqrtf``/``sqrt``) are replaced by their values (whole identifiers, outside comments too: the text
  reads as the compiler sees it).

Every other line of the file is kept, so the text is the function the library holds, in C that the
front end parses. One text per (file, dtype): the four variants of a family share it (ids are
``source_id_of(text)``). :func:`stored_source` is the only definition: ``CKernel.source()`` and the
campaign (:mod:`kgraph.data.harness.c_campaign`) call it, and :func:`repair_c_dataset` rewrites datasets
written before (raw file + header, one text for both dtypes; ``args`` holding the dtype, core count and
variant as text, which the features cannot read as scalar arguments) to it and to :func:`call_args`:
``python -m kgraph.data.harness.c_sources DIR...``. The text itself is made by :mod:`kgraph.data.corpus.c.sources`
(the corpus layer: the harness reads it, the corpus never imports the harness).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from kgraph.data.corpus.c.sources import resolve_source, stored_source  # noqa: F401 - defined there


def source_row(kernel) -> dict:
    """The ``sources.parquet`` row (``SOURCE_SCHEMA``) of ``kernel``."""
    from .keys import source_id_of
    text = stored_source(kernel)
    return {"source_id": source_id_of(text), "lang": "c", "kernel_id": kernel.kernel_id,
            "family": f"c_{kernel.family}", "kernel_name": kernel.symbol, "source": text,
            "spec_json": kernel.spec_json()}


def call_args(family: str, sizes: dict) -> dict:
    """The scalar arguments of a call with ``sizes``, by the C parameter names and in signature order
    (``{"m": 64, "n": 64, "k": 64, "lda": 64, "ldb": 64, "ldc": 64}``; a leading dimension is the
    launch's ``ld<array>`` size when it gives one, else its array's number of rows): a row's ``args``, which the features read as the function's scalar arguments (the
    static counts are evaluated at them). The dtype, variant and OpenMP use are in ``kernel_id``, the core
    count in ``g0``."""
    from kgraph.data.corpus.c import SIGNATURES, leading_dims

    rows = leading_dims(family, sizes)
    out = {}
    for name in SIGNATURES[family]:
        if name.startswith("ld"):
            out[name.lower()] = int(rows[name[2:]])
        elif name in sizes:
            out[name] = int(sizes[name])
    return out


def repair_c_dataset(directory) -> list[str]:
    """Give every launch row of C dataset ``directory`` the source id of :func:`stored_source` of its kernel
    and rewrite ``sources.parquet`` to hold exactly those texts (under the folder's lock). Idempotent;
    returns what was done, one line each."""
    import pyarrow as pa

    from kgraph.data.corpus.c import by_id

    from .columns import SOURCE_SCHEMA
    from .store import SOURCES, DatasetStore, read_shard, write_parquet_atomic

    directory = Path(directory)
    lines = []
    with DatasetStore(directory) as store:
        store.flush()
        rows = {}
        for shard in store.manifest["shards"]:
            table = read_shard(directory, shard["file"], columns=["key", "kernel_id", "source_id", "sizes", "args"])
            for key, *values in zip(*(table.column(c).to_pylist() for c in table.column_names)):
                rows[key] = values
        sources: dict[str, dict] = {}
        updates = {}
        for key, (kernel_id, old, sizes, args) in rows.items():
            kernel = by_id(kernel_id)
            row = source_row(kernel)
            sources.setdefault(row["source_id"], row)
            new = {"source_id": row["source_id"], "args": json.dumps(call_args(kernel.family, json.loads(sizes)))}
            if (old, args) != (new["source_id"], new["args"]):
                updates[key] = new
        changed = store.update_rows(updates) if updates else 0
        old_ids = sorted(r["source_id"] for r in store._source_rows)
        new_rows = [sources[i] for i in sorted(sources)]
        if old_ids != sorted(sources) or any(
                r["source"] != sources.get(r["source_id"], {}).get("source") for r in store._source_rows):
            write_parquet_atomic(pa.Table.from_pylist(new_rows, schema=SOURCE_SCHEMA), directory / SOURCES)
            store._source_rows, store.source_ids = new_rows, set(sources)
            lines.append(f"{directory}: sources.parquet: {len(old_ids)} text(s) -> {len(new_rows)} "
                         f"(one per corpus file and dtype, kg_c.h resolved)")
        lines.append(f"{directory}: {changed} of {len(rows)} launch row(s) given their source_id and args")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or any(a.startswith("-") for a in argv):
        print("usage: python -m kgraph.data.harness.c_sources DATASET_DIR...", file=sys.stderr)
        return 2
    for directory in argv:
        for line in repair_c_dataset(directory):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
