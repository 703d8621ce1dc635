"""Instrumented runs on PoCL: exact global bytes, atomics, footprint and extents (hand-checked)."""
import numpy as np
import pytest

from kgraph.errors import KGraphError, MeasurementError, UsageError
from kgraph.instrument import instrument
from kgraph.data.instrumented import count_launch
from kgraph.parsers import parse_source

SAXPY = """
__kernel void saxpy(const int n, const float a, __global const float *x, __global float *y) {
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""

SGEMM = """
__kernel void sgemm(const int M, const int N, const int K, __global const float *A,
                    __global const float *B, __global float *C) {
    int row = get_global_id(1), col = get_global_id(0);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
"""

MIXED = """
__kernel void mixed(__global const float4 *a, __global float4 *b, __global const float *x,
                    __global float *y, __global int *h, __global const int *d, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    b[i] = a[i] * 2.0f;
    b[i].x += 1.0f;
    vstore4(vload4(i, x) * 2.0f, i, y);
    __global float *row = y + 4 * n;
    row[i] = (i % 2) ? *(x + 4 * n + i) : 0.0f;
    atomic_inc(&h[d[i] % 8]);
    atomic_add(h + 8, 1);
    if (i < 2 && a[i].y > -1.0f) b[n + i] = a[i];
}
"""

AFFINE = """
__kernel void gather(__global const float *in, __global float *out, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    out[2 * i + 1] = in[3 * i];
}
"""


def test_saxpy_counts_and_result(ctx):
    n = 64
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    expected = 2.5 * x + y
    w = count_launch(SAXPY, "saxpy", (80,), (16,), dict(n=n, a=2.5, x=x, y=y), ctx)
    assert w.flops_fp32 == 2 * n  # a * x[i] + y[i]
    assert w.global_load_bytes == 2 * 4 * n  # the 16 work-items past n load nothing
    assert w.global_store_bytes == 4 * n
    assert w.atomics == 0
    assert w.footprint_bytes == 2 * 4 * n
    assert w.buffers["x"].max_index == n - 1 and w.buffers["y"].touched == n
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_sgemm_32_counts_and_result(ctx):
    n = 32
    rng = np.random.default_rng(1)
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    w = count_launch(SGEMM, "sgemm", (n, n), (8, 8), dict(M=n, N=n, K=n, A=A, B=B, C=C), ctx)
    assert w.flops_fp32 == 2 * 32**3 and w.flops_fp64 == 0 and w.transcendental == 0
    # index arithmetic per work-item: 2 ops x 2 loads x 32 iterations + k++ x 32 + C's index 2
    assert w.int_ops == 32 * 32 * (128 + 32 + 2)
    assert w.global_load_bytes == 2 * 4 * 32**3 == 262144
    assert w.global_store_bytes == 4 * 32**2 == 4096
    assert w.footprint_bytes == 3 * 32 * 32 * 4 == 12288
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_vectors_ternary_alias_deref_atomics(ctx):
    n = 16
    rng = np.random.default_rng(2)
    a = rng.random((n + 2, 4), dtype=np.float32)
    b = np.zeros((n + 2, 4), np.float32)
    x = rng.random(5 * n, dtype=np.float32)
    y = np.zeros(5 * n, np.float32)
    h = np.zeros(16, np.int32)
    d = np.arange(n, dtype=np.int32)
    w = count_launch(MIXED, "mixed", (20,), (4,), dict(a=a, b=b, x=x, y=y, h=h, d=d, n=n), ctx)
    # a component access moves its whole element (the static analysis' rule)
    # loads: a[i] 16x16, b[i].x 16x16, vload4 16x16, odd-i ternary 4x8, d[i] 4x16, a[i].y 16x2, a[i] 16x2
    assert w.global_load_bytes == 256 + 256 + 256 + 32 + 64 + 32 + 32 == 928
    # stores: b[i] 16x16, b[i].x 16x16, vstore4 16x16, row[i] 4x16, b[n+i] 16x2
    assert w.global_store_bytes == 256 + 256 + 256 + 64 + 32 == 864
    assert w.atomics == 2 * n
    ext = w.buffers
    assert (ext["a"].touched, ext["b"].touched, ext["x"].touched, ext["y"].touched) == (16, 18, 72, 80)
    assert (ext["h"].touched, ext["h"].max_index, ext["d"].touched) == (9, 8, 16)
    assert w.footprint_bytes == 16 * 16 + 18 * 16 + 72 * 4 + 80 * 4 + 9 * 4 + 16 * 4 == 1252
    # the instrumented kernel computed what the kernel computes
    np.testing.assert_allclose(b[:n], a[:n] * 2 + np.array([1, 0, 0, 0], np.float32), rtol=1e-6)
    np.testing.assert_allclose(b[n:], a[:2], rtol=0)
    np.testing.assert_allclose(y[:4 * n], 2 * x[:4 * n], rtol=1e-6)
    np.testing.assert_array_equal(y[4 * n:][1::2], x[4 * n:][1::2])
    np.testing.assert_array_equal(h, [2] * 8 + [16] + [0] * 7)


def test_extents_of_affine_kernel_with_generous_buffers(ctx):
    n = 10
    src, dst = np.arange(1000, dtype=np.float32), np.zeros(1000, np.float32)
    w = count_launch(AFFINE, "gather", (16,), None, dict(**{"in": src, "out": dst}, n=n), ctx)
    assert w.buffers["in"].max_index == 3 * (n - 1) == 27
    assert w.buffers["out"].max_index == 2 * (n - 1) + 1 == 19
    assert w.buffers["in"].extent_bytes == 28 * 4
    assert (w.buffers["in"].touched, w.buffers["out"].touched) == (n, n)
    assert w.buffers["in"].capacity == 1000 and w.buffers["in"].out_of_range == 0
    np.testing.assert_array_equal(dst[1:20:2], src[0:30:3])


def test_too_small_buffer_is_reported_out_of_range(ctx):
    n = 10
    src, dst = np.arange(20, dtype=np.float32), np.zeros(40, np.float32)
    w = count_launch(AFFINE, "gather", (n,), None, dict(**{"in": src, "out": dst}, n=n), ctx)
    # in[27] is past a 20-element buffer: in[21], in[24], in[27] fall outside
    assert w.buffers["in"].out_of_range == 3 and w.buffers["in"].max_index == 27


def test_build_failure_is_a_measurement_error(ctx):
    bad = "__kernel void k(__global float *x) { x[0] = undefined_thing; }"
    with pytest.raises(MeasurementError, match="does not build"):
        count_launch(bad, "k", (1,), None, dict(x=np.zeros(1, np.float32)), ctx)


def test_bad_requests_are_clear_errors(ctx):
    with pytest.raises(KGraphError, match="no kernel named 'nope'"):
        count_launch(SAXPY, "nope", (1,), None, {}, ctx)
    with pytest.raises(UsageError, match="argument 'y' of kernel 'saxpy' is missing"):
        count_launch(SAXPY, "saxpy", (1,), None, dict(n=1, a=1.0, x=np.zeros(1, np.float32)), ctx)
    cuda = parse_source("__global__ void k(float *x) { x[threadIdx.x] = 0; }", "cuda")
    with pytest.raises(KGraphError, match="OpenCL"):
        instrument(cuda, "k")


def test_local_and_private_accesses_untouched():
    src = """
    __kernel void k(__global float *g, __local float *l) {
        float p[4];
        int i = get_local_id(0);
        l[i] = g[i];
        p[i % 4] = l[i];
        g[i] = p[0];
    }
    """
    ik = instrument(parse_source(src, "opencl"), "k", costs=False)
    assert ik.accesses.subscripts == 2
    assert "l[i] =" in ik.source and "p[i % 4] = l[i];" in ik.source
    assert [b.name for b in ik.buffers] == ["g"] and ik.num_params == 2


def test_infer_extents_grows_buffers_until_nothing_falls_outside(ctx):
    from kgraph.data.instrumented.extents import infer_extents

    src = """
    __kernel void spread(__global const float *in, __global float4 *out, int n) {
        int i = get_global_id(0);
        if (i >= n) return;
        out[2 * i + 1] = (float4)(in[300 * i]);
    }
    """
    extents, w = infer_extents(src, "spread", (16,), None, dict(n=10), ctx, capacity=64)
    assert extents == {"in": 300 * 9 + 1, "out": 2 * 9 + 2}
    assert w.global_load_bytes == 4 * 10 and w.global_store_bytes == 16 * 10
    assert w.footprint_bytes == 4 * 10 + 16 * 10


def test_helper_call_with_a_buffer_is_counted_through_a_clone():
    src = """
    float get(__global const float *p, int i) { return p[i]; }
    __kernel void k(__global const float *x, __global float *y) {
        int i = get_global_id(0);
        y[i] = get(x, i);
    }
    """
    ik = instrument(parse_source(src, "opencl", filename="h.cl"), "k")
    assert ik.exact  # kgraph/instrument/helpers.py: the clone __kg_h_get counts and marks p[i]
    assert "__kg_h_get(x, i, &__kg_c_flops_fp32" in ik.source


CAS_ADD = """
inline void add_float(volatile __global float *addr, float val) {
    union { unsigned int u; float f; } old_val, new_val;
    do {
        old_val.f = *addr;
        new_val.f = old_val.f + val;
    } while (atomic_cmpxchg((volatile __global unsigned int *)addr, old_val.u, new_val.u) != old_val.u);
}
__kernel void scatter(__global const int *row, __global const float *v, __global float *y, int n) {
    int k = get_global_id(0);
    if (k < n) add_float(&y[row[k]], v[k]);
}
"""


def test_atomic_through_a_cast_pointer_marks_its_word(ctx):
    # the compare-and-swap float add of OpenCL 1.2: the atomic's pointer is a cast of a traced one
    ik = instrument(parse_source(CAS_ADD, "opencl", filename="cas.cl"), "scatter")
    assert ik.exact and not ik.warnings
    n = 12
    row = np.array([0, 2, 2, 5] * 3, np.int32)
    v = np.arange(n, dtype=np.float32)
    y = np.zeros(8, np.float32)
    w = count_launch(CAS_ADD, "scatter", (16,), (4,), dict(row=row, v=v, y=y, n=n), ctx)
    np.testing.assert_allclose(y, np.bincount(row, weights=v, minlength=8), rtol=1e-6)
    assert w.atomics >= n  # one compare-and-swap a work-item at least, more where one was retried
    assert (w.buffers["y"].touched, w.buffers["y"].max_index) == (3, 5)
    assert w.footprint_bytes == 4 * n + 4 * n + 3 * 4
