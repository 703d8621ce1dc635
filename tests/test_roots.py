"""The ``roots`` count: square roots and reciprocal square roots among the transcendental operations."""
from __future__ import annotations

import pytest

import kgraph
from kgraph.parsers.dialect import get_dialect


@pytest.mark.parametrize("lang,name,root", [
    ("opencl", "sqrt", True), ("opencl", "rsqrt", True), ("opencl", "native_rsqrt", True),
    ("opencl", "half_sqrt", True), ("opencl", "exp", False), ("opencl", "native_exp", False),
    ("cuda", "rsqrtf", True), ("cuda", "sqrtf", True), ("cuda", "__expf", False), ("c", "sqrt", True),
    ("c", "cbrt", False)])
def test_is_root(lang, name, root):
    assert get_dialect(lang).is_root(name) is root


def test_roots_are_counted_per_lane_within_transcendental():
    src = """__kernel void k(__global float4 *x, __global float *y) {
        int i = get_global_id(0);
        x[i] = sqrt(x[i]) + exp(x[i]);
        y[i] = native_rsqrt(y[i]) * sin(y[i]);
    }"""
    counts = kgraph.from_source(src, "opencl")[0].analysis.counts
    assert counts["transcendental"] == 4 + 4 + 1 + 1
    assert counts["roots"] == 4 + 1
