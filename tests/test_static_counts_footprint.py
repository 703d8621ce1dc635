"""Static counts of a launch (campaigns with ``--counts static``) carry the footprint where the static
analysis marks it exact, as ``kgraph estimate`` does, and -1 where it does not (a gather)."""
from __future__ import annotations

from kgraph.data.harness.counts import static_counts

VADD = """__kernel void vadd(__global const float* a, __global const float* b, __global float* c, const int n) {
    const int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}"""
GATHER = """__kernel void gather(__global const float* a, __global const int* idx, __global float* c) {
    const int i = get_global_id(0);
    c[i] = a[idx[i]];
}"""


def test_exact_static_footprint_is_recorded():
    counts = static_counts(VADD, "opencl", "vadd", {"n": 1000}, [1024], [64])
    assert counts["footprint_bytes"] == 3 * 4 * 1000  # the guard clips the 24 extra work-items
    assert counts["global_load_bytes"] == 2 * 4 * 1000 and counts["flops_fp32"] == 1000


def test_inexact_footprint_stays_unknown():
    counts = static_counts(GATHER, "opencl", "gather", {}, [256], [64])
    assert counts["footprint_bytes"] == -1 and counts["global_load_bytes"] == 2 * 4 * 256
