"""Function-like macros in expressions are expanded for counting; C integer division truncates."""
import sympy as sp

from kgraph.analysis import analyze, statement_costs
from kgraph.parsers import parse_source

SRC = """
#define MAD(a, b, c) ((a) * (b) + (c))
#define IDX(r, c) ((r) * N + (c))
#define SQ(x) MAD(x, x, 0.0f)
#define CDIV(a, b) (((a) + (b) - 1) / (b))
#define STR(x) #x
__kernel void k(__global const float *A, __global float *y, int N) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < CDIV(N, 4); j++)
        s = MAD(A[IDX(i, j)], 2.0f, s) + SQ(s);
    y[i] = s;
}
__kernel void d(__global double *y) {
    y[get_global_id(0)] = MAD(y[0], 2.0, 1.0);
}
"""
UNIT = parse_source(SRC, "opencl")
N = sp.Symbol("N", integer=True)


def test_mad_in_a_loop_counts_two_flops_per_use():
    a = analyze(UNIT.function("k"), UNIT)
    trips = sp.floor(N / 4 + sp.Rational(3, 4))  # (N + 3) / 4 in C integer division
    assert a.loops[0].trip == trips
    # per iteration: MAD 2 + '+' 1 + SQ (= MAD) 2 fp32 flops; IDX 2 + CDIV 3 + j++ 1 int ops
    assert a.counts["flops_fp32"] == 5 * trips
    assert a.counts["int_ops"] == 6 * trips + 3
    assert a.evaluate({"N": 10, "gsz0": 1})["flops_fp32"] == 15  # 3 iterations
    assert a.evaluate({"N": 12, "gsz0": 1})["flops_fp32"] == 15
    # the macro-built index keeps its stride in gid0 (N): strided, not indirect
    assert (a.accesses[0].pattern, str(a.accesses[0].stride)) == ("strided", "N")


def test_macro_types_follow_the_arguments():
    costs = [c for c in statement_costs(UNIT.function("d"), UNIT) if c.kind == "stmt"]
    assert costs[0].counts["flops_fp64"] == 2 and costs[0].counts["flops_fp32"] == 0
    assert costs[0].counts["global_load_bytes"] == 8 and costs[0].counts["global_store_bytes"] == 8
