"""The kernel corpus: spec invariants, the size-expression evaluator, and correctness on PoCL."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kgraph.data.corpus import all_specs, families, get_spec
from kgraph.data.corpus.spec import Arg, KernelSpec, MAX_LAUNCH_BYTES, evaluate
from kgraph.errors import InputError

SPECS = all_specs()


def test_ids_unique_and_counts():
    ids = [s.kernel_id for s in SPECS]
    assert len(ids) == len(set(ids))
    assert len(SPECS) >= 400
    assert len(families()) >= 40
    assert {s.dims for s in SPECS} == {1, 2, 3}


def test_ids_are_stable_strings():
    spec = get_spec("gemm_tiled.t16.nn.fp32")
    assert spec.family == "gemm_tiled"
    assert spec.variant == {"tile": 16, "layout": "nn", "precision": "fp32"}
    assert spec.local_sizes == [[16, 16]]
    with pytest.raises(InputError, match="no corpus kernel"):
        get_spec("gemm_tiled.t17.nn.fp32")


def test_json_round_trip():
    for spec in SPECS:
        obj = spec.to_json()
        again = json.loads(json.dumps(obj))
        assert again == obj
        assert [Arg.from_json(a) for a in again["args"]] == spec.args


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kernel_id)
def test_spec_sizes_evaluate(spec: KernelSpec):
    assert set(spec.check_sizes) == set(spec.sizes)
    assert spec.check(spec.check_sizes), spec.violated(spec.check_sizes)
    gsize = spec.global_size_of(spec.check_sizes)
    assert len(gsize) == spec.dims and all(g > 0 for g in gsize)
    assert all(len(loc) == spec.dims for loc in spec.local_sizes)
    # a shape valid on NVIDIA (1024 items, z <= 64) exists at the check sizes
    assert spec.valid_local_sizes(spec.check_sizes, 1024, [1024, 1024, 64])
    counts = spec.buffer_counts(spec.check_sizes)
    assert all(c > 0 for c in counts.values())
    assert spec.source.count("__kernel") >= 1 and f" {spec.kernel_name}(" in spec.source
    grid = spec.size_grid()
    assert len(grid) >= 3
    assert all(spec.launch_bytes(p) <= MAX_LAUNCH_BYTES for p in grid)
    if "fp64" in spec.kernel_id:
        assert "cl_khr_fp64" in spec.source


def test_evaluate_arithmetic():
    env = {"N": 96, "K": 7, "l0": 16}
    assert evaluate("N * K + 1", env) == 673
    assert evaluate("N // l0", env) == 6
    assert evaluate("N % l0 == 0 and K < 8", env) is True
    assert evaluate("max(N, K) - min(N, 2 ** K)", env) == 0
    assert evaluate("-K", env) == -7
    assert evaluate(" N / 64", env) == 1.5


@pytest.mark.parametrize("text", ["__import__('os')", "N.real", "(lambda: 1)()", "[N]", "'a'",
                                  "abs(N)", "N if K else 1", "Z + 1", "N // 0", "N +"])
def test_evaluate_rejects(text):
    with pytest.raises(InputError):
        evaluate(text, {"N": 3, "K": 2})


def test_default_inputs_and_launch_bytes():
    spec = get_spec("axpy.v4.c1.fp32")
    sizes = {"n": 4096}
    inputs = spec.inputs(np.random.default_rng(0), sizes)
    assert inputs["x"].dtype == np.float32 and inputs["x"].shape == (4096,)
    assert -1 <= inputs["x"].min() and inputs["x"].max() <= 1
    assert spec.launch_bytes(sizes) == 2 * 4096 * 4
    assert spec.global_size_of(sizes) == [1024]
    assert spec.scalar_values(sizes) == {"n": 4096, "alpha": np.float32(1.5)}
    assert spec.valid_local_sizes({"n": 1024}, 256) == [[128], [64], [256], [32]]


def test_constraints_with_local_shape():
    spec = get_spec("gemm_tiled.t32.nn.fp32")
    assert spec.violated({"M": 64, "N": 48, "K": 64}) == ["N % 32 == 0"]
    assert spec.valid_local_sizes({"M": 64, "N": 64, "K": 64}, 512) == []
    assert spec.valid_local_sizes({"M": 64, "N": 64, "K": 64}, 1024) == [[32, 32]]


# --- correctness on PoCL (or any first OpenCL device) -----------------------------------------
@pytest.fixture(scope="module")
def cl_queue():
    cl = pytest.importorskip("pyopencl")
    try:
        device = cl.get_platforms()[0].get_devices()[0]
    except (cl.Error, IndexError):
        pytest.skip("no OpenCL device")
    ctx = cl.Context([device])
    return ctx, cl.CommandQueue(ctx)


def _one_per_family() -> list[KernelSpec]:
    seen, picked = set(), []
    for spec in SPECS:
        if spec.family not in seen:
            seen.add(spec.family)
            picked.append(spec)
    return picked


@pytest.mark.parametrize("spec", _one_per_family(), ids=lambda s: s.kernel_id)
def test_family_correct_on_opencl(spec, cl_queue):
    from kgraph.data.corpus.check import check_spec

    ok, max_err = check_spec(spec, *cl_queue)
    assert ok, f"{spec.kernel_id}: max abs error {max_err}"


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kernel_id)
def test_every_kernel_correct_on_opencl(spec, cl_queue):
    from kgraph.data.corpus.check import check_spec

    ok, max_err = check_spec(spec, *cl_queue)
    assert ok, f"{spec.kernel_id}: max abs error {max_err}"


def test_wrong_kernel_is_detected(cl_queue):
    from dataclasses import replace

    from kgraph.data.corpus.check import check_spec

    spec = get_spec("scal.v1.fp32")
    broken = replace(spec, kernel_id="scal.broken", source=spec.source.replace("alpha * x[i]", "x[i]"))
    ok, max_err = check_spec(broken, *cl_queue)
    assert not ok and max_err > 0.1


def test_sources_parse_with_project_parser():
    from kgraph.parsers import parse_source

    for spec in SPECS:
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_id}.cl")
        errors = [str(d) for d in unit.diagnostics if d.severity == "error"]
        assert not errors, errors[:3]
        assert spec.kernel_name in [f.name for f in unit.kernels]


def test_dense_sizes_holds_the_pow2_grid():
    from kgraph.data.corpus.templating import dense_sizes, pow2

    assert dense_sizes(6, 9, 2) == [64, 96, 128, 192, 256, 384, 512]
    assert dense_sizes(2, 4, 4) == [4, 5, 6, 7, 8, 10, 12, 14, 16]
    for lo, hi, k, step in ((10, 26, 4, 2), (12, 26, 16, 2), (2, 18, 16, 2), (5, 13, 2, 1)):
        vals = dense_sizes(lo, hi, k, step)
        assert set(pow2(lo, hi, step)) <= set(vals)
        assert vals == sorted(set(vals)) and vals[0] == 2**lo and vals[-1] == 2**hi
