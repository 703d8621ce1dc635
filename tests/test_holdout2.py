"""The second hand-written holdout set (kgraph.data.holdout2): never part of the corpus, of data/holdout or of
the foreign set; every source parses; every spec is launchable; every kernel matches its numpy reference on a
CPU OpenCL device; and its rows are refused as training data."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgraph.data import holdout
from kgraph.data.corpus import all_specs
from kgraph.data.corpus.spec import Arg, MAX_LAUNCH_BYTES
from kgraph.data.holdout import is_holdout
from kgraph.data.holdout2 import get_spec, is_holdout2, specs
from kgraph.data.holdout2.common import source_of
from test_holdout import _normalised  # one whitespace normalisation for both sets

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT2 = specs()
IDS = [s.kernel_id for s in HOLDOUT2]
NVIDIA = (1024, [1024, 1024, 64])


def test_at_least_24_distinct_kernels():
    assert len(HOLDOUT2) >= 24
    assert len(set(IDS)) == len(IDS)
    assert len({s.kernel_name for s in HOLDOUT2}) == len(HOLDOUT2)
    assert len({_normalised(s.source) for s in HOLDOUT2}) == len(HOLDOUT2)
    for spec in HOLDOUT2:
        name = spec.kernel_id.removeprefix("holdout2.")
        assert spec.kernel_id == f"holdout2.{spec.kernel_name}" == spec.family, spec.kernel_id
        assert spec.tags == ["holdout2"]
        assert is_holdout2(spec.kernel_id) and get_spec(name) is spec and get_spec(spec.kernel_id) is spec
    assert {s.dims for s in HOLDOUT2} == {1, 2, 3}
    assert {a.dtype for s in HOLDOUT2 for a in s.args if a.kind == "buffer"} >= {
        "float32", "float64", "int32", "uint32", "uint8", "uint64"}
    assert any(a.kind == "local" for s in HOLDOUT2 for a in s.args)  # launch-sized local memory
    assert any("atomic_" in s.source for s in HOLDOUT2) and any("__local" in s.source for s in HOLDOUT2)


def test_disjoint_from_corpus_holdout_and_foreign_set():
    corpus, first = all_specs(), holdout.specs()
    foreign = {p.stem: _normalised(p.read_text(encoding="utf-8"))
               for p in (ROOT / "data" / "foreign_set" / "cl").glob("*.cl")}
    names = {s.kernel_name for s in HOLDOUT2}
    sources = {_normalised(s.source) for s in HOLDOUT2}
    for others in (corpus, first):
        assert not set(IDS) & {s.kernel_id for s in others}
        assert not {s.family for s in HOLDOUT2} & {s.family for s in others}
        assert not names & {s.kernel_name for s in others}
        assert not sources & {_normalised(s.source) for s in others}
    assert not names & set(foreign) and not sources & set(foreign.values())
    assert not any(is_holdout2(s.kernel_id) for s in [*corpus, *first])


def test_sources_are_package_files_that_parse():
    from kgraph.parsers import parse_source

    files = sorted(p.stem for p in (ROOT / "data" / "holdout2" / "cl").glob("*.cl"))
    assert files == sorted(s.kernel_name for s in HOLDOUT2)  # one file per kernel, none orphaned
    for spec in HOLDOUT2:
        assert spec.source == source_of(spec.kernel_name)
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_name}.cl")
        errors = [str(d) for d in unit.diagnostics if d.severity == "error"]
        assert not errors, (spec.kernel_id, errors[:3])
        assert [f.name for f in unit.kernels] == [spec.kernel_name]
        assert [p.name for p in unit.kernels[0].params] == [a.name for a in spec.args], spec.kernel_id
        if any(a.dtype == "float64" for a in spec.args):
            assert spec.source.startswith("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")


def test_package_data_lists_the_sources():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kgraph.data.holdout2" = ["cl/*.cl"]' in text and '"kgraph.data.holdout2",' in text


@pytest.mark.parametrize("spec", HOLDOUT2, ids=IDS)
def test_spec_is_launchable(spec):
    assert set(spec.check_sizes) == set(spec.sizes)
    assert spec.check(spec.check_sizes), spec.violated(spec.check_sizes)
    assert 1 <= len(spec.local_sizes) <= 3
    assert all(len(loc) == spec.dims for loc in spec.local_sizes)
    assert spec.valid_local_sizes(spec.check_sizes, *NVIDIA), spec.kernel_id
    grid = spec.size_grid()
    assert len(grid) >= 3
    assert all(spec.launch_bytes(p) <= MAX_LAUNCH_BYTES for p in grid)
    assert all(spec.valid_local_sizes(p, *NVIDIA) for p in grid), spec.kernel_id
    assert 20 <= sum(len(spec.valid_local_sizes(p, *NVIDIA)) for p in grid) <= 60  # launches per kernel
    obj = json.loads(json.dumps(spec.to_json()))
    assert obj == spec.to_json() and [Arg.from_json(a) for a in obj["args"]] == spec.args


# --- never trained on ---------------------------------------------------------------------------
def test_every_holdout2_id_is_held_out():
    assert all(is_holdout(k) and is_holdout2(k) for k in IDS)
    assert not is_holdout2("holdout.trsm_colwise") and not is_holdout2("holdout2") and not is_holdout("holdout3.x")
    assert not any(is_holdout(s.kernel_id) for s in all_specs())


def test_fit_refuses_holdout2_rows(tmp_path):
    """A measured folder whose rows are holdout2 kernels is refused for fit (the DataModule's check)."""
    import shutil

    import pandas as pd

    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.errors import InputError

    src = ROOT / "data" / "datasets" / "holdout-pocl-xeon"
    data = tmp_path / "holdout2-hand-made"
    data.mkdir()
    for name in ("device.json", "sources.parquet"):
        shutil.copy(src / name, data / name)
    rows = pd.concat([pd.read_parquet(p) for p in sorted(src.glob("launches-*.parquet"))], ignore_index=True)
    new_ids = dict(zip(sorted(set(rows["kernel_id"])), IDS * 2))  # relabel every kernel to a holdout2 id
    rows["kernel_id"] = rows["kernel_id"].map(new_ids)
    rows["family"] = rows["kernel_id"]
    rows.to_parquet(data / "launches-00000.parquet")  # no manifest: read as a hand-made table
    dm = KGraphDataModule(datasets=[str(data)], cache_dir=str(tmp_path / "cache"))
    with pytest.raises(InputError, match=r"\(holdout2\.\w+, \.\.\. \d+ in all.*never trained on"):
        dm.setup("fit")
