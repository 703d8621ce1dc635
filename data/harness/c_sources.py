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
``python -m kgraph.data.harness.c_sources DIR...``.
"""
from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

C_SOURCES_VERSION = "c-src-1"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)]*\))?[ \t]*(.*?)[ \t]*(?:/\*.*\*/)?[ \t]*$")
_FN = re.compile(r"\bFN\(\s*([A-Za-z_]\w*)\s*\)")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"kg_c\.h"[^\n]*$', re.MULTILINE)
#: header macros the prelude leaves out: the include guard and the symbol-name machinery FN resolves
_RESOLVED = {"KG_C_H", "KG_CAT_", "KG_CAT", "FN", "SFX"}


def _c_dir() -> Path:
    from kgraph.data.corpus.c import C_DIR
    return C_DIR


@lru_cache(maxsize=None)
def _header(header_text: str, dtype: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """(the dtype's object-like macros of the ``#ifdef KG_FP32`` block, the other ``#define`` lines)."""
    fp32 = dtype == "fp32"
    dtype_macros: dict[str, str] = {}
    kept: list[str] = []
    branch = None  # None outside the KG_FP32 block, else whether the current group is active
    for line in header_text.splitlines():
        stripped = line.strip()
        if re.match(r"#\s*ifdef\s+KG_FP32\b", stripped):
            branch = fp32
            continue
        if branch is not None and re.match(r"#\s*else\b", stripped):
            branch = not fp32
            continue
        if branch is not None and re.match(r"#\s*endif\b", stripped):
            branch = None
            continue
        match = _DEFINE.match(line)
        if match is None:
            continue
        name, params, body = match.groups()
        if branch is not None:
            if branch and params is None:
                dtype_macros[name] = body
        elif name not in _RESOLVED:
            kept.append(line.rstrip())
    if "REAL" not in dtype_macros or "SFX" not in dtype_macros:
        raise ValueError(f"kg_c.h defines no REAL/SFX for {dtype} (found {sorted(dtype_macros)})")
    return dtype_macros, tuple(kept)


def resolve_source(file_text: str, header_text: str, dtype: str, file_name: str = "") -> str:
    """The stored text of corpus file ``file_text`` compiled for ``dtype`` (``fp32``/``fp64``) with header
    ``header_text`` (see the module doc)."""
    if dtype not in ("fp32", "fp64"):
        raise ValueError(f"dtype {dtype!r}: fp32 or fp64")
    macros, kept = _header(header_text, dtype)
    suffix = macros["SFX"]
    values = {name: value for name, value in macros.items() if name != "SFX"}
    flag = " -DKG_FP32" if dtype == "fp32" else ""
    prelude = "\n".join([
        f"/* kgraph C corpus: {file_name or 'a C corpus file'} for {dtype} (cc{flag}), with kg_c.h resolved: "
        + ", ".join(f"{name} = {value}" for name, value in values.items()) + f", FN(name) = name{suffix} */",
        "#include <math.h>", *kept])
    text, count = _INCLUDE.subn(lambda _: prelude, file_text, count=1)
    if count == 0:
        text = prelude + "\n" + file_text
    text = _FN.sub(lambda m: m.group(1) + suffix, text)
    if values:
        text = re.sub(r"\b(" + "|".join(map(re.escape, values)) + r")\b", lambda m: values[m.group(1)], text)
    return text


def stored_source(kernel) -> str:
    """The text a dataset stores for catalog kernel ``kernel`` (a :class:`kgraph.data.corpus.c.CKernel`):
    its corpus file with ``kg_c.h`` resolved for its dtype."""
    c_dir = _c_dir()
    return resolve_source((c_dir / kernel.file).read_text(), (c_dir / "kg_c.h").read_text(), kernel.dtype,
                          kernel.file)


def source_row(kernel) -> dict:
    """The ``sources.parquet`` row (``SOURCE_SCHEMA``) of ``kernel``."""
    from .keys import source_id_of
    text = stored_source(kernel)
    return {"source_id": source_id_of(text), "lang": "c", "kernel_id": kernel.kernel_id,
            "family": f"c_{kernel.family}", "kernel_name": kernel.symbol, "source": text,
            "spec_json": kernel.spec_json()}


def call_args(family: str, sizes: dict) -> dict:
    """The scalar arguments of a call with ``sizes``, by the C parameter names and in signature order
    (``{"m": 64, "n": 64, "k": 64, "lda": 64, "ldb": 64, "ldc": 64}``; a leading dimension is its array's
    number of rows): a row's ``args``, which the features read as the function's scalar arguments (the
    static counts are evaluated at them). The dtype, variant and OpenMP use are in ``kernel_id``, the core
    count in ``g0``."""
    from kgraph.data.corpus.c import SIGNATURES, shapes

    rows = {name: r for name, (r, _) in shapes(family, sizes).items()}
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
