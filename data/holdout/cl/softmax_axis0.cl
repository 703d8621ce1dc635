/* Softmax over axis 0 of a rows x cols row-major matrix (each column sums to one).
 * One work-item per column, three passes: max, sum of exponentials, normalise. */
__kernel void softmax_axis0(const int rows, const int cols,
                            __global const float *logits,
                            __global float *prob)
{
    const int c = get_global_id(0);
    if (c >= cols)
        return;

    float m = -INFINITY;
    for (int r = 0; r < rows; ++r)
        m = fmax(m, logits[r * cols + c]);

    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += exp(logits[r * cols + c] - m);

    const float inv = 1.0f / s;
    for (int r = 0; r < rows; ++r)
        prob[r * cols + c] = exp(logits[r * cols + c] - m) * inv;
}
