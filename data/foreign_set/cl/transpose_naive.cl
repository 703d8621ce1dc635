__kernel void transpose_naive(__global const float *a, __global float *b, int c, int d)
{
    int e = get_global_id(0), f = get_global_id(1);
    if (e < c && f < d)
        b[e * d + f] = a[f * c + e];
}
