"""Instrumented counts on the cross-check kernels (tiled SGEMM, stencils), hand-checked, and the
instrumented kernels' results equal to numpy references."""
import numpy as np

from kgraph.data.instrumented import count_launch

SGEMM_TILED = """
#define TS 8
__kernel void sgemm_tiled(const int M, const int N, const int K, __global const float *A,
                          __global const float *B, __global float *C) {
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    int lr = get_local_id(1), lc = get_local_id(0);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        As[lr][lc] = A[row * K + t * TS + lc];
        Bs[lr][lc] = B[(t * TS + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
"""

STENCIL_1D = """
__kernel void stencil3(const int n, __global const float *in, __global float *out) {
    int i = get_global_id(0);
    if (i < 1 || i >= n - 1) return;
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}
"""

STENCIL_2D = """
__kernel void stencil5(const int nx, const int ny, __global const double *u, __global double *v) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
        int c = y * nx + x;
        v[c] = u[c] - 0.25 * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
    }
}
"""


def test_tiled_sgemm_counts_and_result(ctx):
    n = 32
    rng = np.random.default_rng(3)
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    w = count_launch(SGEMM_TILED, "sgemm_tiled", (n, n), (8, 8), dict(M=n, N=n, K=n, A=A, B=B, C=C), ctx)
    assert w.flops_fp32 == 2 * n**3
    # each work-item loads one A and one B element per tile: 2 x 4 bytes x 4 tiles
    assert w.global_load_bytes == n * n * 2 * 4 * (n // 8) == 32768
    assert w.global_store_bytes == 4 * n * n
    assert w.footprint_bytes == 3 * n * n * 4
    assert w.exact
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_stencil_1d_counts_and_result(ctx):
    n = 64
    x = np.random.default_rng(4).random(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    w = count_launch(STENCIL_1D, "stencil3", (n,), (16,), dict(n=n, **{"in": x}, out=out), ctx)
    inner = n - 2
    assert w.flops_fp32 == 5 * inner  # 3 multiplies, 2 adds
    assert w.global_load_bytes == 3 * 4 * inner
    assert w.global_store_bytes == 4 * inner
    assert w.footprint_bytes == 4 * n + 4 * inner  # all of in, the inner part of out
    assert (w.buffers["in"].max_index, w.buffers["out"].max_index) == (n - 1, n - 2)
    ref = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
    np.testing.assert_allclose(out[1:-1], ref, rtol=1e-6)


def test_stencil_2d_fp64_counts_and_result(ctx):
    nx, ny = 32, 16
    u = np.random.default_rng(5).random((ny, nx))
    v = np.zeros((ny, nx))
    w = count_launch(STENCIL_2D, "stencil5", (nx, ny), (8, 4), dict(nx=nx, ny=ny, u=u, v=v), ctx)
    inner = (nx - 2) * (ny - 2)
    assert w.flops_fp64 == 5 * inner and w.flops_fp32 == 0  # 3 adds, 1 multiply, 1 subtract
    assert w.global_load_bytes == 5 * 8 * inner
    assert w.global_store_bytes == 8 * inner
    assert w.footprint_bytes == 8 * (nx * ny - 4) + 8 * inner  # u: all but the 4 corners
    ref = u[1:-1, 1:-1] - 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
    np.testing.assert_allclose(v[1:-1, 1:-1], ref, rtol=1e-12)
