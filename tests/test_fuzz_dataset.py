"""Fuzzing of dataset folders (guard and property: :mod:`tests.fuzz_guard`).

A copy of ``data/datasets/ci-tiny`` with the manifest, shards (bytes and table contents),
``sources.parquet``, ``device.json`` and the journal damaged, files deleted, orphan shards, symlinks
pointing out of the folder, through ``validate_dataset``, ``describe_dataset``, ``read_launches``,
``DatasetStore`` (open + close, which replays and commits) and ``repair_dataset``.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz_guard import (  # noqa: F401 - base, _report_and_originals: the module fixtures
    COUNTS, DATASET, _DEVICE, _SHARDS, _clear, _digest, _dumps, _report_and_originals, _settings, base,
    count_input, guarded, json_mutation, sandbox)

_MANIFEST = json.loads((DATASET / "manifest.json").read_text())
_FILES = ["manifest.json", "device.json", "sources.parquet", *_SHARDS]


def _table_mutation(draw, table):
    """An arrow table with a column dropped, nulled, retyped or overwritten with hostile values, rows
    sliced or repeated."""
    import pyarrow as pa

    op = draw(st.sampled_from(["drop", "null", "retype", "values", "slice", "repeat", "empty"]))
    names = table.column_names
    col = draw(st.sampled_from(names))
    i = names.index(col)
    n = table.num_rows
    if op == "drop":
        return table.drop_columns([col])
    if op == "null":
        return table.set_column(i, col, pa.nulls(n, table.schema.field(col).type))
    if op == "retype":
        return table.set_column(i, col, pa.array([draw(st.sampled_from(["x", "", "\x00"]))] * n))
    if op == "values":
        t = table.schema.field(col).type
        if pa.types.is_floating(t):
            v = draw(st.sampled_from([float("nan"), float("inf"), -1.0, 0.0, 1e308, -1e308]))
        elif pa.types.is_integer(t):  # the extremes of the column's own width (a wider one cannot be stored)
            bits = t.bit_width - 1
            v = draw(st.sampled_from([-1, 0, 2**bits - 1, -(2**bits)]))
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            v = draw(st.sampled_from(["", "x", "../../etc/passwd", "ok", "\x00" * 3, "a" * 10_000]))
        else:
            return table.set_column(i, col, pa.nulls(n, t))
        k = draw(st.integers(0, max(0, n - 1)))
        values = table.column(col).to_pylist()
        if values:
            values[k] = v
        return table.set_column(i, col, pa.array(values, type=t))
    if op == "slice":
        return table.slice(0, draw(st.integers(0, n)))
    if op == "repeat":
        return pa.concat_tables([table, table.slice(0, draw(st.integers(1, max(1, n))))])
    return table.slice(0, 0)


@st.composite
def dataset_ops(draw):
    """A list of damages, applied in order by :func:`_damage` (drawn values baked in)."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["manifest", "manifest", "manifest_shards", "device", "bytes", "bytes", "table",
                                     "table", "table", "delete", "orphan", "symlink", "journal", "dir"]))
        if kind == "manifest":
            ops.append(("write", "manifest.json", _dumps(draw(json_mutation(_MANIFEST)))))
        elif kind == "manifest_shards":
            m = json.loads(json.dumps(_MANIFEST))
            bad = draw(st.sampled_from(["../../../etc/passwd", "/etc/passwd", "../outside/launches-00000.parquet",
                                        "launches-00000.parquet", "", ".", "launches-99999.parquet",
                                        "damaged/launches-00000.parquet", "manifest.json", "x" * 300]))
            idx = draw(st.integers(0, len(m["shards"]) - 1))
            field = draw(st.sampled_from(["file", "rows"]))
            m["shards"][idx][field] = bad if field == "file" else draw(st.sampled_from([0, -1, 10**12, 224, 49, "1", None]))
            ops.append(("write", "manifest.json", _dumps(m)))
        elif kind == "device":
            ops.append(("write", "device.json", _dumps(draw(json_mutation(_DEVICE)))))
        elif kind == "bytes":
            name = draw(st.sampled_from(_FILES))
            ops.append(("bytes", name, draw(st.integers(0, 2**31)), draw(st.sampled_from(["truncate", "flip", "garbage",
                                                                                            "empty"]))))
        elif kind == "table":
            name = draw(st.sampled_from(["sources.parquet", *_SHARDS]))
            ops.append(("table", name, draw(st.randoms(use_true_random=False)).random()))
        elif kind == "delete":
            ops.append(("delete", draw(st.sampled_from(_FILES))))
        elif kind == "orphan":
            ops.append(("copy", draw(st.sampled_from(_SHARDS)), draw(st.sampled_from(["launches-00002.parquet",
                                                                                    "launches-00009.parquet",
                                                                                    "launches-00002.parquet.tmp"]))))
        elif kind == "symlink":
            ops.append(("symlink", draw(st.sampled_from(_FILES + ["journal.jsonl", "launches-00002.parquet"]))))
        elif kind == "journal":
            lines = []
            for _ in range(draw(st.integers(1, 4))):
                entry = draw(st.sampled_from(["row", "row", "source", "failed", "ceiling", "junk"]))
                lines.append(entry)
            ops.append(("journal", tuple(lines), draw(st.integers(0, 2**31))))
        else:
            ops.append(("dir", draw(st.sampled_from(_FILES + ["damaged", "journal.jsonl"]))))
    return ops, draw(st.data())


