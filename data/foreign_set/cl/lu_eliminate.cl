__kernel void lu_eliminate(__global float *a, int b, int c)
{
    int i = get_global_id(1) + c + 1;
    int j = get_global_id(0) + c + 1;
    if (i >= b || j >= b) return;
    a[i * b + j] -= a[i * b + c] / a[c * b + c] * a[c * b + j];
}
