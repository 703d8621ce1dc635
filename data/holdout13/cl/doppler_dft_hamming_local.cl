/* Doppler processing of a coherent processing interval: for every range bin, a Hamming-windowed DFT across the
 * npulse slow-time samples, giving the power of each Doppler bin. The range-compressed data are pulse-major
 * (x[p * nrange + r], complex), so a range bin's slow-time samples are strided. A work-group takes range bins in
 * turn (looping by the number of groups): it gathers the bin's samples into __local memory, windowed, and the
 * work-items then take Doppler bins k in turn, each summing x[p] exp(-2 pi j k p / npulse) with the twiddles from
 * a __local table the group fills once (index k * p mod npulse). The output is the range-Doppler power map,
 * Doppler-major and centred (zero Doppler in row npulse / 2): pow[((k + npulse / 2) mod npulse) * nrange + r]. */
__kernel void doppler_dft_hamming_local(const int nrange, const int npulse,
                                        __global const float2 *x,
                                        __global float *pow_map,
                                        __local float2 *tw,
                                        __local float2 *slow)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const float two_pi_n = 6.283185307179586f / npulse;

    for (int m = lid; m < npulse; m += lsz) {
        float c;
        const float s = sincos(two_pi_n * m, &c);
        tw[m] = (float2)(c, -s);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int r = get_group_id(0); r < nrange; r += get_num_groups(0)) {
        for (int p = lid; p < npulse; p += lsz) {
            const float win = 0.54f - 0.46f * cos(6.283185307179586f * p / (npulse - 1));
            slow[p] = x[(size_t)p * nrange + r] * win;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = lid; k < npulse; k += lsz) {
            float re = 0.0f;
            float im = 0.0f;
            int idx = 0;
            for (int p = 0; p < npulse; p++) {
                const float2 v = slow[p];
                const float2 t = tw[idx];
                re += v.x * t.x - v.y * t.y;
                im += v.x * t.y + v.y * t.x;
                idx += k;
                if (idx >= npulse)
                    idx -= npulse;
            }
            const int row = (k + npulse / 2) % npulse;
            pow_map[(size_t)row * nrange + r] = re * re + im * im;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
