"""Foreign measurement (issue 15): memory-safe sizing runs, array-pointer casts, data-dependent indices,
vector scalars, and ``kgraph measure`` over the project's foreign test set (data/foreign_set)."""
from __future__ import annotations

import numpy as np
import pytest

from kgraph.data.foreign_set import entries, is_foreign_set, is_foreign_set_source, path_of
from kgraph.data.holdout import is_holdout
from kgraph.data.instrumented.casts import flatten_array_casts, unfollowed_views
from kgraph.data.instrumented.contents import buffer_contents, index_roles, kernel_roles
from kgraph.errors import MeasurementError, UsageError

pytest.importorskip("pyopencl")


def _entry(name):
    return next(e for e in entries() if e.name == name)


def _source(name):
    return open(path_of(_entry(name))).read()


def _infer(source, kernel, global_size, local_size, scalars, **kw):
    from kgraph.data.instrumented.extents import infer_extents

    return infer_extents(source, kernel, global_size, local_size, scalars, **kw)[0]


# --- the set itself -------------------------------------------------------------------------------

def test_set_has_forty_opencl_kernels_with_million_item_launches():
    cl = entries("opencl")
    assert len(cl) >= 40 and len(entries("cuda")) >= 3
    assert len({e.name for e in entries()}) == len(entries())
    for e in cl:
        assert int(np.prod(e.global_size)) >= 1 << 20, e.name
        assert e.style and e.construct


def test_every_set_file_parses_with_its_kernel():
    from kgraph import parsers

    for e in entries():
        unit = parsers.parse_file(path_of(e))
        unit.raise_on_errors()
        assert e.name in [f.name for f in unit.kernels], e.name


def test_set_is_never_trained_on():
    from kgraph.data.harness.foreign import foreign_spec

    assert is_foreign_set("foreign_set.csr_spmv") and is_holdout("foreign_set.csr_spmv")
    assert not is_holdout("foreign.csr_spmv") and not is_holdout("vadd.f32")
    assert is_foreign_set_source(_source("vadd_abcd") + "\n\n")
    assert not is_foreign_set_source(_source("vadd_abcd").replace("a[e] + b[e]", "a[e] - b[e]"))
    spec = foreign_spec(path_of(_entry("vadd_abcd")), "vadd_abcd", [64], None, {}, {"a": "64", "b": "64", "c": "64"})
    assert spec.kernel_id == "foreign_set.vadd_abcd"


# --- sizes given: no inference --------------------------------------------------------------------

def test_sizes_given_no_sizing_run(monkeypatch):
    import kgraph.data.instrumented.extents as extents
    from kgraph.data.harness.foreign import ForeignRequest

    def refuse(*args, **kwargs):
        raise AssertionError("a sizing run happened although every buffer has a size")

    monkeypatch.setattr(extents, "infer_extents", refuse)
    request = ForeignRequest(path_of(_entry("csr_spmv")), "csr_spmv", (256,), None, {},
                             {"a": "257", "b": "4096", "c": "4096", "d": "256", "e": "256"}, {})
    assert request.unsized() == []
    spec, found, _, _ = request.sized_spec()
    assert found == {} and {a.name: a.count for a in spec.args if a.kind == "buffer"}["b"] == "4096"


# --- bounds-checked sizing ------------------------------------------------------------------------

def test_sizing_grows_small_buffers_and_never_writes_outside():
    source = """__kernel void k(__global float *a, __global float *b, int c) {
        int i = get_global_id(0); b[i * c + 3] = a[i * 2] + 1.0f; }"""
    found = _infer(source, "k", [4096], [64], {"c": 9}, capacity=64)
    assert found == {"a": 2 * 4095 + 1, "b": 4095 * 9 + 4}


def test_negative_index_is_reported():
    source = "__kernel void k(__global float *a, int c) { a[get_global_id(0) - c] = 1.0f; }"
    with pytest.raises(MeasurementError, match="before its first element"):
        _infer(source, "k", [64], None, {"c": 4})


# --- array-pointer casts --------------------------------------------------------------------------

def test_flatten_declared_and_inline_views():
    source = ("__kernel void k(__global double *a, __global float *b) {\n"
              "  __global double (*d)[13][5] = (__global double (*)[13][5])a;\n"
              "  int i = get_global_id(0);\n  d[i][2][4] = 1.0;\n"
              "  ((__global float (*)[N])b)[i][d[i][0][1]] = 2.0f;\n}")
    flat = flatten_array_casts(source)
    assert "a[(((i) * (13) + (2)) * (5) + (4))] = 1.0;" in flat
    assert "b[((i) * (N) + (a[(((i) * (13) + (0)) * (5) + (1))]))] = 2.0f;" in flat
    assert unfollowed_views(flat) == []


