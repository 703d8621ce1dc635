"""analyze(): exact per-work-item counts of reference kernels (hand-checked values in comments)."""
import pytest
import sympy as sp

from kgraph.parsers import parse_source

from kgraph.analysis import analyze
from kgraph.errors import UsageError


def analysis(src, name, lang="opencl"):
    unit = parse_source(src, lang)
    return analyze(unit.function(name), unit)


def nonzero(counts):
    return {k: v for k, v in counts.items() if v != 0}


OPENCL = """
#define TILE 16
__kernel void sgemm(__global const float *A, __global const float *B, __global float *C, int M, int N, int K) {
    int row = get_global_id(1);
    int col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
__kernel void saxpy(__global const float *x, __global float *y, float a, int n) {
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
__kernel void tiled(__global const float *A, __global const float *B, __global float *C, int N, int K) {
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < K / TILE; t++) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
__kernel void scale4(__global float4 *v, float s, int n) {
    int i = get_global_id(0);
    v[i] = v[i] * s + (float4)(1.0f);
}
__kernel void daxpy(__global const double *x, __global double *y, double a) {
    int i = get_global_id(0);
    y[i] += a * x[i];
}
__kernel void softplus(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    y[i] = sqrt(exp(x[i]) + 1.0f);
}
__kernel void gridstride(__global float *x, int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        x[i] = 2.0f * x[i];
}
__kernel void transpose(__global const float *in, __global float *out, int W, int H) {
    int x = get_global_id(0), y = get_global_id(1);
    out[x * H + y] = in[y * W + x];
}
__kernel void triangle(__global const float *A, __global float *out, int n) {
    int row = get_global_id(0);
    float s = 0.0f;
    for (int k = 0; k < row; k++)
        s += A[row * n + k];
    out[row] = s;
}
__kernel void gather(__global const float *x, __global const int *idx, __global float *y) {
    int i = get_global_id(0);
    y[i] = x[idx[i]];
}
"""

G, K_, N_ = sp.Symbol("gsz0", integer=True, positive=True), sp.Symbol("K", integer=True), sp.Symbol("n", integer=True)


def test_sgemm_naive():
    a = analysis(OPENCL, "sgemm")
    K = sp.Symbol("K", integer=True)
    # per k: 1 mul + 1 add (fp32); A and B element loads (8 B); index math row*K+k, k*N+col (4) + k++ (1)
    assert nonzero(a.counts) == {"flops_fp32": 2 * K, "int_ops": 5 * K + 2, "global_load_bytes": 8 * K,
                                 "global_store_bytes": 4, "branches": K + 1}
    assert [(lp.var, lp.trip) for lp in a.loops] == [("k", K)]
    pats = [(x.buffer, x.kind, x.pattern, str(x.stride)) for x in a.accesses]
    # A[row*K+k]: same element across gid0 (broadcast); B[k*N+col], C[row*N+col]: coalesced
    assert pats == [("A", "load", "broadcast", "0"), ("B", "load", "coalesced", "1"), ("C", "store", "coalesced", "1")]
    env = {"M": 256, "N": 256, "K": 512, "gsz0": 256, "gsz1": 256, "lsz0": 16, "lsz1": 16}
    assert a.evaluate(env)["flops_fp32"] == 1024.0
    assert a.total(env)["global_load_bytes"] == 8 * 512 * 256 * 256
    assert a.arithmetic_intensity(env) == pytest.approx(1024 / (8 * 512 + 4))


def test_saxpy_guard():
    a = analysis(OPENCL, "saxpy")
    frac = sp.Min(1, N_ / G)
    assert nonzero(a.counts) == {"flops_fp32": 2 * frac, "global_load_bytes": 8 * frac,
                                 "global_store_bytes": 4 * frac, "branches": 1}
    # 1000 items in a 1024-wide range: 1000/1024 of the work-items do the work
    assert a.evaluate({"n": 1000, "gsz0": 1024, "lsz0": 64})["global_load_bytes"] == pytest.approx(8 * 1000 / 1024)
    assert a.total({"n": 1000, "gsz0": 1024, "lsz0": 64})["flops_fp32"] == pytest.approx(2000)


