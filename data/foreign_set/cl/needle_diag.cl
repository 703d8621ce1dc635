__kernel void needle_diag(__global int *a, __global const int *b, int c, int d, int e)
{
    int i = get_global_id(0) + 1;
    int j = d - i + 1;
    if (i > c || j < 1 || j > c) return;
    int p = i * (c + 1) + j;
    int s = a[p - c - 2] + b[p];
    int t = a[p - 1] - e;
    int u = a[p - c - 1] - e;
    a[p] = max(s, max(t, u));
}
