__kernel void kmeans_assign(__global const float *a, __global const float *b, __global int *c, int d, int e, int f)
{
    int i = get_global_id(0);
    if (i >= d) return;
    int best = 0;
    float bd = 3.4e38f;
    for (int k = 0; k < e; k++) {
        float s = 0.0f;
        for (int m = 0; m < f; m++) {
            float t = a[m * d + i] - b[k * f + m];
            s += t * t;
        }
        if (s < bd) { bd = s; best = k; }
    }
    c[i] = best;
}
