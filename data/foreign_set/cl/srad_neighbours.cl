__kernel void srad_neighbours(__global const float *a, __global float *b, __global const int *c,
                              __global const int *d, __global const int *e, __global const int *f, int g, int h)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    if (i >= g || j >= h) return;
    float k = a[j * g + i];
    float n = a[j * g + c[i]] - k;
    float s = a[j * g + d[i]] - k;
    float w = a[e[j] * g + i] - k;
    float o = a[f[j] * g + i] - k;
    b[j * g + i] = (n * n + s * s + w * w + o * o) / (k * k + 1e-6f);
}
