"""The hand-written holdout kernels (kgraph.data.holdout): never part of the corpus, every source
parses, every spec is launchable, and every kernel matches its numpy reference on a CPU OpenCL device
through the corpus's own check (kgraph.data.corpus.check)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgraph.data.corpus import FAMILY_MODULES, all_specs
from kgraph.data.corpus.spec import Arg, MAX_LAUNCH_BYTES
from kgraph.data.holdout import get_spec, is_holdout, specs
from kgraph.data.holdout.common import source_of

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = specs()
IDS = [s.kernel_id for s in HOLDOUT]


def _normalised(source: str) -> str:
    return re.sub(r"\s+", " ", source).strip()


def test_at_least_24_distinct_kernels():
    assert len(HOLDOUT) >= 24
    assert len(set(IDS)) == len(IDS)
    assert len({s.kernel_name for s in HOLDOUT}) == len(HOLDOUT)
    assert len({_normalised(s.source) for s in HOLDOUT}) == len(HOLDOUT)
    for spec in HOLDOUT:
        name = spec.kernel_id.removeprefix("holdout.")
        assert spec.kernel_id == f"holdout.{spec.kernel_name}" == spec.family, spec.kernel_id
        assert is_holdout(spec.kernel_id) and get_spec(name) is spec
    assert {s.dims for s in HOLDOUT} == {1, 2, 3}
    assert {a.dtype for s in HOLDOUT for a in s.args if a.kind == "buffer"} >= {
        "float32", "float64", "int32", "uint32", "uint8"}


def test_never_part_of_the_corpus():
    corpus = all_specs()
    assert not set(IDS) & {s.kernel_id for s in corpus}
    assert not {s.family for s in HOLDOUT} & {s.family for s in corpus}
    assert not {s.kernel_name for s in HOLDOUT} & {s.kernel_name for s in corpus}
    assert not {_normalised(s.source) for s in HOLDOUT} & {_normalised(s.source) for s in corpus}
    assert not any(is_holdout(s.kernel_id) for s in corpus)
    assert "holdout" not in FAMILY_MODULES


def test_sources_are_package_files_that_parse():
    from kgraph.parsers import parse_source

    files = sorted(p.stem for p in (ROOT / "data" / "holdout" / "cl").glob("*.cl"))
    assert files == sorted(s.kernel_name for s in HOLDOUT)  # one file per kernel, none orphaned
    for spec in HOLDOUT:
        assert spec.source == source_of(spec.kernel_name)
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_name}.cl")
        errors = [str(d) for d in unit.diagnostics if d.severity == "error"]
        assert not errors, (spec.kernel_id, errors[:3])
        assert [f.name for f in unit.kernels] == [spec.kernel_name]
        params = [p.name for p in unit.kernels[0].params]
        assert params == [a.name for a in spec.args], spec.kernel_id  # args in parameter order
        if any(a.dtype == "float64" for a in spec.args):
            assert spec.source.startswith("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")


@pytest.mark.parametrize("spec", HOLDOUT, ids=IDS)
def test_spec_is_launchable(spec):
    assert set(spec.check_sizes) == set(spec.sizes)
    assert spec.check(spec.check_sizes), spec.violated(spec.check_sizes)
    assert 1 <= len(spec.local_sizes) <= 3
    assert all(len(loc) == spec.dims for loc in spec.local_sizes)
    # a shape valid on NVIDIA (1024 items, z <= 64) at the check sizes
    assert spec.valid_local_sizes(spec.check_sizes, 1024, [1024, 1024, 64]), spec.kernel_id
    grid = spec.size_grid()
    assert len(grid) >= 3
    assert all(spec.launch_bytes(p) <= MAX_LAUNCH_BYTES for p in grid)
    assert all(spec.valid_local_sizes(p, 1024, [1024, 1024, 64]) for p in grid), spec.kernel_id
    obj = json.loads(json.dumps(spec.to_json()))
    assert obj == spec.to_json() and [Arg.from_json(a) for a in obj["args"]] == spec.args


def test_fit_refuses_the_holdout_dataset(tmp_path):
    """The out-of-corpus set is never trained on: the DataModule refuses it for fit (and allows test)."""
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.errors import InputError

    root = Path(__file__).resolve().parents[1] / "data" / "datasets" / "holdout-pocl-xeon"
    dm = KGraphDataModule(datasets=[str(root)], cache_dir=str(tmp_path / "cache"))
    with pytest.raises(InputError, match="never trained on"):
        dm.setup("fit")
