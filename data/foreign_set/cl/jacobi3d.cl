__kernel void jacobi3d(__global const float *a, __global float *b, int c, int d, int e)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i < 1 || j < 1 || k < 1 || i >= c - 1 || j >= d - 1 || k >= e - 1) return;
    int p = (k * d + j) * c + i;
    b[p] = (a[p - 1] + a[p + 1] + a[p - c] + a[p + c] + a[p - c * d] + a[p + c * d]) / 6.0f;
}
