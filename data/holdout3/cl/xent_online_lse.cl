/* Cross-entropy loss per row: loss = logsumexp(z) - z[label]. One work-item walks its row once,
 * keeping a running maximum and rescaling the running sum of exponentials when the maximum
 * grows (online log-sum-exp), then gathers the label's logit. */
__kernel void xent_online_lse(const int rows, const int classes,
                              __global const float *logits, __global const int *labels,
                              __global float *loss)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;

    __global const float *z = logits + (size_t)r * classes;
    float m = z[0];
    float s = 1.0f;
    for (int c = 1; c < classes; c++) {
        const float v = z[c];
        if (v > m) {
            s = s * exp(m - v) + 1.0f;
            m = v;
        } else {
            s += exp(v - m);
        }
    }
    loss[r] = m + log(s) - z[labels[r]];
}
