/* Range compression of a coherent processing interval by a time-domain matched filter. The receiver's ADC
 * delivers each complex sample as one 32-bit word, the in-phase part in the low 16 bits and the quadrature part
 * in the high 16 bits, both two's complement; `scale` turns ADC counts into volts. Every pulse (a row of nsamp
 * words) is correlated with the transmitted chirp replica (repl: nrepl complex taps, already windowed):
 *     out[p][r] = sum_k x[p][r + k] * conj(repl[k]),   k = 0 .. nrepl - 1, r + k < nsamp
 * so the compressed range bins keep the length of the pulse and the last nrepl - 1 bins see a partial replica.
 * 2-D NDRange: dim 0 the range bin, dim 1 the pulse. */
__kernel void range_compress_iq16_2d(const int npulse, const int nsamp, const int nrepl, const float scale,
                                     __global const uint *raw,
                                     __global const float2 *repl,
                                     __global float2 *out)
{
    const int r = get_global_id(0);
    const int p = get_global_id(1);
    if (r >= nsamp || p >= npulse)
        return;

    __global const uint *row = raw + (size_t)p * nsamp;
    const int kend = min(nrepl, nsamp - r);
    float acc_re = 0.0f;
    float acc_im = 0.0f;
    for (int k = 0; k < kend; k++) {
        const uint w = row[r + k];
        const float xi = (float)(short)(w & 0xffffu);
        const float xq = (float)(short)(w >> 16);
        const float2 h = repl[k];
        /* x * conj(h) */
        acc_re += xi * h.x + xq * h.y;
        acc_im += xq * h.x - xi * h.y;
    }
    out[(size_t)p * nsamp + r] = (float2)(acc_re * scale, acc_im * scale);
}
