#define COLS 64
__kernel void matvec_local(__global const float *a, __global const float *b, __global float *c, int d)
{
    __local float e[COLS];
    int l = get_local_id(0);
    if (l < COLS) e[l] = b[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    int i = get_global_id(0);
    if (i >= d) return;
    float s = 0.0f;
    for (int k = 0; k < COLS; k += 4)
        s += a[(i % 16384) * COLS + k] * e[k] + a[(i % 16384) * COLS + k + 1] * e[k + 1];
    c[i] = s;
}
