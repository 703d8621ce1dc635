"""Guards whose id coefficient is a loop variable (``(d + 1)*s*2 - 1 < n`` in a scan), and names declared in
sibling scopes (``int t`` in two loops): found on the foreign set's ``scan_blelloch`` (docs/ANALYSIS.md)."""
from pathlib import Path

import pytest
import sympy as sp

from kgraph.analysis import analyze
from kgraph.analysis.assignments import multi_assigned
from kgraph.parsers import parse_source

# the foreign set's kernel as measured (never a copy of it here), then a reduction with the same guard shape
SCAN = (Path(__file__).resolve().parents[1] / "data" / "foreign_set" / "cl" / "scan_blelloch.cl").read_text()
SRC = SCAN + """
__kernel void interleaved(__global float *out, __local float *sdata)
{
    int tid = get_local_id(0);
    for (int s = 1; s < get_local_size(0); s *= 2) {
        if (2 * s * tid < get_local_size(0)) sdata[2 * s * tid] += sdata[2 * s * tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}
__kernel void shadow(__global float *y, int n)
{
    int t = get_global_id(0);
    { int t = 2; y[t] = 1.0f; }
    for (int k = 0; k < 2; k++) { int u = t + k; y[u] = 0.0f; }
    for (int k = 0; k < 2; k++) { int u = t - k; y[u] = 0.0f; }
}
"""
UNIT = parse_source(SRC, "opencl")
ENV = {"gsz0": 1 << 20, "lsz0": 256}


def _counts(name, env=ENV):
    return {k: float(v) for k, v in analyze(UNIT.function(name), UNIT).evaluate(env).items()}


def exactly(value):
    return pytest.approx(float(value), rel=1e-12)


def test_scan_counts_equal_the_instrumented_ones():
    # At lsz = 256 each sweep runs 8 steps; step s passes floor(256/(2s)) work-items (128 + 64 + ... + 1 = 255
    # of 256 per sweep). PoCL's instrumented run (python -m kgraph.data.instrumented, 2^20 items) counts
    # 93,306,880 int ops = 88.984375 per item; it was 104.0 (the guard counted 1/2 each step).
    c = _counts("scan_blelloch")
    assert c["int_ops"] == exactly(sp.Rational(93306880, 1 << 20))
    # loads: c[t], c[t-s] up (8 B) and c[t-s], c[t], c[t] down (12 B) per active item, plus c[d]
    assert c["local_load_bytes"] == exactly(4 + sp.Rational(255, 256) * (8 + 12))
    # stores: c[d], c[t] up, c[t-s] and c[t] down, c[e-1] by item 0
    assert c["local_store_bytes"] == exactly(4 + sp.Rational(255, 256) * (4 + 8) + sp.Rational(4, 256))
    assert c["barriers"] == exactly(18)


def test_loop_variable_coefficient_in_a_guard():
    # 2*s*tid < lsz passes lsz/(2s) items at s = 1, 2, ..., lsz/2: (lsz - 1)/lsz in all, 4 bytes loaded twice
    for lsz in (64, 256):
        c = _counts("interleaved", {"gsz0": 1 << 16, "lsz0": lsz})
        assert c["local_load_bytes"] == exactly(8 * sp.Rational(lsz - 1, lsz) + sp.Rational(4, lsz))
        assert c["local_store_bytes"] == exactly(4 * sp.Rational(lsz - 1, lsz))


def test_sibling_declarations_are_separate_variables():
    body = UNIT.function("shadow").body
    names = multi_assigned(body)
    assert "u" not in names  # one declaration in each of two sibling loop bodies
    assert "t" in names  # the inner t shadows the outer one: no single value
    assert "k" in names  # loop variables are updated


MOD = parse_source("""
__kernel void reduce_mod(__global const float *in, __global float *partial, __local float *sdata)
{
    unsigned int tid = get_local_id(0);
    sdata[tid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned int s = 1; s < get_local_size(0); s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid % 4 != 0) partial[get_global_id(0)] = 0.0f;
}
""", "opencl")


def test_modulo_guard_passes_one_in_m_items():
    # "interleaved addressing" (the holdout's reduce_interleaved_mod): tid % 2s == 0 passes lsz/(2s) items at
    # s = 1, 2, ..., lsz/2, (lsz - 1)/lsz of an item's add in all (it was counted 1/2 per step: 4x at 256)
    for lsz in (64, 256):
        c = {k: float(v) for k, v in analyze(MOD.function("reduce_mod"), MOD).evaluate(
            {"gsz0": 1 << 16, "lsz0": lsz}).items()}
        assert c["flops_fp32"] == exactly(sp.Rational(lsz - 1, lsz))
        assert c["local_load_bytes"] == exactly(8 * sp.Rational(lsz - 1, lsz))
        assert c["global_store_bytes"] == exactly(4 * sp.Rational(3, 4))  # tid % 4 != 0: 3 of 4 items
