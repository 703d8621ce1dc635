/* Soft demapper of an OFDM receiver. Each work-item takes one received subcarrier symbol y = h x + n,
 * equalises it by the channel estimate h (zero forcing: z = y conj(h) / |h|^2) and computes the max-log
 * LLR of every bit of a Gray-labelled square QAM constellation: for bit b, the smallest squared distance
 * from z to the points whose label has b = 1 minus the smallest to those with b = 0, scaled by the
 * post-equaliser SNR |h|^2 / noise_var (positive: the bit is more likely 0). Points come in __constant
 * memory indexed by their labels, npoints = 2^bits_per_sym. Subcarriers in a deep fade (|h|^2 below
 * fade_floor) are erased: all their LLRs are 0. */
#define MAX_BITS 10

__kernel void qam_maxlog_llr(const int nsym, const int npoints, const int bits_per_sym,
                             const float noise_var, const float fade_floor,
                             __global const float2 *rx,
                             __global const float2 *chan,
                             __constant float2 *constel,
                             __global float *llr)
{
    const int i = get_global_id(0);
    if (i >= nsym)
        return;

    __global float *out = llr + (size_t)i * bits_per_sym;
    const float2 h = chan[i];
    const float2 y = rx[i];
    const float g = h.x * h.x + h.y * h.y;
    if (g < fade_floor) {
        for (int b = 0; b < bits_per_sym; b++)
            out[b] = 0.0f;
        return;
    }
    const float2 z = (float2)(y.x * h.x + y.y * h.y, y.y * h.x - y.x * h.y) / g;

    float dmin0[MAX_BITS], dmin1[MAX_BITS];
    for (int b = 0; b < bits_per_sym; b++) {
        dmin0[b] = MAXFLOAT;
        dmin1[b] = MAXFLOAT;
    }
    for (int p = 0; p < npoints; p++) {
        const float2 c = constel[p];
        const float dx = z.x - c.x;
        const float dy = z.y - c.y;
        const float d = dx * dx + dy * dy;
        for (int b = 0; b < bits_per_sym; b++) {
            if ((p >> b) & 1)
                dmin1[b] = fmin(dmin1[b], d);
            else
                dmin0[b] = fmin(dmin0[b], d);
        }
    }

    const float snr = g / noise_var;
    for (int b = 0; b < bits_per_sym; b++)
        out[b] = (dmin1[b] - dmin0[b]) * snr;
}
