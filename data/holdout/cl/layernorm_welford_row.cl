/* Layer normalisation, one work-item per row: a single Welford pass for mean and
 * variance, then a second pass that writes gamma * (x - mean) / sqrt(var + eps) + beta. */
__kernel void layernorm_welford_row(const int rows, const int cols, const float eps,
                                    __global const float *x,
                                    __global const float *gamma,
                                    __global const float *beta,
                                    __global float *out)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;
    __global const float *row = x + (size_t)r * cols;

    float mean = 0.0f;
    float m2 = 0.0f;
    int count = 0;
    for (int c = 0; c < cols; c++) {
        float v = row[c];
        count++;
        float delta = v - mean;
        mean += delta / (float)count;
        m2 += delta * (v - mean);
    }
    float inv = 1.0f / sqrt(m2 / (float)cols + eps);

    __global float *o = out + (size_t)r * cols;
    for (int c = 0; c < cols; c++)
        o[c] = gamma[c] * ((row[c] - mean) * inv) + beta[c];
}
