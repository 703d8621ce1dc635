"""statement_costs: exact counts of one execution of each statement (hand-checked)."""
from kgraph.parsers import parse_source

from kgraph.analysis import COUNT_KEYS, statement_costs


def costs(src, lang="opencl", name=None):
    unit = parse_source(src, lang)
    fn = unit.function(name) if name else unit.functions[0]
    return [(s.kind, " ".join(s.node.text.decode().split()), {k: v for k, v in s.counts.items() if v}) for s in statement_costs(fn, unit)]


SAXPY = """
__kernel void saxpy(__global const float *x, __global float *y, float a, int n) {
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""


def test_saxpy_statements():
    assert costs(SAXPY) == [
        ("stmt", "int i = get_global_id(0);", {}),
        ("if_cond", "i < n", {"branches": 1}),
        # a*x[i] (1 mul) + y[i] (1 add); loads x[i], y[i] = 8 bytes; store y[i] = 4 bytes
        ("stmt", "y[i] = a * x[i] + y[i];", {"flops_fp32": 2, "global_load_bytes": 8, "global_store_bytes": 4}),
    ]


def test_every_key_present():
    unit = parse_source(SAXPY, "opencl")
    for s in statement_costs(unit.functions[0], unit):
        assert set(s.counts) == set(COUNT_KEYS)


MIXED = """
#define TILE 16
__kernel void mixed(__global float4 *x, __global double *y, float a, int n) {
    __local float t[TILE][TILE];
    int i = get_global_id(0);
    float4 v = x[i] * 2.0f + (float4)(1.0f);
    float s = a * 1.0;
    y[i] += 1.0 * sqrt(y[i]);
    t[i][0] = x[i].x;
    for (int k = 0; k < n; k++) { y[k] = exp(a); }
    atomic_add(&y[i], 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    v.xy = vload2(i, (__global float *)x);
    s = fma(a, a, s) + (i % 3) * (n << 1);
}
"""


def test_mixed_statements():
    got = costs(MIXED)
    assert got[0] == ("stmt", "int i = get_global_id(0);", {})
    assert got[1:] == [
        # float4 * float = 4 lanes, + float4 = 4 lanes; x[i] is one float4 = 16 bytes
        ("stmt", "float4 v = x[i] * 2.0f + (float4)(1.0f);", {"flops_fp32": 8, "global_load_bytes": 16}),
        # float * double literal promotes to fp64 (C rules)
        ("stmt", "float s = a * 1.0;", {"flops_fp64": 1}),
        # += (fp64) and 1.0 * sqrt(..) (fp64); sqrt is transcendental; y[i] read twice, written once
        ("stmt", "y[i] += 1.0 * sqrt(y[i]);",
         {"flops_fp64": 2, "transcendental": 1, "roots": 1, "global_load_bytes": 16, "global_store_bytes": 8}),
        ("stmt", "t[i][0] = x[i].x;", {"global_load_bytes": 16, "local_store_bytes": 4}),
        ("loop_init", "int k = 0;", {}),
        ("loop_cond", "k < n", {"branches": 1}),
        ("loop_update", "k++", {"int_ops": 1}),
        ("stmt", "y[k] = exp(a);", {"transcendental": 1, "global_store_bytes": 8}),  # exp: not a root
        # an atomic counts 1, its address is not a load
        ("stmt", "atomic_add(&y[i], 1);", {"atomics": 1}),
        ("stmt", "barrier(CLK_LOCAL_MEM_FENCE);", {"barriers": 1}),
        ("stmt", "v.xy = vload2(i, ( float *)x);", {"global_load_bytes": 8}),
        # fma = 2 flops, + = 1 (fp32); %, <<, * on ints = 3 int ops
        ("stmt", "s = fma(a, a, s) + (i % 3) * (n << 1);", {"flops_fp32": 3, "int_ops": 3, "int_divmod": 1}),
    ]


CUDA_REDUCE = """
__global__ void reduce(const float *in, float *out, int n) {
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}
"""


def test_cuda_reduction_statements():
    assert costs(CUDA_REDUCE, "cuda") == [
        ("stmt", "unsigned int tid = threadIdx.x;", {}),
        ("stmt", "unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;", {"int_ops": 2}),
        # the ternary: 1 branch; both arms counted (predicated select): in[i] 4 bytes
        ("stmt", "sdata[tid] = (i < n) ? in[i] : 0.0f;",
         {"branches": 1, "global_load_bytes": 4, "local_store_bytes": 4}),
        ("stmt", "__syncthreads();", {"barriers": 1}),
        ("loop_init", "unsigned int s = blockDim.x / 2;", {"int_ops": 1, "int_divmod": 1}),
        ("loop_cond", "s > 0", {"branches": 1}),
        ("loop_update", "s >>= 1", {"int_ops": 1}),
        ("if_cond", "tid < s", {"branches": 1}),
        ("stmt", "sdata[tid] += sdata[tid + s];",
         {"flops_fp32": 1, "int_ops": 1, "local_load_bytes": 8, "local_store_bytes": 4}),
        ("stmt", "__syncthreads();", {"barriers": 1}),
        ("if_cond", "tid == 0", {"branches": 1}),
        ("stmt", "atomicAdd(out, sdata[0]);", {"atomics": 1, "local_load_bytes": 4}),
    ]
