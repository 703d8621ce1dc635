__kernel void bfs_frontier(__global const int *a, __global const int *b, __global const int *c,
                           __global int *d, __global int *e, __global int *f, __global int *g, int h)
{
    int i = get_global_id(0);
    if (i >= h || !d[i]) return;
    d[i] = 0;
    int s = a[i];
    int t = s + b[i] % 8;
    for (int j = s; j < t; j++) {
        int k = c[j];
        if (!e[k]) {
            g[k] = g[i] + 1;
            f[k] = 1;
        }
    }
}
