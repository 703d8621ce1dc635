__kernel void covariance_mean(__global const float *a, __global float *b, int c, int d, float e)
{
    int j = get_global_id(0);
    if (j >= c) return;
    float s = 0.0f;
    for (int i = 0; i < d; i++)
        s += a[i * c + j];
    b[j] = s / e;
}
