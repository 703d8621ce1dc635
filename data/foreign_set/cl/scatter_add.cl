__kernel void scatter_add(__global float *a, __global const float *b, __global const int *c, int d)
{
    int e = get_global_id(0);
    if (e < d)
        a[c[e]] = b[e] + 1.0f;
}
