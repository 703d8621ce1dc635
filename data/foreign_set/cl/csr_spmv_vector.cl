#define LANES 8
__kernel void csr_spmv_vector(__global const int *a, __global const int *b, __global const float *c,
                              __global const float *d, __global float *e, int f, __local float *g)
{
    int h = get_global_id(0) / LANES;
    int l = get_local_id(0);
    int q = l % LANES;
    float s = 0.0f;
    if (h < f)
        for (int j = a[h] + q; j < a[h + 1]; j += LANES)
            s += c[j] * d[b[j]];
    g[l] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = LANES / 2; w > 0; w >>= 1) {
        if (q < w) g[l] += g[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (q == 0 && h < f) e[h] = g[l];
}
