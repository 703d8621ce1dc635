/* Chromagram from spectral peaks, one work-item per (bin, frame) of a magnitude spectrogram (frames of nbins
 * bins). bin_pc maps a bin to its pitch class (0 = C .. 11 = B, by the nearest equal-tempered note of the bin's
 * centre frequency, A4 = 440 Hz), or -1 for bins outside the analysed range (bass rumble, the top octaves, and
 * the first and last bins). A bin votes when it is a peak: above the threshold and strictly above every bin
 * within halfw on either side (the walk stops at the first neighbour that is as loud). The vote adds the
 * peak's magnitude in fixed point (scale units per unit magnitude, truncated) to the frame's pitch class with
 * atomic_add, and counts the peak for the frame with atomic_inc; integer sums do not depend on the order. */
__kernel void chroma_peak_fixed_2d(const int nbins, const int nframes, const int halfw,
                                   const float thresh, const float scale,
                                   __global const float *mag,
                                   __global const int *bin_pc,
                                   __global uint *chroma,
                                   __global uint *npeaks)
{
    const int k = get_global_id(0);
    const int t = get_global_id(1);
    if (k >= nbins || t >= nframes)
        return;

    const int pc = bin_pc[k];
    if (pc < 0)
        return;

    __global const float *row = mag + (size_t)t * nbins;
    const float m = row[k];
    if (m <= thresh)
        return;

    const int jlo = max(k - halfw, 0);
    const int jhi = min(k + halfw, nbins - 1);
    for (int j = jlo; j <= jhi; j++) {
        if (j != k && row[j] >= m)
            return;
    }

    atomic_add(&chroma[t * 12 + pc], (uint)(m * scale));
    atomic_inc(&npeaks[t]);
}