def test_partly_subscripted_view_is_refused():
    source = ("__kernel void k(__global float *a) {\n"
              "  __global float (*d)[4] = (__global float (*)[4])a;\n"
              "  __global float *e = d[get_global_id(0)];\n  e[1] = 0.0f;\n}")
    assert unfollowed_views(flatten_array_casts(source)) == ["d"]
    with pytest.raises(MeasurementError, match="array-pointer view"):
        _infer(source, "k", [64], None, {})


def test_cast_views_are_sized_exactly():
    found = _infer(_source("npb_cast_rhs"), "npb_cast_rhs", [4096], [64], {"c": 64, "d": 64})
    assert found == {"a": 4096 * 5, "b": 4096 * 5}
    found = _infer(_source("npb_cast4d"), "npb_cast4d", [128, 128, 4], [16, 4, 4], {"c": 0.5})
    assert found == {"a": 4 * 128 * 128 * 2, "b": 4 * 128 * 128 * 2}


# --- data-dependent indices -----------------------------------------------------------------------

def test_index_roles_of_the_data_dependent_kernels():
    from kgraph import parsers

    def roles(name):
        unit = parsers.parse_file(path_of(_entry(name)))
        return kernel_roles(unit.text, unit.kernels[0].params)

    assert roles("csr_spmv") == {"a": "rows", "b": "index"}
    assert roles("histogram_atomic") == {"a": "index"}
    assert roles("gather") == {"c": "index"}
    assert roles("bfs_frontier")["c"] == "index"
    assert set(roles("srad_neighbours")) == {"c", "d", "e", "f"}
    assert index_roles("x[i] = y[i];", ["y"]) == {}


def test_contents_are_prefix_stable_and_valid():
    short = buffer_contents("b", np.int32, 100, "index", 37)
    long = buffer_contents("b", np.int32, 1000, "index", 37)
    assert np.array_equal(short, long[:100]) and long.min() >= 0 and long.max() < 37
    rows = buffer_contents("a", np.int32, 1000, "rows", 0)
    assert rows[0] == 0 and np.all(np.diff(rows) >= 0) and np.all(np.diff(rows) <= 8)
    floats = buffer_contents("c", np.float32, 1000, None, 0)
    assert floats.min() >= -1 and floats.max() < 1 and np.array_equal(floats[:10],
                                                                         buffer_contents("c", np.float32, 10, None, 0))


def test_csr_extents_follow_the_row_pointers():
    found = _infer(_source("csr_spmv"), "csr_spmv", [4096], [64], {"f": 4096})
    rows = buffer_contents("a", np.int32, 4097, "rows", 4096)
    assert found["a"] == 4097 and found["b"] == found["c"] == rows[4096]
    cols = buffer_contents("b", np.int32, int(rows[4096]), "index", 4096)
    assert found["d"] == cols.max() + 1 <= 4096 and found["e"] == 4096


def test_measured_inputs_are_the_sizing_runs():
    from kgraph.data.harness.foreign import ForeignRequest

    spec, extents, _, _ = ForeignRequest(path_of(_entry("csr_spmv")), "csr_spmv", (1024,), (64,), {}, {}, {}).sized_spec()
    inputs = spec.make_inputs(None, {})
    assert np.all(np.diff(inputs["a"]) >= 0) and inputs["a"][1024] == extents["b"]
    assert inputs["b"].max() < extents["d"]


def test_unbounded_data_index_names_the_buffer():
    source = """__kernel void k(__global const int *a, __global float *b) {
        int i = get_global_id(0); b[a[i] * 65536] = 1.0f; }"""
    with pytest.raises(MeasurementError, match=r"'a' \(valid indices in \[0, 65536\)\).*--buffer"):
        _infer(source, "k", [65536], [64], {})


# --- vector scalars -------------------------------------------------------------------------------

