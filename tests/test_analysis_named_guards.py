"""Guards written through a boolean local (``const bool inside = gx < nx && gy < ny; if (inside)``) and bounds with
a power of two of a scalar parameter (``1u << logn``): counted as guards on the ids, checked by hand and against
the instrumented run (PoCL); a boolean assigned twice, and a shift by a loop variable, stay unknown."""
import numpy as np
import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.parsers import parse_source

SRC = """
__kernel void named(__global float *y, int nx, int ny) {
    const int gx = get_global_id(0), gy = get_global_id(1);
    const bool inside = gx < nx && gy < ny;
    const bool edge = gx == 0 || gx == nx - 1;
    if (inside) {
        float v = y[gy * nx + gx];
        if (!edge)
            v = 2.0f * v + 1.0f;
        y[gy * nx + gx] = v;
    }
}
__kernel void reassigned(__global float *y, int n) {
    int i = get_global_id(0);
    bool ok = i < n;
    if (y[0] > 0.0f) ok = false;
    if (ok) y[i] = 2.0f * y[i];
}
__kernel void pow2(__global float *y, int logn, int nvec) {
    const size_t gid = get_global_id(0);
    const uint n = 1u << logn;
    if (gid >= (size_t)nvec * n) return;
    y[gid] = 2.0f * y[gid];
}
__kernel void shifted(__global float *y, int n) {
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
        if (get_global_id(0) < (1 << k)) s += 1.0f;
    y[get_global_id(0)] = s;
}
"""
UNIT = parse_source(SRC, "opencl")
g0, g1 = sp.Symbol("gsz0", integer=True, positive=True), sp.Symbol("gsz1", integer=True, positive=True)


def counts(name, env):
    return analyze(UNIT.function(name), UNIT).total(env)


def test_boolean_locals_are_read_as_their_guards():
    env = {"nx": 100, "ny": 30, "gsz0": 128, "gsz1": 32, "lsz0": 64, "lsz1": 4}
    c = counts("named", env)
    assert c["global_load_bytes"] == pytest.approx(4 * 100 * 30)     # inside: 100 x 30 of 128 x 32 items
    # and not on the two edge columns: two ids of the row excluded, at 1 - 2/gsz0 (docs/ANALYSIS.md, guards)
    assert c["flops_fp32"] == pytest.approx(2 * 100 * 30 * (1 - 2 / 128))


def test_a_boolean_assigned_twice_stays_half():
    c = counts("reassigned", {"n": 64, "gsz0": 64, "lsz0": 64})
    assert c["flops_fp32"] == pytest.approx(32)


def test_a_power_of_two_of_a_parameter_bounds_a_guard():
    c = counts("pow2", {"logn": 5, "nvec": 3, "gsz0": 128, "lsz0": 64})
    assert c["flops_fp32"] == pytest.approx(96)  # 3 vectors of 2^5 of 128 items


def test_a_shift_by_a_loop_variable_is_not_a_launch_constant():
    c = counts("shifted", {"n": 1, "gsz0": 64, "lsz0": 64})
    assert c["flops_fp32"] == pytest.approx(4 * 64 / 2)  # 1 << k is no bound: each of the 4 tests at 1/2


@pytest.mark.parametrize("kernel, gsz, sizes", [("named", (16, 8), {"nx": 13, "ny": 5}),
                                                ("pow2", (128,), {"logn": 5, "nvec": 3})])
def test_static_equals_instrumented(ctx, kernel, gsz, sizes):
    from kgraph.data.instrumented import count_launch
    from kgraph.instrument import COUNTER_NAMES

    local = (8, 4) if len(gsz) == 2 else (64,)
    bufs = {"y": np.ones(256, np.float32)}
    dynamic = count_launch(SRC, kernel, gsz, local, dict(**sizes, **bufs), ctx).to_dict()
    env = {**sizes, **{f"gsz{d}": g for d, g in enumerate(gsz)}, **{f"lsz{d}": v for d, v in enumerate(local)}}
    static = analyze(UNIT.function(kernel), UNIT).total(env)
    # the edge test's 1 - 2/gsz0 is the analysis's approximation of two excluded columns: exact memory, not flops
    keys = ("global_load_bytes", "global_store_bytes") if kernel == "named" else COUNTER_NAMES
    for key in keys:
        assert static[key] == pytest.approx(dynamic[key]), (kernel, key)
