__kernel void gather(__global float *a, __global const float *b, __global const int *c, int d)
{
    int e = get_global_id(0);
    if (e >= d) return;
    int f = c[e];
    a[e] = b[f] * 2.0f;
}
