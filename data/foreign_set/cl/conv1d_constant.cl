__kernel void conv1d_constant(__global const float *a, __constant float *b, __global float *c, int d, int e)
{
    int i = get_global_id(0);
    if (i >= d) return;
    float s = 0.0f;
    for (int k = 0; k < e; k++) {
        int j = i + k - e / 2;
        j = j < 0 ? 0 : (j >= d ? d - 1 : j);
        s += a[j] * b[k];
    }
    c[i] = s;
}
