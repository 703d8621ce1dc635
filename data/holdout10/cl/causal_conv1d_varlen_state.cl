/* Causal depthwise 1-D convolution + SiLU of a state-space-model block (Mamba's conv1d) over a batch of
 * variable-length sequences packed token-major, x [token][dim], 2-D NDRange (channel, token). Sequence s
 * holds tokens seq_start[s] .. seq_start[s + 1] - 1; a work-item finds its token's sequence by binary
 * search. Taps before the sequence's first token read the sequence's carried conv state (the last
 * width - 1 inputs of its previous chunk, oldest first, in cache slot cache_slot[s]) when has_state[s],
 * else zero. y = silu(bias + sum_j w[d][j] x[t - width + 1 + j]). The item of a sequence's last token
 * also writes the sequence's new state: its last width - 1 inputs, reaching into the old state when the
 * sequence is shorter than that. */
__kernel void causal_conv1d_varlen_state(const int ntok, const int dim, const int nseq, const int width,
                                         __global const float *x,
                                         __global const float *weight,
                                         __global const float *bias,
                                         __global const int *seq_start,
                                         __global const int *cache_slot,
                                         __global const int *has_state,
                                         __global const float *conv_state,
                                         __global float *y,
                                         __global float *state_out)
{
    const int d = get_global_id(0);
    const int t = get_global_id(1);
    if (d >= dim || t >= ntok)
        return;

    int lo = 0, hi = nseq;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (seq_start[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    const int s = lo;
    const int start = seq_start[s];
    const int end = seq_start[s + 1];
    const int ws = width - 1;
    const int use_state = has_state[s];
    __global const float *st = conv_state + ((size_t)cache_slot[s] * dim + d) * ws;
    __global const float *wd = weight + (size_t)d * width;

    float acc = bias[d];
    for (int j = 0; j < width; j++) {
        const int p = t - ws + j;
        float v;
        if (p >= start)
            v = x[(size_t)p * dim + d];
        else if (use_state)
            v = st[ws + p - start];
        else
            v = 0.0f;
        acc += wd[j] * v;
    }
    y[(size_t)t * dim + d] = acc / (1.0f + exp(-acc));

    if (t == end - 1) {
        __global float *so = state_out + ((size_t)s * dim + d) * ws;
        for (int i = 0; i < ws; i++) {
            const int p = end - ws + i;
            if (p >= start)
                so[i] = x[(size_t)p * dim + d];
            else
                so[i] = use_state ? st[ws + p - start] : 0.0f;
        }
    }
}