def test_vector_scalars_as_comma_lists():
    from kgraph.data.harness.foreign import foreign_spec

    path = path_of(_entry("float4_coeffs"))
    spec = foreign_spec(path, "float4_coeffs", [64], None, {"c": "1,0.5,0.25,0.125"}, {"a": "64", "b": "64"})
    value = spec.scalar_values({})["c"]
    assert np.frombuffer(value, np.float32).tolist() == [1, 0.5, 0.25, 0.125] and value.item() == [1, 0.5, 0.25, 0.125]
    spec = foreign_spec(path, "float4_coeffs", [64], None, {"c": "2"}, {"a": "64", "b": "64"})
    assert np.frombuffer(spec.scalar_values({})["c"], np.float32).tolist() == [2, 2, 2, 2]
    with pytest.raises(UsageError, match="needs 4 comma-separated"):
        foreign_spec(path, "float4_coeffs", [64], None, {"c": "1,2"}, {"a": "64", "b": "64"})
    with pytest.raises(UsageError, match="give one number"):
        foreign_spec(path, "float4_coeffs", [64], None, {"c": "1,2,3,4", "d": "1,2"}, {"a": "64", "b": "64"})
    uint2 = path_of(_entry("uint2_seed_rng"))
    with pytest.raises(UsageError, match="out of range"):
        foreign_spec(uint2, "uint2_seed_rng", [64], None, {"b": "1,-2"}, {"a": "64"})


def test_scalar_args_are_measures_defaults_and_estimate_takes_them():
    """The predicted-vs-measured benchmark asks the model about the launch measure ran: the same scalar
    values (defaults included), vector scalars as lane lists."""
    from kgraph.app.api import load_model
    from kgraph.data.harness.foreign import scalar_args

    entry = _entry("uint2_seed_rng")
    args = scalar_args(str(path_of(entry)), entry.name, [4096], {"b": "7,9"})
    assert args == {"b": "7,9", "c": "4096"}  # c: the integer default, dim 0 of the NDRange
    assert scalar_args(str(path_of(_entry("saxpy_helpers"))), "saxpy_helpers", [64], {})["d"] == "1.0"
    model = load_model()
    record = model.estimate(path_of(entry), entry.name, [4096], [64], args, device="h200")
    assert record["time_ns"] > 0
    with pytest.raises(UsageError, match=r"--arg b=7,x: not a number"):
        model.estimate(path_of(entry), entry.name, [4096], [64], {"b": "7,x", "c": "4096"}, device="h200")
    with pytest.raises(UsageError, match=r"--arg b=7,inf: the value must be finite"):
        model.estimate(path_of(entry), entry.name, [4096], [64], {"b": "7,inf", "c": "4096"}, device="h200")


# --- kgraph measure on the set --------------------------------------------------------------------

def _measure(entry, global_size=None, local_size=None, args=None):
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import measure_foreign

    request = ForeignRequest(path_of(entry), entry.name, tuple(global_size or entry.global_size),
                             tuple(local_size or entry.local_size or ()) or None,
                             dict(entry.args if args is None else args), {}, {})
    return measure_foreign(request, "pocl", timeout_s=120).row


@pytest.mark.parametrize("name, global_size, local_size, args", [
    ("csr_spmv", (8192,), (64,), {}),
    ("npb_cast_rhs", (4096,), (64,), {"c": "64", "d": "64"}),
    ("uint2_seed_rng", (4096,), (64,), {"b": "7,9"}),
    ("histogram_atomic", (8192,), (64,), {}),
])
def test_measure_fast_subset(name, global_size, local_size, args):
    row = _measure(_entry(name), global_size, local_size, args)
    assert row["status"] == "ok", row.get("message")
    assert row["kernel_id"] == f"foreign_set.{name}"


@pytest.mark.slow
@pytest.mark.parametrize("name", [e.name for e in entries("opencl")])
def test_measure_every_set_kernel_at_a_million_items(name):
    row = _measure(_entry(name))
    assert row["status"] == "ok", row.get("message")
    assert row["g0"] * row["g1"] * row["g2"] >= 1 << 20


def test_runaway_indices_retry_along_one_dimension(tmp_path):
    from kgraph.data.harness.foreign import ForeignRequest

    path = tmp_path / "rows.cl"
    path.write_text("""__kernel void k(__global const int *a, __global float *b) {
        int i = get_global_id(0), j = get_global_id(1); b[a[j] * 65536 + i] = 1.0f; }""")
    spec, extents, _, _ = ForeignRequest(str(path), "k", (256, 256), (16, 16), {}, {}, {}).sized_spec()
    inputs = spec.make_inputs(None, {})
    assert inputs["a"].max() < 256 and extents["b"] == int(inputs["a"].max()) * 65536 + 256
