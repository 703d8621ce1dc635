"""Bisection loops (kgraph.analysis.bisection): a binary search runs log2 of its range's length, checked by hand,
against the instrumented run (PoCL) and in the C export; shapes it must not take for one."""
import math
import shutil

import numpy as np
import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.exact_counts import inexact_reason
from kgraph.parsers import parse_source

SRC = """
__kernel void upper(__global const float *cdf, __global const float *u, __global int *out, int n) {
    int i = get_global_id(0);
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (cdf[mid] <= u[i]) lo = mid; else hi = mid;
    }
    out[i] = lo;
}
__kernel void lower(__global const float *a, __global const float *x, __global int *out, int n) {
    int i = get_global_id(0);
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] < x[i])
            lo = mid + 1;
        else
            hi = mid;
    }
    out[i] = lo;
}
__kernel void find(__global const int *keys, __global const int *q, __global int *out, int n) {
    int i = get_global_id(0);
    int lo = 0, hi = n - 1, found = -1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (keys[mid] == q[i]) { found = mid; break; }
        if (keys[mid] < q[i]) lo = mid + 1; else hi = mid - 1;
    }
    out[i] = found;
}
__kernel void loaded(__global const int *ptr, __global const int *col, __global int *out) {
    int i = get_global_id(0);
    int lo = ptr[i], hi = ptr[i + 1];
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (col[mid] < i) lo = mid + 1; else hi = mid;
    }
    out[i] = lo;
}
__kernel void not_halving(__global const float *a, __global int *out, int n) {
    int i = get_global_id(0);
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] < 0.0f) lo = mid + 2; else hi = mid;
    }
    out[i] = lo;
}
"""
UNIT = parse_source(SRC, "opencl")
n = sp.Symbol("n", integer=True)


def loop(name):
    return analyze(UNIT.function(name), UNIT).loops[0]


@pytest.mark.parametrize("kernel,length", [("upper", n), ("lower", n), ("find", n + 1)])
def test_each_form_counts_log2_of_its_range(kernel, length):
    lp = loop(kernel)
    assert lp.symbolic and "bisection" in lp.note
    assert sp.simplify(lp.trip - sp.log(sp.Max(1, length), 2)) == 0


def test_a_search_that_leaves_on_a_match_says_its_count_is_an_upper_bound():
    assert "upper bound" in loop("find").note and "upper bound" not in loop("upper").note


@pytest.mark.parametrize("kernel", ["loaded", "not_halving"])
def test_other_shapes_stay_unknown(kernel):
    """A range loaded from memory (its length is data), an update that does not halve: still ``trip_<line>``."""
    lp = loop(kernel)
    assert not lp.symbolic and str(lp.trip).startswith("trip_")


def test_the_counts_stay_inexact():
    """The mean is not an exact count, and the branch that picks the half reads memory."""
    for kernel in ("upper", "lower", "find"):
        assert inexact_reason(analyze(UNIT.function(kernel), UNIT), UNIT, UNIT.function(kernel))


@pytest.mark.parametrize("kernel,size", [("upper", 1024), ("upper", 1000), ("lower", 4096), ("lower", 777)])
def test_the_mean_is_within_one_iteration_of_the_instrumented_run(ctx, kernel, size):
    """Per work-item loads of the searched array: the instrumented run on random keys against the static mean."""
    from kgraph.data.instrumented import count_launch

    rng = np.random.default_rng(0)
    g = 256
    table = np.sort(rng.random(size).astype(np.float32))
    bufs = {"cdf" if kernel == "upper" else "a": table, "u" if kernel == "upper" else "x": rng.random(g).astype(np.float32),
            "out": np.zeros(g, np.int32)}
    dynamic = count_launch(SRC, kernel, (g,), (g,), dict(n=size, **bufs), ctx).to_dict()
    a = analyze(UNIT.function(kernel), UNIT)
    iters = math.log2(size)
    static = a.total({"n": size, "gsz0": g, "lsz0": g})
    per_iteration = static["global_load_bytes"] / iters  # every load is in the loop (the table's and the key's)
    measured_iters = dynamic["global_load_bytes"] / per_iteration  # mean iterations a work-item
    assert abs(measured_iters - iters) < 1.0


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_features_of_a_bisection_equal_python(tmp_path):
    from kgraph.data.static_counts import KNOWN_EXACT
    from tests.test_export_features import one_kernel_c_features

    launches = [("upper", 1, (1024, 1, 1), (64, 1, 1), {"n": 1 << 20}), ("upper", 1, (4096, 1, 1), (128, 1, 1), {"n": 3})]
    py, got, cfg = one_kernel_c_features(tmp_path, "upper", SRC.split("__kernel void lower")[0], launches)
    assert py[:, cfg.launch_names.index("static_known")].tolist() == [KNOWN_EXACT, KNOWN_EXACT]  # no assumption
    assert (got[:, 0] == 0).all()
    np.testing.assert_allclose(got[:, 1:], py[:, :len(cfg.launch_names)], rtol=1e-5, atol=1e-5)


HELPER = """
int lower_bound(__global const float *a, int len, float x) {
    int lo = 0, hi = len;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}
__kernel void by_size(__global const float *a, __global const float *x, __global int *out, int n) {
    int i = get_global_id(0);
    out[i] = lower_bound(a, n, x[i]);
}
__kernel void by_offsets(__global const int *ptr, __global const float *a, __global const float *x,
                         __global int *out) {
    int i = get_global_id(0);
    out[i] = lower_bound(a + ptr[i], ptr[i + 1] - ptr[i], x[i]);
}
"""


def test_a_helper_bisection_takes_its_range_from_the_call():
    """Called with a scalar range, log2 of it; called with a range loaded from memory, the unknown ``trip_<line>`` it
    was before (its counts still evaluate once that trip is assumed)."""
    unit = parse_source(HELPER, "opencl")
    known = analyze(unit.function("by_size"), unit)
    loads = sp.sympify(known.counts["global_load_bytes"])
    assert loads.free_symbols == {n} and sp.simplify(loads - (4 + 4 * sp.log(sp.Max(1, n + 1), 2))) == 0
    loaded = analyze(unit.function("by_offsets"), unit)
    assert "trip_4" in loaded.symbols
    assert not any(str(s).startswith(("ld_", "v_")) for s in sp.sympify(loaded.counts["global_load_bytes"]).free_symbols)
