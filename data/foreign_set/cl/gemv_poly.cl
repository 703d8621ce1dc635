__kernel void gemv_poly(__global const float *a, __global const float *b, __global float *c, int d, int e,
                        float f, float g)
{
    int i = get_global_id(0);
    if (i >= d) return;
    float h = 0.0f;
    for (int k = 0; k < e; k++)
        h += a[i * e + k] * b[k];
    c[i] = f * h + g * c[i];
}
