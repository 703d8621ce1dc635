__kernel void reduce_tree(__global const float *a, __global float *b, __local float *c, int d)
{
    int e = get_local_id(0);
    int f = get_global_id(0);
    c[e] = f < d ? a[f] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (e < s) c[e] += c[e + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (e == 0) b[get_group_id(0)] = c[0];
}
