"""The second to sixteenth hand-written holdout sets (kgraph.data.holdout2 to holdout16): never part of the
corpus, of data/holdout, of each other or of the foreign set; every source parses; every spec is launchable; and
their rows are refused as training data. (Each kernel matching its numpy reference on a CPU OpenCL device:
tests/test_handwritten_sets.py.)"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgraph.data import (holdout, holdout2, holdout3, holdout4, holdout5, holdout6, holdout7, holdout8, holdout9,
                         holdout10, holdout11, holdout12, holdout13, holdout14, holdout15, holdout16)
from kgraph.data.corpus import all_specs
from kgraph.data.corpus.spec import Arg, MAX_LAUNCH_BYTES
from kgraph.data.handwritten import source_of
from kgraph.data.holdout import is_holdout
from test_holdout import _normalised  # one whitespace normalisation for every set

ROOT = Path(__file__).resolve().parents[1]
SETS = {"holdout2": (holdout2, holdout2.is_holdout2), "holdout3": (holdout3, holdout3.is_holdout3),
        "holdout4": (holdout4, holdout4.is_holdout4), "holdout5": (holdout5, holdout5.is_holdout5),
        "holdout6": (holdout6, holdout6.is_holdout6), "holdout7": (holdout7, holdout7.is_holdout7),
        "holdout8": (holdout8, holdout8.is_holdout8), "holdout9": (holdout9, holdout9.is_holdout9),
        "holdout10": (holdout10, holdout10.is_holdout10),
        "holdout11": (holdout11, holdout11.is_holdout11),
        "holdout12": (holdout12, holdout12.is_holdout12),
        "holdout13": (holdout13, holdout13.is_holdout13),
        "holdout14": (holdout14, holdout14.is_holdout14),
        "holdout15": (holdout15, holdout15.is_holdout15),
        "holdout16": (holdout16, holdout16.is_holdout16)}
SPECS = [s for module, _ in SETS.values() for s in module.specs()]
IDS = [s.kernel_id for s in SPECS]
NVIDIA = (1024, [1024, 1024, 64])
#: what each set must cover: (fewest kernels, work dimensions, buffer dtypes)
COVERS = {"holdout2": (24, {1, 2, 3}, {"float32", "float64", "int32", "uint32", "uint8", "uint64"}),
          "holdout3": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout4": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout5": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout6": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout7": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout8": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout9": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout10": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout11": (20, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout12": (16, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout13": (16, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout14": (12, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout15": (12, {1, 2}, {"float32", "float64", "int32", "uint32"}),
          "holdout16": (12, {1, 2}, {"float32", "float64", "int32", "uint32"})}


@pytest.mark.parametrize("name", SETS)
def test_distinct_kernels_covering_the_idioms(name):
    module, holds = SETS[name]
    specs = module.specs()
    fewest, dims, dtypes = COVERS[name]
    ids = [s.kernel_id for s in specs]
    assert len(specs) >= fewest and len(set(ids)) == len(ids)
    assert len({s.kernel_name for s in specs}) == len(specs)
    assert len({_normalised(s.source) for s in specs}) == len(specs)
    for spec in specs:
        short = spec.kernel_id.removeprefix(f"{name}.")
        assert spec.kernel_id == f"{name}.{spec.kernel_name}" == spec.family, spec.kernel_id
        assert spec.tags == [name]
        assert holds(spec.kernel_id) and module.get_spec(short) is spec and module.get_spec(spec.kernel_id) is spec
    assert {s.dims for s in specs} >= dims
    assert {a.dtype for s in specs for a in s.args if a.kind == "buffer"} >= dtypes
    assert any("atomic_" in s.source for s in specs) and any("__local" in s.source for s in specs)


@pytest.mark.parametrize("name", SETS)
def test_disjoint_from_corpus_other_holdouts_and_foreign_set(name):
    module, holds = SETS[name]
    specs = module.specs()
    others = [all_specs(), holdout.specs(), *(m.specs() for n, (m, _) in SETS.items() if n != name)]
    foreign = {p.stem: _normalised(p.read_text(encoding="utf-8"))
               for p in (ROOT / "data" / "foreign_set" / "cl").glob("*.cl")}
    ids, names = {s.kernel_id for s in specs}, {s.kernel_name for s in specs}
    sources = {_normalised(s.source) for s in specs}
    for other in others:
        assert not ids & {s.kernel_id for s in other}
        assert not {s.family for s in specs} & {s.family for s in other}
        assert not names & {s.kernel_name for s in other}
        assert not sources & {_normalised(s.source) for s in other}
    assert not names & set(foreign) and not sources & set(foreign.values())
    assert not any(holds(s.kernel_id) for other in others for s in other)


@pytest.mark.parametrize("name", SETS)
def test_sources_are_package_files_that_parse(name):
    from kgraph.parsers import parse_source

    specs = SETS[name][0].specs()
    files = sorted(p.stem for p in (ROOT / "data" / name / "cl").glob("*.cl"))
    assert files == sorted(s.kernel_name for s in specs)  # one file per kernel, none orphaned
    for spec in specs:
        assert spec.source == source_of(f"kgraph.data.{name}", spec.kernel_name)
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_name}.cl")
        errors = [str(d) for d in unit.diagnostics if d.severity == "error"]
        assert not errors, (spec.kernel_id, errors[:3])
        assert [f.name for f in unit.kernels] == [spec.kernel_name]
        assert [p.name for p in unit.kernels[0].params] == [a.name for a in spec.args], spec.kernel_id
        if any(a.dtype == "float64" for a in spec.args):
            assert spec.source.startswith("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")


@pytest.mark.parametrize("name", SETS)
def test_package_data_lists_the_sources(name):
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"kgraph.data.{name}" = ["cl/*.cl"]' in text and f'"kgraph.data.{name}",' in text


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
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
def test_every_later_holdout_id_is_held_out():
    assert all(is_holdout(k) for k in IDS)
    for name, (_, holds) in SETS.items():
        assert all(holds(s.kernel_id) == s.kernel_id.startswith(f"{name}.") for s in SPECS)
        assert not holds("holdout.trsm_colwise") and not holds(name)
    assert all(is_holdout(f"{module.common.PREFIX}.x") for module, _ in SETS.values())
    assert is_holdout("holdout9.x") and is_holdout("holdout10.x")  # a set still being written is held out too
    assert not any(is_holdout(k) for k in ("holdout", "holdoutx.y", "my_holdout2.x", "foreign.x", "vadd.f32"))
    assert not any(is_holdout(s.kernel_id) for s in all_specs())


def test_is_holdout_imports_no_other_set():
    """A half-written set must not break the check: kgraph.data.holdout imports no other set's catalogue."""
    import subprocess
    import sys

    code = ("import sys, kgraph.data.holdout as h; assert h.is_holdout('holdout9.x'); "
            "print(sorted(m for m in sys.modules if m.startswith('kgraph.data.holdout') and '.' not in m[19:]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['kgraph.data.holdout']", out


@pytest.mark.parametrize("name", SETS)
def test_fit_refuses_later_holdout_rows(name, tmp_path):
    """A measured folder whose rows are a later set's kernels is refused for fit (the DataModule's check)."""
    import shutil

    import pandas as pd

    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.errors import InputError

    src = ROOT / "data" / "datasets" / "holdout-pocl-xeon"
    data = tmp_path / f"{name}-hand-made"
    data.mkdir()
    for file in ("device.json", "sources.parquet"):
        shutil.copy(src / file, data / file)
    rows = pd.concat([pd.read_parquet(p) for p in sorted(src.glob("launches-*.parquet"))], ignore_index=True)
    ids = [s.kernel_id for s in SETS[name][0].specs()]
    old_ids = sorted(set(rows["kernel_id"]))
    new_ids = {k: ids[i % len(ids)] for i, k in enumerate(old_ids)}  # relabel every kernel to one of the set's ids
    rows["kernel_id"] = rows["kernel_id"].map(new_ids)
    rows["family"] = rows["kernel_id"]
    rows.to_parquet(data / "launches-00000.parquet")  # no manifest: read as a hand-made table
    dm = KGraphDataModule(datasets=[str(data)], cache_dir=str(tmp_path / "cache"))
    with pytest.raises(InputError, match=rf"\({name}\.\w+, \.\.\. \d+ in all.*never trained on"):
        dm.setup("fit")
