#define MIN3(x, y, z) min(min((x), (y)), (z))
__kernel void pathfinder_row(__global const int *a, __global const int *b, __global int *c, int d, int e)
{
    int i = get_global_id(0);
    if (i >= d) return;
    int l = b[max(i - 1, 0)], m = b[i], r = b[min(i + 1, d - 1)];
    c[i] = a[e * d + i] + MIN3(l, m, r);
}
