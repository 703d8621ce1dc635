__kernel void scan_blelloch(__global const int *a, __global int *b, __local int *c)
{
    int d = get_local_id(0);
    int e = get_local_size(0);
    int f = get_group_id(0) * e;
    c[d] = a[f + d];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 1; s < e; s <<= 1) {
        int t = (d + 1) * s * 2 - 1;
        if (t < e) c[t] += c[t - s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (d == 0) c[e - 1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = e / 2; s > 0; s >>= 1) {
        int t = (d + 1) * s * 2 - 1;
        if (t < e) { int u = c[t - s]; c[t - s] = c[t]; c[t] += u; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    b[f + d] = c[d];
}
