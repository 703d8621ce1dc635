#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Policer dimensioning by trace replay: the single-rate three-colour marker of RFC 2697 (colour-blind mode) run
 * over every flow of a packet trace under every candidate profile, on a 2-D (profile, flow) NDRange. A flow's
 * packets lie together in time order (flow_off[f] .. flow_off[f + 1]), with arrival times in seconds and lengths
 * in bytes. Profile p has a committed rate cir (bytes per second), a committed burst size cbs and an excess
 * burst size ebs; both buckets start full. Before each packet the elapsed time's tokens fill the committed bucket
 * and spill into the excess one, each capped at its size; the packet is green when the committed bucket holds
 * its length, else yellow when the excess bucket does, else red. The work-item writes the flow's green, yellow
 * and red bytes under the profile and both bucket levels at the end (the state for the next trace chunk). */
__kernel void srtcm_replay_fp64_2d(const int nprof, const int nflow,
                                   __global const int *flow_off,
                                   __global const double *pkt_time,
                                   __global const int *pkt_len,
                                   __global const double *cir,
                                   __global const double *cbs,
                                   __global const double *ebs,
                                   __global int *color_bytes,
                                   __global double *bucket_end)
{
    const int p = get_global_id(0);
    const int f = get_global_id(1);
    if (p >= nprof || f >= nflow)
        return;

    const double rate = cir[p];
    const double c_max = cbs[p];
    const double e_max = ebs[p];
    double tc = c_max;
    double te = e_max;
    int green = 0, yellow = 0, red = 0;

    const int first = flow_off[f];
    const int end = flow_off[f + 1];
    double last = (first < end) ? pkt_time[first] : 0.0;
    for (int k = first; k < end; k++) {
        const double t = pkt_time[k];
        const double add = (t - last) * rate;
        last = t;
        const double room = c_max - tc;
        if (add <= room) {
            tc += add;
        } else {
            tc = c_max;
            te = fmin(e_max, te + (add - room));
        }

        const int len = pkt_len[k];
        if (tc >= len) {
            tc -= len;
            green += len;
        } else if (te >= len) {
            te -= len;
            yellow += len;
        } else {
            red += len;
        }
    }

    const size_t o = (size_t)f * nprof + p;
    color_bytes[3 * o] = green;
    color_bytes[3 * o + 1] = yellow;
    color_bytes[3 * o + 2] = red;
    bucket_end[2 * o] = tc;
    bucket_end[2 * o + 1] = te;
}
