/* Rational sample-rate conversion by up / down (44.1 kHz -> 48 kHz is up = 160, down = 147) of interleaved
 * multichannel audio through a polyphase windowed-sinc filter bank. Output frame n sits at input time
 *     t = n * down / up = i0 + ph / up,   i0 = floor(n * down / up),   ph = (n * down) mod up,
 * and phase ph of the bank holds the ntaps coefficients bank[ph][k] that weigh the input frames
 * i0 - ntaps / 2 + 1 + k (the host designs the bank: Kaiser-windowed sinc, cut-off below both Nyquist
 * frequencies, unity gain at DC). Frames before the start or past the end of the input count as silence,
 * so the tap range is clipped at both ends. A work-item makes one output frame, all nch channels of it
 * (at most MAXCH) in private accumulators, so each coefficient is loaded once per frame. */
#define MAXCH 8

__kernel void polyphase_sinc_resample(const int nout, const int nin, const int nch,
                                      const int up, const int down, const int ntaps,
                                      __global const float *bank,
                                      __global const float *x,
                                      __global float *y)
{
    const int n = get_global_id(0);
    if (n >= nout)
        return;

    const long pos = (long)n * down;
    const int i0 = (int)(pos / up);
    const int ph = (int)(pos - (long)i0 * up);
    const int first = i0 - ntaps / 2 + 1;

    int kbeg = 0;
    int kend = ntaps;
    if (first < 0)
        kbeg = -first;
    if (first + ntaps > nin)
        kend = nin - first;

    float acc[MAXCH];
    for (int c = 0; c < nch; c++)
        acc[c] = 0.0f;

    __global const float *h = bank + ph * ntaps;
    for (int k = kbeg; k < kend; k++) {
        const float hk = h[k];
        __global const float *frame = x + (size_t)(first + k) * nch;
        for (int c = 0; c < nch; c++)
            acc[c] += hk * frame[c];
    }

    __global float *out = y + (size_t)n * nch;
    for (int c = 0; c < nch; c++)
        out[c] = acc[c];
}
