"""while/do loops with affine conditions: trip counts like for-loops, checked against the
instrumented run (PoCL) and by hand; break/continue notes."""
import numpy as np
import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.parsers import parse_source

SRC = """
__kernel void gs(__global float *y, int n) {
    int i = get_global_id(0);
    while (i < n) {
        y[i] = 2.0f * y[i] + 1.0f;
        i += get_global_size(0);
    }
}
__kernel void dosum(__global const float *x, __global float *y, int n) {
    int k = 0;
    float s = 0.0f;
    do {
        s += x[k];
        k += 4;
    } while (k < n);
    y[get_global_id(0)] = s;
}
__kernel void halve(__global float *y, int n) {
    int s = n;
    while (s > 0) {
        y[get_global_id(0)] += 1.0f;
        s >>= 1;
    }
}
__kernel void early(__global float *y, int n) {
    int k = 0;
    while (k < n && y[k] > 0.0f) {
        y[k] *= 0.5f;
        k++;
    }
}
__kernel void brk(__global float *y, int n) {
    for (int k = 0; k < n; k++) {
        if (y[k] < 0.0f) break;
        y[k] *= 2.0f;
    }
}
"""
UNIT = parse_source(SRC, "opencl")
n, g0 = sp.Symbol("n", integer=True), sp.Symbol("gsz0", integer=True, positive=True)


def analysis(name):
    return analyze(UNIT.function(name), UNIT)


def test_grid_stride_while():
    a = analysis("gs")
    assert (a.loops[0].kind, a.loops[0].var, a.loops[0].trip, a.loops[0].symbolic) == ("while", "i", n / g0, True)
    # per visited element: 2 flops, 4 B load, 4 B store; int: i += gsz (1) per iteration
    assert a.counts["flops_fp32"] == 2 * n / g0
    assert a.counts["branches"] == n / g0 + 1  # the condition runs trip + 1 times
    assert a.total({"n": 100, "gsz0": 32})["flops_fp32"] == pytest.approx(200)


def test_do_loop_runs_at_least_once():
    a = analysis("dosum")
    assert a.loops[0].trip == sp.Max(1, sp.ceiling(n / 4))
    assert a.evaluate({"n": 10, "gsz0": 1})["global_load_bytes"] == 4 * 3  # k = 0, 4, 8
    assert a.evaluate({"n": 0, "gsz0": 1})["global_load_bytes"] == 4       # body once
    assert a.evaluate({"n": 10, "gsz0": 1})["branches"] == 3                # condition trip times


def test_halving_while():
    a = analysis("halve")
    assert a.evaluate({"n": 100, "gsz0": 1})["flops_fp32"] == 7  # 100, 50, 25, 12, 6, 3, 1


def test_data_dependent_exit_keeps_symbol_with_bound_note():
    a = analysis("early")
    assert a.loops[0].symbolic is False and a.loops[0].trip == sp.Symbol("trip_27", integer=True, nonnegative=True)
    assert "at most n iterations" in a.loops[0].note


def test_break_note():
    a = analysis("brk")
    assert a.loops[0].trip == n and "'break' in the body" in a.loops[0].note


@pytest.mark.parametrize("kernel,gsz,size", [("gs", 32, 96), ("dosum", 8, 10), ("halve", 16, 100)])
def test_static_equals_instrumented(ctx, kernel, gsz, size):
    from kgraph.instrument import COUNTER_NAMES
    from kgraph.data.instrumented import count_launch
    bufs = {"y": np.ones(max(size, gsz), np.float32)}
    if kernel == "dosum":
        bufs["x"] = np.ones(size + 4, np.float32)
    dynamic = count_launch(SRC, kernel, (gsz,), (gsz,), dict(n=size, **bufs), ctx).to_dict()
    static = analysis(kernel).total({"n": size, "gsz0": gsz, "lsz0": gsz})
    for key in COUNTER_NAMES:
        assert static[key] == dynamic[key], key
