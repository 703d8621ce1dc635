"""Static analysis vs instrumented run: equal counts, exactly, on SGEMM (naive, tiled), SAXPY and
the 1D/2D stencils (issue 3's cross-check), including '||' guards and two bounds on one id."""
import numpy as np
import pytest

from kgraph.analysis import analyze
from kgraph.instrument import COUNTER_NAMES
from kgraph.data.instrumented import count_launch
from kgraph.parsers import parse_source
from tests.test_instrument import SAXPY, SGEMM
from tests.test_instrument_kernels import SGEMM_TILED, STENCIL_1D, STENCIL_2D


# Guards the static analysis models exactly (id + c < B per dimension, '&&' across dimensions).
SGEMM_NOGUARD = SGEMM.replace("    if (row >= M || col >= N) return;\n", "")
STENCIL_1D_OFFSET = """
__kernel void stencil3o(const int n, __global const float *in, __global float *out) {
    int i = get_global_id(0) + 1;
    if (i < n - 1)
        out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}
"""
STENCIL_2D_OFFSET = """
__kernel void stencil5o(const int nx, const int ny, __global const double *u, __global double *v) {
    int x = get_global_id(0) + 1, y = get_global_id(1) + 1;
    if (x < nx - 1 && y < ny - 1) {
        int c = y * nx + x;
        v[c] = u[c] - 0.25 * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
    }
}
"""


def _static(source, kernel, env):
    unit = parse_source(source, "opencl")
    function = next(f for f in unit.functions if f.name == kernel)
    return analyze(function, unit).total(env)


def _check(source, kernel, global_size, local_size, args, env, ctx):
    dynamic = count_launch(source, kernel, global_size, local_size, args, ctx).to_dict()
    static = _static(source, kernel, env)
    for key in COUNTER_NAMES:
        assert static[key] == dynamic[key], f"{kernel}: {key} static {static[key]} != instrumented {dynamic[key]}"
    return dynamic


@pytest.mark.parametrize("n", [32, 48])
def test_sgemm_naive(ctx, n):
    a, b, c = (np.ones((n, n), np.float32) for _ in range(3))
    env = dict(M=n, N=n, K=n, gsz0=n, gsz1=n, lsz0=8, lsz1=8)
    d = _check(SGEMM, "sgemm", (n, n), (8, 8), dict(M=n, N=n, K=n, A=a, B=b, C=c), env, ctx)
    assert d["flops_fp32"] == 2 * n**3


def test_sgemm_tiled(ctx):
    n = 32
    a, b, c = (np.ones((n, n), np.float32) for _ in range(3))
    env = dict(M=n, N=n, K=n, gsz0=n, gsz1=n, lsz0=8, lsz1=8)
    _check(SGEMM_TILED, "sgemm_tiled", (n, n), (8, 8), dict(M=n, N=n, K=n, A=a, B=b, C=c), env, ctx)


def test_saxpy_exact_fit(ctx):
    n = 64
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    _check(SAXPY, "saxpy", (n,), (16,), dict(n=n, a=2.0, x=x, y=y), dict(n=n, gsz0=n, lsz0=16), ctx)


def test_stencil_1d(ctx):
    n = 64
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    _check(STENCIL_1D, "stencil3", (n,), (16,), dict(n=n, **{"in": x}, out=y), dict(n=n, gsz0=n, lsz0=16), ctx)


def test_stencil_2d(ctx):
    nx, ny = 32, 16
    u, v = np.ones((ny, nx)), np.zeros((ny, nx))
    env = dict(nx=nx, ny=ny, gsz0=nx, gsz1=ny, lsz0=8, lsz1=4)
    _check(STENCIL_2D, "stencil5", (nx, ny), (8, 4), dict(nx=nx, ny=ny, u=u, v=v), env, ctx)


@pytest.mark.parametrize("n", [32, 48])
def test_sgemm_naive_unguarded(ctx, n):
    a, b, c = (np.ones((n, n), np.float32) for _ in range(3))
    env = dict(M=n, N=n, K=n, gsz0=n, gsz1=n, lsz0=8, lsz1=8)
    d = _check(SGEMM_NOGUARD, "sgemm", (n, n), (8, 8), dict(M=n, N=n, K=n, A=a, B=b, C=c), env, ctx)
    assert d["flops_fp32"] == 2 * n**3 and d["global_load_bytes"] == 8 * n**3


def test_saxpy_guarded_overhang(ctx):
    n = 64
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    _check(SAXPY, "saxpy", (80,), (16,), dict(n=n, a=2.0, x=x, y=y), dict(n=n, gsz0=80, lsz0=16), ctx)


def test_stencil_1d_offset_guard(ctx):
    n = 64
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    d = _check(STENCIL_1D_OFFSET, "stencil3o", (n,), (16,), dict(n=n, **{"in": x}, out=y),
               dict(n=n, gsz0=n, lsz0=16), ctx)
    assert d["flops_fp32"] == 5 * (n - 2)


def test_stencil_2d_offset_guard(ctx):
    nx, ny = 32, 16
    u, v = np.ones((ny, nx)), np.zeros((ny, nx))
    env = dict(nx=nx, ny=ny, gsz0=nx, gsz1=ny, lsz0=8, lsz1=4)
    d = _check(STENCIL_2D_OFFSET, "stencil5o", (nx, ny), (8, 4), dict(nx=nx, ny=ny, u=u, v=v), env, ctx)
    assert d["flops_fp64"] == 5 * (nx - 2) * (ny - 2)
