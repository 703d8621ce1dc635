/* LSTM cell update after the gate matrix products. For every batch row, gates holds the
 * pre-activations of the input, forget, candidate and output gates as four blocks of `hidden`
 * values. The NDRange is (unit, batch row): each work-item applies the nonlinearities, updates its
 * cell state (forget bias added, clipped to +-cell_clip) and writes the new hidden state. */
inline float sigmoid(float x)
{
    return 1.0f / (1.0f + exp(-x));
}

__kernel void lstm_cell_update(const int hidden, const int batch,
                               const float forget_bias, const float cell_clip,
                               __global const float *gates, __global const float *c_prev,
                               __global float *c_out, __global float *h_out)
{
    const int j = get_global_id(0);
    const int b = get_global_id(1);
    if (j >= hidden || b >= batch)
        return;

    __global const float *g = gates + (size_t)b * 4 * hidden;
    const float in_gate = sigmoid(g[j]);
    const float forget = sigmoid(g[hidden + j] + forget_bias);
    const float cand = tanh(g[2 * hidden + j]);
    const float out_gate = sigmoid(g[3 * hidden + j]);

    const size_t idx = (size_t)b * hidden + j;
    float c = forget * c_prev[idx] + in_gate * cand;
    c = clamp(c, -cell_clip, cell_clip);
    c_out[idx] = c;
    h_out[idx] = out_gate * tanh(c);
}
