"""What the fuzz suites found (:mod:`tests.fuzz_guard`), each fixed at its root: one test per finding."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgraph.errors import KGraphError
from tests.fuzz_guard import DATASET, _DEVICE, _SHARDS, _clear


def _tiny_copy(tmp_path) -> Path:
    folder = tmp_path / "ds"
    shutil.copytree(DATASET, folder)
    return folder


def test_regression_fuzz_journal_row_with_unhashable_key_is_reported_not_a_traceback(tmp_path):
    """validate: a journal row whose key is an object (``{"t": "row", "key": {}}``) raised TypeError
    (unhashable dict) in the uncommitted-rows check (data/harness/validate.py)."""
    from kgraph.data.harness.validate import validate_dataset

    folder = _tiny_copy(tmp_path)
    (folder / "journal.jsonl").write_text('{"t": "row", "key": {}}\n{"t": "row", "key": [1]}\n')
    assert isinstance(validate_dataset(folder), list)
    (folder / "manifest.json").write_text('{"format": 1, "failed_kernels": []}')  # the no-manifest path too
    assert isinstance(validate_dataset(folder), list)
    DatasetStore_open_or_refuse(folder)


def DatasetStore_open_or_refuse(folder):
    from kgraph.data.harness.store import DatasetStore

    try:
        DatasetStore(folder).close()
    except KGraphError:
        pass


def test_regression_fuzz_journal_row_with_mistyped_value_does_not_break_store_open(tmp_path):
    """DatasetStore: a journal row with a value of the wrong type (1e308 in an integer column, a string in
    a float column) was replayed into the pending rows, and the flush at open raised ArrowInvalid on every
    open (data/harness/store.py): such a line is now skipped like any malformed journal line, the good
    rows beside it are committed."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.store import DatasetStore, read_launches
    from kgraph.data.harness.validate import validate_dataset

    folder = _tiny_copy(tmp_path)
    row = pq.read_table(DATASET / _SHARDS[0]).slice(0, 1).to_pylist()[0]
    good = dict(row, t="row", key="fuzz-good")
    ints = [k for k, v in row.items() if isinstance(v, int) and not isinstance(v, bool)]
    bad = dict(row, t="row", key="fuzz-bad", **{ints[0]: 1e308})
    bad2 = dict(row, t="row", key="fuzz-bad2", median_time_ns="slow")
    ceiling = {"t": "ceiling", "kernel_id": "k", "work": "x"}
    (folder / "journal.jsonl").write_text("\n".join(json.dumps(e, default=str) for e in (bad, good, bad2, ceiling)) + "\n")
    DatasetStore(folder).close()
    keys = set(read_launches(folder)["key"])
    assert "fuzz-good" in keys and not keys & {"fuzz-bad", "fuzz-bad2"}
    assert json.loads((folder / "manifest.json").read_text())["ceilings"].get("k") is None
    assert not any("journal" in p for p in validate_dataset(folder))


def test_regression_fuzz_shard_without_device_id_describes(tmp_path):
    """describe: a shard without its device_id column (read as nulls, like a column an older harness did
    not write) made ``sorted`` compare None with text: TypeError (data/harness/describe.py)."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.describe import describe_dataset

    folder = _tiny_copy(tmp_path)
    shard = folder / _SHARDS[0]
    pq.write_table(pq.read_table(shard).drop_columns(["device_id"]), shard)
    assert describe_dataset(folder)["devices"] == [_DEVICE["device_id"]]


def test_regression_fuzz_symlinked_journal_is_refused_not_written_through(tmp_path):
    """DatasetStore: a journal.jsonl that is a symlink to a file outside the folder was opened for append
    and truncated at the replay flush: a write outside the dataset folder (data/harness/store.py)."""
    from kgraph.data.harness.store import DatasetStore

    folder = _tiny_copy(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (folder / "journal.jsonl").symlink_to(outside)
    with pytest.raises(KGraphError, match="symbolic link"):
        DatasetStore(folder)
    assert outside.read_text() == "keep me\n"


@pytest.mark.parametrize("name", ["journal.jsonl", "manifest.json", "sources.parquet"])
def test_regression_fuzz_folder_in_place_of_a_dataset_file_is_refused(tmp_path, name):
    """DatasetStore on a folder whose journal (or manifest, sources) is a directory raised
    IsADirectoryError at the replay flush (slow fuzz suite, session 3): now a KGraphError naming it."""
    from kgraph.data.harness.store import DatasetStore

    folder = _tiny_copy(tmp_path)
    _clear(folder / name)
    (folder / name).mkdir()
    with pytest.raises(KGraphError, match=f"{name}"):
        DatasetStore(folder)


def test_regression_fuzz_shard_with_a_non_utf8_column_name_is_damaged_not_a_traceback(tmp_path):
    """One flipped bit in a shard's footer left a column name that is not UTF-8: reading the schema's
    names raised UnicodeDecodeError in read_launches (slow fuzz suite, session 3)."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.store import read_launches

    folder = _tiny_copy(tmp_path)
    shard = folder / _SHARDS[0]
    table = pq.read_table(shard)
    pq.write_table(table.rename_columns(["k\u00e9y" if n == "key" else n for n in table.schema.names]), shard)
    # every copy of the name (the footer's schema, the pandas metadata): its two-byte "é" turned invalid
    shard.write_bytes(shard.read_bytes().replace("k\u00e9y".encode(), b"k\xf4\xa9y"))
    with pytest.raises(KGraphError, match="cannot be read"):
        read_launches(folder)
    from kgraph.data.harness.repair import repair_dataset

    report = "\n".join(repair_dataset(folder))  # repair read the names too: it moves the shard aside
    assert f"moved {_SHARDS[0]}" in report and "unreadable" in report


@pytest.mark.parametrize("dtype", [[], {}, 7, None])
def test_regression_fuzz_safetensors_dtype_that_is_not_a_string_is_damage(tmp_path, dtype):
    """A model.safetensors header whose tensor dtype was a list raised TypeError (unhashable) while the
    header was checked (slow fuzz suite, session 3): now the damaged-header ModelError."""
    from kgraph.errors import ModelError
    from kgraph.models.predictor import read_tensor_header
    from tests.fuzz_guard import MODEL

    raw = (MODEL / "model.safetensors").read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    name = next(k for k in header if k != "__metadata__")
    header[name]["dtype"] = dtype
    text = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(text).to_bytes(8, "little") + text + raw[8 + n:])
    with pytest.raises(ModelError, match="damaged header"):
        read_tensor_header(path)
