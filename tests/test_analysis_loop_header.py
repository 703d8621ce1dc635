"""Loop headers the analysis reads beyond ``i OP b``: an offset on the loop variable (``p + w <= n``, either side,
``for`` and ``while``) and a ``for`` without an initialiser (``for (; j < w; j++)`` after ``int j = 0;``), checked
by hand and against the instrumented run (PoCL); forms it still cannot count stay data-dependent."""
import numpy as np
import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.parsers import parse_source

SRC = """
__kernel void window(__global const float *x, __global float *y, int n, int w) {
    float s = 0.0f;
    for (int p = 0; p + w <= n; p++)
        s += x[p];
    y[get_global_id(0)] = s;
}
__kernel void flipped(__global const float *x, __global float *y, int n) {
    float s = 0.0f;
    for (int p = 1; n > p - 1; p += 2)
        s += x[p];
    y[get_global_id(0)] = s;
}
__kernel void noinit(__global const float *x, __global float *y, int w) {
    float s = 0.0f;
    int j = 0;
    for (; j < w; j++)
        s += x[j];
    y[get_global_id(0)] = s;
}
__kernel void whileoff(__global const float *x, __global float *y, int n) {
    float s = 0.0f;
    int q = 3;
    while (q + 2 < n) {
        s += x[q];
        q++;
    }
    y[get_global_id(0)] = s;
}
__kernel void seglen(__global const int *ptr, __global const float *x, __global float *y) {
    int i = get_global_id(0);
    int start = ptr[i];
    int len = ptr[i + 1] - start;
    float s = 0.0f;
    for (int j = 0; j < len; j++)
        s += x[start + j];
    y[i] = s;
}
__kernel void twice(__global const float *x, __global float *y, int n) {
    float s = 0.0f;
    for (int p = 0; p + p < n; p++)
        s += x[p];
    y[get_global_id(0)] = s;
}
"""
UNIT = parse_source(SRC, "opencl")
n, w = sp.Symbol("n", integer=True), sp.Symbol("w", integer=True)


def loop(name):
    return analyze(UNIT.function(name), UNIT).loops[0]


@pytest.mark.parametrize("name, trip", [("window", n - w + 1), ("flipped", sp.ceiling(n / 2)), ("noinit", w),
                                        ("whileoff", n - 5)])
def test_trip_counts(name, trip):
    lp = loop(name)
    assert lp.symbolic and sp.simplify(lp.trip - trip) == 0, (name, lp.trip)


def test_a_variable_on_both_sides_stays_data_dependent():
    lp = loop("twice")
    assert not lp.symbolic and str(lp.trip) == "trip_41"


def test_a_length_from_two_elements_of_one_buffer_is_data_dependent():
    """ptr[i + 1] - ptr[i] is a loaded value, not 0: each element read is its own symbol (session 19: SELL-C-sigma's
    slice width was counted as 0 iterations)."""
    a = analyze(UNIT.function("seglen"), UNIT)
    assert not a.loops[0].symbolic and str(a.loops[0].trip) == "trip_35"
    assert a.counts["flops_fp32"] != 0


@pytest.mark.parametrize("kernel", ["window", "flipped", "noinit", "whileoff"])
def test_static_equals_instrumented(ctx, kernel):
    from kgraph.data.instrumented import count_launch
    from kgraph.instrument import COUNTER_NAMES

    sizes = {"window": {"n": 40, "w": 7}, "flipped": {"n": 40}, "noinit": {"w": 13}, "whileoff": {"n": 40}}[kernel]
    bufs = {"x": np.ones(64, np.float32), "y": np.zeros(8, np.float32)}
    dynamic = count_launch(SRC, kernel, (8,), (8,), dict(**sizes, **bufs), ctx).to_dict()
    static = analyze(UNIT.function(kernel), UNIT).total({**sizes, "gsz0": 8, "lsz0": 8})
    for key in COUNTER_NAMES:
        assert static[key] == dynamic[key], (kernel, key)
