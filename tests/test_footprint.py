"""Static footprint (kgraph/analysis/footprint.py): exact where the touched range is dense, flagged otherwise."""
from __future__ import annotations

import pytest

from kgraph.analysis.footprint import static_footprint
from kgraph.parsers import parse_source


def footprint(src: str, env: dict, kernel: str | None = None):
    unit = parse_source(src, "opencl")
    fn = unit.kernels[0] if kernel is None else next(k for k in unit.kernels if k.name == kernel)
    return static_footprint(fn, unit).evaluate(env)


SAXPY = """__kernel void saxpy(const int n, const float a, __global const float *x, __global float *y) {
    int i = get_global_id(0);
    if (i >= n) return;
    y[i] = a * x[i] + y[i];
}"""

SGEMM = """__kernel void sgemm(const int M, const int N, const int K, __global const float *A,
                    __global const float *B, __global float *C) {
    int row = get_global_id(1), col = get_global_id(0);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}"""

STENCIL = """__kernel void jacobi(const int nx, const int ny, __global const float *in, __global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
    out[y * nx + x] = 0.25f * (in[y * nx + x - 1] + in[y * nx + x + 1] + in[(y - 1) * nx + x] + in[(y + 1) * nx + x]);
}"""

TRANSPOSE = """__kernel void transpose(const int rows, const int cols, __global const float *in, __global float *out) {
    int c = get_global_id(0), r = get_global_id(1);
    out[c * rows + r] = in[r * cols + c];
}"""

STRIDED = """__kernel void even(const int n, __global const float *in, __global float *out) {
    int i = get_global_id(0);
    out[i] = in[2 * i];
}"""

CSR = """__kernel void spmv(const int rows, __global const int *ptr, __global const int *col,
                   __global const float *val, __global const float *x, __global float *y) {
    int r = get_global_id(0);
    if (r >= rows) return;
    float s = 0.0f;
    for (int p = ptr[r]; p < ptr[r + 1]; p++) s += val[p] * x[col[p]];
    y[r] = s;
}"""


def test_saxpy_is_exact_and_clipped_by_its_guard():
    r = footprint(SAXPY, {"n": 1000, "gsz0": 1024, "lsz0": 256})
    assert r.exact and r.total_bytes == 2 * 1000 * 4


def test_naive_sgemm_is_exact():
    r = footprint(SGEMM, {"M": 64, "N": 32, "K": 16, "gsz0": 32, "gsz1": 64, "lsz0": 16, "lsz1": 16})
    assert r.exact and r.total_bytes == (64 * 16 + 16 * 32 + 64 * 32) * 4


def test_stencil_with_halo_is_exact():
    nx, ny = 40, 30
    r = footprint(STENCIL, {"nx": nx, "ny": ny, "gsz0": nx, "gsz1": ny, "lsz0": 8, "lsz1": 2})
    touched_in = {(y + dy) * nx + x + dx for y in range(1, ny - 1) for x in range(1, nx - 1)
                  for dy, dx in ((0, -1), (0, 1), (-1, 0), (1, 0))}
    assert r.exact  # the interior rows are not one interval: disjoint row copies, united in a byte map
    assert {b.name: b.bytes for b in r.buffers} == {"in": 4 * len(touched_in), "out": 4 * (nx - 2) * (ny - 2)}


def test_transposed_and_strided_accesses():
    r = footprint(TRANSPOSE, {"rows": 48, "cols": 32, "gsz0": 32, "gsz1": 48, "lsz0": 16, "lsz1": 16})
    assert r.exact and r.total_bytes == 2 * 48 * 32 * 4
    r = footprint(STRIDED, {"n": 256, "gsz0": 256, "lsz0": 64})
    assert r.exact and {b.name: b.bytes for b in r.buffers} == {"in": 256 * 4, "out": 256 * 4}


def test_indirect_csr_is_not_exact():
    r = footprint(CSR, {"rows": 100, "gsz0": 128, "lsz0": 64})
    assert not r.exact


def test_strided_marks_equal_index_marks():
    """_mark's strided view sets exactly the elements of the index-array definition."""
    import numpy as np

    from kgraph.analysis.element_sets import mark

    rng = np.random.default_rng(0)
    for _ in range(200):
        base, start = int(rng.integers(1, 6)), int(rng.integers(0, 5))
        steps = [(int(rng.integers(-3, 9)) or 1, int(rng.integers(1, 5))) for _ in range(rng.integers(0, 3))]
        offsets = np.arange(start, start + base)
        for stride, n in steps:
            offsets = (offsets[None, :] + stride * np.arange(n)[:, None]).ravel()
        shift = -min(0, int(offsets.min()))
        want = np.zeros(offsets.max() + shift + 2, dtype=bool)
        want[offsets + shift] = True
        got = np.zeros_like(want)
        mark(got, start + shift, base, steps)
        assert (got == want).all(), (start, base, steps)


CLAMPED = """int clampi(int v, int n) { return min(max(v, 0), n - 1); }
int clampt(int x, int n) { return x < 0 ? 0 : x; }
__kernel void blur(const int W, const int H, __global const float *in, __global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -1; dy <= 2; ++dy)
        acc += in[clampi(y + dy, H) * W + clampi(x - 2, W)] + in[clamp(y, 0, H - 1) * W + min(x + 1, W - 1)];
    acc += in[clampt(y - 3, H) * W + x];
    out[y * W + x] = acc;
}"""


@pytest.mark.parametrize("W,H,g0,g1", [(16, 8, 16, 8), (16, 8, 8, 4), (40, 30, 32, 32), (5, 3, 16, 16)])
def test_clamped_stencil_is_exact_against_brute_force(W, H, g0, g1):
    r = footprint(CLAMPED, {"W": W, "H": H, "gsz0": g0, "gsz1": g1, "lsz0": 4, "lsz1": 4})
    cl = lambda v, n: min(max(v, 0), n - 1)  # noqa: E731
    touched = set()
    for x in range(g0):
        for y in range(g1):
            for dy in range(-1, 3):
                touched |= {cl(y + dy, H) * W + cl(x - 2, W), cl(y, H) * W + min(x + 1, W - 1)}
            touched.add(max(y - 3, 0) * W + x)
    buf = next(b for b in r.buffers if b.name == "in")
    assert r.exact and buf.exact and buf.bytes == 4 * len(touched)


def test_clamp_with_loaded_bound_stays_inexact():
    src = """__kernel void k(const int n, __global const int *lim, __global const float *in, __global float *out) {
        int i = get_global_id(0);
        out[i] = in[clamp(i - 1, 0, lim[0])];
    }"""
    r = footprint(src, {"n": 64, "gsz0": 64, "lsz0": 16})
    assert not r.exact
    assert not next(b for b in r.buffers if b.name == "in").exact
