__kernel void csr_spmv(__global const int *a, __global const int *b, __global const float *c,
                       __global const float *d, __global float *e, int f)
{
    int g = get_global_id(0);
    if (g >= f) return;
    float h = 0.0f;
    int s = a[g], t = a[g + 1];
    for (int j = s; j < t; j++)
        h += c[j] * d[b[j]];
    e[g] = h;
}
