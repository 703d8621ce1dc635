#define STEP(s) if (b < (s)) d[b] += d[b + (s)]; barrier(CLK_LOCAL_MEM_FENCE)
__kernel void reduce_unrolled(__global const double *a, __global double *c, int e)
{
    __local double d[256];
    int b = get_local_id(0);
    int f = get_group_id(0) * 512 + b;
    double g = 0.0;
    if (f < e) g += a[f];
    if (f + 256 < e) g += a[f + 256];
    d[b] = g;
    barrier(CLK_LOCAL_MEM_FENCE);
    STEP(128); STEP(64); STEP(32); STEP(16); STEP(8); STEP(4); STEP(2); STEP(1);
    if (b == 0) c[get_group_id(0)] = d[0];
}
