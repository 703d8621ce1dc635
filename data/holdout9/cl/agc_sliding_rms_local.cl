/* Automatic gain control of seismic traces with a centred RMS window, a work-group per trace (the groups loop
 * over the traces by get_num_groups). The trace is staged in __local memory and cut into one contiguous chunk
 * of samples per work-item. An item sums the squares over the window [s - hwin, s + hwin] (clipped to the
 * trace) of its chunk's first sample directly, then slides the window along the chunk, adding the square that
 * enters and subtracting the one that leaves while the window is not clipped at that end; the RMS is over the
 * samples inside. gain = target / rms, out = gain * x; a dead window (rms <= eps: a dead trace, the top mute)
 * gets gain 0. The gains are written too, so that the AGC can be undone after the processing that needed it. */
__kernel void agc_sliding_rms_local(const int ntrace, const int nsamp, const int hwin,
                                    const float target, const float eps,
                                    __global const float *data,
                                    __global float *agc_out,
                                    __global float *gain,
                                    __local float *tr)
{
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int chunk = (nsamp + lsize - 1) / lsize;
    const int s0 = lid * chunk;
    const int s1 = min(s0 + chunk, nsamp);

    for (int trace = get_group_id(0); trace < ntrace; trace += get_num_groups(0)) {
        const size_t base = (size_t)trace * nsamp;
        for (int s = lid; s < nsamp; s += lsize)
            tr[s] = data[base + s];
        barrier(CLK_LOCAL_MEM_FENCE);

        int lo = max(s0 - hwin, 0);
        int hi = min(s0 + hwin, nsamp - 1);
        float e = 0.0f;
        for (int j = lo; j <= hi; j++)
            e += tr[j] * tr[j];
        for (int s = s0; s < s1; s++) {
            if (s > s0) {
                if (s + hwin < nsamp) {
                    hi++;
                    e += tr[hi] * tr[hi];
                }
                if (s - hwin > 0) {
                    e -= tr[lo] * tr[lo];
                    lo++;
                }
            }
            const float rms = sqrt(fmax(e, 0.0f) / (float)(hi - lo + 1));
            const float g = rms > eps ? target / rms : 0.0f;
            agc_out[base + s] = g * tr[s];
            gain[base + s] = g;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
