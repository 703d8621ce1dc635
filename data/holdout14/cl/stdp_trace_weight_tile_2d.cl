/* Pair-based spike-timing-dependent plasticity of a dense plastic projection, applied once per time step.
 * w is n_post x n_pre (row: postsynaptic neuron); a negative entry marks an absent synapse and is left alone.
 * x_pre and y_post are the exponentially decaying spike traces of the pre- and postsynaptic neurons, pre_spk and
 * post_spk their spike flags of this step. A presynaptic spike depresses the synapse in proportion to the post
 * trace and to the weight (multiplicative depression); a postsynaptic spike potentiates it in proportion to the
 * pre trace and to the room left below w_max (soft bound). The weight is finally clamped to [0, w_max].
 * 2-D NDRange: x over presynaptic neurons (coalesced along a row), y over postsynaptic neurons. */
__kernel void stdp_trace_weight_tile_2d(const int n_pre, const int n_post,
                                        const float a_plus, const float a_minus, const float w_max,
                                        __global const float *x_pre,
                                        __global const float *y_post,
                                        __global const int *pre_spk,
                                        __global const int *post_spk,
                                        __global float *w)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (j >= n_pre || i >= n_post)
        return;

    const int pre_fired = pre_spk[j];
    const int post_fired = post_spk[i];
    if (!pre_fired && !post_fired)
        return;

    const size_t k = (size_t)i * n_pre + j;
    float wij = w[k];
    if (wij < 0.0f)
        return;

    if (pre_fired)
        wij -= a_minus * y_post[i] * wij;
    if (post_fired)
        wij += a_plus * x_pre[j] * (w_max - wij);
    w[k] = clamp(wij, 0.0f, w_max);
}
