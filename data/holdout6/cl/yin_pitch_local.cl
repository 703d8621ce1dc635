/* YIN pitch detector for speech at 16 kHz. Work-groups take analysis frames in turn (frame f starts at
 * f * hop; a group moves on by the number of groups). The group copies the frame's win + maxlag samples
 * into __local memory; then each work-item computes the difference function
 *     d(tau) = sum_{j < win} (x[j] - x[j + tau])^2
 * for its lags tau = lid, lid + lsz, ... <= maxlag. One work-item turns d into the cumulative-mean-
 * normalised difference d'(tau) = d(tau) tau / sum_{1 <= k <= tau} d(k) (d'(0) = 1), takes the first
 * lag tau >= minlag where d' falls below thresh, walks down to the bottom of that dip and refines it
 * by parabolic interpolation: period gets the pitch period in samples, or 0 for an unvoiced frame (no
 * dip). d' is written out for every lag (the voicing decision of a later stage reads it). */
__kernel void yin_pitch_local(const int nframes, const int hop, const int win, const int minlag,
                              const int maxlag, const float thresh,
                              __global const float *audio,
                              __global float *cmnd,
                              __global float *period,
                              __local float *frame,
                              __local float *diff)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int f = get_group_id(0); f < nframes; f += get_num_groups(0)) {
        __global const float *src = audio + (size_t)f * hop;
        for (int j = lid; j < win + maxlag; j += lsz)
            frame[j] = src[j];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int tau = lid; tau <= maxlag; tau += lsz) {
            float acc = 0.0f;
            for (int j = 0; j < win; j++) {
                const float d = frame[j] - frame[j + tau];
                acc += d * d;
            }
            diff[tau] = acc;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (lid == 0) {
            float running = 0.0f;
            diff[0] = 1.0f;
            for (int tau = 1; tau <= maxlag; tau++) {
                running += diff[tau];
                diff[tau] = running > 0.0f ? diff[tau] * (float)tau / running : 1.0f;
            }
            int best = 0;
            for (int tau = minlag; tau < maxlag; tau++) {
                if (diff[tau] < thresh) {
                    while (tau + 1 < maxlag && diff[tau + 1] < diff[tau])
                        tau++;
                    best = tau;
                    break;
                }
            }
            float p = 0.0f;
            if (best > 0) {
                const float a = diff[best - 1], m = diff[best], c = diff[best + 1];
                const float den = a - 2.0f * m + c;
                p = (float)best + (den > 0.0f ? 0.5f * (a - c) / den : 0.0f);
            }
            period[f] = p;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int tau = lid; tau <= maxlag; tau += lsz)
            cmnd[(size_t)f * (maxlag + 1) + tau] = diff[tau];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
