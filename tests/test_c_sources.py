"""The source text C datasets store for the C corpus (data/harness/c_sources.py): parseable by kgraph's C
front end with each function under its library name, the same for the campaign and the repair, and what
the committed c-amd-epyc datasets hold."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgraph.data.corpus.c import C_DIR, catalog, by_id
from kgraph.data.harness.c_sources import call_args, repair_c_dataset, source_row, stored_source
from kgraph.data.harness.keys import source_id_of

ROOT = Path(__file__).resolve().parents[1]
C_DATASETS = sorted((ROOT / "data" / "datasets" / "c-amd-epyc").glob("cpu-c-*"))


def _old_text(kernel) -> str:
    """What the campaign stored before: kg_c.h + the raw file, one text for both dtypes."""
    return (C_DIR / "kg_c.h").read_text() + "\n" + kernel.path.read_text()


@pytest.mark.parametrize("kernel", catalog(), ids=lambda k: k.kernel_id)
def test_stored_source_parses_and_analyses(kernel):
    from kgraph.analysis import analyze
    from kgraph.parsers import parse_source

    text = stored_source(kernel)
    assert "FN(" not in text and "REAL" not in text and '#include "kg_c.h"' not in text
    unit = parse_source(text, "c", filename=kernel.file)
    assert not unit.errors
    function = unit.function(kernel.symbol)
    assert function is not None and function.is_kernel
    element = "float" if kernel.dtype == "fp32" else "double"
    assert any(p.is_pointer and p.base_type == element for p in function.params)
    counts = analyze(function, unit).counts
    flops, other = ("flops_fp32", "flops_fp64") if kernel.dtype == "fp32" else ("flops_fp64", "flops_fp32")
    assert str(counts[other]) == "0" and str(counts[flops]) != "0"
    assert {"n"} <= {s.name for s in counts[flops].free_symbols}


def test_old_text_names_no_function():
    """The raw corpus file names its functions through FN(): the front end finds none of them."""
    from kgraph.parsers import parse_source

    kernel = by_id("c.syrk.blocked.fp64")
    assert parse_source(_old_text(kernel), "c").function(kernel.symbol) is None
    assert kernel.source() == stored_source(kernel) != _old_text(kernel)


def test_one_text_per_file_and_dtype():
    texts = {(k.file, k.dtype): stored_source(k) for k in catalog()}
    assert len(set(texts.values())) == 10 == len(texts)
    assert texts[("potrf.c", "fp32")].count("sqrtf(") >= 1 and "sqrtf(" not in texts[("potrf.c", "fp64")]


def test_call_args_are_the_scalar_arguments():
    assert call_args("gemm", {"m": 3, "n": 4, "k": 5}) == {"m": 3, "n": 4, "k": 5, "lda": 3, "ldb": 4, "ldc": 3}
    assert list(call_args("trsm", {"m": 7, "n": 2})) == ["m", "n", "ldl", "ldb"]
    assert call_args("getrf", {"m": 64, "n": 16}) == {"m": 64, "n": 16, "lda": 64}


def test_campaign_row_uses_the_same_source_and_args():
    from kgraph.data.harness import c_campaign
    from kgraph.data.harness.c_runner import CTimingPolicy

    kernel = by_id("c.getrf.omp.fp32")
    sizes = {"m": 32, "n": 16}
    row = c_campaign.make_row("cpu-c-x-2c", kernel, sizes, 2, source_row(kernel)["source_id"],
                              {"status": "timeout", "message": "t"}, CTimingPolicy())
    assert row["source_id"] == source_id_of(stored_source(kernel))
    assert json.loads(row["args"]) == call_args("getrf", sizes)


@pytest.mark.parametrize("folder", C_DATASETS, ids=lambda p: p.name)
def test_committed_datasets_hold_the_stored_sources(folder):
    from kgraph.data.harness.store import read_manifest, read_shard, read_sources_table

    sources = {r["source_id"]: r for r in read_sources_table(folder).to_pylist()}
    assert len(sources) == 10
    for shard in read_manifest(folder)["shards"]:
        table = read_shard(folder, shard["file"], columns=["kernel_id", "source_id", "sizes", "args"]).to_pylist()
        for row in table:
            kernel = by_id(row["kernel_id"])
            assert sources[row["source_id"]]["source"] == stored_source(kernel)
            assert json.loads(row["args"]) == call_args(kernel.family, json.loads(row["sizes"]))


def test_repair_turns_old_rows_into_what_the_campaign_writes(tmp_path):
    """A copy of the 2-core dataset put back to the old texts and args is repaired to the campaign's."""
    import pyarrow as pa

    from kgraph.data.harness.columns import SOURCE_SCHEMA
    from kgraph.data.harness.store import SOURCES, DatasetStore, read_shard, write_parquet_atomic
    from kgraph.data.harness.validate import validate_dataset

    folder = tmp_path / "ds"
    shutil.copytree(C_DATASETS[-1], folder, ignore=shutil.ignore_patterns(".lock"))
    old_rows = {}
    with DatasetStore(folder) as store:
        updates = {}
        for shard in store.manifest["shards"]:
            for row in read_shard(folder, shard["file"], columns=["key", "kernel_id"]).to_pylist():
                kernel = by_id(row["kernel_id"])
                old = _old_text(kernel)
                old_rows[source_id_of(old)] = {**source_row(kernel), "source_id": source_id_of(old), "source": old}
                updates[row["key"]] = {"source_id": source_id_of(old),
                                       "args": json.dumps({"dtype": kernel.dtype, "cores": 2, "variant": kernel.variant})}
        store.update_rows(updates)
        write_parquet_atomic(pa.Table.from_pylist(list(old_rows.values()), schema=SOURCE_SCHEMA), folder / SOURCES)
        store._source_rows = list(old_rows.values())
    lines = repair_c_dataset(folder)
    assert any("5 text(s) -> 10" in line for line in lines)
    assert repair_c_dataset(folder)[-1].startswith(f"{folder}: 0 of ")  # idempotent
    test_committed_datasets_hold_the_stored_sources(folder)
    assert not validate_dataset(folder)
