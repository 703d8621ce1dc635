/* Rotary position embedding (RoPE), in place: row r of a (rows x 2*half_dim) float matrix is the
 * token at position r % seq_len; its pair p (a float2) turns by the angle
 * position * base^(-2p / (2*half_dim)). */
__kernel void rope_rotary(const int half_dim, const int seq_len, const float log_base,
                          __global float2 *x)
{
    const int p = get_global_id(0);
    const int r = get_global_id(1);
    const int pos = r % seq_len;

    const float inv_freq = exp(-log_base * (float)(2 * p) / (float)(2 * half_dim));
    const float angle = (float)pos * inv_freq;
    const float c = cos(angle);
    const float s = sin(angle);
    const float2 v = x[r * half_dim + p];
    x[r * half_dim + p] = (float2)(v.x * c - v.y * s, v.x * s + v.y * c);
}