_FIRST_ROW = None


def _first_row():
    global _FIRST_ROW
    if _FIRST_ROW is None:
        import pyarrow.parquet as pq

        _FIRST_ROW = pq.read_table(DATASET / _SHARDS[0]).slice(0, 1).to_pylist()[0]
    return _FIRST_ROW


def _damage(folder: Path, outside: Path, ops, data):
    import random

    import pyarrow.parquet as pq

    for op in ops:
        kind, name = op[0], op[1]
        path = folder / name if isinstance(name, str) else None
        if kind == "write":
            _clear(path)
            path.write_bytes(op[2])
        elif kind == "bytes" and path.is_file():
            raw, k, how = path.read_bytes(), op[2], op[3]
            if how == "truncate":
                raw = raw[:k % max(1, len(raw))]
            elif how == "flip" and raw:
                i = k % len(raw)
                raw = raw[:i] + bytes([raw[i] ^ (1 << (k % 8))]) + raw[i + 1:]
            elif how == "garbage":
                raw = random.Random(k).randbytes(1 + k % 4096)
            else:
                raw = b""
            path.write_bytes(raw)
        elif kind == "table" and path.is_file():
            try:
                table = pq.read_table(path)
            except Exception:  # noqa: BLE001 - damaged by an earlier op: leave it
                continue
            table = _table_mutation(data.draw, table)
            pq.write_table(table, path)
        elif kind == "delete":
            _clear(path)
        elif kind == "copy" and path.is_file() and not path.is_symlink():
            _clear(folder / op[2])
            shutil.copyfile(path, folder / op[2])
        elif kind == "symlink":
            _clear(path)
            os.symlink(outside / ("canary-" + name), path)
        elif kind == "journal":
            rnd = random.Random(op[2])
            row = dict(_first_row())
            lines = []
            for entry in name:
                if entry == "row":
                    r = dict(row, t="row", key=rnd.choice([row["key"], "fuzz-" + str(rnd.random())]))
                    r[rnd.choice(sorted(row))] = rnd.choice([None, "x", -1, 1e308, [], {}, 2**70])
                    lines.append(json.dumps(r, default=str))
                elif entry == "source":
                    lines.append(json.dumps({"t": "source", "source_id": rnd.choice(["s", None, 1, []]),
                                             "source": rnd.choice(["", "x", None])}))
                elif entry == "failed":
                    lines.append(json.dumps({"t": "failed", "kernel_id": rnd.choice(["k", None, 1]), "status": "crash"}))
                elif entry == "ceiling":
                    lines.append(json.dumps({"t": "ceiling", "kernel_id": "k", "work": rnd.choice([1, "x", None])}))
                else:
                    lines.append(rnd.choice(["{", "[1,2]", "null", "\x00\xff", '{"t": "row"}', "1e999"]))
            _clear(folder / "journal.jsonl")
            (folder / "journal.jsonl").write_text("\n".join(lines) + rnd.choice(["\n", ""]), errors="surrogateescape")
        elif kind == "dir":
            if not (path.is_dir() and not path.is_symlink()):
                _clear(path)
                path.mkdir()


def _check_dataset(base: Path, ops, data):
    from kgraph.data.harness.describe import describe_dataset
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.data.harness.repair import repair_dataset
    from kgraph.data.harness.store import DatasetStore, read_launches
    from kgraph.data.harness.validate import validate_dataset

    count_input("dataset")
    with sandbox(base) as box:
        folder, outside = box / "ds", box / "outside"
        shutil.copytree(DATASET, folder)
        outside.mkdir()
        for name in _FILES + ["journal.jsonl", "launches-00002.parquet"]:  # what planted symlinks point at
            (outside / ("canary-" + name)).write_bytes(b"canary " + name.encode())
        _damage(folder, outside, ops, data)
        canary = _digest(outside)
        steps = [("validate", lambda: validate_dataset(folder)), ("describe", lambda: describe_dataset(folder)),
                 ("read", lambda: read_launches(folder)), ("device", lambda: load_descriptor(folder)),
                 ("store", lambda: DatasetStore(folder).close()), ("validate", lambda: validate_dataset(folder)),
                 ("repair", lambda: repair_dataset(folder)), ("validate", lambda: validate_dataset(folder))]
        for _, step in steps:
            with guarded("dataset", [folder]):
                result = step()
                if isinstance(result, list):
                    assert all(isinstance(line, str) and line for line in result)
        assert _digest(outside) == canary, "a file outside the dataset folder was changed through a symlink"
        assert sorted(p.name for p in outside.iterdir()) == sorted("canary-" + n for n in
                                                                   _FILES + ["journal.jsonl", "launches-00002.parquet"])


@given(dataset_ops())
@_settings(COUNTS["dataset"][0])
def test_fuzz_dataset_folder(base, case):
    _check_dataset(base, *case)


@pytest.mark.slow
@given(dataset_ops())
@_settings(COUNTS["dataset"][1])
def test_fuzz_dataset_folder_slow(base, case):
    _check_dataset(base, *case)