def test_tiled_sgemm_local_memory():
    a = analysis(OPENCL, "tiled")
    tiles = sp.floor(K_ / 16)  # t < K / TILE: C integer division truncates
    c = a.counts
    assert c["global_load_bytes"] == 2 * 4 * tiles  # one A and one B element per tile
    assert c["barriers"] == 2 * tiles
    assert c["local_store_bytes"] == 8 * tiles
    assert c["local_load_bytes"] == 16 * 8 * tiles  # TILE iterations x (As + Bs)
    assert c["flops_fp32"] == 16 * 2 * tiles
    assert c["global_store_bytes"] == 4
    assert [(lp.var, lp.trip, lp.depth) for lp in a.loops] == [("t", tiles, 0), ("k", 16, 1)]
    assert a.evaluate({"N": 1024, "K": 1024, "gsz0": 1024, "gsz1": 1024, "lsz0": 16, "lsz1": 16})["barriers"] == 128


def test_float4_lanes():
    a = analysis(OPENCL, "scale4")
    # float4 * float (4) + float4 (4); one float4 load and store (16 B each)
    assert nonzero(a.counts) == {"flops_fp32": 8, "global_load_bytes": 16, "global_store_bytes": 16}


def test_fp64():
    a = analysis(OPENCL, "daxpy")
    # a*x[i] and += : 2 fp64 flops; x[i], y[i] loads 16 B; y[i] store 8 B
    assert nonzero(a.counts) == {"flops_fp64": 2, "global_load_bytes": 16, "global_store_bytes": 8}


def test_transcendental_and_early_return():
    a = analysis(OPENCL, "softplus")
    frac = sp.Min(1, N_ / G)
    # exp and sqrt: 2 transcendental (not flops), the sqrt also a root; + 1.0f: 1 fp32 flop; after `if (i >= n) return;`
    assert nonzero(a.counts) == {"flops_fp32": frac, "transcendental": 2 * frac, "roots": frac,
                                 "global_load_bytes": 4 * frac, "global_store_bytes": 4 * frac, "branches": 1}


def test_grid_stride_loop():
    a = analysis(OPENCL, "gridstride")
    assert a.loops[0].trip == N_ / G
    assert "grid-stride" in a.loops[0].note
    assert a.counts["global_load_bytes"] == 4 * N_ / G
    assert a.total({"n": 1 << 20, "gsz0": 4096, "lsz0": 256})["global_store_bytes"] == 4 * (1 << 20)
    assert [x.pattern for x in a.accesses] == ["coalesced", "coalesced"]


def test_transpose_patterns():
    a = analysis(OPENCL, "transpose")
    got = [(x.buffer, x.kind, x.pattern, str(x.stride)) for x in a.accesses]
    assert got == [("in", "load", "coalesced", "1"), ("out", "store", "strided", "H")]


def test_triangular_loop_is_averaged():
    a = analysis(OPENCL, "triangle")
    assert a.loops[0].trip == (G - 1) / 2
    assert "averaged" in a.loops[0].note
    # sum over rows 0..n-1 of row loads = n(n-1)/2 elements; per work-item (n-1)/2
    assert a.total({"n": 64, "gsz0": 64, "lsz0": 64})["global_load_bytes"] == 4 * 64 * 63 / 2


def test_indirect_access():
    a = analysis(OPENCL, "gather")
    assert [(x.buffer, x.pattern) for x in a.accesses] == [("idx", "coalesced"), ("x", "indirect"), ("y", "coalesced")]


CUDA = """
__device__ float sq(float v) { return v * v; }
__global__ void reduce(const float *in, float *out, int n) {
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? sq(in[i]) : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}
"""


def test_cuda_shared_memory_reduction():
    a = analysis(CUDA, "reduce", "cuda")
    assert a.loops[0].note.startswith("geometric (halving)")
    v = a.evaluate({"n": 1 << 20, "gsz0": 1 << 20, "lsz0": 256})
    # log2 loop over blockDim.x = 256: s = 128..1, 8 iterations (+1 barrier before the loop)
    assert v["barriers"] == 9
    # sq() inlined: 1 flop; tree: work-items with tid < s add: sum(s)/256 = 255/256 flops per item
    assert v["flops_fp32"] == pytest.approx(1 + 255 / 256)
    # tree: 2 shared loads (8 B) x 255/256; the final sdata[0] read by 1 of 256 items
    assert v["local_load_bytes"] == pytest.approx(8 * 255 / 256 + 4 / 256)
    assert v["atomics"] == pytest.approx(1 / 256)
    assert v["global_load_bytes"] == 4
    assert a.accesses[0].pattern == "coalesced"  # in[blockIdx.x*blockDim.x + threadIdx.x]


