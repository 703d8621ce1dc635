/* MFCCs of STFT frames. spec holds nframes frames of nbins complex bins (re, im interleaved, bins 0 .. nfft/2).
 * Work-groups take frames in turn (a group moves on by the number of groups). The group squares the frame's
 * bins into a power spectrum in __local memory; each work-item then sums its mel bands: band m is a triangle
 * over the fractional bin positions mel_pts[m] < k < mel_pts[m + 2] peaking at mel_pts[m + 1], area-
 * normalised (Slaney: 2 / width), and goes to decibels with a floor amin. The log-mel frame is kept in
 * __local as well, and a DCT-II (orthonormal) of it gives the ncep cepstral coefficients. Both the log-mel
 * energies and the MFCCs are written out. Bands narrower than a bin can be empty; they get the floor. */
__kernel void mfcc_frame_local(const int nframes, const int nbins, const int nmel, const int ncep,
                               const float amin,
                               __global const float *spec,
                               __global const float *mel_pts,
                               __global float *logmel,
                               __global float *mfcc,
                               __local float *pw,
                               __local float *lm)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int f = get_group_id(0); f < nframes; f += get_num_groups(0)) {
        __global const float *row = spec + (size_t)f * nbins * 2;
        for (int k = lid; k < nbins; k += lsz) {
            const float re = row[2 * k];
            const float im = row[2 * k + 1];
            pw[k] = re * re + im * im;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int m = lid; m < nmel; m += lsz) {
            const float lo = mel_pts[m];
            const float mid = mel_pts[m + 1];
            const float hi = mel_pts[m + 2];
            float e = 0.0f;
            for (int k = (int)floor(lo) + 1; k < hi && k < nbins; k++) {
                const float w = (k <= mid) ? (k - lo) / (mid - lo) : (hi - k) / (hi - mid);
                e += w * pw[k];
            }
            e *= 2.0f / (hi - lo);
            const float db = 10.0f * log10(fmax(e, amin));
            lm[m] = db;
            logmel[(size_t)f * nmel + m] = db;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int c = lid; c < ncep; c += lsz) {
            float s = 0.0f;
            for (int m = 0; m < nmel; m++)
                s += lm[m] * cos(M_PI_F * c * (m + 0.5f) / nmel);
            const float norm = (c == 0) ? sqrt(1.0f / nmel) : sqrt(2.0f / nmel);
            mfcc[(size_t)f * ncep + c] = norm * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
