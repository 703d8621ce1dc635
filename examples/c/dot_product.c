/* Dot product with a manual 4-way unroll and a remainder loop. */
float dot_product(int n, const float *x, const float *y)
{
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int i = 0;
    for (; i + 3 < n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++) {
        s0 += x[i] * y[i];
    }
    return (s0 + s1) + (s2 + s3);
}
