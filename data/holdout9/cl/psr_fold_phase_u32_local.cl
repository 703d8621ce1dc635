/* Folds a dedispersed 8-bit time series (four samples a uint32 word, the earliest in the low byte) at nfold
 * trial spin frequencies and frequency derivatives, as a pulsar search's refinement step does. A work-group
 * folds one trial at a time (groups loop over the trials by get_num_groups). The pulse phase is 64-bit fixed
 * point (2^64 = one turn), so it wraps exactly: phase(t) = t * dphi + t^2 * ddphi, products modulo 2^64; the
 * bin is the phase's top 32 bits scaled by nbins. Each bin's sample sum and hit count are kept in __local
 * memory with atomic_add / atomic_inc; then the group writes the folded profile minus the series mean and the
 * reduced chi^2 of the profile against a flat one (stats = series mean, series variance). */
__kernel void psr_fold_phase_u32_local(const int nwords, const int nfold, const int nbins,
                                       __global const uint *series,
                                       __global const ulong *trial_dphi,
                                       __global const ulong *trial_ddphi,
                                       __global const float *stats,
                                       __global float *prof,
                                       __global float *chi2,
                                       __local int *lsum,
                                       __local int *lcnt)
{
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const float mean = stats[0];
    const float var = stats[1];

    for (int f = get_group_id(0); f < nfold; f += get_num_groups(0)) {
        for (int b = lid; b < nbins; b += lsize) {
            lsum[b] = 0;
            lcnt[b] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const ulong dphi = trial_dphi[f];
        const ulong ddphi = trial_ddphi[f];
        for (int w = lid; w < nwords; w += lsize) {
            const uint word = series[w];
            for (int k = 0; k < 4; k++) {
                const ulong t = (ulong)(4 * w + k);
                const ulong ph = t * dphi + t * t * ddphi;
                const int bin = (int)(((ph >> 32) * (ulong)nbins) >> 32);
                atomic_add(&lsum[bin], (int)((word >> (8 * k)) & 0xffu));
                atomic_inc(&lcnt[bin]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int b = lid; b < nbins; b += lsize) {
            const int n = lcnt[b];
            prof[(size_t)f * nbins + b] = n > 0 ? (float)lsum[b] / (float)n - mean : 0.0f;
        }
        if (lid == 0) {
            float x2 = 0.0f;
            for (int b = 0; b < nbins; b++) {
                const int n = lcnt[b];
                if (n > 0) {
                    const float dev = (float)lsum[b] / (float)n - mean;
                    x2 += (float)n * dev * dev;
                }
            }
            chi2[f] = x2 / (var * (float)(nbins - 1));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
