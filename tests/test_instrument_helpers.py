"""Helper functions are instrumented through clones that add into the caller's counters and mark
the caller's buffers: a kernel calling a helper that does a*b+c on global data counts exactly, and
agrees with the static analysis (which inlines helpers)."""
import numpy as np

from kgraph.analysis import analyze
from kgraph.instrument import COUNTER_NAMES, instrument
from kgraph.data.instrumented import count_launch
from kgraph.parsers import parse_source

SRC = """
float madd(__global const float *a, __global const float *b, float c, int i) {
    return a[i] * b[i] + c;
}
void twice(__global float *out, int i, float v) {
    out[i] = madd(out, out, v, i) * 2.0f;
}
float poly(float t) {
    return t * t + 1.0f;
}
__kernel void k(__global const float *x, __global const float *y, __global float *z, int n) {
    int i = get_global_id(0);
    if (i < n) {
        z[i] = madd(x, y, 1.0f, i);
        twice(&z[0], i, poly(3.0f));
    }
}
"""


def test_clones_replace_warnings():
    ik = instrument(parse_source(SRC, "opencl"), "k")
    assert ik.exact and ik.warnings == []
    assert ik.source.count("__kg_h_madd(") == 3  # the clone's definition + calls from k and twice
    assert "float madd(__global const float *a" in ik.source  # the original stays for other callers


def test_helper_work_counted_exactly(ctx):
    n, g = 48, 64
    x, y, z = np.full(g, 2, np.float32), np.full(g, 3, np.float32), np.zeros(g, np.float32)
    w = count_launch(SRC, "k", (g,), (16,), dict(x=x, y=y, z=z, n=n), ctx)
    d = w.to_dict()
    # per active work-item (48): madd 2 flops + 8 B loads; poly 2 flops; twice: madd 2 flops + 8 B,
    # *2.0f 1 flop; stores z[i] twice (8 B)
    assert d["flops_fp32"] == 48 * 7
    assert d["global_load_bytes"] == 48 * 16 and d["global_store_bytes"] == 48 * 8
    assert d["footprint_bytes"] == 3 * 48 * 4  # x, y and z[0..47], z marked through the helper
    assert w.buffers["z"].max_index == 47
    assert z[0] == (2 * 3 + 1) ** 2 * 2 + 10 * 2  # results unchanged by the rewrite: (7*7 + 10) * 2
    static = analyze(parse_source(SRC, "opencl").function("k"), parse_source(SRC, "opencl"))
    total = static.total(dict(n=n, gsz0=g, lsz0=16))
    for key in COUNTER_NAMES:
        assert total[key] == d[key], key


def test_untraceable_pointer_keeps_warning():
    src = SRC.replace("twice(&z[0], i, poly(3.0f));", "twice(i > 2 ? z : z + 1, i, 1.0f);")
    ik = instrument(parse_source(src, "opencl"), "k")
    assert not ik.exact and any("'twice'" in w for w in ik.warnings)
