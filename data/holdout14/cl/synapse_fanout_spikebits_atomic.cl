/* Spike delivery of one time step of a spiking network: the neurons that fired are the set bits of spike_bits
 * (bit i & 31 of word i >> 5). A work-item per presynaptic neuron tests its bit and, if it fired, walks its
 * outgoing synapses (CSR: out_start[i] .. out_start[i + 1] - 1, target neuron and weight) and adds the weight to
 * the target's synaptic input. Neurons below n_exc are excitatory; the others are inhibitory, their weights
 * scaled by -g_inh. Inputs are accumulated in fixed point (q_scale units per unit of current, rounded to nearest)
 * with an integer atomic_add, so the sum does not depend on the order in which spikes arrive. */
__kernel void synapse_fanout_spikebits_atomic(const int n, const int n_exc, const float g_inh, const float q_scale,
                                              __global const uint *spike_bits,
                                              __global const int *out_start,
                                              __global const int *out_target,
                                              __global const float *out_weight,
                                              __global int *i_syn)
{
    const int pre = get_global_id(0);
    if (pre >= n)
        return;

    const uint word = spike_bits[pre >> 5];
    if (((word >> (pre & 31)) & 1u) == 0u)
        return;

    const float s = pre < n_exc ? q_scale : -g_inh * q_scale;
    const int e1 = out_start[pre + 1];
    for (int e = out_start[pre]; e < e1; e++) {
        const int q = convert_int_rte(out_weight[e] * s);
        atomic_add(&i_syn[out_target[e]], q);
    }
}
