/* N-1 contingency screening with line outage distribution factors (DC power flow). After the outage of branch
 * l_k the flow on a monitored branch m becomes f_m + LODF[k][m] * f_lk (base-case flows f); the outaged branch
 * itself carries nothing. The LODF matrix holds one row per outage of the contingency list (outline: the branch
 * of each) over the monitored branches (monline: the branch of each, rating: its emergency rating). A work-item
 * takes one monitored branch (dim 0) and a word of 32 consecutive outages (dim 1): bit b of viol is set when
 * outage 32 * word + b overloads the branch, and worst receives the highest loading |flow| / rating seen in the
 * word (the base case included), both stored word-major for the ranking pass that follows. */
__kernel void lodf_n1_screen_bits_2d(const int nmon, const int nout, const int nwords,
                                     __global const int *outline,
                                     __global const int *monline,
                                     __global const float *lodf,
                                     __global const float *flow,
                                     __global const float *rating,
                                     __global uint *viol,
                                     __global float *worst)
{
    const int m = get_global_id(0);
    const int w = get_global_id(1);
    if (m >= nmon || w >= nwords)
        return;

    const int me = monline[m];
    const float f0 = flow[me];
    const float lim = rating[m];
    const int k0 = w * 32;
    const int k1 = min(k0 + 32, nout);

    uint bits = 0u;
    float peak = fabs(f0);
    for (int k = k0; k < k1; k++) {
        const int br = outline[k];
        float post = 0.0f;
        if (br != me)
            post = f0 + lodf[(size_t)k * nmon + m] * flow[br];
        post = fabs(post);
        if (post > lim)
            bits |= 1u << (k - k0);
        peak = fmax(peak, post);
    }
    viol[(size_t)w * nmon + m] = bits;
    worst[(size_t)w * nmon + m] = peak / lim;
}
