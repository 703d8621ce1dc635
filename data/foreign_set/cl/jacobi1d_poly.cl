__kernel void jacobi1d_poly(__global const float *a, __global float *b, int c)
{
    int i = get_global_id(0);
    if (i > 0 && i < c - 1)
        b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}