def test_evaluate_reports_missing_values():
    a = analysis(OPENCL, "saxpy")
    with pytest.raises(UsageError, match="n"):
        a.evaluate({"gsz0": 1024, "lsz0": 64})


def test_to_dict_is_json():
    import json
    d = analysis(OPENCL, "tiled").to_dict()
    back = json.loads(json.dumps(d))
    assert back["counts"]["barriers"] == "2*floor(K/16)"
    assert back["loops"][1]["trip"] == "16"
    # a pure copy has no flops: intensity 0
    assert analysis(OPENCL, "transpose").arithmetic_intensity({"W": 4, "H": 4, "gsz0": 4, "gsz1": 4}) == 0.0


INTEGER_DIVISION = """
__kernel void segments(__global const float *a, __global float *b, int d)
{
    int i = get_global_id(0);
    b[i] = a[(i / d) * d + 3] + a[i / 32] + a[i % d] + a[2 * (i / d) * d + i % d];
}
"""


def test_integer_division_and_modulo_are_differentiated_between_steps():
    """``(i / d) * d`` is constant within a segment of d work-items (a broadcast), ``i % d`` moves with i (unit
    stride): sympy leaves their derivatives unevaluated, which once read as a stride nobody could evaluate."""
    a = analysis(INTEGER_DIVISION, "segments")
    got = [(x.index, x.pattern, str(x.stride)) for x in a.accesses if x.buffer == "a"]
    assert got == [("(i / d) * d + 3", "broadcast", "0"), ("i / 32", "broadcast", "0"),
                   ("i % d", "coalesced", "1"), ("2 * (i / d) * d + i % d", "coalesced", "1")]
    assert not any(sp.sympify(x.stride).has(sp.Derivative, sp.Subs) for x in a.accesses)


TRIANGULAR = """
__kernel void tri(const int n, __global float *a) {
    const int i = get_local_id(0);
    for (int k = 0; k < n; ++k) {
        if (i > k && i < n)
            for (int j = k + 1; j <= i; ++j) a[i + j * n] -= a[i + k * n] * a[j + k * n];
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}
"""


@pytest.mark.parametrize("n, lsz", [(64, 64), (48, 64), (100, 128)])
def test_triangular_trip_under_a_guard_on_the_same_id(n, lsz):
    """A trip count that depends on the work-item id, under a guard on that id (Cholesky's trailing update):
    averaged over the ids the guard lets in, and the guard's share times that trip summed exactly over k
    (the product of two k-dependent factors); before, the trip was averaged over every id (negative for most
    k) and the product taken at k's mean: ``tile_potrf``'s FLOPs came out 700x low at n = 1024."""
    a = analysis(TRIANGULAR, "tri")
    # the oracle: every work-item i of one work-group, every k, every j
    flops = sum(2 * (i - k) for i in range(lsz) for k in range(n) if k < i < n)
    got = a.evaluate({"n": n, "gsz0": lsz, "lsz0": lsz})["flops_fp32"] * lsz
    assert got == pytest.approx(flops, rel=1e-9)
    inner = next(lp for lp in a.loops if lp.var == "j")
    assert "guards let in" in inner.note


DIVMOD = """
__kernel void k(__global float *a, __global const int *idx, int n, int m) {
    int i = get_global_id(0);
    int r = i % m;              /* 1 */
    int q = i / m;              /* 1 */
    float f = a[i] / 3.0f;      /* a float division: a FLOP, not int_divmod */
    int4 v = (int4)(i) / (int4)(m);   /* 4 lanes */
    for (int j = 0; j < n; ++j)
        r += (j * 7) % m;       /* n */
    r /= 2;                     /* 1 */
    __global float *p = a + i / 2;    /* 1: the index's division, not the pointer's + */
    a[i] = f + r + q + v.x + *p;
}
"""


def test_integer_division_and_remainder_are_their_own_share_of_int_ops():
    counts = analysis(DIVMOD, "k").counts
    at = {s: 10 for s in counts["int_divmod"].free_symbols}  # n = 10
    assert [s.name for s in at] == ["n"]
    assert counts["int_divmod"].subs(at) == 18  # n + 8
    assert 18 < counts["int_ops"].subs(at)  # a share of the integer ops, never more
    assert counts["flops_fp32"] == 5  # a[i] / 3.0f and the four float additions
