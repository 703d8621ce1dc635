"""Windows around a loaded position (kgraph.analysis.windows): a ``for`` loop whose start and bound read memory but
whose count does not, checked by hand and against the instrumented run (PoCL); shapes that must stay unknown."""
import numpy as np
import pytest

from kgraph.analysis import analyze
from kgraph.exact_counts import inexact_reason
from kgraph.parsers import parse_source

SRC = """
__kernel void run(__global const int *base, __global const float *x, __global float *out, int w) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int k = base[i]; k < base[i] + w; k++) s += x[k] * 2.0f;
    out[i] = s;
}
__kernel void cells(__global const float *pos, __global const float *x, __global float *out, int n, float inv) {
    int i = get_global_id(0);
    int c = (int)(pos[i] * inv);
    float s = 0.0f;
    for (int z = max(c - 1, 0); z <= min(c + 1, n - 1); z++) s += x[z] * 0.5f;
    out[i] = s;
}
__kernel void two_calls(__global const float *pos, __global const float *x, __global float *out, int n, float h) {
    int i = get_global_id(0);
    int b0 = max(0, (int)floor(pos[i] - h));
    int b1 = min(n - 1, (int)floor(pos[i] + h));
    float s = 0.0f;
    for (int b = b0; b <= b1; b++) s += x[b];
    out[i] = s;
}
__kernel void segment(__global const int *ptr, __global const float *x, __global float *out) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int k = ptr[i]; k < ptr[i + 1]; k++) s += x[k];
    out[i] = s;
}
__kernel void moved(__global const int *pos, __global const float *x, __global float *out, int n) {
    int i = get_global_id(0);
    int c = pos[i];
    float s = 0.0f;
    for (int z = max(c - 1, 0); z <= min(c + 1, n - 1); z++) { s += x[z]; c += (s > 1.0f); }
    out[i] = s;
}
"""
UNIT = parse_source(SRC, "opencl")


def loop_of(kernel: str):
    a = analyze(UNIT.function(kernel), UNIT)
    return a, a.loops[0]


def test_a_run_of_known_length_from_a_loaded_offset_is_exact():
    a, lp = loop_of("run")
    assert lp.symbolic and str(lp.trip) == "w" and not lp.mean
    assert inexact_reason(a, UNIT, UNIT.function("run")) == ""
    assert a.total({"w": 8, "gsz0": 64, "lsz0": 64})["flops_fp32"] == 64 * 8 * 2


def test_a_clamped_window_is_read_at_its_full_width_as_a_mean():
    a, lp = loop_of("cells")
    assert lp.symbolic and int(lp.trip) == 3 and lp.mean and "full width" in lp.note
    assert inexact_reason(a, UNIT, UNIT.function("cells"))  # a mean: the counts are not exact


@pytest.mark.parametrize("kernel", ["two_calls", "segment", "moved"])
def test_other_shapes_stay_unknown(kernel):
    """Two calls of ``floor`` (one symbol each would cancel wrongly), a segment of an offsets array, a variable the
    body moves."""
    _, lp = loop_of(kernel)
    assert not lp.symbolic and str(lp.trip).startswith("trip_")


@pytest.mark.parametrize("kernel", ["run", "cells"])
def test_the_count_matches_the_instrumented_run(ctx, kernel):
    """The run's loads exactly; the window's within its border loss (positions uniform over the cells)."""
    from kgraph.data.instrumented import count_launch

    rng, g, n, w = np.random.default_rng(0), 1024, 256, 8
    if kernel == "run":
        args = dict(w=w, base=rng.integers(0, 4 * g, g).astype(np.int32), x=rng.random(4 * g + w).astype(np.float32))
        env = {"w": w}
    else:
        args = dict(n=n, inv=np.float32(1.0), pos=(rng.random(g) * n).astype(np.float32), x=rng.random(n).astype(np.float32))
        env = {"n": n, "inv": 1.0}
    dynamic = count_launch(SRC, kernel, (g,), (64,), dict(args, out=np.zeros(g, np.float32)), ctx).to_dict()
    static = analyze(UNIT.function(kernel), UNIT).total({**env, "gsz0": g, "lsz0": 64})
    ratio = static["global_load_bytes"] / dynamic["global_load_bytes"]
    if kernel == "run":
        assert ratio == 1.0 and static["flops_fp32"] == dynamic["flops_fp32"]
    else:  # 3 cells but 2 at the two borders: 1 + (2 / n) / 3 at most, over the loads of the window and of pos
        assert 1.0 <= ratio < 1.01
