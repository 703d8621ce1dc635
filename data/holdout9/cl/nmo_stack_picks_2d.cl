/* Normal-moveout correction and stack of common-midpoint gathers, 2-D NDRange (zero-offset time sample, CMP).
 * Every CMP has npick RMS-velocity picks (times in s, ascending; velocities in m/s); the velocity at t0 is
 * interpolated linearly between the two picks that bracket it and held constant before the first and after the
 * last. Trace k of the gather (fold traces of nsamp samples, source-receiver offset offsets[k] in m) is read at
 * the hyperbolic time sqrt(t0^2 + x^2 / v^2) with linear interpolation. A sample stretched by more than the
 * mute (t > (1 + stretch_mute) t0) or past the end of the trace is muted. The stack is the mean over the live
 * traces; the live count (the fold actually stacked) is written too. */
__kernel void nmo_stack_picks_2d(const int nsamp, const int ncmp, const int fold, const int npick,
                                 const float dt, const float stretch_mute,
                                 __global const float *traces,
                                 __global const float *offsets,
                                 __global const float *pick_t,
                                 __global const float *pick_v,
                                 __global float *stack,
                                 __global int *live)
{
    const int it = get_global_id(0);
    const int cmp = get_global_id(1);
    if (it >= nsamp || cmp >= ncmp)
        return;

    const float t0 = it * dt;
    __global const float *pt = pick_t + cmp * npick;
    __global const float *pv = pick_v + cmp * npick;
    float v;
    if (t0 <= pt[0]) {
        v = pv[0];
    } else if (t0 >= pt[npick - 1]) {
        v = pv[npick - 1];
    } else {
        int k = 0;
        while (pt[k + 1] < t0)
            k++;
        const float w = (t0 - pt[k]) / (pt[k + 1] - pt[k]);
        v = pv[k] + w * (pv[k + 1] - pv[k]);
    }
    const float slow2 = 1.0f / (v * v);
    const float tmax = (1.0f + stretch_mute) * t0;

    __global const float *gather = traces + (size_t)cmp * fold * nsamp;
    float sum = 0.0f;
    int n = 0;
    for (int k = 0; k < fold; k++) {
        const float x = offsets[cmp * fold + k];
        const float t = sqrt(t0 * t0 + x * x * slow2);
        if (t > tmax)
            continue;
        const float s = t / dt;
        const int i0 = (int)s;
        if (i0 >= nsamp - 1)
            continue;
        const float f = s - (float)i0;
        __global const float *tr = gather + (size_t)k * nsamp;
        sum += (1.0f - f) * tr[i0] + f * tr[i0 + 1];
        n++;
    }
    stack[(size_t)cmp * nsamp + it] = n > 0 ? sum / (float)n : 0.0f;
    live[(size_t)cmp * nsamp + it] = n;
}
